// libauth's browser module for passkeys (WebAuthn), on Auth.js's wire
// protocol. One file, no imports, no dependencies: the engine serves it at
// `{basePath}/webauthn.js`, inlines it in the built-in sign-in page (which
// then calls `initSignInPage()`), and the npm package ships it as
// `libauth/webauthn`.
//
//   import { signIn } from "/auth/webauthn.js"; // or from "libauth/webauthn" with a bundler
//   await signIn("passkey");                     // sign in with a passkey on this device
//   await signIn("passkey", { email });          // sign up a new account with a passkey
//
// It uses the browser's PublicKeyCredential.parseCreationOptionsFromJSON /
// parseRequestOptionsFromJSON and credential.toJSON() where they exist, and
// a small base64url conversion where they do not.

/**
 * @typedef {object} PasskeyOptions
 * @property {string} [basePath] Where the auth routes are mounted (default "/auth").
 */

/**
 * @typedef {object} SignInOptions
 * @property {"register" | "authenticate"} [action] Without it the server decides, signed out: no email
 *   authenticates (any passkey on the device), an email signs up a new account (refused at the end with
 *   "AccountNotLinked" if the address is taken; the answer never says whether it is before). A signed-in
 *   user adding a passkey passes "register".
 * @property {string} [email] The new account's email (a sign-up); ignored with action "authenticate".
 * @property {string} [callbackUrl] Where to go once signed in (default: the current page).
 * @property {boolean} [redirect] Navigate to the resulting URL (default true); false resolves to a {@link SignInResult}.
 * @property {string} [basePath] Where the auth routes are mounted (default "/auth").
 * @property {AbortSignal} [signal] Aborts the ceremony.
 */

/**
 * @typedef {object} SignInResult
 * @property {boolean} ok
 * @property {string | null} url Where the server sends the browser next (the callbackUrl on success, the
 *   sign-in or error page with `?error=` on a failure the server saw; null when the browser failed first).
 * @property {string | undefined} error The error type: the server's (e.g. "WebAuthnVerificationError"), or
 *   the browser's DOMException name (e.g. "NotAllowedError" when the user cancels or the ceremony times out).
 * @property {number} [status] The HTTP status of the last response, when there was one.
 */

/**
 * @typedef {object} Passkey
 * @property {string} id The credential id (base64url).
 * @property {string | null} name
 * @property {string | null} createdAt
 * @property {string | null} lastUsedAt
 * @property {"singleDevice" | "multiDevice"} deviceType
 * @property {boolean} backedUp
 * @property {string[]} transports
 */

const DEFAULT_BASE_PATH = "/auth";

/** Thrown for an answer the server refused; `type` is its `error`. */
class PasskeyError extends Error {
  /**
   * @param {string} type
   * @param {string} [message]
   * @param {number} [status]
   */
  constructor(type, message, status) {
    super(message || type);
    this.name = "PasskeyError";
    this.type = type;
    this.status = status;
  }
}
export { PasskeyError };

/** @param {string | undefined} basePath */
function base(basePath) {
  return (basePath ?? DEFAULT_BASE_PATH).replace(/\/+$/, "");
}

// ---------------------------------------------------------------- base64url

/** @param {ArrayBuffer | ArrayBufferView} data */
function toBase64url(data) {
  const bytes =
    data instanceof ArrayBuffer ? new Uint8Array(data) : new Uint8Array(data.buffer, data.byteOffset, data.byteLength);
  let s = "";
  for (let i = 0; i < bytes.length; i++) s += String.fromCharCode(bytes[i]);
  return btoa(s).replace(/\+/g, "-").replace(/\//g, "_").replace(/=+$/, "");
}

/** @param {string} text */
function fromBase64url(text) {
  const b64 = text.replace(/-/g, "+").replace(/_/g, "/");
  const s = atob(b64 + "===".slice((b64.length + 3) % 4));
  const bytes = new Uint8Array(s.length);
  for (let i = 0; i < s.length; i++) bytes[i] = s.charCodeAt(i);
  return bytes.buffer;
}

/** @param {any[] | undefined} list */
function credentialList(list) {
  return list?.map((c) => ({ ...c, id: fromBase64url(c.id) }));
}

/**
 * The WebAuthn JSON form of creation options as the browser wants them.
 * @param {any} json
 * @returns {PublicKeyCredentialCreationOptions}
 */
function creationOptions(json) {
  const PKC = globalThis.PublicKeyCredential;
  if (typeof PKC?.parseCreationOptionsFromJSON === "function") return PKC.parseCreationOptionsFromJSON(json);
  const options = {
    ...json,
    challenge: fromBase64url(json.challenge),
    user: { ...json.user, id: fromBase64url(json.user.id) },
  };
  if (json.excludeCredentials) options.excludeCredentials = credentialList(json.excludeCredentials);
  return options;
}

/**
 * @param {any} json
 * @returns {PublicKeyCredentialRequestOptions}
 */
function requestOptions(json) {
  const PKC = globalThis.PublicKeyCredential;
  if (typeof PKC?.parseRequestOptionsFromJSON === "function") return PKC.parseRequestOptionsFromJSON(json);
  const options = { ...json, challenge: fromBase64url(json.challenge) };
  if (json.allowCredentials) options.allowCredentials = credentialList(json.allowCredentials);
  return options;
}

/**
 * A credential as JSON (RegistrationResponseJSON / AuthenticationResponseJSON).
 * @param {any} credential
 */
function credentialJSON(credential) {
  if (typeof credential.toJSON === "function") return credential.toJSON();
  const r = credential.response;
  /** @type {Record<string, any>} */
  const response = { clientDataJSON: toBase64url(r.clientDataJSON) };
  if (r.attestationObject) {
    response.attestationObject = toBase64url(r.attestationObject);
    response.transports = typeof r.getTransports === "function" ? r.getTransports() : [];
    const authData = typeof r.getAuthenticatorData === "function" ? r.getAuthenticatorData() : null;
    if (authData) response.authenticatorData = toBase64url(authData);
    const publicKey = typeof r.getPublicKey === "function" ? r.getPublicKey() : null;
    if (publicKey) response.publicKey = toBase64url(publicKey);
    if (typeof r.getPublicKeyAlgorithm === "function") response.publicKeyAlgorithm = r.getPublicKeyAlgorithm();
  } else {
    response.authenticatorData = toBase64url(r.authenticatorData);
    response.signature = toBase64url(r.signature);
    if (r.userHandle) response.userHandle = toBase64url(r.userHandle);
  }
  return {
    id: credential.id,
    rawId: toBase64url(credential.rawId),
    type: credential.type,
    authenticatorAttachment: credential.authenticatorAttachment ?? undefined,
    clientExtensionResults:
      typeof credential.getClientExtensionResults === "function" ? credential.getClientExtensionResults() : {},
    response,
  };
}

// ---------------------------------------------------------------- HTTP

/**
 * @param {Response} res
 * @returns {Promise<any>}
 */
async function json(res) {
  const body = await res.json().catch(() => null);
  if (!res.ok) {
    throw new PasskeyError(
      body?.error || `HTTP${res.status}`,
      body?.message || `${res.status} ${res.statusText}`,
      res.status,
    );
  }
  return body;
}

/** @param {string} basePath */
async function csrfToken(basePath) {
  const body = await json(await fetch(`${basePath}/csrf`, { credentials: "same-origin" }));
  return /** @type {string} */ (body.csrfToken);
}

/**
 * `GET {basePath}/webauthn-options/{providerId}`: `{ action, options }`, and
 * the challenge cookie.
 * @param {string} providerId
 * @param {{ action?: string, email?: string, basePath: string }} query
 * @returns {Promise<{ action: "register" | "authenticate", options: any }>}
 */
async function fetchOptions(providerId, { action, email, basePath }) {
  const params = new URLSearchParams();
  if (action) params.set("action", action);
  if (email) params.set("email", email);
  const qs = params.toString();
  const url = `${basePath}/webauthn-options/${encodeURIComponent(providerId)}${qs ? `?${qs}` : ""}`;
  return json(await fetch(url, { credentials: "same-origin", headers: { accept: "application/json" } }));
}

/**
 * Post the credential to `{basePath}/callback/{providerId}`; the answer is
 * `{ url }` (X-Auth-Return-Redirect).
 * @param {string} providerId
 * @param {{ action: string, credential: any, callbackUrl: string, basePath: string }} args
 * @returns {Promise<SignInResult>}
 */
async function postCallback(providerId, { action, credential, callbackUrl, basePath }) {
  const body = new URLSearchParams({
    action,
    data: JSON.stringify(credentialJSON(credential)),
    csrfToken: await csrfToken(basePath),
    callbackUrl,
  });
  const res = await fetch(`${basePath}/callback/${encodeURIComponent(providerId)}`, {
    method: "POST",
    credentials: "same-origin",
    headers: { "content-type": "application/x-www-form-urlencoded", "x-auth-return-redirect": "1" },
    body,
  });
  const answer = await res.json().catch(() => null);
  const url = typeof answer?.url === "string" ? answer.url : null;
  let error = answer?.error;
  if (url) {
    try {
      error = new URL(url, location.href).searchParams.get("error") ?? undefined;
    } catch {}
  }
  if (!res.ok && !error) error = `HTTP${res.status}`;
  return { ok: res.ok && !error && !!url, url, error: error || undefined, status: res.status };
}

/**
 * The ceremony: `navigator.credentials.create` to register, `get` to
 * authenticate.
 * @param {"register" | "authenticate"} action
 * @param {any} options
 * @param {{ signal?: AbortSignal, mediation?: CredentialMediationRequirement }} extra
 */
function ceremony(action, options, { signal, mediation }) {
  if (action === "register") return navigator.credentials.create({ publicKey: creationOptions(options), signal });
  /** @type {CredentialRequestOptions} */
  const request = { publicKey: requestOptions(options), signal };
  if (mediation) request.mediation = mediation;
  return navigator.credentials.get(request);
}

/** @param {unknown} e */
function failure(e) {
  if (e instanceof PasskeyError) return { ok: false, url: null, error: e.type, status: e.status };
  const name = /** @type {any} */ (e)?.name;
  return { ok: false, url: null, error: typeof name === "string" && name !== "Error" ? name : "WebAuthnError" };
}

// The running conditional-UI request, aborted before a button's ceremony
// (a browser runs one WebAuthn request at a time, and each options request
// replaces the challenge cookie).
/** @type {(() => void) | null} */
let conditional = null;

/**
 * Register a passkey or sign in with one.
 * @param {string} [providerId] The provider's id (default "passkey").
 * @param {SignInOptions} [options]
 * @returns {Promise<SignInResult>}
 */
export async function signIn(providerId = "passkey", options = {}) {
  const { action, email, redirect = true, signal } = options;
  const basePath = base(options.basePath);
  const callbackUrl = options.callbackUrl ?? location.href;
  conditional?.();
  /** @type {SignInResult} */
  let result;
  try {
    const answer = await fetchOptions(providerId, { action, email, basePath });
    const credential = await ceremony(answer.action, answer.options, { signal });
    if (!credential) throw new DOMException("no credential", "NotAllowedError");
    result = await postCallback(providerId, { action: answer.action, credential, callbackUrl, basePath });
  } catch (e) {
    result = failure(e);
  }
  if (redirect && result.url) location.href = result.url;
  return result;
}

/**
 * Passkey autofill (conditional mediation): when the browser supports it,
 * ask for a passkey through the email/username field's suggestions (its
 * `autocomplete` must include `webauthn`) and sign in once one is picked.
 * Resolves nothing; returns a function that aborts the request.
 * @param {string} [providerId]
 * @param {Omit<SignInOptions, "action" | "email" | "signal"> & { onResult?: (result: SignInResult) => void }} [options]
 * @returns {() => void}
 */
export function startConditionalUI(providerId = "passkey", options = {}) {
  conditional?.();
  const controller = new AbortController();
  const abort = () => {
    controller.abort();
    if (conditional === abort) conditional = null;
  };
  conditional = abort;
  const basePath = base(options.basePath);
  const { redirect = true, onResult } = options;
  (async () => {
    const PKC = globalThis.PublicKeyCredential;
    if (typeof PKC?.isConditionalMediationAvailable !== "function") return;
    if (!(await PKC.isConditionalMediationAvailable()) || controller.signal.aborted) return;
    /** @type {SignInResult} */
    let result;
    try {
      const answer = await fetchOptions(providerId, { action: "authenticate", basePath });
      if (controller.signal.aborted) return;
      const credential = await ceremony("authenticate", answer.options, {
        signal: controller.signal,
        mediation: "conditional",
      });
      if (controller.signal.aborted || !credential) return;
      if (conditional === abort) conditional = null;
      const callbackUrl = options.callbackUrl ?? location.href;
      result = await postCallback(providerId, { action: "authenticate", credential, callbackUrl, basePath });
    } catch (e) {
      if (controller.signal.aborted) return;
      result = failure(e);
    }
    onResult?.(result);
    if (redirect && result.ok && result.url) location.href = result.url;
  })();
  return abort;
}

/**
 * @param {string} basePath
 * @param {Record<string, string>} fields
 */
async function postPasskeys(basePath, fields) {
  const body = new URLSearchParams({ ...fields, csrfToken: await csrfToken(basePath) });
  return json(
    await fetch(`${basePath}/passkeys`, {
      method: "POST",
      credentials: "same-origin",
      headers: { "content-type": "application/x-www-form-urlencoded", accept: "application/json" },
      body,
    }),
  );
}

/**
 * The signed-in user's passkeys. Rejects with a {@link PasskeyError}
 * (status 401) when signed out.
 * @param {PasskeyOptions} [options]
 * @returns {Promise<Passkey[]>}
 */
export async function listPasskeys(options = {}) {
  const res = await fetch(`${base(options.basePath)}/passkeys`, {
    credentials: "same-origin",
    headers: { accept: "application/json" },
  });
  return (await json(res)).passkeys;
}

/**
 * Rename one of the signed-in user's passkeys.
 * @param {string} id
 * @param {string} name
 * @param {PasskeyOptions} [options]
 * @returns {Promise<Passkey>}
 */
export async function renamePasskey(id, name, options = {}) {
  return (await postPasskeys(base(options.basePath), { action: "rename", id, name })).passkey;
}

/**
 * Delete one of the signed-in user's passkeys. Rejects with a
 * {@link PasskeyError} of type "LastSignInMethod" (status 409) for the
 * user's last way to sign in.
 * @param {string} id
 * @param {PasskeyOptions} [options]
 * @returns {Promise<void>}
 */
export async function deletePasskey(id, options = {}) {
  await postPasskeys(base(options.basePath), { action: "delete", id });
}

/**
 * The messages shown after a failed ceremony, by error code, in English;
 * `ipAddress`, `useLocalhost` (`{url}`: where passkeys would work) and
 * `failed` (`{error}`: the code) for the rest. The built-in sign-in page
 * hands the module its own language's in the form's
 * `data-webauthn-messages` (JSON); a key it lacks stays English.
 */
const MESSAGES = /** @type {Record<string, string>} */ ({
  NotAllowedError: "The passkey request was cancelled or timed out.",
  InvalidStateError: "This passkey is already registered.",
  NotSupportedError: "This browser or device cannot use passkeys.",
  SecurityError: "Passkeys are not available on this address.",
  WebAuthnVerificationError: "The passkey could not be verified.",
  AccountNotLinked:
    "This email already has an account: sign in with its passkey (leave the email empty, or pick the passkey in the email field's suggestions).",
  ipAddress: "Passkeys need this site's domain name, not an IP address.",
  useLocalhost: "Passkeys need a name, not an IP address: open {url} instead.",
  failed: "Passkey sign-in failed ({error}).",
});

/**
 * `text` with `{name}` replaced by `value` (as text: no pattern syntax).
 * @param {string} text @param {string} name @param {string} value
 */
const fill = (text, name, value) => text.split(`{${name}}`).join(value);

/**
 * The messages a page handed over (a JSON object of strings), over the
 * English ones; anything else is ignored.
 * @param {string | undefined} json
 * @returns {Record<string, string>}
 */
function pageMessages(json) {
  /** @type {Record<string, string>} */
  const messages = { ...MESSAGES };
  if (!json) return messages;
  try {
    const given = JSON.parse(json);
    if (given && typeof given === "object") {
      for (const key of Object.keys(MESSAGES)) {
        if (typeof given[key] === "string" && given[key]) messages[key] = given[key];
      }
    }
  } catch {
    // Not JSON: the English messages stand.
  }
  return messages;
}

/**
 * Where passkeys would work instead of `here`: an IP address cannot be a
 * WebAuthn relying party, so a loopback address becomes `localhost` (same
 * port and path); any other IP address needs the site's domain name.
 * `null` when `here` is already a name (the cause is elsewhere: an
 * `http:` origin that is not localhost, a relying party id that does not
 * match).
 * @param {{ protocol: string, hostname: string, port: string, pathname: string, search: string }} here
 * @param {Record<string, string>} [messages] the texts (`ipAddress`, `useLocalhost` with `{url}`); English by default
 * @returns {string | null}
 */
export function passkeyAddressHint(here, messages = MESSAGES) {
  const host = here.hostname.replace(/^\[|\]$/g, "");
  const isIp = /^\d{1,3}(\.\d{1,3}){3}$/.test(host) || host.includes(":");
  if (!isIp) return null;
  const loopback = /^127\./.test(host) || host === "::1";
  if (!loopback) return messages.ipAddress ?? MESSAGES.ipAddress;
  const port = here.port ? `:${here.port}` : "";
  const url = `${here.protocol}//localhost${port}${here.pathname}${here.search}`;
  return fill(messages.useLocalhost ?? MESSAGES.useLocalhost, "url", url);
}

/**
 * @param {string | undefined} error
 * @param {Record<string, string>} messages
 */
function messageFor(error, messages) {
  if (error === "SecurityError" && typeof location !== "undefined") {
    const hint = passkeyAddressHint(location, messages);
    if (hint) return hint;
  }
  const known = Object.hasOwn(MESSAGES, error ?? "") && !["ipAddress", "useLocalhost", "failed"].includes(error ?? "");
  return known ? messages[error ?? ""] : fill(messages.failed, "error", String(error));
}

/**
 * Wire up every `form[data-webauthn-provider]` of the page (the built-in
 * sign-in page calls it): submitting signs in with any passkey on the
 * device when the email field is empty, and signs up a new account with
 * that email when it is filled; and `data-conditional-ui="true"` offers
 * passkeys in the email field's autofill; `data-webauthn-action="register"`
 * (the account page) adds a passkey to the signed-in user. Errors go to the
 * form's (or the page's) `[data-webauthn-error]` element.
 * @param {ParentNode} [root]
 */
export function initSignInPage(root = document) {
  for (const form of /** @type {NodeListOf<HTMLFormElement>} */ (
    root.querySelectorAll("form[data-webauthn-provider]")
  )) {
    const providerId = form.dataset.webauthnProvider || "passkey";
    // `register` on the account page: add a passkey to the signed-in user.
    const action = form.dataset.webauthnAction === "register" ? "register" : undefined;
    const basePath = form.dataset.basePath || DEFAULT_BASE_PATH;
    const callbackUrl = form.dataset.callbackUrl || undefined;
    const errorBox = form.querySelector("[data-webauthn-error]") ?? root.querySelector("[data-webauthn-error]");
    const messages = pageMessages(form.dataset.webauthnMessages);
    const button = /** @type {HTMLButtonElement | null} */ (
      form.querySelector('button[type="submit"], button:not([type])')
    );
    /** @param {SignInResult} result */
    const show = (result) => {
      if (!errorBox) return;
      const text = result.ok ? "" : messageFor(result.error, messages);
      errorBox.textContent = text;
      if (errorBox instanceof HTMLElement) errorBox.hidden = !text;
    };
    const autofill = () => {
      if (form.dataset.conditionalUi === "true")
        startConditionalUI(providerId, { basePath, callbackUrl, onResult: show });
    };
    form.addEventListener("submit", async (event) => {
      event.preventDefault();
      const email = /** @type {HTMLInputElement | null} */ (form.querySelector('input[name="email"]'))?.value.trim();
      if (button) button.disabled = true;
      show({ ok: true, url: null, error: undefined });
      const result = await signIn(providerId, {
        action,
        email: email || undefined,
        callbackUrl,
        basePath,
        redirect: false,
      });
      if (button) button.disabled = false;
      if (result.ok && result.url) {
        location.href = result.url;
        return;
      }
      show(result);
      autofill(); // the button's ceremony aborted it: offer it again
    });
    autofill();
  }
}
