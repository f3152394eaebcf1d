#!/usr/bin/env bash
# PostgreSQL helpers for make run / make test.
#   scripts/postgres.sh ensure-installed
#   scripts/postgres.sh start DATADIR PORT     (initdb on first use; runs as the postgres user when root)
#   scripts/postgres.sh replica PRIMARY_PORT DATADIR PORT   (a streaming replica of the server on PRIMARY_PORT)
#   scripts/postgres.sh stop DATADIR
set -euo pipefail

pg_bindir() {
  if command -v pg_config >/dev/null 2>&1 && [ -x "$(pg_config --bindir)/initdb" ]; then pg_config --bindir; return; fi
  ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V | tail -1
}

ensure_installed() {
  local bin; bin=$(pg_bindir || true)
  if [ -n "$bin" ] && [ -x "$bin/initdb" ] && [ -d "$(dirname "$bin")/../$(basename "$(dirname "$bin")")" ]; then :; fi
  if [ -z "$bin" ] || [ ! -x "$bin/initdb" ] || [ ! -f "/usr/share/postgresql/$(basename "$(dirname "$bin")")/extension/pg_trgm.control" ]; then
    if [ "$(id -u)" = 0 ]; then
      echo "Installing PostgreSQL with apt-get..." >&2
      DEBIAN_FRONTEND=noninteractive apt-get update -qq >&2
      DEBIAN_FRONTEND=noninteractive apt-get install -y -qq postgresql postgresql-contrib >&2
    else
      echo "PostgreSQL 15+ is missing: run 'sudo apt-get install -y postgresql postgresql-contrib'" >&2
      exit 1
    fi
  fi
}

as_owner() {
  if [ "$(id -u)" = 0 ]; then runuser -u postgres -- "$@"; else "$@"; fi
}

start() {
  local data=$1 port=$2 bin; bin=$(pg_bindir)
  mkdir -p "$data"
  local sock="$data/socket"
  mkdir -p "$sock"
  if [ "$(id -u)" = 0 ]; then
    chown -R postgres:postgres "$data"
    # the postgres user must be able to reach the folder
    local d; d=$(dirname "$(readlink -f "$data")")
    while [ "$d" != "/" ]; do chmod o+x "$d" 2>/dev/null || true; d=$(dirname "$d"); done
  fi
  chmod 700 "$data"
  local cluster="$data/cluster"
  if [ ! -s "$cluster/PG_VERSION" ]; then
    as_owner mkdir -p "$cluster"
    as_owner "$bin/initdb" -D "$cluster" -U postgres --auth=trust -E UTF8 --locale=C.UTF-8 >/dev/null
  fi
  # random_page_cost=1.1: storage is SSD (docs/DEPLOY.md, "PostgreSQL settings"); with the default of 4 a search for a
  # common word read the whole books table instead of its index (docs/PERFORMANCE.md).
  local extra=(-c random_page_cost=1.1)
  [ "${PG_FAST:-0}" = 1 ] && extra+=(-c fsync=off -c synchronous_commit=off -c full_page_writes=off)
  # PostgreSQL's own cache (default 128MB); make bench gives it a quarter of memory, as README advises operators.
  [ -n "${PG_SHARED_BUFFERS:-}" ] && extra+=(-c "shared_buffers=$PG_SHARED_BUFFERS")
  # Further server settings for a measurement, e.g. "-c shared_preload_libraries=pg_stat_statements".
  [ -n "${PG_OPTIONS:-}" ] && extra+=($PG_OPTIONS)
  as_owner "$bin/pg_ctl" -D "$cluster" -l "$data/server.log" -w -t 60 \
    -o "-c listen_addresses=127.0.0.1 -p $port -k $sock -c max_connections=${PG_MAX_CONNECTIONS:-300} ${extra[*]}" start >/dev/null
}

# A streaming replica of the server on PRIMARY_PORT (127.0.0.1), in DATADIR, listening on PORT: `pg_basebackup -R`
# copies the primary and writes the standby settings; then it starts as `start` does (hot standby, read-only).
replica() {
  local primary_port=$1 data=$2 port=$3 bin; bin=$(pg_bindir)
  mkdir -p "$data"
  [ "$(id -u)" = 0 ] && chown -R postgres:postgres "$data"
  chmod 700 "$data"
  if [ ! -s "$data/cluster/PG_VERSION" ]; then
    as_owner "$bin/pg_basebackup" -h 127.0.0.1 -p "$primary_port" -U postgres -D "$data/cluster" -R -X stream -c fast
  fi
  start "$data" "$port"
}

stop() {
  local data=$1 bin; bin=$(pg_bindir)
  # PG_STOP_MODE=immediate is a crash: every connection dropped, recovery at the next start.
  [ -s "$data/cluster/postmaster.pid" ] && as_owner "$bin/pg_ctl" -D "$data/cluster" -m "${PG_STOP_MODE:-fast}" -w stop >/dev/null || true
}

case "${1:-}" in
  ensure-installed) ensure_installed ;;
  start) start "$2" "$3" ;;
  replica) replica "$2" "$3" "$4" ;;
  stop) stop "$2" ;;
  *) echo "usage: $0 ensure-installed | start DATADIR PORT | replica PRIMARY_PORT DATADIR PORT | stop DATADIR" >&2; exit 2 ;;
esac
