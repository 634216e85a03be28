import assert from "node:assert/strict";
import { request } from "node:http";
import { readFile } from "node:fs/promises";
import { join } from "node:path";
import test, { type TestContext } from "node:test";
import { EndpointSchema, type ModelApi } from "../core/gateway/endpoint.js";
import { ResponseMeter } from "../core/gateway/meter.js";
import { tempDir } from "../testing/helpers.js";
import { refusingPort, startModelServer, type Scenario } from "../testing/model-server.js";
import { startGateway } from "./gateway.js";

const KEY = "sk-test-d1e5c0ffee-never-in-the-sandbox";
const SCRIPT: Scenario[] = [{ match: "fix it", turns: [{ calls: [{ name: "read_file", args: { path: "a.py" } }] }, { text: "done" }] }];
const PATHS: Record<ModelApi, string> = { "openai-chat": "/v1/chat/completions", "openai-responses": "/v1/responses", "anthropic-messages": "/v1/messages" };

function bodyFor(api: ModelApi, stream: boolean): unknown {
  if (api === "openai-responses") return { model: "m", input: [{ role: "user", content: "please fix it" }], stream };
  return { model: "m", max_tokens: 100, messages: [{ role: "user", content: "please fix it" }], stream };
}

/** One request through the gateway's Unix socket, as the sandbox's bridge would relay it. */
function viaSocket(socketPath: string, path: string, body: unknown, headers: Record<string, string> = {}): Promise<{ status: number; text: string }> {
  return new Promise((resolve, reject) => {
    const data = JSON.stringify(body);
    const req = request({ socketPath, path, method: "POST", headers: { "content-type": "application/json", authorization: "Bearer stand-in", "x-api-key": "stand-in", ...headers } }, (res) => {
      const chunks: Buffer[] = [];
      res.on("data", (c: Buffer) => chunks.push(c));
      res.on("end", () => resolve({ status: res.statusCode ?? 0, text: Buffer.concat(chunks).toString("utf8") }));
    });
    req.on("error", reject);
    req.end(data);
  });
}

async function gatewayFor(t: TestContext, api: ModelApi, baseUrl: string, caps = { max_output_tokens: "unknown" as const, max_steps: "unknown" as const } as { max_output_tokens: number | "unknown"; max_steps: number | "unknown" }, retries = 2) {
  const dir = await tempDir(t);
  const logFile = join(dir, "gateway.jsonl");
  const endpoint = EndpointSchema.parse({ api, base_url: baseUrl, model: "m", api_key_env: "MODEL_API_KEY", retries });
  const gateway = await startGateway({ socketPath: join(dir, "g.sock"), endpoint, key: KEY, caps, logFile, backoffMs: 5 });
  t.after(() => gateway.close());
  return { gateway, logFile };
}

for (const api of ["openai-chat", "openai-responses", "anthropic-messages"] as const) {
  test(`gateway (${api}): adds the key, meters JSON and streamed usage as the server reported it, and logs no secret`, async (t) => {
    const server = await startModelServer(SCRIPT);
    t.after(() => server.close());
    const { gateway, logFile } = await gatewayFor(t, api, server.url);
    const plain = await viaSocket(gateway.socketPath, PATHS[api], bodyFor(api, false));
    assert.equal(plain.status, 200, plain.text);
    const streamed = await viaSocket(gateway.socketPath, PATHS[api], bodyFor(api, true));
    assert.equal(streamed.status, 200);
    assert.match(streamed.text, /^(event|data):/m);
    assert.equal(server.requests.length, 2);
    for (const seen of server.requests) {
      if (api === "anthropic-messages") {
        assert.equal(seen.apiKey, KEY);
        assert.equal(seen.authorization, undefined);
      } else {
        assert.equal(seen.authorization, `Bearer ${KEY}`);
        assert.equal(seen.apiKey, undefined);
      }
    }
    // The gateway asks an OpenAI chat stream for its usage, so a client that did not is still metered.
    if (api === "openai-chat") assert.equal(server.requests[1]!.includeUsage, true);
    const reported = server.requests.map((r) => r.usage!);
    const totals = gateway.totals();
    assert.equal(totals.requests, 2);
    assert.equal(totals.input_tokens, reported[0]!.input + reported[1]!.input);
    assert.equal(totals.output_tokens, reported[0]!.output + reported[1]!.output);
    assert.equal(totals.unmetered_responses, 0);
    assert.equal(totals.last_failure, null);
    const log = await readFile(logFile, "utf8");
    assert.equal(log.trim().split("\n").length, 2);
    assert.doesNotMatch(log, /d1e5c0ffee|stand-in/);
  });
}

test("gateway: retries a transient 500 within the budget; a lasting 429 or a refused connection is an endpoint failure", async (t) => {
  const server = await startModelServer(SCRIPT);
  t.after(() => server.close());
  const { gateway } = await gatewayFor(t, "openai-chat", server.url, undefined, 2);
  server.fail("500", 2);
  const recovered = await viaSocket(gateway.socketPath, PATHS["openai-chat"], bodyFor("openai-chat", false));
  assert.equal(recovered.status, 200);
  assert.equal(server.requests.length, 3);
  assert.equal(gateway.totals().last_failure, null);
  server.fail("429");
  const limited = await viaSocket(gateway.socketPath, PATHS["openai-chat"], bodyFor("openai-chat", false));
  assert.equal(limited.status, 429);
  assert.equal(server.requests.length, 6);
  assert.match(gateway.totals().last_failure ?? "", /HTTP 429 after 3 tries/);
  server.fail("none");
  await viaSocket(gateway.socketPath, PATHS["openai-chat"], bodyFor("openai-chat", false));
  assert.equal(gateway.totals().last_failure, null, "a later success is a recovery");
  assert.equal(gateway.totals().upstream_failures, 1);

  const closed = await gatewayFor(t, "openai-chat", `http://127.0.0.1:${await refusingPort()}/v1`, undefined, 1);
  const refused = await viaSocket(closed.gateway.socketPath, PATHS["openai-chat"], bodyFor("openai-chat", false));
  assert.equal(refused.status, 502);
  assert.match(JSON.parse(refused.text).error.message, /ECONNREFUSED/);
  assert.match(closed.gateway.totals().last_failure ?? "", /connection failed \(ECONNREFUSED\) after 2 tries/);
});

test("gateway: refuses requests past max_steps or once metered output reaches max_output_tokens", async (t) => {
  const server = await startModelServer(SCRIPT);
  t.after(() => server.close());
  const steps = await gatewayFor(t, "openai-chat", server.url, { max_output_tokens: "unknown", max_steps: 2 });
  for (let i = 0; i < 2; i++) assert.equal((await viaSocket(steps.gateway.socketPath, PATHS["openai-chat"], bodyFor("openai-chat", false))).status, 200);
  const third = await viaSocket(steps.gateway.socketPath, PATHS["openai-chat"], bodyFor("openai-chat", false));
  assert.equal(third.status, 400);
  assert.match(third.text, /benchcard_cap/);
  assert.equal(server.requests.length, 2, "a refused request never reaches the endpoint");
  assert.match(steps.gateway.totals().cap ?? "", /max_steps 2/);

  const tokens = await gatewayFor(t, "anthropic-messages", server.url, { max_output_tokens: 1, max_steps: "unknown" });
  assert.equal((await viaSocket(tokens.gateway.socketPath, PATHS["anthropic-messages"], bodyFor("anthropic-messages", true))).status, 200);
  const next = await viaSocket(tokens.gateway.socketPath, PATHS["anthropic-messages"], bodyFor("anthropic-messages", true));
  assert.equal(next.status, 400);
  assert.equal(JSON.parse(next.text).type, "error");
  assert.match(tokens.gateway.totals().cap ?? "", /max_output_tokens 1/);
});

test("gateway: forwards only the API's generation and model-listing requests; nothing else reaches the endpoint unmetered", async (t) => {
  const server = await startModelServer(SCRIPT);
  t.after(() => server.close());
  const { gateway } = await gatewayFor(t, "openai-chat", server.url);
  for (const path of ["/v1/embeddings", "/v1/responses", "/v1/files", "/v1/messages"]) {
    const r = await viaSocket(gateway.socketPath, path, bodyFor("openai-chat", false));
    assert.equal(r.status, 403, path);
  }
  assert.equal(server.requests.length, 0);
  assert.equal((await viaSocket(gateway.socketPath, "/v1/chat/completions", bodyFor("openai-chat", false))).status, 200);
});

test("gateway: an agent that hangs up before a stream's usage arrives is still metered in full", async (t) => {
  const server = await startModelServer(SCRIPT, { holdLastEventsMs: 200 });
  t.after(() => server.close());
  for (const api of ["anthropic-messages", "openai-chat", "openai-responses"] as const) {
    const { gateway } = await gatewayFor(t, api, server.url);
    await new Promise<void>((resolve, reject) => {
      const req = request({ socketPath: gateway.socketPath, path: PATHS[api], method: "POST", headers: { "content-type": "application/json" } }, (res) => {
        // The first bytes are enough: hang up before the usage comes.
        res.once("data", () => {
          req.destroy();
          resolve();
        });
      });
      req.on("error", () => undefined);
      req.end(JSON.stringify(bodyFor(api, true)));
      req.on("close", () => resolve());
      setTimeout(() => reject(new Error("no answer")), 5000);
    });
    await new Promise((r) => setTimeout(r, 600));
    const reported = server.requests.at(-1)!.usage!;
    assert.equal(gateway.totals().output_tokens, reported.output, api);
    assert.equal(gateway.totals().input_tokens, reported.input, api);
  }
});

test("meter: stream events split anywhere are read whole; cumulative counts are not added twice", () => {
  const stream =
    'event: message_start\ndata: {"type":"message_start","message":{"usage":{"input_tokens":40,"cache_read_input_tokens":2,"output_tokens":1}}}\n\n' +
    'event: message_delta\ndata: {"type":"message_delta","usage":{"output_tokens":7}}\n\n' +
    'event: message_delta\ndata: {"type":"message_delta","usage":{"output_tokens":9}}\n\n';
  for (const size of [1, 3, 17, stream.length]) {
    const meter = new ResponseMeter("anthropic-messages", true);
    for (let i = 0; i < stream.length; i += size) meter.push(stream.slice(i, i + size));
    assert.deepEqual(meter.end(), { input_tokens: 42, output_tokens: 9 });
  }
  const none = new ResponseMeter("openai-chat", false);
  none.push('{"choices":[]}');
  assert.deepEqual(none.end(), { input_tokens: null, output_tokens: null });
});
