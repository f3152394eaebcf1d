# PostgreSQL 15 with the RUM index, which catalog's search ranks with when the extension exists (docs/PERFORMANCE.md).
FROM postgres:15
RUN apt-get update && apt-get install -y --no-install-recommends postgresql-15-rum && rm -rf /var/lib/apt/lists/*
