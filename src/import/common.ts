import { spawnSync } from "node:child_process";
import { freezePack, type FreezeResult } from "../pack/freeze.js";
import type { SandboxDriver } from "../sandbox/driver.js";

/** What every importer needs to validate and freeze the pack it wrote. */
export interface ImportRunOptions {
  driver: SandboxDriver;
  jobs: number;
  repeats?: number;
  env: NodeJS.ProcessEnv;
  cwd: string;
  onTask?: (done: number, total: number) => void;
}

export interface ImportResult {
  out: string;
  pack_hash: string;
  imported: Record<string, string[]>;
  /** Exercise, instance or task -> why it is not in the pack (refused before validation, or controls not green). */
  left_out: Record<string, string>;
}

/** The commit a source folder is checked out at, or null when it is not a git checkout. */
export function sourceCommit(dir: string): string | null {
  const r = spawnSync("git", ["-C", dir, "rev-parse", "HEAD"], { encoding: "utf8" });
  return r.status === 0 ? r.stdout.trim() : null;
}

/**
 * Validates and freezes an imported pack: a task whose controls are not green is removed and
 * added to `leftOut` with the reason (under the source's own name, `nameOf`), and the lock
 * records the importer, the source and everything left out.
 */
export async function freezeImport(
  out: string,
  options: ImportRunOptions,
  o: { total: number; importer: string; source: string; sourceCommit: string | null; leftOut: Record<string, string>; nameOf?: (taskId: string) => string },
): Promise<FreezeResult> {
  let done = 0;
  return freezePack(out, {
    driver: options.driver,
    jobs: options.jobs,
    env: options.env,
    ...(options.repeats === undefined ? {} : { repeats: options.repeats }),
    onTask: () => options.onTask?.(++done, o.total),
    dropRed: (id, reason) => {
      o.leftOut[o.nameOf?.(id) ?? id] = `controls not green: ${reason}`;
    },
    importedFrom: { importer: o.importer, source: o.source, source_commit: o.sourceCommit, left_out: o.leftOut },
  });
}
