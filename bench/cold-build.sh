#!/usr/bin/env bash
# Cold `cargo build` of a new server: one scaffolded by `mcpgen new` from
# examples/weather-server/tools.json (6 tools; its build.rs generates the
# protocol types, tool types and server) beside the hello world of the
# official Rust SDK (bench/rmcp-hello: one tool over stdio), both with the
# scaffold's dev profile. Each build gets a fresh CARGO_TARGET_DIR; crates
# are fetched first, so no build downloads. The contenders alternate
# (scaffold, rmcp, scaffold, rmcp, ...) so a change in the machine's load
# hits both; wall-clock and CPU time (user + sys of cargo and rustc) are
# printed per build, then the medians and their ratios.
#
# Usage: bash bench/cold-build.sh [ROUNDS]    (default 2)
set -euo pipefail
cd "$(dirname "$0")/.."
root=$PWD
rounds=${1:-2}
export MCPGEN_SCHEMA_MIRROR=${MCPGEN_SCHEMA_MIRROR:-$root/../shared/mcp-spec}

work=$(mktemp -d /tmp/mcpgen-cold-build.XXXXXX)
trap 'rm -rf "$work"' EXIT

cargo build --quiet --bin mcpgen
(cd "$work" && "$root/target/debug/mcpgen" new scaffold --manifest "$root/examples/weather-server/tools.json" --mcpgen-path "$root" >/dev/null 2>&1)
cp -r bench/rmcp-hello "$work/rmcp-hello"
rm -rf "$work/rmcp-hello/target"

crates() { (cd "$1" && cargo tree --offline -e normal,build --prefix none 2>/dev/null | sed 's/ (\*)//; s/ (proc-macro)//' | sort -u | wc -l); }
for c in scaffold rmcp-hello; do
    (cd "$work/$c" && cargo fetch --quiet)
done
declare -A walls cpus
for c in scaffold rmcp-hello; do walls[$c]=""; cpus[$c]=""; done
printf '%-11s %5s %7s %9s %9s\n' build round units "wall s" "CPU s"
for round in $(seq 1 "$rounds"); do
    for c in scaffold rmcp-hello; do
        target="$work/target-$c"
        rm -rf "$target"
        log="$work/$c.log"
        start=$(date +%s.%N)
        # bash's `time`: user and sys of the build (cargo and every rustc).
        TIMEFORMAT='%U %S'
        { time (cd "$work/$c" && CARGO_TARGET_DIR="$target" cargo build --offline >"$log" 2>&1); } 2>"$work/time"
        cpu=$(awk '{ print $1 + $2 }' "$work/time")
        end=$(date +%s.%N)
        wall=$(awk -v a="$start" -v b="$end" 'BEGIN { print b - a }')
        units=$(grep -c '^ *Compiling' "$log" || true)
        walls[$c]+="$wall "
        cpus[$c]+="$cpu "
        printf '%-11s %5s %7s %9.1f %9.1f\n' "$c" "$round" "$units" "$wall" "$cpu"
        rm -rf "$target"
    done
done
median() { tr ' ' '\n' | grep -v '^$' | sort -g | awk '{ v[NR] = $1 } END { print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }
ws=$(echo "${walls[scaffold]}" | median); wr=$(echo "${walls[rmcp-hello]}" | median)
cs=$(echo "${cpus[scaffold]}" | median); cr=$(echo "${cpus[rmcp-hello]}" | median)
echo
printf 'crates (cargo tree -e normal,build): scaffold %s, rmcp hello world %s\n' "$(crates "$work/scaffold")" "$(crates "$work/rmcp-hello")"
printf 'median wall: scaffold %.1f s, rmcp %.1f s, ratio %.2f\n' "$ws" "$wr" "$(awk -v a="$ws" -v b="$wr" 'BEGIN { print a / b }')"
printf 'median CPU:  scaffold %.1f s, rmcp %.1f s, ratio %.2f\n' "$cs" "$cr" "$(awk -v a="$cs" -v b="$cr" 'BEGIN { print a / b }')"
