#!/usr/bin/env bash
# What the enabled profiler costs: each pipeline of
# benchmarks/profiler_overhead_bench.cc read with and without a Profile,
# alternately, in one run; medians and the on/off ratio.
# Builds the release preset. RUNS (default 9) sets the runs per pipeline.
set -euo pipefail
cd "$(dirname "$0")/.."
cmake --preset release >/dev/null && cmake --build --preset release --target profiler_overhead_bench >/dev/null
echo "$(date -u '+%Y-%m-%d %H:%M UTC'), $(nproc) cores, load average $(cut -d' ' -f1-3 /proc/loadavg)"
build/release/benchmarks/profiler_overhead_bench --runs "${RUNS:-9}" --scale "${SCALE:-1}"
