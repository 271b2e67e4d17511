#!/usr/bin/env bash
# Every test: the format and lint gates (cargo fmt, clippy), Rust on both
# stores (SQLite and Postgres), the client's unit
# tests (vitest), the browser test (headless Debian Chromium against the
# real server) and schemathesis against the server's OpenAPI description.
# Ends with one "total: N passed, M failed" line.
set -uo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
cd "$ROOT"
ensure_rust
ensure_postgres
ensure_web_deps
ensure_browser

LOGS="$(mktemp -d)"
passed=0; failed=0; status=0
count() { # count FILE: add up the runners' "N passed ... M failed" lines
  local p f
  p=$(grep -aoE '(test result: [a-zA-Z]+\. )?[0-9]+ passed' "$1" | grep -aoE '[0-9]+ passed' | awk '{s+=$1} END {print s+0}')
  f=$(grep -aoE '[0-9]+ failed' "$1" | awk '{s+=$1} END {print s+0}')
  passed=$((passed + p)); failed=$((failed + f))
}

# Each test removes its own store when it ends (commands::db::testing);
# a test process that was killed leaves its stores behind: swept here.
sweep_test_stores

log "format and lints (cargo fmt --check; cargo clippy -D warnings)"
gates_passed=0; gates_failed=0
if cargo fmt --all --check > "$LOGS/fmt.log" 2>&1; then
  gates_passed=$((gates_passed + 1))
else
  gates_failed=$((gates_failed + 1)); status=1; head -n 40 "$LOGS/fmt.log"
fi
if cargo clippy --workspace --all-targets --color never -- -D warnings > "$LOGS/clippy.log" 2>&1; then
  gates_passed=$((gates_passed + 1))
else
  gates_failed=$((gates_failed + 1)); status=1; grep -a -A8 '^error' "$LOGS/clippy.log" | head -n 80
fi
echo "gates: $gates_passed passed, $gates_failed failed" | tee "$LOGS/gates.sum"; count "$LOGS/gates.sum"

log "Rust tests (SQLite and Postgres)"
cargo test --workspace --no-fail-fast --color never 2>&1 | tee "$LOGS/rust.log"
[ "${PIPESTATUS[0]}" -eq 0 ] || status=1
grep -a '^test result:' "$LOGS/rust.log" > "$LOGS/rust.sum"; count "$LOGS/rust.sum"

log "client unit tests (vitest)"
(cd web && NO_COLOR=1 FORCE_COLOR=0 npx vitest run 2>&1) | tee "$LOGS/vitest.log"
[ "${PIPESTATUS[0]}" -eq 0 ] || status=1
sed 's/\x1b\[[0-9;]*m//g' "$LOGS/vitest.log" | grep -aE '^\s*Tests\s' | sed 's/([0-9]*)//' > "$LOGS/vitest.sum"; count "$LOGS/vitest.sum"

log "client lint (eslint: typescript-eslint, react-hooks)"
# One check per file: a file with an error fails, and so does the run; warnings are counted.
(cd web && npx eslint . --format json --output-file "$LOGS/eslint.json")
node -e '
  const r = JSON.parse(require("fs").readFileSync(process.argv[1], "utf8"));
  for (const f of r) for (const m of f.messages)
    if (m.severity === 2) console.log(`${f.filePath}:${m.line}:${m.column} ${m.ruleId} ${m.message}`);
  const bad = r.filter((f) => f.errorCount > 0).length;
  console.log(`eslint: ${r.reduce((n, f) => n + f.warningCount, 0)} warnings`);
  console.log(`eslint: ${r.length - bad} passed, ${bad} failed`);
  process.exit(bad ? 1 : 0);
' "$LOGS/eslint.json" 2>&1 | tee "$LOGS/eslint.log"
[ "${PIPESTATUS[0]}" -eq 0 ] || status=1
grep -aE '^eslint: [0-9]+ passed, [0-9]+ failed' "$LOGS/eslint.log" > "$LOGS/eslint.sum"; count "$LOGS/eslint.sum"

log "browser test against the real server"
build_web >/dev/null
log "first-load budget (JavaScript that index.html loads, gzipped)"
(cd web && node scripts/bundle-budget.mjs) | tee "$LOGS/budget.log"
[ "${PIPESTATUS[0]}" -eq 0 ] || status=1
grep -aE '^budget: [0-9]+ passed, [0-9]+ failed' "$LOGS/budget.log" > "$LOGS/budget.sum"; count "$LOGS/budget.sum"
cargo build -p api --color never 2>&1 | tail -n 1
PORT_E2E=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')
E2E_DB="$LOGS/e2e.db"
DEMO=1 PORT=$PORT_E2E DATABASE_URL="sqlite://$E2E_DB" ./target/debug/api serve > "$LOGS/server.log" 2>&1 &
SERVER=$!
for _ in $(seq 1 50); do curl -sf "http://127.0.0.1:$PORT_E2E/healthz" >/dev/null && break; sleep 0.2; done
(cd web && BASE_URL="http://127.0.0.1:$PORT_E2E/" node e2e/run.mjs 2>&1) | tee "$LOGS/e2e.log"
[ "${PIPESTATUS[0]}" -eq 0 ] || { status=1; echo "--- server log"; tail -n 30 "$LOGS/server.log"; }
kill "$SERVER" 2>/dev/null; wait "$SERVER" 2>/dev/null
grep -aE '^[0-9]+ passed, [0-9]+ failed' "$LOGS/e2e.log" > "$LOGS/e2e.sum"; count "$LOGS/e2e.sum"

log "schemathesis against the OpenAPI description (a DEMO server on SQLite)"
ensure_schemathesis
PORT_FUZZ=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')
DEMO=1 PORT=$PORT_FUZZ DATABASE_URL="sqlite://$LOGS/fuzz.db" ./target/debug/api serve > "$LOGS/fuzz-server.log" 2>&1 &
SERVER=$!
for _ in $(seq 1 50); do curl -sf "http://127.0.0.1:$PORT_FUZZ/healthz" >/dev/null && break; sleep 0.2; done
scripts/api-fuzz.sh "http://127.0.0.1:$PORT_FUZZ" "$LOGS/fuzz" 2>&1 | tee "$LOGS/fuzz.log"
[ "${PIPESTATUS[0]}" -eq 0 ] || { status=1; echo "--- server log"; grep -aE 'ERROR|panic' "$LOGS/fuzz-server.log" | tail -n 30; }
kill "$SERVER" 2>/dev/null; wait "$SERVER" 2>/dev/null
grep -aE '^[0-9]+ passed, [0-9]+ failed$' "$LOGS/fuzz.log" | tail -n 1 > "$LOGS/fuzz.sum"; count "$LOGS/fuzz.sum"

log "two api processes on Postgres behind HAProxy: kill -9 under load, then the browser test"
ensure_haproxy
cluster_start 2 ./target/debug/api "$LOGS"
# Protocol conformance through the balancer while every node is up, then the kill.
for tests in through_the_balancer a_node_killed_under_load; do
  CLUSTER_URL="$CLUSTER_URL" CLUSTER_PIDS="$CLUSTER_PIDS" \
    cargo test -p api --test cluster --color never -- --ignored "$tests" 2>&1 | tee -a "$LOGS/cluster.log"
  [ "${PIPESTATUS[0]}" -eq 0 ] || { status=1; tail -n 20 "$LOGS/node1.log"; }
done
grep -a '^test result:' "$LOGS/cluster.log" > "$LOGS/cluster.sum"; count "$LOGS/cluster.sum"
cluster_revive ./target/debug/api "$LOGS"
(cd web && BASE_URL="http://$CLUSTER_URL/" node e2e/run.mjs 2>&1) | tee "$LOGS/e2e-cluster.log"
[ "${PIPESTATUS[0]}" -eq 0 ] || { status=1; echo "--- node logs"; tail -n 20 "$LOGS"/node*.log; }
cluster_stop
grep -aE '^[0-9]+ passed, [0-9]+ failed' "$LOGS/e2e-cluster.log" > "$LOGS/e2e-cluster.sum"; count "$LOGS/e2e-cluster.sum"

sweep_test_stores
rm -rf "$LOGS"

[ "$failed" -eq 0 ] || status=1
[ "$passed" -gt 0 ] || status=1
echo "total: $passed passed, $failed failed"
exit $status
