#!/usr/bin/env bash
# make run: PostgreSQL in .data/postgres on 127.0.0.1:5433, the three services in release mode, gateway on :8080.
# Whatever of the README's variables the caller sets is passed through; the rest get development defaults.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/postgres.sh ensure-installed
scripts/apt-ensure.sh libvips-dev libcurl4-openssl-dev fonts-dejavu-core ffmpeg poppler-utils
PGPORT_LOCAL=${PGPORT_LOCAL:-5433}
scripts/postgres.sh start "$PWD/.data/postgres" "$PGPORT_LOCAL"
for db in bookmobile_catalog bookmobile_patron; do
  psql -h 127.0.0.1 -p "$PGPORT_LOCAL" -U postgres -tAc "SELECT 1 FROM pg_database WHERE datname='$db'" | grep -q 1 \
    || psql -h 127.0.0.1 -p "$PGPORT_LOCAL" -U postgres -qc "CREATE DATABASE $db"
done

export GATEWAY_PORT=${GATEWAY_PORT:-8080} CATALOG_PORT=${CATALOG_PORT:-8081} PATRON_PORT=${PATRON_PORT:-8082}
# PostgreSQL is on this machine: the services reach it through its Unix socket (README, "Configuration").
socket="?host=$PWD/.data/postgres/socket"
export CATALOG_DATABASE_URL=${CATALOG_DATABASE_URL:-postgres://postgres@127.0.0.1:$PGPORT_LOCAL/bookmobile_catalog$socket}
export PATRON_DATABASE_URL=${PATRON_DATABASE_URL:-postgres://postgres@127.0.0.1:$PGPORT_LOCAL/bookmobile_patron$socket}
export CATALOG_URLS=${CATALOG_URLS:-http://127.0.0.1:$CATALOG_PORT} PATRON_URLS=${PATRON_URLS:-http://127.0.0.1:$PATRON_PORT}
export PUBLIC_URL=${PUBLIC_URL:-http://127.0.0.1:$GATEWAY_PORT}
export SERVICE_TOKEN=${SERVICE_TOKEN:-dev-service-token-change-me}
export JWT_SECRET=${JWT_SECRET:-dev-jwt-secret-change-me-please-0123456789}
export ADMIN_TOKEN=${ADMIN_TOKEN:-dev-admin-token}
export BLOB_DIR=${BLOB_DIR:-$PWD/.data/blobs}
export LOG_LEVEL=${LOG_LEVEL:-info}
# The example secrets above are accepted only in development (README, "Configuration").
export BOOKMOBILE_ENV=${BOOKMOBILE_ENV:-development}

# The release build lives in .build-release (as for make bench), so that it never waits on the debug build of make test.
swift build -c release --scratch-path .build-release
bin=$(swift build -c release --scratch-path .build-release --show-bin-path)
pids=()
stop() { kill "${pids[@]}" 2>/dev/null || true; wait 2>/dev/null || true; scripts/postgres.sh stop "$PWD/.data/postgres"; }
trap stop EXIT INT TERM
# Catalog and patron trust the service token: they listen on loopback only, whatever BIND_ADDRESS the caller set for
# the gateway (default loopback too; BIND_ADDRESS=0.0.0.0 make run shows the gateway to the network).
BIND_ADDRESS=127.0.0.1 "$bin/catalog" serve & pids+=($!)
BIND_ADDRESS=127.0.0.1 "$bin/patron" & pids+=($!)
"$bin/gateway" & pids+=($!)
echo "Bookmobile is up: $PUBLIC_URL  (admin token: $ADMIN_TOKEN; Ctrl-C stops everything)"
wait -n "${pids[@]}"
