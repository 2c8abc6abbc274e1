#!/usr/bin/env bash
# The data service beside the same pipeline in-process, in one run on
# loopback (benchmarks/service_pipeline_bench.cc):
#   range -> map(cast float32) -> map(scale_shift) -> batch(16384) -> prefetch(4)   (64 KiB batches)
# in-process; through `sluice serve` (1 worker, 1 consumer), plain and with
# zstd; a dispatcher with 2 workers; and the consumer's stall and the epoch's delay
# when one of 2 workers is SIGKILLed mid-epoch; and the same pipeline unbatched, float32 scalars one
# at a time (UNBATCHED elements), in-process and through `sluice serve`. Medians of RUNS runs.
# Targets: >= 0.8x of in-process through one worker; recovery (the delay) <= 2 s.
set -euo pipefail
cd "$(dirname "$0")/.."
cmake --preset release >/dev/null && cmake --build --preset release --target service_pipeline_bench >/dev/null
build/release/benchmarks/service_pipeline_bench --runs "${RUNS:-5}" --elements "${ELEMENTS:-4194304}" \
  --unbatched "${UNBATCHED:-262144}"
