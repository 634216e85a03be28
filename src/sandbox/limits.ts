import { mkdir, readFile, rmdir, writeFile } from "node:fs/promises";
import { join } from "node:path";

/** Per-attempt resource limits from the card's envelope; "unknown" or absent means none asked. */
export interface Limits {
  memory_mb?: number;
  max_procs?: number;
  cpu_s?: number;
  max_file_mb?: number;
}

/** What became of each requested limit: how it was applied, or why it was not. */
export type LimitReport = Record<string, { requested: number; applied: string }>;

export function limitsFromEnvelope(envelope: Record<string, unknown>): Limits {
  const out: Limits = {};
  for (const key of ["memory_mb", "max_procs", "cpu_s", "max_file_mb"] as const) {
    const v = envelope[key];
    if (typeof v === "number") out[key] = v;
  }
  return out;
}

const CGROUP_V1 = "/sys/fs/cgroup";

/**
 * A cgroup v1 group under memory/ and pids/ for one execution, when the hierarchy is writable.
 * `enter` is a shell prefix that moves the child into the group before it execs anything.
 */
export interface CgroupHandle {
  dirs: string[];
  enter: string;
  report: LimitReport;
  dispose(): Promise<void>;
}

export async function createCgroup(name: string, limits: Limits): Promise<CgroupHandle> {
  const report: LimitReport = {};
  const dirs: string[] = [];
  const wanted: [string, string, string, number | undefined, (v: number) => string][] = [
    ["memory_mb", "memory", "memory.limit_in_bytes", limits.memory_mb, (v) => String(v * 1024 * 1024)],
    ["max_procs", "pids", "pids.max", limits.max_procs, (v) => String(v)],
  ];
  for (const [key, controller, file, value, encode] of wanted) {
    if (value === undefined) continue;
    const dir = join(CGROUP_V1, controller, "benchcard", name);
    try {
      await mkdir(dir, { recursive: true });
      await writeFile(join(dir, file), encode(value));
      if (controller === "memory") await writeFile(join(dir, "memory.memsw.limit_in_bytes"), encode(value)).catch(() => undefined);
      dirs.push(dir);
      report[key] = { requested: value, applied: `cgroup v1 ${controller}` };
    } catch (error) {
      report[key] = { requested: value, applied: `not applied: cgroup v1 ${controller} not writable (${(error as NodeJS.ErrnoException).code ?? "error"})` };
    }
  }
  const enter = dirs.map((d) => `echo $$ > ${d}/cgroup.procs`).join(" && ");
  return {
    dirs,
    enter,
    report,
    async dispose() {
      for (const dir of dirs) {
        const procs = (await readFile(join(dir, "cgroup.procs"), "utf8").catch(() => "")).split("\n").filter(Boolean);
        for (const pid of procs) {
          try {
            process.kill(Number(pid), "SIGKILL");
          } catch {
            // gone
          }
        }
        // The group empties as the kernel reaps its last tasks: retry briefly, then leave it.
        for (let i = 0; i < 500; i++) {
          if (await rmdir(dir).then(() => true, () => false)) break;
          await new Promise((r) => setTimeout(r, 2));
        }
      }
    },
  };
}

/** prlimit arguments for the rlimits (CPU seconds, largest file), applied to the child only. */
export function rlimitArgs(limits: Limits, report: LimitReport, prlimitAvailable: boolean): string[] {
  const args: string[] = [];
  const add = (key: "cpu_s" | "max_file_mb", flag: string, value: number | undefined, encode: (v: number) => number) => {
    if (value === undefined) return;
    if (!prlimitAvailable) {
      report[key] = { requested: value, applied: "not applied: prlimit (util-linux) is missing" };
      return;
    }
    args.push(`--${flag}=${encode(value)}`);
    report[key] = { requested: value, applied: `rlimit ${flag}` };
  };
  add("cpu_s", "cpu", limits.cpu_s, (v) => v);
  add("max_file_mb", "fsize", limits.max_file_mb, (v) => v * 1024 * 1024);
  return args;
}
