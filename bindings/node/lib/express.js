"use strict";
// The server adapter (spec §4.2): Express middleware and getSession.

const { instanceFor, sessionInstanceFor } = require("./native");

const ACTIONS = /^(.*?)\/(providers|session|csrf|signin|signout|callback|verify-request|error)(\/[^/]*)?\/?$/;

/**
 * Express middleware answering every auth route. Mount it with
 * `app.use("/auth", ServerAuth(config))`, or on a wildcard route
 * (`"/auth/*"` on Express 4, `"/auth/*splat"` or `"/auth/{*any}"` on
 * Express 5). Without `basePath` in the config, the base path is taken from
 * where the middleware is mounted (`/auth` by default).
 */
function ServerAuth(config) {
  if (config === null || typeof config !== "object") throw new TypeError("ServerAuth(config): config must be an object");
  const explicit = typeof config.basePath === "string";
  // Build now, so a bad config fails at start-up, not on the first request.
  let auth = instanceFor(config);
  let checked = explicit;

  return async function libauth(req, res, next) {
    try {
      const pathname = pathOf(req.originalUrl ?? req.url);
      if (!checked && (req.baseUrl || req.route)) {
        // Mounted on a path: infer the base path once, as the part of the
        // path before the action.
        const m = ACTIONS.exec(pathname);
        if (m && m[1] !== auth.basePath && m[1] !== "") auth = instanceFor(config, { basePath: m[1] });
        checked = true;
      }
      const base = auth.basePath;
      if (pathname !== base && !pathname.startsWith(base + "/")) return next();
      const url = absoluteUrl(req);
      const body = await readBody(req);
      let out = auth.handle(req.method, url, req.rawHeaders, body);
      if (typeof out.then === "function") out = await out;
      send(res, out);
    } catch (e) {
      next(e);
    }
  };
}

/**
 * The session of this request, or null. Reuses the engine that
 * `ServerAuth(config)` built for the same config object.
 * @returns {Promise<object | null>}
 */
async function getSession(req, config) {
  const auth = sessionInstanceFor(config);
  return auth.getSession(absoluteUrl(req), req.headers.cookie);
}

function pathOf(url) {
  const q = url.indexOf("?");
  return q === -1 ? url : url.slice(0, q);
}

/** The URL as the client saw it: protocol and host honour `trust proxy`. */
function absoluteUrl(req) {
  // Express computes `req.protocol` from X-Forwarded-Proto only when the
  // proxy is trusted.
  const protocol = req.protocol ?? (req.socket?.encrypted ? "https" : "http");
  let host = req.headers.host;
  const forwarded = req.headers["x-forwarded-host"];
  if (forwarded && trusted(req)) host = forwarded.split(",")[0].trim();
  return `${protocol}://${host}${req.originalUrl ?? req.url}`;
}

function trusted(req) {
  const fn = req.app?.get?.("trust proxy fn");
  return typeof fn === "function" && fn(req.socket?.remoteAddress, 0);
}

/** The raw body, whether or not a body parser ran before us. */
async function readBody(req) {
  if (req.method === "GET" || req.method === "HEAD") return undefined;
  const parsed = req.body;
  if (Buffer.isBuffer(parsed)) return parsed;
  if (typeof parsed === "string") return Buffer.from(parsed);
  if (req._body || (parsed && typeof parsed === "object" && req.readableEnded)) {
    // A parser consumed the stream: serialise what it produced.
    if (!parsed || typeof parsed !== "object") return undefined;
    const type = String(req.headers["content-type"] ?? "");
    if (type.includes("application/json")) return Buffer.from(JSON.stringify(parsed));
    const form = new URLSearchParams();
    for (const [k, v] of Object.entries(parsed)) {
      form.append(k, typeof v === "string" ? v : JSON.stringify(v));
    }
    return Buffer.from(form.toString());
  }
  if (req.readableEnded) return undefined;
  const chunks = [];
  let size = 0;
  for await (const chunk of req) {
    size += chunk.length;
    if (size > 1 << 20) throw Object.assign(new Error("libauth: request body over 1 MiB"), { status: 413 });
    chunks.push(chunk);
  }
  return Buffer.concat(chunks);
}

function send(res, { status, headers, body }) {
  res.statusCode = status;
  let cookies = null;
  for (let i = 0; i < headers.length; i += 2) {
    const name = headers[i];
    if (name === "set-cookie") (cookies ??= []).push(headers[i + 1]);
    else res.setHeader(name, headers[i + 1]);
  }
  if (cookies) res.setHeader("set-cookie", cookies);
  res.end(body);
}

module.exports = { ServerAuth, getSession, absoluteUrl };
