#!/usr/bin/env bash
# Prepares the PostgreSQL that the cluster test (`npm run test:cluster`) and `npm run bench:postgres` run the
# Temporal server on: installs it from Debian when missing, starts its cluster when it is down, and lets the
# `postgres` role connect over loopback without a password when that does not work yet (a fresh Debian install asks
# for one). Idempotent and quiet: safe at every CI start. Needs root for the install and the first-time setup; as
# another user it only checks and says what is missing.
#
#   PGHOST (127.0.0.1), PGPORT (5432), PGUSER (postgres): where the tests connect.
set -euo pipefail

host=${PGHOST:-127.0.0.1}
port=${PGPORT:-5432}
user=${PGUSER:-postgres}

log() { printf '[setup-postgres] %s\n' "$*" >&2; }
works() { psql -X -h "$host" -p "$port" -U "$user" -d postgres -tAc 'SELECT 1' >/dev/null 2>&1; }

if command -v psql >/dev/null 2>&1 && pg_isready -q -h "$host" -p "$port" && works; then exit 0; fi
if [ "$(id -u)" -ne 0 ]; then
  log "PostgreSQL does not accept $user at $host:$port without a password; as root run scripts/setup-postgres.sh"
  exit 1
fi

if ! ls /usr/lib/postgresql/*/bin/postgres >/dev/null 2>&1; then
  log "installing PostgreSQL from Debian"
  apt-get update -qq >/dev/null
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends postgresql postgresql-client >/dev/null
fi
if ! pg_isready -q -h "$host" -p "$port"; then
  ls -d /etc/postgresql/*/main >/dev/null 2>&1 || pg_createcluster "$(ls /usr/lib/postgresql | sort -V | tail -1)" main >/dev/null
  for cluster in /etc/postgresql/*/main; do
    pg_ctlcluster --skip-systemctl-redirect "$(basename "$(dirname "$cluster")")" main start 2>/dev/null || true
  done
  for _ in $(seq 1 30); do pg_isready -q -h "$host" -p "$port" && break; sleep 1; done
  pg_isready -q -h "$host" -p "$port" || { log "PostgreSQL did not start on $host:$port"; exit 1; }
fi
if ! works; then
  # Only loopback and only this role: the machine is a test machine, and the tests use no password.
  for hba in /etc/postgresql/*/main/pg_hba.conf; do
    grep -q '^host all postgres 127.0.0.1/32 trust' "$hba" || sed -i '1i host all postgres 127.0.0.1/32 trust' "$hba"
  done
  for cluster in /etc/postgresql/*/main; do
    pg_ctlcluster --skip-systemctl-redirect "$(basename "$(dirname "$cluster")")" main reload 2>/dev/null || true
  done
  sleep 1
  works || { log "PostgreSQL at $host:$port still refuses $user"; exit 1; }
fi
