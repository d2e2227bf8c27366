#!/usr/bin/env bash
# What only the tests need, on top of scripts/ensure-deps.sh: `npm test` runs this, `npm run dev` never does.
# PostgreSQL for the cluster test (installed from Debian and started as root when missing: it changes the machine's
# system services), and Prometheus' promtool for the alert rules (Debian's, unpacked once into .tools/bin, unless
# PROMTOOL_PATH names one), and Debian's Chromium for the console's browser test.
set -euo pipefail
cd "$(dirname "$0")/.."

./scripts/setup-postgres.sh || echo "PostgreSQL is not usable: the cluster test (test/cluster) will fail; the other tests do not need it" >&2
if [ -z "${PROMTOOL_PATH:-}" ]; then
  ./scripts/install-promtool.sh
fi
if [ ! -x /usr/bin/chromium ]; then
  if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then
    (apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium) >/dev/null \
      || echo "installing chromium failed: test/integration/console-browser.test.ts will fail" >&2
  else
    echo "/usr/bin/chromium is missing: test/integration/console-browser.test.ts will fail; install it with: sudo apt-get install -y chromium" >&2
  fi
fi
