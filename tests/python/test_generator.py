"""Dataset.from_generator: structures and dtypes as tf.data converts them,
a fresh generator per traversal, errors that name the element and leave the
traversal going, interleaved generators, prefetch on a worker thread, and
iterators closed while a generator runs."""

import subprocess
import sys
import threading
import time

import numpy as np
import pytest

import sluice

WAIT_S = 60  # the bound on every wait for a thread
INT = sluice.TensorSpec((), "int64")


def results(ds, limit=100):
    """Each next() of a traversal: the element (as lists), or the error."""
    out = []
    it = iter(ds)
    for _ in range(limit):
        try:
            value = next(it)
        except StopIteration:
            return out
        except sluice.Error as error:
            out.append(error)
            continue
        out.append(value.tolist() if isinstance(value, np.ndarray) else value)
    raise AssertionError(f"no end after {limit} results")


def test_documented_example_a_fresh_generator_per_traversal():
    # tf.data's docstring: a generator of growing int32 vectors.
    def gen():
        for i in range(1, 4):
            yield (i, [1] * i)

    calls = []

    def counted():
        calls.append(1)
        return gen()

    ds = sluice.Dataset.from_generator(
        counted, output_signature=(sluice.TensorSpec((), "int32"), sluice.TensorSpec((None,), "int32"))
    )
    assert ds.element_spec == (sluice.TensorSpec((), "int32"), sluice.TensorSpec((None,), "int32"))
    assert ds.cardinality() == sluice.UNKNOWN_CARDINALITY
    assert calls == []  # nothing runs before iteration
    for epoch in range(2):
        out = list(ds)
        assert [(int(a), b.tolist()) for a, b in out] == [(1, [1]), (2, [1, 1]), (3, [1, 1, 1])]
        assert all(a.dtype == np.int32 and b.dtype == np.int32 for a, b in out)
        assert len(calls) == epoch + 1


def test_dict_signature_args_and_strings():
    def records(prefix, n):
        for i in range(int(n)):
            yield {"text": f"{prefix.decode()}-{i}", "id": i, "score": i / 2}

    ds = sluice.Dataset.from_generator(
        records,
        output_signature={
            "text": sluice.TensorSpec((), "string"),
            "id": sluice.TensorSpec((), "int32"),
            "score": sluice.TensorSpec((), "float32"),
        },
        args=(np.bytes_(b"row"), 3),
    )
    out = list(ds)
    assert [e["text"] for e in out] == [b"row-0", b"row-1", b"row-2"]
    assert [e["id"].tolist() for e in out] == [0, 1, 2]
    assert out[1]["score"].dtype == np.float32 and out[1]["score"] == 0.5


def test_downstream_ops_batch_and_parallel_maps():
    ds = (
        sluice.Dataset.from_generator(lambda: iter(range(100)), output_signature=INT)
        .map(sluice.fn.scale_shift("0", scale=2.0, shift=1.0), num_parallel_calls=2)
        .batch(32)
        .prefetch(2)
    )
    batches = [b.tolist() for b in ds]
    assert [len(b) for b in batches] == [32, 32, 32, 4]
    assert sum(batches, []) == [2.0 * v + 1.0 for v in range(100)]


def test_values_that_do_not_match_are_element_errors_and_the_traversal_goes_on():
    def gen():
        yield [1, 2]
        yield [1, 2, 3]  # shape
        yield [1.5, 2.0]  # a float where int32 is declared
        yield [300, 1]  # int64 values that int32 holds
        yield ("a", "b")  # strings for numbers
        yield [2**40, 0]  # outside int32
        yield [3, 4]

    out = results(sluice.Dataset.from_generator(gen, output_signature=sluice.TensorSpec((2,), "int32")))
    assert out[0] == [1, 2] and out[3] == [300, 1] and out[6] == [3, 4]
    assert len(out) == 7
    for i in (1, 2, 4, 5):
        assert isinstance(out[i], sluice.InvalidArgumentError), out[i]
    assert "from_generator: element 1 does not match the element spec" in str(out[1])
    assert "declared int32, but the generator yielded list [1.5, 2.0], of dtype float64" in str(out[2])
    assert "declared int32, but the generator yielded tuple ('a', 'b'), strings, which does not convert" in str(out[4])
    assert "outside its range [-2147483648, 2147483647]" in str(out[5])


def test_errors_in_batches_come_in_their_place():
    def gen():
        yield [1, 2]
        yield [3, 4]
        yield [5, 6, 7]  # shape
        yield [7, 8]
        yield [9.5, 10]  # dtype
        yield [11, 12]

    ds = sluice.Dataset.from_generator(gen, output_signature=sluice.TensorSpec((2,), "int32")).batch(2)
    out = results(ds)
    assert out[0] == [[1, 2], [3, 4]]
    assert isinstance(out[1], sluice.InvalidArgumentError)
    assert "from_generator: element 2 does not match the element spec" in str(out[1])
    # An error while a batch gathers is the batch's, as in tf.data: [7, 8] goes with it.
    assert isinstance(out[2], sluice.InvalidArgumentError) and "declared int32" in str(out[2])
    assert out[3] == [[11, 12]] and len(out) == 4

    def failing():
        yield 1
        yield 2
        raise RuntimeError("the source went away")

    out = results(sluice.Dataset.from_generator(failing, output_signature=INT).batch(4))
    assert len(out) == 1 and "RuntimeError: the source went away" in str(out[0])
    out = results(sluice.Dataset.from_generator(failing, output_signature=INT).batch(2))
    assert out[0] == [1, 2] and "RuntimeError: the source went away" in str(out[1]) and len(out) == 2
    many = sluice.Dataset.from_generator(lambda: iter(range(1000)), output_signature=INT).batch(64, drop_remainder=True)
    assert [b.tolist() for b in many] == [list(range(i, i + 64)) for i in range(0, 960, 64)]


def test_bytes_keep_their_trailing_nul_bytes():
    records = [b"a\x00", b"\x00\x00", b"b"]
    ds = sluice.Dataset.from_generator(lambda: iter(records), output_signature=sluice.TensorSpec((), "string"))
    assert list(ds) == records
    assert [b.tolist() for b in ds.batch(2)] == [records[:2], records[2:]]
    assert list(sluice.Dataset.from_tensor_slices(records)) == records
    assert list(sluice.Dataset.range(2).map(lambda x: b"z\x00")) == [b"z\x00", b"z\x00"]


def test_structure_mismatches_name_the_expected_structure():
    def gen():
        yield {"a": 1}
        yield {"a": 1, "b": 2}
        yield 5

    out = results(
        sluice.Dataset.from_generator(gen, output_signature={"a": INT, "b": INT}),
    )
    assert len(out) == 3
    assert "yielded dict {'a': 1}, which does not match the expected structure: a dict with keys ['a', 'b']" in str(
        out[0]
    )
    assert out[1] == {"a": 1, "b": 2} or (out[1]["a"] == 1 and out[1]["b"] == 2)
    assert "yielded int 5" in str(out[2])
    pair = results(sluice.Dataset.from_generator(lambda: iter([(1, 2), (1,), [3, 4]]), output_signature=(INT, INT)))
    assert [tuple(int(v) for v in pair[0]), tuple(int(v) for v in pair[2])] == [(1, 2), (3, 4)]
    assert "a tuple of 2" in str(pair[1])


def test_an_exception_in_the_generator_is_an_error_then_the_end():
    def gen():
        yield 1
        raise RuntimeError("the source went away")

    out = results(sluice.Dataset.from_generator(gen, output_signature=INT))
    assert out[0] == 1 and len(out) == 2
    assert isinstance(out[1], sluice.InvalidArgumentError)
    assert "RuntimeError: the source went away" in str(out[1]) and "in gen" in str(out[1])  # with its traceback

    def failing_start():
        raise OSError("no such table")

    out = results(sluice.Dataset.from_generator(failing_start, output_signature=INT))
    assert len(out) == 1 and "from_generator: starting the generator" in str(out[0])
    assert "OSError: no such table" in str(out[0])
    out = results(sluice.Dataset.from_generator(lambda: 5, output_signature=INT))
    assert len(out) == 1 and "TypeError" in str(out[0]) and "not iterable" in str(out[0])


def test_invalid_arguments():
    with pytest.raises(TypeError, match="generator must be callable"):
        sluice.Dataset.from_generator([1, 2], output_signature=INT)
    with pytest.raises(TypeError, match="output_signature is required"):
        sluice.Dataset.from_generator(lambda: iter([1]), output_signature=None)
    with pytest.raises(TypeError, match="expected a sluice.TensorSpec"):
        sluice.Dataset.from_generator(lambda: iter([1]), output_signature={"a": "int64"})
    with pytest.raises(TypeError, match="bfloat16"):
        sluice.Dataset.from_generator(lambda: iter([1]), output_signature=sluice.TensorSpec((), "bfloat16"))
    with pytest.raises(TypeError, match="args must be a tuple"):
        sluice.Dataset.from_generator(lambda x: iter([x]), output_signature=INT, args=5)


def test_neither_saved_nor_written_as_a_spec():
    ds = sluice.Dataset.from_generator(lambda: iter(range(5)), output_signature=INT)
    it = iter(ds)
    next(it)
    with pytest.raises(sluice.UnimplementedError, match="a generator's position cannot be saved"):
        it.state_dict()
    with pytest.raises(sluice.UnimplementedError, match="from_generator"):
        ds.to_spec()


def test_interleaved_generators():
    # tf.data's pattern for parallel generators: one per shard, interleaved.
    def shard(i):
        return sluice.Dataset.from_generator(
            lambda i: (10 * int(i) + k for k in range(3)), output_signature=INT, args=(i,)
        )

    ds = sluice.Dataset.range(3).interleave(shard, cycle_length=3, num_parallel_calls=3)
    assert [int(v) for v in ds] == [0, 10, 20, 1, 11, 21, 2, 12, 22]


def test_close_while_a_prefetching_generator_runs():
    produced = []

    def endless():
        i = 0
        while True:
            produced.append(i)
            time.sleep(0.001)
            yield i
            i += 1

    it = iter(sluice.Dataset.from_generator(endless, output_signature=INT).prefetch(4))
    assert [int(next(it)) for _ in range(3)] == [0, 1, 2]
    closer = threading.Thread(target=it.close)
    closer.start()
    closer.join(WAIT_S)
    assert not closer.is_alive()
    assert it.closed
    count = len(produced)
    time.sleep(0.05)
    assert len(produced) == count  # nothing calls the generator any more


def test_keyboard_interrupt_in_a_generator_propagates():
    def gen():
        yield 1
        raise KeyboardInterrupt("stop here")

    it = iter(sluice.Dataset.from_generator(gen, output_signature=INT))
    assert int(next(it)) == 1
    with pytest.raises(KeyboardInterrupt, match="stop here"):
        next(it)
    assert it.closed


def test_exit_while_a_generator_prefetches():
    code = """
import itertools, sluice
it = iter(sluice.Dataset.from_generator(lambda: itertools.count(), output_signature=sluice.TensorSpec((), "int64")).prefetch(4))
next(it)
print("exiting")
"""
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=WAIT_S)
    assert result.returncode == 0 and result.stdout.strip() == "exiting", result.stderr
