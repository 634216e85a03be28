// Throughput of `benchcard run --jobs N` with the oracle on the example pack (replayed to give
// enough attempts), for N = 1, 2, 4 and the machine's core count, against the ideal linear
// speed-up: attempts per second and parallel efficiency (rate_N / (N × rate_1)).
// Run: npm run bench:throughput   (BENCH_REPLAYS=R, default 4; BENCH_ISOLATION=process|bwrap, default bwrap when it works)
import { execFileSync, spawnSync } from "node:child_process";
import { cpSync, mkdirSync, rmSync } from "node:fs";
import { availableParallelism, tmpdir } from "node:os";
import { join } from "node:path";
import { BIN, ROOT } from "./common.mjs";

const work = join(process.env.BENCH_DIR ?? tmpdir(), `benchcard-bench-throughput-${process.pid}`);
rmSync(work, { recursive: true, force: true });
mkdirSync(work, { recursive: true });
const pack = join(work, "pack");
cpSync(join(ROOT, "examples", "tiny-fix"), pack, { recursive: true });
const isolation = process.env.BENCH_ISOLATION ?? (spawnSync("bwrap", ["--version"]).status === 0 ? "bwrap" : "process");
execFileSync("node", [BIN, "freeze", pack, "--isolation", isolation], { stdio: "ignore" });
const replays = Number(process.env.BENCH_REPLAYS ?? 4);
const cores = availableParallelism();
const levels = [...new Set([1, 2, 4, cores].filter((n) => n <= Math.max(4, cores)))].sort((a, b) => a - b);
const rows = [];
let base = null;
for (const jobs of levels) {
  const started = process.hrtime.bigint();
  execFileSync("node", [BIN, "run", pack, "--agent", "oracle", "--jobs", String(jobs), "--replays", String(replays), "--isolation", isolation, "--out", join(work, "runs"), "--run-id", `j${jobs}`, "--seed", "1"], { stdio: "ignore" });
  const seconds = Number(process.hrtime.bigint() - started) / 1e9;
  const attempts = 14 * replays;
  const rate = attempts / seconds;
  base ??= rate;
  rows.push({ jobs, seconds, rate, efficiency: rate / (jobs * base) });
}
console.log(`benchcard run --jobs N, oracle, example pack × ${replays} replays (${14 * replays} attempts), ${isolation} isolation, ${cores} cores`);
console.log("jobs  seconds  attempts/s  speed-up  efficiency");
for (const r of rows) console.log(`${String(r.jobs).padStart(4)}  ${r.seconds.toFixed(2).padStart(7)}  ${r.rate.toFixed(2).padStart(10)}  ${(r.rate / base).toFixed(2).padStart(8)}  ${(r.efficiency * 100).toFixed(0).padStart(9)}%`);
rmSync(work, { recursive: true, force: true });
