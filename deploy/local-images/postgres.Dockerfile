# A stand-in for the official `postgres:15` image, made only where no image registry answers (scripts/compose-test.sh):
# Debian's PostgreSQL 15 with the parts of the official image's interface that docker-compose.yml uses
# (POSTGRES_PASSWORD, /docker-entrypoint-initdb.d/*.sql, PGDATA=/var/lib/postgresql/data, pg_isready, `postgres -c ...`).
ARG BASE_IMAGE=debian:bookworm-slim
FROM ${BASE_IMAGE}
RUN apt-get update && DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends postgresql-15 postgresql-contrib-15 \
 && rm -rf /var/lib/apt/lists/* && mkdir -p /docker-entrypoint-initdb.d /var/run/postgresql /var/lib/postgresql/data \
 && chown -R postgres:postgres /var/run/postgresql /var/lib/postgresql
ENV PATH=/usr/lib/postgresql/15/bin:$PATH PGDATA=/var/lib/postgresql/data
COPY postgres-entrypoint.sh /usr/local/bin/docker-entrypoint.sh
ENTRYPOINT ["/usr/local/bin/docker-entrypoint.sh"]
STOPSIGNAL SIGINT
EXPOSE 5432
CMD ["postgres"]
