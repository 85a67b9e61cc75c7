// The email provider ("magic link") through the Express adapter, over real
// HTTP: a `sendVerificationRequest` function (hook
// `providers.<id>.sendVerificationRequest`) with the memory and SQLite
// adapters, and the engine's own SMTP delivery to a real SMTP server
// (core/tests/support/smtp_sink.py, aiosmtpd; scripts/test.sh installs it).
import { describe, it, before, after } from "node:test";
import assert from "node:assert/strict";
import { spawn, spawnSync } from "node:child_process";
import { createInterface } from "node:readline";
import { rmSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { Email } from "libauth";
import { Browser, SECRET, sleep, serveProtected, skipUnless } from "./helpers.mjs";

const root = fileURLToPath(new URL("../../../", import.meta.url));
const python = process.env.LIBAUTH_PYTHON ?? "python3";

const serve = (config) => serveProtected(config);

/** Ask for a link: POST signin/email with the CSRF token; returns the response. */
async function requestLink(br, email, extra = {}) {
  const csrfToken = await br.csrf();
  return br.post("/auth/signin/email", { csrfToken, email, ...extra });
}

const sqlitePath = `/tmp/libauth-node-email-${process.pid}.db`;
after(() => {
  for (const suffix of ["", "-wal", "-shm"]) rmSync(sqlitePath + suffix, { force: true });
});

for (const adapter of [{ type: "memory" }, { type: "sqlite", path: sqlitePath }]) {
  describe(`email sign-in with sendVerificationRequest (${adapter.type} adapter)`, () => {
    const sent = [];
    const config = {
      secret: SECRET,
      adapter,
      providers: [
        Email({
          async sendVerificationRequest(params) {
            await sleep(2); // really async: the engine waits for it
            if (params.identifier === "bounce@example.com") throw new Error("mailbox unavailable");
            sent.push(params);
          },
        }),
      ],
    };
    let s;
    before(async () => (s = await serve(config)));
    after(() => s?.close());

    it("the hook receives the link (Auth.js's arguments); following it signs in; sign-out ends the session", async () => {
      const br = new Browser(s.url);
      const res = await requestLink(br, " Grace@Example.com ", { callbackUrl: "/inbox" });
      assert.equal(res.status, 302);
      assert.equal(res.headers.get("location"), `${s.url}/auth/verify-request?provider=email&type=email`);
      assert.equal(br.sessionCookie(), undefined, "no session before the link is followed");
      assert.equal(sent.length, 1);
      const { identifier, url, expires, token, provider, request } = sent[0];
      assert.equal(identifier, "grace@example.com");
      const link = new URL(url);
      assert.equal(`${link.origin}${link.pathname}`, `${s.url}/auth/callback/email`);
      assert.equal(link.searchParams.get("email"), "grace@example.com");
      assert.equal(link.searchParams.get("token"), token);
      assert.match(token, /^[0-9a-f]{64}$/);
      assert.ok(expires instanceof Date, `expires is a Date, as in Auth.js (got ${typeof expires})`);
      const day = expires.getTime() - Date.now();
      assert.ok(day > 23.9 * 3600e3 && day <= 24 * 3600e3, `a day from now: ${expires.toISOString()}`);
      assert.equal(provider.id, "email");
      assert.equal(provider.type, "email");
      assert.ok(request instanceof Request, "request is a Web Request, as in Auth.js");
      assert.equal(request.url, `${s.url}/auth/signin/email`);

      const back = await br.fetch(url);
      assert.equal(back.status, 302);
      assert.equal(back.headers.get("location"), `${s.url}/inbox`);
      const cookie = br.sessionCookie();
      assert.ok(cookie, "a session cookie");
      assert.notEqual(cookie.split(".").length, 5, "a database session token, not a JWT");
      const session = await br.session();
      assert.equal(session.user.email, "grace@example.com");
      assert.ok(Date.parse(session.expires) > Date.now());
      assert.equal((await (await br.fetch("/me")).json()).user.email, "grace@example.com");

      // A copy of the cookie, taken before sign-out, works until then.
      const cookies = br.sessionCookies();
      const copy = () => Browser.withCookies(s.url, cookies);
      assert.equal((await copy().session()).user.email, "grace@example.com");
      const csrfToken = await br.csrf();
      const out = await br.post("/auth/signout", { csrfToken });
      assert.equal(out.status, 302);
      assert.equal(br.sessionCookie(), undefined);
      assert.equal(await br.session(), null);
      assert.equal((await br.fetch("/me")).status, 302);
      // The row is gone, not just the cookie: the copy finds nothing.
      const me = await copy().fetch("/me");
      assert.equal(me.status, 302, "a copied cookie is refused after sign-out");
      assert.equal(me.headers.get("location"), "/login");
      assert.equal(await copy().session(), null, "a copied cookie gives no session after sign-out");
    });

    it("sign-out on one device leaves the same user's session on another", async () => {
      const signedIn = async () => {
        const br = new Browser(s.url);
        assert.equal((await requestLink(br, "kay@example.com")).status, 302);
        assert.equal((await br.fetch(sent.at(-1).url)).status, 302);
        assert.equal((await br.session()).user.email, "kay@example.com");
        return br;
      };
      const laptop = await signedIn();
      const phone = await signedIn();
      assert.notEqual(laptop.sessionCookie(), phone.sessionCookie(), "two sessions");
      const laptopCookies = laptop.sessionCookies();

      const csrfToken = await laptop.csrf();
      assert.equal((await laptop.post("/auth/signout", { csrfToken })).status, 302);
      assert.equal(await laptop.session(), null);
      assert.equal(await Browser.withCookies(s.url, laptopCookies).session(), null, "the laptop's session row is gone");
      assert.equal((await phone.session()).user.email, "kay@example.com", "the phone is still signed in");
      const me = await phone.fetch("/me");
      assert.equal(me.status, 200);
      assert.equal((await me.json()).user.email, "kay@example.com");
    });

    it("a link works once: reusing it, or a wrong token, gives the Verification error page", async () => {
      const br = new Browser(s.url);
      await requestLink(br, "ada@example.com");
      const { url } = sent.at(-1);
      assert.equal((await br.fetch(url)).headers.get("location"), s.url);
      assert.equal((await br.session()).user.email, "ada@example.com");

      const other = new Browser(s.url);
      let res = await other.fetch(url);
      assert.equal(res.status, 302);
      assert.equal(res.headers.get("location"), `${s.url}/auth/error?error=Verification`);
      assert.equal(other.sessionCookie(), undefined);
      assert.equal(await other.session(), null);
      const page = await other.fetch("/auth/error?error=Verification");
      assert.equal(page.status, 403);
      assert.match(await page.text(), /<html/i);

      await requestLink(other, "ada@example.com");
      const fresh = new URL(sent.at(-1).url);
      fresh.searchParams.set("token", "0".repeat(64));
      res = await other.fetch(fresh.href);
      assert.equal(res.headers.get("location"), `${s.url}/auth/error?error=Verification`);
      assert.equal(other.sessionCookie(), undefined);
    });

    it("the same user signs in again by email (one user per address)", async () => {
      const first = new Browser(s.url);
      await requestLink(first, "lin@example.com");
      await first.fetch(sent.at(-1).url);
      const second = new Browser(s.url);
      await requestLink(second, "LIN@example.com");
      await second.fetch(sent.at(-1).url);
      assert.equal((await first.session()).user.email, "lin@example.com");
      assert.equal((await second.session()).user.email, "lin@example.com");
      assert.notEqual(first.sessionCookie(), second.sessionCookie(), "two sessions");
    });

    it("a hook that throws, a bad address or a missing CSRF token sends nothing and gives no session", async () => {
      const before = sent.length;
      const br = new Browser(s.url);
      // EmailSignInError is not client-safe: the URL says Configuration (as in Auth.js).
      let res = await requestLink(br, "bounce@example.com");
      assert.equal(res.status, 302);
      assert.equal(res.headers.get("location"), `${s.url}/auth/signin?error=Configuration`);
      res = await requestLink(br, "not-an-email");
      assert.equal(res.headers.get("location"), `${s.url}/auth/signin?error=Configuration`);
      res = await br.post("/auth/signin/email", { email: "ada@example.com" });
      assert.equal(res.status, 302);
      assert.equal(res.headers.get("location"), `${s.url}/auth/signin?error=MissingCSRF`);
      assert.equal(sent.length, before);
      assert.equal(br.sessionCookie(), undefined);
    });
  });
}

// ---------------------------------------------------------------- SMTP

const hasSink = spawnSync(python, ["-c", "import aiosmtpd"], { stdio: "ignore" }).status === 0;

/** The SMTP sink: `READY <port>`, then one JSON line per message received. */
async function startSink() {
  const child = spawn(python, [`${root}core/tests/support/smtp_sink.py`], { stdio: ["pipe", "pipe", "inherit"] });
  const lines = createInterface({ input: child.stdout });
  const queue = [];
  const waiting = [];
  lines.on("line", (line) => (waiting.length ? waiting.shift()(line) : queue.push(line)));
  const next = (what) =>
    new Promise((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`the SMTP sink sent no ${what} in 10 s`)), 10000);
      const take = (line) => (clearTimeout(timer), resolve(line));
      if (queue.length) take(queue.shift());
      else waiting.push(take);
    });
  const ready = await next("READY line");
  const port = Number(/^READY (\d+)$/.exec(ready)?.[1]);
  assert.ok(port, `READY <port>, got ${ready}`);
  return {
    port,
    nextMessage: async () => JSON.parse(await next("message")),
    stop: () =>
      new Promise((r) => (child.exitCode !== null ? r() : (child.once("exit", r), child.stdin.end(), child.kill()))),
  };
}

/** The `href` of the first link, HTML escapes undone. */
function href(html) {
  const m = /href="([^"]*)"/.exec(html);
  assert.ok(m, "a link in the HTML part");
  return m[1]
    .replaceAll("&quot;", '"')
    .replaceAll("&#39;", "'")
    .replaceAll("&lt;", "<")
    .replaceAll("&gt;", ">")
    .replaceAll("&amp;", "&");
}

describe("email sign-in through SMTP (Email({ server, from }))", {
  skip: skipUnless(hasSink, `${python} cannot import aiosmtpd (pip install aiosmtpd; scripts/test.sh does)`),
}, () => {
  let sink;
  let s;
  before(async () => {
    sink = await startSink();
    const config = {
      secret: SECRET,
      adapter: { type: "memory" },
      providers: [Email({ server: { host: "127.0.0.1", port: sink.port }, from: "Example <no-reply@example.com>" })],
    };
    s = await serve(config);
  });
  after(async () => {
    await s?.close();
    await sink?.stop();
  });

  it("the link arrives by mail (text and HTML); following it signs in, once", async () => {
    const br = new Browser(s.url);
    const res = await requestLink(br, "grace@example.com", { callbackUrl: "/inbox" });
    assert.equal(res.headers.get("location"), `${s.url}/auth/verify-request?provider=email&type=email`);
    const m = await sink.nextMessage();
    assert.equal(m.mail_from, "no-reply@example.com");
    assert.deepEqual(m.rcpt_tos, ["grace@example.com"]);
    assert.equal(m.from, "Example <no-reply@example.com>");
    assert.equal(m.subject, `Sign in to ${new URL(s.url).host}`);
    const link = href(m.html);
    assert.ok(link.startsWith(`${s.url}/auth/callback/email?`), link);
    assert.ok(m.text.split(/\r?\n/).includes(link), `the same link on a line of the text part:\n${m.text}`);

    const back = await br.fetch(link);
    assert.equal(back.headers.get("location"), `${s.url}/inbox`);
    assert.equal((await br.session()).user.email, "grace@example.com");
    assert.equal((await (await br.fetch("/me")).json()).user.email, "grace@example.com");

    const other = new Browser(s.url);
    assert.equal((await other.fetch(link)).headers.get("location"), `${s.url}/auth/error?error=Verification`);
    assert.equal(other.sessionCookie(), undefined);
  });
});
