"""sluice.Dataset.save, load and snapshot: what save writes load reads back,
and a snapshot's second traversal reads instead of computing."""

import os

import numpy as np
import pytest

import sluice


def test_save_then_load_round_trips_strings_and_ragged_components(tmp_path):
    ds = sluice.Dataset.from_tensor_slices({"x": np.arange(5, dtype=np.int64), "w": np.array([b"a", b"", b"ccc", b"d", b"e"])})
    path = tmp_path / "saved"
    assert ds.save(path, compression="GZIP", shard_count=2) == 5
    loaded = sluice.Dataset.load(path)
    assert loaded.element_spec == ds.element_spec
    assert loaded.cardinality() == 5
    got = [(e["x"].item(), e["w"]) for e in loaded]
    assert got == [(0, b"a"), (1, b""), (2, b"ccc"), (3, b"d"), (4, b"e")]
    ragged = sluice.Dataset.range(4).map(lambda x: np.arange(x, dtype=np.float32), output_spec=sluice.TensorSpec([None], "float32"))
    ragged.save(tmp_path / "ragged")
    assert [v.tolist() for v in sluice.Dataset.load(tmp_path / "ragged")] == [[], [0.0], [0.0, 1.0], [0.0, 1.0, 2.0]]


def test_load_errors(tmp_path):
    with pytest.raises(sluice.NotFoundError, match="has no manifest"):
        sluice.Dataset.load(tmp_path)
    sluice.Dataset.range(3).save(tmp_path)
    with pytest.raises(sluice.InvalidArgumentError, match="is not the snapshot's"):
        sluice.Dataset.load(tmp_path, element_spec=sluice.TensorSpec([], "int32"))
    assert [v.item() for v in sluice.Dataset.load(tmp_path, element_spec=sluice.TensorSpec([], "int64"))] == [0, 1, 2]
    with open(os.path.join(tmp_path, "shard-00000-00000"), "r+b") as segment:
        segment.truncate(20)
    with pytest.raises(sluice.DataLossError, match="truncated at byte offset 20"):
        list(sluice.Dataset.load(tmp_path))


def test_snapshot_second_traversal_calls_the_function_zero_times(tmp_path):
    calls = []

    def times_ten(x):
        calls.append(int(x))
        return x * 10

    def pipeline():
        spec = sluice.TensorSpec([], "int64")
        return sluice.Dataset.range(6).map(times_ten, output_spec=spec).snapshot(tmp_path, fingerprint="times-ten")

    assert [v.item() for v in pipeline()] == [0, 10, 20, 30, 40, 50]
    assert len(calls) == 6
    assert [v.item() for v in pipeline()] == [0, 10, 20, 30, 40, 50]
    assert len(calls) == 6
    with pytest.raises(sluice.InvalidArgumentError, match="give a fingerprint"):
        sluice.Dataset.range(6).map(times_ten).snapshot(tmp_path)


def test_snapshot_of_a_spec_pipeline_round_trips_its_spec(tmp_path):
    ds = sluice.Dataset.range(4).snapshot(tmp_path, compression="ZLIB")
    assert "snapshot {" in ds.to_spec()
    assert [v.item() for v in sluice.Dataset.from_spec(ds.to_spec())] == [0, 1, 2, 3]
    assert [v.item() for v in ds] == [0, 1, 2, 3]
