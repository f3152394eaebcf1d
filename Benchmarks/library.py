"""A library's morning for `make bench` (issue 49): many patrons on many pages, and HTTP Basic arriving in crowds.

- "library mix": each request a random page (lane pages 1 to 3 of every lane, book details, searches; Atom and OPDS
  2.0) as a random one of 1,000 seeded patrons (each with a realistic shelf), with Bearer and with Basic, beside the
  same mix anonymously in the same run.
- "crowd": 500 patrons never seen before open their apps within a few seconds (Basic: a bcrypt each in patron) while
  100 verified patrons browse the mix; the verified patrons' p99 and the crowd's time to be signed in are reported
  beside the bcrypt work the crowd brings (one check's time x 500 / cores); and "crowd alone", the same crowd with
  nobody browsing: the time the bcrypt work itself takes on the machine.
"""
import base64
import concurrent.futures
import glob
import json
import math
import multiprocessing
import os
import random
import re
import statistics
import subprocess
import threading
import time
import urllib.error
import urllib.request

ATOM = "application/atom+xml;profile=opds-catalog"
OPDS2 = "application/opds+json"
MIX = ["library mix: anonymous", "library mix: Bearer (1,000 patrons)", "library mix: Basic (1,000 patrons)"]
# Issue 72's shape: a real morning's patrons, half sending Basic on every request as OPDS apps do and half Bearer in the
# same run, each with a shelf whose books are on the mix's pages (so most signed-in pages are the patron's own).
MORNING = "real morning: 500 patrons, half Basic and half Bearer, shelves on the pages"
MORNING_ANONYMOUS = "real morning: anonymous, the same pages"
CROWD = "crowd: 100 verified Basic patrons browsing, a page a second each, while 500 first sign-ins arrive"
CROWD_BRISK = "crowd, brisk: the verified patrons at 9 pages a second each while 500 first sign-ins arrive"
CROWD_FLAT_OUT = "crowd, flat out: the verified patrons as fast as answers come while 500 first sign-ins arrive"
CROWD_ALONE = "crowd alone: 500 first sign-ins arrive and nobody browses"
# Each crowd scenario's browsing: PACE_MS between an answer and a connection's next request. 32 connections at 320 ms:
# about 100 requests a second, a page a second for each of 100 patrons (faster than anyone reads); at 30 ms about 900
# (9 pages a second each, far past a person's pace, and 0.6 of a core the bcrypt work cannot have); none: a closed
# loop that keeps both cores busy, so the bcrypt work gets what is left; NOBODY: no browsing at all (no wrk).
NOBODY = "nobody"
CROWDS = {CROWD: 320, CROWD_BRISK: 30, CROWD_FLAT_OUT: None, CROWD_ALONE: NOBODY}
PASSWORD = "bench password 1"


def basic(barcode):
    return "Basic " + base64.b64encode(f"{barcode}:{PASSWORD}".encode()).decode()


def get(url, headers, timeout=30):
    request = urllib.request.Request(url, headers=headers)
    try:
        with urllib.request.urlopen(request, timeout=timeout) as response:
            return response.status, response.read()
    except urllib.error.HTTPError as error:
        return error.code, error.read()


def mix_urls(gw, books, words):
    """Lane pages 1 to 3 of every lane the grouped feed shows (reached by their next links), 60 % of the requests;
    book details 25 %; searches 15 %; each in both formats."""
    _, body = get(gw + "/opds/groups", {"Accept": OPDS2})
    lanes = sorted({link["href"].replace(gw, "").split("?")[0]
                    for group in json.loads(body).get("groups", []) for link in group.get("links", [])
                    if "/opds/lanes/" in link.get("href", "")})
    pages = []
    for lane in lanes:
        page = lane
        for _ in range(3):
            pages.append(page)
            _, body = get(gw + page, {"Accept": OPDS2})
            after = next((link["href"] for link in json.loads(body).get("links", []) if link.get("rel") == "next"), None)
            if not after:
                break
            page = after.replace(gw, "")
    details = [f"/opds/books/{book}" for book in random.Random(49).sample(books, min(125, len(books)))]
    searches = [f"/opds/search?q={word}" for word in random.Random(49).sample(words, min(75, len(words)))]
    lines = []
    for paths, share in ((pages, 600), (details, 250), (searches, 150)):
        for i in range(share):
            path = paths[i % len(paths)]
            lines.append(f"{(ATOM, OPDS2)[(i // len(paths)) % 2]}\t{path}")
    return lanes, pages, lines


def combined(runs, duration):
    """A scenario's figures over its runs of `duration` seconds each: the rate over all of them, the worst run's p99
    (wrk's percentiles of two runs cannot be merged; the worse is the one a target must hold for), the errors added up,
    and each service's CPU a request over all the runs."""
    requests = sum(run["rps"] * duration for run in runs)
    cpu = {service: sum(run["cpu_s"][service] for run in runs) for service in runs[0]["cpu_s"]}
    return {"rps": round(requests / (duration * len(runs)), 2),
            "p50_ms": round(statistics.median(run["p50_ms"] for run in runs), 2),
            "p99_ms": max(run["p99_ms"] for run in runs),
            "non_2xx": sum(run["non_2xx"] for run in runs),
            "socket_errors": sum(run["socket_errors"] for run in runs),
            "cpu_ms_per_request": {service: round(seconds * 1000 / requests, 3) for service, seconds in cpu.items()}}


def sign_in_all(gw, barcodes, log):
    """Access tokens for the patrons, and the gateway's verdicts on their Basic credentials (an app's first request):
    a bcrypt each, two at a time."""
    def token(barcode):
        request = urllib.request.Request(gw + "/auth/token", method="POST", headers={"Authorization": basic(barcode)})
        with urllib.request.urlopen(request, timeout=120) as response:
            return "Bearer " + json.loads(response.read())["access_token"]

    started = time.time()
    with concurrent.futures.ThreadPoolExecutor(4) as pool:
        tokens = list(pool.map(token, barcodes))
        statuses = list(pool.map(lambda b: get(gw + "/me", {"Authorization": basic(b)}, timeout=120)[0], barcodes))
    assert set(statuses) == {200}, f"Basic verdicts: {sorted(set(statuses))}"
    log(f"{len(barcodes)} patrons signed in (a token and a Basic verdict each) in {time.time() - started:.0f} s")
    return tokens


def first_requests(gw, auths, lines):
    """Each patron's first request, a page of the mix each, 16 at a time: what a patron opening their app waits for
    (their session or Basic verdict checked with patron, their shelf asked of catalog). Made before a signed-in mix is
    measured, as every scenario's warm-up makes its first requests (the mix's second of warm-up reached about half of
    the 1,000 patrons, and their first requests were the mix's p99); their own p50 and p99 are reported beside it."""
    def first(index_auth):
        index, auth = index_auth
        accept, path = lines[index * 7919 % len(lines)].split("\t")
        started = time.perf_counter()
        status, _ = get(gw + path, {"Authorization": auth, "Accept": accept}, timeout=60)
        return status, (time.perf_counter() - started) * 1000

    with concurrent.futures.ThreadPoolExecutor(16) as pool:
        answers = list(pool.map(first, enumerate(auths)))
    times = sorted(ms for _, ms in answers)
    failed = [status for status, _ in answers if status >= 500 or status == 401]
    assert not failed, f"first requests failed: {sorted(set(failed))}"
    return {"count": len(times), "p50_ms": round(times[len(times) // 2], 1), "p99_ms": round(times[int(len(times) * 0.99)], 1)}


def bcrypt_seconds(gw, barcode):
    """One first check through the gateway on an idle stack (a token request: a bcrypt in patron), the median of 3."""
    times = []
    for _ in range(3):
        started = time.perf_counter()
        request = urllib.request.Request(gw + "/auth/token", method="POST", headers={"Authorization": basic(barcode)})
        urllib.request.urlopen(request, timeout=60).read()
        times.append(time.perf_counter() - started)
    return statistics.median(times)


def crowd(gw, wrk_command, urls_file, verified_file, crowd_barcodes, one_check, log, pace_ms=None):
    """wrk drives the verified patrons for the whole scenario (`pace_ms` between a connection's requests, or as fast
    as answers come; `NOBODY`: no wrk, no probe, the crowd alone); the crowd's first requests start 3 s in, spread over
    3 s. Returns wrk's output (None with nobody browsing) and the crowd's figures."""
    cores = os.cpu_count() or 1
    work = one_check * len(crowd_barcodes) / cores
    duration = max(20, math.ceil(work * 1.5) + 10)
    browsing = pace_ms != NOBODY
    env = dict(os.environ, URLS_FILE=str(urls_file), AUTH_FILE=str(verified_file), **({"PACE_MS": str(pace_ms)} if pace_ms else {}))
    wrk = subprocess.Popen(wrk_command + [f"-d{duration}s", gw + "/"], stdout=subprocess.PIPE, text=True, env=env) if browsing else None
    time.sleep(3)
    start = time.perf_counter()
    answers = [None] * len(crowd_barcodes)

    first_answers = [None] * len(crowd_barcodes)

    def first_request(i):
        """As an app would: a 503 with Retry-After is tried again after it; any other answer is final."""
        time.sleep(3 * i / len(crowd_barcodes))
        sent = time.perf_counter()
        sent_at()
        headers = {"Authorization": basic(crowd_barcodes[i]), "Accept": OPDS2, "X-Forwarded-For": f"10.49.{i // 250}.{i % 250 + 1}"}
        while True:
            retry = None
            try:
                request = urllib.request.Request(gw + "/opds/lanes/new", headers=headers)
                with urllib.request.urlopen(request, timeout=300) as response:
                    response.read()
                    status = response.status
            except urllib.error.HTTPError as error:
                status, retry = error.code, error.headers.get("Retry-After")
            except Exception as error:  # noqa: BLE001 (a reset connection is an answer here)
                status = f"{type(error).__name__}"
            if first_answers[i] is None:
                first_answers[i] = status
            if status != 503 or retry is None or time.perf_counter() - sent > 600:
                break
            time.sleep(int(retry))
            sent_at()
        answers[i] = (status, time.perf_counter() - sent, time.perf_counter() - start)

    sends = []  # (seconds since the crowd began) of every crowd request, first ones and retries

    def sent_at():
        sends.append(time.perf_counter() - start)

    probe = Probe(gw, urls_file, verified_file, start) if browsing else None
    cpu = CPUSampler()
    threads = [threading.Thread(target=first_request, args=(i,)) for i in range(len(crowd_barcodes))]
    if probe:
        probe.process.start()
    cpu.thread.start()
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    crowd_done = time.perf_counter() - start
    cpu.stop()
    output = wrk.communicate()[0] if wrk else None
    if probe:
        probe.stop()
    statuses, firsts = {}, {}
    for status, _, _ in answers:
        statuses[str(status)] = statuses.get(str(status), 0) + 1
    for status in first_answers:
        firsts[str(status)] = firsts.get(str(status), 0) + 1
    waits = sorted(wait for _, wait, _ in answers)
    used = cpu.used(crowd_done)
    # Every program's CPU until the crowd was in, as time on all the cores (bcrypt's threads are inside patron's
    # figure): the least the crowd could have taken beside the browsing, against the bcrypt work alone.
    busy = sum(v for k, v in used.items() if k not in ("wall_s", "cores") and "SCHED_IDLE" not in k)
    result = {
        "crowd": len(crowd_barcodes),
        "crowd_first_answers": firsts,
        "crowd_statuses": statuses,
        "crowd_all_signed_in_s": round(max(done for _, _, done in answers), 1),
        "crowd_wait_median_s": round(statistics.median(waits), 2),
        "crowd_wait_max_s": round(waits[-1], 2),
        "one_check_ms": round(one_check * 1000, 1),
        "bcrypt_work_s": round(work, 1),
        "scenario_s": duration,
        "pace_ms": pace_ms,
        "cpu_s_until_signed_in": used,
        "all_cpu_on_the_cores_s": round(busy / os.cpu_count(), 1),
        "timeline": timeline(probe.samples if probe else [], sends),
    }
    log(f"crowd: {result}")
    return output, result


class Probe:
    """One verified patron's requests, one every 50 ms beside wrk's, each timed: when in the crowd's course the
    verified patrons wait (wrk gives one figure for the whole scenario). In a process of its own: in the crowd's,
    its requests waited for the 500 crowd threads' turns at Python's lock, and it saw stalls that wrk did not."""

    def __init__(self, gw, urls_file, verified_file, start):
        self.urls = [line.split("\t", 1) for line in urls_file.read_text().splitlines() if "\t" in line]
        self.auth = verified_file.read_text().split("\n")[0]
        self.gw, self.samples = gw, []
        # `start` is this process's perf_counter; the child reports times since the epoch, turned back here.
        self.epoch_at_start = time.time() - (time.perf_counter() - start)
        self.done, self.results = multiprocessing.Event(), multiprocessing.Queue()
        self.process = multiprocessing.Process(target=self.run, daemon=True)

    def run(self):
        import http.client
        host, port = self.gw.replace("http://", "").split(":")
        connection = http.client.HTTPConnection(host, int(port), timeout=60)
        rng = random.Random(49)
        samples = []
        while not self.done.is_set():
            accept, path = rng.choice(self.urls)
            sent, sent_at = time.perf_counter(), time.time()
            try:
                connection.request("GET", path, headers={"Accept": accept, "Authorization": self.auth})
                response = connection.getresponse()
                response.read()
                status = response.status
            except Exception:  # noqa: BLE001 (a lost connection is a sample too)
                connection.close()
                status = 0
            samples.append((sent_at, time.perf_counter() - sent, status))
            time.sleep(max(0.0, 0.05 - (time.perf_counter() - sent)))
        self.results.put(samples)

    def stop(self):
        self.done.set()
        self.samples = [(at - self.epoch_at_start, latency, status) for at, latency, status in self.results.get()]
        self.process.join()


class CPUSampler:
    """CPU seconds each program used while the crowd signed in, read from /proc every second (a process or thread
    that ended between two readings keeps its last one): where the cores went besides bcrypt. Patron's threads at
    SCHED_IDLE (its bcrypt checks) are counted apart."""

    def __init__(self):
        self.first, self.last, self.done = self.read(), {}, threading.Event()
        self.thread = threading.Thread(target=self.run)

    @staticmethod
    def read():
        ticks = {}
        for stat in glob.glob("/proc/[0-9]*/stat") + glob.glob("/proc/[0-9]*/task/[0-9]*/stat"):
            try:
                text = open(stat).read()
            except OSError:
                continue
            name, fields = text[text.index("(") + 1:text.rindex(")")], text[text.rindex(")") + 2:].split()
            is_thread = "/task/" in stat
            if is_thread and fields[38] != "5":
                continue  # only idle-priority threads are counted apart
            ticks[stat] = ((name + " (SCHED_IDLE threads)") if is_thread else name, int(fields[11]) + int(fields[12]))
        return ticks

    def run(self):
        while not self.done.wait(1.0):
            self.last.update(self.read())

    def stop(self):
        self.done.set()
        self.thread.join()
        self.last.update(self.read())

    def used(self, seconds):
        totals = {}
        for key, (name, ticks) in self.last.items():
            spent = ticks - self.first.get(key, (name, 0))[1]
            totals[name] = totals.get(name, 0) + spent / os.sysconf("SC_CLK_TCK")
        top = dict(sorted(((name, round(value, 1)) for name, value in totals.items() if value >= 0.5), key=lambda kv: -kv[1]))
        return {"wall_s": round(seconds, 1), "cores": os.cpu_count(), **top}


def timeline(samples, sends, window=5.0):
    """Per window of the crowd's course: the crowd requests sent, and the probe's requests (count, p50, p99, max ms)."""
    rows = []
    end = max([t for t, _, _ in samples] + sends + [0.0])
    for index in range(int(end // window) + 1):
        low, high = index * window, (index + 1) * window
        times = sorted(latency * 1000 for t, latency, _ in samples if low <= t < high)
        rows.append({
            "from_s": low,
            "crowd_sent": sum(1 for t in sends if low <= t < high),
            "probe": len(times),
            "probe_errors": sum(1 for t, _, status in samples if low <= t < high and (status >= 500 or status == 0)),
            "p50_ms": round(times[len(times) // 2], 1) if times else None,
            "p99_ms": round(times[min(len(times) - 1, int(len(times) * 0.99))], 1) if times else None,
            "max_ms": round(times[-1], 1) if times else None,
        })
    return rows


def page_books(gw, pages):
    """The book ids the lane pages show (their OPDS 2.0 entries' links)."""
    books = []
    for page in pages:
        _, body = get(gw + page, {"Accept": OPDS2})
        for book in re.findall(r"/opds/books/([0-9a-f-]{36})", body.decode()):
            if book not in books:
                books.append(book)
    return books


def statuses(output):
    """The answers' statuses the mix's script counted (COUNT_STATUSES): {status: count}."""
    return {int(code): int(count) for code, count in re.findall(r"^status (\d+) (\d+)$", output, re.MULTILINE)}


def route(path):
    """A mix line's kind, for telling which pages answer what."""
    if path.startswith("/opds/search"):
        return "search"
    if path.startswith("/opds/books/"):
        return "book detail"
    return "lane page " + ("1" if "?" not in path else "2-3")


def replay(gw, auths, lines, count, seed=72):
    """`count` random (patron, page) pairs of the mix, 16 at a time, after the measured runs: every answer that is not a
    2xx, by status, route, format and the kind of credentials, with a sample body each."""
    rng = random.Random(seed)
    pairs = [(rng.choice(auths), rng.choice(lines)) for _ in range(count)]

    def ask(pair):
        auth, line = pair
        accept, path = line.split("\t")
        status, body = get(gw + path, {"Authorization": auth, "Accept": accept}, timeout=60)
        return status, route(path), "OPDS 2.0" if accept == OPDS2 else "Atom", auth.split(" ")[0], body[:200]

    tally, samples = {}, {}
    with concurrent.futures.ThreadPoolExecutor(16) as pool:
        for status, kind, form, credentials, body in pool.map(ask, pairs):
            if 200 <= status < 300:
                continue
            key = f"{status} {kind}, {form}, {credentials}"
            tally[key] = tally.get(key, 0) + 1
            samples.setdefault(key, body.decode(errors="replace"))
    return {"asked": count, "not_2xx": tally, "samples": samples}
