#!/usr/bin/env bash
# Runs every fuzz target of fuzz/ (cargo fuzz, libFuzzer, nightly) for
# SECONDS each (default 30), after seeding the corpora: JSON-RPC messages and
# protocol examples from the official specification mirror
# (../shared/mcp-spec, or $MCPGEN_SCHEMA_MIRROR), the shared manifests and
# the examples' manifests. Corpora grow in the untracked fuzz/corpus/; the
# minimised corpora of the long runs are kept in fuzz/kept/<target>/
# (tracked; read as a second corpus, never written; scripts/fuzz_keep.sh
# minimises a target's corpora into it). A crash
# leaves its input in fuzz/artifacts/<target>/ and fails the script.
#   bash scripts/fuzz.sh            # 30 s per target
#   bash scripts/fuzz.sh 3600       # an hour per target
#   bash scripts/fuzz.sh 60 http    # one target
# MCPGEN_FUZZ_SMOKE=1 builds the targets unoptimised and without
# AddressSanitizer (coverage guidance stays): a build that takes a fraction
# of the time, for a short check that they build and the seeds pass (CI).
# Runs of an hour want the default, optimised build.
# FUZZ_TIMEOUT (default 20) is the seconds one input may take before
# libFuzzer calls it a hang; it is wall-clock time, so a run at low priority
# beside other work wants more (a starved fuzzer reports false hangs).
# Each target's whole output is kept in fuzz/logs/TARGET.log (untracked);
# when a target fails, its run count and statistics are printed after the
# report.
set -euo pipefail
cd "$(dirname "$0")/.."
seconds="${1:-30}"
shift || true
targets=("$@")
if [ "${#targets[@]}" -eq 0 ]; then
    targets=(jsonrpc protocol manifest generate http sse challenge dpop oauth_documents client_stdio client_http)
fi
mirror="${MCPGEN_SCHEMA_MIRROR:-$PWD/../shared/mcp-spec}"
export MCPGEN_SCHEMA_MIRROR="$mirror"

# cargo fuzz needs nightly features (-Zsanitizer). A nightly toolchain is
# used when rustup has one; otherwise the machine's one toolchain is told
# to accept them (RUSTC_BOOTSTRAP=1), which is what a machine that cannot
# fetch another toolchain offers.
if rustup toolchain list 2>/dev/null | grep -q '^nightly'; then
    toolchain=(+nightly)
else
    toolchain=()
    export RUSTC_BOOTSTRAP=1
    echo "fuzz.sh: no nightly toolchain; using $(rustc --version) with RUSTC_BOOTSTRAP=1" >&2
fi
if ! command -v cargo-fuzz >/dev/null 2>&1; then
    echo "fuzz.sh: installing cargo-fuzz" >&2
    # An unoptimised build of the tool: it only drives cargo and libFuzzer.
    cargo install cargo-fuzz --locked --quiet --debug
fi

python3 scripts/fuzz_seeds.py "$mirror" fuzz/corpus

# Artifacts of the nightly, instrumented build stay apart from the stable ones.
export CARGO_TARGET_DIR="$PWD/target/fuzz"
build=()
if [ "${MCPGEN_FUZZ_SMOKE:-}" = 1 ]; then
    build=(--dev --sanitizer none)
fi
status=0
for target in "${targets[@]}"; do
    echo "fuzz.sh: $target for ${seconds}s"
    mkdir -p "fuzz/corpus/$target" "fuzz/artifacts/$target" fuzz/logs
    kept=()
    [ -d "fuzz/kept/$target" ] && kept=("kept/$target")
    failed=0
    (cd fuzz && cargo "${toolchain[@]}" fuzz run "${build[@]}" "$target" "corpus/$target" "${kept[@]}" -- \
        -max_total_time="$seconds" -rss_limit_mb=4096 -max_len=65536 -timeout="${FUZZ_TIMEOUT:-20}" \
        -artifact_prefix="artifacts/$target/" -print_final_stats=1 2>&1 | tee "logs/$target.log" | tail -n 25) || failed=1
    # A failing input of this run or of an earlier one still lying there.
    if [ -n "$(find "fuzz/artifacts/$target" -maxdepth 1 \( -name 'crash-*' -o -name 'oom-*' -o -name 'timeout-*' \) -print -quit)" ]; then
        failed=1
    fi
    if [ "$failed" != 0 ]; then
        echo "fuzz.sh: $target failed (a failing input is in fuzz/artifacts/$target/, or the build failed above)" >&2
        # The report's stack may have pushed the run's figures out of the tail.
        grep -aE '^(Done [0-9]+ runs|stat::)' "fuzz/logs/$target.log" >&2 || true
        status=1
    fi
done
exit "$status"
