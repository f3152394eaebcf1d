#!/usr/bin/env python3
"""Bookmobile benchmark: seed a catalog, start the stack (release build), load it with wrk next to nginx.

Run through `make bench` (Benchmarks/run.sh), which installs wrk and nginx and builds in release mode.
Writes Benchmarks/results/latest.json and appends a table to docs/PERFORMANCE.md.
"""
import argparse
import base64
import concurrent.futures
import datetime
import json
import os
import pathlib
import platform
import random
import re
import shutil
import socket
import statistics
import subprocess
import sys
import tempfile
import time
import urllib.request

import library

ROOT = pathlib.Path(__file__).resolve().parent.parent
SHARED = pathlib.Path(os.environ.get("SHARED_DIR", ROOT.parent / "shared"))
BIG_EPUB = "idpf-cole-voyage-of-life.epub"  # ~1 MB, from ../shared/epubs
CONNECTIONS = 32
BCRYPT_COST = 12  # the production default, set explicitly for the stack


def log(message):
    print(f"[bench {time.strftime('%H:%M:%S')}] {message}", flush=True)


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def free_port_block(count):
    """The first of `count` consecutive free ports below the ephemeral range."""
    while True:
        first = random.randrange(30000, 32000 - count)
        try:
            for port in range(first, first + count):
                with socket.socket() as s:
                    s.bind(("127.0.0.1", port))
            return first
        except OSError:
            continue


def psql(port, database, sql):
    command = ["psql", "-h", "127.0.0.1", "-p", str(port), "-U", "postgres", "-d", database, "-tA"]
    if len(sql) < 100_000:
        out = subprocess.run(command + ["-c", sql], check=True, capture_output=True, text=True)
    else:  # past the kernel's limit for one argument: through standard input, quietly, stopping at an error
        out = subprocess.run(command + ["-q", "-v", "ON_ERROR_STOP=1"], input=sql, check=True, capture_output=True, text=True)
    return out.stdout.strip()


def http(method, url, headers=None, body=None):
    request = urllib.request.Request(url, method=method, headers=headers or {}, data=body)
    try:
        with urllib.request.urlopen(request, timeout=30) as response:
            return response.status, response.read()
    except urllib.error.HTTPError as error:
        return error.code, error.read()


def wait_for(condition, timeout, what):
    deadline = time.time() + timeout
    while time.time() < deadline:
        try:
            if condition():
                return
        except Exception:
            pass
        time.sleep(0.5)
    raise SystemExit(f"timed out waiting for {what}")


def to_ms(value, unit):
    return float(value) * {"us": 0.001, "ms": 1.0, "s": 1000.0}[unit]


WARMUP_SECONDS = 1
# The library mix's scenarios run longer than the others: 1,000 patrons' first requests of each page are its point.
DURATION_LIBRARY = 20


def wrk(url, duration, headers=(), script=None, env=None, warmup=WARMUP_SECONDS, after_warmup=None):
    """One scenario: WARMUP_SECONDS of the same load first, not measured (caches filled, connections open, each
    patron's first request made), then `duration` seconds measured. Cold costs are what --cold measures. Scenarios that
    change state as they go put it back with `after_warmup` (borrow and return) or start measured (sign-ins)."""
    command = wrk_command()
    for header in headers:
        command += ["-H", header]
    if script:
        command += ["-s", str(script)]
    if warmup:
        subprocess.run(command + [f"-d{warmup}s", url], check=True, capture_output=True, text=True, env=env)
        if after_warmup:
            # Requests that wrk abandoned at its end finish first: one landing after the returns would leave its book on
            # loan for the measured run.
            time.sleep(2)
            after_warmup()
    return parse_wrk(subprocess.run(command + [f"-d{duration}s", url], check=True, capture_output=True, text=True, env=env).stdout)


def wrk_command(script=None, threads=2, connections=CONNECTIONS):
    return ["wrk", f"-t{threads}", f"-c{connections}", "--latency", "--timeout", "10s"] + (["-s", str(script)] if script else [])


def parse_wrk(output):
    rps = float(re.search(r"Requests/sec:\s+([\d.]+)", output).group(1))
    latency = {p: to_ms(*re.search(rf"\s{p}%\s+([\d.]+)(us|ms|s)", output).groups()) for p in ("50", "99")}
    non2xx = re.search(r"Non-2xx or 3xx responses: (\d+)", output)
    errors = re.search(r"Socket errors: connect (\d+), read (\d+), write (\d+), timeout (\d+)", output)
    return {"rps": rps, "p50_ms": latency["50"], "p99_ms": latency["99"],
            "non_2xx": int(non2xx.group(1)) if non2xx else 0,
            "socket_errors": sum(map(int, errors.groups())) if errors else 0}


def cpu_seconds(pid):
    """User and system CPU the process has used (/proc/<pid>/stat, in clock ticks)."""
    fields = pathlib.Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def peak_rss_mb(pid):
    for line in pathlib.Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmHWM:"):
            return round(int(line.split()[1]) / 1024, 1)
    return None


class Stack:
    """PostgreSQL in a temporary folder and the three release executables."""

    def __init__(self, work, binary, database_over_tcp=False):
        self.work, self.bin = work, pathlib.Path(binary)
        self.database_over_tcp = database_over_tcp
        self.pg_port = free_port()
        self.ports = {name: free_port() for name in ("gateway", "catalog", "patron")}
        self.gateway = f"http://127.0.0.1:{self.ports['gateway']}"
        database = f"postgres://postgres@127.0.0.1:{self.pg_port}"
        # PostgreSQL is on this machine: the services reach it through its Unix socket, as the README advises.
        over = "" if database_over_tcp else f"?host={work / 'pg' / 'socket'}"
        self.env = dict(os.environ,
                        GATEWAY_PORT=str(self.ports["gateway"]), CATALOG_PORT=str(self.ports["catalog"]),
                        PATRON_PORT=str(self.ports["patron"]),
                        CATALOG_DATABASE_URL=f"{database}/catalog{over}", PATRON_DATABASE_URL=f"{database}/patron{over}",
                        CATALOG_URLS=f"http://127.0.0.1:{self.ports['catalog']}",
                        PATRON_URLS=f"http://127.0.0.1:{self.ports['patron']}",
                        PUBLIC_URL=self.gateway, SERVICE_TOKEN="bench-service-token",
                        JWT_SECRET="bench-jwt-secret-0123456789abcdef0123456789", ADMIN_TOKEN="bench-admin",
                        BLOB_DIR=str(work / "blobs"), LOG_LEVEL="warning", LOAN_LIMIT="100000", HOLD_LIMIT="100000",
                        BCRYPT_COST=str(BCRYPT_COST),
                        # wrk's connections download the 1 MB EPUB as one patron: more at once than a person would.
                        DOWNLOADS_PER_PATRON="10000",
                        # The crowd scenario's patrons arrive from addresses of their own (X-Forwarded-For), as a
                        # library's patrons do; from one address, their sign-ins under way would count against it.
                        TRUSTED_PROXIES="127.0.0.1/32")
        self.processes = {}

    def start_postgres(self):
        # A quarter of memory for PostgreSQL's cache, at most 4 GB (README, "PostgreSQL settings"): with the default
        # 128 MB a million-book catalog is read from the kernel's page cache on every search.
        memory_mb = os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES") // 2**20
        env = dict(os.environ, PG_SHARED_BUFFERS=f"{min(memory_mb // 4, 4096)}MB")
        subprocess.run([ROOT / "scripts/postgres.sh", "start", self.work / "pg", str(self.pg_port)], check=True, env=env)
        existing = psql(self.pg_port, "postgres", "SELECT datname FROM pg_database").split("\n")
        for name in ("catalog", "patron"):
            if name not in existing:
                psql(self.pg_port, "postgres", f"CREATE DATABASE {name}")

    def reset_patrons(self):
        """A kept catalog's second run: patron's accounts, shelves and reading data go (catalog's licences stay, so
        that patron need not hear them again), and catalog forgets the shelves it copied."""
        tables = psql(self.pg_port, "patron", """
            SELECT string_agg(tablename, ', ') FROM pg_tables
            WHERE schemaname = 'public' AND tablename NOT IN ('licenses', 'schema_migrations')""")
        psql(self.pg_port, "patron", f"TRUNCATE {tables} CASCADE")
        psql(self.pg_port, "catalog", "TRUNCATE patron_shelves")
        psql(self.pg_port, "catalog", "UPDATE books SET copies_available = copies, holds = 0 WHERE copies_available <> copies OR holds <> 0")

    def start_services(self):
        for name in ("catalog", "patron", "gateway"):
            arguments = [self.bin / name] + (["serve"] if name == "catalog" else [])
            output = open(self.work / f"{name}.log", "ab")
            self.processes[name] = subprocess.Popen(arguments, env=self.env, stdout=output, stderr=output)
        # A kept catalog meets this version's migrations here: over a million books one that rewrites every row takes
        # minutes (catalog's log says which it applies).
        wait_for(lambda: http("GET", self.gateway + "/health/ready")[0] == 200, 1800, "the stack to be ready")

    def start_read_replica(self):
        """A streaming replica of the catalog's cluster, copied afresh (a kept one may miss log the primary recycled)."""
        folder = self.work / "pg-replica"
        subprocess.run([ROOT / "scripts/postgres.sh", "stop", folder], check=False)
        shutil.rmtree(folder, ignore_errors=True)
        port = free_port()
        log("copying the cluster into a streaming replica (pg_basebackup -R)")
        memory_mb = os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES") // 2**20
        env = dict(os.environ, PG_SHARED_BUFFERS=f"{min(memory_mb // 8, 2048)}MB")
        subprocess.run([ROOT / "scripts/postgres.sh", "replica", str(self.pg_port), folder, str(port)], check=True, env=env)
        self.read_replica = folder
        over = "" if self.database_over_tcp else f"?host={folder / 'socket'}"
        self.env.update(CATALOG_READ_DATABASE_URLS=f"postgres://postgres@127.0.0.1:{port}/catalog{over}")

    def start_object_storage(self):
        """Swift's S3 API on loopback with a bucket `bench`; the seeded folder copied in; catalog's copies start empty."""
        folder, port = self.work / "s3", free_port_block(4)
        subprocess.run([ROOT / "scripts/s3.sh", "start", folder, str(port), "bench"], check=True)
        self.object_storage = folder
        copies = self.work / "blob-copies"
        shutil.rmtree(copies, ignore_errors=True)
        self.env.update(BLOB_STORE="s3://bench/blobs", S3_ENDPOINT=f"http://127.0.0.1:{port}", S3_PATH_STYLE="true",
                        S3_ACCESS_KEY_ID="test:tester", S3_SECRET_ACCESS_KEY="testing", S3_REGION="us-east-1")
        log("copying the seeded blobs into object storage (`catalog migrate-blobs`)")
        started = time.time()
        result = subprocess.run([self.bin / "catalog", "migrate-blobs", "--from", self.work / "blobs", "--concurrency", "8"],
                                env=self.env, check=True, capture_output=True, text=True)
        log(f"{result.stdout.strip()} in {time.time() - started:.1f} s")
        self.env.update(BLOB_DIR=str(copies))

    def stop(self):
        for process in self.processes.values():
            process.terminate()
        for name, process in self.processes.items():
            try:
                process.wait(timeout=30)
            except subprocess.TimeoutExpired:
                log(f"{name} did not exit within 30 s of SIGTERM; killed (see its log in the kept work folder)")
                process.kill()
                process.wait()
        subprocess.run([ROOT / "scripts/postgres.sh", "stop", self.work / "pg"], check=False)
        if getattr(self, "read_replica", None):
            subprocess.run([ROOT / "scripts/postgres.sh", "stop", self.read_replica], check=False)
        if getattr(self, "object_storage", None):
            subprocess.run([ROOT / "scripts/s3.sh", "stop", self.object_storage], check=False)


def seed(stack, args):
    """Real EPUBs through `catalog ingest` (timed), then bulk metadata rows up to --books."""
    epubs = stack.work / "epubs"
    log(f"generating {args.ingest_files} EPUBs with make_epubs.py")
    subprocess.run([sys.executable, SHARED / "tools/make_epubs.py", epubs, str(args.ingest_files), "7"], check=True,
                   capture_output=True)
    log("ingesting them with `catalog ingest`")
    started = time.time()
    result = subprocess.run(["/usr/bin/time", "-f", "peak-rss-kb %M", stack.bin / "catalog", "ingest", epubs, "--copies", "3"],
                            env=stack.env, check=True, capture_output=True, text=True)
    seconds = time.time() - started
    ingested = int(re.search(r"ingested (\d+)", result.stdout).group(1))
    peak_mb = round(int(re.search(r"peak-rss-kb (\d+)", result.stderr).group(1)) / 1024, 1)
    subprocess.run([stack.bin / "catalog", "ingest", SHARED / "epubs" / BIG_EPUB, "--copies", "1000"], env=stack.env,
                   check=True, capture_output=True)
    bulk = max(0, args.books - ingested - 1)
    log(f"inserting {bulk} more books as metadata rows")
    # The GIN search index is built once after the rows are in, not kept up row by row through the bulk insert; the
    # copies bring no new catalogue words but their titles' five endings, added once (the trigger is off meanwhile).
    # The same for the words kept for common-word searches (`search_postings`) and the books per word
    # (`search_word_counts`) and the genre lanes' rows (`genre_lane_books`): written again in one pass afterwards.
    psql(stack.pg_port, "catalog", """DROP INDEX books_search; ALTER TABLE books DISABLE TRIGGER books_words;
        ALTER TABLE books DISABLE TRIGGER books_search_postings; ALTER TABLE books DISABLE TRIGGER books_search_word_counts;
        ALTER TABLE books DISABLE TRIGGER books_genre_lane_books""")
    psql(stack.pg_port, "catalog", f"""
        WITH source AS (
            SELECT *, (row_number() OVER (ORDER BY id) - 1)::int AS n FROM books WHERE epub_size < 500000),
        total AS (SELECT count(*)::int AS c FROM source)
        INSERT INTO books (id, title, sort_title, sort_author, authors, contributors, languages, publisher, published,
            description, subjects, genres, identifiers, word_count, reading_minutes, epub_sha256, epub_size,
            cover_sha256, cover_type, toc, reading_order, resources, copies, copies_available, checkouts, popularity,
            rating_average, rating_count, added_at, featured, staff_pick, screen_reader_friendly, declares_no_hazards)
        SELECT gen_random_uuid(), b.title || ' ' || (ARRAY['Returns','Abroad','Revisited','at Dawn','Again'])[1 + g % 5],
            b.sort_title || ' ' || g, b.sort_author, b.authors, b.contributors, b.languages, b.publisher, b.published,
            b.description, b.subjects, b.genres, '{{}}', b.word_count + g % 997, b.reading_minutes, md5(g::text || random()::text),
            b.epub_size, b.cover_sha256, b.cover_type, b.toc, b.reading_order, b.resources, 1 + g % 4, 1 + g % 4,
            g % 50, g % 50, 1 + (g % 40) / 10.0, g % 30, now() - make_interval(secs => g),
            -- Books in every lane and facet, so that the lane mix reads them: featured 0.5 %, staff picks 1 %, screen-reader
            -- friendly 10 %, no hazards declared 20 % (the flags only: the books' accessibility metadata is their source's).
            g % 200 = 0, g % 100 = 3, g % 10 = 1, g % 5 = 2
        FROM generate_series(1, {bulk}) g, total JOIN source b ON true
        WHERE b.n = g % total.c;
        ANALYZE books;""")
    psql(stack.pg_port, "catalog", "SET maintenance_work_mem = '1GB'; CREATE INDEX books_search ON books USING gin (search)")
    psql(stack.pg_port, "catalog", """SET maintenance_work_mem = '1GB';
        ALTER TABLE search_postings DROP CONSTRAINT search_postings_pkey; DROP INDEX search_postings_by_key;
        TRUNCATE search_postings;
        INSERT INTO search_postings SELECT p.* FROM books b, search_postings_of(b.search, b.popularity, b.id) p
            WHERE b.withdrawn_at IS NULL;
        ALTER TABLE search_postings ADD PRIMARY KEY (word, popularity, book_id) INCLUDE (rank);
        -- As catalog migration 20 has it.
        CREATE INDEX search_postings_by_key ON search_postings (word, ((rank + 100)::real) DESC, book_id);
        ALTER TABLE books ENABLE TRIGGER books_search_postings""")
    psql(stack.pg_port, "catalog", """TRUNCATE search_word_counts;
        INSERT INTO search_word_counts (word, books, in_fields)
            SELECT w.lexeme, count(*), count(*) FILTER (WHERE w.weights && '{A,B,C}') FROM books b, unnest(b.search) w
            WHERE b.withdrawn_at IS NULL GROUP BY w.lexeme;
        ALTER TABLE books ENABLE TRIGGER books_search_word_counts; ANALYZE search_word_counts""")
    psql(stack.pg_port, "catalog", """TRUNCATE genre_lane_books;
        INSERT INTO genre_lane_books SELECT g.* FROM books b, genre_lane_books_of(b) g WHERE b.withdrawn_at IS NULL;
        ALTER TABLE books ENABLE TRIGGER books_genre_lane_books""")
    # Their visibility maps set, so that a word's entries and a genre lane's rows are read from their indexes alone from
    # the first search and the first page on.
    psql(stack.pg_port, "catalog", "VACUUM ANALYZE search_postings")
    psql(stack.pg_port, "catalog", "VACUUM ANALYZE genre_lane_books")
    psql(stack.pg_port, "catalog", """ALTER TABLE books ENABLE TRIGGER books_words;
        INSERT INTO search_words SELECT unnest(ARRAY['returns', 'abroad', 'revisited', 'dawn', 'again']) ON CONFLICT DO NOTHING""")
    return {"files": ingested, "seconds": round(seconds, 1), "files_per_second": round(ingested / seconds, 1), "peak_rss_mb": peak_mb}


def ingest_more(stack, args):
    """`catalog ingest` of as many new generated EPUBs again, into the seeded catalog (timed): ingest at this size
    against ingest into an empty catalog. The catalog keeps them (it grows by that many)."""
    books = int(psql(stack.pg_port, "catalog", "SELECT count(*) FROM books"))
    log(f"generating {args.ingest_files} more EPUBs and ingesting them into the catalog of {books} books")
    # In two halves, each into the empty catalog and then into the seeded one: the machine's speed drifts within a
    # minute by more than the difference measured (one pass of each gave 0.58-1.07x in three runs of one build).
    halves = [stack.work / "more-epubs-1", stack.work / "more-epubs-2"]
    for number, folder in enumerate(halves):
        shutil.rmtree(folder, ignore_errors=True)
        # Numbered from the catalog's size: books that no earlier run generated (the seed's are numbered from 0).
        subprocess.run([sys.executable, SHARED / "tools/make_epubs.py", folder, str(args.ingest_files // 2), "7",
                        "--start", str(books + number * (args.ingest_files // 2))], check=True, capture_output=True)
    def timed_ingest(env, folder):
        started = time.time()
        result = subprocess.run([stack.bin / "catalog", "ingest", folder, "--copies", "3"], env=env, check=True, capture_output=True, text=True)
        return int(re.search(r"ingested (\d+)", result.stdout).group(1)), time.time() - started

    # The same files into an empty catalog (a scratch database on the same server, the same build): the ratio the
    # issue asks for, measured in one run rather than against the seed's figure of an earlier build.
    psql(stack.pg_port, "postgres", "DROP DATABASE IF EXISTS ingest_empty")
    psql(stack.pg_port, "postgres", "CREATE DATABASE ingest_empty")
    blobs = stack.work / "ingest-empty-blobs"
    shutil.rmtree(blobs, ignore_errors=True)
    empty_env = dict(stack.env, BLOB_DIR=str(blobs),
                     CATALOG_DATABASE_URL=re.sub(r"/catalog(?=\?|$)", "/ingest_empty", stack.env["CATALOG_DATABASE_URL"]))
    empty_files = empty_seconds = ingested = seconds = 0
    for folder in halves:
        files, elapsed = timed_ingest(empty_env, folder)
        empty_files, empty_seconds = empty_files + files, empty_seconds + elapsed
        files, elapsed = timed_ingest(stack.env, folder)
        ingested, seconds = ingested + files, seconds + elapsed
        shutil.rmtree(folder, ignore_errors=True)
    psql(stack.pg_port, "postgres", "DROP DATABASE ingest_empty")
    shutil.rmtree(blobs, ignore_errors=True)
    return {"files": ingested, "into_books": books, "seconds": round(seconds, 1), "files_per_second": round(ingested / seconds, 1),
            "empty_files_per_second": round(empty_files / empty_seconds, 1)}


def nginx_ceiling(work, lane_bytes, epub_bytes, duration, audio_bytes):
    static = work / "static"
    static.mkdir(exist_ok=True)
    (static / "lane.xml").write_bytes(lane_bytes)
    (static / "book.epub").write_bytes(epub_bytes)
    (static / "track.m4a").write_bytes(audio_bytes)
    port = free_port()
    conf = work / "nginx.conf"
    conf.write_text(f"""
daemon off; worker_processes auto; pid {work}/nginx.pid; error_log {work}/nginx-error.log;
events {{ worker_connections 1024; }}
http {{
  access_log off; sendfile on; keepalive_requests 100000;
  client_body_temp_path {work}/nginx-tmp; proxy_temp_path {work}/nginx-tmp; fastcgi_temp_path {work}/nginx-tmp;
  uwsgi_temp_path {work}/nginx-tmp; scgi_temp_path {work}/nginx-tmp;
  types {{ application/atom+xml xml; application/epub+zip epub; audio/mp4 m4a; }}
  server {{ listen 127.0.0.1:{port}; root {static}; }}
}}""")
    nginx = shutil.which("nginx") or "/usr/sbin/nginx"
    process = subprocess.Popen([nginx, "-c", str(conf), "-p", str(work)], stderr=subprocess.DEVNULL)
    try:
        wait_for(lambda: http("GET", f"http://127.0.0.1:{port}/lane.xml")[0] == 200, 20, "nginx")
        audio_env = dict(os.environ, AUDIO_PATH="/track.m4a", AUDIO_SIZE=str(len(audio_bytes)), AUTH="")
        return {"lane_page": wrk(f"http://127.0.0.1:{port}/lane.xml", duration),
                "epub": wrk(f"http://127.0.0.1:{port}/book.epub", duration),
                "audio": wrk(f"http://127.0.0.1:{port}/track.m4a", duration, script=ROOT / "Benchmarks/audio_ranges.lua", env=audio_env)}
    finally:
        process.terminate()
        process.wait()


def main():
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--bin", required=True, help="folder of the release executables")
    parser.add_argument("--books", type=int, default=10_000)
    parser.add_argument("--ingest-files", type=int, default=2_000)
    parser.add_argument("--duration", type=int, default=10, help="seconds per wrk scenario")
    parser.add_argument("--patrons", type=int, default=10_000, help="patrons seeded with a realistic shelf each")
    parser.add_argument("--upload-mb", type=int, default=150, help="size of each of the 8 EPUBs uploaded at once (0: skip)")
    parser.add_argument("--keep", action="store_true",
                        help="keep the seeded stack in .data/bench-<books> and reuse it on the next run with as many books (seeded once)")
    parser.add_argument("--hold", action="store_true", help="seed and start, then wait (for profiling) instead of measuring")
    parser.add_argument("--hold-morning", action="store_true",
                        help="with --only 'real morning': seed the morning's shelves and sign its patrons in (tokens good for 12 hours), "
                             "print the wrk command of its signed-in load, then wait (for profiling) instead of measuring")
    parser.add_argument("--cold", action="store_true",
                        help="turn the gateway's and catalog's caches off (EDGE_CACHE_TTL=0, FEED_CACHE_TTL=0): every page computed")
    parser.add_argument("--only", metavar="REGEX",
                        help="run only the scenarios whose names match (nginx always); prints the table, writes no file")
    parser.add_argument("--blobs", choices=["folder", "s3"], default="folder",
                        help="where catalog keeps blobs: its folder, or S3-compatible object storage (OpenStack Swift on loopback, "
                             "scripts/s3.sh; the seeded folder is copied in with `catalog migrate-blobs`, each replica's copies start empty)")
    parser.add_argument("--read-replica", action="store_true",
                        help="catalog reads feeds and search from a PostgreSQL streaming replica (pg_basebackup -R, made afresh each run)")
    parser.add_argument("--database-over-tcp", action="store_true",
                        help="the services reach PostgreSQL over TCP (127.0.0.1), not its Unix socket")
    args = parser.parse_args()
    wanted = lambda name: not args.only or re.search(args.only, name)

    if args.keep:
        work = ROOT / ".data" / f"bench-{args.books}"
        work.mkdir(parents=True, exist_ok=True)
    else:
        work = pathlib.Path(tempfile.mkdtemp(prefix="bookmobile-bench-"))
    seeded = work / "seeded.json"
    stack = Stack(work, args.bin, database_over_tcp=args.database_over_tcp)
    try:
        stack.start_postgres()
        if args.keep and seeded.exists():
            ingest = json.loads(seeded.read_text())
            log(f"reusing the catalog of {args.books} books seeded before in {work} (its ingest figures are that run's)")
            stack.reset_patrons()
        else:
            started = time.time()
            ingest = seed(stack, args)
            ingest["seed_seconds"] = round(time.time() - started, 1)
            log(f"catalog seeded in {ingest['seed_seconds']} s")
        if args.keep:
            seeded.write_text(json.dumps(ingest))
        if args.cold:
            stack.env.update(EDGE_CACHE_TTL="0", FEED_CACHE_TTL="0")
        if args.hold_morning:
            # Tokens that outlive a profiling session (the default 15 minutes ended them mid-profile).
            stack.env.update(ACCESS_TOKEN_TTL="12h")
        if args.blobs == "s3":
            stack.start_object_storage()
        if args.read_replica:
            stack.start_read_replica()
        stack.start_services()
        gw = stack.gateway
        if "more" not in ingest:
            # Once per seeded catalog (a kept catalog seeded before this measure existed gets it on its next run), after
            # the services started: their migrations are not part of it.
            ingest["more"] = ingest_more(stack, args)
            log(f"ingest into the seeded catalog: {ingest['more']}")
            if args.keep:
                seeded.write_text(json.dumps(ingest))
        uploads = None
        if args.upload_mb and not args.only:
            log(f"uploading 8 EPUBs of {args.upload_mb} MB at once through the gateway")
            uploads = upload_memory(stack, big_epubs(work, 8, args.upload_mb))
            log(f"uploads: {uploads}")

        status, body = http("POST", gw + "/auth/signup", {"Content-Type": "application/json"},
                            json.dumps({"username": "bench", "email": "bench@example.org", "password": "bench password 1"}).encode())
        token = json.loads(body)["tokens"]["access_token"]
        bearer = f"Authorization: Bearer {token}"
        # An audiobook for the listening scenario (issue 69): 30 minutes of tones in six chapters, one M4B track.
        audiobook_file = work / "bench-audiobook.m4b"
        if not audiobook_file.exists():
            subprocess.run([sys.executable, str(ROOT / "Tests/tools/make_media.py"), "m4b", str(audiobook_file), "--chapters", "6",
                            "--seconds", "300", "--title", "Bench Audiobook"], check=True)
        status, body = http("POST", gw + "/admin/books?copies=100", {"Authorization": "Bearer bench-admin"}, audiobook_file.read_bytes())
        assert status in (200, 201), f"audiobook ingest: {status} {body[:300]}"
        audiobook = json.loads(body)["id"]
        log("waiting for patron to learn every licence (catalog's outbox)")
        wait_for(lambda: int(psql(stack.pg_port, "patron", "SELECT count(*) FROM licenses")) >= ingest["files"] + 1,
                 600, "licences to reach patron")

        big = psql(stack.pg_port, "catalog", "SELECT id FROM books WHERE epub_size BETWEEN 900000 AND 5000000 ORDER BY epub_size DESC LIMIT 1")
        # Neither the 1 MB book (the /fulfill scenario borrows it: no seeded hold may queue for it) nor the large
        # uploads (an artefact of the upload scenario, and the newest books, so on every "new" lane page) go on shelves.
        odd = set(psql(stack.pg_port, "catalog", "SELECT id FROM books WHERE epub_size > 5000000").split("\n")) | {big}
        licensed = [b for b in psql(stack.pg_port, "patron", "SELECT book_id FROM licenses WHERE NOT open_access ORDER BY book_id").split("\n")
                    if b not in odd]
        pin_hash = psql(stack.pg_port, "patron", "SELECT secret_hash FROM patrons WHERE username = 'bench'")
        log(f"seeding {args.patrons} patrons with shelves")
        started = time.time()
        barcodes = seed_patrons(stack, args.patrons, pin_hash, licensed)
        log(f"patrons seeded and their shelves published in {time.time() - started:.0f} s")
        signed = barcodes[:64]
        log("tokens and Basic verdicts for 64 of them")
        bearer_file, basic_file = work / "bearer.txt", work / "basic.txt"
        tokens = []
        for barcode in signed:
            status, body = http("POST", gw + "/auth/token", {"Authorization": "Basic " + base64.b64encode(f"{barcode}:bench password 1".encode()).decode()})
            assert status == 200, f"token for {barcode}: {status} {body[:200]}"
            tokens.append(json.loads(body)["access_token"])
        bearer_file.write_text("\n".join(f"Bearer {t}" for t in tokens) + "\n")
        basic_file.write_text("\n".join("Basic " + base64.b64encode(f"{b}:bench password 1".encode()).decode() for b in signed) + "\n")
        # The gateway's verdicts on their Basic credentials (BASIC_AUTH_CACHE_TTL), as after each app's first request: a
        # token request carries its own credentials and leaves none. Made here, so that a held stack (--hold) has them
        # too: its first Basic run otherwise ran 64 bcrypt checks (~8 s of both cores).
        with concurrent.futures.ThreadPoolExecutor(4) as pool:
            statuses = list(pool.map(lambda auth: http("GET", gw + "/me", {"Authorization": auth})[0], [line for line in basic_file.read_text().splitlines() if line]))
        assert set(statuses) == {200}, f"Basic verdicts: {sorted(set(statuses))}"

        status, _ = http("POST", f"{gw}/me/books/{big}/borrow", {"Authorization": f"Bearer {token}"})
        assert status == 201, f"borrow of the 1 MB book: {status}"
        wait_for(lambda: http("POST", f"{gw}/me/books/{audiobook}/borrow", {"Authorization": f"Bearer {token}"})[0] in (201, 409), 60,
                 "the audiobook's loan")
        manifest = json.loads(http("GET", f"{gw}/books/{audiobook}/manifest.json", {"Authorization": f"Bearer {token}"})[1])
        audio_path = manifest["readingOrder"][0]["href"].replace(gw, "").replace("http://127.0.0.1:8080", "")
        audio_path = audio_path[audio_path.index("/books/"):]
        _, audio_bytes = http("GET", gw + audio_path, {"Authorization": f"Bearer {token}"})
        if args.hold:
            log(f"stack up at {gw} (catalog :{stack.ports['catalog']}, patron :{stack.ports['patron']}, "
                f"PostgreSQL :{stack.pg_port}); token {token}; the 64 patrons' Authorization values in {bearer_file} and {basic_file}; Ctrl-C stops")
            for name, process in stack.processes.items():
                log(f"{name} pid {process.pid}")
            while True:
                time.sleep(3600)
        if args.blobs == "s3":
            # The first download of the 1 MB EPUB fetches it from object storage into catalog's copies; the next is read there.
            for attempt in ("first (fetched from object storage)", "second (catalog's copy)"):
                started = time.time()
                status, _ = http("GET", f"{gw}/books/{big}/fulfill", {"Authorization": f"Bearer {token}", "Cache-Control": "no-cache"})
                log(f"{attempt} download of the 1 MB EPUB: {status} in {(time.time() - started) * 1000:.0f} ms")
        row = psql(stack.pg_port, "catalog",
                   "SELECT id, title, authors[1], isbn FROM books WHERE isbn IS NOT NULL AND epub_size < 500000 ORDER BY id LIMIT 1").split("|")
        book, title, author, isbn = row
        word = max(re.findall(r"[A-Za-z]{4,}", title), key=len).lower()
        surname = author.split()[-1].lower()
        typo = surname[:-2] + surname[-1] + surname[-2] if len(surname) > 3 else surname
        lendable = "\n".join(licensed[:400])
        books_file = work / "books.txt"
        books_file.write_text(lendable + "\n")
        words_file = work / "words.txt"
        words_file.write_text(psql(stack.pg_port, "catalog", r"""
            SELECT DISTINCT lower(w) FROM books, regexp_split_to_table(title || ' ' || array_to_string(authors, ' '), '[^A-Za-z]+') w
            WHERE length(w) >= 4 LIMIT 5000""") + "\n")

        # Page 200 of the newest books, reached by its next links (keyset: no page is read through an offset).
        deep = "/opds/lanes/new?size=50"
        for _ in range(199):
            links = json.loads(http("GET", gw + deep, {"Accept": "application/opds+json"})[1]).get("links", [])
            deep = next(link["href"] for link in links if link["rel"] == "next").replace(gw, "")
        scenarios = {
            "root feed": (gw + "/opds", []),
            "grouped feed": (gw + "/opds/groups", []),
            "lane page (50)": (gw + "/opds/lanes/new?size=50", []),
            "lane page (50), gateway cache bypassed": (gw + "/opds/lanes/new?size=50", ["Cache-Control: no-cache"]),
            "book detail": (f"{gw}/opds/books/{book}", []),
            "search: title word": (f"{gw}/opds/search?q={word}", []),
            "search: misspelled author": (f"{gw}/opds/search?q={typo}", []),
            "search: ISBN": (f"{gw}/opds/search?q={isbn}", []),
            "search: a common word (the)": (f"{gw}/opds/search?q=the", []),
            "lane page 200 (keyset)": (gw + deep, []),
            "/me (token verified)": (gw + "/me", [bearer]),
            "fulfill 1 MB EPUB": (f"{gw}/books/{big}/fulfill", [bearer]),
        }
        results = {}
        audio_env = dict(os.environ, AUDIO_PATH=audio_path, AUDIO_SIZE=str(len(audio_bytes)), AUTH=f"Bearer {token}")
        if wanted("audio: 64 KB ranges of an audiobook track (borrower)"):
            log("wrk: audio ranges")
            results["audio: 64 KB ranges of an audiobook track (borrower)"] = wrk(
                gw + audio_path, args.duration, script=ROOT / "Benchmarks/audio_ranges.lua", env=audio_env)
            time.sleep(2)
        for name, (url, headers) in scenarios.items():
            if not wanted(name):
                continue
            log(f"wrk: {name}")
            results[name] = wrk(url, args.duration, headers)
            time.sleep(2)  # let requests that wrk abandoned finish before the next scenario
        if wanted("lane pages: any lane, sort and facet (page 10)"):
            # Every fixed lane and four genres, in every sort and order, with no facet, available now and each
            # accessibility facet: the page reached after nine next links of each (keyset), asked for at random (Atom).
            log("wrk: lane pages of every lane, sort and facet (finding each one's page 10)")
            lanes = ["new", "featured", "staff-picks", "popular", "available", "genre-fiction", "genre-mystery", "genre-poetry",
                     "genre-children"]
            facets = ["", "&available=now", "&accessibility=screen-reader", "&accessibility=no-hazards"]
            pages = []
            for lane in lanes:
                for sort in ["title", "author", "added", "rating", "popularity", "length"]:
                    for order in ["asc", "desc"]:
                        for facet in facets:
                            page = f"/opds/lanes/{lane}?size=50&sort={sort}&order={order}{facet}"
                            for step in range(10):
                                feed = json.loads(http("GET", gw + page, {"Accept": "application/opds+json"})[1])
                                after = next((link["href"] for link in feed.get("links", []) if link["rel"] == "next"), None)
                                if step == 9 or not after:
                                    break
                                page = after.replace(gw, "")
                            # Only pages with books (the tenth, or a shorter lane's last): an empty lane or facet (as in a
                            # catalog seeded before the seed flagged books) would make the mix look cheaper than it is.
                            if feed.get("publications"):
                                pages.append(page)
            log(f"{len(pages)} lane pages with books")
            pages_file = work / "lane_pages.txt"
            pages_file.write_text("\n".join(pages) + "\n")
            results["lane pages: any lane, sort and facet (page 10)"] = wrk(
                gw + "/", args.duration, script=ROOT / "Benchmarks/lane_mix.lua", env=dict(os.environ, URLS_FILE=str(pages_file)))
        if wanted("search: random words, no cache hit"):
            log("wrk: searches for random words")
            # No warm-up with the caches on (it would fill them with the words measured next); with them off (--cold)
            # the same second of warm-up as every other scenario, which can only open connections.
            results["search: random words, no cache hit"] = wrk(gw + "/opds/search", args.duration, script=ROOT / "Benchmarks/search_words.lua",
                                                                env=dict(os.environ, WORDS_FILE=str(words_file)),
                                                                warmup=WARMUP_SECONDS if args.cold else 0)
        if wanted("borrow or return (one request)"):
            log("wrk: borrow+return cycle")
            def return_everything():
                # What the warm-up left on loan goes back, so that the measured run starts where the script expects:
                # patron p of borrow_return.lua holds books p*10 ... p*10+9 of BOOKS_FILE.
                auths = bearer_file.read_text().split("\n")
                books = books_file.read_text().split()
                for patron in range(CONNECTIONS):
                    for book in books[patron * 10:patron * 10 + 10]:
                        http("POST", f"{gw}/me/books/{book}/return", {"Authorization": auths[patron]})
            results["borrow or return (one request)"] = wrk(
                gw + "/", args.duration, script=ROOT / "Benchmarks/borrow_return.lua",
                env=dict(os.environ, BOOKS_FILE=str(books_file), AUTH_FILE=str(bearer_file)), after_warmup=return_everything)
            # And after it: the signed-in scenarios below measure these patrons with the seeded shelves (3 loans, 2
            # holds, 5 saved), not with the loans the run left (13 books each: /me/books ~25 % slower).
            return_everything()
        # Signed in: 64 patrons of the seeded 10,000 (their shelves in catalog's copy), a random one per request.
        for name, path, auth in [
            ("signed in (Bearer): lane page (50)", "/opds/lanes/new?size=50", bearer_file),
            ("signed in (Basic): lane page (50)", "/opds/lanes/new?size=50", basic_file),
            ("signed in (Bearer): search: title word", f"/opds/search?q={word}", bearer_file),
            ("signed in (Bearer): book detail", f"/opds/books/{book}", bearer_file),
            ("signed in (Bearer): /me", "/me", bearer_file),
            ("signed in (Bearer): /me/books", "/me/books", bearer_file),
        ]:
            if not wanted(name):
                continue
            log(f"wrk: {name}")
            results[name] = wrk(gw + path, args.duration, script=ROOT / "Benchmarks/signed_in.lua",
                                env=dict(os.environ, AUTH_FILE=str(auth), BENCH_PATH=path))
            time.sleep(2)
        crowd = None
        if any(wanted(name) for name in library.MIX + list(library.CROWDS) + [library.MORNING]):
            crowd = library_morning(stack, work, results, barcodes, licensed, words_file, wanted, hold=args.hold_morning)
        basic = "Basic " + base64.b64encode(b"bench:bench password 1").decode()
        logins = {}
        if wanted(f"login (bcrypt cost {BCRYPT_COST})"):
            log("wrk: login")
            results[f"login (bcrypt cost {BCRYPT_COST})"] = wrk(gw + "/auth/token", args.duration, script=ROOT / "Benchmarks/login.lua",
                                                   env=dict(os.environ, BENCH_BASIC=basic), warmup=0)
            log("login timings by outcome")
            logins = login_timings(stack)
        rss = {name: peak_rss_mb(process.pid) for name, process in stack.processes.items()}
        if args.read_replica:
            # Which server answered: transactions on the catalog database of each since they started.
            replica_port = re.search(r":(\d+)/catalog", stack.env["CATALOG_READ_DATABASE_URLS"]).group(1)
            served = {name: psql(int(port), "postgres", "SELECT xact_commit FROM pg_stat_database WHERE datname = 'catalog'")
                      for name, port in [("primary", stack.pg_port), ("replica", replica_port)]}
            log(f"transactions on the catalog database since start-up: {served}")

        for name, path in [("cover", f"/books/{book}/cover"), ("cover thumbnail", f"/books/{book}/cover?size=thumbnail")]:
            if wanted(name):
                log(f"wrk: {name}")
                results[name] = wrk(gw + path, args.duration, ["Cache-Control: no-cache"])
                time.sleep(2)
        _, lane_bytes = http("GET", gw + "/opds/lanes/new?size=50")
        _, epub_bytes = http("GET", f"{gw}/books/{big}/fulfill", {"Authorization": f"Bearer {token}"})
        log("nginx ceiling")
        ceiling = nginx_ceiling(work, lane_bytes, epub_bytes, args.duration, audio_bytes)
        for name, result in results.items():
            base = ceiling["epub"] if name.startswith("fulfill") else ceiling["audio"] if name.startswith("audio") else ceiling["lane_page"]
            result["vs_nginx"] = round(result["rps"] / base["rps"], 3)
        report(args, ingest, results, ceiling, rss, len(lane_bytes), len(epub_bytes), logins, uploads, crowd)
    finally:
        stack.stop()
        if args.keep:
            log(f"stack kept for the next run with --books {args.books}: {work}")
        else:
            shutil.rmtree(work, ignore_errors=True)


def library_morning(stack, work, results, barcodes, licensed, words_file, wanted, hold=False):
    """Issue 49's scenarios (Benchmarks/library.py): the library mix anonymously, with Bearer and with Basic for 1,000
    patrons, then the crowd. Returns the crowd's figures."""
    gw = stack.gateway
    words = [w for w in words_file.read_text().split() if w]
    lanes, pages, lines = library.mix_urls(gw, licensed, words)
    log(f"library mix: {len(pages)} lane pages of {len(lanes)} lanes, book details and searches, Atom and OPDS 2.0")
    urls_file = work / "library_mix.txt"
    urls_file.write_text("\n".join(lines) + "\n")
    # 100 patrons are enough when only the crowds run (their verified browsers); the mix wants 1,000.
    mixing = any(wanted(name) for name in library.MIX)
    mix_patrons, crowd_patrons = barcodes[1000:2000 if mixing else 1100], barcodes[3000:3000 + 500 * len(library.CROWDS)]
    tokens = library.sign_in_all(gw, mix_patrons, log)
    files = {"anonymous": work / "nobody.txt", "Bearer": work / "mix_bearer.txt", "Basic": work / "mix_basic.txt"}
    files["anonymous"].write_text("")
    files["Bearer"].write_text("\n".join(tokens) + "\n")
    files["Basic"].write_text("\n".join(library.basic(b) for b in mix_patrons) + "\n")
    # The three scenarios run twice, in a palindrome (anonymous, Bearer, Basic, Basic, Bearer, anonymous), so that a
    # machine whose speed drifts during the run (nginx's rate moved 26,000-48,000 req/s from hour to hour, the
    # anonymous mix 7,000-11,700 within ten minutes) weighs on each scenario alike: a ratio to anonymous taken from one
    # run of each charged the drift to whichever ran later.
    mixes = [(name, kind) for name, kind in zip(library.MIX, files) if wanted(name)]
    for name, kind in mixes + mixes[::-1]:
        if kind != "anonymous" and name not in results:
            first = library.first_requests(gw, [a for a in files[kind].read_text().split("\n") if a], lines)
            log(f"{name}: each patron's first request {first}")
        log(f"wrk: {name}")
        # Where the time goes: each service's CPU over the measured run (warm-up included: a second of 21), per request.
        before = {service: cpu_seconds(process.pid) for service, process in stack.processes.items()}
        run = wrk(gw + "/", DURATION_LIBRARY, script=ROOT / "Benchmarks/library_mix.lua",
                  env=dict(os.environ, URLS_FILE=str(urls_file), AUTH_FILE=str(files[kind])))
        run["cpu_s"] = {service: cpu_seconds(process.pid) - before[service] for service, process in stack.processes.items()}
        log(f"{name}, run {1 if name not in results else 2}: {run}")
        results.setdefault(name, {"runs": []})["runs"].append(run)
        if kind != "anonymous" and "first_requests" not in results[name]:
            results[name]["first_requests"] = first
        time.sleep(2)
    for name, _ in mixes:
        results[name].update(library.combined(results[name]["runs"], DURATION_LIBRARY))
        log(f"{name}: {results[name]}")
    anonymous = results.get(library.MIX[0])
    for name in library.MIX[1:]:
        if anonymous and name in results:
            results[name]["vs_anonymous"] = round(results[name]["rps"] / anonymous["rps"], 3)
            # Each run against the anonymous run nearest it in time (Bearer with the first and last, Basic likewise).
            results[name]["vs_anonymous_by_run"] = [round(run["rps"] / anon["rps"], 3)
                                                    for run, anon in zip(results[name]["runs"], anonymous["runs"])]
    if wanted(library.MORNING):
        real_morning(stack, work, results, barcodes, pages, lines, urls_file, hold=hold)
    if not any(wanted(name) for name in library.CROWDS):
        return None
    verified = work / "verified_basic.txt"
    verified.write_text("\n".join(library.basic(b) for b in mix_patrons[:100]) + "\n")
    one_check = library.bcrypt_seconds(gw, barcodes[2999])
    crowds = {}
    for index, (name, pace_ms) in enumerate(library.CROWDS.items()):
        if not wanted(name):
            continue
        log(f"wrk: {name} (one check {one_check * 1000:.0f} ms)")
        # Each crowd is 500 patrons the gateway has never seen.
        newcomers = crowd_patrons[500 * index:500 * (index + 1)]
        output, crowds[name] = library.crowd(gw, wrk_command(ROOT / "Benchmarks/library_mix.lua"), urls_file, verified, newcomers,
                                             one_check, log, pace_ms)
        if output:
            results[name] = parse_wrk(output)
        time.sleep(5)
    return crowds


def real_morning(stack, work, results, barcodes, pages, lines, urls_file, hold=False):
    """Issue 72's scenario: 500 patrons whose shelves hold books of the mix's pages, half sending Basic on every
    request and half Bearer in the same run, each request a random patron on a random page; beside the same pages
    anonymously, in a palindrome (anonymous, morning, morning, anonymous). The answers' statuses are counted, and the
    non-2xx ones are found again by route afterwards (`library.replay`)."""
    gw = stack.gateway
    patrons = barcodes[5000:5500] if len(barcodes) >= 5500 else barcodes[-500:]
    shown = library.page_books(gw, pages)
    log(f"{library.MORNING}: {len(shown)} books on the mix's lane pages; 8 of them on each patron's shelf (saved)")
    numbered = ",".join(f"'{b}'" for b in patrons)
    books = ",".join(f"'{b}'" for b in shown)
    psql(stack.pg_port, "patron", f"""
        WITH pool AS (SELECT b::uuid AS book, (row_number() OVER () - 1)::int AS n FROM unnest(ARRAY[{books}]) b),
             size AS (SELECT count(*)::int AS c FROM pool),
             chosen AS (SELECT id, (row_number() OVER (ORDER BY barcode))::int AS g FROM patrons WHERE barcode IN ({numbered}))
        INSERT INTO patron_books (patron_id, book_id, state)
        SELECT chosen.id, pool.book, 'saved' FROM chosen, generate_series(0, 7) k, size, pool
        WHERE pool.n = (chosen.g * 7 + k * 13) % size.c ON CONFLICT DO NOTHING""")
    wait_for(lambda: int(psql(stack.pg_port, "patron", "SELECT count(*) FROM shelf_changes")) == 0, 900,
             "patron to publish the morning patrons' shelves")
    tokens = library.sign_in_all(gw, patrons, log)
    half = len(patrons) // 2
    auths = tokens[:half] + [library.basic(b) for b in patrons[half:]]
    auth_file, nobody = work / "morning_auth.txt", work / "morning_nobody.txt"
    auth_file.write_text("\n".join(auths) + "\n")
    nobody.write_text("")
    first = library.first_requests(gw, auths, lines)
    log(f"{library.MORNING}: each patron's first request {first}")
    if hold:
        command = " ".join(wrk_command(ROOT / "Benchmarks/library_mix.lua"))
        log(f"holding; the signed-in load: URLS_FILE={urls_file} AUTH_FILE={auth_file} COUNT_STATUSES=1 {command} -d10s {gw}/ "
            f"(AUTH_FILE={nobody} for the anonymous one); pids {[(n, p.pid) for n, p in stack.processes.items()]}; Ctrl-C stops")
        while True:
            time.sleep(3600)
    for name, auth in ((library.MORNING_ANONYMOUS, nobody), (library.MORNING, auth_file), (library.MORNING, auth_file),
                       (library.MORNING_ANONYMOUS, nobody)):
        log(f"wrk: {name}")
        before = {service: cpu_seconds(process.pid) for service, process in stack.processes.items()}
        env = dict(os.environ, URLS_FILE=str(urls_file), AUTH_FILE=str(auth), COUNT_STATUSES="1")
        command = wrk_command(ROOT / "Benchmarks/library_mix.lua")
        subprocess.run(command + [f"-d{WARMUP_SECONDS}s", gw + "/"], check=True, capture_output=True, text=True, env=env)
        output = subprocess.run(command + [f"-d{DURATION_LIBRARY}s", gw + "/"], check=True, capture_output=True, text=True, env=env).stdout
        run = parse_wrk(output)
        run["statuses"] = library.statuses(output)
        run["cpu_s"] = {service: cpu_seconds(process.pid) - before[service] for service, process in stack.processes.items()}
        log(f"{name}: {run}")
        results.setdefault(name, {"runs": []})["runs"].append(run)
        time.sleep(2)
    for name in (library.MORNING_ANONYMOUS, library.MORNING):
        results[name].update(library.combined(results[name]["runs"], DURATION_LIBRARY))
    morning, anonymous = results[library.MORNING], results[library.MORNING_ANONYMOUS]
    morning["first_requests"] = first
    morning["vs_anonymous"] = round(morning["rps"] / anonymous["rps"], 3)
    # The first morning run against the anonymous run before it, the second against the one after it.
    morning["vs_anonymous_by_run"] = [round(run["rps"] / anon["rps"], 3) for run, anon in zip(morning["runs"], anonymous["runs"])]
    morning["replay"] = library.replay(gw, auths, [line for line in lines if line], 4000)
    log(f"{library.MORNING}: {morning}")


def clear_throttle(stack):
    # Patron writes these rows while sign-ins are answered: a deadlock with it is retried.
    for attempt in range(5):
        try:
            psql(stack.pg_port, "patron", "DELETE FROM sign_in_failures; DELETE FROM sign_in_addresses")
            return
        except subprocess.CalledProcessError as error:
            log(f"clearing the sign-in throttle failed ({error.stderr.strip()}); again")
            time.sleep(1)
    raise RuntimeError("the sign-in throttle could not be cleared")


def seed_patrons(stack, count, pin_hash, licensed):
    """`count` patrons with the same PIN, each with a realistic shelf: 3 loans, 2 holds, 5 saved, 2 ignored books,
    drawn from `licensed` (book ids) past the first 400, which the borrow scenario keeps for itself. Catalog gets
    their shelves through patron's publisher, as in production."""
    pool = licensed[400:]
    values = ",".join(f"'{b}'" for b in pool)
    psql(stack.pg_port, "patron", f"""
        INSERT INTO patrons (id, barcode, secret_hash, loan_limit, hold_limit)
        SELECT gen_random_uuid(), '29' || lpad(g::text, 12, '0'), '{pin_hash}', 100, 100 FROM generate_series(1, {count}) g;
        WITH pool AS (SELECT b::uuid AS book, (row_number() OVER () - 1)::int AS n FROM unnest(ARRAY[{values}]) b),
             size AS (SELECT count(*)::int AS c FROM pool),
             numbered AS (SELECT id, (row_number() OVER (ORDER BY barcode))::int AS g FROM patrons WHERE barcode LIKE '29%'),
             picks AS (SELECT numbered.id, k, pool.book FROM numbered, generate_series(0, 11) k, size, pool
                       WHERE pool.n = (numbered.g * 12 + k) % size.c)
        INSERT INTO patron_books (patron_id, book_id, state, hold_placed_at, loaned_at, due_at)
        SELECT id, book, CASE WHEN k < 3 THEN 'not_downloaded' WHEN k < 5 THEN 'waiting_for_loan' ELSE 'saved' END,
               CASE WHEN k IN (3, 4) THEN now() - make_interval(secs => k) END,
               CASE WHEN k < 3 THEN now() END, CASE WHEN k < 3 THEN now() + interval '21 days' END
        FROM picks WHERE k < 10 ON CONFLICT DO NOTHING;
        WITH pool AS (SELECT b::uuid AS book, (row_number() OVER () - 1)::int AS n FROM unnest(ARRAY[{values}]) b),
             size AS (SELECT count(*)::int AS c FROM pool),
             numbered AS (SELECT id, (row_number() OVER (ORDER BY barcode))::int AS g FROM patrons WHERE barcode LIKE '29%')
        INSERT INTO ignored_books (patron_id, book_id)
        SELECT numbered.id, pool.book FROM numbered, generate_series(10, 11) k, size, pool WHERE pool.n = (numbered.g * 12 + k) % size.c
        ON CONFLICT DO NOTHING;""")
    wait_for(lambda: int(psql(stack.pg_port, "patron", "SELECT count(*) FROM shelf_changes")) == 0, 900,
             "patron to publish every shelf to catalog")
    return psql(stack.pg_port, "patron", "SELECT barcode FROM patrons WHERE barcode LIKE '29%' ORDER BY barcode").split("\n")


def big_epubs(work, count, megabytes):
    """`count` distinct valid EPUBs of about `megabytes` MB each: a generated book with incompressible media added."""
    import zipfile
    source = work / "upload-source"
    subprocess.run([sys.executable, SHARED / "tools/make_epubs.py", source, str(count), "99", "--start", "900000"], check=True,
                   capture_output=True)
    files = []
    for n, template in enumerate(sorted(source.glob("*.epub"))):
        target = work / f"upload-{n}.epub"
        shutil.copy(template, target)
        with zipfile.ZipFile(target, "a", compression=zipfile.ZIP_STORED) as archive:
            for part in range(megabytes // 50 + (1 if megabytes % 50 else 0)):
                archive.writestr(f"OEBPS/media/extra-{part}.bin", os.urandom(min(50, megabytes - part * 50) << 20))
        files.append(target)
    return files


def upload_memory(stack, files):
    """Uploads every file at once through the gateway; returns the gateway's peak RSS and the statuses."""
    import concurrent.futures
    def upload(path):
        data = path.read_bytes()
        return http("POST", stack.gateway + "/admin/books?copies=1",
                    {"Authorization": "Bearer bench-admin", "Content-Type": "application/epub+zip"}, data)[0]
    before = peak_rss_mb(stack.processes["gateway"].pid)
    started = time.time()
    with concurrent.futures.ThreadPoolExecutor(len(files)) as pool:
        statuses = list(pool.map(upload, files))
    return {"files": len(files), "mb_each": round(files[0].stat().st_size / 2**20), "statuses": statuses,
            "seconds": round(time.time() - started, 1), "gateway_peak_rss_mb_before": before,
            "gateway_peak_rss_mb": peak_rss_mb(stack.processes["gateway"].pid)}


def login_timings(stack, samples=15):
    """Milliseconds of one sign-in through the gateway, by outcome: a wrong password and an unknown login must cost
    what a good one costs (the unknown login is checked against a decoy bcrypt hash), and a locked login answers
    alike whether or not it exists. The throttle is cleared before each attempt so that every one is judged."""
    gw = stack.gateway
    def basic(user, password):
        return {"Authorization": "Basic " + base64.b64encode(f"{user}:{password}".encode()).decode()}
    cases = {
        "good password": (basic("bench", "bench password 1"), 200),
        "wrong password": (basic("bench", "wrong password 1"), 401),
        "unknown login": (basic("nobody-here", "bench password 1"), 401),
    }
    timings = {}
    for name, (headers, expected) in cases.items():
        values = []
        for _ in range(samples):
            clear_throttle(stack)
            start = time.perf_counter()
            status, _ = http("POST", gw + "/auth/token", headers)
            values.append((time.perf_counter() - start) * 1000)
            assert status == expected, f"{name}: {status}"
        timings[name] = values
    for name, user in (("locked, login exists", "bench"), ("locked, no such login", "nobody-here")):
        values = []
        for _ in range(samples):
            clear_throttle(stack)
            psql(stack.pg_port, "patron", f"INSERT INTO sign_in_failures (key, failures) VALUES ('login:{user}', 40)")
            start = time.perf_counter()
            status, _ = http("POST", gw + "/auth/token", basic(user, "wrong password 1"))
            values.append((time.perf_counter() - start) * 1000)
            assert status == 429, f"{name}: {status}"
        timings[name] = values
    clear_throttle(stack)
    return {name: {"median_ms": round(statistics.median(v), 1), "min_ms": round(min(v), 1), "max_ms": round(max(v), 1)}
            for name, v in timings.items()}


def report(args, ingest, results, ceiling, rss, lane_size, epub_size, logins, uploads, crowd=None):
    commit = subprocess.run(["git", "rev-parse", "--short", "HEAD"], cwd=ROOT, capture_output=True, text=True).stdout.strip()
    cpu = next((l.split(":", 1)[1].strip() for l in open("/proc/cpuinfo") if l.startswith("model name")), platform.processor())
    machine = f"{os.cpu_count()} cores, {cpu}, {round(os.sysconf('SC_PAGE_SIZE') * os.sysconf('SC_PHYS_PAGES') / 2**30)} GiB, {platform.system()} {platform.release()}"
    date = datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%d %H:%M UTC")
    data = {"date": date, "commit": commit, "machine": machine, "books": args.books, "connections": CONNECTIONS,
            "duration_s": args.duration, "ingest": ingest, "scenarios": results, "nginx": ceiling, "peak_rss_mb": rss,
            "lane_page_bytes": lane_size, "epub_bytes": epub_size, "login_ms_by_outcome": logins, "uploads": uploads,
            "patrons": args.patrons, "crowd": crowd}
    if not args.only:
        (ROOT / "Benchmarks/results/latest.json").write_text(json.dumps(data, indent=2) + "\n")
    lines = [f"\n## Run of {date}, commit {commit}\n",
             f"Machine: {machine}. Catalog of {args.books} books{'; blobs in object storage (Swift s3api on loopback)' if args.blobs == 's3' else ''}{'; catalog reading from a streaming replica on the same machine' if args.read_replica else ''}{'; caches off (EDGE_CACHE_TTL=0, FEED_CACHE_TTL=0): every page computed' if args.cold else ''}; wrk with {CONNECTIONS} connections, 2 threads, "
             f"{args.duration} s per scenario after {WARMUP_SECONDS} s of the same load not measured (none for borrow/return and login, nor for random words with the caches on); release build; PostgreSQL 15 with default durability, reached through its {'TCP port' if args.database_over_tcp else 'Unix socket'}.\n",
             "| scenario | requests/s | p50 ms | p99 ms | non-2xx | ratio to nginx |", "|---|---:|---:|---:|---:|---:|"]
    for name, r in results.items():
        lines.append(f"| {name} | {r['rps']:.0f} | {r['p50_ms']:.2f} | {r['p99_ms']:.2f} | {r['non_2xx']} | {r['vs_nginx']:.3f} |")
    lines.append(f"| *nginx: lane page bytes ({lane_size} B)* | {ceiling['lane_page']['rps']:.0f} | {ceiling['lane_page']['p50_ms']:.2f} | {ceiling['lane_page']['p99_ms']:.2f} | | 1 |")
    lines.append(f"| *nginx: the EPUB ({epub_size} B)* | {ceiling['epub']['rps']:.0f} | {ceiling['epub']['p50_ms']:.2f} | {ceiling['epub']['p99_ms']:.2f} | | 1 |")
    lines.append(f"| *nginx: 64 KB ranges of the audiobook's track* | {ceiling['audio']['rps']:.0f} | {ceiling['audio']['p50_ms']:.2f} | {ceiling['audio']['p99_ms']:.2f} | | 1 |")
    lines.append(f"\nIngest: {ingest['files']} generated EPUBs in {ingest['seconds']} s = **{ingest['files_per_second']} files/s** "
                 f"(`catalog ingest`, concurrency 4, peak RSS {ingest['peak_rss_mb']} MB). Peak RSS (VmHWM) after the run: "
                 + ", ".join(f"{k} {v} MB" for k, v in rss.items()) + ".\n")
    if "more" in ingest:
        more = ingest["more"]
        empty = more.get("empty_files_per_second", ingest["files_per_second"])
        lines.append(f"\n{more['files']} more generated EPUBs into the seeded catalog of {more['into_books']} books: {more['seconds']} s = "
                     f"**{more['files_per_second']} files/s**, {more['files_per_second'] / empty:.2f} x the {empty} files/s of the same files "
                     f"into an empty catalog {'just before' if 'empty_files_per_second' in more else '(the seed)'} (issue 20 asks at least 0.8 x).\n")
    if logins:
        lines.append(f"\nOne sign-in at a time through the gateway (bcrypt cost {BCRYPT_COST}), by outcome, "
                 f"median (min-max) ms of 15: " + "; ".join(f"{k} {v['median_ms']} ({v['min_ms']}-{v['max_ms']})" for k, v in logins.items()) + ".\n")
    mix = {name: results[name] for name in library.MIX if name in results}
    if mix:
        lines.append("\nLibrary mix (issue 49: 0.6 x anonymous and p99 under 30 ms wanted): "
                     + "; ".join(f"{name.split(': ')[1]} {r['rps']:.0f} req/s, p99 {r['p99_ms']:.1f} ms"
                                 + (f" = **{r['vs_anonymous']:.2f} x** anonymous" if "vs_anonymous" in r else "")
                                 + (" (run by run against the anonymous run beside it: " + ", ".join(f"{x:.2f} x" for x in r["vs_anonymous_by_run"])
                                    + "; worst run's p99)" if "vs_anonymous_by_run" in r else "")
                                 + " (CPU ms per request: " + ", ".join(f"{k} {v}" for k, v in r.get("cpu_ms_per_request", {}).items()) + ")"
                                 for name, r in mix.items()) + ".\n")
    if library.MORNING in results:
        morning, anonymous = results[library.MORNING], results[library.MORNING_ANONYMOUS]
        lines.append(f"\nReal morning (issue 72: 0.8 x anonymous, p99 under 20 ms, no non-2xx wanted): {morning['rps']:.0f} req/s, "
                     f"p99 {morning['p99_ms']:.1f} ms = **{morning['vs_anonymous']:.2f} x** the same pages anonymously ({anonymous['rps']:.0f} req/s, "
                     f"p99 {anonymous['p99_ms']:.1f} ms; run by run " + ", ".join(f"{x:.2f} x" for x in morning["vs_anonymous_by_run"]) + "); "
                     f"non-2xx {morning['non_2xx']} (statuses by run: {[run['statuses'] for run in morning['runs']]}); "
                     f"{morning['replay']['asked']} pairs asked again afterwards, not 2xx: {morning['replay']['not_2xx'] or 'none'}.\n")
    for name, figures in (crowd or {}).items():
        browsing = f"browsing with {figures['pace_ms']} ms between a connection's requests" if figures["pace_ms"] else "browsing as fast as answers come"
        verified = (f"verified patrons' p99 **{results[name]['p99_ms']:.1f} ms** ({results[name]['rps']:.0f} req/s, {browsing})" if name in results
                    else "nobody browsing")
        target = "verified p99 under 50 ms, every crowd patron signed in" if name in results else "the time the bcrypt work takes on the machine"
        lines.append(f"\n{name.split(':')[0].capitalize()} (issue 49: {target}): {verified}; crowd of {figures['crowd']}: "
                     f"first answers {figures['crowd_first_answers']}, final answers (a 503 tried again after its Retry-After, as an app would) {figures['crowd_statuses']}, all signed in {figures['crowd_all_signed_in_s']} s after the first arrived "
                     f"(wait median {figures['crowd_wait_median_s']} s, max {figures['crowd_wait_max_s']} s), against {figures['bcrypt_work_s']} s of "
                     f"bcrypt work ({figures['one_check_ms']} ms a check x {figures['crowd']} / {os.cpu_count()} cores) and {figures['all_cpu_on_the_cores_s']} s of "
                     f"every program's CPU until then on the {os.cpu_count()} cores (bcrypt, browsing, the crowd's requests, the bench's clients). "
                     + (("One verified patron's request every 50 ms, by 5 s of the crowd's course (crowd requests sent / probe p99 ms): "
                         + ", ".join(f"{row['crowd_sent']}/{row['p99_ms']}" for row in figures["timeline"])) if name in results
                        else "Crowd requests sent, by 5 s: " + ", ".join(str(row["crowd_sent"]) for row in figures["timeline"]))
                     + ". CPU seconds each program used until the crowd was signed in: "
                     + ", ".join(f"{k} {v}" for k, v in figures["cpu_s_until_signed_in"].items()) + ".\n")
    if uploads:
        lines.append(f"\nUploads: {uploads['files']} EPUBs of {uploads['mb_each']} MB at once through the gateway in {uploads['seconds']} s "
                     f"(statuses {sorted(set(uploads['statuses']))}); gateway peak RSS {uploads['gateway_peak_rss_mb_before']} MB before, "
                     f"**{uploads['gateway_peak_rss_mb']} MB** after.\n")
    doc = ROOT / "docs/PERFORMANCE.md"
    if args.only:
        print("\n".join(lines))
        return
    if not doc.exists():
        doc.write_text("# Performance\n\nMeasured by `make bench` (Benchmarks/run.sh); one table per run, newest last.\n")
    with doc.open("a") as f:
        f.write("\n".join(lines))
    print("\n".join(lines))


if __name__ == "__main__":
    main()
