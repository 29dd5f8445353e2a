#!/usr/bin/env bash
# What the search tool surface saves and costs on large real catalogs
# (not CI): the catalogs of bench/scale.sh (the distinct real tools of
# ../shared/manifests/ and ../shared/manifests/real/, then the tools
# `mcpgen import openapi` makes of ../shared/openapi/, a name met again
# suffixed `_2`), cut at N tools (default 354, 800 and 1000):
#
# - the bytes of a `tools/list` response with every tool listed and with
#   the search surface (no pinned tool), and of a five-tool `search_tools`
#   answer (runtime/examples/search_cost.rs);
# - the instructions of one ranked query (top 5) at each size, counted by
#   callgrind: 1,000 and 11,000 queries, the difference over 10,000.
#
#   bash bench/search/cost.sh [N...]
set -euo pipefail
cd "$(dirname "$0")/../.."
root=$(pwd)
shared=${MCPGEN_SHARED:-$root/../shared}
sizes=("$@")
[ "${#sizes[@]}" -gt 0 ] || sizes=(354 800 1000)
command -v valgrind >/dev/null || { echo "bench/search/cost.sh: needs valgrind" >&2; exit 2; }
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

cargo build --release -q --bin mcpgen
cargo build --release -q -p mcpgen-runtime --example search_cost
target="$(cargo metadata --format-version 1 --no-deps | python3 -c 'import json,sys; print(json.load(sys.stdin)["target_directory"])')/release"
for doc in "$shared"/openapi/*.json "$shared"/openapi/*.yaml "$shared"/openapi/*.yml; do
    [ -f "$doc" ] || continue
    "$target/mcpgen" import openapi "$doc" --out "$work/openapi-$(basename "$doc").tools.json" 2>>"$work/import.log"
done
python3 bench/catalog.py "$shared" "$work" "${sizes[@]}"

total_of() { callgrind_annotate "$1" 2>/dev/null | awk '/PROGRAM TOTALS/ { gsub(",", "", $1); print $1; exit }'; }
echo "| tools | \`tools/list\`, every tool | \`tools/list\`, search surface | \`search_tools\` answer (5 tools) | instructions per query |"
echo "| ---: | ---: | ---: | ---: | ---: |"
for n in "${sizes[@]}"; do
    bytes=$("$target/examples/search_cost" bytes "$work/tools-$n.json")
    t=()
    for q in 1000 11000; do
        valgrind --tool=callgrind --callgrind-out-file="$work/q.$n.$q.out" "$target/examples/search_cost" queries "$work/tools-$n.json" "$q" >/dev/null 2>&1
        t+=("$(total_of "$work/q.$n.$q.out")")
    done
    python3 - "$bytes" "${t[0]}" "${t[1]}" <<'PY'
import json, sys
b = json.loads(sys.argv[1]); a, c = int(sys.argv[2]), int(sys.argv[3])
print(f"| {b['tools']} | {b['all']:,} B | {b['search']:,} B | {b['search_tools_answer']:,} B | {(c - a) / 10000:,.0f} |")
PY
done
