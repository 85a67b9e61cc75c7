"use strict";
// Split a JavaScript config into the engine's JSON config and its hooks.
// Functions never cross as JSON: each becomes a hook named as in
// docs/architecture.md (`callbacks.signIn`, `events.signOut`,
// `providers.<id>.authorize`, `adapter.createUser`, …), and the engine asks
// the host for them by name.

const BUILTIN_ADAPTERS = new Set(["sqlite", "postgres", "memory"]);

/**
 * @param {object} config the user's config
 * @param {object} [overrides] data options forced by an adapter (basePath)
 * @param {string[]} [adapterMethods] the adapter methods the engine calls
 *   (the addon's `adapterMethods()`: the engine's list, not a copy)
 * @returns {{ json: object, hooks: Map<string, {fn: Function, kind: string}> }}
 */
function compile(config, overrides = {}, adapterMethods = []) {
  if (config === null || typeof config !== "object") {
    throw new TypeError("libauth: the configuration must be an object");
  }
  const hooks = new Map();
  const json = {};
  const add = (name, fn, kind = name) => hooks.set(name, { fn, kind });

  for (const [key, value] of Object.entries(config)) {
    if (value === undefined) continue;
    switch (key) {
      case "callbacks":
      case "events":
      case "logger":
        for (const [name, fn] of Object.entries(value ?? {})) {
          if (typeof fn === "function") add(`${key}.${name}`, fn, key === "logger" ? `logger.${name}` : key);
        }
        break;
      case "jwt": {
        const { encode, decode, ...rest } = value ?? {};
        if (typeof encode === "function") add("jwt.encode", encode);
        if (typeof decode === "function") add("jwt.decode", decode);
        json.jwt = rest;
        break;
      }
      case "session": {
        const { generateSessionToken, ...rest } = value ?? {};
        if (typeof generateSessionToken === "function") add("session.generateSessionToken", generateSessionToken);
        json.session = rest;
        break;
      }
      case "providers":
        json.providers = (value ?? []).map((p, i) => liftProvider(p, i, add));
        break;
      case "adapter":
        json.adapter = liftAdapter(value, add, adapterMethods);
        break;
      // Reactive adapter's option (it becomes basePath), Auth.js internals.
      case "prefix":
      case "raw":
      case "skipCSRFCheck":
        break;
      default:
        if (typeof value === "function") {
          throw new TypeError(`libauth: option \`${key}\` cannot be a function`);
        }
        json[key] = value;
    }
  }
  Object.assign(json, overrides);
  return { json, hooks };
}

function liftProvider(provider, index, add) {
  // Auth.js lets a provider factory be listed uncalled (`providers: [GitHub]`).
  if (typeof provider === "function") provider = provider({});
  if (provider === null || typeof provider !== "object") {
    throw new TypeError(`libauth: providers[${index}] must be a provider object`);
  }
  // Auth.js's factories put user options under `options`; accept that shape.
  const merged = provider.options && typeof provider.options === "object" ? { ...provider, ...provider.options } : { ...provider };
  delete merged.options;
  const id = merged.id ?? merged.builtin ?? merged.type;
  const out = {};
  for (const [key, value] of Object.entries(merged)) {
    if (value === undefined) continue;
    if (typeof value === "function") {
      add(`providers.${id}.${key}`, value, `provider.${key}`);
      // The engine reads `authorize: true` as "the host implements it".
      if (key === "authorize") out.authorize = true;
      continue;
    }
    out[key] = value;
  }
  return out;
}

function liftAdapter(adapter, add, adapterMethods) {
  if (adapter === null) return null;
  if (typeof adapter !== "object") {
    throw new TypeError("libauth: `adapter` must be { type: \"sqlite\" | \"postgres\" | \"memory\", … } or an object of adapter methods");
  }
  if (typeof adapter.type === "string" && BUILTIN_ADAPTERS.has(adapter.type)) {
    return { ...adapter };
  }
  let count = 0;
  // Methods may live on a class prototype: walk the chain, not own keys.
  for (const name of adapterMethods) {
    if (typeof adapter[name] === "function") {
      add(`adapter.${name}`, adapter[name].bind(adapter), "adapter");
      count++;
    }
  }
  if (count === 0) {
    throw new TypeError("libauth: `adapter` has no adapter methods (createUser, getUser, …) and is not a built-in adapter type");
  }
  return { type: "host" };
}

module.exports = { compile };
