// The load generator of hooks.mjs: `node hooks-load.mjs <origin> <clients> <seconds>`.
// Each client loops a full credentials sign-in (GET csrf, POST the form
// with the CSRF cookie) and checks it got a session cookie. Prints one JSON
// line: { signIns, signInsPerSec, p50, p99, errors }.
import { Agent, request } from "undici";

const [origin, clients, seconds] = [process.argv[2], Number(process.argv[3]), Number(process.argv[4])];
const dispatcher = new Agent({ connections: clients, pipelining: 1 });
const latencies = [];
let errors = 0;

async function signIn() {
  const csrf = await request(`${origin}/auth/csrf`, { dispatcher });
  const cookie = []
    .concat(csrf.headers["set-cookie"] ?? [])
    .map((c) => c.split(";")[0])
    .join("; ");
  const { csrfToken } = await csrf.body.json();
  const res = await request(`${origin}/auth/callback/credentials`, {
    dispatcher,
    method: "POST",
    headers: { cookie, "content-type": "application/x-www-form-urlencoded" },
    body: new URLSearchParams({ csrfToken, username: "bench" }).toString(),
  });
  await res.body.dump();
  const set = [].concat(res.headers["set-cookie"] ?? []);
  if (res.statusCode !== 302 || !set.some((c) => c.startsWith("authjs.session-token=")))
    throw new Error(`status ${res.statusCode}`);
}

const end = performance.now() + seconds * 1000;
const started = performance.now();
await Promise.all(
  Array.from({ length: clients }, async () => {
    while (performance.now() < end) {
      const t0 = performance.now();
      try {
        await signIn();
        latencies.push(performance.now() - t0);
      } catch {
        errors++;
      }
    }
  }),
);
const elapsed = (performance.now() - started) / 1000;
latencies.sort((a, b) => a - b);
const at = (q) => latencies[Math.min(latencies.length - 1, Math.floor(latencies.length * q))] ?? 0;
console.log(
  JSON.stringify({
    signIns: latencies.length,
    signInsPerSec: latencies.length / elapsed,
    p50: at(0.5),
    p99: at(0.99),
    errors,
  }),
);
await dispatcher.close();
