#!/usr/bin/env bash
# The Temporal server as it runs past one machine: the real server binary (not the CLI's dev server) on PostgreSQL
# for persistence and visibility, several history shards, the `default` namespace created by hand. Used by
# `npm run bench:postgres` and by the cluster test (`npm run test:cluster`).
#
#   scripts/temporal-postgres-server.sh --address-file FILE [--db NAME] [--recreate-db] [--keep-db]
#
# Builds the server once per version (Go; minutes), creates the two databases, starts the server on free loopback
# ports, creates the namespace and then writes the frontend's address into FILE, which tells a caller it may start.
# It runs until SIGTERM or SIGINT, then stops the server and drops its databases (unless --keep-db). A database left
# by an earlier run (--keep-db, or a SIGKILL) stops the script unless --recreate-db is given, rather than running on
# someone's old data.
#
# Needs Go (/usr/local/go/bin or on PATH) for the first build, a PostgreSQL that the user below may create databases
# on with its client tools (psql, pg_isready), and the Temporal CLI (TEMPORAL_CLI_PATH, .tools/bin or PATH) to create
# the namespace. Environment: PGHOST (127.0.0.1), PGPORT (5432), PGUSER (postgres), PGPASSWORD (empty),
# TEMPORAL_BENCH_LOG_LEVEL (warn).
set -euo pipefail

root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"

version=v1.29.1 # the server the pinned Temporal CLI embeds, so both stacks run the same server code
tools="$root/.tools/temporal-server/$version"
namespace=default

address_file=
db=temporal_bench
recreate=false
keep=false
while [ $# -gt 0 ]; do
  case "$1" in
    --address-file) address_file=$2; shift ;;
    --db) db=$2; shift ;;
    --recreate-db) recreate=true ;;
    --keep-db) keep=true ;;
    *) echo "temporal-postgres-server: unknown argument $1" >&2; exit 2 ;;
  esac
  shift
done
[ -n "$address_file" ] || { echo "temporal-postgres-server: --address-file FILE is required" >&2; exit 2; }
visibility_db="${db}_visibility"

export PGHOST=${PGHOST:-127.0.0.1} PGPORT=${PGPORT:-5432} PGUSER=${PGUSER:-postgres} PGPASSWORD=${PGPASSWORD:-}

log() { printf '[temporal-postgres %s] %s\n' "$(date -u +%H:%M:%S)" "$*" >&2; }

# --- 1. The server and its schema tool, built once per version --------------------------------------------------
"$root/scripts/install-temporal-server.sh" >/dev/null
server_bin="$tools/temporal-server"
sql_tool="$tools/temporal-sql-tool"

# --- 2. PostgreSQL and the schema -------------------------------------------------------------------------------
if ! pg_isready -q -h "$PGHOST" -p "$PGPORT"; then
  if command -v pg_ctlcluster >/dev/null 2>&1 && [ -d /etc/postgresql ] && [ "$(id -u)" -eq 0 ]; then
    log "PostgreSQL at $PGHOST:$PGPORT is down; starting the local cluster"
    for pg_version in /etc/postgresql/*; do
      pg_ctlcluster --skip-systemctl-redirect "$(basename "$pg_version")" main start || true
    done
    for _ in $(seq 1 30); do pg_isready -q -h "$PGHOST" -p "$PGPORT" && break; sleep 1; done
  fi
  pg_isready -q -h "$PGHOST" -p "$PGPORT" || { log "PostgreSQL does not answer at $PGHOST:$PGPORT"; exit 1; }
fi

sql() {
  "$sql_tool" --plugin postgres12 --endpoint "$PGHOST" --port "$PGPORT" --user "$PGUSER" --password "$PGPASSWORD" "$@"
}
db_exists() {
  [ "$(psql -X -d postgres -tAc "SELECT 1 FROM pg_database WHERE datname = '$1'")" = 1 ]
}
for name in "$db" "$visibility_db"; do
  if db_exists "$name"; then
    $recreate || { log "database $name exists (a previous run's?); run with --recreate-db to drop it and start afresh"; exit 1; }
    log "dropping database $name"
    sql --database "$name" drop-database --force --defaultdb postgres
  fi
done

run_dir=$(mktemp -d "${TMPDIR:-/tmp}/temporal-postgres-XXXXXX")
server_pid=

cleanup() {
  local status=$?
  trap - EXIT INT TERM
  rm -f "$address_file"
  if [ -n "$server_pid" ] && kill -0 "$server_pid" 2>/dev/null; then
    log "stopping the Temporal server (pid $server_pid)"
    kill -INT "$server_pid" 2>/dev/null || true
    for _ in $(seq 1 30); do kill -0 "$server_pid" 2>/dev/null || break; sleep 1; done
    kill -KILL "$server_pid" 2>/dev/null || true
    wait "$server_pid" 2>/dev/null || true
  fi
  if $keep; then
    log "kept databases $db and $visibility_db (the next run needs --recreate-db)"
  elif [ -n "${databases_created:-}" ]; then
    for name in "$db" "$visibility_db"; do
      sql --database "$name" drop-database --force --defaultdb postgres >>"$run_dir/schema.log" 2>&1 || log "could not drop database $name"
    done
  fi
  log "logs in $run_dir (server.log, schema.log)"
  exit "$status"
}
trap cleanup EXIT
trap 'exit 130' INT
trap 'exit 143' TERM

log "creating databases $db and $visibility_db on $PGHOST:$PGPORT (schema log: $run_dir/schema.log)"
databases_created=1
{
  sql --database "$db" create-database --defaultdb postgres
  sql --database "$db" setup-schema -v 0.0
  sql --database "$db" update-schema -d "$tools/schema/temporal/versioned"
  sql --database "$visibility_db" create-database --defaultdb postgres
  sql --database "$visibility_db" setup-schema -v 0.0
  sql --database "$visibility_db" update-schema -d "$tools/schema/visibility/versioned"
} >"$run_dir/schema.log" 2>&1 || { log "schema setup failed:"; tail -20 "$run_dir/schema.log" >&2; exit 1; }

# --- 3. The server ----------------------------------------------------------------------------------------------
# Eight listeners (gRPC and membership of four services). Not the kernel's ephemeral ports: the PostgreSQL schema
# keeps a member's port in a smallint, and a membership port above 32767 stops the server at start. Each candidate
# stays bound until all eight are found, so the eight are distinct.
read -r -a ports <<<"$(node -e '
  const net = require("node:net");
  const held = [];
  const tryPort = () => new Promise((resolve) => {
    const server = net.createServer().once("error", () => resolve(undefined));
    server.listen(20000 + Math.floor(Math.random() * 12000), "127.0.0.1", () => resolve(server));
  });
  (async () => {
    for (let tries = 0; held.length < 8 && tries < 200; tries++) {
      const server = await tryPort();
      if (server) held.push(server);
    }
    console.log(held.map((s) => s.address().port).join(" "));
    held.forEach((s) => s.close());
  })();')"
[ "${#ports[@]}" -eq 8 ] || { log "could not find eight free loopback ports between 20000 and 32000"; exit 1; }
export TEMPORAL_BENCH_DB=$db TEMPORAL_BENCH_VISIBILITY_DB=$visibility_db
export TEMPORAL_BENCH_PG_HOST=$PGHOST TEMPORAL_BENCH_PG_PORT=$PGPORT TEMPORAL_BENCH_PG_USER=$PGUSER TEMPORAL_BENCH_PG_PASSWORD=$PGPASSWORD
export TEMPORAL_BENCH_FRONTEND_PORT=${ports[0]} TEMPORAL_BENCH_FRONTEND_MEMBERSHIP_PORT=${ports[1]}
export TEMPORAL_BENCH_HISTORY_PORT=${ports[2]} TEMPORAL_BENCH_HISTORY_MEMBERSHIP_PORT=${ports[3]}
export TEMPORAL_BENCH_MATCHING_PORT=${ports[4]} TEMPORAL_BENCH_MATCHING_MEMBERSHIP_PORT=${ports[5]}
export TEMPORAL_BENCH_WORKER_PORT=${ports[6]} TEMPORAL_BENCH_WORKER_MEMBERSHIP_PORT=${ports[7]}
export TEMPORAL_BENCH_DYNAMIC_CONFIG="$root/bench/temporal-postgres/dynamic-config.yaml"
address="127.0.0.1:$TEMPORAL_BENCH_FRONTEND_PORT"

log "starting the Temporal server $version on $address (log: $run_dir/server.log)"
"$server_bin" --root "$root" --config bench/temporal-postgres --env bench --allow-no-auth start >"$run_dir/server.log" 2>&1 &
server_pid=$!

temporal_cli=${TEMPORAL_CLI_PATH:-}
[ -n "$temporal_cli" ] || { [ -x "$root/.tools/bin/temporal" ] && temporal_cli="$root/.tools/bin/temporal"; } || true
[ -n "$temporal_cli" ] || temporal_cli=$(command -v temporal || true)
[ -n "$temporal_cli" ] || { log "the Temporal CLI is needed to create the namespace (set TEMPORAL_CLI_PATH)"; exit 1; }
started=$SECONDS
deadline=$((started + 120))
until "$temporal_cli" operator cluster health --address "$address" >/dev/null 2>&1; do
  kill -0 "$server_pid" 2>/dev/null || { log "the server exited:"; tail -20 "$run_dir/server.log" >&2; exit 1; }
  [ "$SECONDS" -lt "$deadline" ] || { log "the server did not answer within 120 s"; tail -20 "$run_dir/server.log" >&2; exit 1; }
  sleep 1
done
log "the frontend answers after $((SECONDS - started)) s; creating namespace $namespace"
"$temporal_cli" operator namespace create --address "$address" --retention 24h -n "$namespace" >/dev/null
# A new namespace reaches each service's namespace cache at its next refresh; the frontend's is what a client meets.
until "$temporal_cli" workflow list --address "$address" --namespace "$namespace" --limit 1 >/dev/null 2>&1; do
  [ "$SECONDS" -lt "$deadline" ] || { log "namespace $namespace not usable within 120 s"; exit 1; }
  sleep 1
done
printf '%s\n' "$address" >"$address_file.tmp"
mv "$address_file.tmp" "$address_file"
log "ready at $address"
# `wait` returns early on a trapped signal, so the traps above run at once.
wait "$server_pid" || { status=$?; log "the server exited ($status):"; tail -20 "$run_dir/server.log" >&2; exit "$status"; }
