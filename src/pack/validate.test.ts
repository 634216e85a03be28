import assert from "node:assert/strict";
import { copyFile, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { test } from "node:test";
import { copyExample, EXAMPLE, runCli, tempDir } from "../testing/helpers.js";
import { ANSWER_TASK, writeMiniPack } from "../testing/mini-pack.js";
import type { ValidationReport } from "./validate.js";

test("the example pack validates green: every control k/k", async () => {
  const result = await runCli(["validate", EXAMPLE, "--json", "--jobs", "2"]);
  assert.equal(result.code, 0, result.stdout + result.stderr);
  const report = JSON.parse(result.stdout) as ValidationReport;
  assert.equal(report.status, "green");
  assert.ok(report.tasks.length >= 14);
  for (const task of report.tasks) {
    assert.equal(task.status, "green", task.task_id);
    for (const check of task.checks) assert.equal(check.observed.length, 3);
  }
  const roles = new Set(report.tasks.map((t) => t.role));
  assert.deepEqual([...roles].sort(), ["must_fail_forever", "negative", "normal"]);
});

test("a gold replaced by the buggy file: exit 3, naming the task and the control", async (t) => {
  const pack = await copyExample(t);
  const task = join(pack, "tasks", "py-fix-median");
  await copyFile(join(task, "repo", "stats.py"), join(task, "solution", "stats.py"));
  const result = await runCli(["validate", pack, "--repeats", "1", "--jobs", "2"]);
  assert.equal(result.code, 3, result.stdout + result.stderr);
  assert.match(result.stdout, /py-fix-median: control "gold" is red: expected pass/);
  assert.match(result.stdout, /controls red: py-fix-median \(red\)$/m);
});

test("a hidden test that passes about half the time is flaky, not pass or fail", async (t) => {
  const root = await tempDir(t);
  await writeMiniPack(root, {
    coin: {
      yaml: "control: negative\n",
      hidden: { "check.py": "import os, sys\nsys.exit(os.urandom(1)[0] % 2)\n" },
    },
  });
  // 20 repeats: all agreeing by chance has probability 2^-19.
  const result = await runCli(["validate", root, "--repeats", "20", "--json"]);
  assert.equal(result.code, 3, result.stderr);
  const report = JSON.parse(result.stdout) as ValidationReport;
  assert.equal(report.tasks[0]?.status, "flaky");
  assert.ok(report.tasks[0]?.checks[0]?.observed.includes("pass"));
  assert.ok(report.tasks[0]?.checks[0]?.observed.includes("fail"));
});

test("an oracle that cannot start is a harness error, not a fail", async (t) => {
  const root = await tempDir(t);
  await writeMiniPack(root, { ghost: { ...ANSWER_TASK, yaml: 'oracle: "no-such-grader-xyz --run"\n' } });
  const result = await runCli(["validate", root, "--json"]);
  assert.equal(result.code, 3);
  const report = JSON.parse(result.stdout) as ValidationReport;
  assert.equal(report.tasks[0]?.status, "harness");
  assert.deepEqual(report.tasks[0]?.checks.map((c) => c.status), ["harness", "harness"]);
});

test("a prompt that overlaps the denylist refuses; hidden files shadowing repo files are noted", async (t) => {
  const root = await tempDir(t);
  await writeMiniPack(
    root,
    {
      leaky: { ...ANSWER_TASK, prompt: "Fix it. Context: a public benchmark title nobody should copy.\n" },
      shadow: { ...ANSWER_TASK, repo: { ...ANSWER_TASK.repo, "check.py": "print('visible version')\n" } },
    },
  );
  const result = await runCli(["validate", root]);
  assert.equal(result.code, 3, result.stdout + result.stderr);
  assert.match(result.stdout, /leaky: prompt overlaps denylist line "a public benchmark title nobody should copy" \(appears verbatim\)/);
  assert.match(result.stdout, /shadow: note: hidden\/ replaces files the agent can see: check\.py/);
  assert.match(result.stdout, /controls red: leaky \(leak\)$/m);
});

test("a gold patch that does not apply makes the gold control red", async (t) => {
  const root = await tempDir(t);
  await writeMiniPack(root, { p: { repo: ANSWER_TASK.repo ?? {}, hidden: ANSWER_TASK.hidden ?? {} } });
  await writeFile(join(root, "tasks/p/solution.patch"), "--- a/answer.txt\n+++ b/answer.txt\n@@ -1 +1 @@\n-7\n+42\n");
  const result = await runCli(["validate", root, "--json"]);
  assert.equal(result.code, 3);
  const report = JSON.parse(result.stdout) as ValidationReport;
  const gold = report.tasks[0]?.checks.find((c) => c.name === "gold");
  assert.equal(gold?.status, "red");
  assert.match(gold?.log_tail ?? "", /git apply/);
});
