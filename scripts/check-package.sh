#!/usr/bin/env bash
# Packaging check, cheap enough for every CI run: what `cargo package` puts
# into the two crates (the generator's templates and schema pins in, tests,
# fixtures and workspace members out), then both crates packaged without
# the verification build (`cargo package -p mcpgen-runtime -p mcpgen`
# without --no-verify also builds mcpgen from its .crate against the
# packaged runtime; run it by hand before a release).
set -euo pipefail
cd "$(dirname "$0")/.."

fail() { echo "check-package: $*" >&2; exit 1; }

list() { cargo package --quiet --allow-dirty --list -p "$1" 2>/dev/null; }

runtime="$(list mcpgen-runtime)"
generator="$(list mcpgen)"

for need in src/lib.rs src/server/mod.rs src/http/mod.rs Cargo.toml; do
    grep -qx "$need" <<<"$runtime" || fail "mcpgen-runtime's package lacks $need"
done
for need in src/lib.rs src/main.rs src/store.rs schema/versions.toml README.md \
    templates/new/Cargo.toml.hbs templates/new/build.rs.hbs templates/new/src/main.rs.hbs \
    templates/new/tests/tools_list.rs.hbs templates/new/README.md.hbs; do
    grep -qx "$need" <<<"$generator" || fail "mcpgen's package lacks $need"
done
# No test data, no generated schema text, nothing of other workspace members.
for crate in mcpgen-runtime mcpgen; do
    files="$(list "$crate")"
    if bad="$(grep -E '^(tests|goldens|examples|fuzz|bench|benches|protocol-tests|tools-tests|runtime|scripts|deploy|schema/[0-9])/' <<<"$files")"; then
        fail "$crate's package holds files it should not: $(tr '\n' ' ' <<<"$bad")"
    fi
done

if ! out="$(cargo package --quiet --allow-dirty --no-verify -p mcpgen-runtime -p mcpgen 2>&1)"; then
    echo "$out" >&2
    fail "cargo package failed (above)"
fi
echo "check-package: both crates package (contents checked)"
