#!/usr/bin/env bash
# The ingest bench against a Temporal server as it runs past one machine: the real server binary (not the CLI's
# dev server) on PostgreSQL for persistence and visibility, several history shards, the `default` namespace created
# by hand, and two workers that register the custom search attributes themselves.
#
#   scripts/bench-temporal-postgres.sh [--recreate-db] [--keep-db] [bench/ingest.ts options...]
#   npm run bench:postgres -- --rate 100 --duration 60 --tickets 1000
#
# --recreate-db drops the bench databases first if a previous run left them (--keep-db, or a run killed with
# SIGKILL); without it such a leftover stops the script rather than benchmarking on someone's old data.
# --keep-db leaves the databases after the run for inspection. Any other argument goes to bench/ingest.ts; --workers
# defaults to 2 here. Needs Go (/usr/local/go/bin or on PATH; the first run builds the server), a PostgreSQL that the
# user below may create databases on, its client tools (psql, pg_isready) and the Temporal CLI (TEMPORAL_CLI_PATH or
# on PATH) to create the namespace.
#
# Environment: PGHOST (127.0.0.1), PGPORT (5432), PGUSER (postgres), PGPASSWORD (empty), TEMPORAL_BENCH_DB
# (temporal_bench), TEMPORAL_BENCH_VISIBILITY_DB (temporal_bench_visibility), TEMPORAL_BENCH_LOG_LEVEL (warn).
set -euo pipefail

root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"

version=v1.29.1 # the server the pinned Temporal CLI embeds, so both stacks run the same server code
tools="$root/.tools/temporal-server/$version"
namespace=default

recreate=false
keep=false
bench_args=()
for arg in "$@"; do
  case "$arg" in
    --recreate-db) recreate=true ;;
    --keep-db) keep=true ;;
    *) bench_args+=("$arg") ;;
  esac
done
case " ${bench_args[*]-} " in *' --workers '*) ;; *) bench_args+=(--workers 2) ;; esac

export PGHOST=${PGHOST:-127.0.0.1} PGPORT=${PGPORT:-5432} PGUSER=${PGUSER:-postgres} PGPASSWORD=${PGPASSWORD:-}
db=${TEMPORAL_BENCH_DB:-temporal_bench}
visibility_db=${TEMPORAL_BENCH_VISIBILITY_DB:-temporal_bench_visibility}

log() { printf '[bench-postgres %s] %s\n' "$(date -u +%H:%M:%S)" "$*" >&2; }

# --- 1. The server and its schema tool, built once per version --------------------------------------------------
build_server() {
  local go
  go=$(command -v go || true)
  [ -n "$go" ] || go=/usr/local/go/bin/go
  [ -x "$go" ] || { log "Go is needed to build the Temporal server $version once (not found on PATH or /usr/local/go/bin)"; exit 1; }
  local staging
  staging=$(mktemp -d "$root/.tools/temporal-server/.build-XXXXXX")
  log "building the Temporal server $version and temporal-sql-tool with $("$go" version | cut -d' ' -f3) (first run only; minutes)"
  local started=$SECONDS
  # `go install module@version` builds outside any module, so neither this project nor a go.work around it is
  # involved; GOFLAGS from the caller could point it at a vendor folder that does not exist here.
  (cd "$staging" && GOFLAGS=-buildvcs=false GOBIN="$staging/bin" nice -n 10 "$go" install \
    "go.temporal.io/server/cmd/server@$version" "go.temporal.io/server/cmd/tools/sql@$version")
  # The schema files sit in the module; a copy beside the binaries spares later runs Go and the module cache.
  local module_dir
  module_dir=$(cd "$staging" && "$go" mod download -json "go.temporal.io/server@$version" | sed -n 's/^[[:space:]]*"Dir": "\(.*\)",\{0,1\}$/\1/p')
  [ -d "$module_dir/schema/postgresql/v12" ] || { log "no PostgreSQL schema in $module_dir"; exit 1; }
  mkdir -p "$staging/out/schema"
  cp -R "$module_dir/schema/postgresql/v12/." "$staging/out/schema/"
  chmod -R u+w "$staging/out/schema"
  mv "$staging/bin/server" "$staging/out/temporal-server"
  mv "$staging/bin/sql" "$staging/out/temporal-sql-tool"
  rm -rf "$tools"
  mkdir -p "$(dirname "$tools")"
  mv "$staging/out" "$tools"
  rm -rf "$staging"
  log "built in $((SECONDS - started)) s into $tools"
}
mkdir -p "$root/.tools/temporal-server"
if [ ! -x "$tools/temporal-server" ] || [ ! -x "$tools/temporal-sql-tool" ] || [ ! -d "$tools/schema/temporal/versioned" ]; then
  build_server
fi
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

run_dir=$(mktemp -d "${TMPDIR:-/tmp}/bench-temporal-postgres-XXXXXX")
server_pid=
bench_pid=

cleanup() {
  local status=$?
  trap - EXIT INT TERM
  # The bench runs in a process group of its own with its gateway and workers: they go first, while the server they
  # would otherwise retry against forever is still there to let them shut down.
  if [ -n "$bench_pid" ] && kill -0 "$bench_pid" 2>/dev/null; then
    log "stopping the bench, its gateway and workers"
    kill -TERM -- "-$bench_pid" 2>/dev/null || true
    for _ in $(seq 1 10); do kill -0 -- "-$bench_pid" 2>/dev/null || break; sleep 1; done
    kill -KILL -- "-$bench_pid" 2>/dev/null || true
  fi
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
  log "logs in $run_dir (server.log, schema.log, namespace.json)"
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
address="127.0.0.1:$TEMPORAL_BENCH_FRONTEND_PORT"

log "starting the Temporal server $version on $address (log: $run_dir/server.log)"
"$server_bin" --root "$root" --config bench/temporal-postgres --env bench --allow-no-auth start >"$run_dir/server.log" 2>&1 &
server_pid=$!

temporal_cli=${TEMPORAL_CLI_PATH:-$(command -v temporal || true)}
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

# --- 4. The bench: gateway, workers and the bare client against this server -------------------------------------
node scripts/build-if-changed.js tsconfig.build.json
node scripts/build-if-changed.js tsconfig.bench.json
log "bench/ingest ${bench_args[*]} against $address"
bench_status=0
# setsid: a group of its own, so that an interrupted run can take the bench's children down with it (cleanup).
setsid node dist-bench/bench/ingest.js --temporal-address "$address" "${bench_args[@]}" &
bench_pid=$!
wait "$bench_pid" || bench_status=$?
bench_pid=

# The workers registered the search attributes on their own. With SQL visibility each name is an alias, kept in the
# namespace, of one of a few pre-allocated columns per type: every attribute the service uses must have exactly one.
log "custom search attributes of namespace $namespace as the workers left them:"
"$temporal_cli" operator namespace describe --address "$address" --output json -n "$namespace" >"$run_dir/namespace.json"
node -e '
  const { SEARCH_ATTRIBUTE_TYPES } = require("./dist/workflows/messages");
  const aliases = JSON.parse(require("node:fs").readFileSync(process.argv[1], "utf8")).config.customSearchAttributeAliases ?? {};
  const columns = (name) => Object.keys(aliases).filter((column) => aliases[column] === name);
  let ok = true;
  for (const [name, type] of Object.entries(SEARCH_ATTRIBUTE_TYPES)) {
    const found = columns(name);
    console.error(`  ${name} (${type}): ${found.join(", ") || "MISSING"}`);
    if (found.length !== 1) ok = false;
  }
  process.exit(ok ? 0 : 1);' "$run_dir/namespace.json" || {
  log "the search attributes are not each on exactly one column"
  [ "$bench_status" -ne 0 ] || bench_status=1
}
exit "$bench_status"
