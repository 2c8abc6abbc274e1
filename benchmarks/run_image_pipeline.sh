#!/usr/bin/env bash
# The ImageNet-style training input pipeline (examples/imagenet_pipeline.cc:
# tfrecord -> shuffle -> parse_example -> decode_jpeg_random_crop 224 ->
# random_flip -> crop_mirror_normalize -> batch 32 -> prefetch) against
# torchvision + Pillow doing the same decode / RandomResizedCrop(224) / flip /
# ToTensor / Normalize through a DataLoader (num_workers 0, 1 and 2; the best
# is the peer), over the same JPEG files, side by side in one run: images/s
# and images/s per core (the cores this process may use), medians of REPS
# interleaved rounds (default 5), and the ratio, beside the published
# anchors. The corpus is IMAGES (default 512) generated pictures, sides
# 200-500 px, quality 90 4:2:0, written once to a temporary folder as
# TFRecords of tf.train.Example and as ImageFolder .jpg files. BATCHES
# (default 40) batches are timed after 4 of warm-up.
# Installs the dependencies (scripts/install_deps.sh --bench: torchvision,
# Pillow) and builds the release preset.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/install_deps.sh --bench
cmake --preset release >/dev/null && cmake --build --preset release --target image_pipeline_bench >/dev/null

dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
bench=build/release/benchmarks/image_pipeline_bench
reps=${REPS:-5} batches=${BATCHES:-40} images=${IMAGES:-512}
"$bench" write "$dir" --images "$images"
cores=$(nproc)
echo "corpus: $images JPEGs, $(du -sb "$dir/jpg" | cut -f1) bytes; cores: $cores ($(grep Cpus_allowed_list /proc/self/status | cut -f2)); $reps rounds of $batches batches of 32"
for ((round = 0; round < reps; ++round)); do
  "$bench" run "$dir" --batches "$batches" | tee -a "$dir/sluice.txt" >/dev/null
  for workers in 0 1 2; do
    /usr/bin/python3 benchmarks/image_pipeline_torch.py "$dir/jpg" "$workers" "$batches" >>"$dir/torch_$workers.txt"
  done
done

/usr/bin/python3 - "$dir" "$cores" <<'PY'
import statistics, sys
dir, cores = sys.argv[1], int(sys.argv[2])
def median(name):
    return statistics.median(float(l.split()[1]) for l in open(f"{dir}/{name}.txt") if l.startswith("images_per_second"))
ours = median("sluice")
torch = {w: median(f"torch_{w}") for w in (0, 1, 2)}
best = max(torch, key=torch.get)
print(f"{'pipeline':<36} {'images/s':>9} {'per core':>9}")
print(f"{'sluice (cpu budget ' + str(cores) + ')':<36} {ours:>9.1f} {ours / cores:>9.1f}")
for w, v in torch.items():
    print(f"{'torchvision DataLoader num_workers=' + str(w):<36} {v:>9.1f} {v / cores:>9.1f}")
print(f"ratio sluice / best torchvision (num_workers={best}): {ours / torch[best]:.2f}x")
print("published anchors, images/s per vCPU: FFCV ~326 (31,278 img/s on 96 vCPU), tf.data ResNet-50 input ~182")
PY
