// Compiled by `tsc --noEmit` in test/types.test.mjs: every exported function
// and type used the way the README and docs/node.md show.
import express from "express";
import {
  ServerAuth,
  ReactiveAuth,
  getSession,
  signIn,
  signOut,
  getAccount,
  refreshAccount,
  listSessions,
  endSession,
  endOtherSessions,
  endAllSessions,
  twoFactorStatus,
  beginTotp,
  confirmTotp,
  verifySecondFactor,
  regenerateRecoveryCodes,
  disableTotp,
  Credentials,
  TikTok,
  GitHub,
  Google,
  Apple,
  MicrosoftEntraID,
  Discord,
  GitLab,
  Twitter,
  Facebook,
  LinkedIn,
  Slack,
  Twitch,
  Spotify,
  Keycloak,
  Auth0,
  Okta,
  Email,
  Passkey,
  AuthError,
  CredentialsSignin,
  InvalidConfig,
  workerThreads,
  type ActionResult,
  type AuthConfig,
  type ReactiveAuthConfig,
  type Session,
  type User,
  type Account,
  type Profile,
  type JWT,
  type TikTokProfile,
  type GitHubProfile,
  type AppleProfile,
  type DiscordProfile,
  type SpotifyProfile,
  type MicrosoftEntraIDProfile,
  type Adapter,
  type AdapterUser,
  type ErrorType,
  type EmailConfig,
  type PasskeyConfig,
  type SendVerificationRequestParams,
  type SmtpServerOptions,
  type TokenSet,
  type JWTEncodeParams,
  type JWTDecodeParams,
  type UserSession,
  type TwoFactorStatus,
  type TotpEnrolment,
} from "libauth";

class InvalidLogin extends CredentialsSignin {
  code = "invalid_login";
}

const adapter: Adapter = {
  async createUser(user: AdapterUser) {
    return user;
  },
  async getUser(id: string) {
    return id === "1" ? { id, email: "a@b.c", emailVerified: null } : null;
  },
};

export const config: AuthConfig = {
  secret: process.env.AUTH_SECRET,
  trustHost: true,
  i18n: {
    defaultLocale: "fr",
    locales: ["fr", "en"],
    messages: { fr: { "signin-heading": "Bienvenue" } },
    resolve: ["user", "query", "acceptLanguage"],
  },
  providers: [
    Credentials({
      credentials: { username: { label: "Username" }, password: { label: "Password", type: "password" } },
      async authorize(credentials, request: Request) {
        if (credentials.username === "ada" && request.method === "POST") return { id: "1", name: "Ada" } satisfies User;
        throw new InvalidLogin();
      },
    }),
    TikTok({ clientId: process.env.AUTH_TIKTOK_ID, clientSecret: process.env.AUTH_TIKTOK_SECRET }),
    TikTok({
      clientId: "key",
      clientSecret: "secret",
      authorization: {
        url: "http://127.0.0.1:4010/v2/auth/authorize/",
        params: { scope: "user.info.basic,user.info.profile" },
      },
      profile(profile: TikTokProfile) {
        return {
          id: profile.data.user.open_id,
          name: profile.data.user.display_name,
          image: profile.data.user.avatar_url,
          email: null,
        };
      },
    }),
    GitHub({ clientId: process.env.AUTH_GITHUB_ID, clientSecret: process.env.AUTH_GITHUB_SECRET }),
    GitHub({
      userinfo: "http://127.0.0.1:4012/user",
      profile(profile: GitHubProfile) {
        return {
          id: String(profile.id),
          name: profile.name ?? profile.login,
          email: profile.email,
          image: profile.avatar_url,
        };
      },
    }),
    Google({ offlineAccess: true }),
    Apple({ clientId: "com.example.web", teamId: "TEAM", keyId: "KEY", privateKey: "-----BEGIN PRIVATE KEY-----" }),
    Apple({
      profile(profile: AppleProfile) {
        const name = profile.user ? `${profile.user.name.firstName} ${profile.user.name.lastName}` : profile.email;
        return { id: profile.sub, name, email: profile.email, image: null };
      },
    }),
    MicrosoftEntraID({
      issuer: "https://login.microsoftonline.com/72f988bf-86f1-41af-91ab-2d7cd011db47/v2.0",
      profile: (p: MicrosoftEntraIDProfile) => ({
        id: p.sub,
        name: p.name ?? null,
        email: p.email ?? null,
        image: null,
      }),
    }),
    Discord({ profile: (p: DiscordProfile) => ({ id: p.id, name: p.global_name ?? p.username, image: p.image_url }) }),
    GitLab({ baseUrl: "https://gitlab.example.com" }),
    Twitter(),
    Facebook(),
    LinkedIn(),
    Slack(),
    Twitch(),
    Spotify({ profile: (p: SpotifyProfile) => ({ id: p.id, name: p.display_name, image: p.images[0]?.url }) }),
    Keycloak({ issuer: "https://kc.example.com/realms/myrealm" }),
    Auth0({ issuer: "https://example.us.auth0.com" }),
    Okta({ issuer: "https://example.okta.com/oauth2/default" }),
    { type: "oidc", id: "op", issuer: "http://127.0.0.1:4011", clientId: "c", clientSecret: "s" },
    Email({ sendVerificationRequest: async ({ identifier, url }) => void [identifier, url] }),
    Email({
      id: "magic",
      name: "Magic link",
      maxAge: 600,
      async sendVerificationRequest({
        identifier,
        url,
        expires,
        token,
        provider,
        theme,
        locale,
        request,
      }: SendVerificationRequestParams) {
        const when: Date = expires;
        const method: string = request.method;
        void [
          identifier,
          new URL(url).searchParams.get("token") === token,
          when.toISOString(),
          provider.id,
          provider.maxAge,
          theme.brandColor,
          locale.toUpperCase(),
          method,
        ];
      },
    }),
    Email({ server: { host: "127.0.0.1", port: 2525 }, from: "Example <no-reply@example.com>" }),
    Email({
      server: { host: "smtp.example.com", port: 465, username: "u", password: "p", secure: true, timeout: 10 },
      from: "a@example.com",
    }),
    TikTok({
      profile: async (profile, tokens: TokenSet) => {
        const accessToken: string | undefined = tokens.access_token;
        return {
          id: profile.data.user.open_id,
          name: `${profile.data.user.display_name} (TikTok)`,
          email: null,
          extra: accessToken?.length,
        };
      },
    }),
  ],
  adapter,
  session: {
    strategy: "jwt",
    maxAge: 3600,
    updateAge: 0,
    cache: { maxEntries: 4096, maxBytes: 8 << 20 },
    revocationCheck: { interval: 10, maxUsers: 50_000 },
  },
  jwt: {
    maxAge: 3600,
    encode: ({ token, secret, salt, maxAge }: JWTEncodeParams) =>
      `${salt}.${String(secret).length}.${maxAge}.${Buffer.from(JSON.stringify(token)).toString("base64url")}`,
    async decode({ token, secret, salt }: JWTDecodeParams) {
      if (!token || !salt || !secret) return null;
      const claims: JWT = JSON.parse(Buffer.from(token.split(".").pop() ?? "", "base64url").toString());
      return claims;
    },
  },
  callbacks: {
    async signIn({ user, account, profile, credentials }) {
      const a: Account | null = account;
      const p: Profile | undefined = profile;
      return Boolean(user.email || a || p || credentials);
    },
    async jwt({ token, trigger, session }) {
      const t: JWT = token;
      if (trigger === "update") t.name = session?.name;
      return t;
    },
    async session({ session, token }) {
      return { ...session, role: token.role };
    },
    redirect: ({ url, baseUrl }) => (url.startsWith(baseUrl) ? url : baseUrl),
  },
  events: {
    async signIn({ user }) {
      void user.email;
    },
    async signOut(message) {
      void ("token" in message ? message.token?.sub : message.session);
    },
  },
  logger: { error: (e) => void e.type, warn: (code) => void code, debug: (m, meta) => void [m, meta] },
  pages: { signIn: "/login" },
};

const app = express();
app.set("trust proxy", true);
app.use("/auth", ServerAuth(config));
app.use("/auth/*splat", ServerAuth({ ...config, basePath: "/auth" }));
app.use(async (req, res, next) => {
  res.locals.session = await getSession(req, config);
  next();
});
app.get("/dashboard", async (req, res) => {
  const session: Session | null = await getSession(req, config);
  if (!session?.user) return res.redirect("/login");
  res.json({ name: session.user.name, expires: session.expires });
});

app.post("/login", async (req, res) => {
  try {
    const { url, cookies }: ActionResult = await signIn("credentials", req.body, req, config);
    res.setHeader("set-cookie", cookies);
    res.redirect(303, url);
  } catch (e) {
    if (e instanceof CredentialsSignin) res.status(401).send(e.code);
    else throw e;
  }
});
app.post("/logout", async (req, res) => {
  const out = await signOut(req, config);
  res.setHeader("set-cookie", out.cookies).redirect(303, out.url);
});

// Stored accounts: the tokens stay on the server.
app.get("/tiktok", async (req, res) => {
  const session = await getSession(req, config);
  if (!session?.user?.id) return res.redirect("/login");
  let account = await getAccount(session.user.id, "tiktok", config);
  if (account?.expires_at && account.expires_at <= Date.now() / 1000)
    account = await refreshAccount(session.user.id, "tiktok", config);
  const token: string | undefined = account?.access_token;
  const scope: string | undefined = account?.scope;
  res.json({ linked: Boolean(token), scope });
});

const reactiveConfig: ReactiveAuthConfig = {
  ...config,
  prefix: "/api/auth",
  adapter: { type: "sqlite", path: "auth.db" },
};
export const { GET, POST } = ReactiveAuth(reactiveConfig);
export async function loader(request: Request): Promise<Response | undefined> {
  const session = await getSession(request, reactiveConfig);
  const form = await request.formData();
  if (form.has("password")) await signIn("credentials", form, { request }, reactiveConfig);
  if (!session) return new Response(null, { status: 302, headers: { location: "/" } });
  const res = await GET({ request });
  return res ?? (await POST({ request, params: {} }));
}

try {
  ServerAuth({ secret: "short" });
} catch (e) {
  if (e instanceof InvalidConfig) console.log(e.option, e.type);
  if (e instanceof AuthError) {
    const t: ErrorType | string = e.type;
    console.log(t);
  }
}
const n: number = workerThreads();
void n;

// Database sessions with generated tokens (sync or async).
export const databaseConfig: AuthConfig = {
  adapter: { type: "memory" },
  providers: [Email({ server: { host: "localhost", port: 25 } })],
  session: { strategy: "database", generateSessionToken: () => crypto.randomUUID() },
};
export const asyncTokenConfig: AuthConfig = {
  adapter: { type: "sqlite", path: "auth.db" },
  providers: [],
  session: { strategy: "database", generateSessionToken: async () => "a-token-of-at-least-16-chars" },
};
// Many servers, one state: users in PostgreSQL, sessions and rate limits in Redis.
export const scaleOutConfig: AuthConfig = {
  adapter: { type: "postgres", url: "postgres://app@db/app" },
  providers: [],
  secondaryStorage: { type: "redis", url: "rediss://cache:6380", timeout: 0.5 },
  rateLimit: {
    credentials: { max: 5 },
    store: { type: "redis", url: "rediss://cache:6380", failClosed: ["credentials", "email"] },
  },
  trustedProxies: ["10.0.0.0/8"],
  forwardedHeader: "forwarded",
};
export const memoryStoreConfig: AuthConfig = {
  providers: [],
  rateLimit: { store: { type: "memory", maxKeys: 50000 } },
};
// @ts-expect-error forwardedHeader names one of the two headers libauth reads
void ({ providers: [], trustedProxies: ["10.0.0.1"], forwardedHeader: "x-real-ip" } satisfies AuthConfig);
export const databaseStoreConfig: AuthConfig = {
  providers: [],
  rateLimit: { store: { type: "database", failClosed: true } },
};
// @ts-expect-error a Redis store needs its URL
void ({ providers: [], rateLimit: { store: { type: "redis" } } } satisfies AuthConfig);
// @ts-expect-error failClosed names routes
void ({ providers: [], rateLimit: { store: { type: "memory", failClosed: ["passwords"] } } } satisfies AuthConfig);
const smtp: SmtpServerOptions = { host: "localhost", port: 587, secure: "starttls" };
const emailProvider: EmailConfig = Email({ server: smtp, from: "a@example.com" });
void emailProvider.type;

// @ts-expect-error the engine takes an SMTP server object, not a URL string
Email({ server: "smtp://localhost:25" });
// @ts-expect-error an unknown email option (the engine refuses it)
Email({ server: smtp, sender: "a@example.com" });
// @ts-expect-error generateSessionToken returns a string
void ({ session: { generateSessionToken: () => 42 } } satisfies AuthConfig);
// @ts-expect-error jwt.encode returns a string
void ({ jwt: { encode: () => ({}) } } satisfies AuthConfig);

// Passkeys: the provider and the experimental flag.
const passkey: PasskeyConfig = Passkey({
  relayingParty: { id: "example.com", name: "Example", origin: "https://example.com" },
  userVerification: "required",
  enableConditionalUI: true,
  timeout: 60_000,
});
export const passkeyConfig: AuthConfig = {
  experimental: { enableWebAuthn: true },
  adapter: { type: "sqlite", path: "auth.db" },
  providers: [passkey, Passkey()],
};

// A user's database sessions (docs/user-sessions.md).
export const sessionsConfig: AuthConfig = {
  adapter: { type: "sqlite", path: "auth.db" },
  session: { strategy: "database" },
  events: { sessionsEnded: ({ userId, ended, scope, before }) => console.log(userId, ended, scope, before) },
};
export async function mySessions(req: express.Request, userId: string): Promise<number> {
  const sessions: UserSession[] = await listSessions(userId, sessionsConfig, req);
  const other = sessions.find((s) => !s.current);
  if (other) await endSession(userId, other.id, sessionsConfig);
  console.log(sessions[0]?.device, sessions[0]?.ip, sessions[0]?.lastActiveAt);
  const ended: number = await endOtherSessions(userId, req, sessionsConfig);
  return ended + (await endAllSessions(userId, sessionsConfig));
}

// A user's second factor (docs/two-factor.md).
export const twoFactorConfig: AuthConfig = {
  adapter: { type: "sqlite", path: "auth.db" },
  twoFactor: { issuer: "Example", totp: { algorithm: "SHA1", digits: 6, period: 30 } },
  events: {
    twoFactorEnabled: ({ userId }) => console.log(userId),
    twoFactorDisabled: ({ userId }) => console.log(userId),
    recoveryCodeUsed: ({ userId, left }) => console.log(userId, left),
  },
};
export async function secondFactor(userId: string, code: string): Promise<string[]> {
  const status: TwoFactorStatus = await twoFactorStatus(userId, twoFactorConfig);
  if (!status.enabled) {
    const enrolment: TotpEnrolment = await beginTotp(userId, "ada@example.com", twoFactorConfig);
    console.log(enrolment.uri, enrolment.qrSvg.length, enrolment.secret);
    return confirmTotp(userId, code, twoFactorConfig);
  }
  const factor: "totp" | "recoveryCode" = await verifySecondFactor(userId, code, twoFactorConfig);
  if (factor === "recoveryCode") return regenerateRecoveryCodes(userId, code, twoFactorConfig);
  await disableTotp(userId, code, twoFactorConfig);
  return [];
}
