#!/usr/bin/env bash
# Installs what a fresh clone is missing: npm packages (when node_modules is absent or older than the lock file),
# the compiled service, and the Temporal CLI (found, or built once with Go into .tools/bin).
set -euo pipefail
cd "$(dirname "$0")/.."

if [ ! -f node_modules/.package-lock.json ] || [ package-lock.json -nt node_modules/.package-lock.json ]; then
  echo "Installing npm packages (npm ci)..." >&2
  npm ci --no-audit --no-fund
fi
npm run --silent build
node bin/run.js temporal-cli >/dev/null
