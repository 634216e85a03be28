import { environmentAccess } from "../sandbox/environment.js";
import { randomBytes } from "node:crypto";
import { appendFileSync, lstatSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { judgeTestRun, type TestVerdict } from "../core/oracle/judge.js";
import { isPerTest, parseTestReport, type PerTestRunner, type RunnerKind, type TestResult } from "../core/oracle/runner.js";
import { judgeReward, LOGS_DIR, type RewardVerdict } from "../core/oracle/reward.js";
import { makeSentinel, sentinelSource, sentinelTarget, type Sentinel } from "../core/oracle/sentinel.js";
import { readAgentFile } from "../sandbox/agent-file.js";
import type { ExecResult, SandboxDriver } from "../sandbox/driver.js";
import { NODE_REPORTER, NODE_REPORTER_FILE, PYTEST_PLUGIN, PYTEST_PLUGIN_MODULE } from "./support.js";

/**
 * One oracle run over a workspace whose hidden tests are already laid. The oracle gets a home
 * and temp folder of its own that the agent never saw, a clean environment with the language's
 * safe-start switches, and (for per-test runners) benchcard's reporter and a fresh sentinel.
 */

export interface OracleRequest {
  driver: SandboxDriver;
  runner: RunnerKind;
  argv: readonly string[];
  timeoutMs: number;
  workspace: string;
  /** An empty folder of this run's own: the oracle's home, temp, report and support files go here. */
  scratch: string;
  hostEnv: NodeJS.ProcessEnv;
  stdoutFile: string;
  stderrFile: string;
  maxLogBytes: number;
  marker?: string;
  /** hidden/ paths relative to the workspace (the sentinel goes into one of them). */
  hiddenFiles: readonly string[];
  /** Tests that must be present and pass; null while validating. */
  expected: readonly string[] | null;
  /** Random hex of `bytes` bytes; crypto by default, seeded in tests. */
  randomHex?: (bytes: number) => string;
  /** The pack's environment/ folder on the host, or null: shown read-only, named by BENCHCARD_ENV. */
  environment?: string | null;
  /** Where the workspace appears inside the sandbox (the task's sandbox_paths.workspace). */
  workspaceAt?: string;
  /** hidden/, copied outside the workspace, and where it appears read-only (sandbox_paths.hidden). */
  hiddenAt?: { source: string; target: string };
}

export interface OracleResult {
  exec: ExecResult;
  integrity: "per_test" | "exit_code_only" | "reward_file";
  /** What the reward the oracle wrote says (runner reward-file). */
  reward?: RewardVerdict;
  /** Why the oracle could not be set up or started by benchcard (the harness's fault). */
  harnessError?: string;
  tests?: TestVerdict;
  results?: TestResult[];
  sentinel?: Sentinel;
}

/** A reward file larger than this is not read. */
const REWARD_MAX_BYTES = 64 * 1024;

/** A report larger than this is not read: the test process runs the agent's code. */
const REPORT_MAX_BYTES = 32 * 1024 * 1024;

/** The environment an oracle starts from: nothing from the agent, nothing from the host but PATH. */
export function oracleEnv(host: NodeJS.ProcessEnv, home: string): Record<string, string> {
  return {
    PATH: host.PATH ?? "/usr/local/bin:/usr/bin:/bin",
    HOME: home,
    TMPDIR: join(home, "tmp"),
    LANG: "C.UTF-8",
    LC_ALL: "C.UTF-8",
    NO_COLOR: "1",
    // Python: no user site folder, the working folder not put first on the import path, no bytecode.
    PYTHONNOUSERSITE: "1",
    PYTHONSAFEPATH: "1",
    PYTHONDONTWRITEBYTECODE: "1",
  };
}

export async function runOracle(request: OracleRequest): Promise<OracleResult> {
  const home = join(request.scratch, "home");
  const reportDir = join(request.scratch, "report");
  const support = join(request.scratch, "support");
  for (const dir of [home, join(home, "tmp"), reportDir, support]) mkdirSync(dir, { recursive: true });
  const access = environmentAccess(request.driver, request.environment ?? null);
  const env = { ...oracleEnv(request.hostEnv, home), ...access.env };
  const reportFile = join(reportDir, "tests.jsonl");
  const readOnlyFiles: string[] = [];
  let sentinel: Sentinel | undefined;
  // A Harbor verifier writes its reward into /logs/verifier: a fresh folder for each run.
  const logs = join(request.scratch, "logs");
  if (request.runner === "reward-file") mkdirSync(join(logs, "verifier"), { recursive: true });
  if (isPerTest(request.runner)) {
    const target = sentinelTarget(request.runner, request.hiddenFiles);
    if (target === null) {
      return { exec: notRun(), integrity: "per_test", harnessError: `no hidden test file of runner "${request.runner}" to hold the sentinel (expected ${request.runner === "pytest" ? "test_*.py or *_test.py" : "*.test.mjs, *.test.js or test/*.mjs"})` };
    }
    const hex = request.randomHex ?? ((n: number) => randomBytes(n).toString("hex"));
    sentinel = makeSentinel(target, hex(8), hex(16));
    const targetPath = join(request.workspace, target);
    if (!lstatSync(targetPath).isFile()) throw new Error(`Cannot add the sentinel: ${target} is not a regular file`);
    appendFileSync(targetPath, sentinelSource(request.runner, sentinel, readFileSync(targetPath, "utf8")));
    writeFileSync(reportFile, "");
    if (request.runner === "pytest") {
      writeFileSync(join(support, `${PYTEST_PLUGIN_MODULE}.py`), PYTEST_PLUGIN);
      readOnlyFiles.push(support);
      env.PYTHONPATH = support;
      env.PYTEST_ADDOPTS = `-p ${PYTEST_PLUGIN_MODULE} -p no:cacheprovider`;
      env.BENCHCARD_TEST_REPORT = reportFile;
    } else {
      const reporter = join(support, NODE_REPORTER_FILE);
      writeFileSync(reporter, NODE_REPORTER);
      readOnlyFiles.push(support);
      env.NODE_OPTIONS = `--test-reporter=spec --test-reporter-destination=stdout --test-reporter=\"${reporter}\" --test-reporter-destination=\"${reportFile}\"`;
    }
  }
  const exec = await request.driver.exec({
    argv: request.argv,
    timeoutMs: request.timeoutMs,
    workspace: request.workspace,
    env,
    stdoutFile: request.stdoutFile,
    stderrFile: request.stderrFile,
    maxLogBytes: request.maxLogBytes,
    readOnlyFiles,
    writableDirs: [reportDir],
    mounts: [...access.mounts, ...(request.hiddenAt === undefined ? [] : [request.hiddenAt])],
    ...(request.runner === "reward-file" ? { binds: [{ source: logs, target: LOGS_DIR }] } : {}),
    ...(request.workspaceAt === undefined ? {} : { workspaceAt: request.workspaceAt }),
    ...(request.marker === undefined ? {} : { marker: request.marker }),
  });
  const weak = request.runner === "reward-file" ? ("reward_file" as const) : ("exit_code_only" as const);
  if (exec.spawnError !== undefined) return { exec, integrity: sentinel === undefined ? weak : "per_test", harnessError: `the oracle could not be started: ${exec.spawnError}` };
  if (request.runner === "reward-file") {
    // The test process could write this folder: its files are read as data, capped, links not followed.
    const [txt, json] = ["reward.txt", "reward.json"].map((name) => readAgentFile(join(logs, "verifier", name), REWARD_MAX_BYTES, name));
    const refused = [txt!, json!].find((r) => r.note !== null)?.note;
    const reward: RewardVerdict = refused === undefined || refused === null
      ? judgeReward({ txt: txt!.text ?? null, json: json!.text ?? null }, exec.timedOut)
      : { verdict: "fail", value: null, reason: refused };
    return { exec, integrity: weak, reward };
  }
  if (sentinel === undefined) return { exec, integrity: weak };
  const report = readReport(reportFile);
  const stdout = exec.logTruncated ? null : readFileSync(request.stdoutFile, "utf8");
  const tests = judgeTestRun({
    runner: request.runner as PerTestRunner,
    exit: exec.exitCode,
    timedOut: exec.timedOut,
    report,
    stdout,
    sentinel,
    expected: request.expected,
  });
  return { exec, integrity: "per_test", tests, sentinel, ...(report.ok ? { results: report.tests } : {}) };
}

function readReport(path: string): { ok: true; tests: TestResult[] } | { ok: false; reason: string } {
  // The test process ran the agent's code and could write the report folder: read it as data.
  const read = readAgentFile(path, REPORT_MAX_BYTES, "the report");
  if (read.text === undefined) return { ok: false, reason: read.note ?? "the report file is gone" };
  if (read.text === "") return { ok: false, reason: "the runner wrote no result" };
  return parseTestReport(read.text);
}

function notRun(): ExecResult {
  return { exitCode: null, signal: null, timedOut: false, wallMs: 0, stdoutBytes: 0, stderrBytes: 0, logTruncated: false, strayProcessesKilled: 0 };
}
