// TikTok sign-in through the Express adapter against the local TikTok
// simulator (tests/tiktok-sim, built by `cargo test --workspace`).
import { describe, it, before, after } from "node:test";
import assert from "node:assert/strict";
import { existsSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { createRequire } from "node:module";
import { ServerAuth, getSession, getAccount, refreshAccount, getAccessToken, TikTok } from "libauth";
import { Browser, SECRET, freePort, skipUnless } from "./helpers.mjs";

const require = createRequire(import.meta.url);
const express = require("express");
const root = fileURLToPath(new URL("../../../", import.meta.url));
const simBin = `${root}target/debug/tiktok-sim`;
const skip = skipUnless(existsSync(simBin), "target/debug/tiktok-sim is not built (cargo build -p tiktok-sim)");

describe("TikTok through the Express adapter (simulator)", { skip }, () => {
  let sim;
  let server;
  let origin;
  let dbConfig;
  let tokenUrl;
  const seen = {};
  before(async () => {
    const [simPort, appPort] = [await freePort(), await freePort()];
    origin = `http://127.0.0.1:${appPort}`;
    const simUrl = `http://127.0.0.1:${simPort}`;
    tokenUrl = `${simUrl}/v2/oauth/token/`;
    const { spawn } = await import("node:child_process");
    sim = spawn(
      simBin,
      [
        "--quiet",
        "--port",
        String(simPort),
        "--redirect-uri",
        `${origin}/auth/callback/tiktok`,
        "--redirect-uri",
        `${origin}/mapped/callback/tiktok`,
        "--redirect-uri",
        `${origin}/db/callback/tiktok`,
      ],
      { stdio: "ignore" },
    );
    for (let i = 0; i < 100; i++) {
      try {
        await fetch(`${simUrl}/`);
        break;
      } catch {
        await new Promise((r) => setTimeout(r, 50));
      }
    }
    const config = {
      secret: SECRET,
      providers: [
        TikTok({
          clientId: "sim-client-key",
          clientSecret: "sim-client-secret",
          authorization: { url: `${simUrl}/v2/auth/authorize/` },
          token: `${simUrl}/v2/oauth/token/`,
          userinfo: `${simUrl}/v2/user/info/`,
        }),
      ],
      callbacks: {
        async jwt({ token, account, profile, trigger }) {
          if (trigger === "signIn") {
            seen.account = account;
            seen.profile = profile;
            token.openId = profile?.data?.user?.open_id;
          }
          return token;
        },
        async session({ session, token }) {
          session.user.openId = token.openId;
          return session;
        },
      },
    };
    // The same provider with a `profile(profile, tokens)` function, mounted
    // at /mapped: it renames the user and adds fields.
    const mappedConfig = {
      secret: SECRET,
      basePath: "/mapped",
      providers: [
        TikTok({
          clientId: "sim-client-key",
          clientSecret: "sim-client-secret",
          authorization: { url: `${simUrl}/v2/auth/authorize/` },
          token: `${simUrl}/v2/oauth/token/`,
          userinfo: `${simUrl}/v2/user/info/`,
          async profile(profile, tokens) {
            seen.profileArgs = { profile, tokens };
            await new Promise((r) => setTimeout(r, 1));
            const u = profile.data.user;
            return {
              id: u.open_id,
              name: `${u.display_name} (mapped)`,
              email: null,
              image: u.avatar_url,
              avatarLarge: u.avatar_large_url,
            };
          },
        }),
      ],
      callbacks: {
        jwt({ token, user, trigger }) {
          if (trigger === "signIn") {
            seen.mappedUser = user;
            token.avatarLarge = user.avatarLarge;
          }
          return token;
        },
        session({ session, token }) {
          session.user.id = token.sub;
          session.user.avatarLarge = token.avatarLarge;
          return session;
        },
      },
    };
    // Database sessions in SQLite: the account and its tokens are stored,
    // and read back with getAccount / refreshed with refreshAccount.
    dbConfig = {
      secret: SECRET,
      basePath: "/db",
      adapter: { type: "sqlite", path: `/tmp/libauth-tiktok-${process.pid}.db` },
      providers: [
        TikTok({
          clientId: "sim-client-key",
          clientSecret: "sim-client-secret",
          authorization: { url: `${simUrl}/v2/auth/authorize/` },
          token: `${simUrl}/v2/oauth/token/`,
          userinfo: `${simUrl}/v2/user/info/`,
        }),
      ],
      callbacks: {
        session({ session, user }) {
          session.user.id = user.id;
          return session;
        },
      },
    };
    const app = express();
    app.use("/db", ServerAuth(dbConfig));
    app.get("/db-me", async (req, res) => res.json(await getSession(req, dbConfig)));
    app.use("/auth", ServerAuth(config));
    app.use("/mapped", ServerAuth(mappedConfig));
    app.get("/me", async (req, res) => res.json(await getSession(req, config)));
    app.get("/mapped-me", async (req, res) => res.json(await getSession(req, mappedConfig)));
    server = await new Promise((resolve) => {
      const s = app.listen(appPort, "127.0.0.1", () => resolve(s));
    });
  });
  after(async () => {
    const { rmSync } = await import("node:fs");
    for (const suffix of ["", "-wal", "-shm"])
      rmSync(`/tmp/libauth-tiktok-${process.pid}.db${suffix}`, { force: true });
    sim?.kill();
    server?.closeAllConnections?.();
    await new Promise((r) => (server ? server.close(r) : r()));
  });

  it("signs in: authorize redirect, simulator, callback, session with the TikTok profile", async () => {
    const br = new Browser(origin);
    const csrfToken = await br.csrf();
    let res = await br.post("/auth/signin/tiktok", { csrfToken, callbackUrl: "/after" });
    assert.equal(res.status, 302);
    const authorize = new URL(res.headers.get("location"));
    assert.equal(authorize.searchParams.get("client_key"), "sim-client-key");
    assert.equal(authorize.searchParams.get("redirect_uri"), `${origin}/auth/callback/tiktok`);
    res = await fetch(authorize, { redirect: "manual" });
    assert.equal(res.status, 302, "the simulator signs its test user in and redirects back");
    const back = res.headers.get("location");
    assert.ok(back.startsWith(`${origin}/auth/callback/tiktok?`), back);
    res = await br.fetch(back);
    assert.equal(res.status, 302);
    assert.equal(res.headers.get("location"), `${origin}/after`);
    const session = await br.session();
    assert.ok(session.user.name, JSON.stringify(session));
    assert.ok(session.user.openId, "the jwt callback saw TikTok's profile (data.user.open_id)");
    assert.equal(seen.account.provider, "tiktok");
    assert.equal(seen.account.type, "oauth");
    assert.equal(seen.account.token_type, seen.account.token_type?.toLowerCase());
    assert.equal((await (await br.fetch("/me")).json()).user.openId, session.user.openId);
  });

  it("a user who denies access ends back on the sign-in page without a session", async () => {
    const br = new Browser(origin);
    const csrfToken = await br.csrf();
    const res = await br.post("/auth/signin/tiktok", { csrfToken });
    const authorize = new URL(res.headers.get("location"));
    const state = authorize.searchParams.get("state");
    const denied = await br.fetch(`/auth/callback/tiktok?error=access_denied&error_description=denied&state=${state}`);
    assert.equal(denied.status, 302);
    assert.match(denied.headers.get("location"), /\/auth\/signin\?error=OAuthCallbackError/);
    assert.equal(await br.session(), null);
  });

  it("a provider profile(profile, tokens) function maps the user: the session shows the mapped name and added field", async () => {
    const br = new Browser(origin, { basePath: "/mapped" });
    const csrfToken = await br.csrf();
    let res = await br.post("/mapped/signin/tiktok", { csrfToken });
    const authorize = new URL(res.headers.get("location"));
    assert.equal(authorize.searchParams.get("redirect_uri"), `${origin}/mapped/callback/tiktok`);
    res = await fetch(authorize, { redirect: "manual" });
    const back = res.headers.get("location");
    assert.ok(back.startsWith(`${origin}/mapped/callback/tiktok?`), back);
    res = await br.fetch(back);
    assert.equal(res.status, 302);
    assert.equal(res.headers.get("location"), origin);

    const { profile, tokens } = seen.profileArgs;
    const openId = profile.data.user.open_id;
    assert.ok(openId, "profile is TikTok's user-info response");
    assert.ok(tokens.access_token, "tokens carry the access token");
    assert.equal(tokens.open_id, openId, "TikTok's token response names the user");
    assert.equal(seen.mappedUser.name, "Sim Creator (mapped)");
    assert.equal(seen.mappedUser.id, openId);

    const session = await br.session();
    assert.equal(session.user.name, "Sim Creator (mapped)");
    assert.equal(session.user.image, profile.data.user.avatar_url);
    assert.equal(session.user.id, openId);
    assert.equal(session.user.avatarLarge, profile.data.user.avatar_large_url, "the added field reached the session");
    assert.ok(session.user.avatarLarge.endsWith("avatar_1080x1080.jpeg"));
    assert.ok(!session.user.email, "profile() gave no email");
    const me = await (await br.fetch("/mapped-me")).json();
    assert.equal(me.user.name, "Sim Creator (mapped)");
    assert.equal(me.user.avatarLarge, session.user.avatarLarge);
  });

  it("database sessions: getAccount reads the stored tokens, refreshAccount rotates and stores them", async () => {
    const br = new Browser(origin, { basePath: "/db" });
    const csrfToken = await br.csrf();
    let res = await br.post("/db/signin/tiktok", { csrfToken, callbackUrl: "/after" });
    res = await fetch(new URL(res.headers.get("location")), { redirect: "manual" });
    res = await br.fetch(res.headers.get("location"));
    assert.equal(res.status, 302);
    const me = await (await br.fetch("/db-me")).json();
    const userId = me.user.id;
    assert.ok(userId, JSON.stringify(me));

    assert.equal(await getAccount(userId, "github", dbConfig), null);
    assert.equal(await getAccount("nobody", "tiktok", dbConfig), null);
    const stored = await getAccount(userId, "tiktok", dbConfig);
    assert.equal(stored.provider, "tiktok");
    assert.equal(stored.userId, userId);
    assert.match(stored.access_token, /^act\./);
    assert.match(stored.refresh_token, /^rft\./);
    assert.match(stored.scope, /user\.info\.basic/);
    assert.ok(stored.expires_at > Date.now() / 1000);

    const fresh = await refreshAccount(userId, "tiktok", dbConfig);
    assert.notEqual(fresh.access_token, stored.access_token);
    assert.notEqual(fresh.refresh_token, stored.refresh_token, "TikTok rotates the refresh token");
    assert.equal(fresh.scope, stored.scope);
    assert.deepEqual(await getAccount(userId, "tiktok", dbConfig), fresh, "the new tokens are stored");
    assert.equal(await refreshAccount(userId, "github", dbConfig), null, "no such account");
    await assert.rejects(
      getAccount(userId, "tiktok", { secret: SECRET, providers: [] }),
      (e) => e.type === "MissingAdapter",
    );
    await assert.rejects(getAccount("", "tiktok", dbConfig), TypeError);

    // getAccessToken: a fresh token as stored; a due one refreshed once for
    // 20 concurrent calls (TikTok rotates refresh tokens: a second refresh
    // with the same one would be refused); a spent one is RefreshTokenRevoked.
    const current = await getAccount(userId, "tiktok", dbConfig);
    assert.equal((await getAccessToken(userId, "tiktok", dbConfig)).accessToken, current.access_token);
    assert.equal(await getAccessToken("nobody", "tiktok", dbConfig), null);
    // A skew the stored token is inside and a new one is outside: due once.
    await new Promise((r) => setTimeout(r, 2000));
    const remaining = current.expires_at - Math.floor(Date.now() / 1000);
    const dueConfig = { ...dbConfig, tokenRefresh: { skew: remaining + 1 } };
    const tokens = await Promise.all(Array.from({ length: 20 }, () => getAccessToken(userId, "tiktok", dueConfig)));
    assert.ok(
      tokens.every((t) => t.accessToken === tokens[0].accessToken),
      "one refresh, shared",
    );
    assert.equal(
      (await getAccessToken(userId, "tiktok", dueConfig)).accessToken,
      tokens[0].accessToken,
      "fresh now: not refreshed again",
    );
    assert.notEqual(tokens[0].accessToken, current.access_token);
    const after = await getAccount(userId, "tiktok", dbConfig);
    assert.equal(after.access_token, tokens[0].accessToken, "stored");
    // Spend the stored refresh token elsewhere, as a leaked copy would.
    const spent = await fetch(tokenUrl, {
      method: "POST",
      headers: { "content-type": "application/x-www-form-urlencoded" },
      body: new URLSearchParams({
        client_key: "sim-client-key",
        client_secret: "sim-client-secret",
        grant_type: "refresh_token",
        refresh_token: after.refresh_token,
      }),
    });
    assert.equal(spent.status, 200);
    const alwaysDue = { ...dbConfig, tokenRefresh: { skew: 10 ** 9 } };
    await assert.rejects(getAccessToken(userId, "tiktok", alwaysDue), (e) => e.type === "RefreshTokenRevoked");
  });
});
