#!/usr/bin/env bash
# Packing efficiency of sequence packing against padded_batch and
# bucket_by_sequence_length on long-tailed lengths (benchmarks/packing_bench.cc):
# padding tokens and real tokens/s of each, side by side in one run.
# Builds the release preset. RUNS (default 5) sets the runs per pipeline,
# SEQUENCES (100000) the input size, OPEN_ROWS (8) pack_sequences' bound.
set -euo pipefail
cd "$(dirname "$0")/.."
cmake --preset release >/dev/null && cmake --build --preset release --target packing_bench >/dev/null
echo "$(date -u '+%Y-%m-%d %H:%M UTC'), $(nproc) cores, load average $(cut -d' ' -f1-3 /proc/loadavg)"
build/release/benchmarks/packing_bench --runs "${RUNS:-5}" --sequences "${SEQUENCES:-100000}" \
  --open-rows "${OPEN_ROWS:-8}"
