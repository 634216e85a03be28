import { createHash } from "node:crypto";
import { readFile, stat } from "node:fs/promises";
import { delimiter, isAbsolute, join, resolve } from "node:path";
import { AgentSpecSchema, BUILTIN_AGENTS, canonicalJson, type AgentSpec, type BuiltinAgent } from "../core/attempt/agent.js";
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
