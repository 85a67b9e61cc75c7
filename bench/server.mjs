// One server of the benchmark: `node server.mjs <libauth|authjs|bare> <port>`.
// Every server is Express 5 with the same secret; `/protected` answers the
// session JSON (or redirects to /login), `/bare` answers a fixed copy of it.
import express from "express";

const [impl, port] = process.argv.slice(2);
const secret = process.env.AUTH_SECRET;
const BARE = JSON.parse(process.env.BARE_JSON ?? "null");
const user = { id: "1", name: "Bench User", email: "bench@example.com", image: "https://img.example/b.png" };
// AUTHORIZE_MS > 0: authorize awaits that long (a database call, say).
const AUTHORIZE_MS = Number(process.env.AUTHORIZE_MS ?? 0);
const authorize = AUTHORIZE_MS > 0 ? () => new Promise((r) => setTimeout(() => r(user), AUTHORIZE_MS)) : () => user;
const app = express();

async function protectedRoute(getSession, config) {
  app.get("/protected", async (req, res) => {
    const session = await getSession(req, config);
    if (!session?.user) return res.redirect("/login");
    res.json(session);
  });
}

if (impl === "libauth") {
  const { ServerAuth, getSession, Credentials } = await import("libauth");
  const config = { secret, trustHost: true, providers: [Credentials({ credentials: { username: {} }, authorize })] };
  app.use("/auth", ServerAuth(config));
  protectedRoute(getSession, config);
} else if (impl === "authjs") {
  const { ExpressAuth, getSession } = await import("@auth/express");
  const { default: Credentials } = await import("@auth/express/providers/credentials");
  const config = { secret, trustHost: true, providers: [Credentials({ credentials: { username: {} }, authorize })] };
  app.use("/auth", ExpressAuth(config));
  protectedRoute(getSession, config);
} else if (impl === "bare") {
  app.get("/bare", (req, res) => res.json(BARE));
} else {
  throw new Error(`unknown server ${impl}`);
}
app.get("/ready", (req, res) => res.send("ok"));
app.listen(Number(port), "127.0.0.1", () => process.send?.("ready"));
