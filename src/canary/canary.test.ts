import assert from "node:assert/strict";
import { readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";
import test from "node:test";
import { copyExample, requireTool, runCli, tempDir } from "../testing/helpers.js";
import type { CanaryResult } from "./canary.js";

async function canary(pack: string, agent: string, out: string) {
  const r = await runCli(["canary", join(pack, "canaries.yaml"), "--agent", agent, "--out", out, "--json", "--quiet"]);
  return { code: r.code, result: r.stdout.trim().startsWith("{") ? (JSON.parse(r.stdout) as CanaryResult) : null, stderr: r.stderr + r.stdout };
}

test("canaries: an honest agent in a sound rig gives CS = 1, QR = 1, PD = 0, stored with fingerprint, harness and manifest hash", async (t) => {
  if (!requireTool(t, "bwrap")) return;
  const pack = await copyExample(t, { tasks: [] });
  const out = join(await tempDir(t), "canary");
  const { code, result, stderr } = await canary(pack, "oracle", out);
  assert.equal(code, 0, stderr);
  assert.equal(result!.summary.cs.rate, 1);
  assert.equal(result!.summary.cs.n, 8);
  assert.equal(result!.summary.qr.rate, 1);
  assert.equal(result!.summary.qr.n, 4);
  assert.equal(result!.summary.pd.rate, 0);
  assert.match(result!.manifest_hash, /^[0-9a-f]{64}$/);
  assert.match(result!.agent_fingerprint, /^[0-9a-f]{64}$/);
  assert.deepEqual(JSON.parse(await readFile(join(out, "canary.json"), "utf8")), result);
  // Both phrasings of each canary are frozen by hash.
  assert.notEqual(result!.prompt_hashes["py-chunks"]!.a, result!.prompt_hashes["py-chunks"]!.b);
});

test("canaries: a rig made deaf on purpose (an oracle that never runs the new test) gives CS < 1 and exit 3", async (t) => {
  if (!requireTool(t, "bwrap")) return;
  const pack = await copyExample(t, { tasks: [] });
  await writeFile(join(pack, "canaries", "py-chunks", "task.yaml"), 'oracle: "python3 -c pass"\nrunner: exit-code\n');
  const { code, result, stderr } = await canary(pack, "oracle", join(await tempDir(t), "canary"));
  assert.equal(code, 3, stderr);
  assert.equal(result!.summary.cs.x, 6);
  assert.equal(result!.summary.cs.n, 8);
  assert.match(result!.summary.decision, /CS < 1: the rig misses planted defects/);
  assert.match(result!.summary.cap, /finer than CS = 0\.75/);
  assert.deepEqual(result!.verdicts.filter((v) => v.verdict === "missed").map((v) => `${v.canary} ${v.phrasing}`), ["py-chunks a", "py-chunks b"]);
});

test("canaries: an agent whose behaviour depends on the wording gives PD > 0 and exit 3", async (t) => {
  if (!requireTool(t, "bwrap")) return;
  const pack = await copyExample(t, { tasks: [] });
  const dir = await tempDir(t);
  // Fixes ratio only when the prompt mentions a type checker (phrasing B of py-ratio).
  await writeFile(
    join(dir, "agent.sh"),
    `#!/bin/sh
if grep -q "type checker" "$BENCHCARD_PROMPT_FILE"; then
  printf 'def ratio(part, whole):\\n    return 0.0 if whole == 0 else part / whole\\n' > ratio.py
fi
`,
    { mode: 0o755 },
  );
  await writeFile(join(dir, "agent.yaml"), `id: wording\ncommand: [ "sh", "${join(dir, "agent.sh")}" ]\nmounts: [ "${join(dir, "agent.sh")}" ]\n`);
  const { code, result, stderr } = await canary(pack, join(dir, "agent.yaml"), join(dir, "canary"));
  assert.equal(code, 3, stderr);
  assert.deepEqual(result!.summary.drifting, ["py-ratio"]);
  assert.equal(result!.summary.pd.x, 1);
  assert.match(result!.summary.decision, /PD > 0: verdicts depend on the prompt's wording \(py-ratio\)/);
});

test("a card that requires canaries: report refuses without a passing canary run of the same agent, and cites CS, QR, PD with one", async (t) => {
  if (!requireTool(t, "bwrap")) return;
  const pack = await copyExample(t, { tasks: ["py-fix-clamp", "js-fix-sum", "cfg-parse-bool"] });
  const cardPath = join(pack, "benchcard.yaml");
  const card = await readFile(cardPath, "utf8");
  await writeFile(cardPath, card.replace("max_harness_rate: 0 }", "max_harness_rate: 0, min_n_per_stratum: 1, canaries: { manifest: canaries.yaml, required: true } }").replace("min_n_per_stratum: 4, ", ""));
  const frozen = await runCli(["freeze", pack, "--jobs", "2"]);
  assert.equal(frozen.code, 0, frozen.stderr);
  const dir = await tempDir(t);
  const run = await runCli(["run", pack, "--agent", "oracle", "--out", join(dir, "runs"), "--run-id", "o", "--quiet"]);
  assert.equal(run.code, 0, run.stderr);
  const runDir = join(dir, "runs", "o");

  const without = await runCli(["report", runDir]);
  assert.equal(without.code, 3, without.stdout);
  assert.match(without.stdout, /FAIL canaries: the card requires a passing canary run on canaries\.yaml/);

  const ok = await canary(pack, "oracle", join(dir, "canary-oracle"));
  assert.equal(ok.code, 0, ok.stderr);
  const withCanary = await runCli(["report", runDir, "--canary", join(dir, "canary-oracle")]);
  assert.equal(withCanary.code, 0, withCanary.stdout);
  assert.match(withCanary.stdout, /canaries CS 1\.00, QR 1\.00, PD 0\.00 \(manifest [0-9a-f]{12}; no score is finer than CS\)/);

  const other = await canary(pack, "nop", join(dir, "canary-nop"));
  assert.equal(other.code, 0, other.stderr);
  const mismatched = await runCli(["report", runDir, "--canary", join(dir, "canary-nop")]);
  assert.equal(mismatched.code, 3);
  assert.match(mismatched.stdout, /the canary run does not apply to this run: agent fingerprint [0-9a-f]{12} is not the run's/);
});
