// Email + password sign-ins over HTTP: libauth's `password` provider
// (Argon2id, OWASP defaults) vs Better Auth's email + password (scrypt), by
// hand, never in tests; run by bench/passwords/run.sh, which builds the
// release addon, installs Better Auth, runs its migrations and writes this
// script's stdout (markdown) into its section of bench/RESULTS.md.
//
// Every server is Express 5 on SQLite (a file in $WORK), pinned to CPU
// $SERVER_CPU (0); the load generator (load.mjs) to CPU $LOAD_CPU (1).
//
//  1. Sign-ins per second: CLIENTS (100) concurrent clients, client i
//     signing in as user i (its own account; the right password) again and
//     again on its own keep-alive connection, WARMUP (15) s (100 clients
//     take seconds to go round once) then SECONDS (12) s measured, ROUNDS
//     (3) rounds; each round starts every server afresh
//     (peak RSS is that server's VmHWM) and runs the rows in a rotating
//     order. Server CPU time per sign-in from /proc/<pid>/stat (utime +
//     stime, every thread) between the end of the warm-up and the last
//     answer, divided by the sign-ins completed in between. Rows: libauth
//     with the default hashing queue (maxQueued 64: with 100 clients some
//     are answered 503 + Retry-After, counted apart; such a client waits
//     the Retry-After), libauth with maxQueued 200 (every client waits its
//     turn), Better Auth, and a diagnostic row: libauth with maxQueued 200
//     and glibc's mmap threshold fixed (GLIBC_TUNABLES), so that every
//     19 MiB Argon2 block is mmapped and unmapped rather than kept in the
//     worker threads' malloc arenas (the peak RSS column shows why).
//  2. Unknown vs existing address: one request at a time (a fresh server),
//     a wrong password for an existing address and an unknown address
//     alternating (ABBA), TIMING_N (300) of each after TIMING_WARMUP (30)
//     of each; the POST's latency as the client sees it.
//
// The accounts are created before anything is timed, through each
// server's own sign-up route (libauth: GET /auth/csrf + POST
// /auth/password/signup; Better Auth: POST /api/auth/sign-up/email).
import { spawn, execFileSync } from "node:child_process";
import { existsSync, openSync, readFileSync } from "node:fs";
import { createInterface } from "node:readline";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { PASSWORD, userEmail } from "./users.mjs";

const here = path.dirname(fileURLToPath(import.meta.url));
const env = (name, fallback) => Number(process.env[name] ?? fallback);
const CLIENTS = env("CLIENTS", 100);
const WARMUP = env("WARMUP", 15);
const SECONDS = env("SECONDS", 12);
const ROUNDS = env("ROUNDS", 3);
const TIMING_N = env("TIMING_N", 300);
const TIMING_WARMUP = env("TIMING_WARMUP", 30);
const SERVER_CPU = process.env.SERVER_CPU ?? "0";
const LOAD_CPU = process.env.LOAD_CPU ?? "1";
const WORK = process.env.WORK;
if (!WORK || !existsSync(path.join(WORK, "better-auth.db")))
  throw new Error("WORK must name a directory with better-auth.db migrated (bench/passwords/run.sh does it)");
const CLK_TCK = Number(execFileSync("getconf", ["CLK_TCK"]).toString().trim()) || 100;
const log = (...args) => console.error("[passwords]", ...args);

const DBS = { libauth: path.join(WORK, "libauth.db"), "better-auth": path.join(WORK, "better-auth.db") };
const ROWS = [
  { key: "libauth", impl: "libauth", label: "libauth, `maxQueued` 64 (default)", args: [] },
  { key: "libauth-q200", impl: "libauth", label: "libauth, `maxQueued: 200`", args: ["200"] },
  { key: "better-auth", impl: "better-auth", label: "Better Auth", args: [] },
  {
    key: "libauth-q200-mmap",
    impl: "libauth",
    label: "diagnostic: libauth, `maxQueued: 200`, `GLIBC_TUNABLES=glibc.malloc.mmap_threshold=131072`",
    args: ["200"],
    env: { GLIBC_TUNABLES: "glibc.malloc.mmap_threshold=131072" },
  },
];

let nextPort = 4300;
// The servers' stderr (libauth logs an error per wrong password) goes here.
const serverLog = openSync(path.join(WORK, "servers.log"), "a");
async function startServer(impl, args = [], extraEnv = {}) {
  const port = nextPort++;
  const child = spawn("taskset", ["-c", SERVER_CPU, process.execPath, path.join(here, "server.mjs"), impl, String(port), DBS[impl], ...args], {
    env: { ...process.env, NODE_ENV: "production", BETTER_AUTH_TELEMETRY: "0", ...extraEnv },
    stdio: ["ignore", "inherit", serverLog],
  });
  const exited = new Promise((r) => child.once("exit", r));
  const origin = `http://127.0.0.1:${port}`;
  for (let i = 0; i < 200; i++) {
    try {
      const res = await fetch(`${origin}/ready`);
      if (res.ok) {
        const { cpus } = await res.json();
        return { child, origin, cpus, pid: child.pid, stop: () => (child.kill("SIGTERM"), exited) };
      }
    } catch {
      /* not listening yet */
    }
    if (child.exitCode !== null) break;
    await new Promise((r) => setTimeout(r, 100));
  }
  child.kill("SIGKILL");
  throw new Error(`${impl} server did not start (see ${path.join(WORK, "servers.log")})`);
}

const cookiesOf = (res) =>
  res.headers
    .getSetCookie()
    .map((c) => c.split(";")[0])
    .join("; ");

async function signUp(impl, origin, email) {
  if (impl === "libauth") {
    const csrf = await fetch(`${origin}/auth/csrf`);
    const { csrfToken } = await csrf.json();
    const res = await fetch(`${origin}/auth/password/signup`, {
      method: "POST",
      redirect: "manual",
      headers: { cookie: cookiesOf(csrf), origin, "content-type": "application/x-www-form-urlencoded" },
      body: new URLSearchParams({ email, password: PASSWORD, csrfToken }).toString(),
    });
    const body = await res.text();
    // requireEmailVerification: false signs a new account in at once.
    if (res.status >= 400 || !res.headers.getSetCookie().some((c) => c.startsWith("authjs.session-token=")))
      throw new Error(`libauth sign-up of ${email}: ${res.status} ${body.slice(0, 300)}`);
  } else {
    const res = await fetch(`${origin}/api/auth/sign-up/email`, {
      method: "POST",
      headers: { origin, "content-type": "application/json" },
      body: JSON.stringify({ email, password: PASSWORD, name: email.split("@")[0] }),
    });
    const body = await res.text();
    if (res.status !== 200) throw new Error(`Better Auth sign-up of ${email}: ${res.status} ${body.slice(0, 300)}`);
  }
}

/** The CLIENTS accounts, made through a server of the kind (not timed). */
async function createUsers(impl) {
  const server = await startServer(impl);
  try {
    let next = 0;
    await Promise.all(
      Array.from({ length: 8 }, async () => {
        while (next < CLIENTS) await signUp(impl, server.origin, userEmail(next++));
      }),
    );
  } finally {
    await server.stop();
  }
  log(`${impl}: ${CLIENTS} accounts created`);
}

function cpuTicks(pid) {
  const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
  const f = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
  return Number(f[11]) + Number(f[12]); // utime, stime (fields 14 and 15)
}
const procStatus = (pid, field) => Number(new RegExp(`${field}:\\s+(\\d+)`).exec(readFileSync(`/proc/${pid}/status`, "utf8"))[1]);

/** Run load.mjs pinned to LOAD_CPU; `onLine(line)` for each line but the last, which is returned parsed. */
function runLoad(args, onLine = () => {}) {
  return new Promise((resolve, reject) => {
    const child = spawn("taskset", ["-c", LOAD_CPU, process.execPath, path.join(here, "load.mjs"), ...args], {
      stdio: ["ignore", "pipe", "inherit"],
    });
    let last = null;
    createInterface({ input: child.stdout }).on("line", (line) => {
      if (line.startsWith("{")) last = JSON.parse(line);
      else onLine(line);
    });
    child.on("exit", (code) => (code === 0 && last ? resolve(last) : reject(new Error(`load.mjs ${args.join(" ")} exited ${code}`))));
  });
}

async function throughputRound(row) {
  const server = await startServer(row.impl, row.args, row.env);
  try {
    let ticksAtGo = null;
    let wallAtGo = null;
    const result = await runLoad(["load", row.impl, server.origin, String(CLIENTS), String(WARMUP), String(SECONDS)], (line) => {
      if (line === "go") [ticksAtGo, wallAtGo] = [cpuTicks(server.pid), performance.now()];
    });
    const ticks = cpuTicks(server.pid) - ticksAtGo;
    return {
      ...result,
      cpuMsPerSignIn: ((ticks / CLK_TCK) * 1000) / result.afterGo,
      serverCpuShare: ticks / CLK_TCK / ((performance.now() - wallAtGo) / 1000),
      hwmMib: procStatus(server.pid, "VmHWM") / 1024,
      threads: procStatus(server.pid, "Threads"),
      cpus: server.cpus,
    };
  } finally {
    await server.stop();
  }
}

async function timingRun(impl) {
  const server = await startServer(impl);
  try {
    return await runLoad(["timing", impl, server.origin, String(TIMING_N), String(TIMING_WARMUP)]);
  } finally {
    await server.stop();
  }
}

// ---------------------------------------------------------------- run

await createUsers("libauth");
await createUsers("better-auth");

const results = Object.fromEntries(ROWS.map((r) => [r.key, []]));
for (let round = 0; round < ROUNDS; round++) {
  for (let j = 0; j < ROWS.length; j++) {
    const row = ROWS[(round + j) % ROWS.length];
    const r = await throughputRound(row);
    results[row.key].push(r);
    log(
      `round ${round + 1}/${ROUNDS} ${row.key}: ${r.signInsPerSec.toFixed(1)} sign-ins/s, ${r.busyPerSec.toFixed(1)} 503/s, ` +
        `${r.cpuMsPerSignIn.toFixed(1)} ms CPU/sign-in, server CPU ${(100 * r.serverCpuShare).toFixed(0)}%, ` +
        `p50 ${r.p50.toFixed(0)} ms, VmHWM ${r.hwmMib.toFixed(0)} MiB, ${r.threads} threads, errors ${r.errors}${r.firstError ? ` (${r.firstError})` : ""}`,
    );
  }
}
const timings = {};
for (const impl of ["libauth", "better-auth"]) {
  timings[impl] = await timingRun(impl);
  log(`timing ${impl}: ${JSON.stringify(timings[impl])}`);
}

// ---------------------------------------------------------------- report

const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
const spread = (xs, digits = 0) =>
  `${median(xs).toFixed(digits)} (${Math.min(...xs).toFixed(digits)}–${Math.max(...xs).toFixed(digits)})`;
const version = (pkg) => JSON.parse(readFileSync(path.join(here, "node_modules", pkg, "package.json"), "utf8")).version;
const cpus = [...new Set(Object.values(results).flat().map((r) => r.cpus))].join(", ");

const out = [];
out.push(
  `Release addon, Node ${process.version}, Express ${version("express")}, Better Auth ${version("better-auth")} ` +
    `(better-sqlite3 ${version("better-sqlite3")}); every server on SQLite (a file, WAL), pinned to CPU ${SERVER_CPU} ` +
    `(it sees ${cpus} CPU, so libauth's \`maxConcurrent\` defaults to ${cpus}), the load generator (undici) to CPU ${LOAD_CPU}. ` +
    `libauth: \`Password({ requireEmailVerification: false })\`, Argon2id with the default (OWASP) parameters ` +
    `(19 MiB, t=2, p=1), JWT sessions, rate limits off. Better Auth: \`emailAndPassword: { enabled: true }\`, ` +
    `its default scrypt (N=16384, r=16, p=1: 32 MiB, on libuv's 4 threads), database sessions (a row per sign-in), rate limits off.`,
);
out.push("");
out.push(
  `${CLIENTS} concurrent clients, client i signing in again and again as account i (its own, the right password); ` +
    `${ROUNDS} rounds of ${SECONDS} s after a ${WARMUP} s warm-up, a fresh server per row and round; median (min–max) over the rounds. ` +
    "A libauth sign-in is `GET /auth/csrf` + `POST /auth/callback/password` (302 with a session cookie), a Better Auth one " +
    "`POST /api/auth/sign-in/email` (200 with a session cookie); latency is the whole sign-in as the client sees it.",
);
out.push("");
out.push("| server | sign-ins/s | 503/s | p50 ms | p99 ms | server CPU ms per sign-in | peak RSS MiB (VmHWM) | threads at the end | errors |");
out.push("|---|---|---|---|---|---|---|---|---|");
for (const row of ROWS) {
  const rs = results[row.key];
  const col = (f, d) => spread(rs.map(f), d);
  out.push(
    `| ${row.label} | ${col((r) => r.signInsPerSec, 1)} | ${col((r) => r.busyPerSec, 1)} | ${col((r) => r.p50, 0)} | ` +
      `${col((r) => r.p99, 0)} | ${col((r) => r.cpuMsPerSignIn, 1)} | ${col((r) => r.hwmMib, 0)} | ${col((r) => r.threads, 0)} | ` +
      `${rs.reduce((n, r) => n + r.errors, 0)} |`,
  );
}
const rate = (key) => median(results[key].map((r) => r.signInsPerSec));
out.push("");
const ratio = (key) => (rate("better-auth") > 0 ? `${(rate(key) / rate("better-auth")).toFixed(2)}x` : "n/a (no Better Auth sign-in)");
out.push(
  `libauth / Better Auth, sign-ins/s (medians): ${ratio("libauth")} with the default queue, ` +
    `${ratio("libauth-q200")} with \`maxQueued: 200\`. ` +
    "Server CPU per sign-in counts every request a sign-in makes (and, in the default-queue row, the 503s); " +
    "a client answered 503 waits its `Retry-After` (1 s) before trying again. " +
    `Peak RSS is the server's VmHWM at the end of its life (${WARMUP} s warm-up, ${SECONDS} s measured, the drain): ` +
    "every waiting sign-in waits on a worker thread of the addon (the threads column), but its hashing runs on one of " +
    "the pool's `maxConcurrent` slot threads, so only those threads' malloc arenas ever hold 19 MiB Argon2 blocks; the " +
    "diagnostic row also fixes glibc's mmap threshold, so that every block is mmapped and returned, for comparison.",
);
out.push("");
out.push(
  `Unknown vs existing address, one request at a time (a fresh server each): a wrong password for an existing account and an ` +
    `unknown address, alternating, ${TIMING_N} of each after ${TIMING_WARMUP} of each; the sign-in POST's latency as the client sees it.`,
);
out.push("");
out.push("| server | existing address, wrong password: median / p90 µs | unknown address: median / p90 µs | unknown − existing, median | unknown − existing, p90 | status (existing / unknown) |");
out.push("|---|---|---|---|---|---|");
const label = { libauth: "libauth", "better-auth": "Better Auth" };
for (const impl of ["libauth", "better-auth"]) {
  const { known, unknown } = timings[impl];
  const diff = (a, b) => `${b - a >= 0 ? "+" : "−"}${Math.abs(b - a).toFixed(0)} µs (${b - a >= 0 ? "+" : "−"}${Math.abs((100 * (b - a)) / a).toFixed(1)}%)`;
  out.push(
    `| ${label[impl]} | ${known.median.toFixed(0)} / ${known.p90.toFixed(0)} | ${unknown.median.toFixed(0)} / ${unknown.p90.toFixed(0)} | ` +
      `${diff(known.median, unknown.median)} | ${diff(known.p90, unknown.p90)} | ${known.statuses.join(",")} / ${unknown.statuses.join(",")} |`,
  );
}
console.log(out.join("\n"));
