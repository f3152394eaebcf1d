#!/usr/bin/env python3
"""Two gateway builds against one catalog, one patron and one PostgreSQL, measured in turn with the library mix.

A change in the gateway alone is compared without the machine's hour in the way: both gateways run side by side on a
stack that `bench.py --keep` seeded, and the same 20-second `library_mix.lua` run alternates between them (A B B A ...),
each with the same patrons' access tokens. Reports each run's rate, p99 and the CPU a request of the gateway that was
measured and of catalog, and how many feed requests reached catalog per 1,000, then the medians. Never part of make test.

`--at-once` loads both gateways in the same 20 seconds instead, each with the same paced load (16 connections,
`--pace-ms` between a connection's answer and its next request, below what the cores can serve), anonymous and then
Bearer, after a round not counted: the machine's drift weighs on both alike, and each round gives A's CPU a request
against B's. Runs in turn moved by 10-15 % between pairs in session 45.

  python3 Benchmarks/ab_gateways.py --bin .build-release/release --gateway-b /tmp/other/gateway --books 100000
  python3 Benchmarks/ab_gateways.py --bin .build-release/release --gateway-b /tmp/other/gateway --at-once --pairs 4
"""
import argparse
import base64
import concurrent.futures
import json
import os
import pathlib
import re
import statistics
import subprocess
import time
import urllib.request

import bench
import library


def feed_requests(catalog_url):
    """How many feed requests (`/opds/...`) catalog has answered since it started (its `hb_requests` counter)."""
    request = urllib.request.Request(catalog_url + "/metrics", headers={"Authorization": "Bearer bench-service-token"})
    text = urllib.request.urlopen(request, timeout=30).read().decode()
    return sum(float(count) for count in re.findall(r'^hb_requests\{http_route="/opds[^"]*"[^}]*\} ([\d.]+)$', text, re.M))


def at_once(gateways, pids, args, envs):
    """Both gateways under the same paced load in the same seconds, a round of each load in `envs`; A's CPU a request
    against B's in each round after the first (not counted: both gateways' caches filled alike)."""
    command = bench.wrk_command(bench.ROOT / "Benchmarks/library_mix.lua", threads=1, connections=16) + [f"-d{args.duration}s"]
    def paced(side, env):
        output = subprocess.run(command + [gateways[side] + "/"], check=True, capture_output=True, text=True,
                                env=dict(env, PACE_MS=str(args.pace_ms))).stdout
        return bench.parse_wrk(output)
    ratios = {name: [] for name in envs}
    for round_ in range(args.pairs + 1):
        for name, env in envs.items():
            before = {side: bench.cpu_seconds(pid) for side, pid in pids.items()}
            with concurrent.futures.ThreadPoolExecutor(2) as pool:
                answers = dict(zip(gateways, pool.map(lambda side: paced(side, env), gateways)))
            cpu = {side: (bench.cpu_seconds(pids[side]) - before[side]) * 1000 / (answers[side]["rps"] * args.duration) for side in gateways}
            if round_ == 0:
                continue
            ratios[name].append(cpu["A"] / cpu["B"])
            summary = {side: {"rps": round(answers[side]["rps"]), "p99_ms": answers[side]["p99_ms"],
                              "gateway_cpu_ms": round(cpu[side], 4)} for side in gateways}
            bench.log(f"round {round_}, {name}: {summary}, A / B CPU a request {cpu['A'] / cpu['B']:.3f}")
    for name, values in ratios.items():
        bench.log(f"{name}: A / B CPU a request, median {statistics.median(values):.3f} of {[round(v, 3) for v in values]}")


def main():
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--bin", required=True, help="folder of the release executables (catalog, patron, gateway A)")
    parser.add_argument("--gateway-b", required=True, help="the other gateway executable")
    parser.add_argument("--books", type=int, default=100_000, help="the kept stack bench.py --keep seeded (.data/bench-N)")
    parser.add_argument("--patrons", type=int, default=300, help="patrons signed in for the mix (a bcrypt each)")
    parser.add_argument("--pairs", type=int, default=4)
    parser.add_argument("--duration", type=int, default=20)
    parser.add_argument("--accept-encoding", default="", help="sent with every request (library_mix.lua's ACCEPT_ENCODING)")
    parser.add_argument("--at-once", action="store_true", help="both gateways under the same paced load at once, --pairs rounds")
    parser.add_argument("--pace-ms", type=int, default=4, help="with --at-once: each connection's wait between requests")
    args = parser.parse_args()

    work = bench.ROOT / ".data" / f"bench-{args.books}"
    assert (work / "seeded.json").exists() and (work / "words.txt").exists(), f"seed {work} first with bench.py --keep"
    stack = bench.Stack(work, args.bin)
    measured = []
    try:
        stack.start_postgres()
        stack.reset_patrons()
        stack.start_services()
        # Both measured gateways are started beside the stack's own, which takes the sign-up, the tokens and the mix's
        # discovery: a gateway that served those cost 3-6 % more CPU a request than a fresh copy of the same build.
        gateways, pids = {}, {}
        for side, executable in (("A", pathlib.Path(args.bin) / "gateway"), ("B", pathlib.Path(args.gateway_b))):
            port = bench.free_port()
            env = dict(stack.env, GATEWAY_PORT=str(port), PUBLIC_URL=f"http://127.0.0.1:{port}")
            log = open(work / f"gateway-{side.lower()}.log", "ab")
            measured.append(subprocess.Popen([str(executable)], env=env, stdout=log, stderr=subprocess.STDOUT))
            gateways[side], pids[side] = f"http://127.0.0.1:{port}", measured[-1].pid
        for side, gateway in gateways.items():
            bench.wait_for(lambda: bench.http("GET", gateway + "/health/ready")[0] == 200, 120, f"gateway {side} to be ready")

        status, body = bench.http("POST", stack.gateway + "/auth/signup", {"Content-Type": "application/json"},
                                  json.dumps({"username": "bench", "email": "bench@example.org", "password": library.PASSWORD}).encode())
        assert status in (200, 201), f"signup: {status} {body[:200]}"
        licensed = bench.psql(stack.pg_port, "patron", "SELECT book_id FROM licenses WHERE NOT open_access ORDER BY book_id").split("\n")
        pin_hash = bench.psql(stack.pg_port, "patron", "SELECT secret_hash FROM patrons WHERE username = 'bench'")
        barcodes = bench.seed_patrons(stack, args.patrons, pin_hash, licensed)
        _, _, lines = library.mix_urls(stack.gateway, licensed, (work / "words.txt").read_text().split())
        urls_file, auth_file = work / "ab_mix.txt", work / "ab_bearer.txt"
        urls_file.write_text("\n".join(lines) + "\n")

        def token(barcode):
            auth = "Basic " + base64.b64encode(f"{barcode}:{library.PASSWORD}".encode()).decode()
            status, body = bench.http("POST", stack.gateway + "/auth/token", {"Authorization": auth})
            assert status == 200, f"token: {status}"
            return "Bearer " + json.loads(body)["access_token"]

        started = time.time()
        with concurrent.futures.ThreadPoolExecutor(4) as pool:
            tokens = list(pool.map(token, barcodes))
        bench.log(f"{len(tokens)} patrons signed in in {time.time() - started:.0f} s")
        auth_file.write_text("\n".join(tokens) + "\n")
        for name, gateway in gateways.items():
            bench.log(f"gateway {name}: each patron's first request {library.first_requests(gateway, tokens, lines)}")

        env = dict(os.environ, URLS_FILE=str(urls_file), AUTH_FILE=str(auth_file), ACCEPT_ENCODING=args.accept_encoding)
        if args.at_once:
            anonymous_file = work / "ab_anonymous.txt"
            anonymous_file.write_text("")
            at_once(gateways, pids, args, {"anonymous": dict(env, AUTH_FILE=str(anonymous_file)), "Bearer": env})
            return
        catalog, catalog_url = stack.processes["catalog"].pid, f"http://127.0.0.1:{stack.ports['catalog']}"
        runs = {"A": [], "B": []}
        order = [side for pair in range(args.pairs) for side in (("A", "B") if pair % 2 == 0 else ("B", "A"))]
        for side in order:
            asked = feed_requests(catalog_url)
            before = (bench.cpu_seconds(pids[side]), bench.cpu_seconds(catalog))
            result = bench.wrk(gateways[side] + "/", args.duration, script=bench.ROOT / "Benchmarks/library_mix.lua", env=env)
            requests = result["rps"] * args.duration
            result["gateway_cpu_ms"] = round((bench.cpu_seconds(pids[side]) - before[0]) * 1000 / requests, 4)
            result["catalog_cpu_ms"] = round((bench.cpu_seconds(catalog) - before[1]) * 1000 / requests, 4)
            # Warm-up included, as for the CPU: the hop's share of the requests.
            result["catalog_feed_requests_per_1000"] = round((feed_requests(catalog_url) - asked) * 1000 / requests, 1)
            runs[side].append(result)
            bench.log(f"{side}: {result}")
            time.sleep(2)
        for side, results in runs.items():
            medians = {key: statistics.median(r[key] for r in results) for key in ("rps", "p99_ms", "gateway_cpu_ms", "catalog_cpu_ms", "catalog_feed_requests_per_1000")}
            bench.log(f"{side} medians over {len(results)} runs: {medians}")
    finally:
        for gateway in measured:
            gateway.terminate()
            gateway.wait(timeout=30)
        stack.stop()


if __name__ == "__main__":
    main()
