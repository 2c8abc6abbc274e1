#!/usr/bin/env bash
# Python iterating Sluice pipelines, side by side in one run with the same
# pipelines in C++ (pipeline_overhead_bench) and the PyTorch DataLoader
# (num_workers=0):
#   from_tensor_slices(1M x 32 float32, int64 labels) -> batch(64 | 512) [-> prefetch]
# and the cost of a Python next() (benchmarks/python_pipeline_bench.py).
# Installs the dependencies and builds the release preset. REPS (default 5)
# sets the repetitions; IDLE_WAIT_S (default 20) how long to wait for a
# quiet machine before each series.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/install_deps.sh --bench
cmake --preset release >/dev/null
cmake --build --preset release --target _sluice sluice_python_package pipeline_overhead_bench >/dev/null
PYTHONPATH=build/release/python IDLE_WAIT_S="${IDLE_WAIT_S:-20}" REPS="${REPS:-5}" \
  /usr/bin/python3 benchmarks/python_pipeline_bench.py
