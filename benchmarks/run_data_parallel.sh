#!/usr/bin/env bash
# Data-parallel scaling, 1 -> 2 ranks, side by side in one run: Sluice's
# Trainer on MpiCollectives (benchmarks/data_parallel_bench.cc, under
# mpirun) against PyTorch DistributedDataParallel with gloo
# (benchmarks/ddp_bench.py), on the MLP 512-1024-1024-10, global batch 512,
# SGD, one thread per rank. Each side alone (1 rank) is its own baseline:
# scaling efficiency = samples/s on 2 ranks / (2 x samples/s on 1 rank).
# "Not hidden" is the share of step time spent in all-reduce after the
# backward pass: for Sluice the time the optimizer step waited for the
# gradient buckets, for PyTorch DDP's step time minus the same steps under
# no_sync(). ROUNDS rounds (default 3) alternate the two sides; the table
# shows each figure's median over the rounds.
# Env: ROUNDS, STEPS (steps per timed block, default 20), REPS (blocks per
# run, default 5).
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/install_deps.sh --bench
cmake --preset release >/dev/null && cmake --build --preset release --target data_parallel_bench >/dev/null

rounds="${ROUNDS:-3}"
flags=(--global-batch 512 --steps "${STEPS:-20}" --reps "${REPS:-5}")
[ "$(id -u)" != 0 ] || export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
export OPENBLAS_NUM_THREADS=1 OMP_NUM_THREADS=1
mpi=(mpirun --oversubscribe --bind-to none --mca btl self,vader,tcp)
bench=build/release/benchmarks/data_parallel_bench

results=""
for _ in $(seq "$rounds"); do
  for out in "$("$bench" "${flags[@]}")" \
             "$("${mpi[@]}" -np 2 "$bench" "${flags[@]}")" \
             "$(/usr/bin/python3 benchmarks/ddp_bench.py --ranks 1 "${flags[@]}")" \
             "$(/usr/bin/python3 benchmarks/ddp_bench.py --ranks 2 "${flags[@]}")"; do
    echo "$out" | grep -v '^RESULT'
    results+="$(echo "$out" | grep '^RESULT')"$'\n'
  done
done

# The median over the rounds of field `field` (3: samples/s, 4: share) of
# side `side` on `ranks` ranks.
median() {
  echo "$results" | awk -v s="$1" -v r="$2" -v f="$3" '$2 == s && $3 == r {print $(f + 1)}' | sort -g |
    awk '{v[NR] = $1} END {print v[int((NR + 1) / 2)]}'
}
echo
printf "%-8s %14s %14s %12s %18s\n" "" "1 rank smp/s" "2 ranks smp/s" "efficiency" "not hidden (2 r.)"
for side in sluice torch; do
  one=$(median "$side" 1 3)
  two=$(median "$side" 2 3)
  share=$(median "$side" 2 4)
  awk -v n="$side" -v a="$one" -v b="$two" -v s="$share" \
    'BEGIN {printf "%-8s %14.0f %14.0f %11.1f%% %17.1f%%\n", n, a, b, 100 * b / (2 * a), 100 * s}'
done
