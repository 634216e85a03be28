import { zFor } from "../stats/normal.js";
import { wilson } from "../stats/proportion.js";
import { binomialPmf } from "../stats/special.js";

/**
 * Paired comparison of two agents on the same tasks. The table is
 * [[both pass, A only], [B only, both fail]]; the difference is A's rate minus B's, (b − c)/n.
 */
export interface PairedTable {
  bothPass: number;
  aOnly: number;
  bOnly: number;
  bothFail: number;
}

/**
 * Newcombe's (1998) method 10: square-and-add of the Wilson limits of the two marginal rates,
 * with the correlation phi of the paired table (continuity-corrected toward 0 when positive,
 * 0 when a margin is empty).
 */
export function newcombePaired(t: PairedTable, confidence: number): { estimate: number; interval: [number, number] } | null {
  const { bothPass: a, aOnly: b, bOnly: c, bothFail: d } = t;
  const n = a + b + c + d;
  if (n === 0) return null;
  const p1 = (a + b) / n;
  const p2 = (a + c) / n;
  const [l1, u1] = wilson(a + b, n, confidence);
  const [l2, u2] = wilson(a + c, n, confidence);
  const margins = (a + b) * (c + d) * (a + c) * (b + d);
  let phi = 0;
  if (margins > 0) {
    const cross = a * d - b * c;
    phi = (cross > 0 ? Math.max(cross - n / 2, 0) : cross) / Math.sqrt(margins);
  }
  const dl = Math.sqrt(Math.max(0, (p1 - l1) ** 2 - 2 * phi * (p1 - l1) * (u2 - p2) + (u2 - p2) ** 2));
  const du = Math.sqrt(Math.max(0, (u1 - p1) ** 2 - 2 * phi * (u1 - p1) * (p2 - l2) + (p2 - l2) ** 2));
  const estimate = (b - c) / n;
  return { estimate, interval: [Math.max(-1, estimate - dl), Math.min(1, estimate + du)] };
}

/** Exact McNemar: the two-sided binomial test of b in b + c at 1/2, and its mid-p. */
export function mcnemarExact(t: PairedTable): { p: number; midP: number } {
  const m = t.aOnly + t.bOnly;
  if (m === 0) return { p: 1, midP: 1 };
  const k = Math.min(t.aOnly, t.bOnly);
  let tail = 0;
  for (let i = 0; i <= k; i++) tail += binomialPmf(i, m, 0.5);
  const atK = binomialPmf(k, m, 0.5);
  return { p: Math.min(1, 2 * tail), midP: Math.min(1, 2 * (tail - atK / 2)) };
}

/**
 * The smallest difference a paired test of n tasks can detect at two-sided level 1 − confidence
 * with the given power, when a share `discordance` of tasks split the agents (Connor 1987:
 * n = (z_a·√ψ + z_b·√(ψ − δ²))² / δ²). null when no task is discordant: nothing is detectable
 * from such data, and the reader is told so.
 */
export function minimumDetectableDifference(n: number, discordance: number, options: { confidence: number; power: number }): number | null {
  if (n === 0 || discordance <= 0) return null;
  const za = zFor(options.confidence);
  const zb = zFor(2 * options.power - 1); // one-sided quantile of the power
  const needed = (delta: number) => (za * Math.sqrt(discordance) + zb * Math.sqrt(Math.max(0, discordance - delta * delta))) ** 2 / (delta * delta);
  const top = Math.sqrt(discordance);
  if (needed(top) > n) return null; // even the largest possible difference is out of reach
  let lo = 1e-9;
  let hi = top;
  for (let i = 0; i < 200; i++) {
    const mid = (lo + hi) / 2;
    if (needed(mid) > n) lo = mid;
    else hi = mid;
  }
  return hi;
}
