import { nextInt, type Prng } from "../common/random.js";
import { percentileInterval } from "./quantile.js";

/** One task's replays: how many scored, how many passed. */
export interface Cluster {
  passes: number;
  scored: number;
}

/**
 * The pooled pass rate over attempts and its task-clustered (cluster-robust, CR1) standard
 * error: replays of one task are not independent, so the task is the unit.
 */
export function clusteredRate(clusters: readonly Cluster[]): { rate: number; se: number | null; se_note?: string } | null {
  const used = clusters.filter((c) => c.scored > 0);
  const total = used.reduce((a, c) => a + c.scored, 0);
  if (used.length === 0 || total === 0) return null;
  const rate = used.reduce((a, c) => a + c.passes, 0) / total;
  const g = used.length;
  if (g < 2) return { rate, se: null, se_note: "undefined: one task is one cluster, so nothing measures the spread between tasks" };
  const sumSquares = used.reduce((a, c) => a + (c.passes - rate * c.scored) ** 2, 0);
  return { rate, se: (Math.sqrt(sumSquares) / total) * Math.sqrt(g / (g - 1)) };
}

/** Percentile bootstrap of the pooled rate, resampling tasks (clusters) with a seeded generator. */
export function bootstrapClusters(
  clusters: readonly Cluster[],
  options: { resamples: number; confidence: number; prng: Prng },
): { interval: [number, number]; resamples: number; undefinedResamples: number } | null {
  const used = clusters.filter((c) => c.scored > 0);
  if (used.length === 0) return null;
  const replicates: number[] = [];
  let undefinedResamples = 0;
  for (let b = 0; b < options.resamples; b++) {
    let passes = 0;
    let scored = 0;
    for (let i = 0; i < used.length; i++) {
      const c = used[nextInt(options.prng, used.length)]!;
      passes += c.passes;
      scored += c.scored;
    }
    if (scored === 0) undefinedResamples++;
    else replicates.push(passes / scored);
  }
  return { interval: percentileInterval(replicates, options.confidence), resamples: options.resamples, undefinedResamples };
}
