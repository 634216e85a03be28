import { createHash, randomBytes } from "node:crypto";
import { lstatSync } from "node:fs";
import { chmod, mkdir, readdir, readFile } from "node:fs/promises";
import { cpus, hostname, release, tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { BenchcardError } from "../core/common/errors.js";
import type { Outcome } from "../core/attempt/outcome.js";
import { mapPool } from "../core/common/pool.js";
import { baseAttemptId, finalRows, RETRYABLE, scheduleAttempts, type ScheduledAttempt } from "../core/attempt/schedule.js";
import type { Lock } from "../core/pack/lock.js";
import { inSplit } from "../core/pack/split.js";
import { loadPack, type LoadedPack } from "../pack/load.js";
import { appendHoldoutRun } from "../pack/holdout-log.js";
import { readLock, writeFileAtomic } from "../pack/lockfile.js";
import { verifyPack } from "../pack/verify.js";
import { requireSandboxPaths } from "../pack/validate.js";
import type { SandboxDriver } from "../sandbox/driver.js";
import { killMarked } from "../sandbox/process.js";
import { removeTree } from "../sandbox/tree.js";
import { HARNESS_VERSION } from "../version.js";
import { effectiveNetwork, fingerprintChanges, type FingerprintParts } from "../core/attempt/agent.js";
import { agentFromText, loadAgent, type ResolvedAgent } from "./agent.js";
import { indexLock, runAttempt, signature, type RunContext } from "./attempt.js";
import { readEnvironment, type Environment } from "./environment.js";
import { LedgerWriter, readLedger } from "./ledger.js";
import { locatePack, packRelative } from "./locate-pack.js";
import { preflightAgent } from "./preflight.js";

export const RUN_FILE = "run.json";
export const LEDGER_FILE = "ledger.jsonl";

export interface RunRecord {
  schema: "benchcard.run/1";
  run_id: string;
  harness_version: string;
  host: { hostname: string; platform: string; release: string; arch: string; cpu: string; cpus: number; node: string; fingerprint: string };
  /** The pack's absolute path when the run started, and the same relative to the run folder. */
  pack: string;
  pack_relative?: string;
  pack_hash: string;
  card_hash: string;
  card_name: string;
  card_version: string;
  agent: {
    /** "human" for a run made of human baseline sessions (benchcard session). */
    kind: "builtin" | "spec" | "human";
    id: string;
    fingerprint: string;
    /** What the fingerprint hashed (spec agents), so `--resume` can name what changed. */
    fingerprint_parts: FingerprintParts | null;
    spec_path: string | null;
    spec_text: string | null;
  };
  seed: number;
  replays: number;
  split: "holdout" | "tune" | "all";
  shard: string;
  isolation: "process" | "bwrap";
  scheduled: number;
  /** Tools and versions the run ran with (absent in runs from older versions). */
  environment?: Environment;
  /** For a run made by `benchcard regrade`: the run it regrades and that run's pack. */
  regraded_from?: { run_id: string; pack_hash: string; dir: string };
  /** For a run made by `benchcard merge`: the shards it was made of. */
  merged_from?: { run_id: string; shard: string; dir: string; rows: number; environment_digest: string | null }[];
  started_at: string;
  ended_at: string | null;
}

export interface Progress {
  done: number;
  /** Attempts run by this process (a resumed run starts with some done). */
  doneHere?: number;
  total: number;
  counts: Partial<Record<Outcome, number>>;
  elapsedMs: number;
  last?: { attempt_id: string; outcome: Outcome; wall_s: number };
}

export interface RunOptions {
  pack: string;
  agent: string;
  out: string;
  driver: SandboxDriver;
  jobs: number;
  replays?: number;
  seed?: number;
  split: "holdout" | "tune" | "all";
  shard?: { index: number; count: number };
  runId?: string;
  cwd: string;
  env: NodeJS.ProcessEnv;
  clock: () => Date;
  onProgress?: (progress: Progress) => void;
  /** Ctrl-C: stop scheduling, end the running attempts, keep the ledger as it is (resume completes it). */
  signal?: AbortSignal;
}

export interface RunSummary {
  runDir: string;
  record: RunRecord;
  scheduled: number;
  ran: number;
  skipped: number;
  counts: Partial<Record<Outcome, number>>;
  repairedBytes: number;
  /** Scratch folders that could not be removed (what the agent left was beyond removal). */
  leftovers: string[];
  /** True when a signal stopped the run before every attempt had a row. */
  interrupted: boolean;
}

/** `benchcard run`: verify, plan, then run every scheduled attempt into a new run folder. */
export async function startRun(options: RunOptions): Promise<RunSummary> {
  const packRoot = resolve(options.cwd, options.pack);
  const { pack, lock, snapshot } = await openFrozenPack(packRoot);
  const agent = await loadAgent(options.agent, { cwd: options.cwd, env: options.env, guards: { pack: packRoot, runs: resolve(options.cwd, options.out) } });
  const network = effectiveNetwork(pack.card.envelope.network, agent.kind === "spec" ? agent.spec.network : "none");
  if (!network.ok) throw new BenchcardError("bad_input", `Cannot run agent "${agent.id}": ${network.reason}`);
  if (network.allow !== "none" && options.driver.kind !== "bwrap") {
    throw new BenchcardError("refused", `Cannot run agent "${agent.id}" with a network allowlist under ${options.driver.kind} isolation: only bwrap can hold the rest of the network back`);
  }
  requireSandboxPaths(pack, options.driver);
  await preflightAgent(agent, options.driver, options.env);
  const started = options.clock();
  const runId = options.runId ?? `${started.toISOString().replace(/[-:]/g, "").replace(/\..*/, "")}-${agent.id}-${randomBytes(3).toString("hex")}`;
  if (!/^[A-Za-z0-9][A-Za-z0-9._-]*$/.test(runId)) throw new BenchcardError("bad_input", `Cannot use run id "${runId}": expected letters, digits, ".", "_" or "-"`);
  const runDir = resolve(options.cwd, options.out, runId);
  const existing = await readdir(runDir).catch(() => undefined);
  // A start that died before run.json was written leaves at most a temp file: start again.
  if (existing !== undefined && existing.some((name) => !name.endsWith(".tmp"))) {
    throw new BenchcardError("bad_input", `Cannot start run "${runDir}": the folder exists and is not empty; use \`benchcard run --resume ${runDir}\``);
  }
  if (options.split !== "all" && lock.split === null) {
    throw new BenchcardError("bad_input", `Cannot run split "${options.split}": the pack was frozen without a holdout (freeze --holdout F)`);
  }
  await mkdir(runDir, { recursive: true });
  const shard = options.shard ?? { index: 1, count: 1 };
  const record: RunRecord = {
    schema: "benchcard.run/1",
    run_id: runId,
    harness_version: HARNESS_VERSION,
    host: hostFingerprint(),
    pack: packRoot,
    pack_relative: packRelative(runDir, packRoot),
    pack_hash: lock.pack_hash,
    card_hash: lock.card_hash,
    card_name: lock.card_name,
    card_version: lock.card_version,
    agent: {
      kind: agent.kind,
      id: agent.id,
      fingerprint: agent.fingerprint,
      fingerprint_parts: agent.kind === "spec" ? agent.fingerprintParts : null,
      spec_path: agent.kind === "spec" ? agent.path : null,
      spec_text: agent.kind === "spec" ? agent.text : null,
    },
    seed: options.seed ?? randomBytes(4).readUInt32LE(0) % 2 ** 31,
    replays: options.replays ?? pack.card.controls.replays,
    split: options.split,
    shard: `${shard.index}/${shard.count}`,
    isolation: options.driver.kind,
    scheduled: 0,
    environment: readEnvironment(options.env),
    started_at: started.toISOString(),
    ended_at: null,
  };
  const attempts = planAttempts(lock, record);
  record.scheduled = attempts.length;
  await writeFileAtomic(join(runDir, RUN_FILE), `${JSON.stringify(record, null, 2)}\n`);
  // Every run on the holdout is written down before its first attempt: a holdout used often is no holdout.
  if (record.split === "holdout") {
    await appendHoldoutRun(packRoot, { time: started.toISOString(), run_id: runId, agent_id: agent.id, agent_fingerprint: agent.fingerprint, harness_version: HARNESS_VERSION });
  }
  return execute({ runDir, record, pack, lock, snapshot, agent, attempts, options, repairedBytes: 0 });
}

export interface ResumeOptions {
  runDir: string;
  /** Where the pack is now, when it moved since the run started. */
  pack?: string;
  driver?: SandboxDriver;
  jobs: number;
  cwd: string;
  env: NodeJS.ProcessEnv;
  clock: () => Date;
  onProgress?: (progress: Progress) => void;
  signal?: AbortSignal;
}

/** `benchcard run --resume`: the missing attempts only, with the recorded settings. */
export async function resumeRun(options: ResumeOptions, makeDriver: (kind: RunRecord["isolation"]) => SandboxDriver): Promise<RunSummary> {
  const runDir = resolve(options.cwd, options.runDir);
  const record = await readRunRecord(runDir);
  // Whatever a crashed harness left running under this run is ended before anything else.
  await killMarked(`${record.run_id}/`, { prefix: true });
  await removeTree(workRootFor(runDir));
  const located = await locatePack(runDir, record, options.pack === undefined ? undefined : resolve(options.cwd, options.pack));
  const { pack, lock, snapshot } = await openFrozenPack(located.root);
  if (lock.pack_hash !== record.pack_hash || lock.card_hash !== record.card_hash) {
    throw new BenchcardError("drift", `Cannot resume "${runDir}": the pack's lock is not the one this run started with`);
  }
  const agent: ResolvedAgent =
    record.agent.kind === "human"
      ? (() => {
          throw new BenchcardError("bad_input", `Cannot resume "${runDir}": it is a run of human sessions; use \`benchcard session start\` for the tasks left`);
        })()
      : record.agent.kind === "spec"
      ? await agentFromText(record.agent.spec_text ?? "", record.agent.spec_path ?? "(run.json)", options.env, { pack: located.root, runs: dirname(runDir) })
      : await loadAgent(record.agent.id, { cwd: options.cwd, env: options.env });
  if (agent.fingerprint !== record.agent.fingerprint) {
    const changed =
      agent.kind === "spec" && record.agent.fingerprint_parts !== null ? fingerprintChanges(record.agent.fingerprint_parts, agent.fingerprintParts) : [];
    throw new BenchcardError(
      "drift",
      `Cannot resume "${runDir}": agent "${agent.id}" no longer has the fingerprint the run started with; changed: ${changed.length > 0 ? changed.join(", ") : "its program"}`,
    );
  }
  const driver = options.driver ?? makeDriver(record.isolation);
  if (driver.kind !== record.isolation) {
    throw new BenchcardError("bad_input", `Cannot resume "${runDir}" with isolation "${driver.kind}": the run started with "${record.isolation}"`);
  }
  await preflightAgent(agent, driver, options.env);
  const { rows, repairedBytes } = await readLedger(join(runDir, LEDGER_FILE), { repair: true });
  // An attempt is done when its last row is final: not retryable, or out of retries.
  const maxRetries = pack.card.envelope.max_retries;
  const last = new Map(finalRows(rows).map((r) => [baseAttemptId(r.attempt_id), r]));
  const attempts = planAttempts(lock, record).flatMap((a) => {
    const row = last.get(a.attempt_id);
    if (row === undefined) return [a];
    return RETRYABLE.has(row.outcome) && row.retry < maxRetries ? [{ ...a, firstRetry: row.retry + 1 }] : [];
  });
  const summary = await execute({
    runDir,
    record,
    pack,
    lock,
    snapshot,
    agent,
    attempts,
    options: { ...options, driver },
    repairedBytes,
    already: rows.map((r) => r.outcome),
  });
  return summary;
}

export async function readRunRecord(runDir: string): Promise<RunRecord> {
  const text = await readFile(join(runDir, RUN_FILE), "utf8").catch(() => undefined);
  if (text === undefined) throw new BenchcardError("bad_input", `Cannot use "${runDir}": not a run folder (no ${RUN_FILE})`);
  try {
    const record = JSON.parse(text) as RunRecord;
    if (record.schema !== "benchcard.run/1") throw new Error(`schema is ${JSON.stringify(record.schema)}`);
    return record;
  } catch (error) {
    throw new BenchcardError("bad_input", `Cannot read "${join(runDir, RUN_FILE)}": ${(error as Error).message}`);
  }
}

/** The attempts a run (or one shard of it) schedules, from the lock's tasks and the run's settings. */
export function planAttempts(lock: Lock, record: Pick<RunRecord, "split" | "shard" | "replays" | "seed">): ScheduledAttempt[] {
  const inThis = (id: string) => inSplit(lock.split, record.split, id);
  const [index, count] = record.shard.split("/").map(Number) as [number, number];
  return scheduleAttempts(
    Object.entries(lock.validation.tasks)
      .filter(([id]) => inThis(id))
      .map(([id, t]) => ({ id, stratum: t.stratum })),
    { replays: record.replays, seed: record.seed, shard: { index, count } },
  );
}

/** Loads a frozen pack, verifies it byte for byte, and snapshots stat signatures. */
export async function openFrozenPack(root: string): Promise<{ pack: LoadedPack; lock: Lock; snapshot: Map<string, string> }> {
  const lock = await readLock(root);
  const verified = await verifyPack(root, { lock });
  if (verified.status !== "ok") {
    const list = verified.drift.map((d) => `${d.change} ${d.path}`).join(", ");
    throw new BenchcardError("drift", `Cannot run on "${root}": the pack does not match its lock: ${list}`);
  }
  const pack = await loadPack(root);
  const snapshot = new Map<string, string>();
  for (const path of Object.keys(lock.files)) snapshot.set(path, signature(lstatSync(join(root, path))));
  return { pack, lock, snapshot };
}

interface Execution {
  runDir: string;
  record: RunRecord;
  pack: LoadedPack;
  lock: Lock;
  snapshot: Map<string, string>;
  agent: ResolvedAgent;
  attempts: (ScheduledAttempt & { firstRetry?: number })[];
  options: { driver: SandboxDriver; jobs: number; env: NodeJS.ProcessEnv; clock: () => Date; onProgress?: (p: Progress) => void; signal?: AbortSignal };
  repairedBytes: number;
  already?: Outcome[];
}

/**
 * The scratch root of a run: outside the run folder (whose parents may be private), in the
 * system's temp folder, traversable but not listable, named after the run folder so that
 * `--resume` finds and removes what a killed run left.
 */
export function workRootFor(runDir: string): string {
  return join(tmpdir(), `benchcard-work-${createHash("sha256").update(runDir).digest("hex").slice(0, 16)}`);
}

/**
 * Creates the run's scratch root. Its name in the shared temp folder is predictable, so a folder
 * already there is used only when it is a real folder of ours that nobody else can write:
 * anything else (a link, another user's folder) is refused rather than written through.
 */
async function makeWorkRoot(runDir: string): Promise<string> {
  const root = workRootFor(runDir);
  await mkdir(root, { recursive: true });
  const info = lstatSync(root);
  const uid = process.getuid?.();
  if (!info.isDirectory() || (uid !== undefined && info.uid !== uid)) {
    throw new BenchcardError("refused", `Cannot use scratch folder "${root}": it is not a folder of this user's (a link, or made by someone else); remove it and run again`);
  }
  await chmod(root, 0o711);
  return root;
}

async function execute(run: Execution): Promise<RunSummary> {
  const { runDir, record, options } = run;
  const workRoot = await makeWorkRoot(runDir);
  const pending: Promise<string | null>[] = [];
  const leftovers: string[] = [];
  const ctx: RunContext = {
    runId: record.run_id,
    runDir,
    pack: run.pack,
    lock: run.lock,
    agent: run.agent,
    driver: options.driver,
    seed: record.seed,
    split: record.split,
    shard: record.shard,
    hostEnv: options.env,
    clock: options.clock,
    snapshot: run.snapshot,
    files: indexLock(run.lock),
    workRoot,
    ...(options.signal === undefined ? {} : { signal: options.signal }),
    discard: (dir) => {
      pending.push(removeTree(dir));
    },
  };
  const tasks = new Map(run.pack.tasks.map((t) => [t.task.id, t]));
  const maxRetries = run.pack.card.envelope.max_retries;
  const counts: Partial<Record<Outcome, number>> = {};
  for (const o of run.already ?? []) counts[o] = (counts[o] ?? 0) + 1;
  const ledger = await LedgerWriter.open(join(runDir, LEDGER_FILE));
  const started = performance.now();
  let done = run.already?.length ?? 0;
  try {
    await mapPool(run.attempts, options.jobs, async (attempt) => {
      if (options.signal?.aborted) return;
      const task = tasks.get(attempt.task_id);
      if (task === undefined) throw new Error(`Cannot find task "${attempt.task_id}" in the pack`);
      // Retries (envelope.max_retries) after infra or timeout are rows of their own.
      for (let retry = attempt.firstRetry ?? 0; ; retry++) {
        const row = await runAttempt(ctx, task, attempt, retry);
        // An attempt cut short by Ctrl-C leaves no row: `--resume` runs it again, whole.
        if (options.signal?.aborted) return;
        await ledger.append(row);
        counts[row.outcome] = (counts[row.outcome] ?? 0) + 1;
        done++;
        options.onProgress?.({
          done,
          doneHere: done - (run.already?.length ?? 0),
          total: record.scheduled,
          counts: { ...counts },
          elapsedMs: performance.now() - started,
          last: { attempt_id: row.attempt_id, outcome: row.outcome, wall_s: row.wall_s },
        });
        if (!RETRYABLE.has(row.outcome) || retry >= maxRetries) break;
      }
    });
  } finally {
    await ledger.close();
    for (const result of await Promise.allSettled(pending)) {
      if (result.status === "fulfilled" && result.value !== null) leftovers.push(result.value);
    }
    const rootLeft = await removeTree(workRoot);
    if (rootLeft !== null) leftovers.push(rootLeft);
  }
  const interrupted = options.signal?.aborted === true;
  const finished: RunRecord = interrupted ? record : { ...record, ended_at: options.clock().toISOString() };
  if (!interrupted) await writeFileAtomic(join(runDir, RUN_FILE), `${JSON.stringify(finished, null, 2)}\n`);
  return {
    runDir,
    record: finished,
    scheduled: record.scheduled,
    ran: run.attempts.length,
    skipped: record.scheduled - run.attempts.length,
    counts,
    repairedBytes: run.repairedBytes,
    leftovers,
    interrupted,
  };
}


function hostFingerprint(): RunRecord["host"] {
  const cpu = cpus()[0]?.model ?? "unknown";
  const base = { hostname: hostname(), platform: process.platform, release: release(), arch: process.arch, cpu, cpus: cpus().length, node: process.version };
  return { ...base, fingerprint: createHash("sha256").update(JSON.stringify(base)).digest("hex").slice(0, 16) };
}
