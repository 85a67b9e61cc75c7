// A real Better Auth database for `libauth import better-auth`'s tests.
//
// Usage: node tests/better-auth/source.mjs POSTGRES_URL SCHEMA SECRET
// (after `npm ci --prefix tests/better-auth`; scripts/test.sh runs it)
//
// Better Auth on PostgreSQL (the `pg` Pool, its own migrations into SCHEMA,
// email + password enabled) signs a user up and signs them in again, as a
// browser would; prints JSON: the user's id, email and password, and the
// `better-auth.session_token` cookie values each answer set (as the browser
// holds them: URL-encoded).
import { betterAuth } from "better-auth";
import { getMigrations } from "better-auth/db/migration";
import pg from "pg";

const [url, schema, secret] = process.argv.slice(2);
const pool = new pg.Pool({ connectionString: url, max: 2, options: `-c search_path=${schema}` });
const auth = betterAuth({
  database: pool,
  secret,
  baseURL: "http://localhost:3000",
  emailAndPassword: { enabled: true },
  logger: { disabled: true },
});
const { runMigrations } = await getMigrations(auth.options);
await runMigrations();

function cookieOf(response) {
  const set = response.headers.getSetCookie().find((c) => c.startsWith("better-auth.session_token="));
  if (!set) throw new Error(`no session cookie: ${response.status}`);
  return set.split(";")[0].slice("better-auth.session_token=".length);
}

const body = { email: "ada@example.com", password: "correct horse battery staple", name: "Ada" };
const signUp = await auth.api.signUpEmail({ body, asResponse: true });
const signedUp = await signUp.json();
const signIn = await auth.api.signInEmail({
  body: { email: body.email, password: body.password },
  asResponse: true,
});
// The cookie works with Better Auth itself.
const session = await auth.api.getSession({
  headers: new Headers({ cookie: `better-auth.session_token=${cookieOf(signIn)}` }),
});
if (session?.user?.id !== signedUp.user.id) throw new Error("Better Auth does not read its own cookie");
console.log(
  JSON.stringify({
    userId: signedUp.user.id,
    email: body.email,
    password: body.password,
    cookies: [cookieOf(signUp), cookieOf(signIn)],
  }),
);
await pool.end();
