/**
 * The `reward-file` runner's verdict: the oracle (a Harbor task's tests/test.sh) writes its
 * reward to reward.txt (one number) or reward.json (named numbers) in the verifier folder, and
 * benchcard reads it as data. benchcard's verdict is binary: a reward of exactly 1 passes, any
 * other number fails, and a missing or unreadable reward fails with the reason. The test
 * process runs the agent's code and can write that folder, so a reward is the oracle's own
 * word, like an exit status: rows graded this way say so. Pure.
 */

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
