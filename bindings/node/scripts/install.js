#!/usr/bin/env node
// The package's install script. In a repository checkout (a Cargo
// workspace two levels up) it builds the addon from source (build.js). In a
// package installed from the registry or a tarball, the addon for the
// platform it was packed on is inside it (`libauth.node`, described by
// `prebuilt.json`): check that it matches this platform and loads, and build
// nothing, so no Rust toolchain is needed.
"use strict";
const fs = require("node:fs");
const path = require("node:path");

const pkgDir = path.resolve(__dirname, "..");
const workspace = path.resolve(pkgDir, "..", "..");

if (fs.existsSync(path.join(workspace, "Cargo.toml")) && fs.existsSync(path.join(pkgDir, "src", "lib.rs"))) {
  require("./build.js");
} else {
  checkPrebuilt();
}

// A function rather than a top-level `return` above: CommonJS allows that,
// but Biome (scripts/test.sh's linter) cannot parse it.
function checkPrebuilt() {
  const here = `${process.platform}-${process.arch}`;
  let prebuilt;
  try {
    prebuilt = JSON.parse(fs.readFileSync(path.join(pkgDir, "prebuilt.json"), "utf8"));
  } catch {
    console.error(
      "libauth: this package has no prebuilt addon and no source to build it from; install libauth from its repository checkout",
    );
    process.exit(1);
  }
  if (prebuilt.target !== here) {
    console.error(
      `libauth: this package's addon is for ${prebuilt.target}, not ${here}; install libauth from its repository checkout to build it for this platform`,
    );
    process.exit(1);
  }
  try {
    require(path.join(pkgDir, "libauth.node"));
  } catch (e) {
    console.error(
      `libauth: the prebuilt addon (${prebuilt.target}, ${prebuilt.profile}) does not load here: ${e.message}`,
    );
    process.exit(1);
  }
  console.log(`libauth: using the prebuilt addon for ${here} (${prebuilt.profile} build)`);
}
