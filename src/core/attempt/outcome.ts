/**
 * The outcome taxonomy: one outcome per attempt, with a reason string. Infra, harness and void
 * are censored: counted, never scored as the agent's skill.
 */

export const OUTCOMES = ["pass", "fail", "timeout", "truncated", "invalid", "infra", "harness", "void"] as const;
export type Outcome = (typeof OUTCOMES)[number];

export const CENSORED: ReadonlySet<Outcome> = new Set(["infra", "harness", "void"]);

/** What the attempt saw, as plain data, in the order it is judged. */
export interface AttemptFacts {
  agentStartError?: string;
  agentExit: number | null;
  agentSignal: string | null;
  agentTimedOut: boolean;
  /** The model endpoint failed the agent's last request, after the gateway's retries. */
  endpointFailure?: string;
  usageInfraError?: string;
  truncated?: string;
  violations: string;
  hiddenIntact: boolean;
  oracle?: OracleFacts;
}

/**
 * What the oracle run showed. `harnessError`: benchcard could not set it up or start it (its own
 * fault). `tests`: the per-test verdict, when the runner reports per test; without it only the
 * exit code is known. The oracle started for gold and empty at freeze, so an oracle that cannot
 * start now (sh exit 126/127) was stopped by the agent's patch.
 */
export interface OracleFacts {
  harnessError?: string;
  exit: number | null;
  timedOut: boolean;
  tests?: { verdict: "pass" | "fail" | "tampered"; reason: string };
  /** The reward the oracle wrote (runner reward-file): it decides, whatever the exit status. */
  reward?: { verdict: "pass" | "fail"; reason: string };
}

export const INFRA_EXIT = 75;

export function classify(facts: AttemptFacts): { outcome: Outcome; reason: string } {
  if (facts.agentStartError !== undefined) return { outcome: "infra", reason: `agent could not start: ${facts.agentStartError}` };
  if (facts.endpointFailure !== undefined) return { outcome: "infra", reason: `the model endpoint failed and the agent could not recover: ${facts.endpointFailure}` };
  if (facts.agentTimedOut) return { outcome: "timeout", reason: "agent hit the wall clock; its process tree was killed" };
  if (facts.agentExit === INFRA_EXIT) return { outcome: "infra", reason: "agent exited 75 (infra failure, not the agent's fault)" };
  if (facts.usageInfraError !== undefined) return { outcome: "infra", reason: `agent reported an infra error: ${facts.usageInfraError}` };
  if (facts.truncated !== undefined) return { outcome: "truncated", reason: facts.truncated };
  if (facts.violations !== "") return { outcome: "invalid", reason: facts.violations };
  if (!facts.hiddenIntact) return { outcome: "harness", reason: "hidden tests laid over the workspace differ from the lock" };
  const oracle = facts.oracle;
  if (oracle === undefined) return { outcome: "harness", reason: "the oracle did not run" };
  if (oracle.harnessError !== undefined) return { outcome: "harness", reason: oracle.harnessError };
  if (oracle.tests !== undefined) {
    const { verdict, reason } = oracle.tests;
    return { outcome: verdict === "tampered" ? "invalid" : verdict, reason };
  }
  if (oracle.reward !== undefined) return { outcome: oracle.reward.verdict, reason: `${oracle.reward.reason} (graded by the reward file only)` };
  if (oracle.timedOut) return { outcome: "fail", reason: "oracle timed out" };
  if (oracle.exit === 126 || oracle.exit === 127) {
    return { outcome: "invalid", reason: `the oracle could not start after the agent's patch (sh exited ${oracle.exit}; it started for gold and empty at freeze)` };
  }
  if (oracle.exit === 0) return { outcome: "pass", reason: "oracle exited 0 (exit code only)" };
  return { outcome: "fail", reason: `oracle exited ${oracle.exit ?? "by a signal"}` };
}
