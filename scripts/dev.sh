#!/usr/bin/env bash
# Starts the service on the embedded default: the Temporal dev server with a SQLite file under .data/, the worker
# and the gateway. Extra arguments go to `service dev` (e.g. --headless, --data-dir DIR).
set -euo pipefail
cd "$(dirname "$0")/.."
./scripts/ensure-deps.sh
exec node bin/run.js dev "$@"
