/**
 * Cohen's kappa for two graders from a square contingency table (rows: grader A, columns:
 * grader B, categories in scale order), unweighted or weighted, with the large-sample standard
 * error of Fleiss, Cohen and Everitt (1969), the one statsmodels reports.
 */

export type Weighting = "none" | "linear" | "quadratic";

export interface CohenResult {
  n: number;
  /** Observed agreement: the share of items on the diagonal. */
  po: number;
  /** Chance agreement from the two graders' marginals (weighted when weights apply). */
  pe: number;
  /** null when undefined: chance agreement is 1 (both graders used one category). */
  kappa: number | null;
  se: number | null;
  rowMarginals: number[];
  colMarginals: number[];
  /** Prevalence-adjusted bias-adjusted kappa, (k·po − 1)/(k − 1). */
  pabak: number;
  /** |a − d| / n, for a 2×2 table only. */
  prevalenceIndex: number | null;
  /** |b − c| / n, for a 2×2 table only. */
  biasIndex: number | null;
}

/** Agreement weights: 1 on the diagonal, falling with distance along the scale. */
export function agreementWeights(k: number, weighting: Weighting): number[][] {
  return Array.from({ length: k }, (_, i) =>
    Array.from({ length: k }, (_, j) => {
      if (weighting === "none" || k === 1) return i === j ? 1 : 0;
      const d = Math.abs(i - j) / (k - 1);
      return weighting === "linear" ? 1 - d : 1 - d * d;
    }),
  );
}

export function cohenKappa(table: readonly (readonly number[])[], weighting: Weighting = "none"): CohenResult {
  const k = table.length;
  if (k === 0 || table.some((row) => row.length !== k)) throw new RangeError("Cannot compute kappa: the table must be square and non-empty");
  const n = sum(table.map(sum));
  if (n === 0) throw new RangeError("Cannot compute kappa: the table is empty");
  const p = table.map((row) => row.map((x) => x / n));
  const rows = p.map(sum);
  const cols = Array.from({ length: k }, (_, j) => sum(p.map((row) => row[j] as number)));
  const w = agreementWeights(k, weighting);
  let po = 0;
  let pe = 0;
  let unweightedPo = 0;
  for (let i = 0; i < k; i++) {
    unweightedPo += p[i]![i]!;
    for (let j = 0; j < k; j++) {
      po += w[i]![j]! * p[i]![j]!;
      pe += w[i]![j]! * rows[i]! * cols[j]!;
    }
  }
  const defined = 1 - pe > 1e-12;
  // po and pe equal to rounding are equal: kappa is then exactly 0.
  const kappa = defined ? (Math.abs(po - pe) <= 1e-14 ? 0 : (po - pe) / (1 - pe)) : null;
  let se: number | null = null;
  if (kappa !== null) {
    // w̄_i. = Σ_j p_.j w_ij and w̄_.j = Σ_i p_i. w_ij (Fleiss, Cohen & Everitt 1969).
    const wRow = Array.from({ length: k }, (_, i) => sum(cols.map((c, j) => c * w[i]![j]!)));
    const wCol = Array.from({ length: k }, (_, j) => sum(rows.map((r, i) => r * w[i]![j]!)));
    let acc = 0;
    for (let i = 0; i < k; i++) {
      for (let j = 0; j < k; j++) {
        acc += p[i]![j]! * (w[i]![j]! - (wRow[i]! + wCol[j]!) * (1 - kappa)) ** 2;
      }
    }
    const centre = (kappa - pe * (1 - kappa)) ** 2;
    // The numerator is a difference of two near-equal sums when the true variance is 0: anything
    // within rounding of that (relative 1e-12) is exactly 0, not 1e-8 of noise after the square root.
    const numerator = acc - centre <= 1e-12 * Math.max(acc, centre) ? 0 : acc - centre;
    const variance = numerator / ((1 - pe) ** 2 * n);
    // A table with every count on the diagonal has no sampling variance at all: exactly 0, not rounding noise.
    const diagonal = table.every((row, i) => row.every((x, j) => i === j || x === 0));
    se = diagonal ? 0 : Math.sqrt(Math.max(0, variance));
  }
  const binary = k === 2;
  return {
    n,
    // Observed and chance agreement on the same (weighted) footing as kappa itself.
    po,
    pe,
    kappa,
    se,
    rowMarginals: rows,
    colMarginals: cols,
    pabak: k === 1 ? 1 : (k * unweightedPo - 1) / (k - 1),
    prevalenceIndex: binary ? Math.abs(table[0]![0]! - table[1]![1]!) / n : null,
    biasIndex: binary ? Math.abs(table[0]![1]! - table[1]![0]!) / n : null,
  };
}

/** The k×k table of two label sequences over an ordered list of categories. */
export function contingency(a: readonly string[], b: readonly string[], categories: readonly string[]): number[][] {
  if (a.length !== b.length) throw new RangeError("Cannot tabulate: the graders rated different numbers of items");
  const index = new Map(categories.map((c, i) => [c, i]));
  const table = categories.map(() => categories.map(() => 0));
  a.forEach((label, item) => {
    const i = index.get(label);
    const j = index.get(b[item] as string);
    if (i === undefined || j === undefined) throw new RangeError(`Cannot tabulate: label outside the categories at item ${item}`);
    table[i]![j]!++;
  });
  return table;
}

function sum(xs: readonly number[]): number {
  let s = 0;
  for (const x of xs) s += x;
  return s;
}
