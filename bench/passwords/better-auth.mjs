// Better Auth as the benchmark runs it (server.mjs serves it, migrate.mjs
// creates its tables from the same options): email + password on, its
// default scrypt (N=16384, r=16, p=1, 64-byte key: node:crypto's scrypt on
// libuv's thread pool), SQLite through better-sqlite3 in WAL mode (as
// libauth's SQLite adapter opens its file), rate limits and telemetry off,
// database sessions (its only kind with a database: a session row per
// sign-in).
import Database from "better-sqlite3";
import { betterAuth } from "better-auth";

export function makeAuth(dbPath, baseURL) {
  const database = new Database(dbPath);
  database.pragma("journal_mode = WAL");
  return betterAuth({
    database,
    baseURL,
    secret: process.env.AUTH_SECRET ?? "libauth-benchmark-secret-0123456789abcdef",
    emailAndPassword: { enabled: true },
    rateLimit: { enabled: false },
    telemetry: { enabled: false },
    // A wrong password logs a warning per attempt otherwise.
    logger: { level: "error" },
  });
}
