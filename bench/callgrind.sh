#!/usr/bin/env bash
# Instructions per tools/call, counted by callgrind in the server process:
# the generated example server (examples/weather-server) over stdio in both
# eras and over Streamable HTTP, and in the same run the official Rust SDK
# (rmcp, bench/callgrind and bench/http) serving the same get_forecast tool
# with the same output over stdio (its default transport, and its pipe
# transport on a current-thread runtime) and over Streamable HTTP (its
# StreamableHttpService, stateless 2026-07-28 requests, JSON responses), and
# the bare hyper floor of bench/http (a fixed JSON-RPC result per POST); the
# official TypeScript SDK's McpServer with the same tool over stdio
# (tests/interop/ts-weather-server.mjs, when node and the SDK are installed
# in .interop: bash scripts/setup-interop.sh); and argument validation
# alone, mcpgen's validator against the jsonschema crate
# (bench/callgrind/src/validate.rs).
#
# Difference method: each case runs twice under callgrind, with 500 and with
# 1,500 sequential calls after start-up (and `initialize` in the stateful
# era); (I(1500) - I(500)) / 1000 is the cost of one call, start-up and
# shutdown cancel. Instruction counts do not depend on the machine's load,
# so this is the honest measure on a shared machine (wall-clock: bench/stdio.sh).
# The TypeScript server is compiled as it runs (V8's JIT keeps optimizing
# for thousands of calls: about 870k instructions per call over calls
# 500-1,500, 615k over 1,500-2,500, 285k from 4,500 on), so it is counted
# from 4,500 to 8,500 calls, the difference over 4,000, under
# --smc-check=all-non-file (valgrind's mode for generated code); it takes
# about two minutes.
#
# Usage: bash bench/callgrind.sh [options] [CASE ...]
#   --server-bin PATH   measure this weather-server binary (e.g. a saved
#                       build from before a change) instead of building one
#   --no-rmcp           skip the references (rmcp, the hyper floor, the
#                       TypeScript server, the validator comparison)
#   --profile           also print each case's top self-cost functions per
#                       call (difference of the two runs, callgrind_annotate)
#   --keep DIR          keep the callgrind files in DIR
#   CASE ...            only the cases whose name contains one of these words
set -euo pipefail
cd "$(dirname "$0")/.."
root=$PWD
source scripts/ts-reference.sh

server_bin=""
rmcp=1
profile=0
keep=""
filters=()
while [ $# -gt 0 ]; do
    case "$1" in
        --server-bin) server_bin="$(realpath "$2")"; shift 2 ;;
        --no-rmcp) rmcp=0; shift ;;
        --profile) profile=1; shift ;;
        --keep) keep="$2"; shift 2 ;;
        -h|--help) sed -n '2,36p' "$0"; exit 0 ;;
        *) filters+=("$1"); shift ;;
    esac
done
command -v valgrind >/dev/null || { echo "bench-callgrind: valgrind is not installed" >&2; exit 1; }

# Builds go to $CARGO_TARGET_DIR when set (else target/).
target="${CARGO_TARGET_DIR:-$root/target}"
cargo build --quiet --release -p weather-server
[ -n "$server_bin" ] || server_bin="$target/release/weather-server"
bench="$target/release/mcp-bench"
rmcp_bin="$target/release/rmcp-stdio-weather"
rmcp_http_bin="$target/release/rmcp-weather"
floor_http_bin="$target/release/echo-floor"
if [ "$rmcp" = 1 ]; then
    (cd bench/callgrind && CARGO_TARGET_DIR="$target" cargo build --quiet --release)
    (cd bench/http && CARGO_TARGET_DIR="$target" cargo build --quiet --release)
fi

work="${keep:-$(mktemp -d)}"
mkdir -p "$work"
[ -n "$keep" ] || trap 'rm -rf "$work"' EXIT

small=500
large=1500
# Extra valgrind options for one case (the JIT-compiled TypeScript server).
valgrind_extra=""
forecast='{"city":"Oslo"}'
convert='{"value":21.5,"from":"celsius","to":"fahrenheit"}'
invalid1='{"city":"Oslo","days":9}'
invalid4='{"city":"","days":9,"units":"kelvin","extra":1}'
port=$((20000 + RANDOM % 20000))

total_of() { # the instruction total of a callgrind file
    awk '/^(summary|totals):/ { print $2; exit }' "$1"
}

wanted() {
    [ ${#filters[@]} -eq 0 ] && return 0
    local f
    for f in "${filters[@]}"; do
        case "$1" in *"$f"*) return 0 ;; esac
    done
    return 1
}

# Top self-cost functions per call: the difference of the two runs' profiles.
per_call_profile() {
    local a="$1" b="$2"
    for f in "$a" "$b"; do
        callgrind_annotate --threshold=100 --inclusive=no "$f" 2>/dev/null >"$f.txt" || true
    done
    python3 - "$a.txt" "$b.txt" $((large - small)) <<'PY'
import re, sys
def load(path):
    out = {}
    for line in open(path, errors="replace"):
        m = re.match(r"\s*([\d,]+)\s+(?:\([^)]*\)\s+)?(.*)$", line)
        if not m or ":" not in m.group(2):
            continue
        n = int(m.group(1).replace(",", ""))
        name = m.group(2).split(" [", 1)[0]
        out[name] = out.get(name, 0) + n
    return out
small, large, calls = load(sys.argv[1]), load(sys.argv[2]), int(sys.argv[3])
diff = {k: (large.get(k, 0) - small.get(k, 0)) / calls for k in large}
total = sum(v for v in diff.values() if v > 0)
for name, v in sorted(diff.items(), key=lambda kv: -kv[1])[:25]:
    if v < 50:
        break
    print(f"    {v:9.0f} {100 * v / total:5.1f}%  {name[:150]}")
PY
}

# measure NAME EXPECT ENV CMD DRIVE-ARGS...: prints instructions per call.
measure() {
    local name="$1" expect="$2" env="$3" cmd="$4"
    shift 4
    wanted "$name" || return 0
    local n totals=()
    for n in $small $large; do
        local out="$work/$name.$n.out"
        rm -f "$out"
        # A fresh port for every HTTP run.
        port=$((port + 1))
        local args=("${@//@PORT@/$port}")
        env $env "$bench" --drive "$n" --expect "$expect" "${args[@]}" \
            --server "$name=valgrind --tool=callgrind $valgrind_extra --callgrind-out-file=$out ${cmd//@PORT@/$port}" \
            || { echo "bench-callgrind: $name failed" >&2; return 1; }
        totals+=("$(total_of "$out")")
    done
    awk -v n="$name" -v a="${totals[0]}" -v b="${totals[1]}" -v c=$((large - small)) \
        'BEGIN { printf "%-44s %9.1fk instructions/call\n", n, (b - a) / c / 1000 }'
    if [ "$profile" = 1 ]; then
        per_call_profile "$work/$name.$small.out" "$work/$name.$large.out"
    fi
}

stateful=(--era stateful)
stateless=(--era stateless)
http=(--era stateless --http "127.0.0.1:@PORT@")
http_stateful=(--era stateful --http "127.0.0.1:@PORT@")
off="WEATHER_LOG=off"
on="WEATHER_LOG=info"

echo "instructions per tools/call in the server process (callgrind, ($large - $small calls) / $((large - small)))"
measure mcpgen-stdio-stateful-forecast          result     "$off" "$server_bin" "${stateful[@]}" --tool get_forecast --args "$forecast"
measure mcpgen-stdio-stateful-forecast-audit    result     "$on"  "$server_bin" "${stateful[@]}" --tool get_forecast --args "$forecast"
measure mcpgen-stdio-stateful-convert           result     "$off" "$server_bin" "${stateful[@]}" --tool convert_temperature --args "$convert"
measure mcpgen-stdio-stateful-invalid1          tool-error "$off" "$server_bin" "${stateful[@]}" --tool get_forecast --args "$invalid1"
measure mcpgen-stdio-stateful-invalid4          tool-error "$off" "$server_bin" "${stateful[@]}" --tool get_forecast --args "$invalid4"
measure mcpgen-stdio-stateless-forecast         result     "$off" "$server_bin" "${stateless[@]}" --tool get_forecast --args "$forecast"
measure mcpgen-stdio-stateless-forecast-audit   result     "$on"  "$server_bin" "${stateless[@]}" --tool get_forecast --args "$forecast"
measure mcpgen-stdio-stateless-convert          result     "$off" "$server_bin" "${stateless[@]}" --tool convert_temperature --args "$convert"
measure mcpgen-stdio-stateless-invalid1         tool-error "$off" "$server_bin" "${stateless[@]}" --tool get_forecast --args "$invalid1"
measure mcpgen-http-stateless-forecast          result     "$off" "$server_bin --http 127.0.0.1:@PORT@" "${http[@]}" --tool get_forecast --args "$forecast"
measure mcpgen-http-stateless-forecast-audit    result     "$on"  "$server_bin --http 127.0.0.1:@PORT@" "${http[@]}" --tool get_forecast --args "$forecast"
measure mcpgen-http-stateless-convert           result     "$off" "$server_bin --http 127.0.0.1:@PORT@" "${http[@]}" --tool convert_temperature --args "$convert"
measure mcpgen-http-stateless-invalid1          tool-error "$off" "$server_bin --http 127.0.0.1:@PORT@" "${http[@]}" --tool get_forecast --args "$invalid1"
measure mcpgen-http-stateful-forecast           result     "$off" "$server_bin --http 127.0.0.1:@PORT@" "${http_stateful[@]}" --tool get_forecast --args "$forecast"

# The same stateless HTTP call with an OAuth bearer gate (docs/authorization.md):
# an RS256 JWT access token checked by the JwtVerifier against a key set
# served on loopback, fetched once (the first call) and cached after; the
# per-call difference is the gate (header parsing, signature, claims).
if wanted mcpgen-http-stateless-forecast-jwt; then
    auth="$work/auth"
    mkdir -p "$auth"
    openssl genrsa -out "$auth/key.pem" 2048 2>/dev/null
    resource="https://mcp.bench.example/mcp"
    issuer="http://127.0.0.1/bench-issuer"
    token="$(python3 - "$auth" "$resource" "$issuer" <<'PY'
import base64, json, subprocess, sys, time
d, resource, issuer = sys.argv[1:]
b64 = lambda b: base64.urlsafe_b64encode(b).rstrip(b"=").decode()
modulus = subprocess.check_output(["openssl", "rsa", "-in", f"{d}/key.pem", "-noout", "-modulus"], text=True).split("=", 1)[1].strip()
jwk = {"kty": "RSA", "use": "sig", "alg": "RS256", "kid": "bench", "n": b64(bytes.fromhex(modulus)), "e": "AQAB"}
open(f"{d}/jwks.json", "w").write(json.dumps({"keys": [jwk]}))
now = int(time.time())
head = b64(json.dumps({"alg": "RS256", "typ": "at+jwt", "kid": "bench"}).encode())
claims = {"iss": issuer, "aud": resource, "sub": "bench", "client_id": "bench", "scope": "weather:read", "iat": now, "exp": now + 86400}
body = b64(json.dumps(claims).encode())
sig = subprocess.run(["openssl", "dgst", "-sha256", "-sign", f"{d}/key.pem"], input=f"{head}.{body}".encode(), capture_output=True, check=True).stdout
print(f"{head}.{body}.{b64(sig)}")
PY
)"
    jwks_port=$((port + 500))
    python3 -m http.server --bind 127.0.0.1 --directory "$auth" "$jwks_port" >/dev/null 2>&1 &
    jwks_pid=$!
    sleep 0.5
    jwt="$off MCP_RESOURCE_URL=$resource MCP_AUTH_ISSUER=$issuer MCP_AUTH_JWKS_URI=http://127.0.0.1:$jwks_port/jwks.json MCP_BENCH_BEARER=$token"
    measure mcpgen-http-stateless-forecast-jwt  result     "$jwt" "$server_bin --http 127.0.0.1:@PORT@" "${http[@]}" --tool get_forecast --args "$forecast" || true
    kill "$jwks_pid" 2>/dev/null || true
fi
if [ "$rmcp" = 1 ]; then
    measure rmcp-stdio-stateful-forecast               result "" "$rmcp_bin" "${stateful[@]}" --tool get_forecast --args "$forecast"
    measure rmcp-stdio-current-thread-stateful-forecast result "" "$rmcp_bin --current-thread" "${stateful[@]}" --tool get_forecast --args "$forecast"
    measure rmcp-http-stateless-forecast               result "" "$rmcp_http_bin --http 127.0.0.1:@PORT@" "${http[@]}" --tool get_forecast --args "$forecast"
    measure floor-http-hyper-echo                      result "" "$floor_http_bin --http 127.0.0.1:@PORT@" "${http[@]}" --tool get_forecast --args "$forecast"
    if ts_server="$(ts_weather_server bench-callgrind)"; then
        small=4500 large=8500 valgrind_extra=--smc-check=all-non-file \
            measure ts-sdk-stdio-stateful-forecast-4500-8500 result "" "node $ts_server" "${stateful[@]}" --tool get_forecast --args "$forecast"
    fi
    # Argument validation alone (bench/callgrind/src/validate.rs): 1,000
    # and 11,000 validations, the difference over 10,000.
    echo "instructions per argument validation (callgrind, (11000 - 1000) / 10000)"
    for case in forecast convert invalid4; do
        for validator in ours jsonschema; do
            wanted "validate-$validator-$case" || continue
            t=()
            for n in 1000 11000; do
                out="$work/validate-$validator-$case.$n.out"
                valgrind --tool=callgrind --callgrind-out-file="$out" "$target/release/validate" "$validator" "$case" "$n" >/dev/null 2>&1
                t+=("$(total_of "$out")")
            done
            awk -v n="validate-$validator-$case" -v a="${t[0]}" -v b="${t[1]}" \
                'BEGIN { printf "%-44s %9.0f instructions/validation\n", n, (b - a) / 10000 }'
        done
    done
fi
