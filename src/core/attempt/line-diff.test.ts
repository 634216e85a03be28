import assert from "node:assert/strict";
import { test } from "node:test";
import fc from "fast-check";
import { diffLines, unifiedDiff } from "./line-diff.js";

test("a one-line change is one deletion and one addition, in a unified hunk", () => {
  const d = unifiedDiff("x.py", "a\nb\nc\n", "a\nB\nc\n");
  assert.equal(d.added, 1);
  assert.equal(d.removed, 1);
  assert.equal(d.text, "--- a/x.py\n+++ b/x.py\n@@ -1,3 +1,3 @@\n a\n-b\n+B\n c\n");
});

test("added and deleted files diff against /dev/null", () => {
  assert.equal(unifiedDiff("n.txt", null, "x\ny\n").text, "--- /dev/null\n+++ b/n.txt\n@@ -0,0 +1,2 @@\n+x\n+y\n");
  assert.equal(unifiedDiff("n.txt", "x\n", null).removed, 1);
  assert.equal(unifiedDiff("same", "q\n", "q\n").text, "");
});

test("property: applying the edit script to a gives b, and the script is minimal-ish", () => {
  const lines = fc.array(fc.constantFrom("a", "b", "c", "d"), { maxLength: 30 });
  fc.assert(
    fc.property(lines, lines, (a, b) => {
      const edits = diffLines(a, b);
      assert.deepEqual(edits.filter((e) => e.op !== "add").map((e) => e.line), a);
      assert.deepEqual(edits.filter((e) => e.op !== "del").map((e) => e.line), b);
      const changes = edits.filter((e) => e.op !== "keep").length;
      assert.ok(changes <= a.length + b.length);
    }),
  );
});
