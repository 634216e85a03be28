import assert from "node:assert/strict";
import { appendFile, mkdir, readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { test } from "node:test";
import { copyExample, requireTool, runCli, tempDir } from "../testing/helpers.js";

test("a pack's environment/ is hashed with the pack and shown read-only at /benchcard/env to oracles and agents", async (t) => {
  if (!requireTool(t, "bwrap")) return;
  const pack = await copyExample(t, { tasks: ["py-fix-clamp"] });
  await mkdir(join(pack, "environment", "py"), { recursive: true });
  await writeFile(join(pack, "environment", "py", "envcheck.py"), 'MARK = "env-ok"\n');
  const task = join(pack, "tasks", "py-fix-clamp");
  await appendFile(join(task, "task.yaml"), 'oracle: "PYTHONPATH=$BENCHCARD_ENV/py:$PYTHONPATH PYTEST_DISABLE_PLUGIN_AUTOLOAD=1 python3 -m pytest -q -p no:cacheprovider"\n');
  await appendFile(join(task, "hidden", "test_hidden_clamp.py"), '\n\ndef test_environment_is_there():\n    import envcheck\n    assert envcheck.MARK == "env-ok"\n');
  const frozen = await runCli(["freeze", pack, "--jobs", "2", "--quiet"]);
  assert.equal(frozen.code, 0, frozen.stdout + frozen.stderr);
  const lock = JSON.parse(await readFile(join(pack, "benchcard.lock"), "utf8")) as { files: Record<string, unknown> };
  assert.ok("environment/py/envcheck.py" in lock.files, "hashed with the pack");

  const dir = await tempDir(t);
  await mkdir(join(dir, "agent"));
  await writeFile(join(dir, "agent", "a.sh"), '#!/bin/sh\necho "at $BENCHCARD_ENV"\ntouch "$BENCHCARD_ENV/py/planted.py" 2>/dev/null && echo WROTE || echo READ-ONLY\ncat "$BENCHCARD_ENV/py/envcheck.py"\n', { mode: 0o755 });
  await writeFile(join(dir, "agent", "a.yaml"), `id: envy\ncommand: [ "sh", "${join(dir, "agent", "a.sh")}" ]\nmounts: [ "${join(dir, "agent")}" ]\n`);
  const run = await runCli(["run", pack, "--agent", join(dir, "agent", "a.yaml"), "--out", join(dir, "runs"), "--run-id", "e", "--quiet"]);
  assert.equal(run.code, 0, run.stderr);
  const out = await readFile(join(dir, "runs", "e", "attempts", "py-fix-clamp", "0", "agent.out"), "utf8");
  assert.match(out, /^at \/benchcard\/env\nREAD-ONLY\nMARK = "env-ok"$/m);
  const oracle = await runCli(["run", pack, "--agent", "oracle", "--out", join(dir, "runs"), "--run-id", "o", "--quiet"]);
  assert.equal(oracle.code, 0, oracle.stderr);
  const row = JSON.parse((await readFile(join(dir, "runs", "o", "ledger.jsonl"), "utf8")).trim()) as { outcome: string; reason: string };
  assert.equal(row.outcome, "pass", row.reason);
  assert.equal((await runCli(["verify", pack])).code, 0);
});
