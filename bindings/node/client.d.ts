// libauth/client: the browser side of the Auth.js REST protocol.
import type { Session } from "./index";

export interface ClientOptions {
  /** Default `/auth` (use `/api/auth` with the reactive adapter), or set it once with `configure`. */
  basePath?: string;
  /** Origin of the auth routes when not the page's own. */
  baseUrl?: string;
}

export interface SignInOptions extends ClientOptions {
  /** Navigate to the result (default) or resolve to a SignInResponse. */
  redirect?: boolean;
  /** Where to go after signing in (default: the current page). */
  redirectTo?: string;
  /** @deprecated Auth.js v4 name of `redirectTo`. */
  callbackUrl?: string;
  /** Credentials fields, or any other form field for the provider. */
  [field: string]: unknown;
}

export interface SignInResponse {
  error: string | undefined;
  code: string | undefined;
  status: number;
  ok: boolean;
  url: string | null;
}

export interface SignOutOptions extends ClientOptions {
  redirect?: boolean;
  redirectTo?: string;
  /** @deprecated */
  callbackUrl?: string;
}

export interface ClientProvider {
  id: string;
  name: string;
  type: "oauth" | "oidc" | "email" | "credentials";
  signinUrl: string;
  callbackUrl: string;
}

export declare function configure(options: ClientOptions): void;
export declare function getCsrfToken(options?: ClientOptions): Promise<string>;
export declare function getProviders(options?: ClientOptions): Promise<Record<string, ClientProvider> | null>;
export declare function getSession(options?: ClientOptions): Promise<Session | null>;
export declare function signIn(
  provider?: string,
  options?: SignInOptions & { redirect?: true },
  authorizationParams?: Record<string, string>,
): Promise<undefined>;
export declare function signIn(
  provider: string,
  options: SignInOptions & { redirect: false },
  authorizationParams?: Record<string, string>,
): Promise<SignInResponse>;
export declare function signOut(options?: SignOutOptions & { redirect?: true }): Promise<undefined>;
export declare function signOut(options: SignOutOptions & { redirect: false }): Promise<{ url: string }>;

/** What a password step answers (see `signUp`). */
export interface PasswordStepResult {
  ok: boolean;
  status: number;
  /** Where the built-in flow goes next, when it succeeded. */
  url: string | null;
  /** `PasswordRefused`, `InvalidEmail`, `CredentialsSignin`, `RateLimited`, `Verification`, … */
  error?: string;
  code?: string;
  /** A message to show the user, for a refused form. */
  message?: string;
}

/** The password provider's steps for custom pages: each posts to `{basePath}/password/<step>`; nothing navigates. */
export declare function signUp(
  fields: { email: string; password: string; name?: string; callbackUrl?: string },
  options?: ClientOptions,
): Promise<PasswordStepResult>;
export declare function requestPasswordReset(
  fields: { email: string },
  options?: ClientOptions,
): Promise<PasswordStepResult>;
export declare function resetPassword(
  fields: { token: string; email: string; password: string },
  options?: ClientOptions,
): Promise<PasswordStepResult>;
export declare function changePassword(
  fields: { currentPassword: string; newPassword: string },
  options?: ClientOptions,
): Promise<PasswordStepResult>;
export declare function changeEmail(
  fields: { currentPassword: string; newEmail: string },
  options?: ClientOptions,
): Promise<PasswordStepResult>;
export declare function deleteAccount(
  fields: { currentPassword: string },
  options?: ClientOptions,
): Promise<PasswordStepResult>;
