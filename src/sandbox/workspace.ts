import { spawn } from "node:child_process";
import { chmod, cp, mkdir, mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { BenchcardError } from "../core/common/errors.js";
import { layTreeSync } from "./lay-tree.js";
import { listTreeSync } from "./tree.js";

/** A fresh scratch folder holding `workspace/` (the agent's tree) and `home/`. */
export interface Scratch {
  root: string;
  workspace: string;
  home: string;
  dispose(): Promise<void>;
}

export async function createScratch(prefix = "benchcard-"): Promise<Scratch> {
  const root = await mkdtemp(join(tmpdir(), prefix));
  // Traversable, not listable: the sandbox user (when the harness is root) must reach workspace/.
  await chmod(root, 0o711);
  const workspace = join(root, "workspace");
  const home = join(root, "home");
  await Promise.all([mkdir(workspace), mkdir(home)]);
  return { root, workspace, home, dispose: () => rm(root, { recursive: true, force: true }) };
}

/** Copies a tree over `dest`, keeping modes and symlinks as they are (see layTreeSync). */
export async function layTree(source: string, dest: string): Promise<void> {
  layTreeSync(source, dest);
}

/** Applies a unified diff (git or plain, -p1) to `dest`; refuses when it does not apply. */
export async function applyPatch(patchFile: string, dest: string): Promise<void> {
  const stderr: Buffer[] = [];
  const code = await new Promise<number | null>((resolve, reject) => {
    const child = spawn("git", ["apply", "--whitespace=nowarn", "--unsafe-paths", patchFile], {
      cwd: dest,
      env: { PATH: process.env.PATH ?? "/usr/bin:/bin", GIT_CEILING_DIRECTORIES: dirname(dest) },
      stdio: ["ignore", "ignore", "pipe"],
    });
    child.stderr.on("data", (chunk: Buffer) => stderr.push(chunk));
    child.once("error", reject);
    child.once("close", resolve);
  });
  if (code !== 0) {
    throw new BenchcardError("bad_input", `Cannot apply gold patch: git apply exited ${code}`, [
      { code: "patch_failed", file: patchFile, path: "", message: Buffer.concat(stderr).toString("utf8").trim() },
    ]);
  }
}

/** The environment every sandboxed child starts from: nothing inherited but PATH and locale. */
export function cleanEnv(host: NodeJS.ProcessEnv, home: string): Record<string, string> {
  return {
    PATH: host.PATH ?? "/usr/local/bin:/usr/bin:/bin",
    HOME: home,
    LANG: "C.UTF-8",
    LC_ALL: "C.UTF-8",
    TMPDIR: home,
    PYTHONDONTWRITEBYTECODE: "1",
    NO_COLOR: "1",
  };
}

/**
 * Applies a patch to a scratch copy of `tree` and writes every file it adds or changes, as it
 * is after the patch, under `dest` (turning a patch into files). Returns what it wrote and the
 * files the patch deletes (which files cannot express). Throws when the patch does not apply.
 */
export async function writePatchedFiles(tree: string, patchFile: string, dest: string): Promise<{ written: string[]; deleted: string[] }> {
  const scratch = await mkdtemp(join(tmpdir(), "benchcard-patched-"));
  try {
    await cp(tree, scratch, { recursive: true, verbatimSymlinks: true });
    await applyPatch(patchFile, scratch);
    const before = new Set(listTreeSync(tree));
    const after = listTreeSync(scratch);
    const written: string[] = [];
    for (const rel of after) {
      const now = await readFile(join(scratch, rel));
      if (before.has(rel) && now.equals(await readFile(join(tree, rel)))) continue;
      await mkdir(dirname(join(dest, rel)), { recursive: true });
      await writeFile(join(dest, rel), now);
      written.push(rel);
    }
    const present = new Set(after);
    return { written, deleted: [...before].filter((p) => !present.has(p)) };
  } finally {
    await rm(scratch, { recursive: true, force: true });
  }
}
