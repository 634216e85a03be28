import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";
import test from "node:test";
import { seededPrng } from "../core/common/random.js";
import { EXAMPLE, frozenExample, requireTool, runCli, tempDir } from "../testing/helpers.js";
import { perturbJs } from "./javascript.js";
import { PYTHON_HELPER } from "./python-helper.js";

test("perturb parses, never pattern-matches: names in strings and comments stay, every real use is renamed", () => {
  const rng = seededPrng(3);
  const js = perturbJs("a.mjs", 'import { sum } from "./sum.mjs";\n// sum of parts\nconst label = "sum";\nexport const total = sum([1]) + lib.sum([2]);\n', { renames: { sum: "sum_x1" }, imports: false, tests: false, rng: () => rng.next() });
  assert.equal(js.text, 'import { sum_x1 } from "./sum.mjs";\n// sum of parts\nconst label = "sum";\nexport const total = sum_x1([1]) + lib.sum_x1([2]);\n');
  const py = spawnSync("python3", ["-c", PYTHON_HELPER], {
    input: JSON.stringify({ op: "apply", files: { "t.py": 'from m import clamp\n# clamp it\nx = clamp(1)  # "clamp"\ny = "clamp"\n' }, renames: { clamp: "clamp_q" }, imports: false, tests: [], seed: 1 }),
    encoding: "utf8",
  });
  assert.equal(py.status, 0, py.stderr);
  assert.equal((JSON.parse(py.stdout) as { files: Record<string, string> }).files["t.py"], 'from m import clamp_q\n# clamp it\nx = clamp_q(1)  # "clamp"\ny = "clamp"\n');
});

test("perturb keeps the example pack green; a memorizing agent passes only the original spelling, and the probe names its tasks; an honest agent shows no signal", async (t) => {
  if (!requireTool(t, "bwrap")) return;
  const pack = await frozenExample(t, { tasks: ["py-fix-clamp", "py-fix-chunks", "py-fix-median", "js-fix-sum", "js-fix-range", "cfg-parse-env", "ctl-keep-green", "ctl-never-green"] });
  const dir = await tempDir(t);
  const perturbed = join(dir, "perturbed");
  const made = await runCli(["perturb", pack, "--out", perturbed, "--seed", "11", "--json", "--quiet"]);
  assert.equal(made.code, 0, made.stderr);
  const result = JSON.parse(made.stdout) as { tasks: Record<string, { renames: Record<string, string> }>; dropped: Record<string, string> };
  assert.deepEqual(result.dropped, {}, "every perturbed task stays green under validate");
  assert.equal(Object.keys(result.tasks).length, 8);
  const clampName = result.tasks["py-fix-clamp"]!.renames.clamp!;
  assert.match(clampName, /^clamp_[a-z0-9]{3}$/);
  assert.match(await readFile(join(perturbed, "tasks", "py-fix-clamp", "repo", "bounds.py"), "utf8"), new RegExp(`def ${clampName}\\(`));
  assert.match(await readFile(join(perturbed, "tasks", "py-fix-clamp", "prompt.md"), "utf8"), new RegExp(clampName));
  const lock = JSON.parse(await readFile(join(perturbed, "benchcard.lock"), "utf8")) as { derived_from: { pack_hash: string; seed: number; ops: string[] } };
  const original = JSON.parse(await readFile(join(pack, "benchcard.lock"), "utf8")) as { pack_hash: string };
  assert.deepEqual(lock.derived_from, { pack_hash: original.pack_hash, seed: 11, ops: ["rename", "imports", "tests"], dropped: {} });
  const verify = await runCli(["verify", perturbed]);
  assert.equal(verify.code, 0, verify.stdout);

  // Fixed answers keyed on the original names: the right file only where it recognizes the bug.
  const gold = async (task: string, file: string) => (await readFile(join(EXAMPLE, "tasks", task, "solution", file), "utf8")).replaceAll("'", "'\\''");
  await writeFile(
    join(dir, "memorizer.sh"),
    `#!/bin/sh
grep -q "def clamp(" bounds.py 2>/dev/null && printf '%s' '${await gold("py-fix-clamp", "bounds.py")}' > bounds.py
grep -q "export function sum(" lib/sum.mjs 2>/dev/null && printf '%s' '${await gold("js-fix-sum", "lib/sum.mjs")}' > lib/sum.mjs
exit 0
`,
    { mode: 0o755 },
  );
  await writeFile(join(dir, "memorizer.yaml"), `id: memorizer\ncommand: [ "sh", "${join(dir, "memorizer.sh")}" ]\nmounts: [ "${join(dir, "memorizer.sh")}" ]\n`);
  const runs = join(dir, "runs");
  for (const [id, target, agent] of [["mo", pack, join(dir, "memorizer.yaml")], ["mp", perturbed, join(dir, "memorizer.yaml")], ["oo", pack, "oracle"], ["op", perturbed, "oracle"]] as const) {
    const r = await runCli(["run", target, "--agent", agent, "--out", runs, "--run-id", id, "--quiet"]);
    assert.equal(r.code, 0, r.stderr);
  }
  const memorizer = await runCli(["probe-memorization", join(runs, "mo"), join(runs, "mp"), "--json"]);
  assert.equal(memorizer.code, 0, memorizer.stderr);
  const probe = JSON.parse(memorizer.stdout) as { overall: { original_only_tasks: string[]; both: number; perturbed_only: number }; verdict: string };
  assert.deepEqual(probe.overall.original_only_tasks, ["js-fix-sum", "py-fix-clamp"]);
  assert.equal(probe.overall.both, 0);
  assert.match(probe.verdict, /memorization signal: 2 task\(s\) pass on the original spelling only .*a smoke test, not a proof/);
  const honest = await runCli(["probe-memorization", join(runs, "oo"), join(runs, "op")]);
  assert.equal(honest.code, 0, honest.stderr);
  assert.match(honest.stdout, /no memorization signal: no task passes on the original spelling only \(6 tasks paired; a smoke test, not a proof\)/);
  // Two runs of one pack are not a probe.
  const same = await runCli(["probe-memorization", join(runs, "oo"), join(runs, "mo")]);
  assert.equal(same.code, 3);
  assert.match(same.stdout, /not a perturbed copy/);
});
