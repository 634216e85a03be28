/**
 * The p-quantile of sorted data by linear interpolation between order statistics (Hyndman and
 * Fan type 7, the default of R's quantile() and numpy.percentile).
 */
export function quantileSorted(sorted: readonly number[], p: number): number {
  if (sorted.length === 0) throw new RangeError("Cannot take a quantile of no values");
  if (!(p >= 0 && p <= 1)) throw new RangeError(`Cannot take quantile ${p}: expected 0 <= p <= 1`);
  const h = (sorted.length - 1) * p;
  const lo = Math.floor(h);
  const hi = Math.ceil(h);
  const a = sorted[lo] as number;
  const b = sorted[hi] as number;
  return a + (h - lo) * (b - a);
}

/** The equal-tailed percentile interval of bootstrap replicates at a confidence level. */
export function percentileInterval(replicates: readonly number[], confidence: number): [number, number] {
  const sorted = [...replicates].sort((x, y) => x - y);
  const tail = (1 - confidence) / 2;
  return [quantileSorted(sorted, tail), quantileSorted(sorted, 1 - tail)];
}
