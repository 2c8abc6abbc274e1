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


def test_save_with_a_shard_func_loads_shard_by_shard(tmp_path):
    ds = sluice.Dataset.from_tensor_slices({"x": np.arange(10, dtype=np.int64)})
    assert ds.save(tmp_path / "expr", shard_func=sluice.fn.expression(shard="x % 3")) == 10
    assert [e["x"].item() for e in sluice.Dataset.load(tmp_path / "expr")] == [0, 3, 6, 9, 1, 4, 7, 2, 5, 8]
    # A Python callable; shards 1 and 2 stay empty.
    assert ds.save(tmp_path / "py", shard_func=lambda e: np.int64(3 if e["x"] % 2 == 0 else 0)) == 10
    assert [e["x"].item() for e in sluice.Dataset.load(tmp_path / "py")] == [1, 3, 5, 7, 9, 0, 2, 4, 6, 8]
    assert sorted(p.name for p in (tmp_path / "py").iterdir()) == ["manifest", "shard-00000-00000", "shard-00003-00000"]


def test_save_with_a_bad_shard_index_raises_naming_the_element(tmp_path):
    ds = sluice.Dataset.range(5)
    with pytest.raises(sluice.InvalidArgumentError, match="element 3: shard index -1 is not 0 to 4095"):
        ds.save(tmp_path, shard_func=lambda x: np.int64(2 - x))
    assert not (tmp_path / "manifest").exists()
    with pytest.raises(sluice.InvalidArgumentError, match="shard_func must return one int64 scalar"):
        ds.save(tmp_path, shard_func=sluice.fn.cast("", "int32"))
    with pytest.raises(sluice.InvalidArgumentError, match="give shard_func or shard_count, not both"):
        ds.save(tmp_path, shard_count=2, shard_func=sluice.fn.expression(shard="x"))
    with pytest.raises(TypeError, match="shard_func must be a sluice.fn function or callable"):
        ds.save(tmp_path, shard_func=3)


def test_cache_to_a_directory_computes_once(tmp_path):
    calls = []

    def plus_one(x):
        calls.append(int(x))
        return x + 1

    # A Python function: cached under the fixed name, across pipelines built anew.
    def pipeline():
        return sluice.Dataset.range(5).map(plus_one, output_spec=sluice.TensorSpec([], "int64")).cache(tmp_path / "py")

    assert [v.item() for v in pipeline()] == [1, 2, 3, 4, 5]
    assert [v.item() for v in pipeline().repeat(2)] == [1, 2, 3, 4, 5] * 2
    assert len(calls) == 5
    assert os.listdir(tmp_path / "py") == ["cache"]
    # A traversal stopped early leaves no cache: the next one computes.
    calls.clear()
    stopped = sluice.Dataset.range(5).map(plus_one, output_spec=sluice.TensorSpec([], "int64")).cache(tmp_path / "early")
    it = iter(stopped)
    next(it)
    it.close()
    assert [v.item() for v in stopped] == [1, 2, 3, 4, 5]
    assert [v.item() for v in stopped] == [1, 2, 3, 4, 5]
    assert len(calls) == 1 + 5
    # A pipeline with a spec is kept per spec: another pipeline, another cache.
    for scale in (2.0, 3.0):
        ds = sluice.Dataset.range(3).map(sluice.fn.scale_shift(None, scale)).cache(str(tmp_path / "spec"))
        assert [v.item() for v in ds] == [0.0, scale, 2 * scale]
        assert [v.item() for v in ds] == [0.0, scale, 2 * scale]
    assert len(os.listdir(tmp_path / "spec")) == 2
    # The in-memory cache is still the default.
    assert "cache" in sluice.Dataset.range(2).cache().describe()
