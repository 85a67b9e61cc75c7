#!/usr/bin/env node
// Encodes a session token with @auth/core's own encode() and prints it on stdout.
import { encode } from "@auth/core/jwt";
import { fail, parse, required, secretArg } from "./cli-args.mjs";

const usage = "usage: node encode.mjs --secret S [--secret S2 ...] --salt NAME --max-age N --payload JSON";
const values = parse(
  process.argv.slice(2),
  {
    secret: { type: "string", multiple: true },
    salt: { type: "string" },
    "max-age": { type: "string" },
    payload: { type: "string" },
  },
  usage,
);
const secret = secretArg(values, usage);
const salt = required(values, "salt", usage);
const maxAgeText = required(values, "max-age", usage);
if (!/^-?\d+$/.test(maxAgeText))
  fail(`--max-age must be an integer number of seconds, got ${JSON.stringify(maxAgeText)}`);
const maxAge = Number(maxAgeText);
let payload;
try {
  payload = JSON.parse(required(values, "payload", usage));
} catch (e) {
  fail(`--payload is not valid JSON: ${e.message}`);
}
if (payload === null || typeof payload !== "object" || Array.isArray(payload)) fail("--payload must be a JSON object");

try {
  process.stdout.write(`${await encode({ token: payload, secret, salt, maxAge })}\n`);
} catch (e) {
  fail(`encode failed: ${e?.name ?? "Error"}: ${e?.message ?? e}`);
}
