// One server process of scale-out.test.mjs: Express with libauth at /auth,
// configured from LIBAUTH_SCALE_OUT_CONFIG (JSON) plus a credentials
// provider where any username signs in with the password "secret". Prints
// "listening <port>" when ready.
import { createRequire } from "node:module";
import { Credentials, ServerAuth } from "libauth";

const express = createRequire(import.meta.url)("express");
const config = {
  ...JSON.parse(process.env.LIBAUTH_SCALE_OUT_CONFIG),
  providers: [
    Credentials({
      credentials: { username: { label: "Username" }, password: { label: "Password", type: "password" } },
      authorize: async ({ username, password }) =>
        password === "secret" ? { id: username, name: username, email: `${username}@example.com` } : null,
    }),
  ],
};
const app = express();
app.use("/auth", ServerAuth(config));
const server = app.listen(0, "127.0.0.1", () => console.log(`listening ${server.address().port}`));
