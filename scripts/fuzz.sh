#!/usr/bin/env bash
# Builds the libFuzzer targets (clang, ASan + UBSan; preset "fuzz") and runs
# each for SECONDS (default 600), seeded from the TFRecord conformance
# corpus and, for pipeline_spec_fuzz, the text specs of examples/specs and
# of the tests (service_frame_fuzz: a few hand-made frames). Crashes, hangs (-timeout) and sanitizer reports stop a run with a
# non-zero exit and leave the input in build/fuzz/artifacts/.
# Usage: scripts/fuzz.sh [SECONDS] [TARGET...]
set -euo pipefail
cd "$(dirname "$0")/.."
seconds=${1:-600}
shift || true
targets=("$@")
[ ${#targets[@]} -eq 0 ] && targets=(record_reader_fuzz example_parser_fuzz pipeline_spec_fuzz service_frame_fuzz
                                    image_decode_fuzz text_ops_fuzz delimited_reader_fuzz)

bash scripts/install_deps.sh --fuzz
cmake --preset fuzz >/dev/null
cmake --build --preset fuzz >/dev/null

corpus=build/fuzz/corpus
mkdir -p "$corpus/record_reader_fuzz" "$corpus/example_parser_fuzz" "$corpus/pipeline_spec_fuzz" \
  "$corpus/service_frame_fuzz" "$corpus/image_decode_fuzz" "$corpus/text_ops_fuzz" \
  "$corpus/delimited_reader_fuzz" build/fuzz/artifacts
# Seeds: whole corpus files (first byte: 0 none, 1 zlib, 2 gzip), and the
# records of the Example files.
python3 - "$corpus" <<'PY'
import gzip, os, struct, sys, zlib
corpus, data = sys.argv[1], "../shared/testdata/tfrecord"
def records(raw):
    out, i = [], 0
    while i + 12 <= len(raw):
        n = struct.unpack("<Q", raw[i:i + 8])[0]
        out.append(raw[i + 12:i + 12 + n]); i += 16 + n
    return out
for name in sorted(os.listdir(data)):
    path = os.path.join(data, name)
    if not os.path.isfile(path) or name.endswith((".json", ".md")) or os.path.getsize(path) > 30000:
        continue
    raw = open(path, "rb").read()
    mode = 2 if raw[:2] == b"\x1f\x8b" else 1 if name.endswith(".tfr") else 0
    open(os.path.join(corpus, "record_reader_fuzz", name), "wb").write(bytes([mode]) + raw)
    plain = gzip.decompress(raw) if mode == 2 else zlib.decompress(raw) if mode == 1 else raw
    if "ydf" in name or "tfx" in name:
        for k, r in enumerate(records(plain)[:20]):
            open(os.path.join(corpus, "example_parser_fuzz", f"{name}.{k}"), "wb").write(r)
# Spec seeds: a first byte of 0 selects the text format.
import glob, re
specs = [open(p).read() for p in sorted(glob.glob("examples/specs/*.pbtxt"))]
for test in sorted(glob.glob("tests/*/*_test.cc")):
    source = open(test).read()
    specs += re.findall(r'R"pb\((.*?)\)pb"', source, re.S)
    specs += [literal.encode().decode("unicode_escape")
              for literal in re.findall(r'"(ops \{(?:[^"\\]|\\.)*)"', source)]
for k, text in enumerate(specs):
    open(os.path.join(corpus, "pipeline_spec_fuzz", f"spec.{k}"), "wb").write(b"\0" + text.encode())
# Frame seeds (service/protocol.h): a chunk-size byte, then frames: a
# Credit, and elements of int32 and string components.
def varint(n):
    out = b""
    while True:
        out += bytes([(n & 0x7f) | (0x80 if n > 0x7f else 0)]); n >>= 7
        if not n: return out
def field(number, payload):
    return varint(number << 3 | 2) + varint(len(payload)) + payload
def number(num, value):
    return varint(num << 3) + varint(value)
def frame(body, payload=b""):
    return struct.pack("<IIQ", 0x56534C53, len(body), len(payload)) + body + payload
def component(dtype, shape, offset, length):
    return field(2, dtype) + field(3, b"".join(varint(d) for d in shape)) + number(4, offset) + number(5, length)
credit = frame(field(15, number(1, 1 << 20) + number(2, 8)))
ints = struct.pack("<3i", 1, -2, 3)
element = frame(field(16, number(1, 0) + field(5, component(b"int32", [3], 0, 12)) + number(7, 12)), ints)
strings = struct.pack("<2Q", 2, 3) + b"abcde"
texts = frame(field(16, number(1, 1) + field(5, component(b"string", [2], 0, 21)) + number(7, 21)), strings)
end = frame(field(16, number(1, 2) + number(4, 1)))
for k, seed in enumerate([credit, element, texts, credit + element + texts + end]):
    open(os.path.join(corpus, "service_frame_fuzz", f"frames.{k}"), "wb").write(bytes([k * 7]) + seed)
PY

# Image seeds (image_decode_fuzz): small JPEGs by cjpeg (4:2:0, 4:2:2, 4:4:4,
# grayscale, progressive, restart markers, arithmetic coding) and PNGs (grey,
# grey + alpha, RGB, RGBA, palette, 16-bit), odd-sized, each behind option
# bytes that pick every decoder (fuzz/image_decode_fuzz.cc).
images=$(mktemp -d)
trap 'rm -rf "$images"' EXIT
python3 - "$images" <<'PY'
import struct, sys, zlib
out = sys.argv[1]
h, w = 23, 37
pixels = bytes((x * 7 + y * 3 + c * 50) % 256 for y in range(h) for x in range(w) for c in range(3))
open(f"{out}/rgb.ppm", "wb").write(b"P6\n%d %d\n255\n" % (w, h) + pixels)
def png(name, colour_type, depth, channels, palette=b""):
    def chunk(kind, data):
        return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data))
    row_bytes = w * channels * depth // 8
    raw = b"".join(b"\0" + bytes((x * 5 + y * 11) % 256 for x in range(row_bytes)) for y in range(h))
    body = chunk(b"IHDR", struct.pack(">IIBBBBB", w, h, depth, colour_type, 0, 0, 0))
    if palette:
        body += chunk(b"PLTE", palette)
    body += chunk(b"IDAT", zlib.compress(raw)) + chunk(b"IEND", b"")
    open(f"{out}/{name}.png", "wb").write(b"\x89PNG\r\n\x1a\n" + body)
png("grey", 0, 8, 1)
png("grey_alpha", 4, 8, 2)
png("rgb", 2, 8, 3)
png("rgba", 6, 8, 4)
png("rgb16", 2, 16, 3)
png("palette", 3, 8, 1, bytes(range(256)) * 3)
PY
for variant in "420:-sample 2x2" "422:-sample 2x1" "444:-sample 1x1" "grey:-grayscale" "progressive:-progressive" \
               "restart:-restart 1" "arithmetic:-arithmetic"; do
  cjpeg -quality 75 ${variant#*:} -outfile "$images/${variant%%:*}.jpg" "$images/rgb.ppm"
done
python3 - "$images" "$corpus/image_decode_fuzz" <<'PY'
import os, sys
images, corpus = sys.argv[1], sys.argv[2]
# Option bytes: as fuzz/image_decode_fuzz.cc reads them.
options = [bytes([100, 150, 40, 90, decoder, 20, 30, flags])
           for decoder in range(4) for flags in (0x00, 0x05, 0x1a, 0x65)]  # 0x65: a bicubic resize
options += [bytes([0x80 | 120, 255, 0, 255, 2, 7, 5, 0]), bytes([0x80 | 90, 200, 30, 60, 2, 40, 9, 0x21])]
options += [bytes([100, 150, 40, 90, 0x04 | decoder, 200, 77, 3]) for decoder in (0, 1, 3)]  # colour after
for name in sorted(os.listdir(images)):
    if name.endswith((".jpg", ".png")):
        data = open(os.path.join(images, name), "rb").read()
        for k, option in enumerate(options):
            open(os.path.join(corpus, f"{name}.{k}"), "wb").write(option + data)
# The colour adjustments on float32 pixels (option byte 4's bit 3): levels,
# NaN, infinities, negatives, values past white.
import struct
levels = [0.0, 255.0, 17.5, 128.0, float("nan"), float("inf"), -float("inf"), -3.0, 300.0, 1e-40, 64.25, 200.0]
floats = struct.pack("<%df" % (3 * len(levels)), *(levels[(i * 5) % len(levels)] for i in range(3 * len(levels))))
for k, option in enumerate((bytes([0, 0, 0, 0, 0x08, 90, 70, 100]), bytes([0, 0, 0, 0, 0x08, 250, 3, 0]))):
    open(os.path.join(corpus, f"floats.{k}"), "wb").write(option + floats)
PY

# Text seeds (text_ops_fuzz): a function byte and an option byte for each
# function, then lines of English, accented (precomposed and combining),
# CJK, emoji and invalid UTF-8; the regex split's first line is its pattern,
# the regex replacement's first two its pattern and rewrite.
python3 - "$corpus/text_ops_fuzz" <<'PY'
import os, sys
corpus = sys.argv[1]
lines = ["The quick brown fox jumps over the lazy dog.", "running  jumped\tfoxes, café!",
         "cafe\u0301 na\u00efve \u00c5ngstr\u00f6m", "\u65e5\u672c\u8a9e\u306e\u30c6\u30ad\u30b9\u30c8",
         "\U0001F600 emoji \U0001F44D\U0001F3FD", "", "   "]
text = "\n".join(lines).encode()
heads = {2: b"[,;!]+\n", 9: "(\\w+)\u00e9|x*\n<\\1>\\0\\\\\n".encode()}
for op in range(10):
    for option in (0, 3, 200):
        body = heads.get(op, b"") + text
        open(os.path.join(corpus, f"text.{op}.{option}"), "wb").write(bytes([op, option]) + body)
open(os.path.join(corpus, "invalid_utf8"), "wb").write(bytes([0, 0]) + b"ok \xff\xfe bad \xc3")
PY

# Delimited-file seeds (delimited_reader_fuzz): text lines and CSV records
# (quotes, doubled quotes, quoted line breaks, \r\n and lone \r), behind
# option bytes that pick each reader, buffer size and quoting; and binary
# files behind option bytes (bit 6 set) that pick fixed-length records'
# record, header and footer lengths.
python3 - "$corpus/delimited_reader_fuzz" <<'PY'
import os, sys
corpus = sys.argv[1]
files = [b"a,b,c\n1,2,3\r\n\"q,\"\"x\"\"\",\"two\nlines\"\r4,,\n",
         b"line one\r\nline two\n\nlast", b"x\ty\n\"unclosed\n", b"\"bad\"quote,1\nok,2"]
for k, data in enumerate(files):
    for option in (0x00, 0x01, 0x23, 0x2b, 0x31, 0x3f):
        open(os.path.join(corpus, f"file.{k}.{option}"), "wb").write(bytes([option]) + data)
binary = [b"HEADER012345FOOTER", bytes(range(256)) * 3, b"\x00" * 100, b"abc"]
for k, data in enumerate(binary):
    for option in (0x40, 0x41, 0x4a, 0x5b, 0xc0, 0xe9, 0xfe):
        open(os.path.join(corpus, f"records.{k}.{option}"), "wb").write(bytes([option]) + data)
PY

for target in "${targets[@]}"; do
  echo "== $target: ${seconds}s"
  log=build/fuzz/$target.log
  rc=0
  build/fuzz/fuzz/$target "$corpus/$target" -max_total_time="$seconds" -timeout=10 -rss_limit_mb=2048 \
    -max_len=65536 -artifact_prefix=build/fuzz/artifacts/ -print_final_stats=1 >"$log" 2>&1 || rc=$?
  grep -E "^#[0-9]+ +DONE|^stat::(number_of_executed_units|average_exec_per_sec|peak_rss_mb)|^INFO: seed corpus|ERROR|SUMMARY" "$log" || true
  [ "$rc" -eq 0 ] || { echo "$target failed (exit $rc); see $log"; exit "$rc"; }
done
