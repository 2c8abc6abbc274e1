"""The code of docs/python.md as one program that ctest runs: every Python
block of that page is an excerpt of this file (tests/python/test_docs.py).

Run from the build tree:
    PYTHONPATH=build/release/python /usr/bin/python3 examples/python/guide.py
"""

import os
import struct
import tempfile

import numpy as np
import torch

import sluice

os.chdir(tempfile.mkdtemp(prefix="sluice_guide_"))


def masked_crc32c(data):
    """TFRecord's checksum (tfrecord/record_format.h): CRC32C, rotated right
    by 15 bits, plus 0xa282ead8."""
    crc = 0xFFFFFFFF
    for byte in data:
        crc ^= byte
        for _ in range(8):
            crc = (crc >> 1) ^ (0x82F63B78 if crc & 1 else 0)
    crc ^= 0xFFFFFFFF
    return (((crc >> 15) | (crc << 17)) + 0xA282EAD8) & 0xFFFFFFFF


def write_tfrecord(path, records):
    with open(path, "wb") as out:
        for record in records:
            length = struct.pack("<Q", len(record))
            out.write(length + struct.pack("<I", masked_crc32c(length)))
            out.write(record + struct.pack("<I", masked_crc32c(record)))


os.mkdir("data")
for shard in range(4):
    write_tfrecord(f"data/shard-{shard}.tfrecord", [b"x" * (shard + i) for i in range(5)])

# Functions: Python callables in interleave, map and filter.
ds = sluice.Dataset.list_files("data/*.tfrecord").interleave(
    lambda path: sluice.Dataset.tfrecord(path), cycle_length=4, num_parallel_calls=4)
ds = ds.map(lambda r: {"n": np.int64(len(r))}, output_spec={"n": sluice.TensorSpec((), "int64")})
ds = ds.filter(lambda e: e["n"] > 0)
assert sorted(int(e["n"]) for e in ds) == sorted(s + i for s in range(4) for i in range(5) if s + i > 0)

# A Python generator as the source: a fresh one per traversal.
def sentences(n):
    for i in range(n):
        yield {"text": f"sentence {i}", "label": i % 2}


ds = sluice.Dataset.from_generator(
    sentences, args=(4,),
    output_signature={"text": sluice.TensorSpec((), "string"), "label": sluice.TensorSpec((), "int32")})
assert [int(e["label"]) for e in ds] == [0, 1, 0, 1]

# Iterating.
for batch in ds: ...                 # dict / tuple / array of numpy arrays
it = iter(ds); batch = next(it)

# Checkpoints.
ds = sluice.Dataset.range(100).shuffle(16, seed=1).batch(4).prefetch(2)
it = iter(ds)
...
state = it.state_dict()           # bytes: shuffle buffers, parallel maps and prefetch included
it = ds.iterator(state)           # resumes exactly, in this process or another
it.load_state_dict(state)         # the same on an existing iterator
assert len(list(it)) == 25

# PyTorch.
ds = sluice.Dataset.from_tensor_slices({"x": np.ones((256, 4), np.float32)}).batch(32)
model = torch.nn.Linear(4, 1)
import sluice.torch

for batch in sluice.torch.iterate(ds):         # torch tensors sharing Sluice's buffers (DLPack, no copy)
    loss = model(batch["x"]).sum()

loader = torch.utils.data.DataLoader(sluice.torch.IterableDataset(ds), batch_size=None)
assert sum(b["x"].shape[0] for b in loader) == 256

# Profiling.
def train_step(batch):
    model(torch.from_numpy(np.array(batch["x"]))).sum().backward()


report = ds.profile(seconds=5)            # or steps=N; a sluice.ProfileReport
print(report)                             # the per-stage table and the verdict, as `sluice profile`
report.verdict.kind, report.verdict.stage_name, report.verdict.remedy
report.json, report.to_dict(), report.save_trace("trace.json")   # Perfetto / chrome://tracing

with sluice.profiler.profile(ds) as prof: # a training loop: each step is timed
    for batch in prof:
        train_step(batch)
print(prof.report().consumer)             # steps, mean step time, wait share, input_bound
