import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { appendFile, readFile, stat, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { test } from "node:test";
import type { Row } from "../core/attempt/ledger-row.js";
import { seededPrng } from "../core/common/random.js";
import { BIN, frozenExample, runCli, tempDir } from "../testing/helpers.js";
import { MINI_CARD, writeMiniPack, type MiniTask } from "../testing/mini-pack.js";

const SHELL_TASK: MiniTask = {
  repo: { "answer.txt": "0\n" },
  hidden: { "check.sh": 'test "$(cat answer.txt)" = 42\n' },
  solution: { "answer.txt": "42\n" },
};

async function quickPack(dir: string, tasks: number, oracle = "sh check.sh"): Promise<string> {
  const root = join(dir, "pack");
  const card = MINI_CARD.replace('oracle: "python3 check.py"', `oracle: "${oracle}"`).replace("replays: 1", "replays: 5");
  await writeMiniPack(root, Object.fromEntries(Array.from({ length: tasks }, (_, i) => [`t${String(i).padStart(2, "0")}`, SHELL_TASK])), { card });
  const frozen = await runCli(["freeze", root]);
  assert.equal(frozen.code, 0, frozen.stderr);
  return root;
}

function rowsOf(text: string): Row[] {
  // A torn last line (no newline yet) is not a row.
  return text.split("\n").slice(0, -1).filter((l) => l !== "").map((l) => JSON.parse(l) as Row);
}

function killAfter(args: string[], ms: number): Promise<number | null> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [BIN, ...args], { stdio: "ignore" });
    const timer = setTimeout(() => child.kill("SIGKILL"), ms);
    child.once("exit", (code) => {
      clearTimeout(timer);
      resolve(code);
    });
  });
}

test("SIGKILL at random moments, 20+ times, then resume: every (task, replay) exactly once", async (t) => {
  const dir = await tempDir(t);
  const pack = await quickPack(dir, 12, "sleep 0.2 && sh check.sh");
  const prng = seededPrng(2024);
  const expected = Array.from({ length: 12 }, (_, i) => Array.from({ length: 5 }, (_, r) => `t${String(i).padStart(2, "0")}#${r}`)).flat().sort();
  let kills = 0;
  let midRun = 0;
  let runs = 0;
  while (kills < 24) {
    const runDir = join(dir, "runs", `crashy${runs}`);
    for (let round = 0; round < 200; round++) {
      // Until run.json exists the run has not started: a kill before it means start again.
      const started = await stat(join(runDir, "run.json")).then(() => true, () => false);
      const args = !started
        ? ["run", pack, "--agent", "oracle", "--out", join(dir, "runs"), "--run-id", `crashy${runs}`, "--seed", "5", "--jobs", "2", "--isolation", "process"]
        : ["run", "--resume", runDir, "--jobs", "2"];
      const code = await killAfter(args, 300 + Math.floor(prng.next() * 1500));
      const ids = rowsOf(await readFile(join(runDir, "ledger.jsonl"), "utf8").catch(() => "")).map((r) => r.attempt_id);
      assert.equal(new Set(ids).size, ids.length, `duplicate rows after round ${round}`);
      if (code === null) {
        kills++;
        if (ids.length > 0 && ids.length < 60) midRun++;
      } else {
        assert.equal(code, 0);
        break;
      }
    }
    const final = await runCli(["run", "--resume", runDir, "--jobs", "2", "--json"]);
    assert.equal(final.code, 0, final.stderr);
    const rows = rowsOf(await readFile(join(runDir, "ledger.jsonl"), "utf8"));
    assert.deepEqual(rows.map((r) => r.attempt_id).sort(), expected, `run ${runs}: every (task, replay) exactly once`);
    assert.ok(rows.every((r) => r.outcome === "pass"), "every oracle attempt passes");
    runs++;
  }
  assert.ok(midRun >= 10, `only ${midRun} of ${kills} kills landed while rows were being written`);
});

test("a torn last line is cut on resume and its attempt runs again", async (t) => {
  const dir = await tempDir(t);
  const pack = await quickPack(dir, 2);
  const out = join(dir, "runs");
  assert.equal((await runCli(["run", pack, "--agent", "nop", "--out", out, "--run-id", "x", "--replays", "1", "--seed", "1", "--isolation", "process"])).code, 0);
  const ledger = join(out, "x", "ledger.jsonl");
  const lines = (await readFile(ledger, "utf8")).trim().split("\n");
  await writeFile(ledger, `${lines[0]}\n`);
  await appendFile(ledger, lines[1]!.slice(0, 40));
  const resumed = await runCli(["run", "--resume", join(out, "x"), "--json"]);
  assert.equal(resumed.code, 0, resumed.stderr);
  const summary = JSON.parse(resumed.stdout) as { ran: number; repaired_bytes: number };
  assert.equal(summary.ran, 1);
  assert.equal(summary.repaired_bytes, 40);
  const rows = rowsOf(await readFile(ledger, "utf8"));
  assert.equal(rows.length, 2);
  assert.notEqual(rows[0]!.attempt_id, rows[1]!.attempt_id);
});

test("a corrupt row in the middle of the ledger is refused, not guessed around", async (t) => {
  const dir = await tempDir(t);
  const pack = await quickPack(dir, 2);
  const out = join(dir, "runs");
  assert.equal((await runCli(["run", pack, "--agent", "nop", "--out", out, "--run-id", "x", "--replays", "1", "--isolation", "process"])).code, 0);
  const ledger = join(out, "x", "ledger.jsonl");
  const lines = (await readFile(ledger, "utf8")).trim().split("\n");
  await writeFile(ledger, `{"broken": true}\n${lines.join("\n")}\n`);
  const resumed = await runCli(["run", "--resume", join(out, "x")]);
  assert.equal(resumed.code, 4);
  assert.match(resumed.stderr, /ledger\.jsonl:1: /);
});

test("Ctrl-C: the running attempts end, no half attempt is recorded, exit 130 with the resume command; resume completes", async (t) => {
  const { rm: remove } = await import("node:fs/promises");
  const pack = await frozenExample(t, { tasks: ["py-fix-clamp", "py-fix-slugify"] });
  const dir = await tempDir(t);
  const flag = join(dir, "slow");
  await writeFile(flag, "");
  const script = join(dir, "agent.sh");
  await writeFile(script, `#!/bin/sh\nif [ -f "${flag}" ]; then sleep 4242; fi\n`, { mode: 0o755 });
  await writeFile(join(dir, "agent.yaml"), `id: sleepy\ncommand: [ "${script}" ]\n`);
  const out = join(await tempDir(t), "runs");
  const child = spawn(process.execPath, [BIN, "run", pack, "--agent", join(dir, "agent.yaml"), "--out", out, "--run-id", "c", "--jobs", "1", "--isolation", "process"], { stdio: ["ignore", "pipe", "pipe"] });
  let stderr = "";
  child.stderr.on("data", (c: Buffer) => (stderr += c.toString()));
  // Wait until the agent is asleep, then press Ctrl-C.
  for (let i = 0; i < 100 && !(await sleeping()); i++) await new Promise((r) => setTimeout(r, 100));
  child.kill("SIGINT");
  const code = await new Promise<number | null>((resolve) => child.once("close", resolve));
  assert.equal(code, 130, stderr);
  assert.match(stderr, new RegExp(`resume with: benchcard run --resume ${join(out, "c").replaceAll("/", "\\/")}`));
  assert.equal(await sleeping(), false, "the agent's process tree was ended");
  assert.equal((await readFile(join(out, "c", "ledger.jsonl"), "utf8").catch(() => "")).trim(), "", "no half attempt in the ledger");
  await remove(flag);
  const resumed = await runCli(["run", "--resume", join(out, "c"), "--isolation", "process"]);
  assert.equal(resumed.code, 0, resumed.stderr);
  assert.equal((await readFile(join(out, "c", "ledger.jsonl"), "utf8")).trim().split("\n").length, 2);
});

async function sleeping(): Promise<boolean> {
  const { readdir } = await import("node:fs/promises");
  for (const name of await readdir("/proc")) {
    if (!/^[0-9]+$/.test(name)) continue;
    const cmd = await readFile(`/proc/${name}/cmdline`, "utf8").catch(() => "");
    if (cmd.split("\0").join(" ").trim() === "sleep 4242") return true;
  }
  return false;
}
