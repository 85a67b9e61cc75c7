"use strict";
// Finding and loading the native addon, in this order:
//
// 1. LIBAUTH_NATIVE: a file named by the user (an addon built from source);
// 2. `libauth.node` next to this package: the build from a repository
//    checkout (`npm run build` in bindings/node), what development and the
//    tests use;
// 3. the package for this platform, `libauth-<os>-<cpu>[-<libc>]` (one of the
//    root package's optionalDependencies; npm installs only the one whose
//    `os`, `cpu` and `libc` match).
//
// Whatever fails says in plain words what was expected, what was found and
// how to build the addon from a checkout instead.

const fs = require("node:fs");
const path = require("node:path");

/** The platforms with a prebuilt addon package, and what each needs. */
const PACKAGES = {
  "linux-x64-gnu": "Linux x86-64, glibc 2.17 or newer",
  "linux-x64-musl": "Linux x86-64, musl (Alpine)",
  "linux-arm64-gnu": "Linux arm64 (aarch64), glibc 2.17 or newer",
  "linux-arm64-musl": "Linux arm64 (aarch64), musl (Alpine)",
};
const GLIBC_FLOOR = "2.17";

const BUILD_FROM_SOURCE =
  "build the addon from a checkout of the libauth repository (needs Rust, a C compiler, perl and make): " +
  "`cd bindings/node && npm run build:release`, then start your app with " +
  "LIBAUTH_NATIVE=<checkout>/bindings/node/libauth.node";

/**
 * What this process runs on: os, cpu, and on Linux the C library
 * (`gnu` with its version, or `musl`), as Node reports it.
 */
function detectHost() {
  const host = { platform: process.platform, arch: process.arch, libc: null, glibc: null, node: process.version };
  if (host.platform !== "linux") return host;
  let header = {};
  let shared = [];
  const excludeNetwork = process.report?.excludeNetwork;
  try {
    // The report's network section can be slow (DNS) and is not needed; the
    // setting is the process's, so it is put back.
    process.report.excludeNetwork = true;
    const report = process.report.getReport();
    header = report.header ?? {};
    shared = report.sharedObjects ?? [];
  } catch {
    /* no report: fall back on ldd below */
  } finally {
    if (process.report) process.report.excludeNetwork = excludeNetwork;
  }
  if (header.glibcVersionRuntime) {
    host.libc = "gnu";
    host.glibc = header.glibcVersionRuntime;
  } else if (shared.some((f) => /(^|\/)(ld-musl|libc\.musl)/.test(f)) || lddSaysMusl()) {
    host.libc = "musl";
  } else {
    host.libc = "unknown";
  }
  return host;
}

function lddSaysMusl() {
  try {
    return fs.readFileSync("/usr/bin/ldd", "latin1").includes("musl");
  } catch {
    return false;
  }
}

/** `linux-x64-gnu`, `darwin-arm64`, …: the suffix of the package's name. */
function targetOf(host) {
  return host.platform === "linux" ? `${host.platform}-${host.arch}-${host.libc}` : `${host.platform}-${host.arch}`;
}

function describe(host) {
  const libc =
    host.platform !== "linux"
      ? ""
      : host.libc === "gnu"
        ? `, glibc ${host.glibc}`
        : host.libc === "musl"
          ? ", musl"
          : ", C library not recognised (neither glibc nor musl)";
  return `${host.platform} ${host.arch}${libc}, Node ${host.node}`;
}

function versionBelow(a, b) {
  const [x, y] = [a, b].map((v) => v.split(".").map(Number));
  for (let i = 0; i < Math.max(x.length, y.length); i++) {
    if ((x[i] ?? 0) !== (y[i] ?? 0)) return (x[i] ?? 0) < (y[i] ?? 0);
  }
  return false;
}

/**
 * A sentence on why an addon that exists did not load, from the loader's
 * message (glibc's own can mislead: a file for another CPU is reported as
 * "No such file or directory").
 */
function explainLoadError(message, host) {
  const glibc = /GLIBC_([0-9.]+)'? not found/.exec(message);
  if (glibc) {
    return `it needs glibc ${glibc[1]} or newer and this system has ${host.glibc ? `glibc ${host.glibc}` : "an older C library"}`;
  }
  if (/libssl|libcrypto/.test(message)) {
    return "it was built against the system's OpenSSL, which is not here (release addons have OpenSSL inside)";
  }
  if (/libc\.musl|ld-musl|Error relocating|symbol not found/i.test(message)) {
    return `it was built for another C library than this system's (${describe(host)})`;
  }
  if (
    /cannot open shared object file: No such file or directory|wrong ELF class|invalid ELF header|file too short|Exec format error|not a mach-o file|incompatible architecture|not a valid Win32 application/i.test(
      message,
    )
  ) {
    return `the file is not an addon for this CPU and C library (${describe(host)}): it was built for another platform, or is damaged`;
  }
  return null;
}

function loadError(what, file, e, host, expected) {
  const why = explainLoadError(e.message, host);
  return new Error(
    [
      `libauth: ${what} does not load (${file}): ${e.message}`,
      `  expected: ${expected}`,
      `  found: ${describe(host)}`,
      ...(why ? [`  likely: ${why}`] : []),
      `  way out: ${BUILD_FROM_SOURCE}`,
    ].join("\n"),
    { cause: e },
  );
}

/** `require` of a platform package, with a literal name per platform so bundlers' dependency tracers find it. */
const platformPackages = {
  "linux-x64-gnu": () => require("libauth-linux-x64-gnu"),
  "linux-x64-musl": () => require("libauth-linux-x64-musl"),
  "linux-arm64-gnu": () => require("libauth-linux-arm64-gnu"),
  "linux-arm64-musl": () => require("libauth-linux-arm64-musl"),
};

function packageVersion() {
  try {
    return JSON.parse(fs.readFileSync(path.join(__dirname, "..", "package.json"), "utf8")).version;
  } catch {
    return null;
  }
}

/** Load the addon (see the top of this file for the order), or throw an Error that says what to do. */
function load(env = process.env) {
  const host = { node: process.version };
  const lazyHost = () => Object.assign(host, detectHost());

  if (env.LIBAUTH_NATIVE) {
    const file = path.resolve(env.LIBAUTH_NATIVE);
    try {
      return require(file);
    } catch (e) {
      const missing = !fs.existsSync(file);
      if (missing) {
        return fail(
          [
            `libauth: LIBAUTH_NATIVE names ${file}, which does not exist`,
            "  expected: the path of an addon built from source (libauth.node)",
            `  way out: ${BUILD_FROM_SOURCE}; or unset LIBAUTH_NATIVE to use the prebuilt package`,
          ].join("\n"),
          e,
        );
      }
      throw loadError("the addon named by LIBAUTH_NATIVE", file, e, lazyHost(), "an addon built for this platform");
    }
  }

  const local = path.join(__dirname, "..", "libauth.node");
  if (fs.existsSync(local)) {
    try {
      // The literal path lets bundlers' dependency tracers find the addon.
      return require("../libauth.node");
    } catch (e) {
      throw loadError(
        "the addon built in this checkout",
        local,
        e,
        lazyHost(),
        "an addon built on this machine: rebuild it with `npm run build` in bindings/node",
      );
    }
  }

  lazyHost();
  const target = targetOf(host);
  const name = `libauth-${target}`;
  const version = packageVersion();
  const supported = Object.entries(PACKAGES)
    .map(([t, what]) => `libauth-${t} (${what})`)
    .join("; ");
  const loadPackage = platformPackages[target];
  if (!loadPackage) {
    return fail(
      [
        `libauth: there is no prebuilt addon for this platform (${describe(host)})`,
        `  expected: one of ${supported}`,
        `  found: ${describe(host)}: no package ${name} exists`,
        `  way out: ${BUILD_FROM_SOURCE}`,
      ].join("\n"),
    );
  }
  try {
    return loadPackage();
  } catch (e) {
    if (e.code === "MODULE_NOT_FOUND" && e.message.includes(`'${name}'`)) {
      const spec = version ? `${name}@${version}` : name;
      return fail(
        [
          `libauth: the addon package for this platform, ${name}, is not installed`,
          `  expected: ${spec} (${PACKAGES[target]}), an optional dependency of libauth that npm installs on this platform`,
          `  found: ${describe(host)}, and no ${name} next to libauth`,
          "  likely: npm skipped optional dependencies (--omit=optional, --no-optional), or package-lock.json or node_modules came from another platform (npm/cli#4828)",
          `  way out: \`npm install ${spec}\`, or remove node_modules and package-lock.json and run \`npm install\` again; or ${BUILD_FROM_SOURCE}`,
        ].join("\n"),
        e,
      );
    }
    let file = name;
    try {
      file = require.resolve(name);
    } catch {
      /* keep the name */
    }
    const floor = host.libc === "gnu" && host.glibc && versionBelow(host.glibc, GLIBC_FLOOR);
    const expected = `${name} (${PACKAGES[target]})${floor ? `; this system's glibc ${host.glibc} is older than ${GLIBC_FLOOR}` : ""}`;
    throw loadError(`the addon package ${name}`, file, e, host, expected);
  }
}

function fail(message, cause) {
  throw new Error(message, cause ? { cause } : undefined);
}

module.exports = { load, detectHost, targetOf, explainLoadError, PACKAGES, GLIBC_FLOOR };
