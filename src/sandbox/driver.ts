/**
 * The one interface every isolation driver implements. Validation runs oracles through it and
 * the run engine runs agents and oracles through it, so both see the same guarantees.
 */

export type IsolationKind = "process" | "bwrap";

export interface ExecRequest {
  /** Program and arguments; no shell unless argv asks for one. */
  argv: readonly string[];
  /** Absolute path of the workspace: the working directory and the only writable place. */
  workspace: string;
  /** The complete environment of the child; nothing is inherited. */
  env: Readonly<Record<string, string>>;
  timeoutMs: number;
  stdoutFile: string;
  stderrFile: string;
  /** Bytes kept per stream; the rest is drained and counted, not stored. */
  maxLogBytes: number;
  /**
   * Tag of this execution (e.g. "<run-id>/<attempt-id>"): a driver that cannot rely on
   * namespaces uses it to find and kill what the child left behind, even after a harness crash.
   */
  marker?: string;
  /** Read-only files the child may read (the prompt file), shown at the same path inside. */
  readOnlyFiles?: readonly string[];
  /** Extra files or folders the child may write (the usage file's folder). */
  writableDirs?: readonly string[];
  /**
   * Host Unix sockets the child may connect to (the egress proxy, the model gateway), shown at
   * the same path inside; the caller runs the child through the bridge that relays to them.
   */
  sockets?: readonly string[];
  /** Host folders shown read-only at another path inside (the pack's environment/); bwrap only. */
  mounts?: readonly { source: string; target: string }[];
  /** Host folders shown writable at another path inside (a Harbor verifier's /logs); bwrap only. */
  binds?: readonly { source: string; target: string }[];
  /**
   * Where the workspace appears inside, when not at its host path (a Harbor task's /app): the
   * working folder, and where the child's paths to it point; bwrap only.
   */
  workspaceAt?: string;
  /** Ends the child's whole process tree when aborted (Ctrl-C on the harness). */
  signal?: AbortSignal;
}

export interface ExecResult {
  /** Exit status, or null when a signal ended the process. */
  exitCode: number | null;
  signal: NodeJS.Signals | null;
  timedOut: boolean;
  wallMs: number;
  /** Set when the program could not be started at all (missing binary, bad cwd). */
  spawnError?: string;
  stdoutBytes: number;
  stderrBytes: number;
  logTruncated: boolean;
  /** Processes left behind by the child and killed after it ended. */
  strayProcessesKilled: number;
  /** Each requested resource limit and how it was applied, or why not. */
  limits?: Record<string, { requested: number; applied: string }>;
}

export interface SandboxDriver {
  readonly kind: IsolationKind;
  /** Whether the pack and hidden tests are unreadable from inside. */
  readonly hidesPack: boolean;
  exec(request: ExecRequest): Promise<ExecResult>;
}

/** `sh -c` exits 126 (not executable) and 127 (not found): the command never started. */
export function shellCouldNotStart(result: ExecResult): boolean {
  return result.spawnError !== undefined || result.exitCode === 126 || result.exitCode === 127;
}
