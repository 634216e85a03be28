import assert from "node:assert/strict";
import { appendFile, chmod, readFile, symlink, unlink, utimes, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { test } from "node:test";
import type { Lock } from "../core/pack/lock.js";
import { copyExample, runCli, tempDir } from "../testing/helpers.js";
import { ANSWER_TASK, writeMiniPack } from "../testing/mini-pack.js";
import type { VerifyReport } from "./verify.js";

test("freeze writes the lock; one byte appended to a hidden test makes verify exit 2 naming it", async (t) => {
  const pack = await copyExample(t, { tasks: ["py-fix-clamp", "js-fix-sum", "ctl-keep-green", "ctl-never-green"] });
  const card = join(pack, "benchcard.yaml");
  await writeFile(card, (await readFile(card, "utf8")).replace("isolation: bwrap,", "isolation: bwrap, min_holdout_tasks: 1,"));
  const frozen = await runCli(["freeze", pack, "--holdout", "0.5", "--seed", "3"]);
  assert.equal(frozen.code, 0, frozen.stdout + frozen.stderr);
  const lock = JSON.parse(await readFile(join(pack, "benchcard.lock"), "utf8")) as Lock;
  assert.equal(lock.card_name, "tiny-fix");
  assert.match(lock.pack_hash, /^[0-9a-f]{64}$/);
  assert.equal(lock.validation.tasks["py-fix-clamp"]?.status, "green");
  assert.equal(lock.split?.seed, 3);
  assert.equal((lock.split?.holdout.length ?? 0) + (lock.split?.tune.length ?? 0), 2, "scored tasks are split");
  assert.deepEqual(lock.split?.controls, ["ctl-keep-green", "ctl-never-green"], "controls run in every split");

  const clean = await runCli(["verify", pack]);
  assert.equal(clean.code, 0, clean.stdout + clean.stderr);
  assert.match(clean.stdout, /pack matches its lock/);

  const hidden = join(pack, "tasks/py-fix-clamp/hidden/test_hidden_clamp.py");
  await appendFile(hidden, "#");
  const drifted = await runCli(["verify", pack, "--json"]);
  assert.equal(drifted.code, 2);
  const report = JSON.parse(drifted.stdout) as VerifyReport;
  assert.deepEqual(report.drift, [{ path: "tasks/py-fix-clamp/hidden/test_hidden_clamp.py", change: "changed", role: "hidden" }]);
  const text = await runCli(["verify", pack]);
  assert.match(text.stdout, /changed\s+hidden test\s+tasks\/py-fix-clamp\/hidden\/test_hidden_clamp\.py/);

  const again = await runCli(["freeze", pack]);
  assert.equal(again.code, 3);
  assert.match(again.stderr, /already has benchcard\.lock/);
});

test("freeze refuses a pack with a red control and writes no lock", async (t) => {
  const root = await tempDir(t);
  await writeMiniPack(root, { bad: { ...ANSWER_TASK, solution: { "answer.txt": "41\n" } } });
  const result = await runCli(["freeze", root]);
  assert.equal(result.code, 3);
  assert.match(result.stderr, /controls are not green: bad \(red\)/);
  await assert.rejects(readFile(join(root, "benchcard.lock")));
});

test("the executable bit and symlink targets are content; mtimes are not", async (t) => {
  const root = await tempDir(t);
  await writeMiniPack(root, { a: ANSWER_TASK });
  await symlink("answer.txt", join(root, "tasks/a/repo/link"));
  assert.equal((await runCli(["freeze", root])).code, 0);
  const answer = join(root, "tasks/a/repo/answer.txt");
  await utimes(answer, new Date(2001, 1, 1), new Date(2001, 1, 1));
  assert.equal((await runCli(["verify", root])).code, 0);

  await chmod(answer, 0o755);
  const exec = await runCli(["verify", root, "--json"]);
  assert.equal(exec.code, 2);
  assert.deepEqual((JSON.parse(exec.stdout) as VerifyReport).drift.map((d) => d.path), ["tasks/a/repo/answer.txt"]);
  await chmod(answer, 0o644);

  await unlink(join(root, "tasks/a/repo/link"));
  await symlink("elsewhere.txt", join(root, "tasks/a/repo/link"));
  const link = await runCli(["verify", root, "--json"]);
  assert.equal(link.code, 2);
  assert.deepEqual((JSON.parse(link.stdout) as VerifyReport).drift.map((d) => `${d.change} ${d.path}`), ["changed tasks/a/repo/link"]);
});

test("verify names added and removed files, and refuses a pack that was never frozen", async (t) => {
  const root = await tempDir(t);
  await writeMiniPack(root, { a: ANSWER_TASK });
  const never = await runCli(["verify", root]);
  assert.equal(never.code, 4);
  assert.match(never.stderr, /never frozen/);
  assert.equal((await runCli(["freeze", root])).code, 0);
  await unlink(join(root, "tasks/a/solution/answer.txt"));
  await appendFile(join(root, "tasks/a/hidden/extra.py"), "x = 1\n");
  const result = await runCli(["verify", root]);
  assert.equal(result.code, 2);
  assert.match(result.stdout, /added\s+hidden test\s+tasks\/a\/hidden\/extra\.py/);
  assert.match(result.stdout, /removed\s+gold\s+tasks\/a\/solution\/answer\.txt/);
});
