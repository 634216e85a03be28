import { lstatSync } from "node:fs";
import { environmentAccess, packEnvironment } from "../sandbox/environment.js";
import { copyFile, mkdir, rm, writeFile } from "node:fs/promises";
import { dirname, join } from "node:path";
import { effectiveNetwork, expandCommand, expandMounts } from "../core/attempt/agent.js";
import { oracleFor, type Fences, type Task } from "../core/pack/card.js";
import type { FileEntry } from "../core/pack/digest.js";
import { BenchcardError } from "../core/common/errors.js";
import type { Row } from "../core/attempt/ledger-row.js";
import { boundRow, ROW_SCHEMA } from "../core/attempt/ledger-row.js";
import type { Lock } from "../core/pack/lock.js";
import { classify, type AttemptFacts } from "../core/attempt/outcome.js";
import { retryId, type ScheduledAttempt } from "../core/attempt/schedule.js";
import { describeViolations, findViolations } from "../core/attempt/tamper.js";
import { parseUsage, truncation } from "../core/attempt/usage.js";
import { hashFilesSync } from "../pack/hash.js";
import type { LoadedPack, LoadedTask } from "../pack/load.js";
import type { ExecResult, SandboxDriver } from "../sandbox/driver.js";
import { findShadowing } from "../core/oracle/shadow.js";
import type { OracleResult } from "../oracle/run-oracle.js";
import type { Usage } from "../core/attempt/ledger-row.js";
import type { Endpoint } from "../core/gateway/endpoint.js";
import type { GatewayTotals } from "../core/gateway/meter.js";
import { CHAT_AGENT_FILE } from "../gateway/builtin.js";
import { endpointKey, openAgentNetwork } from "./agent-network.js";
import { applyPatch, cleanEnv, layTree } from "../sandbox/workspace.js";
import { BwrapDriver } from "../sandbox/bwrap.js";
import { limitsFromEnvelope } from "../sandbox/limits.js";
import { HARNESS_VERSION } from "../version.js";
import type { ResolvedAgent } from "./agent.js";
import { disarmTree, listTreeSync, removeTree } from "../sandbox/tree.js";
import { readAgentFile } from "../sandbox/agent-file.js";
import { installVisibleCommand, readVisibleLog, summarizeVisibleLog, visibleGreen, type VisibleSummary } from "./visible.js";
import { gradeTree } from "./grade.js";
import { diffWorkspace } from "./workspace-diff.js";

export const LOG_CAP_BYTES = 8 * 1024 * 1024;
export const USAGE_MAX_BYTES = 64 * 1024;
export const TRANSCRIPT_MAX_BYTES = 2 * 1024 * 1024;

export interface RunContext {
  runId: string;
  runDir: string;
  pack: LoadedPack;
  lock: Lock;
  agent: ResolvedAgent;
  driver: SandboxDriver;
  seed: number;
  split: "holdout" | "tune" | "all";
  shard: string;
  hostEnv: NodeJS.ProcessEnv;
  clock: () => Date;
  /** Stat signatures of the pack's files, taken when the run verified the pack. */
  snapshot: ReadonlyMap<string, string>;
  /** The lock's files by task (indexLock). */
  files: ReadonlyMap<string, TaskFiles>;
  /** Where attempts' scratch folders go (workspace, homes): traversable by the sandbox user. */
  workRoot: string;
  /** Removes a finished attempt's scratch folder; the run awaits these before it ends. */
  discard: (dir: string) => void;
  /** Random hex for sentinels; crypto when absent. */
  randomHex?: (bytes: number) => string;
  /** Aborted on Ctrl-C: the agent's process tree is ended, and the run writes no more rows. */
  signal?: AbortSignal;
}

/** One task's share of the lock: every path, and repo/ and hidden/ relative to themselves. */
export interface TaskFiles {
  paths: string[];
  repo: Record<string, FileEntry>;
  hidden: Record<string, FileEntry>;
  /** Visible tests: laid into the workspace before the agent starts. */
  visible: Record<string, FileEntry>;
}

/** Splits the lock's file table by task once per run, instead of scanning it per attempt. */
export function indexLock(lock: Lock): Map<string, TaskFiles> {
  const index = new Map<string, TaskFiles>();
  for (const [path, entry] of Object.entries(lock.files)) {
    const parts = path.split("/");
    if (parts[0] !== "tasks" || parts.length < 3) continue;
    const id = parts[1] as string;
    let files = index.get(id);
    if (files === undefined) {
      files = { paths: [], repo: {}, hidden: {}, visible: {} };
      index.set(id, files);
    }
    files.paths.push(path);
    const part = parts[2];
    if (part === "repo" || part === "hidden" || part === "visible") files[part][parts.slice(3).join("/")] = entry;
  }
  return index;
}

/** A stat signature: a cheap way to see that a file was touched since it was hashed. */
export function signature(info: { size: number; mtimeMs: number; ctimeMs: number; ino: number; mode: number }): string {
  return `${info.size}:${info.mtimeMs}:${info.ctimeMs}:${info.ino}:${info.mode}`;
}

/**
 * Step 1: the task's files still match the lock. Files whose stat signature moved since the
 * run verified the pack are re-hashed; any added, removed or changed file is drift (exit 2).
 */
async function checkTaskDrift(ctx: RunContext, task: LoadedTask): Promise<void> {
  const prefix = `tasks/${task.task.id}/`;
  const locked = ctx.files.get(task.task.id)?.paths ?? [];
  const present = listTreeSync(task.dir).map((p) => prefix + p);
  const lockedSet = new Set(locked);
  const drift: string[] = present.filter((p) => !lockedSet.has(p));
  const presentSet = new Set(present);
  drift.push(...locked.filter((p) => !presentSet.has(p)));
  const moved: string[] = [];
  for (const path of locked) {
    if (!presentSet.has(path)) continue;
    const info = lstatSync(join(ctx.pack.root, path));
    if (signature(info) !== ctx.snapshot.get(path)) moved.push(path);
  }
  const hashes = hashFilesSync(ctx.pack.root, moved);
  moved.forEach((path, i) => {
    const entry = ctx.lock.files[path]!;
    const now = hashes[i]!;
    if (now.sha256 !== entry.sha256 || now.kind !== entry.kind || now.executable !== entry.executable) drift.push(path);
  });
  if (drift.length > 0) {
    throw new BenchcardError("drift", `Cannot run attempt of "${task.task.id}": the pack drifted from its lock: ${drift.sort().join(", ")}`);
  }
}

export async function runAttempt(ctx: RunContext, task: LoadedTask, attempt: ScheduledAttempt, retry = 0): Promise<Row> {
  return boundRow(await attemptRow(ctx, task, attempt, retry));
}

async function attemptRow(ctx: RunContext, task: LoadedTask, attempt: ScheduledAttempt, retry: number): Promise<Row> {
  const attemptId = retryId(attempt.attempt_id, retry);
  const slot = retry === 0 ? `${attempt.replay}` : `${attempt.replay}-r${retry}`;
  await checkTaskDrift(ctx, task);
  const startedAt = ctx.clock();
  const started = performance.now();
  const artifactsRel = `attempts/${attempt.task_id}/${slot}`;
  const artifacts = join(ctx.runDir, artifactsRel);
  await rm(artifacts, { recursive: true, force: true });
  await mkdir(artifacts, { recursive: true });
  const scratchRoot = join(ctx.workRoot, `${attempt.task_id}.${slot}`);
  await removeTree(scratchRoot);
  const workspace = join(scratchRoot, "workspace");
  const home = join(scratchRoot, "home");
  const io = join(scratchRoot, "io");
  await Promise.all([mkdir(workspace, { recursive: true }), mkdir(home, { recursive: true }), mkdir(io, { recursive: true })]);
  const card = ctx.pack.card;
  const fences: Fences = task.task.fences ?? card.contract.fences ?? {};
  const marker = `${ctx.runId}/${attemptId}`;
  const base = {
    schema: ROW_SCHEMA,
    run_id: ctx.runId,
    attempt_id: attemptId,
    task_id: attempt.task_id,
    stratum: attempt.stratum,
    role: task.task.control ?? "normal",
    split: ctx.split,
    replay: attempt.replay,
    retry,
    seed: ctx.seed,
    shard: ctx.shard,
    agent_id: ctx.agent.id,
    agent_fingerprint: ctx.agent.fingerprint,
    agent_controls: ctx.agent.controls,
    pack_hash: ctx.lock.pack_hash,
    card_hash: ctx.lock.card_hash,
    harness_version: HARNESS_VERSION,
    isolation: ctx.driver.kind,
    hidden_guaranteed_secret: ctx.driver.hidesPack,
    envelope: card.envelope as Record<string, unknown>,
  } satisfies Partial<Row>;
  const artifactPaths: Record<string, string> = {
    agent_stdout: `${artifactsRel}/agent.out`,
    agent_stderr: `${artifactsRel}/agent.err`,
    diff: `${artifactsRel}/diff.patch`,
    oracle_stdout: `${artifactsRel}/oracle.out`,
    oracle_stderr: `${artifactsRel}/oracle.err`,
  };
  try {
    await layTree(join(task.dir, "repo"), workspace);
    if (task.hasVisible) await layTree(join(task.dir, "visible"), workspace);
    const taskFiles = ctx.files.get(attempt.task_id);
    // The agent starts from repo/ with visible/ laid over it: that is what its changes are measured against.
    const baseline = { ...(taskFiles?.repo ?? {}), ...(taskFiles?.visible ?? {}) };
    const promptFile = join(io, "prompt.md");
    await copyFile(join(task.dir, "prompt.md"), promptFile);
    const usageFile = join(io, "usage.json");

    const clockStart = Date.now() / 1000;
    const { result: agentRun, gateway } = await runAgent(ctx, task, { workspace, home, promptFile, usageFile, io, marker, artifacts });
    if (ctx.signal?.aborted) throw new Error("interrupted (Ctrl-C): this attempt is not recorded and runs again on --resume");
    // Before anything reads the agent's places: no setuid or setgid bit and no device file survives.
    const disarmed = [workspace, home, io].map((dir) => disarmTree(dir)).reduce((a, b) => ({
      setid: a.setid + b.setid,
      devices: a.devices + b.devices,
      limit: a.limit ?? b.limit,
    }));
    // The usage file is the agent's: read as data (no links, no FIFOs, at most 64 KiB).
    const usageRead = readAgentFile(usageFile, USAGE_MAX_BYTES);
    const parsed = parseUsage(usageRead.text);
    const endpoint = ctx.agent.kind === "spec" ? ctx.agent.spec.endpoint : undefined;
    const usage = meteredUsage(parsed.usage, usageRead.text !== undefined, gateway, endpoint);
    const note = [usageRead.note, parsed.note, gateway !== null && gateway.unmetered_responses > 0 ? `${gateway.unmetered_responses} model response(s) carried no usage; their tokens are not counted` : null].filter((n) => n !== null).join("; ") || null;
    if (usageRead.text !== undefined) await writeFile(join(artifacts, "usage.json"), usageRead.text);
    if (gateway !== null) artifactPaths.gateway = `${artifactsRel}/gateway.jsonl`;
    const transcript = readAgentFile(join(io, "transcript.jsonl"), TRANSCRIPT_MAX_BYTES);
    if (transcript.text !== undefined) {
      await writeFile(join(artifacts, "transcript.jsonl"), transcript.text);
      artifactPaths.transcript = `${artifactsRel}/transcript.jsonl`;
    }

    const diff = await diffWorkspace(workspace, [join(task.dir, "repo"), join(task.dir, "visible")], baseline);
    await writeFile(join(artifacts, "diff.patch"), diff.patch);
    const shadowing = findShadowing(diff.changes, new Set(diff.present));
    const hostile = [
      ...diff.hostile,
      ...(disarmed.setid > 0 ? [`${disarmed.setid} setuid or setgid file(s); the bits were removed`] : []),
      ...(disarmed.devices > 0 ? [`${disarmed.devices} device file(s); removed`] : []),
      ...(disarmed.limit === null ? [] : [`the workspace has ${disarmed.limit}`]),
    ];
    const violations = findViolations(diff.changes, { ...diff, shadowing, hostile }, {
      ...hiddenRules(task.task, ctx.files.get(attempt.task_id)?.hidden ?? {}, baseline),
      forbidden: card.contract.forbidden_paths,
      fences,
      maxPatchBytes: card.contract.max_patch_bytes,
    });
    const facts: AttemptFacts = {
      agentExit: agentRun.exitCode,
      agentSignal: agentRun.signal,
      agentTimedOut: agentRun.timedOut,
      violations: describeViolations(violations),
      hiddenIntact: true,
    };
    if (agentRun.spawnError !== undefined) facts.agentStartError = agentRun.spawnError;
    if (usage.infra_error !== null) facts.usageInfraError = usage.infra_error;
    if (gateway?.last_failure != null) facts.endpointFailure = gateway.last_failure;
    const truncated = gateway?.cap != null ? `the gateway refused ${gateway.refused_by_cap} request(s): ${gateway.cap}` : truncation(usage, card.envelope);
    if (truncated !== undefined) facts.truncated = truncated;

    let visible: VisibleSummary | null = null;
    if (task.task.visible_command !== undefined) {
      const logged = summarizeVisibleLog(readVisibleLog(join(io, "visible.jsonl")), clockStart);
      const green = await visibleGreen(ctx.driver, {
        command: task.task.visible_command,
        workspace,
        home: join(scratchRoot, "visible-home"),
        hostEnv: ctx.hostEnv,
        logDir: artifacts,
        timeoutMs: oracleFor(card, task.task).timeoutMs,
        ...(task.task.sandbox_paths?.workspace === undefined ? {} : { workspaceAt: task.task.sandbox_paths.workspace }),
      });
      visible = { ...logged, green_at_exit: green, logged_by: "sandbox" };
    }
    let oracle: OracleResult | undefined;
    const decided = classify({ ...facts, oracle: { exit: 0, timedOut: false } });
    if (decided.outcome === "pass") {
      // Nothing before the oracle decided the attempt: lay hidden/ and grade.
      const graded = await gradeTree({
        task,
        files: taskFiles ?? { paths: [], repo: {}, hidden: {}, visible: {} },
        card,
        lock: ctx.lock,
        workspace,
        scratch: join(scratchRoot, "oracle"),
        logDir: artifacts,
        driver: ctx.driver,
        hostEnv: ctx.hostEnv,
        maxLogBytes: LOG_CAP_BYTES,
        marker: `${marker}/oracle`,
        ...(ctx.randomHex === undefined ? {} : { randomHex: ctx.randomHex }),
      });
      facts.hiddenIntact = graded.hiddenIntact;
      oracle = graded.oracle;
      if (graded.facts !== undefined) facts.oracle = graded.facts;
      if (graded.testsFile !== undefined) artifactPaths.tests = `${artifactsRel}/tests.json`;
    }
    const oracleRun: ExecResult | undefined = oracle?.exec;
    const { outcome, reason } = classify(facts);
    // An oracle that was tampered with (or stopped from starting) is an attack on the grader.
    if (outcome === "invalid" && violations.length === 0) violations.push({ rule: "oracle_tampered", paths: [], detail: reason });
    return {
      ...base,
      outcome,
      reason: note === null ? reason : `${reason} (${note})`,
      agent_exit: agentRun.exitCode,
      agent_signal: agentRun.signal,
      agent_wall_s: round3(agentRun.wallMs / 1000),
      oracle_exit: oracleRun?.exitCode ?? null,
      oracle_wall_s: oracleRun === undefined ? null : round3(oracleRun.wallMs / 1000),
      oracle_integrity: oracle?.integrity ?? null,
      tests: oracle?.tests?.summary ?? null,
      wall_s: round3((performance.now() - started) / 1000),
      usage,
      usage_note: note,
      gateway,
      actor: "agent",
      steers: ctx.agent.kind === "spec" ? (ctx.agent.spec.steers ?? 0) : 0,
      visible,
      diff: {
        files: diff.changes.length,
        lines_added: sum(diff.changes.map((c) => c.lines_added)),
        lines_removed: sum(diff.changes.map((c) => c.lines_removed)),
        bytes: diff.bytes,
      },
      violations,
      limits: agentRun.limits ?? {},
      log_truncated: agentRun.logTruncated || (oracleRun?.logTruncated ?? false),
      stray_processes_killed: agentRun.strayProcessesKilled + (oracleRun?.strayProcessesKilled ?? 0),
      started_at: startedAt.toISOString(),
      ended_at: ctx.clock().toISOString(),
      artifacts: artifactPaths,
    };
  } catch (error) {
    if (error instanceof BenchcardError && error.code === "drift") throw error;
    return {
      ...base,
      outcome: "harness",
      reason: `the harness failed: ${(error as Error).message}`,
      agent_exit: null,
      agent_signal: null,
      agent_wall_s: 0,
      oracle_exit: null,
      oracle_wall_s: null,
      oracle_integrity: null,
      tests: null,
      wall_s: round3((performance.now() - started) / 1000),
      usage: parseUsage(undefined).usage,
      usage_note: null,
      actor: "agent",
      steers: ctx.agent.kind === "spec" ? (ctx.agent.spec.steers ?? 0) : 0,
      visible: null,
      diff: { files: 0, lines_added: 0, lines_removed: 0, bytes: 0 },
      violations: [],
      limits: {},
      log_truncated: false,
      stray_processes_killed: 0,
      started_at: startedAt.toISOString(),
      ended_at: ctx.clock().toISOString(),
      artifacts: artifactPaths,
    };
  } finally {
    // Overlaps the next attempt's work; nothing reads the folder again.
    ctx.discard(scratchRoot);
  }
}

interface AgentPaths {
  workspace: string;
  home: string;
  promptFile: string;
  usageFile: string;
  io: string;
  marker: string;
  artifacts: string;
}

/** Step 4: the built-in agents act in-process; a spec's command (or builtin: chat) runs in the sandbox. */
async function runAgent(ctx: RunContext, task: LoadedTask, paths: AgentPaths): Promise<{ result: ExecResult; gateway: GatewayTotals | null }> {
  const agent = ctx.agent;
  if (agent.kind === "builtin") {
    const started = performance.now();
    if (agent.id === "oracle") {
      if (task.gold === "dir") await layTree(join(task.dir, "solution"), paths.workspace);
      if (task.gold === "patch") await applyPatch(join(task.dir, "solution.patch"), paths.workspace);
    }
    await Promise.all([writeFile(join(paths.artifacts, "agent.out"), ""), writeFile(join(paths.artifacts, "agent.err"), "")]);
    return {
      result: { exitCode: 0, signal: null, timedOut: false, wallMs: performance.now() - started, stdoutBytes: 0, stderrBytes: 0, logTruncated: false, strayProcessesKilled: 0 },
      gateway: null,
    };
  }
  // The workspace as the agent sees it: at its host path, or where the task shows it (a Harbor task's /app).
  const workspaceAt = task.task.sandbox_paths?.workspace;
  const inside = workspaceAt ?? paths.workspace;
  const env = {
    ...cleanEnv(ctx.hostEnv, paths.home),
    ...agent.spec.env,
    BENCHCARD_PROMPT_FILE: paths.promptFile,
    BENCHCARD_WORKSPACE: inside,
    BENCHCARD_USAGE_FILE: paths.usageFile,
    // The envelope's caps reach the agent; a usage report above them is `truncated`.
    ...capEnv(ctx.pack.card.envelope),
    // Visible tests: `benchcard-visible` on the PATH runs them and logs each run.
    ...(task.task.visible_command === undefined
      ? {}
      : {
          PATH: `${join(paths.io, "bin")}:${cleanEnv(ctx.hostEnv, paths.home).PATH}`,
          BENCHCARD_VISIBLE_COMMAND: task.task.visible_command,
          BENCHCARD_VISIBLE_LOG: join(paths.io, "visible.jsonl"),
        }),
  };
  if (task.task.visible_command !== undefined) await installVisibleCommand(join(paths.io, "bin"));
  const specDir = dirname(agent.path);
  const network = effectiveNetwork(ctx.pack.card.envelope.network, agent.spec.network);
  const endpoint = agent.spec.endpoint;
  let argv: string[];
  if (agent.spec.builtin === "chat") {
    const file = join(paths.io, "chat-agent.mjs");
    await copyFile(CHAT_AGENT_FILE, file);
    argv = ["node", file];
    Object.assign(env, { BENCHCARD_CHAT_CONTROLS: JSON.stringify(agent.spec.controls), BENCHCARD_TRANSCRIPT_FILE: join(paths.io, "transcript.jsonl") });
  } else {
    argv = expandCommand(agent.spec.command ?? [], { prompt_file: paths.promptFile, workspace: inside, spec_dir: specDir });
  }
  const net = await openAgentNetwork({
    allow: network.ok ? network.allow : "none",
    endpoint,
    key: endpoint === undefined ? null : endpointKey(endpoint, ctx.hostEnv, agent.path),
    caps: ctx.pack.card.envelope,
    io: paths.io,
    artifacts: paths.artifacts,
  });
  const access = environmentAccess(ctx.driver, packEnvironment(task.dir));
  Object.assign(env, access.env);
  const limits = limitsFromEnvelope(ctx.pack.card.envelope as Record<string, unknown>);
  const driver = ctx.driver instanceof BwrapDriver ? ctx.driver.with({ limits, readOnly: expandMounts(agent.spec.mounts, specDir) }) : ctx.driver;
  let gateway: GatewayTotals | null = null;
  const result = await driver.exec({
    argv: net === null ? argv : [...net.prefix, ...argv],
    workspace: paths.workspace,
    env,
    timeoutMs: ctx.pack.card.envelope.wall_s * 1000,
    stdoutFile: join(paths.artifacts, "agent.out"),
    stderrFile: join(paths.artifacts, "agent.err"),
    maxLogBytes: LOG_CAP_BYTES,
    marker: paths.marker,
    readOnlyFiles: [paths.promptFile],
    writableDirs: [paths.io],
    mounts: access.mounts,
    ...(workspaceAt === undefined ? {} : { workspaceAt }),
    ...(net === null ? {} : { sockets: net.sockets }),
    ...(ctx.signal === undefined ? {} : { signal: ctx.signal }),
  }).finally(async () => {
    if (net !== null) {
      gateway = net.totals();
      await net.close();
    }
  });
  if (result.limits === undefined) {
    result.limits = Object.fromEntries(
      Object.entries(limits).map(([k, v]) => [k, { requested: v as number, applied: `not applied: ${ctx.driver.kind} isolation applies no limits` }]),
    );
  }
  return { result, gateway };
}

/**
 * What of hidden/ the agent may not touch in the workspace: its paths and the folders only it
 * brings; nothing when the task shows hidden/ elsewhere (sandbox_paths.hidden), since then it
 * never enters the workspace.
 */
export function hiddenRules(task: Task, hidden: Readonly<Record<string, unknown>>, baseline: Readonly<Record<string, unknown>>): { hiddenFiles: string[]; hiddenDirs: string[] } {
  const hiddenFiles = task.sandbox_paths?.hidden === undefined ? Object.keys(hidden) : [];
  return { hiddenFiles, hiddenDirs: hiddenOnlyDirs(hiddenFiles, Object.keys(baseline)) };
}

/** Folders that only hidden/ brings: the agent may create nothing inside them. */
export function hiddenOnlyDirs(hiddenFiles: readonly string[], repoFiles: readonly string[]): string[] {
  const repoDirs = new Set(repoFiles.flatMap((p) => ancestors(p)));
  return [...new Set(hiddenFiles.flatMap((p) => ancestors(p)))].filter((d) => !repoDirs.has(d)).sort();
}

function ancestors(path: string): string[] {
  const parts = path.split("/");
  return parts.slice(0, -1).map((_, i) => parts.slice(0, i + 1).join("/"));
}

function sum(xs: readonly number[]): number {
  return xs.reduce((a, b) => a + b, 0);
}

function round3(x: number): number {
  return Math.round(x * 1000) / 1000;
}


/** BENCHCARD_MAX_OUTPUT_TOKENS and BENCHCARD_MAX_STEPS for caps the card sets; none for `unknown`. */
export function capEnv(envelope: { max_output_tokens: number | "unknown"; max_steps: number | "unknown" }): Record<string, string> {
  const env: Record<string, string> = {};
  if (envelope.max_output_tokens !== "unknown") env.BENCHCARD_MAX_OUTPUT_TOKENS = String(envelope.max_output_tokens);
  if (envelope.max_steps !== "unknown") env.BENCHCARD_MAX_STEPS = String(envelope.max_steps);
  return env;
}

/**
 * The row's usage: with a gateway, the metered tokens and model requests win over what the agent
 * says (its tool calls and cost stay as it reported them); without one, the usage file as read.
 */
export function meteredUsage(reported: Usage, hadFile: boolean, gateway: GatewayTotals | null, endpoint: Endpoint | undefined): Usage {
  if (gateway === null || endpoint === undefined) return { ...reported, source: hadFile ? "self_reported" : null };
  return {
    ...reported,
    input_tokens: gateway.input_tokens,
    output_tokens: gateway.output_tokens,
    steps: gateway.requests,
    model: endpoint.model,
    endpoint: endpoint.base_url,
    source: "metered",
  };
}
