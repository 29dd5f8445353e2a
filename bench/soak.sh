#!/usr/bin/env bash
# The soak: half an hour of mixed load (stateless and session calls, tasks
# that ask for input, event streams, refused tokens; every call with a
# bearer token) through nginx to three replicas sharing one Redis, a
# replica killed and restarted every 5 minutes and Redis restarted once.
# Not part of CI. What it does and reports: examples/conformance-server/
# benches/soak.rs; the figures of the last run are in docs/performance.md.
#
#   bash bench/soak.sh                       # 30 minutes
#   SOAK_SECONDS=300 SOAK_KILL_EVERY=60 bash bench/soak.sh
#
# Settings: SOAK_SECONDS (1800), SOAK_KILL_EVERY (300), SOAK_CLIENTS (6),
# SOAK_REPORT (a file for the Markdown report; default
# target/soak-report.md). Needs nginx and redis-server (Debian packages
# nginx-light or nginx, and redis-server). Exits 1 when a call failed
# outside a disruption's window, a call hung, a task was lost or a replica
# panicked.
set -euo pipefail
cd "$(dirname "$0")/.."
for program in nginx redis-server; do
    if ! command -v "$program" >/dev/null 2>&1 && [ ! -x "/usr/sbin/$program" ] && [ ! -x "/usr/bin/$program" ]; then
        echo "bench/soak.sh: needs $program (apt-get install nginx-light redis-server)" >&2
        exit 2
    fi
done
export SOAK_REPORT=${SOAK_REPORT:-$PWD/target/soak-report.md}
mkdir -p "$(dirname "$SOAK_REPORT")"
cargo bench -p conformance-server --bench soak
echo "bench/soak.sh: report in $SOAK_REPORT" >&2
