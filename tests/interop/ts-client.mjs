// The official TypeScript SDK client against an mcpgen-generated server
// (the weather example): connect over stdio, list every page of tools,
// call each tool, and print one JSON summary on stdout for the Rust test
// (examples/weather-server/tests/server_interop.rs) to check.
// Copied into the interop folder before running, so that it resolves
// @modelcontextprotocol/sdk from there. Usage: node ts-client.mjs SERVER_BINARY
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";

const [server] = process.argv.slice(2);
const transport = new StdioClientTransport({ command: server, args: [], stderr: "ignore" });
const client = new Client({ name: "ts-interop", version: "1.0.0" });
await client.connect(transport);

const summary = {
  serverInfo: client.getServerVersion(),
  capabilities: client.getServerCapabilities(),
  instructions: client.getInstructions(),
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

// Calls whose failure is a JSON-RPC error are recorded with its code.
async function call(label, name, args, options) {
  try {
    summary.calls[label] = await client.callTool({ name, arguments: args }, undefined, options);
  } catch (e) {
    summary.calls[label] = { thrown: true, code: e.code, message: String(e.message) };
  }
}

await call("get_forecast", "get_forecast", { city: "Oslo", days: 2, units: "imperial" });
await call("convert_temperature", "convert_temperature", { value: 100, from: "celsius", to: "fahrenheit" });
await call("plan_trip", "plan_trip", {
  traveler: { name: "Ada", age: 36 },
  stops: [{ city: "Bergen", nights: 2 }, { city: "Oslo", nights: 1 }],
  preferences: { avoid: ["rain"] },
});
await call("get_alerts", "get_alerts", { region: "North Sea" });
let progress = [];
// 100 ms apart: each progress notification arrives well before the result.
// At 1 ms, under a loaded CI machine, the SDK once handled the result before
// any progress and dropped them all (the server writes them first).
await call("watch_radar", "watch_radar", { steps: 3, step_ms: 100 }, { onprogress: (p) => progress.push(p) });
summary.progress = progress;
await call("simulate_failure", "simulate_failure", { mode: "tool_error" });
await call("invalid_arguments", "get_forecast", { city: "", days: 9 });
await call("bad_output", "simulate_failure", { mode: "bad_output" });
await call("panic", "simulate_failure", { mode: "panic" });
await call("unknown_tool", "no_such_tool", {});
summary.ping = await client.ping();

await client.close();
console.log(JSON.stringify(summary));
