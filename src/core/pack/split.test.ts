import assert from "node:assert/strict";
import { test } from "node:test";
import fc from "fast-check";
import { seededPrng, shuffle } from "../common/random.js";
import { holdoutProblems, inSplit, stratifiedSplit } from "./split.js";

const tasks = [
  ...Array.from({ length: 10 }, (_, i) => ({ id: `a-${i}`, stratum: "a" })),
  ...Array.from({ length: 4 }, (_, i) => ({ id: `b-${i}`, stratum: "b" })),
];

test("the holdout takes round(fraction × n) tasks from every stratum", () => {
  const split = stratifiedSplit(tasks, { fraction: 0.3, seed: 7 });
  assert.equal(split.holdout.filter((id) => id.startsWith("a-")).length, 3);
  assert.equal(split.holdout.filter((id) => id.startsWith("b-")).length, 1);
  assert.equal(split.holdout.length + split.tune.length, tasks.length);
});

test("the same seed gives the same split, in any input order; another seed usually not", () => {
  const one = stratifiedSplit(tasks, { fraction: 0.5, seed: 11 });
  const two = stratifiedSplit([...tasks].reverse(), { fraction: 0.5, seed: 11 });
  assert.deepEqual(one, two);
  const others = [1, 2, 3, 4, 5].map((seed) => stratifiedSplit(tasks, { fraction: 0.5, seed }).holdout.join());
  assert.ok(new Set(others).size > 1);
});

test("property: holdout and tune partition the tasks", () => {
  fc.assert(
    fc.property(fc.integer({ min: 0, max: 2 ** 31 }), fc.double({ min: 0.05, max: 0.95, noNaN: true }), (seed, fraction) => {
      const split = stratifiedSplit(tasks, { fraction, seed });
      const all = [...split.holdout, ...split.tune].sort();
      assert.deepEqual(all, tasks.map((t) => t.id).sort());
    }),
  );
});

test("property: shuffle is a permutation and seeded", () => {
  fc.assert(
    fc.property(fc.array(fc.integer()), fc.integer(), (items, seed) => {
      const a = shuffle(items, { prng: seededPrng(seed) });
      assert.deepEqual([...a].sort(), [...items].sort());
      assert.deepEqual(a, shuffle(items, { prng: seededPrng(seed) }));
    }),
  );
});

test("controls are never split: they run in every split; only scored tasks go to holdout or tune", () => {
  const withControls = [...tasks, { id: "ctl-neg", stratum: "a", role: "negative" as const }, { id: "ctl-never", stratum: "b", role: "must_fail_forever" as const }];
  const split = stratifiedSplit(withControls, { fraction: 0.5, seed: 3 });
  assert.deepEqual(split.controls, ["ctl-neg", "ctl-never"]);
  assert.ok(!split.holdout.includes("ctl-neg") && !split.tune.includes("ctl-neg"));
  for (const which of ["holdout", "tune", "all"] as const) assert.ok(inSplit(split, which, "ctl-never"), which);
  assert.equal(inSplit(split, "holdout", split.tune[0]!), false);
});

test("a holdout with too few scored tasks, or a stratum missing, is named", () => {
  const strataOf = new Map(tasks.map((t) => [t.id, t.stratum]));
  const split = stratifiedSplit(tasks, { fraction: 0.2, seed: 1 });
  assert.deepEqual(holdoutProblems(split, strataOf, { minTasks: 12, strata: ["a", "b"] }), [`the holdout has 3 scored task(s), fewer than policy.min_holdout_tasks 12`]);
  const lopsided = { ...split, holdout: split.holdout.filter((id) => id.startsWith("a-")) };
  assert.match(holdoutProblems(lopsided, strataOf, { minTasks: 1, strata: ["a", "b"] }).join(), /no holdout task in stratum b/);
});
