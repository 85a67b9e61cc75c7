// libauth vs Auth.js (@auth/express 0.12.3) and bare routes, every row in
// one run, same secret, same session cookie (the two read each other's):
//
// 1. in-process getSession (JWT strategy): libauth from JavaScript, the
//    addon call alone, the Rust engine's own `get_session` (bench/engine),
//    and Auth.js;
// 2. HTTP req/s (autocannon) of GET /auth/session and of a protected route,
//    on Express 5 and on plain node:http, each against a bare route of the
//    same server kind answering the same JSON; plus the server's CPU time
//    per request (from /proc, independent of how busy the load generator
//    is);
// 3. server RSS after the load.
//
// Every server runs pinned to SERVER_CPU and this process (the load
// generator) to LOAD_CPU (`taskset`; run.sh pins this process). Each of
// ROUNDS rounds starts the servers afresh, warms every row up, then runs
// every row in turn; the median and the spread (min–max) are reported,
// ratios within each round. The table goes
// to bench/results/http.md, which run.sh copies into bench/RESULTS.md.
//
// Run by hand: `./bench/run.sh`. Not a test: numbers depend on the machine
// and on whatever else it is doing (the load average is recorded).
import { execFileSync, spawn } from "node:child_process";
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { fileURLToPath } from "node:url";
import os from "node:os";
import autocannon from "autocannon";
import { signedInSession } from "./sign-in.mjs";

const SECRET = process.env.AUTH_SECRET ?? "libauth-benchmark-secret-0123456789abcdef";
process.env.AUTH_SECRET = SECRET;
const DURATION = Number(process.env.BENCH_SECONDS ?? 5);
const WARMUP = Number(process.env.BENCH_WARMUP ?? 2);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 5);
const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS ?? 32);
const SERVER_CPU = process.env.SERVER_CPU ?? "0";
const LOAD_CPU = process.env.LOAD_CPU ?? "1";
const ENGINE_BENCH = process.env.ENGINE_BENCH; // the libauth-bench binary (run.sh builds it)
const PRIORITY = process.env.BENCH_NICE
  ? `Servers and load generator at nice ${process.env.BENCH_NICE}`
  : "Default scheduling priority";
const here = fileURLToPath(new URL(".", import.meta.url));
const loadAtStart = os.loadavg();

const { ServerAuth, getSession, Credentials } = await import("libauth");
// The package's own engine cache (node_modules/libauth links to bindings/node).
const { instanceFor } = createRequire(import.meta.url)("../bindings/node/lib/native.js");
const authjs = await import("@auth/express");
const { default: AuthjsCredentials } = await import("@auth/express/providers/credentials");

// --- servers, each pinned to SERVER_CPU
function startServer(impl, port, env = {}) {
  return new Promise((resolve, reject) => {
    const child = spawn("taskset", ["-c", SERVER_CPU, process.execPath, `${here}server.mjs`, impl, String(port)], {
      env: { ...process.env, ...env },
      stdio: ["ignore", "inherit", "inherit", "ipc"],
    });
    child.once("message", () => resolve(child));
    child.once("error", reject);
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

const TICK = Number(execFileSync("getconf", ["CLK_TCK"], { encoding: "utf8" }).trim()) || 100;
/** CPU seconds (user + system) the process has used. */
function cpuSeconds(pid) {
  const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
  const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
  return (Number(fields[11]) + Number(fields[12])) / TICK; // utime, stime
}

async function check(url, cookie) {
  // A benchmark of redirects would be meaningless: check the answer first.
  const res = await fetch(url, { headers: { cookie }, redirect: "manual" });
  const body = await res.text();
  if (res.status !== 200 || !body.includes("bench@example.com"))
    throw new Error(`${url}: ${res.status} ${body.slice(0, 200)}`);
}

async function load(row, seconds) {
  const pid = servers[row.server].pid;
  const cpu0 = cpuSeconds(pid);
  const r = await autocannon({ url: row.url, connections: CONNECTIONS, duration: seconds, headers: { cookie } });
  const cpu = cpuSeconds(pid) - cpu0;
  if (r.non2xx || r.errors || r.timeouts)
    throw new Error(`${row.url}: ${r.non2xx} non-2xx, ${r.errors} errors, ${r.timeouts} timeouts`);
  return {
    reqPerSec: r.requests.total / seconds,
    p50: r.latency.p50,
    p99: r.latency.p99,
    cpuUs: (cpu / r.requests.total) * 1e6,
  };
}

async function opsPerSecond(fn, seconds = 1) {
  for (let i = 0; i < 2000; i++) await fn(); // warm-up
  const rounds = [];
  for (let round = 0; round < 5; round++) {
    let n = 0;
    const t0 = performance.now();
    const end = t0 + (seconds * 1000) / 5;
    while (performance.now() < end) {
      for (let i = 0; i < 100; i++) await fn();
      n += 100;
    }
    rounds.push(((performance.now() - t0) * 1000) / n);
  }
  return spread(rounds); // µs per op
}

function spread(xs) {
  const s = [...xs].sort((a, b) => a - b);
  return { median: s[Math.floor(s.length / 2)], min: s[0], max: s[s.length - 1] };
}

const ports = { bare: 4103, libauth: 4101, "http-bare": 4105, "http-libauth": 4104, authjs: 4102 };
const servers = {};
for (const impl of Object.keys(ports)) servers[impl] = null;
// Never leave a server behind, whatever happens.
process.on("exit", () => {
  for (const child of Object.values(servers)) child?.kill("SIGKILL");
});

// --- a session cookie, issued by libauth through its HTTP routes
servers.libauth = await startServer("libauth", ports.libauth);
const base = `http://127.0.0.1:${ports.libauth}`;
const signedIn = await signedInSession(base);
const cookie = signedIn.cookie;
const sessionJson = JSON.parse(signedIn.sessionJson);
const serverEnv = { BARE_JSON: JSON.stringify(sessionJson) };
for (const impl of Object.keys(ports)) {
  servers[impl] ??= await startServer(impl, ports[impl], serverEnv);
}

// --- 1. in-process getSession, on LOAD_CPU (this process), before the HTTP load
const user = { id: "1", name: "Bench User", email: "bench@example.com" };
const ourConfig = {
  secret: SECRET,
  trustHost: true,
  providers: [Credentials({ credentials: {}, authorize: () => user })],
};
ServerAuth(ourConfig);
const theirConfig = {
  secret: SECRET,
  trustHost: true,
  providers: [AuthjsCredentials({ credentials: {}, authorize: () => user })],
};
const fakeReq = {
  protocol: "http",
  headers: { host: "127.0.0.1:4101", cookie },
  originalUrl: "/protected",
  url: "/protected",
};
const a = await getSession(fakeReq, ourConfig);
const b = await authjs.getSession(fakeReq, theirConfig);
if (a?.user?.email !== "bench@example.com" || b?.user?.email !== "bench@example.com")
  throw new Error("getSession check failed");
const addon = instanceFor(ourConfig).native;
const addonUrl = "http://127.0.0.1:4101/protected";
// As getSession calls it: the session as JSON, parsed here.
if (JSON.parse(addon.getSessionJson(addonUrl, cookie))?.user?.email !== "bench@example.com")
  throw new Error("getSessionJson check failed");
// The engine's own figure (its binary, on this same core) and ours,
// interleaved round by round so that machine load affects both alike.
function engineMicros() {
  const out = execFileSync("taskset", ["-c", LOAD_CPU, ENGINE_BENCH, "get_session (JWT, no"], { encoding: "utf8" });
  const m = /^get_session \(JWT, no callbacks\)\s+\d+ ops\/s\s+([\d.]+) µs\/op/m.exec(out);
  if (!m) throw new Error(`unexpected libauth-bench output:\n${out}`);
  return Number(m[1]);
}
const perRound = { engine: [], addon: [], libauth: [] };
for (let round = 0; round < ROUNDS; round++) {
  if (ENGINE_BENCH) perRound.engine.push(engineMicros());
  perRound.addon.push((await opsPerSecond(() => JSON.parse(addon.getSessionJson(addonUrl, cookie)), 1)).median);
  perRound.libauth.push((await opsPerSecond(() => getSession(fakeReq, ourConfig), 1)).median);
}
const inProcess = {
  engine: ENGINE_BENCH ? spread(perRound.engine) : null,
  addon: spread(perRound.addon),
  libauth: spread(perRound.libauth),
  authjs: await opsPerSecond(() => authjs.getSession(fakeReq, theirConfig), 2),
};

// --- 2. HTTP: every row, warmed up, then ROUNDS rounds of every row in turn
const rows = [
  { name: "bare Express route, same JSON", server: "bare", path: "/bare" },
  { name: "libauth `GET /auth/session` (Express)", server: "libauth", path: "/auth/session", vs: "bare" },
  { name: "libauth protected route, `getSession` (Express)", server: "libauth", path: "/protected", vs: "bare" },
  { name: "bare node:http route, same JSON", server: "http-bare", path: "/bare" },
  { name: "libauth `GET /auth/session` (node:http)", server: "http-libauth", path: "/auth/session", vs: "http-bare" },
  {
    name: "libauth protected route, `getSession` (node:http)",
    server: "http-libauth",
    path: "/protected",
    vs: "http-bare",
  },
  { name: "Auth.js `GET /auth/session` (Express)", server: "authjs", path: "/auth/session", vs: "bare" },
  { name: "Auth.js protected route, `getSession` (Express)", server: "authjs", path: "/protected", vs: "bare" },
];
for (const row of rows) {
  row.url = `http://127.0.0.1:${ports[row.server]}${row.path}`;
  row.runs = [];
  await check(row.url, cookie);
}
// Every round after the first starts every server afresh. A process's
// memory layout (where ASLR puts its heap and code) moves its speed by
// several percent for its whole life: one process per row for the whole
// run would carry that bias into every round. Fresh processes turn it into
// round-to-round spread, which the min–max shows.
for (let round = 0; round < ROUNDS; round++) {
  if (round > 0) {
    for (const impl of Object.keys(ports)) {
      await stop(servers[impl]);
      servers[impl] = await startServer(impl, ports[impl], serverEnv);
    }
  }
  for (const row of rows) await load(row, WARMUP);
  for (const row of rows) row.runs.push(await load(row, DURATION));
}
const rss = {};
for (const [impl, child] of Object.entries(servers)) {
  rss[impl] = rssMiB(child.pid);
  await stop(child);
}
const loadAtEnd = os.loadavg();

// --- report
const f = (x) => Math.round(x).toLocaleString("en-US");
const us = (s) => `${s.median.toFixed(2)} (${s.min.toFixed(2)}–${s.max.toFixed(2)})`;
const pctOf = (s) => `${Math.round(s.median * 100)}% (${Math.round(s.min * 100)}–${Math.round(s.max * 100)})`;
const bareOf = Object.fromEntries(rows.filter((r) => !r.vs).map((r) => [r.server, r]));
const lines = [];
const pkg = JSON.parse(readFileSync(new URL("./node_modules/@auth/express/package.json", import.meta.url)));
const la = (l) => l.map((x) => x.toFixed(2)).join(" ");
lines.push(
  `${new Date().toISOString().slice(0, 16).replace("T", " ")} UTC; ${os.cpus().length} × ${os.cpus()[0].model}; Node ${process.version}, Express 5, @auth/express ${pkg.version}. ` +
    `Servers pinned to CPU ${SERVER_CPU}, load generator (autocannon, ${CONNECTIONS} connections) and in-process loops to CPU ${LOAD_CPU}; ` +
    `${ROUNDS} rounds, each on freshly started servers: ${WARMUP} s of warm-up per row, then ${DURATION} s of every row in turn; median (min–max over rounds). ` +
    `${PRIORITY}. Load average ${la(loadAtStart)} at start, ${la(loadAtEnd)} at end (above 0 means other work shared the machine).`,
  "",
  `In-process \`getSession\` (JWT strategy, a signed-in cookie): ${ROUNDS} rounds, engine and libauth interleaved (median of each round's 5 slices; min–max over rounds); Auth.js once.`,
  "",
  "| in-process `getSession` (JWT) | µs/op | ops/s | vs the engine |",
  "|---|---|---|---|",
);
const engine = inProcess.engine;
const vsEngine = (s) => (engine ? `${(s.median / engine.median).toFixed(2)}x` : "—");
if (engine)
  lines.push(
    `| Rust engine \`get_session\` (\`libauth-bench\`, same core) | ${us(engine)} | ${f(1e6 / engine.median)} | 1x |`,
  );
lines.push(
  `| libauth addon call \`getSessionJson\` + \`JSON.parse\` | ${us(inProcess.addon)} | ${f(1e6 / inProcess.addon.median)} | ${vsEngine(inProcess.addon)} |`,
);
lines.push(
  `| libauth \`await getSession(req, config)\` | ${us(inProcess.libauth)} | ${f(1e6 / inProcess.libauth.median)} | ${vsEngine(inProcess.libauth)} |`,
);
lines.push(
  `| Auth.js \`await getSession(req, config)\` | ${us(inProcess.authjs)} | ${f(1e6 / inProcess.authjs.median)} | ${vsEngine(inProcess.authjs)} |`,
);
lines.push(
  "",
  `HTTP: req/s and its ratio to the bare route of the same server kind in the same round; the server's CPU time per request (from /proc) and the same ratio computed from it (bare CPU ÷ this row's CPU: what the req/s ratio would be with the server as the only bottleneck).`,
  "",
  "| HTTP | req/s | vs bare route | server CPU µs/req | vs bare, by CPU | p50 / p99 ms |",
  "|---|---|---|---|---|---|",
);
for (const row of rows) {
  const rate = spread(row.runs.map((r) => r.reqPerSec));
  const cpu = spread(row.runs.map((r) => r.cpuUs));
  const ratio = row.vs ? pctOf(spread(row.runs.map((r, i) => r.reqPerSec / bareOf[row.vs].runs[i].reqPerSec))) : "100%";
  const cpuRatio = row.vs ? pctOf(spread(row.runs.map((r, i) => bareOf[row.vs].runs[i].cpuUs / r.cpuUs))) : "100%";
  const lat = `${spread(row.runs.map((r) => r.p50)).median} / ${spread(row.runs.map((r) => r.p99)).median}`;
  lines.push(
    `| ${row.name} | ${f(rate.median)} (${f(rate.min)}–${f(rate.max)}) | ${ratio} | ${cpu.median.toFixed(0)} (${cpu.min.toFixed(0)}–${cpu.max.toFixed(0)}) | ${cpuRatio} | ${lat} |`,
  );
}
lines.push("", "| server RSS after load (MiB) | now | peak |", "|---|---|---|");
for (const [name, impl] of [
  ["bare Express", "bare"],
  ["libauth (Express)", "libauth"],
  ["bare node:http", "http-bare"],
  ["libauth (node:http)", "http-libauth"],
  ["Auth.js (Express)", "authjs"],
]) {
  lines.push(`| ${name} | ${rss[impl].rss.toFixed(1)} | ${rss[impl].peak.toFixed(1)} |`);
}
const table = `${lines.join("\n")}\n`;
mkdirSync(`${here}results`, { recursive: true });
writeFileSync(`${here}results/http.md`, table);
console.log(`\n${table}`);
