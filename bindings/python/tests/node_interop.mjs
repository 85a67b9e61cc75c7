// The Node binding's half of tests/test_interop_node.py: mint a session
// cookie by a credentials sign-in, or read the session of a cookie.
//
//   node node_interop.mjs mint <secret> <origin>           -> {"cookies": [...]}
//   node node_interop.mjs read <secret> <origin> <cookie>  -> the session (JSON) or null
import { createRequire } from "node:module";
import { fileURLToPath } from "node:url";

const require = createRequire(import.meta.url);
const root = fileURLToPath(new URL("../../../", import.meta.url));
const { signIn, getSession, Credentials } = require(`${root}bindings/node`);

const [command, secret, origin, cookie] = process.argv.slice(2);
const config = {
  secret,
  trustHost: true,
  prefix: "/auth",
  providers: [
    Credentials({
      credentials: { username: {}, password: {} },
      authorize({ username, password }) {
        return username === "grace" && password === "hopper" ? { id: "7", name: "Grace Hopper", email: "grace@example.com" } : null;
      },
    }),
  ],
};

if (command === "mint") {
  const result = await signIn("credentials", { username: "grace", password: "hopper" }, new Request(`${origin}/login`, { method: "POST" }), config);
  process.stdout.write(JSON.stringify(result));
} else if (command === "read") {
  const session = await getSession(new Request(`${origin}/me`, { headers: { cookie } }), config);
  process.stdout.write(JSON.stringify(session));
} else {
  console.error("usage: node node_interop.mjs mint|read <secret> <origin> [cookie]");
  process.exit(2);
}
