#!/usr/bin/env bash
# Training throughput, side by side in one run: Sluice's train_bench against
# PyTorch on the CPU (/work/shared/bench/torch_train.py, at ../shared from the
# repository root) on the same models, batch sizes, thread counts and Adam.
#   a  MLP 32-64-32-5, batch 64, 1 thread      vs  torch_train.py mlp --layers 32,64,32,5
#   b  demo model 2-16(relu)-1, batch 32       vs  torch_train.py mlp --layers 2,16,2
#   c  MLP 512-1024-1024-10, batch 256, 2 thr  vs  torch_train.py mlp --layers 512,1024,1024,10
# Case (b): torch_train.py's mlp mode only does softmax cross entropy, so its
# peer is the same network with two logits (Linear 16->2 and a 2-way softmax
# cross entropy instead of Linear 16->1 and a sigmoid cross entropy on one
# logit: the same per-op work, one more output column). `seed` mode trains
# the real demo end to end but also times randperm and fancy indexing per
# step; its loop time per step is printed as a second reference row.
# Both sides take the median over timed blocks after a warm-up; ratio =
# Sluice / PyTorch steps/s, each from this run. Step GFLOP/s counts
# 6 * batch * sum(in * out) flops per step (forward + two backward GEMMs).
# Installs the PyTorch peer (Debian python3-torch) and builds the release preset.
# Env: REPS (timed blocks per case, default 7), IDLE_WAIT_S (PyTorch side's
# wait for a quiet machine, default 20).
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/install_deps.sh --bench
cmake --preset release >/dev/null && cmake --build --preset release --target train_bench >/dev/null

reps="${REPS:-7}"
peer=../shared/bench/torch_train.py
export IDLE_WAIT_S="${IDLE_WAIT_S:-20}"

ours=$(build/release/benchmarks/train_bench --reps "$reps")
echo "$ours"
torch_a=$(/usr/bin/python3 "$peer" mlp --layers 32,64,32,5 --batch 64 --threads 1 --steps 2000 --reps "$reps")
echo "$torch_a"
torch_b=$(/usr/bin/python3 "$peer" mlp --layers 2,16,2 --batch 32 --threads 1 --steps 2000 --reps "$reps")
echo "$torch_b"
torch_seed=$(/usr/bin/python3 "$peer" seed --threads 1)
echo "$torch_seed"
torch_c=$(/usr/bin/python3 "$peer" mlp --layers 512,1024,1024,10 --batch 256 --threads 2 --steps 50 --reps "$reps")
echo "$torch_c"

ours_rate() { echo "$ours" | awk -v c="$1" -v v="$2" '$1 == "RESULT" && $2 == c && $3 == v {print $4}'; }
torch_rate() { echo "$1" | grep -F '[steps/s]' | sed 's/.*median *\([0-9.]*\) steps\/s.*/\1/'; }
# 250 steps in the seed loop: steps/s from the median loop time in ms.
seed_rate=$(echo "$torch_seed" | sed -n 's/^median over .*train loop \([0-9.]*\) ms.*/\1/p' | awk '{printf "%.2f", 250000 / $1}')

echo
printf "%-48s %12s %12s %8s\n" "case (Sluice Trainer::TrainStep vs PyTorch)" "sluice st/s" "torch st/s" "ratio"
row() { awk -v n="$1" -v a="$2" -v b="$3" 'BEGIN {printf "%-48s %12.1f %12.1f %7.2fx\n", n, a, b, a / b}'; }
row "a  MLP 32-64-32-5 bs64, 1 thread" "$(ours_rate a trainstep)" "$(torch_rate "$torch_a")"
row "b  demo 2-16-1 bs32 (torch: 2-16-2 softmax CE)" "$(ours_rate b trainstep)" "$(torch_rate "$torch_b")"
row "b' demo 2-16-1 bs32 (torch: seed loop/250)" "$(ours_rate b trainstep)" "$seed_rate"
row "c  MLP 512-1024-1024-10 bs256, 2 threads" "$(ours_rate c trainstep)" "$(torch_rate "$torch_c")"
flops=$(awk 'BEGIN {print 6 * 256 * (512 * 1024 + 1024 * 1024 + 1024 * 10)}')
echo
awk -v s="$(ours_rate c trainstep)" -v t="$(torch_rate "$torch_c")" -v g="$(ours_rate c sgemm_gflops)" -v f="$flops" \
  'BEGIN {printf "c  GFLOP/s: Sluice step %.1f, PyTorch step %.1f, cblas_sgemm 256x1024x1024 alone %.1f\n", s * f / 1e9, t * f / 1e9, g}'
