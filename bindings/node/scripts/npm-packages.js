#!/usr/bin/env node
// Lay out the npm packages of a release (the napi-rs layout), ready for
// `npm pack` / `npm publish`:
//
//   <out>/libauth/                    JavaScript only: the root package, with
//                                     one optionalDependency per platform
//                                     package and no install script
//   <out>/libauth-<os>-<cpu>[-<libc>]/ one addon each, from npm/<target>/
//                                     (its `os`, `cpu` and `libc` let npm
//                                     install only the one that fits)
//
//   node scripts/npm-packages.js <out> [<target>=<addon file> ...]
//   e.g. node scripts/npm-packages.js dist/npm linux-x64-gnu=dist/libauth.linux-x64-gnu.node
//
// The root package always lists every platform package in npm/; a platform
// package is written only for the addons given. The versions are the root
// package.json's. bindings/node/package.json itself is the development
// manifest (private, with the install script that builds from the checkout).
"use strict";
const fs = require("node:fs");
const path = require("node:path");
const { spawnSync } = require("node:child_process");

const pkgDir = path.resolve(__dirname, "..");

function main(argv) {
  const [out, ...addons] = argv;
  if (!out) {
    console.error("usage: node scripts/npm-packages.js <out dir> [<target>=<addon file> ...]");
    process.exit(2);
  }
  const dev = JSON.parse(fs.readFileSync(path.join(pkgDir, "package.json"), "utf8"));
  const targets = fs
    .readdirSync(path.join(pkgDir, "npm"))
    .filter((t) => fs.existsSync(path.join(pkgDir, "npm", t, "package.json")))
    .sort();

  // The browser module (webauthn.mjs) is copied from core/assets by build.js.
  const assets = spawnSync(process.execPath, [path.join(__dirname, "build.js"), "--assets-only"], { stdio: "inherit" });
  if (assets.status !== 0) process.exit(assets.status || 1);

  // The root package: the development manifest without what only a checkout
  // needs (scripts, devDependencies), plus the platform packages.
  const root = path.join(out, dev.name);
  fs.rmSync(root, { recursive: true, force: true });
  fs.mkdirSync(root, { recursive: true });
  const manifest = { ...dev };
  delete manifest.private;
  delete manifest.scripts;
  delete manifest.devDependencies;
  manifest.optionalDependencies = Object.fromEntries(targets.map((t) => [`${dev.name}-${t}`, dev.version]));
  for (const entry of manifest.files) {
    const from = path.join(pkgDir, entry);
    if (!fs.existsSync(from)) throw new Error(`${entry} (in package.json's files) does not exist`);
    fs.cpSync(from, path.join(root, entry), { recursive: true });
  }
  fs.writeFileSync(path.join(root, "package.json"), `${JSON.stringify(manifest, null, 2)}\n`);
  console.log(`libauth: ${root} (${dev.name}@${dev.version}, JavaScript only)`);

  for (const arg of addons) {
    const eq = arg.indexOf("=");
    const target = arg.slice(0, eq);
    const file = arg.slice(eq + 1);
    if (eq < 1 || !targets.includes(target)) {
      throw new Error(`${arg}: expected <target>=<addon file> with a target among ${targets.join(", ")}`);
    }
    const platform = JSON.parse(fs.readFileSync(path.join(pkgDir, "npm", target, "package.json"), "utf8"));
    platform.version = dev.version;
    const dir = path.join(out, platform.name);
    fs.rmSync(dir, { recursive: true, force: true });
    fs.mkdirSync(dir, { recursive: true });
    fs.copyFileSync(file, path.join(dir, platform.main));
    fs.writeFileSync(path.join(dir, "package.json"), `${JSON.stringify(platform, null, 2)}\n`);
    fs.writeFileSync(
      path.join(dir, "README.md"),
      `# ${platform.name}\n\nThe native addon of [libauth](https://www.npmjs.com/package/${dev.name}) for ${platform.os}/${platform.cpu}` +
        `${platform.libc ? ` (${platform.libc})` : ""}. Install \`${dev.name}\`, not this package: npm picks this one on ` +
        "the platform it is for.\n",
    );
    console.log(`libauth: ${dir} (${platform.name}@${platform.version})`);
  }
}

main(process.argv.slice(2));
