import assert from "node:assert/strict";
import test from "node:test";
import { judgeObservedReward, judgeReward } from "./reward.js";
import { makeSentinel } from "./sentinel.js";

test("a reward of exactly 1 passes; any other number, no reward, or an unreadable one fails with the reason", () => {
  const judge = (txt: string | null, json: string | null = null, timedOut = false) => judgeReward({ txt, json }, timedOut);
  assert.deepEqual(judge("1\n"), { verdict: "pass", value: 1, reason: "reward 1" });
  assert.equal(judge("1.0").verdict, "pass");
  assert.deepEqual(judge("0.5"), { verdict: "fail", value: 0.5, reason: "reward 0.5; only 1 passes" });
  assert.equal(judge("0").verdict, "fail");
  assert.equal(judge("2").verdict, "fail", "more than 1 is not a pass");
  assert.match(judge("1 1").reason, /reward.txt is not a number/);
  assert.match(judge("NaN").reason, /not a number/);
  assert.match(judge("1e999").reason, /not a finite number/);
  assert.match(judge(null).reason, /the oracle wrote no reward/);
  assert.match(judge("1", null, true).reason, /timed out/, "a timed-out verifier fails whatever it wrote");
  // reward.txt wins over reward.json, as in Harbor.
  assert.equal(judge("0", '{"reward": 1}').verdict, "fail");
  assert.equal(judge(null, '{"reward": 1}').verdict, "pass");
  assert.equal(judge(null, '{"accuracy": 1}').verdict, "pass", "one named reward counts");
  assert.match(judge(null, '{"a": 1, "b": 1}').reason, /2 rewards and no "reward" key/);
  assert.match(judge(null, '{"reward": "1"}').reason, /not a number/);
  assert.match(judge(null, "[1]").reason, /not an object/);
  assert.match(judge(null, "{").reason, /not JSON/);
});

test("a watched reward of 1 passes only when the witness passed and every expected test passed; otherwise the reward is contradicted", () => {
  const witness = makeSentinel("test_outputs.py", "0123456789abcdef", "0123456789abcdef0123456789abcdef");
  const one = judgeReward({ txt: "1", json: null }, false);
  const zero = judgeReward({ txt: "0", json: null }, false);
  const expected = ["test_outputs.py::test_a", "test_outputs.py::test_b"];
  const passed = (id: string) => ({ id, outcome: "passed" as const, message: "" });
  const w = passed(`test_outputs.py::${witness.name}`);
  const judge = (reward: typeof one, tests: { id: string; outcome: "passed" | "failed" | "skipped" | "error"; message: string }[] | null) =>
    judgeObservedReward(reward, { report: tests === null ? { ok: false, reason: "the runner wrote no result" } : { ok: true, tests }, witness, expected });
  const all = judge(one, [passed(expected[0]!), passed(expected[1]!), w]);
  assert.equal(all.verdict, "pass");
  assert.equal(all.summary.sentinel, "witness passed");
  assert.equal(all.summary.passed, 2);
  assert.match(judge(one, null).reason, /reward is 1, but the verifier's pytest wrote no per-test report/);
  assert.equal(judge(one, null).verdict, "tampered");
  assert.match(judge(one, [passed(expected[0]!)]).reason, /witness test never ran/);
  assert.match(judge(one, [passed(expected[0]!), { ...w, outcome: "failed", message: "benchcard witness: 2 assertion(s) did not fail" }]).reason, /witness test failed/);
  const short = judge(one, [passed(expected[0]!), w]);
  assert.equal(short.verdict, "tampered");
  assert.match(short.reason, /1 expected test\(s\) missing: test_outputs.py::test_b/);
  assert.match(judge(one, [passed(expected[0]!), { id: expected[1]!, outcome: "skipped", message: "" }, w]).reason, /1 expected test\(s\) did not pass/);
  // A reward below 1 fails as it is, whatever the tests showed.
  assert.deepEqual([judge(zero, null).verdict, judge(zero, null).reason], ["fail", "reward 0; only 1 passes"]);
});
