// The built-in provider helpers: each names its engine provider, passes
// every option through, and the engine accepts the result (its sign-in page
// lists them all, each with its logo).
import { it } from "node:test";
import assert from "node:assert/strict";
import {
  ServerAuth,
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
} from "libauth";
import { Browser, SECRET, listen } from "./helpers.mjs";

const helpers = {
  google: Google,
  apple: Apple,
  "microsoft-entra-id": MicrosoftEntraID,
  discord: Discord,
  gitlab: GitLab,
  twitter: Twitter,
  facebook: Facebook,
  linkedin: LinkedIn,
  slack: Slack,
  twitch: Twitch,
  spotify: Spotify,
  keycloak: Keycloak,
  auth0: Auth0,
  okta: Okta,
};

it("each helper is its built-in provider, options passed through", () => {
  for (const [id, helper] of Object.entries(helpers)) {
    assert.deepEqual(helper({ clientId: "c", clientSecret: "s" }), { builtin: id, clientId: "c", clientSecret: "s" });
  }
  assert.equal(Google({ offlineAccess: true }).offlineAccess, true);
  assert.equal(GitLab({ baseUrl: "https://git.example.com" }).baseUrl, "https://git.example.com");
  assert.deepEqual(Apple({ teamId: "T", keyId: "K" }), { builtin: "apple", teamId: "T", keyId: "K" });
});

it("the engine takes every helper and shows each on its sign-in page", async () => {
  const issuer = "https://idp.example.com";
  const providers = Object.entries(helpers).map(([id, helper]) =>
    helper({
      clientId: `${id}-id`,
      clientSecret: "s",
      ...(["keycloak", "auth0", "okta"].includes(id) ? { issuer } : {}),
    }),
  );
  const { default: express } = await import("express");
  const app = express();
  app.use("/auth", ServerAuth({ secret: SECRET, trustHost: true, providers }));
  const server = await listen(app);
  try {
    const b = new Browser(server.url);
    const listed = await (await b.fetch("/auth/providers")).json();
    assert.deepEqual(Object.keys(listed).sort(), Object.keys(helpers).sort());
    assert.equal(listed["microsoft-entra-id"].name, "Microsoft Entra ID");
    const page = await (await b.fetch("/auth/signin")).text();
    assert.equal(page.split("data:image/svg+xml;base64,").length - 1, Object.keys(helpers).length);
  } finally {
    await server.close();
  }
});

it("an option a provider does not take is a configuration error", () => {
  assert.throws(
    () =>
      ServerAuth({
        secret: SECRET,
        trustHost: true,
        providers: [Discord({ clientId: "c", clientSecret: "s", offlineAccess: true })],
      }),
    /offlineAccess/,
  );
});
