import { z } from "zod";
import { OUTCOMES } from "./outcome.js";

/** One ledger row: one attempt, with its controls. Read back strictly by the report. */
export const ROW_SCHEMA = "benchcard.row/2" as const;

const nullableNumber = z.number().nullable();

export const UsageSchema = z.object({
  input_tokens: nullableNumber,
  output_tokens: nullableNumber,
  steps: nullableNumber,
  tool_calls: nullableNumber,
  cost_usd: nullableNumber,
  model: z.string().nullable(),
  endpoint: z.string().nullable(),
  truncated: z.boolean().nullable(),
  infra_error: z.string().nullable(),
});
export type Usage = z.output<typeof UsageSchema>;

export const EMPTY_USAGE: Usage = {
  input_tokens: null,
  output_tokens: null,
  steps: null,
  tool_calls: null,
  cost_usd: null,
  model: null,
  endpoint: null,
  truncated: null,
  infra_error: null,
};

export const RowSchema = z.object({
  schema: z.literal(ROW_SCHEMA),
  run_id: z.string(),
  attempt_id: z.string(),
  task_id: z.string(),
  stratum: z.string(),
  role: z.enum(["normal", "negative", "must_fail_forever"]),
  split: z.enum(["holdout", "tune", "all"]),
  replay: z.number().int().nonnegative(),
  seed: z.number().int(),
  shard: z.string(),
  agent_id: z.string(),
  agent_fingerprint: z.string(),
  agent_controls: z.record(z.string(), z.unknown()),
  pack_hash: z.string(),
  card_hash: z.string(),
  harness_version: z.string(),
  isolation: z.enum(["process", "bwrap"]),
  hidden_guaranteed_secret: z.boolean(),
  envelope: z.record(z.string(), z.unknown()),
  outcome: z.enum(OUTCOMES),
  reason: z.string(),
  agent_exit: z.number().nullable(),
  agent_signal: z.string().nullable(),
  agent_wall_s: z.number(),
  oracle_exit: z.number().nullable(),
  /** per_test: benchcard's reporter and sentinel observed the tests; exit_code_only: the exit status alone. */
  oracle_integrity: z.enum(["per_test", "exit_code_only"]).nullable(),
  /** The per-test summary of the oracle run (per-test runners), with the tests that failed or were missing. */
  tests: z
    .object({
      total: z.number(),
      passed: z.number(),
      failed: z.array(z.string()),
      skipped: z.array(z.string()),
      missing: z.array(z.string()),
      extra_failing: z.array(z.string()),
      sentinel: z.string(),
      counts_check: z.string(),
    })
    .nullable(),
  oracle_wall_s: z.number().nullable(),
  wall_s: z.number(),
  usage: UsageSchema,
  usage_note: z.string().nullable(),
  diff: z.object({ files: z.number(), lines_added: z.number(), lines_removed: z.number(), bytes: z.number() }),
  violations: z.array(z.object({ rule: z.string(), paths: z.array(z.string()), detail: z.string() })),
  log_truncated: z.boolean(),
  stray_processes_killed: z.number(),
  limits: z.record(z.string(), z.unknown()),
  started_at: z.string(),
  ended_at: z.string(),
  artifacts: z.record(z.string(), z.string()),
});

export type Row = z.output<typeof RowSchema>;
