import assert from "node:assert/strict";
import { test } from "node:test";
import { diffFiles, fileRole, packDigestText, type FileEntry } from "./digest.js";

const entry = (sha: string, extra: Partial<FileEntry> = {}): FileEntry => ({
  kind: "file",
  executable: false,
  size: 1,
  sha256: sha.repeat(64).slice(0, 64),
  ...extra,
});

test("roles name hidden tests, gold, card and prompts", () => {
  assert.equal(fileRole("benchcard.yaml"), "card");
  assert.equal(fileRole("tasks/a/hidden/test_x.py"), "hidden");
  assert.equal(fileRole("tasks/a/solution/x.py"), "gold");
  assert.equal(fileRole("tasks/a/solution.patch"), "gold");
  assert.equal(fileRole("tasks/a/prompt.md"), "prompt");
  assert.equal(fileRole("tasks/a/task.yaml"), "task_file");
  assert.equal(fileRole("tasks/a/repo/src/prompt.md"), "repo");
  assert.equal(fileRole("denylist.txt", "denylist.txt"), "denylist");
});

test("drift lists added, removed and changed files, and a flipped executable bit", () => {
  const locked = { a: entry("1"), b: entry("2"), c: entry("3") };
  const current = { a: entry("1"), c: entry("3", { executable: true }), d: entry("4") };
  assert.deepEqual(diffFiles(locked, current), [
    { path: "b", change: "removed", role: "other" },
    { path: "c", change: "changed", role: "other" },
    { path: "d", change: "added", role: "other" },
  ]);
});

test("the digest text is sorted and marks links and executables", () => {
  const text = packDigestText({ b: entry("2", { kind: "symlink" }), a: entry("1", { executable: true }) });
  assert.equal(text.split("\n")[0]?.endsWith(" x a"), true);
  assert.equal(text.split("\n")[1]?.endsWith(" l b"), true);
});
