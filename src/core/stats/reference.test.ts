import assert from "node:assert/strict";
import { test } from "node:test";
import { secondWave as v } from "../../testing/vectors.js";
import { mcnemarExact } from "../compare/paired.js";
import { seededPrng } from "../common/random.js";
import { chiSquareCritical, fisherFreemanHalton, homogeneity, noncentralChiSquareSurvival, permutationTest } from "./homogeneity.js";
import { normalQuantile, zFor } from "./normal.js";
import { clopperPearson } from "./proportion.js";
import { binomialPmf, logGamma } from "./special.js";

// Every expected value below comes from test/fixtures/reference-stats/second-wave.json, made by
// second-wave.R beside it with R 4.2.2; each entry carries its R call, repeated in the messages.

const relative = (actual: number, expected: number, tolerance: number, call: string) =>
  assert.ok(Math.abs(actual - expected) <= tolerance * Math.max(Math.abs(expected), Number.MIN_VALUE), `${call}: ${actual} vs ${expected}`);

test("Fisher-Freeman-Halton exact test of k x 2 tables (R fisher.test)", () => {
  for (const e of v.fisher_freeman_halton) {
    const counts = e.passes.map((p: number, i: number) => ({ passes: p, n: e.n[i] }));
    relative(fisherFreemanHalton(counts, 1e7)!, e.value, 1e-12, e.call);
    const n = e.n.reduce((a: number, b: number) => a + b, 0);
    const passes = e.passes.reduce((a: number, b: number) => a + b, 0);
    const small = e.n.some((k: number) => (k * passes) / n < 5 || (k * (n - passes)) / n < 5);
    const h = homogeneity(counts, { prng: seededPrng(1) })!;
    assert.equal(h.method, small ? "exact (Fisher-Freeman-Halton)" : "chi-square", e.call);
    if (small) relative(h.p, e.value, 1e-12, e.call);
  }
});

test("Pearson's chi-square on a table with large expected counts (R chisq.test, correct = FALSE)", () => {
  for (const e of v.chisq_pearson) {
    const h = homogeneity(e.passes.map((p: number, i: number) => ({ passes: p, n: e.n[i] })), { prng: seededPrng(1) })!;
    assert.equal(h.method, "chi-square");
    relative(h.statistic, e.statistic, 1e-12, e.call);
    relative(h.p, e.p, 1e-10, e.call);
  }
});

test("too many tables: a seeded Monte-Carlo permutation test, within Monte-Carlo error of the exact p", () => {
  const counts = [{ passes: 2, n: 8 }, { passes: 4, n: 9 }, { passes: 7, n: 10 }, { passes: 1, n: 7 }];
  const exact = v.fisher_freeman_halton.find((e: { passes: number[] }) => e.passes.join() === "2,4,7,1").value;
  assert.equal(fisherFreemanHalton(counts, 10), null, "past its cap the exact test gives way");
  const sims = 20_000;
  const mc = permutationTest(counts, sims, seededPrng(3));
  assert.ok(Math.abs(mc - exact) < 4 * Math.sqrt((exact * (1 - exact)) / sims), `${mc} vs ${exact}`);
  assert.equal(permutationTest(counts, sims, seededPrng(3)), mc, "the same seed gives the same p");
  // Twelve strata, few passes: tens of millions of tables, so homogeneity() permutes.
  const wide = Array.from({ length: 12 }, (_, i) => ({ passes: i % 3 === 0 ? 4 : 1, n: 40 }));
  const h = homogeneity(wide, { prng: seededPrng(5), permutations: 2_000 })!;
  assert.equal(h.method, "Monte-Carlo permutation");
  assert.equal(h.permutations, 2_000);
});

test("noncentral chi-square survival and the chi-square critical value (R pchisq ncp, qchisq)", () => {
  for (const e of v.noncentral_chisq_survival) relative(noncentralChiSquareSurvival(e.x, e.df, e.ncp), e.value, 1e-9, e.call);
  for (const e of v.chisq_critical) relative(chiSquareCritical(e.df, e.alpha), e.value, 1e-12, e.call);
});

test("binomial probabilities at n = 10^6 keep 1e-12 relative accuracy (R dbinom)", () => {
  for (const e of v.binomial_pmf) relative(binomialPmf(e.k, e.n, e.p), e.value, 1e-12, e.call);
});

test("Clopper-Pearson at n = 10^6 (R binom.test)", () => {
  for (const e of v.clopper_pearson) {
    const [lo, hi] = clopperPearson(e.x, e.n, 0.95);
    relative(lo, e.value[0], 1e-12, e.call);
    relative(hi, e.value[1], 1e-12, e.call);
  }
});

test("exact McNemar at tens of thousands of discordant pairs (R binom.test)", () => {
  for (const e of v.mcnemar_exact) relative(mcnemarExact({ bothPass: 0, aOnly: e.a_only, bOnly: e.b_only, bothFail: 0 }).p, e.value, 1e-12, e.call);
});

test("normal quantiles, and zFor from the lower tail at confidence near 1 (R qnorm)", () => {
  for (const e of v.normal_quantile) relative(normalQuantile(e.p), e.value, 1e-12, e.call);
  // Confidence 1 - 2^-32 (exact in binary): zFor takes the lower tail, (1 - c)/2 = 2^-33, so no
  // digit is lost to 1 - (1 - c)/2 rounding.
  relative(zFor(1 - 2 ** -32), v.z_for_near_one.value, 1e-12, v.z_for_near_one.call);
});

test("log-gamma over the range the statistics use (R lgamma)", () => {
  for (const e of v.log_gamma) relative(logGamma(e.x), e.value, 1e-13, e.call);
});
