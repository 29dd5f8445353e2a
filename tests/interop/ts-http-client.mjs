// The official TypeScript SDK client over Streamable HTTP
// (StreamableHTTPClientTransport) against an mcpgen-generated server (the
// weather example started with `--http`): initialize, list every page of
// tools, call get_forecast, call watch_radar with an onprogress callback
// (the progress notifications come on the POST's SSE stream), end the
// session with DELETE (terminateSession) and close the transport. Prints one
// JSON summary on stdout for examples/weather-server/tests/peers.rs.
//
// Every HTTP exchange of the transport is recorded in `summary.http`
// (method, JSON-RPC method of the body, status, response content type and
// the session/protocol headers sent), so the test can check the wire too.
//
// Copied into the interop folder before running, so that it resolves
// @modelcontextprotocol/sdk from there. Usage: node ts-http-client.mjs URL
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";

const [url] = process.argv.slice(2);
if (!url) {
  console.error("usage: node ts-http-client.mjs URL");
  process.exit(2);
}

const http = [];
// fetch as the transport uses it, with a log line per exchange.
async function loggingFetch(input, init = {}) {
  const headers = new Headers(init.headers ?? {});
  let rpc = null;
  if (typeof init.body === "string") {
    try {
      const body = JSON.parse(init.body);
      rpc = Array.isArray(body) ? body.map((m) => m.method ?? "response") : (body.method ?? "response");
    } catch {
      rpc = "unparsable";
    }
  }
  const entry = {
    method: init.method ?? "GET",
    rpc,
    sessionSent: headers.get("mcp-session-id"),
    protocolVersionSent: headers.get("mcp-protocol-version"),
  };
  http.push(entry);
  const response = await fetch(input, init);
  entry.status = response.status;
  entry.contentType = response.headers.get("content-type");
  entry.sessionReceived = response.headers.get("mcp-session-id");
  return response;
}

const errors = [];
const transport = new StreamableHTTPClientTransport(new URL(url), { fetch: loggingFetch });
const client = new Client({ name: "ts-http-interop", version: "1.0.0" });
client.onerror = (e) => errors.push(String(e?.message ?? e));
await client.connect(transport);

const summary = {
  protocolVersion: transport.protocolVersion,
  sessionId: transport.sessionId ?? null,
  serverInfo: client.getServerVersion(),
  capabilities: client.getServerCapabilities(),
  pages: 0,
  tools: [],
  calls: {},
};

let cursor;
do {
  const page = await client.listTools(cursor ? { cursor } : {});
  summary.pages += 1;
  summary.tools.push(...page.tools);
  cursor = page.nextCursor;
} while (cursor);

summary.calls.get_forecast = await client.callTool({ name: "get_forecast", arguments: { city: "Oslo" } });
summary.calls.convert_temperature = await client.callTool({
  name: "convert_temperature",
  arguments: { value: 100, from: "celsius", to: "fahrenheit" },
});

const progress = [];
summary.calls.watch_radar = await client.callTool({ name: "watch_radar", arguments: { steps: 3, step_ms: 5 } }, undefined, {
  onprogress: (p) => progress.push(p),
});
summary.progress = progress;
summary.ping = await client.ping();

// DELETE with the session id; the transport throws unless 2xx or 405.
const session = transport.sessionId;
await transport.terminateSession();
summary.sessionAfterDelete = transport.sessionId ?? null;
// Errors the client saw while the session was live (closing aborts the
// standalone GET stream, which the transport reports as an error too).
summary.errors = [...errors];
await client.close();

// The ended session must be gone: a request naming it is 404.
if (session) {
  const response = await fetch(url, {
    method: "POST",
    headers: {
      "content-type": "application/json",
      accept: "application/json, text/event-stream",
      "mcp-session-id": session,
      "mcp-protocol-version": summary.protocolVersion,
    },
    body: JSON.stringify({ jsonrpc: "2.0", id: 99, method: "tools/list", params: {} }),
  });
  summary.afterDelete = { status: response.status, body: await response.text() };
}

summary.http = http;
console.log(JSON.stringify(summary));
