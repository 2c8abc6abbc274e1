#!/usr/bin/env python3
"""Python iterating Sluice pipelines, against the same pipelines in C++ and
against the PyTorch DataLoader, in one run (benchmarks/run_python_pipeline.sh).

  from_tensor_slices({"x": N x 32 float32, "y": N int64}) -> batch(B) [-> prefetch(AUTOTUNE | 64)]

for B = 64 (8 KiB of x a batch) and B = 512 (64 KiB): batches/s of a Python
`for` loop over the dataset (the arrays are made and dropped, not read),
beside pipeline_overhead_bench's rate for the same pipeline in C++ (run as a
subprocess just before, same N, median of REPS epochs); and the DataLoader
(num_workers=0) over a TensorDataset of the same data with batch_size=64.
The prefetch(64) rows show what the autotuned buffer's size does to both.
The cost of a Python next() is measured on from_tensors(x, y).repeat(),
whose C++ side costs ~50 ns: the rest is handing an element to Python.

Those batches are views of the source (from_slices hands out runs), so C++
does almost nothing per batch. The same-graph cases are 64 KiB batches that
cost work (a map, a shuffle's gather): one dataset traversed alternately by
C++ alone (Iterator._advance, no conversion to numpy) and by a Python loop.

Prints a line per measurement and a summary:
  batches/s for each, Python/C++ (target >= 0.9 for 64 KiB batches, judged
  on the same-graph cases),
  Sluice-Python/DataLoader at batch 64 (target >= 50x), us per next().

Environment: ELEMENTS (1,000,000), REPS (5), SLUICE_BENCH_BIN (the
pipeline_overhead_bench binary; default build/release/benchmarks/...),
IDLE_WAIT_S and FOREIGN_MAX (shared/bench/cpuwatch.py). Run with Debian's
interpreter and PYTHONPATH=build/release/python.
"""
import math
import os
import subprocess
import sys
import time

import numpy as np

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(ROOT, "..", "shared", "bench"))
import cpuwatch  # noqa: E402

import sluice  # noqa: E402

N = int(os.environ.get("ELEMENTS", "1000000"))
REPS = int(os.environ.get("REPS", "5"))
CXX_BENCH = os.environ.get("SLUICE_BENCH_BIN", os.path.join(ROOT, "build", "release", "benchmarks", "pipeline_overhead_bench"))
NEXT_CALLS = 200_000

rng = np.random.default_rng(0)
X = rng.standard_normal((N, 32), dtype=np.float32)
Y = rng.integers(0, 5, N)


def cxx_batches_per_s(batch_size, prefetch, name):
    """pipeline_overhead_bench's median rate for `name`, in batches/s."""
    command = [CXX_BENCH, "--elements", str(N), "--epochs", str(REPS), "--batch-size", str(batch_size)]
    if prefetch is not None:
        command += ["--prefetch", str(prefetch)]
    out = subprocess.run(command, check=True, capture_output=True, text=True).stdout
    for line in out.splitlines():
        if line.startswith(name + " "):
            elements_per_s = float(line.split()[-2])
            return elements_per_s * math.ceil(N / batch_size) / N
    raise RuntimeError(f"{CXX_BENCH} printed no line for {name!r}:\n{out}")


def count(iterable):
    n = 0
    for _ in iterable:
        n += 1
    return n


def batches_per_s(label, fn, batches):
    """Median batches/s of fn() over REPS clean repeats (cpuwatch)."""
    return cpuwatch.report(label, batches, "batches/s", cpuwatch.time_runs(fn, reps=REPS, warm=1))


def sluice_case(batch_size, prefetch):
    """prefetch: False (none), None (AUTOTUNE) or a buffer size."""
    name = f"from_slices -> batch({batch_size})"
    ds = sluice.Dataset.from_tensor_slices({"x": X, "y": Y}).batch(batch_size)
    if prefetch is not False:
        name += " -> prefetch" if prefetch is None else f" -> prefetch({prefetch})"
        ds = ds.prefetch(sluice.AUTOTUNE if prefetch is None else prefetch)
    batches = math.ceil(N / batch_size)

    def epoch():
        assert count(ds) == batches

    cxx = cxx_batches_per_s(batch_size, prefetch or None, name)
    print(f"{'C++ ' + name:<60} median {cxx:12.1f} batches/s  (pipeline_overhead_bench, {REPS} epochs)", flush=True)
    py = batches_per_s("Python " + name, epoch, batches)
    return name, batch_size * X.itemsize * X.shape[1], py, cxx


def same_graph_case(name, ds):
    """One graph traversed by C++ alone (Iterator._advance: no conversion) and
    by a Python loop, alternating, REPS each; returns (name, python, cxx)."""
    batches = ds.cardinality()

    def cxx_epoch():
        assert iter(ds)._advance(batches + 1) == batches

    def py_epoch():
        assert count(ds) == batches

    cxx = batches_per_s("C++ (same graph) " + name, cxx_epoch, batches)
    py = batches_per_s("Python (same graph) " + name, py_epoch, batches)
    return name, py, cxx


def dataloader_batch64():
    import torch
    from torch.utils.data import DataLoader, TensorDataset

    loader = DataLoader(TensorDataset(torch.from_numpy(X), torch.from_numpy(Y)), batch_size=64, num_workers=0)
    batches = math.ceil(N / 64)

    def epoch():
        assert count(loader) == batches

    return batches_per_s("torch DataLoader workers=0 TensorDataset batch_size=64", epoch, batches)


def next_cost_us(element):
    """Microseconds per next() on from_tensors(element).repeat()."""
    ds = sluice.Dataset.from_tensors(element).repeat().take(NEXT_CALLS)
    runs = cpuwatch.time_runs(lambda: count(ds), reps=REPS, warm=1)
    rate = cpuwatch.report(f"Python next() on from_tensors({'dict' if isinstance(element, dict) else 'array'}).repeat()",
                           NEXT_CALLS, "calls/s", runs)
    return 1e6 / rate


def main():
    print(f"{time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())}, {os.cpu_count()} cores, load average "
          f"{' '.join(open('/proc/loadavg').read().split()[:3])}; {N} elements of 32 float32 + int64 label, "
          f"medians of {REPS}", flush=True)
    cases = [sluice_case(b, p) for b in (64, 512) for p in (False, None, 64)]
    source = sluice.Dataset.from_tensor_slices({"x": X, "y": Y})
    scale = sluice.fn.scale_shift("x", 2.0, 1.0)
    same_graph = [
        same_graph_case("from_slices -> map(scale_shift) -> batch(512) -> prefetch",
                        source.map(scale).batch(512).prefetch(sluice.AUTOTUNE)),
        same_graph_case("from_slices -> shuffle(10000) -> batch(512) -> prefetch",
                        source.shuffle(10000, seed=1).batch(512).prefetch(sluice.AUTOTUNE)),
        same_graph_case("from_slices -> batch(512) -> map(scale_shift) -> prefetch",
                        source.batch(512).map(scale).prefetch(sluice.AUTOTUNE)),
    ]
    torch_rate = dataloader_batch64()
    next_dict = next_cost_us({"x": np.zeros(32, np.float32), "y": np.int64(0)})
    next_array = next_cost_us(np.zeros(32, np.float32))

    print()
    print(f"{'pipeline':<44} {'batch':>8} {'Python/s':>11} {'C++/s':>11} {'Py/C++':>7} {'+us/batch':>10}")
    for name, batch_bytes, py, cxx in cases:
        print(f"{name:<44} {batch_bytes // 1024:>5} KiB {py:>11.0f} {cxx:>11.0f} {py / cxx:>7.2f} "
              f"{1e6 / py - 1e6 / cxx:>10.2f}")
    print("(+us/batch: Python's time per batch minus C++'s. These batches are views of the source: C++ does")
    print(" ~no work per batch, so the ratio is Python's next() against nothing; see the same-graph cases.)")
    print()
    print(f"{'same graph, 64 KiB batches that cost work':<60} {'Python/s':>10} {'C++/s':>10} {'Py/C++':>7}")
    for name, py, cxx in same_graph:
        print(f"{name:<60} {py:>10.0f} {cxx:>10.0f} {py / cxx:>7.2f}")
    worst = min(py / cxx for _, py, cxx in same_graph)
    print(f"Python/C++ on 64 KiB batches (same graph, worst case): {worst:.2f} (target >= 0.9: "
          f"{'met' if worst >= 0.9 else 'missed'})")
    sluice64 = next(py for name, _, py, _ in cases if name == "from_slices -> batch(64) -> prefetch")
    ratio = sluice64 / torch_rate
    print(f"Sluice Python batch(64) -> prefetch / DataLoader batch_size=64: {sluice64:.0f} / {torch_rate:.0f} = "
          f"{ratio:.1f}x (target >= 50x: {'met' if ratio >= 50 else 'missed'})")
    print(f"Python next(): {next_dict:.2f} us for a dict of two arrays, {next_array:.2f} us for one array")
    for name, batch_bytes, py, cxx in cases:
        print(f"RESULT {name.replace(' ', '')} batch_kib={batch_bytes // 1024} python={py:.0f} cxx={cxx:.0f} "
              f"ratio={py / cxx:.3f}")
    for name, py, cxx in same_graph:
        print(f"RESULT same_graph {name.replace(' ', '')} python={py:.0f} cxx={cxx:.0f} ratio={py / cxx:.3f}")
    print(f"RESULT dataloader_batch64 sluice={sluice64:.0f} torch={torch_rate:.0f} ratio={sluice64 / torch_rate:.1f}")
    print(f"RESULT next_us dict={next_dict:.3f} array={next_array:.3f}")


if __name__ == "__main__":
    main()
