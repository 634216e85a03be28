import assert from "node:assert/strict";
import { createHash } from "node:crypto";
import { test } from "node:test";
import { checkHoldoutLog, nextEntry, type HoldoutEntry } from "./holdout-log.js";

const sha256 = (text: string) => createHash("sha256").update(text).digest("hex");

function log(n: number): HoldoutEntry[] {
  const entries: HoldoutEntry[] = [];
  for (let i = 0; i < n; i++) {
    entries.push(nextEntry(entries.at(-1), { time: `2026-11-29T0${i}:00:00.000Z`, run_id: `r${i}`, agent_id: i % 2 ? "b" : "a", agent_fingerprint: `${i % 2}`.repeat(64), harness_version: "0.1.0" }, sha256));
  }
  return entries;
}
const text = (entries: readonly HoldoutEntry[]) => entries.map((e) => `${JSON.stringify(e)}\n`).join("");

test("the holdout log chains each entry to the one before; usage is counted by run and agent", () => {
  const usage = checkHoldoutLog(text(log(3)), sha256);
  assert.equal(usage.chain, "intact");
  assert.equal(usage.runs, 3);
  assert.deepEqual(usage.agents, ["a (000000000000)", "b (111111111111)"]);
});

test("an edited, dropped or reordered past entry breaks the chain", () => {
  const entries = log(3);
  const edited = [{ ...entries[0]!, time: "2020-01-01T00:00:00.000Z" }, ...entries.slice(1)];
  assert.match(checkHoldoutLog(text(edited), sha256).chain, /broken at line 1: the entry was changed/);
  assert.match(checkHoldoutLog(text([entries[0]!, entries[2]!]), sha256).chain, /broken at line 2: it does not follow/);
  assert.match(checkHoldoutLog(text([entries[1]!, entries[0]!, entries[2]!]), sha256).chain, /broken at line 1/);
});
