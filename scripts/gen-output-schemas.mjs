// Writes schema/output/*.schema.json: JSON Schemas of every --json output, generated from the
// TypeScript types the commands print. Run after `npm run build`; a test keeps them in sync.
import { mkdirSync, writeFileSync } from "node:fs";
import { outputSchemas } from "../dist/testing/output-schemas.js";

const dir = new URL("../schema/output/", import.meta.url);
mkdirSync(dir, { recursive: true });
for (const [name, schema] of Object.entries(outputSchemas())) {
  writeFileSync(new URL(name, dir), `${JSON.stringify(schema, null, 2)}\n`);
  process.stdout.write(`wrote schema/output/${name}\n`);
}
