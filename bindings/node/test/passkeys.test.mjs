// Passkeys from Node without a browser: a software authenticator (a P-256
// key from node:crypto, attestation "none") registers and signs in over
// HTTP against a JavaScript adapter (the authenticator methods as hooks),
// then the server-side calls list, rename and delete the passkey.
import { describe, it, after } from "node:test";
import assert from "node:assert/strict";
import { AuthError, ServerAuth, Passkey, listPasskeys, renamePasskey, deletePasskey } from "libauth";
import { Browser, serveProtected, SECRET } from "./helpers.mjs";
import { memoryAdapter } from "./memory-adapter.mjs";
import { SoftAuthenticator } from "./soft-authenticator.mjs";

/** memoryAdapter (with unlinkAccount) plus Auth.js's authenticator methods and libauth's two. */
function passkeyAdapter() {
  const adapter = memoryAdapter();
  const authenticators = new Map();
  return Object.assign(adapter, {
    authenticators,
    async createAuthenticator(a) {
      if (authenticators.has(a.credentialID)) throw new Error("credential id taken");
      authenticators.set(a.credentialID, a);
      return a;
    },
    async getAuthenticator(id) {
      return authenticators.get(id) ?? null;
    },
    async listAuthenticatorsByUserId(userId) {
      return [...authenticators.values()].filter((a) => a.userId === userId);
    },
    async updateAuthenticatorCounter(id, counter, lastUsedAt) {
      assert.ok(lastUsedAt instanceof Date, "lastUsedAt arrives as a Date");
      const a = { ...authenticators.get(id), counter, lastUsedAt };
      authenticators.set(id, a);
      return a;
    },
    async renameAuthenticator(id, name) {
      const a = authenticators.get(id);
      if (!a) return null;
      authenticators.set(id, { ...a, name });
      return authenticators.get(id);
    },
    async deleteAuthenticator(id) {
      const a = authenticators.get(id) ?? null;
      authenticators.delete(id);
      return a;
    },
  });
}

async function options(browser, query = "") {
  const res = await browser.fetch(`/auth/webauthn-options/passkey?${query}`);
  assert.equal(res.status, 200, await res.clone().text());
  return res.json();
}

async function callback(browser, action, credential) {
  const csrfToken = await browser.csrf();
  return browser.post(
    "/auth/callback/passkey",
    { action, data: JSON.stringify(credential), csrfToken },
    { "x-auth-return-redirect": "1" },
  );
}

describe("passkeys through a JavaScript adapter", () => {
  const servers = [];
  after(() => Promise.all(servers.map((s) => s.close())));

  it("registers, signs back in, and lists, renames and keeps the last passkey", async () => {
    const adapter = passkeyAdapter();
    const config = { secret: SECRET, experimental: { enableWebAuthn: true }, adapter, providers: [Passkey()] };
    const s = await serveProtected(config, ServerAuth(config));
    servers.push(s);
    const key = new SoftAuthenticator(s.url);

    const signUp = new Browser(s.url);
    const reg = await options(signUp, "email=ada@example.com");
    assert.equal(reg.action, "register");
    const res = await callback(signUp, "register", key.register(reg.options));
    assert.equal(res.status, 200);
    assert.doesNotMatch((await res.json()).url, /error=/);
    assert.equal((await signUp.session()).user.email, "ada@example.com");

    const signIn = new Browser(s.url);
    const auth = await options(signIn);
    assert.equal(auth.action, "authenticate");
    const back = await callback(signIn, "authenticate", key.authenticate(auth.options));
    assert.doesNotMatch((await back.json()).url, /error=/);
    assert.equal((await signIn.session()).user.email, "ada@example.com");

    const [stored] = adapter.authenticators.values();
    assert.equal(stored.counter, 1);
    const userId = stored.userId;
    const [listed] = await listPasskeys(userId, config);
    assert.equal(listed.id, key.credentialId.toString("base64url"));
    assert.ok(listed.lastUsedAt, "the sign-in was recorded");
    assert.equal((await renamePasskey(userId, listed.id, "Laptop", config)).name, "Laptop");
    await assert.rejects(deletePasskey(userId, listed.id, config), (e) => {
      assert.ok(e instanceof AuthError);
      assert.equal(e.type, "LastSignInMethod");
      return true;
    });
    await assert.rejects(
      deletePasskey("someone-else", listed.id, config),
      (e) => e.type === "WebAuthnVerificationError",
    );
    assert.equal(adapter.authenticators.size, 1);
  });

  it("P1: a JavaScript adapter that cannot delete a passkey whole is refused at construction", () => {
    for (const missing of [["unlinkAccount"], ["deleteAuthenticator"], ["unlinkAccount", "deleteAuthenticator"]]) {
      const adapter = passkeyAdapter();
      for (const m of missing) delete adapter[m];
      const config = { secret: SECRET, experimental: { enableWebAuthn: true }, adapter, providers: [Passkey()] };
      assert.throws(
        () => ServerAuth(config),
        (e) => {
          assert.equal(e.type, "MissingAdapterMethods", e.message);
          for (const m of missing) assert.match(e.message, new RegExp(`adapter\\.${m}`));
          return true;
        },
      );
    }
  });

  it("P1: a delete that fails half-way leaves no account a registration could sign in to", async () => {
    const adapter = passkeyAdapter();
    // The adapter can be made to fail deleting a passkey (after its account
    // is unlinked); hooks are taken when the engine is built.
    let failDelete = false;
    const deleteAuthenticator = adapter.deleteAuthenticator;
    adapter.deleteAuthenticator = async (credentialID) => {
      if (failDelete) throw new Error("database went away");
      return deleteAuthenticator(credentialID);
    };
    const config = { secret: SECRET, experimental: { enableWebAuthn: true }, adapter, providers: [Passkey()] };
    const s = await serveProtected(config, ServerAuth(config));
    servers.push(s);
    const first = new SoftAuthenticator(s.url);
    const second = new SoftAuthenticator(s.url);
    const owner = new Browser(s.url);
    await callback(owner, "register", first.register((await options(owner, "email=ada@example.com")).options));
    await callback(owner, "register", second.register((await options(owner, "action=register")).options));
    const [{ userId }] = adapter.authenticators.values();
    const id = first.credentialId.toString("base64url");
    failDelete = true;
    await assert.rejects(deletePasskey(userId, id, config));
    failDelete = false;
    assert.equal(await adapter.getUserByAccount({ provider: "passkey", providerAccountId: id }), null);
    // Someone presents that credential id in a registration: refused.
    const thief = new SoftAuthenticator(s.url);
    thief.credentialId = first.credentialId;
    const attacker = new Browser(s.url);
    const reg = await options(attacker, "email=eve@example.com");
    const res = await callback(attacker, "register", thief.register(reg.options));
    assert.match((await res.json()).url, /error=/);
    assert.equal(attacker.sessionCookie(), undefined);
    // The owner's retry finishes the delete.
    await deletePasskey(userId, id, config);
    assert.equal(adapter.authenticators.size, 1);
  });

  it("a replayed assertion signs in nobody", async () => {
    const adapter = passkeyAdapter();
    const config = { secret: SECRET, experimental: { enableWebAuthn: true }, adapter, providers: [Passkey()] };
    const s = await serveProtected(config, ServerAuth(config));
    servers.push(s);
    const key = new SoftAuthenticator(s.url);
    const first = new Browser(s.url);
    await callback(first, "register", key.register((await options(first, "email=ada@example.com")).options));
    const victim = new Browser(s.url);
    const assertion = key.authenticate((await options(victim)).options);
    const captured = new Map(victim.jar);
    await callback(victim, "authenticate", assertion);
    const attacker = new Browser(s.url);
    for (const [k, v] of captured) attacker.jar.set(k, v);
    const res = await callback(attacker, "authenticate", assertion);
    assert.match((await res.json()).url, /error=WebAuthnVerificationError/);
    assert.equal(attacker.sessionCookie(), undefined);
  });
});

describe("the sign-in page's message when passkeys cannot work on this address", () => {
  it("names the localhost address for a loopback IP, and the domain for another IP", async () => {
    const { passkeyAddressHint } = await import("libauth/webauthn");
    const at = (href) => {
      const u = new URL(href);
      return { protocol: u.protocol, hostname: u.hostname, port: u.port, pathname: u.pathname, search: u.search };
    };
    assert.equal(
      passkeyAddressHint(at("http://127.0.0.1:3000/auth/signin?callbackUrl=%2F")),
      "Passkeys need a name, not an IP address: open http://localhost:3000/auth/signin?callbackUrl=%2F instead.",
    );
    assert.match(
      passkeyAddressHint(at("http://[::1]:8080/auth/signin")),
      /open http:\/\/localhost:8080\/auth\/signin instead/,
    );
    assert.match(passkeyAddressHint(at("https://203.0.113.7/auth/signin")), /domain name/);
    for (const named of ["http://localhost:3000/", "https://app.example.com/auth/signin"]) {
      assert.equal(passkeyAddressHint(at(named)), null, named);
    }
  });
});
