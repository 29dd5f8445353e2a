#!/usr/bin/env bash
# How mcpgen's cost grows with the manifest: for manifests of N tools
# (default 1, 100, 300 and 800), the time of `mcpgen manifest check` and
# `mcpgen generate` (release build, peak RSS), the lines generated, the
# first `cargo build` of the crate `mcpgen new` scaffolds (dependencies
# already built, peak RSS of the largest compiler process; from 201 tools
# its tool types are split over crates, one per 200 tools) and the rebuild
# after a one-line edit of its handlers (`src/main.rs`).
#
#   bash bench/scale.sh [N...]
#
# The manifests are distinct real tools, never renamed copies (copies
# have the same shapes, which the generator merges, and would flatter every
# figure): the tools of ../shared/manifests/ and ../shared/manifests/real/
# (354 tools from 15 servers), then those `mcpgen import openapi` makes of
# the nine documents of ../shared/openapi/ (891 tools that call their API),
# taken in that order, up to 1,245. A name met twice gets the suffix `_2`.
#
# Wall-clock times: run it on an otherwise idle machine, and compare two
# builds of mcpgen in one sitting (MCPGEN_BIN=path/to/old/mcpgen for the
# generator columns). Work files go to SCALE_DIR (default: a new temporary
# directory, removed at the end unless SCALE_KEEP=1).
set -euo pipefail
cd "$(dirname "$0")/.."
root=$(pwd)
shared=${MCPGEN_SHARED:-$root/../shared}
export MCPGEN_SCHEMA_MIRROR=${MCPGEN_SCHEMA_MIRROR:-$shared/mcp-spec}
if [ ! -d "$shared/manifests/real" ]; then
    echo "bench/scale.sh: needs $shared/manifests (set MCPGEN_SHARED)" >&2
    exit 2
fi
if [ ! -x /usr/bin/time ]; then
    echo "bench/scale.sh: needs GNU time (/usr/bin/time; Debian: apt-get install time)" >&2
    exit 2
fi
sizes=("$@")
[ "${#sizes[@]}" -gt 0 ] || sizes=(1 100 300 800)

work=${SCALE_DIR:-$(mktemp -d)}
mkdir -p "$work"
if [ -z "${SCALE_DIR:-}" ] && [ "${SCALE_KEEP:-0}" != 1 ]; then
    trap 'rm -rf "$work"' EXIT
fi

if [ -n "${MCPGEN_BIN:-}" ]; then
    bin=$MCPGEN_BIN
else
    cargo build --release -q --bin mcpgen
    bin="$(cargo metadata --format-version 1 --no-deps | python3 -c 'import json,sys; print(json.load(sys.stdin)["target_directory"])')/release/mcpgen"
fi

# The manifests: the pool of distinct real tools.
for doc in "$shared"/openapi/*.json "$shared"/openapi/*.yaml "$shared"/openapi/*.yml; do
    [ -f "$doc" ] || continue
    "$bin" import openapi "$doc" --out "$work/openapi-$(basename "$doc").tools.json" 2>>"$work/import.log" || {
        echo "bench/scale.sh: import of $doc failed:" >&2
        cat "$work/import.log" >&2
        exit 1
    }
done
python3 bench/catalog.py "$shared" "$work" "${sizes[@]}"
python3 - "$work" <<'PY'
import json, pathlib, sys
work = pathlib.Path(sys.argv[1])
pool = json.loads((work / "pool.json").read_text())["tools"]
# Two warm-up crates build the dependencies in both feature sets the
# scaffolds use: a plain tool, and one that calls an API (`upstream`, TLS).
plain = next(t for t in pool if "x-mcpgen" not in t)
bound = next(t for t in pool if "x-mcpgen" in t)
(work / "warmup-plain.json").write_text(json.dumps({"tools": [plain]}))
(work / "warmup-bound.json").write_text(json.dumps({"tools": [bound]}))
PY

# "seconds peak-KiB" of a command, its output kept in $work/log.
measure() {
    /usr/bin/time -f '%e %M' -o "$work/time" "$@" >>"$work/log" 2>&1 || {
        echo "bench/scale.sh: failed: $*" >&2
        tail -n 30 "$work/log" >&2
        exit 1
    }
    cat "$work/time"
}

export CARGO_TARGET_DIR="$work/target" CARGO_INCREMENTAL=1
# A reused SCALE_DIR keeps its target/ (dependencies stay built), not the
# crates and outputs of the last run.
rm -rf "$work"/warmup-plain "$work"/warmup-bound "$work"/scale-* "$work"/gen-* "$work/log"
# Dependencies (and mcpgen as the build scripts' generator) built once.
for kind in plain bound; do
    "$bin" new --manifest "$work/warmup-$kind.json" "$work/warmup-$kind" >>"$work/log" 2>&1
    (cd "$work/warmup-$kind" && cargo build -q >>"$work/log" 2>&1)
done

echo "| tools | \`manifest check\` | \`generate\` (peak RSS) | generated lines | first \`cargo build\` (peak RSS) | handler edit → rebuild |"
echo "| ---: | ---: | ---: | ---: | ---: | ---: |"
for n in "${sizes[@]}"; do
    manifest="$work/tools-$n.json"
    read -r check _ < <(measure "$bin" manifest check "$manifest")
    read -r gen gen_rss < <(measure "$bin" generate --manifest "$manifest" --out "$work/gen-$n")
    lines=$(cat "$work/gen-$n"/*.rs | wc -l)
    crate="$work/scale-$n"
    "$bin" new --manifest "$manifest" "$crate" >>"$work/log" 2>&1
    # A first build: nothing left of an earlier run's crates in target/
    # (artifacts or incremental caches): the server, its bindings and,
    # when the tool types are split, the shared crate and the parts.
    packages=$(cd "$crate" && cargo metadata --no-deps --format-version 1 |
        python3 -c 'import json, sys; print(" ".join("-p " + p["name"] for p in json.load(sys.stdin)["packages"]))')
    # shellcheck disable=SC2086 # one word per option
    (cd "$crate" && cargo clean -q $packages >>"$work/log" 2>&1)
    read -r build build_rss < <(cd "$crate" && measure cargo build -q)
    echo "// edited" >>"$crate/src/main.rs"
    read -r edit _ < <(cd "$crate" && measure cargo build -q)
    printf '| %s | %s s | %s s (%s MB) | %s | %s s (%s MB) | %s s |\n' \
        "$n" "$check" "$gen" "$((gen_rss / 1024))" "$lines" "$build" "$((build_rss / 1024))" "$edit"
done
