import assert from "node:assert/strict";
import { readdir } from "node:fs/promises";
import { join } from "node:path";
import { test } from "node:test";
import { runCli, tempDir } from "../testing/helpers.js";

test("init writes the example pack; a second init into it refuses", async (t) => {
  const dir = await tempDir(t);
  const first = await runCli(["init", "pack"], { cwd: dir });
  assert.equal(first.code, 0, first.stderr);
  const tasks = await readdir(join(dir, "pack", "tasks"));
  assert.ok(tasks.length >= 14);
  assert.ok(!(await readdir(join(dir, "pack"))).includes("benchcard.lock"));
  const second = await runCli(["init", "pack"], { cwd: dir });
  assert.equal(second.code, 4);
  assert.match(second.stderr, /not empty/);
});

test("an unknown command or flag is bad input, exit 4, one line", async () => {
  const unknown = await runCli(["frobnicate"]);
  assert.equal(unknown.code, 4);
  assert.match(unknown.stderr, /^benchcard: Cannot run "benchcard frobnicate": unknown command/);
  const flag = await runCli(["verify", "--colour"]);
  assert.equal(flag.code, 4);
  assert.match(flag.stderr, /Cannot parse arguments of "benchcard verify"/);
  const jobs = await runCli(["validate", ".", "--jobs", "0"]);
  assert.equal(jobs.code, 4);
});

test("--help prints the commands and the exit codes", async () => {
  const help = await runCli(["--help"]);
  assert.equal(help.code, 0);
  assert.match(help.stdout, /validate/);
  assert.match(help.stdout, /exit codes: 0 ok, 1 internal error, 2 drift, 3 refused/);
});
