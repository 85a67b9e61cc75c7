"use strict";
// The reactive adapter (SolidStart-style): `{ GET, POST }` handlers taking an event
// that carries a Web `Request` (SolidStart's APIEvent), and getSession.

const { instanceFor, sessionInstanceFor } = require("./native");

const DEFAULT_PREFIX = "/api/auth";

/**
 * `{ GET, POST }` for a catch-all route such as
 * `src/routes/api/auth/[...solidauth].ts`. Each answers requests under
 * `prefix` (default `/api/auth`) and resolves to `undefined` for anything
 * else.
 */
function ReactiveAuth(config) {
  if (config === null || typeof config !== "object")
    throw new TypeError("ReactiveAuth(config): config must be an object");
  const prefix = normalise(config.prefix ?? config.basePath ?? DEFAULT_PREFIX);
  const auth = engineFor(config);

  async function handler(event) {
    const request = event?.request ?? event;
    if (!request || typeof request.url !== "string") {
      throw new TypeError("ReactiveAuth: the handler needs an event with a Web `request`");
    }
    const url = request.url;
    const pathname = pathOf(url);
    if (pathname !== prefix && !pathname.startsWith(`${prefix}/`)) return undefined;
    const headers = [];
    for (const [name, value] of request.headers) headers.push(name, value);
    // Fetch's Headers joins several cookies with ", "; the engine wants
    // them as sent, which `getSetCookie` does not apply to, so nothing to do.
    let body;
    if (request.method !== "GET" && request.method !== "HEAD" && request.body) {
      body = Buffer.from(await request.arrayBuffer());
    }
    let out = auth.handle(request.method, url, headers, body, clientAddress(event));
    if (typeof out.then === "function") out = await out;
    return toResponse(out);
  }
  return { GET: handler, POST: handler };
}

/**
 * The session of this Web request, or null.
 * @returns {Promise<object | null>}
 */
async function getSession(request, options) {
  const auth = sessionInstanceFor(options);
  const req = request?.request ?? request;
  return auth.getSession(req.url, req.headers.get("cookie"));
}

/** The peer address of the request (SolidStart's `clientAddress`, or the Node socket under it). */
function clientAddress(event) {
  return event?.clientAddress ?? event?.nativeEvent?.node?.req?.socket?.remoteAddress ?? undefined;
}

/** The engine `ReactiveAuth(config)` answers with (built once per config). */
function engineFor(config) {
  return instanceFor(config, { basePath: normalise(config.prefix ?? config.basePath ?? DEFAULT_PREFIX) });
}

function toResponse({ status, headers, body }) {
  const h = new Headers();
  for (let i = 0; i < headers.length; i += 2) h.append(headers[i], headers[i + 1]);
  return new Response(status === 204 || status === 304 ? null : body, { status, headers: h });
}

function pathOf(url) {
  const start = url.indexOf("/", url.indexOf("//") + 2);
  if (start === -1) return "/";
  const end = url.slice(start).search(/[?#]/);
  return end === -1 ? url.slice(start) : url.slice(start, start + end);
}

function normalise(prefix) {
  const p = String(prefix).replace(/\/+$/, "");
  return p.startsWith("/") ? p : `/${p}`;
}

module.exports = { ReactiveAuth, getSession, engineFor, clientAddress };
