// One server of the password benchmark, on Express 5:
//   node server.mjs libauth <port> <sqlite file> [maxQueued]
//   node server.mjs better-auth <port> <sqlite file>
// GET /ready answers { cpus } (the CPUs this process may run on, which is
// what libauth's `maxConcurrent` defaults to) once it listens.
import os from "node:os";
import { createRequire } from "node:module";
import express from "express";

const [impl, port, db, maxQueued] = process.argv.slice(2);
const secret = process.env.AUTH_SECRET ?? "libauth-benchmark-secret-0123456789abcdef";
const app = express();
app.get("/ready", (_req, res) => res.json({ cpus: os.availableParallelism() }));

if (impl === "libauth") {
  // The package from the checkout; its addon is LIBAUTH_NATIVE (release).
  const { ServerAuth, Password } = createRequire(import.meta.url)("../../bindings/node");
  const password = Password({ requireEmailVerification: false, sendEmail: async () => {} });
  if (maxQueued) password.maxQueued = Number(maxQueued);
  const config = {
    secret,
    trustHost: true,
    adapter: { type: "sqlite", path: db },
    session: { strategy: "jwt" },
    rateLimit: false, // thousands of sign-ins from one address on purpose
    providers: [password],
    // No logger function: one would send every request (csrf too) to the
    // addon's worker threads. bench.mjs sends this process's stderr (an
    // error logged per wrong password in the timing test) to a file.
  };
  app.use("/auth", ServerAuth(config));
} else if (impl === "better-auth") {
  const { toNodeHandler } = await import("better-auth/node");
  const { makeAuth } = await import("./better-auth.mjs");
  const auth = makeAuth(db, `http://127.0.0.1:${port}`);
  app.all("/api/auth/*splat", toNodeHandler(auth));
} else {
  throw new Error(`unknown server ${impl}`);
}

const server = app.listen(Number(port), "127.0.0.1");
server.keepAliveTimeout = 60_000;
server.once("error", (e) => {
  console.error(`password bench server ${impl}: ${e.message}`);
  process.exit(1);
});
