#!/usr/bin/env bash
# The data service's transport beside a raw loopback TCP stream of the same
# bytes, in one run (benchmarks/service_transport_bench.cc): GB/s medians for
# 64 KiB and 1 MiB writes / elements, framed with credits, and with zstd.
# Usage: benchmarks/run_service_transport.sh [--bytes N] [--runs R]
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/install_deps.sh --bench
cmake --preset release >/dev/null && cmake --build --preset release --target service_transport_bench >/dev/null
build/release/benchmarks/service_transport_bench "$@"
