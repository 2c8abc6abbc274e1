#!/usr/bin/env bash
# Text, CSV and fixed-length record files read into batches by Sluice,
# pandas.read_csv, numpy and plain Python, side by side in one run
# (benchmarks/file_sources_bench.py). Installs the dependencies (pandas with
# --bench) and builds the Python module. ROWS (default 1M), RECORDS (default
# 50000) and REPS (default 5) size the run.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/install_deps.sh --bench
cmake --preset release >/dev/null
cmake --build --preset release --target _sluice sluice_python_package >/dev/null
PYTHONPATH=build/release/python /usr/bin/python3 benchmarks/file_sources_bench.py
