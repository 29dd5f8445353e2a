#!/usr/bin/env bash
# How many of each OpenAPI document's operations become MCP tools with two
# neighbouring importers: rmcp-openapi (Rust, on the official SDK rmcp; its
# server binary rmcp-openapi-server) and FastMCP's OpenAPI provider (Python,
# FastMCP.from_openapi). Prints a Markdown table; details per document (tool
# names, errors, warnings) go to $NEIGHBOURS_OUT (default .neighbours/out.json),
# the importers' own logging to .neighbours/run.log.
#
#   bench/openapi-neighbours/run.sh [--no-rmcp] [DOCS_DIR]
#
# DOCS_DIR defaults to ../shared/openapi beside the repository. Installs, into
# the untracked .neighbours/ (or $NEIGHBOURS_DIR), when missing:
#   venv/        python3 venv from requirements.txt (fastmcp and its deps, pinned)
#   cargo-root/  rmcp-openapi-server via `cargo install --locked`, niced, one
#                job (~380 crates: a long build on a shared machine; skip it
#                with --no-rmcp, or point RMCP_OPENAPI_SERVER at a binary)
# Everything talks to loopback only: the importers' base URL is
# http://127.0.0.1:9 and no tool is called.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
RMCP_OPENAPI_VERSION=0.32.1

rmcp=1
if [ "${1:-}" = "--no-rmcp" ]; then rmcp=0; shift; fi
docs=${1:-$root/../shared/openapi}
work=${NEIGHBOURS_DIR:-$root/.neighbours}
mkdir -p "$work"

# FastMCP (and PyYAML, and an MCP client for rmcp-openapi-server).
stamp="$work/venv/.requirements"
if [ ! -f "$stamp" ] || ! cmp -s "$stamp" "$here/requirements.txt"; then
    rm -rf "$work/venv"
    python3 -m venv "$work/venv"
    "$work/venv/bin/pip" install -q --disable-pip-version-check -r "$here/requirements.txt" >&2
    cp "$here/requirements.txt" "$stamp"
fi

bin=""
if [ "$rmcp" = 1 ]; then
    bin=${RMCP_OPENAPI_SERVER:-$work/cargo-root/bin/rmcp-openapi-server}
    if [ ! -x "$bin" ]; then
        echo "run.sh: building rmcp-openapi-server $RMCP_OPENAPI_VERSION into $work/cargo-root (log: $work/cargo-install.log)" >&2
        nice -n 19 cargo install --root "$work/cargo-root" rmcp-openapi-server \
            --version "$RMCP_OPENAPI_VERSION" --locked -j "${CARGO_JOBS:-1}" \
            > "$work/cargo-install.log" 2>&1 || { tail -20 "$work/cargo-install.log" >&2; exit 1; }
    fi
    echo "run.sh: $("$bin" --version 2>/dev/null || echo rmcp-openapi-server)" >&2
fi
echo "run.sh: fastmcp $("$work/venv/bin/python" -c 'import fastmcp; print(fastmcp.__version__)')" >&2

NEIGHBOURS_OUT=${NEIGHBOURS_OUT:-$work/out.json} \
    "$work/venv/bin/python" "$here/neighbours.py" table "$docs" $bin 2> "$work/run.log"
