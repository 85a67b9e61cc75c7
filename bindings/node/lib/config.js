"use strict";
// Split a JavaScript config into the engine's JSON config and its hooks.
// This file knows JavaScript, not libauth's options: every function in the
// config is replaced by a marker `{ "$libauth.fn": n }`, and the engine
// (`compileConfig`, core's `conventions` module) says which hook each marker
// is (`callbacks.signIn`, `providers.<id>.authorize`, `adapter.createUser`,
// …), which markers are provider factories to call, and refuses a function
// where none belongs, naming the option.

const MARKER = "$libauth.fn";

/**
 * @param {object} config the user's config
 * @param {object} overrides data options forced by an adapter (basePath)
 * @param {(markedJson: string) => object} compileConfig the addon's compiler
 * @returns {{ json: object, hooks: Map<string, Function> }}
 */
function compile(config, overrides, compileConfig) {
  if (config === null || typeof config !== "object") {
    throw new TypeError("libauth: the configuration must be an object");
  }
  const fns = [];
  // The SolidStart-style handler's own option (it becomes basePath).
  const { prefix: _prefix, ...rest } = config;
  let marked = mark(rest, fns, null);
  for (;;) {
    const out = compileConfig(JSON.stringify(marked));
    if (typeof out.config !== "string") return { refused: out };
    if (out.factories.length === 0) {
      const hooks = new Map();
      out.markers.forEach((m, i) => hooks.set(out.names[i], fns[m]));
      return { json: { ...JSON.parse(out.config), ...overrides }, hooks };
    }
    // Providers listed uncalled (`providers: [GitHub]`): call, mark, compile again.
    for (const m of out.factories) marked = replaceMarker(marked, m, mark(fns[m]({}), fns, null));
  }
}

/**
 * A JSON-ready copy of `value` with each function replaced by a marker
 * (kept in `fns`, bound to the object it was found on). A class instance
 * (an adapter object) contributes the methods of its prototype chain too.
 */
function mark(value, fns, owner) {
  if (typeof value === "function") {
    fns.push(owner ? value.bind(owner) : value);
    return { [MARKER]: fns.length - 1 };
  }
  if (value === null || typeof value !== "object") return value;
  if (typeof value.toJSON === "function") return value.toJSON(); // a Date, a URL
  if (Array.isArray(value)) return value.map((v) => mark(v, fns, null));
  const out = {};
  for (const key of keysOf(value)) {
    const v = value[key];
    if (v !== undefined) out[key] = mark(v, fns, value);
  }
  return out;
}

function keysOf(object) {
  const keys = new Set(Object.keys(object));
  for (
    let proto = Object.getPrototypeOf(object);
    proto && proto !== Object.prototype;
    proto = Object.getPrototypeOf(proto)
  ) {
    for (const key of Object.getOwnPropertyNames(proto)) {
      if (key !== "constructor" && typeof object[key] === "function") keys.add(key);
    }
  }
  return keys;
}

function replaceMarker(value, m, replacement) {
  if (value === null || typeof value !== "object") return value;
  if (value[MARKER] === m && Object.keys(value).length === 1) return replacement;
  if (Array.isArray(value)) return value.map((v) => replaceMarker(v, m, replacement));
  const out = {};
  for (const [k, v] of Object.entries(value)) out[k] = replaceMarker(v, m, replacement);
  return out;
}

module.exports = { compile };
