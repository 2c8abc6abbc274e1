#!/usr/bin/env bash
# Per-element overhead, side by side in one run: Sluice's
#   from_slices(1M x 32 float32, int64 labels) -> [map(identity)] -> batch(64) -> prefetch
# against the PyTorch DataLoader (num_workers=0) doing the same work.
# Installs the PyTorch peer (Debian python3-torch) and builds the release preset.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/install_deps.sh --bench
cmake --preset release >/dev/null && cmake --build --preset release --target pipeline_overhead_bench >/dev/null

ours=$(build/release/benchmarks/pipeline_overhead_bench --epochs "${EPOCHS:-7}")
echo "$ours"
torch=$(IDLE_WAIT_S="${IDLE_WAIT_S:-20}" /usr/bin/python3 benchmarks/torch_overhead.py)
echo "$torch"

torch_rate() { echo "$torch" | awk -v name="$1" '$1 == "RESULT" && $2 == name {print $3}'; }
t_plain=$(torch_rate batch)
t_map=$(torch_rate map_identity_batch)
echo
printf "%-66s %12s %12s %8s\n" "sluice pipeline (vs DataLoader workers=0, same work)" "sluice/s" "torch/s" "ratio"
for row in "from_slices -> batch(64) -> prefetch|$t_plain" \
           "from_slices -> map(identity, row_wise) -> batch(64) -> prefetch|$t_map" \
           "from_slices -> map(identity) -> batch(64) -> prefetch|$t_map"; do
  name=${row%|*}; peer=${row#*|}
  ours_rate=$(echo "$ours" | grep -F "$name " | awk '{print $(NF-1)}' | head -1)
  awk -v n="$name" -v a="$ours_rate" -v b="$peer" 'BEGIN {printf "%-66s %12.0f %12.0f %7.1fx\n", n, a, b, a / b}'
done
