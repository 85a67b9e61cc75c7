// Shared test helpers: real servers on ephemeral ports, and a tiny browser
// (fetch + cookie jar, redirects not followed) speaking the Auth.js REST
// protocol.
import http from "node:http";
import { once } from "node:events";
import { spawn } from "node:child_process";
import net from "node:net";
import { createRequire } from "node:module";
import { createHmac } from "node:crypto";
import { ServerAuth, getSession } from "libauth";

export const SECRET = "libauth-node-test-secret-0123456789abcdef";

// The test servers listen on 127.0.0.1 under changing ports: trusting the
// request's Host is the deployer's explicit choice, made here once for every
// test file (the engine reads AUTH_TRUST_HOST from the environment).
process.env.AUTH_TRUST_HOST ??= "true";

/**
 * Express with the auth routes at /auth (`middleware`, by default
 * `ServerAuth(config)`) and /me, a route that needs a session (redirects to
 * /login, else answers the session as JSON).
 */
export function serveProtected(config, middleware = ServerAuth(config)) {
  const express = createRequire(import.meta.url)("express");
  const app = express();
  app.use("/auth", middleware);
  app.get("/me", async (req, res) => {
    const session = await getSession(req, config);
    if (!session?.user) return res.redirect("/login");
    res.json(session);
  });
  return listen(app);
}

/** Listen on 127.0.0.1:0; returns { url, close }. */
export async function listen(handlerOrApp) {
  const server = http.createServer(handlerOrApp);
  server.keepAliveTimeout = 1000;
  server.listen(0, "127.0.0.1");
  await once(server, "listening");
  const { port } = server.address();
  return {
    server,
    url: `http://127.0.0.1:${port}`,
    close: () =>
      new Promise((resolve) => {
        server.closeAllConnections?.();
        server.close(() => resolve());
      }),
  };
}

/** A Node server around Web-style `(request) => Response | undefined`. */
export function webServer(handle) {
  return async (req, res) => {
    try {
      const chunks = [];
      for await (const c of req) chunks.push(c);
      const body = chunks.length ? Buffer.concat(chunks) : undefined;
      const headers = new Headers();
      for (let i = 0; i < req.rawHeaders.length; i += 2) headers.append(req.rawHeaders[i], req.rawHeaders[i + 1]);
      const request = new Request(`http://${req.headers.host}${req.url}`, { method: req.method, headers, body });
      const response = await handle(request);
      if (!response) {
        res.statusCode = 404;
        res.end("not found");
        return;
      }
      res.statusCode = response.status;
      for (const [k, v] of response.headers) if (k !== "set-cookie") res.setHeader(k, v);
      const cookies = response.headers.getSetCookie();
      if (cookies.length) res.setHeader("set-cookie", cookies);
      res.end(Buffer.from(await response.arrayBuffer()));
    } catch (e) {
      res.statusCode = 500;
      res.end(String(e?.stack ?? e));
    }
  };
}

export class Browser {
  constructor(origin, { basePath = "/auth", headers = {} } = {}) {
    this.origin = origin;
    this.basePath = basePath;
    this.jar = new Map();
    this.headers = headers;
  }

  cookieHeader() {
    return [...this.jar].map(([k, v]) => `${k}=${v}`).join("; ");
  }

  absorb(res) {
    for (const line of res.headers.getSetCookie()) {
      const [pair, ...attrs] = line.split(";");
      const i = pair.indexOf("=");
      const name = pair.slice(0, i).trim();
      const value = pair.slice(i + 1).trim();
      const expired =
        attrs.some((a) => /^\s*max-age=0\s*$/i.test(a)) || attrs.some((a) => /^\s*expires=thu, 01 jan 1970/i.test(a));
      if (expired || value === "") this.jar.delete(name);
      else this.jar.set(name, value);
    }
  }

  async fetch(path, init = {}) {
    const headers = { ...this.headers, ...(init.headers ?? {}) };
    if (this.jar.size) headers.cookie = this.cookieHeader();
    const res = await fetch(path.startsWith("http") ? path : this.origin + path, {
      redirect: "manual",
      ...init,
      headers,
    });
    this.absorb(res);
    return res;
  }

  async csrf() {
    const res = await this.fetch(`${this.basePath}/csrf`);
    if (res.status !== 200) throw new Error(`csrf: ${res.status}`);
    return (await res.json()).csrfToken;
  }

  async post(path, fields, headers = {}) {
    return this.fetch(path, {
      method: "POST",
      headers: { "content-type": "application/x-www-form-urlencoded", ...headers },
      body: new URLSearchParams(fields).toString(),
    });
  }

  async signIn(username, password, extra = {}) {
    const csrfToken = await this.csrf();
    return this.post(`${this.basePath}/callback/credentials`, { csrfToken, username, password, ...extra });
  }

  async session() {
    const res = await this.fetch(`${this.basePath}/session`);
    if (res.status !== 200) throw new Error(`session: ${res.status}`);
    return res.json();
  }

  sessionCookie() {
    for (const [k, v] of this.jar) if (/authjs\.session-token$/.test(k)) return v;
    return undefined;
  }

  /** The session cookie(s) in the jar, as [name, value] pairs (chunks included). */
  sessionCookies() {
    return [...this.jar].filter(([k]) => /authjs\.session-token(\.\d+)?$/.test(k));
  }

  /**
   * A new browser holding only `cookies` (e.g. a copy of another browser's
   * `sessionCookies()`, as someone who copied the cookie would).
   */
  static withCookies(origin, cookies, options) {
    const br = new Browser(origin, options);
    for (const [k, v] of cookies) br.jar.set(k, v);
    return br;
  }
}

/** The credentials provider most tests use: ada / lovelace. */
export function users() {
  return {
    ada: { id: "42", name: "Ada Lovelace", email: "ada@example.com", image: "https://img.example/ada.png" },
  };
}

export const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

export const CHROMIUM = "/usr/bin/chromium";

/** True when running in CI (`CI` set, and not "false" or "0"). */
export const IN_CI = !!process.env.CI && process.env.CI !== "false" && process.env.CI !== "0";

/**
 * For `{ skip }`: `false` when the prerequisite is there (`ok`), else the
 * reason to skip - except in CI, where a missing prerequisite throws so the
 * file fails instead of silently running no tests (scripts/test.sh runs the
 * Node tests with CI=true).
 */
export function skipUnless(ok, reason) {
  if (ok) return false;
  if (IN_CI) throw new Error(`missing prerequisite (CI=${process.env.CI}, tests may not be skipped): ${reason}`);
  return reason;
}
export const CHROMIUM_ARGS = [
  "--headless",
  "--no-sandbox",
  "--disable-gpu",
  "--disable-quic",
  "--no-first-run",
  "--disable-background-networking",
  "--disable-component-update",
  "--disable-sync",
];

export async function launch() {
  const { chromium } = await import("playwright-core");
  return chromium.launch({ executablePath: CHROMIUM, args: CHROMIUM_ARGS, headless: true });
}

/**
 * A virtual platform authenticator (CDP) for `page`: resident keys, user
 * verification, presence answered at once. `{ cdp, authenticatorId,
 * credentials() }`.
 */
export async function virtualAuthenticator(context, page) {
  const cdp = await context.newCDPSession(page);
  await cdp.send("WebAuthn.enable");
  const { authenticatorId } = await cdp.send("WebAuthn.addVirtualAuthenticator", {
    options: {
      protocol: "ctap2",
      transport: "internal",
      hasResidentKey: true,
      hasUserVerification: true,
      isUserVerified: true,
      automaticPresenceSimulation: true,
    },
  });
  const credentials = async () => (await cdp.send("WebAuthn.getCredentials", { authenticatorId })).credentials;
  return { cdp, authenticatorId, credentials };
}

export async function freePort() {
  const srv = net.createServer().listen(0, "127.0.0.1");
  await once(srv, "listening");
  const { port } = srv.address();
  await new Promise((r) => srv.close(r));
  return port;
}

/**
 * Start a node program (or `command`: a Python interpreter, a C server) and
 * wait until it is ready: it printed `ready` (a RegExp), or `ready` (a URL)
 * answers. Killed if it is not ready in 30 s.
 */
export async function startProcess(args, { cwd, env, ready, command = process.execPath }) {
  const child = spawn(command, args, {
    cwd,
    env: { ...process.env, ...env },
    stdio: ["ignore", "pipe", "pipe"],
  });
  let out = "";
  let done = false;
  try {
    await new Promise((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`not ready in 30 s:\n${out}`)), 30000);
      const ok = () => {
        done = true;
        clearTimeout(timer);
        resolve();
      };
      const onData = (d) => {
        out += d;
        if (ready instanceof RegExp && ready.test(out)) ok();
      };
      child.stdout.on("data", onData);
      child.stderr.on("data", onData);
      child.once("exit", (code) => reject(new Error(`exited with ${code}:\n${out}`)));
      if (typeof ready === "string") {
        (async () => {
          while (!done) {
            try {
              if ((await fetch(ready)).status < 500) return ok();
            } catch {}
            await new Promise((r) => setTimeout(r, 100));
          }
        })();
      }
    });
  } catch (e) {
    done = true;
    child.kill("SIGKILL");
    throw e;
  }
  child.removeAllListeners("exit");
  return {
    child,
    output: () => out,
    stop: () => new Promise((r) => (child.exitCode !== null ? r() : (child.once("exit", r), child.kill("SIGTERM")))),
  };
}

/** RFC 4648 base32 to bytes. */
function base32(text) {
  const alphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZ234567";
  let bits = "";
  for (const c of text.replace(/=+$/, "")) bits += alphabet.indexOf(c).toString(2).padStart(5, "0");
  const bytes = [];
  for (let i = 0; i + 8 <= bits.length; i += 8) bytes.push(Number.parseInt(bits.slice(i, i + 8), 2));
  return Buffer.from(bytes);
}

/** The 6-digit SHA-1 code of `secret` (base32) at `seconds` (RFC 6238 with a 30 s step). */
export function totp(secret, seconds) {
  const counter = Buffer.alloc(8);
  counter.writeBigUInt64BE(BigInt(Math.floor(seconds / 30)));
  const mac = createHmac("sha1", base32(secret)).update(counter).digest();
  const offset = mac[mac.length - 1] & 0xf;
  const value = (mac.readUInt32BE(offset) & 0x7fffffff) % 1_000_000;
  return String(value).padStart(6, "0");
}
