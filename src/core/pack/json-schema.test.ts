import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { test } from "node:test";
import { REPO_ROOT } from "../../testing/helpers.js";
import { jsonSchemas, renderJsonSchema } from "./json-schema.js";

test("the shipped JSON Schemas match the zod source (run `npm run gen:schema` after a change)", () => {
  for (const [name, schema] of Object.entries(jsonSchemas())) {
    const shipped = readFileSync(join(REPO_ROOT, "schema", name), "utf8");
    assert.equal(shipped, renderJsonSchema(schema), `schema/${name} is stale`);
  }
});
