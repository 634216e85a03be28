import { controlRole, type Task } from "./card.js";

/**
 * Control checks at validation time. Every check runs the oracle k times; the repeats must
 * agree with each other and with what the task's role expects.
 */

export type Observation = "pass" | "fail" | "harness";
export type CheckStatus = "green" | "red" | "flaky" | "harness";
export type CheckName = "gold" | "empty";

export interface CheckPlan {
  name: CheckName;
  /** What k/k repeats must show. */
  expect: "pass" | "fail";
}

/** Which checks a task gets, from its role and whether it ships a gold fix. */
export function planChecks(task: Task, hasGold: boolean): CheckPlan[] {
  switch (controlRole(task)) {
    case "normal":
      return [
        { name: "gold", expect: "pass" },
        { name: "empty", expect: "fail" },
      ];
    case "negative":
      return [{ name: "empty", expect: "pass" }];
    case "must_fail_forever":
      return hasGold
        ? [
            { name: "empty", expect: "fail" },
            { name: "gold", expect: "fail" },
          ]
        : [{ name: "empty", expect: "fail" }];
  }
}

/** Any repeat that could not start is a harness error; repeats that disagree are flaky. */
export function judgeCheck(expect: "pass" | "fail", observed: readonly Observation[]): CheckStatus {
  if (observed.length === 0) throw new Error("Cannot judge a check with no repeats");
  if (observed.includes("harness")) return "harness";
  const first = observed[0];
  if (observed.some((o) => o !== first)) return "flaky";
  return first === expect ? "green" : "red";
}

const SEVERITY: Record<CheckStatus, number> = { green: 0, red: 1, flaky: 2, harness: 3 };

/** The worst status among a task's checks. */
export function worstStatus(statuses: readonly CheckStatus[]): CheckStatus {
  return statuses.reduce<CheckStatus>((worst, s) => (SEVERITY[s] > SEVERITY[worst] ? s : worst), "green");
}

/** "3/3 pass", the way a check is shown: how many repeats showed what was expected. */
export function checkScore(expect: "pass" | "fail", observed: readonly Observation[]): string {
  const hits = observed.filter((o) => o === expect).length;
  return `${hits}/${observed.length} ${expect}`;
}
