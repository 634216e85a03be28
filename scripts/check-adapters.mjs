// Runs each installed agent CLI adapter under examples/agents/ (pi, codex, claude-code) on two
// example tasks, in bwrap, through benchcard's gateway, against the scripted model server of the
// test tree: the script reads the buggy file, writes the fix and ends. Prints one line per
// adapter and task: outcome, model requests, metered tokens. Needs `npm run build` first and
// `npm ci --prefix examples/agents/<name> --ignore-scripts` for each adapter to check.
// Usage: node scripts/check-adapters.mjs [pi|codex|claude-code ...]
import { spawn } from "node:child_process";
import { existsSync } from "node:fs";
import { chmod, cp, mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { startModelServer } from "../dist/testing/model-server.js";

const ROOT = fileURLToPath(new URL("../", import.meta.url));
const TASKS = [["py-fix-clamp", "bounds.py"], ["js-fix-sum", "lib/sum.mjs"]];
const ADAPTERS = {
  pi: { spec: "pi.yaml", probe: "node_modules/@mariozechner/pi-coding-agent/dist/cli.js",
    turns: (file, gold) => [{ calls: [{ name: "read", args: { path: file } }] }, { calls: [{ name: "write", args: { path: file, content: gold } }] }, { text: "Fixed." }] },
  codex: { spec: "codex.yaml", probe: "node_modules/@openai/codex/bin/codex.js",
    turns: (file, gold) => [{ calls: [{ name: "exec_command", args: { cmd: `cat ${file}` } }] }, { calls: [{ name: "exec_command", args: { cmd: `cat > ${file} <<'BENCHCARD_EOF'\n${gold}BENCHCARD_EOF` } }] }, { text: "Fixed." }] },
  "claude-code": { spec: "claude-code.yaml", probe: "node_modules/@anthropic-ai/claude-code/package.json",
    turns: (file, gold) => [{ calls: [{ name: "Bash", args: { command: `cat ${file}`, description: "read the file" } }] }, { calls: [{ name: "Bash", args: { command: `cat > ${file} <<'BENCHCARD_EOF'\n${gold}BENCHCARD_EOF`, description: "write the fix" } }] }, { text: "Fixed." }] },
};

const bin = join(ROOT, "bin", "benchcard.js");
// Asynchronous: the scripted server answers from this same process while benchcard runs.
const cli = (args, env = process.env) =>
  new Promise((resolve) => {
    const child = spawn(process.execPath, [bin, ...args], { env, stdio: ["ignore", "pipe", "pipe"] });
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (c) => (stdout += c));
    child.stderr.on("data", (c) => (stderr += c));
    child.on("close", (status) => resolve({ status, stdout, stderr }));
  });
const names = process.argv.slice(2).length > 0 ? process.argv.slice(2) : Object.keys(ADAPTERS);
let failed = 0;
for (const name of names) {
  const adapter = ADAPTERS[name];
  const src = join(ROOT, "examples", "agents", name);
  if (!existsSync(join(src, adapter.probe))) {
    console.log(`${name}: not installed (npm ci --prefix examples/agents/${name} --ignore-scripts)`);
    continue;
  }
  const work = await mkdtemp(join(tmpdir(), `bc-adapter-${name}-`));
  await chmod(work, 0o755);
  try {
    await cp(src, join(work, "agent"), { recursive: true });
    const scenarios = [];
    for (const [task, file] of TASKS) {
      const dir = join(ROOT, "examples", "tiny-fix", "tasks", task);
      const prompt = await readFile(join(dir, "prompt.md"), "utf8");
      scenarios.push({ match: prompt.split("\n")[0], turns: adapter.turns(file, await readFile(join(dir, "solution", file), "utf8")), task });
    }
    const server = await startModelServer(scenarios);
    const pack = join(work, "pack");
    await cp(join(ROOT, "examples", "tiny-fix"), pack, { recursive: true });
    const card = await readFile(join(pack, "benchcard.yaml"), "utf8");
    await writeFile(join(pack, "benchcard.yaml"), card.replace("network: none }", `network: { allow: [ "127.0.0.1:${server.port}" ] } }`));
    for (const entry of ["cfg-parse-bool", "cfg-parse-duration", "cfg-parse-env", "cfg-parse-ini", "ctl-keep-green", "ctl-never-green", "js-fix-capitalize", "js-fix-range", "js-fix-unique", "py-fix-chunks", "py-fix-median", "py-fix-slugify"]) {
      await rm(join(pack, "tasks", entry), { recursive: true });
    }
    const frozen = await cli(["freeze", pack, "--jobs", "2"]);
    if (frozen.status !== 0) throw new Error(`freeze: ${frozen.stderr}`);
    const spec = (await readFile(join(src, adapter.spec), "utf8")).replaceAll("{spec_dir}", join(work, "agent")).replaceAll("127.0.0.1:8000", `127.0.0.1:${server.port}`).replace("model: some-model", "model: scripted-model");
    await writeFile(join(work, "agent.yaml"), spec);
    const run = await cli(["run", pack, "--agent", join(work, "agent.yaml"), "--out", join(work, "runs"), "--run-id", "r", "--isolation", "bwrap", "--quiet"], { ...process.env, MODEL_API_KEY: "sk-adapter-check" });
    await server.close();
    if (run.status !== 0) throw new Error(`run exited ${run.status}: ${run.stderr}`);
    const rows = (await readFile(join(work, "runs", "r", "ledger.jsonl"), "utf8")).trim().split("\n").map((l) => JSON.parse(l));
    for (const row of rows) {
      const reported = server.requests.filter((r) => r.scenario === scenarios.find((s) => s.task === row.task_id)?.match);
      const sum = reported.reduce((s, r) => ({ input: s.input + (r.usage?.input ?? 0), output: s.output + (r.usage?.output ?? 0) }), { input: 0, output: 0 });
      const agrees = sum.input === row.usage.input_tokens && sum.output === row.usage.output_tokens;
      if (row.outcome !== "pass" || !agrees) failed++;
      console.log(`${name} ${row.task_id}: ${row.outcome} (${row.reason.slice(0, 80)}); ${row.gateway?.requests} requests; metered ${row.usage.input_tokens}/${row.usage.output_tokens} tokens, server reported ${sum.input}/${sum.output}${agrees ? "" : " MISMATCH"}`);
    }
  } catch (error) {
    failed++;
    console.log(`${name}: ${error.message}`);
  } finally {
    await rm(work, { recursive: true, force: true });
  }
}
process.exit(failed === 0 ? 0 : 1);
