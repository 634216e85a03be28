import { open } from "node:fs/promises";
import { join } from "node:path";
import type { Row } from "../core/attempt/ledger-row.js";
import { summarizeDiff, type DiffView } from "../core/report/diff-summary.js";

/** What the viewer embeds per attempt, so a shared HTML file keeps its evidence. */
export interface AttemptDetail {
  key: string;
  diff: DiffView | null;
  logs: { name: string; text: string; truncated: string | null }[];
  tests: unknown;
  violations: Row["violations"];
  usage: Row["usage"];
  gateway: Row["gateway"] | null;
}

/** Caps per attempt: the diff's start, each log's end, the per-test file. */
export const DETAIL_CAPS = { diffChars: 24 * 1024, diffRead: 4 * 1024 * 1024, logBytes: 6 * 1024, testsBytes: 32 * 1024 } as const;

export const attemptKey = (taskId: string, replay: number) => `${taskId}#${replay}`;

async function readHead(path: string, bytes: number): Promise<{ text: string; size: number } | null> {
  try {
    const handle = await open(path, "r");
    try {
      const size = (await handle.stat()).size;
      const buffer = Buffer.alloc(Math.min(size, bytes));
      await handle.read(buffer, 0, buffer.length, 0);
      return { text: buffer.toString("utf8"), size };
    } finally {
      await handle.close();
    }
  } catch {
    return null;
  }
}

async function readTail(path: string, bytes: number): Promise<{ text: string; size: number } | null> {
  try {
    const handle = await open(path, "r");
    try {
      const size = (await handle.stat()).size;
      const length = Math.min(size, bytes);
      const buffer = Buffer.alloc(length);
      await handle.read(buffer, 0, length, size - length);
      return { text: buffer.toString("utf8"), size };
    } finally {
      await handle.close();
    }
  } catch {
    return null;
  }
}

/** Reads each scored row's artifacts, capped, for the HTML viewer. */
export async function loadAttemptDetails(runDir: string, rows: readonly Row[]): Promise<Map<string, AttemptDetail>> {
  const details = new Map<string, AttemptDetail>();
  for (const row of rows) {
    const a = row.artifacts;
    const diff = a.diff === undefined ? null : await readHead(join(runDir, a.diff), DETAIL_CAPS.diffRead);
    const logs: AttemptDetail["logs"] = [];
    for (const [name, path] of [["agent stdout", a.agent_stdout], ["agent stderr", a.agent_stderr], ["oracle stdout", a.oracle_stdout], ["oracle stderr", a.oracle_stderr]] as const) {
      if (path === undefined) continue;
      const log = await readTail(join(runDir, path), DETAIL_CAPS.logBytes);
      if (log === null) continue;
      logs.push({ name, text: log.text, truncated: log.size > DETAIL_CAPS.logBytes ? `the last ${DETAIL_CAPS.logBytes} of ${log.size} bytes` : null });
    }
    let tests: unknown = null;
    if (a.tests !== undefined) {
      const t = await readHead(join(runDir, a.tests), DETAIL_CAPS.testsBytes);
      try {
        tests = t === null ? null : JSON.parse(t.text);
      } catch {
        tests = t === null ? null : { note: `tests.json is larger than ${DETAIL_CAPS.testsBytes} bytes; see the run folder` };
      }
    }
    details.set(attemptKey(row.task_id, row.replay), {
      key: attemptKey(row.task_id, row.replay),
      diff: diff === null ? null : { ...summarizeDiff(diff.text, DETAIL_CAPS.diffChars), ...(diff.size > DETAIL_CAPS.diffRead ? { truncated: `the patch is ${diff.size} bytes; the first ${DETAIL_CAPS.diffRead} were read for this summary` } : {}) },
      logs,
      tests,
      violations: row.violations,
      usage: row.usage,
      gateway: row.gateway ?? null,
    });
  }
  return details;
}
