// The protocol flows every adapter must pass, over real HTTP. `start()`
// returns { url, basePath, close } for a server that mounts the adapter
// and serves `GET /me` (the session, or a 302 to /login without one).
import { describe, it, before, after } from "node:test";
import assert from "node:assert/strict";
import { Browser, SECRET, users, sleep } from "./helpers.mjs";
import { Credentials, CredentialsSignin } from "libauth";

class InvalidLogin extends CredentialsSignin {
  code = "invalid_login";
}

/** The config most suites use: credentials ada/lovelace, async authorize. */
export function baseConfig(extra = {}) {
  return {
    secret: SECRET,
    providers: [
      Credentials({
        credentials: { username: { label: "Username" }, password: { label: "Password", type: "password" } },
        async authorize({ username, password }) {
          await sleep(1);
          if (username === "ada" && password === "lovelace") return users().ada;
          if (username === "throw") throw new InvalidLogin();
          return null;
        },
      }),
    ],
    ...extra,
  };
}

export function protocolSuite(name, start) {
  describe(name, () => {
    let server;
    let b;
    before(async () => {
      server = await start();
    });
    after(() => server?.close());
    const browser = () => (b = new Browser(server.url, { basePath: server.basePath }));

    it("GET csrf returns a token and sets the CSRF cookie", async () => {
      const br = browser();
      const res = await br.fetch(`${server.basePath}/csrf`);
      assert.equal(res.status, 200);
      const { csrfToken } = await res.json();
      assert.match(csrfToken, /^[0-9a-f]{64}$/);
      const cookie = res.headers.getSetCookie().find((c) => c.startsWith("authjs.csrf-token="));
      assert.ok(cookie, "csrf cookie set");
      assert.match(cookie, /HttpOnly/i);
      assert.match(cookie, /SameSite=Lax/i);
    });

    it("credentials sign-in sets a session cookie; session and protected route see the user", async () => {
      const br = browser();
      const res = await br.signIn("ada", "lovelace");
      assert.equal(res.status, 302);
      assert.equal(res.headers.get("location"), server.url);
      assert.ok(br.sessionCookie(), "session cookie");
      const session = await br.session();
      assert.deepEqual(session.user, {
        name: "Ada Lovelace",
        email: "ada@example.com",
        image: "https://img.example/ada.png",
      });
      assert.ok(Date.parse(session.expires) > Date.now());
      const me = await br.fetch("/me");
      assert.equal(me.status, 200);
      assert.equal((await me.json()).user.email, "ada@example.com");
    });

    it("wrong credentials redirect to sign-in with CredentialsSignin and its code", async () => {
      const br = browser();
      let res = await br.signIn("ada", "wrong");
      assert.equal(res.status, 302);
      assert.equal(
        res.headers.get("location"),
        `${server.url}${server.basePath}/signin?error=CredentialsSignin&code=credentials`,
      );
      assert.equal(br.sessionCookie(), undefined);
      res = await br.signIn("throw", "x");
      assert.equal(
        res.headers.get("location"),
        `${server.url}${server.basePath}/signin?error=CredentialsSignin&code=invalid_login`,
      );
      assert.equal(await br.session(), null);
    });

    it("X-Auth-Return-Redirect turns the redirect into JSON { url }", async () => {
      const br = browser();
      const csrfToken = await br.csrf();
      const res = await br.post(
        `${server.basePath}/callback/credentials`,
        { csrfToken, username: "ada", password: "lovelace" },
        { "x-auth-return-redirect": "1" },
      );
      assert.equal(res.status, 200);
      assert.deepEqual(await res.json(), { url: server.url });
    });

    it("session update (POST session) needs the CSRF token and returns the session", async () => {
      const br = browser();
      await br.signIn("ada", "lovelace");
      const csrfToken = await br.csrf();
      let res = await br.fetch(`${server.basePath}/session`, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ csrfToken, data: { name: "Countess" } }),
      });
      assert.equal(res.status, 200);
      assert.equal((await res.json()).user.email, "ada@example.com");
      res = await br.fetch(`${server.basePath}/session`, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ csrfToken: "forged", data: {} }),
      });
      assert.equal(res.status, 400, "a forged CSRF token fails the update with 400 (as in Auth.js)");
      assert.equal(await res.json(), null);
      assert.equal((await br.session()).user.email, "ada@example.com", "still signed in");
    });

    it("sign-out ends the session", async () => {
      const br = browser();
      await br.signIn("ada", "lovelace");
      const csrfToken = await br.csrf();
      const res = await br.post(`${server.basePath}/signout`, { csrfToken });
      assert.equal(res.status, 302);
      assert.equal(br.sessionCookie(), undefined, "session cookie cleared");
      assert.equal(await br.session(), null);
      const me = await br.fetch("/me");
      assert.equal(me.status, 302);
      assert.equal(me.headers.get("location"), "/login");
    });

    it("a missing or forged CSRF token is rejected and changes nothing", async () => {
      const br = browser();
      await br.csrf();
      let res = await br.post(`${server.basePath}/callback/credentials`, {
        csrfToken: "forged",
        username: "ada",
        password: "lovelace",
      });
      assert.equal(res.status, 302);
      assert.equal(res.headers.get("location"), `${server.url}${server.basePath}/signin?error=MissingCSRF`);
      assert.equal(br.sessionCookie(), undefined);
      await br.signIn("ada", "lovelace");
      res = await br.post(`${server.basePath}/signout`, {});
      assert.equal(res.status, 302);
      assert.equal(res.headers.get("location"), `${server.url}${server.basePath}/signin?error=MissingCSRF`);
      assert.equal((await br.session()).user.name, "Ada Lovelace", "still signed in");
    });

    it("an absolute callbackUrl on another origin is refused; a relative one is kept", async () => {
      const br = browser();
      let res = await br.signIn("ada", "lovelace", { callbackUrl: "https://evil.example/steal" });
      assert.equal(res.headers.get("location"), server.url);
      const br2 = browser();
      res = await br2.signIn("ada", "lovelace", { callbackUrl: "/dashboard" });
      assert.equal(res.headers.get("location"), `${server.url}/dashboard`);
      const br3 = browser();
      res = await br3.signIn("ada", "lovelace", { callbackUrl: "//evil.example/x" });
      assert.equal(res.headers.get("location"), server.url);
    });

    it("a tampered session cookie gives no session and is cleared", async () => {
      const br = browser();
      await br.signIn("ada", "lovelace");
      const name = [...br.jar.keys()].find((k) => k.endsWith("authjs.session-token"));
      const value = br.jar.get(name);
      const i = Math.floor(value.length / 2);
      br.jar.set(name, value.slice(0, i) + (value[i] === "A" ? "B" : "A") + value.slice(i + 1));
      const me = await br.fetch("/me");
      assert.equal(me.status, 302);
      const res = await br.fetch(`${server.basePath}/session`);
      assert.equal(await res.json(), null);
      assert.ok(
        res.headers.getSetCookie().some((c) => c.startsWith(`${name}=`)),
        "cookie cleared",
      );
      assert.equal(br.sessionCookie(), undefined);
    });

    it("providers lists the credentials provider; an unknown action is a 400", async () => {
      const br = browser();
      let res = await br.fetch(`${server.basePath}/providers`);
      const providers = await res.json();
      assert.equal(providers.credentials.type, "credentials");
      assert.equal(providers.credentials.callbackUrl, `${server.url}${server.basePath}/callback/credentials`);
      res = await br.fetch(`${server.basePath}/nope`);
      assert.equal(res.status, 400);
    });
  });
}
