#!/usr/bin/env bash
# Finds the Temporal CLI the service and the tests run (TEMPORAL_CLI_PATH, .tools/bin/temporal, or `temporal` on
# PATH: the order of src/temporal/temporal-cli-locator.ts), or builds it once with Go into .tools/bin, and prints its
# path. The first build takes minutes (12 on a brand-new 2-core machine). One build at a time: .ci/run starts it in the
# background before `npm test`, whose integration lane's setup (test/helpers/temporal-global-setup.ts) calls this
# again and waits for that build instead of starting a second one; `npm run dev` (scripts/ensure-deps.sh) calls it
# in the foreground. SERVICE_GO_BUILD_NICE (default 0) lowers the build's priority where tests run beside it.
set -euo pipefail

root=$(cd "$(dirname "$0")/.." && pwd)
module=github.com/temporalio/cli/cmd/temporal@v1.5.1 # TEMPORAL_CLI_MODULE in src/temporal/temporal-cli-locator.ts
bin="$root/.tools/bin"

log() { printf '[install-temporal-cli %s] %s\n' "$(date -u +%H:%M:%S)" "$*" >&2; }

found() {
  if [ -n "${TEMPORAL_CLI_PATH:-}" ]; then
    [ -x "$TEMPORAL_CLI_PATH" ] || { log "TEMPORAL_CLI_PATH points at $TEMPORAL_CLI_PATH, which is not an executable"; exit 1; }
    echo "$TEMPORAL_CLI_PATH"
  elif [ -x "$bin/temporal" ]; then
    echo "$bin/temporal"
  elif command -v temporal >/dev/null 2>&1; then
    command -v temporal
  else
    return 1
  fi
}

found && exit 0

mkdir -p "$bin"
exec 9>"$bin/.temporal-cli.lock"
if ! flock -n 9; then
  log "another build of the Temporal CLI is under way; waiting for it"
  flock 9
fi
found && exit 0

go=$(command -v go || true)
[ -n "$go" ] || go=/usr/local/go/bin/go
[ -x "$go" ] || { log "no Temporal CLI found (TEMPORAL_CLI_PATH, .tools/bin, PATH) and no Go toolchain to build it: install Go or set TEMPORAL_CLI_PATH"; exit 1; }
log "building the Temporal CLI with $("$go" version | cut -d' ' -f3) into $bin (once; minutes)"
started=$SECONDS
# Built aside and moved in whole: a build cut short never leaves a half-written binary where the locator looks.
staging=$(mktemp -d "$bin/.build-XXXXXX")
trap 'rm -rf "$staging"' EXIT
(cd "$staging" && GOFLAGS=-buildvcs=false GOBIN="$staging" nice -n "${SERVICE_GO_BUILD_NICE:-0}" "$go" install "$module")
mv "$staging/temporal" "$bin/temporal"
log "built in $((SECONDS - started)) s"
echo "$bin/temporal"
