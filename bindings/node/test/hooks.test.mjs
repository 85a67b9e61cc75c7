// Callbacks, events and the threading model: async hooks awaited on the
// JavaScript thread, engine work on the addon's own threads, hookless paths
// inline, 1,000 concurrent sign-ins without deadlock.
import { describe, it, before, after } from "node:test";
import assert from "node:assert/strict";
import { isMainThread } from "node:worker_threads";
import { execFileSync } from "node:child_process";
import { pbkdf2 } from "node:crypto";
import { promisify } from "node:util";
import { createRequire } from "node:module";
import { fileURLToPath } from "node:url";
import { Credentials } from "libauth";
import { Browser, SECRET, users, sleep, serveProtected } from "./helpers.mjs";
import { baseConfig } from "./flows.mjs";

const require = createRequire(import.meta.url);
const { Instance } = require("../lib/native.js");
const pkgDir = fileURLToPath(new URL("..", import.meta.url));

const server = (config) => serveProtected(config);

describe("async callbacks and events", () => {
  const seen = [];
  const config = baseConfig({
    callbacks: {
      async signIn({ user, account, credentials }) {
        await sleep(5);
        seen.push(["signIn", user.id, account.provider, credentials.username]);
        if (credentials.username === "ada") return true;
        return false;
      },
      async jwt({ token, user, trigger, session }) {
        await sleep(1);
        if (trigger === "signIn") token.role = user.id === "42" ? "admin" : "user";
        if (trigger === "update" && session?.name) token.name = session.name;
        return token;
      },
      async session({ session, token }) {
        await sleep(1);
        session.user.role = token.role;
        return session;
      },
      async redirect({ url, baseUrl }) {
        return url.startsWith("/") ? `${baseUrl}${url}` : url.startsWith(baseUrl) ? url : `${baseUrl}/safe`;
      },
    },
    events: {
      async signIn(message) {
        await sleep(2);
        seen.push(["events.signIn", message.user.email, message.account.type]);
      },
      async signOut(message) {
        seen.push(["events.signOut", message.token?.email]);
      },
      async session(message) {
        seen.push(["events.session", message.token?.role]);
      },
    },
  });
  let s;
  before(async () => (s = await server(config)));
  after(() => s.close());

  it("signIn, jwt and session callbacks shape the session; events receive their messages", async () => {
    const br = new Browser(s.url);
    const res = await br.signIn("ada", "lovelace", { callbackUrl: "https://elsewhere.example/" });
    assert.equal(res.status, 302);
    assert.equal(res.headers.get("location"), `${s.url}/safe`, "the async redirect callback decided");
    const session = await br.session();
    assert.equal(session.user.role, "admin");
    assert.deepEqual(
      seen.find((e) => e[0] === "signIn"),
      ["signIn", "42", "credentials", "ada"],
    );
    assert.deepEqual(
      seen.find((e) => e[0] === "events.signIn"),
      ["events.signIn", "ada@example.com", "credentials"],
    );
    assert.deepEqual(
      seen.find((e) => e[0] === "events.session"),
      ["events.session", "admin"],
    );
    const me = await (await br.fetch("/me")).json();
    assert.equal(me.user.role, "admin", "getSession runs the session callback too");
  });

  it("session update reaches the jwt callback with trigger update", async () => {
    const br = new Browser(s.url);
    await br.signIn("ada", "lovelace");
    const csrfToken = await br.csrf();
    const res = await br.fetch("/auth/session", {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ csrfToken, data: { name: "Countess of Lovelace" } }),
    });
    assert.equal((await res.json()).user.name, "Countess of Lovelace");
    assert.equal((await br.session()).user.name, "Countess of Lovelace", "the new token was stored");
  });

  it("signIn returning false ends on the error page with AccessDenied", async () => {
    const config2 = baseConfig({ callbacks: { signIn: async () => false } });
    const s2 = await server(config2);
    try {
      const br = new Browser(s2.url);
      const res = await br.signIn("ada", "lovelace");
      assert.equal(res.headers.get("location"), `${s2.url}/auth/error?error=AccessDenied`);
      assert.equal(br.sessionCookie(), undefined);
    } finally {
      await s2.close();
    }
  });

  it("a signIn callback that throws is AccessDenied; a string redirects there", async () => {
    const config2 = baseConfig({
      callbacks: {
        async signIn({ credentials }) {
          if (credentials.mode === "boom") throw new Error("database down");
          return "/welcome";
        },
      },
    });
    const s2 = await server(config2);
    try {
      let br = new Browser(s2.url);
      let res = await br.signIn("ada", "lovelace", { mode: "boom" });
      assert.equal(res.headers.get("location"), `${s2.url}/auth/error?error=AccessDenied`);
      br = new Browser(s2.url);
      res = await br.signIn("ada", "lovelace");
      assert.equal(res.headers.get("location"), `${s2.url}/welcome`);
    } finally {
      await s2.close();
    }
  });

  it("an event that throws is logged and does not break sign-in or sign-out", async () => {
    const logged = [];
    const config2 = baseConfig({
      events: {
        signIn: async () => {
          throw new Error("audit log unavailable");
        },
        signOut: () => {
          throw new Error("also down");
        },
      },
      logger: { error: (e) => logged.push([e.type, e.message]) },
    });
    const s2 = await server(config2);
    try {
      const br = new Browser(s2.url);
      const res = await br.signIn("ada", "lovelace");
      assert.equal(res.headers.get("location"), s2.url);
      assert.equal((await br.session()).user.name, "Ada Lovelace");
      const csrfToken = await br.csrf();
      await br.post("/auth/signout", { csrfToken });
      assert.equal(await br.session(), null);
      assert.ok(
        logged.some(([type, msg]) => type === "EventError" && /audit log unavailable/.test(msg)),
        JSON.stringify(logged),
      );
    } finally {
      await s2.close();
    }
  });

  it("authorize receives the credentials and a Web Request", async () => {
    let got;
    const config2 = {
      secret: SECRET,
      providers: [
        Credentials({
          credentials: { username: {}, password: {} },
          authorize(credentials, request) {
            got = { credentials, method: request.method, url: request.url, ua: request.headers.get("user-agent") };
            return users().ada;
          },
        }),
      ],
    };
    const s2 = await server(config2);
    try {
      const br = new Browser(s2.url, { headers: { "user-agent": "libauth-test" } });
      await br.signIn("ada", "x");
      assert.deepEqual(got, {
        credentials: { username: "ada", password: "x" },
        method: "POST",
        url: `${s2.url}/auth/callback/credentials`,
        ua: "libauth-test",
      });
    } finally {
      await s2.close();
    }
  });
});

describe("threading", () => {
  it("hooks run on the JavaScript thread while the event loop keeps turning", async () => {
    let ticks = 0;
    const timer = setInterval(() => ticks++, 1);
    let onMain;
    const config = baseConfig({
      callbacks: {
        async signIn() {
          onMain = isMainThread;
          const before = ticks;
          await sleep(30);
          assert.ok(ticks > before, "timers fire while the engine waits for this hook");
          return true;
        },
      },
    });
    const s = await server(config);
    try {
      const br = new Browser(s.url);
      const res = await br.signIn("ada", "lovelace");
      assert.equal(res.status, 302);
      assert.equal(onMain, true);
    } finally {
      clearInterval(timer);
      await s.close();
    }
  });

  it("a hookless JWT getSession is answered inline (no Promise, no thread); hooks move it to the pool", () => {
    const inline = new Instance({ secret: SECRET });
    assert.equal(inline.inlineSession, true);
    const r = inline.getSession("http://localhost/", "");
    assert.equal(typeof r?.then, "undefined", "answered synchronously");
    assert.equal(r, null);
    const res = inline.handle("GET", "http://localhost/auth/session", [], null);
    assert.equal(typeof res.then, "undefined", "GET session answered synchronously");
    for (const hooks of [
      { callbacks: { session: (x) => x.session } },
      { callbacks: { jwt: (x) => x.token } },
      { events: { session() {} } },
      { logger: { error() {} } },
    ]) {
      const pooled = new Instance({ secret: SECRET, ...hooks });
      assert.equal(pooled.inlineSession, false, JSON.stringify(Object.keys(hooks)));
      const p = pooled.getSession("http://localhost/", "");
      assert.equal(typeof p.then, "function");
    }
  });

  it("the pool is created lazily, and only for work that may reach a hook", () => {
    const script = `
      const { ServerAuth, getSession, workerThreads } = require(".");
      const config = { secret: "${SECRET}" };
      ServerAuth(config);
      getSession({ headers: { host: "localhost", cookie: "" }, protocol: "http", originalUrl: "/" }, config).then((s) => {
        const before = workerThreads();
        const c2 = { secret: "${SECRET}", callbacks: { session: async ({ session }) => session } };
        return getSession({ headers: { host: "localhost", cookie: "" }, protocol: "http", originalUrl: "/" }, c2).then(() => {
          console.log(JSON.stringify({ before, after: workerThreads(), session: s }));
        });
      });`;
    const out = JSON.parse(
      execFileSync(process.execPath, ["-e", script], { cwd: pkgDir, encoding: "utf8", timeout: 20000 }),
    );
    assert.deepEqual(out, { before: 0, after: 1, session: null });
  });

  it("the process exits on its own when idle (weak ThreadsafeFunctions), and waits for work in flight", () => {
    const script = `
      const { Instance } = require("./lib/native.js");
      const inst = new Instance({ secret: "${SECRET}", callbacks: { session: async ({ session }) => { await new Promise(r => setTimeout(r, 50)); return session; } } });
      inst.getSession("http://localhost/", "").then((s) => console.log("done", s));`;
    const t0 = Date.now();
    const out = execFileSync(process.execPath, ["-e", script], { cwd: pkgDir, encoding: "utf8", timeout: 20000 });
    assert.equal(out.trim(), "done null");
    assert.ok(Date.now() - t0 < 10000);
  });

  it("1,000 concurrent sign-ins with an async authorize (timer + libuv crypto) complete", {
    timeout: 120000,
  }, async () => {
    const pbkdf2Async = promisify(pbkdf2);
    let inFlight = 0;
    let peak = 0;
    const config = {
      secret: SECRET,
      providers: [
        Credentials({
          credentials: { username: {}, password: {} },
          async authorize({ username }) {
            peak = Math.max(peak, ++inFlight);
            await sleep(5);
            await pbkdf2Async("pw", "salt", 1, 32, "sha256"); // needs a libuv worker
            inFlight--;
            return { id: username, name: username, email: `${username}@example.com` };
          },
        }),
      ],
    };
    const s = await server(config);
    try {
      const first = new Browser(s.url);
      const csrfToken = await first.csrf();
      const cookie = first.cookieHeader();
      const results = await Promise.all(
        Array.from({ length: 1000 }, (_, i) =>
          fetch(`${s.url}/auth/callback/credentials`, {
            method: "POST",
            redirect: "manual",
            headers: { cookie, "content-type": "application/x-www-form-urlencoded" },
            body: new URLSearchParams({ csrfToken, username: `user${i}`, password: "x" }),
          }).then((r) => ({ status: r.status, cookies: r.headers.getSetCookie() })),
        ),
      );
      assert.equal(results.filter((r) => r.status === 302).length, 1000);
      assert.equal(results.filter((r) => r.cookies.some((c) => c.startsWith("authjs.session-token="))).length, 1000);
      assert.ok(peak > 1, "authorize calls overlapped");
    } finally {
      await s.close();
    }
  });
});
