#!/usr/bin/env bash
# Runs the official MCP conformance suite installed by scripts/setup-peers.sh
# under the Node 22 it installed (the suite needs Node >= 22). All arguments
# go to the suite, e.g.
#   tests/interop/peers/conformance.sh list --requirements 2026-07-28
#   tests/interop/peers/conformance.sh server --url http://127.0.0.1:3000/mcp --requirements 2025-11-25 -o /tmp/res
# Set MCPGEN_PEERS_DIR to use another install than <repo>/.peers.
set -euo pipefail
repo="$(cd "$(dirname "$0")/../../.." && pwd)"
peers="${MCPGEN_PEERS_DIR:-$repo/.peers}"
node="$peers/node22/node_modules/node/bin/node"
suite="$peers/conformance/node_modules/@modelcontextprotocol/conformance/dist/index.js"
if [ ! -x "$node" ] || [ ! -f "$suite" ]; then
    echo "conformance.sh: the suite is not installed in $peers; run: bash scripts/setup-peers.sh" >&2
    exit 127
fi
# Client mode spawns the client command through a shell: put Node 22 first on
# its PATH too, so that a `node …` client command gets the same runtime.
PATH="$(dirname "$node"):$PATH" exec "$node" "$suite" "$@"
