import { comparePaths } from "../pack/digest.js";
import { seededPrng, shuffle } from "../common/random.js";

export interface ScheduledAttempt {
  task_id: string;
  stratum: string;
  replay: number;
  /** `<task_id>#<replay>`: unique within a run. */
  attempt_id: string;
  /** Position in the whole run's order (before sharding). */
  order: number;
}

/**
 * The attempts of a run, in a seeded order: for each replay, tasks are shuffled within their
 * stratum and the strata interleaved round-robin, so a partial run covers every stratum. A shard
 * `i/N` takes every N-th attempt starting at i−1.
 */
export function scheduleAttempts(
  tasks: readonly { id: string; stratum: string }[],
  options: { replays: number; seed: number; shard?: { index: number; count: number } },
): ScheduledAttempt[] {
  const prng = seededPrng(options.seed);
  const strata = [...new Set(tasks.map((t) => t.stratum))].sort(comparePaths);
  const all: ScheduledAttempt[] = [];
  for (let replay = 0; replay < options.replays; replay++) {
    const lanes = strata.map((s) =>
      shuffle(
        tasks.filter((t) => t.stratum === s).map((t) => t.id).sort(comparePaths),
        { prng },
      ).map((id) => ({ id, stratum: s })),
    );
    const longest = Math.max(0, ...lanes.map((l) => l.length));
    for (let i = 0; i < longest; i++) {
      for (const lane of lanes) {
        const t = lane[i];
        if (t === undefined) continue;
        all.push({ task_id: t.id, stratum: t.stratum, replay, attempt_id: `${t.id}#${replay}`, order: all.length });
      }
    }
  }
  const shard = options.shard;
  return shard === undefined ? all : all.filter((a) => a.order % shard.count === shard.index - 1);
}

/** The id of a retry: the first try keeps the attempt's id, retry k appends "~k". */
export function retryId(attemptId: string, retry: number): string {
  return retry === 0 ? attemptId : `${attemptId}~${retry}`;
}

/** The scheduled attempt a row belongs to (its id without the retry suffix). */
export function baseAttemptId(attemptId: string): string {
  const cut = attemptId.indexOf("~");
  return cut === -1 ? attemptId : attemptId.slice(0, cut);
}

/** Outcomes after which an attempt may be run again, within the envelope's max_retries. */
export const RETRYABLE: ReadonlySet<string> = new Set(["infra", "timeout"]);

/**
 * Each scheduled attempt's last row: retries are rows of their own, and only the last one of an
 * attempt is scored. Pure; rows of any order.
 */
export function finalRows<R extends { attempt_id: string; retry: number }>(rows: readonly R[]): R[] {
  const last = new Map<string, R>();
  for (const row of rows) {
    const id = baseAttemptId(row.attempt_id);
    const seen = last.get(id);
    if (seen === undefined || row.retry > seen.retry) last.set(id, row);
  }
  return [...last.values()];
}
