#!/usr/bin/env bash
# make bench: seeds a catalog, starts the stack in release mode and measures it with wrk, next to nginx
# serving the same bytes. Options are bench.py's (--books N, --duration S, ...). Never part of make test.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/postgres.sh ensure-installed
scripts/apt-ensure.sh libvips-dev libcurl4-openssl-dev wrk nginx ffmpeg poppler-utils
swift build -c release --scratch-path .build-release
exec python3 Benchmarks/bench.py --bin "$(swift build -c release --scratch-path .build-release --show-bin-path)" "$@"
