// Where a request's server time goes: runs one benchmark server under
// `node --cpu-prof`, pinned to SERVER_CPU, loads one route with autocannon
// from this process (pin it to another CPU: `./bench/run.sh profile` does),
// then splits the server's CPU time per request by who spent it:
//
//   engine + napi   self time of the lib/native.js functions that call the
//                   addon (the addon's own frames are not visible to V8's
//                   profiler, so they are charged to their JS caller)
//   JS adapter      the rest of bindings/node/lib
//   Express         express, router and their dependencies
//   node http       node: internals (parser, headers, socket writes)
//   GC              the garbage collector
//   other           everything else (program, the route's own code)
//
// µs/req = the server's CPU time (from /proc) × the category's share of the
// profile's busy samples ÷ requests served.
//
//   node profile.mjs <server kind> <path> [seconds]   e.g. libauth /auth/session
import { execFileSync, spawn } from "node:child_process";
import { mkdtempSync, readdirSync, readFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import autocannon from "autocannon";
import { signedInSession } from "./sign-in.mjs";

const here = fileURLToPath(new URL(".", import.meta.url));
const [kind = "libauth", route = "/auth/session", secondsArg = "8"] = process.argv.slice(2);
const SECONDS = Number(secondsArg);
const SERVER_CPU = process.env.SERVER_CPU ?? "0";
process.env.AUTH_SECRET ??= "libauth-benchmark-secret-0123456789abcdef";
const PORT = 4301;
const TICK = Number(execFileSync("getconf", ["CLK_TCK"], { encoding: "utf8" }).trim()) || 100;

function cpuSeconds(pid) {
  const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
  const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
  return (Number(fields[11]) + Number(fields[12])) / TICK;
}

function start(impl, port, env, args = []) {
  return new Promise((resolve, reject) => {
    const child = spawn(
      "taskset",
      ["-c", SERVER_CPU, process.execPath, ...args, `${here}server.mjs`, impl, String(port)],
      {
        env: { ...process.env, ...env },
        stdio: ["ignore", "inherit", "inherit", "ipc"],
      },
    );
    child.once("message", () => resolve(child));
    child.once("exit", (code) => reject(new Error(`${impl} exited (${code})`)));
  });
}

// A session cookie and the session JSON, from a libauth server.
const issuer = await start("libauth", PORT + 1, {});
const base = `http://127.0.0.1:${PORT + 1}`;
const { cookie, sessionJson } = await signedInSession(base);
issuer.kill();

const dir = mkdtempSync(path.join(os.tmpdir(), "libauth-prof-"));
const server = await start(kind, PORT, { BARE_JSON: sessionJson }, ["--cpu-prof", `--cpu-prof-dir=${dir}`]);
const url = `http://127.0.0.1:${PORT}${route}`;
const check = await fetch(url, { headers: { cookie }, redirect: "manual" });
if (check.status !== 200) throw new Error(`${url}: ${check.status}`);
await autocannon({ url, connections: 32, duration: 2, headers: { cookie } }); // warm-up (profiled too, discounted below)
const cpu0 = cpuSeconds(server.pid);
const r = await autocannon({ url, connections: 32, duration: SECONDS, headers: { cookie } });
const cpu = cpuSeconds(server.pid) - cpu0;
await new Promise((resolve) => {
  server.once("exit", resolve);
  server.kill("SIGTERM");
});

const profile = JSON.parse(readFileSync(path.join(dir, readdirSync(dir)[0]), "utf8"));
const nodes = new Map(profile.nodes.map((n) => [n.id, n]));
const callers = new Set(["handle", "getSession", "getSessionJson"]);
function category(node) {
  const { url: file, functionName } = node.callFrame;
  if (functionName === "(garbage collector)") return "GC";
  if (functionName === "(idle)") return "idle";
  if (file.includes("bindings/node/lib/native.js") && callers.has(functionName)) return "engine + napi";
  if (file.includes("bindings/node/lib/")) return "JS adapter";
  if (
    /node_modules\/(express|router|finalhandler|send|serve-static|body-parser|parseurl|path-to-regexp|qs|accepts|type-is|content-type|etag|fresh|on-finished|debug|ms|mime|depd|encodeurl|escape-html|proxy-addr|forwarded|ipaddr\.js|range-parser|vary|cookie|cookie-signature|merge-descriptors|statuses|http-errors|setprototypeof|inherits|toidentifier|utils-merge|methods|media-typer|negotiator|safe-buffer|content-disposition)\//.test(
      file,
    )
  )
    return "Express";
  if (
    file.startsWith("node:") ||
    functionName === "writev" ||
    functionName === "writeUtf8String" ||
    functionName === "writeLatin1String"
  )
    return "node http";
  return "other";
}
// Samples are timestamped relative to profile.startTime (µs, monotonic):
// keep those from the last SECONDS of the run (the measured load).
const totals = new Map();
let t = profile.startTime;
const times = profile.samples.map((_, i) => (t += profile.timeDeltas[i]));
const from = profile.endTime - SECONDS * 1e6 - 200e3; // the profile ends at exit, ~0.2 s after the load
for (let i = 0; i < profile.samples.length; i++) {
  if (times[i] < from) continue;
  const c = category(nodes.get(profile.samples[i]));
  totals.set(c, (totals.get(c) ?? 0) + (profile.timeDeltas[i] ?? 0));
}
totals.delete("idle");
const busy = [...totals.values()].reduce((a, b) => a + b, 0);
const perReq = (cpu / r.requests.total) * 1e6;
console.log(
  `${kind} ${route}: ${Math.round(r.requests.total / SECONDS)} req/s, server CPU ${perReq.toFixed(1)} µs/req`,
);
for (const c of ["Express", "JS adapter", "engine + napi", "node http", "GC", "other"]) {
  const share = (totals.get(c) ?? 0) / busy;
  console.log(`  ${c.padEnd(14)} ${(share * perReq).toFixed(1).padStart(6)} µs/req  (${(share * 100).toFixed(0)}%)`);
}
