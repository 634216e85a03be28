/**
 * The `reward-file` runner's verdict: the oracle (a Harbor task's tests/test.sh) writes its
 * reward to reward.txt (one number) or reward.json (named numbers) in the verifier folder, and
 * benchcard reads it as data. benchcard's verdict is binary: a reward of exactly 1 passes, any
 * other number fails, and a missing or unreadable reward fails with the reason. The test
 * process runs the agent's code and can write that folder, so a reward is the oracle's own
 * word, like an exit status: rows graded this way say so. Pure.
 */
import type { TestSummary, TestVerdict } from "./judge.js";
import type { TestResult } from "./runner.js";
import { findSentinel, type Sentinel } from "./sentinel.js";

export const REWARD_FILES = ["reward.txt", "reward.json"] as const;

/** Folder, inside the sandbox, the oracle may write logs to: fresh and writable for each oracle run. */
export const LOGS_DIR = "/logs";

/** Folder, inside the sandbox, the oracle writes its reward to (as a Harbor verifier does). */
export const REWARD_DIR = `${LOGS_DIR}/verifier`;

export interface RewardVerdict {
  verdict: "pass" | "fail";
  /** The reward read, or null when there was none. */
  value: number | null;
  reason: string;
}

/**
 * Judges the files the oracle left: `txt` and `json` are their texts, or null when absent.
 * reward.txt wins when both are there (as in Harbor). In reward.json the key "reward" counts;
 * an object with one number and no "reward" key counts that number.
 */
export function judgeReward(files: { txt: string | null; json: string | null }, timedOut: boolean): RewardVerdict {
  const fail = (reason: string, value: number | null = null): RewardVerdict => ({ verdict: "fail", value, reason });
  if (timedOut) return fail("the oracle timed out");
  let value: number;
  if (files.txt !== null) {
    const text = files.txt.trim();
    if (!/^[-+]?(\d+\.?\d*|\.\d+)([eE][-+]?\d+)?$/.test(text)) return fail(`reward.txt is not a number (${JSON.stringify(text.slice(0, 40))})`);
    value = Number(text);
  } else if (files.json !== null) {
    let parsed: unknown;
    try {
      parsed = JSON.parse(files.json);
    } catch {
      return fail("reward.json is not JSON");
    }
    if (typeof parsed !== "object" || parsed === null || Array.isArray(parsed)) return fail("reward.json is not an object of named rewards");
    const entries = Object.entries(parsed as Record<string, unknown>);
    const chosen = "reward" in parsed ? (parsed as Record<string, unknown>).reward : entries.length === 1 ? entries[0]![1] : undefined;
    if (chosen === undefined) return fail(`reward.json has ${entries.length} rewards and no "reward" key`);
    if (typeof chosen !== "number") return fail("the reward in reward.json is not a number");
    value = chosen;
  } else return fail(`the oracle wrote no reward (${REWARD_FILES.join(" or ")} in ${REWARD_DIR})`);
  if (!Number.isFinite(value)) return fail("the reward is not a finite number");
  return value === 1 ? { verdict: "pass", value, reason: "reward 1" } : fail(`reward ${value}; only 1 passes`, value);
}

/**
 * A reward checked against what pytest showed inside the verifier (benchcard's reporter, loaded
 * from a conftest.py beside the hidden tests, and a witness test): used for tasks whose gold run
 * showed the witness and the tests, whose ids the lock then holds as expected. A reward of 1 passes
 * only when the report shows the witness passed and every expected test present and passed; a
 * reward of 1 that the tests contradict (a run cut short by an early exit with status 0, a report
 * missing or written over) is tampering. A reward below 1 fails as it is.
 */
export function judgeObservedReward(
  reward: RewardVerdict,
  observed: { report: { ok: true; tests: TestResult[] } | { ok: false; reason: string }; witness: Sentinel; expected: readonly string[] },
): TestVerdict {
  const summary: TestSummary = { total: 0, passed: 0, failed: [], skipped: [], missing: [], extra_failing: [], sentinel: "not checked", counts_check: "not checked: the verifier's reward decides" };
  const out = (verdict: TestVerdict["verdict"], reason: string): TestVerdict => ({ verdict, reason, summary });
  const tests = observed.report.ok ? observed.report.tests : [];
  const witness = findSentinel(observed.witness, tests);
  const others = tests.filter((t) => t !== witness);
  const byId = new Map(others.map((t) => [t.id, t]));
  const missing = observed.expected.filter((id) => !byId.has(id));
  const notPassed = observed.expected.filter((id) => byId.has(id) && byId.get(id)!.outcome !== "passed");
  summary.total = others.length;
  summary.passed = others.filter((t) => t.outcome === "passed").length;
  summary.failed = others.filter((t) => t.outcome === "failed" || t.outcome === "error").map((t) => t.id).slice(0, 20);
  summary.skipped = others.filter((t) => t.outcome === "skipped").map((t) => t.id).slice(0, 20);
  summary.missing = missing.slice(0, 20);
  // The witness passes when sound; its failing means the assertions were changed.
  summary.sentinel = witness === undefined ? "missing" : witness.outcome === "passed" ? "witness passed" : "witness failed";
  if (reward.verdict === "fail") return out("fail", reward.reason);
  if (!observed.report.ok) return out("tampered", `the test run was tampered with: the reward is 1, but the verifier's pytest wrote no per-test report (${observed.report.reason})`);
  if (witness === undefined) return out("tampered", "the test run was tampered with: the reward is 1, but the witness test never ran (the test run was cut short)");
  if (witness.outcome !== "passed") return out("tampered", `the test run was tampered with: the witness test ${witness.outcome} (${JSON.stringify(witness.message.slice(0, 200))})`);
  const problems = [
    missing.length > 0 ? `${missing.length} expected test(s) missing: ${missing.slice(0, 5).join(", ")}` : "",
    notPassed.length > 0 ? `${notPassed.length} expected test(s) did not pass: ${notPassed.slice(0, 5).join(", ")}` : "",
  ].filter(Boolean);
  if (problems.length > 0) return out("tampered", `the test run was tampered with: the reward is 1, but ${problems.join("; ")}`);
  return out("pass", `reward 1, and all ${observed.expected.length} expected test(s) passed`);
}
