import { chmodSync, lchownSync, lstatSync, readdirSync, unlinkSync, type Dirent } from "node:fs";
import { rm } from "node:fs/promises";
import { spawn } from "node:child_process";
import { join } from "node:path";

/**
 * Walks over trees an agent controls: names read as bytes (a name that is not UTF-8 is reported,
 * never mangled), no link followed, and caps on entries and depth so that a hostile tree costs
 * bounded time and memory. What the caps cut is reported, not guessed around.
 */

export interface TreeCaps {
  maxEntries: number;
  maxDepth: number;
  /** Open up folders that cannot be read (only for trees benchcard owns, like a workspace). */
  openUp?: boolean;
}

/** Generous for any honest repository; far below what would stall the harness. */
export const WORKSPACE_CAPS: TreeCaps = { maxEntries: 150_000, maxDepth: 64, openUp: true };

export interface TreeListing {
  /** Files and links, relative and "/"-separated, sorted byte-wise. */
  files: string[];
  /** FIFOs, sockets and devices. */
  special: string[];
  /** Entries whose names are not UTF-8 (shown with replacement characters). */
  badNames: string[];
  /** Why the walk stopped early, when it did. */
  limit: string | null;
}

const isUtf8 = (name: Buffer) => Buffer.from(name.toString("utf8"), "utf8").equals(name);

function readdirBytes(dir: string): Dirent<Buffer>[] {
  return readdirSync(Buffer.from(dir), { withFileTypes: true, encoding: "buffer" });
}

/** Lists a tree (see TreeListing). Unreadable folders are made readable when they are ours. */
export function listTree(dir: string, caps: TreeCaps = WORKSPACE_CAPS): TreeListing {
  const listing: TreeListing = { files: [], special: [], badNames: [], limit: null };
  let entries = 0;
  const walk = (rel: string, depth: number): void => {
    if (listing.limit !== null) return;
    const here = rel === "" ? dir : join(dir, rel);
    let children: Dirent<Buffer>[];
    try {
      children = readdirBytes(here);
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code;
      if (code === "ENAMETOOLONG") {
        listing.limit = "paths longer than the system allows";
        return;
      }
      if (code !== "EACCES" || caps.openUp !== true) throw error;
      chmodSync(here, 0o755);
      children = readdirBytes(here);
    }
    for (const entry of children) {
      if (++entries > caps.maxEntries) {
        listing.limit = `more than ${caps.maxEntries} entries`;
        return;
      }
      const name = entry.name.toString("utf8");
      const path = rel === "" ? name : `${rel}/${name}`;
      if (!isUtf8(entry.name)) {
        listing.badNames.push(path);
        continue;
      }
      if (entry.isDirectory()) {
        if (depth + 1 >= caps.maxDepth) {
          listing.limit = `folders nested deeper than ${caps.maxDepth} (at ${path.slice(0, 200)})`;
          return;
        }
        walk(path, depth + 1);
      } else if (entry.isFile() || entry.isSymbolicLink()) listing.files.push(path);
      else listing.special.push(path);
    }
  };
  walk("", 0);
  listing.special.sort();
  listing.badNames.sort();
  listing.files.sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
  return listing;
}

/** Lists every file and symlink under a tree benchcard wrote itself (the pack's own folders). */
export function listTreeSync(dir: string, special: string[] = []): string[] {
  const listing = listTree(dir, { maxEntries: Number.MAX_SAFE_INTEGER, maxDepth: 1_000 });
  special.push(...listing.special, ...listing.badNames);
  special.sort();
  return listing.files;
}

/**
 * After the agent: removes setuid and setgid bits and device files everywhere in the tree,
 * before anything else reads it, and gives folders back to their owner (u+rwx). Works on names
 * as bytes; bounded by the caps.
 */
export function disarmTree(dir: string, caps: TreeCaps = WORKSPACE_CAPS): { setid: number; devices: number; limit: string | null } {
  let setid = 0;
  let devices = 0;
  let entries = 0;
  let limit: string | null = null;
  const walk = (here: Buffer, depth: number): void => {
    let children: Dirent<Buffer>[];
    try {
      children = readdirSync(here, { withFileTypes: true, encoding: "buffer" });
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code;
      if (code === "ENAMETOOLONG") {
        limit = "paths longer than the system allows";
        return;
      }
      if (code !== "EACCES") throw error;
      chmodSync(here, 0o755);
      children = readdirSync(here, { withFileTypes: true, encoding: "buffer" });
    }
    for (const entry of children) {
      if (limit !== null) return;
      if (++entries > caps.maxEntries) {
        limit = `more than ${caps.maxEntries} entries`;
        return;
      }
      const path = Buffer.concat([here, Buffer.from("/"), entry.name]);
      if (entry.isSymbolicLink()) continue;
      if (entry.isBlockDevice() || entry.isCharacterDevice()) {
        unlinkSync(path);
        devices++;
        continue;
      }
      let mode: number;
      try {
        mode = lstatSync(path).mode;
      } catch {
        limit = "paths longer than the system allows";
        return;
      }
      if ((mode & 0o6000) !== 0) {
        chmodSync(path, mode & 0o1777);
        setid++;
      }
      // A folder its owner cannot enter would stop the oracle (which runs as that owner).
      if (entry.isDirectory() && (mode & 0o700) !== 0o700) chmodSync(path, (mode & 0o1777) | 0o700);
      if (entry.isDirectory()) {
        if (depth + 1 >= caps.maxDepth) {
          limit = `folders nested deeper than ${caps.maxDepth}`;
          return;
        }
        walk(path, depth + 1);
      }
    }
  };
  const top = lstatSync(dir).mode;
  if ((top & 0o700) !== 0o700) chmodSync(dir, (top & 0o1777) | 0o700);
  walk(Buffer.from(dir), 0);
  return { setid, devices, limit };
}

/** Gives a tree to the sandbox's user (lchown, links not followed), within the caps. */
export function handOverTree(dir: string, user: { uid: number; gid: number }, caps: TreeCaps = WORKSPACE_CAPS): void {
  let entries = 0;
  const own = (path: Buffer) => {
    try {
      lchownSync(path, user.uid, user.gid);
    } catch {
      // Beyond PATH_MAX or gone: the sandbox user cannot reach it either.
    }
  };
  const walk = (here: Buffer, depth: number): void => {
    own(here);
    if (depth >= caps.maxDepth) return;
    let children: Dirent<Buffer>[];
    try {
      children = readdirSync(here, { withFileTypes: true, encoding: "buffer" });
    } catch {
      return;
    }
    for (const entry of children) {
      if (++entries > caps.maxEntries) return;
      const path = Buffer.concat([here, Buffer.from("/"), entry.name]);
      if (entry.isDirectory()) walk(path, depth + 1);
      else own(path);
    }
  };
  walk(Buffer.from(dir), 0);
}

/**
 * Removes a tree an agent may have made hostile (names that are not UTF-8, chains deeper than
 * PATH_MAX, folders without permissions): GNU rm walks with file descriptors, so path length
 * does not matter; a folder it could not enter is opened up and tried once more. Never throws:
 * what could not be removed is returned as a message.
 */
export async function removeTree(dir: string): Promise<string | null> {
  if (await rm(dir, { recursive: true, force: true }).then(() => true, () => false)) return null;
  const run = (argv: string[]) =>
    new Promise<number | null>((resolve) => {
      const child = spawn(argv[0]!, argv.slice(1), { stdio: "ignore" });
      child.once("error", () => resolve(null));
      child.once("close", resolve);
    });
  if ((await run(["rm", "-rf", "--one-file-system", "--", dir])) === 0) return null;
  await run(["chmod", "-R", "u+rwx", "--", dir]);
  if ((await run(["rm", "-rf", "--one-file-system", "--", dir])) === 0) return null;
  return `could not remove ${dir}`;
}
