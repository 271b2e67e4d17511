#!/usr/bin/env bash
# Installs and builds everything, then runs the platform on the embedded
# store (SQLite at data/betting.db) with the demo member seeded (DEMO=1).
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
cd "$ROOT"
ensure_rust
build_web
log "building the server"
cargo build --release -p api
log "serving on http://127.0.0.1:${PORT:-8080}/ (store: ${DATABASE_URL:-sqlite data/betting.db})"
DEMO="${DEMO:-1}" exec ./target/release/api serve
