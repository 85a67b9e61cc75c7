// The hand-written declarations must compile against a usage file and name
// exactly what the modules export at run time.
import { it } from "node:test";
import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { fileURLToPath } from "node:url";
import ts from "typescript";

const require = createRequire(import.meta.url);
const pkgDir = fileURLToPath(new URL("..", import.meta.url));

/** Value exports (functions, classes, consts) declared in a .d.ts. */
function declaredValues(file) {
  const source = ts.createSourceFile(file, readFileSync(pkgDir + file, "utf8"), ts.ScriptTarget.Latest);
  const names = new Set();
  for (const node of source.statements) {
    const exported = node.modifiers?.some((m) => m.kind === ts.SyntaxKind.ExportKeyword);
    if (!exported) continue;
    if (ts.isFunctionDeclaration(node) || ts.isClassDeclaration(node)) names.add(node.name.text);
    if (ts.isVariableStatement(node)) for (const d of node.declarationList.declarations) names.add(d.name.text);
  }
  return [...names].sort();
}

it("tsc --noEmit accepts the usage files", () => {
  const tsc = require.resolve("typescript/bin/tsc");
  execFileSync(process.execPath, [tsc, "-p", "test/types"], { cwd: pkgDir, stdio: "pipe" });
});

it("index.d.ts declares exactly the runtime exports of libauth", () => {
  assert.deepEqual(declaredValues("index.d.ts"), Object.keys(require("libauth")).sort());
});

it("client.d.ts declares exactly the runtime exports of libauth/client", async () => {
  const client = await import("libauth/client");
  assert.deepEqual(declaredValues("client.d.ts"), Object.keys(client).sort());
});

it("webauthn.d.ts declares exactly the runtime exports of libauth/webauthn", async () => {
  const webauthn = await import("libauth/webauthn");
  assert.deepEqual(declaredValues("webauthn.d.ts"), Object.keys(webauthn).sort());
});

it("the ErrorType union in index.d.ts names every error type the engine reports", () => {
  const source = ts.createSourceFile("index.d.ts", readFileSync(`${pkgDir}index.d.ts`, "utf8"), ts.ScriptTarget.Latest);
  const alias = source.statements.find((n) => ts.isTypeAliasDeclaration(n) && n.name.text === "ErrorType");
  const declared = new Set(alias.type.types.map((t) => t.literal.text));
  const engine = require(`${pkgDir}libauth.node`).errorTypes();
  assert.ok(engine.length > 25);
  assert.deepEqual(
    engine.filter((t) => !declared.has(t)),
    [],
    "engine types missing from index.d.ts",
  );
});
