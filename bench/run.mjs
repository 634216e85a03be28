// `benchcard run --agent oracle --jobs 1` against a bare shell loop doing the same work (copy
// repo, lay gold and hidden over it, run the oracle), side by side, on the example pack and on
// a generated pack of 100 tasks with 1,000-file repos. Target: ratio at most 1.10.
// Run: npm run bench:run            (BENCH_ROUNDS=N for more rounds; default 5 and 1;
//      BENCH_EXAMPLE_ONLY=1 for the example pack alone)
import { execFileSync } from "node:child_process";
import { cpSync, mkdirSync, readFileSync, readdirSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { BIN, exists, ROOT, sideBySide } from "./common.mjs";
import { NODE_REPORTER, NODE_REPORTER_FILE, PYTEST_PLUGIN, PYTEST_PLUGIN_MODULE } from "../dist/oracle/support.js";

// On tmpfs when there is one: 100,000 small files per pass otherwise measure the disk's
// writeback, not the harness (BENCH_DIR overrides).
const base = process.env.BENCH_DIR ?? (exists("/dev/shm") ? "/dev/shm" : tmpdir());
const work = join(base, `benchcard-bench-run-${process.pid}`);
process.env.TMPDIR = work;
rmSync(work, { recursive: true, force: true });
mkdirSync(work, { recursive: true });

/**
 * The bare loop: per task, a fresh copy, the gold, hidden/, then the oracle, as plain shell,
 * with the same per-test reporter benchcard loads into the runner (pytest plugin or node:test
 * reporter) and the same safe-start environment, so both sides do the same test work.
 */
function loopScript(pack) {
  const card = readFileSync(join(pack, "benchcard.yaml"), "utf8");
  const defaultOracle = /^\s+oracle: "(.*)"$/m.exec(card)[1];
  const defaultRunner = /^\s+runner: (\S+)$/m.exec(card)?.[1] ?? "exit-code";
  const support = join(work, "loop-support");
  mkdirSync(support, { recursive: true });
  writeFileSync(join(support, `${PYTEST_PLUGIN_MODULE}.py`), PYTEST_PLUGIN);
  writeFileSync(join(support, NODE_REPORTER_FILE), NODE_REPORTER);
  const lines = ["set -u", `ws=${join(work, "loop-ws")}`, `home=${join(work, "loop-home")}`, `mkdir -p "$home"`, `report=${join(work, "loop-report.jsonl")}`];
  const runnerEnv = {
    pytest: `PYTHONPATH=${support} PYTEST_ADDOPTS="-p ${PYTEST_PLUGIN_MODULE} -p no:cacheprovider" BENCHCARD_TEST_REPORT="$report"`,
    "node-test": `NODE_OPTIONS="--test-reporter=spec --test-reporter-destination=stdout --test-reporter=${join(support, NODE_REPORTER_FILE)} --test-reporter-destination=$report"`,
    "exit-code": "",
  };
  for (const id of readdirSync(join(pack, "tasks")).sort()) {
    const dir = join(pack, "tasks", id);
    const taskYaml = readFileSync(join(dir, "task.yaml"), "utf8");
    const oracle = /^oracle: "(.*)"$/m.exec(taskYaml)?.[1] ?? defaultOracle;
    const runner = /^runner: (\S+)$/m.exec(taskYaml)?.[1] ?? defaultRunner;
    lines.push(`rm -rf "$ws" && cp -a ${dir}/repo "$ws"`);
    if (exists(join(dir, "solution"))) lines.push(`cp -a ${dir}/solution/. "$ws"/`);
    if (exists(join(dir, "solution.patch"))) lines.push(`(cd "$ws" && git apply ${dir}/solution.patch)`);
    if (exists(join(dir, "hidden"))) lines.push(`cp -a ${dir}/hidden/. "$ws"/`);
    // The same clean environment benchcard gives the oracle, so both do the same work.
    lines.push(`: > "$report"`);
    lines.push(`(cd "$ws" && env -i PATH="$PATH" HOME="$home" TMPDIR="$home" LANG=C.UTF-8 LC_ALL=C.UTF-8 PYTHONDONTWRITEBYTECODE=1 PYTHONNOUSERSITE=1 PYTHONSAFEPATH=1 NO_COLOR=1 ${runnerEnv[runner]} sh -c '${oracle.replaceAll("'", "'\\''")}') > /dev/null 2>&1 || true`);
  }
  lines.push(`rm -rf "$ws"`);
  const file = join(work, `loop-${Math.random().toString(36).slice(2)}.sh`);
  writeFileSync(file, lines.join("\n") + "\n");
  return file;
}

function compare(label, pack, rounds, warmup) {
  execFileSync("node", [BIN, "freeze", pack, "--jobs", "2", "--isolation", "process"], { stdio: "ignore", env: process.env });
  const loop = loopScript(pack);
  let n = 0;
  return sideBySide(
    label,
    { name: "benchcard run --jobs 1", command: `node ${BIN} run ${pack} --agent oracle --jobs 1 --isolation process --out ${work}/runs --run-id r$RANDOM$RANDOM 2>/dev/null` },
    { name: "bare shell loop", command: `bash ${loop}` },
    rounds,
    warmup,
  );
}

const example = join(work, "example");
cpSync(join(ROOT, "examples", "tiny-fix"), example, { recursive: true });
const rounds = Number(process.env.BENCH_ROUNDS ?? 0);
const a = compare("example pack (14 tasks)", example, rounds || 5, true);

if (process.env.BENCH_EXAMPLE_ONLY === "1") {
  console.log(`summary: example ratio ${a.ratio.toFixed(3)} (target <= 1.10)`);
  rmSync(work, { recursive: true, force: true });
  process.exit(0);
}

// 100 tasks, each a 1,000-file repo (about 1 MB), a one-file gold and one hidden pytest file.
const gen = join(work, "generated");
mkdirSync(join(gen, "tasks"), { recursive: true });
writeFileSync(
  join(gen, "benchcard.yaml"),
  readFileSync(join(example, "benchcard.yaml"), "utf8")
    .replace("name: tiny-fix", "name: bench-100")
    .replace(/strata:\n(  - .*\n)+/, "strata:\n  - { id: gen, description: generated }\n")
    .replace("contamination: { posture: private_ids, denylist: denylist.txt }", "contamination: { posture: unchecked }")
    .replace("oracle_repeats: 3", "oracle_repeats: 1")
    .replace(/oracle: ".*"/, 'oracle: "PYTEST_DISABLE_PLUGIN_AUTOLOAD=1 python3 -m pytest -q -p no:cacheprovider test_hidden.py"'),
);
for (let t = 0; t < 100; t++) {
  const id = `gen-${String(t).padStart(3, "0")}`;
  const dir = join(gen, "tasks", id);
  mkdirSync(join(dir, "hidden"), { recursive: true });
  mkdirSync(join(dir, "solution"), { recursive: true });
  writeFileSync(join(dir, "task.yaml"), `id: ${id}\nstratum: gen\ntitle: generated ${t}\norigin: synthetic\nleakage_risk: low\n`);
  writeFileSync(join(dir, "prompt.md"), "Make value() return 42.\n");
  for (let f = 0; f < 999; f++) {
    const sub = join(dir, "repo", `pkg${f % 20}`);
    mkdirSync(sub, { recursive: true });
    writeFileSync(join(sub, `m${f}.py`), `# module ${f} of task ${t}\n`.padEnd(1000, "#") + "\n");
  }
  writeFileSync(join(dir, "repo", "answer.py"), "def value():\n    return 41\n");
  writeFileSync(join(dir, "solution", "answer.py"), "def value():\n    return 42\n");
  writeFileSync(join(dir, "hidden", "test_hidden.py"), "from answer import value\n\ndef test_value():\n    assert value() == 42\n");
}
const b = compare("generated pack (100 tasks x 1,000-file repos)", gen, rounds || 1, false);
console.log(`work folder: ${base}`);
console.log(`summary: example ratio ${a.ratio.toFixed(3)}, generated ratio ${b.ratio.toFixed(3)} (target <= 1.10)`);
rmSync(work, { recursive: true, force: true });
