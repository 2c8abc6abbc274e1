"""A Python generator feeding batches, side by side in one run:

  sluice      Dataset.from_generator(gen, output_signature).batch(64)
  dataloader  torch DataLoader(IterableDataset(gen), batch_size=64,
              num_workers=0): its default collate, to torch tensors
  loop        the generator's rows stacked by numpy.stack in plain Python,
              64 at a time: the floor for batching in Python

The generator yields {"x": float32 [32], "y": int64 scalar} rows (the same
arrays every time, so that making them costs nothing). Figures are rows per
second, the median of REPS (default 5) interleaved repetitions; the rows of
all three are checked against each other first.

Run from the repository root after a release build (benchmarks/run_generator.sh):
    PYTHONPATH=build/release/python /usr/bin/python3 benchmarks/generator_bench.py
"""

import os
import statistics
import time

import numpy as np
import torch
from torch.utils.data import DataLoader, IterableDataset

import sluice

ROWS = 200_000
BATCH = 64
X = np.arange(32, dtype=np.float32)
LABELS = [np.int64(i % 10) for i in range(10)]


def rows():
    for i in range(ROWS):
        yield {"x": X, "y": LABELS[i % 10]}


SIGNATURE = {"x": sluice.TensorSpec((32,), "float32"), "y": sluice.TensorSpec((), "int64")}


class Rows(IterableDataset):
    def __iter__(self):
        return rows()


def sluice_batches():
    return sluice.Dataset.from_generator(rows, output_signature=SIGNATURE).batch(BATCH)


def dataloader_batches():
    return DataLoader(Rows(), batch_size=BATCH, num_workers=0)


def loop_batches():
    batch = []
    for row in rows():
        batch.append(row)
        if len(batch) == BATCH:
            yield {"x": np.stack([r["x"] for r in batch]), "y": np.stack([r["y"] for r in batch])}
            batch = []
    if batch:
        yield {"x": np.stack([r["x"] for r in batch]), "y": np.stack([r["y"] for r in batch])}


CASES = {"sluice": sluice_batches, "dataloader": dataloader_batches, "loop": loop_batches}


def check():
    """The three give the same labels, batch by batch, and the same features."""
    first = {name: next(iter(make())) for name, make in CASES.items()}
    for name, batch in first.items():
        assert np.array_equal(np.asarray(batch["x"]), np.stack([X] * BATCH)), name
        assert np.asarray(batch["y"]).tolist() == [i % 10 for i in range(BATCH)], name
    counts = {name: sum(len(b["y"]) for b in make()) for name, make in CASES.items()}
    assert set(counts.values()) == {ROWS}, counts


def main():
    reps = int(os.environ.get("REPS", "5"))
    check()
    times = {name: [] for name in CASES}
    for _ in range(reps):
        for name, make in CASES.items():
            start = time.perf_counter()
            for _ in make():
                pass
            times[name].append(time.perf_counter() - start)
    sluice_rate = ROWS / statistics.median(times["sluice"])
    print(f"generator of {ROWS} rows {{x: float32[32], y: int64}} -> batch({BATCH}), median of {reps}, "
          f"torch {torch.__version__}, {os.cpu_count()} cores")
    print(f"{'case':<12}{'rows/s':>12}{'us/row':>9}{'vs sluice':>11}")
    for name in CASES:
        rate = ROWS / statistics.median(times[name])
        print(f"{name:<12}{rate:>12,.0f}{1e6 / rate:>9.2f}{sluice_rate / rate:>10.2f}x")


if __name__ == "__main__":
    main()
