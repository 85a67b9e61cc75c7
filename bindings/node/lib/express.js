"use strict";
// The server adapter: Express middleware and getSession.

const { instanceFor, dropInstance, sessionInstanceFor, maxBodyBytes } = require("./native");

/** Engines kept for mount points; past this many the oldest is dropped. */
const MAX_MOUNTS = 64;

/**
 * Express middleware answering every auth route. Mount it with
 * `app.use("/auth", ServerAuth(config))`, or on a wildcard route
 * (`"/auth/*"` on Express 4, `"/auth/*splat"` or `"/auth/{*any}"` on
 * Express 5). Without `basePath` in the config, the base path is where the
 * middleware is mounted (`req.baseUrl`, plus a wildcard route's literal
 * prefix), never a guess from the request's own path.
 */
function ServerAuth(config) {
  if (config === null || typeof config !== "object")
    throw new TypeError("ServerAuth(config): config must be an object");
  const explicit = typeof config.basePath === "string";
  // Build now, so a bad config fails at start-up, not on the first request.
  const fallback = instanceFor(config);

  // The hot path (a GET the engine answers inline: session, csrf,
  // providers) runs synchronously, start to finish: no Promise, no
  // microtask, no closure per request.
  return function libauth(req, res, next) {
    let auth;
    try {
      auth = explicit ? fallback : engineForMount(config, fallback, mountPath(req));
      const target = explicit
        ? (req.originalUrl ?? req.url)
        : canonicalTarget(req.originalUrl ?? req.url, auth.basePath);
      const pathname = pathOf(target);
      const base = auth.basePath;
      if (pathname !== base && !pathname.startsWith(`${base}/`)) return next();
      const method = req.method;
      if (method === "GET" || method === "HEAD") {
        const out = auth.handle(method, absoluteUrl(req, target), req.rawHeaders, undefined, req.socket?.remoteAddress);
        if (typeof out.then === "function") return out.then((o) => send(res, o)).catch(next);
        return send(res, out);
      }
    } catch (e) {
      return next(e);
    }
    handleWithBody(auth, req, res, explicit).catch(next);
  };
}

async function handleWithBody(auth, req, res, explicit) {
  const body = await readBody(req);
  const target = explicit ? (req.originalUrl ?? req.url) : canonicalTarget(req.originalUrl ?? req.url, auth.basePath);
  let out = auth.handle(req.method, absoluteUrl(req, target), req.rawHeaders, body, req.socket?.remoteAddress);
  if (typeof out.then === "function") out = await out;
  // Over the limit the engine answered 413 from the first bytes; the rest
  // of the body was never read, so this connection cannot carry another
  // request.
  if (body && body.length > maxBodyBytes() && !req.readableEnded) return sendAndClose(req, res, out);
  send(res, out);
}

/**
 * Where Express mounted us, from the mount alone: `req.baseUrl` (from
 * `app.use(path, …)` and routers) less what a wildcard in that path
 * captured (`app.use("/auth/*")`: baseUrl `/auth/csrf`, capture `csrf`),
 * plus the literal part of a route (`app.all("/auth/*splat")` gives
 * `/auth`). `null` when mounted at the root with no route, where the
 * configured (or default) base path applies.
 */
function mountPath(req) {
  const baseUrl = req.baseUrl ?? "";
  // The common case (`app.use("/auth", …)`: no route, no captures) depends
  // on baseUrl alone: remember it.
  const simple = req.route === undefined && (req.params === undefined || isEmpty(req.params));
  if (simple) {
    const known = simpleMounts.get(baseUrl);
    if (known !== undefined) return known;
  }
  const path = mountPathOf(req, baseUrl);
  if (simple && simpleMounts.size < MAX_MOUNTS) simpleMounts.set(baseUrl, path);
  return path;
}

/** Mount paths by `req.baseUrl`, for requests with no route and no captures. */
const simpleMounts = new Map();

function isEmpty(object) {
  for (const _ in object) return false;
  return true;
}

function mountPathOf(req, baseUrl) {
  let path = baseUrl;
  const route = typeof req.route?.path === "string" ? req.route.path : "";
  if (route) {
    const literal = [];
    for (const segment of route.split("/").slice(1)) {
      if (/[*:({\\[?+]/.test(segment)) break;
      literal.push(segment);
    }
    if (literal.length) path += `/${literal.join("/")}`;
  } else if (path) {
    for (const value of Object.values(req.params ?? {})) {
      const captured = Array.isArray(value) ? value.join("/") : String(value ?? "");
      if (captured && path.endsWith(`/${captured}`)) {
        path = path.slice(0, -captured.length - 1);
        break;
      }
    }
  }
  path = path.replace(/\/+$/, "");
  return path === "" ? null : path;
}

/**
 * The engine whose basePath is this mount point. Express matches mount
 * paths case-insensitively, so `/auth`, `/AUTH` and `/aUtH` are one mount:
 * one engine, keyed and named in lowercase (set `basePath` to choose its
 * spelling). Mounts with parameters (`/:tenant/auth`) vary by request: the
 * engines of the last MAX_MOUNTS are kept, and every one shares the config's
 * database pool and `hooks.maxInFlight` count (built beside `fallback`).
 */
function engineForMount(config, fallback, mount) {
  if (mount === null) return fallback;
  const key = mount.toLowerCase();
  if (key === fallback.basePath) return fallback;
  const mounts = (fallback.mounts ??= new Map());
  let auth = mounts.get(key);
  if (auth) return auth;
  if (mounts.size >= MAX_MOUNTS) {
    const [oldest] = mounts.keys();
    mounts.delete(oldest);
    dropInstance(config, { basePath: oldest });
  }
  auth = instanceFor(config, { basePath: key });
  mounts.set(key, auth);
  return auth;
}

/**
 * The request target with its mount prefix spelled as the engine's base path
 * (`/AUTH/session` -> `/auth/session` when the engine's base is `/auth`);
 * unchanged when the path is not under it in any case.
 */
function canonicalTarget(url, base) {
  if (url.startsWith(base)) return url;
  const head = url.slice(0, base.length);
  const next = url.charAt(base.length);
  if (head.toLowerCase() !== base || (next !== "" && next !== "/" && next !== "?")) return url;
  return base + url.slice(base.length);
}

/**
 * The session of this request, or null. Reuses the engine that
 * `ServerAuth(config)` built for the same config object.
 * @returns {Promise<object | null>}
 */
function getSession(req, config) {
  // Not an async function: under a hookless config the session is already
  // computed, and on the worker path `auth.getSession` returns a Promise
  // that `Promise.resolve` hands back as is (an async function would wrap
  // it in a second one, two microtask ticks later).
  try {
    const instance = sessionInstanceFor(config);
    if (instance.inlineSession)
      return Promise.resolve(instance.readSession(protocolOf(req) === "https", req.headers.cookie));
    return instance.getSession(absoluteUrl(req), req.headers.cookie);
  } catch (e) {
    return Promise.reject(e);
  }
}

/**
 * The engine for `signIn` / `signOut` called from a route: the one
 * `ServerAuth(config)` answers with (its base path names the OAuth callback
 * and the email link). Without `basePath` in the config that is its single
 * mount once it has served a request, else the default base path: set
 * `basePath` when mounting elsewhere and using OAuth or email from a form.
 */
function engineFor(config) {
  const fallback = instanceFor(config);
  if (typeof config.basePath !== "string" && fallback.mounts?.size === 1) return fallback.mounts.values().next().value;
  return fallback;
}

function pathOf(url) {
  const q = url.indexOf("?");
  return q === -1 ? url : url.slice(0, q);
}

/**
 * The URL as the client saw it: protocol and host honour `trust proxy`.
 * The engine refuses (400) a host that is not a plain `host[:port]`.
 */
function absoluteUrl(req, target = req.originalUrl ?? req.url) {
  const protocol = protocolOf(req);
  let host = req.headers.host;
  const forwarded = req.headers["x-forwarded-host"];
  if (forwarded && trusted(req)) host = forwarded.split(",")[0].trim();
  return `${protocol}://${host}${target}`;
}

function protocolOf(req) {
  // Express computes `req.protocol` from X-Forwarded-Proto only when the
  // proxy is trusted.
  return req.protocol ?? (req.socket?.encrypted ? "https" : "http");
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
  // One byte past the engine's limit is enough for it to answer 413; the
  // rest is left unread.
  const limit = maxBodyBytes() + 1;
  return new Promise((resolve, reject) => {
    const chunks = [];
    let size = 0;
    const done = () => {
      req.off("data", onData);
      req.off("end", onEnd);
      req.off("error", onError);
    };
    const onData = (chunk) => {
      chunks.push(chunk);
      size += chunk.length;
      if (size >= limit) {
        done();
        req.pause();
        resolve(Buffer.concat(chunks).subarray(0, limit));
      }
    };
    const onEnd = () => {
      done();
      resolve(Buffer.concat(chunks));
    };
    const onError = (e) => {
      done();
      reject(e);
    };
    req.on("data", onData);
    req.on("end", onEnd);
    req.on("error", onError);
  });
}

/** What is read and thrown away of an oversized body before answering. */
const DRAIN_BYTES = 1 << 20;
const DRAIN_MS = 5000;

/**
 * The engine's answer on a connection that then closes. The rest of the
 * body is read and dropped first (up to DRAIN_BYTES, for at most
 * DRAIN_MS), so closing does not reset a client still sending, which would
 * lose it the answer; the client's next request opens a new connection.
 * Past either bound the connection is dropped after the answer.
 */
function sendAndClose(req, res, out) {
  let answered = false;
  let drained = 0;
  const answer = () => {
    if (answered) return;
    answered = true;
    clearTimeout(timer);
    req.off("data", onData);
    req.off("end", answer);
    res.shouldKeepAlive = false;
    res.setHeader("connection", "close");
    send(res, out);
    if (!req.readableEnded) res.once("finish", () => req.socket?.destroy());
  };
  const onData = (chunk) => {
    drained += chunk.length;
    if (drained > DRAIN_BYTES) answer();
  };
  const timer = setTimeout(answer, DRAIN_MS);
  timer.unref?.();
  if (req.readableEnded) return answer();
  req.on("data", onData);
  req.once("end", answer);
  req.once("error", answer);
  req.resume();
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

module.exports = { ServerAuth, getSession, absoluteUrl, engineFor };
