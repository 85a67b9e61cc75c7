#!/usr/bin/env node
// The install script of the development manifest (bindings/node/package.json):
// `npm install ./bindings/node`, `npm ci` here, or a `file:` dependency on
// this directory builds the addon from source (build.js). The published
// `libauth` package has no install script: its addon comes prebuilt in the
// package for the platform (`libauth-<os>-<cpu>[-<libc>]`, an optional
// dependency; see scripts/npm-packages.js and lib/loader.js).
"use strict";
const fs = require("node:fs");
const path = require("node:path");

const pkgDir = path.resolve(__dirname, "..");
const workspace = path.resolve(pkgDir, "..", "..");

if (fs.existsSync(path.join(workspace, "Cargo.toml")) && fs.existsSync(path.join(pkgDir, "src", "lib.rs"))) {
  require("./build.js");
} else {
  console.error(
    "libauth: not a repository checkout, so nothing to build; install the published `libauth` package, or build from a checkout (bindings/node: `npm run build`)",
  );
  process.exit(1);
}
