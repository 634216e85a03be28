import { spawnSync } from "node:child_process";
import { createHash } from "node:crypto";
import { release, platform, arch } from "node:os";
import { canonicalJson } from "../core/attempt/agent.js";

/**
 * The environment a run's oracles and agents ran in, as evidence: the host's OS, kernel and
 * architecture, benchcard's node, and the versions of the tools the sandbox shows (bwrap, and
 * the python, pytest and node the oracles call), with a digest of all of it. Two runs compare
 * only when their digests agree (or the user says they may differ, and the sentence says so).
 */
export interface Environment {
  os: string;
  kernel: string;
  arch: string;
  harness_node: string;
  bwrap: string;
  python: string;
  pytest: string;
  node: string;
  digest: string;
}

function version(argv: readonly string[], env: NodeJS.ProcessEnv): string {
  const r = spawnSync(argv[0]!, argv.slice(1), { env: { PATH: env.PATH ?? "/usr/bin:/bin" }, encoding: "utf8", timeout: 10_000 });
  if (r.error !== undefined || r.status !== 0) return "not found";
  return `${r.stdout}${r.stderr}`.trim().split("\n")[0]!.slice(0, 200);
}

export function readEnvironment(env: NodeJS.ProcessEnv): Environment {
  const parts = {
    os: `${platform()} ${osRelease()}`,
    kernel: release(),
    arch: arch(),
    harness_node: process.version,
    bwrap: version(["bwrap", "--version"], env),
    python: version(["python3", "--version"], env),
    pytest: version(["python3", "-m", "pytest", "--version"], env),
    node: version(["node", "--version"], env),
  };
  return { ...parts, digest: environmentDigest(parts) };
}

export function environmentDigest(parts: Omit<Environment, "digest">): string {
  return createHash("sha256").update(canonicalJson(parts)).digest("hex");
}

function osRelease(): string {
  const r = spawnSync("sh", ["-c", ". /etc/os-release 2>/dev/null && echo \"$PRETTY_NAME\""], { encoding: "utf8", timeout: 5_000 });
  return (r.stdout ?? "").trim() || "unknown";
}
