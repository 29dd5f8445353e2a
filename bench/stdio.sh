#!/usr/bin/env bash
# Server benchmark: sequential tools/call round trips (get_forecast) against
# the generated example server and, in the same run, against the official
# Rust SDK (rmcp, bench/callgrind: its default stdio transport, and its pipe
# transport on a current-thread runtime) and the official TypeScript SDK's
# McpServer (tests/interop/ts-weather-server.mjs), all implementing the
# same tool; plus the time to validate the call's arguments against
# inputSchema. The servers take turns, ROUNDS times (A B C A B C ...), so
# every one sees the same machine load. Prints calls/s, p50/p99 latency and
# each server's peak RSS per round, and the round-trip floor of the same
# pipes (echo-floor: a blocking loop that answers at once, no server work)
# and the same loop spinning 2 and 5 µs on the CPU per call (floor+2us,
# floor+5us): the best a server that sleeps as soon as its input is empty
# and spends that much per call can do on this machine (a server that
# keeps trying its input, as mcpgen's does, can beat them).
# Each server's CPU time per call (cpu/call, all threads) is printed too.
# mcpgen-nospin is the generated server with its stdio reader sleeping as
# soon as stdin is empty (WEATHER_SPIN_US=0) instead of trying it for 50 µs.
# Usage: bash bench/stdio.sh [CALLS] [ROUNDS]
# Instruction counts (load-independent): bench/callgrind.sh.
set -euo pipefail
cd "$(dirname "$0")/.."
calls="${1:-20000}"
rounds="${2:-3}"
cargo build --quiet --release -p weather-server
servers=(--server "mcpgen-rust=$PWD/target/release/weather-server")
# The same server with the stdio reader sleeping at once (no spin).
servers+=(--server "mcpgen-nospin=env WEATHER_SPIN_US=0 $PWD/target/release/weather-server")
if (cd bench/callgrind && CARGO_TARGET_DIR="$OLDPWD/target" cargo build --quiet --release); then
    servers+=(--server "rmcp=$PWD/target/release/rmcp-stdio-weather")
    servers+=(--server "rmcp-1thread=$PWD/target/release/rmcp-stdio-weather --current-thread")
else
    echo "bench: the rmcp reference server did not build (bench/callgrind); benchmarking without it" >&2
fi
source scripts/ts-reference.sh
if ts_server="$(ts_weather_server bench)"; then
    servers+=(--server "ts-sdk-mcpserver=node $ts_server")
fi
# The floor: a blocking loop answering each request at once, no server work.
servers+=(--server "echo-floor=$PWD/target/release/mcp-bench --echo-server")
servers+=(--server "floor+2us=$PWD/target/release/mcp-bench --echo-server --work-us 2")
servers+=(--server "floor+5us=$PWD/target/release/mcp-bench --echo-server --work-us 5")
# The audit log stays on (info level to stderr, discarded by the bench).
WEATHER_LOG="${WEATHER_LOG:-info}" target/release/mcp-bench --calls "$calls" --warmup 2000 --rounds "$rounds" \
    --tool get_forecast --args '{"city":"Oslo","days":3,"units":"metric"}' \
    --manifest examples/weather-server/tools.json \
    --validate 'convert_temperature={"value":21.5,"from":"celsius","to":"fahrenheit"}' \
    --validate 'plan_trip={"traveler":{"name":"Ada","age":36},"stops":[{"city":"Bergen","nights":2},{"city":"Oslo","nights":1}],"preferences":{"avoid":["rain","snow"],"units":"metric"}}' \
    --validate 'get_alerts={"region":"North Sea"}' \
    --validate 'watch_radar={"steps":10,"step_ms":5}' \
    --validate 'simulate_failure={"mode":"tool_error"}' \
    --validate 'get_forecast={"city":"","days":9,"units":"kelvin","extra":1}' \
    "${servers[@]}"
