// Mint a session cookie with the Node binding (bindings/node, built by
// `npm ci` there) for tests/c/test_server.py: the C server must read it.
// Usage: AUTH_SECRET=... node mint-node-cookie.js http://127.0.0.1:PORT/
// Prints "authjs.session-token=<value>".
"use strict";
const path = require("path");
const { signIn, Credentials } = require(path.join(__dirname, "../../bindings/node"));

async function main() {
  const config = {
    trustHost: true, // the secret comes from AUTH_SECRET, as for the C server
    providers: [Credentials({ authorize: async () => ({ id: "node-7", name: "Node User", email: "node@example.com" }) })],
  };
  const out = await signIn("credentials", { username: "n", password: "n" }, new Request(process.argv[2]), config);
  const cookie = out.cookies.find((c) => c.startsWith("authjs.session-token="));
  if (!cookie) throw new Error(`no session cookie in ${JSON.stringify(out)}`);
  console.log(cookie.split(";")[0]);
}

main().then(
  () => process.exit(0),
  (e) => {
    console.error(e);
    process.exit(1);
  },
);
