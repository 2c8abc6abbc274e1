#!/usr/bin/env bash
# TFRecord reading and tf.train.Example parsing, each side by side in one run:
#   tfrecord_read_bench   read()/verified limit/RecordReader/dataset, GB/s
#   tfrecord_parse_bench  protobuf vs ExampleParser (single, batch) in memory,
#                         and end to end from a file, records/s
# Builds the release preset. The parse benchmark raises glibc's trim and mmap
# thresholds (mallopt) so that it measures parsing rather than page faults;
# PARSE_FLAGS="--malloc default" measures with glibc's defaults.
# RUNS (default 7) sets the interleaved runs per row of both.
set -euo pipefail
cd "$(dirname "$0")/.."
cmake --preset release >/dev/null && cmake --build --preset release --target tfrecord_read_bench tfrecord_parse_bench >/dev/null

echo "== tfrecord_read_bench"
build/release/benchmarks/tfrecord_read_bench --runs "${RUNS:-7}" ${READ_FLAGS:-}
echo
echo "== tfrecord_parse_bench"
build/release/benchmarks/tfrecord_parse_bench --runs "${RUNS:-7}" ${PARSE_FLAGS:-}
