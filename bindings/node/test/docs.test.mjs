// The documentation's JavaScript and TypeScript, checked where it is
// written: the Express examples of the README and of this package's README
// run as written (a child process on a free port) and sign in or answer;
// every ```js and ```ts block of README.md, docs/*.md and this package's
// README parses.
import { test } from "node:test";
import assert from "node:assert/strict";
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { Browser, SECRET, freePort, startProcess } from "./helpers.mjs";

const pkg = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");
const root = path.resolve(pkg, "../..");
const pages = [
  "README.md",
  ...readdirSync(path.join(root, "docs"))
    .filter((f) => f.endsWith(".md"))
    .map((f) => `docs/${f}`),
  "bindings/node/README.md",
];

/** The fenced blocks of a page in `langs`: { page, line, lang, code }. */
function blocks(page, langs) {
  const found = [];
  let open = null;
  readFileSync(path.join(root, page), "utf8")
    .split("\n")
    .forEach((text, i) => {
      if (open === null) {
        const m = /^```(\w*)\s*$/.exec(text);
        if (m) open = { page, line: i + 1, lang: m[1], lines: [] };
      } else if (/^```\s*$/.test(text)) {
        if (langs.includes(open.lang)) found.push({ ...open, code: open.lines.join("\n") });
        open = null;
      } else {
        open.lines.push(text);
      }
    });
  return found;
}

/** The one ```js block of `page` that contains `marker`. */
function example(page, marker) {
  const matching = blocks(page, ["js"]).filter((b) => b.code.includes(marker));
  assert.equal(matching.length, 1, `${page}: one js block containing ${JSON.stringify(marker)}`);
  return matching[0].code;
}

/**
 * Run `code` as a CommonJS program inside this package (so `require("libauth")`
 * is this package) on a free port, with the environment `env(origin)` (and
 * no AUTH_TRUST_HOST but the example's own), until `run(origin)` is done.
 */
async function serve(code, env, run) {
  const dir = mkdtempSync(path.join(pkg, "test", ".docs-"));
  const port = await freePort();
  const origin = `http://127.0.0.1:${port}`;
  try {
    writeFileSync(path.join(dir, "app.cjs"), code);
    const app = await startProcess(["app.cjs"], {
      cwd: dir,
      env: { PORT: String(port), AUTH_SECRET: SECRET, AUTH_TRUST_HOST: "", ...env(origin) },
      ready: `${origin}/auth/csrf`,
    });
    try {
      await run(origin);
    } finally {
      await app.stop();
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

test("the README's Express example: /dashboard needs a session, demo / demo signs in", async () => {
  await serve(
    example("README.md", 'require("express")'),
    () => ({}),
    async (origin) => {
      const visitor = new Browser(origin);
      const before = await visitor.fetch("/dashboard");
      assert.equal(before.status, 302);
      assert.equal(before.headers.get("location"), "/auth/signin");

      const wrong = new Browser(origin);
      await wrong.signIn("demo", "not-the-password");
      assert.equal((await wrong.fetch("/dashboard")).status, 302);

      const user = new Browser(origin);
      const signIn = await user.signIn("demo", "demo");
      assert.equal(signIn.status, 302);
      const page = await user.fetch("/dashboard");
      assert.equal(page.status, 200);
      assert.equal(await page.text(), "Hello Demo");
    },
  );
});

test("the package README's example: the sign-in link, and GitHub among the providers", async () => {
  await serve(
    example("bindings/node/README.md", 'require("express")'),
    (origin) => ({ AUTH_URL: origin, AUTH_GITHUB_ID: "readme-client-id", AUTH_GITHUB_SECRET: "readme-client-secret" }),
    async (origin) => {
      const browser = new Browser(origin);
      const home = await browser.fetch("/");
      assert.equal(home.status, 200);
      assert.match(await home.text(), /href="\/auth\/signin"/);
      const providers = await (await browser.fetch("/auth/providers")).json();
      assert.equal(providers.github.signinUrl, `${origin}/auth/signin/github`);
    },
  );
});

const ts = createRequire(import.meta.url)("typescript");
for (const page of pages) {
  for (const block of blocks(page, ["js", "ts"])) {
    test(`${page}:${block.line} (${block.lang}) parses`, () => {
      const { diagnostics } = ts.transpileModule(block.code, {
        fileName: `example.${block.lang === "ts" ? "ts" : "js"}`,
        reportDiagnostics: true,
        compilerOptions: { target: ts.ScriptTarget.ES2022, module: ts.ModuleKind.ESNext, allowJs: true },
      });
      const messages = diagnostics.map((d) => ts.flattenDiagnosticMessageText(d.messageText, "\n"));
      assert.deepEqual(messages, []);
    });
  }
}

// Passkeys need a name: an IP address cannot be a WebAuthn relying party, so
// the address a first-time user is sent to must be localhost wherever the
// demo or an example with passkeys says where it runs.
test("the demo and the passkey examples send the user to localhost, not 127.0.0.1", () => {
  const read = (file) => readFileSync(path.join(root, file), "utf8");
  const readmeDemo = read("README.md")
    .split("\n")
    .find((l) => l.startsWith("./scripts/demo.sh"));
  assert.match(readmeDemo, /http:\/\/localhost:3000\//);
  for (const [file, pattern] of [
    ["docs/development.md", /demo\.sh.*http:\/\/localhost:3000\//],
    ["docs/node.md", /The demo serves http:\/\/localhost:3000\//],
    ["examples/express/server.js", /Express example on http:\/\/localhost:\$\{port\}\//],
    ["examples/fastapi/app.py", /FastAPI example on http:\/\/localhost:\{port\}\//],
    ["examples/c-server/server.c", /C example on http:\/\/localhost:%d\//],
  ]) {
    assert.match(read(file), pattern, file);
  }
  for (const file of ["README.md", "docs/node.md", "docs/development.md", "docs/c.md", "scripts/demo.sh"]) {
    assert.doesNotMatch(read(file), /http:\/\/127\.0\.0\.1:(3000|8000|8080)\/ /, file);
  }
});
