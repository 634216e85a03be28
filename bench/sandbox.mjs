// Per-attempt overhead of the bwrap driver over the process driver: the same command (sh -c
// true) executed through each driver, alternating, side by side in one run.
// Run: npm run bench:sandbox      Target: under 20 ms added per attempt.
import { mkdtempSync, mkdirSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { ROOT, median } from "./common.mjs";

const { ProcessDriver } = await import(`${ROOT}dist/sandbox/process.js`);
const { BwrapDriver } = await import(`${ROOT}dist/sandbox/bwrap.js`);
const dir = mkdtempSync(join(tmpdir(), "benchcard-bench-sandbox-"));
const workspace = join(dir, "ws");
const home = join(dir, "home");
mkdirSync(workspace);
mkdirSync(home);
const request = {
  argv: ["/bin/sh", "-c", "true"],
  workspace,
  env: { PATH: "/usr/bin:/bin", HOME: home },
  timeoutMs: 10_000,
  stdoutFile: join(dir, "out"),
  stderrFile: join(dir, "err"),
  maxLogBytes: 1 << 20,
};
const drivers = { process: new ProcessDriver(), bwrap: new BwrapDriver(), "bwrap + limits": new BwrapDriver({ limits: { memory_mb: 512, max_procs: 256, cpu_s: 60 } }) };
const times = Object.fromEntries(Object.keys(drivers).map((k) => [k, []]));
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 40);
for (let i = 0; i < ROUNDS + 3; i++) {
  for (const [name, driver] of Object.entries(drivers)) {
    const started = performance.now();
    const result = await driver.exec(request);
    if (result.exitCode !== 0) throw new Error(`${name} exec failed: ${JSON.stringify(result)}`);
    if (i >= 3) times[name].push(performance.now() - started);
  }
}
const base = median(times.process);
console.log(`per-exec wall time, median of ${ROUNDS} (after 3 warm-ups), alternating drivers:`);
for (const [name, xs] of Object.entries(times)) {
  const m = median(xs);
  console.log(`  ${name.padEnd(16)} ${m.toFixed(1)} ms   ratio ${(m / base).toFixed(2)}   added ${(m - base).toFixed(1)} ms`);
}
rmSync(dir, { recursive: true, force: true });
