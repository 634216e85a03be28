import { appendFileSync } from "node:fs";
import { Agent as HttpAgent, createServer, request as httpRequest, type IncomingMessage, type OutgoingHttpHeaders, type Server, type ServerResponse } from "node:http";
import { Agent as HttpsAgent, request as httpsRequest } from "node:https";
import type { Socket } from "node:net";
import { DROPPED_HEADERS, forwardedRequest, keyHeader, type Endpoint } from "../core/gateway/endpoint.js";
import { capReached, isEndpointFailure, ResponseMeter, wantsStream, withStreamUsage, type GatewayCaps, type GatewayTotals } from "../core/gateway/meter.js";

/**
 * The model gateway a run owns for an attempt whose agent names an endpoint. It listens on a
 * Unix socket that the sandbox's bridge relays a loopback port to, adds the key from the host's
 * environment (the agent only ever holds a stand-in), forwards to the real endpoint, retries
 * refused connections, 5xx and 429 within the spec's budget, meters the tokens each response
 * reports, and refuses further requests once a cap of the envelope is reached. One line per
 * request goes to gateway.jsonl in the attempt's artifacts: never a header, a body or the key.
 */
export interface Gateway {
  socketPath: string;
  totals(): GatewayTotals;
  close(): Promise<void>;
}

export interface GatewayOptions {
  socketPath: string;
  endpoint: Endpoint;
  /** The key's value, read from the host's environment by the caller; null for an endpoint without one. */
  key: string | null;
  caps: GatewayCaps;
  logFile: string;
  /** First retry's wait; doubles each time (a Retry-After of up to 10 s is honoured instead). */
  backoffMs?: number;
}

/** The largest request body the gateway forwards. */
export const MAX_REQUEST_BYTES = 32 * 1024 * 1024;

export function startGateway(options: GatewayOptions): Promise<Gateway> {
  const { endpoint } = options;
  const upstreamUrl = new URL(endpoint.base_url);
  const secure = upstreamUrl.protocol === "https:";
  const agent = secure ? new HttpsAgent({ keepAlive: true }) : new HttpAgent({ keepAlive: true });
  const send = secure ? httpsRequest : httpRequest;
  const backoffMs = options.backoffMs ?? 250;
  const latencies: number[] = [];
  const totals: GatewayTotals = {
    requests: 0, refused_by_cap: 0, upstream_failures: 0, unmetered_responses: 0,
    input_tokens: 0, output_tokens: 0, median_latency_ms: null, cap: null, last_failure: null,
  };
  const sockets = new Set<Socket>();
  const log = (entry: Record<string, unknown>) => appendFileSync(options.logFile, `${JSON.stringify({ t: new Date().toISOString(), ...entry })}\n`);

  const forward = (path: string, method: string, headers: OutgoingHttpHeaders, body: Buffer): Promise<IncomingMessage> =>
    new Promise((resolve, reject) => {
      const outgoing = send(
        { protocol: upstreamUrl.protocol, hostname: upstreamUrl.hostname, port: upstreamUrl.port, path, method, headers, agent, timeout: endpoint.request_timeout_s * 1000 },
        resolve,
      );
      outgoing.on("timeout", () => outgoing.destroy(Object.assign(new Error("timed out"), { code: "ETIMEDOUT" })));
      outgoing.on("error", reject);
      outgoing.end(body);
    });

  const handle = async (req: IncomingMessage, res: ServerResponse): Promise<void> => {
    const started = performance.now();
    const method = req.method ?? "GET";
    const url = new URL(req.url ?? "/", "http://gateway");
    const entry: Record<string, unknown> = { method, path: url.pathname };
    if (!forwardedRequest(endpoint.api, method, url.pathname)) {
      req.resume();
      reply(res, 403, errorBody(endpoint.api, "benchcard_not_forwarded", `benchcard gateway: ${method} ${url.pathname} is not a ${endpoint.api} request; only generation and model listing are forwarded`));
      log({ ...entry, status: 403, refused: "not forwarded" });
      return;
    }
    const cap = capReached(totals, options.caps);
    if (cap !== null) {
      totals.refused_by_cap++;
      totals.cap = cap;
      req.resume();
      reply(res, 400, errorBody(endpoint.api, "benchcard_cap", `benchcard: ${cap}; no further model requests in this attempt`));
      log({ ...entry, status: 400, refused: cap });
      return;
    }
    totals.requests++;
    const raw = await readBody(req, MAX_REQUEST_BYTES);
    if (raw === null) {
      reply(res, 413, errorBody(endpoint.api, "benchcard_too_large", `benchcard: request bodies are capped at ${MAX_REQUEST_BYTES} bytes`));
      log({ ...entry, status: 413 });
      return;
    }
    let parsed: unknown;
    try {
      parsed = raw.length === 0 ? undefined : JSON.parse(raw.toString("utf8"));
    } catch {
      parsed = undefined;
    }
    const usageAsked = withStreamUsage(endpoint.api, parsed);
    const body = usageAsked.changed ? Buffer.from(JSON.stringify(usageAsked.body)) : raw;
    const headers: OutgoingHttpHeaders = {};
    for (const [name, value] of Object.entries(req.headers)) if (!DROPPED_HEADERS.has(name) && !name.startsWith("proxy-") && value !== undefined) headers[name] = value;
    if (options.key !== null) {
      const [name, value] = keyHeader(endpoint.api, options.key);
      headers[name] = value;
    }
    headers["content-length"] = String(body.length);
    const path = `${url.pathname}${url.search}`;

    let upstream: IncomingMessage | undefined;
    let failure: string | null = null;
    let tries = 0;
    for (;;) {
      tries++;
      try {
        upstream = await forward(path, method, headers, body);
        failure = isEndpointFailure(upstream.statusCode ?? 0) ? `HTTP ${upstream.statusCode}` : null;
      } catch (error) {
        upstream = undefined;
        failure = `connection failed (${(error as NodeJS.ErrnoException).code ?? (error as Error).message})`;
      }
      if (failure === null || tries > endpoint.retries || res.destroyed) break;
      const wait = retryAfterMs(upstream) ?? backoffMs * 2 ** (tries - 1);
      upstream?.resume();
      await sleep(wait);
    }
    Object.assign(entry, { tries, usage_requested: usageAsked.changed });
    if (upstream === undefined) {
      totals.upstream_failures++;
      totals.last_failure = `${failure} after ${tries} tries`;
      reply(res, 502, errorBody(endpoint.api, "benchcard_upstream", `benchcard gateway: the endpoint ${failure}`));
      record(entry, 502, started, failure);
      return;
    }
    const status = upstream.statusCode ?? 502;
    const responseHeaders = { ...upstream.headers };
    for (const name of ["connection", "keep-alive", "transfer-encoding"]) delete responseHeaders[name];
    res.writeHead(status, responseHeaders);
    const streamed = wantsStream(parsed) || /text\/event-stream/i.test(String(upstream.headers["content-type"] ?? ""));
    const meter = new ResponseMeter(endpoint.api, streamed);
    const decoder = new TextDecoder();
    const source = upstream;
    source.on("data", (chunk: Buffer) => meter.push(decoder.decode(chunk, { stream: true })));
    // An agent that hangs up early must not escape metering: the upstream is read to its end
    // (the usage comes last) and only the agent's copy stops. The attempt's end closes it anyway.
    res.on("close", () => {
      source.unpipe(res);
      source.resume();
    });
    await new Promise<void>((done) => {
      source.on("end", done);
      source.on("error", done);
      source.on("close", done);
      source.pipe(res);
    });
    meter.push(decoder.decode());
    const counts = meter.end();
    if (failure !== null) {
      totals.upstream_failures++;
      totals.last_failure = `${failure} after ${tries} tries`;
    } else {
      totals.last_failure = null;
      if (status < 300 && counts.output_tokens === null && counts.input_tokens === null) totals.unmetered_responses++;
    }
    totals.input_tokens += counts.input_tokens ?? 0;
    totals.output_tokens += counts.output_tokens ?? 0;
    Object.assign(entry, { streamed, input_tokens: counts.input_tokens, output_tokens: counts.output_tokens });
    record(entry, status, started, failure);
  };

  const record = (entry: Record<string, unknown>, status: number, started: number, failure: string | null) => {
    const ms = Math.round((performance.now() - started) * 100) / 100;
    latencies.push(ms);
    log({ ...entry, status, ms, ...(failure === null ? {} : { failure }) });
  };

  const server: Server = createServer((req, res) => {
    handle(req, res).catch((error: Error) => {
      if (!res.headersSent) reply(res, 500, errorBody(endpoint.api, "benchcard_gateway", `benchcard gateway: ${error.message}`));
      else res.destroy();
    });
  });
  server.on("connection", (socket) => {
    sockets.add(socket);
    socket.on("close", () => sockets.delete(socket));
  });
  return new Promise((resolve, reject) => {
    server.once("error", reject);
    server.listen(options.socketPath, () =>
      resolve({
        socketPath: options.socketPath,
        totals: () => ({ ...totals, median_latency_ms: median(latencies) }),
        close: () =>
          new Promise<void>((done) => {
            for (const s of sockets) s.destroy();
            agent.destroy();
            server.close(() => done());
          }),
      }),
    );
  });
}

function readBody(req: IncomingMessage, cap: number): Promise<Buffer | null> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    let over = false;
    req.on("data", (chunk: Buffer) => {
      size += chunk.length;
      if (size > cap) over = true;
      else chunks.push(chunk);
    });
    req.on("end", () => resolve(over ? null : Buffer.concat(chunks)));
    req.on("error", reject);
  });
}

/** An error body in the API's own shape, so the agent's client reports it as an API error. */
function errorBody(api: Endpoint["api"], type: string, message: string): string {
  return JSON.stringify(api === "anthropic-messages" ? { type: "error", error: { type, message } } : { error: { type, code: type, message } });
}

function reply(res: ServerResponse, status: number, body: string): void {
  if (res.headersSent || res.destroyed) return;
  res.writeHead(status, { "content-type": "application/json", "content-length": Buffer.byteLength(body) });
  res.end(body);
}

function retryAfterMs(response: IncomingMessage | undefined): number | null {
  const header = response?.headers["retry-after"];
  if (typeof header !== "string") return null;
  const seconds = Number(header);
  return Number.isFinite(seconds) && seconds >= 0 ? Math.min(seconds * 1000, 10_000) : null;
}

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

function median(xs: readonly number[]): number | null {
  if (xs.length === 0) return null;
  const sorted = [...xs].sort((a, b) => a - b);
  const mid = sorted.length >> 1;
  return sorted.length % 2 === 1 ? sorted[mid]! : Math.round(((sorted[mid - 1]! + sorted[mid]!) / 2) * 100) / 100;
}
