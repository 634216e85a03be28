import { nextInt, type Prng } from "../common/random.js";

/**
 * Krippendorff's alpha (Krippendorff 2011, "Computing Krippendorff's alpha-reliability") from
 * the coincidences of pairable values. Missing ratings are omitted, never a category; units
 * with fewer than two ratings are not pairable and drop out.
 */

export type AlphaLevel = "nominal" | "ordinal" | "interval";

/** Per-unit value counts, flattened: only pairable units (two ratings or more). */
export interface UnitTable {
  /** Number of categories, in scale order. */
  k: number;
  units: number;
  /** counts[u * k + c]: how many coders gave unit u category c. */
  counts: Float64Array;
  /** pairs[u * P + idx(c, d)] = n_uc · n_ud / (m_u − 1) for c < d, P = k(k−1)/2. */
  pairs: Float64Array;
}

/**
 * Builds the unit table from a units × coders matrix of category indices (null = missing).
 */
export function unitTable(ratings: readonly (readonly (number | null)[])[], k: number): UnitTable {
  const kept: number[][] = [];
  for (const unit of ratings) {
    const counts = new Array<number>(k).fill(0);
    let m = 0;
    for (const value of unit) {
      if (value === null) continue;
      if (!(Number.isInteger(value) && value >= 0 && value < k)) throw new RangeError(`Cannot tabulate alpha: category ${value} outside 0..${k - 1}`);
      counts[value]!++;
      m++;
    }
    if (m >= 2) kept.push(counts);
  }
  const P = (k * (k - 1)) / 2;
  const counts = new Float64Array(kept.length * k);
  const pairs = new Float64Array(kept.length * P);
  kept.forEach((row, u) => {
    const m = row.reduce((a, b) => a + b, 0);
    row.forEach((x, c) => (counts[u * k + c] = x));
    let idx = 0;
    for (let c = 0; c < k; c++) for (let d = c + 1; d < k; d++) pairs[u * P + idx++] = (row[c]! * row[d]!) / (m - 1);
  });
  return { k, units: kept.length, counts, pairs };
}

/** Alpha from the unit table; `multiplicity[u]` (a bootstrap resample) defaults to 1 each. */
export function alphaFromTable(
  table: UnitTable,
  options: { level: AlphaLevel; values?: readonly number[]; multiplicity?: Uint32Array },
): number | null {
  const { k } = table;
  const P = (k * (k - 1)) / 2;
  const n = new Float64Array(k);
  const coincidence = new Float64Array(P);
  const weight = options.multiplicity;
  for (let u = 0; u < table.units; u++) {
    const w = weight === undefined ? 1 : weight[u]!;
    if (w === 0) continue;
    const cBase = u * k;
    for (let c = 0; c < k; c++) n[c]! += w * table.counts[cBase + c]!;
    const pBase = u * P;
    for (let i = 0; i < P; i++) coincidence[i]! += w * table.pairs[pBase + i]!;
  }
  const delta = distances(n, options.level, options.values);
  let total = 0;
  for (let c = 0; c < k; c++) total += n[c]!;
  let observed = 0;
  let expected = 0;
  let idx = 0;
  for (let c = 0; c < k; c++) {
    for (let d = c + 1; d < k; d++) {
      observed += coincidence[idx]! * delta[idx]!;
      expected += n[c]! * n[d]! * delta[idx]!;
      idx++;
    }
  }
  if (total < 2 || expected <= 1e-12) return null;
  return 1 - ((total - 1) * observed) / expected;
}

/** Squared distances δ² for c < d, in the order unitTable lays out pairs. */
function distances(n: Float64Array, level: AlphaLevel, values?: readonly number[]): Float64Array {
  const k = n.length;
  const out = new Float64Array((k * (k - 1)) / 2);
  let idx = 0;
  for (let c = 0; c < k; c++) {
    let between = 0; // Σ n_g for c < g < d
    for (let d = c + 1; d < k; d++) {
      if (level === "nominal") out[idx] = 1;
      else if (level === "interval") out[idx] = ((values?.[c] ?? c) - (values?.[d] ?? d)) ** 2;
      else out[idx] = ((n[c]! + n[d]!) / 2 + between) ** 2;
      between += n[d]!;
      idx++;
    }
  }
  return out;
}

export interface AlphaBootstrap {
  interval: [number, number] | null;
  resamples: number;
  /** Resamples where alpha was undefined (no variation left); excluded from the interval. */
  undefinedResamples: number;
  replicates: number[];
}

/** Resamples units with replacement, `resamples` times, from a seeded generator. */
export function bootstrapAlpha(
  table: UnitTable,
  options: { level: AlphaLevel; values?: readonly number[]; resamples: number; prng: Prng },
): { replicates: number[]; undefinedResamples: number } {
  const replicates: number[] = [];
  let undefinedResamples = 0;
  const multiplicity = new Uint32Array(table.units);
  for (let b = 0; b < options.resamples; b++) {
    multiplicity.fill(0);
    for (let i = 0; i < table.units; i++) multiplicity[nextInt(options.prng, table.units)]!++;
    const base = { level: options.level, multiplicity };
    const alpha = alphaFromTable(table, options.values === undefined ? base : { ...base, values: options.values });
    if (alpha === null) undefinedResamples++;
    else replicates.push(alpha);
  }
  return { replicates, undefinedResamples };
}
