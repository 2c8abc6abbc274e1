"""Reading text, CSV and fixed-length record files into batches, side by
side in one run:

  csv:  sluice.Dataset.csv(...).batch(4096)  vs  pandas.read_csv (its C
        engine, the same dtypes)  vs  Python's csv module with numpy
  text: sluice.Dataset.text_line(...).batch(4096)  vs  iterating the open
        file's lines in Python (rstrip of b"\\r\\n")
  fixed-length records: sluice.Dataset.fixed_length_record(path, 3073)
        .map(decode_raw uint8).batch(256)  vs  numpy.fromfile of the whole
        file reshaped to [N, 3073] and cut into batches  vs  a Python loop of
        f.read(3073) + numpy.frombuffer per record, stacked per batch

over generated files (ROWS rows, default 1M: an int64 id, two float32, a
float64 and a short string per row; and RECORDS CIFAR-10-sized records,
default 50000, 154 MB, as its five training batches hold). Every case reads
every row into arrays (or a DataFrame); each is one thread. Reports the median of REPS (default 5)
interleaved repetitions, rows/s and MB/s, and Sluice's ratio to each peer.
Run by benchmarks/run_file_sources.sh."""

import csv
import os
import statistics
import sys
import tempfile
import time

import numpy as np

import sluice

ROWS = int(os.environ.get("ROWS", 1_000_000))
REPS = int(os.environ.get("REPS", 5))
RECORDS = int(os.environ.get("RECORDS", 50_000))
RECORD_BYTES = 3073  # CIFAR-10: a label byte, then 32x32x3 pixels


def make_csv(path):
    rng = np.random.default_rng(0)
    ids = np.arange(ROWS)
    x, y, z = rng.random(ROWS, np.float32), rng.normal(size=ROWS).astype(np.float32), rng.random(ROWS) * 1e6
    words = np.array(["alpha", "beta", "gamma", "delta", "epsilon"])[rng.integers(0, 5, ROWS)]
    with open(path, "w") as f:
        f.write("id,x,y,z,word\n")
        for row in zip(ids, x, y, z, words):
            f.write("%d,%.6g,%.6g,%.9g,%s\n" % row)


def sluice_csv(path):
    ds = sluice.Dataset.csv(path, [np.int64(0), np.float32(0), np.float32(0), np.float64(0), ""], header=True)
    rows = 0
    for batch in ds.batch(4096):
        rows += len(batch[0])
    return rows


def pandas_csv(path):
    import pandas

    frame = pandas.read_csv(path, dtype={"id": np.int64, "x": np.float32, "y": np.float32, "z": np.float64, "word": object})
    return len(frame)


def python_csv(path):
    columns = [[], [], [], [], []]
    with open(path, newline="") as f:
        reader = csv.reader(f)
        next(reader)
        for row in reader:
            for column, value in zip(columns, row):
                column.append(value)
    arrays = [np.array(columns[0], np.int64), np.array(columns[1], np.float32), np.array(columns[2], np.float32),
              np.array(columns[3], np.float64), np.array(columns[4], object)]
    return len(arrays[0])


def sluice_lines(path):
    rows = 0
    for batch in sluice.Dataset.text_line(path).batch(4096):
        rows += len(batch)
    return rows


def python_lines(path):
    with open(path, "rb") as f:
        return len([line.rstrip(b"\r\n") for line in f])


def record_batches(path):
    decode = sluice.fn.decode_raw(None, "uint8", fixed_length=RECORD_BYTES)
    return sluice.Dataset.fixed_length_record(path, RECORD_BYTES).map(decode).batch(256)


def sluice_records(path):
    return sum(len(batch) for batch in record_batches(path))


def check_records(path):
    """Sluice's batches hold the file's bytes, as numpy reads them."""
    expected = np.fromfile(path, np.uint8).reshape(-1, RECORD_BYTES)
    got = np.concatenate(list(record_batches(path)))
    assert np.array_equal(got, expected), "fixed_length_record batches differ from the file"


def numpy_records(path):
    records = np.fromfile(path, np.uint8).reshape(-1, RECORD_BYTES)
    return sum(len(records[i : i + 256]) for i in range(0, len(records), 256))


def python_records(path):
    rows = 0
    with open(path, "rb") as f:
        while True:
            batch = []
            for _ in range(256):
                record = f.read(RECORD_BYTES)
                if len(record) < RECORD_BYTES:
                    break
                batch.append(np.frombuffer(record, np.uint8))
            if not batch:
                return rows
            rows += len(np.stack(batch))


def measure(cases, path):
    times = {name: [] for name in cases}
    rows = {}
    for name, run in cases.items():
        rows[name] = run(path)  # page cache, allocator warm-up
    for _ in range(REPS):
        for name, run in cases.items():
            start = time.perf_counter()
            got = run(path)
            times[name].append(time.perf_counter() - start)
            assert got == rows[name], (name, got, rows[name])
    return {name: statistics.median(t) for name, t in times.items()}, rows


def main():
    have_pandas = True
    try:
        import pandas  # noqa: F401
    except ImportError:
        have_pandas = False
        print("pandas is not installed (python3-pandas): its row is left out")
    cores = open("/proc/self/status").read().split("Cpus_allowed_list:")[1].split()[0]
    with tempfile.TemporaryDirectory() as work:
        path = os.path.join(work, "table.csv")
        make_csv(path)
        megabytes = os.path.getsize(path) / 1e6
        print(f"{ROWS} rows, {megabytes:.1f} MB; cores {cores}; medians of {REPS} interleaved repetitions")
        csv_cases = {"sluice csv -> batch(4096)": sluice_csv, "python csv module + numpy": python_csv}
        if have_pandas:
            csv_cases["pandas.read_csv (C engine)"] = pandas_csv
        line_cases = {"sluice text_line -> batch(4096)": sluice_lines, "python file lines": python_lines}
        records_path = os.path.join(work, "data_batch.bin")
        np.random.default_rng(0).integers(0, 256, RECORDS * RECORD_BYTES, dtype=np.uint8).tofile(records_path)
        check_records(records_path)
        record_cases = {
            "sluice fixed_length_record": sluice_records,
            "numpy.fromfile whole file": numpy_records,
            "python read() + frombuffer": python_records,
        }
        for title, cases, source in (("csv", csv_cases, path), ("text lines", line_cases, path),
                                     ("fixed-length records", record_cases, records_path)):
            megabytes = os.path.getsize(source) / 1e6
            medians, rows = measure(cases, source)
            print(f"\n{title:<34} {'s':>8} {'rows/s':>12} {'MB/s':>8} {'time/sluice':>12}")
            first = next(iter(medians.values()))
            for name, seconds in medians.items():
                print(f"{name:<34} {seconds:8.3f} {rows[name] / seconds:12,.0f} {megabytes / seconds:8.1f} "
                      f"{seconds / first:12.2f}")


if __name__ == "__main__":
    sys.exit(main())
