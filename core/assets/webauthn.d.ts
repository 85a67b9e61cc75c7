// libauth/webauthn: passkeys (WebAuthn) in the browser, on Auth.js's wire
// protocol. Types of core/assets/webauthn.js (the npm package ships it as
// `libauth/webauthn`; the engine serves it at `{basePath}/webauthn.js`).

export interface PasskeyOptions {
  /** Where the auth routes are mounted (default `/auth`). */
  basePath?: string;
}

export interface SignInOptions extends PasskeyOptions {
  /**
   * Without it the server decides, signed out: no email authenticates (any
   * passkey on the device), an email signs up a new account (refused at the
   * end with `"AccountNotLinked"` if the address is taken; the server never
   * says whether it is before). A signed-in user adding a passkey passes `"register"`.
   */
  action?: "register" | "authenticate";
  /** The new account's email (a sign-up); ignored with action `"authenticate"`. */
  email?: string;
  /** Where to go once signed in (default: the current page). */
  callbackUrl?: string;
  /** Navigate to the resulting URL (default `true`); `false` resolves to a {@link SignInResult}. */
  redirect?: boolean;
  /** Aborts the ceremony. */
  signal?: AbortSignal;
}

export interface SignInResult {
  ok: boolean;
  /**
   * Where the server sends the browser next: the callbackUrl on success, the
   * sign-in or error page with `?error=` on a failure the server saw; `null`
   * when the browser failed first.
   */
  url: string | null;
  /**
   * The error type: the server's (e.g. `"WebAuthnVerificationError"`), or the
   * browser's DOMException name (e.g. `"NotAllowedError"` when the user
   * cancels or the ceremony times out).
   */
  error: string | undefined;
  /** The HTTP status of the last response, when there was one. */
  status?: number;
}

export interface ConditionalUIOptions extends PasskeyOptions {
  callbackUrl?: string;
  /** Navigate once signed in (default `true`). */
  redirect?: boolean;
  /** Called when a picked passkey was sent (not when the request was aborted). */
  onResult?: (result: SignInResult) => void;
}

export interface Passkey {
  /** The credential id (base64url). */
  id: string;
  name: string | null;
  /** ISO 8601; null for a passkey stored by Auth.js (it records no dates). */
  createdAt: string | null;
  lastUsedAt: string | null;
  deviceType: "singleDevice" | "multiDevice";
  backedUp: boolean;
  transports: string[];
}

/** A refusal from the server: `type` is its `error` (e.g. `"LastSignInMethod"`). */
export declare class PasskeyError extends Error {
  constructor(type: string, message?: string, status?: number);
  type: string;
  status: number | undefined;
}

/** Register a passkey or sign in with one (provider id default `"passkey"`). */
export declare function signIn(providerId?: string, options?: SignInOptions): Promise<SignInResult>;

/**
 * Passkey autofill (conditional mediation) on the field whose `autocomplete`
 * includes `webauthn`, when the browser supports it. Returns a function that
 * aborts the request.
 */
export declare function startConditionalUI(providerId?: string, options?: ConditionalUIOptions): () => void;

/** The signed-in user's passkeys; rejects with a `PasskeyError` (401) when signed out. */
export declare function listPasskeys(options?: PasskeyOptions): Promise<Passkey[]>;

/** Rename one of the signed-in user's passkeys. */
export declare function renamePasskey(id: string, name: string, options?: PasskeyOptions): Promise<Passkey>;

/** Delete one of the signed-in user's passkeys; `PasskeyError` `"LastSignInMethod"` (409) for the last way to sign in. */
export declare function deletePasskey(id: string, options?: PasskeyOptions): Promise<void>;

/**
 * Wire up every `form[data-webauthn-provider]` of the page (the built-in sign-in page calls it).
 * A form's `data-webauthn-messages` (a JSON object) gives the messages shown after a failed
 * ceremony in the page's language, by error code (`NotAllowedError`, `InvalidStateError`,
 * `NotSupportedError`, `SecurityError`, `WebAuthnVerificationError`, `AccountNotLinked`) and
 * `ipAddress`, `useLocalhost` (`{url}`), `failed` (`{error}`); English for any it lacks.
 */
export declare function initSignInPage(root?: ParentNode): void;

/**
 * Where passkeys would work instead of `here` (e.g. `location`): an IP
 * address cannot be a WebAuthn relying party, so a loopback address becomes
 * `localhost`; `null` when `here` is already a name.
 */
export declare function passkeyAddressHint(
  here: {
    protocol: string;
    hostname: string;
    port: string;
    pathname: string;
    search: string;
  },
  messages?: Record<string, string>,
): string | null;
