// A bad configuration fails at construction with the binding's error class,
// `option` and `type` as fields (never parsed out of a message), and a
// misspelt hook is refused like a misspelt option.
import { it } from "node:test";
import assert from "node:assert/strict";
import { ServerAuth, InvalidConfig, AuthError, Credentials, Email, Passkey } from "libauth";
import { SECRET } from "./helpers.mjs";

const authorize = () => null;
const cases = [
  ["a missing secret", { providers: [] }, "secret", "MissingSecret"],
  ["a short secret", { secret: "short" }, "secret", "Configuration"],
  [
    "credentials without authorize",
    { secret: SECRET, providers: [{ type: "credentials" }] },
    "providers[0].authorize",
    "MissingAuthorize",
  ],
  [
    "database sessions without an adapter",
    { secret: SECRET, session: { strategy: "database" } },
    "session.strategy",
    "MissingAdapter",
  ],
  [
    "an unknown provider type",
    { secret: SECRET, providers: [{ type: "saml" }] },
    "providers[0].type",
    "InvalidProviderType",
  ],
  [
    "email without an adapter",
    { secret: SECRET, providers: [Email({ sendVerificationRequest() {} })] },
    "adapter",
    "MissingAdapter",
  ],
  ["a misspelt callback", { secret: SECRET, callbacks: { sesion() {} } }, "callbacks.sesion", "Configuration"],
  ["a misspelt event", { secret: SECRET, events: { signin() {} } }, "events.signin", "Configuration"],
  ["a logger level that does not exist", { secret: SECRET, logger: { info() {} } }, "logger.info", "Configuration"],
  [
    "a provider function the provider never calls",
    { secret: SECRET, providers: [Credentials({ credentials: {}, authorize, profile() {} })] },
    "providers.credentials.profile",
    "Configuration",
  ],
  ["a misspelt option", { secret: SECRET, secert: "x" }, "secert", "Configuration"],
  [
    "an unknown hook deadline",
    { secret: SECRET, hooks: { timeouts: { "callbacks.sesion": 1 } } },
    "hooks.timeouts.callbacks.sesion",
    "Configuration",
  ],
];

for (const [what, config, option, type] of cases) {
  it(`${what}: InvalidConfig with option ${option} and type ${type}`, () => {
    const saved = process.env.AUTH_SECRET;
    delete process.env.AUTH_SECRET;
    try {
      assert.throws(
        () => ServerAuth(config),
        (e) => {
          assert.ok(e instanceof InvalidConfig && e instanceof AuthError, e);
          assert.equal(e.option, option, e.message);
          assert.equal(e.type, type, e.message);
          assert.ok(e.message.includes(option), e.message);
          return true;
        },
      );
    } finally {
      if (saved !== undefined) process.env.AUTH_SECRET = saved;
    }
  });
}

it("a config with every hook spelt right is accepted", () => {
  const noop = () => {};
  ServerAuth({
    secret: SECRET,
    providers: [Credentials({ credentials: {}, authorize })],
    callbacks: {
      signIn: () => true,
      redirect: ({ url }) => url,
      jwt: ({ token }) => token,
      session: ({ session }) => session,
    },
    events: { signIn: noop, signOut: noop, createUser: noop, updateUser: noop, linkAccount: noop, session: noop },
    logger: { error: noop, warn: noop, debug: noop },
    hooks: { timeout: 10, timeouts: { "callbacks.jwt": 2 }, maxInFlight: 64 },
  });
});

it("Passkey() is Auth.js's passkey provider: type webauthn, id passkey, options kept", () => {
  assert.deepEqual(Passkey(), { type: "webauthn", id: "passkey", name: "Passkey" });
  const getUserInfo = async () => null;
  assert.deepEqual(
    Passkey({
      id: "key",
      relayingParty: { id: "example.com", name: "Example", origin: "https://example.com" },
      timeout: 60000,
      enableConditionalUI: true,
      userVerification: "preferred",
      getUserInfo,
    }),
    {
      type: "webauthn",
      id: "key",
      name: "Passkey",
      relayingParty: { id: "example.com", name: "Example", origin: "https://example.com" },
      timeout: 60000,
      enableConditionalUI: true,
      userVerification: "preferred",
      getUserInfo,
    },
  );
});
