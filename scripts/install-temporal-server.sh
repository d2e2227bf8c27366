#!/usr/bin/env bash
# Builds the real Temporal server and its SQL schema tool once per version into .tools/temporal-server/<version>
# (with the PostgreSQL schema files beside them) and prints that folder. Needs Go (/usr/local/go/bin or on PATH);
# the first build takes minutes, later calls return at once. Used by scripts/temporal-postgres-server.sh.
set -euo pipefail

root=$(cd "$(dirname "$0")/.." && pwd)
version=v1.29.1 # the server the pinned Temporal CLI embeds, so both stacks run the same server code
tools="$root/.tools/temporal-server/$version"

log() { printf '[install-temporal-server %s] %s\n' "$(date -u +%H:%M:%S)" "$*" >&2; }

if [ -x "$tools/temporal-server" ] && [ -x "$tools/temporal-sql-tool" ] && [ -d "$tools/schema/temporal/versioned" ]; then
  echo "$tools"
  exit 0
fi

# One build at a time: .ci/run starts this build in the background while the tests run, and the cluster lane's setup
# calls it again; the second caller waits for the first and then finds the binaries.
mkdir -p "$root/.tools/temporal-server"
exec 9>"$root/.tools/temporal-server/.lock"
if ! flock -n 9; then
  log "another build of the Temporal server $version is under way; waiting for it"
  flock 9
fi
if [ -x "$tools/temporal-server" ] && [ -x "$tools/temporal-sql-tool" ] && [ -d "$tools/schema/temporal/versioned" ]; then
  echo "$tools"
  exit 0
fi

go=$(command -v go || true)
[ -n "$go" ] || go=/usr/local/go/bin/go
[ -x "$go" ] || { log "Go is needed to build the Temporal server $version once (not found on PATH or /usr/local/go/bin)"; exit 1; }
mkdir -p "$root/.tools/temporal-server"
staging=$(mktemp -d "$root/.tools/temporal-server/.build-XXXXXX")
trap 'rm -rf "$staging"' EXIT
log "building the Temporal server $version and temporal-sql-tool with $("$go" version | cut -d' ' -f3) (first run only; minutes)"
started=$SECONDS
# `go install module@version` builds outside any module, so neither this project nor a go.work around it is involved;
# GOFLAGS from the caller could point it at a vendor folder that does not exist here.
(cd "$staging" && GOFLAGS=-buildvcs=false GOBIN="$staging/bin" nice -n 10 "$go" install \
  "go.temporal.io/server/cmd/server@$version" "go.temporal.io/server/cmd/tools/sql@$version")
# The schema files sit in the module; a copy beside the binaries spares later runs Go and the module cache.
module_dir=$(cd "$staging" && "$go" mod download -json "go.temporal.io/server@$version" | sed -n 's/^[[:space:]]*"Dir": "\(.*\)",\{0,1\}$/\1/p')
[ -d "$module_dir/schema/postgresql/v12" ] || { log "no PostgreSQL schema in $module_dir"; exit 1; }
mkdir -p "$staging/out/schema"
cp -R "$module_dir/schema/postgresql/v12/." "$staging/out/schema/"
chmod -R u+w "$staging/out/schema"
mv "$staging/bin/server" "$staging/out/temporal-server"
mv "$staging/bin/sql" "$staging/out/temporal-sql-tool"
rm -rf "$tools"
mv "$staging/out" "$tools"
log "built in $((SECONDS - started)) s into $tools"
echo "$tools"
