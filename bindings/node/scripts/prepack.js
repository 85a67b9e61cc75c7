#!/usr/bin/env node
// Before `npm pack` / `npm publish`: build the addon for this platform (in
// release unless LIBAUTH_PROFILE=debug) and record what it is, so the
// tarball installs and runs where no Rust toolchain is (see install.js).
"use strict";
const fs = require("node:fs");
const path = require("node:path");

process.env.LIBAUTH_PROFILE ??= "release";
delete process.env.LIBAUTH_OUT; // the packed addon is always libauth.node
require("./build.js");
const pkgDir = path.resolve(__dirname, "..");
const prebuilt = {
  target: `${process.platform}-${process.arch}`,
  profile: process.env.LIBAUTH_PROFILE,
  napi: Number(process.versions.napi),
  builtWith: `node ${process.version}`,
};
fs.writeFileSync(path.join(pkgDir, "prebuilt.json"), `${JSON.stringify(prebuilt, null, 2)}\n`);
console.log(`libauth: packing the ${prebuilt.profile} addon for ${prebuilt.target}`);
