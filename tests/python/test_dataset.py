"""sluice.Dataset: sources, ops, element specs, specs, options and errors."""

import os
import subprocess

import numpy as np
import pytest

import sluice

TESTDATA = os.path.join("..", "shared", "testdata", "tfrecord")


def values(ds):
    return [v.tolist() for v in ds]


def test_from_tensor_slices_dict_tuple_and_array():
    x = np.arange(12, dtype=np.float32).reshape(6, 2)
    y = np.arange(6)
    named = list(sluice.Dataset.from_tensor_slices({"x": x, "y": y}))
    assert len(named) == 6
    assert named[2]["x"].tolist() == [4.0, 5.0] and named[2]["y"] == 2
    assert named[2]["x"].dtype == np.float32 and named[2]["y"].dtype == np.int64
    positional = list(sluice.Dataset.from_tensor_slices((x, y)))
    assert isinstance(positional[0], tuple) and positional[5][1] == 5
    assert values(sluice.Dataset.from_tensor_slices([1, 2, 3])) == [1, 2, 3]
    # Big-endian and strided arrays keep their values.
    assert values(sluice.Dataset.from_tensor_slices(np.array([1, 2], dtype=">i8"))) == [1, 2]
    assert values(sluice.Dataset.from_tensor_slices(np.array([1.5, -2], dtype=">f4"))) == [1.5, -2.0]
    assert values(sluice.Dataset.from_tensor_slices(x[:, 1])) == [1.0, 3.0, 5.0, 7.0, 9.0, 11.0]


def test_from_tensors_and_strings():
    (only,) = list(sluice.Dataset.from_tensors({"a": np.ones((2, 3), np.float32), "s": [b"ab", "cd"]}))
    assert only["a"].shape == (2, 3)
    assert only["s"].dtype == object and only["s"].tolist() == [b"ab", b"cd"]


def test_range_forms_and_dtype():
    assert values(sluice.Dataset.range(4)) == [0, 1, 2, 3]
    assert values(sluice.Dataset.range(2, 5)) == [2, 3, 4]
    assert values(sluice.Dataset.range(10, 0, -3)) == [10, 7, 4, 1]
    (first,) = list(sluice.Dataset.range(1, dtype="int32"))
    assert first.dtype == np.int32
    with pytest.raises(ValueError, match="step"):
        sluice.Dataset.range(0, 5, 0)
    with pytest.raises(TypeError):
        sluice.Dataset.range()


def test_every_op():
    ds = sluice.Dataset.range(10)
    assert values(ds.filter(sluice.fn.less("", 3))) == [0, 1, 2]
    assert values(ds.take(3).repeat(2)) == [0, 1, 2, 0, 1, 2]
    assert values(ds.skip(8)) == [8, 9]
    assert values(ds.shard(3, 1)) == [1, 4, 7]
    assert [b.tolist() for b in ds.batch(4)] == [[0, 1, 2, 3], [4, 5, 6, 7], [8, 9]]
    assert [b.tolist() for b in ds.batch(4, drop_remainder=True)] == [[0, 1, 2, 3], [4, 5, 6, 7]]
    assert values(ds.batch(3).unbatch()) == list(range(10))
    assert values(ds.take(2).concatenate(ds.skip(8))) == [0, 1, 8, 9]
    assert [(int(i), int(v)) for i, v in ds.skip(5).enumerate(start=10)] == [(10, 5), (11, 6), (12, 7), (13, 8), (14, 9)]
    assert values(ds.cache().repeat(2)) == list(range(10)) * 2
    assert values(ds.prefetch(sluice.AUTOTUNE)) == list(range(10))
    assert sorted(values(ds.shuffle(10, seed=1))) == list(range(10))
    assert values(ds.shuffle(10, seed=1)) == values(ds.shuffle(10, seed=1))
    assert values(ds.map(sluice.fn.scale_shift("", 2.0, 1.0), num_parallel_calls=2)) == [2 * v + 1 for v in range(10)]
    assert [b.tolist() for b in ds.batch(4, num_parallel_calls=2, deterministic=True)][0] == [0, 1, 2, 3]
    zipped = list(sluice.Dataset.zip(ds, ds.skip(1)))
    assert len(zipped) == 9 and [int(v) for v in zipped[0]] == [0, 1]
    assert len(list(sluice.Dataset.zip((ds, ds)))) == 10
    assert values(ds.apply(lambda d: d.take(1))) == [0]


def test_builtin_functions():
    ds = sluice.Dataset.from_tensor_slices({"x": np.arange(6, dtype=np.int64).reshape(3, 2), "y": np.arange(3)})
    (first,) = list(ds.map(sluice.fn.cast("x", "float32")).take(1))
    assert first["x"].dtype == np.float32
    (first,) = list(ds.map(sluice.fn.reshape("x", [2, 1])).take(1))
    assert first["x"].shape == (2, 1)
    (first,) = list(ds.map(sluice.fn.one_hot("y", 4)).take(1))
    assert first["y"].tolist() == [1.0, 0.0, 0.0, 0.0]
    (first,) = list(ds.map(sluice.fn.select("y")).map(sluice.fn.rename("label")).take(1))
    assert list(first.keys()) == ["label"]
    assert [int(e["y"]) for e in ds.filter(sluice.fn.greater_equal("y", 1))] == [1, 2]


def test_padded_batch():
    ds = sluice.Dataset.from_tensor_slices([0, 1, 2, 3]).map(sluice.fn.one_hot("", 3))
    ragged = sluice.Dataset.from_tensors(np.arange(2)).concatenate(sluice.Dataset.from_tensors(np.arange(3)))
    (batch,) = list(ragged.padded_batch(2, padding_values=-1))
    assert batch.tolist() == [[0, 1, -1], [0, 1, 2]]
    (batch,) = list(ragged.padded_batch(2, padded_shapes=[4]))
    assert batch.tolist() == [[0, 1, 0, 0], [0, 1, 2, 0]]
    assert len(list(ds.padded_batch(3))) == 2


def test_ragged_batch_gives_values_and_row_lengths():
    tokens = _ragged([[1], [2, 2], [], [3, 3, 3]])
    values, row_lengths = next(iter(tokens.ragged_batch(3)))
    assert values.tolist() == [1, 2, 2] and row_lengths.tolist() == [1, 2, 0]
    batches = list(sluice.Dataset.zip((tokens, sluice.Dataset.range(4))).map(sluice.fn.rename("t", "n")).ragged_batch(2))
    assert [b["t"].tolist() for b in batches] == [[1, 2, 2], [3, 3, 3]]
    assert [b["t/row_lengths"].tolist() for b in batches] == [[1, 2], [0, 3]]
    assert [b["n"].tolist() for b in batches] == [[0, 1], [2, 3]]
    assert len(list(tokens.ragged_batch(3, drop_remainder=True))) == 1
    with pytest.raises(ValueError, match="batch_size"):
        tokens.ragged_batch(0)


def test_sparse_batch_gives_the_parts_of_a_sparse_tensor():
    # tf.data's documented example.
    words = sluice.Dataset.from_generator(
        lambda: iter([{"w": ["a", "b", "c"]}, {"w": ["a", "b"]}, {"w": ["a", "b", "c", "d"]}]),
        output_signature={"w": sluice.TensorSpec((None,), "string")},
    )
    batches = list(words.sparse_batch(2, row_shape=[6]))
    assert [b["w"].tolist() for b in batches] == [[b"a", b"b", b"c", b"a", b"b"], [b"a", b"b", b"c", b"d"]]
    assert batches[0]["w/indices"].tolist() == [[0, 0], [0, 1], [0, 2], [1, 0], [1, 1]]
    assert [b["w/dense_shape"].tolist() for b in batches] == [[2, 6], [1, 6]]
    values, indices, dense_shape = next(iter(_ragged([[1], [2, 2]]).sparse_batch(2, [None])))
    assert values.tolist() == [1, 2, 2] and indices.tolist() == [[0, 0], [1, 0], [1, 1]] and dense_shape.tolist() == [2, 2]
    with pytest.raises(sluice.InvalidArgumentError, match=r"larger than the row shape \(\[1\]\)"):
        list(_ragged([[1], [2, 2]]).sparse_batch(2, [1]))
    with pytest.raises(TypeError, match="row_shape must be a list"):
        words.sparse_batch(2, 6)
    with pytest.raises(sluice.InvalidArgumentError, match="rank 1"):
        words.sparse_batch(2, [6, 6])


def test_sparse_batch_parts_make_a_torch_sparse_tensor():
    torch = pytest.importorskip("torch")
    values, indices, dense_shape = next(iter(_ragged([[1], [2, 2]]).sparse_batch(2, [3])))
    sparse = torch.sparse_coo_tensor(indices.T, values, dense_shape.tolist())
    assert sparse.to_dense().tolist() == [[1, 0, 0], [2, 2, 0]]


def _ragged(rows):
    ds = sluice.Dataset.from_tensors(np.array(rows[0], dtype=np.int64))
    for row in rows[1:]:
        ds = ds.concatenate(sluice.Dataset.from_tensors(np.array(row, dtype=np.int64)))
    return ds


def test_bucket_by_sequence_length():
    # tf.data's documented example.
    ragged = _ragged([[0], [1, 2, 3, 4], [5, 6, 7], [7, 8, 9, 10, 11], [13, 14, 15, 16, 19, 20], [21, 22]])
    batches = [b.tolist() for b in ragged.bucket_by_sequence_length(None, [3, 5], [2, 2, 2])]
    assert batches == [[[1, 2, 3, 4], [5, 6, 7, 0]], [[7, 8, 9, 10, 11, 0], [13, 14, 15, 16, 19, 20]], [[0, 0], [21, 22]]]
    padded = ragged.bucket_by_sequence_length(None, [4, 7], [2, 2, 2], padding_values=-1, pad_to_bucket_boundary=True,
                                              drop_remainder=True)
    assert [b.tolist() for b in padded] == [[[0, -1, -1], [5, 6, 7]], [[1, 2, 3, 4, -1, -1], [7, 8, 9, 10, 11, -1]]]
    assert "bucket_by_sequence_length" in padded.to_spec()
    assert "bucket_by_sequence_length" in padded.describe()
    with pytest.raises(sluice.InvalidArgumentError, match="must equal `len\\(bucket_boundaries\\) \\+ 1`"):
        ragged.bucket_by_sequence_length(None, [3, 5], [2, 2])
    with pytest.raises(TypeError, match="element_length_func"):
        ragged.bucket_by_sequence_length(len, [3], [2, 2])


def test_pack_sequences():
    rows = list(_ragged([[1, 2, 3, 4], [5, 6], [11, 12, 13, 14], [7], [8]]).pack_sequences(4, max_open_rows=1))
    assert [sorted(r) for r in rows] == [["0", "0_positions", "0_segment_ids"]] * 3
    assert [r["0"].tolist() for r in rows] == [[1, 2, 3, 4], [11, 12, 13, 14], [5, 6, 7, 8]]
    assert rows[2]["0_segment_ids"].tolist() == [1, 1, 2, 3]
    assert rows[2]["0_positions"].tolist() == [0, 1, 0, 0]
    with pytest.raises(sluice.InvalidArgumentError, match="max_open_rows must be in"):
        _ragged([[1]]).pack_sequences(4, max_open_rows=5000)


def test_tfrecord_and_parse_example():
    files = sorted(os.path.join(TESTDATA, f) for f in os.listdir(TESTDATA) if f.endswith(".tfrecord"))
    assert files, "shared/testdata/tfrecord has no .tfrecord files"
    ds = sluice.Dataset.tfrecord(files[0])
    records = list(ds)
    assert records and all(isinstance(r, bytes) for r in records)
    with pytest.raises(sluice.NotFoundError):
        list(sluice.Dataset.tfrecord(os.path.join(TESTDATA, "no-such-file.tfrecord")))
    with pytest.raises(ValueError):
        sluice.Dataset.tfrecord(files[0], compression="BROTLI")
    with pytest.raises(ValueError, match="on_corrupt"):
        sluice.Dataset.tfrecord(files[0], on_corrupt="shrug")


def test_parse_example_of_written_records(tmp_path):
    cli = os.environ.get("SLUICE_CLI")
    if not cli:
        pytest.skip("SLUICE_CLI is not set (ctest sets it)")
    src = tmp_path / "rows.jsonl"
    src.write_text('{"x": [1.5, 2.5], "label": 3}\n{"x": [4.5, 5.5], "label": 6}\n')
    out = tmp_path / "rows.tfrecord"
    subprocess.run([cli, "tfrecord", "write", "--input", str(src), "--output", str(out)], check=True, capture_output=True)
    features = {"x": sluice.fn.FixedLenFeature([2], "float32"), "label": sluice.fn.FixedLenFeature([], "int64")}
    ds = sluice.Dataset.tfrecord(str(out)).batch(2).map(sluice.fn.parse_example(features))
    (batch,) = list(ds)
    assert batch["x"].tolist() == [[1.5, 2.5], [4.5, 5.5]] and batch["label"].tolist() == [3, 6]


def _field(number, payload):
    """A length-delimited protobuf field."""
    return _varint(number << 3 | 2) + _varint(len(payload)) + payload


def _varint(value):
    out = b""
    while value >= 0x80:
        out += bytes([value & 0x7F | 0x80])
        value >>= 7
    return out + bytes([value])


def _int64_feature(values):
    return _field(3, _field(1, b"".join(_varint(v) for v in values)))


def _float_feature(values):
    return _field(2, _field(1, np.asarray(values, "<f4").tobytes()))


def _bytes_feature(values):
    return _field(1, b"".join(_field(1, v) for v in values))


def _sequence_example(context, lists):
    """A serialized tf.train.SequenceExample: context {key: Feature bytes},
    lists {key: [Feature bytes per step]}."""
    features = b"".join(_field(1, _field(1, k.encode()) + _field(2, f)) for k, f in context.items())
    feature_lists = b"".join(
        _field(1, _field(1, k.encode()) + _field(2, b"".join(_field(1, step) for step in steps)))
        for k, steps in lists.items()
    )
    return _field(1, features) + _field(2, feature_lists)


def test_parse_sequence_example():
    records = np.array([
        _sequence_example({"id": _int64_feature([1])},
                          {"xy": [_float_feature([1, 2]), _float_feature([3, 4])],
                           "tokens": [_bytes_feature([b"a", b"b"]), _bytes_feature([b"c"])]}),
        _sequence_example({"id": _int64_feature([2])}, {"tokens": [_bytes_feature([b"d"])]}),
    ], dtype=object)
    parse = sluice.fn.parse_sequence_example(
        context_features={"id": sluice.fn.FixedLenFeature([], "int64")},
        sequence_features={"xy": sluice.fn.FixedLenSequenceFeature([2], "float32", allow_missing=True),
                           "tokens": sluice.fn.VarLenFeature("string")})
    first, second = list(sluice.Dataset.from_tensor_slices(records).map(parse))
    assert first["id"] == 1 and first["xy"].tolist() == [[1, 2], [3, 4]]
    assert first["tokens"].tolist() == [b"a", b"b", b"c"] and first["tokens/row_lengths"].tolist() == [2, 1]
    assert second["xy"].shape == (0, 2)
    (batch,) = list(sluice.Dataset.from_tensor_slices(records).batch(2).map(parse))
    assert batch["xy"].tolist() == [[[1, 2], [3, 4]], [[0, 0], [0, 0]]] and batch["xy/lengths"].tolist() == [2, 0]
    assert batch["tokens/lengths"].tolist() == [2, 1]
    assert "parse_sequence_example" in sluice.Dataset.from_tensor_slices(records).map(parse).to_spec()
    # A FixedLenSequenceFeature list is required unless allow_missing.
    required = sluice.fn.parse_sequence_example(sequence_features={"xy": sluice.fn.FixedLenSequenceFeature([2], "float32")})
    it = iter(sluice.Dataset.from_tensor_slices(records).map(required))
    assert next(it)["xy"].shape == (2, 2)
    with pytest.raises(sluice.InvalidArgumentError, match="Feature list 'xy' \\(float\\) is required but missing"):
        next(it)
    with pytest.raises(ValueError, match="give context_features, sequence_features or both"):
        sluice.fn.parse_sequence_example()
    with pytest.raises(TypeError, match="FixedLenSequenceFeature or a VarLenFeature"):
        sluice.fn.parse_sequence_example(sequence_features={"xy": sluice.fn.FixedLenFeature([2], "float32")})


def test_element_spec_cardinality_len_and_repr():
    ds = sluice.Dataset.from_tensor_slices({"x": np.zeros((8, 3), np.float32), "y": np.zeros(8, np.int64)}).batch(3)
    spec = ds.element_spec
    assert spec["x"] == sluice.TensorSpec((None, 3), "float32", "x")
    assert spec["y"].dtype == np.int64
    assert ds.cardinality() == 3 and len(ds) == 3
    assert sluice.Dataset.range(5).repeat().cardinality() == sluice.INFINITE_CARDINALITY
    with pytest.raises(TypeError, match="infinite"):
        len(sluice.Dataset.range(5).repeat())
    with pytest.raises(TypeError, match="unknown"):
        len(sluice.Dataset.range(5).filter(sluice.fn.less("", 2)))
    text = repr(ds)
    assert "batch(batch_size=3" in text and "from_slices" in text and "cardinality=3" in text
    assert ds.describe().rstrip("\n") in text


def test_spec_round_trip(tmp_path):
    ds = sluice.Dataset.range(20).shuffle(5, seed=3).map(sluice.fn.scale_shift("", 0.5, 0.0)).batch(4)
    text = ds.to_spec()
    assert "shuffle" in text and "batch_size: 4" in text
    # The first traversal of each (a seeded shuffle reshuffles on later ones).
    first = values(ds)
    assert values(sluice.Dataset.from_spec(text)) == first
    assert values(sluice.Dataset.from_spec(ds.to_spec(binary=True))) == first
    path = tmp_path / "pipeline.pbtxt"
    path.write_text(text)
    assert values(sluice.Dataset.from_spec(str(path))) == first
    assert values(sluice.Dataset.from_spec(path)) == first
    with pytest.raises(sluice.InvalidArgumentError, match="1:"):
        sluice.Dataset.from_spec("ops { nonsense {} }")


def test_options():
    ds = sluice.Dataset.range(100).map(sluice.fn.scale_shift("", 1.0, 0.0), num_parallel_calls=4)
    options = sluice.Options(cpu_budget=2, ram_budget_bytes=1 << 26, deterministic=False)
    it = iter(ds.with_options(options))
    assert it.cpu_budget == 2 and it.ram_budget_bytes == 1 << 26
    assert sorted(float(v) for v in it) == [float(v) for v in range(100)]
    assert ds.with_options(options).take(3).options == options
    with pytest.raises(ValueError, match="cpu_budget"):
        sluice.Options(cpu_budget=-1)
    with pytest.raises(TypeError, match="deterministic"):
        sluice.Options(deterministic="yes")
    with pytest.raises(TypeError):
        ds.with_options({"cpu_budget": 2})
    with pytest.raises(sluice.ResourceExhaustedError):
        list(sluice.Dataset.range(10**6).shuffle(10**6).with_options(sluice.Options(ram_budget_bytes=1 << 20)))


def test_argument_errors_name_the_argument():
    ds = sluice.Dataset.range(10)
    with pytest.raises(TypeError, match="batch_size"):
        ds.batch("4")
    with pytest.raises(ValueError, match="batch_size"):
        ds.batch(0)
    with pytest.raises(ValueError, match="batch_size"):
        ds.batch(2**70)
    with pytest.raises(ValueError, match="num_parallel_calls"):
        ds.map(sluice.fn.cast("", "float32"), num_parallel_calls=0)
    with pytest.raises(TypeError, match="map_func"):
        ds.map(42)
    with pytest.raises(TypeError, match="drop_remainder"):
        ds.batch(2, drop_remainder="no")
    with pytest.raises(TypeError, match="dataset"):
        ds.concatenate([1, 2])
    with pytest.raises(TypeError, match="numpy dtype"):
        sluice.Dataset.from_tensor_slices(np.zeros(3, np.complex64))
    with pytest.raises(TypeError, match="keys"):
        sluice.Dataset.from_tensor_slices({1: np.zeros(3)})
    with pytest.raises(TypeError, match="seed"):
        ds.shuffle(3, seed="x")
    with pytest.raises(sluice.InvalidArgumentError, match="component"):
        ds.map(sluice.fn.cast("nope", "float32"))
    with pytest.raises(TypeError):
        sluice.Dataset(None)


def test_cast_dtype_errors():
    with pytest.raises(TypeError, match="dtype"):
        sluice.fn.cast("", "complex128")
    with pytest.raises(TypeError, match="dtype"):
        sluice.fn.cast("", 3.5)
    with pytest.raises(TypeError, match="None"):
        sluice.fn.cast("", None)


def test_counter_and_random_are_endless_sources():
    assert [int(x) for x in sluice.Dataset.counter(5, 3).take(3)] == [5, 8, 11]
    doubles = list(sluice.Dataset.counter(0, 2, dtype="float64").take(2))
    assert [float(x) for x in doubles] == [0.0, 2.0] and doubles[0].dtype == np.float64
    first = [int(x) for x in sluice.Dataset.random(seed=7).take(4)]
    assert first == [int(x) for x in sluice.Dataset.random(seed=7).take(4)] and len(set(first)) == 4
    assert sluice.Dataset.random(seed=7).cardinality() == sluice.INFINITE_CARDINALITY
    fresh = sluice.Dataset.random(seed=7, rerandomize_each_iteration=True)
    assert [int(x) for x in fresh.take(4)] != [int(x) for x in fresh.take(4)]


def test_sample_and_choose_from_datasets():
    a = sluice.Dataset.range(0, 100)
    b = sluice.Dataset.range(1000, 1100)
    mixed = [int(x) for x in sluice.Dataset.sample_from_datasets([a, b], weights=[0.9, 0.1], seed=3)]
    assert sorted(mixed) == list(range(0, 100)) + list(range(1000, 1100))
    assert sum(x < 1000 for x in mixed[:50]) > 30  # the heavier weight leads
    first = [int(x) for x in sluice.Dataset.sample_from_datasets([a, b], seed=3).take(10)]
    assert first == [int(x) for x in sluice.Dataset.sample_from_datasets([a, b], seed=3).take(10)]
    stopped = list(sluice.Dataset.sample_from_datasets([a.take(2), b], seed=3, stop_on_empty_dataset=True))
    assert len(stopped) < 102
    choice = sluice.Dataset.from_tensor_slices(np.array([0, 1, 1, 0], dtype=np.int64))
    chosen = sluice.Dataset.choose_from_datasets([a, b], choice)
    assert [int(x) for x in chosen] == [0, 1000, 1001, 1]
    # Weights per draw from a dataset of vectors: one-hot ones pick exactly.
    one_hot = sluice.Dataset.from_tensor_slices(np.array([[1, 0], [0, 1], [0, 1], [1, 0]], dtype=np.float32))
    assert [int(x) for x in sluice.Dataset.sample_from_datasets([a, b], weights=one_hot, seed=1)] == [0, 1000, 1001, 1]
    with pytest.raises(sluice.InvalidArgumentError, match="hold 3 weights, for 2 datasets"):
        sluice.Dataset.sample_from_datasets([a, b], weights=sluice.Dataset.from_tensors(np.ones(3)))
    epochs = sluice.Dataset.sample_from_datasets([a, b], seed=3, rerandomize_each_iteration=True).take(20)
    assert [int(x) for x in epochs] != [int(x) for x in epochs]
    with pytest.raises(ValueError, match="at least one dataset"):
        sluice.Dataset.sample_from_datasets([])
    with pytest.raises(TypeError, match="datasets"):
        sluice.Dataset.choose_from_datasets(a, choice)


def test_take_while_unique_and_rebatch():
    ds = sluice.Dataset.from_tensor_slices(np.array([1, 2, 2, 5, 1, 3], dtype=np.int64))
    assert [int(x) for x in ds.take_while(lambda x: x < 5)] == [1, 2, 2]
    assert [int(x) for x in ds.take_while(sluice.fn.less("", 3))] == [1, 2, 2]
    assert [int(x) for x in ds.unique()] == [1, 2, 5, 3]
    batches = list(sluice.Dataset.range(10).batch(4).rebatch(3))
    assert [b.tolist() for b in batches] == [[0, 1, 2], [3, 4, 5], [6, 7, 8], [9]]
    cycled = list(sluice.Dataset.range(10).batch(4).rebatch([2, 3], drop_remainder=True))
    assert [len(b) for b in cycled] == [2, 3, 2, 3]
    with pytest.raises(ValueError, match="batch_size"):
        sluice.Dataset.range(4).batch(2).rebatch(0)


def test_scan_carries_a_state():
    assert [int(x) for x in sluice.Dataset.range(5).scan(0, lambda s, x: (s + x, s + x))] == [0, 1, 3, 6, 10]
    ds = sluice.Dataset.from_tensor_slices({"x": np.arange(4, dtype=np.float32)})
    means = ds.scan(
        {"total": np.float32(0), "n": np.int64(0)},
        lambda s, e: ({"total": s["total"] + e["x"], "n": s["n"] + 1}, {"mean": (s["total"] + e["x"]) / (s["n"] + 1)}),
    )
    assert [float(e["mean"]) for e in means] == [0.0, 0.5, 1.0, 1.5]
    pairs = sluice.Dataset.from_tensor_slices((np.arange(3), np.array([b"a", b"b", b"c"], dtype=object)))
    out = list(pairs.scan((np.int64(0),), lambda s, e: ((s[0] + e[0],), (e[1], s[0]))))
    assert [(word, int(total)) for word, total in out] == [(b"a", 0), (b"b", 0), (b"c", 1)]

    def fails_on_two(state, x):
        if x == 2:
            raise ValueError("two")
        return state + x, state

    it = iter(sluice.Dataset.range(4).scan(np.int64(0), fails_on_two))
    assert [int(next(it)), int(next(it))] == [0, 0]
    with pytest.raises(sluice.InvalidArgumentError, match="two"):
        next(it)
    assert int(next(it)) == 1  # the failed element did not advance the state
    with pytest.raises(ValueError, match="scan: scan_func failed on a placeholder"):
        sluice.Dataset.range(3).scan(0, lambda s, x: s + x)


def test_rejection_resample_balances_classes():
    # 90% class 0, 10% class 1 -> half and half.
    labels = (np.arange(20000) % 10 == 0).astype(np.int64)
    ds = sluice.Dataset.from_tensor_slices({"label": labels, "x": np.arange(20000)})
    for initial in (None, [0.9, 0.1]):
        kept = list(ds.rejection_resample("label", [0.5, 0.5], initial_dist=initial, seed=3))
        assert set(kept[0]) == {"class", "label", "x"}
        assert all(e["class"] == e["label"] for e in kept)
        share = np.mean([e["class"] for e in kept])
        assert abs(share - 0.5) < 0.03, (initial, share)
    # A Python class_func, on a one-array dataset: (class, x) pairs, as tf.data's.
    pairs = list(
        sluice.Dataset.range(6).rejection_resample(lambda x: x % 2, [0, 1], initial_dist=[1, 1], seed=1)
    )
    assert [(int(c), int(x)) for c, x in pairs] == [(1, 1), (1, 3), (1, 5)]
    # The same seed draws the same in a new pipeline; each traversal draws anew.
    resampled = ds.rejection_resample("label", [0.5, 0.5], seed=4)
    first, second = [[int(e["x"]) for e in resampled] for _ in range(2)]
    assert first != second
    assert [int(e["x"]) for e in ds.rejection_resample("label", [0.5, 0.5], seed=4)] == first
    # It writes its spec.
    assert "rejection_resample {" in resampled.to_spec()


def test_rejection_resample_errors():
    ds = sluice.Dataset.from_tensor_slices({"label": np.array([0, 5, 1])})
    with pytest.raises(sluice.InvalidArgumentError, match="target_dist\\[1\\] is -1"):
        ds.rejection_resample("label", [1, -1])
    with pytest.raises(sluice.InvalidArgumentError, match="initial_dist\\[1\\] is 0"):
        ds.rejection_resample("label", [1, 1], initial_dist=[1, 0])
    with pytest.raises(TypeError, match="class_func must be callable"):
        ds.rejection_resample(3, [1, 1])
    it = iter(ds.rejection_resample("label", [1, 1], initial_dist=[1, 1], seed=1))
    assert next(it)["class"] == 0
    with pytest.raises(sluice.InvalidArgumentError, match="class is 5, outside \\[0, 2\\)"):
        next(it)
    assert next(it)["class"] == 1


def test_reduce_and_get_single_element():
    assert sluice.Dataset.range(5).reduce(0, lambda state, x: state + int(x)) == 10
    assert sluice.Dataset.range(0).reduce(7, lambda state, x: state + 1) == 7
    count_and_sum = sluice.Dataset.from_tensor_slices({"v": np.array([1.5, 2.5])}).reduce(
        (0, 0.0), lambda s, e: (s[0] + 1, s[1] + float(e["v"]))
    )
    assert count_and_sum == (2, 4.0)
    with pytest.raises(ValueError, match="reduce: the dataset is infinite"):
        sluice.Dataset.range(3).repeat().reduce(0, lambda s, x: s)
    single = sluice.Dataset.from_tensors({"a": np.array([1, 2])}).get_single_element()
    assert single["a"].tolist() == [1, 2]
    with pytest.raises(sluice.InvalidArgumentError, match="Dataset was empty"):
        sluice.Dataset.range(0).get_single_element()
    with pytest.raises(sluice.InvalidArgumentError, match="more than one element"):
        sluice.Dataset.range(2).get_single_element()
