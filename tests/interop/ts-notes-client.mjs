// The official TypeScript SDK client against the notes example
// (examples/notes-server): connect over stdio or Streamable HTTP, list every
// page of resources, resource templates and prompts, read the given URIs and
// get the given prompts. Prints one JSON line per step on stdout for
// examples/notes-server/tests/ts_peer.rs:
//
//   {"event":"connected","transport":..,"protocolVersion":..,"sessionId":..,"serverInfo":..,"capabilities":..}
//   {"event":"resources/list","pages":N,"resources":[..]}
//   {"event":"resources/templates/list","pages":N,"resourceTemplates":[..]}
//   {"event":"prompts/list","pages":N,"prompts":[..]}
//   {"event":"resources/read","uri":..,"result":{..}}        (or "error":{code,message,data})
//   {"event":"prompts/get","name":..,"arguments":{..},"result":{..}}  (or "error")
//   {"event":"closed","errors":[..]}
//
// A JSON-RPC error of a read or get is a line with `error`, not a failure:
// the test checks the codes. Anything else that throws fails the script.
//
// Copied into the interop folder before running, so that it resolves
// @modelcontextprotocol/sdk from there. Usage:
//   node ts-notes-client.mjs (--stdio SERVER | --url URL)
//        [--read URI]... [--prompt NAME [--prompt-args JSON]]...
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";

function usage(why) {
  console.error(`ts-notes-client.mjs: ${why}`);
  console.error("usage: node ts-notes-client.mjs (--stdio SERVER | --url URL) [--read URI]... [--prompt NAME [--prompt-args JSON]]...");
  process.exit(2);
}

let stdio;
let url;
const steps = [];
const argv = process.argv.slice(2);
for (let i = 0; i < argv.length; i++) {
  const flag = argv[i];
  const value = argv[i + 1];
  if (value === undefined) usage(`${flag} needs a value`);
  i += 1;
  switch (flag) {
    case "--stdio":
      stdio = value;
      break;
    case "--url":
      url = value;
      break;
    case "--read":
      steps.push({ kind: "read", uri: value });
      break;
    case "--prompt":
      steps.push({ kind: "prompt", name: value, arguments: undefined });
      break;
    case "--prompt-args": {
      const last = steps[steps.length - 1];
      if (!last || last.kind !== "prompt") usage("--prompt-args must follow --prompt");
      last.arguments = JSON.parse(value);
      break;
    }
    default:
      usage(`unknown option ${flag}`);
  }
}
if (!stdio === !url) usage("give exactly one of --stdio and --url");

const emit = (line) => console.log(JSON.stringify(line));

const transport = stdio
  ? new StdioClientTransport({ command: stdio, args: [], stderr: "inherit" })
  : new StreamableHTTPClientTransport(new URL(url));
const client = new Client({ name: "ts-notes-interop", version: "1.0.0" });
const errors = [];
client.onerror = (e) => errors.push(String(e?.message ?? e));
await client.connect(transport);

emit({
  event: "connected",
  transport: stdio ? "stdio" : "http",
  protocolVersion: stdio ? null : (transport.protocolVersion ?? null),
  sessionId: stdio ? null : (transport.sessionId ?? null),
  serverInfo: client.getServerVersion(),
  capabilities: client.getServerCapabilities(),
});

// Every page of a list, following nextCursor.
async function listAll(event, key, list) {
  const items = [];
  let pages = 0;
  let cursor;
  do {
    const page = await list(cursor ? { cursor } : {});
    pages += 1;
    items.push(...page[key]);
    cursor = page.nextCursor;
  } while (cursor);
  emit({ event, pages, [key]: items });
}

await listAll("resources/list", "resources", (p) => client.listResources(p));
await listAll("resources/templates/list", "resourceTemplates", (p) => client.listResourceTemplates(p));
await listAll("prompts/list", "prompts", (p) => client.listPrompts(p));

// A JSON-RPC error (McpError, with a numeric code) becomes an `error` line.
async function step(line, request) {
  try {
    line.result = await request();
  } catch (e) {
    if (typeof e?.code !== "number") throw e;
    line.error = { code: e.code, message: String(e.message), data: e.data ?? null };
  }
  emit(line);
}

for (const s of steps) {
  if (s.kind === "read") {
    await step({ event: "resources/read", uri: s.uri }, () => client.readResource({ uri: s.uri }));
  } else {
    const params = s.arguments === undefined ? { name: s.name } : { name: s.name, arguments: s.arguments };
    await step({ event: "prompts/get", name: s.name, arguments: s.arguments ?? null }, () => client.getPrompt(params));
  }
}

if (!stdio) {
  // End the HTTP session (DELETE); the transport throws unless 2xx or 405.
  await transport.terminateSession();
}
const seen = [...errors];
await client.close();
emit({ event: "closed", errors: seen });
