#!/usr/bin/env python3
"""The PyTorch side of benchmarks/run_pipeline_overhead.sh: the same work as
pipeline_overhead_bench, with the DataLoader (num_workers=0, no shuffle).

  TensorDataset(1,000,000 x 32 float32, int64 labels) -> DataLoader(batch_size=64)
  and the same with an identity per-sample transform (the map(identity) case).

Prints one line per case: "RESULT <case> <samples/s median>".
Run with Debian's interpreter (/usr/bin/python3), which has python3-torch.
"""
import os
import sys

import torch
from torch.utils.data import DataLoader, Dataset, TensorDataset

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "shared", "bench"))
import cpuwatch  # noqa: E402

N = int(os.environ.get("ELEMENTS", "1000000"))
REPS = int(os.environ.get("REPS", "3"))
BATCH = 64

g = torch.Generator().manual_seed(0)
X = torch.randn(N, 32, generator=g)
Y = torch.randint(0, 5, (N,), generator=g)


class Identity(Dataset):
    """TensorDataset with a per-sample identity transform (map(identity))."""

    def __init__(self, x, y):
        self.x, self.y = x, y

    def __len__(self):
        return len(self.x)

    def __getitem__(self, i):
        return self.x[i], self.y[i]


def epoch(loader):
    n = 0
    for xb, _ in loader:
        n += xb.shape[0]
    assert n == N, (n, N)


for name, ds in (("batch", TensorDataset(X, Y)), ("map_identity_batch", Identity(X, Y))):
    loader = DataLoader(ds, batch_size=BATCH, shuffle=False, num_workers=0)
    runs = cpuwatch.time_runs(lambda: epoch(loader), reps=REPS, warm=1)
    med = cpuwatch.report(f"torch DataLoader workers=0 {name}", N, "samples/s", runs)
    print(f"RESULT {name} {med:.0f}", flush=True)
