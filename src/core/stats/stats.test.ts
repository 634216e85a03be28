import assert from "node:assert/strict";
import { test } from "node:test";
import fc from "fast-check";
import { vectors } from "../../testing/vectors.js";
import { seededPrng } from "../common/random.js";
import { bootstrapClusters, clusteredRate } from "./cluster.js";
import { normalQuantile } from "./normal.js";
import { clopperPearson, newcombeIndependent, wilson } from "./proportion.js";
import { percentileInterval } from "./quantile.js";
import { betaQuantile, binomialPmf, chiSquareSurvival } from "./special.js";

const close = (actual: number, expected: number, tol = 1e-9, what = "") =>
  assert.ok(Math.abs(actual - expected) <= tol, `${what} ${actual} vs ${expected}`);

test("Wilson and Clopper-Pearson match statsmodels proportion_confint(x, n, alpha=0.05, method='wilson'|'beta')", () => {
  for (const c of vectors.proportion_ci95) {
    const w = wilson(c.x, c.n, 0.95);
    const cp = clopperPearson(c.x, c.n, 0.95);
    close(w[0], c.wilson[0], 1e-9, `wilson lo ${c.x}/${c.n}`);
    close(w[1], c.wilson[1], 1e-9, `wilson hi ${c.x}/${c.n}`);
    close(cp[0], c.clopper_pearson[0], 1e-9, `cp lo ${c.x}/${c.n}`);
    close(cp[1], c.clopper_pearson[1], 1e-9, `cp hi ${c.x}/${c.n}`);
  }
});

test("special functions match scipy: norm.ppf, chi2.sf, beta.ppf", () => {
  close(normalQuantile(0.975), 1.959963984540054, 1e-15, "norm.ppf(0.975)");
  close(normalQuantile(0.995), 2.5758293035489004, 1e-14, "norm.ppf(0.995)");
  close(normalQuantile(1e-10), -6.361340902404056, 1e-12, "norm.ppf(1e-10)");
  close(chiSquareSurvival(7.3, 2), 0.02599112877875535, 1e-12, "chi2.sf(7.3, 2)");
  close(chiSquareSurvival(0.5, 1), 0.47950012218695337, 1e-12, "chi2.sf(0.5, 1)");
  close(chiSquareSurvival(30, 5), 1.4748581038443073e-5, 1e-15, "chi2.sf(30, 5)");
  close(betaQuantile(0.025, 3, 8), 0.06673951117773447, 1e-12, "beta.ppf(0.025, 3, 8)");
  close(betaQuantile(0.975, 12.5, 3.2), 0.9492445288647398, 1e-12, "beta.ppf(0.975, 12.5, 3.2)");
});

test("the percentile rule on a fixed replicate vector matches numpy.percentile(rep, [2.5, 97.5])", () => {
  const rep = [0.31, 0.7, 0.45, 0.52, 0.12, 0.99, 0.61, 0.38, 0.44, 0.58, 0.27];
  const [lo, hi] = percentileInterval(rep, 0.95);
  close(lo, 0.1575, 1e-12);
  close(hi, 0.9175, 1e-12);
});

test("the task bootstrap of the reference data lands near the reference interval, and is seeded", () => {
  const data = vectors.bootstrap_percentile.data as number[];
  const clusters = data.map((x) => ({ passes: x, scored: 1 }));
  const a = bootstrapClusters(clusters, { resamples: 20000, confidence: 0.95, prng: seededPrng(1) });
  const b = bootstrapClusters(clusters, { resamples: 20000, confidence: 0.95, prng: seededPrng(1) });
  assert.deepEqual(a, b);
  // Different generators agree only to Monte Carlo error (vectors.json's note): within 0.03.
  close(a!.interval[0], vectors.bootstrap_percentile.ci95_20000_resamples[0], 0.03);
  close(a!.interval[1], vectors.bootstrap_percentile.ci95_20000_resamples[1], 0.03);
});

test("the clustered SE equals the binomial SE with one attempt per task (up to n/(n-1))", () => {
  const clusters = [1, 0, 1, 1, 0, 1, 0, 1].map((x) => ({ passes: x, scored: 1 }));
  const r = clusteredRate(clusters)!;
  const n = clusters.length;
  close(r.rate, 5 / 8);
  close(r.se!, Math.sqrt((r.rate * (1 - r.rate)) / n) * Math.sqrt(n / (n - 1)), 1e-12);
  assert.equal(clusteredRate([]), null);
  // One task is one cluster: the SE is undefined (null, with the reason), never a confident 0.
  const one = clusteredRate([{ passes: 2, scored: 3 }])!;
  assert.equal(one.se, null);
  assert.match(one.se_note ?? "", /one task is one cluster/);
});

test("exact coverage: Wilson 95% averages within [0.93, 0.97]; Clopper-Pearson never below 0.95", () => {
  for (const n of [10, 30, 100]) {
    const wilsonAll = Array.from({ length: n + 1 }, (_, x) => wilson(x, n, 0.95));
    const cpAll = Array.from({ length: n + 1 }, (_, x) => clopperPearson(x, n, 0.95));
    let wilsonMean = 0;
    const grid = Array.from({ length: 199 }, (_, i) => (i + 1) / 200);
    for (const p of grid) {
      let w = 0;
      let cp = 0;
      for (let x = 0; x <= n; x++) {
        const pmf = binomialPmf(x, n, p);
        if (wilsonAll[x]![0] <= p && p <= wilsonAll[x]![1]) w += pmf;
        if (cpAll[x]![0] <= p && p <= cpAll[x]![1]) cp += pmf;
      }
      wilsonMean += w / grid.length;
      assert.ok(cp >= 0.95 - 1e-12, `Clopper-Pearson covers ${cp} at n=${n}, p=${p}`);
    }
    assert.ok(wilsonMean >= 0.93 && wilsonMean <= 0.97, `Wilson mean coverage ${wilsonMean} at n=${n}`);
  }
});

test("property: intervals lie in [0, 1] and contain the estimate; Clopper-Pearson contains Wilson's estimate range", () => {
  fc.assert(
    fc.property(fc.integer({ min: 1, max: 500 }), fc.double({ min: 0, max: 1, noNaN: true }), fc.constantFrom(0.8, 0.9, 0.95, 0.99), (n, f, conf) => {
      const x = Math.round(f * n);
      for (const [lo, hi] of [wilson(x, n, conf), clopperPearson(x, n, conf)]) {
        assert.ok(lo >= 0 && hi <= 1 && lo <= x / n + 1e-12 && x / n <= hi + 1e-12, `${lo} ${x}/${n} ${hi}`);
      }
    }),
  );
});

test("Newcombe's hybrid score interval for independent proportions (statsmodels confint_proportions_2indep, method='newcomb')", () => {
  // statsmodels 0.13.5: confint_proportions_2indep(15, 20, 9, 20, method='newcomb', compare='diff')
  const cases: [number, number, number, number, [number, number]][] = [
    [15, 20, 9, 20, [-0.0017591402015858515, 0.5363688877913388]],
    [40, 50, 30, 50, [0.02013390086920816, 0.36359235205533585]],
    [3, 12, 0, 12, [-0.041106732047547556, 0.5323053349335658]],
  ];
  for (const [x1, n1, x2, n2, [lo, hi]] of cases) {
    const r = newcombeIndependent(x1, n1, x2, n2, 0.95)!;
    close(r.interval[0], lo, 1e-12);
    close(r.interval[1], hi, 1e-12);
  }
});
