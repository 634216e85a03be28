#!/usr/bin/env node
// Runs every compiled test file (dist/**/*.test.js) with node's test runner.
// With CI=true, a test that would skip for a missing tool fails instead (see src/testing/require-tool.ts).
import { spawnSync } from "node:child_process";
import { readdirSync } from "node:fs";
import { join } from "node:path";

function find(dir) {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) =>
    e.isDirectory() ? find(join(dir, e.name)) : e.name.endsWith(".test.js") ? [join(dir, e.name)] : [],
  );
}

const only = process.argv.slice(2);
const files = find("dist")
  .filter((f) => only.length === 0 || only.some((o) => f.includes(o)))
  .sort();
if (files.length === 0) {
  console.error("no test files found under dist/; did the build run?");
  process.exit(1);
}
const result = spawnSync(
  process.execPath,
  ["--test", "--test-reporter=spec", "--test-concurrency=2", ...files],
  { stdio: "inherit" },
);
process.exit(result.status ?? 1);
