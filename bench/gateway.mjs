// Per-request overhead of benchcard's model gateway: the same chat request sent to the scripted
// model server directly, through the gateway's Unix socket, and through the gateway behind the
// sandbox bridge's loopback relay (the path an agent's requests take), alternating, side by side
// in one run. JSON and streamed answers both.
// Run: npm run bench:gateway      Target: under 2 ms added per request (median).
import { spawn } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { Agent, request } from "node:http";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { ROOT, median } from "./common.mjs";

const { startModelServer } = await import(`${ROOT}dist/testing/model-server.js`);
const { startGateway } = await import(`${ROOT}dist/gateway/gateway.js`);
const { EndpointSchema, clientEnv } = await import(`${ROOT}dist/core/gateway/endpoint.js`);
const { BRIDGE_SOURCE } = await import(`${ROOT}dist/sandbox/proxy.js`);

const dir = mkdtempSync(join(tmpdir(), "benchcard-bench-gateway-"));
const server = await startModelServer([{ match: "bench", turns: [{ text: "ok" }] }]);
const endpoint = EndpointSchema.parse({ api: "openai-chat", base_url: server.url, model: "m", api_key_env: "K" });
const gateway = await startGateway({ socketPath: join(dir, "g"), endpoint, key: "sk-bench", caps: { max_output_tokens: "unknown", max_steps: "unknown" }, logFile: join(dir, "gateway.jsonl") });

// The real bridge, as the sandbox runs it: its child prints the relay URL and waits.
writeFileSync(join(dir, "bridge.mjs"), BRIDGE_SOURCE);
writeFileSync(join(dir, "bridge.json"), JSON.stringify({ gateway: { socket: gateway.socketPath, env: clientEnv(endpoint, "{origin}/v1") } }));
const bridge = spawn(process.execPath, [join(dir, "bridge.mjs"), join(dir, "bridge.json"), process.execPath, "-e", "console.log(process.env.BENCHCARD_MODEL_BASE_URL); setInterval(() => {}, 1e9)"], { stdio: ["ignore", "pipe", "inherit"], detached: true });
const relayUrl = new URL(await new Promise((resolve) => bridge.stdout.once("data", (c) => resolve(String(c).trim()))));

const agent = new Agent({ keepAlive: true, maxSockets: 1 });
const send = (target, stream) =>
  new Promise((resolve, reject) => {
    const body = JSON.stringify({ model: "m", stream, messages: [{ role: "user", content: "bench request" }] });
    const started = performance.now();
    const req = request({ ...target, path: "/v1/chat/completions", method: "POST", agent: target.socketPath === undefined ? agent : undefined, headers: { "content-type": "application/json", authorization: "Bearer stand-in" } }, (res) => {
      res.resume();
      res.on("end", () => (res.statusCode === 200 ? resolve(performance.now() - started) : reject(new Error(`status ${res.statusCode}`))));
    });
    req.on("error", reject);
    req.end(body);
  });

const paths = {
  direct: { host: "127.0.0.1", port: server.port },
  "gateway (socket)": { socketPath: gateway.socketPath },
  "bridge + gateway": { host: "127.0.0.1", port: Number(relayUrl.port) },
};
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 1000);
try {
  for (const stream of [false, true]) {
    const times = Object.fromEntries(Object.keys(paths).map((k) => [k, []]));
    for (let i = 0; i < ROUNDS + 50; i++) {
      for (const [name, target] of Object.entries(paths)) {
        const ms = await send(target, stream);
        if (i >= 50) times[name].push(ms);
      }
    }
    const base = median(times.direct);
    console.log(`${stream ? "streamed" : "JSON"} answers: per-request wall time, median of ${ROUNDS} (after 50 warm-ups), alternating paths:`);
    for (const [name, xs] of Object.entries(times)) {
      const m = median(xs);
      console.log(`  ${name.padEnd(18)} ${m.toFixed(3)} ms   ratio ${(m / base).toFixed(2)}   added ${(m - base).toFixed(3)} ms`);
    }
  }
  const totals = gateway.totals();
  console.log(`gateway metered ${totals.requests} requests, ${totals.output_tokens} output tokens; unmetered ${totals.unmetered_responses}`);
} finally {
  process.kill(-bridge.pid, "SIGKILL");
  agent.destroy();
  await gateway.close();
  await server.close();
  rmSync(dir, { recursive: true, force: true });
}
