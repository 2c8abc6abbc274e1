"""sluice.Dataset.text_line and sluice.Dataset.csv: tf.data's TextLineDataset
and CsvDataset, their arguments, elements and errors; and
sluice.Dataset.labelled_files, torchvision's ImageFolder."""

import gzip
import os

import numpy as np
import pytest

import sluice


def write(path, data):
    path.write_bytes(data)
    return str(path)


def test_text_line_splits_as_tf_data(tmp_path):
    a = write(tmp_path / "a.txt", b"one\r\ntwo\n\nlast")
    b = write(tmp_path / "b.txt.gz", gzip.compress(b"zipped\n"))
    assert list(sluice.Dataset.text_line(a)) == [b"one", b"two", b"", b"last"]
    assert list(sluice.Dataset.text_line([b], compression_type="GZIP")) == [b"zipped"]
    both = sluice.Dataset.text_line([a, a], num_parallel_reads=2, buffer_size=3)
    assert list(both) == [b"one", b"one", b"two", b"two", b"", b"", b"last", b"last"]
    batch = next(iter(sluice.Dataset.text_line(a).batch(3)))
    assert batch.dtype == object and batch.tolist() == [b"one", b"two", b""]


def test_text_line_errors_name_the_line(tmp_path):
    path = write(tmp_path / "long.txt", b"ok\n" + b"x" * 100 + b"\nfine\n")
    it = iter(sluice.Dataset.text_line(path, max_line_bytes=10))
    assert next(it) == b"ok"
    with pytest.raises(sluice.DataLossError, match=r"long.txt: line 1 at byte offset 3 has 100 bytes"):
        next(it)
    assert next(it) == b"fine"
    assert list(sluice.Dataset.text_line(path, max_line_bytes=10).ignore_errors()) == [b"ok", b"fine"]
    with pytest.raises(ValueError, match="max_line_bytes"):
        sluice.Dataset.text_line(path, max_line_bytes=0)


def test_text_line_through_interleave_and_map(tmp_path):
    files = [write(tmp_path / f"part-{i}.txt", f"{i}-0\n{i}-1\n".encode()) for i in range(2)]
    ds = sluice.Dataset.list_files(str(tmp_path / "part-*.txt"), shuffle=False).interleave(
        lambda path: sluice.Dataset.text_line(path), cycle_length=2
    )
    assert list(ds) == [b"0-0", b"1-0", b"0-1", b"1-1"]
    assert files


def test_csv_documentation_example(tmp_path):
    path = write(tmp_path / "my_file0.csv", b"abcdefg,4.28E10,5.55E6,12\nhijklmn,-5.3E14,,2\n")
    ds = sluice.Dataset.csv(path, [np.float32, np.array([0.0], np.float32), np.int32], select_cols=[1, 2, 3])
    rows = list(ds)
    assert len(rows) == 2 and isinstance(rows[0], tuple)
    assert rows[0][0] == np.float32(4.28e10) and rows[0][1] == np.float32(5.55e6) and rows[0][2] == 12
    assert rows[1][1] == 0.0 and rows[1][2].dtype == np.int32
    assert ds.element_spec == (
        sluice.TensorSpec((), "float32"),
        sluice.TensorSpec((), "float32"),
        sluice.TensorSpec((), "int32"),
    )


def test_csv_named_columns_defaults_and_batches(tmp_path):
    path = write(
        tmp_path / "table.csv",
        b'name,age,score\r\n"Smith, J",41,1.5\r\nNA,,\r\n"say ""hi""",7,-2\r\n',
    )
    ds = sluice.Dataset.csv(
        path, ["?", 0, np.float64(0.5)], header=True, na_value="NA", column_names=["name", "age", "score"]
    )
    rows = list(ds)
    assert rows[0] == {"name": b"Smith, J", "age": 41, "score": 1.5}
    assert rows[1]["name"] == b"?" and rows[1]["age"] == 0 and rows[1]["score"] == 0.5
    assert rows[2]["name"] == b'say "hi"'
    assert rows[0]["age"].dtype == np.int32 and rows[0]["score"].dtype == np.float64
    batch = next(iter(ds.batch(8)))
    assert batch["age"].tolist() == [41, 0, 7] and batch["name"].tolist() == [b"Smith, J", b"?", b'say "hi"']


def test_csv_errors(tmp_path):
    path = write(tmp_path / "bad.csv", b"1,2\n1\nx,2\n3,4\n")
    it = iter(sluice.Dataset.csv(path, [int, 0]))
    assert next(it) == (1, 2)
    with pytest.raises(sluice.DataLossError, match=r"bad.csv: record 1 at byte offset 4: the record has 1 fields"):
        next(it)
    with pytest.raises(sluice.DataLossError, match=r"record 2 at byte offset 6: column 0: 'x' is not a valid int32"):
        next(it)
    assert next(it) == (3, 4)
    with pytest.raises(TypeError, match=r"record_defaults\[0\]: a bool"):
        sluice.Dataset.csv(path, [True])
    with pytest.raises(ValueError, match="select_cols has 1 columns"):
        sluice.Dataset.csv(path, [0, 0], select_cols=[1])
    with pytest.raises(ValueError, match="field_delim must be one byte"):
        sluice.Dataset.csv(path, [0], field_delim=";;")


def test_fixed_length_record_reads_cifar_style_records(tmp_path):
    # tf.data's documentation example: a 6-byte header, 2-byte records, a 6-byte footer.
    a = write(tmp_path / "fixed_length0.bin", b"HEADER012345FOOTER")
    b = write(tmp_path / "fixed_length1.bin", b"HEADER6789abFOOTER")
    ds = sluice.Dataset.fixed_length_record([a, b], 2, header_bytes=6, footer_bytes=6)
    assert list(ds) == [b"01", b"23", b"45", b"67", b"89", b"ab"]
    packed = write(tmp_path / "packed.gz", gzip.compress(b"HEADER012345FOOTER"))
    assert list(sluice.Dataset.fixed_length_record(packed, 2, 6, 6, compression_type="GZIP")) == [b"01", b"23", b"45"]
    # CIFAR-10's layout: a label byte, then the pixels, decoded with decode_raw.
    rng = np.random.default_rng(0)
    records = rng.integers(0, 256, size=(5, 1 + 2 * 2 * 3), dtype=np.uint8)
    cifar = write(tmp_path / "data_batch_1.bin", records.tobytes())
    decoded = sluice.Dataset.fixed_length_record(cifar, 13).map(sluice.fn.decode_raw(None, np.uint8, fixed_length=13))
    rows = list(decoded)
    assert len(rows) == 5 and all(r.dtype == np.uint8 and r.shape == (13,) for r in rows)
    np.testing.assert_array_equal(np.stack(rows), records)


def test_fixed_length_record_errors_name_the_file(tmp_path):
    odd = write(tmp_path / "odd.bin", b"abcde")
    good = write(tmp_path / "good.bin", b"wxyz")
    it = iter(sluice.Dataset.fixed_length_record([odd, good], 2))
    with pytest.raises(sluice.InvalidArgumentError, match=r"odd.bin\" has body length 5 bytes, which is not an exact"):
        next(it)
    assert list(it) == [b"wx", b"yz"]
    with pytest.raises(ValueError, match="record_bytes"):
        sluice.Dataset.fixed_length_record(good, 0)


def test_decode_raw_reads_numbers_of_any_dtype():
    values = np.array([1, -2, 3], dtype=np.int32)
    ds = sluice.Dataset.from_tensors(np.array(values.tobytes(), dtype=object))
    (out,) = list(ds.map(sluice.fn.decode_raw(None, "int32")))
    assert out.dtype == np.int32 and out.tolist() == [1, -2, 3]
    (big,) = list(ds.map(sluice.fn.decode_raw(None, np.int32, little_endian=False)))
    assert big.tolist() == values.byteswap().tolist()
    with pytest.raises(sluice.InvalidArgumentError, match="not a multiple of 8, the size of float64"):
        list(ds.map(sluice.fn.decode_raw(None, np.float64)))


def test_labelled_files_reads_class_folders(tmp_path):
    for name, data in {"cat/a.jpg": b"A", "cat/sub/b.JPG": b"BB", "dog/c.png": b"CCC", "dog/notes.txt": b"n",
                       "dog/.hidden.jpg": b"h"}.items():
        path = tmp_path / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(data)
    ds = sluice.Dataset.labelled_files(tmp_path, extensions=[".jpg", ".png"], shuffle=False)
    assert len(ds) == 3
    assert set(ds.element_spec) == {"contents", "label", "path"}
    got = [(e["contents"], int(e["label"]), os.path.relpath(e["path"].decode(), tmp_path)) for e in ds]
    assert got == [(b"A", 0, "cat/a.jpg"), (b"BB", 0, os.path.join("cat", "sub", "b.JPG")), (b"CCC", 1, "dog/c.png")]
    # Shuffled by default, a new order each epoch; class_names order the labels.
    shuffled = sluice.Dataset.labelled_files(tmp_path, class_names=["dog", "cat"], seed=1)
    assert sorted((e["contents"], int(e["label"])) for e in shuffled) == [(b"A", 1), (b"BB", 1), (b"CCC", 0), (b"n", 0)]
    assert "labelled_files {" in shuffled.to_spec()
    with pytest.raises(sluice.NotFoundError, match="class 'bird' has no subdirectory"):
        sluice.Dataset.labelled_files(tmp_path, class_names=["bird"])
    with pytest.raises(sluice.ResourceExhaustedError, match="larger than max_file_bytes"):
        list(sluice.Dataset.labelled_files(tmp_path, shuffle=False, max_file_bytes=2))
    # Hosts' shards deal the listing: positions shard_index, shard_index + num_shards, ...
    shards = [sluice.Dataset.labelled_files(tmp_path, extensions=[".jpg", ".png"], shuffle=False, num_shards=2,
                                            shard_index=i) for i in range(2)]
    assert [[e["contents"] for e in shard] for shard in shards] == [[b"A", b"CCC"], [b"BB"]]
    assert "num_shards: 2" in shards[1].to_spec()
    with pytest.raises(sluice.InvalidArgumentError, match="got shard 2 of 2"):
        sluice.Dataset.labelled_files(tmp_path, num_shards=2, shard_index=2)
