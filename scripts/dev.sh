#!/usr/bin/env bash
# Starts the service on the embedded default: the Temporal dev server with a SQLite file under .data/, the worker
# and the gateway. Extra arguments go to `service dev` (e.g. --sandbox, --headless, --data-dir DIR).
set -euo pipefail
cd "$(dirname "$0")/.."
# `service dev` prints the time from here to ready (GNU date has milliseconds; elsewhere Node tells the time).
started=$(date +%s%3N 2>/dev/null || true)
case "$started" in '' | *[!0-9]*) started=$(node -e 'process.stdout.write(String(Date.now()))') ;; esac
export SERVICE_DEV_STARTED_AT="$started"
./scripts/ensure-deps.sh
exec node bin/run.js dev "$@"
