import { createHash } from "node:crypto";
import { createReadStream } from "node:fs";
import { lstat, readdir, readlink, readFile } from "node:fs/promises";
import { join } from "node:path";
import { mapPool } from "../core/pool.js";
import { comparePaths, packDigestText, type FileEntry, type FileTable } from "../core/digest.js";

const SKIP_AT_ROOT = new Set(["benchcard.lock", ".git"]);
const SMALL_FILE = 1 << 20;

/** Every file under the pack root (relative, "/"-separated), except the lock and .git. */
export async function listPackFiles(root: string): Promise<string[]> {
  const out: string[] = [];
  async function walk(rel: string): Promise<void> {
    const entries = await readdir(rel === "" ? root : join(root, rel), { withFileTypes: true });
    await Promise.all(
      entries.map(async (entry) => {
        if (rel === "" && SKIP_AT_ROOT.has(entry.name)) return;
        const path = rel === "" ? entry.name : `${rel}/${entry.name}`;
        if (entry.isDirectory()) await walk(path);
        else out.push(path);
      }),
    );
  }
  await walk("");
  return out.sort(comparePaths);
}

/**
 * Hashes one file: small files in one read, large ones streamed. A symlink's content is its
 * target, never what it points to. Anything that is neither file nor link is refused.
 */
export async function hashEntry(root: string, path: string): Promise<FileEntry> {
  const full = join(root, path);
  const info = await lstat(full);
  if (info.isSymbolicLink()) {
    const target = Buffer.from(await readlink(full), "utf8");
    return { kind: "symlink", executable: false, size: target.length, sha256: sha256(target) };
  }
  if (!info.isFile()) throw new Error(`Cannot hash "${full}": not a regular file or symlink`);
  const executable = (info.mode & 0o111) !== 0;
  if (info.size <= SMALL_FILE) {
    const bytes = await readFile(full);
    return { kind: "file", executable, size: bytes.length, sha256: sha256(bytes) };
  }
  const hash = createHash("sha256");
  let size = 0;
  for await (const chunk of createReadStream(full, { highWaterMark: 1 << 20 })) {
    hash.update(chunk as Buffer);
    size += (chunk as Buffer).length;
  }
  return { kind: "file", executable, size, sha256: hash.digest("hex") };
}

/** Hashes every pack file with `jobs` reads in flight. */
export async function hashPack(root: string, options: { jobs?: number } = {}): Promise<FileTable> {
  const paths = await listPackFiles(root);
  const entries = await mapPool(paths, options.jobs ?? 32, (path) => hashEntry(root, path));
  const table: FileTable = {};
  paths.forEach((path, i) => {
    table[path] = entries[i] as FileEntry;
  });
  return table;
}

export function sha256(bytes: Buffer | string): string {
  return createHash("sha256").update(bytes).digest("hex");
}

export function packHash(files: FileTable): string {
  return sha256(packDigestText(files));
}
