// Type declarations of the npm package `libauth` (checked by
// `test/types.test.mjs`: `tsc --noEmit` on a usage file, and the names
// declared here against the names the module exports at run time).

import type { IncomingMessage, ServerResponse } from "node:http";

export type Awaitable<T> = T | PromiseLike<T>;

/** oauth, oidc, email, credentials or webauthn (passkeys). */
export type ProviderType = "oauth" | "oidc" | "email" | "credentials" | "webauthn";

/** The shape returned by a provider's profile callback. */
export interface User {
  id?: string;
  name?: string | null;
  email?: string | null;
  image?: string | null;
  [key: string]: unknown;
}

/** A user as stored by a database adapter. */
export interface AdapterUser extends User {
  id: string;
  email: string;
  emailVerified: Date | null;
}

/** The link between a user and a provider. */
export interface Account {
  provider: string;
  providerAccountId: string;
  type: ProviderType;
  userId?: string;
  access_token?: string;
  authorization_details?: unknown[];
  expires_in?: number;
  /** Absolute expiry of the access token, in seconds. */
  expires_at?: number;
  id_token?: string;
  refresh_token?: string;
  scope?: string;
  /** Always lowercase. */
  token_type?: Lowercase<string>;
  [key: string]: unknown;
}

export interface AdapterAccount extends Account {
  userId: string;
}

export interface AdapterSession {
  sessionToken: string;
  userId: string;
  expires: Date;
}

/**
 * A passkey (Auth.js's `AdapterAuthenticator`), plus libauth's `name`,
 * `createdAt` and `lastUsedAt` (`null` in rows Auth.js wrote).
 */
export interface AdapterAuthenticator {
  /** Base64url, unique across users. */
  credentialID: string;
  userId: string;
  /** The linked `webauthn` account's id: the credential id. */
  providerAccountId: string;
  /** The COSE public key, standard base64. */
  credentialPublicKey: string;
  counter: number;
  credentialDeviceType: "singleDevice" | "multiDevice" | (string & {});
  credentialBackedUp: boolean;
  /** Comma-separated (`internal,hybrid`). */
  transports?: string | null;
  name?: string | null;
  createdAt?: Date | null;
  lastUsedAt?: Date | null;
}

export interface VerificationToken {
  identifier: string;
  token: string;
  expires: Date;
}

/** OpenID standard claims, and any other claim. */
export interface Profile {
  id?: string | null;
  sub?: string | null;
  name?: string | null;
  given_name?: string | null;
  family_name?: string | null;
  middle_name?: string | null;
  nickname?: string | null;
  preferred_username?: string | null;
  profile?: string | null;
  picture?: any;
  website?: string | null;
  email?: string | null;
  email_verified?: boolean | null;
  gender?: string | null;
  birthdate?: string | null;
  zoneinfo?: string | null;
  locale?: string | null;
  phone_number?: string | null;
  updated_at?: Date | string | number | null;
  address?: {
    formatted?: string | null;
    street_address?: string | null;
    locality?: string | null;
    region?: string | null;
    postal_code?: string | null;
    country?: string | null;
  } | null;
  [claim: string]: unknown;
}

export interface DefaultSession {
  user?: User;
  /** ISO date string. */
  expires: string;
  /**
   * How the user signed in (RFC 8176 values): e.g. `["pwd", "otp"]` for a
   * password then a one-time code; absent for a session made before libauth
   * recorded it.
   */
  amr?: Array<"pwd" | "otp" | "fed" | "email" | "hwk" | "mfa">;
}

/** What `getSession` and `GET {basePath}/session` return. */
export interface Session extends DefaultSession {
  [key: string]: unknown;
}

/** The token kept in the session cookie. */
export interface JWT {
  name?: string | null;
  email?: string | null;
  picture?: string | null;
  sub?: string;
  iat?: number;
  exp?: number;
  jti?: string;
  [key: string]: unknown;
}

/** TikTok's user-info response. */
export interface TikTokProfile {
  data: {
    user: {
      open_id: string;
      union_id?: string;
      avatar_url: string;
      avatar_url_100?: string;
      avatar_large_url?: string;
      display_name: string;
      username: string;
      bio_description?: string;
      profile_deep_link?: string;
      is_verified?: boolean;
      follower_count?: number;
      following_count?: number;
      likes_count?: number;
      video_count?: number;
      /** TikTok never provides an email. */
      email?: string;
    };
  };
  error: {
    code: string;
    log_id: string;
    message: string;
  };
  [key: string]: any;
}

/** GitHub's `/user` response (the fields used; see GitHub's REST API). */
export interface GitHubProfile {
  login: string;
  id: number;
  node_id?: string;
  avatar_url: string;
  html_url?: string;
  name: string | null;
  company?: string | null;
  blog?: string | null;
  location?: string | null;
  /** The public email, else the primary verified one from `/user/emails`, else null. */
  email: string | null;
  bio?: string | null;
  [key: string]: any;
}

/** Standard OpenID Connect claims most OIDC providers' id_tokens carry. */
export interface OidcClaims {
  iss: string;
  sub: string;
  aud: string | string[];
  exp: number;
  iat: number;
  name?: string;
  given_name?: string;
  family_name?: string;
  email?: string;
  email_verified?: boolean;
  picture?: string;
  [claim: string]: any;
}

/** Google's id_token claims. */
export interface GoogleProfile extends OidcClaims {
  azp: string;
  email: string;
  email_verified: boolean;
  name: string;
  picture: string;
  hd?: string;
  locale?: string;
}

/** Apple's id_token claims, plus the `user` field posted on the first consent. */
export interface AppleProfile extends Omit<OidcClaims, "email_verified"> {
  email: string;
  /** Apple sends booleans or the strings "true"/"false". */
  email_verified: boolean | "true";
  is_private_email?: boolean | "true" | "false";
  real_user_status?: 0 | 1 | 2;
  nonce?: string;
  /** Only on the user's first consent. */
  user?: { name: { firstName: string; lastName: string }; email: string };
}

/** Microsoft Entra ID's id_token claims (v2.0). */
export interface MicrosoftEntraIDProfile extends OidcClaims {
  tid: string;
  oid: string;
  preferred_username?: string;
  ver: "2.0";
  roles?: string[];
}

/** Discord's `/users/@me`; `image_url` is computed as Auth.js does. */
export interface DiscordProfile {
  id: string;
  username: string;
  discriminator: string;
  global_name: string | null;
  avatar: string | null;
  email?: string | null;
  verified?: boolean;
  locale?: string;
  mfa_enabled?: boolean;
  image_url: string;
  [key: string]: any;
}

/** GitLab's `/api/v4/user`. */
export interface GitLabProfile {
  id: number;
  username: string;
  name: string | null;
  email: string;
  avatar_url: string;
  state?: string;
  web_url?: string;
  [key: string]: any;
}

/** X's `/2/users/me` (`user.fields=profile_image_url`). */
export interface TwitterProfile {
  data: {
    id: string;
    name: string;
    username: string;
    email?: string;
    profile_image_url?: string;
    [key: string]: unknown;
  };
  [key: string]: any;
}

/** Facebook's `/me?fields=id,name,email,picture`. */
export interface FacebookProfile {
  id: string;
  name: string;
  email?: string;
  picture: { data: { url: string; width?: number; height?: number; is_silhouette?: boolean } };
  [key: string]: any;
}

/** LinkedIn's id_token claims. */
export interface LinkedInProfile extends OidcClaims {
  name: string;
  given_name: string;
  family_name: string;
  picture: string;
  locale?: string;
  email: string;
  email_verified: boolean;
}

/** Slack's id_token claims. */
export interface SlackProfile extends OidcClaims {
  "https://slack.com/user_id": string;
  "https://slack.com/team_id": string;
  name: string;
  email: string;
  picture: string;
}

/** Twitch's id_token claims (asked with the `claims` parameter). */
export interface TwitchProfile extends OidcClaims {
  preferred_username: string;
  email: string;
  picture: string;
}

/** Spotify's `/v1/me`. */
export interface SpotifyProfile {
  id: string;
  display_name: string;
  email: string;
  images: Array<{ url: string; height?: number | null; width?: number | null }>;
  [key: string]: any;
}

/** Keycloak's id_token claims. */
export interface KeycloakProfile extends OidcClaims {
  preferred_username?: string;
}

/** Auth0's id_token claims. */
export interface Auth0Profile extends OidcClaims {
  nickname?: string;
}

/** Okta's id_token claims. */
export interface OktaProfile extends OidcClaims {
  preferred_username?: string;
  zoneinfo?: string;
}

// ---------------------------------------------------------------- providers

export interface CredentialInput {
  label?: string;
  type?: string;
  placeholder?: string;
  required?: boolean;
  autocomplete?: string;
}

export interface CredentialsConfig<C extends Record<string, CredentialInput> = Record<string, CredentialInput>> {
  type: "credentials";
  id?: string;
  name?: string;
  credentials: C;
  authorize: (credentials: Partial<Record<keyof C, unknown>>, request: Request) => Awaitable<User | null>;
}

export interface OAuthEndpoint {
  url?: string;
  params?: Record<string, unknown>;
}

/** The options of an OAuth 2 / OpenID Connect provider. */
export interface OAuthOptions<P = Profile> {
  id?: string;
  name?: string;
  clientId?: string;
  clientSecret?: string;
  issuer?: string;
  wellKnown?: string;
  authorization?: string | OAuthEndpoint;
  token?: string | OAuthEndpoint;
  userinfo?: string | OAuthEndpoint;
  checks?: Array<"pkce" | "state" | "nonce" | "none">;
  redirectProxyUrl?: string;
  allowDangerousEmailAccountLinking?: boolean;
  style?: Record<string, unknown>;
  /**
   * Maps the provider's profile (user info and/or id_token claims) to the
   * user; `id` is required. Extra fields reach the `jwt` callback's `user`.
   */
  profile?: (profile: P, tokens: TokenSet) => Awaitable<User>;
}

/** The token endpoint's response, as given to a provider's `profile` function. */
export interface TokenSet {
  access_token?: string;
  token_type?: string;
  expires_in?: number;
  expires_at?: number;
  refresh_token?: string;
  scope?: string;
  id_token?: string;
  [key: string]: unknown;
}

/** A generic OAuth 2 / OpenID Connect provider, as data. */
export interface OAuthConfig<P = Profile> extends OAuthOptions<P> {
  type: "oauth" | "oidc";
  id: string;
  [option: string]: unknown;
}

/** Options of a built-in OAuth provider: credentials plus any override. */
export type OAuthUserConfig<P = Profile> = OAuthOptions<P> & { [option: string]: unknown };

/** The built-in TikTok provider as configuration. */
export interface TikTokConfig extends OAuthUserConfig<TikTokProfile> {
  builtin: "tiktok";
}

/** The built-in GitHub provider as configuration. */
export interface GitHubConfig extends OAuthUserConfig<GitHubProfile> {
  builtin: "github";
}

/** A built-in provider other than TikTok and GitHub, as configuration. */
export interface BuiltinConfig<Id extends string, P> extends OAuthUserConfig<P> {
  builtin: Id;
}

/** Google's options: `offlineAccess` asks for a refresh token (`access_type=offline`, `prompt=consent`). */
export type GoogleOptions = OAuthUserConfig<GoogleProfile> & { offlineAccess?: boolean };

/** Apple's options: the `.p8` key the client secret is minted from (or a pre-made `clientSecret`). */
export type AppleOptions = OAuthUserConfig<AppleProfile> & { teamId?: string; keyId?: string; privateKey?: string };

/** GitLab's options: `baseUrl` of a self-managed instance. */
export type GitLabOptions = OAuthUserConfig<GitLabProfile> & { baseUrl?: string };

/** The SMTP server the engine sends the sign-in link through. */
export interface SmtpServerOptions {
  host: string;
  port: number;
  username?: string;
  password?: string;
  /** Defaults to the provider's `from`. */
  from?: string;
  /** `true`/`"tls"`: TLS from the start; `"starttls"`: required STARTTLS; `"none"`: plain text. Default: STARTTLS when it is offered. */
  secure?: boolean | "tls" | "starttls" | "none";
  /** Seconds (up to 600). */
  timeout?: number;
  /** Path of a PEM file of CA certificates to trust besides the built-in (Mozilla) roots, for a server with a privately issued certificate. */
  caFile?: string;
}

/** What `sendVerificationRequest` receives (as in Auth.js). */
export interface SendVerificationRequestParams {
  /** The normalised (lowercased) email address. */
  identifier: string;
  /** The one-time sign-in link. */
  url: string;
  expires: Date;
  token: string;
  provider: { id: string; name: string; type: "email"; from?: string | null; maxAge: number; [key: string]: unknown };
  theme: Theme;
  /** The locale of the request that asked for the link (e.g. `"fr"`), for a localised message. */
  locale: string;
  request: Request;
}

export interface EmailOptions {
  id?: string;
  name?: string;
  /** The sender, e.g. `"Example <no-reply@example.com>"`. */
  from?: string;
  /** Lifetime of a link in seconds (default one day). */
  maxAge?: number;
  /** SMTP delivery by the engine (when there is no `sendVerificationRequest`). */
  server?: SmtpServerOptions;
  sendVerificationRequest?: (params: SendVerificationRequestParams) => Awaitable<void>;
}

export interface EmailConfig extends EmailOptions {
  type: "email";
  [option: string]: unknown;
}

/** Passkey (WebAuthn) options, as Auth.js's Passkey provider takes them. */
export interface PasskeyOptions {
  /** Default `"passkey"`. */
  id?: string;
  /** Default `"Passkey"`. */
  name?: string;
  /** The relying party: `id` (a registrable domain, default the request's host), `name`, `origin`. */
  relayingParty?: { id?: string; name?: string; origin?: string };
  /** Milliseconds the browser gives the user (default 5 minutes). */
  timeout?: number;
  /** Passkey autofill on the built-in sign-in page (conditional UI). */
  enableConditionalUI?: boolean;
  userVerification?: "required" | "preferred";
  /**
   * Who is registering or signing in (as Auth.js's `getUserInfo`): `{ user,
   * exists }`, or null to refuse. Default: the `email` parameter, looked up
   * with the adapter.
   */
  getUserInfo?: (...args: any[]) => Awaitable<{ user: User; exists: boolean } | null>;
}

export interface PasskeyConfig extends PasskeyOptions {
  type: "webauthn";
  id: string;
  name: string;
  [option: string]: unknown;
}

/** What the password provider's `sendEmail` receives. */
export interface PasswordEmailParams {
  /** Which message: a new account's link, a reset link, a notice to an address that has an account, a new address's link, a notice to the old address. */
  kind: "verify-email" | "reset-password" | "account-exists" | "confirm-new-email" | "email-changing";
  to: string;
  /** The link to send (absent for `email-changing`). */
  url?: string | null;
  expires?: Date | null;
  /** For `email-changing`: the address the account is changing to. */
  newEmail?: string | null;
  /** The language of the request that caused the mail (a BCP 47 tag). */
  locale: string;
  provider: { id: string; name: string; type: "password"; from?: string | null };
  request: Request;
}

/** Email + password accounts kept by the engine. */
export interface PasswordOptions {
  /** Default `"password"`. */
  id?: string;
  /** Default `"Password"`. */
  name?: string;
  /** An unverified account cannot sign in (default true). */
  requireEmailVerification?: boolean;
  /** Characters after NFKC normalisation (default 8 and 256). */
  minLength?: number;
  maxLength?: number;
  /** Argon2id costs (default OWASP's: 19456 KiB, 2 iterations, 1 lane). */
  argon2?: { memoryKib?: number; iterations?: number; parallelism?: number };
  /** Hashing jobs at once (default: the cores) and waiting (default 64); past them, 503 with Retry-After. */
  maxConcurrent?: number;
  maxQueued?: number;
  /** Link lifetimes in seconds (default 24 h and 1 h). */
  verificationMaxAge?: number;
  resetMaxAge?: number;
  /** The sender, e.g. `"Example <no-reply@example.com>"`. */
  from?: string;
  /** SMTP delivery by the engine (when there is no `sendEmail`). */
  server?: SmtpServerOptions;
  sendEmail?: (params: PasswordEmailParams) => Awaitable<void>;
  /** Refuse a new password: return a message to show, or null to accept it. */
  checkPassword?: (params: {
    password: string;
    email?: string | null;
    request: Request;
  }) => Awaitable<string | null | undefined>;
}

export interface PasswordConfig extends PasswordOptions {
  type: "password";
  [option: string]: unknown;
}

/** Email + password accounts (id `password`); pages under `{basePath}/password/`. Needs an adapter. */
export declare function Password(options?: PasswordOptions): PasswordConfig;

export type Provider =
  | CredentialsConfig<any>
  | PasswordConfig
  | OAuthConfig<any>
  | TikTokConfig
  | GitHubConfig
  | BuiltinConfig<string, any>
  | EmailConfig
  | PasskeyConfig;

/** Sign in with credentials checked by `authorize`. */
export declare function Credentials<C extends Record<string, CredentialInput>>(options: {
  id?: string;
  name?: string;
  credentials?: C;
  authorize: (credentials: Partial<Record<keyof C, unknown>>, request: Request) => Awaitable<User | null>;
}): CredentialsConfig<C>;

/** TikTok Login Kit (built into the engine, id `tiktok`); `clientId` is the Client Key. */
export declare function TikTok(options?: OAuthUserConfig<TikTokProfile>): TikTokConfig;

/** GitHub (built into the engine, id `github`): name is `name ?? login`, image `avatar_url`. */
export declare function GitHub(options?: OAuthUserConfig<GitHubProfile>): GitHubConfig;

/** Google (built in, id `google`, OIDC). */
export declare function Google(options?: GoogleOptions): BuiltinConfig<"google", GoogleProfile>;
/** Sign in with Apple (built in, id `apple`, OIDC with `form_post`); name from the first consent, else the email. */
export declare function Apple(options?: AppleOptions): BuiltinConfig<"apple", AppleProfile>;
/** Microsoft Entra ID (built in, id `microsoft-entra-id`); `issuer` names the tenant (default `common`). */
export declare function MicrosoftEntraID(
  options?: OAuthUserConfig<MicrosoftEntraIDProfile>,
): BuiltinConfig<"microsoft-entra-id", MicrosoftEntraIDProfile>;
/** Discord (built in, id `discord`): name is `global_name ?? username`. */
export declare function Discord(options?: OAuthUserConfig<DiscordProfile>): BuiltinConfig<"discord", DiscordProfile>;
/** GitLab (built in, id `gitlab`): name is `name ?? username`. */
export declare function GitLab(options?: GitLabOptions): BuiltinConfig<"gitlab", GitLabProfile>;
/** X / Twitter (built in, id `twitter`, PKCE required). */
export declare function Twitter(options?: OAuthUserConfig<TwitterProfile>): BuiltinConfig<"twitter", TwitterProfile>;
/** Facebook (built in, id `facebook`): image is `picture.data.url`. */
export declare function Facebook(
  options?: OAuthUserConfig<FacebookProfile>,
): BuiltinConfig<"facebook", FacebookProfile>;
/** LinkedIn (built in, id `linkedin`, OIDC). */
export declare function LinkedIn(
  options?: OAuthUserConfig<LinkedInProfile>,
): BuiltinConfig<"linkedin", LinkedInProfile>;
/** Sign in with Slack (built in, id `slack`, OIDC). */
export declare function Slack(options?: OAuthUserConfig<SlackProfile>): BuiltinConfig<"slack", SlackProfile>;
/** Twitch (built in, id `twitch`, OIDC): name is `preferred_username`. */
export declare function Twitch(options?: OAuthUserConfig<TwitchProfile>): BuiltinConfig<"twitch", TwitchProfile>;
/** Spotify (built in, id `spotify`): name is `display_name`, image the first of `images`. */
export declare function Spotify(options?: OAuthUserConfig<SpotifyProfile>): BuiltinConfig<"spotify", SpotifyProfile>;
/** Keycloak (built in, id `keycloak`, OIDC): `issuer` is the realm's. */
export declare function Keycloak(
  options?: OAuthUserConfig<KeycloakProfile>,
): BuiltinConfig<"keycloak", KeycloakProfile>;
/** Auth0 (built in, id `auth0`, OIDC): `issuer` is the tenant's. */
export declare function Auth0(options?: OAuthUserConfig<Auth0Profile>): BuiltinConfig<"auth0", Auth0Profile>;
/** Okta (built in, id `okta`, OIDC): `issuer` is the org's or an authorization server's. */
export declare function Okta(options?: OAuthUserConfig<OktaProfile>): BuiltinConfig<"okta", OktaProfile>;

/** Magic-link sign-in by email (an adapter is required): `server` or `sendVerificationRequest`. */
export declare function Email(options: EmailOptions): EmailConfig;

/**
 * Passkeys (WebAuthn, id `passkey`): needs `experimental: { enableWebAuthn: true }`
 * and an adapter that stores passkeys. The browser side is `libauth/webauthn`.
 */
export declare function Passkey(options?: PasskeyOptions): PasskeyConfig;

// ---------------------------------------------------------------- adapters

/** Auth.js's database adapter interface, implemented in JavaScript. */
export interface Adapter {
  createUser?(user: AdapterUser): Awaitable<AdapterUser>;
  getUser?(id: string): Awaitable<AdapterUser | null>;
  getUserByEmail?(email: string): Awaitable<AdapterUser | null>;
  getUserByAccount?(account: Pick<AdapterAccount, "provider" | "providerAccountId">): Awaitable<AdapterUser | null>;
  updateUser?(user: Partial<AdapterUser> & Pick<AdapterUser, "id">): Awaitable<AdapterUser>;
  deleteUser?(userId: string): Awaitable<AdapterUser | null | undefined | void>;
  linkAccount?(account: AdapterAccount): Awaitable<AdapterAccount | null | undefined | void>;
  unlinkAccount?(
    account: Pick<AdapterAccount, "provider" | "providerAccountId">,
  ): Awaitable<AdapterAccount | undefined | void>;
  createSession?(session: AdapterSession): Awaitable<AdapterSession>;
  getSessionAndUser?(sessionToken: string): Awaitable<{ session: AdapterSession; user: AdapterUser } | null>;
  updateSession?(
    session: Partial<AdapterSession> & Pick<AdapterSession, "sessionToken">,
  ): Awaitable<AdapterSession | null | undefined | void>;
  deleteSession?(sessionToken: string): Awaitable<AdapterSession | null | undefined | void>;
  createVerificationToken?(token: VerificationToken): Awaitable<VerificationToken | null | undefined | void>;
  useVerificationToken?(params: { identifier: string; token: string }): Awaitable<VerificationToken | null>;
  /** Passkeys: the first four are needed with a `webauthn` provider. */
  getAuthenticator?(credentialID: string): Awaitable<AdapterAuthenticator | null>;
  createAuthenticator?(authenticator: AdapterAuthenticator): Awaitable<AdapterAuthenticator | null | undefined | void>;
  listAuthenticatorsByUserId?(userId: string): Awaitable<AdapterAuthenticator[]>;
  /** `lastUsedAt` is libauth's addition to Auth.js's method. */
  updateAuthenticatorCounter?(
    credentialID: string,
    newCounter: number,
    lastUsedAt: Date,
  ): Awaitable<AdapterAuthenticator | null>;
  /** libauth's: set or (with `null`) clear a passkey's name; `null` when there is no such passkey. */
  renameAuthenticator?(credentialID: string, name: string | null): Awaitable<AdapterAuthenticator | null>;
  /** libauth's: delete and return a passkey; `null` when there was none. */
  deleteAuthenticator?(credentialID: string): Awaitable<AdapterAuthenticator | null>;
}

/** A built-in adapter of the engine, by name. */
export type BuiltinAdapter = { type: "sqlite"; path: string } | { type: "postgres"; url: string } | { type: "memory" };

// ---------------------------------------------------------------- config

export interface CookieOption {
  name?: string;
  options?: {
    httpOnly?: boolean;
    sameSite?: "lax" | "strict" | "none" | string;
    path?: string;
    secure?: boolean;
    domain?: string;
    maxAge?: number;
  };
}

export interface CookiesOptions {
  sessionToken?: CookieOption;
  callbackUrl?: CookieOption;
  csrfToken?: CookieOption;
  pkceCodeVerifier?: CookieOption;
  state?: CookieOption;
  nonce?: CookieOption;
  webauthnChallenge?: CookieOption;
}

export interface Theme {
  colorScheme?: "auto" | "dark" | "light";
  logo?: string;
  brandColor?: string;
  buttonText?: string;
}

/** The built-in pages' and sign-in email's language (docs/i18n.md). */
export interface I18nOptions {
  /** When the request names no offered locale; `"en"` by default. */
  defaultLocale?: string;
  /** The locales offered (built-in tags, e.g. `["en", "fr", "ar"]`); all of them by default. */
  locales?: string[];
  /** Per-locale message overrides: `{ fr: { "signin-heading": "Bienvenue" } }`. */
  messages?: Record<string, Record<string, string>>;
  /** The steps that choose a request's locale, in order; all five, in this order, by default. */
  resolve?: Array<"query" | "cookie" | "user" | "uiLocales" | "acceptLanguage">;
}

export interface PagesOptions {
  signIn?: string;
  signOut?: string;
  error?: string;
  verifyRequest?: string;
  newUser?: string;
}

export interface JWTEncodeParams {
  token: JWT;
  secret: string | string[];
  salt: string;
  maxAge?: number;
}

export interface JWTDecodeParams {
  token?: string;
  secret: string | string[];
  salt: string;
}

export interface JWTOptions {
  maxAge?: number;
  encode?: (params: JWTEncodeParams) => Awaitable<string>;
  decode?: (params: JWTDecodeParams) => Awaitable<JWT | null>;
}

export interface SessionOptions {
  strategy?: "jwt" | "database";
  /** Seconds; default 2592000 (30 days). */
  maxAge?: number;
  /** Seconds; default 86400 (1 day); 0 updates on every access. */
  updateAge?: number;
  /** Database strategy: the session cookie's value (at least 16 characters; default a random UUID). */
  generateSessionToken?: () => Awaitable<string>;
  /**
   * JWT strategy: the engine's cache of decrypted session cookies (a repeated
   * cookie is not decrypted again; expiry and callbacks still run on every
   * read). On by default (1024 entries, 4 MiB); `false` turns it off.
   */
  cache?: boolean | { maxEntries?: number; maxBytes?: number };
  /**
   * JWT strategy: end sessions before they expire (sign out everywhere, a
   * password change or reset). Each engine trusts a user's sign-out time for
   * `interval` seconds (default 60) and remembers `maxUsers` users (default
   * 10000). On by default where the adapter keeps sign-out times; `false`
   * turns it off.
   */
  revocationCheck?: boolean | { interval?: number; maxUsers?: number };
}

export interface CallbacksOptions {
  signIn?: (params: {
    user: User | AdapterUser;
    account: Account | null;
    profile?: Profile;
    email?: { verificationRequest?: boolean };
    credentials?: Record<string, unknown>;
  }) => Awaitable<boolean | string>;
  redirect?: (params: { url: string; baseUrl: string }) => Awaitable<string>;
  jwt?: (params: {
    token: JWT;
    user: User | AdapterUser;
    account: Account | null;
    profile?: Profile;
    trigger?: "signIn" | "signUp" | "update";
    /** @deprecated use `trigger === "signUp"` */
    isNewUser?: boolean;
    session?: any;
  }) => Awaitable<JWT | null>;
  session?: (params: {
    session: Session;
    token: JWT;
    user: AdapterUser;
    newSession?: any;
    trigger?: "update";
  }) => Awaitable<Session | DefaultSession>;
}

export interface EventsOptions {
  signIn?: (message: {
    user: User;
    account: Account | null;
    profile?: Profile;
    isNewUser?: boolean;
  }) => Awaitable<void>;
  signOut?: (message: { session: AdapterSession | null | undefined | void } | { token: JWT | null }) => Awaitable<void>;
  createUser?: (message: { user: User }) => Awaitable<void>;
  updateUser?: (message: { user: User }) => Awaitable<void>;
  linkAccount?: (message: {
    user: User | AdapterUser;
    account: Account;
    profile: User | AdapterUser;
  }) => Awaitable<void>;
  session?: (message: { session: Session; token: JWT }) => Awaitable<void>;
  /** A password account's address was proven by its link. */
  emailVerified?: (message: { user: AdapterUser }) => Awaitable<void>;
  /** A password was set through a reset link (every session of the user ended). */
  passwordReset?: (message: { user: AdapterUser }) => Awaitable<void>;
  /** A signed-in user changed their password. */
  passwordChanged?: (message: { user: AdapterUser }) => Awaitable<void>;
  /** A user's address changed, proven at the new one. */
  emailChanged?: (message: { user: AdapterUser; previousEmail: string | null }) => Awaitable<void>;
  /** A user deleted their own account. */
  accountDeleted?: (message: { user: AdapterUser }) => Awaitable<void>;
  /** Sessions of a user were ended from their list, by the server or a password change; with JWT sessions `ended` is 0 and every session signed in to before `before` (ISO 8601) ended. */
  sessionsEnded?: (message: {
    userId: string;
    ended: number;
    scope: "one" | "others" | "all";
    before?: string;
  }) => Awaitable<void>;
  /** A user turned a TOTP second factor on. */
  twoFactorEnabled?: (message: { userId: string }) => Awaitable<void>;
  /** A user turned it off. */
  twoFactorDisabled?: (message: { userId: string }) => Awaitable<void>;
  /** A recovery code was used; `left` are still unused. */
  recoveryCodeUsed?: (message: { userId: string; left: number }) => Awaitable<void>;
  /** A request a rate limit refused; `key` is `ip:<address or /64>` or `id:<hash>` (never the username or email). */
  refreshTokenRevoked?: (message: { userId: string; provider: string; providerAccountId: string }) => Awaitable<void>;
  rateLimited?: (message: {
    route:
      | "credentials"
      | "email"
      | "callback"
      | "passkey"
      | "signUp"
      | "passwordReset"
      | "passwordToken"
      | "twoFactor";
    key: string;
    limit: number;
    window: number;
    retryAfter: number;
  }) => Awaitable<void>;
}

export interface LoggerInstance {
  error?: (error: Error & { type?: string }) => void;
  warn?: (code: string, message?: string) => void;
  debug?: (message: string, metadata?: unknown) => void;
}

/** The configuration object; the server adapter's. */
export interface AuthConfig {
  providers?: Array<Provider | ((options?: any) => Provider)>;
  adapter?: Adapter | BuiltinAdapter;
  /** `/auth` by default (or where the middleware is mounted). */
  basePath?: string;
  callbacks?: CallbacksOptions;
  events?: EventsOptions;
  cookies?: CookiesOptions;
  debug?: boolean;
  experimental?: { enableWebAuthn?: boolean };
  jwt?: JWTOptions;
  logger?: LoggerInstance;
  pages?: PagesOptions;
  redirectProxyUrl?: string;
  /** At least 32 characters; `AUTH_SECRET` when absent. A list rotates secrets. */
  secret?: string | string[];
  session?: SessionOptions;
  skipCSRFCheck?: unknown;
  theme?: Theme;
  /** The built-in pages' and sign-in email's language. */
  i18n?: I18nOptions;
  trustHost?: boolean;
  useSecureCookies?: boolean;
  /**
   * Rate limits, on by default: failed credentials sign-ins per username and
   * per client IP, magic links per address and per IP, provider callbacks per
   * IP. `false` turns them off; each route takes `{ window, max, maxPerIp }`
   * (seconds, counts) or `false`.
   */
  rateLimit?: false | RateLimitOptions;
  /** Proxies (CIDR ranges or addresses) whose forwarding header is believed. None by default. */
  trustedProxies?: string[];
  /**
   * The one header `trustedProxies` write the client's address in (default `"x-forwarded-for"`);
   * the other is never read, since a proxy passes it through as the client wrote it.
   */
  forwardedHeader?: "x-forwarded-for" | "forwarded";
  /** When `getAccessToken` refreshes: a token expiring within `skew` seconds (60); a call waits at most `wait` seconds (10) for a refresh already running. */
  tokenRefresh?: { skew?: number; wait?: number };
  /** Second factors: the name authenticator apps show (default the host of `AUTH_URL`) and the TOTP profile (SHA1, 6 digits, 30 s by default). */
  twoFactor?: {
    issuer?: string;
    totp?: { algorithm?: "SHA1" | "SHA256" | "SHA512"; digits?: 6 | 7 | 8; period?: number };
    /** The first factors after which a user with a second factor is asked for it (all by default). */
    signIn?: Array<"password" | "credentials" | "oauth" | "email" | "passkey">;
    /** How long a browser the user trusts skips the second step (`maxAge` seconds, 30 days by default); `false`: never offered. */
    trustedDevice?: boolean | { maxAge?: number };
  };
  /** Store provider access, refresh and id tokens encrypted (AES-256-GCM, key from the secret). Needs an adapter. */
  encryptTokens?: boolean;
  /** Database sessions and email verification tokens in Redis (with TTLs), users and accounts in the adapter. Needs an adapter. */
  secondaryStorage?: { type: "redis" } & RedisStoreOptions;
  /** The canonical URL of the deployment; `AUTH_URL` when absent. */
  url?: string;
}

/** The reactive adapter's configuration: `prefix` is its base path. */
export interface ReactiveAuthConfig extends AuthConfig {
  /** Default `/api/auth`. */
  prefix?: string;
  raw?: unknown;
}

export type GetSessionResult = Promise<Session | null>;

// ---------------------------------------------------------------- adapters

/** Express-style request: what the server adapter reads. */
export type ServerRequest = IncomingMessage & {
  originalUrl?: string;
  protocol?: string;
  body?: unknown;
  app?: { get(name: string): any };
};

export type ServerMiddleware = (req: any, res: ServerResponse | any, next: (err?: unknown) => void) => Promise<void>;

/**
 * Express middleware for every auth route: `app.use("/auth", ServerAuth(config))`,
 * or a wildcard mount (`"/auth/*"` on Express 4, `"/auth/*splat"` or `"/auth/{*any}"` on Express 5).
 */
export declare function ServerAuth(config: Omit<AuthConfig, "raw">): ServerMiddleware;

/** An event that carries a Web Request (SolidStart's APIEvent). */
export interface RequestEvent {
  request: Request;
  [key: string]: unknown;
}

export type ReactiveHandler = (event: RequestEvent | any) => Promise<Response | undefined>;

/** `{ GET, POST }` for a catch-all route under `prefix` (default `/api/auth`). */
export declare function ReactiveAuth(config: ReactiveAuthConfig): { GET: ReactiveHandler; POST: ReactiveHandler };

/**
 * The session of a request, or null. With an Express request and the config
 * given to `ServerAuth`; with a Web Request (or an event carrying one) and
 * the config given to `ReactiveAuth`.
 */
export declare function getSession(
  req: ServerRequest | IncomingMessage,
  config: Omit<AuthConfig, "raw">,
): GetSessionResult;
export declare function getSession(
  req: Request | RequestEvent,
  options: Omit<ReactiveAuthConfig, "raw">,
): GetSessionResult;

/** What `signIn` / `signOut` resolve to: set each cookie on the response, then redirect to `url`. */
export interface ActionResult {
  /** The callback URL, the provider's authorization URL, or the verify-request page. */
  url: string;
  /** `Set-Cookie` header values, in order. */
  cookies: string[];
}

/**
 * Sign in from a form action handled on the server (an Express route, a
 * SolidStart `action`): `fields` are what the form submitted (`callbackUrl`
 * or `redirectTo` names where to go after). No CSRF token is asked for: the
 * host's own form protection applies. A refusal is thrown, never redirected:
 * `CredentialsSignin` with its `code`, or an `AuthError` with its `type`
 * (`AccessDenied`, …). `request` is the host's request, read for its URL
 * and cookies.
 */
export declare function signIn(
  provider: string | undefined,
  fields: FormData | URLSearchParams | Record<string, unknown> | null | undefined,
  request: ServerRequest | IncomingMessage | Request | RequestEvent,
  config: Omit<ReactiveAuthConfig, "raw">,
): Promise<ActionResult>;

/** The fields of a password-account step called from server code. */
export interface PasswordActionFields {
  signUp: { email: string; password: string; name?: string; callbackUrl?: string };
  requestPasswordReset: { email: string };
  resetPassword: { token: string; email: string; password: string };
  changePassword: { currentPassword: string; newPassword: string };
  changeEmail: { currentPassword: string; newEmail: string };
  deleteAccount: { currentPassword: string };
}

type PasswordActionCall<K extends keyof PasswordActionFields> = (
  fields: PasswordActionFields[K] | FormData | URLSearchParams,
  request: ServerRequest | IncomingMessage | Request | RequestEvent,
  config: Omit<ReactiveAuthConfig, "raw">,
) => Promise<ActionResult>;

/**
 * The password provider's steps from server code (a form of your own), with
 * the fields its built-in forms post; each resolves to `{ url, cookies }` as
 * `signIn` does, or rejects with `PasswordRefused`, `InvalidEmail`,
 * `CredentialsSignin` (a wrong current password), `Verification` (a bad
 * reset token) or `RateLimited`. The account steps act for the request's
 * signed-in user. No CSRF token: the host's own form protection applies.
 */
export declare const signUp: PasswordActionCall<"signUp">;
export declare const requestPasswordReset: PasswordActionCall<"requestPasswordReset">;
export declare const resetPassword: PasswordActionCall<"resetPassword">;
export declare const changePassword: PasswordActionCall<"changePassword">;
export declare const changeEmail: PasswordActionCall<"changeEmail">;
export declare const deleteAccount: PasswordActionCall<"deleteAccount">;

/**
 * End the session of `request` (its database row too); resolves to the
 * cookies that clear it and where to go: as the sign-out route, the
 * request's `callbackUrl` query parameter, else the callback-url cookie,
 * else the origin.
 */
export declare function signOut(
  request: ServerRequest | IncomingMessage | Request | RequestEvent,
  config: Omit<ReactiveAuthConfig, "raw">,
): Promise<ActionResult>;

/**
 * The account `userId` linked with `provider` as the adapter stored it,
 * tokens included (`access_token`, `refresh_token`, `expires_at` in unix
 * seconds, `scope`), or null. For server code calling the provider's API:
 * never send the tokens to the browser. Needs a built-in adapter (SQLite,
 * PostgreSQL or memory); a JS adapter object cannot read accounts yet.
 */
export declare function getAccount(
  userId: string,
  provider: string,
  config: Omit<AuthConfig, "raw">,
): Promise<AdapterAccount | null>;

/**
 * Refresh that account's access token with its refresh token at the
 * provider, store the new tokens (a rotated refresh token replaces the old
 * one) and resolve to the updated account (null when there is no such
 * account). Rejects with an `AuthError` when there is no refresh token or
 * the provider refuses it.
 */
export declare function refreshAccount(
  userId: string,
  provider: string,
  config: Omit<AuthConfig, "raw">,
): Promise<AdapterAccount | null>;

/** A valid access token for a stored provider account (`getAccessToken`). */
export interface AccessToken {
  accessToken: string;
  /** Unix seconds, when the provider said. */
  expiresAt?: number;
  tokenType?: string;
  scope?: string;
}

/**
 * A valid access token for the user's account with `provider`, refreshed
 * first when it expires within `tokenRefresh.skew` (60 s) — once, however
 * many calls ask at the same time (and across processes with a shared
 * rate-limit store). Null when not linked. A refresh token the provider
 * refused rejects with an AuthError of type `RefreshTokenRevoked`.
 */
export declare function getAccessToken(
  userId: string,
  provider: string,
  config: Omit<AuthConfig, "raw">,
): Promise<AccessToken | null>;
/** A passkey as its owner sees it (never the key). */
export interface Passkey {
  /** The credential id, base64url. */
  id: string;
  name: string | null;
  /** ISO 8601. */
  createdAt: string | null;
  lastUsedAt: string | null;
  deviceType: "singleDevice" | "multiDevice" | string;
  backedUp: boolean;
  transports: string[];
}

/** The user's passkeys, oldest first. */
export declare function listPasskeys(userId: string, config: Omit<AuthConfig, "raw">): Promise<Passkey[]>;

/** Name one of the user's passkeys (`null` clears the name). */
export declare function renamePasskey(
  userId: string,
  passkeyId: string,
  name: string | null,
  config: Omit<AuthConfig, "raw">,
): Promise<Passkey>;

/** Delete one of the user's passkeys; rejects with `LastSignInMethod` for their last way to sign in. */
export declare function deletePasskey(
  userId: string,
  passkeyId: string,
  config: Omit<AuthConfig, "raw">,
): Promise<void>;

/** One of the user's database sessions as its owner sees it (never a token). */
export interface UserSession {
  /** Names the session for `endSession` (a hash: it signs no one in). */
  id: string;
  /** ISO 8601; `null` for a session made before libauth recorded it. */
  createdAt: string | null;
  /** ISO 8601, to within `session.updateAge`. */
  lastActiveAt: string;
  expires: string;
  userAgent: string | null;
  /** A readable browser and system, e.g. "Firefox on Linux". */
  device: string | null;
  /** The client's network (/24 or /48), never its whole address. */
  ip: string | null;
  /** Whether it is the session of the request passed in. */
  current: boolean;
}

/** A request whose session cookie says which session is the caller's. */
export type SessionRequest = ServerRequest | IncomingMessage | Request | RequestEvent;

/** The user's database sessions, the current one first; rejects with `UnsupportedStrategy` for JWT sessions. */
export declare function listSessions(
  userId: string,
  config: Omit<AuthConfig, "raw">,
  request?: SessionRequest,
): Promise<UserSession[]>;

/** End one of the user's sessions by its listed id; rejects with `SessionTokenError` when it is not theirs. */
export declare function endSession(userId: string, sessionId: string, config: Omit<AuthConfig, "raw">): Promise<void>;

/** End every database session of the user but the one `request` carries; how many ended (JWT sessions: use the `sessions` route, which re-issues the caller's cookie). */
export declare function endOtherSessions(
  userId: string,
  request: SessionRequest,
  config: Omit<AuthConfig, "raw">,
): Promise<number>;

/** End every session of the user (sign out everywhere); how many stored sessions ended (0 with JWT sessions, which end by a sign-out time). */
export declare function endAllSessions(userId: string, config: Omit<AuthConfig, "raw">): Promise<number>;

/** A user's second factor. */
export interface TwoFactorStatus {
  enabled: boolean;
  /** An enrolment waits for its first code. */
  pending: boolean;
  /** ISO 8601, or `null` when off. */
  enabledAt: string | null;
  recoveryCodesLeft: number;
}

/** What to show the user to add the authenticator: the `otpauth://` URI, its QR code (SVG) and the base32 secret. */
export interface TotpEnrolment {
  uri: string;
  secret: string;
  qrSvg: string;
}

/** The user's second factor. */
export declare function twoFactorStatus(userId: string, config: Omit<AuthConfig, "raw">): Promise<TwoFactorStatus>;

/** Start turning TOTP on (`label`: what the app shows); rejects with `TwoFactorError` while it is on. */
export declare function beginTotp(
  userId: string,
  label: string,
  config: Omit<AuthConfig, "raw">,
): Promise<TotpEnrolment>;

/** Turn TOTP on with the app's first code: the ten recovery codes, to show once; `TwoFactorError` for a wrong code. */
export declare function confirmTotp(userId: string, code: string, config: Omit<AuthConfig, "raw">): Promise<string[]>;

/** Check a code from the app or a recovery code (used up); each is accepted once; `TwoFactorError` otherwise. */
export declare function verifySecondFactor(
  userId: string,
  code: string,
  config: Omit<AuthConfig, "raw">,
): Promise<"totp" | "recoveryCode">;

/** New recovery codes after a code (the unused ones stop working). */
export declare function regenerateRecoveryCodes(
  userId: string,
  code: string,
  config: Omit<AuthConfig, "raw">,
): Promise<string[]>;

/** Turn TOTP off after a code from the app or a recovery code. */
export declare function disableTotp(userId: string, code: string, config: Omit<AuthConfig, "raw">): Promise<void>;

// ---------------------------------------------------------------- errors

export type ErrorType =
  | "AccessDenied"
  | "AccountNotLinked"
  | "AdapterError"
  | "AuthError"
  | "CallbackRouteError"
  | "Configuration"
  | "CredentialsSignin"
  | "EmailSignInError"
  | "ErrorPageLoop"
  | "EventError"
  | "InvalidCallbackUrl"
  | "InvalidCheck"
  | "InvalidEndpoints"
  | "InvalidProviderType"
  | "JWTSessionError"
  | "MissingAdapter"
  | "MissingAdapterMethods"
  | "MissingAuthorize"
  | "MissingCSRF"
  | "MissingSecret"
  | "OAuthAccountNotLinked"
  | "OAuthCallbackError"
  | "OAuthProfileParseError"
  | "OAuthSignInError"
  | "SessionTokenError"
  | "SignOutError"
  | "UnknownAction"
  | "UnsupportedStrategy"
  | "UntrustedHost"
  | "Verification"
  | "Overloaded"
  | "RateLimited"
  | "RefreshTokenRevoked"
  | "WebAuthnVerificationError"
  | "ExperimentalFeatureNotEnabled"
  | "LastSignInMethod"
  | "PasswordRefused"
  | "InvalidEmail"
  | "TwoFactorError";

/** Base class of libauth's errors. */
export declare class AuthError extends Error {
  static type: string;
  type: ErrorType | string;
  cause?: Record<string, unknown> & { err?: Error };
  constructor(message?: string | ErrorOptions, errorOptions?: ErrorOptions);
}

/** Throw from `authorize` to refuse a sign-in; `code` goes into the redirect URL. */
export declare class CredentialsSignin extends AuthError {
  static type: "CredentialsSignin";
  code: string;
  constructor(message?: string, errorOptions?: ErrorOptions);
}

/**
 * A configuration the engine refused: `option` names the option (or the
 * misspelt hook, e.g. `callbacks.sesion`), `type` says what is wrong
 * (`MissingSecret`, `MissingAuthorize`, `MissingAdapter`, …, or
 * `Configuration`).
 */
export declare class InvalidConfig extends AuthError {
  option: string;
  constructor(option: string, message: string, type?: ErrorType);
}

/** Worker threads the addon has started (0 until a request needs one). */
export declare function workerThreads(): number;

/** One route's rate limit: `max` per identifier, `maxPerIp` per client IP, per `window` seconds. */
export interface RateLimitRule {
  window?: number;
  max?: number;
  maxPerIp?: number;
}

/** `rateLimit`: defaults for every route (`window`, `max`), and each route's own rule or `false`. */
export interface RateLimitOptions {
  window?: number;
  max?: number;
  credentials?: false | RateLimitRule;
  email?: false | RateLimitRule;
  callback?: false | RateLimitRule;
  /** Passkey options and verification (per email and per IP). */
  passkey?: false | RateLimitRule;
  /** Password sign-ups, per IP (default 10 an hour). */
  signUp?: false | RateLimitRule;
  /** Reset and verification links mailed on request, per address and per IP (default 3 and 20 an hour). */
  passwordReset?: false | RateLimitRule;
  /** Uses of the password provider's links, per IP (default 30 per 10 minutes). */
  passwordToken?: false | RateLimitRule;
  /** Codes at a sign-in's second step, per user (default 5 wrong codes per 5 minutes). */
  twoFactor?: false | RateLimitRule;
  /** Where counts live: in memory (the default, one process) or shared by many server processes. See docs/scale-out.md. */
  store?: RateLimitStore;
}

/** Connection options of a Redis store: `redis://` or `rediss://` (TLS) URL, a bound on every connect and command (seconds, default 1). */
export interface RedisStoreOptions {
  url: string;
  timeout?: number;
  poolSize?: number;
  /** PEM file of the CA to verify a `rediss://` server with, instead of the system's. */
  caFile?: string;
  /** Default `libauth:`. */
  keyPrefix?: string;
}

/** `rateLimit.store`. `failClosed`: the routes refused while the store fails (default `["credentials"]`; `true` all, `false` none). */
export type RateLimitStore = { failClosed?: boolean | ("credentials" | "email" | "callback" | "passkey")[] } & (
  | {
      type: "memory" /** At most this many keys (default 100000); a key at its limit is never dropped to make room. */;
      maxKeys?: number;
    }
  | { type: "database" }
  | { type: "sqlite"; path: string }
  | { type: "postgres"; url: string; poolSize?: number; schema?: string; connectTimeout?: number }
  | ({ type: "redis" } & RedisStoreOptions)
);
