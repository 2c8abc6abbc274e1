#!/usr/bin/env bash
# An expression map (y = x * 0.5 + 1 over float32[32] elements) beside the
# same C++ lambda, per element and row-wise, in one run
# (benchmarks/expression_map_bench.cc). Builds the release preset. RUNS
# (default 3) sets how many times the benchmark runs, EPOCHS (7) the epochs
# per variant in each, ELEMENTS (1000000) the input size.
set -euo pipefail
cd "$(dirname "$0")/.."
cmake --preset release >/dev/null && cmake --build --preset release --target expression_map_bench >/dev/null
echo "$(date -u '+%Y-%m-%d %H:%M UTC'), $(nproc) cores, load average $(cut -d' ' -f1-3 /proc/loadavg)"
for run in $(seq "${RUNS:-3}"); do
  echo "run $run"
  build/release/benchmarks/expression_map_bench --epochs "${EPOCHS:-7}" --elements "${ELEMENTS:-1000000}"
done
