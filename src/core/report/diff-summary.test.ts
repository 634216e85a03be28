import assert from "node:assert/strict";
import { test } from "node:test";
import { summarizeDiff } from "./diff-summary.js";

test("a big diff is summarized for the viewer: every file counted, binaries noted, the text cut at a line with the reason", () => {
  const big = Array.from({ length: 5000 }, (_, i) => `+line ${i}`).join("\n");
  const patch = `--- a/src/a.py\n+++ b/src/a.py\n@@ -1,2 +1,2 @@\n-old\n+new\n ctx\nBinary files a/img.png and b/img.png differ\n--- /dev/null\n+++ b/big.txt\n@@ -0,0 +1,5000 @@\n${big}\n--- a/gone.py\n+++ /dev/null\n@@ -1 +0,0 @@\n-bye\n`;
  const view = summarizeDiff(patch, 2000);
  assert.deepEqual(view.files, [
    { path: "src/a.py", added: 1, removed: 1, binary: false },
    { path: "img.png", added: 0, removed: 0, binary: true },
    { path: "big.txt", added: 5000, removed: 0, binary: false },
    { path: "gone.py", added: 0, removed: 1, binary: false },
  ]);
  assert.ok(view.text.length <= 2000 && view.text.endsWith("\n"));
  assert.match(view.truncated ?? "", /^showing the first \d+ of \d+ characters; every file is listed above, and the run's diff.patch is complete$/);
  assert.equal(summarizeDiff("--- a/x\n+++ b/x\n@@ -1 +1 @@\n-a\n+b\n", 2000).truncated, null);
});
