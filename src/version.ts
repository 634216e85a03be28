import { readFileSync } from "node:fs";

/** benchcard's own version, read once from the package.json that ships beside dist/. */
export const HARNESS_VERSION: string = (
  JSON.parse(readFileSync(new URL("../package.json", import.meta.url), "utf8")) as { version: string }
).version;
