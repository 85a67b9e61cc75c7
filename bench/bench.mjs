// libauth vs Auth.js (@auth/express 0.12.3), side by side in one run, same
// secret, same session cookie (the two read each other's cookies):
//
// 1. in-process getSession (JWT strategy) ops/s;
// 2. HTTP req/s (autocannon) of GET /auth/session and of a protected route,
//    against a bare Express route answering the same JSON;
// 3. server RSS after the load.
//
// Run by hand: `./bench/run.sh` (builds the addon in release first). Not a
// test: numbers depend on the machine and on whatever else it is doing.
import { fork } from "node:child_process";
import { readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import os from "node:os";
import autocannon from "autocannon";

const SECRET = process.env.AUTH_SECRET ?? "libauth-benchmark-secret-0123456789abcdef";
process.env.AUTH_SECRET = SECRET;
const DURATION = Number(process.env.BENCH_SECONDS ?? 8);
const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS ?? 32);
const here = fileURLToPath(new URL(".", import.meta.url));

const { ServerAuth, getSession, Credentials } = await import("libauth");
const authjs = await import("@auth/express");
const { default: AuthjsCredentials } = await import("@auth/express/providers/credentials");

function startServer(impl, port, env = {}) {
  return new Promise((resolve, reject) => {
    const child = fork(`${here}server.mjs`, [impl, String(port)], { env: { ...process.env, ...env }, stdio: "inherit" });
    child.once("message", () => resolve(child));
    child.once("exit", (code) => reject(new Error(`${impl} server exited (${code})`)));
  });
}

function stop(child) {
  return new Promise((resolve) => {
    child.removeAllListeners("exit");
    child.once("exit", resolve);
    child.kill("SIGTERM");
  });
}

function rssMiB(pid) {
  const status = readFileSync(`/proc/${pid}/status`, "utf8");
  const kb = (k) => Number(new RegExp(`${k}:\\s+(\\d+)`).exec(status)[1]);
  return { rss: kb("VmRSS") / 1024, peak: kb("VmHWM") / 1024 };
}

async function load(url, cookie) {
  // Check the answer first: a benchmark of redirects would be meaningless.
  const check = await fetch(url, { headers: { cookie }, redirect: "manual" });
  const body = await check.text();
  if (check.status !== 200 || !body.includes("bench@example.com")) throw new Error(`${url}: ${check.status} ${body.slice(0, 200)}`);
  await autocannon({ url, connections: CONNECTIONS, duration: 2, headers: { cookie } }); // warm-up
  const r = await autocannon({ url, connections: CONNECTIONS, duration: DURATION, headers: { cookie } });
  if (r.non2xx || r.errors) throw new Error(`${url}: ${r.non2xx} non-2xx, ${r.errors} errors`);
  return { reqPerSec: r.requests.average, p50: r.latency.p50, p99: r.latency.p99 };
}

async function opsPerSecond(fn, seconds = 3) {
  for (let i = 0; i < 200; i++) await fn(); // warm-up
  let n = 0;
  const end = performance.now() + seconds * 1000;
  const t0 = performance.now();
  while (performance.now() < end) {
    for (let i = 0; i < 50; i++) await fn();
    n += 50;
  }
  return n / ((performance.now() - t0) / 1000);
}

// --- a session cookie, issued by libauth through its HTTP routes
const libauthServer = await startServer("libauth", 4101);
const base = "http://127.0.0.1:4101";
let res = await fetch(`${base}/auth/csrf`);
const csrfCookie = res.headers.getSetCookie().map((c) => c.split(";")[0]).join("; ");
const { csrfToken } = await res.json();
res = await fetch(`${base}/auth/callback/credentials`, {
  method: "POST",
  redirect: "manual",
  headers: { cookie: csrfCookie, "content-type": "application/x-www-form-urlencoded" },
  body: new URLSearchParams({ csrfToken, username: "bench" }),
});
const cookie = res.headers.getSetCookie().find((c) => c.startsWith("authjs.session-token=")).split(";")[0];
const sessionJson = await (await fetch(`${base}/auth/session`, { headers: { cookie } })).json();

// --- 1. in-process getSession
const user = { id: "1", name: "Bench User", email: "bench@example.com" };
const ourConfig = { secret: SECRET, trustHost: true, providers: [Credentials({ credentials: {}, authorize: () => user })] };
ServerAuth(ourConfig);
const theirConfig = { secret: SECRET, trustHost: true, providers: [AuthjsCredentials({ credentials: {}, authorize: () => user })] };
const fakeReq = { protocol: "http", headers: { host: "127.0.0.1:4101", cookie }, originalUrl: "/protected", url: "/protected" };
const a = await getSession(fakeReq, ourConfig);
const b = await authjs.getSession(fakeReq, theirConfig);
if (a?.user?.email !== "bench@example.com" || b?.user?.email !== "bench@example.com") throw new Error("getSession check failed");
const ours = await opsPerSecond(() => getSession(fakeReq, ourConfig));
const theirs = await opsPerSecond(() => authjs.getSession(fakeReq, theirConfig), 5);

// --- 2 and 3. HTTP, one server at a time
const results = {};
results.libauthSession = await load(`${base}/auth/session`, cookie);
results.libauthProtected = await load(`${base}/protected`, cookie);
results.libauthRss = rssMiB(libauthServer.pid);
await stop(libauthServer);

const authjsServer = await startServer("authjs", 4102);
results.authjsSession = await load("http://127.0.0.1:4102/auth/session", cookie);
results.authjsProtected = await load("http://127.0.0.1:4102/protected", cookie);
results.authjsRss = rssMiB(authjsServer.pid);
await stop(authjsServer);

const bareServer = await startServer("bare", 4103, { BARE_JSON: JSON.stringify(sessionJson) });
results.bare = await load("http://127.0.0.1:4103/bare", cookie);
results.bareRss = rssMiB(bareServer.pid);
await stop(bareServer);

// --- report
const f = (x) => Math.round(x).toLocaleString("en-US");
const pct = (x) => `${Math.round((x / results.bare.reqPerSec) * 100)}%`;
const row = (name, r) => `| ${name} | ${f(r.reqPerSec)} | ${pct(r.reqPerSec)} | ${r.p50} / ${r.p99} |`;
const pkg = JSON.parse(readFileSync(new URL("./node_modules/@auth/express/package.json", import.meta.url)));
console.log(`\n${os.cpus().length} × ${os.cpus()[0].model}, Node ${process.version}, Express 5, @auth/express ${pkg.version}; autocannon ${CONNECTIONS} connections × ${DURATION} s, on the same machine as the servers\n`);
console.log("| in-process getSession (JWT) | ops/s |\n|---|---|");
console.log(`| libauth | ${f(ours)} |\n| Auth.js | ${f(theirs)} |\n| ratio | ${(ours / theirs).toFixed(1)}x |\n`);
console.log("| HTTP | req/s | vs bare Express | latency p50 / p99 ms |\n|---|---|---|---|");
console.log(row("bare Express route, same JSON", results.bare));
console.log(row("libauth GET /auth/session", results.libauthSession));
console.log(row("libauth protected route (getSession)", results.libauthProtected));
console.log(row("Auth.js GET /auth/session", results.authjsSession));
console.log(row("Auth.js protected route (getSession)", results.authjsProtected));
console.log("\n| server RSS after load (MiB) | now | peak |\n|---|---|---|");
for (const [n, k] of [["bare Express", "bareRss"], ["libauth", "libauthRss"], ["Auth.js", "authjsRss"]]) {
  console.log(`| ${n} | ${results[k].rss.toFixed(1)} | ${results[k].peak.toFixed(1)} |`);
}
