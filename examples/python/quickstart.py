"""Sluice from Python in one page: build a pipeline, iterate it as numpy,
save and resume its position, and write it as a pipeline spec.

Run from the build tree:
    PYTHONPATH=build/release/python /usr/bin/python3 examples/python/quickstart.py
"""

import numpy as np

import sluice

# 1000 examples of 32 float32 features and an int64 label.
rng = np.random.default_rng(0)
features = rng.standard_normal((1000, 32)).astype(np.float32)
labels = rng.integers(0, 10, size=1000)

ds = (
    sluice.Dataset.from_tensor_slices({"x": features, "y": labels})
    .shuffle(1000, seed=42)
    .map(sluice.fn.scale_shift("x", 0.5, 0.0), num_parallel_calls=sluice.AUTOTUNE)  # runs in C++, no GIL
    .map(sluice.fn.one_hot("y", 10))
    .batch(64, drop_remainder=True)
    .prefetch(sluice.AUTOTUNE)
)
print(ds)  # the graph, with each op's element spec and cardinality
print("element_spec:", ds.element_spec)
print("batches per epoch:", len(ds))

# Iterate: each batch is a dict of read-only numpy arrays viewing Sluice's buffers.
total = 0
for batch in ds:
    assert batch["x"].shape == (64, 32) and batch["y"].shape == (64, 10)
    total += batch["x"].shape[0]
print("examples seen:", total)

# Save the position mid-epoch and resume it exactly, here or in another process.
it = iter(ds)
for _ in range(5):
    next(it)
state = it.state_dict()
rest = [b["x"] for b in it]
resumed = [b["x"] for b in ds.iterator(state)]
assert len(rest) == len(resumed) and all(np.array_equal(a, b) for a, b in zip(rest, resumed))
print(f"resumed from a {len(state)}-byte state: {len(resumed)} batches, identical")

# Built-in functions serialize: the whole pipeline as a spec the `sluice` CLI runs.
spec = ds.to_spec()
again = sluice.Dataset.from_spec(spec)
assert again.element_spec == ds.element_spec
print("spec:", len(spec.splitlines()), "lines of protobuf text")

# Errors are exception classes that name what went wrong.
try:
    ds.batch(0)
except ValueError as error:
    print("error:", error)
