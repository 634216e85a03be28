import assert from "node:assert/strict";
import test from "node:test";
import { judgeReward } from "./reward.js";

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
