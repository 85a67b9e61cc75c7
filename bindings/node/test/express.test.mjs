// The server adapter on Express 4 and Express 5, every mount form, over
// real HTTP.
import { describe, it, after } from "node:test";
import assert from "node:assert/strict";
import { createRequire } from "node:module";
import http from "node:http";
import { ServerAuth, getSession, signIn, Credentials } from "libauth";
import { listen, Browser } from "./helpers.mjs";
import { protocolSuite, baseConfig } from "./flows.mjs";

const require = createRequire(import.meta.url);
const { instanceFor } = require("../lib/native.js");
const versions = { 4: require("express4"), 5: require("express") };

/** An app with the adapter mounted by `mount`, plus /me and /login. */
function app(express, mount, { parsers = false, config = baseConfig(), setup } = {}) {
  const a = express();
  setup?.(a);
  if (parsers) {
    a.use(express.json());
    a.use(express.urlencoded({ extended: true }));
  }
  mount(a, ServerAuth(config));
  a.get("/me", async (req, res) => {
    const session = await getSession(req, config);
    if (!session?.user) return res.redirect("/login");
    res.json(session);
  });
  a.get("/hello", (_req, res) => res.send("hello"));
  return a;
}

const mounts = {
  4: {
    'app.use("/auth")': (a, mw) => a.use("/auth", mw),
    'app.use("/auth/*")': (a, mw) => a.use("/auth/*", mw),
    'app.all("/auth/*")': (a, mw) => a.all("/auth/*", mw),
  },
  5: {
    'app.use("/auth")': (a, mw) => a.use("/auth", mw),
    'app.use("/auth/*splat")': (a, mw) => a.use("/auth/*splat", mw),
    'app.all("/auth/*splat")': (a, mw) => a.all("/auth/*splat", mw),
    'app.all("/auth/{*any}")': (a, mw) => a.all("/auth/{*any}", mw),
  },
};

for (const [major, express] of Object.entries(versions)) {
  for (const [label, mount] of Object.entries(mounts[major])) {
    protocolSuite(`Express ${major}, ${label}`, async () => ({
      ...(await listen(app(express, mount))),
      basePath: "/auth",
    }));
  }
  protocolSuite(`Express ${major}, app.use("/auth") after express.json() and express.urlencoded()`, async () => ({
    ...(await listen(app(express, mounts[major]['app.use("/auth")'], { parsers: true }))),
    basePath: "/auth",
  }));

  describe(`Express ${major}: URLs, proxies and mounting`, () => {
    const servers = [];
    after(() => Promise.all(servers.map((s) => s.close())));
    const start = async (a) => {
      const s = await listen(a);
      servers.push(s);
      return s;
    };

    it("honours trust proxy: X-Forwarded-Proto/Host give https URLs and __Secure- cookies", async () => {
      const s = await start(
        app(express, (a, mw) => a.use("/auth", mw), { setup: (a) => a.set("trust proxy", "loopback") }),
      );
      const br = new Browser(s.url, {
        headers: { "x-forwarded-proto": "https", "x-forwarded-host": "app.example.com" },
      });
      const res = await br.signIn("ada", "lovelace");
      assert.equal(res.headers.get("location"), "https://app.example.com");
      assert.ok(br.jar.has("__Secure-authjs.session-token"), [...br.jar.keys()].join());
      assert.ok(br.jar.has("__Host-authjs.csrf-token"));
      assert.equal((await br.session()).user.name, "Ada Lovelace");
      const me = await br.fetch("/me");
      assert.equal(me.status, 200);
    });

    it("ignores X-Forwarded-* when the proxy is not trusted", async () => {
      const s = await start(app(express, (a, mw) => a.use("/auth", mw)));
      const br = new Browser(s.url, { headers: { "x-forwarded-proto": "https", "x-forwarded-host": "evil.example" } });
      const res = await br.signIn("ada", "lovelace");
      assert.equal(res.headers.get("location"), s.url);
      assert.ok(br.jar.has("authjs.session-token"));
    });

    it("infers the base path from the mount when the config has none", async () => {
      const s = await start(app(express, (a, mw) => a.use("/api/auth", mw)));
      const br = new Browser(s.url, { basePath: "/api/auth" });
      const res = await br.signIn("ada", "lovelace");
      assert.equal(res.status, 302);
      const providers = await (await br.fetch("/api/auth/providers")).json();
      assert.equal(providers.credentials.signinUrl, `${s.url}/api/auth/signin/credentials`);
      assert.equal((await br.fetch("/me")).status, 200);
    });

    for (const [label, mount] of Object.entries(mounts[major])) {
      it(`${label}: a request to a deeper path never moves the base path`, async () => {
        const s = await start(app(express, mount));
        const br = new Browser(s.url);
        // The first request after start goes to an arbitrary path below the mount.
        const stray = await br.fetch("/auth/zzz/session");
        assert.equal(stray.status, 400);
        assert.equal((await br.fetch("/auth/csrf")).status, 200);
        await br.signIn("ada", "lovelace");
        assert.equal((await br.session()).user.name, "Ada Lovelace");
        const providers = await (await br.fetch("/auth/providers")).json();
        assert.equal(providers.credentials.signinUrl, `${s.url}/auth/signin/credentials`);
      });
    }

    it("a passkey callback over the engine's 64 KiB limit: 413, the connection closed cleanly, the next request works", async () => {
      const s = await start(app(express, (a, mw) => a.use("/auth", mw)));
      const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
      after(() => agent.destroy());
      const request = (method, path, body, headers = {}) =>
        new Promise((resolve, reject) => {
          const req = http.request(`${s.url}${path}`, { method, agent, headers }, (res) => {
            const chunks = [];
            res.on("data", (c) => chunks.push(c));
            res.on("end", () => resolve({ res, body: Buffer.concat(chunks).toString(), socket: req.socket }));
          });
          req.on("error", reject);
          if (Array.isArray(body)) {
            for (const part of body) req.write(part);
            req.end();
          } else req.end(body);
        });
      const form = "content-type";
      const urlencoded = "application/x-www-form-urlencoded";
      const first = await request("GET", "/auth/csrf");
      assert.equal(first.res.statusCode, 200);
      const cases = [
        // Declared length over the limit (just over, and well over Express's old 1 MiB).
        [`action=register&data=${"a".repeat(64 * 1024)}`, { [form]: urlencoded }],
        [`action=register&data=${"a".repeat(3 << 20)}`, { [form]: urlencoded }],
        // Chunked: no declared length; the limit is counted as it arrives.
        [
          [
            "action=register&data=",
            ..."b"
              .repeat(80)
              .split("")
              .map(() => "b".repeat(1024)),
          ],
          { [form]: urlencoded },
        ],
      ];
      for (const [body, headers] of cases) {
        const over = await request("POST", "/auth/callback/passkey", body, headers);
        assert.equal(over.res.statusCode, 413);
        assert.equal(over.res.headers.connection, "close");
        assert.match(JSON.parse(over.body).message, /65536 bytes/);
        // The next request gets a new connection and its answer.
        const next = await request("GET", "/auth/csrf");
        assert.equal(next.res.statusCode, 200, next.body);
        assert.ok(JSON.parse(next.body).csrfToken);
        assert.notEqual(next.socket, over.socket, "a new connection");
      }
      // At the limit exactly: the engine answers (not a 413).
      const fits = "action=register&data=";
      const atLimit = await request("POST", "/auth/callback/passkey", fits + "c".repeat(64 * 1024 - fits.length), {
        [form]: urlencoded,
      });
      assert.notEqual(atLimit.res.statusCode, 413);
    });

    it("mounted without a path, passes other requests on to the next handler", async () => {
      const s = await start(app(express, (a, mw) => a.use(mw)));
      const br = new Browser(s.url);
      const res = await br.fetch("/hello");
      assert.equal(await res.text(), "hello");
      await br.signIn("ada", "lovelace");
      assert.equal((await br.session()).user.name, "Ada Lovelace");
    });
  });
}

describe("ServerAuth config errors", () => {
  it("fails at construction with an AuthError naming the option", async () => {
    const { AuthError } = await import("libauth");
    assert.throws(
      () => ServerAuth({ secret: "short" }),
      (e) => e instanceof AuthError && e.option === "secret" && /32/.test(e.message),
    );
    assert.throws(
      () => ServerAuth({ secret: "x".repeat(40), providers: [{ type: "credentials" }] }),
      (e) => e instanceof AuthError && e.type === "MissingAuthorize",
    );
  });
});

describe("getSession: the session object", () => {
  // Under a hookless config, getSession builds the session in JavaScript
  // from its parts (src/session_fn.rs) rather than parsing the engine's
  // JSON. For users whose name, email and image are each absent, null, a
  // string (quotes, escapes, control characters, non-ASCII, long) or
  // another JSON value, the object must equal the JSON the engine writes,
  // key order included, and show exactly what `authorize` returned.
  const values = [
    undefined,
    null,
    "",
    "Ada Lovelace",
    "ada@example.com",
    "https://img.example/a.png",
    'quote " backslash \\ slash /',
    "line\nbreak\ttab\u0000nul\u001f",
    "Zoë Ñandú 漢字 🚀",
    "é".repeat(700),
    42,
    0,
    true,
    { nested: ["x", 1] },
    ["a", "b"],
  ];
  // A seeded generator: the same cases on every run, and every value in
  // every field across them.
  let seed = 0x9e3779b9;
  const next = () => ((seed = (Math.imul(seed, 1664525) + 1013904223) >>> 0), seed);
  const users = [];
  for (let i = 0; i < 120; i++) {
    const user = { id: String(i) };
    for (const [field, offset] of [
      ["name", 0],
      ["email", 5],
      ["image", 10],
    ]) {
      const value = i < values.length ? values[(i + offset) % values.length] : values[next() % values.length];
      if (value !== undefined) user[field] = value;
    }
    users.push(user);
  }
  const config = {
    ...baseConfig({ trustHost: true }),
    providers: [Credentials({ credentials: { i: {} }, authorize: (c) => users[Number(c.i)] })],
  };
  ServerAuth(config);
  const request = (cookie) => ({
    method: "GET",
    protocol: "http",
    headers: { host: "app.test", cookie },
    originalUrl: "/me",
    url: "/me",
  });

  it("equals the engine's JSON and the user as authorize returned it, for any user", async () => {
    const engine = instanceFor(config);
    for (const [i, user] of users.entries()) {
      const { cookies } = await signIn("credentials", { i: String(i) }, { ...request(""), method: "POST" }, config);
      const cookie = cookies.map((c) => c.split(";")[0]).join("; ");
      const session = await getSession(request(cookie), config);
      // The session route's answer: the engine's other way to the same session.
      const route = await engine.handle("GET", `http://app.test${engine.basePath}/session`, ["cookie", cookie]);
      const json = route.body;
      assert.deepEqual(session, JSON.parse(json), `case ${i}: ${JSON.stringify(user)}`);
      assert.equal(JSON.stringify(session), json, `case ${i}: key order`);
      const expected = {};
      if ("name" in user) expected.name = user.name;
      if ("email" in user) expected.email = user.email;
      if ("image" in user) expected.image = user.image;
      assert.deepEqual(session.user, expected, `case ${i}`);
      assert.match(session.expires, /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
    }
    assert.equal(await getSession(request(""), config), null);
    assert.equal(await getSession(request("authjs.session-token=tampered"), config), null);
  });
});
