import { createHash } from "node:crypto";
import { readFile, stat } from "node:fs/promises";
import { delimiter, isAbsolute, join, resolve } from "node:path";
import { realpathSync } from "node:fs";
import { dirname as pathDirname } from "node:path";
import { fileURLToPath } from "node:url";
import { AgentSpecSchema, BUILTIN_AGENTS, canonicalJson, expandMounts, refusedMounts, type AgentSpec, type BuiltinAgent } from "../core/attempt/agent.js";
import { BenchcardError } from "../core/common/errors.js";
import { parseYamlAs } from "../core/common/yaml-source.js";

export type ResolvedAgent =
  | { kind: "builtin"; id: BuiltinAgent; fingerprint: string; controls: Record<string, unknown> }
  | {
      kind: "spec";
      id: string;
      fingerprint: string;
      controls: Record<string, unknown>;
      spec: AgentSpec;
      /** The spec file's text, verbatim, as run.json records it. */
      text: string;
      path: string;
      /** The absolute program command[0] resolved to on PATH, or null when not found. */
      program: string | null;
    };

/** `oracle`, `nop`, or a path to a spec file. */
export async function loadAgent(ref: string, options: { cwd: string; env: NodeJS.ProcessEnv }): Promise<ResolvedAgent> {
  if ((BUILTIN_AGENTS as readonly string[]).includes(ref)) {
    const id = ref as BuiltinAgent;
    return { kind: "builtin", id, controls: { builtin: id }, fingerprint: sha256(canonicalJson({ builtin: id })) };
  }
  const path = resolve(options.cwd, ref);
  const text = await readFile(path, "utf8").catch(() => {
    throw new BenchcardError("bad_input", `Cannot load agent "${ref}": expected "oracle", "nop" or a spec file, and ${path} cannot be read`);
  });
  return agentFromText(text, path, options.env);
}

/** Parses a spec (from its file, or from run.json on resume) and fingerprints it. */
export async function agentFromText(text: string, path: string, env: NodeJS.ProcessEnv): Promise<ResolvedAgent> {
  const parsed = parseYamlAs(AgentSpecSchema, text, path);
  if (!parsed.ok) throw new BenchcardError("bad_input", `Cannot load agent spec "${path}": ${parsed.issues.length} problem(s)`, parsed.issues);
  const spec = parsed.value;
  const program = await which(spec.command[0] as string, env.PATH ?? "");
  const programHash = program === null ? null : await fileHash(program);
  return {
    kind: "spec",
    id: spec.id,
    spec,
    text,
    path,
    program,
    controls: spec.controls,
    fingerprint: sha256(canonicalJson({ spec, program, program_sha256: programHash })),
  };
}

async function which(command: string, searchPath: string): Promise<string | null> {
  const candidates = isAbsolute(command) || command.includes("/") ? [resolve(command)] : searchPath.split(delimiter).filter(Boolean).map((d) => join(d, command));
  for (const candidate of candidates) {
    const info = await stat(candidate).catch(() => undefined);
    if (info?.isFile() && (info.mode & 0o111) !== 0) return candidate;
  }
  return null;
}

/** The program's own bytes, so a changed agent binary is a changed fingerprint. */
async function fileHash(path: string): Promise<string | null> {
  const info = await stat(path).catch(() => undefined);
  if (info === undefined || info.size > 256 * 1024 * 1024) return null;
  return sha256(await readFile(path));
}

function sha256(data: string | Buffer): string {
  return createHash("sha256").update(data).digest("hex");
}

/** benchcard's own installed files (dist/, examples/ with the example pack's gold). */
const HARNESS_ROOT = fileURLToPath(new URL("../../", import.meta.url));

/**
 * Refuses (bad input, exit 4) an agent whose mounts would unhide the pack, the run folder or
 * benchcard's own files. Links are resolved first, so a mount cannot reach them by another name.
 */
export function checkAgentMounts(agent: ResolvedAgent, guards: { pack: string; runDir: string }): void {
  if (agent.kind !== "spec") return;
  const real = (path: string) => {
    try {
      return realpathSync(path);
    } catch {
      return path;
    }
  };
  const mounts = expandMounts(agent.spec.mounts, pathDirname(agent.path)).map((m) => real(resolve(pathDirname(agent.path), m)));
  const reasons = refusedMounts(mounts, [
    { path: real(guards.pack), what: "the pack (its hidden tests and gold)", secretInside: true },
    { path: realBelow(guards.runDir), what: "the run folder (its ledger and artifacts)", secretInside: true },
    { path: real(HARNESS_ROOT).replace(/\/$/, ""), what: "benchcard's own files", secretInside: false },
  ]);
  if (reasons.length > 0) {
    throw new BenchcardError(
      "bad_input",
      `Cannot run agent "${agent.id}": its mounts would show it what it must not see: ${reasons.join("; ")}. Keep an agent's files in a folder of their own, apart from packs and runs`,
      reasons.map((message) => ({ code: "unsafe_mount", file: agent.path, path: "mounts", message })),
    );
  }
}

/** The real path of a folder that may not exist yet: its nearest existing ancestor, resolved, plus the rest. */
function realBelow(path: string): string {
  let head = path;
  const tail: string[] = [];
  for (;;) {
    try {
      return join(realpathSync(head), ...tail.reverse());
    } catch {
      const parent = pathDirname(head);
      if (parent === head) return path;
      tail.push(head.slice(parent.length + 1));
      head = parent;
    }
  }
}
