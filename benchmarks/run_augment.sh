#!/usr/bin/env bash
# The augmentations of contrastive (SimCLR, BYOL) and CIFAR training against
# torchvision's, side by side in one run, one thread each, on the same
# pseudo-random uint8 image: gaussian_blur (224x224x3, kernel 23, sigma 1:
# SimCLR's blur) against torchvision.transforms.functional.gaussian_blur,
# solarize (threshold 128) against F.solarize, and the padded random crop
# (a 32x32 window of a 32x32x3 image reflect-padded by 4: CIFAR's
# RandomCrop(32, padding=4)) against F.pad then F.crop, and each op of
# RandAugment's space at magnitude bin 9 of 31 (224x224x3, nearest) against
# torchvision's own (autoaugment._apply_op). Prints each side's
# REPS (default 5) timings in us, their medians and the ratio.
# Installs the dependencies (scripts/install_deps.sh --bench: torchvision)
# and builds the release preset.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/install_deps.sh --bench
cmake --preset release >/dev/null && cmake --build --preset release --target image_ops_bench >/dev/null
reps=${REPS:-5}
echo "cores: $(grep Cpus_allowed_list /proc/self/status | cut -f2); $reps repetitions each"
sluice=$(build/release/benchmarks/image_ops_bench --benchmark_filter='gaussian_blur|solarize|random_crop_32_pad4/reflect|augment_op' \
  --benchmark_min_time=0.3 --benchmark_repetitions="$reps" --benchmark_format=csv 2>/dev/null)
/usr/bin/python3 - "$reps" "$sluice" <<'PY'
import statistics, sys, time

import numpy as np
import torch
import torchvision.transforms.functional as F
from torchvision.transforms import InterpolationMode, autoaugment

reps, csv = int(sys.argv[1]), sys.argv[2]
torch.set_num_threads(1)
ours = {}
for line in csv.splitlines():
    fields = line.split(",")
    name = fields[0].strip('"')
    if name.endswith(("_mean", "_median", "_stddev", "_cv")) or "/real_time" not in name:
        continue
    ours.setdefault(name.split("/real_time")[0], []).append(float(fields[2]) / 1e3)  # real_time, ns to us
image = torch.from_numpy(np.random.default_rng(1).integers(0, 256, (3, 224, 224), dtype=np.uint8))
small = image[:, :32, :32].contiguous()
theirs = {
    "gaussian_blur/uint8/k23": lambda: F.gaussian_blur(image, [23, 23], [1.0, 1.0]),
    "solarize/uint8": lambda: F.solarize(image, 128),
    "random_crop_32_pad4/reflect": lambda: F.crop(F.pad(small, 4, padding_mode="reflect"), 3, 5, 32, 32),
}
space = autoaugment.RandAugment()._augmentation_space(31, (224, 224))
for op, (magnitudes, _) in space.items():
    if op == "Identity":
        continue
    magnitude = float(magnitudes[9].item()) if magnitudes.ndim > 0 else 0.0
    theirs[f"augment_op/{op}"] = (lambda op, m: lambda: autoaugment._apply_op(image, op, m, InterpolationMode.NEAREST,
                                                                               None))(op, magnitude)
print(f"{'case':30} {'sluice us (median)':>20} {'torchvision us (median)':>25} {'ratio':>8}")
for name, fn in theirs.items():
    for _ in range(5):
        fn()
    runs = []
    for _ in range(reps):
        n, start = 0, time.perf_counter()
        while time.perf_counter() - start < 0.3:
            fn()
            n += 1
        runs.append((time.perf_counter() - start) / n * 1e6)
    a, b = statistics.median(ours[name]), statistics.median(runs)
    print(f"{name:30} {a:20.2f} {b:25.2f} {b / a:7.1f}x")
    print(f"  sluice: {' '.join(f'{x:.2f}' for x in ours[name])}; torchvision: {' '.join(f'{x:.2f}' for x in runs)}")
PY
