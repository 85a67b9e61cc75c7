// N session reads with BENCH_COOKIE (the engine bench's signed-in cookie,
// same secret): run by bench/reads/reads.py under callgrind, twice (N and
// 3N), for instructions per call. Modes: `await getSession(req, config)`
// (default, an Express-shaped request), `json` (the addon call
// `getSessionJson` + `JSON.parse`).
import { createRequire } from "node:module";

const require = createRequire(import.meta.url);
const { getSession, Credentials } = require("../../bindings/node/index.js");
const { engineFor } = require("../../bindings/node/lib/express.js");

const [mode, n] = process.argv.length > 3 ? [process.argv[2], Number(process.argv[3])] : ["getSession", Number(process.argv[2])];
const config = { secret: process.env.AUTH_SECRET, providers: [Credentials({ authorize: async () => null })] };
const cookie = process.env.BENCH_COOKIE;
const req = { protocol: "http", headers: { host: "localhost:3000", cookie }, originalUrl: "/dashboard", url: "/dashboard" };
if (!(await getSession(req, config))) throw new Error("the cookie does not read");
const native = engineFor(config).native;
const url = "http://localhost:3000/dashboard";
if (mode === "json") {
  for (let i = 0; i < n; i++) JSON.parse(native.getSessionJson(url, cookie));
} else {
  for (let i = 0; i < n; i++) await getSession(req, config);
}
