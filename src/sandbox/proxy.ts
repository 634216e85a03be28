import { appendFileSync } from "node:fs";
import { connect, createServer, type Server, type Socket } from "node:net";

/**
 * The egress proxy a run owns for an attempt whose network is an allowlist. It listens on a
 * Unix socket that is mounted into the sandbox (nothing inside can open any other socket out)
 * and serves CONNECT (HTTPS) and absolute-form plain HTTP to allowed host:port pairs only.
 * Every decision is appended to a log in the attempt's artifacts.
 */
export interface EgressProxy {
  socketPath: string;
  decisions: { allowed: number; denied: number };
  close(): Promise<void>;
}

export function startEgressProxy(options: { socketPath: string; allow: readonly string[]; logFile: string }): Promise<EgressProxy> {
  const allowed = new Set(options.allow.map((a) => a.toLowerCase()));
  const decisions = { allowed: 0, denied: 0 };
  const sockets = new Set<Socket>();
  const log = (verdict: "allow" | "deny", target: string, how: string) => {
    decisions[verdict === "allow" ? "allowed" : "denied"]++;
    appendFileSync(options.logFile, `${new Date().toISOString()} ${verdict} ${how} ${target}\n`);
  };
  const server: Server = createServer((client) => {
    sockets.add(client);
    client.on("close", () => sockets.delete(client));
    client.on("error", () => client.destroy());
    let head = Buffer.alloc(0);
    const onData = (chunk: Buffer) => {
      head = Buffer.concat([head, chunk]);
      const end = head.indexOf("\r\n\r\n");
      if (end < 0) {
        if (head.length > 65536) client.destroy();
        return;
      }
      client.off("data", onData);
      const text = head.subarray(0, end).toString("latin1");
      const rest = head.subarray(end + 4);
      const [requestLine = "", ...headerLines] = text.split("\r\n");
      const [method = "", target = "", version = "HTTP/1.1"] = requestLine.split(" ");
      let host: string;
      let port: number;
      let forward: Buffer | null = null;
      if (method.toUpperCase() === "CONNECT") {
        const match = /^\[?([^\]]+?)\]?:(\d+)$/.exec(target);
        if (match === null) return refuse(client, 400, "bad CONNECT target");
        host = match[1] as string;
        port = Number(match[2]);
      } else {
        let url: URL;
        try {
          url = new URL(target);
        } catch {
          return refuse(client, 400, "expected an absolute URL");
        }
        if (url.protocol !== "http:") return refuse(client, 400, "only http:// URLs or CONNECT");
        host = url.hostname.replace(/^\[|\]$/g, "");
        port = url.port === "" ? 80 : Number(url.port);
        const kept = headerLines.filter((h) => !/^proxy-/i.test(h));
        forward = Buffer.concat([Buffer.from(`${method} ${url.pathname}${url.search} ${version}\r\n${kept.join("\r\n")}\r\n\r\n`, "latin1"), rest]);
      }
      const key = `${host.toLowerCase()}:${port}`;
      if (!allowed.has(key)) {
        log("deny", key, method.toUpperCase());
        return refuse(client, 403, `${key} is not in the allowlist`);
      }
      log("allow", key, method.toUpperCase());
      const upstream = connect({ host, port });
      sockets.add(upstream);
      upstream.on("close", () => sockets.delete(upstream));
      upstream.on("error", () => refuse(client, 502, "upstream unreachable"));
      upstream.once("connect", () => {
        if (forward === null) {
          client.write("HTTP/1.1 200 Connection Established\r\n\r\n");
          if (rest.length > 0) upstream.write(rest);
        } else upstream.write(forward);
        client.pipe(upstream);
        upstream.pipe(client);
      });
    };
    client.on("data", onData);
  });
  return new Promise((resolve, reject) => {
    server.once("error", reject);
    server.listen(options.socketPath, () =>
      resolve({
        socketPath: options.socketPath,
        decisions,
        close: () =>
          new Promise<void>((done) => {
            for (const s of sockets) s.destroy();
            server.close(() => done());
          }),
      }),
    );
  });
}

function refuse(client: Socket, status: number, why: string): void {
  const text = { 400: "Bad Request", 403: "Forbidden", 502: "Bad Gateway" }[status] ?? "Error";
  if (!client.destroyed) client.end(`HTTP/1.1 ${status} ${text}\r\nContent-Type: text/plain\r\nConnection: close\r\n\r\nbenchcard egress proxy: ${why}\n`);
}

/** What the bridge relays: the egress proxy's socket, the model gateway's socket, or both. */
export interface BridgeConfig {
  /** The egress proxy's Unix socket: the agent gets HTTP(S)_PROXY pointing at a relay to it. */
  proxy?: string;
  /**
   * The model gateway's Unix socket, and the variables that tell the agent where it is; in their
   * values, {origin} becomes the relay's http://127.0.0.1:<port>.
   */
  gateway?: { socket: string; env: Record<string, string> };
}

/**
 * The bridge that runs inside the sandbox: for each socket in its config (a JSON file, argv[2])
 * it listens on a loopback port of the sandbox's own network namespace and relays every
 * connection to that host socket; then it runs the agent (the rest of argv) with the variables
 * that name those ports, and exits with the agent's status. Written to a file the sandbox can
 * read, and run by the system's node. It holds no secret: the key is added on the host.
 */
export const BRIDGE_SOURCE = `import { createServer, connect } from "node:net";
import { spawn } from "node:child_process";
import { readFileSync } from "node:fs";
const config = JSON.parse(readFileSync(process.argv[2], "utf8"));
const argv = process.argv.slice(3);
const relay = (socketPath) => new Promise((resolve, reject) => {
  const server = createServer((c) => { const u = connect(socketPath); c.setNoDelay(true); c.pipe(u); u.pipe(c); u.on("error", () => c.destroy()); c.on("error", () => u.destroy()); });
  server.on("error", reject);
  server.listen(0, "127.0.0.1", () => resolve("http://127.0.0.1:" + server.address().port));
});
const env = { ...process.env };
if (config.proxy) {
  const proxy = await relay(config.proxy);
  Object.assign(env, { HTTP_PROXY: proxy, HTTPS_PROXY: proxy, http_proxy: proxy, https_proxy: proxy });
}
if (config.gateway) {
  const origin = await relay(config.gateway.socket);
  for (const [name, value] of Object.entries(config.gateway.env)) env[name] = value.replaceAll("{origin}", origin);
  // The gateway's relay is reached directly, never through the egress proxy (other loopback targets still are).
  if (config.proxy) env.NO_PROXY = env.no_proxy = origin.slice("http://".length);
}
const child = spawn(argv[0], argv.slice(1), { stdio: "inherit", env });
child.on("error", (e) => { console.error("benchcard bridge: " + e.message); process.exit(127); });
child.on("exit", (code) => process.exit(code ?? 128));
`;
