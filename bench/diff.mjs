// Peak memory and time of benchcard's workspace diff against `git diff --no-index` on the same
// trees, side by side: a 40,000-line new file, and 100,000 small files with 100 of them changed.
// Each side runs in a process of its own; peak memory is the process's maximum resident set.
// Run: npm run bench:diff
import { execFileSync, spawnSync } from "node:child_process";
import { cpSync, mkdirSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { exists, ROOT, median } from "./common.mjs";

const base = process.env.BENCH_DIR ?? (exists("/dev/shm") ? "/dev/shm" : tmpdir());
const work = join(base, `benchcard-bench-diff-${process.pid}`);
rmSync(work, { recursive: true, force: true });
mkdirSync(work, { recursive: true });
const rounds = Number(process.env.BENCH_ROUNDS ?? 3);

function ours(repo, ws) {
  const out = execFileSync("node", [join(ROOT, "bench", "diff-one.mjs"), repo, ws], { encoding: "utf8" });
  return JSON.parse(out.trim().split("\n").pop());
}

function git(repo, ws) {
  const r = spawnSync("/usr/bin/time", ["-f", "%e %M", "git", "diff", "--no-index", "--no-color", repo, ws], { encoding: "utf8", stdio: ["ignore", "ignore", "pipe"], maxBuffer: 1 << 30 });
  const [seconds, kib] = r.stderr.trim().split("\n").pop().split(" ").map(Number);
  return { seconds, maxRssKiB: kib };
}

function compare(label, repo, ws) {
  const a = [];
  const b = [];
  for (let i = 0; i < rounds; i++) {
    a.push(ours(repo, ws));
    b.push(git(repo, ws));
  }
  const s = (xs, k) => median(xs.map((x) => x[k]));
  console.log(label);
  console.log(`  benchcard diffWorkspace    median ${s(a, "seconds").toFixed(3)} s, peak RSS ${(s(a, "maxRssKiB") / 1024).toFixed(0)} MiB (whole node process; ${a[0].files} changed files)`);
  console.log(`  git diff --no-index        median ${s(b, "seconds").toFixed(3)} s, peak RSS ${(s(b, "maxRssKiB") / 1024).toFixed(0)} MiB`);
  console.log(`  ratio time ${(s(a, "seconds") / s(b, "seconds")).toFixed(2)}, memory ${(s(a, "maxRssKiB") / s(b, "maxRssKiB")).toFixed(2)}`);
}

// 1. A 40,000-line new file (under 1 MiB, so it is diffed line by line, not called binary).
const r1 = join(work, "one-repo");
const w1 = join(work, "one-ws");
mkdirSync(r1, { recursive: true });
writeFileSync(join(r1, "keep.txt"), "unchanged\n");
cpSync(r1, w1, { recursive: true });
writeFileSync(join(w1, "big.py"), Array.from({ length: 40_000 }, (_, i) => `v${i} = ${i}`).join("\n") + "\n");
compare("a 40,000-line new file", r1, w1);

// 2. 100,000 small files, 100 of them changed.
const r2 = join(work, "many-repo");
const w2 = join(work, "many-ws");
for (let d = 0; d < 100; d++) {
  mkdirSync(join(r2, `d${d}`), { recursive: true });
  for (let f = 0; f < 1000; f++) writeFileSync(join(r2, `d${d}`, `f${f}.txt`), `file ${d}/${f}\nsecond line\n`);
}
cpSync(r2, w2, { recursive: true });
for (let d = 0; d < 100; d++) writeFileSync(join(w2, `d${d}`, "f7.txt"), `file ${d}/7 changed\nsecond line\n`);
compare("100,000 small files, 100 changed", r2, w2);

rmSync(work, { recursive: true, force: true });
