import { comparePaths } from "./digest.js";
import { seededPrng, shuffle } from "../common/random.js";

export interface Split {
  seed: number;
  holdout_fraction: number;
  holdout: string[];
  tune: string[];
}

/**
 * A holdout split stratified by stratum: in each stratum, round(fraction × n) tasks, chosen by
 * a seeded shuffle of the ids in sorted order, go to holdout; the rest to tune.
 */
export function stratifiedSplit(
  tasks: readonly { id: string; stratum: string }[],
  options: { fraction: number; seed: number },
): Split {
  if (!(options.fraction > 0 && options.fraction < 1)) {
    throw new RangeError(`Cannot split: holdout fraction must be in (0, 1), found ${options.fraction}`);
  }
  const prng = seededPrng(options.seed);
  const byStratum = new Map<string, string[]>();
  for (const t of tasks) byStratum.set(t.stratum, [...(byStratum.get(t.stratum) ?? []), t.id]);
  const holdout: string[] = [];
  const tune: string[] = [];
  for (const stratum of [...byStratum.keys()].sort(comparePaths)) {
    const ids = shuffle((byStratum.get(stratum) ?? []).sort(comparePaths), { prng });
    const take = Math.round(options.fraction * ids.length);
    holdout.push(...ids.slice(0, take));
    tune.push(...ids.slice(take));
  }
  return {
    seed: options.seed,
    holdout_fraction: options.fraction,
    holdout: holdout.sort(comparePaths),
    tune: tune.sort(comparePaths),
  };
}
