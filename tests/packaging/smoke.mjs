// The Node smoke test of a release build (scripts/cross-test.sh runs it with
// an arm64 Node under qemu-user): the installed `libauth` package loads the
// addon of its platform package, signs in with credentials and reads the
// session back. Prints one JSON line; exits non-zero on any failure.
import assert from "node:assert/strict";
import { createRequire } from "node:module";
import { Credentials, getSession, ReactiveAuth } from "libauth";

const config = {
  secret: "release-smoke-secret-0123456789abcdefghij",
  trustHost: true,
  prefix: "/auth",
  providers: [
    Credentials({
      credentials: { username: {}, password: {} },
      authorize: ({ username, password }) =>
        username === "ada" && password === "lovelace" ? { id: "42", name: "Ada Lovelace" } : null,
    }),
  ],
};
const auth = ReactiveAuth(config);
const origin = "http://127.0.0.1:8000";
const cookiesOf = (res) =>
  res.headers
    .getSetCookie()
    .map((c) => c.split(";")[0])
    .join("; ");

const csrf = await auth.GET({ request: new Request(`${origin}/auth/csrf`) });
const { csrfToken } = await csrf.json();
const signIn = await auth.POST({
  request: new Request(`${origin}/auth/callback/credentials`, {
    method: "POST",
    headers: { cookie: cookiesOf(csrf), "content-type": "application/x-www-form-urlencoded" },
    body: new URLSearchParams({ csrfToken, username: "ada", password: "lovelace" }),
  }),
});
assert.equal(signIn.status, 302);
const session = await getSession(new Request(`${origin}/`, { headers: { cookie: cookiesOf(signIn) } }), config);
assert.equal(session?.user?.name, "Ada Lovelace");

const require = createRequire(import.meta.url);
const target = `libauth-linux-${process.arch}-${process.report.getReport().header.glibcVersionRuntime ? "gnu" : "musl"}`;
console.log(
  JSON.stringify({
    arch: process.arch,
    node: process.version,
    addon: require.resolve(target),
    user: session.user.name,
  }),
);
