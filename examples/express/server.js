// libauth's Express example (`./scripts/demo.sh` starts it).
//
//   AUTH_SECRET=… node server.js          # http://127.0.0.1:3000/, sign in as demo / demo
//
// TikTok sign-in: with AUTH_TIKTOK_ID / AUTH_TIKTOK_SECRET, against TikTok;
// otherwise against the local simulator at TIKTOK_SIM_URL (demo.sh starts
// one). Sessions live in SQLite (AUTH_DB, default ./auth.db).
"use strict";
const express = require("express");
const { ServerAuth, getSession, Credentials, TikTok, CredentialsSignin } = require("libauth");

const port = Number(process.env.PORT || 3000);
const simUrl = process.env.TIKTOK_SIM_URL;

function tiktok() {
  if (process.env.AUTH_TIKTOK_ID) return TikTok(); // AUTH_TIKTOK_ID / AUTH_TIKTOK_SECRET
  if (!simUrl) return null;
  return TikTok({
    clientId: process.env.TIKTOK_SIM_CLIENT_KEY || "sim-client-key",
    clientSecret: process.env.TIKTOK_SIM_CLIENT_SECRET || "sim-client-secret",
    authorization: { url: `${simUrl}/v2/auth/authorize/` },
    token: `${simUrl}/v2/oauth/token/`,
    userinfo: `${simUrl}/v2/user/info/`,
  });
}

const credentials = Credentials({
  credentials: {
    username: { label: "Username", placeholder: "demo" },
    password: { label: "Password", type: "password" },
  },
  async authorize({ username, password }) {
    if (username === "demo" && password === "demo") {
      return { id: "1", name: "Demo User", email: "demo@example.com" };
    }
    throw new CredentialsSignin();
  },
});

// One configuration: credentials, TikTok (real or the simulator) and
// database sessions in SQLite. A bad one (say, a short AUTH_SECRET) stops
// the example with the engine's message, which names the option.
const tt = tiktok();
const config = {
  trustHost: true, // a local demo: the browser's Host is trusted; deploy with AUTH_URL instead
  providers: tt ? [credentials, tt] : [credentials],
  adapter: { type: "sqlite", path: process.env.AUTH_DB || "auth.db" },
};
let middleware;
try {
  middleware = ServerAuth(config);
} catch (e) {
  console.error(e.message); // one line, naming the option (e.g. "libauth: invalid option `secret`: …")
  process.exit(1);
}

const app = express();
app.set("trust proxy", "loopback");
app.use("/auth", middleware);

// Every page sees the session.
app.use(async (req, res, next) => {
  res.locals.session = await getSession(req, config);
  next();
});

const page = (title, body) => `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>${title}</title></head>
<body><h1>${title}</h1>${body}</body></html>`;
const esc = (s) => String(s ?? "").replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);

app.get("/", (req, res) => {
  const s = res.locals.session;
  res.send(
    page(
      "libauth Express example",
      s?.user
        ? `<p id="who">Signed in as ${esc(s.user.name)} (${esc(s.user.email ?? "no email")})</p>
           <p><a href="/dashboard">Dashboard</a> · <a href="/auth/signout">Sign out</a></p>`
        : `<p id="who">Not signed in.</p><p><a id="signin" href="/auth/signin">Sign in</a> (demo / demo)</p>`,
    ),
  );
});

// A protected route: no session, no page.
app.get("/dashboard", (req, res) => {
  const s = res.locals.session;
  if (!s?.user) return res.redirect("/login");
  res.send(page("Dashboard", `<p id="secret">Hello ${esc(s.user.name)}, this page is protected.</p>`));
});

app.get("/login", (req, res) => res.redirect("/auth/signin?callbackUrl=%2Fdashboard"));
app.get("/api/me", (req, res) => res.json(res.locals.session));

app.listen(port, "127.0.0.1", () => {
  const providers = config.providers.map((p) => p.id ?? p.builtin ?? p.type).join(", ");
  console.log(`libauth Express example on http://127.0.0.1:${port}/  (providers: ${providers}; sign in as demo / demo)`);
});
