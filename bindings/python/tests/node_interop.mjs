// The Node binding's half of tests/test_interop_node.py: read the session of
// a cookie minted by Python. (The other direction needs no Node: the cookies
// minted by Auth.js are in tests/fixtures/authjs-session-vectors.json.)
//
//   node node_interop.mjs read <secret> <origin> <cookie>  -> the session (JSON) or null
import { createRequire } from "node:module";
import { fileURLToPath } from "node:url";

const require = createRequire(import.meta.url);
const root = fileURLToPath(new URL("../../../", import.meta.url));
const { getSession } = require(`${root}bindings/node`);

const [command, secret, origin, cookie] = process.argv.slice(2);
const config = { secret, trustHost: true, prefix: "/auth", providers: [] };

if (command === "read") {
  const session = await getSession(new Request(`${origin}/me`, { headers: { cookie } }), config);
  process.stdout.write(JSON.stringify(session));
} else {
  console.error("usage: node node_interop.mjs read <secret> <origin> <cookie>");
  process.exit(2);
}
