// Is the hand-written N-API `getSessionSync` (bindings/node/src/session_fn.rs,
// unsafe) worth keeping over a plain napi-rs method plus JSON.parse
// (`getSessionJson`)? Both read the same cookie through the same engine, in
// one process, interleaved round by round; run by hand with a release addon:
//
//   cd bench && LIBAUTH_PROFILE=release LIBAUTH_OUT=$PWD/.libauth-release.node node ../bindings/node/scripts/build.js
//   LIBAUTH_NATIVE=$PWD/.libauth-release.node taskset -c 1 node session-call.mjs
//
// Prints µs per call (median and min–max over rounds) for each variant and
// the difference, to weigh against a protected route's server CPU per request.
import { createRequire } from "node:module";

const require = createRequire(import.meta.url);
const { ServerAuth, Credentials, signIn } = require("../bindings/node");
const { instanceFor } = require("../bindings/node/lib/native.js");

const ROUNDS = Number(process.env.ROUNDS ?? 7);
const port = 4111;
const user = { id: "1", name: "Bench User", email: "bench@example.com", image: "https://img.example/b.png" };
const config = {
  secret: "libauth-bench-secret-0123456789abcdef-xyz",
  trustHost: true,
  providers: [Credentials({ credentials: {}, authorize: () => user })],
};
ServerAuth(config);
const addon = instanceFor(config).native;
const login = new Request(`http://127.0.0.1:${port}/login`, { method: "POST" });
const { cookies } = await signIn("credentials", {}, login, config);
const cookie = cookies.map((c) => c.split(";")[0]).find((c) => c.startsWith("authjs.session-token="));
const url = `http://127.0.0.1:${port}/protected`;
const slots = [];

const variants = {
  "hand-written getSessionSync (slots)": () => {
    if (addon.getSessionSync(url, cookie, slots) !== true) throw new Error("no session");
    return { user: { name: slots[0], email: slots[1], image: slots[2] }, expires: slots[3] };
  },
  "napi-rs getSessionJson + JSON.parse": () => JSON.parse(addon.getSessionJson(url, cookie)),
};
for (const [name, call] of Object.entries(variants)) {
  if (call()?.user?.email !== "bench@example.com") throw new Error(`${name}: wrong session`);
}

function microsPerCall(call) {
  for (let i = 0; i < 5000; i++) call();
  const n = 50000;
  const t0 = process.hrtime.bigint();
  for (let i = 0; i < n; i++) call();
  return Number(process.hrtime.bigint() - t0) / 1000 / n;
}

const runs = Object.fromEntries(Object.keys(variants).map((k) => [k, []]));
for (let round = 0; round < ROUNDS; round++) {
  for (const [name, call] of Object.entries(variants)) runs[name].push(microsPerCall(call));
}
const stats = (xs) => {
  const s = [...xs].sort((a, b) => a - b);
  return { median: s[Math.floor(s.length / 2)], min: s[0], max: s[s.length - 1] };
};
console.log(`${ROUNDS} rounds of 50,000 calls each, interleaved; load average ${require("node:fs").readFileSync("/proc/loadavg", "utf8").split(" ").slice(0, 3).join(" ")}`);
const medians = {};
for (const [name, xs] of Object.entries(runs)) {
  const s = stats(xs);
  medians[name] = s.median;
  console.log(`${name.padEnd(40)} ${s.median.toFixed(3)} µs/call (${s.min.toFixed(3)}–${s.max.toFixed(3)})`);
}
const [a, b] = Object.values(medians);
console.log(`difference: ${(b - a).toFixed(3)} µs per protected request`);
