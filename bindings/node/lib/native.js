"use strict";
// One engine per config, and the JavaScript end of the threading model
// (src/lib.rs explains the Rust end):
//
// - `handle()` / `getSession()` return the result synchronously when the
//   engine computed it inline (no hook reachable), else a Promise.
// - Engine work that may reach a hook runs on the addon's worker threads.
//   A hook call arrives here through a weak ThreadsafeFunction (`onHook`);
//   we call the hook, await it if it returns a Promise, and answer with
//   `hookDone`. The worker that asked is blocked until then; this thread
//   never is.
// - Finished engine calls arrive through `onDone`. While any are
//   outstanding a timer keeps the event loop alive (both ThreadsafeFunctions
//   are weak, so an idle server with libauth loaded can still exit).

const { compile } = require("./config");
const { AuthError, CredentialsSignin, InvalidConfig, toHostError } = require("./errors");

let addon;
function native() {
  // LIBAUTH_NATIVE, the checkout's build, or the platform package (loader.js).
  addon ??= require("./loader").load();
  return addon;
}

/** Instances with engine calls in flight, by key (kept alive while busy). */
const busy = new Map();
let outstanding = 0;
let keepAlive = null;
let nextKey = 1;

function hold() {
  if (outstanding++ === 0) keepAlive = setInterval(() => {}, 1 << 30);
}
function release() {
  if (--outstanding === 0) {
    clearInterval(keepAlive);
    keepAlive = null;
  }
}

function onHook(key, id, hook, argsJson) {
  const instance = busy.get(key);
  if (instance) instance.runHook(id, hook, argsJson);
}

function onDone(key, id, error, response, json) {
  const instance = busy.get(key);
  if (instance) instance.settle(id, error, response, json);
}

/** Shared sessions an engine keeps parsed; as many as the addon numbers. */
const KEPT_SESSIONS = 1024;

/**
 * A shared session, parsed once, and how to copy it: the session, the
 * objects in it (`user`) and its arrays of plain values (`amr`) are copied;
 * strings, numbers and booleans are shared (immutable). A session with
 * anything deeper (a token with odd claims), or a `__proto__` key, is
 * parsed again instead.
 */
class KeptSession {
  constructor(json) {
    this.json = json;
    this.value = JSON.parse(json);
    this.objects = [];
    this.arrays = [];
    this.deep = false;
    for (const [key, inner] of Object.entries(this.value)) {
      if (inner === null || typeof inner !== "object") continue;
      if (key === "__proto__" || !Object.entries(inner).every(([k, v]) => k !== "__proto__" && isPlain(v)))
        this.deep = true;
      else (Array.isArray(inner) ? this.arrays : this.objects).push(key);
    }
  }

  copy() {
    if (this.deep) return JSON.parse(this.json);
    const value = this.value;
    const out = { ...value };
    for (const key of this.objects) out[key] = { ...value[key] };
    for (const key of this.arrays) out[key] = value[key].slice();
    return out;
  }
}

function isPlain(v) {
  return v === null || typeof v !== "object";
}

class Instance {
  /** `beside`: an Instance of the same config whose database and admission count this one shares. */
  constructor(config, overrides, beside) {
    const { json, hooks, refused } = compile(config, overrides ?? {}, native().compileConfig);
    if (refused)
      throw new InvalidConfig(
        refused.option,
        `libauth: invalid option \`${refused.option}\`: ${refused.message}`,
        refused.type,
      );
    this.key = nextKey++;
    this.hooks = hooks;
    this.pending = new Map();
    this.nextId = 1;
    const built = native().createAuth(
      this.key,
      JSON.stringify(json),
      [...hooks.keys()],
      onHook,
      onDone,
      beside?.native ?? null,
    );
    if (!(built instanceof native().NativeAuth)) {
      throw new InvalidConfig(
        built.option,
        `libauth: invalid option \`${built.option}\`: ${built.message}`,
        built.type,
      );
    }
    this.native = built;
    this.basePath = this.native.basePath;
    this.inlineSession = this.native.inlineSession;
    /** The engine's session reader (src/lib.rs) and its shared sessions by number. */
    this.addon = native();
    this.reader = this.inlineSession ? this.native.sessionReader() : null;
    this.shared = new Map();
  }

  /**
   * Answer a request under basePath. `headers` is a flat [name, value, …]
   * list (Node's `rawHeaders` shape).
   * @returns {{status:number, headers:string[], body:string} | Promise<…>}
   */
  handle(method, url, headers, body, remoteAddress) {
    const id = this.callId();
    const res = this.native.handle(id, method, url, headers, body ?? null, remoteAddress ?? null);
    return res ?? this.defer(id);
  }

  /** @returns {object | null | Promise<object | null>} */
  getSession(url, cookie) {
    if (this.inlineSession) return this.readSession(url, cookie);
    const id = this.callId();
    this.native.getSession(id, url, cookie ?? null);
    return this.defer(id);
  }

  /**
   * The session of a request with this Cookie header that came over HTTPS
   * or not (`https`: a boolean, or the absolute URL, whose scheme the
   * engine reads), read on this thread: only when `inlineSession` (the scheme is
   * all of the URL such a read uses).
   * @returns {object | null}
   */
  readSession(https, cookie) {
    const out = this.addon.readSession(this.reader, https, cookie ?? null);
    if (typeof out === "number") return this.sharedSession(out, https, cookie);
    return out == null ? null : JSON.parse(out);
  }

  /**
   * A copy of the shared session numbered `id` (src/shared_ids.rs): parsed
   * the first time this engine meets the number, copied on every read,
   * since the caller owns what it gets and may change it.
   */
  sharedSession(id, https, cookie) {
    let kept = this.shared.get(id);
    if (kept === undefined) {
      const json = this.addon.sharedSessionJson(this.reader, id);
      // Forgotten between the two calls: cannot happen on one thread (the
      // addon forgets numbers only when it gives a new one); read again.
      if (json == null) return this.readSession(https, cookie);
      kept = new KeptSession(json);
      if (this.shared.size >= KEPT_SESSIONS) this.shared.clear();
      this.shared.set(id, kept);
    }
    return kept.copy();
  }

  /**
   * Sign in from host code (a form action): `fields` as a JSON object
   * string; the host's request as method, absolute URL and a flat header
   * list. Always on a worker thread.
   * @returns {Promise<{url: string, cookies: string[]}>}
   */
  signIn(provider, fieldsJson, method, url, headers, remoteAddress) {
    const id = this.callId();
    const promise = this.defer(id);
    try {
      this.native.signIn(id, provider, fieldsJson, method, url, headers, remoteAddress ?? null);
    } catch (e) {
      this.settle(id, String(e?.message ?? e));
    }
    return promise;
  }

  /** A password-account step from host code; as `signIn`. */
  passwordAction(action, fieldsJson, method, url, headers, remoteAddress) {
    const id = this.callId();
    const promise = this.defer(id);
    try {
      this.native.passwordAction(id, action, fieldsJson, method, url, headers, remoteAddress ?? null);
    } catch (e) {
      this.settle(id, String(e?.message ?? e));
    }
    return promise;
  }

  /** @returns {Promise<{url: string, cookies: string[]}>} */
  signOut(method, url, headers, remoteAddress) {
    const id = this.callId();
    const promise = this.defer(id);
    try {
      this.native.signOut(id, method, url, headers, remoteAddress ?? null);
    } catch (e) {
      this.settle(id, String(e?.message ?? e));
    }
    return promise;
  }

  /**
   * The stored account of a user with a provider (tokens included), or
   * null; `refresh` first refreshes its access token at the provider and
   * stores the new tokens. On a worker thread (database, network).
   * @returns {Promise<object | null>}
   */
  account(userId, provider, what) {
    const id = this.callId();
    const promise = this.defer(id);
    try {
      if (what === "refresh") this.native.refreshAccount(id, userId, provider);
      else if (what === "token") this.native.getAccessToken(id, userId, provider);
      else this.native.getAccount(id, userId, provider);
    } catch (e) {
      this.settle(id, String(e?.message ?? e));
    }
    return promise;
  }

  /**
   * A passkey call for a user (`{ action: "list" | "rename" | "delete", id?, name? }`).
   * On a worker thread (database).
   * @returns {Promise<unknown>}
   */
  passkeys(userId, call) {
    return this.userCall("passkeys", userId, call);
  }

  /**
   * A session call for a user (`{ action: "list" | "end" | "endOthers" | "endAll", id?, url?, cookie? }`).
   * On a worker thread (database).
   * @returns {Promise<unknown>}
   */
  sessions(userId, call) {
    return this.userCall("sessions", userId, call);
  }

  /**
   * A second-factor call for a user (`{ action: "status" | "begin" | "confirm" | "verify" | "recoveryCodes" | "disable", label?, code? }`).
   * On a worker thread (database).
   * @returns {Promise<unknown>}
   */
  twoFactor(userId, call) {
    return this.userCall("twoFactor", userId, call);
  }

  /** A native call about one user with a JSON argument (`passkeys`, `sessions`, `twoFactor`). */
  userCall(method, userId, call) {
    const id = this.callId();
    const promise = this.defer(id);
    try {
      this.native[method](id, userId, JSON.stringify(call));
    } catch (e) {
      this.settle(id, String(e?.message ?? e));
    }
    return promise;
  }

  /**
   * Call a hook as the engine would (the host-conventions conformance test).
   * @returns {Promise<unknown>} what the engine read back
   */
  callHook(hook, argsJson) {
    const id = this.callId();
    const promise = this.defer(id);
    this.native.callHook(id, hook, argsJson);
    return promise;
  }

  callId() {
    const id = this.nextId;
    this.nextId = id >= 0xffffffff ? 1 : id + 1;
    return id;
  }

  defer(id) {
    return new Promise((resolve, reject) => {
      if (this.pending.size === 0) busy.set(this.key, this);
      this.pending.set(id, { resolve, reject });
      hold();
    });
  }

  // `json`: a session (or null), or a sign-in/out outcome.
  settle(id, error, response, json) {
    const p = this.pending.get(id);
    if (!p) return;
    this.pending.delete(id);
    if (this.pending.size === 0) busy.delete(this.key);
    release();
    if (error != null) p.reject(engineError(error));
    else if (response != null) p.resolve(response);
    else p.resolve(json == null ? null : JSON.parse(json));
  }

  runHook(id, hook, argsJson) {
    let result;
    try {
      const fn = this.hooks.get(hook);
      if (!fn) throw new Error(`libauth: no function for hook ${hook}`);
      result = apply(fn, JSON.parse(argsJson));
    } catch (e) {
      this.native.hookDone(id, false, JSON.stringify(toHostError(e)));
      return;
    }
    if (result !== null && typeof result === "object" && typeof result.then === "function") {
      result.then(
        (value) => this.answer(id, value),
        (e) => this.native.hookDone(id, false, JSON.stringify(toHostError(e))),
      );
    } else {
      this.answer(id, result);
    }
  }

  answer(id, value) {
    let json;
    try {
      json = value === undefined ? "" : (JSON.stringify(value) ?? "");
    } catch (e) {
      this.native.hookDone(
        id,
        false,
        JSON.stringify({ message: `the hook's result is not JSON-serialisable: ${e.message}` }),
      );
      return;
    }
    this.native.hookDone(id, true, json);
  }
}

/**
 * An engine failure (`{ type, message, code? }` as JSON, or plain text) as
 * an AuthError with its `type`; `CredentialsSignin` as that class, with its
 * `code`.
 */
function engineError(error) {
  let parsed = null;
  try {
    parsed = JSON.parse(error);
  } catch {
    /* plain text: an internal error */
  }
  const message = typeof parsed?.message === "string" ? parsed.message : error;
  if (parsed?.type === "CredentialsSignin") {
    const e = new CredentialsSignin(message);
    if (typeof parsed.code === "string") e.code = parsed.code;
    return e;
  }
  const e = new AuthError(message);
  if (typeof parsed?.type === "string") e.type = parsed.type;
  return e;
}

/**
 * Call a hook as the engine describes the call (core's `HookCall`):
 * positional `args`, with the values at `dates`, `requests` and `errors`
 * (paths such as "0.expires") turned into a Date, a Web Request and an
 * AuthError. Nothing here knows which hook it is.
 */
function apply(fn, { args, dates, requests, errors }) {
  for (const path of dates ?? []) update(args, path, toDate);
  for (const path of requests ?? []) update(args, path, toWebRequest);
  for (const path of errors ?? []) update(args, path, toAuthError);
  return fn(...args);
}

function update(root, path, convert) {
  const keys = path.split(".");
  const last = keys.pop();
  let parent = root;
  for (const key of keys) {
    parent = parent?.[key];
    if (parent === null || typeof parent !== "object") return;
  }
  if (last in parent) parent[last] = convert(parent[last]);
}

function toDate(value) {
  if (typeof value !== "string" && typeof value !== "number") return value;
  const d = new Date(value);
  return Number.isNaN(d.getTime()) ? value : d;
}

/** Auth.js's logger gets an Error with `type`, `name`, `code` and `cause: { err }`. */
function toAuthError(record) {
  const e = new AuthError(record?.message ?? "error");
  e.type = record?.type ?? e.type;
  e.name = record?.name ?? e.type;
  if (record?.code) e.code = record.code;
  if (record?.cause?.length) e.cause = { err: new Error(record.cause.join("\n")) };
  return e;
}

function toWebRequest(req) {
  if (!req || typeof req.url !== "string") return req;
  try {
    const headers = new Headers();
    for (const [k, v] of Object.entries(req.headers ?? {})) {
      try {
        headers.append(k, v);
      } catch {
        /* a header the Fetch API refuses: leave it out */
      }
    }
    return new Request(req.url, { method: req.method ?? "POST", headers });
  } catch {
    return req;
  }
}

/** Engines by config object, so `getSession(req, config)` reuses the one `ServerAuth(config)` built. */
const byConfig = new WeakMap();

/**
 * The engine for this config object (built once per object and overrides).
 * Engines with overrides are built beside the plain one: one database pool
 * and one `hooks.maxInFlight` count per config, however many base paths.
 */
function instanceFor(config, overrides) {
  let slot = byConfig.get(config);
  if (!slot) {
    slot = new Map();
    byConfig.set(config, slot);
  }
  const k = overrides ? JSON.stringify(overrides) : "";
  let instance = slot.get(k);
  if (!instance) {
    instance = new Instance(config, overrides, k === "" ? undefined : instanceFor(config));
    slot.set(k, instance);
  }
  return instance;
}

/** Forget the engine built for these overrides (the mount cache evicts it). */
function dropInstance(config, overrides) {
  byConfig.get(config)?.delete(JSON.stringify(overrides));
}

/** The engine `getSession` uses for a config object, remembered (a hot path). */
const sessionByConfig = new WeakMap();

/** Any engine already built for this config (for `getSession`, where basePath does not matter). */
function sessionInstanceFor(config) {
  let instance = sessionByConfig.get(config);
  if (instance) return instance;
  const slot = byConfig.get(config);
  if (slot) for (const built of slot.values()) instance ??= built;
  instance ??= instanceFor(config);
  sessionByConfig.set(config, instance);
  return instance;
}

/** Worker threads the addon has started (0 until needed: the pool is lazy). */
function workerThreads() {
  return native().workerThreads();
}

/** The engine's request body limit (bytes); it answers 413 past it. */
let maxBody;
function maxBodyBytes() {
  maxBody ??= native().maxBodyBytes();
  return maxBody;
}

/**
 * Run the `libauth` command with these arguments (without the program
 * name); it writes to this process's stdout and stderr.
 * @returns {number} the exit status (0 ok, 1 problems, 2 usage)
 */
function runCli(args) {
  return native().runCli(args);
}

module.exports = { Instance, instanceFor, dropInstance, sessionInstanceFor, workerThreads, maxBodyBytes, runCli };
