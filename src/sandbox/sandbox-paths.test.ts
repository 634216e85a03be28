import assert from "node:assert/strict";
import test from "node:test";
import { bwrapArgs } from "./bwrap.js";
import type { ExecRequest } from "./driver.js";

const request = (extra: Partial<ExecRequest>): ExecRequest => ({
  argv: ["true"],
  workspace: "/srv-scratch/ws",
  env: { HOME: "/srv-scratch/home", PATH: "/usr/bin" },
  timeoutMs: 1000,
  stdoutFile: "/dev/null",
  stderrFile: "/dev/null",
  maxLogBytes: 1,
  ...extra,
});

test("a workspace shown at /app is bound there and is the working folder; the verifier's /logs is a writable bind", () => {
  const args = bwrapArgs(request({ workspaceAt: "/app", binds: [{ source: "/srv-scratch/logs", target: "/logs" }] }), []);
  const tail = args.slice(-5);
  assert.deepEqual(tail, ["--bind", "/srv-scratch/ws", "/app", "--chdir", "/app"]);
  const at = args.indexOf("/srv-scratch/logs");
  assert.deepEqual(args.slice(at - 1, at + 2), ["--bind", "/srv-scratch/logs", "/logs"]);
});

test("places inside the sandbox that would cover the system, or a host path the child needs, are refused", () => {
  assert.throws(() => bwrapArgs(request({ workspaceAt: "/usr/app" }), []), /\/usr is the system's/);
  assert.throws(() => bwrapArgs(request({ workspaceAt: "/tmp" }), []), /\/tmp is the system's/);
  assert.throws(() => bwrapArgs(request({ workspaceAt: "/app/../etc" }), []), /absolute path of plain names/);
  // A home under /app would be hidden by the workspace, and bwrap would make mount points in it.
  assert.throws(() => bwrapArgs(request({ workspaceAt: "/srv-scratch" }), []), /\/srv-scratch\/ws is there too/);
  assert.throws(() => bwrapArgs(request({ workspaceAt: "/app", binds: [{ source: "/srv-scratch/logs", target: "/app/logs" }] }), []), /overlap/);
});
