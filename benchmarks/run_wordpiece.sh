#!/usr/bin/env bash
# WordPiece tokenisation MB/s on one core: benchmarks/wordpiece_bench.cc's
# kernel, the tf.text-style reference and the split_whitespace + wordpiece
# functions, side by side in one run, over English text (Debian's
# /usr/share/common-licenses) with a BERT-sized vocabulary built at run time.
# Builds the release preset. RUNS (default 5) and MEGABYTES (default 8).
set -euo pipefail
cd "$(dirname "$0")/.."
cmake --preset release >/dev/null && cmake --build --preset release --target wordpiece_bench >/dev/null
echo "$(date -u '+%Y-%m-%d %H:%M UTC'), $(nproc) cores, load average $(cut -d' ' -f1-3 /proc/loadavg)"
build/release/benchmarks/wordpiece_bench --runs "${RUNS:-5}" --megabytes "${MEGABYTES:-8}"
