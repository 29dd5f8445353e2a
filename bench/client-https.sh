#!/usr/bin/env bash
# HTTPS round trips of two MCP clients calling the same server, in one
# sitting, interleaved (A B A B ..., 5 rounds unless --rounds says
# otherwise), CALLS sequential tools/call of get_forecast {"city":"Oslo"}
# each (2,000 unless --calls says otherwise, after 50 untimed):
#
#   A   the runtime's client engine and Streamable HTTP transport
#       (bench/client-http --stats, release), stateless 2026-07-28
#   B   rmcp, the official Rust SDK (bench/rmcp-client, release): its
#       Streamable HTTP client on reqwest with rustls, reqwest's default
#       client (idle connections kept) trusting the bench's CA; rmcp's
#       default handshake (2026-07-28 with rmcp 3.x)
#
# The server: the example server (weather-server --http, release) behind
# nginx on 127.0.0.1 terminating TLS with a throwaway CA made here with
# openssl (nginx keeps its connections to the server alive). Prints, per
# client, the median over rounds of calls/s, p50 and p99 per call, and the
# median of the per-round ratios A/B of calls/s; the load average before
# and after shows whether anything else ran.
#
# Usage: bash bench/client-https.sh [--rounds N] [--calls N]
#            [--client-bin LABEL=PATH]... [--rmcp-no-pool]
#   --client-bin LABEL=PATH  also run this client-http binary (e.g. one
#                            built from an older commit), as LABEL, in the
#                            same rotation
#   --rmcp-no-pool           also run B without idle connections (B-nopool),
#                            as the client of rmcp's `from_uri` has
# Environment: CARGO_TARGET_DIR (default: ./target), SKIP_BUILD=1.
# Needs nginx and openssl.
set -euo pipefail
cd "$(dirname "$0")/.."
root=$PWD
export CARGO_TARGET_DIR="${CARGO_TARGET_DIR:-$root/target}"
rounds=5
calls=2000
extra=()
rmcp_no_pool=0
while [ $# -gt 0 ]; do
    case "$1" in
        --rounds) rounds="$2"; shift 2 ;;
        --calls) calls="$2"; shift 2 ;;
        --client-bin) extra+=("$2"); shift 2 ;;
        --rmcp-no-pool) rmcp_no_pool=1; shift ;;
        -h|--help) sed -n '2,29p' "$0"; exit 0 ;;
        *) echo "bench-client-https: unknown argument $1" >&2; exit 2 ;;
    esac
done
for tool in nginx openssl python3; do
    command -v "$tool" >/dev/null || [ -x "/usr/sbin/$tool" ] \
        || { echo "bench-client-https: $tool is not installed" >&2; exit 1; }
done
nginx_bin="$(command -v nginx || echo /usr/sbin/nginx)"
bin="$CARGO_TARGET_DIR/release"
if [ "${SKIP_BUILD:-0}" != 1 ]; then
    cargo build --quiet --release -p weather-server --bin weather-server
    (cd bench/client-http && cargo build --quiet --release)
    (cd bench/rmcp-client && cargo build --quiet --release)
fi

work="$(mktemp -d)"
pids=()
cleanup() {
    for pid in "${pids[@]}"; do kill "$pid" 2>/dev/null || true; done
    rm -rf "$work"
}
trap cleanup EXIT

# A throwaway CA and a certificate for localhost / 127.0.0.1.
(
    cd "$work"
    openssl req -x509 -newkey rsa:2048 -nodes -days 2 -subj "/CN=mcpgen bench CA" \
        -keyout ca.key -out ca.pem 2>/dev/null
    openssl req -newkey rsa:2048 -nodes -subj "/CN=localhost" -keyout server.key -out server.csr 2>/dev/null
    printf 'subjectAltName=DNS:localhost,IP:127.0.0.1\nbasicConstraints=CA:FALSE\n' > ext.cnf
    openssl x509 -req -in server.csr -CA ca.pem -CAkey ca.key -CAcreateserial -days 2 \
        -extfile ext.cnf -out server.pem 2>/dev/null
)

"$bin/weather-server" --http 127.0.0.1:0 2>"$work/server.log" &
pids+=($!)
upstream=""
for _ in $(seq 300); do
    upstream="$(sed -n 's|.*MCP endpoint: http://\([^/ ]*\).*|\1|p' "$work/server.log" | head -1)"
    [ -n "$upstream" ] && break
    sleep 0.1
done
[ -n "$upstream" ] || { echo "bench-client-https: weather-server printed no endpoint" >&2; cat "$work/server.log" >&2; exit 1; }

port="$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')"
mkdir -p "$work/nginx/logs"
cat > "$work/nginx/nginx.conf" <<EOF
daemon off;
master_process off;
worker_processes 1;
pid $work/nginx/nginx.pid;
error_log $work/nginx/logs/error.log warn;
events { worker_connections 256; }
http {
    access_log off;
    client_body_temp_path $work/nginx/body;
    proxy_temp_path $work/nginx/proxy;
    fastcgi_temp_path $work/nginx/fastcgi;
    uwsgi_temp_path $work/nginx/uwsgi;
    scgi_temp_path $work/nginx/scgi;
    upstream mcp { server $upstream; keepalive 16; }
    server {
        listen 127.0.0.1:$port ssl;
        ssl_certificate $work/server.pem;
        ssl_certificate_key $work/server.key;
        keepalive_requests 100000;
        location / {
            proxy_pass http://mcp;
            proxy_http_version 1.1;
            proxy_set_header Connection "";
            proxy_set_header Host \$http_host;
            proxy_buffering off;
            proxy_request_buffering off;
        }
    }
}
EOF
"$nginx_bin" -p "$work/nginx" -e "$work/nginx/logs/error.log" -c "$work/nginx/nginx.conf" </dev/null >/dev/null 2>&1 &
pids+=($!)
for _ in $(seq 100); do
    (exec 3<>"/dev/tcp/127.0.0.1/$port") 2>/dev/null && break
    sleep 0.1
done
url="https://localhost:$port/mcp"
ca="$work/ca.pem"

labels=(A B)
commands=("$bin/client-http $url $calls --cacert $ca --stats" "$bin/rmcp-client $url $calls --cacert $ca")
if [ "$rmcp_no_pool" = 1 ]; then
    labels+=(B-nopool)
    commands+=("$bin/rmcp-client $url $calls --cacert $ca --no-pool")
fi
for spec in "${extra[@]}"; do
    labels+=("${spec%%=*}")
    commands+=("$(realpath "${spec#*=}") $url $calls --cacert $ca --stats")
done

rmcp_version="$(sed -n '/^name = "rmcp"$/{n;s/^version = "\(.*\)"$/\1/p}' bench/rmcp-client/Cargo.lock 2>/dev/null || true)"
echo "HTTPS round trips: $calls sequential tools/call per run, $rounds rounds, interleaved; nginx TLS on 127.0.0.1 in front of weather-server"
echo "tree: $(git rev-parse --short HEAD 2>/dev/null || echo '?'); rmcp ${rmcp_version:-?}; $(nproc) CPUs; load average before: $(cut -d' ' -f1-3 /proc/loadavg)"
results="$work/results"
: > "$results"
for round in $(seq "$rounds"); do
    for i in "${!labels[@]}"; do
        line="$(${commands[$i]})" || { echo "bench-client-https: ${labels[$i]} failed" >&2; exit 1; }
        echo "round $round ${labels[$i]}: $line"
        echo "$round ${labels[$i]} $line" >> "$results"
    done
done
echo "load average after: $(cut -d' ' -f1-3 /proc/loadavg)"
python3 - "$results" <<'EOF'
import statistics, sys
runs = {}
order = []
for line in open(sys.argv[1]):
    round_, label, *fields = line.split()
    values = dict(f.split("=") for f in fields)
    if label not in runs:
        order.append(label)
    runs.setdefault(label, {})[int(round_)] = values
med = lambda label, key: statistics.median(float(v[key]) for v in runs[label].values())
print()
print("| client | calls/s | p50 µs | p99 µs | calls/s ratio to B |")
print("| --- | ---: | ---: | ---: | ---: |")
for label in order:
    ratio = statistics.median(
        float(runs[label][r]["calls_per_s"]) / float(runs["B"][r]["calls_per_s"]) for r in runs[label]
    )
    print(f"| {label} | {med(label, 'calls_per_s'):.0f} | {med(label, 'p50_us'):.0f} | {med(label, 'p99_us'):.0f} | {ratio:.2f} |")
EOF
