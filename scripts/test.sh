#!/usr/bin/env bash
# Runs the whole suite: build, typecheck, lint, unit tests, and integration tests against a real Temporal dev server.
# Extra arguments go to vitest (e.g. --project unit, or a test file path).
set -euo pipefail
cd "$(dirname "$0")/.."
./scripts/ensure-deps.sh
./scripts/ensure-test-deps.sh
npm run --silent typecheck
npm run --silent lint
report=$(mktemp)
log=$(mktemp)
set +e
npx vitest run --reporter=default --reporter=json --outputFile.json="$report" "$@" 2>&1 | tee "$log"
status=${PIPESTATUS[0]}
set -e
node scripts/test-summary.js "$report" "$status" "$log" || true
rm -f "$report" "$log"
exit "$status"
