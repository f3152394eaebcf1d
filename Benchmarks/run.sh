#!/usr/bin/env bash
# make bench: seeds a catalog, starts the stack in release mode and measures it with wrk, next to nginx
# serving the same bytes. Options are bench.py's (--books N, --duration S, ...). Never part of make test.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/postgres.sh ensure-installed
missing=()
for tool in wrk nginx; do command -v "$tool" >/dev/null 2>&1 || [ -x "/usr/sbin/$tool" ] || missing+=("$tool"); done
if [ ${#missing[@]} -gt 0 ]; then
  if [ "$(id -u)" = 0 ]; then DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${missing[@]}" >/dev/null \
      || { apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${missing[@]}" >/dev/null; }
  else echo "missing: ${missing[*]}; run 'sudo apt-get install -y ${missing[*]}'" >&2; exit 1; fi
fi
swift build -c release --scratch-path .build-release
exec python3 Benchmarks/bench.py --bin "$(swift build -c release --scratch-path .build-release --show-bin-path)" "$@"
