// Security review 2, over Express and real HTTP: a Host that smuggles a
// path, case variants of the mount path, and cross-site form actions.
import { describe, it, before, after } from "node:test";
import assert from "node:assert/strict";
import net from "node:net";
import { createRequire } from "node:module";
import { ServerAuth, signIn, AuthError } from "libauth";
import { listen, Browser, sleep } from "./helpers.mjs";
import { baseConfig } from "./flows.mjs";

const express = createRequire(import.meta.url)("express");

/** A raw HTTP/1.1 request (fetch would refuse these Host headers): the status. */
function rawStatus(url, path, headers) {
  const { hostname, port } = new URL(url);
  return new Promise((resolve, reject) => {
    const socket = net.connect(Number(port), hostname, () => {
      const lines = [`GET ${path} HTTP/1.1`, ...headers.map(([k, v]) => `${k}: ${v}`), "connection: close", "", ""];
      socket.end(lines.join("\r\n"));
    });
    let data = "";
    socket.on("data", (chunk) => (data += chunk));
    socket.on("end", () => resolve(Number(data.split(" ")[1])));
    socket.on("error", reject);
  });
}

describe("a Host header that is not a plain host[:port]", () => {
  let server;
  before(async () => {
    const app = express();
    app.set("trust proxy", "loopback");
    app.use("/auth", ServerAuth({ ...baseConfig(), trustHost: true }));
    server = await listen(app);
  });
  after(() => server?.close());

  it("is answered 400, never routed by the path it carries", async () => {
    const host = new URL(server.url).host;
    const smuggled = [
      `${host}\\auth\\callback\\credentials?code=c&state=s&y=`,
      `${host}/auth/callback/credentials?code=c&state=s&y=`,
      `user@${host}`,
      `${host}#x`,
      `${host}:99999`,
    ];
    for (const value of smuggled) {
      assert.equal(await rawStatus(server.url, "/auth/session", [["host", value]]), 400, value);
    }
    // A trusted proxy's forwarded host is held to the same rule.
    assert.equal(
      await rawStatus(server.url, "/auth/session", [
        ["host", host],
        ["x-forwarded-host", "a.example/auth/callback/x?y="],
      ]),
      400,
    );
    assert.equal(await rawStatus(server.url, "/auth/session", [["host", host]]), 200);
    assert.equal(
      await rawStatus(server.url, "/auth/session", [
        ["host", host],
        ["x-forwarded-host", "app.example.com"],
      ]),
      200,
    );
  });
});

describe("case variants of the mount path (no basePath)", () => {
  let server;
  let release;
  let started = 0;
  before(async () => {
    const gate = new Promise((resolve) => (release = resolve));
    const config = baseConfig({
      hooks: { maxInFlight: 1 },
      trustHost: true,
    });
    config.providers[0].authorize = async () => {
      started++;
      await gate;
      return null;
    };
    const app = express();
    app.use("/api/auth", ServerAuth(config));
    server = await listen(app);
  });
  after(() => {
    release?.();
    return server?.close();
  });

  it("share one engine: one admission bound, every spelling answered", async () => {
    // One sign-in holds the only place while its authorize waits.
    const holder = new Browser(server.url, { basePath: "/api/auth" });
    const pending = holder.signIn("ada", "x");
    for (let i = 0; i < 200 && started === 0; i++) await sleep(25);
    assert.equal(started, 1, "the first authorize is running");
    // Every spelling of the mount is that engine: its csrf route answers,
    // and a sign-in through it finds the bound reached.
    const spellings = [];
    for (let mask = 0; mask < 128; mask++) {
      spellings.push([..."/api/auth"].map((c, i) => (mask & (1 << (i % 7)) ? c.toUpperCase() : c)).join(""));
    }
    for (const base of [...new Set(spellings)]) {
      const b = new Browser(server.url, { basePath: base });
      const res = await b.signIn("ada", "lovelace");
      assert.equal(res.status, 503, `${base}: ${res.status}`);
    }
    release();
    const res = await pending;
    assert.equal(res.status, 302);
  });
});

describe("signIn from an Express route, cross-site", () => {
  let server;
  before(async () => {
    const config = baseConfig();
    const app = express();
    app.use("/auth", ServerAuth(config));
    app.use(express.urlencoded({ extended: false }));
    app.post("/login", async (req, res) => {
      try {
        const { url, cookies } = await signIn("credentials", req.body, req, config);
        res.setHeader("set-cookie", cookies);
        res.redirect(303, url);
      } catch (e) {
        if (e instanceof AuthError) return res.status(403).json({ error: e.type });
        throw e;
      }
    });
    server = await listen(app);
  });
  after(() => server?.close());

  const fields = { username: "ada", password: "lovelace" };

  it("is refused when the browser says another site sent it", async () => {
    for (const headers of [
      { origin: "https://evil.example" },
      { origin: "null" },
      { "sec-fetch-site": "cross-site" },
    ]) {
      const b = new Browser(server.url);
      const res = await b.post("/login", fields, headers);
      assert.equal(res.status, 403, JSON.stringify(headers));
      assert.deepEqual(await res.json(), { error: "MissingCSRF" });
      assert.equal(b.sessionCookie(), undefined);
    }
  });

  it("signs in from our own origin, or with no browser headers at all", async () => {
    for (const headers of [{ origin: server.url, "sec-fetch-site": "same-origin" }, {}]) {
      const b = new Browser(server.url);
      const res = await b.post("/login", fields, headers);
      assert.equal(res.status, 303, JSON.stringify(headers));
      assert.ok(b.sessionCookie());
    }
  });
});
