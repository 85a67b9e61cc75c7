// As npm users install it, in the napi-rs layout: the JavaScript-only
// `libauth` package plus the addon package for this platform
// (`libauth-linux-x64-gnu`, …), laid out by scripts/npm-packages.js and
// packed with `npm pack`. A new app installs both tarballs where no Rust
// toolchain is (no cargo on PATH, a HOME without ~/.cargo), signs in and
// reads the session over HTTP.
import { it } from "node:test";
import assert from "node:assert/strict";
import { execFileSync, spawn, spawnSync } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync, readdirSync, readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { once } from "node:events";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { Browser } from "./helpers.mjs";

const pkgDir = fileURLToPath(new URL("..", import.meta.url));
const assets = fileURLToPath(new URL("../../../core/assets/", import.meta.url));
const loader = createRequire(import.meta.url)("../lib/loader.js");
const hostTarget = loader.targetOf(loader.detectHost());

// The app: node:http around ReactiveAuth (no other dependency to install).
const APP = `
import http from "node:http";
import { ReactiveAuth, Credentials } from "libauth";
const auth = ReactiveAuth({
  secret: "packaged-app-secret-0123456789abcdef0123",
  trustHost: true,
  prefix: "/auth",
  providers: [Credentials({ credentials: { username: {} }, authorize: ({ username }) => username === "ada" ? { id: "1", name: "Ada" } : null })],
});
const server = http.createServer(async (req, res) => {
  const chunks = [];
  for await (const c of req) chunks.push(c);
  const headers = new Headers();
  for (let i = 0; i < req.rawHeaders.length; i += 2) headers.append(req.rawHeaders[i], req.rawHeaders[i + 1]);
  const body = chunks.length && req.method !== "GET" ? Buffer.concat(chunks) : undefined;
  const request = new Request("http://" + req.headers.host + req.url, { method: req.method, headers, body });
  const response = await (req.method === "POST" ? auth.POST : auth.GET)({ request });
  if (!response) { res.statusCode = 404; return res.end(); }
  res.statusCode = response.status;
  for (const [k, v] of response.headers) if (k !== "set-cookie") res.setHeader(k, v);
  res.setHeader("set-cookie", response.headers.getSetCookie());
  res.end(Buffer.from(await response.arrayBuffer()));
});
server.listen(0, "127.0.0.1", () => console.log("PORT " + server.address().port));
`;

it("the packed packages install and run with no Rust toolchain", {
  skip: !loader.PACKAGES[hostTarget] && `no addon package for ${hostTarget}`,
}, async () => {
  const work = mkdtempSync(path.join(os.tmpdir(), "libauth-pack-"));
  try {
    // The checkout's (debug) addon stands in for the release one.
    const staged = path.join(work, "npm");
    execFileSync(
      process.execPath,
      ["scripts/npm-packages.js", staged, `${hostTarget}=${path.join(pkgDir, "libauth.node")}`],
      { cwd: pkgDir, stdio: "pipe" },
    );
    for (const dir of ["libauth", `libauth-${hostTarget}`]) {
      execFileSync("npm", ["pack", "--pack-destination", work, "--loglevel=error"], {
        cwd: path.join(staged, dir),
        stdio: "pipe",
      });
    }
    const tarballs = readdirSync(work).filter((f) => f.endsWith(".tgz"));
    const root = tarballs.find((f) => /^libauth-\d/.test(f));
    const platform = tarballs.find((f) => f.startsWith(`libauth-${hostTarget}-`));
    assert.ok(root && platform, `npm pack wrote both tarballs: ${tarballs}`);
    const listing = execFileSync("tar", ["-tzf", path.join(work, root)], { encoding: "utf8" });
    assert.doesNotMatch(listing, /\.node$/m, "no addon in the root package");
    assert.doesNotMatch(listing, /package\/src\//, "no Rust source in the package");
    assert.doesNotMatch(listing, /package\/scripts\//, "no build or install script in the package");
    assert.match(listing, /package\/webauthn\.mjs/);
    assert.match(listing, /package\/webauthn\.d\.ts/);
    const manifest = JSON.parse(execFileSync("tar", ["-xzOf", path.join(work, root), "package/package.json"]));
    assert.equal(manifest.scripts, undefined, "no install (or any) script");
    assert.equal(manifest.private, undefined);
    assert.deepEqual(Object.keys(manifest.optionalDependencies).sort(), [
      "libauth-linux-arm64-gnu",
      "libauth-linux-arm64-musl",
      "libauth-linux-x64-gnu",
      "libauth-linux-x64-musl",
    ]);
    for (const version of Object.values(manifest.optionalDependencies)) assert.equal(version, manifest.version);
    const platformListing = execFileSync("tar", ["-tzf", path.join(work, platform)], { encoding: "utf8" });
    assert.match(platformListing, new RegExp(`package/libauth\\.${hostTarget}\\.node`));
    const platformManifest = JSON.parse(
      execFileSync("tar", ["-xzOf", path.join(work, platform), "package/package.json"]),
    );
    assert.deepEqual(platformManifest.os, ["linux"]);
    assert.equal(platformManifest.main, `libauth.${hostTarget}.node`);

    const app = path.join(work, "app");
    const home = path.join(work, "home");
    execFileSync("mkdir", ["-p", app, home]);
    writeFileSync(path.join(app, "package.json"), JSON.stringify({ name: "app", private: true, type: "module" }));
    writeFileSync(path.join(app, "server.mjs"), APP);
    const noRust = { PATH: "/usr/bin:/bin", HOME: home, npm_config_cache: path.join(home, ".npm") };
    assert.throws(() => execFileSync("cargo", ["--version"], { env: noRust, stdio: "pipe" }), "cargo is not reachable");
    execFileSync(
      "npm",
      ["install", "--no-audit", "--no-fund", "--loglevel=error", path.join(work, root), path.join(work, platform)],
      {
        cwd: app,
        env: noRust,
        stdio: "pipe",
      },
    );

    // The `libauth` command comes with the package: `npx libauth` runs it
    // from the installed addon, with no download and no Rust toolchain.
    const npx = (args) =>
      spawnSync("npx", ["--no-install", "libauth", ...args], { cwd: app, env: noRust, encoding: "utf8" });
    const secret = npx(["secret"]);
    assert.equal(secret.status, 0, secret.stderr);
    assert.match(readFileSync(path.join(app, ".env"), "utf8"), /^AUTH_SECRET=[A-Za-z0-9_-]{43}\n$/);
    // `--env-file` after `--`, which npm would otherwise take for Node.
    const other = npx(["--", "secret", "--env-file", ".env.local"]);
    assert.equal(other.status, 0, other.stderr);
    assert.match(readFileSync(path.join(app, ".env.local"), "utf8"), /^AUTH_SECRET=/);
    const migrate = npx(["migrate", "--database", "sqlite:auth.db", "--json"]);
    assert.equal(migrate.status, 0, migrate.stderr);
    assert.equal(JSON.parse(migrate.stdout).from, 0);
    const usage = npx(["migrate", "--bogus"]);
    assert.equal(usage.status, 2);
    assert.match(usage.stderr, /--bogus/);

    const server = spawn(process.execPath, ["server.mjs"], {
      cwd: app,
      env: noRust,
      stdio: ["ignore", "pipe", "inherit"],
    });
    try {
      let out = "";
      server.stdout.on("data", (d) => (out += d));
      while (!/PORT \d+/.test(out)) await once(server.stdout, "data");
      const url = `http://127.0.0.1:${/PORT (\d+)/.exec(out)[1]}`;
      const b = new Browser(url);
      const res = await b.signIn("ada", "x");
      assert.equal(res.status, 302);
      assert.equal((await b.session()).user.name, "Ada");
    } finally {
      server.kill();
    }
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
});

// The engine serves core/assets/webauthn.js at {basePath}/webauthn.js; the
// package ships the same file (scripts/build.js copies it): one source.
it("libauth/webauthn is core/assets/webauthn.js, byte for byte (and its .d.ts)", async () => {
  const { createRequire } = await import("node:module");
  const require = createRequire(import.meta.url);
  const shipped = require.resolve("libauth/webauthn").replace(/^file:\/\//, "");
  const same = (a, b) =>
    assert.ok(readFileSync(a).equals(readFileSync(b)), `${a} differs from ${b}: run node scripts/build.js`);
  same(path.join(pkgDir, "webauthn.mjs"), path.join(assets, "webauthn.js"));
  same(path.join(pkgDir, "webauthn.d.ts"), path.join(assets, "webauthn.d.ts"));
  assert.equal(path.basename(shipped), "webauthn.mjs");
  const mod = await import("libauth/webauthn");
  assert.equal(typeof mod.signIn, "function");
  assert.equal(typeof mod.initSignInPage, "function");
});
