// The benchmark's reference point: the official TypeScript SDK's McpServer
// implementing the weather example's get_forecast tool with the same
// schemas and the same (deterministic) computation, over stdio, or with
// `--http HOST:PORT` over Streamable HTTP at /mcp (2025-11-25 sessions,
// one McpServer and transport per session as the SDK's examples do, JSON
// responses as the other benchmarked servers give).
// Copied into the interop folder before running, so that it resolves the
// SDK and zod from there. Usage: node ts-weather-server.mjs [--http ADDR]
import { randomUUID } from "node:crypto";
import http from "node:http";
import { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import { StdioServerTransport } from "@modelcontextprotocol/sdk/server/stdio.js";
import { StreamableHTTPServerTransport } from "@modelcontextprotocol/sdk/server/streamableHttp.js";
import { z } from "zod";

const Conditions = z.enum(["sunny", "partly cloudy", "cloudy", "rain", "snow"]);
const Units = z.enum(["metric", "imperial"]);

// FNV-1a over the lower-cased name and the day, like the Rust handler.
function conditions(city, day) {
  let h = 0xcbf29ce484222325n;
  const bytes = [...Buffer.from(city.toLowerCase())];
  const dayBytes = new Array(8).fill(0).map((_, i) => Number((BigInt(day) >> BigInt(8 * i)) & 0xffn));
  for (const b of [...bytes, ...dayBytes]) {
    h ^= BigInt(b);
    h = (h * 0x100000001b3n) & 0xffffffffffffffffn;
  }
  const high = 5 + Number(h % 250n) / 10;
  const low = high - 3 - Number((h >> 8n) % 60n) / 10;
  const k = Number((h >> 16n) % 5n);
  const kind = k === 0 ? "sunny" : k === 1 ? "partly cloudy" : k === 2 ? "cloudy" : k === 3 ? "rain" : low < 2 ? "snow" : "rain";
  return [high, low, kind];
}
const round1 = (x) => Math.round(x * 10) / 10;

function weatherServer() {
  const server = new McpServer({ name: "ts-weather-server", version: "0.1.0" });
  server.registerTool(
    "get_forecast",
    {
      title: "Daily forecast",
      description: "Daily forecast for a city: high, low and conditions per day.",
      inputSchema: {
        city: z.string().min(1).max(100).describe("City name"),
        days: z.number().int().min(1).max(7).default(3).describe("Number of days"),
        units: Units.default("metric"),
      },
      outputSchema: {
        city: z.string(),
        units: Units,
        days: z.array(z.object({ day: z.number().int().min(1), high: z.number(), low: z.number(), conditions: Conditions })),
      },
    },
    async ({ city, days, units }) => {
      const imperial = units === "imperial";
      const convert = (c) => round1(imperial ? (c * 9) / 5 + 32 : c);
      const out = { city, units, days: [] };
      for (let day = 1; day <= days; day++) {
        const [high, low, kind] = conditions(city, day);
        out.days.push({ day, high: convert(high), low: convert(low), conditions: kind });
      }
      return { content: [{ type: "text", text: JSON.stringify(out) }], structuredContent: out };
    },
  );
  return server;
}

const at = process.argv.indexOf("--http");
if (at < 0) {
  await weatherServer().connect(new StdioServerTransport());
} else {
  const [host, port] = process.argv[at + 1].split(":");
  const sessions = new Map();
  const httpServer = http.createServer(async (req, res) => {
    if (req.url !== "/mcp") {
      res.writeHead(404).end();
      return;
    }
    let transport = sessions.get(req.headers["mcp-session-id"]);
    if (!transport) {
      // A new session (the transport refuses anything but initialize).
      transport = new StreamableHTTPServerTransport({
        sessionIdGenerator: () => randomUUID(),
        enableJsonResponse: true,
        onsessioninitialized: (id) => sessions.set(id, transport),
      });
      transport.onclose = () => sessions.delete(transport.sessionId);
      await weatherServer().connect(transport);
    }
    await transport.handleRequest(req, res);
  });
  httpServer.listen(Number(port), host, () => console.error(`MCP endpoint: http://${host}:${port}/mcp`));
}
