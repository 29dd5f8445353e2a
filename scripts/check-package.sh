#!/usr/bin/env bash
# Packaging check, run by scripts/test.sh after the test suite (whose build
# it reuses: the target directory is the workspace's):
#
# 1. what `cargo package` puts into the two crates: the generator's
#    templates and schema pins in; tests, fixtures and workspace members out;
# 2. `cargo publish --dry-run` of both crates together: each is packaged and
#    built from its own .crate, mcpgen against the packaged runtime (not the
#    workspace's), and every check before the upload runs;
# 3. `cargo install --path .` (dev profile, `--debug`: the release profile's
#    fat LTO would only add minutes) gives an `mcpgen` that runs `--help`,
#    generates from an example manifest and scaffolds a crate with
#    `--mcpgen-version`, whose dependencies resolve against the packaged
#    crates (`[patch.crates-io]` on the unpacked .crate files).
#
# `--quick` stops after 1 and packages without building (`--no-verify`).
set -euo pipefail
cd "$(dirname "$0")/.."
root="$PWD"
target="${CARGO_TARGET_DIR:-$root/target}"

fail() { echo "check-package: $*" >&2; exit 1; }
step() { echo "check-package: $* (${SECONDS}s)"; }

list() { cargo package --quiet --allow-dirty --list -p "$1" 2>/dev/null; }

runtime="$(list mcpgen-runtime)"
generator="$(list mcpgen)"

for need in src/lib.rs src/server/mod.rs src/server/http/mod.rs src/client/http/mod.rs src/transport/http.rs Cargo.toml; do
    grep -qx "$need" <<<"$runtime" || fail "mcpgen-runtime's package lacks $need"
done
for need in src/lib.rs src/main.rs src/store.rs schema/versions.toml README.md \
    templates/new/Cargo.toml.hbs templates/new/bindings/Cargo.toml.hbs templates/new/bindings/build.rs.hbs \
    templates/new/bindings/src/lib.rs.hbs templates/new/src/main.rs.hbs \
    templates/new/tests/tools_list.rs.hbs templates/new/README.md.hbs; do
    grep -qx "$need" <<<"$generator" || fail "mcpgen's package lacks $need"
done
# No test data, no generated schema text, nothing of other workspace members.
for crate in mcpgen-runtime mcpgen; do
    files="$(list "$crate")"
    if bad="$(grep -E '^(tests|goldens|examples|fuzz|bench|runtime|scripts|deploy|schema/[0-9])/' <<<"$files")"; then
        fail "$crate's package holds files it should not: $(tr '\n' ' ' <<<"$bad")"
    fi
done
step "contents checked"

if [ "${1:-}" = --quick ]; then
    if ! out="$(cargo package --quiet --allow-dirty --no-verify -p mcpgen-runtime -p mcpgen 2>&1)"; then
        echo "$out" >&2
        fail "cargo package failed (above)"
    fi
    step "both crates package (not built)"
    exit 0
fi

# Both crates at once: cargo packages mcpgen-runtime first and builds
# mcpgen from its .crate with that package standing in for the registry's.
# Cargo unpacks that stand-in into CARGO_HOME's registry as
# mcpgen-runtime-<version>, and takes a registry package of a version it
# has unpacked or built before as unchanged: on a machine that ran this
# before with other sources (same version), mcpgen would be checked against
# the old runtime. So when an earlier run left such copies, they and the
# runtime's build products go first (the runtime is rebuilt, about a
# minute); a new machine, as in CI, has none and skips this.
version="$(cargo pkgid -p mcpgen | sed 's/.*[#@]//')"
cargo_home="${CARGO_HOME:-$HOME/.cargo}"
stale=""
for crate in mcpgen-runtime mcpgen; do
    for copy in "$cargo_home"/registry/src/*/"$crate-$version" "$cargo_home"/registry/cache/*/"$crate-$version.crate"; do
        if [ -e "$copy" ]; then
            stale=1
            rm -rf "$copy"
        fi
    done
done
if [ -n "$stale" ]; then
    echo "check-package: removed an earlier run's packaged copies of $version; rebuilding the runtime"
    cargo clean --quiet -p mcpgen-runtime
fi
if ! out="$(cargo publish --dry-run --allow-dirty --locked -p mcpgen-runtime -p mcpgen 2>&1)"; then
    echo "$out" >&2
    fail "cargo publish --dry-run failed (above)"
fi
grep -q "aborting upload due to dry run" <<<"$out" || { echo "$out" >&2; fail "cargo publish --dry-run did not reach the upload"; }
# The .crate files themselves (the dry run keeps them in a scratch folder).
cargo package --quiet --allow-dirty --no-verify -p mcpgen-runtime -p mcpgen
for crate in mcpgen-runtime mcpgen; do
    [ -f "$target/package/$crate-$version.crate" ] || fail "no $target/package/$crate-$version.crate"
done
step "cargo publish --dry-run: both crates package and build from their .crate files"

work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT

# `cargo install --path .` from the checkout, into a throwaway root.
if ! out="$(cargo install --quiet --debug --locked --offline --path . --root "$work/root" --target-dir "$target" 2>&1)"; then
    echo "$out" >&2
    fail "cargo install --path . failed (above)"
fi
installed="$work/root/bin/mcpgen"
[ -x "$installed" ] || fail "cargo install --path . installed no bin/mcpgen"
"$installed" --help | grep -q "generate" || fail "the installed mcpgen --help does not list generate"
"$installed" generate --manifest examples/weather-server/tools.json --out "$work/generated" >/dev/null 2>&1 \
    || fail "the installed mcpgen cannot generate from examples/weather-server/tools.json"
for file in protocol.rs tools.rs server.rs client.rs; do
    head -1 "$work/generated/$file" | grep -q "^// @generated by mcpgen $version" || fail "the installed mcpgen wrote no $file"
done
grep -q "fn get_forecast" "$work/generated/server.rs" || fail "the installed mcpgen's server.rs has no get_forecast"
step "cargo install --path . gives an mcpgen that generates"

# A scaffold for the published crates resolves against the packaged ones:
# the two .crate files unpacked, named by [patch.crates-io], resolved
# offline with the workspace's lock file (the versions of everything else).
"$installed" new "$work/scaffold" --manifest examples/weather-server/tools.json --transport http \
    --mcpgen-version "$version" >/dev/null 2>&1 || fail "the installed mcpgen new --mcpgen-version $version failed"
mkdir "$work/crates"
for crate in mcpgen-runtime mcpgen; do
    tar -xzf "$target/package/$crate-$version.crate" -C "$work/crates"
done
for manifest in Cargo.toml bindings/Cargo.toml; do
    grep -q "version = \"$version\"" "$work/scaffold/$manifest" || fail "the scaffold's $manifest does not depend on version $version"
    # The bindings are the scaffold's own workspace member; nothing else is by path.
    grep "path = " "$work/scaffold/$manifest" | grep -qv 'path = "bindings"' \
        && fail "the scaffold's $manifest for --mcpgen-version has path dependencies"
done
cat >>"$work/scaffold/Cargo.toml" <<EOF

[patch.crates-io]
mcpgen = { path = "$work/crates/mcpgen-$version" }
mcpgen-runtime = { path = "$work/crates/mcpgen-runtime-$version" }
EOF
cp Cargo.lock "$work/scaffold/Cargo.lock"
if ! tree="$(cd "$work/scaffold" && cargo tree --offline -e normal,build --prefix none 2>&1)"; then
    echo "$tree" >&2
    fail "the scaffold's dependencies do not resolve against the packaged crates (above)"
fi
for crate in mcpgen mcpgen-runtime; do
    grep -q "^$crate v$version ($work/crates/$crate-$version)" <<<"$tree" \
        || { echo "$tree" >&2; fail "the scaffold does not use the packaged $crate"; }
done
step "mcpgen new --mcpgen-version $version resolves against the packaged crates"
