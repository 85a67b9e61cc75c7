#!/usr/bin/env node
// The `libauth` command (`npx libauth secret`, `doctor`, `migrate`,
// `provider add`): the same Rust code as the standalone binary, run from
// the addon this package already ships, so it needs no other download.
"use strict";
const { runCli } = require("../lib/native.js");

// npm takes `--env-file` for Node itself (`npx libauth secret --env-file
// .env.local` would fail in Node), so users write `npx libauth -- secret
// --env-file .env.local`; npx hands the `--` on, and it is dropped here.
const args = process.argv.slice(2);
if (args[0] === "--") args.shift();

try {
  process.exitCode = runCli(args);
} catch (e) {
  console.error(`libauth: ${e.message}`);
  process.exitCode = 2;
}
