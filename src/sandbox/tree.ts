import { readdirSync } from "node:fs";
import { join } from "node:path";

/**
 * Lists every file and symlink under `dir`, relative and "/"-separated, sorted byte-wise, with
 * blocking reads (one readdir per folder); anything else (FIFO, socket, device) goes to `special`.
 */
export function listTreeSync(dir: string, special: string[] = []): string[] {
  const out: string[] = [];
  const walk = (rel: string): void => {
    for (const entry of readdirSync(rel === "" ? dir : join(dir, rel), { withFileTypes: true })) {
      const path = rel === "" ? entry.name : `${rel}/${entry.name}`;
      if (entry.isDirectory()) walk(path);
      else if (entry.isFile() || entry.isSymbolicLink()) out.push(path);
      else special.push(path);
    }
  };
  walk("");
  special.sort();
  return out.sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
}
