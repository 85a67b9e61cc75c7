// Many servers, one state, from Node: two Express server processes
// (test/scale-out-server.mjs), each its own engine, behind one client that
// alternates between them, sharing one PostgreSQL (users) and one Redis
// (rate limits, sessions through secondaryStorage). Together they admit
// exactly `max` failed passwords; a sign-in on one is a session on the
// other, and a sign-out on the other ends it for the first. Needs
// PostgreSQL and Redis on 127.0.0.1 (scripts/test.sh starts both).
import { describe, it, before, after } from "node:test";
import assert from "node:assert/strict";
import { randomUUID } from "node:crypto";
import { fileURLToPath } from "node:url";
import { Browser, SECRET, startProcess } from "./helpers.mjs";

const here = fileURLToPath(new URL(".", import.meta.url));

describe("two Express processes on one PostgreSQL and one Redis", () => {
  const redis = {
    type: "redis",
    url: process.env.LIBAUTH_TEST_REDIS_URL ?? "redis://127.0.0.1:6379",
    keyPrefix: `libauth-nodetest:${randomUUID()}:`,
  };
  const config = {
    secret: SECRET,
    trustHost: true,
    adapter: {
      type: "postgres",
      url: process.env.LIBAUTH_TEST_POSTGRES_URL ?? "postgres://postgres@127.0.0.1:5432/test",
    },
    session: { strategy: "database" },
    secondaryStorage: redis,
    rateLimit: { credentials: { window: 600, max: 3 }, store: redis },
  };
  const servers = [];
  before(async () => {
    for (let i = 0; i < 2; i++) {
      const proc = await startProcess([`${here}scale-out-server.mjs`], {
        cwd: `${here}..`,
        env: { LIBAUTH_SCALE_OUT_CONFIG: JSON.stringify(config) },
        ready: /listening \d+/,
      });
      const port = proc.output().match(/listening (\d+)/)[1];
      servers.push({ proc, url: `http://127.0.0.1:${port}` });
    }
  });
  after(() => Promise.all(servers.map((s) => s.proc.stop())));

  it("admits exactly max failed passwords for one account, across both", async () => {
    const user = `mallory-${randomUUID()}`;
    const attacker = new Browser(servers[0].url);
    const statuses = [];
    for (let i = 0; i < 8; i++) {
      attacker.origin = servers[i % 2].url;
      statuses.push((await attacker.signIn(user, "guess")).status);
    }
    assert.deepEqual(statuses, [302, 302, 302, 429, 429, 429, 429, 429]);
    for (const s of servers) {
      attacker.origin = s.url;
      assert.equal((await attacker.signIn(user, "secret")).status, 429, "the right password is not tried");
    }
  });

  it("a sign-in on one is a session on the other; a sign-out on the other ends it for the first", async () => {
    const user = `ada-${randomUUID()}`;
    const br = new Browser(servers[0].url);
    assert.equal((await br.signIn(user, "secret")).status, 302);
    const token = br.sessionCookie();
    assert.ok(token, "a database session cookie");
    br.origin = servers[1].url;
    assert.equal((await br.session()).user.email, `${user}@example.com`);
    assert.equal((await br.post("/auth/signout", { csrfToken: await br.csrf() })).status, 302);
    assert.equal(br.sessionCookie(), undefined);
    br.origin = servers[0].url;
    assert.equal(await br.session(), null);
    br.jar.set("authjs.session-token", token);
    assert.equal(await br.session(), null, "the old cookie finds nothing");
  });
});
