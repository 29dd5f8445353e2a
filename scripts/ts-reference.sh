# Sourced by the benchmarks: the official TypeScript SDK's server with the
# weather example's tool (tests/interop/ts-weather-server.mjs), their
# reference point, when node and the SDK are installed in the interop
# folder (bash scripts/setup-interop.sh; MCPGEN_INTEROP_DIR, default
# ./.interop).

# ts_weather_server WHO: copies the server next to the SDK (so that it
# resolves the SDK and zod from there) and prints its path; says on stderr
# that WHO runs without it, and fails, when node or the SDK is missing.
# Run from the repository root.
ts_weather_server() {
    local interop="${MCPGEN_INTEROP_DIR:-$PWD/.interop}"
    if ! command -v node >/dev/null || [ ! -d "$interop/node_modules/@modelcontextprotocol/sdk" ]; then
        echo "$1: node or the TS SDK is missing (bash scripts/setup-interop.sh); running without the TypeScript reference" >&2
        return 1
    fi
    cp tests/interop/ts-weather-server.mjs "$interop/"
    echo "$interop/ts-weather-server.mjs"
}
