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
# (temporal_bench; its visibility database is that name with _visibility), TEMPORAL_BENCH_LOG_LEVEL (warn).
set -euo pipefail

root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"

namespace=default
server_args=(--db "${TEMPORAL_BENCH_DB:-temporal_bench}")
bench_args=()
for arg in "$@"; do
  case "$arg" in
    --recreate-db|--keep-db) server_args+=("$arg") ;;
    *) bench_args+=("$arg") ;;
  esac
done
case " ${bench_args[*]-} " in *' --workers '*) ;; *) bench_args+=(--workers 2) ;; esac

log() { printf '[bench-postgres %s] %s\n' "$(date -u +%H:%M:%S)" "$*" >&2; }

# --- 1-3. The server on PostgreSQL (built once, databases created, namespace made) --------------------------------
run_dir=$(mktemp -d "${TMPDIR:-/tmp}/bench-temporal-postgres-XXXXXX")
address_file="$run_dir/address"
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
    kill -TERM "$server_pid" 2>/dev/null || true
    wait "$server_pid" 2>/dev/null || true
  fi
  exit "$status"
}
trap cleanup EXIT
trap 'exit 130' INT
trap 'exit 143' TERM

"$root/scripts/temporal-postgres-server.sh" --address-file "$address_file" "${server_args[@]}" &
server_pid=$!
until [ -s "$address_file" ]; do
  kill -0 "$server_pid" 2>/dev/null || { wait "$server_pid" || true; log "the Temporal server did not start"; exit 1; }
  sleep 1
done
address=$(cat "$address_file")
temporal_cli=${TEMPORAL_CLI_PATH:-}
[ -n "$temporal_cli" ] || { [ -x "$root/.tools/bin/temporal" ] && temporal_cli="$root/.tools/bin/temporal"; } || true
[ -n "$temporal_cli" ] || temporal_cli=$(command -v temporal)

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
