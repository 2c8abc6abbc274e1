#!/usr/bin/env bash
# Everything the CUDA backend needs checked on a GPU machine, in one call:
#   1. builds gpu_check/ (needs only the CUDA toolkit, CMake and ninja) and
#      runs sluice_gpu_check: parity of every CUDA kernel with its CPU kernel,
#      allocators, copies, prefetch_to_device, fused optimizer updates and
#      GPU-vs-CPU training; prints "N passed, N failed";
#   2. runs sluice_gpu_bench: MLP samples/s, input/compute overlap, bf16
#      GEMM speed-up; and gpu_check/torch_mlp.py when PyTorch with CUDA is
#      importable (the same models in PyTorch);
#   3. when Sluice's other dependencies are installed (the release preset
#      configures), builds the CUDA GoogleTest suites and runs them;
#   4. prints a short table last.
# Every step is bounded with `timeout`; the whole run stays under 10 minutes
# on a 16-core machine. Logs go to build/gpu_check_out/ (or $1).
# Usage: scripts/gpu_check.sh [out_dir]
set -uo pipefail
cd "$(dirname "$0")/.."
out=${1:-build/gpu_check_out}
mkdir -p "$out"
: > "$out/steps.txt"
export PATH="/usr/local/cuda/bin:$PATH"
jobs=$(nproc)
started=$(date +%s)

# step NAME SECONDS COMMAND...: runs it into $out/NAME.log, records rc and time.
step() {
  local name=$1 limit=$2
  shift 2
  local begin=$(date +%s)
  timeout --kill-after=10 "$limit" "$@" > "$out/$name.log" 2>&1
  local rc=$?
  echo "$name rc=$rc $(( $(date +%s) - begin ))s" | tee -a "$out/steps.txt"
  return $rc
}
# Seconds left of a 560 s budget, at most $1.
left() { local rest=$(( 560 - ($(date +%s) - started) )); echo $(( rest < $1 ? (rest > 10 ? rest : 10) : $1 )); }

{ nvidia-smi -L; nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv,noheader
  nvcc --version | tail -2; cmake --version | head -1; ninja --version; nproc; } > "$out/machine.txt" 2>&1
cat "$out/machine.txt"

check="not built"
generator=()
command -v ninja > /dev/null && generator=(-G Ninja)
if step configure_check 120 cmake -S gpu_check -B build/gpu_check "${generator[@]}" -DCMAKE_BUILD_TYPE=Release &&
   step build_check "$(left 300)" cmake --build build/gpu_check -j "$jobs"; then
  step gpu_check "$(left 180)" build/gpu_check/sluice_gpu_check
  check=$(grep -E '^[0-9]+ passed, [0-9]+ failed' "$out/gpu_check.log" || echo "no summary (see gpu_check.log)")
  grep -E '^(FAIL|no CUDA)' "$out/gpu_check.log" | head -20
  step gpu_bench "$(left 180)" build/gpu_check/sluice_gpu_bench
else
  tail -20 "$out/build_check.log" "$out/configure_check.log" 2>/dev/null
fi

torch="no PyTorch with CUDA"
if timeout 60 python3 -c "import torch; assert torch.cuda.is_available()" > "$out/torch_probe.log" 2>&1; then
  step torch "$(left 180)" python3 gpu_check/torch_mlp.py && torch="ran"
fi

suites="skipped: the release preset does not configure here (see configure_full.log)"
if step configure_full 120 cmake --preset release -DCMAKE_CUDA_ARCHITECTURES=90; then
  targets=(ops_cuda_kernels_test ops_cuda_status_test executor_cuda_device_test executor_cuda_prefetcher_test
           executor_device_prefetcher_test executor_loss_scaler_test executor_caching_allocator_test
           model_cuda_optimizer_test)
  if step build_full "$(left 360)" cmake --build --preset release -j "$jobs" --target "${targets[@]}"; then
    step ctest "$(left 120)" ctest --test-dir build/release -R 'Cuda|DevicePrefetcher|LossScaler|CachingAllocator' \
      --output-on-failure
    suites="$(grep -E 'tests passed|tests failed' "$out/ctest.log" || echo "no summary (see ctest.log)")"
    suites+=" ($(grep -c '(Skipped)' "$out/ctest.log") skipped)"
  else
    suites="build failed or timed out (see build_full.log)"
  fi
fi

value() { grep -h "^RESULT $1 " "$out"/gpu_bench.log "$out"/torch.log 2>/dev/null | awk '{print $3}' | head -1; }
echo
gpu=$(nvidia-smi --query-gpu=name --format=csv,noheader 2>/dev/null | head -1)
echo "== Sluice GPU check: ${gpu:-no nvidia-smi}, $(( $(date +%s) - started )) s =="
printf '%-34s %s\n' "self-check (gpu_check)" "$check"
printf '%-34s %s\n' "GoogleTest CUDA suites" "$suites"
printf '%-34s %-14s %-14s %s\n' "samples/s (Adam, fp32)" "Sluice" "PyTorch" "PyTorch bf16"
printf '%-34s %-14s %-14s %s\n' "  MLP 32-64-32-5, batch 64" "$(value mlp_small_sluice_samples_per_s)" \
  "$(value mlp_small_torch_samples_per_s)" "-"
printf '%-34s %-14s %-14s %s\n' "  MLP 1024-4096-4096-1000, b 1024" "$(value mlp_large_sluice_samples_per_s)" \
  "$(value mlp_large_torch_samples_per_s)" "$(value mlp_large_torch_bf16_samples_per_s)"
printf '%-34s %-22s %s\n' "overlap step/max(I,C) (GPU idle)" "no prefetch" "prefetch_to_device(2)"
for ic in "2 4" "4 4" "4 2"; do
  set -- $ic
  c="I$1_C$2"
  printf '%-34s %-22s %s\n' "  input $1 ms, compute $2 ms" \
    "$(value overlap_${c}_none_ratio) ($(value overlap_${c}_none_gpu_idle))" \
    "$(value overlap_${c}_prefetch_ratio) ($(value overlap_${c}_prefetch_gpu_idle))"
done
printf '%-34s %s\n' "bf16 / fp32 GEMM speed-up" "$(value gemm_bf16_speedup) ($(value gemm_pass_fp32_ms) ms vs $(value gemm_pass_bf16_ms) ms per pass)"
printf '%-34s %s\n' "PyTorch" "$torch"
