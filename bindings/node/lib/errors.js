"use strict";
// libauth's error classes. `type` names the error (Auth.js v5's
// `AuthError.type` values); `CredentialsSignin.code` goes into the redirect
// URL, so it must not reveal anything sensitive.

class AuthError extends Error {
  /** @type {string} */
  static type = "AuthError";

  constructor(message, errorOptions) {
    if (message instanceof Error) {
      super(undefined, { cause: { err: message, ...(message.cause ?? {}), ...(errorOptions?.cause ?? {}) } });
    } else if (typeof message === "string") {
      if (errorOptions instanceof Error) errorOptions = { cause: { err: errorOptions, ...errorOptions.cause } };
      super(message, errorOptions);
    } else {
      super(undefined, message);
    }
    this.name = this.constructor.name;
    this.type = this.constructor.type ?? "AuthError";
    Error.captureStackTrace?.(this, this.constructor);
  }
}

/** Thrown from a credentials provider's `authorize` to refuse a sign-in. */
class CredentialsSignin extends AuthError {
  static type = "CredentialsSignin";
  /** Placed in the `code` query parameter of the redirect: keep it generic. */
  code = "credentials";
}

/**
 * A configuration the engine refuses; `option` names the option, `type`
 * the error (`MissingSecret`, `MissingAuthorize`, `MissingAdapter`, …, or
 * `Configuration`), both as the engine reported them.
 */
class InvalidConfig extends AuthError {
  static type = "Configuration";
  constructor(option, message, type = InvalidConfig.type) {
    super(message);
    this.option = option;
    this.type = type;
  }
}

/** The error a hook threw, as the engine's HostError `{ message, type?, code? }`. */
function toHostError(error) {
  if (error === null || typeof error !== "object") {
    return { message: String(error) };
  }
  const out = { message: typeof error.message === "string" ? error.message : String(error) };
  const type = typeof error.type === "string" ? error.type : error.constructor?.type;
  if (typeof type === "string") out.type = type;
  if (typeof error.code === "string" && out.type === "CredentialsSignin") out.code = error.code;
  return out;
}

module.exports = { AuthError, CredentialsSignin, InvalidConfig, toHostError };
