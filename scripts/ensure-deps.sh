#!/usr/bin/env bash
# Installs what `service dev` and the tests both need on a fresh clone: npm packages (when node_modules is absent or
# older than the lock file), the compiled service (skipped when no source changed since the last build, see
# scripts/build-if-changed.js) and the Temporal CLI (found, or built once with Go into .tools/bin). Nothing here
# touches the machine's system services; what only the tests need is scripts/ensure-test-deps.sh.
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
