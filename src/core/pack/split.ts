import { comparePaths } from "./digest.js";
import { seededPrng, shuffle } from "../common/random.js";

export interface Split {
  seed: number;
  holdout_fraction: number;
  holdout: string[];
  tune: string[];
  /** Control tasks: never split, they run in every split. */
  controls: string[];
}

/**
 * A holdout split stratified by stratum: in each stratum, round(fraction × n) scored tasks,
 * chosen by a seeded shuffle of the ids in sorted order, go to holdout; the rest to tune.
 * Control tasks are not split: they run in both.
 */
export function stratifiedSplit(
  all: readonly { id: string; stratum: string; role?: "normal" | "negative" | "must_fail_forever" }[],
  options: { fraction: number; seed: number },
): Split {
  const tasks = all.filter((t) => (t.role ?? "normal") === "normal");
  const controls = all.filter((t) => (t.role ?? "normal") !== "normal").map((t) => t.id).sort(comparePaths);
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
    controls,
  };
}

/** Whether a task runs in a split: controls run in every split. */
export function inSplit(split: Pick<Split, "holdout" | "tune" | "controls"> | null, which: "holdout" | "tune" | "all", id: string): boolean {
  if (which === "all") return true;
  if (split === null) return false;
  return split.controls.includes(id) || split[which].includes(id);
}

/**
 * Why a holdout is too small to publish from: fewer scored tasks than `minTasks`, or a stratum
 * with no task in it. Empty when it will do.
 */
export function holdoutProblems(split: Split, strataOf: ReadonlyMap<string, string>, options: { minTasks: number; strata: readonly string[] }): string[] {
  const problems: string[] = [];
  if (split.holdout.length < options.minTasks) problems.push(`the holdout has ${split.holdout.length} scored task(s), fewer than policy.min_holdout_tasks ${options.minTasks}`);
  const covered = new Set(split.holdout.map((id) => strataOf.get(id)));
  const missing = options.strata.filter((s) => !covered.has(s));
  if (missing.length > 0) problems.push(`no holdout task in stratum ${missing.join(", ")}`);
  return problems;
}
