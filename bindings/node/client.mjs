// libauth/client: the browser side of the Auth.js REST protocol, as
// Auth.js's own client speaks it (fetch the CSRF token, POST a form with
// `X-Auth-Return-Redirect: 1`, read `{ url }` back).
//
//   import { signIn, signOut, getSession } from "libauth/client"
//   await signIn("credentials", { username, password, redirect: false })

const config = { basePath: "/auth", baseUrl: "" };

/** Where the auth routes are: `{ basePath: "/api/auth" }` for the reactive adapter. */
export function configure(options = {}) {
  if (options.basePath !== undefined) config.basePath = options.basePath.replace(/\/+$/, "");
  if (options.baseUrl !== undefined) config.baseUrl = options.baseUrl.replace(/\/+$/, "");
}

function api(options) {
  const basePath = (options?.basePath ?? config.basePath).replace(/\/+$/, "");
  return `${options?.baseUrl ?? config.baseUrl}${basePath}`;
}

async function json(res) {
  const text = await res.text();
  return text ? JSON.parse(text) : null;
}

/** The CSRF token (sets the CSRF cookie when missing). */
export async function getCsrfToken(options) {
  const res = await fetch(`${api(options)}/csrf`, { credentials: "same-origin" });
  return (await json(res))?.csrfToken ?? "";
}

/** `{ <id>: { id, name, type, signinUrl, callbackUrl } }`. */
export async function getProviders(options) {
  const res = await fetch(`${api(options)}/providers`, { credentials: "same-origin" });
  return json(res);
}

/** The current session, or null. */
export async function getSession(options) {
  const res = await fetch(`${api(options)}/session`, { credentials: "same-origin" });
  if (!res.ok) return null;
  const session = await json(res);
  return session && Object.keys(session).length ? session : null;
}

/**
 * Start a sign-in. With `redirect: false`, resolves to
 * `{ error, code, status, ok, url }` instead of navigating.
 */
export async function signIn(provider, options = {}, authorizationParams = {}) {
  const { redirect = true, redirectTo, callbackUrl, basePath, baseUrl, ...fields } = options;
  const target = redirectTo ?? callbackUrl ?? globalThis.location?.href ?? "/";
  const base = api({ basePath, baseUrl });
  if (!provider) {
    globalThis.location.href = `${base}/signin?${new URLSearchParams({ callbackUrl: target })}`;
    return;
  }
  const providers = (await getProviders({ basePath, baseUrl })) ?? {};
  if (!(provider in providers)) {
    globalThis.location.href = `${base}/error`;
    return;
  }
  const type = providers[provider].type;
  const action = type === "credentials" ? "callback" : "signin";
  const csrfToken = await getCsrfToken({ basePath, baseUrl });
  const query = new URLSearchParams(authorizationParams).toString();
  const res = await fetch(`${base}/${action}/${provider}${query ? `?${query}` : ""}`, {
    method: "POST",
    credentials: "same-origin",
    headers: { "Content-Type": "application/x-www-form-urlencoded", "X-Auth-Return-Redirect": "1" },
    body: new URLSearchParams({ ...stringValues(fields), csrfToken, callbackUrl: target }),
  });
  const data = (await json(res)) ?? {};
  if (redirect) {
    const url = data.url ?? target;
    globalThis.location.href = url;
    if (url.includes("#")) globalThis.location.reload();
    return;
  }
  const resultUrl = data.url ? new URL(data.url, globalThis.location?.href ?? "http://localhost") : null;
  const error = resultUrl?.searchParams.get("error") ?? undefined;
  const code = resultUrl?.searchParams.get("code") ?? undefined;
  return { error, code, status: res.status, ok: res.ok && !error, url: error ? null : (data.url ?? null) };
}

/** End the session. With `redirect: false`, resolves to `{ url }`. */
export async function signOut(options = {}) {
  const { redirect = true, redirectTo, callbackUrl, basePath, baseUrl } = options;
  const target = redirectTo ?? callbackUrl ?? globalThis.location?.href ?? "/";
  const csrfToken = await getCsrfToken({ basePath, baseUrl });
  const res = await fetch(`${api({ basePath, baseUrl })}/signout`, {
    method: "POST",
    credentials: "same-origin",
    headers: { "Content-Type": "application/x-www-form-urlencoded", "X-Auth-Return-Redirect": "1" },
    body: new URLSearchParams({ csrfToken, callbackUrl: target }),
  });
  const data = (await json(res)) ?? {};
  if (redirect) {
    const url = data.url ?? target;
    globalThis.location.href = url;
    if (url.includes("#")) globalThis.location.reload();
    return;
  }
  return data;
}

/**
 * The password provider's steps, for custom pages: each posts `fields` (the
 * built-in form's) to `{basePath}/password/<step>` with the CSRF token and
 * resolves to `{ ok, status, url, error?, code?, message? }`: `url` is where
 * the built-in flow goes next (the verify-request page, the account page);
 * a refused form has `error` (`PasswordRefused`, `InvalidEmail`,
 * `CredentialsSignin`, `RateLimited`) and a `message` to show; a bad link's
 * token is `error: "Verification"`. Nothing navigates.
 */
async function passwordStep(step, fields = {}, options = {}) {
  const { basePath, baseUrl } = options;
  const csrfToken = await getCsrfToken({ basePath, baseUrl });
  const res = await fetch(`${api({ basePath, baseUrl })}/password/${step}`, {
    method: "POST",
    credentials: "same-origin",
    headers: { "Content-Type": "application/x-www-form-urlencoded", "X-Auth-Return-Redirect": "1" },
    body: new URLSearchParams({ ...stringValues(fields), csrfToken }),
  });
  const data = (await json(res)) ?? {};
  if (!res.ok) {
    return {
      ok: false,
      status: res.status,
      url: null,
      error: data.error ?? "Error",
      code: data.code ?? undefined,
      message: data.message ?? "",
    };
  }
  const resultUrl = data.url ? new URL(data.url, globalThis.location?.href ?? "http://localhost") : null;
  const error = resultUrl?.searchParams.get("error") ?? undefined;
  return { ok: !error, status: res.status, url: error ? null : (data.url ?? null), error };
}

/** `{ email, password, name?, callbackUrl? }`: create an account; its verification link is mailed. */
export const signUp = (fields, options) => passwordStep("signup", fields, options);
/** `{ email }`: mail a reset link (the same answer for any address). */
export const requestPasswordReset = (fields, options) => passwordStep("forgot", fields, options);
/** `{ token, email, password }` (the reset link's): set the new password and sign in. */
export const resetPassword = (fields, options) => passwordStep("reset", fields, options);
/** `{ currentPassword, newPassword }`: the signed-in user's new password. */
export const changePassword = (fields, options) => passwordStep("change", fields, options);
/** `{ currentPassword, newEmail }`: a confirmation link to the new address. */
export const changeEmail = (fields, options) => passwordStep("change-email", fields, options);
/** `{ currentPassword }`: delete the signed-in user's account. */
export const deleteAccount = (fields, options) => passwordStep("delete", fields, options);

function stringValues(fields) {
  const out = {};
  for (const [k, v] of Object.entries(fields)) if (v !== undefined) out[k] = typeof v === "string" ? v : String(v);
  return out;
}
