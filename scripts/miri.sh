#!/usr/bin/env bash
# The runtime's unsafe code that Miri can interpret, under Miri (nightly):
# the JSON document of schema/validator.rs (`Doc::write_text`'s unchecked 16-byte
# copies, the float writer's `as_mut_vec`) through its unit tests, which
# cover pieces of every length from 0 to 40 at the start, middle and end
# of a text. The stdio transport's unsafe code (raw fds, fcntl, recv) calls
# the C library, which Miri does not run. Takes about 5 minutes on 2 cores.
# Installs the miri and rust-src components of the nightly toolchain first
# when rustup lacks them (network access). Not part of .ci/run.
# Usage: bash scripts/miri.sh [TEST FILTER]   (default schema::validator::tests::docs)
set -euo pipefail
cd "$(dirname "$0")/.."
filter="${1:-schema::validator::tests::docs}"
if ! rustup +nightly component list --installed 2>/dev/null | grep -q '^miri'; then
    rustup toolchain install nightly --profile minimal --component miri,rust-src
fi
cargo +nightly miri test -p mcpgen-runtime --lib "$filter"
