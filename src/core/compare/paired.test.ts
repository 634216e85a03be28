import assert from "node:assert/strict";
import { test } from "node:test";
import fc from "fast-check";
import { vectors } from "../../testing/vectors.js";
import { mcnemarExact, minimumDetectableDifference, newcombePaired, type PairedTable } from "./paired.js";

const table = (t: number[][]): PairedTable => ({ bothPass: t[0]![0]!, aOnly: t[0]![1]!, bOnly: t[1]![0]!, bothFail: t[1]![1]! });

test("Newcombe method 10 reproduces the published interval (contingencytables test-ch8) and the second case", () => {
  for (const c of vectors.newcombe_paired_difference.cases) {
    const r = newcombePaired(table(c.table), 0.95)!;
    assert.ok(Math.abs(r.estimate - c.estimate) < 1e-12, `estimate ${r.estimate}`);
    assert.ok(Math.abs(r.interval[0] - c.ci95[0]) < 1e-9, `lower ${r.interval[0]} vs ${c.ci95[0]}`);
    assert.ok(Math.abs(r.interval[1] - c.ci95[1]) < 1e-9, `upper ${r.interval[1]} vs ${c.ci95[1]}`);
  }
});

test("exact McNemar p and mid-p match statsmodels mcnemar(table, exact=True) = scipy binomtest(6, 22, 0.5)", () => {
  const m = vectors.mcnemar_exact;
  const r = mcnemarExact(table(m.table));
  assert.ok(Math.abs(r.p - m.p_exact_two_sided) < 1e-12, `${r.p}`);
  assert.ok(Math.abs(r.midP - m.p_mid) < 1e-12, `${r.midP}`);
});

test("the minimum detectable difference shrinks with n and is null without discordance", () => {
  const small = minimumDetectableDifference(20, 0.3, { confidence: 0.95, power: 0.8 })!;
  const large = minimumDetectableDifference(500, 0.3, { confidence: 0.95, power: 0.8 })!;
  assert.ok(large < small, `${large} < ${small}`);
  assert.equal(minimumDetectableDifference(50, 0, { confidence: 0.95, power: 0.8 }), null);
  // Connor's formula solved back: n needed at the returned delta is n.
  const delta = minimumDetectableDifference(200, 0.2, { confidence: 0.95, power: 0.8 })!;
  const need = (1.959963984540054 * Math.sqrt(0.2) + 0.8416212335729143 * Math.sqrt(0.2 - delta * delta)) ** 2 / delta ** 2;
  assert.ok(Math.abs(need - 200) < 1e-6, String(need));
});

const counts = fc.tuple(fc.nat(40), fc.nat(40), fc.nat(40), fc.nat(40)).filter(([a, b, c, d]) => a + b + c + d > 0);

test("property: the interval lies in [-1, 1], contains the estimate, and mirrors when A and B swap", () => {
  fc.assert(
    fc.property(counts, ([a, b, c, d]) => {
      const r = newcombePaired({ bothPass: a, aOnly: b, bOnly: c, bothFail: d }, 0.95)!;
      assert.ok(r.interval[0] >= -1 && r.interval[1] <= 1);
      assert.ok(r.interval[0] <= r.estimate + 1e-12 && r.estimate <= r.interval[1] + 1e-12);
      const s = newcombePaired({ bothPass: a, aOnly: c, bOnly: b, bothFail: d }, 0.95)!;
      assert.ok(Math.abs(s.interval[0] + r.interval[1]) < 1e-12 && Math.abs(s.interval[1] + r.interval[0]) < 1e-12);
      const m = mcnemarExact({ bothPass: a, aOnly: b, bOnly: c, bothFail: d });
      assert.ok(m.midP <= m.p && m.p <= 1 && m.midP >= 0);
    }),
  );
});
