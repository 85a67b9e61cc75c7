// How the addon is found (lib/loader.js), and what a user reads when it is
// not: each case runs a copy of the loader in a subprocess, inside a scratch
// node_modules laid out as npm would (the root package, and maybe a platform
// package), with no checkout build next to it.
import { it } from "node:test";
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { copyFileSync, existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";

const pkgDir = fileURLToPath(new URL("..", import.meta.url));
const loader = createRequire(import.meta.url)("../lib/loader.js");
const host = loader.detectHost();
const hostTarget = loader.targetOf(host);
const devAddon = path.join(pkgDir, "libauth.node");

/** A scratch app with `libauth` (the loader only) and optionally a platform package holding `addon`. */
function scratch({ platformPackage, addon } = {}) {
  const dir = mkdtempSync(path.join(os.tmpdir(), "libauth-loader-"));
  const root = path.join(dir, "node_modules", "libauth");
  mkdirSync(path.join(root, "lib"), { recursive: true });
  copyFileSync(path.join(pkgDir, "lib", "loader.js"), path.join(root, "lib", "loader.js"));
  writeFileSync(path.join(root, "package.json"), JSON.stringify({ name: "libauth", version: "9.8.7" }));
  if (platformPackage) {
    const p = path.join(dir, "node_modules", platformPackage);
    mkdirSync(p, { recursive: true });
    const main = `${platformPackage.replace(/^libauth-/, "libauth.")}.node`;
    writeFileSync(path.join(p, "package.json"), JSON.stringify({ name: platformPackage, version: "9.8.7", main }));
    if (typeof addon === "string" && existsSync(addon)) copyFileSync(addon, path.join(p, main));
    else writeFileSync(path.join(p, main), addon ?? "not an ELF file");
  }
  return dir;
}

/**
 * Run the loader in `dir`; `fake` overrides process.platform/arch first.
 * @returns {{ ok: boolean, message: string }}
 */
function runLoader(dir, { env = {}, fake } = {}) {
  const script = `
    ${
      fake
        ? `Object.defineProperty(process, "platform", { value: ${JSON.stringify(fake.platform)} });
    Object.defineProperty(process, "arch", { value: ${JSON.stringify(fake.arch)} });`
        : ""
    }
    try {
      const addon = require("libauth/lib/loader.js").load();
      console.log(JSON.stringify({ ok: true, message: typeof addon.workerThreads }));
    } catch (e) {
      console.log(JSON.stringify({ ok: false, message: e.message }));
    }`;
  const childEnv = { ...process.env, ...env };
  if (!("LIBAUTH_NATIVE" in env)) delete childEnv.LIBAUTH_NATIVE;
  const run = spawnSync(process.execPath, ["-e", script], { cwd: dir, env: childEnv, encoding: "utf8" });
  assert.equal(run.status, 0, run.stderr);
  return JSON.parse(run.stdout.trim().split("\n").pop());
}

function withScratch(options, fn) {
  const dir = scratch(options);
  try {
    return fn(dir);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

it("a platform with no package: names the supported ones, what was found, and LIBAUTH_NATIVE", () => {
  withScratch({}, (dir) => {
    const { ok, message } = runLoader(dir, { fake: { platform: "freebsd", arch: "riscv64" } });
    assert.equal(ok, false);
    assert.match(message, /no prebuilt addon for this platform/);
    assert.match(message, /found: freebsd riscv64, Node v\d+/);
    for (const t of ["linux-x64-gnu", "linux-x64-musl", "linux-arm64-gnu", "linux-arm64-musl"]) {
      assert.ok(message.includes(`libauth-${t} (`), `${t} listed: ${message}`);
    }
    assert.match(message, /npm run build:release/);
    assert.match(message, /LIBAUTH_NATIVE=/);
  });
});

it("the platform's package is not installed: names it with its version, says why that happens and what to run", {
  skip: !loader.PACKAGES[hostTarget] && `no package for ${hostTarget}`,
}, () => {
  withScratch({}, (dir) => {
    const { ok, message } = runLoader(dir);
    assert.equal(ok, false);
    assert.match(message, new RegExp(`libauth-${hostTarget}, is not installed`));
    assert.match(message, new RegExp(`npm install libauth-${hostTarget}@9\\.8\\.7`));
    assert.match(message, /--omit=optional/);
    if (host.libc === "gnu") assert.ok(message.includes(`glibc ${host.glibc}`), message);
    assert.match(message, /LIBAUTH_NATIVE=/);
  });
});

it("the platform's package holds a file that does not load: the loader's message, the platform and the way out", {
  skip: !loader.PACKAGES[hostTarget] && `no package for ${hostTarget}`,
}, () => {
  withScratch({ platformPackage: `libauth-${hostTarget}` }, (dir) => {
    const { ok, message } = runLoader(dir);
    assert.equal(ok, false);
    assert.match(message, new RegExp(`the addon package libauth-${hostTarget} does not load \\(.*libauth\\.`));
    assert.match(message, /invalid ELF header|file too short/, "the dlopen message is passed on");
    assert.match(message, /likely: the file is not an addon for this CPU/);
    assert.match(message, /LIBAUTH_NATIVE=/);
  });
});

it("the platform's package with a working addon loads", {
  skip: (!loader.PACKAGES[hostTarget] || !existsSync(devAddon)) && "no package for this platform, or no build",
}, () => {
  withScratch({ platformPackage: `libauth-${hostTarget}`, addon: devAddon }, (dir) => {
    assert.deepEqual(runLoader(dir), { ok: true, message: "function" });
  });
});

it("LIBAUTH_NATIVE comes first: a missing file, a file that does not load, then one that does", () => {
  withScratch({}, (dir) => {
    const missing = runLoader(dir, { env: { LIBAUTH_NATIVE: path.join(dir, "nowhere.node") } });
    assert.equal(missing.ok, false);
    assert.match(missing.message, /LIBAUTH_NATIVE names .*nowhere\.node, which does not exist/);
    const bogus = path.join(dir, "bogus.node");
    writeFileSync(bogus, "not an ELF file");
    const broken = runLoader(dir, { env: { LIBAUTH_NATIVE: bogus } });
    assert.equal(broken.ok, false);
    assert.match(broken.message, /the addon named by LIBAUTH_NATIVE does not load \(.*bogus\.node\)/);
    assert.match(broken.message, /found: \w+ \w+/);
    if (existsSync(devAddon)) {
      assert.deepEqual(runLoader(dir, { env: { LIBAUTH_NATIVE: devAddon } }), { ok: true, message: "function" });
    }
  });
});

it("load errors are explained in plain words", () => {
  const gnu = { platform: "linux", arch: "arm64", libc: "gnu", glibc: "2.31", node: "v20.0.0" };
  assert.equal(
    loader.explainLoadError("/x/libauth.linux-arm64-gnu.node: /lib/libc.so.6: version `GLIBC_2.34' not found", gnu),
    "it needs glibc 2.34 or newer and this system has glibc 2.31",
  );
  assert.match(
    loader.explainLoadError("/x/a.node: cannot open shared object file: No such file or directory", gnu),
    /not an addon for this CPU and C library \(linux arm64, glibc 2\.31/,
  );
  assert.match(
    loader.explainLoadError("libssl.so.3: cannot open shared object file: No such file or directory", gnu),
    /system's OpenSSL/,
  );
  assert.match(
    loader.explainLoadError("libc.musl-x86_64.so.1: cannot open shared object file: No such file or directory", gnu),
    /another C library/,
  );
  assert.equal(loader.explainLoadError("something else entirely", gnu), null);
});
