#!/usr/bin/env bash
# The README's command-line tour: run, describe and profile a pipeline spec;
# convert CSV rows to TFRecord files of tf.train.Example records, verify and
# inspect them; read the CSV file itself with a spec, and binary records in
# CIFAR-10's layout with another. ctest runs it from the repository root
# with the built `sluice` first on PATH.
set -euo pipefail
repo=$PWD

sluice run examples/specs/range_map_filter_batch.pbtxt --take 3   # elements as JSON lines
sluice describe examples/specs/interleave_ranges.pbtxt            # each op, its element spec and cardinality
sluice profile examples/specs/range_map_filter_batch.pbtxt --seconds 1   # per-stage table and verdict

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cd "$work"
printf 'species,body_mass_g,island\n0,3750,Torgersen\n2,5200,Biscoe\n' > penguins.csv
sluice tfrecord write --input penguins.csv --output penguins.tfrecord.gz --compression gzip
sluice tfrecord verify '*.tfrecord.gz'                       # exit status 1 on any damage
sluice tfrecord inspect penguins.tfrecord.gz --records 1     # compression, counts, CRCs, records as JSON, schema
sluice run "$repo/examples/specs/csv_penguins.pbtxt"         # the CSV's rows, batched, as JSON lines
head -c $((3073 * 100)) /dev/urandom > data_batch_1.bin       # 100 records of CIFAR-10's binary layout
sluice describe "$repo/examples/specs/cifar10_binary.pbtxt"   # fixed-length records to float32 [3, 32, 32] images
