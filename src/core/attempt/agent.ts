import { z } from "zod";
import { NetworkSchema, TASK_ID_PATTERN } from "../pack/card.js";
import { EndpointSchema, endpointHostPort } from "../gateway/endpoint.js";

/** An agent spec (any file name): a command template and what to record about it. */
export const AgentSpecSchema = z
  .strictObject({
    id: z.string().regex(TASK_ID_PATTERN, "must match [a-z0-9][a-z0-9._-]*"),
    command: z
      .array(z.string())
      .min(1)
      .optional()
      .describe("argv; {prompt_file}, {workspace} and {spec_dir} expand; no shell unless you ask for one"),
    builtin: z.literal("chat").optional().describe("benchcard's own tool loop instead of a command; needs an endpoint"),
    endpoint: EndpointSchema.optional().describe("a model endpoint the agent reaches only through the harness's gateway"),
    env: z.record(z.string(), z.string()).default({}).describe("extra environment for the agent"),
    controls: z
      .record(z.string(), z.unknown())
      .default({})
      .describe("model, temperature, endpoint, ...: recorded verbatim on every row"),
    network: NetworkSchema.default("none"),
    mounts: z
      .array(z.string().min(1))
      .default([])
      .describe("extra host paths the bwrap sandbox shows read-only; {spec_dir} expands"),
    steers: z
      .number()
      .int()
      .nonnegative()
      .optional()
      .describe("how many times a human steered this agent after the clock started (edits to its prompt, plan or patch); 0 when absent"),
    fingerprint_paths: z
      .array(z.string().min(1))
      .optional()
      .describe("files or folders whose contents identify the agent, hashed instead of the mounts (for mounts too large to hash); {spec_dir} expands"),
  })
  .superRefine((spec, ctx) => {
    if ((spec.command === undefined) === (spec.builtin === undefined)) {
      ctx.addIssue({ code: "custom", path: ["command"], message: "give either command (a program) or builtin: chat, not both or neither" });
    }
    if (spec.builtin === "chat" && spec.endpoint === undefined) ctx.addIssue({ code: "custom", path: ["endpoint"], message: "builtin: chat needs an endpoint" });
    if (spec.endpoint !== undefined) {
      const target = endpointHostPort(spec.endpoint.base_url);
      if (spec.network === "none" || !spec.network.allow.includes(target)) {
        ctx.addIssue({ code: "custom", path: ["network"], message: `the endpoint ${target} must be in network.allow (the gateway reaches it for the agent)` });
      }
      const keyName = spec.endpoint.api_key_env;
      if (keyName !== undefined && Object.keys(spec.env).includes(keyName)) {
        ctx.addIssue({ code: "custom", path: ["env", keyName], message: `env must not set ${keyName}: the spec is published in run.json; the gateway reads the key from the host's environment` });
      }
    }
  })
  .describe("benchcard agent spec");

export type AgentSpec = z.output<typeof AgentSpecSchema>;

export const BUILTIN_AGENTS = ["oracle", "nop"] as const;
export type BuiltinAgent = (typeof BUILTIN_AGENTS)[number];

/** Expands {prompt_file}, {workspace} and {spec_dir} in every argument. */
export function expandCommand(command: readonly string[], values: { prompt_file: string; workspace: string; spec_dir: string }): string[] {
  return command.map((arg) =>
    arg.replaceAll("{prompt_file}", values.prompt_file).replaceAll("{workspace}", values.workspace).replaceAll("{spec_dir}", values.spec_dir),
  );
}

/** A spec's mounts with {spec_dir} expanded. */
export function expandMounts(mounts: readonly string[], specDir: string): string[] {
  return mounts.map((m) => m.replaceAll("{spec_dir}", specDir));
}

/** JSON with sorted keys, so equal specs hash equal whatever their key order. */
export function canonicalJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(",")}]`;
  if (value !== null && typeof value === "object") {
    const entries = Object.entries(value as Record<string, unknown>)
      .filter(([, v]) => v !== undefined)
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${canonicalJson(v)}`).join(",")}}`;
  }
  return JSON.stringify(value);
}

/**
 * The network an agent gets: the spec's request, within what the card's envelope allows. A spec
 * that asks for more than the card allows is refused, never quietly narrowed.
 */
export function effectiveNetwork(
  card: "none" | { allow: string[] },
  spec: "none" | { allow: string[] },
): { ok: true; allow: string[] | "none" } | { ok: false; reason: string } {
  if (spec === "none") return { ok: true, allow: "none" };
  if (card === "none") return { ok: false, reason: `the agent asks for network ${spec.allow.join(", ")} but the card's envelope allows none` };
  const outside = spec.allow.filter((a) => !card.allow.includes(a));
  if (outside.length > 0) return { ok: false, reason: `the agent asks for ${outside.join(", ")}, which the card's envelope does not allow` };
  return { ok: true, allow: [...spec.allow] };
}

/**
 * Mounts that would show an agent what it must not see: the whole file system, the pack (its
 * hidden tests and gold), the run folder (earlier rows and artifacts), benchcard's own files, or
 * any folder above one of them; and, for the pack and the run, any folder inside. Paths are absolute and already resolved (links followed) by the
 * caller. Returns one reason per refused mount.
 */
export function refusedMounts(mounts: readonly string[], guarded: readonly { path: string; what: string; secretInside: boolean }[]): string[] {
  const reasons: string[] = [];
  const inside = (child: string, parent: string) => parent === "/" || child === parent || child.startsWith(`${parent.replace(/\/+$/, "")}/`);
  for (const mount of mounts) {
    if (mount === "/") {
      reasons.push(`mount "/" shows the whole host, the pack and every run`);
      continue;
    }
    for (const g of guarded) {
      if (inside(g.path, mount)) {
        reasons.push(`mount "${mount}" ${mount === g.path ? "is" : "holds"} ${g.what} (${g.path})`);
        break;
      }
      if (g.secretInside && inside(mount, g.path)) {
        reasons.push(`mount "${mount}" is inside ${g.what} (${g.path})`);
        break;
      }
    }
  }
  return reasons;
}

/** What an agent's fingerprint is made of, so a change can be named: spec, program, files, trees. */
export interface FingerprintParts {
  spec: string;
  program: { path: string | null; sha256: string | null };
  /** Command arguments that name existing files, by path. */
  files: Record<string, string>;
  /** Mounted folders (or fingerprint_paths), by path: a digest of every file's path, mode and bytes. */
  trees: Record<string, string>;
}

/** The parts that differ between two fingerprints, named for a person. */
export function fingerprintChanges(before: FingerprintParts, after: FingerprintParts): string[] {
  const changes: string[] = [];
  if (before.spec !== after.spec) changes.push("the spec");
  if (before.program.path !== after.program.path || before.program.sha256 !== after.program.sha256) changes.push(`the program ${after.program.path ?? before.program.path ?? "(not found)"}`);
  for (const kind of ["files", "trees"] as const) {
    for (const path of new Set([...Object.keys(before[kind]), ...Object.keys(after[kind])])) {
      if (before[kind][path] !== after[kind][path]) changes.push(`${kind === "files" ? "the file" : "the contents of"} ${path}`);
    }
  }
  return changes;
}
