#!/usr/bin/env bash
# Snapshot read speed against the verified-read limit, side by side in one
# run (benchmarks/snapshot_read_bench.cc): MB/s of segment bytes and
# elements/s for load, a snapshot reading itself, and load + batch(64).
# Builds the release preset. RUNS (default 7) sets the interleaved runs per
# row; MEGABYTES (default 128) the size of each snapshot.
set -euo pipefail
cd "$(dirname "$0")/.."
cmake --preset release >/dev/null && cmake --build --preset release --target snapshot_read_bench >/dev/null
build/release/benchmarks/snapshot_read_bench --runs "${RUNS:-7}" --megabytes "${MEGABYTES:-128}"
