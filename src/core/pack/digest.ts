/** One file of a pack as the lock records it. Mtimes are not content; the executable bit is. */
export interface FileEntry {
  kind: "file" | "symlink";
  executable: boolean;
  size: number;
  sha256: string;
}
export type FileTable = Record<string, FileEntry>;

/** The canonical text a pack hash is taken over: one line per file, sorted by path. */
export function packDigestText(files: FileTable): string {
  return Object.keys(files)
    .sort(comparePaths)
    .map((path) => {
      const f = files[path] as FileEntry;
      return `${f.sha256} ${f.kind === "symlink" ? "l" : f.executable ? "x" : "-"} ${path}\n`;
    })
    .join("");
}

/** Byte-wise order, the same on every machine and locale. */
export function comparePaths(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

export type FileRole = "card" | "lock" | "denylist" | "task_file" | "prompt" | "repo" | "hidden" | "gold" | "other";

/** What a pack path is, so drift can say "hidden test" or "gold" instead of a bare path. */
export function fileRole(path: string, denylist?: string): FileRole {
  if (path === "benchcard.yaml") return "card";
  if (path === "benchcard.lock") return "lock";
  if (denylist !== undefined && path === denylist) return "denylist";
  const parts = path.split("/");
  if (parts[0] !== "tasks" || parts.length < 3) return "other";
  const inTask = parts.slice(2);
  const head = inTask[0];
  if (inTask.length === 1 && head === "task.yaml") return "task_file";
  if (inTask.length === 1 && head === "prompt.md") return "prompt";
  if (head === "repo") return "repo";
  if (head === "hidden") return "hidden";
  if (head === "solution" || (inTask.length === 1 && head === "solution.patch")) return "gold";
  return "other";
}

export interface DriftEntry {
  path: string;
  change: "added" | "removed" | "changed";
  role: FileRole;
}

/** Every difference between the locked table and the table on disk, sorted by path. */
export function diffFiles(locked: FileTable, current: FileTable, denylist?: string): DriftEntry[] {
  const paths = [...new Set([...Object.keys(locked), ...Object.keys(current)])].sort(comparePaths);
  const drift: DriftEntry[] = [];
  for (const path of paths) {
    const before = locked[path];
    const after = current[path];
    const role = fileRole(path, denylist);
    if (before === undefined) drift.push({ path, change: "added", role });
    else if (after === undefined) drift.push({ path, change: "removed", role });
    else if (before.sha256 !== after.sha256 || before.kind !== after.kind || before.executable !== after.executable) {
      drift.push({ path, change: "changed", role });
    }
  }
  return drift;
}
