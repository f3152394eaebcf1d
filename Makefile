.PHONY: run test compose-test bench soak build lint

# Start PostgreSQL (.data/postgres, port 5433), build in release mode and run the three services.
run:
	scripts/run.sh

# Throwaway PostgreSQL, the whole test suite, exit status of the tests.
test:
	scripts/test.sh

# docker compose up with the repository's compose file and Dockerfile (the host's build in the image), driven through
# the gateway, then removed; installs and starts Docker when missing (scripts/compose-test.sh).
compose-test:
	scripts/compose-test.sh

# Benchmarks (never part of make test): make bench BENCH_ARGS="--books 100000 --duration 10"
bench:
	Benchmarks/run.sh $(BENCH_ARGS)

# An hour of the whole stack under steady mixed load with planned faults (never part of make test):
# make soak SOAK_ARGS="--minutes 60"; the curves in docs/soak.png, the verdict in Benchmarks/results/soak.json.
soak:
	Benchmarks/soak.sh $(SOAK_ARGS)

build:
	swift build

# The formatter's lint, as make test runs it; `swift format format --in-place --recursive Shared Services Tests` fixes most findings.
lint:
	swift format lint --strict --recursive --parallel Shared Services Tests Package.swift
