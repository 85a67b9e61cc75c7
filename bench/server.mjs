// One server of the benchmark: `node server.mjs <kind> <port>`.
//
// Express 5 servers (`libauth`, `authjs`, `bare`) and plain node:http ones
// (`http-libauth`, `http-bare`), all with the same secret: `/protected`
// answers the session JSON (or redirects to /login), `/bare` answers a
// fixed copy of it (serialised per request, as a real route would).
import http from "node:http";
import express from "express";

const [impl, port] = process.argv.slice(2);
const secret = process.env.AUTH_SECRET;
const BARE = JSON.parse(process.env.BARE_JSON ?? "null");
const user = { id: "1", name: "Bench User", email: "bench@example.com", image: "https://img.example/b.png" };
// AUTHORIZE_MS > 0: authorize awaits that long (a database call, say).
const AUTHORIZE_MS = Number(process.env.AUTHORIZE_MS ?? 0);
const authorize = AUTHORIZE_MS > 0 ? () => new Promise((r) => setTimeout(() => r(user), AUTHORIZE_MS)) : () => user;

function ready(server) {
  server.once("error", (e) => {
    console.error(`bench server ${impl}: ${e.message}`);
    process.exit(1);
  });
  server.listen(Number(port), "127.0.0.1", () => process.send?.("ready"));
}

function expressApp() {
  const app = express();
  app.get("/ready", (_req, res) => res.send("ok"));
  return app;
}

function protectedRoute(app, getSession, config) {
  app.get("/protected", async (req, res) => {
    const session = await getSession(req, config);
    if (!session?.user) return res.redirect("/login");
    res.json(session);
  });
}

function sendJson(res, value) {
  const body = JSON.stringify(value);
  res.writeHead(200, { "content-type": "application/json; charset=utf-8", "content-length": Buffer.byteLength(body) });
  res.end(body);
}

if (impl === "libauth") {
  const { ServerAuth, getSession, Credentials } = await import("libauth");
  const config = { secret, trustHost: true, providers: [Credentials({ credentials: { username: {} }, authorize })] };
  const app = expressApp();
  app.use("/auth", ServerAuth(config));
  protectedRoute(app, getSession, config);
  ready(app);
} else if (impl === "authjs") {
  const { ExpressAuth, getSession } = await import("@auth/express");
  const { default: Credentials } = await import("@auth/express/providers/credentials");
  const config = { secret, trustHost: true, providers: [Credentials({ credentials: { username: {} }, authorize })] };
  const app = expressApp();
  app.use("/auth", ExpressAuth(config));
  protectedRoute(app, getSession, config);
  ready(app);
} else if (impl === "bare") {
  const app = expressApp();
  app.get("/bare", (_req, res) => res.json(BARE));
  ready(app);
} else if (impl === "http-libauth") {
  // libauth's middleware mounted on node:http: it answers under /auth and
  // calls `next` for anything else.
  const { ServerAuth, getSession, Credentials } = await import("libauth");
  const config = { secret, trustHost: true, providers: [Credentials({ credentials: { username: {} }, authorize })] };
  const auth = ServerAuth(config);
  const server = http.createServer((req, res) => {
    auth(req, res, async (err) => {
      if (err) {
        res.statusCode = 500;
        return res.end(String(err));
      }
      if (req.url === "/protected") {
        const session = await getSession(req, config);
        if (!session?.user) {
          res.writeHead(302, { location: "/login" });
          return res.end();
        }
        return sendJson(res, session);
      }
      res.statusCode = req.url === "/ready" ? 200 : 404;
      res.end(req.url === "/ready" ? "ok" : "not found");
    });
  });
  ready(server);
} else if (impl === "http-bare") {
  const server = http.createServer((req, res) => {
    if (req.url === "/bare") return sendJson(res, BARE);
    res.statusCode = req.url === "/ready" ? 200 : 404;
    res.end(req.url === "/ready" ? "ok" : "not found");
  });
  ready(server);
} else {
  throw new Error(`unknown server ${impl}`);
}

// Exit normally on SIGTERM, so `node --cpu-prof server.mjs …` writes its profile.
process.on("SIGTERM", () => process.exit(0));
