import assert from "node:assert/strict";
import { lstat, mkdir, readFile, readlink, stat, symlink, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { test } from "node:test";
import { tempDir } from "../testing/helpers.js";
import { layTreeSync } from "./lay-tree.js";

test("lays a tree over another: merges folders, keeps modes and links, never writes through a link", async (t) => {
  const dir = await tempDir(t);
  const src = join(dir, "src");
  const dest = join(dir, "dest");
  const outside = join(dir, "outside");
  await mkdir(join(src, "tests"), { recursive: true });
  await writeFile(join(src, "tests", "test_a.py"), "hidden\n");
  await writeFile(join(src, "run.sh"), "#!/bin/sh\n", { mode: 0o755 });
  await symlink("run.sh", join(src, "link"));
  await mkdir(join(dest, "keep"), { recursive: true });
  await writeFile(join(dest, "keep", "x"), "kept\n");
  await mkdir(outside);
  await symlink(outside, join(dest, "tests")); // a link where a folder goes
  layTreeSync(src, dest);
  assert.equal(await readFile(join(dest, "tests", "test_a.py"), "utf8"), "hidden\n");
  assert.ok((await lstat(join(dest, "tests"))).isDirectory(), "the link was replaced by a real folder");
  await assert.rejects(readFile(join(outside, "test_a.py")), "nothing was written through the link");
  assert.equal((await stat(join(dest, "run.sh"))).mode & 0o777, 0o755);
  assert.equal(await readlink(join(dest, "link")), "run.sh");
  assert.equal(await readFile(join(dest, "keep", "x"), "utf8"), "kept\n");
});
