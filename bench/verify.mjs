// `benchcard verify` against `find tasks -type f | sort | xargs sha256sum` on a generated pack of
// at least 10,000 files and 200 MB. Run: npm run bench:verify
import { execFileSync } from "node:child_process";
import { mkdirSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { BIN, sideBySide, timeShell } from "./common.mjs";

const TASKS = 20;
const SMALL_PER_TASK = 510; // 10,200 small files
const LARGE = 8; // 8 files of 20 MB
const root = join(tmpdir(), `benchcard-bench-verify-${process.pid}`);
rmSync(root, { recursive: true, force: true });

let seed = 12345;
const bytes = (n) => {
  const buf = Buffer.allocUnsafe(n);
  for (let i = 0; i < n; i += 4) {
    seed = (Math.imul(seed, 1664525) + 1013904223) >>> 0;
    buf.writeUInt32LE(seed, Math.min(i, n - 4));
  }
  return buf;
};

mkdirSync(root, { recursive: true });
writeFileSync(
  join(root, "benchcard.yaml"),
  `name: bench
version: 1.0.0
license: MIT
description: generated for the verify benchmark
sampling: generated
contamination: { posture: unchecked }
strata: [ { id: s, description: one stratum } ]
contract: { pass: check.sh exits 0, oracle: "sh check.sh", oracle_timeout_s: 60, max_patch_bytes: unknown }
envelope: { wall_s: 60, max_output_tokens: unknown, max_steps: unknown, max_retries: 0, network: none }
controls: { oracle_repeats: 1, replays: 1, max_replay_drift: 0, min_n_per_stratum: 1, max_infra_rate: 0.1 }
policy: { timeout: fail, invalid: fail, confidence: 0.95, interval: wilson, tie_band: 0.1 }
`,
);
let totalBytes = 0;
let totalFiles = 1;
for (let t = 0; t < TASKS; t++) {
  const dir = join(root, "tasks", `t${String(t).padStart(3, "0")}`);
  const put = (rel, content) => {
    mkdirSync(join(dir, rel, ".."), { recursive: true });
    writeFileSync(join(dir, rel), content);
    totalBytes += content.length;
    totalFiles++;
  };
  put("task.yaml", `id: t${String(t).padStart(3, "0")}\nstratum: s\ntitle: bench ${t}\norigin: synthetic\nleakage_risk: low\n`);
  put("prompt.md", "Create the file named fixed.\n");
  put("hidden/check.sh", "test -f fixed\n");
  put("solution/fixed", "yes\n");
  for (let f = 0; f < SMALL_PER_TASK; f++) put(`repo/src/d${f % 17}/f${f}.txt`, bytes(1024 + ((f * 2654435761) % 6144)));
  if (t < LARGE) put(`repo/data/blob${t}.bin`, bytes(20 * 1024 * 1024));
}
console.log(`generated pack: ${totalFiles} files, ${(totalBytes / 1e6).toFixed(1)} MB at ${root}`);
const freeze = timeShell(`node ${BIN} freeze ${root} --jobs 2`);
console.log(`freeze (validate + hash + lock): ${freeze.toFixed(2)} s`);
execFileSync("node", [BIN, "verify", root], { stdio: "inherit" });
sideBySide(
  "verify the generated pack (warm cache)",
  { name: "benchcard verify", command: `node ${BIN} verify ${root}` },
  { name: "find|sort|xargs sha256sum", command: `cd ${root} && find tasks -type f | sort | xargs sha256sum > /dev/null` },
);
if (process.env.BENCH_KEEP !== "1") rmSync(root, { recursive: true, force: true });
