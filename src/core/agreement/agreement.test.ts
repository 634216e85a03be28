import assert from "node:assert/strict";
import { test } from "node:test";
import fc from "fast-check";
import { vectors } from "../../testing/vectors.js";
import { seededPrng } from "../common/random.js";
import { zFor } from "../stats/normal.js";
import { landisKoch } from "./bands.js";
import { cohenKappa, contingency, type Weighting } from "./cohen.js";
import { fleissKappa } from "./fleiss.js";
import { alphaFromTable, bootstrapAlpha, unitTable, type AlphaLevel } from "./krippendorff.js";

const close = (actual: number | null, expected: number, what: string) =>
  assert.ok(actual !== null && Math.abs(actual - expected) <= 1e-9, `${what}: ${actual} vs ${expected}`);

const ck = vectors.cohen_kappa;
const tableAB = contingency(ck.rater_a.map(String), ck.rater_b.map(String), ck.categories.map(String));

test("Cohen unweighted, linear and quadratic match sklearn.metrics.cohen_kappa_score(a, b, weights=None|'linear'|'quadratic')", () => {
  close(cohenKappa(tableAB, "none").kappa, ck.unweighted, "unweighted");
  close(cohenKappa(tableAB, "linear").kappa, ck.linear, "linear");
  close(cohenKappa(tableAB, "quadratic").kappa, ck.quadratic, "quadratic");
});

test("Cohen's asymptotic SE and Wald interval match statsmodels.stats.inter_rater.cohens_kappa(table)", () => {
  const r = cohenKappa(tableAB, "none");
  close(r.se, ck.asymptotic_se, "se");
  const z = zFor(0.95);
  close((r.kappa ?? NaN) - z * (r.se ?? NaN), ck.wald_ci95[0], "wald lower");
  close((r.kappa ?? NaN) + z * (r.se ?? NaN), ck.wald_ci95[1], "wald upper");
});

test("kappa paradox tables: po, kappa, PABAK, prevalence and bias indices match statsmodels cohens_kappa(table).kappa", () => {
  for (const c of vectors.kappa_paradox_tables.cases) {
    const r = cohenKappa(c.table, "none");
    close(r.po, c.po, "po");
    close(r.kappa, c.kappa, "kappa");
    close(r.pabak, c.pabak, "pabak");
    close(r.prevalenceIndex, c.prevalence_index, "prevalence");
    close(r.biasIndex, c.bias_index, "bias");
  }
});

test("Fleiss matches statsmodels.stats.inter_rater.fleiss_kappa(counts, method='fleiss')", () => {
  close(fleissKappa(vectors.fleiss_kappa.counts_subjects_by_category), vectors.fleiss_kappa.kappa, "fleiss");
});

const kr = vectors.krippendorff_alpha;
function krippendorffUnits(): (number | null)[][] {
  const coders = Object.values(kr.coders_by_unit_null_is_missing) as (number | null)[][];
  const units = coders[0]!.length;
  return Array.from({ length: units }, (_, u) => coders.map((c) => (c[u] === null ? null : (c[u] as number) - 1)));
}

test("Krippendorff nominal and interval with missing data match nltk AnnotationTask(...).alpha() and Krippendorff (2011)", () => {
  const table = unitTable(krippendorffUnits(), 5);
  close(alphaFromTable(table, { level: "nominal" }), kr.nominal, "nominal");
  close(alphaFromTable(table, { level: "interval", values: [1, 2, 3, 4, 5] }), kr.interval, "interval");
});

test("treating missing as a category would give the published wrong value; we do not", () => {
  const withMissing = krippendorffUnits().map((u) => u.map((v) => (v === null ? 5 : v)));
  const wrong = alphaFromTable(unitTable(withMissing, 6), { level: "nominal" }) ?? NaN;
  assert.ok(Math.abs(wrong - 0.5766) < 1e-3, `the pitfall value is ${wrong}`);
  assert.notEqual(Math.round(wrong * 1e3), Math.round(kr.nominal * 1e3));
});

test("alpha on two coders with no missing data agrees with Cohen-like behaviour at the extremes", () => {
  const perfect = unitTable([[0, 0], [1, 1], [2, 2]], 3);
  assert.equal(alphaFromTable(perfect, { level: "nominal" }), 1);
  const constant = unitTable([[0, 0], [0, 0]], 2);
  assert.equal(alphaFromTable(constant, { level: "nominal" }), null);
});

test("ordinal alpha uses rank distances: a near miss costs less than a far one", () => {
  const near = unitTable([[0, 1], [1, 1], [2, 2], [3, 3], [0, 0]], 4);
  const far = unitTable([[0, 3], [1, 1], [2, 2], [3, 3], [0, 0]], 4);
  const a = alphaFromTable(near, { level: "ordinal" }) ?? NaN;
  const b = alphaFromTable(far, { level: "ordinal" }) ?? NaN;
  assert.ok(a > b, `${a} > ${b}`);
});

test("Landis and Koch bands", () => {
  assert.equal(landisKoch(-0.1), "poor");
  assert.equal(landisKoch(0.2), "slight");
  assert.equal(landisKoch(0.55), "moderate");
  assert.equal(landisKoch(0.81), "almost perfect");
});

const labels = fc.array(fc.tuple(fc.integer({ min: 0, max: 3 }), fc.integer({ min: 0, max: 3 })), { minLength: 2, maxLength: 60 });
const weighting = fc.constantFrom<Weighting>("none", "linear", "quadratic");

test("property: kappa lies in [-1, 1] and is symmetric in the graders", () => {
  fc.assert(
    fc.property(labels, weighting, (pairs, w) => {
      const a = pairs.map((p) => String(p[0]));
      const b = pairs.map((p) => String(p[1]));
      const cats = ["0", "1", "2", "3"];
      const ab = cohenKappa(contingency(a, b, cats), w);
      const ba = cohenKappa(contingency(b, a, cats), w);
      if (ab.kappa === null) return assert.equal(ba.kappa, null);
      assert.ok(ab.kappa >= -1 - 1e-12 && ab.kappa <= 1 + 1e-12);
      assert.ok(Math.abs(ab.kappa - (ba.kappa ?? NaN)) < 1e-12);
      assert.ok(Math.abs((ab.se ?? 0) - (ba.se ?? 0)) < 1e-12);
    }),
  );
});

test("property: unweighted kappa and nominal alpha are invariant to renaming labels", () => {
  fc.assert(
    fc.property(labels, fc.shuffledSubarray([0, 1, 2, 3], { minLength: 4, maxLength: 4 }), (pairs, perm) => {
      const cats = ["0", "1", "2", "3"];
      const rename = (x: number) => String(perm[x]);
      const before = cohenKappa(contingency(pairs.map((p) => String(p[0])), pairs.map((p) => String(p[1])), cats)).kappa;
      const after = cohenKappa(contingency(pairs.map((p) => rename(p[0])), pairs.map((p) => rename(p[1])), cats)).kappa;
      assert.ok(before === after || Math.abs((before ?? NaN) - (after ?? NaN)) < 1e-12);
      const a1 = alphaFromTable(unitTable(pairs.map((p) => [p[0], p[1]]), 4), { level: "nominal" });
      const a2 = alphaFromTable(unitTable(pairs.map((p) => [perm[p[0]]!, perm[p[1]]!]), 4), { level: "nominal" });
      assert.ok(a1 === a2 || Math.abs((a1 ?? NaN) - (a2 ?? NaN)) < 1e-12);
    }),
  );
});

test("property: alpha is at most 1 and the same seed gives the same bootstrap", () => {
  fc.assert(
    fc.property(labels, fc.integer(), fc.constantFrom<AlphaLevel>("nominal", "ordinal", "interval"), (pairs, seed, level) => {
      const table = unitTable(pairs.map((p) => [p[0], p[1]]), 4);
      const alpha = alphaFromTable(table, { level });
      if (alpha !== null) assert.ok(alpha <= 1 + 1e-9, String(alpha));
      const one = bootstrapAlpha(table, { level, resamples: 20, prng: seededPrng(seed) });
      const two = bootstrapAlpha(table, { level, resamples: 20, prng: seededPrng(seed) });
      assert.deepEqual(one, two);
    }),
    { numRuns: 50 },
  );
});
