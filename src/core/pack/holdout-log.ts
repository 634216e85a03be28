import { canonicalJson } from "../attempt/agent.js";

/** sha256 of a string, in hex: passed in (core does no I/O and imports no crypto). */
export type Sha256 = (text: string) => string;

/**
 * The holdout log (benchcard.holdout.jsonl beside the lock): one entry per run on the holdout,
 * each carrying the hash of the one before, so an edited, dropped or reordered past entry breaks
 * the chain. A holdout is a holdout only while it is used rarely; the log says how often, by whom.
 */
export const HOLDOUT_LOG_FILE = "benchcard.holdout.jsonl";
export const GENESIS = "0".repeat(64);

export interface HoldoutEntry {
  time: string;
  run_id: string;
  agent_id: string;
  agent_fingerprint: string;
  harness_version: string;
  prev: string;
  hash: string;
}

export function entryHash(fields: Omit<HoldoutEntry, "hash">, sha256: Sha256): string {
  return sha256(canonicalJson(fields));
}

export function nextEntry(previous: HoldoutEntry | undefined, fields: Omit<HoldoutEntry, "hash" | "prev">, sha256: Sha256): HoldoutEntry {
  const prev = previous?.hash ?? GENESIS;
  return { ...fields, prev, hash: entryHash({ ...fields, prev }, sha256) };
}

export interface HoldoutUsage {
  runs: number;
  agents: string[];
  chain: "intact" | string;
  entries: HoldoutEntry[];
}

/** Reads and checks the chain: each entry's hash is its own, and names the entry before. */
export function checkHoldoutLog(text: string, sha256: Sha256): HoldoutUsage {
  const lines = text.split("\n").filter((l) => l.trim() !== "");
  const entries: HoldoutEntry[] = [];
  let chain: string = "intact";
  let prev = GENESIS;
  for (const [i, line] of lines.entries()) {
    let e: HoldoutEntry;
    try {
      e = JSON.parse(line) as HoldoutEntry;
    } catch {
      chain = `broken at line ${i + 1}: not JSON`;
      break;
    }
    const { hash, ...fields } = e;
    if (e.prev !== prev) {
      chain = `broken at line ${i + 1}: it does not follow the entry before`;
      break;
    }
    if (entryHash(fields, sha256) !== hash) {
      chain = `broken at line ${i + 1}: the entry was changed after it was written`;
      break;
    }
    entries.push(e);
    prev = hash;
  }
  return { runs: lines.length, agents: [...new Set(entries.map((e) => `${e.agent_id} (${e.agent_fingerprint.slice(0, 12)})`))].sort(), chain, entries };
}
