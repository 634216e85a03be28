// Writes schema/*.schema.json from the zod source; `npm run gen:schema`. A test keeps them in sync.
import { writeFileSync } from "node:fs";
import { jsonSchemas, renderJsonSchema } from "../core/pack/json-schema.js";

for (const [name, schema] of Object.entries(jsonSchemas())) {
  const path = new URL(`../../schema/${name}`, import.meta.url);
  writeFileSync(path, renderJsonSchema(schema));
  process.stdout.write(`wrote ${path.pathname}\n`);
}
