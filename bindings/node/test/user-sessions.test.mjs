// The user's own database sessions from Node: the `sessions` route over real
// HTTP (list, end one, end the others, CSRF refused), and `listSessions` /
// `endSession` / `endOtherSessions` / `endAllSessions` from server code,
// with their error types and the `sessionsEnded` event.
import { describe, it, before, after } from "node:test";
import assert from "node:assert/strict";
import { createRequire } from "node:module";
import { rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { ServerAuth, Password, AuthError, listSessions, endSession, endOtherSessions, endAllSessions } from "libauth";
import { listen, Browser, SECRET } from "./helpers.mjs";

const express = createRequire(import.meta.url)("express");
const FIREFOX = "Mozilla/5.0 (X11; Linux x86_64; rv:128.0) Gecko/20100101 Firefox/128.0";
const PASSWORD = "correct horse battery";

describe("a user's sessions", () => {
  const mailbox = [];
  const ended = [];
  const signedIn = [];
  const db = join(tmpdir(), `libauth-user-sessions-${process.pid}.db`);
  const config = {
    secret: SECRET,
    trustHost: true,
    basePath: "/auth",
    adapter: { type: "sqlite", path: db },
    session: { strategy: "database" },
    providers: [
      Password({
        argon2: { memoryKib: 64, iterations: 1 },
        sendEmail: async (params) => {
          mailbox.push(params);
        },
      }),
    ],
    events: {
      signIn: ({ user }) => {
        signedIn.push(user.id);
      },
      sessionsEnded: (message) => {
        ended.push(message);
      },
    },
  };
  let server;
  before(async () => {
    const app = express();
    app.use("/auth", ServerAuth(config));
    app.get("/my-sessions", async (req, res) => res.json(await listSessions(signedIn[0], config, req)));
    app.post("/end-others", async (req, res) => res.json({ ended: await endOtherSessions(signedIn[0], req, config) }));
    server = await listen(app);
  });
  after(() => {
    server?.close();
    for (const suffix of ["", "-wal", "-shm"]) rmSync(db + suffix, { force: true });
  });

  async function signUp(b, email) {
    const csrfToken = await b.csrf();
    const res = await b.post("/auth/password/signup", { email, password: PASSWORD, csrfToken });
    assert.equal(res.status, 302);
    const { url } = mailbox.pop();
    assert.equal((await b.fetch(url)).status, 302);
    assert.ok(b.sessionCookie());
  }

  async function signIn(b, email) {
    const csrfToken = await b.csrf();
    const res = await b.post("/auth/callback/password", { email, password: PASSWORD, csrfToken });
    assert.equal(res.status, 302);
    assert.ok(b.sessionCookie());
  }

  async function manage(b, fields) {
    const csrfToken = await b.csrf();
    return b.post("/auth/sessions", { ...fields, csrfToken });
  }

  it("lists, ends one, ends the others, from the browser and from the server", async () => {
    const laptop = new Browser(server.url, { headers: { "user-agent": FIREFOX } });
    await signUp(laptop, "ada@example.com");
    const phone = new Browser(server.url);
    await signIn(phone, "ada@example.com");
    const third = new Browser(server.url);
    await signIn(third, "ada@example.com");
    const ada = signedIn[0];
    assert.ok(ada);

    let res = await laptop.fetch("/auth/sessions");
    assert.equal(res.status, 200);
    const { sessions } = await res.json();
    assert.equal(sessions.length, 3);
    assert.equal(sessions[0].current, true);
    assert.equal(sessions[0].device, "Firefox on Linux");
    assert.match(sessions[0].ip, /^127\.0\.0\.0\/24$|^::\/48$/);

    // From the server, with the request: the same list, this browser current.
    const mine = await (await laptop.fetch("/my-sessions")).json();
    assert.deepEqual(
      mine.map((s) => [s.id, s.current]),
      sessions.map((s) => [s.id, s.current]),
    );
    const fromServer = await listSessions(ada, config);
    assert.equal(fromServer.length, 3);
    assert.ok(
      fromServer.every((s) => s.current === false),
      "no request: no current session",
    );

    // Without the CSRF token nothing ends; another browser's session ends with it.
    const phoneId = (await (await phone.fetch("/auth/sessions")).json()).sessions[0].id;
    res = await laptop.post("/auth/sessions", { action: "end", id: phoneId });
    assert.equal(res.status, 302);
    assert.match(res.headers.get("location"), /error=MissingCSRF/);
    assert.notEqual(await phone.session(), null);
    res = await manage(laptop, { action: "end", id: phoneId });
    assert.equal(res.status, 200);
    assert.equal(await phone.session(), null);
    assert.notEqual(await laptop.session(), null);

    // From server code: unknown ids, the others, all.
    await assert.rejects(
      endSession(ada, phoneId, config),
      (e) => e instanceof AuthError && e.type === "SessionTokenError",
    );
    await assert.rejects(endSession(ada, "", config), TypeError);
    assert.deepEqual(await (await laptop.post("/end-others", {})).json(), { ended: 1 });
    assert.equal(await third.session(), null);
    assert.notEqual(await laptop.session(), null);
    assert.equal(await endAllSessions(ada, config), 1);
    assert.equal(await laptop.session(), null);
    assert.deepEqual(
      ended.map((e) => [e.scope, e.ended, e.userId]),
      [
        ["one", 1, ada],
        ["others", 1, ada],
        ["all", 1, ada],
      ],
    );
  });

  it("JWT sessions are not listed, but end all at once by a sign-out time", async () => {
    const endedJwt = [];
    const jwt = {
      ...config,
      adapter: { type: "sqlite", path: `${db}-jwt` },
      session: { strategy: "jwt" },
      events: { sessionsEnded: (message) => endedJwt.push(message) },
    };
    await assert.rejects(
      listSessions("someone", jwt),
      (e) => e instanceof AuthError && e.type === "UnsupportedStrategy",
    );
    await assert.rejects(
      endOtherSessions("someone", new Request("http://localhost/", { headers: { cookie: "a=b" } }), jwt),
      (e) => e instanceof AuthError && e.type === "UnsupportedStrategy",
    );
    assert.equal(await endAllSessions("someone", jwt), 0, "nothing stored to count");
    assert.equal(endedJwt.length, 1);
    assert.equal(endedJwt[0].scope, "all");
    assert.match(endedJwt[0].before, /Z$/);
    const off = { ...jwt, session: { strategy: "jwt", revocationCheck: false } };
    await assert.rejects(
      endAllSessions("someone", off),
      (e) => e instanceof AuthError && e.type === "UnsupportedStrategy",
    );
    rmSync(`${db}-jwt`, { force: true });
  });
});
