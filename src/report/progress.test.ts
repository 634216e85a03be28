import assert from "node:assert/strict";
import { test } from "node:test";
import { attemptLine, progressLine } from "./progress.js";

test("the ETA comes from the attempts this process ran, so a resumed run is not told it is nearly done", () => {
  // 10 of 20 were in the ledger already; this process ran 2 in 60 s: 8 left at 30 s each.
  const line = progressLine({ done: 12, doneHere: 2, total: 20, counts: { pass: 12 }, elapsedMs: 60_000 });
  assert.match(line, /\[12\/20\] pass 12 .* elapsed 1m00s {2}eta 4m00s/);
  const naive = progressLine({ done: 12, total: 20, counts: { pass: 12 }, elapsedMs: 60_000 });
  assert.match(naive, /eta 40s/, "without doneHere every done attempt counts");
});

test("plain lines for logs carry no escape codes", () => {
  const line = attemptLine({ done: 1, total: 2, counts: { fail: 1 }, elapsedMs: 1000, last: { attempt_id: "t#0", outcome: "fail", wall_s: 1.25 } });
  assert.equal(line, "[1/2] t#0 fail (1.25s)");
  assert.doesNotMatch(line, /\u001b/);
});
