#!/usr/bin/env node
// Decodes an Auth.js session token with @auth/core's own decode().
// Prints the payload JSON on stdout; exit 1 (message on stderr) if it does not decode.
import { decode } from "@auth/core/jwt";
import { fail, parse, required, secretArg } from "./cli-args.mjs";

const usage = "usage: node decode.mjs --secret S [--secret S2 ...] --salt NAME --token TOKEN";
const values = parse(
  process.argv.slice(2),
  { secret: { type: "string", multiple: true }, salt: { type: "string" }, token: { type: "string" } },
  usage,
);
const secret = secretArg(values, usage);
const salt = required(values, "salt", usage);
const token = required(values, "token", usage);

let payload;
try {
  payload = await decode({ token, secret, salt });
} catch (e) {
  fail(`decode failed: ${e?.name ?? "Error"}: ${e?.message ?? e}`);
}
if (payload == null) fail("decode failed: empty token");
process.stdout.write(`${JSON.stringify(payload)}\n`);
