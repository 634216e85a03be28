import assert from "node:assert/strict";
import { mkdir, readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { test } from "node:test";
import { tempDir } from "../testing/helpers.js";
import { createCgroup } from "./limits.js";

// Fake cgroup file systems: the same files the kernel shows, in a temp folder.

test("cgroup v2: a delegated subtree gets memory.max (swap off) and pids.max, and the child enters it", async (t) => {
  const root = await tempDir(t);
  await writeFile(join(root, "cgroup.controllers"), "cpuset cpu io memory hugetlb pids rdma misc\n");
  await mkdir(join(root, "benchcard"));
  await writeFile(join(root, "benchcard", "cgroup.subtree_control"), "memory pids\n");
  const group = await createCgroup("g1", { memory_mb: 64, max_procs: 50 }, { root });
  const dir = join(root, "benchcard", "g1");
  assert.equal(await readFile(join(dir, "memory.max"), "utf8"), String(64 * 1024 * 1024));
  assert.equal(await readFile(join(dir, "memory.swap.max"), "utf8"), "0");
  assert.equal(await readFile(join(dir, "pids.max"), "utf8"), "50");
  assert.deepEqual(group.report, { memory_mb: { requested: 64, applied: "cgroup v2 memory.max" }, max_procs: { requested: 50, applied: "cgroup v2 pids.max" } });
  assert.equal(group.enter, `echo $$ > ${dir}/cgroup.procs`);
});

test("cgroup v2 without a delegated subtree: every limit says why it was not applied, nothing is entered", async (t) => {
  const root = await tempDir(t);
  await writeFile(join(root, "cgroup.controllers"), "cpu io memory pids\n");
  const none = await createCgroup("g2", { memory_mb: 64 }, { root });
  assert.match(none.report.memory_mb!.applied, /^not applied: cgroup v2 memory is not delegated to .*benchcard \(no such writable subtree\)/);
  assert.equal(none.enter, "");
  await mkdir(join(root, "benchcard"));
  await writeFile(join(root, "benchcard", "cgroup.subtree_control"), "memory\n");
  const partial = await createCgroup("g3", { memory_mb: 64, max_procs: 9 }, { root });
  assert.equal(partial.report.memory_mb!.applied, "cgroup v2 memory.max");
  assert.match(partial.report.max_procs!.applied, /not in its cgroup.subtree_control/);
});

test("cgroup v1: memory/ and pids/ hierarchies", async (t) => {
  const root = await tempDir(t);
  await mkdir(join(root, "memory"));
  await mkdir(join(root, "pids"));
  const group = await createCgroup("g4", { memory_mb: 32, max_procs: 7 }, { root });
  assert.equal(await readFile(join(root, "memory", "benchcard", "g4", "memory.limit_in_bytes"), "utf8"), String(32 * 1024 * 1024));
  assert.equal(await readFile(join(root, "pids", "benchcard", "g4", "pids.max"), "utf8"), "7");
  assert.equal(group.report.memory_mb!.applied, "cgroup v1 memory");
});
