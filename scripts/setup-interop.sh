#!/usr/bin/env bash
# Installs the npm packages used by the interop tests (the official
# TypeScript MCP SDK talking to mcpgen's generated server and client) into
# the untracked folder .interop/ of the repository, when they are missing.
#
# ---------------------------------------------------------------------------
# INTEROP PACKAGES: the list lives in tests/interop/packages.txt (owned by the
# server/client interop tests): one npm package spec per line, e.g.
#   @modelcontextprotocol/sdk@1.17.0
# Blank lines and lines starting with # are ignored. Nothing to install when
# the file is absent. After installing, node resolves the packages from
# .interop/node_modules (exported to the tests as MCPGEN_INTEROP_DIR).
# ---------------------------------------------------------------------------
set -euo pipefail
cd "$(dirname "$0")/.."

list=tests/interop/packages.txt
if [ ! -f "$list" ]; then
    echo "setup-interop: no $list, nothing to install"
    exit 0
fi
mapfile -t packages < <(grep -v '^[[:space:]]*\(#\|$\)' "$list" | tr -d '\r')
if [ "${#packages[@]}" -eq 0 ]; then
    echo "setup-interop: $list lists no packages"
    exit 0
fi
if ! command -v npm >/dev/null 2>&1; then
    echo "setup-interop: npm not found; the interop tests will be skipped (or fail under CI=true)" >&2
    exit 0
fi

mkdir -p .interop
stamp=.interop/.installed
wanted="$(printf '%s\n' "${packages[@]}")"
if [ -f "$stamp" ] && [ "$(cat "$stamp")" = "$wanted" ] && [ -d .interop/node_modules ]; then
    echo "setup-interop: .interop/ is up to date (${#packages[@]} package(s))"
    exit 0
fi
if [ ! -f .interop/package.json ]; then
    printf '{ "name": "mcpgen-interop", "private": true }\n' > .interop/package.json
fi
echo "setup-interop: installing ${packages[*]} into .interop/"
(cd .interop && npm install --no-audit --no-fund --loglevel=error "${packages[@]}")
printf '%s\n' "$wanted" > "$stamp"
