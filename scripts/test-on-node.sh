#!/usr/bin/env bash
# Runs the suite (scripts/test.sh: build, typecheck, lint, vitest) on another Node.js release line than the machine's.
#
#   scripts/test-on-node.sh <major> [vitest arguments...]
#   scripts/test-on-node.sh 24 --project pure
#   scripts/test-on-node.sh 22 --project integration test/integration/foundation.test.ts
#
# The Node binary is installed (once) by scripts/install-node.sh from the npm registry and put first on PATH, so
# everything the suite starts runs on it: npx and vitest (their `#!/usr/bin/env node`), vitest's forked test
# processes (process.execPath), and the CLI, gateways and workers the integration tests spawn. npm itself stays the
# machine's. node_modules needs no rebuild per Node version: its native parts (@temporalio/core-bridge, @swc/core,
# rolldown, lightningcss) are N-API modules and esbuild is a standalone executable, so one `npm ci` serves all lines.
# The container stations are not affected: their agent runs on the node inside the task image, and that stays the
# node the caller had on PATH (SERVICE_IMAGE_NODE for scripts/build-offline-image.sh), so switching Node lines
# neither rebuilds the image nor changes what runs in it.
set -euo pipefail
cd "$(dirname "$0")/.."

[ $# -ge 1 ] || { echo "usage: scripts/test-on-node.sh <major> [vitest arguments...]" >&2; exit 2; }
major=$1
shift

bin=$(./scripts/install-node.sh "$major")
machine_node=$(command -v node)
export SERVICE_IMAGE_NODE="${SERVICE_IMAGE_NODE:-$machine_node}"
export PATH="$bin:$PATH"
hash -r
running=$(node --version)
# A major (24) must give v24.x; an exact version (24.21.0) must give exactly that.
case "$running" in
  "v$major" | "v$major".*) ;;
  *) echo "test-on-node: asked for Node.js $major, but node on PATH is $running" >&2; exit 1 ;;
esac
echo "test-on-node: running the suite on Node.js $running ($bin/node)" >&2
exec ./scripts/test.sh "$@"
