// Krippendorff's alpha on 10,000 items by 5 graders with 2,000 bootstrap resamples, through the
// real CLI. Target: under 5 s. The baseline beside it is the same command without the
// bootstrap, so the ratio is what 2,000 resamples cost over reading and one estimate.
// Run: npm run bench:alpha
import { mkdirSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { BIN, sideBySide } from "./common.mjs";

const ITEMS = 10_000;
const GRADERS = 5;
const dir = join(tmpdir(), `benchcard-bench-alpha-${process.pid}`);
mkdirSync(dir, { recursive: true });
let seed = 7;
const rand = () => ((seed = (Math.imul(seed, 1664525) + 1013904223) >>> 0) / 2 ** 32);
const truth = Array.from({ length: ITEMS }, () => 1 + Math.floor(rand() * 5));
const files = [];
for (let g = 0; g < GRADERS; g++) {
  const lines = [];
  for (let i = 0; i < ITEMS; i++) {
    if (rand() < 0.05) continue; // 5% missing
    const label = rand() < 0.8 ? truth[i] : 1 + Math.floor(rand() * 5);
    lines.push(JSON.stringify({ id: `item-${i}`, label: String(label) }));
  }
  const file = join(dir, `grader${g}.jsonl`);
  writeFileSync(file, lines.join("\n") + "\n");
  files.push(file);
}
const common = `node ${BIN} kappa ${files.join(" ")} --scale 1,2,3,4,5 --level ordinal --json > /dev/null`;
const { ours } = sideBySide(
  `alpha (ordinal), ${ITEMS} items x ${GRADERS} graders`,
  { name: "with 2,000 bootstrap resamples", command: common.replace("--json", "--bootstrap 2000 --seed 1 --json") },
  { name: "point estimate only", command: common },
  3,
);
console.log(`  target: under 5 s with the bootstrap: ${ours < 5 ? "met" : "NOT met"} (${ours.toFixed(2)} s)`);
rmSync(dir, { recursive: true, force: true });
