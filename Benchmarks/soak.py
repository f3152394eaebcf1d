#!/usr/bin/env python3
"""make soak: the whole stack (release executables, PostgreSQL) for a chosen time (default an hour) under a steady mix
of anonymous and signed-in browsing, searches, borrows, returns, holds, bookmarks, downloads and ingests, with planned
faults: PostgreSQL restarted at 40 % of the run, catalog killed (-9) and started again at 60 %, patron at 80 %.

Every 10 s it samples each service's resident memory, open files and sockets and each database's connections; every
request's latency and status is kept. At the end: a table per minute, a PNG of the curves (docs/soak.png) and a verdict
(Benchmarks/results/soak.json): RSS of each service within 10 % of its value after the settling minutes, p99 flat
within 20 % (the settled minutes before the first fault against the last ones, fault windows left out), no error but
the planned faults' (a 5xx, or no answer, outside a fault's window), no growth of open files or connections.

A benchmark, never part of make test. Options: --minutes, --settle-minutes, --patrons, --readers, --books.
"""
import argparse
import http.client
import json
import os
import pathlib
import random
import re
import signal
import subprocess
import sys
import tempfile
import threading
import time
import uuid

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent))
import bench  # noqa: E402  (the stack, PostgreSQL and HTTP helpers of make bench)

ROOT = bench.ROOT
FAULT_WINDOW_AFTER = 30  # seconds after a fault ends in which its 5xx count as planned
WORDS = ["the", "night", "garden", "river", "house", "war", "love", "sea", "winter", "king", "tale", "city"]


class Client:
    """One keep-alive connection to the gateway; no answer (connection refused or reset) is status None."""

    def __init__(self, base, token=None, refresh_token=None):
        self.host, self.port = base.replace("http://", "").split(":")
        self.token, self.refresh_token = token, refresh_token
        self.connection = None

    def call(self, method, path, body=None, headers=None, accept=None):
        """As an app does: an expired access token is refreshed once (a new pair), and the request sent again."""
        status, data, ms = self.send(method, path, body, headers, accept)
        if status == 401 and self.refresh_token:
            saved, self.token = self.token, None
            refreshed, answer, _ = self.send("POST", "/auth/refresh", json.dumps({"refresh_token": self.refresh_token}), None, None)
            if refreshed == 200:
                tokens = json.loads(answer)
                self.token, self.refresh_token = tokens["access_token"], tokens["refresh_token"]
                status, data, more = self.send(method, path, body, headers, accept)
                ms += more
            else:
                self.token = saved
        return status, data, ms

    def send(self, method, path, body, headers, accept):
        headers = dict(headers or {})
        if self.token:
            headers["Authorization"] = f"Bearer {self.token}"
        if accept:
            headers["Accept"] = accept
        if body is not None and "Content-Type" not in headers:
            headers["Content-Type"] = "application/json"
        started = time.monotonic()
        try:
            if self.connection is None:
                self.connection = http.client.HTTPConnection(self.host, int(self.port), timeout=40)
            self.connection.request(method, path, body=body, headers=headers)
            response = self.connection.getresponse()
            data = response.read()
            return response.status, data, (time.monotonic() - started) * 1000
        except (OSError, http.client.HTTPException):
            if self.connection is not None:
                self.connection.close()
            self.connection = None
            return None, b"", (time.monotonic() - started) * 1000


class Recorder:
    def __init__(self):
        self.lock = threading.Lock()
        self.requests = []  # (seconds since start, kind, status, milliseconds)
        self.samples = []  # (seconds since start, {name: value})
        self.faults = []  # (name, start, end) in seconds since start
        self.started = time.monotonic()

    def now(self):
        return time.monotonic() - self.started

    def request(self, kind, status, milliseconds):
        with self.lock:
            self.requests.append((self.now(), kind, status, milliseconds))

    def in_fault(self, at):
        return any(start <= at <= end + FAULT_WINDOW_AFTER for _, start, end in self.faults)


def pick(weights):
    total = sum(weight for _, weight in weights)
    point = random.uniform(0, total)
    for name, weight in weights:
        point -= weight
        if point <= 0:
            return name
    return weights[-1][0]


def reader(gateway, books, recorder, stop):
    client = Client(gateway)
    while not stop.is_set():
        kind = pick([("feed", 30), ("lane", 25), ("search", 20), ("book", 15), ("cover", 10)])
        book = random.choice(books)
        path = {
            "feed": "/opds",
            "lane": f"/opds/lanes/{random.choice(['new', 'popular'])}?size={random.choice([20, 50])}",
            "search": f"/opds/search?q={random.choice(WORDS)}",
            "book": f"/opds/books/{book}",
            "cover": f"/books/{book}/cover",
        }[kind]
        status, _, ms = client.call("GET", path)
        recorder.request("anonymous " + kind, status, ms)
        time.sleep(random.uniform(0.1, 0.5))


def patron(gateway, tokens, books, chapters, recorder, stop):
    client = Client(gateway, tokens["access_token"], tokens["refresh_token"])
    loans, holds = [], []
    while not stop.is_set():
        kind = pick([("feed", 20), ("shelf", 15), ("search", 10), ("borrow", 15), ("return", 12), ("bookmark", 10),
                     ("download", 8), ("cancel hold", 4)])
        key = {"Idempotency-Key": str(uuid.uuid4())}
        if kind == "feed":
            status, _, ms = client.call("GET", f"/opds/lanes/new?size=20", accept="application/atom+xml")
        elif kind == "shelf":
            status, body, ms = client.call("GET", "/me/books")
            offered = [b["bookId"] for b in json.loads(body).get("books", []) if b.get("state") == "loan_offered"] if status == 200 else []
            for book in offered[:1]:
                recorder.request("signed-in shelf", status, ms)
                kind = "accept"
                status, _, ms = client.call("POST", f"/me/books/{book}/accept", headers=key)
                if status in (200, 201):
                    loans.append(book)
                    holds.remove(book) if book in holds else None
        elif kind == "search":
            status, _, ms = client.call("GET", f"/opds/search?q={random.choice(WORDS)}")
        elif kind == "borrow" or (kind in ("return", "bookmark", "download") and not loans):
            kind = "borrow"
            book = random.choice(books)
            status, body, ms = client.call("POST", f"/me/books/{book}/borrow", headers=key)
            if status in (200, 201):
                loans.append(book)
            elif status == 409 and b"no-copies-available" in body:
                recorder.request("signed-in borrow", status, ms)
                kind = "hold"
                status, _, ms = client.call("POST", f"/me/books/{book}/hold", headers={"Idempotency-Key": str(uuid.uuid4())})
                if status in (200, 201):
                    holds.append(book)
        elif kind == "return":
            book = loans.pop(random.randrange(len(loans)))
            status, _, ms = client.call("POST", f"/me/books/{book}/return", headers=key)
            if status not in (200, 409, 404) and status is not None:
                loans.append(book)
        elif kind == "bookmark":
            book = random.choice(loans)
            mark = {"locator": {"href": chapters.get(book, ""), "locations": {"progression": round(random.random(), 3)}}}
            status, _, ms = client.call("POST", f"/me/books/{book}/bookmarks", body=json.dumps(mark), headers=key)
        elif kind == "download":
            status, _, ms = client.call("GET", f"/books/{random.choice(loans)}/fulfill")
        elif holds:
            status, _, ms = client.call("DELETE", f"/me/books/{holds.pop(0)}/hold", headers=key)
        else:
            continue
        recorder.request("signed-in " + kind, status, ms)
        if len(loans) > 6:
            book = loans.pop(0)
            status, _, ms = client.call("POST", f"/me/books/{book}/return", headers={"Idempotency-Key": str(uuid.uuid4())})
            recorder.request("signed-in return", status, ms)
        time.sleep(random.uniform(0.2, 0.8))


def operator(stack, epubs, interval, recorder, stop):
    """An EPUB ingested through catalog's admin endpoint every `interval` seconds."""
    client = Client(f"http://127.0.0.1:{stack.ports['catalog']}")
    for epub in epubs:
        if stop.wait(interval):
            return
        status, _, ms = client.call("POST", "/admin/books?copies=2", body=epub.read_bytes(),
                                    headers={"Authorization": "Bearer bench-admin", "Content-Type": "application/epub+zip"})
        recorder.request("ingest", status, ms)


def sampler(stack, recorder, stop):
    while not stop.is_set():
        values = {}
        for name, process in list(stack.processes.items()):
            try:
                status = pathlib.Path(f"/proc/{process.pid}/status").read_text()
                values[f"{name} rss MB"] = int(next(l for l in status.splitlines() if l.startswith("VmRSS:")).split()[1]) / 1024
                targets = [link_target(fd) for fd in pathlib.Path(f"/proc/{process.pid}/fd").iterdir()]
                values[f"{name} open files"] = len(targets)
                values[f"{name} sockets"] = sum(1 for target in targets if target.startswith("socket:"))
            except (OSError, StopIteration):
                pass
        values.update(cache_megabytes(stack))
        try:
            rows = bench.psql(stack.pg_port, "postgres",
                              "SELECT datname || '=' || count(*) FROM pg_stat_activity WHERE datname IN ('catalog', 'patron') GROUP BY datname")
            for row in rows.split("\n"):
                if "=" in row:
                    database, count = row.split("=")
                    values[f"{database} db connections"] = int(count)
        except Exception:  # PostgreSQL restarting
            pass
        with recorder.lock:
            recorder.samples.append((recorder.now(), values))
        stop.wait(10)


def cache_megabytes(stack):
    """What catalog's response caches hold (its /metrics), to tell their filling from a leak in its RSS."""
    try:
        status, body = bench.http("GET", f"http://127.0.0.1:{stack.ports['catalog']}/metrics")
    except OSError:  # catalog restarting
        return {}
    values = {}
    for line in (body.decode(errors="replace") if status == 200 else "").splitlines():
        match = re.match(r'response_cache_bytes\{cache="(\w+)"\} (\S+)', line)
        if match:
            values[f"catalog {match[1]} cache MB"] = float(match[2]) / (1 << 20)
    return values


def link_target(fd):
    try:
        return os.readlink(fd)
    except OSError:  # closed since the folder was listed
        return ""


def restart_service(stack, name):
    process = stack.processes[name]
    process.send_signal(signal.SIGKILL)
    process.wait()
    arguments = [stack.bin / name] + (["serve"] if name == "catalog" else [])
    output = open(stack.work / f"{name}.log", "ab")
    stack.processes[name] = subprocess.Popen(arguments, env=stack.env, stdout=output, stderr=output)


def faults(stack, recorder, minutes, stop):
    plan = [(0.4, "PostgreSQL restart"), (0.6, "catalog kill -9"), (0.8, "patron kill -9")]
    for fraction, name in plan:
        if stop.wait(max(0, minutes * 60 * fraction - recorder.now())):
            return
        start = recorder.now()
        bench.log(f"fault: {name}")
        if name == "PostgreSQL restart":
            subprocess.run([ROOT / "scripts/postgres.sh", "stop", stack.work / "pg"], check=True)
            time.sleep(5)
            stack.start_postgres()
        else:
            restart_service(stack, name.split()[0])
        bench.wait_for(lambda: bench.http("GET", stack.gateway + "/health/ready")[0] == 200, 120, "the stack to be ready again")
        recorder.faults.append((name, start, recorder.now()))
        bench.log(f"fault: {name}: ready again after {recorder.now() - start:.1f} s")


def percentile(values, fraction):
    if not values:
        return None
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(fraction * len(ordered)))]


def per_minute(recorder, minutes):
    table = []
    for minute in range(minutes):
        requests = [r for r in recorder.requests if minute * 60 <= r[0] < (minute + 1) * 60]
        unplanned = [r for r in requests if (r[2] is None or r[2] >= 500 or r[2] == 401) and not recorder.in_fault(r[0])]
        planned = [r for r in requests if (r[2] is None or r[2] >= 500) and recorder.in_fault(r[0])]
        row = {"minute": minute + 1, "requests per s": round(len(requests) / 60, 1),
               "p99 ms": round(percentile([r[3] for r in requests if r[2] is not None and r[2] < 500], 0.99) or 0, 1),
               "anonymous p99 ms": round(percentile([r[3] for r in requests if r[1].startswith("anonymous") and r[2] is not None
                                                     and r[2] < 500], 0.99) or 0, 1),
               "signed-in p99 ms": round(percentile([r[3] for r in requests if r[1].startswith("signed-in") and r[2] is not None
                                                     and r[2] < 500], 0.99) or 0, 1),
               "errors": len(unplanned), "planned fault errors": len(planned),
               "in fault": any(start < (minute + 1) * 60 and minute * 60 <= end + FAULT_WINDOW_AFTER
                               for _, start, end in recorder.faults)}
        samples = [values for at, values in recorder.samples if minute * 60 <= at < (minute + 1) * 60]
        for values in samples[-1:]:
            row.update({name: round(value, 1) for name, value in values.items()})
        table.append(row)
    return table


def verdict(table, settle):
    reference = table[settle - 1]
    result = {}
    services = ("catalog", "patron", "gateway")
    for service in services:
        key = f"{service} rss MB"
        later = [row[key] for row in table[settle - 1:] if key in row]
        result[f"{service} rss max / minute {settle}"] = round(max(later) / reference[key], 3) if later and key in reference else None
    steady = [row for row in table[settle - 1:] if not row["in fault"]]
    faults_start = next((row["minute"] for row in table if row["in fault"]), len(table))
    before = sorted(row["p99 ms"] for row in steady if row["minute"] < faults_start)
    after = sorted(row["p99 ms"] for row in steady[-max(3, len(before)):] if row["minute"] > faults_start)
    if before and after:
        result["p99 before faults (median of minutes) ms"] = before[len(before) // 2]
        result["p99 at the end (median of minutes) ms"] = after[len(after) // 2]
        result["p99 end / before"] = round(after[len(after) // 2] / max(before[len(before) // 2], 0.1), 3)
    result["unplanned errors"] = sum(row["errors"] for row in table)
    result["planned fault errors"] = sum(row["planned fault errors"] for row in table)
    # Growth is a trend, not one sample: each count is sampled once a minute, and a pool that opens connections for a
    # burst closes them again a minute later. The five minutes up to the settle minute against the last five, by
    # their medians; the last five's maximum is reported beside them.
    growth = {}
    for key in [k for k in reference if k.endswith("open files") or k.endswith("sockets") or k.endswith("db connections")]:
        before = sorted(row[key] for row in table[max(0, settle - 5):settle] if key in row and not row["in fault"])
        tail = sorted(row[key] for row in table[-5:] if key in row and not row["in fault"])
        if before and tail:
            growth[key] = {"median of minutes settle-4 to settle": before[len(before) // 2], "median of the last 5": tail[len(tail) // 2],
                           "max of the last 5": tail[-1]}
    result["open files, sockets, connections"] = growth
    result["rss within 10 %"] = all(v is not None and v <= 1.10 for k, v in result.items() if k.endswith(f"minute {settle}"))
    result["p99 flat within 20 %"] = "p99 end / before" in result and 0.8 <= result["p99 end / before"] <= 1.2
    result["no unplanned errors"] = result["unplanned errors"] == 0
    result["no growth of files or connections"] = all(
        g["median of the last 5"] <= g["median of minutes settle-4 to settle"] * 1.1 + 5 for g in growth.values())
    return result


def plot(table, recorder, path):
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    minutes = [row["minute"] for row in table]
    figure, axes = plt.subplots(2, 3, figsize=(16, 8))
    panels = [("resident memory (MB)", "rss MB"), ("open files", "open files"), ("sockets", "sockets")]
    for axis, (title, suffix) in zip(axes[0], panels):
        for service in ("catalog", "patron", "gateway"):
            axis.plot(minutes, [row.get(f"{service} {suffix}") for row in table], label=service)
        if suffix == "rss MB":
            for cache in ("feed", "personal"):
                axis.plot(minutes, [row.get(f"catalog {cache} cache MB") for row in table], label=f"catalog's {cache} cache",
                          linestyle="--", linewidth=0.8)
        axis.set_title(title)
        axis.legend()
    for database in ("catalog", "patron"):
        axes[1][0].plot(minutes, [row.get(f"{database} db connections") for row in table], label=database)
    axes[1][0].set_title("database connections")
    axes[1][0].legend()
    axes[1][1].plot(minutes, [row["requests per s"] for row in table])
    axes[1][1].set_title("requests per second")
    axes[1][2].plot(minutes, [row["p99 ms"] for row in table], label="p99, all")
    axes[1][2].plot(minutes, [row["anonymous p99 ms"] for row in table], label="p99, anonymous", linewidth=0.8)
    axes[1][2].plot(minutes, [row["signed-in p99 ms"] for row in table], label="p99, signed in", linewidth=0.8)
    axes[1][2].bar(minutes, [row["errors"] for row in table], color="red", label="unplanned errors")
    axes[1][2].set_title("p99 (ms) and unplanned errors per minute")
    axes[1][2].legend()
    for axis in axes.flat:
        axis.set_xlabel("minute")
        for name, start, _ in recorder.faults:
            axis.axvline(start / 60 + 1, color="grey", linestyle="--", linewidth=0.8)
    figure.suptitle("make soak: " + ", ".join(f"{name} at minute {start / 60 + 1:.0f}" for name, start, _ in recorder.faults))
    figure.tight_layout()
    figure.savefig(path, dpi=80)


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--bin", required=True)
    parser.add_argument("--minutes", type=int, default=60)
    parser.add_argument("--settle-minutes", type=int, default=10)
    parser.add_argument("--patrons", type=int, default=24)
    parser.add_argument("--readers", type=int, default=8)
    parser.add_argument("--books", type=int, default=300)
    parser.add_argument("--access-minutes", type=int, default=5, help="access tokens' lifetime (refreshed on a 401)")
    parser.add_argument("--plot", default=str(ROOT / "docs/soak.png"))
    parser.add_argument("--results", default=str(ROOT / "Benchmarks/results/soak.json"))
    args = parser.parse_args()
    settle = min(args.settle_minutes, max(1, args.minutes // 6))
    work = pathlib.Path(tempfile.mkdtemp(prefix="bookmobile-soak-"))
    stack = bench.Stack(work, args.bin)
    # Access tokens for 5 minutes (the default is 15): every patron refreshes its pair a dozen times an hour.
    stack.env.update(SIGNUPS_PER_HOUR="10000", BCRYPT_COST="10", LOAN_LIMIT="10", HOLD_LIMIT="10", LOG_LEVEL="warning",
                     ACCESS_TOKEN_TTL=f"{args.access_minutes}m")
    stop = threading.Event()
    try:
        stack.start_postgres()
        bench.log(f"ingesting {args.books} generated EPUBs")
        subprocess.run([sys.executable, ROOT / "Tests/tools/make_epubs.py", work / "epubs", str(args.books), "7"], check=True,
                       capture_output=True)
        subprocess.run([sys.executable, ROOT / "Tests/tools/make_epubs.py", work / "later", str(args.minutes + 5), "19",
                        "--start", str(args.books + 1000)], check=True, capture_output=True)
        # Most books have a copy or two, so that borrows run out and holds queue.
        subprocess.run([stack.bin / "catalog", "ingest", work / "epubs", "--copies", "2"], env=stack.env, check=True,
                       capture_output=True)
        stack.start_services()
        books = bench.psql(stack.pg_port, "catalog", "SELECT id FROM books").split("\n")
        chapters = {}
        for book in books:
            status, body = bench.http("GET", f"{stack.gateway}/books/{book}/manifest.json")[:2]
            if status == 200:
                chapters[book] = json.loads(body)["readingOrder"][0]["href"]
        tokens = []
        for n in range(args.patrons):
            status, body = bench.http("POST", stack.gateway + "/auth/signup", body=json.dumps({"pin": f"{4000 + n}"}).encode(),
                                      headers={"Content-Type": "application/json"})[:2]
            tokens.append(json.loads(body)["tokens"])
        bench.wait_for(lambda: bench.psql(stack.pg_port, "patron", "SELECT count(*) FROM licenses") == str(len(books)), 120,
                       "patron to learn every licence")
        recorder = Recorder()
        threads = [threading.Thread(target=sampler, args=(stack, recorder, stop), daemon=True),
                   threading.Thread(target=faults, args=(stack, recorder, args.minutes, stop), daemon=True),
                   threading.Thread(target=operator, args=(stack, sorted((work / "later").glob("*.epub")), 60, recorder, stop),
                                    daemon=True)]
        threads += [threading.Thread(target=reader, args=(stack.gateway, books, recorder, stop), daemon=True)
                    for _ in range(args.readers)]
        threads += [threading.Thread(target=patron, args=(stack.gateway, token, books, chapters, recorder, stop), daemon=True)
                    for token in tokens]
        bench.log(f"soak: {args.minutes} minutes, {args.readers} anonymous readers, {args.patrons} patrons")
        for thread in threads:
            thread.start()
        for minute in range(args.minutes):
            time.sleep(max(0, (minute + 1) * 60 - recorder.now()))
            done = [r for r in recorder.requests if minute * 60 <= r[0] < (minute + 1) * 60]
            bench.log(f"minute {minute + 1}: {len(done) / 60:.1f} requests/s")
        stop.set()
        time.sleep(2)
        table = per_minute(recorder, args.minutes)
        result = verdict(table, settle)
        kinds = {}
        for _, kind, status, _ in recorder.requests:
            kinds.setdefault(kind, {}).setdefault(str(status), 0)
            kinds[kind][str(status)] += 1
        pathlib.Path(args.results).write_text(json.dumps(
            {"minutes": args.minutes, "settle minutes": settle, "faults": recorder.faults, "verdict": result,
             "statuses by kind": kinds, "per minute": table}, indent=1))
        plot(table, recorder, args.plot)
        for row in table:
            print(json.dumps(row))
        print(json.dumps(result, indent=1))
        print(json.dumps(kinds, indent=1))
    finally:
        stop.set()
        stack.stop()
        print(f"work folder (logs): {work}")


if __name__ == "__main__":
    main()
