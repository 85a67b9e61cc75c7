// The load generator of bench.mjs (its own process, pinned to the other core):
//
//   node load.mjs load <impl> <origin> <clients> <warm-up s> <seconds>
//     CLIENTS concurrent clients, client i signing in again and again as
//     user i (bench-<i>@example.com, the right password), each on its own
//     keep-alive connection. After the warm-up it prints "go", after the
//     window and the requests still in flight it prints one JSON line.
//   node load.mjs timing <impl> <origin> <n> <warm-up n>
//     One request at a time: a wrong password for an existing address and
//     an unknown address, alternating (ABBA), N of each after the warm-up;
//     prints one JSON line with each kind's latencies summarised.
//
// A libauth sign-in is GET /auth/csrf then POST /auth/callback/password
// (form: email, password, csrfToken; the CSRF cookie sent back): 302 with an
// authjs.session-token cookie. A Better Auth sign-in is one POST
// /api/auth/sign-in/email (JSON { email, password }): 200 with a
// better-auth.session_token cookie. A 503 (libauth's full hashing queue) is
// counted apart, and its client waits the Retry-After it was given.
import { Agent, request } from "undici";
import { PASSWORD, userEmail } from "./users.mjs";

const [mode, impl, origin, ...rest] = process.argv.slice(2);
const cookiesOf = (res) =>
  []
    .concat(res.headers["set-cookie"] ?? [])
    .map((c) => c.split(";")[0])
    .join("; ");
const hasCookie = (res, name) => [].concat(res.headers["set-cookie"] ?? []).some((c) => c.startsWith(`${name}=`));

/** One sign-in attempt; the timed part is the POST (`t0`..`t1`). */
async function attempt(dispatcher, email, password) {
  if (impl === "libauth") {
    const csrf = await request(`${origin}/auth/csrf`, { dispatcher });
    const cookie = cookiesOf(csrf);
    const { csrfToken } = await csrf.body.json();
    const t0 = performance.now();
    const res = await request(`${origin}/auth/callback/password`, {
      dispatcher,
      method: "POST",
      headers: { cookie, origin, "content-type": "application/x-www-form-urlencoded" },
      body: new URLSearchParams({ email, password, csrfToken }).toString(),
    });
    await res.body.dump();
    const t1 = performance.now();
    return { status: res.statusCode, ok: res.statusCode === 302 && hasCookie(res, "authjs.session-token"), res, t0, t1 };
  }
  const t0 = performance.now();
  const res = await request(`${origin}/api/auth/sign-in/email`, {
    dispatcher,
    method: "POST",
    headers: { origin, "content-type": "application/json" },
    body: JSON.stringify({ email, password }),
  });
  await res.body.dump();
  const t1 = performance.now();
  return { status: res.statusCode, ok: res.statusCode === 200 && hasCookie(res, "better-auth.session_token"), res, t0, t1 };
}

const sleep = (ms) => new Promise((r) => setTimeout(r, Math.max(0, ms)));
const at = (sorted, q) => sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * q))] ?? 0;

async function load(clients, warmup, seconds) {
  const dispatcher = new Agent({ connections: clients, pipelining: 1, keepAliveTimeout: 60_000 });
  const t = performance.now();
  const go = t + warmup * 1000;
  const end = go + seconds * 1000;
  let inWindow = 0; // sign-ins completed within [go, end]
  let afterGo = 0; // completed after go, the drain included (for CPU per sign-in)
  let busy = 0; // 503s within the window
  let errors = 0;
  let firstError = null;
  const latencies = [];
  const goPrinted = sleep(go - t).then(() => process.stdout.write("go\n"));
  await Promise.all(
    Array.from({ length: clients }, async (_, i) => {
      const email = userEmail(i);
      while (performance.now() < end) {
        const start = performance.now();
        try {
          const r = await attempt(dispatcher, email, PASSWORD);
          const done = performance.now();
          if (r.ok) {
            if (done >= go) afterGo++;
            if (done >= go && done <= end) {
              inWindow++;
              latencies.push(done - start);
            }
          } else if (r.status === 503) {
            if (done >= go && done <= end) busy++;
            const wait = Number(r.res.headers["retry-after"] ?? 1) * 1000;
            await sleep(Math.min(wait, end - performance.now()));
          } else {
            errors++;
            firstError ??= `status ${r.status}`;
          }
        } catch (e) {
          errors++;
          firstError ??= String(e?.message ?? e);
        }
      }
    }),
  );
  await goPrinted;
  latencies.sort((a, b) => a - b);
  console.log(
    JSON.stringify({
      signInsPerSec: inWindow / seconds,
      signIns: inWindow,
      afterGo,
      busyPerSec: busy / seconds,
      busy,
      errors,
      firstError,
      p50: at(latencies, 0.5),
      p99: at(latencies, 0.99),
    }),
  );
  await dispatcher.close();
}

async function timing(n, warmup) {
  const dispatcher = new Agent({ connections: 1, pipelining: 1, keepAliveTimeout: 60_000 });
  const kinds = {
    known: { us: [], statuses: new Set(), next: 0, email: () => userEmail(kinds.known.next++ % 100) },
    unknown: { us: [], statuses: new Set(), next: 0, email: () => `nobody-${kinds.unknown.next++}@example.com` },
  };
  for (let i = 0; i < warmup + n; i++) {
    const order = i % 2 === 0 ? ["known", "unknown"] : ["unknown", "known"];
    for (const kind of order) {
      const k = kinds[kind];
      const r = await attempt(dispatcher, k.email(), "wrong password, not this one");
      if (r.ok) throw new Error(`${kind}: a wrong password signed in`);
      if (r.status === 503) throw new Error(`${kind}: 503 with one request at a time`);
      k.statuses.add(r.status);
      if (i >= warmup) k.us.push((r.t1 - r.t0) * 1000);
    }
  }
  const summary = (k) => {
    const s = [...k.us].sort((a, b) => a - b);
    return { n: s.length, median: at(s, 0.5), p90: at(s, 0.9), statuses: [...k.statuses] };
  };
  console.log(JSON.stringify({ known: summary(kinds.known), unknown: summary(kinds.unknown) }));
  await dispatcher.close();
}

if (mode === "load") await load(Number(rest[0]), Number(rest[1]), Number(rest[2]));
else if (mode === "timing") await timing(Number(rest[0]), Number(rest[1]));
else throw new Error(`usage: node load.mjs load|timing <impl> <origin> …`);
