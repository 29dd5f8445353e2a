#!/usr/bin/env bash
# The main job on the built-in example, from a fresh clone: generate the
# protocol types, tool types, server and client of the weather example
# (examples/weather-server/tools.json) with the `mcpgen` CLI, check that the
# output is fresh, then talk MCP over stdio to the example server, which
# builds the same code through `mcpgen::Builder` in its build.rs.
set -euo pipefail
cd "$(dirname "$0")/.."

if [ -z "${MCPGEN_SCHEMA_MIRROR:-}" ] && [ -d ../shared/mcp-spec ]; then
    MCPGEN_SCHEMA_MIRROR="$(cd ../shared/mcp-spec && pwd)"
    export MCPGEN_SCHEMA_MIRROR
fi
manifest=examples/weather-server/tools.json
out=generated

step() { printf '\n==> %s\n' "$*"; }

step "building mcpgen and the example server"
cargo build --quiet -p mcpgen -p weather-server
# Where cargo put them: target/ unless CARGO_TARGET_DIR or a config says otherwise.
target=$(cargo metadata --format-version 1 --no-deps | sed -n 's/.*"target_directory":"\([^"]*\)".*/\1/p')
mcpgen="$target/debug/mcpgen"
server="$target/debug/weather-server"

step "mcpgen schema list"
"$mcpgen" schema list

step "mcpgen manifest check $manifest"
"$mcpgen" manifest check "$manifest"

step "mcpgen generate --protocol 2025-11-25 --manifest $manifest --out $out"
"$mcpgen" generate --protocol 2025-11-25 --manifest "$manifest" --out "$out"
wc -l "$out"/*.rs

step "mcpgen generate --check (fresh output: exit 0)"
"$mcpgen" generate --protocol 2025-11-25 --manifest "$manifest" --out "$out" --check

step "talking to the example server over stdio"
requests='{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"demo","version":"0"}}}
{"jsonrpc":"2.0","method":"notifications/initialized"}
{"jsonrpc":"2.0","id":2,"method":"tools/list"}
{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"get_forecast","arguments":{"city":"Lisbon","days":2}}}
{"jsonrpc":"2.0","id":4,"method":"tools/call","params":{"name":"get_forecast","arguments":{"city":""}}}'
printf '%s\n' "$requests" | sed 's/^/  -> /' | cut -c1-160
# Keep stdin open briefly so every answer is written before the server sees EOF.
{ printf '%s\n' "$requests"; sleep 2; } | "$server" 2>/dev/null | sed 's/^/  <- /' | cut -c1-160

step "what 2026-07-28 changes for this manifest (mcpgen diff, first lines)"
"$mcpgen" diff 2025-11-25 2026-07-28 --manifest "$manifest" > "$out/diff-2026-07-28.txt"
head -25 "$out/diff-2026-07-28.txt"
echo "  … (full report in $out/diff-2026-07-28.txt)"

printf '\ndone: generated files are in %s/\n' "$out"
