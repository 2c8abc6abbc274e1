#!/usr/bin/env bash
# The autotuner against a grid search of static configurations, side by side
# in one run (issue 4's autotune benchmark; benchmarks/autotune_bench.cc):
#   cpu       range -> map(spin 50 us)                      map parallelism seq,1,2,3,4,6,8
#   io        range -> interleave(range(32) -> map(sleep 2 ms), cycle_length=16)
#                                                           interleave parallelism seq,1,2,4,8,16
#   cheap     range -> map(spin 1 us) -> batch(32) -> prefetch
#                                                           map seq,1,2,4 x prefetch 0,1,2,4,8
#   doubling  range -> map(spin 50 us, 100 us from mid-run) map parallelism seq,1,2,3,4,6,8
#   memory    range -> map(256 KiB tensor) -> prefetch under a 4 MiB RAM budget,
#             each row in a fresh process (peak RSS)
# Every run gets the same CPU budget (the cores available, 2 on the
# development VM). Ratio = autotuned / best static, medians of interleaved
# runs; target >= 0.95. The benchmark also prints how many cores the process
# really got before and after each case: on a shared machine that is often
# fewer than the budget, and then no parallel configuration pays.
# Builds the release preset. About 4 minutes with the defaults.
# Env: RUNS (runs per configuration, default 3), SCALE (run length factor,
# default 1: 1.5 s a run, 2 s for doubling), CASES (comma list, default all).
set -euo pipefail
cd "$(dirname "$0")/.."
cmake --preset release >/dev/null && cmake --build --preset release --target autotune_bench >/dev/null

echo "$(date -u '+%Y-%m-%d %H:%M UTC'), $(nproc) cores, load average $(cut -d' ' -f1-3 /proc/loadavg)"
build/release/benchmarks/autotune_bench --runs "${RUNS:-3}" --seconds "${SCALE:-1}" \
  --cases "${CASES:-cpu,io,cheap,doubling,memory}"
echo "load average after: $(cut -d' ' -f1-3 /proc/loadavg)"
