/**
 * Paths a task may show things at inside the sandbox (its workspace at /app, hidden tests at
 * /tests): absolute, plain, and clear of the system, /tmp, /proc, /dev and benchcard's own
 * /benchcard, so nothing the sandbox needs is covered.
 */
const RESERVED_TOP = new Set(["bin", "boot", "dev", "etc", "home", "lib", "lib32", "lib64", "libx32", "media", "mnt", "opt", "proc", "root", "run", "sbin", "srv", "sys", "tmp", "usr", "var", "benchcard"]);

/** Why `path` cannot be a place inside the sandbox, or null when it can. */
export function sandboxPathProblem(path: string): string | null {
  if (!/^(\/[A-Za-z0-9._-]+)+$/.test(path) || path.split("/").some((p) => p === "." || p === "..")) return "expected an absolute path of plain names, such as /app";
  const top = path.split("/")[1]!;
  return RESERVED_TOP.has(top) ? `/${top} is the system's, or benchcard's, inside the sandbox` : null;
}
