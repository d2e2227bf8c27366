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
# Container stations need rootless podman and the task image; without them the service still starts (they fail closed).
if command -v podman >/dev/null 2>&1; then
  SERVICE_PODMAN_SKIP_INSTALL=1 ./scripts/setup-rootless-podman.sh || echo "warning: rootless podman is not set up; container stations will fail" >&2
  if [ "$(id -u)" -eq 0 ]; then
    ./scripts/build-offline-image.sh >/dev/null || echo "warning: the task image could not be built; container stations will fail" >&2
  fi
else
  echo "warning: podman is not installed (as root: ./scripts/setup-rootless-podman.sh); container stations will fail" >&2
fi
exec node bin/run.js dev "$@"
