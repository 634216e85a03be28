import { chownSync, existsSync } from "node:fs";
import { dirname } from "node:path";
import { BenchcardError } from "../core/common/errors.js";
import { handOverTree } from "./tree.js";

/** The user agents and oracles run as when the harness itself runs as root. */
export interface SandboxUser {
  uid: number;
  gid: number;
}

/** nobody/nogroup on Debian: owns nothing on the host. */
export const DEFAULT_SANDBOX_ID = 65534;

/**
 * Null when the harness is not root (children then run as the harness's own user). As root:
 * BENCHCARD_SANDBOX_UID and BENCHCARD_SANDBOX_GID, or 65534; root itself is refused.
 */
export function sandboxUser(env: NodeJS.ProcessEnv, harnessUid: number | undefined = process.getuid?.()): SandboxUser | null {
  if (harnessUid !== 0) return null;
  const read = (name: string) => {
    const text = env[name];
    if (text === undefined || text === "") return DEFAULT_SANDBOX_ID;
    const n = Number(text);
    if (!Number.isInteger(n) || n < 1 || n > 2 ** 32 - 2) throw new BenchcardError("bad_input", `Cannot use ${name} "${text}": expected a user or group id above 0 (agents never run as root)`);
    return n;
  };
  return { uid: read("BENCHCARD_SANDBOX_UID"), gid: read("BENCHCARD_SANDBOX_GID") };
}

/** Gives the child's writable places to the sandbox user before it starts. */
export function handOver(
  request: { workspace: string; env: Readonly<Record<string, string>>; writableDirs?: readonly string[]; sockets?: readonly string[]; binds?: readonly { source: string }[] },
  user: SandboxUser,
): void {
  handOverTree(request.workspace, user);
  for (const bind of request.binds ?? []) handOverTree(bind.source, user);
  const home = request.env.HOME;
  if (home !== undefined && home !== request.workspace && existsSync(home)) handOverTree(home, user);
  for (const dir of request.writableDirs ?? []) handOverTree(dir, user);
  for (const socket of request.sockets ?? []) {
    chownSync(dirname(socket), user.uid, user.gid);
    chownSync(socket, user.uid, user.gid);
  }
}
