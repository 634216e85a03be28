// benchcard's built-in agent (spec `builtin: chat`): a small tool loop over a model endpoint.
// This file is copied into the attempt's sandbox and run there by the system's node, like any
// agent: it imports only node's own modules and reaches the model only through the gateway.
// Its bytes (system prompt, tool schemas, loop) are part of the agent's fingerprint.
import { spawn } from "node:child_process";
import { appendFileSync, mkdirSync, readdirSync, readFileSync, statSync, writeFileSync } from "node:fs";
import { dirname, join, relative, resolve, sep } from "node:path";

const CHAT_AGENT_VERSION = "benchcard-chat/1";

const SYSTEM_PROMPT = `You are a careful software engineer working in a repository checked out in your current directory.
Fix the problem the user describes by changing the code. Use the tools to look at files, edit them and run commands.
Do not edit or delete tests to make them pass. When the fix is done, call finish with a one-line summary.`;

interface Tool {
  name: string;
  description: string;
  parameters: { type: "object"; properties: Record<string, { type: string; description: string }>; required: string[] };
}

const TOOLS: Tool[] = [
  { name: "list_files", description: "List files under a folder of the repository (recursive, at most 500).", parameters: { type: "object", properties: { path: { type: "string", description: "folder, relative to the repository root; '.' for the root" } }, required: ["path"] } },
  { name: "read_file", description: "Read a text file of the repository (at most 64 KiB are returned).", parameters: { type: "object", properties: { path: { type: "string", description: "file, relative to the repository root" } }, required: ["path"] } },
  { name: "write_file", description: "Write a whole file (created or replaced).", parameters: { type: "object", properties: { path: { type: "string", description: "file, relative to the repository root" }, content: { type: "string", description: "the file's complete new content" } }, required: ["path", "content"] } },
  { name: "run", description: "Run a shell command in the repository root; returns exit status and output (capped).", parameters: { type: "object", properties: { command: { type: "string", description: "a command for sh -c" } }, required: ["command"] } },
  { name: "finish", description: "Say the work is done.", parameters: { type: "object", properties: { summary: { type: "string", description: "one line: what was changed" } }, required: ["summary"] } },
];

const CAPS = { readBytes: 64 * 1024, runOutput: 16 * 1024, listEntries: 500, transcriptField: 4096, transcriptBytes: 1024 * 1024 };

interface Call {
  id: string;
  name: string;
  args: Record<string, unknown>;
}

interface Turn {
  text: string;
  calls: Call[];
}

/** One API's request shape, response reading and history keeping. */
interface Dialect {
  url: string;
  headers: Record<string, string>;
  body(): unknown;
  read(response: Record<string, unknown>): Turn;
  results(results: { call: Call; output: string }[]): void;
}

const env = process.env;
const workspace = resolve(env.BENCHCARD_WORKSPACE ?? process.cwd());
const base = (env.BENCHCARD_MODEL_BASE_URL ?? "").replace(/\/+$/, "");
const api = env.BENCHCARD_MODEL_API ?? "openai-chat";
const model = env.BENCHCARD_MODEL ?? "";
const key = env.BENCHCARD_MODEL_API_KEY ?? "";
const controls = JSON.parse(env.BENCHCARD_CHAT_CONTROLS ?? "{}") as Record<string, unknown>;
const maxSteps = Number(env.BENCHCARD_MAX_STEPS ?? controls.max_steps ?? 50);
const runTimeoutS = Number(controls.run_timeout_s ?? 60);
const transcriptFile = env.BENCHCARD_TRANSCRIPT_FILE;
let transcriptBytes = 0;

function note(event: Record<string, unknown>): void {
  if (transcriptFile === undefined || transcriptBytes > CAPS.transcriptBytes) return;
  const clipped = Object.fromEntries(Object.entries(event).map(([k, v]) => [k, clip(typeof v === "string" ? v : JSON.stringify(v) ?? "null", CAPS.transcriptField)]));
  const line = `${JSON.stringify(clipped)}\n`;
  transcriptBytes += line.length;
  appendFileSync(transcriptFile, transcriptBytes > CAPS.transcriptBytes ? `${JSON.stringify({ note: "transcript cap reached" })}\n` : line);
}

function clip(text: string, cap: number): string {
  return text.length <= cap ? text : `${text.slice(0, cap)}\n[... ${text.length - cap} more characters]`;
}

/** Sampling controls from the spec that the APIs accept; the rest are only recorded. */
function sampling(): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const name of ["temperature", "top_p", "seed"]) if (controls[name] !== undefined) out[name] = controls[name];
  return out;
}

function openaiChat(prompt: string): Dialect {
  const messages: unknown[] = [{ role: "system", content: SYSTEM_PROMPT }, { role: "user", content: prompt }];
  return {
    url: `${base}/chat/completions`,
    headers: { authorization: `Bearer ${key}` },
    body: () => ({
      model, messages, ...sampling(),
      ...(controls.max_tokens === undefined ? {} : { max_tokens: controls.max_tokens }),
      tools: TOOLS.map((t) => ({ type: "function", function: { name: t.name, description: t.description, parameters: t.parameters } })),
    }),
    read(response) {
      const message = ((response.choices as { message?: Record<string, unknown> }[] | undefined)?.[0]?.message ?? {}) as Record<string, unknown>;
      messages.push({ role: "assistant", content: message.content ?? null, ...(message.tool_calls === undefined ? {} : { tool_calls: message.tool_calls }) });
      const calls = ((message.tool_calls ?? []) as { id: string; function: { name: string; arguments: string } }[]).map((c) => ({ id: c.id, name: c.function.name, args: parseArgs(c.function.arguments) }));
      return { text: typeof message.content === "string" ? message.content : "", calls };
    },
    results(results) {
      for (const { call, output } of results) messages.push({ role: "tool", tool_call_id: call.id, content: output });
    },
  };
}

function openaiResponses(prompt: string): Dialect {
  const input: unknown[] = [{ role: "user", content: prompt }];
  return {
    url: `${base}/responses`,
    headers: { authorization: `Bearer ${key}` },
    body: () => ({
      model, instructions: SYSTEM_PROMPT, input, ...sampling(),
      ...(controls.max_tokens === undefined ? {} : { max_output_tokens: controls.max_tokens }),
      tools: TOOLS.map((t) => ({ type: "function", name: t.name, description: t.description, parameters: t.parameters })),
    }),
    read(response) {
      const output = (response.output ?? []) as Record<string, unknown>[];
      input.push(...output);
      const calls = output.filter((o) => o.type === "function_call").map((o) => ({ id: String(o.call_id), name: String(o.name), args: parseArgs(String(o.arguments ?? "{}")) }));
      const text = output
        .filter((o) => o.type === "message")
        .flatMap((o) => (o.content ?? []) as { type: string; text?: string }[])
        .map((c) => c.text ?? "")
        .join("");
      return { text, calls };
    },
    results(results) {
      for (const { call, output } of results) input.push({ type: "function_call_output", call_id: call.id, output });
    },
  };
}

function anthropicMessages(prompt: string): Dialect {
  const messages: unknown[] = [{ role: "user", content: prompt }];
  return {
    url: `${base}/messages`,
    headers: { "x-api-key": key, "anthropic-version": "2023-06-01" },
    body: () => ({
      model, system: SYSTEM_PROMPT, messages, ...sampling(), max_tokens: controls.max_tokens ?? 4096,
      tools: TOOLS.map((t) => ({ name: t.name, description: t.description, input_schema: t.parameters })),
    }),
    read(response) {
      const content = (response.content ?? []) as Record<string, unknown>[];
      messages.push({ role: "assistant", content });
      const calls = content.filter((c) => c.type === "tool_use").map((c) => ({ id: String(c.id), name: String(c.name), args: (c.input ?? {}) as Record<string, unknown> }));
      const text = content.filter((c) => c.type === "text").map((c) => String(c.text ?? "")).join("");
      return { text, calls };
    },
    results(results) {
      messages.push({ role: "user", content: results.map(({ call, output }) => ({ type: "tool_result", tool_use_id: call.id, content: output })) });
    },
  };
}

function parseArgs(text: string): Record<string, unknown> {
  try {
    const value = JSON.parse(text) as unknown;
    return typeof value === "object" && value !== null ? (value as Record<string, unknown>) : {};
  } catch {
    return {};
  }
}

/** A path inside the workspace, or an error: the tools act on the repository only. */
function inside(path: unknown): string {
  if (typeof path !== "string" || path === "") throw new Error("path must be a non-empty string");
  const full = resolve(workspace, path);
  if (full !== workspace && !full.startsWith(workspace + sep)) throw new Error(`${path} is outside the repository`);
  return full;
}

function listFiles(path: unknown): string {
  const root = inside(path ?? ".");
  const found: string[] = [];
  const walk = (dir: string) => {
    for (const entry of readdirSync(dir, { withFileTypes: true }).sort((a, b) => a.name.localeCompare(b.name))) {
      if (found.length >= CAPS.listEntries) return;
      if (entry.name === ".git" || entry.name === "node_modules") continue;
      const full = join(dir, entry.name);
      if (entry.isDirectory()) walk(full);
      else found.push(relative(workspace, full));
    }
  };
  walk(root);
  return found.join("\n") + (found.length >= CAPS.listEntries ? `\n[listing stopped at ${CAPS.listEntries} entries]` : "");
}

function runCommand(command: unknown): Promise<string> {
  if (typeof command !== "string") return Promise.resolve("error: command must be a string");
  return new Promise((done) => {
    const child = spawn("sh", ["-c", command], { cwd: workspace, stdio: ["ignore", "pipe", "pipe"], detached: true });
    let output = "";
    const take = (chunk: Buffer) => {
      if (output.length < CAPS.runOutput * 2) output += chunk.toString("utf8");
    };
    child.stdout.on("data", take);
    child.stderr.on("data", take);
    const timer = setTimeout(() => {
      try {
        process.kill(-child.pid!, "SIGKILL");
      } catch {
        // already gone
      }
    }, runTimeoutS * 1000);
    child.on("close", (code, signal) => {
      clearTimeout(timer);
      done(`exit ${code ?? signal}${signal === "SIGKILL" ? ` (killed after ${runTimeoutS} s)` : ""}\n${clip(output, CAPS.runOutput)}`);
    });
    child.on("error", (e) => done(`error: ${e.message}`));
  });
}

async function tool(call: Call): Promise<string> {
  try {
    switch (call.name) {
      case "list_files":
        return listFiles(call.args.path);
      case "read_file": {
        const full = inside(call.args.path);
        if (statSync(full).size > CAPS.readBytes) return clip(readFileSync(full, "utf8").slice(0, CAPS.readBytes), CAPS.readBytes) + "\n[file continues]";
        return readFileSync(full, "utf8");
      }
      case "write_file": {
        const full = inside(call.args.path);
        if (typeof call.args.content !== "string") return "error: content must be a string";
        mkdirSync(dirname(full), { recursive: true });
        writeFileSync(full, call.args.content);
        return `wrote ${call.args.content.length} characters to ${relative(workspace, full)}`;
      }
      case "run":
        return await runCommand(call.args.command);
      case "finish":
        return "ok";
      default:
        return `error: no tool named ${call.name}`;
    }
  } catch (error) {
    return `error: ${(error as Error).message}`;
  }
}

async function main(): Promise<number> {
  const prompt = readFileSync(env.BENCHCARD_PROMPT_FILE ?? "", "utf8");
  const dialect = api === "anthropic-messages" ? anthropicMessages(prompt) : api === "openai-responses" ? openaiResponses(prompt) : openaiChat(prompt);
  note({ event: "start", version: CHAT_AGENT_VERSION, api, model, controls });
  let steps = 0;
  let toolCalls = 0;
  const usage = () => {
    if (env.BENCHCARD_USAGE_FILE !== undefined) writeFileSync(env.BENCHCARD_USAGE_FILE, JSON.stringify({ steps, tool_calls: toolCalls, model }));
  };
  try {
    while (steps < maxSteps) {
      steps++;
      let response: Response;
      try {
        response = await fetch(dialect.url, { method: "POST", headers: { "content-type": "application/json", ...dialect.headers }, body: JSON.stringify(dialect.body()) });
      } catch (error) {
        note({ event: "error", step: steps, error: (error as Error).message });
        return 75;
      }
      const text = await response.text();
      if (!response.ok) {
        note({ event: "error", step: steps, status: response.status, body: text });
        // 429 and 5xx: the endpoint failed (infra); anything else ends the attempt as it stands.
        return response.status === 429 || response.status >= 500 ? 75 : 0;
      }
      const turn = dialect.read(parseArgs(text));
      note({ event: "assistant", step: steps, text: turn.text, tool_calls: turn.calls.map((c) => ({ name: c.name, args: c.args })) });
      if (turn.calls.length === 0) return 0;
      const results: { call: Call; output: string }[] = [];
      let finished = false;
      for (const call of turn.calls) {
        toolCalls++;
        const output = await tool(call);
        note({ event: "tool", step: steps, name: call.name, result: output });
        results.push({ call, output });
        if (call.name === "finish") finished = true;
      }
      dialect.results(results);
      if (finished) return 0;
    }
    note({ event: "stop", reason: `max_steps ${maxSteps} reached` });
    return 0;
  } finally {
    usage();
  }
}

process.exitCode = await main();
