import assert from "node:assert/strict";
import { cp } from "node:fs/promises";
import { join } from "node:path";
import { test } from "node:test";
import type { Comparison } from "../core/compare/model.js";
import { EXAMPLE, copyExample, runCli, tempDir } from "../testing/helpers.js";

test("on the example pack: agents that each fix one stratum get no global winner; oracle vs nop names the oracle", async (t) => {
  const dir = await tempDir(t);
  const pack = await copyExample(t);
  assert.equal((await runCli(["freeze", pack, "--jobs", "2"])).code, 0);
  const run = async (agent: string, id: string) => {
    const r = await runCli(["run", pack, "--agent", agent, "--out", dir, "--run-id", id, "--seed", "1", "--jobs", "2"]);
    assert.equal(r.code, 0, r.stderr);
    return join(dir, id);
  };
  // The demo agents, copied where the sandbox user (benchcard drops root) can read them
  // whatever the permissions of the folder the repository was cloned into.
  const agents = join(await tempDir(t), "agents");
  await cp(join(EXAMPLE, "..", "agents"), agents, { recursive: true, filter: (src) => !src.includes("node_modules") });
  const py = await run(join(agents, "py-fixer.yaml"), "py");
  const js = await run(join(agents, "js-fixer.yaml"), "js");
  const split = await runCli(["compare", py, js, "--json"]);
  assert.equal(split.code, 0, split.stderr);
  const c = JSON.parse(split.stdout) as Comparison;
  assert.equal(c.winner, null);
  assert.equal(c.decision?.kind, "strata_disagree");
  assert.match(c.decision?.reason ?? "", /py-fix favours A and js-fix favours B/);
  assert.deepEqual(c.strata.find((s) => s.id === "py-fix")?.tasks.a_only.sort(), ["py-fix-chunks", "py-fix-clamp", "py-fix-median", "py-fix-slugify"]);

  const oracle = await run("oracle", "oracle");
  const nop = await run("nop", "nop");
  const clear = await runCli(["compare", oracle, nop]);
  assert.equal(clear.code, 0);
  assert.match(clear.stdout, /winner: A/);
  assert.match(clear.stdout, /A wins on pass rate/);

  const bad = await runCli(["compare", oracle, pack]);
  assert.equal(bad.code, 4, "a path that is not a run folder is bad input");
});
