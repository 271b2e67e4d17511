#!/usr/bin/env bash
# Runs N (default 2) api processes on one Postgres behind HAProxy, round
# robin without stickiness, as docs/operations.md describes; Ctrl-C stops
# them all and drops the database. Needs a release build or builds one.
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
cd "$ROOT"
ensure_rust
ensure_postgres
ensure_haproxy
[ -x target/release/api ] || cargo build --release -p api
LOGS="$(mktemp -d)"
cluster_start "${1:-2}" ./target/release/api "$LOGS"
trap 'cluster_stop; rm -rf "$LOGS"' EXIT INT TERM
log "balancer http://$CLUSTER_URL/ -> nodes on ports$CLUSTER_PORTS (logs in $LOGS)"
wait "$CLUSTER_HAPROXY_PID"
