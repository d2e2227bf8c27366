#!/usr/bin/env bash
# Installs what `service dev` and the tests both need on a fresh clone: npm packages (when node_modules is absent or
# older than the lock file), the compiled service (skipped when no source changed since the last build, see
# scripts/build-if-changed.js) and the Temporal CLI (found, or built once with Go into .tools/bin by
# scripts/install-temporal-cli.sh). Nothing here
# touches the machine's system services; what only the tests need is scripts/ensure-test-deps.sh.
set -euo pipefail
cd "$(dirname "$0")/.."

if [ ! -f node_modules/.package-lock.json ] || [ package-lock.json -nt node_modules/.package-lock.json ]; then
  echo "Installing npm packages (npm ci)..." >&2
  npm ci --no-audit --no-fund
fi
node scripts/build-if-changed.js tsconfig.build.json
# The Temporal CLI: found, or built once with Go (minutes). `npm test` sets SERVICE_ENSURE_TEMPORAL_CLI=later: only its
# integration lane needs the CLI, and that lane's setup waits for it (test/helpers/temporal-global-setup.ts), so the
# build (.ci/run starts it in the background) goes on while the earlier lanes run.
if [ "${SERVICE_ENSURE_TEMPORAL_CLI:-now}" != later ]; then
  ./scripts/install-temporal-cli.sh >/dev/null
fi
