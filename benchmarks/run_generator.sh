#!/usr/bin/env bash
# A Python generator feeding batches: Sluice's from_generator against the
# PyTorch DataLoader over an IterableDataset and a plain numpy loop, side by
# side in one run (benchmarks/generator_bench.py). Installs the dependencies
# (torch with --bench) and builds the Python module. REPS (default 5) sets
# the repetitions.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/install_deps.sh --bench
cmake --preset release >/dev/null
cmake --build --preset release --target _sluice sluice_python_package >/dev/null
PYTHONPATH=build/release/python /usr/bin/python3 benchmarks/generator_bench.py
