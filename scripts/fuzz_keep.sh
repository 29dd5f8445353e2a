#!/usr/bin/env bash
# Minimises fuzz targets' corpora into the tracked fuzz/kept/TARGET/, which
# scripts/fuzz.sh reads as a second corpus: libFuzzer's merge keeps the
# fewest inputs that cover what the working corpus (fuzz/corpus/TARGET/)
# and the kept one cover together. Then scripts/fuzz_keep.py keeps the
# smallest inputs up to FUZZ_KEEP_BYTES (default 1 MiB) per target, and
# for the targets seeded with text that is not ours to commit (jsonrpc,
# protocol, manifest and generate: the specification's examples and the
# shared manifests, which scripts/fuzz.sh seeds again anyway) leaves out
# every input that carries 64 bytes of a seed.
#   bash scripts/fuzz_keep.sh jsonrpc http
set -euo pipefail
cd "$(dirname "$0")/.."
[ "$#" -gt 0 ] || { echo "usage: scripts/fuzz_keep.sh TARGET..." >&2; exit 2; }
mirror="${MCPGEN_SCHEMA_MIRROR:-$PWD/../shared/mcp-spec}"
if rustup toolchain list 2>/dev/null | grep -q '^nightly'; then
    toolchain=(+nightly)
else
    toolchain=()
    export RUSTC_BOOTSTRAP=1
fi
export CARGO_TARGET_DIR="$PWD/target/fuzz"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
python3 scripts/fuzz_seeds.py "$mirror" "$work/seeds"
for target in "$@"; do
    mkdir -p "fuzz/corpus/$target" "fuzz/kept/$target" "$work/merged/$target"
    (cd fuzz && cargo "${toolchain[@]}" fuzz run "$target" "$work/merged/$target" \
        "corpus/$target" "kept/$target" -- -merge=1 -rss_limit_mb=4096 -max_len=65536 2>&1 | tail -n 3)
    seeds="$work/seeds/$target"
    case "$target" in
        jsonrpc | protocol | manifest | generate) ;;
        *) seeds="$work/none" ;;
    esac
    python3 scripts/fuzz_keep.py "$work/merged/$target" "$seeds" \
        "fuzz/kept/$target" "${FUZZ_KEEP_BYTES:-1048576}"
done
