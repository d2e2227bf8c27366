#!/usr/bin/env bash
# Runs the whole suite: build, typecheck, lint, unit tests, and integration tests against a real Temporal dev server.
# Extra arguments go to vitest (e.g. --project unit, or a test file path).
set -euo pipefail
cd "$(dirname "$0")/.."
./scripts/ensure-deps.sh
npm run --silent typecheck
npm run --silent lint
report=$(mktemp)
status=0
npx vitest run --reporter=default --reporter=json --outputFile.json="$report" "$@" || status=$?
# A closing line any CI can read, whatever the reporter printed above it.
node -e '
  const r = JSON.parse(require("fs").readFileSync(process.argv[1], "utf8"));
  console.log(`${r.numPassedTests} passed, ${r.numFailedTests} failed` + (r.numPendingTests ? `, ${r.numPendingTests} skipped` : ""));
' "$report" || true
rm -f "$report"
exit "$status"
