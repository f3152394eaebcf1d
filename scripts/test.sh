#!/usr/bin/env bash
# make test: a throwaway PostgreSQL on a free port in a temporary folder, the whole test suite against it,
# then the cluster is stopped and removed. Exits with the tests' status.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/postgres.sh ensure-installed
# libvips and a font for cover thumbnails and generated covers; xmllint for the OPDS 1.2 schema check (../shared/tools/validate_opds.py atom).
scripts/apt-ensure.sh libvips-dev libcurl4-openssl-dev libxml2-utils fonts-dejavu-core ffmpeg poppler-utils
# A free port below the kernel's ephemeral range, so that no outgoing connection takes it before PostgreSQL binds it.
port=$(python3 -c '
import random, socket
while True:
    p = random.randrange(20000, 32000); s = socket.socket()
    try: s.bind(("127.0.0.1", p)); print(p); break
    except OSError: pass
    finally: s.close()')
tmp=$(mktemp -d /tmp/bookmobile-test.XXXXXX)
# The end-to-end stacks of a test process that crashed or was killed (their executables and PostgreSQL clusters) would
# live on and load the next run; a run that ends normally leaves none.
stop_leftover_stacks() {
    pkill -KILL -f "^${BOOKMOBILE_BIN_DIR:-/nonexistent}/(catalog|patron|gateway)" || true
    pkill -KILL -f "postgres -D ${TMPDIR:-/tmp}/bookmobile-e2e-" || true
    # The S3 servers (OpenStack Swift, `ObjectStorageServer`) of tests that never reached their end.
    pkill -KILL -f "swift-[a-z]*-server ${TMPDIR:-/tmp}/bookmobile-s3-" || true
    sleep 1
    rm -rf "${TMPDIR:-/tmp}"/bookmobile-e2e-* "${TMPDIR:-/tmp}"/bookmobile-s3-*
}
cleanup() {
    stop_leftover_stacks
    scripts/s3.sh stop "$tmp/s3"
    scripts/postgres.sh stop "$tmp/replica"
    scripts/postgres.sh stop "$tmp"
    rm -rf "$tmp"
}
trap cleanup EXIT
# Every test runs at once, each service test with an app of its own (its pool capped at TestConfig.testPoolSize) and
# clients of its own: a full run on two cores held 995 connections at its peak and 1,000 failed a CI run ("too many
# clients already"); an idle connection costs PostgreSQL a process of a few MB. A replica must allow as many
# connections as its primary: both settings stay exported for the test that restarts it.
export PG_FAST=1 PG_MAX_CONNECTIONS=2500
scripts/postgres.sh start "$tmp" "$port"
export TEST_DATABASE_URL="postgres://postgres@127.0.0.1:$port/postgres"
# A streaming replica of that cluster, for catalog's reads (ReadReplicaTests).
replica_port=$((port + 1))
while ! python3 -c 'import socket,sys; s=socket.socket(); s.bind(("127.0.0.1", int(sys.argv[1])))' "$replica_port" 2>/dev/null; do
    replica_port=$((replica_port + 1))
done
scripts/postgres.sh replica "$port" "$tmp/replica" "$replica_port"
export TEST_REPLICA_DATABASE_URL="postgres://postgres@127.0.0.1:$replica_port/postgres" TEST_REPLICA_DIR="$tmp/replica" TEST_REPLICA_PORT="$replica_port"
# One S3 server (OpenStack Swift's s3api) for the run, as one PostgreSQL: each test makes a bucket of its own there
# (ObjectStorageServer); four consecutive free ports below the ephemeral range.
s3_port=$(python3 -c '
import random, socket
while True:
    first = random.randrange(20000, 31990)
    try:
        for p in range(first, first + 4):
            s = socket.socket(); s.bind(("127.0.0.1", p)); s.close()
        print(first); break
    except OSError: pass')
scripts/s3.sh start "$tmp/s3" "$s3_port"
export TEST_S3_ENDPOINT="127.0.0.1:$s3_port" TEST_S3_DIR="$tmp/s3"
# Hundreds of test apps share the test process's two event loops: a connection to a local stand-in took over the
# services' 2 s at times under the suite's load (HTTPClientError.connectTimeout, then 502 and 503 in gateway tests).
export UPSTREAM_CONNECT_TIMEOUT="${UPSTREAM_CONNECT_TIMEOUT:-15s}"
export TEST_DATABASE_SOCKET="$tmp/socket"
export SHARED_DIR="${SHARED_DIR:-$(cd .. && pwd)/shared}"
# Palace's OPDS 2.0 parser, which the real-client tests run every kind of document through.
TEST_PYTHON="$(scripts/test-tools.sh)"
export TEST_PYTHON
echo "Test database: $TEST_DATABASE_URL"
# The formatter's lint (.swift-format) is part of the suite; its findings are repeated at the end.
lint_status=0
swift format lint --strict --recursive --parallel Shared Services Tests Package.swift > "$tmp/lint.log" 2>&1 || lint_status=$?
cat "$tmp/lint.log"
swift build --build-tests
# The end-to-end tests start the three executables that this build made.
BOOKMOBILE_BIN_DIR="$(swift build --show-bin-path)"
export BOOKMOBILE_BIN_DIR
# The suite takes minutes. A run that stalls (every test task waiting, no thread busy: last seen on 2026-11-26) is
# stopped with SIGQUIT once it has printed nothing for TEST_STALL_LIMIT seconds, so that the Swift runtime prints every thread's backtrace and the
# tests that never ended are named; the run fails (it is not run again).
run_suite() {
    set +e
    stalled=0
    # In a process group of its own, so that the test process it starts can be found and stopped with it.
    # Line-buffered (stdbuf reaches the test process through its environment): a stall shows the tests really running.
    setsid stdbuf -oL -eL swift test --skip-build "$@" > >(tee "$tmp/test.log") 2>&1 &
    local driver=$! quiet=0 size=0 last=-1
    while kill -0 "$driver" 2>/dev/null; do
        sleep 5
        # A stall is a run that prints nothing for the limit (every test prints as it starts and ends; the longest
        # single test takes about three minutes); a long run that keeps printing is not one.
        size=$(stat -c %s "$tmp/test.log" 2>/dev/null || echo 0)
        if [ "$size" -eq "$last" ]; then quiet=$((quiet + 5)); else quiet=0; last=$size; fi
        if [ "$quiet" -ge "${TEST_STALL_LIMIT:-300}" ]; then
            stalled=1
            # What the stalled tests hold in the database, for whoever looks into the stalls (their cause is unknown).
            echo "==== STALL: database sessions (database, state, wait, since, statement) ===="
            psql "$TEST_DATABASE_URL" -Atc "SELECT datname, state, wait_event_type, wait_event, now() - state_change,
                left(query, 120) FROM pg_stat_activity WHERE backend_type = 'client backend' AND pid <> pg_backend_pid()" \
                2>&1 | tee "$tmp/stall-sessions.txt" || true
            # Where each router test stands (Tests/TestSupport/StallWatch.swift), then every thread.
            pkill -USR2 -f bookmobilePackageTests.xctest
            sleep 2
            # The test process runs in a process group of its own: found by name (the Swift runtime prints every
            # thread on SIGQUIT), then killed, or it lives on beside the next run.
            pkill -QUIT -f bookmobilePackageTests.xctest
            sleep 30
            pkill -KILL -f bookmobilePackageTests.xctest
            kill -KILL -- "-$driver" 2>/dev/null
            stop_leftover_stacks
            break
        fi
    done
    wait "$driver"
    status=$?
    sleep 1   # let tee write the last lines
    set -e
}
run_suite "$@"
if [ "$stalled" -eq 1 ]; then
    echo "==== STALL: the test run printed nothing for ${TEST_STALL_LIMIT:-300} s and was stopped; tests that started and never ended: ===="
    { grep -a -E "^◇ Test .* started" "$tmp/test.log" || true; } | sed -E 's/^◇ Test (.*) started\.$/\1/' | sort -u > "$tmp/started"
    { grep -a -E "^(✔|✘) Test " "$tmp/test.log" || true; } | sed -E 's/^. Test ([^ ]*\)).*/\1/' | sort -u > "$tmp/ended"
    comm -23 "$tmp/started" "$tmp/ended" | { grep -v "^case passing" || true; }
    # CI shows only the end of the output: where each unfinished router test stood, and the database's sessions, again.
    sed -n '/^==== STALL WATCH/,/^[^ ]/p' "$tmp/test.log" | head -40
    echo "==== STALL: database sessions (repeated) ===="
    cat "$tmp/stall-sessions.txt" 2>/dev/null || true
    [ "$status" -ne 0 ] || status=1
fi
failures() {
    grep -a -E -A4 "recorded an issue|error:|Fatal error|✘ Test [^r]*failed|crashed" "$1" | grep -a -v -E "level=|✔" | tail -60 || true
}
# CI shows only the end of the output: repeat what failed there, with the lines that say why.
if [ "$status" -ne 0 ]; then
    echo "==== failures (repeated from above) ===="
    failures "$tmp/test.log"
fi
if [ "$lint_status" -ne 0 ]; then
    echo "==== swift format lint --strict found (run: swift format format --in-place --recursive Shared Services Tests) ===="
    tail -40 "$tmp/lint.log"
    [ "$status" -ne 0 ] || status=1
fi
exit $status
