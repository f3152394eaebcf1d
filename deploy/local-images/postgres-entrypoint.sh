#!/bin/sh
# The official image's start-up, reduced to what docker-compose.yml relies on: a first start creates the cluster with
# POSTGRES_PASSWORD for the `postgres` user and runs /docker-entrypoint-initdb.d/*.sql; every start runs the server
# with the command's `-c` options, listening on every interface with password authentication.
set -eu
if [ "$(id -u)" = 0 ]; then
    chown -R postgres:postgres "$PGDATA" /var/run/postgresql
    exec runuser -u postgres -- "$0" "$@"
fi
if [ "${1:-postgres}" != postgres ]; then exec "$@"; fi
if [ $# -gt 0 ]; then shift; fi
if [ ! -s "$PGDATA/PG_VERSION" ]; then
    : "${POSTGRES_PASSWORD:?POSTGRES_PASSWORD must be set}"
    password_file=$(mktemp)
    printf '%s\n' "$POSTGRES_PASSWORD" > "$password_file"
    initdb -D "$PGDATA" -U postgres --pwfile="$password_file" --auth-local=trust --auth-host=scram-sha-256 -E UTF8 --locale=C.UTF-8
    rm -f "$password_file"
    echo "host all all all scram-sha-256" >> "$PGDATA/pg_hba.conf"
    pg_ctl -D "$PGDATA" -w -o "-c listen_addresses=''" start
    for file in /docker-entrypoint-initdb.d/*.sql; do
        [ -e "$file" ] && psql -v ON_ERROR_STOP=1 -U postgres -f "$file"
    done
    pg_ctl -D "$PGDATA" -m fast -w stop
fi
exec postgres -D "$PGDATA" -c listen_addresses='*' "$@"
