// Shared argument parsing for encode.mjs / decode.mjs.
import { parseArgs } from "node:util";

export function parse(argv, options, usage) {
  let values;
  try {
    ({ values } = parseArgs({
      args: argv,
      options: { ...options, help: { type: "boolean" } },
      strict: true,
      allowPositionals: false,
    }));
  } catch (e) {
    fail(`${e.message}\n${usage}`);
  }
  if (values.help) {
    process.stdout.write(`${usage}\n`);
    process.exit(0);
  }
  return values;
}

/** One --secret is passed to Auth.js as a string, several as a list (rotation). */
export function secretArg(values, usage) {
  const secrets = values.secret ?? [];
  if (secrets.length === 0) fail(`missing --secret\n${usage}`);
  return secrets.length === 1 ? secrets[0] : secrets;
}

export function required(values, name, usage) {
  if (values[name] === undefined) fail(`missing --${name}\n${usage}`);
  return values[name];
}

export function fail(message, code = 1) {
  process.stderr.write(`${message}\n`);
  process.exit(code);
}
