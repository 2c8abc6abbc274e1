#!/usr/bin/env bash
# decode_jpeg against libjpeg-turbo's own tjbench on the same file, one
# thread, side by side in one run: images/s (medians of RUNS interleaved
# rounds, default 5) and the ratio, for the accurate and the fast DCT and the
# 1/2 scaled decode; and decode_jpeg_random_crop's decode + resize to 224x224
# over the same RandomResizedCrop windows three ways: the crop-window decode
# with the scaled IDCT (ops/jpeg_crop_scale.h), the crop-window decode at
# full size, and a full decode then crop. The file is a generated 500x375 picture (gradients,
# texture, noise) encoded by cjpeg at quality 90 with 4:2:0 subsampling, about ImageNet's
# size; the three crop-window cases also run on the same picture at 1600x1200, a
# photograph's size, where windows are large enough for the scaled IDCT.
# Builds the release preset; needs libjpeg-turbo-progs (scripts/install_deps.sh).
# SECONDS_PER_CASE (default 2) is each measurement's duration.
set -euo pipefail
cd "$(dirname "$0")/.."
cmake --preset release >/dev/null && cmake --build --preset release --target image_decode_bench >/dev/null

dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
/usr/bin/python3 - "$dir/picture.ppm" "$dir/photo.ppm" <<'PY'
import sys
import numpy as np
def picture(h, w, path):
    y, x = np.mgrid[0:h, 0:w]
    image = np.stack([x * 255 / w, y * 255 / h, (x + y) % 256], -1)
    image += 40 * (np.sin(x / 7.0) * np.cos(y / 11.0))[..., None]
    image += np.random.default_rng(0).normal(0, 6, image.shape)
    image = np.clip(image, 0, 255).astype(np.uint8)
    open(path, "wb").write(b"P6\n%d %d\n255\n" % (w, h) + image.tobytes())
picture(375, 500, sys.argv[1])
picture(1200, 1600, sys.argv[2])
PY
cjpeg -quality 90 -sample 2x2 -outfile "$dir/picture.jpg" "$dir/picture.ppm"
cjpeg -quality 90 -sample 2x2 -outfile "$dir/photo.jpg" "$dir/photo.ppm"

runs=${RUNS:-5}
seconds=${SECONDS_PER_CASE:-2}
echo "files: 500x375 and 1600x1200 4:2:0 q90, $(stat -c %s "$dir/picture.jpg") and $(stat -c %s "$dir/photo.jpg") bytes; cores: $(grep Cpus_allowed_list /proc/self/status | cut -f2); $runs rounds of ${seconds} s per case"
for ((round = 0; round < runs; ++round)); do
  build/release/benchmarks/image_decode_bench --jpeg "$dir/picture.jpg" --benchmark_min_time="$seconds" \
    --benchmark_format=json --benchmark_out="$dir/sluice_$round.json" --benchmark_out_format=json >/dev/null
  build/release/benchmarks/image_decode_bench --jpeg "$dir/photo.jpg" --benchmark_filter=crop_window \
    --benchmark_min_time="$seconds" --benchmark_format=json --benchmark_out="$dir/photo_$round.json" \
    --benchmark_out_format=json >/dev/null
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
for name, size in (("sluice", "500x375"), ("photo", "1600x1200")):
    crop = {"fused_scaled": [], "fused_unscaled": [], "full_then_crop": []}
    for r in range(runs):
        for b in json.load(open(f"{dir}/{name}_{r}.json"))["benchmarks"]:
            for case, rates in crop.items():
                if b["name"].startswith(f"crop_window/{case}/"):
                    rates.append(b["items_per_second"])
    s, u, c = (statistics.median(crop[case]) for case in ("fused_scaled", "fused_unscaled", "full_then_crop"))
    print(f"{size}, crop window + resize 224: scaled IDCT {s:.0f} img/s, window at full size {u:.0f} img/s, "
          f"full decode then crop {c:.0f} img/s; scaled / full {s / c:.3f}, window / full {u / c:.3f}")
PY
