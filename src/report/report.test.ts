import assert from "node:assert/strict";
import { readFile } from "node:fs/promises";
import { join } from "node:path";
import { test } from "node:test";
import type { Report } from "../core/report/report-model.js";
import { frozenExample, runCli, tempDir } from "../testing/helpers.js";

const TASKS = ["py-fix-clamp", "py-fix-median", "py-fix-slugify", "py-fix-chunks", "js-fix-sum", "js-fix-range", "js-fix-unique", "js-fix-capitalize", "ctl-never-green"];

async function oracleRun(t: import("node:test").TestContext): Promise<{ pack: string; runDir: string; dir: string }> {
  const dir = await tempDir(t);
  const pack = await frozenExample(t, { tasks: TASKS, editCard: (c) => c.replace(/strata:\n(  - .*\n)+/, "strata:\n  - { id: py-fix, description: p }\n  - { id: js-fix, description: j }\n  - { id: cfg-parse, description: c }\n") });
  const run = await runCli(["run", pack, "--agent", "oracle", "--out", dir, "--run-id", "o", "--jobs", "2", "--seed", "2"]);
  assert.equal(run.code, 0, run.stderr);
  return { pack, runDir: join(dir, "o"), dir };
}

test("report: OK on an oracle run, JSON with a top-level status, the citeable sentence last", async (t) => {
  const { runDir } = await oracleRun(t);
  const text = await runCli(["report", runDir]);
  assert.equal(text.code, 0, text.stdout + text.stderr);
  assert.match(text.stdout, /^status: OK/);
  const lines = text.stdout.trim().split("\n");
  assert.match(lines[lines.length - 1]!, /^On tiny-fix 1\.0\.0 \(pack [0-9a-f]{12}, split all\), 8 tasks in 2 strata \(py-fix 4, js-fix 4\), agent oracle .* py-fix 4\/4 \[0\.51, 1\.00\], js-fix 4\/4 \[0\.51, 1\.00\]; no overall rate \(strata not pooled\)/);
  const json = JSON.parse((await runCli(["report", runDir, "--json"])).stdout) as Report;
  assert.equal(json.schema, "benchcard.report/1");
  assert.equal(json.status, "OK");
  const md = await runCli(["report", runDir, "--md"]);
  assert.match(md.stdout, /\| py-fix \| 4\/4 \|/);
});

test("report: a drifted pack is SKIP (exit 2); an incomplete ledger INVALID (exit 3), and neither prints a score", async (t) => {
  const { pack, runDir } = await oracleRun(t);
  const ledger = join(runDir, "ledger.jsonl");
  const rows = (await readFile(ledger, "utf8")).trim().split("\n");
  const { writeFile, appendFile } = await import("node:fs/promises");
  await writeFile(ledger, rows.slice(1).join("\n") + "\n");
  const incomplete = await runCli(["report", runDir]);
  assert.equal(incomplete.code, 3);
  assert.match(incomplete.stdout, /FAIL ledger_complete: 8 rows for 9 scheduled attempts/);
  assert.doesNotMatch(incomplete.stdout, /^On tiny-fix/m);
  await appendFile(join(pack, "tasks/py-fix-clamp/hidden/test_hidden_clamp.py"), "\n");
  const skip = await runCli(["report", runDir, "--json"]);
  assert.equal(skip.code, 2);
  assert.equal((JSON.parse(skip.stdout) as Report).status, "SKIP");
  const notRun = await runCli(["report", pack]);
  assert.equal(notRun.code, 4);
});
