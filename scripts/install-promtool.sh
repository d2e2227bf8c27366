#!/usr/bin/env bash
# Puts Prometheus' promtool into .tools/bin once, the way the Temporal CLI is cached there. The alert rules under
# deploy/prometheus/ are checked and unit-tested with it (test/process/deploy/prometheus-rules.test.ts).
#
#   scripts/install-promtool.sh          # no-op when .tools/bin/promtool is already installed
#
# First choice: the promtool of Debian's `prometheus` package, unpacked from the .deb (`apt-get download`, no root,
# nothing installed or started: the package would also bring a Prometheus server). It takes seconds. Building
# promtool with Go (the fallback, where Debian's package cannot be had) took 293 to 1,557 s on the 2-core machines,
# most of a new machine's install time before the tests could start.
# The fallback pins module version v0.316.0, Prometheus 3.16's Go module (Prometheus tags its Go module
# v0.<minor>.<patch>). Debian 12's promtool is 2.42: the rules use nothing newer, and a rule that a newer promtool
# would take but 2.42 refuses fails the test rather than passing unchecked.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
go_version=v0.316.0
module=github.com/prometheus/prometheus
bin_dir="$root/.tools/bin"
target="$bin_dir/promtool"
stamp="$target.version"
export PATH="/usr/local/go/bin:$PATH"

# The stamp names where the binary came from ("debian <version>" or "go <module version>"); a binary without one is
# from before the stamp said so and is replaced.
if [ -x "$target" ] && [ -f "$stamp" ] && grep -qE '^(debian |go v0\.316\.0$)' "$stamp"; then
  exit 0
fi
mkdir -p "$bin_dir"
staging=$(mktemp -d "$root/.tools/.promtool-XXXXXX")
trap 'rm -rf "$staging"' EXIT
started=$SECONDS

# Debian's package: `apt-get download` fetches the .deb into the current folder as any user. A new machine may have
# no package lists yet; root reads them once then.
debian_download() { (cd "$staging" && apt-get download -qq prometheus >/dev/null 2>&1); }
if command -v apt-get >/dev/null 2>&1 && command -v dpkg-deb >/dev/null 2>&1 \
  && { debian_download || { [ "$(id -u)" = 0 ] && apt-get update -qq >/dev/null 2>&1 && debian_download; }; }; then
  deb=$(ls "$staging"/prometheus_*.deb 2>/dev/null | head -n 1)
  if [ -n "$deb" ] && dpkg-deb -x "$deb" "$staging/unpacked" && "$staging/unpacked/usr/bin/promtool" --version >/dev/null 2>&1; then
    mv -f "$staging/unpacked/usr/bin/promtool" "$target"
    printf 'debian %s\n' "$(dpkg-deb -f "$deb" Version)" > "$stamp"
    echo "install-promtool: unpacked Debian's promtool $(dpkg-deb -f "$deb" Version) in $((SECONDS - started)) s into $target" >&2
    exit 0
  fi
fi

go=$(command -v go || true)
[ -n "$go" ] || { echo "install-promtool: neither Debian's prometheus package (apt-get download) nor Go (to build promtool $go_version) is available" >&2; exit 1; }
echo "install-promtool: Debian's prometheus package could not be had; building promtool $go_version with $("$go" version | cut -d' ' -f3) (minutes)" >&2
# `go install module@version` builds outside any module, so this project (and any go.work around it) plays no part;
# GOFLAGS from the caller could ask for a vendor folder that does not exist here. The binary lands in the staging
# folder first so that an interrupted build never leaves a half-written promtool in .tools/bin.
(cd "$staging" && GOFLAGS=-buildvcs=false GOBIN="$staging" nice -n 10 "$go" install "$module/cmd/promtool@$go_version")
mv -f "$staging/promtool" "$target"
printf 'go %s\n' "$go_version" > "$stamp"
echo "install-promtool: built in $((SECONDS - started)) s into $target" >&2
