#!/usr/bin/env node
// Build the native addon from source with cargo and put it next to the
// package as `libauth.node`. Runs as the package's install script, so
// `npm install ./bindings/node` (or a `file:` dependency) builds it.
//
// It also copies the browser module for passkeys, `core/assets/webauthn.js`
// (the one source the engine serves too), into the package as
// `webauthn.mjs` + `webauthn.d.ts`: `import … from "libauth/webauthn"`.
//
// LIBAUTH_PROFILE=release builds with optimisations (the benchmark does);
// the default is a debug build, which is what the tests use.
// LIBAUTH_FEATURES adds cargo features (`vendored-openssl`: OpenSSL compiled
// in, for a machine without OpenSSL's headers, such as macOS). LIBAUTH_OUT
// names another destination file (the addon is then loaded with
// LIBAUTH_NATIVE=<that file>).
"use strict";
const { spawnSync } = require("node:child_process");
const fs = require("node:fs");
const path = require("node:path");

const pkgDir = path.resolve(__dirname, "..");
const workspace = path.resolve(pkgDir, "..", "..");
const profile = process.env.LIBAUTH_PROFILE === "release" ? "release" : "debug";
const target = process.env.CARGO_TARGET_DIR
  ? path.resolve(process.env.CARGO_TARGET_DIR)
  : path.join(workspace, "target");

if (!fs.existsSync(path.join(workspace, "Cargo.toml"))) {
  console.error(`libauth: no Cargo workspace at ${workspace}; install libauth from its repository checkout`);
  process.exit(1);
}

// The browser module first: it needs no compiler.
for (const [from, to] of [
  ["webauthn.js", "webauthn.mjs"],
  ["webauthn.d.ts", "webauthn.d.ts"],
]) {
  const tmp = path.join(pkgDir, `${to}.${process.pid}.tmp`);
  fs.copyFileSync(path.join(workspace, "core", "assets", from), tmp);
  fs.renameSync(tmp, path.join(pkgDir, to));
}
if (process.argv.includes("--assets-only")) process.exit(0);

const args = ["build", "-p", "libauth-node"];
if (profile === "release") args.push("--release");
if (process.env.LIBAUTH_FEATURES) args.push("--features", process.env.LIBAUTH_FEATURES);
const cargo = process.env.CARGO || "cargo";
const env = { ...process.env };
if (!env.PATH.split(path.delimiter).some((p) => fs.existsSync(path.join(p, "cargo")))) {
  env.PATH = `${path.join(require("node:os").homedir(), ".cargo", "bin")}${path.delimiter}${env.PATH}`;
}
const run = spawnSync(cargo, args, { cwd: workspace, stdio: "inherit", env });
if (run.status !== 0) {
  console.error(`libauth: \`${cargo} ${args.join(" ")}\` failed (is Rust installed? https://rustup.rs)`);
  process.exit(run.status || 1);
}

const names = { linux: "liblibauth_node.so", darwin: "liblibauth_node.dylib", win32: "libauth_node.dll" };
const built = path.join(target, profile, names[process.platform] || names.linux);
const dest = process.env.LIBAUTH_OUT ? path.resolve(process.env.LIBAUTH_OUT) : path.join(pkgDir, "libauth.node");
// Copy to a temporary name and rename, so a running process that has the
// old addon mapped keeps a valid file.
const tmp = `${dest}.${process.pid}.tmp`;
fs.copyFileSync(built, tmp);
fs.renameSync(tmp, dest);
console.log(`libauth: built ${path.relative(process.cwd(), dest) || dest} (${profile})`);
