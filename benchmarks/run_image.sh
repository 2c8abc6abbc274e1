#!/usr/bin/env bash
# decode_jpeg against libjpeg-turbo's own tjbench on the same file, one
# thread, side by side in one run: images/s (medians of RUNS interleaved
# rounds, default 5) and the ratio, for the accurate and the fast DCT and the
# 1/2 scaled decode; and decode_jpeg_random_crop's decode + resize to 224x224
# over the same RandomResizedCrop windows three ways: the crop-window decode
# with the scaled IDCT (ops/jpeg_crop_scale.h), the crop-window decode at
# full size, and a full decode then crop. The file is a generated 500x375 picture (gradients,
# texture, noise) encoded by cjpeg at quality 90 with 4:2:0 subsampling.
# Builds the release preset; needs libjpeg-turbo-progs (scripts/install_deps.sh).
# SECONDS_PER_CASE (default 2) is each measurement's duration.
set -euo pipefail
cd "$(dirname "$0")/.."
cmake --preset release >/dev/null && cmake --build --preset release --target image_decode_bench >/dev/null

dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
/usr/bin/python3 - "$dir/picture.ppm" <<'PY'
import sys
import numpy as np
h, w = 375, 500
y, x = np.mgrid[0:h, 0:w]
image = np.stack([x * 255 / w, y * 255 / h, (x + y) % 256], -1)
image += 40 * (np.sin(x / 7.0) * np.cos(y / 11.0))[..., None]
image += np.random.default_rng(0).normal(0, 6, image.shape)
image = np.clip(image, 0, 255).astype(np.uint8)
open(sys.argv[1], "wb").write(b"P6\n%d %d\n255\n" % (w, h) + image.tobytes())
PY
cjpeg -quality 90 -sample 2x2 -outfile "$dir/picture.jpg" "$dir/picture.ppm"

runs=${RUNS:-5}
seconds=${SECONDS_PER_CASE:-2}
echo "file: 500x375 4:2:0 q90, $(stat -c %s "$dir/picture.jpg") bytes; cores: $(grep Cpus_allowed_list /proc/self/status | cut -f2); $runs rounds of ${seconds} s per case"
for ((round = 0; round < runs; ++round)); do
  build/release/benchmarks/image_decode_bench --jpeg "$dir/picture.jpg" --benchmark_min_time="$seconds" \
    --benchmark_format=json --benchmark_out="$dir/sluice_$round.json" --benchmark_out_format=json >/dev/null
  for dct in accurate fast; do
    flag=$([[ $dct == fast ]] && echo -fastdct || echo -accuratedct)
    tjbench "$dir/picture.jpg" -rgb $flag -benchtime "$seconds" -warmup 0.5 -quiet -nowrite >"$dir/tj_${dct}_$round.txt"
  done
  tjbench "$dir/picture.jpg" -rgb -accuratedct -scale 1/2 -benchtime "$seconds" -warmup 0.5 -quiet -nowrite >"$dir/tj_ratio2_$round.txt"
done

/usr/bin/python3 - "$dir" "$runs" <<'PY'
import json, statistics, sys
dir, runs = sys.argv[1], int(sys.argv[2])
pixels = 500 * 375  # tjbench's Mpixels/s count the JPEG's own size, scaled decodes too
print(f"{'case':<10} {'sluice img/s':>13} {'tjbench img/s':>14} {'ratio':>7}")
for case in ("accurate", "fast", "ratio2"):
    ours, theirs = [], []
    for r in range(runs):
        for b in json.load(open(f"{dir}/sluice_{r}.json"))["benchmarks"]:
            if b["name"].startswith(f"decode_jpeg/{case}"):
                ours.append(b["items_per_second"])
        # tjbench -quiet: the last line's last column is decompression Mpixels/s.
        line = [l for l in open(f"{dir}/tj_{case}_{r}.txt") if l.strip()][-1]
        theirs.append(float(line.split()[-1]) * 1e6 / pixels)
    o, t = statistics.median(ours), statistics.median(theirs)
    print(f"{case:<10} {o:>13.0f} {t:>14.0f} {o / t:>7.3f}")
crop = {"fused_scaled": [], "fused_unscaled": [], "full_then_crop": []}
for r in range(runs):
    for b in json.load(open(f"{dir}/sluice_{r}.json"))["benchmarks"]:
        for case, rates in crop.items():
            if b["name"].startswith(f"crop_window/{case}/"):
                rates.append(b["items_per_second"])
s, u, c = (statistics.median(crop[case]) for case in ("fused_scaled", "fused_unscaled", "full_then_crop"))
print(f"crop window + resize 224: scaled IDCT {s:.0f} img/s, window at full size {u:.0f} img/s, "
      f"full decode then crop {c:.0f} img/s; scaled / full {s / c:.3f}, window / full {u / c:.3f}")
PY
