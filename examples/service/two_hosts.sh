#!/usr/bin/env bash
# The data service across hosts: the dispatcher on host A, workers on hosts B
# and C reading TFRecord files under their data directory, and a PyTorch job
# reading batches from them (docs/service.md). Each role's command is what
# runs on its host; here the three hosts are this machine (127.0.0.1), which
# tests/python/test_service.py runs. On real hosts set HOST_A, HOST_B and
# HOST_C to their addresses: every role then listens on its host's address,
# which needs the token.
#   SLUICE=build/release/tools/sluice PYTHONPATH=build/release/python bash examples/service/two_hosts.sh
set -euo pipefail
SLUICE=${SLUICE:-sluice}
HOST_A=${HOST_A:-127.0.0.1}
HOST_B=${HOST_B:-127.0.0.1}
HOST_C=${HOST_C:-127.0.0.1}
work=$(mktemp -d)
trap 'kill $(jobs -p) 2>/dev/null || true; wait; rm -rf "$work"' EXIT

# A shared secret, readable by its owner only, copied to every host.
(umask 077 && head -c 32 /dev/urandom | base64 > "$work/token")
# The data the workers read (on B and C: the same files, e.g. on a shared mount).
mkdir -p "$work/data"
for part in 0 1 2 3; do
  { echo "x,label"; for i in $(seq 0 99); do echo "$((part * 100 + i)).5,$((i % 3))"; done; } > "$work/rows.csv"
  "$SLUICE" tfrecord write --input "$work/rows.csv" --output "$work/data/part-$part.tfrecord" > /dev/null
done

# wait_for_address FILE: the address a role printed ("... listening on HOST:PORT").
wait_for_address() {
  for _ in $(seq 100); do
    if grep -q ' listening on ' "$1" 2> /dev/null; then
      sed -n 's/.* listening on //p' "$1" | head -n 1
      return
    fi
    sleep 0.1
  done
  echo "no address in $1" >&2
  return 1
}

# Host A: the dispatcher, its journal in a work directory.
"$SLUICE" dispatcher --port 0 --work-dir "$work/dispatcher" --bind "$HOST_A" \
  --token-file "$work/token" --allow-root "$work/data" > "$work/dispatcher.out" &
dispatcher=$(wait_for_address "$work/dispatcher.out")

# Hosts B and C: a worker each, reading only under the data directory.
"$SLUICE" worker --dispatcher "$dispatcher" --bind "$HOST_B" --token-file "$work/token" \
  --allow-root "$work/data" > "$work/worker_b.out" &
"$SLUICE" worker --dispatcher "$dispatcher" --bind "$HOST_C" --token-file "$work/token" \
  --allow-root "$work/data" > "$work/worker_c.out" &
wait_for_address "$work/worker_b.out" > /dev/null
wait_for_address "$work/worker_c.out" > /dev/null

# The trainer (anywhere that reaches A, B and C): a DataLoader over the service.
cat > "$work/spec.pbtxt" << SPEC
ops { list_files { patterns: "$work/data/part-*.tfrecord" shuffle: false } }
ops { interleave { function { ops { element_source { kind: TFRECORD } } } cycle_length: 2 } }
ops { batch { batch_size: 25 } }
ops {
  map {
    fn {
      parse_example {
        features { key: "x" dtype: "float32" }
        features { key: "label" dtype: "int64" }
      }
    }
  }
}
SPEC
DISPATCHER=$dispatcher SPEC=$work/spec.pbtxt TOKEN_FILE=$work/token /usr/bin/python3 - << 'PY'
import os

import torch

import sluice
import sluice.torch

ds = sluice.Dataset.from_service(
    os.environ["DISPATCHER"],
    spec=os.environ["SPEC"],
    processing_mode="distributed_epoch",
    token_file=os.environ["TOKEN_FILE"],
)
loader = torch.utils.data.DataLoader(sluice.torch.IterableDataset(ds), batch_size=None)
seen = 0
for batch in loader:
    assert batch["x"].shape == (25,) and batch["label"].dtype == torch.int64
    seen += len(batch["x"])
print(f"read {seen} examples from the service")
assert seen == 400
PY
