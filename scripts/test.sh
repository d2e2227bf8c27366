#!/usr/bin/env bash
# Runs the whole suite: build, typecheck, lint, then the four vitest lanes by cost, cheapest first (pure, process,
# integration, cluster; vitest.config.mts), stopping at the first lane that fails: a broken decision shows in two
# minutes instead of after the integration lane's forty.
# With arguments, runs vitest once with them instead (e.g. --project process, or a test file path).
set -euo pipefail
cd "$(dirname "$0")/.."
# The Temporal CLI is the integration lane's: its setup finds it or waits for its build (scripts/install-temporal-cli.sh).
SERVICE_ENSURE_TEMPORAL_CLI=later ./scripts/ensure-deps.sh
./scripts/ensure-test-deps.sh
# The typecheck and lint read the same sources whatever Node.js runs them: a second pass of the same tree on another
# Node.js line (.ci/run's on 24) sets SERVICE_TEST_STATIC_CHECKS=skip and spares their minute and a half.
if [ "${SERVICE_TEST_STATIC_CHECKS:-run}" != skip ]; then
  npm run --silent typecheck
  npm run --silent lint
fi

lanes=(pure process integration cluster)

# One vitest run; prints its closing line (scripts/test-summary.js) prefixed with $1, returns vitest's status.
run_vitest() {
  local label=$1
  shift
  local report log status started
  report=$(mktemp)
  log=$(mktemp)
  started=$SECONDS
  set +e
  npx vitest run --reporter=default --reporter=json --outputFile.json="$report" "$@" 2>&1 | tee "$log"
  status=${PIPESTATUS[0]}
  set -e
  local line
  line=$(node scripts/test-summary.js "$report" "$status" "$log" || echo "0 passed, 1 failed")
  summaries+=("$label$line ($((SECONDS - started)) s)")
  lines+=("$line")
  rm -f "$report" "$log"
  return "$status"
}

summaries=()
lines=()
status=0
if [ $# -gt 0 ]; then
  run_vitest "" "$@" || status=$?
else
  for i in "${!lanes[@]}"; do
    lane=${lanes[$i]}
    if ! run_vitest "$lane: " --project "$lane"; then
      status=1
      skipped=("${lanes[@]:$((i + 1))}")
      [ ${#skipped[@]} -eq 0 ] || summaries+=("not run, since the $lane lane failed: ${skipped[*]}")
      break
    fi
  done
fi
# The closing line stays `N passed, N failed[, N skipped]` over every lane that ran; with one run, that run's.
if [ ${#summaries[@]} -gt 1 ]; then printf '%s\n' "${summaries[@]}"; fi
printf '%s\n' "${lines[@]}" | awk '
  { for (i = 1; i < NF; i++) { if ($(i + 1) ~ /^passed/) p += $i; if ($(i + 1) ~ /^failed/) f += $i; if ($(i + 1) ~ /^skipped/) s += $i } }
  END { printf "%d passed, %d failed%s\n", p, f, s ? ", " s " skipped" : "" }'
exit "$status"
