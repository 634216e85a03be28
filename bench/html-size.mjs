// The report viewer's size on a 500-task run: the example pack's tasks copied to 500 (ids
// suffixed, strata kept), frozen with one oracle repeat, run by the Python-only demo agent (so
// half the attempts fail, with diffs and logs to embed), then `report --html`. Prints the file's
// size and its size per attempt; `report --html` is timed against `report --json` side by side.
// Run: node bench/html-size.mjs (after npm run build). Isolation: process (bwrap when BENCH_BWRAP=1).
import { chmodSync, cpSync, mkdtempSync, readdirSync, readFileSync, renameSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { BIN, ROOT, timeShell } from "./common.mjs";

const N = Number(process.env.BENCH_TASKS ?? 500);
const isolation = process.env.BENCH_BWRAP === "1" ? "bwrap" : "process";
const work = mkdtempSync(join(tmpdir(), "benchcard-bench-html-"));
// The sandbox user (benchcard drops root) must be able to read the agent under it.
chmodSync(work, 0o755);
try {
  const pack = join(work, "pack");
  cpSync(join(ROOT, "examples", "tiny-fix"), pack, { recursive: true, filter: (s) => !s.endsWith("benchcard.lock") });
  const card = join(pack, "benchcard.yaml");
  writeFileSync(card, readFileSync(card, "utf8").replace("oracle_repeats: 3", "oracle_repeats: 1").replace("contamination: { posture: private_ids, denylist: denylist.txt }", "contamination: { posture: unchecked }"));
  const originals = readdirSync(join(pack, "tasks")).filter((t) => !t.startsWith("ctl-"));
  for (let i = 0; i < N; i++) {
    const from = originals[i % originals.length];
    const id = `${from}-${String(Math.floor(i / originals.length)).padStart(3, "0")}`;
    cpSync(join(pack, "tasks", from), join(pack, "tasks", id), { recursive: true });
    const taskYaml = join(pack, "tasks", id, "task.yaml");
    writeFileSync(taskYaml, readFileSync(taskYaml, "utf8").replace(`id: ${from}`, `id: ${id}`));
  }
  for (const t of readdirSync(join(pack, "tasks"))) if (!/-\d{3}$/.test(t)) rmSync(join(pack, "tasks", t), { recursive: true });
  const agents = join(work, "agents");
  cpSync(join(ROOT, "examples", "agents"), agents, { recursive: true, filter: (s) => !s.includes("node_modules") });
  const run = join(work, "runs");
  const freeze = timeShell(`node ${BIN} freeze ${pack} --jobs 2 --isolation ${isolation} --quiet`);
  const runS = timeShell(`node ${BIN} run ${pack} --agent ${join(agents, "py-fixer.yaml")} --out ${run} --run-id r --jobs 2 --isolation ${isolation} --quiet`);
  const html = join(work, "report.html");
  const htmlS = timeShell(`node ${BIN} report ${join(run, "r")} --html ${html}`, { allowExit: [2, 3] });
  const jsonS = timeShell(`node ${BIN} report ${join(run, "r")} --json > ${join(work, "report.json")}`, { allowExit: [2, 3] });
  const size = statSync(html).size;
  console.log(`${N} tasks (${isolation}): freeze ${freeze.toFixed(1)} s, run ${runS.toFixed(1)} s`);
  console.log(`report --html: ${(size / 1e6).toFixed(2)} MB (${size} bytes, ${Math.round(size / N)} bytes per attempt) in ${htmlS.toFixed(2)} s; report --json: ${statSync(join(work, "report.json")).size} bytes in ${jsonS.toFixed(2)} s; ratio ${(htmlS / jsonS).toFixed(2)}`);
  if (process.env.BENCH_KEEP_HTML) renameSync(html, process.env.BENCH_KEEP_HTML);
} finally {
  rmSync(work, { recursive: true, force: true });
}
