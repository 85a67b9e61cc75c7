// Better Auth's migrations for the benchmark's database: what
// `npx @better-auth/cli migrate` runs (getMigrations from
// better-auth/db/migration), with the options the server uses.
//   node migrate.mjs <sqlite file>
import { getMigrations } from "better-auth/db/migration";
import { makeAuth } from "./better-auth.mjs";

const file = process.argv[2];
if (!file) throw new Error("usage: node migrate.mjs <sqlite file>");
const auth = makeAuth(file, "http://127.0.0.1:4301");
const { toBeCreated, toBeAdded, runMigrations } = await getMigrations(auth.options);
await runMigrations();
console.log(
  `better-auth: migrated ${file} (tables created: ${toBeCreated.map((t) => t.table).join(", ") || "none"}; ` +
    `tables altered: ${toBeAdded.map((t) => t.table).join(", ") || "none"})`,
);
