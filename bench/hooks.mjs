// Sign-ins whose `authorize` awaits I/O: libauth vs Auth.js (@auth/express)
// in one run. Each server runs with `AUTHORIZE_MS` (default 50) and is
// pinned to one core, the load generator (`hooks-load.mjs`) to the other;
// CLIENTS concurrent clients each loop "GET csrf, POST callback/credentials"
// for SECONDS; ROUNDS rounds per server, alternating; the median and the
// spread (min–max) are reported and written to results/hooks.md, which
// run.sh copies into bench/RESULTS.md.
//
// Run by hand: `./bench/run.sh hooks` (builds the release addon first).
import { spawn } from "node:child_process";
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import os from "node:os";

const here = fileURLToPath(new URL(".", import.meta.url));
const CLIENTS = Number(process.env.CLIENTS ?? 256);
const SECONDS = Number(process.env.SECONDS ?? 8);
const ROUNDS = Number(process.env.ROUNDS ?? 3);
const AUTHORIZE_MS = Number(process.env.AUTHORIZE_MS ?? 50);
const SERVER_CPU = process.env.SERVER_CPU ?? "1";
const LOAD_CPU = process.env.LOAD_CPU ?? "0";
process.env.AUTH_SECRET ??= "libauth-benchmark-secret-0123456789abcdef";

/** `taskset -c <cpu> node <script> …`, or plain node where taskset is missing. */
function pinned(cpu, script, args, env) {
  return spawn("taskset", ["-c", cpu, process.execPath, script, ...args], {
    env: { ...process.env, ...env },
    stdio: ["ignore", "pipe", "inherit"],
  });
}

async function startServer(impl, port) {
  const child = pinned(SERVER_CPU, `${here}server.mjs`, [impl, String(port)], { AUTHORIZE_MS: String(AUTHORIZE_MS) });
  for (let i = 0; i < 100; i++) {
    try {
      if ((await fetch(`http://127.0.0.1:${port}/ready`)).ok) return child;
    } catch {
      /* not listening yet */
    }
    await new Promise((r) => setTimeout(r, 100));
  }
  child.kill();
  throw new Error(`${impl} did not start`);
}

function runLoad(url) {
  return new Promise((resolve, reject) => {
    const child = pinned(LOAD_CPU, `${here}hooks-load.mjs`, [url, String(CLIENTS), String(SECONDS)], {});
    let out = "";
    child.stdout.on("data", (d) => (out += d));
    child.on("exit", (code) =>
      code === 0 ? resolve(JSON.parse(out)) : reject(new Error(`load exited ${code}: ${out}`)),
    );
  });
}

const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
const results = { libauth: [], authjs: [] };
const ports = { libauth: 4201, authjs: 4202 };
const servers = {};
for (const impl of Object.keys(ports)) servers[impl] = await startServer(impl, ports[impl]);
try {
  for (const impl of Object.keys(ports)) await runLoad(`http://127.0.0.1:${ports[impl]}`); // warm-up
  for (let round = 0; round < ROUNDS; round++) {
    for (const impl of Object.keys(ports)) results[impl].push(await runLoad(`http://127.0.0.1:${ports[impl]}`));
  }
} finally {
  for (const child of Object.values(servers)) child.kill();
}

const f = (x) => Math.round(x).toLocaleString("en-US");
const row = (name, rs) => {
  const rates = rs.map((r) => r.signInsPerSec);
  const p50s = rs.map((r) => r.p50);
  const errors = rs.reduce((n, r) => n + r.errors, 0);
  return `| ${name} | ${f(median(rates))} (${f(Math.min(...rates))}–${f(Math.max(...rates))}) | ${f(median(p50s))} | ${f(median(rs.map((r) => r.p99)))} | ${errors} |`;
};
const pkg = JSON.parse(readFileSync(new URL("./node_modules/@auth/express/package.json", import.meta.url)));
const ratio = median(results.libauth.map((r) => r.signInsPerSec)) / median(results.authjs.map((r) => r.signInsPerSec));
const table = [
  `Sign-ins (GET csrf + POST callback/credentials) with an \`authorize\` that awaits ${AUTHORIZE_MS} ms, ${CLIENTS} concurrent clients, ${SECONDS} s × ${ROUNDS} rounds (median, min–max); server pinned to CPU ${SERVER_CPU}, load generator to CPU ${LOAD_CPU}; ${os.cpus().length} × ${os.cpus()[0].model}, Node ${process.version}, Express 5, @auth/express ${pkg.version}; ${new Date().toISOString().slice(0, 10)}.`,
  "",
  "| server | sign-ins/s | p50 ms | p99 ms | errors |",
  "|---|---|---|---|---|",
  row("libauth", results.libauth),
  row("Auth.js", results.authjs),
  "",
  `libauth / Auth.js: ${ratio.toFixed(2)}x`,
  "",
].join("\n");
mkdirSync(`${here}results`, { recursive: true });
writeFileSync(`${here}results/hooks.md`, table);
console.log(table);
