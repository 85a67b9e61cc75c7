// getSession crosses into the engine once with the URL and the Cookie header
// (no request built): its answer is byte for byte the engine's own answer to
// `GET /auth/session` for the same cookie (no renewal due), on the inline
// path (no session hook) and on the worker path (a session callback), for
// valid, tampered, cut, rotated-out, chunked and garbage cookies. (Expired
// cookies and any mix of them: core's property test, on the same read path.)
import { describe, it, before, after } from "node:test";
import assert from "node:assert/strict";
import { createRequire } from "node:module";
import { ServerAuth, getSession } from "libauth";
import { listen, Browser, SECRET } from "./helpers.mjs";
import { baseConfig } from "./flows.mjs";
import { encode } from "@auth/core/jwt";

const express = createRequire(import.meta.url)("express");

/** An Express app: auth at /auth, and /read answering getSession as JSON text. */
async function serve(config) {
  const app = express();
  app.use("/auth", ServerAuth(config));
  app.get("/read", async (req, res) => {
    const session = await getSession(req, config);
    res.type("application/json").send(JSON.stringify(session));
  });
  return listen(app);
}

/** `GET /auth/session`'s body and `getSession`'s JSON for one Cookie header. */
async function bothWays(url, cookie) {
  const headers = cookie === undefined ? {} : { cookie };
  const route = await fetch(`${url}/auth/session`, { headers });
  const read = await fetch(`${url}/read`, { headers });
  assert.equal(route.status, 200);
  assert.equal(read.status, 200);
  return { route: await route.text(), read: await read.text() };
}

function tamper(value, at) {
  const i = at % value.length;
  const c = value[i] === "A" ? "B" : "A";
  return value.slice(0, i) + c + value.slice(i + 1);
}

const configs = {
  "inline (no session hook)": () => baseConfig({ session: { updateAge: 3600 } }),
  "worker pool (a session callback)": () =>
    baseConfig({
      session: { updateAge: 3600 },
      callbacks: {
        async jwt({ token, user }) {
          if (user) token.big = user.name === "Ada Lovelace" ? "x".repeat(5000) : "";
          return token;
        },
        async session({ session, token }) {
          session.size = token.big?.length ?? 0;
          return session;
        },
      },
    }),
};

for (const [kind, makeConfig] of Object.entries(configs)) {
  describe(`getSession answers what GET /auth/session answers: ${kind}`, () => {
    let server;
    let other;
    let cookie;
    let foreign;
    before(async () => {
      server = await serve(makeConfig());
      other = await serve({ ...makeConfig(), secret: `${SECRET}-rotated-away` });
      const browser = new Browser(server.url);
      await browser.signIn("ada", "lovelace");
      cookie = browser
        .sessionCookies()
        .map(([k, v]) => `${k}=${v}`)
        .join("; ");
      const stranger = new Browser(other.url);
      await stranger.signIn("ada", "lovelace");
      foreign = stranger
        .sessionCookies()
        .map(([k, v]) => `${k}=${v}`)
        .join("; ");
    });
    after(async () => {
      await server?.close();
      await other?.close();
    });

    it("a signed-in cookie, alone and among others", async () => {
      for (const header of [cookie, `theme=dark; ${cookie}; a="1"`]) {
        const { route, read } = await bothWays(server.url, header);
        assert.match(read, /Ada Lovelace/);
        assert.equal(read, route);
      }
    });

    it("no cookie, an empty one, garbage, a cut and tampered cookies", async () => {
      const cases = [
        undefined,
        "",
        "authjs.session-token=",
        "authjs.session-token=eyJhbGciOiJkaXIi.x.y.z.w",
        cookie.slice(0, -3),
        ...[5, 60, 200, 700].map((at) => tamper(cookie, at)),
      ];
      for (const header of cases) {
        const { route, read } = await bothWays(server.url, header);
        assert.equal(read, "null", `cookie ${header?.slice(0, 40)}`);
        assert.equal(read, route);
      }
    });

    it("a cookie of a secret the engine no longer has", async () => {
      const { route, read } = await bothWays(server.url, foreign);
      assert.equal(read, "null");
      assert.equal(read, route);
      const there = await bothWays(other.url, foreign);
      assert.match(there.read, /Ada Lovelace/, "the other engine reads its own");
      assert.equal(there.read, there.route);
    });
  });
}

// A repeated cookie's session crosses back from the addon as a number: the
// engine shares one session between every read of a cached cookie, and the
// binding keeps it parsed under that number (src/shared_ids.rs,
// lib/native.js). Each read must still be the caller's own object, for
// every cookie, past the bound of kept sessions, and for the right scheme.
describe("getSession on a repeated cookie: the caller's own session", () => {
  const config = baseConfig({ session: { updateAge: 3600 } });
  const request = (cookie, protocol = "http") => ({
    protocol,
    headers: { host: "localhost:3000", cookie },
    originalUrl: "/dashboard",
    url: "/dashboard",
  });
  /** An Auth.js session token for `name`, under the cookie name's salt. */
  const token = (name, salt = "authjs.session-token") =>
    encode({ token: { name, email: `${name}@example.com`, sub: name }, secret: SECRET, salt });

  it("changing one read's session, its user or its arrays never changes the next read", async () => {
    const server = await serve(config);
    try {
      const browser = new Browser(server.url);
      await browser.signIn("ada", "lovelace");
      const cookie = browser
        .sessionCookies()
        .map(([k, v]) => `${k}=${v}`)
        .join("; ");
      const want = JSON.parse((await bothWays(server.url, cookie)).route);
      assert.ok(Array.isArray(want.amr), "the session carries an array (amr)");
      for (let round = 0; round < 3; round++) {
        const session = await getSession(request(cookie), config);
        assert.deepEqual(session, want);
        session.user.name = "Mallory";
        session.user.extra = 1;
        session.amr.push("otp");
        session.expires = "never";
        session.added = true;
        delete session.user.email;
      }
      assert.deepEqual(await getSession(request(cookie), config), want);
    } finally {
      await server.close();
    }
  });

  it("past the 1,024 sessions kept parsed, every read is still its own user", async () => {
    const names = Array.from({ length: 1100 }, (_, i) => `user${i}`);
    const cookies = await Promise.all(names.map(async (n) => `authjs.session-token=${await token(n)}`));
    for (let round = 0; round < 3; round++) {
      for (let i = 0; i < names.length; i++) {
        const session = await getSession(request(cookies[i]), config);
        assert.equal(session?.user?.name, names[i], `round ${round}, cookie ${i}`);
      }
    }
  });

  it("an https request reads the __Secure- cookie, a plain one the plain cookie, from Express and Web requests", async () => {
    const secure = `__Secure-authjs.session-token=${await token("sam", "__Secure-authjs.session-token")}`;
    const plain = `authjs.session-token=${await token("pat")}`;
    const both = `${plain}; ${secure}`;
    for (let round = 0; round < 2; round++) {
      assert.equal((await getSession(request(both, "https"), config))?.user.name, "sam");
      assert.equal((await getSession(request(both, "http"), config))?.user.name, "pat");
      assert.equal(await getSession(request(secure, "http"), config), null);
      assert.equal(await getSession(request(plain, "https"), config), null);
      const web = (url) => new Request(url, { headers: { cookie: both } });
      assert.equal((await getSession(web("https://example.com/x"), config))?.user.name, "sam");
      assert.equal((await getSession(web("http://example.com/x"), config))?.user.name, "pat");
    }
  });
});
