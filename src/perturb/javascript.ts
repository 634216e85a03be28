import { parse, type Node } from "acorn";
import { permute } from "./random.js";

/** Names a JavaScript renaming must leave alone: they are also properties of built-in objects. */
const BUILTIN_PROPERTIES = new Set(
  [Object.prototype, Array.prototype, String.prototype, Number.prototype, Function.prototype, Promise.prototype, Map.prototype, Set.prototype, Object, Array, String, Number, Math, JSON, Promise]
    .flatMap((o) => Object.getOwnPropertyNames(o)),
);
const RESERVED = new Set(["default", "test", "it", "describe", "assert", "undefined", "NaN", "Infinity", "globalThis", "require", "module", "exports"]);

type AnyNode = Node & Record<string, unknown>;

function program(text: string, path: string): AnyNode {
  try {
    return parse(text, { ecmaVersion: "latest", sourceType: "module", allowHashBang: true }) as unknown as AnyNode;
  } catch (error) {
    throw new Error(`${path}: ${(error as Error).message}`);
  }
}

function walk(node: unknown, visit: (n: AnyNode, parent: AnyNode | null) => void, parent: AnyNode | null = null): void {
  if (node === null || typeof node !== "object") return;
  if (Array.isArray(node)) {
    for (const child of node) walk(child, visit, parent);
    return;
  }
  const n = node as AnyNode;
  if (typeof n.type !== "string") return;
  visit(n, parent);
  for (const [key, value] of Object.entries(n)) if (key !== "type" && key !== "start" && key !== "end" && key !== "loc") walk(value, visit, n);
}

/** Names declared at the top of a module (functions, classes, variables, their exports). */
export function jsDefinitions(files: Record<string, string>): string[] {
  const found = new Set<string>();
  for (const [path, text] of Object.entries(files)) {
    for (const statement of program(text, path).body as AnyNode[]) {
      const decl = (statement.type === "ExportNamedDeclaration" ? statement.declaration : statement) as AnyNode | null;
      if (decl === null || decl === undefined) continue;
      if ((decl.type === "FunctionDeclaration" || decl.type === "ClassDeclaration") && decl.id !== null) found.add((decl.id as AnyNode).name as string);
      if (decl.type === "VariableDeclaration") for (const d of decl.declarations as AnyNode[]) if ((d.id as AnyNode).type === "Identifier") found.add((d.id as AnyNode).name as string);
    }
  }
  return [...found].filter((n) => !BUILTIN_PROPERTIES.has(n) && !RESERVED.has(n) && !n.startsWith("_")).sort();
}

function edit(text: string, edits: { start: number; end: number; text: string }[]): string {
  let out = text;
  for (const e of [...edits].sort((a, b) => b.start - a.start)) out = out.slice(0, e.start) + e.text + out.slice(e.end);
  return out;
}

/**
 * One file: every identifier (bindings, references, import and export specifiers, member
 * names) whose name is renamed gets the new name; then contiguous top-level imports are
 * shuffled, and top-level test(...) calls reordered, when asked. Positions come from acorn.
 */
export function perturbJs(path: string, text: string, options: { renames: Record<string, string>; imports: boolean; tests: boolean; rng: () => number }): { text: string; notes: string[] } {
  const notes: string[] = [];
  const seen = new Set<number>();
  const renames: { start: number; end: number; text: string }[] = [];
  walk(program(text, path), (n) => {
    if (n.type !== "Identifier") return;
    const next = options.renames[n.name as string];
    if (next === undefined || seen.has(n.start)) return;
    seen.add(n.start);
    renames.push({ start: n.start, end: n.end, text: next });
  });
  let out = edit(text, renames);
  if (renames.length > 0) notes.push(`renamed ${renames.length} name(s)`);
  if (options.imports) {
    const body = program(out, path).body as AnyNode[];
    const runs: AnyNode[][] = [];
    let run: AnyNode[] = [];
    for (const s of body) {
      if (s.type === "ImportDeclaration") run.push(s);
      else {
        if (run.length > 1) runs.push(run);
        run = [];
      }
    }
    if (run.length > 1) runs.push(run);
    const edits = runs.flatMap((r) => {
      const texts = permute(r.map((s) => out.slice(s.start, s.end)), options.rng);
      return r.map((s, i) => ({ start: s.start, end: s.end, text: texts[i]! }));
    });
    if (edits.length > 0) notes.push(`shuffled ${edits.length} import(s)`);
    out = edit(out, edits);
  }
  if (options.tests) {
    const calls = (program(out, path).body as AnyNode[]).filter((s) => {
      const call = s.expression as AnyNode | undefined;
      const callee = call?.callee as AnyNode | undefined;
      return s.type === "ExpressionStatement" && call?.type === "CallExpression" && callee?.type === "Identifier" && ["test", "it", "describe"].includes(callee.name as string);
    });
    if (calls.length > 1) {
      const texts = permute(calls.map((s) => out.slice(s.start, s.end)), options.rng);
      out = edit(out, calls.map((s, i) => ({ start: s.start, end: s.end, text: texts[i]! })));
      notes.push(`reordered ${calls.length} test(s)`);
    }
  }
  program(out, path);
  return { text: out, notes };
}
