#!/usr/bin/env bash
# Installs what a fresh clone is missing: npm packages (when node_modules is absent or older than the lock file),
# the compiled service (skipped when no source changed since the last build, see scripts/build-if-changed.js), and
# the Temporal CLI and promtool (found, or built once with Go into .tools/bin) and a running PostgreSQL for the
# cluster test.
set -euo pipefail
cd "$(dirname "$0")/.."

if [ ! -f node_modules/.package-lock.json ] || [ package-lock.json -nt node_modules/.package-lock.json ]; then
  echo "Installing npm packages (npm ci)..." >&2
  npm ci --no-audit --no-fund
fi
node scripts/build-if-changed.js tsconfig.build.json
# The same order as the CLI locator (src/temporal/temporal-cli-locator.ts); only when none is found does the
# locator run, and it builds the CLI with Go (minutes, once).
if [ -z "${TEMPORAL_CLI_PATH:-}" ] && [ ! -x .tools/bin/temporal ] && ! command -v temporal >/dev/null 2>&1; then
  node bin/run.js temporal-cli >/dev/null
fi
# The cluster test runs the real Temporal server on PostgreSQL: installed and started when missing (as root), else
# one line says what to run.
./scripts/setup-postgres.sh || echo "PostgreSQL is not usable: the cluster test (test/cluster) will fail; the other tests do not need it" >&2
# Prometheus' promtool checks and unit-tests the alert rules (test/unit/deploy): built once with Go into .tools/bin
# unless PROMTOOL_PATH names one.
if [ -z "${PROMTOOL_PATH:-}" ]; then
  ./scripts/install-promtool.sh
fi
