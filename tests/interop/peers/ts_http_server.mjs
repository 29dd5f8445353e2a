// A reference peer for the HTTP tests: the official TypeScript SDK
// (@modelcontextprotocol/sdk, pinned in tests/interop/packages.txt) serving
// the conformance suite's tool fixtures over Streamable HTTP (stateful
// sessions, SSE responses, GET stream, DELETE) or over stdio. The SDK 1.x
// line speaks the handshake era only (up to 2025-11-25): this peer answers no
// server/discover and is not a 2026-07-28 reference.
//
// It resolves the SDK and zod from the folder it runs in, so copy it into
// .interop/ first (scripts/setup-interop.sh installs the packages there):
//   cp tests/interop/peers/ts_http_server.mjs .interop/
//   node .interop/ts_http_server.mjs [--port N]   # prints its URL, then serves
//   node .interop/ts_http_server.mjs --stdio
// With --port 0 (the default) the system picks a free port; the first line
// on stdout is the endpoint URL, e.g. http://127.0.0.1:40123/mcp.
//
// Tools (names and results as the conformance server scenarios expect):
//   test_simple_text, test_image_content, test_audio_content,
//   test_embedded_resource, test_multiple_content_types, test_error_handling,
//   test_tool_with_progress, test_tool_with_logging,
//   add_numbers {a, b}, echo {text}
import { randomUUID } from "node:crypto";
import { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import { StreamableHTTPServerTransport } from "@modelcontextprotocol/sdk/server/streamableHttp.js";
import { StdioServerTransport } from "@modelcontextprotocol/sdk/server/stdio.js";
import { createMcpExpressApp } from "@modelcontextprotocol/sdk/server/express.js";
import { isInitializeRequest } from "@modelcontextprotocol/sdk/types.js";
import { z } from "zod";

// A 1x1 red PNG and an 8-sample silent 8 kHz WAV.
const PNG = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAIAAACQd1PeAAAADElEQVR4nGP4z8AAAAMBAQDJ/pLvAAAAAElFTkSuQmCC";
const WAV = "UklGRiwAAABXQVZFZm10IBAAAAABAAEAQB8AAEAfAAABAAgAZGF0YQgAAACAgICAgICAgA==";
const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

function buildServer() {
  const server = new McpServer(
    { name: "mcpgen-ts-reference-peer", version: "1.0.0" },
    { capabilities: { logging: {} } },
  );
  const text = (t) => ({ content: [{ type: "text", text: t }] });

  server.registerTool("test_simple_text", { description: "Returns one text item" }, async () =>
    text("This is a simple text response for testing."),
  );
  server.registerTool("test_image_content", { description: "Returns one PNG image" }, async () => ({
    content: [{ type: "image", data: PNG, mimeType: "image/png" }],
  }));
  server.registerTool("test_audio_content", { description: "Returns one WAV clip" }, async () => ({
    content: [{ type: "audio", data: WAV, mimeType: "audio/wav" }],
  }));
  server.registerTool("test_embedded_resource", { description: "Returns an embedded text resource" }, async () => ({
    content: [
      {
        type: "resource",
        resource: { uri: "test://embedded-resource", mimeType: "text/plain", text: "This is an embedded resource content." },
      },
    ],
  }));
  server.registerTool("test_multiple_content_types", { description: "Returns text, image and resource" }, async () => ({
    content: [
      { type: "text", text: "Multiple content types test:" },
      { type: "image", data: PNG, mimeType: "image/png" },
      {
        type: "resource",
        resource: { uri: "test://mixed-content-resource", mimeType: "application/json", text: '{"test":"data","value":123}' },
      },
    ],
  }));
  server.registerTool("test_error_handling", { description: "Always fails with isError" }, async () => ({
    isError: true,
    content: [{ type: "text", text: "This tool intentionally returns an error for testing" }],
  }));
  server.registerTool("test_tool_with_progress", { description: "Reports progress 0, 50, 100 of 100" }, async (extra) => {
    const token = extra._meta?.progressToken;
    for (const progress of [0, 50, 100]) {
      if (token !== undefined) {
        await extra.sendNotification({ method: "notifications/progress", params: { progressToken: token, progress, total: 100 } });
      }
      if (progress < 100) await sleep(50);
    }
    return text("Progress test completed");
  });
  server.registerTool("test_tool_with_logging", { description: "Logs three info messages" }, async (extra) => {
    for (const [i, data] of ["Tool execution started", "Tool processing data", "Tool execution completed"].entries()) {
      if (i > 0) await sleep(50);
      await server.sendLoggingMessage({ level: "info", data }, extra.sessionId);
    }
    return text("Logging test completed");
  });
  server.registerTool(
    "add_numbers",
    { description: "Adds two numbers", inputSchema: { a: z.number(), b: z.number() } },
    async ({ a, b }) => ({ content: [{ type: "text", text: `The sum of ${a} and ${b} is ${a + b}` }], structuredContent: { sum: a + b } }),
  );
  server.registerTool("echo", { description: "Echoes its text", inputSchema: { text: z.string() } }, async ({ text: t }) =>
    text(t),
  );
  return server;
}

const args = process.argv.slice(2);
if (args.includes("--stdio")) {
  await buildServer().connect(new StdioServerTransport());
} else {
  const portArg = args.indexOf("--port");
  const port = portArg >= 0 ? Number(args[portArg + 1]) : 0;
  // Host validation against DNS rebinding: 403 unless Host is localhost,
  // 127.0.0.1 or [::1] (the SDK's middleware for localhost binds).
  const app = createMcpExpressApp({ host: "127.0.0.1" });
  const sessions = new Map();
  const rpcError = (res, status, code, message) =>
    res.status(status).json({ jsonrpc: "2.0", error: { code, message }, id: null });

  app.post("/mcp", async (req, res) => {
    const sid = req.headers["mcp-session-id"];
    if (sid !== undefined) {
      const transport = sessions.get(sid);
      if (!transport) return rpcError(res, 404, -32001, "Session not found");
      return transport.handleRequest(req, res, req.body);
    }
    if (!isInitializeRequest(req.body)) return rpcError(res, 400, -32000, "Bad Request: no session ID and not an initialize request");
    const transport = new StreamableHTTPServerTransport({
      sessionIdGenerator: () => randomUUID(),
      onsessioninitialized: (id) => sessions.set(id, transport),
    });
    transport.onclose = () => {
      if (transport.sessionId) sessions.delete(transport.sessionId);
    };
    await buildServer().connect(transport);
    await transport.handleRequest(req, res, req.body);
  });
  const bySession = async (req, res) => {
    const sid = req.headers["mcp-session-id"];
    if (sid === undefined) return rpcError(res, 400, -32000, "Bad Request: missing Mcp-Session-Id");
    const transport = sessions.get(sid);
    if (!transport) return rpcError(res, 404, -32001, "Session not found");
    await transport.handleRequest(req, res);
  };
  app.get("/mcp", bySession);
  app.delete("/mcp", bySession);

  const listener = app.listen(port, "127.0.0.1", () => {
    console.log(`http://127.0.0.1:${listener.address().port}/mcp`);
  });
  const stop = () => {
    for (const transport of sessions.values()) transport.close().catch(() => {});
    listener.close(() => process.exit(0));
    setTimeout(() => process.exit(0), 1000).unref();
  };
  process.on("SIGINT", stop);
  process.on("SIGTERM", stop);
}
