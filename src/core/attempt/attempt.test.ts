import assert from "node:assert/strict";
import { test } from "node:test";
import fc from "fast-check";
import { classify, type AttemptFacts } from "./outcome.js";
import { scheduleAttempts } from "./schedule.js";
import { findViolations, type Change } from "./tamper.js";
import { parseUsage, truncation } from "./usage.js";

const facts = (over: Partial<AttemptFacts> = {}): AttemptFacts => ({
  agentExit: 0,
  agentSignal: null,
  agentTimedOut: false,
  violations: "",
  hiddenIntact: true,
  oracle: { exit: 0, timedOut: false },
  ...over,
});

test("classification follows the taxonomy, in order", () => {
  assert.equal(classify(facts()).outcome, "pass");
  assert.equal(classify(facts({ oracle: { exit: 1, timedOut: false } })).outcome, "fail");
  assert.equal(classify(facts({ agentTimedOut: true, violations: "x" })).outcome, "timeout");
  assert.equal(classify(facts({ agentExit: 75 })).outcome, "infra");
  assert.equal(classify(facts({ usageInfraError: "429" })).outcome, "infra");
  assert.equal(classify(facts({ agentStartError: "ENOENT" })).outcome, "infra");
  assert.equal(classify(facts({ truncated: "cap" })).outcome, "truncated");
  assert.equal(classify(facts({ violations: "forbidden" })).outcome, "invalid");
  assert.equal(classify(facts({ hiddenIntact: false })).outcome, "harness");
  assert.equal(classify(facts({ oracle: { exit: null, timedOut: false, harnessError: "spawn bwrap ENOENT" } })).outcome, "harness");
  // The oracle started at freeze: an oracle that cannot start after the patch is the agent's doing.
  assert.equal(classify(facts({ oracle: { exit: 127, timedOut: false } })).outcome, "invalid");
  assert.equal(classify(facts({ oracle: { exit: 1, timedOut: false, tests: { verdict: "tampered", reason: "the sentinel passed" } } })).outcome, "invalid");
  assert.equal(classify(facts({ oracle: { exit: 0, timedOut: false, tests: { verdict: "fail", reason: "1 missing" } } })).outcome, "fail", "exit 0 never makes a pass on its own");
  assert.equal(classify(facts({ oracle: { exit: 1, timedOut: false, tests: { verdict: "pass", reason: "ok" } } })).outcome, "pass");
  assert.equal(classify(facts({ oracle: { exit: null, timedOut: true } })).outcome, "fail");
  assert.equal(classify(facts({ agentExit: 3 })).outcome, "pass", "a non-zero agent exit still gets graded");
});

const change = (path: string, lines = 1): Change => ({ path, change: "modified", lines_added: lines, lines_removed: 0 });
const rules = { hiddenFiles: ["tests/test_x.py"], hiddenDirs: ["tests"], forbidden: ["**/conftest.py", "**/*.pth"], fences: {}, maxPatchBytes: 100 as number | "unknown" };
const none = { bytes: 10, special: [] as string[] };

test("tamper rules: hidden paths, forbidden globs, fences, size, special files", () => {
  assert.deepEqual(findViolations([change("src/a.py")], none, rules), []);
  assert.equal(findViolations([change("tests/new_test.py")], none, rules)[0]?.rule, "hidden_path");
  assert.equal(findViolations([change("deep/dir/conftest.py")], none, rules)[0]?.rule, "forbidden_path");
  assert.equal(findViolations([change(".venv/x.pth")], none, rules)[0]?.rule, "forbidden_path");
  const fenced = { ...rules, fences: { allowed_paths: ["src/**"], max_files: 1, max_diff_lines: 5 } };
  const v = findViolations([change("src/a.py", 4), change("lib/b.py", 4)], none, fenced).map((x) => x.rule);
  assert.deepEqual(v, ["fence_path", "fence_files", "fence_lines"]);
  assert.equal(findViolations([change("src/a.py")], { bytes: 101, special: [] }, rules)[0]?.rule, "patch_size");
  assert.equal(findViolations([], { bytes: 0, special: ["pipe"] }, rules)[0]?.rule, "special_file");
});

test("usage: good fields are copied, bad ones noted, never thrown", () => {
  const good = parseUsage('{"input_tokens": 5, "output_tokens": 7, "model": "m", "truncated": false}');
  assert.equal(good.note, null);
  assert.equal(good.usage.output_tokens, 7);
  assert.match(parseUsage("{oops").note ?? "", /not JSON/);
  assert.match(parseUsage('{"steps": -1, "colour": 1}').note ?? "", /steps is not a non-negative number; unknown field\(s\) colour/);
  assert.equal(parseUsage(undefined).note, null);
  assert.match(truncation({ ...good.usage, output_tokens: 900 }, { max_output_tokens: 100, max_steps: "unknown" }) ?? "", /over the envelope/);
  assert.equal(truncation(good.usage, { max_output_tokens: "unknown", max_steps: "unknown" }), undefined);
});

const tasks = Array.from({ length: 9 }, (_, i) => ({ id: `t${i}`, stratum: ["a", "b", "c"][i % 3] as string }));

test("property: the schedule has every (task, replay) once, the same for the same seed, and shards partition it", () => {
  fc.assert(
    fc.property(fc.integer(), fc.integer({ min: 1, max: 3 }), fc.integer({ min: 1, max: 4 }), (seed, replays, shards) => {
      const all = scheduleAttempts(tasks, { replays, seed });
      assert.equal(new Set(all.map((a) => a.attempt_id)).size, tasks.length * replays);
      assert.deepEqual(all, scheduleAttempts(tasks, { replays, seed }));
      const parts = Array.from({ length: shards }, (_, i) => scheduleAttempts(tasks, { replays, seed, shard: { index: i + 1, count: shards } }));
      assert.deepEqual(parts.flat().map((a) => a.attempt_id).sort(), all.map((a) => a.attempt_id).sort());
    }),
  );
});

test("strata are interleaved so a partial run covers every stratum", () => {
  const first = scheduleAttempts(tasks, { replays: 1, seed: 1 }).slice(0, 3).map((a) => a.stratum).sort();
  assert.deepEqual(first, ["a", "b", "c"]);
});
