#!/usr/bin/env bash
# The whole test suite, from a fresh clone: schema mirror, interop npm
# packages, the official peers (.peers/), then every test of the workspace.
# Extra arguments go to `cargo test` (e.g. `bash scripts/test.sh -p mcpgen --test cli_generate`).
set -euo pipefail
cd "$(dirname "$0")/.."

# The official schemas: a mirror directory laid out <revision>/schema.json.
# The shared copy next to the repository serves when present; otherwise
# every pinned file is downloaded (and sha256-checked) once into the user's
# cache, which is laid out the same way and then serves as the mirror.
if [ -z "${MCPGEN_SCHEMA_MIRROR:-}" ]; then
    if [ -d ../shared/mcp-spec ]; then
        MCPGEN_SCHEMA_MIRROR="$(cd ../shared/mcp-spec && pwd)"
    else
        cargo run --quiet -p mcpgen -- schema pull --all
        MCPGEN_SCHEMA_MIRROR=$(cargo run --quiet -p mcpgen -- schema list | sed -n 's/^cache: //p')
    fi
    export MCPGEN_SCHEMA_MIRROR
fi
echo "test.sh: MCPGEN_SCHEMA_MIRROR=${MCPGEN_SCHEMA_MIRROR:-<unset: download>}"

# npm packages for the interop tests, into the untracked .interop/.
bash scripts/setup-interop.sh
if [ -d .interop/node_modules ]; then
    MCPGEN_INTEROP_DIR="$PWD/.interop"
    export MCPGEN_INTEROP_DIR
fi

# The official peers (Node 22, the conformance suite, the Python SDK venv)
# into the untracked .peers/; needs npm and python3 >= 3.10. A failed
# install does not stop the suite: the peer tests then skip, or fail under
# CI=true with the reason, and every other result is still reported.
if bash scripts/setup-peers.sh; then
    MCPGEN_PEERS_DIR="$PWD/.peers"
    export MCPGEN_PEERS_DIR
else
    echo "test.sh: scripts/setup-peers.sh failed; the tests that need the official peers will skip (fail under CI=true)" >&2
fi

# Where cargo builds: target/ unless CARGO_TARGET_DIR or a config says otherwise.
target=$(cargo metadata --format-version 1 --no-deps | sed -n 's/.*"target_directory":"\([^"]*\)".*/\1/p')

# Outside CI=true a test whose data only ../shared has (the
# JSON-Schema-Test-Suite, the real manifests) skips, writing one line
# `test: reason` into $target/skipped/; under CI=true it fails instead.
rm -rf "$target/skipped"

# --no-fail-fast: one failing test binary does not hide the results of the others.
status=0
cargo test --workspace --no-fail-fast "$@" || status=$?

# The official conformance suite's results (server scenarios of both
# requirement sets, client scenarios), as the tests wrote them.
for table in "$target"/conformance/*.txt; do
    [ -f "$table" ] || continue
    echo "== conformance: $(basename "$table" .txt)"
    cat "$table"
done
# The OpenAPI documents served against Prism (tests/openapi_prism.rs).
if [ -f "$target/openapi-prism/table.md" ]; then
    echo "== openapi: the nine documents against Prism"
    cat "$target/openapi-prism/table.md"
    if [ -f "$target/openapi-prism/set-aside.txt" ]; then cat "$target/openapi-prism/set-aside.txt"; fi
fi
# One line naming every test that skipped, and why.
if compgen -G "$target/skipped/*.txt" >/dev/null; then
    skipped=$(cat "$target"/skipped/*.txt | sort -u)
    echo "test.sh: skipped $(printf '%s\n' "$skipped" | wc -l) test(s): $(printf '%s\n' "$skipped" | paste -sd ';' | sed 's/;/; /g')"
fi
if [ "$status" != 0 ]; then
    exit "$status"
fi
# Under CI=true the test executables (a few GB: every test binary, client
# driver and scaffolded crate links the whole runtime) are deleted once run;
# the checks below need only the libraries (binaries have no extension;
# proc-macro .so files stay). A developer's run keeps them
# for the next incremental build.
if [ "${CI:-}" = true ]; then
    find "$target/debug" "$target/debug/deps" -maxdepth 1 -type f -perm -u+x ! -name '*.*' -delete
fi

# Generated code must be clippy-clean: the protocol types of every revision
# (tests/protocol), the tool types of the shared manifests (tests/tools) and
# the example server's generated bindings, with every lint a warning denied.
# The workspace lints (Cargo.toml: missing docs, unreachable `pub`, missing
# `Debug`, `unsafe` only where allowed with a reason) hold for every target,
# and for the runtime in the feature sets a user can pick on their own (the
# workspace build unifies features, which hides code left unused without
# one). The API docs build without a warning.
if [ "$#" -eq 0 ]; then
    cargo clippy --workspace --no-deps --all-targets -- -D warnings
    cargo clippy -p mcpgen-runtime --no-deps --no-default-features -- -D warnings
    cargo clippy -p mcpgen-runtime --no-deps --no-default-features --features streamable-http -- -D warnings
    cargo clippy -p mcpgen-runtime --no-deps --no-default-features --features otel -- -D warnings
    cargo clippy -p mcpgen-runtime --no-deps --no-default-features --features upstream,tls -- -D warnings
    RUSTDOCFLAGS="-D warnings" cargo doc --no-deps -p mcpgen-runtime --all-features
    RUSTDOCFLAGS="-D warnings" cargo doc --no-deps -p mcpgen
    # The generated protocol types of every revision: the official
    # schemas' descriptions, as rustdoc reads them, without a warning.
    RUSTDOCFLAGS="-D warnings" cargo doc --no-deps -p mcpgen-protocol-tests
    # Tool types of hostile shapes (60 nested maps, arrays, objects):
    # rustdoc proves every auto trait of each, deeper than rustc does.
    RUSTDOCFLAGS="-D warnings" cargo doc --no-deps -p mcpgen-tools-tests
fi

# Both crates are publishable: contents checked, `cargo publish --dry-run`
# (each built from its .crate), `cargo install --path .` works, and a
# `mcpgen new --mcpgen-version` crate resolves against the packaged crates.
if [ "$#" -eq 0 ]; then
    bash scripts/check-package.sh
fi
