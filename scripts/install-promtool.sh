#!/usr/bin/env bash
# Builds Prometheus' promtool once with Go into .tools/bin, the way the Temporal CLI is cached there. The alert rules
# under deploy/prometheus/ are checked and unit-tested with it (test/process/deploy/prometheus-rules.test.ts).
#
#   scripts/install-promtool.sh          # no-op when .tools/bin/promtool is already the pinned version
#
# The pinned module version v0.316.0 is Prometheus 3.16's Go module (Prometheus tags its Go module v0.<minor>.<patch>).
# The first build downloads the module graph and compiles for several minutes (about nine on two cores); later runs
# return at once. Needs Go at /usr/local/go/bin or on PATH.
set -euo pipefail

root=$(cd "$(dirname "$0")/.." && pwd)
version=v0.316.0
module=github.com/prometheus/prometheus
bin_dir="$root/.tools/bin"
target="$bin_dir/promtool"
stamp="$target.version"

export PATH="/usr/local/go/bin:$PATH"
go=$(command -v go || true)

installed_version() {
  [ -x "$target" ] || return 0
  if [ -n "$go" ]; then
    # The module version recorded in the binary's build information is the truth; the stamp only covers Go's absence.
    "$go" version -m "$target" 2>/dev/null | awk -v m="$module" '$1 == "mod" && $2 == m { print $3 }'
  elif [ -f "$stamp" ]; then
    cat "$stamp"
  fi
}

if [ "$(installed_version)" = "$version" ]; then
  exit 0
fi

[ -n "$go" ] || { echo "install-promtool: Go is needed to build promtool $version once (not found on PATH or /usr/local/go/bin)" >&2; exit 1; }

mkdir -p "$bin_dir"
staging=$(mktemp -d "$root/.tools/.promtool-build-XXXXXX")
trap 'rm -rf "$staging"' EXIT
echo "install-promtool: building promtool $version with $("$go" version | cut -d' ' -f3) (first run only; minutes)" >&2
started=$SECONDS
# `go install module@version` builds outside any module, so this project (and any go.work around it) plays no part;
# GOFLAGS from the caller could ask for a vendor folder that does not exist here. The binary lands in the staging
# folder first so that an interrupted build never leaves a half-written promtool in .tools/bin.
(cd "$staging" && GOFLAGS=-buildvcs=false GOBIN="$staging" nice -n 10 "$go" install "$module/cmd/promtool@$version")
mv -f "$staging/promtool" "$target"
printf '%s\n' "$version" > "$stamp"
echo "install-promtool: built in $((SECONDS - started)) s into $target" >&2
