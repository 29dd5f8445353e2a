#!/usr/bin/env bash
# Instructions per tools/call in the CLIENT process over plain HTTP: the
# runtime's client engine and HTTP transport (bench/client-http, release
# build) calling get_forecast on the example server (weather-server --http,
# stateless 2026-07-28), counted by callgrind. Difference method: 200 and
# 1,200 calls after the handshake, (I(1200) - I(200)) / 1000 is one call;
# start-up, handshake and shutdown cancel. Instruction counts do not depend
# on the machine's load.
#
# Usage: bash bench/client-callgrind.sh [--client-bin PATH]...
#   --client-bin PATH   measure this client-http binary (e.g. one built
#                       from an older commit) instead of building one;
#                       repeat to compare several in the same run
set -euo pipefail
cd "$(dirname "$0")/.."
root=$PWD
clients=()
while [ $# -gt 0 ]; do
    case "$1" in
        --client-bin) clients+=("$(realpath "$2")"); shift 2 ;;
        -h|--help) sed -n '2,15p' "$0"; exit 0 ;;
        *) echo "bench-client-callgrind: unknown argument $1" >&2; exit 2 ;;
    esac
done
command -v valgrind >/dev/null || { echo "bench-client-callgrind: valgrind is not installed" >&2; exit 1; }
target="${CARGO_TARGET_DIR:-$root/target}"
cargo build --quiet -p weather-server --bin weather-server
if [ ${#clients[@]} -eq 0 ]; then
    (cd bench/client-http && CARGO_TARGET_DIR="$target" cargo build --quiet --release)
    clients=("$target/release/client-http")
fi
work="$(mktemp -d)"
server_pid=""
cleanup() { [ -z "$server_pid" ] || kill "$server_pid" 2>/dev/null || true; rm -rf "$work"; }
trap cleanup EXIT
"$target/debug/weather-server" --http 127.0.0.1:0 2>"$work/server.log" &
server_pid=$!
url=""
for _ in $(seq 300); do
    url="$(sed -n 's/.*MCP endpoint: \(http[^ ]*\).*/\1/p' "$work/server.log" | head -1)"
    [ -n "$url" ] && break
    sleep 0.1
done
[ -n "$url" ] || { echo "bench-client-callgrind: weather-server printed no endpoint" >&2; cat "$work/server.log" >&2; exit 1; }
small=200
large=1200
echo "instructions per tools/call in the client process over plain HTTP (callgrind, ($large - $small calls) / $((large - small)))"
for client in "${clients[@]}"; do
    totals=()
    for n in $small $large; do
        out="$work/client.$n.out"
        valgrind --tool=callgrind --callgrind-out-file="$out" "$client" "$url" "$n" >/dev/null 2>&1 \
            || { echo "bench-client-callgrind: $client failed" >&2; exit 1; }
        totals+=("$(awk '/^(summary|totals):/ { print $2; exit }' "$out")")
    done
    awk -v n="$client" -v a="${totals[0]}" -v b="${totals[1]}" -v c=$((large - small)) \
        'BEGIN { printf "%-60s %9.1fk instructions/call\n", n, (b - a) / c / 1000 }'
done
