// libauth's Express example (`./scripts/demo.sh` starts it): credentials,
// TikTok and passkey sign-in.
//
//   AUTH_SECRET=… node server.js          # http://localhost:3000/, sign in as demo / demo
//
// TikTok sign-in: with AUTH_TIKTOK_ID / AUTH_TIKTOK_SECRET, against TikTok;
// otherwise against the local simulator at TIKTOK_SIM_URL (demo.sh starts
// one). Users, accounts (with their OAuth tokens) and database sessions live
// in SQLite (AUTH_DB, default ./auth.db). Tokens never leave the server:
// pages show the account's scopes and expiry, and /tiktok calls TikTok's
// user-info endpoint with the stored access token, refreshing it first when
// it has expired (libauth's refreshAccount).
"use strict";
const express = require("express");
const {
  ServerAuth,
  getSession,
  getAccount,
  refreshAccount,
  Credentials,
  TikTok,
  Passkey,
  CredentialsSignin,
} = require("libauth");

const port = Number(process.env.PORT || 3000);
const simUrl = process.env.TIKTOK_SIM_URL;
const TIKTOK_API = simUrl || "https://open.tiktokapis.com";

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
  // Passkeys (WebAuthn): "Sign in with Passkey" on the built-in page registers
  // a new user by email, or signs in with a passkey already made (also offered
  // in the email field's autofill). Users and passkeys are stored in SQLite.
  providers: tt ? [credentials, tt, Passkey()] : [credentials, Passkey()],
  experimental: { enableWebAuthn: true },
  adapter: { type: "sqlite", path: process.env.AUTH_DB || "auth.db" },
  callbacks: {
    // Database sessions: the user id, so pages can look up the user's accounts.
    session({ session, user }) {
      if (session.user && user?.id) session.user.id = user.id;
      return session;
    },
  },
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
  try {
    res.locals.session = await getSession(req, config);
    next();
  } catch (e) {
    next(e);
  }
});

// --- pages

const esc = (s) => String(s ?? "").replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);

const CSS = `
:root{--brand:#346df1;--bg:#f3f4f6;--card:#fff;--text:#111827;--muted:#4b5563;--border:#d1d5db;--ok:#065f46;--ok-bg:#ecfdf5;--warn:#92400e;--warn-bg:#fffbeb}
@media (prefers-color-scheme:dark){:root{--bg:#111827;--card:#1f2937;--text:#f9fafb;--muted:#d1d5db;--border:#4b5563;--ok:#a7f3d0;--ok-bg:#064e3b;--warn:#fde68a;--warn-bg:#78350f}}
*{box-sizing:border-box}
body{margin:0;background:var(--bg);color:var(--text);font-family:system-ui,-apple-system,"Segoe UI",Roboto,sans-serif;line-height:1.5}
header{display:flex;align-items:center;gap:1rem;padding:.75rem 1.5rem;background:var(--card);border-bottom:1px solid var(--border)}
header .brand{font-weight:700;color:var(--text);text-decoration:none}
header nav{display:flex;gap:1rem;flex:1}
header nav a{color:var(--muted);text-decoration:none}
header nav a[aria-current]{color:var(--brand);font-weight:600}
.user{display:flex;align-items:center;gap:.75rem;color:var(--muted)}
.user img{width:28px;height:28px;border-radius:50%}
.button{display:inline-block;padding:.4rem .9rem;border:0;border-radius:.375rem;background:var(--brand);color:#fff;font:inherit;font-weight:600;text-decoration:none;cursor:pointer}
.button.secondary{background:transparent;color:var(--text);border:1px solid var(--border)}
main{max-width:48rem;margin:2rem auto;padding:0 1rem}
.card{background:var(--card);border-radius:.75rem;padding:1.5rem;box-shadow:0 1px 3px rgba(0,0,0,.15);margin-bottom:1.5rem}
h1{font-size:1.5rem;margin:0 0 1rem}
h2{font-size:1.1rem;margin:0 0 .75rem}
pre{background:var(--bg);border:1px solid var(--border);border-radius:.375rem;padding:.75rem;overflow:auto;font-size:.85rem}
dl{display:grid;grid-template-columns:max-content 1fr;gap:.25rem 1rem;margin:0}
dt{color:var(--muted)}dd{margin:0}
.note{border-radius:.375rem;padding:.5rem .75rem;background:var(--ok-bg);color:var(--ok)}
.note.warn{background:var(--warn-bg);color:var(--warn)}
.muted{color:var(--muted)}
`;

function layout(req, res, title, body) {
  const s = res.locals.session;
  const link = (href, text) => `<a href="${href}"${req.path === href ? ' aria-current="page"' : ""}>${text}</a>`;
  const user = s?.user
    ? `<span id="who">Signed in as <strong>${esc(s.user.name ?? s.user.email ?? "you")}</strong></span>
       ${s.user.image ? `<img src="${esc(s.user.image)}" alt="">` : ""}
       <form action="/auth/signout" method="get"><button class="button secondary" id="signout">Sign out</button></form>`
    : `<span id="who">Not signed in.</span> <a class="button" id="signin" href="/auth/signin">Sign in</a>`;
  res.send(`<!doctype html><html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>${esc(title)} · libauth example</title><style>${CSS}</style></head>
<body><header><a class="brand" href="/">libauth example</a>
<nav>${link("/", "Home")}${link("/dashboard", "Dashboard")}${tt ? link("/tiktok", "TikTok") : ""}</nav>
<div class="user">${user}</div></header>
<main>${body}</main></body></html>`);
}

/** The signed-in user's TikTok account, as stored by libauth (tokens stay here). */
async function tiktokAccount(session) {
  if (!tt || !session?.user?.id) return null;
  return getAccount(session.user.id, "tiktok", config);
}

const when = (seconds) => (seconds ? new Date(seconds * 1000).toISOString().replace(".000Z", "Z") : "unknown");
function tokenFacts(account) {
  const left = account.expires_at ? account.expires_at - Math.floor(Date.now() / 1000) : null;
  const status = left == null ? "no expiry given" : left > 0 ? `valid for ${left} s more` : `expired ${-left} s ago`;
  return `<dl id="token">
  <dt>TikTok account</dt><dd>${esc(account.providerAccountId)}</dd>
  <dt>Scopes</dt><dd id="scopes">${esc((account.scope ?? "").split(",").join(", ") || "none")}</dd>
  <dt>Access token expires</dt><dd id="expiry">${esc(when(account.expires_at))} (${esc(status)})</dd>
  <dt>Refresh token</dt><dd>${account.refresh_token ? "stored (server-side only)" : "none"}</dd>
</dl>`;
}

app.get("/", (req, res) => {
  const s = res.locals.session;
  layout(
    req,
    res,
    "Home",
    `<div class="card"><h1>libauth Express example</h1>
${
  s?.user
    ? `<p>Welcome back, ${esc(s.user.name ?? s.user.email)}. Your session is stored in SQLite; see it on the <a href="/dashboard">dashboard</a>.</p>`
    : `<p>Sign in with the demo account (<strong>demo</strong> / <strong>demo</strong>)${tt ? " or with TikTok" : ""}: the built-in sign-in page comes from libauth's engine.</p>
<p><a class="button" href="/login">Sign in</a></p>`
}</div>`,
  );
});

// A protected route: no session, no page.
app.get("/dashboard", async (req, res, next) => {
  try {
    const s = res.locals.session;
    if (!s?.user) return res.redirect("/login");
    const account = await tiktokAccount(s);
    layout(
      req,
      res,
      "Dashboard",
      `<div class="card"><h1>Dashboard</h1><p id="secret">Hello ${esc(s.user.name ?? s.user.email)}, this page is protected.</p></div>
<div class="card"><h2>Your session</h2><p class="muted">What <code>getSession(req, config)</code> returns (and <code>GET /auth/session</code> answers):</p>
<pre id="session">${esc(JSON.stringify(s, null, 2))}</pre></div>
${
  account
    ? `<div class="card"><h2>TikTok</h2>${tokenFacts(account)}<p><a class="button" href="/tiktok">Call TikTok's user-info API</a></p></div>`
    : tt
      ? `<div class="card"><h2>TikTok</h2><p class="muted">Not signed in with TikTok: no account linked.</p></div>`
      : ""
}`,
    );
  } catch (e) {
    next(e);
  }
});

/**
 * TikTok's user info with the stored access token. An expired token (by
 * its expiry, or refused by TikTok) is refreshed once with libauth's
 * refreshAccount, which stores the rotated tokens.
 */
async function tiktokUserInfo(account, userId) {
  let refreshed = false;
  if (account.expires_at && account.expires_at <= Math.floor(Date.now() / 1000)) {
    account = await refreshAccount(userId, "tiktok", config);
    refreshed = true;
  }
  for (;;) {
    const url = `${TIKTOK_API}/v2/user/info/?fields=open_id,union_id,avatar_url,display_name`;
    const res = await fetch(url, { headers: { authorization: `Bearer ${account.access_token}` } });
    const body = await res.json().catch(() => ({}));
    if (res.status === 401 && body?.error?.code === "access_token_invalid" && !refreshed) {
      account = await refreshAccount(userId, "tiktok", config);
      refreshed = true;
      continue;
    }
    return { account, refreshed, status: res.status, body };
  }
}

app.get("/tiktok", async (req, res, next) => {
  try {
    const s = res.locals.session;
    if (!s?.user) return res.redirect("/auth/signin?callbackUrl=%2Ftiktok");
    const account = await tiktokAccount(s);
    if (!account) {
      return layout(
        req,
        res,
        "TikTok",
        `<div class="card"><h1>TikTok</h1><p id="no-account">Sign in with TikTok to use this page.</p></div>`,
      );
    }
    let result;
    try {
      result = await tiktokUserInfo(account, s.user.id);
    } catch (e) {
      return layout(
        req,
        res,
        "TikTok",
        `<div class="card"><h1>TikTok</h1><p class="note warn" id="error">Could not refresh the TikTok token: ${esc(e.message)}. Sign in with TikTok again.</p></div>`,
      );
    }
    const user = result.body?.data?.user;
    layout(
      req,
      res,
      "TikTok",
      `<div class="card"><h1>TikTok user info</h1>
${result.refreshed ? `<p class="note" id="refreshed">The access token had expired: libauth refreshed it (<code>refreshAccount</code>) and stored the new tokens.</p>` : `<p class="note" id="fresh">Called with the stored access token.</p>`}
${
  user
    ? `<dl id="profile"><dt>Display name</dt><dd id="display-name">${esc(user.display_name)}</dd><dt>open_id</dt><dd>${esc(user.open_id)}</dd><dt>union_id</dt><dd>${esc(user.union_id)}</dd></dl>`
    : `<p class="note warn" id="error">TikTok answered ${result.status}: ${esc(result.body?.error?.message ?? "no user")}</p>`
}</div>
<div class="card"><h2>Token</h2>${tokenFacts(result.account)}<p class="muted">GET ${esc(TIKTOK_API)}/v2/user/info/ with <code>Authorization: Bearer …</code>, from the server.</p></div>`,
    );
  } catch (e) {
    next(e);
  }
});

app.get("/login", (_req, res) => res.redirect("/auth/signin?callbackUrl=%2Fdashboard"));
app.get("/api/me", (_req, res) => res.json(res.locals.session));

// Express 5 calls back with the error when the port is taken.
app.listen(port, "127.0.0.1", (err) => {
  if (err) {
    console.error(`libauth Express example: cannot listen on 127.0.0.1:${port}: ${err.message}`);
    process.exit(1);
  }
  const providers = config.providers.map((p) => p.id ?? p.builtin ?? p.type).join(", ");
  console.log(
    `libauth Express example on http://localhost:${port}/  (providers: ${providers}; sign in as demo / demo)`,
  );
});
