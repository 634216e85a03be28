import assert from "node:assert/strict";
import { createHash } from "node:crypto";
import { mkdir, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { test } from "node:test";
import { tempDir } from "../testing/helpers.js";
import { hashPack, listPackFiles } from "./hash.js";

test("worker threads and the inline path give the same table, with true digests", async (t) => {
  const root = await tempDir(t);
  await writeFile(join(root, "benchcard.lock"), "{}"); // never hashed
  await mkdir(join(root, ".git"));
  await writeFile(join(root, ".git", "HEAD"), "ref"); // never hashed
  const big = Buffer.alloc(3 * 1024 * 1024 + 7, 0x61); // spans several read buffers
  await writeFile(join(root, "big.bin"), big);
  for (let d = 0; d < 10; d++) {
    await mkdir(join(root, "tasks", `d${d}`), { recursive: true });
    await Promise.all(
      Array.from({ length: 450 }, (_, i) => writeFile(join(root, "tasks", `d${d}`, `f${i}.txt`), `file ${d}/${i}\n`)),
    );
  }
  const paths = await listPackFiles(root);
  assert.equal(paths.length, 4501);
  assert.ok(!paths.some((p) => p.startsWith(".git") || p === "benchcard.lock"));
  const inline = await hashPack(root, { jobs: 1 });
  const workers = await hashPack(root, { jobs: 2 });
  assert.deepEqual(workers, inline);
  assert.equal(inline["big.bin"]?.sha256, createHash("sha256").update(big).digest("hex"));
  assert.equal(inline["big.bin"]?.size, big.length);
  assert.equal(inline["tasks/d3/f7.txt"]?.sha256, createHash("sha256").update("file 3/7\n").digest("hex"));
});
