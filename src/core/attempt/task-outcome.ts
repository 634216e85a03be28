import type { Row } from "./ledger-row.js";
import type { Outcome } from "./outcome.js";

/**
 * A task's outcome from its replays. Infra and harness replays are censored; a timeout is
 * censored too when the card's policy excludes timeouts. Scored replays that disagree beyond
 * `maxDrift` (the minority's share) make the task void. Otherwise the majority decides; a
 * failing task takes the gravest failure among its replays.
 */
export interface TaskOutcome {
  task_id: string;
  stratum: string;
  role: Row["role"];
  outcome: Outcome;
  replays: number;
  scored: number;
  passes: number;
  drift: number;
}

const GRAVITY: Outcome[] = ["invalid", "truncated", "timeout", "fail"];

export function taskOutcome(rows: readonly Row[], options: { timeout: "fail" | "exclude"; maxDrift: number }): TaskOutcome {
  const first = rows[0];
  if (first === undefined) throw new Error("Cannot judge a task with no rows");
  const censoredKinds = new Set<Outcome>(["infra", "harness", "void", ...(options.timeout === "exclude" ? (["timeout"] as const) : [])]);
  const scoredRows = rows.filter((r) => !censoredKinds.has(r.outcome));
  const passes = scoredRows.filter((r) => r.outcome === "pass").length;
  const scored = scoredRows.length;
  const base = { task_id: first.task_id, stratum: first.stratum, role: first.role, replays: rows.length, scored, passes };
  if (scored === 0) {
    const kinds = rows.map((r) => r.outcome);
    const outcome = (["harness", "infra", "void", "timeout"] as const).find((k) => kinds.includes(k)) ?? "harness";
    return { ...base, outcome, drift: 0 };
  }
  const minority = Math.min(passes, scored - passes);
  const drift = minority / scored;
  if (drift > options.maxDrift || (minority > 0 && passes * 2 === scored)) return { ...base, outcome: "void", drift };
  if (passes * 2 > scored) return { ...base, outcome: "pass", drift };
  const failures = scoredRows.map((r) => r.outcome);
  return { ...base, outcome: GRAVITY.find((g) => failures.includes(g)) ?? "fail", drift };
}
