// Moving in from Auth.js without logging anyone out: a real Auth.js
// (@auth/express with @auth/pg-adapter on PostgreSQL, database sessions)
// signs a user in by email link; `npx libauth import authjs` copies its
// database into libauth's; libauth then answers the same browser, with the
// same cookie, as that user. A second import changes nothing.
import { it, after } from "node:test";
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { createRequire } from "node:module";
import { mkdtempSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { ExpressAuth } from "@auth/express";
import PostgresAdapter from "@auth/pg-adapter";
import pg from "pg";
import { ServerAuth } from "libauth";
import { listen, Browser, SECRET } from "./helpers.mjs";

const require = createRequire(import.meta.url);
const express4 = require("express4");
const BIN = fileURLToPath(new URL("../bin/libauth.js", import.meta.url));
const PG_URL = process.env.LIBAUTH_TEST_POSTGRES_URL ?? "postgres://postgres@127.0.0.1:5432/test";
const SCHEMA = `authjs_import_${process.pid}`;

// @auth/pg-adapter's schema, as its documentation gives it.
const AUTHJS_SCHEMA = `
CREATE TABLE verification_token (identifier TEXT NOT NULL, expires TIMESTAMPTZ NOT NULL, token TEXT NOT NULL, PRIMARY KEY (identifier, token));
CREATE TABLE accounts (id SERIAL, "userId" INTEGER NOT NULL, type VARCHAR(255) NOT NULL, provider VARCHAR(255) NOT NULL,
  "providerAccountId" VARCHAR(255) NOT NULL, refresh_token TEXT, access_token TEXT, expires_at BIGINT, id_token TEXT,
  scope TEXT, session_state TEXT, token_type TEXT, PRIMARY KEY (id));
CREATE TABLE sessions (id SERIAL, "userId" INTEGER NOT NULL, expires TIMESTAMPTZ NOT NULL, "sessionToken" VARCHAR(255) NOT NULL, PRIMARY KEY (id));
CREATE TABLE users (id SERIAL, name VARCHAR(255), email VARCHAR(255), "emailVerified" TIMESTAMPTZ, image TEXT, PRIMARY KEY (id));
`;

const admin = new pg.Pool({ connectionString: PG_URL, max: 1 });
const pool = new pg.Pool({ connectionString: PG_URL, max: 2, options: `-c search_path=${SCHEMA}` });
const work = mkdtempSync(path.join(os.tmpdir(), "libauth-import-"));
const servers = [];
after(async () => {
  await Promise.all(servers.map((s) => s.close()));
  await pool.end();
  await admin.query(`DROP SCHEMA IF EXISTS ${SCHEMA} CASCADE`);
  await admin.end();
  rmSync(work, { recursive: true, force: true });
});

/** An email provider whose "mail" is kept here, for the test to click. */
function capturingEmail(outbox) {
  return {
    id: "email",
    type: "email",
    name: "Email",
    maxAge: 24 * 60 * 60,
    options: {},
    async sendVerificationRequest({ identifier, url }) {
      outbox.push({ to: identifier, url });
    },
  };
}

function libauthCli(args) {
  const done = spawnSync(process.execPath, [BIN, ...args], { encoding: "utf8", timeout: 60_000 });
  assert.equal(done.status, 0, `libauth ${args.join(" ")}: ${done.stderr}`);
  return JSON.parse(done.stdout);
}

it("a user signed in by Auth.js (pg-adapter, database sessions) stays signed in under libauth after the import", async () => {
  await admin.query(`DROP SCHEMA IF EXISTS ${SCHEMA} CASCADE; CREATE SCHEMA ${SCHEMA}`);
  await pool.query(AUTHJS_SCHEMA);

  // Auth.js, as an app runs it today.
  const outbox = [];
  const app = express4();
  app.use(
    "/auth/*",
    ExpressAuth({
      secret: SECRET,
      trustHost: true,
      adapter: PostgresAdapter(pool),
      session: { strategy: "database" },
      providers: [capturingEmail(outbox)],
    }),
  );
  const authjs = await listen(app);
  servers.push(authjs);
  const browser = new Browser(authjs.url);
  const csrfToken = await browser.csrf();
  const asked = await browser.post("/auth/signin/email", { csrfToken, email: "grace@example.com" });
  assert.equal(asked.status, 302);
  assert.equal(outbox.length, 1, "Auth.js sent the link");
  const clicked = await browser.fetch(outbox[0].url);
  assert.equal(clicked.status, 302);
  const cookie = browser.sessionCookie();
  assert.ok(cookie, "Auth.js set its database session cookie");
  assert.equal((await browser.session()).user.email, "grace@example.com");
  // An old session of the same user, already expired.
  const { rows } = await pool.query("SELECT id FROM users WHERE email = $1", ["grace@example.com"]);
  await pool.query(
    `INSERT INTO sessions ("userId", expires, "sessionToken") VALUES ($1, now() - interval '1 day', 'old')`,
    [rows[0].id],
  );

  // The switch: dry run first (nothing written), then the import.
  const db = path.join(work, "libauth.db");
  const from = ["--from", PG_URL, "--from-schema", SCHEMA, "--to", `sqlite:${db}`, "--json"];
  const dry = libauthCli(["import", "authjs", ...from, "--dry-run"]);
  assert.equal(dry.dryRun, true);
  assert.equal(dry.counts.users.written, 1);
  assert.equal(dry.counts.sessions.written, 1);
  assert.equal(dry.counts.sessions.skipped, 1, "the expired session is left behind");
  const imported = libauthCli(["import", "authjs", ...from]);
  assert.equal(imported.counts.users.written, 1);
  assert.equal(imported.counts.sessions.written, 1);
  assert.deepEqual(imported.skipped, []);

  // libauth, on the imported database, with the same secret.
  const libauthApp = express4();
  libauthApp.use(
    "/auth",
    ServerAuth({
      secret: SECRET,
      trustHost: true,
      adapter: { type: "sqlite", path: db },
      providers: [{ type: "email", server: { host: "127.0.0.1", port: 1, from: "a@example.com", secure: false } }],
    }),
  );
  const ours = await listen(libauthApp);
  servers.push(ours);
  const same = Browser.withCookies(ours.url, browser.sessionCookies());
  const session = await same.session();
  assert.equal(session?.user?.email, "grace@example.com", "the same cookie is the same session");

  // Idempotent: a second run finds everything there.
  const again = libauthCli(["import", "authjs", ...from]);
  assert.equal(again.counts.users.written, 0);
  assert.equal(again.counts.users.present, 1);
  assert.equal(again.counts.sessions.written, 0);
  assert.equal(again.counts.sessions.present, 1);
});
