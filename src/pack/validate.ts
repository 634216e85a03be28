import { readdir, readFile } from "node:fs/promises";
import { join } from "node:path";
import { controlRole, oracleFor, type Card } from "../core/pack/card.js";
import {
  judgeCheck,
  planChecks,
  worstStatus,
  type CheckName,
  type CheckStatus,
  type Observation,
} from "../core/pack/controls.js";
import { BenchcardError } from "../core/common/errors.js";
import { findLeaks, type LeakHit } from "../core/pack/leak.js";
import { mapPool } from "../core/common/pool.js";
import { shellCouldNotStart, type SandboxDriver } from "../sandbox/driver.js";
import { applyPatch, cleanEnv, createScratch, layTree } from "../sandbox/workspace.js";
import type { LoadedPack, LoadedTask } from "./load.js";

export interface CheckEvidence {
  name: CheckName;
  expect: "pass" | "fail";
  observed: Observation[];
  seconds: number[];
  status: CheckStatus;
  /** The last lines of the oracle's output on a repeat that did not show what was expected. */
  log_tail?: string;
}

export interface TaskEvidence {
  task_id: string;
  stratum: string;
  role: "normal" | "negative" | "must_fail_forever";
  status: CheckStatus | "leak";
  checks: CheckEvidence[];
  leaks: LeakHit[];
  /** hidden/ paths that already exist in repo/: the agent sees an older version of them. */
  hidden_overlap: string[];
}

export interface ValidationReport {
  schema: "benchcard.validation/1";
  pack: string;
  isolation: SandboxDriver["kind"];
  oracle_repeats: number;
  status: "green" | "red";
  tasks: TaskEvidence[];
}

export interface ValidateOptions {
  driver: SandboxDriver;
  jobs: number;
  env: NodeJS.ProcessEnv;
  /** Overrides the card's controls.oracle_repeats. */
  repeats?: number;
}

export async function validatePack(pack: LoadedPack, options: ValidateOptions): Promise<ValidationReport> {
  const repeats = options.repeats ?? pack.card.controls.oracle_repeats;
  const tasks = await mapPool(pack.tasks, options.jobs, (task) =>
    validateTask(pack, task, { ...options, repeats }),
  );
  return {
    schema: "benchcard.validation/1",
    pack: pack.root,
    isolation: options.driver.kind,
    oracle_repeats: repeats,
    status: tasks.every((t) => t.status === "green") ? "green" : "red",
    tasks,
  };
}

async function validateTask(
  pack: LoadedPack,
  task: LoadedTask,
  options: ValidateOptions & { repeats: number },
): Promise<TaskEvidence> {
  const prompt = task.hasPrompt ? await readFile(join(task.dir, "prompt.md"), "utf8") : "";
  const leaks = findLeaks({ title: task.task.title, prompt }, pack.denylist);
  const checks: CheckEvidence[] = [];
  for (const plan of planChecks(task.task, task.gold !== "none")) {
    const observed: Observation[] = [];
    const seconds: number[] = [];
    let logTail: string | undefined;
    for (let r = 0; r < options.repeats; r++) {
      const run = await runOracle(pack.card, task, { ...options, withGold: plan.name === "gold" });
      observed.push(run.observation);
      seconds.push(round3(run.seconds));
      if (run.observation !== plan.expect) logTail ??= run.logTail;
    }
    const evidence: CheckEvidence = { ...plan, observed, seconds, status: judgeCheck(plan.expect, observed) };
    if (evidence.status !== "green" && logTail !== undefined) evidence.log_tail = logTail;
    checks.push(evidence);
  }
  const controls = worstStatus(checks.map((c) => c.status));
  return {
    task_id: task.task.id,
    stratum: task.task.stratum,
    role: controlRole(task.task),
    status: controls === "green" && leaks.length > 0 ? "leak" : controls,
    checks,
    leaks,
    hidden_overlap: task.hasHidden ? await overlap(join(task.dir, "hidden"), join(task.dir, "repo")) : [],
  };
}

interface OracleRun {
  observation: Observation;
  seconds: number;
  logTail: string;
}

/** One oracle run in a fresh workspace: repo/, then the gold if asked, then hidden/. */
async function runOracle(
  card: Card,
  task: LoadedTask,
  options: ValidateOptions & { withGold: boolean },
): Promise<OracleRun> {
  const scratch = await createScratch("benchcard-validate-");
  try {
    await layTree(join(task.dir, "repo"), scratch.workspace);
    if (options.withGold && task.gold === "dir") await layTree(join(task.dir, "solution"), scratch.workspace);
    if (options.withGold && task.gold === "patch") {
      const refused = await applyPatch(join(task.dir, "solution.patch"), scratch.workspace).then(
        () => undefined,
        (error: Error) => error,
      );
      if (refused !== undefined) {
        const detail = refused instanceof BenchcardError ? refused.issues.map((i) => i.message).join("\n") : "";
        return { observation: "fail", seconds: 0, logTail: `${refused.message}\n${detail}` };
      }
    }
    if (task.hasHidden) await layTree(join(task.dir, "hidden"), scratch.workspace);
    const stdoutFile = join(scratch.root, "oracle.out");
    const stderrFile = join(scratch.root, "oracle.err");
    const result = await options.driver.exec({
      ...oracleFor(card, task.task),
      workspace: scratch.workspace,
      env: cleanEnv(options.env, scratch.home),
            stdoutFile,
      stderrFile,
      maxLogBytes: 1 << 20,
    });
    const observation: Observation = shellCouldNotStart(result)
      ? "harness"
      : result.exitCode === 0 && !result.timedOut
        ? "pass"
        : "fail";
    const log = [
      await readFile(stdoutFile, "utf8").catch(() => ""),
      await readFile(stderrFile, "utf8").catch(() => ""),
      result.spawnError ?? "",
      result.timedOut ? "(oracle timed out)" : "",
    ].join("\n");
    return { observation, seconds: result.wallMs / 1000, logTail: tail(log, 20) };
  } finally {
    await scratch.dispose();
  }
}

async function overlap(hidden: string, repo: string): Promise<string[]> {
  const hiddenFiles = await readdir(hidden, { recursive: true, withFileTypes: true });
  const paths = hiddenFiles
    .filter((e) => !e.isDirectory())
    .map((e) => join(e.parentPath ?? (e as unknown as { path: string }).path, e.name).slice(hidden.length + 1));
  const present = await Promise.all(paths.map((p) => readFile(join(repo, p)).then(() => true, () => false)));
  return paths.filter((_, i) => present[i]).sort();
}

function tail(text: string, lines: number): string {
  return text.trim().split("\n").slice(-lines).join("\n");
}

function round3(x: number): number {
  return Math.round(x * 1000) / 1000;
}

