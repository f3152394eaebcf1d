#!/usr/bin/env bash
# make soak: the whole stack in release mode for an hour (SOAK_ARGS="--minutes 60") under a steady mix of requests with
# planned faults; writes docs/soak.png and Benchmarks/results/soak.json (Benchmarks/soak.py). Never part of make test.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/postgres.sh ensure-installed
scripts/apt-ensure.sh libvips-dev libcurl4-openssl-dev python3-venv
[ -x .venv-bench/bin/python ] && .venv-bench/bin/python -c 'import matplotlib' 2>/dev/null \
    || { python3 -m venv .venv-bench && .venv-bench/bin/pip install --quiet --disable-pip-version-check matplotlib; }
swift build -c release --scratch-path .build-release
exec .venv-bench/bin/python Benchmarks/soak.py --bin "$(swift build -c release --scratch-path .build-release --show-bin-path)" "$@"
