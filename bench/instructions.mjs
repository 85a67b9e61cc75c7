// Instructions per request, counted by valgrind's callgrind: unlike req/s
// and CPU time, the count does not depend on what else the machine is
// doing, so ratios between rows repeat from run to run (within a few %).
//
// Each server runs under `valgrind --tool=callgrind` (about 50x slower, so
// the load is a few concurrent connections, not a throughput test); after
// WARMUP requests (the JIT settles) the counters are zeroed and ROUNDS
// batches of BATCH requests are counted, each dumped on its own. Reported:
// the median instructions per request (min–max), the ratio to the bare route
// of the same server kind, both for all threads and for the main thread
// alone (V8's background compiler and GC threads move a batch's total by up
// to ~10%; the main thread's count repeats far better), and the share spent
// in each object: JIT-compiled
// JavaScript (no object file), node itself (V8's runtime, libuv, the HTTP
// parser), the libauth addon (the engine and its napi glue), and libc and
// other libraries (OpenSSL for Express's ETag, the kernel's part is not
// counted).
//
// Run by hand: `./bench/run.sh instructions` (writes results/instructions.md).
import { execFileSync, spawn } from "node:child_process";
import { mkdtempSync, readdirSync, readFileSync, writeFileSync, mkdirSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import autocannon from "autocannon";
import { signedInSession } from "./sign-in.mjs";

const here = fileURLToPath(new URL(".", import.meta.url));
const WARMUP = Number(process.env.CG_WARMUP ?? 4000);
const BATCH = Number(process.env.CG_BATCH ?? 1000);
const ROUNDS = Number(process.env.CG_ROUNDS ?? 3);
process.env.AUTH_SECRET ??= "libauth-benchmark-secret-0123456789abcdef";
const PORT = 4401;

function startPlain(impl, port, env = {}) {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [`${here}server.mjs`, impl, String(port)], {
      env: { ...process.env, ...env },
      stdio: ["ignore", "inherit", "inherit", "ipc"],
    });
    child.once("message", () => resolve(child));
    child.once("exit", (code) => reject(new Error(`${impl} exited (${code})`)));
  });
}

// A session cookie and the session JSON, from a libauth server.
const issuer = await startPlain("libauth", PORT + 1);
const base = `http://127.0.0.1:${PORT + 1}`;
const { cookie, sessionJson } = await signedInSession(base);
issuer.kill();

const control = (pid, ...args) => execFileSync("callgrind_control", [...args, String(pid)], { stdio: "ignore" });
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

/** Self cost (Ir) per object file, from one callgrind output file. */
function costByObject(file) {
  const byObject = new Map();
  const names = new Map();
  let object = "???";
  let skipNext = false;
  let total = 0;
  for (const line of readFileSync(file, "utf8").split("\n")) {
    if (line.startsWith("ob=") || line.startsWith("cob=")) {
      // `ob=(n) name` the first time an object appears (in ob= or cob=),
      // `ob=(n)` after that.
      const m = /^c?ob=(?:\((\d+)\))?\s*(.*)$/.exec(line);
      if (m[2] && m[1]) names.set(m[1], m[2]);
      if (line.startsWith("ob=")) object = m[2] || names.get(m[1]) || "???";
    } else if (line.startsWith("calls=")) {
      skipNext = true; // the next line is the call's inclusive cost
    } else if (/^[+\-*\d]/.test(line)) {
      if (skipNext) {
        skipNext = false;
        continue;
      }
      const fields = line.trim().split(/\s+/);
      const ir = Number(fields[fields.length - 1]);
      if (Number.isFinite(ir)) {
        byObject.set(object, (byObject.get(object) ?? 0) + ir);
        total += ir;
      }
    }
  }
  return { byObject, total };
}

// V8's generated code lives in anonymous memory, which valgrind charges to
// the node binary (or to no object): both count as "node".
function group(object) {
  if (/libauth[^/]*\.node$/.test(object)) return "libauth addon (engine + napi glue)";
  if (object === "???" || /\/node$|\/nodejs$/.test(object)) return "node (V8, JavaScript, libuv, HTTP parser)";
  return "libc and other libraries";
}

async function count(row) {
  const dir = mkdtempSync(path.join(os.tmpdir(), "libauth-cg-"));
  const child = spawn(
    "valgrind",
    [
      "--tool=callgrind",
      "--instr-atstart=no",
      "--separate-threads=yes",
      `--callgrind-out-file=${dir}/cg.out`,
      process.execPath,
      `${here}server.mjs`,
      row.server,
      String(PORT),
    ],
    { env: { ...process.env, BARE_JSON: sessionJson }, stdio: "ignore" },
  );
  try {
    const url = `http://127.0.0.1:${PORT}${row.path}`;
    for (let i = 0; ; i++) {
      try {
        if ((await fetch(`http://127.0.0.1:${PORT}/ready`)).ok) break;
      } catch {
        if (i > 240) throw new Error(`${row.server} did not start under valgrind`);
        await sleep(500);
      }
    }
    const check = await fetch(url, { headers: { cookie }, redirect: "manual" });
    if (check.status !== 200 || !(await check.text()).includes("bench@example.com"))
      throw new Error(`${url}: ${check.status}`);
    control(child.pid, "-i", "on");
    await autocannon({ url, connections: 4, amount: WARMUP, headers: { cookie }, timeout: 60 });
    control(child.pid, "-z");
    for (let round = 0; round < ROUNDS; round++) {
      const r = await autocannon({ url, connections: 4, amount: BATCH, headers: { cookie }, timeout: 60 });
      if (r.non2xx || r.errors) throw new Error(`${url}: ${r.non2xx} non-2xx, ${r.errors} errors`);
      control(child.pid, "-d");
      await sleep(500);
    }
  } finally {
    child.kill("SIGKILL");
    await new Promise((r) => child.once("exit", r));
  }
  console.error(`${row.name}: dumps in ${dir}`);
  return dumpsIn(dir);
}

/**
 * Each dump's cost: all threads summed (by object and in total), and the
 * main thread's total on its own. Callgrind writes one file per thread and
 * dump (`cg.out.<dump>-<thread>`, thread 1 the main one).
 */
function dumpsIn(dir) {
  const byDump = new Map();
  for (const f of readdirSync(dir)) {
    const m = /^cg\.out\.(\d+)-(\d+)$/.exec(f);
    if (!m) continue;
    const dump = Number(m[1]);
    if (!byDump.has(dump)) byDump.set(dump, { byObject: new Map(), total: 0, main: 0 });
    const sum = byDump.get(dump);
    const cost = costByObject(path.join(dir, f));
    for (const [object, ir] of cost.byObject) sum.byObject.set(object, (sum.byObject.get(object) ?? 0) + ir);
    sum.total += cost.total;
    if (m[2] === "01") sum.main = cost.total;
  }
  const dumps = [...byDump.keys()].sort((a, b) => a - b).map((d) => byDump.get(d));
  if (dumps.length !== ROUNDS) throw new Error(`${dir}: expected ${ROUNDS} dumps, got ${dumps.length}`);
  return dumps;
}

const rows = [
  { name: "bare Express route, same JSON", server: "bare", path: "/bare" },
  { name: "libauth `GET /auth/session` (Express)", server: "libauth", path: "/auth/session", vs: 0 },
  { name: "libauth protected route, `getSession` (Express)", server: "libauth", path: "/protected", vs: 0 },
  { name: "bare node:http route, same JSON", server: "http-bare", path: "/bare" },
  { name: "libauth `GET /auth/session` (node:http)", server: "http-libauth", path: "/auth/session", vs: 3 },
  { name: "libauth protected route, `getSession` (node:http)", server: "http-libauth", path: "/protected", vs: 3 },
];
// CG_DIRS=dir,dir,…: re-read the dumps of an earlier run (one directory per
// row, in order) instead of counting again.
const reuse = process.env.CG_DIRS?.split(",");
for (const [i, row] of rows.entries()) {
  row.dumps = reuse ? dumpsIn(reuse[i]) : await count(row);
  row.perReq = row.dumps.map((d) => d.total / BATCH);
  row.mainPerReq = row.dumps.map((d) => d.main / BATCH);
  console.error(
    `${row.name}: ${row.perReq.map((x) => Math.round(x)).join(", ")} instructions/request (main thread ${row.mainPerReq.map((x) => Math.round(x)).join(", ")})`,
  );
}

const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
const k = (x) => `${(x / 1000).toFixed(0)}k`;
const groups = [
  "node (V8, JavaScript, libuv, HTTP parser)",
  "libauth addon (engine + napi glue)",
  "libc and other libraries",
];
const lines = [
  `Instructions per request (valgrind ${execFileSync("valgrind", ["--version"], { encoding: "utf8" }).trim()}, Node ${process.version}): ${WARMUP} requests of warm-up, then ${ROUNDS} batches of ${BATCH} (4 connections), counted separately; median (min–max). ` +
    `All threads, and the main thread alone (the JavaScript, the HTTP work and the engine run there; V8's background compiler and GC threads vary from batch to batch). ${new Date().toISOString().slice(0, 16).replace("T", " ")} UTC.`,
  "",
  `| HTTP | instructions/req | vs bare route | main thread | vs bare, main thread | ${groups.join(" | ")} |`,
  `|---|---|---|---|---|${groups.map(() => "---|").join("")}`,
];
for (const row of rows) {
  const m = median(row.perReq);
  const main = median(row.mainPerReq);
  const ratio = row.vs === undefined ? "100%" : `${Math.round((median(rows[row.vs].perReq) / m) * 100)}%`;
  const mainRatio = row.vs === undefined ? "100%" : `${Math.round((median(rows[row.vs].mainPerReq) / main) * 100)}%`;
  const mid = row.dumps[row.perReq.indexOf(m)];
  const shares = groups.map((g) => {
    let sum = 0;
    for (const [object, ir] of mid.byObject) if (group(object) === g) sum += ir;
    return k(sum / BATCH);
  });
  const range = (xs) => `${k(median(xs))} (${k(Math.min(...xs))}–${k(Math.max(...xs))})`;
  lines.push(
    `| ${row.name} | ${range(row.perReq)} | ${ratio} | ${range(row.mainPerReq)} | ${mainRatio} | ${shares.join(" | ")} |`,
  );
}
const table = `${lines.join("\n")}\n`;
mkdirSync(`${here}results`, { recursive: true });
writeFileSync(`${here}results/instructions.md`, table);
console.log(table);
