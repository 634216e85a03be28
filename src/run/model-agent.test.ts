import assert from "node:assert/strict";
import { readdir, readFile, writeFile } from "node:fs/promises";
import { join, relative } from "node:path";
import test, { type TestContext } from "node:test";
import type { ModelApi } from "../core/gateway/endpoint.js";
import type { Row } from "../core/attempt/ledger-row.js";
import { EXAMPLE, frozenExample, requireTool, runCli, tempDir } from "../testing/helpers.js";
import { refusingPort, startModelServer, type Scenario, type SeenRequest } from "../testing/model-server.js";

const KEY = "sk-e2e-5ecret-7f3a9b-never-in-the-run";

/**
 * A script that solves a task the way a model would: look around, read the buggy file, write
 * the fix (the task's gold file), dump its environment, finish. Tool names are the built-in
 * agent's unless `names` maps them to another agent's.
 */
export async function solvingScenario(task: string, file: string, names: Partial<Record<"list_files" | "read_file" | "write_file" | "run" | "finish", { name: string; args: (a: Record<string, string>) => Record<string, unknown> }>> = {}): Promise<Scenario> {
  const dir = join(EXAMPLE, "tasks", task);
  const prompt = await readFile(join(dir, "prompt.md"), "utf8");
  const gold = await readFile(join(dir, "solution", file), "utf8");
  const call = (name: "list_files" | "read_file" | "write_file" | "run" | "finish", args: Record<string, string>) => {
    const mapped = names[name];
    return mapped === undefined ? { name, args } : { name: mapped.name, args: mapped.args(args) };
  };
  const turns = [
    { calls: [call("list_files", { path: "." })] },
    { calls: [call("read_file", { path: file })] },
    { calls: [call("write_file", { path: file, content: gold })] },
    { calls: [call("run", { command: "env | sort" })] },
    { calls: [call("finish", { summary: `fixed ${file}` })] },
    { text: `Fixed ${file}.` },
  ].filter((turn) => turn.calls === undefined || turn.calls[0] !== undefined);
  return { match: prompt.split("\n")[0]!, turns };
}

export async function modelRun(
  t: TestContext,
  options: { tasks: string[]; spec: (port: number) => string; port: number; card?: (c: string) => string; env?: NodeJS.ProcessEnv },
): Promise<{ rows: Row[]; runDir: string; code: number | null; stderr: string }> {
  const allow = `{ allow: [ "127.0.0.1:${options.port}" ] }`;
  const pack = await frozenExample(t, { tasks: options.tasks, editCard: (c) => (options.card ?? ((x) => x))(c.replace("network: none }", `network: ${allow} }`)) });
  const dir = await tempDir(t);
  const spec = join(dir, "agent.yaml");
  await writeFile(spec, options.spec(options.port));
  const result = await runCli(["run", pack, "--agent", spec, "--out", join(dir, "runs"), "--run-id", "m", "--isolation", "bwrap"], {
    env: { ...process.env, MODEL_API_KEY: KEY, ...options.env },
  });
  const runDir = join(dir, "runs", "m");
  const ledger = await readFile(join(runDir, "ledger.jsonl"), "utf8").catch(() => "");
  const rows = ledger.trim() === "" ? [] : ledger.trim().split("\n").map((l) => JSON.parse(l) as Row);
  return { rows, runDir, code: result.code, stderr: result.stdout + result.stderr };
}

export const chatSpec = (api: ModelApi) => (port: number) => `id: chat-${api}
builtin: chat
endpoint: { api: ${api}, base_url: "http://127.0.0.1:${port}/v1", model: scripted-model, api_key_env: MODEL_API_KEY }
controls: { temperature: 0 }
network: { allow: [ "127.0.0.1:${port}" ] }
`;

/** Every file under a folder whose bytes hold `needle`: a grep -r. */
export async function filesHolding(root: string, needle: string): Promise<string[]> {
  const found: string[] = [];
  for (const entry of await readdir(root, { recursive: true, withFileTypes: true })) {
    if (!entry.isFile()) continue;
    const path = join(entry.parentPath ?? (entry as unknown as { path: string }).path, entry.name);
    if ((await readFile(path)).includes(needle)) found.push(relative(root, path));
  }
  return found;
}

/** The usage the server reported for one task's conversation, summed. */
export function reportedFor(requests: readonly SeenRequest[], match: string): { input: number; output: number } {
  return requests.filter((r) => r.scenario === match).reduce((sum, r) => ({ input: sum.input + (r.usage?.input ?? 0), output: sum.output + (r.usage?.output ?? 0) }), { input: 0, output: 0 });
}

test("built-in chat agent under bwrap: solves what the script solves, fails the rest; tokens metered; the key never reaches the run", async (t) => {
  if (!requireTool(t, "bwrap")) return;
  const scenarios = [await solvingScenario("py-fix-clamp", "bounds.py"), await solvingScenario("js-fix-sum", "lib/sum.mjs")];
  const server = await startModelServer(scenarios);
  t.after(() => server.close());
  const { rows, runDir, code, stderr } = await modelRun(t, { tasks: ["py-fix-clamp", "js-fix-sum", "py-fix-median"], spec: chatSpec("openai-chat"), port: server.port });
  assert.equal(code, 0, stderr);
  const byTask = new Map(rows.map((r) => [r.task_id, r]));
  assert.equal(byTask.get("py-fix-clamp")?.outcome, "pass", byTask.get("py-fix-clamp")?.reason);
  assert.equal(byTask.get("js-fix-sum")?.outcome, "pass", byTask.get("js-fix-sum")?.reason);
  assert.equal(byTask.get("py-fix-median")?.outcome, "fail", byTask.get("py-fix-median")?.reason);
  for (const row of rows) {
    assert.equal(row.usage.source, "metered");
    assert.equal(row.agent_controls.temperature, 0);
    const scenario = scenarios.find((s) => s.match.length > 0 && row.task_id === (s === scenarios[0] ? "py-fix-clamp" : "js-fix-sum"));
    const match = scenario?.match ?? null;
    const reported = match === null ? server.requests.filter((r) => r.scenario === null).reduce((s, r) => ({ input: s.input + r.usage!.input, output: s.output + r.usage!.output }), { input: 0, output: 0 }) : reportedFor(server.requests, match);
    assert.deepEqual({ input: row.usage.input_tokens, output: row.usage.output_tokens }, reported, row.task_id);
    assert.equal(row.gateway?.requests, match === null ? 1 : 5);
  }
  assert.ok(server.requests.length >= 11);
  for (const seen of server.requests) assert.equal(seen.authorization, `Bearer ${KEY}`);
  // The agent dumped its environment into the transcript: the gateway's URL is there, the key is not.
  const transcript = await readFile(join(runDir, byTask.get("py-fix-clamp")!.artifacts.transcript!), "utf8");
  assert.match(transcript, /BENCHCARD_MODEL_BASE_URL=http:\/\/127\.0\.0\.1:\d+\/v1/);
  assert.match(transcript, /OPENAI_API_KEY=benchcard-gateway-adds-the-key/);
  assert.deepEqual(await filesHolding(runDir, KEY), []);
  const runJson = await readFile(join(runDir, "run.json"), "utf8");
  assert.match(runJson, /api_key_env: MODEL_API_KEY/);
});

for (const api of ["openai-responses", "anthropic-messages"] as const) {
  test(`built-in chat agent speaks ${api} through the gateway`, async (t) => {
    if (!requireTool(t, "bwrap")) return;
    const scenario = await solvingScenario("py-fix-clamp", "bounds.py");
    const server = await startModelServer([scenario]);
    t.after(() => server.close());
    const { rows, code, stderr } = await modelRun(t, { tasks: ["py-fix-clamp"], spec: chatSpec(api), port: server.port });
    assert.equal(code, 0, stderr);
    assert.equal(rows[0]?.outcome, "pass", rows[0]?.reason);
    const reported = reportedFor(server.requests, scenario.match);
    assert.deepEqual({ input: rows[0]!.usage.input_tokens, output: rows[0]!.usage.output_tokens }, reported);
    for (const seen of server.requests) assert.equal(api === "anthropic-messages" ? seen.apiKey : seen.authorization, api === "anthropic-messages" ? KEY : `Bearer ${KEY}`);
  });
}

test("an endpoint that refuses connections makes every row infra, and the report is not OK", async (t) => {
  if (!requireTool(t, "bwrap")) return;
  const port = await refusingPort();
  const { rows, runDir, code, stderr } = await modelRun(t, { tasks: ["py-fix-clamp", "js-fix-sum"], spec: chatSpec("openai-chat"), port });
  assert.equal(code, 0, stderr);
  assert.equal(rows.length, 2);
  for (const row of rows) {
    assert.equal(row.outcome, "infra", row.reason);
    assert.match(row.reason, /model endpoint failed.*ECONNREFUSED/);
  }
  const report = await runCli(["report", runDir]);
  assert.notEqual(report.code, 0, report.stdout);
  assert.doesNotMatch(report.stdout, /^status: OK/m);
});

test("a token cap below what the script uses ends attempts as truncated, never pass or fail", async (t) => {
  if (!requireTool(t, "bwrap")) return;
  const server = await startModelServer([await solvingScenario("py-fix-clamp", "bounds.py")]);
  t.after(() => server.close());
  const { rows, code, stderr } = await modelRun(t, {
    tasks: ["py-fix-clamp"],
    spec: chatSpec("openai-chat"),
    port: server.port,
    card: (c) => c.replace("max_output_tokens: unknown", "max_output_tokens: 20"),
  });
  assert.equal(code, 0, stderr);
  assert.equal(rows[0]?.outcome, "truncated", rows[0]?.reason);
  assert.match(rows[0]!.reason, /gateway refused 1 request\(s\): metered output tokens \d+ reached the envelope's max_output_tokens 20/);
  assert.ok(rows[0]!.gateway!.requests < 6);
});

test("a spec whose key is not in the environment, or that puts the key in env, is refused before any attempt", async (t) => {
  if (!requireTool(t, "bwrap")) return;
  const server = await startModelServer([]);
  t.after(() => server.close());
  const missing = await modelRun(t, { tasks: ["py-fix-clamp"], spec: chatSpec("openai-chat"), port: server.port, env: { MODEL_API_KEY: "" } });
  assert.equal(missing.code, 4);
  assert.match(missing.stderr, /reads the key from MODEL_API_KEY, which is not set/);
  const inEnv = await modelRun(t, { tasks: ["py-fix-clamp"], spec: (p) => `${chatSpec("openai-chat")(p)}env: { MODEL_API_KEY: "${KEY}" }\n`, port: server.port });
  assert.equal(inEnv.code, 4);
  assert.match(inEnv.stderr, /env must not set MODEL_API_KEY/);
  assert.equal(server.requests.length, 0);
});
