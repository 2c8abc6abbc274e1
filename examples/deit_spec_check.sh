#!/usr/bin/env bash
# Checks examples/specs/deit_train.pbtxt: `sluice` runs it over the records
# imagenet_pipeline writes, giving batches of [32, 3, 224, 224] float32
# images and [32, 10] float32 mixed label rows.
#   deit_spec_check.sh IMAGENET_PIPELINE SLUICE SPEC
set -euo pipefail
pipeline=$1 sluice=$2 spec=$3
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
cd "$dir"
"$pipeline" --dir imagenet_records --keep >/dev/null
"$sluice" describe "$spec" | head -1 | grep -F 'image/encoded: float32[32, 3, 224, 224], image/class/label: float32[32, 10])'
batches=$("$sluice" run "$spec" --take 2 | wc -l)
[[ $batches == 2 ]] || { echo "expected 2 batches, got $batches"; exit 1; }
echo "deit_train.pbtxt: 2 batches"
