import { nextInt, seededPrng } from "../common/random.js";
import { percentileInterval } from "../stats/quantile.js";

/**
 * The cost tie-break with evidence: the ratio of A's to B's cost per pass (tokens, or seconds),
 * with a paired bootstrap over tasks (seeded). Cost per pass divides by passes, so it re-judges
 * the pass rate whenever pass counts differ; a cost winner is named only when the whole interval
 * of the ratio lies beyond the pre-registered tie band, never from the point ratio.
 */

export interface TaskCost {
  /** Summed cost over the task's attempts (null when unknown for that side). */
  costA: number | null;
  costB: number | null;
  passesA: number;
  passesB: number;
}

export interface CostRatio {
  ratio: number | null;
  interval: [number, number] | null;
  resamples: number;
  /** Resamples with no pass on a side (the ratio is undefined there), counted, not dropped silently. */
  undefined_resamples: number;
  seed: number;
}

export function costRatio(tasks: readonly TaskCost[], options: { resamples: number; seed: number; confidence: number }): CostRatio | null {
  if (tasks.length === 0 || tasks.some((t) => t.costA === null || t.costB === null)) return null;
  const point = ratioOf(tasks, tasks.map((_, i) => i));
  const prng = seededPrng(options.seed);
  const reps: number[] = [];
  let undefinedCount = 0;
  const pick = new Array<number>(tasks.length);
  for (let r = 0; r < options.resamples; r++) {
    for (let i = 0; i < tasks.length; i++) pick[i] = nextInt(prng, tasks.length);
    const x = ratioOf(tasks, pick);
    if (x === null) undefinedCount++;
    else reps.push(x);
  }
  return {
    ratio: point,
    interval: reps.length === 0 ? null : percentileInterval(reps, options.confidence),
    resamples: options.resamples,
    undefined_resamples: undefinedCount,
    seed: options.seed,
  };
}

function ratioOf(tasks: readonly TaskCost[], picks: readonly number[]): number | null {
  let ca = 0;
  let cb = 0;
  let pa = 0;
  let pb = 0;
  for (const i of picks) {
    const t = tasks[i]!;
    ca += t.costA!;
    cb += t.costB!;
    pa += t.passesA;
    pb += t.passesB;
  }
  if (pa === 0 || pb === 0 || cb === 0) return null;
  return ca / pa / (cb / pb);
}

/** "A" when the whole interval says A costs less than (1 − band) of B; "B" symmetrically; else null. */
export function cheaper(ratio: CostRatio | null, band: number): "A" | "B" | null {
  if (ratio?.interval == null || ratio.undefined_resamples > ratio.resamples / 10) return null;
  if (ratio.interval[1] < 1 - band) return "A";
  if (ratio.interval[0] > 1 / (1 - band)) return "B";
  return null;
}
