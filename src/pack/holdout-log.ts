import { createHash } from "node:crypto";
import { open, readFile } from "node:fs/promises";
import { join } from "node:path";
import { checkHoldoutLog, HOLDOUT_LOG_FILE, nextEntry, type HoldoutEntry, type HoldoutUsage } from "../core/pack/holdout-log.js";

const sha256 = (text: string) => createHash("sha256").update(text).digest("hex");

export async function readHoldoutLog(packRoot: string): Promise<HoldoutUsage> {
  const text = await readFile(join(packRoot, HOLDOUT_LOG_FILE), "utf8").catch((error: NodeJS.ErrnoException) => {
    if (error.code === "ENOENT") return "";
    throw error;
  });
  return checkHoldoutLog(text, sha256);
}

/** Appends one run to the pack's holdout log (flushed to disk before the run goes on). */
export async function appendHoldoutRun(packRoot: string, fields: Omit<HoldoutEntry, "hash" | "prev">): Promise<HoldoutEntry> {
  const usage = await readHoldoutLog(packRoot);
  const entry = nextEntry(usage.entries.at(-1), fields, sha256);
  const handle = await open(join(packRoot, HOLDOUT_LOG_FILE), "a");
  try {
    await handle.write(`${JSON.stringify(entry)}\n`);
    await handle.sync();
  } finally {
    await handle.close();
  }
  return entry;
}
