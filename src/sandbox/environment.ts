import { existsSync, lstatSync } from "node:fs";
import { join } from "node:path";
import type { ExecRequest, SandboxDriver } from "./driver.js";

/** Where a pack's environment/ folder appears inside the bwrap sandbox, read-only. */
export const ENV_TARGET = "/benchcard/env";

/** The pack's environment/ folder for a task folder (tasks/<id>), or null when the pack has none. */
export function packEnvironment(taskDir: string): string | null {
  const dir = join(taskDir, "..", "..", "environment");
  return existsSync(dir) && lstatSync(dir).isDirectory() ? dir : null;
}

/**
 * How a child reaches the pack's environment: bwrap shows it read-only at /benchcard/env; the
 * process driver cannot mount, so the variable names the folder on the host. Either way
 * BENCHCARD_ENV says where it is.
 */
export function environmentAccess(driver: SandboxDriver, source: string | null): { env: Record<string, string>; mounts: NonNullable<ExecRequest["mounts"]> } {
  if (source === null) return { env: {}, mounts: [] };
  if (driver.kind === "bwrap") return { env: { BENCHCARD_ENV: ENV_TARGET }, mounts: [{ source, target: ENV_TARGET }] };
  return { env: { BENCHCARD_ENV: source }, mounts: [] };
}
