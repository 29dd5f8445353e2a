#!/usr/bin/env node
// A driver for the TypeScript SDK v2 client (@modelcontextprotocol/client,
// pinned in package.json next to this file and installed into
// .peers/inspector by scripts/setup-peers.sh). It connects to one server,
// lists its tools, makes the requested calls and prints ONE JSON line on
// stdout:
//
//   {"era", "protocolVersion", "serverInfo", "capabilities", "instructions",
//    "supportedVersions", "tools", "calls": [{"name", "arguments",
//    "result"} | {"name", "arguments", "error": {"name", "code", "message",
//    "data"}}]}
//
// A failed connect or list prints {"error": {...}} instead and exits 1; a
// failed call is recorded in "calls" (the caller decides what it expected).
//
// Usage (run it with Node 22, e.g. .peers/node22/node_modules/node/bin/node):
//   ts2-client.mjs [--mode 2026-07-28|legacy|auto] [--peers DIR]
//                  [--timeout-ms N] [--call NAME --args JSON]...
//                  (--url URL | --stdio CMD ARGS...)
//
//   --mode 2026-07-28  (default) versionNegotiation {mode: {pin: "2026-07-28"}}:
//                      server/discover must offer 2026-07-28, no fallback
//   --mode legacy      the plain initialize handshake
//   --mode auto        probe with server/discover, fall back to initialize
//   --peers DIR        where setup-peers.sh installed (default: $MCPGEN_PEERS_DIR,
//                      else .peers at the repository root)
//   --timeout-ms N     per request (connect included); the whole run is
//                      bounded by 4 N (default 20000)
//   --stdio CMD ARGS…  must come last: everything after it is the server
import { readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";

const usage =
    "usage: ts2-client.mjs [--mode 2026-07-28|legacy|auto] [--peers DIR] [--timeout-ms N] " +
    "[--call NAME --args JSON]... (--url URL | --stdio CMD ARGS...)";

function fail(error, code = 1) {
    process.stdout.write(JSON.stringify({ error }) + "\n");
    process.exit(code);
}

function parseArgs(argv) {
    const opts = { mode: "2026-07-28", peers: undefined, timeoutMs: 20000, calls: [], url: undefined, stdio: undefined };
    for (let i = 0; i < argv.length; i++) {
        const arg = argv[i];
        const value = () => {
            if (i + 1 >= argv.length) fail({ message: `${arg} needs a value; ${usage}` }, 2);
            return argv[++i];
        };
        switch (arg) {
            case "--mode":
                opts.mode = value();
                break;
            case "--peers":
                opts.peers = value();
                break;
            case "--timeout-ms":
                opts.timeoutMs = Number(value());
                break;
            case "--call":
                opts.calls.push({ name: value(), arguments: {} });
                break;
            case "--args": {
                const last = opts.calls[opts.calls.length - 1];
                if (last === undefined) fail({ message: `--args before any --call; ${usage}` }, 2);
                try {
                    last.arguments = JSON.parse(value());
                } catch (e) {
                    fail({ message: `--args is not JSON: ${e.message}` }, 2);
                }
                break;
            }
            case "--url":
                opts.url = value();
                break;
            case "--stdio":
                opts.stdio = argv.slice(i + 1);
                i = argv.length;
                break;
            case "-h":
            case "--help":
                process.stdout.write(usage + "\n");
                process.exit(0);
                break;
            default:
                fail({ message: `unknown argument '${arg}'; ${usage}` }, 2);
        }
    }
    if ((opts.url === undefined) === (opts.stdio === undefined || opts.stdio.length === 0)) {
        fail({ message: `exactly one of --url URL or --stdio CMD is needed; ${usage}` }, 2);
    }
    if (!["2026-07-28", "legacy", "auto"].includes(opts.mode)) {
        fail({ message: `--mode must be 2026-07-28, legacy or auto, not '${opts.mode}'` }, 2);
    }
    if (!Number.isInteger(opts.timeoutMs) || opts.timeoutMs <= 0) {
        fail({ message: "--timeout-ms must be a positive integer" }, 2);
    }
    return opts;
}

function describe(error) {
    if (!(error instanceof Error)) return { message: String(error) };
    const out = { name: error.name, message: error.message };
    if (error.code !== undefined) out.code = error.code;
    if (error.data !== undefined) out.data = error.data;
    if (error.cause !== undefined) out.cause = describe(error.cause);
    return out;
}

const opts = parseArgs(process.argv.slice(2));
const here = dirname(fileURLToPath(import.meta.url));
const peers = resolve(opts.peers ?? process.env.MCPGEN_PEERS_DIR ?? join(here, "../../../../.peers"));
// The SDK lives in .peers/inspector, not next to this file: resolve it from there.
const require = createRequire(join(peers, "inspector", "package.json"));
let sdk, stdio, sdkVersion;
try {
    sdk = require("@modelcontextprotocol/client");
    stdio = require("@modelcontextprotocol/client/stdio");
    // (the package's "exports" do not include its package.json)
    const manifest = join(peers, "inspector/node_modules/@modelcontextprotocol/client/package.json");
    sdkVersion = JSON.parse(readFileSync(manifest, "utf8")).version;
} catch (e) {
    fail({ message: `@modelcontextprotocol/client is not installed under ${peers}/inspector (run scripts/setup-peers.sh): ${e.message}` });
}

// A hung server must not hang the caller.
setTimeout(() => fail({ message: `ts2-client gave up after ${4 * opts.timeoutMs} ms` }), 4 * opts.timeoutMs).unref();

const negotiation = opts.mode === "2026-07-28" ? { mode: { pin: "2026-07-28" } } : { mode: opts.mode };
const client = new sdk.Client(
    { name: "mcpgen-ts2-client", version: sdkVersion },
    { capabilities: {}, versionNegotiation: negotiation },
);
const transport =
    opts.url !== undefined
        ? new sdk.StreamableHTTPClientTransport(new URL(opts.url))
        : new stdio.StdioClientTransport({ command: opts.stdio[0], args: opts.stdio.slice(1), stderr: "inherit" });

const request = { timeout: opts.timeoutMs };
const summary = {};
try {
    await client.connect(transport, request);
    summary.era = client.getProtocolEra();
    summary.protocolVersion = client.getNegotiatedProtocolVersion();
    summary.serverInfo = client.getServerVersion();
    summary.capabilities = client.getServerCapabilities();
    summary.instructions = client.getInstructions();
    summary.supportedVersions = client.getDiscoverResult()?.supportedVersions;
    summary.tools = (await client.listTools(undefined, request)).tools;
} catch (e) {
    await client.close().catch(() => {});
    fail({ during: summary.era === undefined ? "connect" : "tools/list", ...describe(e) });
}
summary.calls = [];
for (const call of opts.calls) {
    try {
        const result = await client.callTool({ name: call.name, arguments: call.arguments }, request);
        summary.calls.push({ ...call, result });
    } catch (e) {
        summary.calls.push({ ...call, error: describe(e) });
    }
}
await client.close().catch(() => {});
process.stdout.write(JSON.stringify(summary) + "\n");
process.exit(0);
