import { UNKNOWN, type Card } from "../pack/card.js";
import type { DriftEntry } from "../pack/digest.js";
import { applyCorrections, type Correction, type Row } from "../attempt/ledger-row.js";
import type { Lock } from "../pack/lock.js";
import { CENSORED, OUTCOMES, type Outcome } from "../attempt/outcome.js";
import { seededPrng } from "../common/random.js";
import { bootstrapClusters, clusteredRate } from "../stats/cluster.js";
import { proportionInterval } from "../stats/proportion.js";
import { homogeneity, homogeneityPower, type HomogeneityMethod } from "../stats/homogeneity.js";
import { GRADER_ATTACKS, type Violation } from "../attempt/tamper.js";
import { finalRows } from "../attempt/schedule.js";
import type { HoldoutUsage } from "../pack/holdout-log.js";
import { taskOutcome, type TaskOutcome } from "../attempt/task-outcome.js";

/** The report model: everything `report` prints, recomputed from card, lock and rows. Pure. */

export const REPORT_SCHEMA = "benchcard.report/1" as const;
export type Status = "OK" | "SKIP" | "INVALID";

export interface Gate {
  name: string;
  status: "pass" | "fail";
  /** SKIP when frozen inputs moved (exit 2); INVALID otherwise (exit 3). */
  severity: "SKIP" | "INVALID";
  reason: string;
}

export interface StratumSummary {
  id: string;
  scheduled: number;
  scored: number;
  counts: Record<Outcome, number>;
  missing: number;
  scoreable_rate: number | null;
  interval: [number, number] | null;
  strict_rate: number;
  timeout_rate: number;
  infra_rate: number;
  attempts: number;
  median_seconds: number | null;
  tokens_per_pass: number | null;
  cost_per_pass: number | null;
  clustered: { rate: number; se: number | null; se_note?: string; bootstrap: [number, number] | null } | null;
}

export interface RunInfo {
  run_id: string;
  scheduled: number;
  seed: number;
  replays: number;
  split: string;
  isolation: "process" | "bwrap";
  agent_id: string;
  agent_fingerprint: string;
  /** "i/N"; a run that is one shard of several is partial. Absent means the whole run. */
  shard?: string;
  /** The environment digest recorded by run (absent in older runs). */
  environment_digest?: string | null;
  /** How many shards `benchcard merge` made this run from (0 for an ordinary run). */
  merged_shards?: number;
  /** For a regraded run: the run it regrades and that run's pack. */
  regraded_from?: { run_id: string; pack_hash: string } | null;
}

export interface ReportInput {
  card: Card;
  lock: Lock;
  rows: readonly Row[];
  run: RunInfo;
  /** Tasks the run scheduled (from the lock and the run's split), with their strata and roles. */
  scheduledTasks: readonly { id: string; stratum: string; role: Row["role"] }[];
  drift: readonly DriftEntry[];
  /** The pack's holdout log, for a run on the holdout. */
  holdout?: HoldoutUsage;
  /** Correction rows of the ledger: the latest for each attempt is applied, every one listed. */
  corrections?: readonly Correction[];
  /** The canary result given with --canary, and what does not match this run. */
  canary?: CanaryEvidence;
}

/** A canary run's numbers as the report sees them, with why it does not apply to this run. */
export interface CanaryEvidence {
  cs: number | null;
  qr: number | null;
  pd: number | null;
  passed: boolean;
  decision: string;
  manifest_hash: string;
  /** Agent fingerprint, harness version or manifest hash that differ from this run's. */
  mismatch: string[];
}

export interface Report {
  schema: typeof REPORT_SCHEMA;
  status: Status;
  reasons: string[];
  gates: Gate[];
  identity: {
    card: string;
    version: string;
    pack_hash: string;
    card_hash: string;
    run_id: string;
    agent_id: string;
    agent_fingerprint: string;
    isolation: string;
    hidden_guaranteed_secret: boolean;
    /** The weakest way any graded attempt was observed. */
    oracle_integrity: "per_test" | "exit_code_only" | "reward_file";
    shard: string;
    merged_shards: number;
    environment_digest: string | null;
    leak_check: "done" | "not done";
    timeout_policy: "fail" | "exclude";
    envelope: { wall_s: number; max_output_tokens: number | "unknown"; max_steps: number | "unknown"; max_retries: number };
    /** The most tries any scheduled attempt got (1 without retries). */
    most_tries: number;
    /** How often the holdout was used and by whom (holdout runs only). */
    holdout: { runs: number; agents: string[]; chain: string } | null;
    regraded_from: { run_id: string; pack_hash: string } | null;
    /** Who worked the tasks: an agent, or a human in baseline sessions. */
    actor: "agent" | "human";
    /** The canary run cited (CS, QR, PD), when one was given. */
    canary: { cs: number | null; qr: number | null; pd: number | null; manifest_hash: string } | null;
    /** Where the token counts come from: the gateway, the agent's usage file, both, or nowhere. */
    token_source: "metered" | "self_reported" | "mixed" | "none";
    retried_attempts: number;
    replays: number;
    seed: number;
    split: string;
    confidence: number;
    interval_method: string;
  };
  strata: StratumSummary[];
  overall: StratumSummary;
  homogeneity: {
    method: HomogeneityMethod;
    statistic: number;
    df: number;
    p: number;
    permutations?: number;
    alpha: number;
    homogeneous: boolean;
    /** The test's power to detect a spread of `delta` between strata; below 0.5 the overall rate is withheld. */
    power: number;
    delta: number;
  } | null;
  /** Why the overall line is withheld, when it is. */
  overall_withheld: string | null;
  controls: { task_id: string; role: Row["role"]; outcome: Outcome | "missing"; expected: string; ok: boolean }[];
  tasks: (TaskOutcome & { attempts: (Pick<Row, "replay" | "outcome" | "reason" | "wall_s" | "artifacts" | "steers" | "visible" | "oracle_integrity"> & { tokens: number | null })[] })[];
  /** Every correction appended to the ledger, in order; the latest per attempt is applied. */
  corrections: Correction[];
  sentence: string | null;
}

export function exitCodeFor(status: Status): 0 | 2 | 3 {
  return status === "OK" ? 0 : status === "SKIP" ? 2 : 3;
}

const REQUIRED_TEXT: readonly [string, (c: Card) => string][] = [
  ["name", (c) => c.name],
  ["version", (c) => c.version],
  ["license", (c) => c.license],
  ["description", (c) => c.description],
  ["sampling", (c) => c.sampling],
  ["contract.pass", (c) => c.contract.pass],
  ["contract.oracle", (c) => c.contract.oracle],
];

export function buildReport(input: ReportInput): Report {
  const { card, lock, run } = input;
  // Corrections replace an attempt's outcome (the row stays); retries are rows of their own, and
  // only each attempt's last try is scored.
  const corrections = input.corrections ?? [];
  const allRows = applyCorrections(input.rows, corrections).rows;
  const rows = finalRows(allRows);
  const policy = card.policy;
  const byTask = new Map<string, Row[]>();
  for (const row of rows) byTask.set(row.task_id, [...(byTask.get(row.task_id) ?? []), row]);
  const judged = new Map<string, TaskOutcome>();
  for (const [id, taskRows] of byTask) {
    judged.set(id, taskOutcome([...taskRows].sort((a, b) => a.replay - b.replay), { timeout: policy.timeout, maxDrift: card.controls.max_replay_drift }));
  }
  const normal = input.scheduledTasks.filter((t) => t.role === "normal");
  const strataIds = card.strata.map((s) => s.id).filter((id) => normal.some((t) => t.stratum === id));
  const summarize = (id: string, tasks: typeof normal): StratumSummary => summarizeStratum(id, tasks, judged, byTask, card, run.seed);
  const strata = strataIds.map((id) => summarize(id, normal.filter((t) => t.stratum === id)));
  const overall = summarize("overall", normal);

  const gates: Gate[] = [];
  const gate = (name: string, ok: boolean, reason: string, severity: Gate["severity"] = "INVALID") =>
    gates.push({ name, status: ok ? "pass" : "fail", severity, reason });

  const blank = REQUIRED_TEXT.filter(([, get]) => get(card).trim() === "" || get(card).trim() === UNKNOWN).map(([f]) => f);
  gate("card_complete", blank.length === 0, blank.length === 0 ? "every required card field is filled" : `blank or unknown required field(s): ${blank.join(", ")}`);
  gate(
    "pack_verifies",
    input.drift.length === 0,
    input.drift.length === 0 ? "the pack matches its lock" : `the pack drifted from its lock: ${input.drift.map((d) => `${d.change} ${d.path}`).join(", ")}`,
    "SKIP",
  );
  const shard = run.shard ?? "1/1";
  const full = input.scheduledTasks.length * run.replays;
  gate(
    "whole_run",
    shard === "1/1",
    shard === "1/1"
      ? (run.merged_shards ?? 0) > 0
        ? `merged from ${run.merged_shards} shards that cover every attempt once`
        : "the run covers its whole split"
      : `partial: shard ${shard}, ${rows.length} of ${full} attempts; merge the shards with \`benchcard merge\``,
    "SKIP",
  );
  const redAtFreeze = Object.entries(lock.validation.tasks).filter(([, t]) => t.status !== "green").map(([id]) => id);
  gate("controls_green_at_freeze", redAtFreeze.length === 0, redAtFreeze.length === 0 ? `every task's controls were green at freeze (k=${lock.validation.oracle_repeats})` : `controls not green at freeze: ${redAtFreeze.join(", ")}`);
  const attemptIds = new Set(allRows.map((r) => r.attempt_id));
  const duplicates = allRows.length - attemptIds.size;
  gate(
    "ledger_complete",
    rows.length === run.scheduled && duplicates === 0,
    rows.length === run.scheduled && duplicates === 0 ? `every scheduled attempt has a final row (${run.scheduled})` : `${rows.length} rows for ${run.scheduled} scheduled attempts${duplicates > 0 ? `, ${duplicates} duplicated` : ""}; finish it with \`benchcard run --resume\``,
  );
  const fingerprints = new Set(rows.map((r) => r.agent_fingerprint));
  const packs = new Set(rows.map((r) => `${r.pack_hash}/${r.card_hash}`));
  const oneAgentOnePack = fingerprints.size <= 1 && packs.size <= 1 && rows.every((r) => r.pack_hash === lock.pack_hash && r.card_hash === lock.card_hash);
  gate(
    "one_agent_one_pack",
    oneAgentOnePack,
    oneAgentOnePack ? "one agent fingerprint and one pack hash in the run" : `${fingerprints.size} agent fingerprint(s) and ${packs.size} pack/card hash pair(s) in the run, or rows from another lock`,
  );
  const thin = strata.filter((s) => s.scored < card.controls.min_n_per_stratum);
  gate("min_n_per_stratum", thin.length === 0, thin.length === 0 ? `every stratum has at least ${card.controls.min_n_per_stratum} scored tasks` : `strata below min_n_per_stratum ${card.controls.min_n_per_stratum}: ${thin.map((s) => `${s.id} (${s.scored})`).join(", ")}`);
  const infraRate = rows.length === 0 ? 0 : rows.filter((r) => r.outcome === "infra").length / rows.length;
  gate("infra_rate", infraRate <= card.controls.max_infra_rate, `infra-censor rate ${fmtRate(infraRate)} ${infraRate <= card.controls.max_infra_rate ? "within" : "over"} max_infra_rate ${card.controls.max_infra_rate}`);
  const harnessRate = rows.length === 0 ? 0 : rows.filter((r) => r.outcome === "harness").length / rows.length;
  gate(
    "harness_rate",
    harnessRate <= card.controls.max_harness_rate,
    `benchcard's own failures (harness) on ${fmtRate(harnessRate)} of rows, ${harnessRate <= card.controls.max_harness_rate ? "within" : "over"} max_harness_rate ${card.controls.max_harness_rate}`,
  );
  const attacks = rows.filter((r) => r.violations.some((v) => GRADER_ATTACKS.has(v.rule as Violation["rule"])));
  gate(
    "no_grader_attacks",
    attacks.length === 0,
    attacks.length === 0
      ? "no attempt changed how the grader starts or tampered with the test run"
      : `${attacks.length} attempt(s) attacked the grader, so there is no score until explained: ${attacks
          .slice(0, 5)
          .map((r) => `${r.attempt_id} (${[...new Set(r.violations.filter((v) => GRADER_ATTACKS.has(v.rule as Violation["rule"])).map((v) => v.rule))].join(", ")})`)
          .join(", ")}${attacks.length > 5 ? ", ..." : ""}`,
  );
  // Tasks graded by the oracle's own word (its exit status, or the reward it wrote), not observed per test.
  const selfGraded = [...new Set(rows.filter((r) => r.oracle_integrity === "exit_code_only" || r.oracle_integrity === "reward_file").map((r) => r.task_id))].sort();
  const byReward = new Set(rows.filter((r) => r.oracle_integrity === "reward_file").map((r) => r.task_id));
  const how = byReward.size === 0 ? "exit code only" : byReward.size === selfGraded.length ? "reward file only" : "exit code or reward file only";
  const integrityOk = card.policy.oracle_integrity === "exit_code" || selfGraded.length === 0;
  gate(
    "oracle_integrity",
    integrityOk,
    selfGraded.length === 0
      ? "every graded attempt was observed per test, with a sentinel"
      : integrityOk
        ? `${selfGraded.length} task(s) graded by ${how}, which the card's policy allows`
        : `the card requires per-test oracle integrity; graded by ${how}: ${selfGraded.slice(0, 10).join(", ")}${selfGraded.length > 10 ? ", ..." : ""}`,
  );
  const multi = [...judged.values()].filter((t) => t.scored >= 2);
  const driftRate = multi.length === 0 ? 0 : multi.filter((t) => t.passes > 0 && t.passes < t.scored).length / multi.length;
  gate("replay_drift", driftRate <= card.controls.max_replay_drift, multi.length === 0 ? "no task has two scored replays" : `replays disagree on ${fmtRate(driftRate)} of tasks (max_replay_drift ${card.controls.max_replay_drift})`);
  const weakest = rows.some((r) => r.isolation === "process") ? "process" : rows.length > 0 ? "bwrap" : run.isolation;
  const isolationOk = policy.isolation === "process" || weakest === "bwrap";
  gate("isolation", isolationOk, isolationOk ? `${weakest} isolation meets the card's ${policy.isolation}` : `the card requires ${policy.isolation} isolation; this run used ${weakest} (hidden tests were not guaranteed secret)`);
  if (lock.split !== null) {
    const notHoldout = rows.filter((r) => r.split !== "holdout").length;
    gate("holdout_only", notHoldout === 0, notHoldout === 0 ? "only holdout rows" : `the pack has a holdout; ${notHoldout} row(s) are not from it (run with --split holdout)`);
  }
  if (input.holdout !== undefined) {
    const h = input.holdout;
    const max = policy.max_holdout_runs;
    const listed = h.entries.some((e) => e.run_id === run.run_id);
    const problems = [
      h.chain !== "intact" ? `the holdout log's chain is ${h.chain}` : "",
      !listed && h.chain === "intact" ? `this run is not in the holdout log` : "",
      max !== undefined && h.runs > max ? `the holdout was run ${h.runs} times, more than policy.max_holdout_runs ${max}` : "",
    ].filter(Boolean);
    gate(
      "holdout_discipline",
      problems.length === 0,
      problems.length === 0 ? `the holdout was run ${h.runs} time(s)${max === undefined ? "" : ` (at most ${max})`}, by ${h.agents.join(", ")}; its log's chain is intact` : problems.join("; "),
    );
  }
  const controls = input.scheduledTasks
    .filter((t) => t.role !== "normal")
    .map((t) => {
      const outcome: Outcome | "missing" = judged.get(t.id)?.outcome ?? "missing";
      const expected = t.role === "negative" ? "pass" : "not pass";
      return { task_id: t.id, role: t.role, outcome, expected, ok: t.role === "negative" ? outcome === "pass" : outcome !== "pass" };
    });
  const cheated = controls.filter((c) => c.role === "must_fail_forever" && c.outcome === "pass").map((c) => c.task_id);
  const broken = controls.filter((c) => c.role === "negative" && c.outcome !== "pass").map((c) => `${c.task_id} (${c.outcome})`);
  const controlProblems = [
    cheated.length > 0 ? `must_fail_forever task(s) passed, so the grader or the agent cheated: ${cheated.join(", ")}` : "",
    broken.length > 0 ? `negative control(s) not kept green, so the harness, the grader or the agent broke an already-green task: no score until explained: ${broken.join(", ")}` : "",
  ].filter(Boolean);
  gate(
    "run_controls",
    controlProblems.length === 0,
    controlProblems.length === 0
      ? `controls held in this run: ${controls.filter((c) => c.role === "negative").length} negative kept green, ${controls.filter((c) => c.role === "must_fail_forever").length} must_fail_forever not passed`
      : controlProblems.join("; "),
  );

  const canaryControl = card.controls.canaries;
  if (canaryControl !== undefined || input.canary !== undefined) {
    const c = input.canary;
    const problem =
      c === undefined
        ? canaryControl?.required === true
          ? `the card requires a passing canary run on ${canaryControl.manifest}: run benchcard canary and pass its folder with --canary DIR`
          : null
        : c.mismatch.length > 0
          ? `the canary run does not apply to this run: ${c.mismatch.join("; ")}`
          : !c.passed
            ? `the canaries did not pass: ${c.decision}`
            : null;
    const fmt = (x: number | null) => (x === null ? "undefined" : x.toFixed(2));
    gate("canaries", problem === null, problem ?? (c === undefined ? "canaries not required by the card" : `canaries passed: CS ${fmt(c.cs)}, QR ${fmt(c.qr)}, PD ${fmt(c.pd)}`));
  }

  const homogeneity = homogeneityTest(strata, { alpha: policy.homogeneity_alpha, delta: policy.homogeneity_delta, seed: run.seed });
  let overallWithheld: string | null = null;
  if (policy.global_mean === "never") overallWithheld = "the card's policy never prints a rate across strata";
  else if (homogeneity !== null && !homogeneity.homogeneous) {
    overallWithheld = `strata disagree (${homogeneity.method}, statistic ${homogeneity.statistic.toFixed(2)}, df ${homogeneity.df}, p = ${homogeneity.p.toPrecision(3)} < ${homogeneity.alpha}): read the strata, not an overall rate`;
  } else if (homogeneity !== null && homogeneity.power < 0.5) {
    overallWithheld = `strata too small to show homogeneity: the test would find a spread of ${homogeneity.delta} between strata with power ${homogeneity.power.toFixed(2)} (< 0.5), so "not rejected" cannot be read as "homogeneous"; read the strata`;
  }

  const failing = gates.filter((g) => g.status === "fail");
  const status: Status = failing.some((g) => g.severity === "SKIP") ? "SKIP" : failing.length > 0 ? "INVALID" : "OK";
  const identity = {
    card: card.name,
    version: card.version,
    pack_hash: lock.pack_hash,
    card_hash: lock.card_hash,
    run_id: run.run_id,
    agent_id: run.agent_id,
    agent_fingerprint: run.agent_fingerprint,
    isolation: weakest,
    hidden_guaranteed_secret: weakest === "bwrap",
    oracle_integrity: rows.some((r) => r.oracle_integrity === "exit_code_only")
      ? ("exit_code_only" as const)
      : byReward.size > 0
        ? ("reward_file" as const)
        : ("per_test" as const),
    shard,
    merged_shards: run.merged_shards ?? 0,
    environment_digest: run.environment_digest ?? null,
    timeout_policy: card.policy.timeout,
    leak_check: card.contamination.denylist === undefined || card.contamination.denylist === UNKNOWN ? ("not done" as const) : ("done" as const),
    envelope: {
      wall_s: card.envelope.wall_s,
      max_output_tokens: card.envelope.max_output_tokens,
      max_steps: card.envelope.max_steps,
      max_retries: card.envelope.max_retries,
    },
    most_tries: Math.max(1, ...allRows.map((r) => r.retry + 1)),
    regraded_from: run.regraded_from ?? null,
    actor: allRows.some((r) => r.actor === "human") ? ("human" as const) : ("agent" as const),
    token_source: tokenSource(rows),
    canary: input.canary === undefined || input.canary.mismatch.length > 0 ? null : { cs: input.canary.cs, qr: input.canary.qr, pd: input.canary.pd, manifest_hash: input.canary.manifest_hash },
    holdout: input.holdout === undefined ? null : { runs: input.holdout.runs, agents: input.holdout.agents, chain: input.holdout.chain },
    retried_attempts: rows.filter((r) => r.retry > 0).length,
    replays: run.replays,
    seed: run.seed,
    split: run.split,
    confidence: policy.confidence,
    interval_method: policy.interval,
  };
  const report: Report = {
    schema: REPORT_SCHEMA,
    status,
    reasons: failing.map((g) => `${g.name}: ${g.reason}`),
    gates,
    identity,
    strata,
    overall,
    homogeneity,
    overall_withheld: overallWithheld,
    controls,
    tasks: [...input.scheduledTasks]
      .sort((a, b) => (a.id < b.id ? -1 : 1))
      .flatMap((t) => {
        const j = judged.get(t.id);
        if (j === undefined) return [];
        const attempts = (byTask.get(t.id) ?? []).map((r) => ({
          replay: r.replay,
          outcome: r.outcome,
          reason: r.reason,
          wall_s: r.wall_s,
          tokens: r.usage.input_tokens === null && r.usage.output_tokens === null ? null : (r.usage.input_tokens ?? 0) + (r.usage.output_tokens ?? 0),
          steers: r.steers,
          visible: r.visible,
          oracle_integrity: r.oracle_integrity,
          artifacts: r.artifacts,
        }));
        return [{ ...j, attempts: attempts.sort((a, b) => a.replay - b.replay) }];
      }),
    corrections: [...corrections],
    sentence: null,
  };
  report.sentence = status === "OK" ? citeableSentence(report) : null;
  return report;
}

function summarizeStratum(
  id: string,
  tasks: readonly { id: string }[],
  judged: ReadonlyMap<string, TaskOutcome>,
  byTask: ReadonlyMap<string, Row[]>,
  card: Card,
  seed: number,
): StratumSummary {
  const counts = Object.fromEntries(OUTCOMES.map((o) => [o, 0])) as Record<Outcome, number>;
  let missing = 0;
  const attempts: Row[] = [];
  const clusters: { passes: number; scored: number }[] = [];
  for (const t of tasks) {
    const j = judged.get(t.id);
    if (j === undefined) {
      missing++;
      continue;
    }
    counts[j.outcome]++;
    attempts.push(...(byTask.get(t.id) ?? []));
    clusters.push({ passes: j.passes, scored: j.scored });
  }
  const excluded = (o: Outcome) => CENSORED.has(o) || (o === "timeout" && card.policy.timeout === "exclude");
  const scored = OUTCOMES.filter((o) => !excluded(o)).reduce((a, o) => a + counts[o], 0);
  const scheduled = tasks.length;
  const pass = counts.pass;
  const interval = scored === 0 ? null : proportionInterval(pass, scored, { confidence: card.policy.confidence, method: card.policy.interval });
  const seconds = attempts.map((r) => r.wall_s).sort((a, b) => a - b);
  const passAttempts = attempts.filter((r) => r.outcome === "pass").length;
  const tokenRows = attempts.filter((r) => r.usage.input_tokens !== null || r.usage.output_tokens !== null);
  const tokens = tokenRows.reduce((a, r) => a + (r.usage.input_tokens ?? 0) + (r.usage.output_tokens ?? 0), 0);
  const replays = Math.max(0, ...clusters.map((c) => c.scored));
  let clustered: StratumSummary["clustered"] = null;
  if (replays >= 2) {
    const rate = clusteredRate(clusters);
    const boot = bootstrapClusters(clusters, { resamples: card.policy.bootstrap_resamples, confidence: card.policy.confidence, prng: seededPrng(seed) });
    if (rate !== null) clustered = { ...rate, bootstrap: boot?.interval ?? null };
  }
  return {
    id,
    scheduled,
    scored,
    counts,
    missing,
    scoreable_rate: scored === 0 ? null : pass / scored,
    interval,
    strict_rate: scheduled === 0 ? 0 : pass / scheduled,
    timeout_rate: scheduled === 0 ? 0 : counts.timeout / scheduled,
    infra_rate: attempts.length === 0 ? 0 : attempts.filter((r) => r.outcome === "infra").length / attempts.length,
    attempts: attempts.length,
    median_seconds: seconds.length === 0 ? null : median(seconds),
    tokens_per_pass: passAttempts === 0 || tokenRows.length === 0 ? null : tokens / passAttempts,
    cost_per_pass: costPerPass(attempts, passAttempts, card.policy.prices),
    clustered,
  };
}

function costPerPass(rows: readonly Row[], passes: number, prices: Card["policy"]["prices"]): number | null {
  if (prices === undefined || passes === 0 || rows.length === 0) return null;
  let cost = 0;
  for (const r of rows) {
    const price = r.usage.model === null ? undefined : prices[r.usage.model];
    if (price === undefined || r.usage.input_tokens === null || r.usage.output_tokens === null) return null;
    cost += (r.usage.input_tokens * price.input_usd_per_mtok + r.usage.output_tokens * price.output_usd_per_mtok) / 1e6;
  }
  return cost / passes;
}

/**
 * Whether the strata's pass rates may be pooled: Pearson's chi-square, or the exact test when any
 * expected count is below 5 (seeded Monte Carlo when the exact one is too large), and the
 * chi-square test's power to detect a spread of `delta` (policy.homogeneity_delta).
 */
export function homogeneityTest(strata: readonly StratumSummary[], options: { alpha: number; delta: number; seed: number }): Report["homogeneity"] {
  const counts = strata.filter((s) => s.scored > 0).map((s) => ({ passes: s.counts.pass, n: s.scored }));
  const result = homogeneity(counts, { prng: seededPrng(options.seed) });
  if (result === null) return null;
  const total = counts.reduce((a, c) => a + c.n, 0);
  const pooled = counts.reduce((a, c) => a + c.passes, 0) / total;
  const power = homogeneityPower(
    counts.map((c) => c.n),
    pooled,
    { delta: options.delta, alpha: options.alpha },
  );
  return { ...result, alpha: options.alpha, homogeneous: result.p >= options.alpha, power, delta: options.delta };
}

/**
 * The citeable sentence: every part a reader needs to judge the number, derived from the report
 * (never a hard-coded phrase). Short hashes in text; the JSON identity has the full ones.
 */
export function citeableSentence(report: Report): string {
  const id = report.identity;
  const strata = report.strata
    .map((s) => `${s.id} ${s.counts.pass}/${s.scored}${s.interval === null ? "" : ` [${s.interval[0].toFixed(2)}, ${s.interval[1].toFixed(2)}]`}`)
    .join(", ");
  const o = report.overall;
  const overall =
    report.overall_withheld === null && o.interval !== null
      ? `; overall ${o.counts.pass}/${o.scored} [${o.interval[0].toFixed(2)}, ${o.interval[1].toFixed(2)}]`
      : "; no overall rate (strata not pooled)";
  const censored = (["infra", "harness", "void"] as const).map((k) => `${o.counts[k]} ${k}`).join(", ");
  const timeouts = o.counts.timeout > 0 ? `, ${o.counts.timeout} timeout${o.counts.timeout > 1 ? "s" : ""} ${id.timeout_policy === "fail" ? "scored as fails" : "excluded"}` : "";
  const perStratum = report.strata.map((s) => `${s.id} ${s.scheduled}`).join(", ");
  const tasks = report.strata.reduce((a, s) => a + s.scheduled, 0);
  const env = id.envelope;
  const cap = (v: number | "unknown", unit: string) => (v === "unknown" ? `${unit} uncapped` : `${v} ${unit}`);
  const tries =
    id.most_tries === 1
      ? env.max_retries === 0
        ? "one attempt per task"
        : `one attempt per task (up to ${env.max_retries + 1} allowed after infra or timeout, none needed)`
      : `up to ${id.most_tries} attempts per task (${id.retried_attempts} retried after infra or timeout; the last one scored)`;
  const negatives = report.controls.filter((c) => c.role === "negative").length;
  const never = report.controls.filter((c) => c.role === "must_fail_forever").length;
  const controls = negatives + never === 0 ? "no run controls" : `controls green (${negatives} negative kept green, ${never} must_fail_forever not passed)`;
  return (
    `On ${id.card} ${id.version} (pack ${id.pack_hash.slice(0, 12)}, split ${id.split}${id.regraded_from === null ? "" : `; regraded with pack ${id.pack_hash.slice(0, 12)} from run ${id.regraded_from.run_id} on pack ${id.regraded_from.pack_hash.slice(0, 12)}`}), ${tasks} tasks in ${report.strata.length} strata (${perStratum}), ` +
    `agent ${id.agent_id} (fingerprint ${id.agent_fingerprint.slice(0, 12)}), envelope ${env.wall_s} s wall, ${cap(env.max_output_tokens, "output tokens")}, ${cap(env.max_steps, "steps")}, ${tries}, ` +
    `${id.replays} replay${id.replays > 1 ? "s" : ""}, seed ${id.seed}, ` +
    `${id.isolation} isolation${id.hidden_guaranteed_secret ? "" : " (hidden tests not guaranteed secret)"}, ` +
    `${id.oracle_integrity === "per_test" ? "graded per test with a sentinel" : id.oracle_integrity === "reward_file" ? "graded by the oracle's reward file only" : "graded by exit code only"}, ${controls}, ` +
    `leak check ${id.leak_check}${id.holdout === null ? "" : `, holdout used ${id.holdout.runs} time(s)`}: ` +
    `${strata}${overall} (${id.interval_method === "wilson" ? "Wilson" : "Clopper-Pearson"} ${Math.round(id.confidence * 100)}%)` +
    `${timeouts}; censored ${censored}` +
    `${report.corrections.length === 0 ? "" : `; ${report.corrections.length} correction(s) applied, listed in the report`}` +
    `${id.canary === null ? "" : `; canaries CS ${fmt2(id.canary.cs)}, QR ${fmt2(id.canary.qr)}, PD ${fmt2(id.canary.pd)} (manifest ${id.canary.manifest_hash.slice(0, 12)}; no score is finer than CS)`}` +
    `${id.environment_digest === null ? "; environment not recorded" : `; environment ${id.environment_digest.slice(0, 12)}`}.`
  );
}

function median(sorted: readonly number[]): number {
  const m = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1 ? sorted[m]! : (sorted[m - 1]! + sorted[m]!) / 2;
}

function fmtRate(x: number): string {
  return `${(100 * x).toFixed(1)}%`;
}

/** metered when every row with tokens was metered by the gateway; mixed when some were only self-reported. */
function tokenSource(rows: readonly Row[]): "metered" | "self_reported" | "mixed" | "none" {
  const counted = rows.filter((r) => r.usage.input_tokens !== null || r.usage.output_tokens !== null);
  if (counted.length === 0) return "none";
  const metered = counted.filter((r) => r.usage.source === "metered").length;
  return metered === counted.length ? "metered" : metered === 0 ? "self_reported" : "mixed";
}

function fmt2(x: number | null): string {
  return x === null ? "undefined" : x.toFixed(2);
}
