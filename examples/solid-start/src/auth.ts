// The libauth configuration of this app, shared by the API route, the
// middleware and the route loaders (one engine per config object).
import { Credentials, CredentialsSignin, type ReactiveAuthConfig } from "libauth";

export const authConfig: ReactiveAuthConfig = {
  prefix: "/api/auth",
  trustHost: true,
  providers: [
    Credentials({
      credentials: {
        username: { label: "Username", placeholder: "demo" },
        password: { label: "Password", type: "password" },
      },
      async authorize({ username, password }) {
        if (username === "demo" && password === "demo")
          return { id: "1", name: "Demo User", email: "demo@example.com" };
        throw new CredentialsSignin();
      },
    }),
  ],
};
