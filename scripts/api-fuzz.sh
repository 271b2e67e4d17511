#!/usr/bin/env bash
# Schemathesis against a running DEMO server, from its own OpenAPI
# description (docs/openapi.md):
#   scripts/api-fuzz.sh http://127.0.0.1:PORT [REPORT_DIR]
# A bounded number of examples per operation (API_FUZZ_EXAMPLES, default
# 30; API_FUZZ_SEED, default 1, so a run is repeatable). Checks: no 5xx,
# answers that match the documented status codes, content types and
# schemas. Ends with "N passed, M failed" (operations).
set -uo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
BASE="${1:?base URL of a running DEMO server}"
REPORTS="${2:-$(mktemp -d)}"
mkdir -p "$REPORTS"
ensure_schemathesis

# The back office with the demo admin's token (DEMO seeds admin / admin1234).
TOKEN=$(curl -sf -X POST -H 'Content-Type: application/json' \
  -d '{"username":"admin","password":"admin1234"}' "$BASE/api/backoffice/login" \
  | python3 -c 'import sys, json; print(json.load(sys.stdin)["data"]["token"])') \
  || { echo "cannot log in to the back office at $BASE"; echo "0 passed, 1 failed"; exit 1; }

# Excluded (docs/openapi.md): POST /api/backoffice/logout would end the
# token the run uses. One worker: schemathesis' threads can trip a CPython
# 3.11 ast bug ("AST constructor recursion depth mismatch").
(cd "$REPORTS" && "$ROOT/.venv/bin/schemathesis" run "$BASE/api/openapi.json" \
  --exclude-path /api/backoffice/logout \
  -H "Authorization: Bearer $TOKEN" \
  --checks not_a_server_error,status_code_conformance,content_type_conformance,response_schema_conformance \
  --max-examples "${API_FUZZ_EXAMPLES:-30}" --seed "${API_FUZZ_SEED:-1}" \
  --workers 1 --request-timeout 20 --no-color --generation-database none \
  --report junit --report-junit-path "$REPORTS/junit.xml")
code=$?

# One operation is one test: passed, or failed (a failure or an error).
python3 - "$REPORTS/junit.xml" "$code" <<'PY'
import sys, xml.etree.ElementTree as ET
path, code = sys.argv[1], int(sys.argv[2])
try:
    cases = ET.parse(path).getroot().iter("testcase")
except (OSError, ET.ParseError):
    print("0 passed, 1 failed")
    sys.exit(1)
passed = failed = 0
for case in cases:
    if case.find("failure") is not None or case.find("error") is not None:
        failed += 1
        print("FAILED:", case.get("name"))
    else:
        passed += 1
if code != 0 and failed == 0:
    failed = 1
print(f"{passed} passed, {failed} failed")
sys.exit(1 if failed else 0)
PY
