// A user's TOTP second factor from Node: turn it on with a code made by an
// independent implementation (RFC 6238 over node:crypto, in helpers.mjs), check codes
// and recovery codes (each once), turn it off; `TwoFactorError` and the
// events. (Every backend and two engines at once: core/tests/two_factor.rs;
// codes from pyotp: bindings/python/tests/test_two_factor.py.)
import { describe, it, after } from "node:test";
import assert from "node:assert/strict";
import { rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import {
  AuthError,
  Password,
  signUp,
  twoFactorStatus,
  beginTotp,
  confirmTotp,
  verifySecondFactor,
  regenerateRecoveryCodes,
  disableTotp,
} from "libauth";
import { SECRET, totp } from "./helpers.mjs";

describe("a user's second factor", () => {
  const db = join(tmpdir(), `libauth-two-factor-${process.pid}.db`);
  const seen = [];
  let ada;
  const config = {
    secret: SECRET,
    trustHost: true,
    adapter: { type: "sqlite", path: db },
    providers: [Password({ argon2: { memoryKib: 64, iterations: 1 }, sendEmail: async () => {} })],
    twoFactor: { issuer: "Example" },
    events: {
      createUser: ({ user }) => {
        ada = user.id;
      },
      twoFactorEnabled: ({ userId }) => seen.push(["enabled", userId]),
      recoveryCodeUsed: ({ left }) => seen.push(["recovery", left]),
      twoFactorDisabled: ({ userId }) => seen.push(["disabled", userId]),
    },
  };
  after(() => {
    for (const suffix of ["", "-wal", "-shm"]) rmSync(`${db}${suffix}`, { force: true });
  });

  it("turns TOTP on with an independent implementation's code, checks each code once, turns it off", async () => {
    // A second factor belongs to a stored user.
    const request = new Request("http://localhost:3000/auth/password/signup", { method: "POST" });
    await signUp({ email: "ada@example.com", password: "correct horse battery" }, request, config);
    assert.equal(typeof ada, "string");
    assert.equal((await twoFactorStatus(ada, config)).enabled, false);

    const enrolment = await beginTotp(ada, "ada@example.com", config);
    assert.match(enrolment.uri, /^otpauth:\/\/totp\/Example:ada%40example\.com\?/);
    assert.match(enrolment.qrSvg, /<svg/);
    const now = Date.now() / 1000;
    const first = totp(enrolment.secret, now);
    await assert.rejects(
      confirmTotp(ada, "nope", config),
      (e) => e instanceof AuthError && e.type === "TwoFactorError",
    );
    const recovery = await confirmTotp(ada, first, config);
    assert.equal(recovery.length, 10);
    assert.equal((await twoFactorStatus(ada, config)).recoveryCodesLeft, 10);

    const twoFactorError = (e) => e instanceof AuthError && e.type === "TwoFactorError";
    await assert.rejects(verifySecondFactor(ada, first, config), twoFactorError, "spent turning it on");
    const next = totp(enrolment.secret, now + 30);
    assert.equal(await verifySecondFactor(ada, next, config), "totp");
    await assert.rejects(verifySecondFactor(ada, next, config), twoFactorError, "twice");
    assert.equal(await verifySecondFactor(ada, recovery[0], config), "recoveryCode");
    await assert.rejects(verifySecondFactor(ada, recovery[0], config), twoFactorError);
    const renewed = await regenerateRecoveryCodes(ada, recovery[1], config);
    await assert.rejects(verifySecondFactor(ada, recovery[2], config), twoFactorError, "replaced");
    await disableTotp(ada, renewed[0], config);
    assert.deepEqual(await twoFactorStatus(ada, config), {
      enabled: false,
      pending: false,
      enabledAt: null,
      recoveryCodesLeft: 0,
    });
    assert.deepEqual(seen, [
      ["enabled", ada],
      ["recovery", 9],
      ["recovery", 8],
      ["recovery", 9],
      ["disabled", ada],
    ]);
  });
});
