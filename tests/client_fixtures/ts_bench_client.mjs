// The official TypeScript SDK client doing what bench_driver.rs does
// against the same server: sequential round trips (p50/p99, calls/s), then
// 16 calls in flight. Copied into the interop folder so that it resolves
// @modelcontextprotocol/sdk from there. Usage: node ts_bench_client.mjs SERVER CALLS
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";

const [server, callsArg] = process.argv.slice(2);
const calls = Number(callsArg || 10000);
const args = { city: "Oslo", days: 3, units: "metric" };
const transport = new StdioClientTransport({ command: server, args: [], stderr: "ignore" });
const client = new Client({ name: "ts-bench", version: "0" });
await client.connect(transport);
const call = async () => {
  const r = await client.callTool({ name: "get_forecast", arguments: args });
  if (r.isError || !r.structuredContent || r.structuredContent.days.length !== 3) throw new Error("bad answer");
};
for (let i = 0; i < calls / 10; i++) await call();
const lat = [];
let start = process.hrtime.bigint();
for (let i = 0; i < calls; i++) {
  const t = process.hrtime.bigint();
  await call();
  lat.push(Number(process.hrtime.bigint() - t) / 1000);
}
let total = Number(process.hrtime.bigint() - start) / 1e9;
lat.sort((a, b) => a - b);
const pct = (p) => lat[Math.round((lat.length - 1) * p)];
console.log(`mode=sequential calls=${calls} rps=${(calls / total).toFixed(0)} p50_us=${pct(0.5).toFixed(1)} p99_us=${pct(0.99).toFixed(1)}`);
start = process.hrtime.bigint();
for (let done = 0; done < calls; done += 16) {
  await Promise.all(Array.from({ length: Math.min(16, calls - done) }, call));
}
total = Number(process.hrtime.bigint() - start) / 1e9;
console.log(`mode=concurrent16 calls=${calls} rps=${(calls / total).toFixed(0)}`);
await client.close();
