import assert from "node:assert/strict";
import { test } from "node:test";
import type { Task } from "./card.js";
import { checkScore, judgeCheck, planChecks, worstStatus } from "./controls.js";

const task = (control?: Task["control"]): Task => ({
  id: "t",
  stratum: "s",
  title: "t",
  origin: "synthetic",
  leakage_risk: "low",
  ...(control === undefined ? {} : { control }),
});

test("each role plans its controls", () => {
  assert.deepEqual(planChecks(task(), true), [
    { name: "gold", expect: "pass" },
    { name: "empty", expect: "fail" },
  ]);
  assert.deepEqual(planChecks(task("negative"), false), [{ name: "empty", expect: "pass" }]);
  assert.deepEqual(planChecks(task("must_fail_forever"), false), [{ name: "empty", expect: "fail" }]);
  assert.deepEqual(planChecks(task("must_fail_forever"), true), [
    { name: "empty", expect: "fail" },
    { name: "gold", expect: "fail" },
  ]);
});

test("repeats that agree with the expectation are green, against it red", () => {
  assert.equal(judgeCheck("pass", ["pass", "pass", "pass"]), "green");
  assert.equal(judgeCheck("fail", ["pass", "pass", "pass"]), "red");
  assert.equal(judgeCheck("fail", ["fail", "fail"]), "green");
});

test("repeats that disagree are flaky, never pass or fail", () => {
  assert.equal(judgeCheck("pass", ["pass", "fail", "pass"]), "flaky");
  assert.equal(judgeCheck("fail", ["fail", "fail", "pass"]), "flaky");
});

test("an oracle that could not start is a harness error", () => {
  assert.equal(judgeCheck("fail", ["fail", "harness", "fail"]), "harness");
});

test("the worst status wins and scores read k/k", () => {
  assert.equal(worstStatus(["green", "red", "flaky"]), "flaky");
  assert.equal(worstStatus([]), "green");
  assert.equal(checkScore("pass", ["pass", "fail", "pass"]), "2/3 pass");
});
