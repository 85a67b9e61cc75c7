// Compiled by `tsc --noEmit` in test/types.test.mjs: every exported function
// and type used the way the README shows.
import express from "express";
import {
  ServerAuth,
  ReactiveAuth,
  getSession,
  Credentials,
  TikTok,
  Email,
  AuthError,
  CredentialsSignin,
  InvalidConfig,
  workerThreads,
  type AuthConfig,
  type ReactiveAuthConfig,
  type Session,
  type User,
  type Account,
  type Profile,
  type JWT,
  type TikTokProfile,
  type Adapter,
  type AdapterUser,
  type ErrorType,
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
      authorization: { url: "http://127.0.0.1:4010/v2/auth/authorize/", params: { scope: "user.info.basic,user.info.profile" } },
      profile(profile: TikTokProfile) {
        return { id: profile.data.user.open_id, name: profile.data.user.display_name, image: profile.data.user.avatar_url, email: null };
      },
    }),
    { type: "oidc", id: "op", issuer: "http://127.0.0.1:4011", clientId: "c", clientSecret: "s" },
    Email({ sendVerificationRequest: async ({ identifier, url }) => void [identifier, url] }),
  ],
  adapter,
  session: { strategy: "jwt", maxAge: 3600, updateAge: 0 },
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

const reactiveConfig: ReactiveAuthConfig = { ...config, prefix: "/api/auth", adapter: { type: "sqlite", path: "auth.db" } };
export const { GET, POST } = ReactiveAuth(reactiveConfig);
export async function loader(request: Request): Promise<Response | undefined> {
  const session = await getSession(request, reactiveConfig);
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
