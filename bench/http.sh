#!/usr/bin/env bash
# HTTP benchmark: tools/call of get_forecast {"city":"Oslo"} over Streamable
# HTTP (HTTP/1.1 keep-alive, one connection per client, closed loop) at 1,
# 16 and 64 concurrent clients, against, in the same run and interleaved
# (A B C A B C ..., 3 rounds unless --rounds says otherwise):
#
#   A        the mcpgen example server (target/release/weather-server --http),
#            stateless 2026-07-28 era (per-request _meta and MCP-Protocol-
#            Version / Mcp-Method / Mcp-Name headers), audit log off;
#            argument validation is on, as always
#   A+log    the same with the audit log on (its default, to /dev/null)
#   A-sf     the same server, stateful 2025-11-25 era (initialize per client,
#            Mcp-Session-Id, DELETE at the end), audit log off
#   B        rmcp (official Rust SDK, bench/http/src/bin/rmcp-weather.rs),
#            same tool and output, StreamableHttpService with json_response
#            on; 2026-07-28 stateless, which rmcp 3.x clients speak by default
#   B-sf     the same rmcp server, stateful 2025-11-25 era (rmcp answers
#            session POSTs with SSE; JSON responses are for stateless only)
#   C        a bare hyper 1 server returning a fixed JSON-RPC result (floor)
#   C+2us    the same spinning 2 µs (C+5us: 5 µs) on the CPU per request: the
#            best any server that spends that much per request can do here
#   C-blk    an echo without hyper or tokio: a thread per connection, a
#            blocking read and one write per request (two system calls, no
#            epoll, no other thread to wake): the floor of any server over
#            this machine's loopback, whatever its library
#   D-sf     the official TypeScript SDK's McpServer with the same tool
#            (tests/interop/ts-weather-server.mjs --http, node:http, one
#            transport per session, JSON responses), stateful 2025-11-25
#            era; only when node and the SDK are installed (.interop)
#
# Every Rust server: 2 tokio worker threads, TCP_NODELAY. The driver
# (bench/http/src/bin/http-load.rs, one thread) starts them on free
# loopback ports, checks that A and B give the same content and
# structuredContent, and prints a markdown table of medians over rounds
# (req/s, p50, p99, peak RSS = VmHWM, server CPU per request and its kernel
# share, driver CPU per request)
# and the ratios at each client count. C/B, C/B-sf and C-blk/B are the
# ceiling of the sitting: what a server doing no work at all gets against rmcp (at one
# client this depends on how fast this VM wakes an idle vCPU). It first waits (up to 2 minutes) for the
# machine to be quiet; the "machine busy (others)" column shows how much of
# the machine the run had to share with anything else. A sample during which
# other processes used more than 0.25 CPU is set aside and the rounds go on
# (at most 9) until every row has 3 clean ones; medians are over those.
#
# Usage: bash bench/http.sh [http-load options, e.g. --rounds 5 --secs 5]
# Environment: CARGO_TARGET_DIR (default: ./target), SKIP_BUILD=1.
set -euo pipefail
cd "$(dirname "$0")/.."
export CARGO_TARGET_DIR="${CARGO_TARGET_DIR:-$PWD/target}"
if [ "${SKIP_BUILD:-0}" != 1 ]; then
    cargo build --quiet --release -p weather-server
    cargo build --quiet --release --manifest-path bench/http/Cargo.toml
fi
bin="$CARGO_TARGET_DIR/release"
rmcp_version="$(sed -n '/^name = "rmcp"$/{n;s/^version = "\(.*\)"$/\1/p}' bench/http/Cargo.lock)"
# Which server is measured: the checkout it was built from (others may
# have uncommitted changes in runtime/ or the example).
tree="$(git rev-parse --short HEAD 2>/dev/null || echo '?')"
if ! git diff --quiet HEAD -- runtime examples/weather-server 2>/dev/null; then
    tree="$tree + uncommitted changes in runtime/ or examples/weather-server/"
fi
echo "weather-server built from $tree; rmcp ${rmcp_version:-?}; $(uptime | sed 's/^ *//')" >&2

# The TypeScript SDK's server over Streamable HTTP (2025-11-25 sessions; the
# 1.x SDK does not speak 2026-07-28), when node and the SDK are installed.
ts=()
source scripts/ts-reference.sh
if ts_server="$(ts_weather_server bench-http)"; then
    ts=(--server "D-sf|stateful|node $ts_server --http {addr}" --ratio A-sf/D-sf)
fi
exec "$bin/http-load" \
    --clients 1,16,64 --rounds 3 --warmup 1 --secs 3 --settle 120 --max-foreign 0.25 --max-rounds 9 \
    --server "A|stateless|WEATHER_LOG=off $bin/weather-server --http {addr}" \
    --server "A+log|stateless|WEATHER_LOG=info $bin/weather-server --http {addr}" \
    --server "A-sf|stateful|WEATHER_LOG=off $bin/weather-server --http {addr}" \
    --server "B|stateless|$bin/rmcp-weather --http {addr}" \
    --server "B-sf|stateful|$bin/rmcp-weather --http {addr}" \
    --server "C|echo|$bin/echo-floor --http {addr}" \
    --server "C+2us|echo|WORK_US=2 $bin/echo-floor --http {addr}" \
    --server "C+5us|echo|WORK_US=5 $bin/echo-floor --http {addr}" \
    --server "C-blk|echo|BLOCKING=1 $bin/echo-floor --http {addr}" \
    --ratio A/B --ratio A/C --ratio A+log/B --ratio A-sf/B-sf --ratio A/B-sf --ratio C/B --ratio C/B-sf --ratio C-blk/B \
    "${ts[@]}" "$@"
