"""Python callables in Dataset.map, filter and interleave: output structures
and specs (given or traced), parallel calls, errors with Python tracebacks,
and iterators closed or dropped while Python functions run."""

import collections
import os
import subprocess
import sys
import threading
import time

import numpy as np
import pytest

import sluice

TESTDATA = os.path.join("..", "shared", "testdata", "tfrecord")
WAIT_S = 60  # the bound on every wait for a thread


def values(ds):
    return [v.tolist() for v in ds]


def named(n=6):
    return sluice.Dataset.from_tensor_slices({"x": np.arange(n, dtype=np.float32), "y": np.arange(n)})


# ----------------------------------------------------------------- structures


def test_map_dict_output_changes_dtype_and_adds_a_component():
    ds = named().map(lambda e: {"x": e["x"].astype(np.int32), "y": e["y"], "sum": e["x"] + e["y"]})
    assert ds.element_spec == {
        "x": sluice.TensorSpec([], "int32", "x"),
        "y": sluice.TensorSpec([], "int64", "y"),
        "sum": sluice.TensorSpec([], "float64", "sum"),
    }
    out = list(ds)
    assert [e["x"].tolist() for e in out] == list(range(6))
    assert out[0]["x"].dtype == np.int32 and out[4]["sum"].tolist() == 8.0


def test_map_tuple_and_single_outputs():
    pairs = sluice.Dataset.range(4).map(lambda x: (x, np.full([2], x * 10, np.int32)))
    assert pairs.element_spec == (sluice.TensorSpec([], "int64"), sluice.TensorSpec([2], "int32"))
    assert [(a.tolist(), b.tolist()) for a, b in pairs] == [(i, [i * 10] * 2) for i in range(4)]
    firsts = pairs.map(lambda pair: pair[1].astype(np.float32) / 2)
    assert firsts.element_spec == sluice.TensorSpec([2], "float32")
    assert values(firsts) == [[i * 5.0] * 2 for i in range(4)]
    # A single array from a dict element, and Python scalars as arrays.
    assert values(named(3).map(lambda e: e["y"] * 2)) == [0, 2, 4]
    assert values(sluice.Dataset.range(3).map(lambda x: 7)) == [7, 7, 7]


def test_map_inputs_are_read_only_numpy_arrays():
    seen = []

    def record(e):
        seen.append((type(e), e["x"].flags.writeable, e["x"].dtype))
        return e

    list(named(2).map(record))
    assert seen[-1] == (dict, False, np.float32)


def test_output_structure_mismatch_is_an_element_error_saying_expected_and_got():
    def drop_y_at_3(e):
        return {"x": e["x"]} if e["y"] == 3 else {"x": e["x"], "y": e["y"]}

    spec = {"x": sluice.TensorSpec([], "float32"), "y": sluice.TensorSpec([], "int64")}
    it = iter(named().map(drop_y_at_3, output_spec=spec))
    assert [next(it)["y"].tolist() for _ in range(3)] == [0, 1, 2]
    expected = r"returned a dict with keys \['x'\], expected a dict with keys \['x', 'y'\]"
    with pytest.raises(sluice.InvalidArgumentError, match=expected):
        next(it)
    assert [e["y"].tolist() for e in it] == [4, 5]
    with pytest.raises(sluice.InvalidArgumentError, match="returned a tuple of 2, expected one array"):
        list(sluice.Dataset.range(2).map(lambda x: (x, x), output_spec=sluice.TensorSpec([], "int64")))
    with pytest.raises(sluice.InvalidArgumentError, match="returned NoneType None, expected a tuple of 2"):
        list(sluice.Dataset.range(2).map(lambda x: None, output_spec=(sluice.TensorSpec([], "int64"),) * 2))


# ---------------------------------------------------------------- output specs


def test_output_spec_given_is_the_element_spec_and_is_checked():
    spec = {"v": sluice.TensorSpec([None], "int64")}
    ds = sluice.Dataset.range(1, 4).map(lambda x: {"v": np.arange(x)}, output_spec=spec)
    assert ds.element_spec == {"v": sluice.TensorSpec([None], "int64", "v")}
    assert [e["v"].tolist() for e in ds] == [[0], [0, 1], [0, 1, 2]]
    wrong = sluice.Dataset.range(2).map(lambda x: x.astype(np.float64), output_spec=sluice.TensorSpec([], "int64"))
    with pytest.raises(sluice.InvalidArgumentError, match="dtype float64 but the spec says int64"):
        list(wrong)


def test_traced_shapes_exact_for_static_numeric_inputs_else_unknown_dims():
    static = sluice.Dataset.from_tensor_slices(np.zeros((4, 2, 3), np.float32))
    assert static.map(lambda x: x.reshape(6)).element_spec == sluice.TensorSpec([6], "float32")
    ragged = sluice.Dataset.range(1, 4).map(lambda n: np.arange(n), output_spec=sluice.TensorSpec([None], "int64"))
    # The input has an unknown dim: the traced [1, 2] becomes [?, ?].
    traced = ragged.map(lambda v: np.stack([v, v]))
    assert traced.element_spec == sluice.TensorSpec([None, None], "int64")
    assert [v.shape for v in traced] == [(2, 1), (2, 2), (2, 3)]
    # Strings stand for values of any length: dims unknown.
    records = sluice.Dataset.from_tensor_slices(np.array([b"ab", b"cde"], dtype=object))
    decoded = records.map(lambda s: np.frombuffer(s, np.uint8))
    assert decoded.element_spec == sluice.TensorSpec([None], "uint8")
    assert values(decoded) == [[97, 98], [99, 100, 101]]


def test_tracing_calls_the_function_on_the_documented_placeholder():
    seen = []

    def record(e):
        seen.append({k: (v.shape, v.dtype, v.flags.writeable, v.ravel()[:1].tolist()) for k, v in e.items()})
        return e

    ds = sluice.Dataset.from_tensors(
        {"m": np.ones((2, 3), np.float32), "s": np.array([b"x"], dtype=object), "r": np.int32(1)}
    ).map(lambda e: {"m": e["m"], "s": e["s"], "r": e["r"]}, output_spec={
        "m": sluice.TensorSpec([None, 3], "float32"),
        "s": sluice.TensorSpec([None], "string"),
        "r": sluice.TensorSpec(None, "int32"),
    })
    ds.map(record)
    assert seen == [{
        "m": ((1, 3), np.float32, False, [0.0]),
        "s": ((1,), object, False, [b"placeholder"]),
        "r": ((), np.int32, False, [0]),
    }]


def test_traced_spec_mismatch_hints_at_output_spec():
    positive = sluice.Dataset.from_tensor_slices(np.array([[1, -1], [2, 3]])).map(lambda v: v[v > 0])
    with pytest.raises(sluice.InvalidArgumentError, match="traced on a placeholder element; pass output_spec="):
        list(positive)
    ok = sluice.Dataset.from_tensor_slices(np.array([[1, -1], [2, 3]])).map(
        lambda v: v[v > 0], output_spec=sluice.TensorSpec([None], "int64")
    )
    assert values(ok) == [[1], [2, 3]]


def test_tracing_failure_raises_value_error_naming_the_placeholder_and_output_spec():
    def needs_positive(x):
        if x <= 0:
            raise RuntimeError("x must be positive")
        return x

    with pytest.raises(ValueError, match="placeholder.*output_spec=") as info:
        sluice.Dataset.range(1, 5).map(needs_positive)
    assert isinstance(info.value.__cause__, RuntimeError)
    assert "x must be positive" in str(info.value)
    ds = sluice.Dataset.range(1, 5).map(needs_positive, output_spec=sluice.TensorSpec([], "int64"))
    assert values(ds) == [1, 2, 3, 4]
    with pytest.raises(TypeError, match="not an element"):
        sluice.Dataset.range(3).map(lambda x: None)
    with pytest.raises(TypeError, match="map_func"):
        sluice.Dataset.range(3).map(42)


def test_graphs_with_python_functions_do_not_serialize():
    with pytest.raises(sluice.UnimplementedError, match="C\\+\\+ callable"):
        sluice.Dataset.range(3).map(lambda x: x).to_spec()


# -------------------------------------------------------------------- parallel


def slow_square(e):
    time.sleep(0.0005)
    return {"x": e["x"] * e["x"], "y": e["y"]}


def test_parallel_map_equals_sequential():
    ds = named(200)
    expected = [(e["x"].tolist(), e["y"].tolist()) for e in ds.map(slow_square)]
    for parallel in (4, sluice.AUTOTUNE):
        got = [(e["x"].tolist(), e["y"].tolist()) for e in ds.map(slow_square, num_parallel_calls=parallel)]
        assert got == expected, parallel
    unordered = ds.map(slow_square, num_parallel_calls=4, deterministic=False)
    assert collections.Counter((e["x"].tolist(), e["y"].tolist()) for e in unordered) == collections.Counter(expected)


def test_parallel_map_errors_arrive_in_order_and_iteration_goes_on():
    def fail_odd_tens(x):
        if x % 20 == 10:
            raise KeyError(f"no entry {int(x)}")
        return x

    it = iter(sluice.Dataset.range(60).map(fail_odd_tens, num_parallel_calls=4))
    got, errors = [], []
    while True:
        try:
            got.append(next(it).tolist())
        except StopIteration:
            break
        except sluice.InvalidArgumentError as error:
            errors.append(str(error))
    assert got == [x for x in range(60) if x % 20 != 10]
    assert len(errors) == 3 and "KeyError" in errors[0] and "no entry 10" in errors[0] and "no entry 50" in errors[2]


# ---------------------------------------------------------------------- filter


def test_filter_with_python_predicates():
    ds = sluice.Dataset.range(10)
    assert values(ds.filter(lambda x: bool(x % 3 == 0))) == [0, 3, 6, 9]
    assert values(ds.filter(lambda x: x % 2 == 0)) == [0, 2, 4, 6, 8]  # a 0-d bool array
    assert values(ds.filter(lambda x: np.bool_(x > 7))) == [8, 9]
    assert [e["y"].tolist() for e in named(4).filter(lambda e: e["x"] >= 2.0)] == [2, 3]
    with pytest.raises(sluice.InvalidArgumentError, match="filter: the Python predicate returned int 1, expected a bool"):
        list(ds.filter(lambda x: 1))
    with pytest.raises(sluice.InvalidArgumentError, match=r"returned an ndarray bool \(2,\)"):
        list(ds.filter(lambda x: np.array([True, False])))
    with pytest.raises(TypeError, match="predicate"):
        ds.filter("x > 1")


# ------------------------------------------------------------------ interleave


def test_interleave_over_range_datasets():
    ds = sluice.Dataset.range(1, 4).interleave(lambda n: sluice.Dataset.range(n), cycle_length=2)
    assert ds.element_spec == sluice.TensorSpec([], "int64")
    assert values(ds) == [0, 0, 1, 0, 1, 2]  # tf.data's order: a new dataset takes a finished one's slot
    parallel = sluice.Dataset.range(1, 9).interleave(
        lambda n: sluice.Dataset.range(n), cycle_length=4, num_parallel_calls=4, deterministic=False
    )
    assert collections.Counter(values(parallel)) == collections.Counter(v for n in range(1, 9) for v in range(n))


def test_interleave_over_tfrecord_files():
    files = sorted(os.path.join(TESTDATA, f) for f in os.listdir(TESTDATA) if f.endswith(".tfrecord"))
    assert len(files) >= 2, "shared/testdata/tfrecord needs two .tfrecord files"
    records = [list(sluice.Dataset.tfrecord(f)) for f in files]
    ds = sluice.Dataset.from_tensor_slices(np.array(files, dtype=object)).interleave(
        lambda path: sluice.Dataset.tfrecord(path), cycle_length=1
    )
    assert ds.element_spec == sluice.TensorSpec([], "string")
    assert list(ds) == [r for file in records for r in file]
    both = sluice.Dataset.from_tensor_slices(np.array(files, dtype=object)).interleave(
        lambda path: sluice.Dataset.tfrecord(path), cycle_length=2, num_parallel_calls=2
    )
    assert sorted(both) == sorted(r for file in records for r in file)


def test_interleave_function_errors():
    with pytest.raises(TypeError, match="must return a sluice.Dataset; on a placeholder element it returned int"):
        sluice.Dataset.range(3).interleave(lambda x: 3)
    with pytest.raises(ValueError, match="interleave: map_func failed on a placeholder element"):
        sluice.Dataset.range(3).interleave(lambda x: sluice.Dataset.range(1 // int(x)))

    def sometimes_not_a_dataset(x):
        return sluice.Dataset.range(x) if x != 2 else [1, 2]

    it = iter(sluice.Dataset.range(4).interleave(sometimes_not_a_dataset, cycle_length=1))
    assert next(it).tolist() == 0
    with pytest.raises(sluice.InvalidArgumentError, match="returned list \\[1, 2\\], expected a sluice.Dataset"):
        next(it)
    assert values(it) == [0, 1, 2]


# ---------------------------------------------------------------------- errors


def test_exception_in_the_callable_is_the_elements_error_with_its_traceback():
    def parse(x):
        if x == 2:
            return helper_that_fails(x)
        return x

    it = iter(sluice.Dataset.range(5).map(parse))
    assert [next(it).tolist() for _ in range(2)] == [0, 1]
    with pytest.raises(sluice.InvalidArgumentError) as info:
        next(it)
    message = str(info.value)
    assert "ZeroDivisionError" in message and "cannot divide by the element 2" in message
    assert "Traceback (most recent call last)" in message and "helper_that_fails" in message and "in parse" in message
    assert values(it) == [3, 4]  # the iterator stays usable


def helper_that_fails(x):
    raise ZeroDivisionError(f"cannot divide by the element {int(x)}")


def test_a_sluice_error_raised_by_the_callable_keeps_its_code():
    def lookup(x):
        if x == 1:
            raise sluice.NotFoundError("no such key: 1")
        return x

    it = iter(sluice.Dataset.range(3).map(lookup))
    assert next(it).tolist() == 0
    with pytest.raises(sluice.NotFoundError, match="no such key: 1"):
        next(it)
    assert values(it) == [2]


# -------------------------------------------------------------------- lifetime


def run_in_thread(target):
    """Runs target() on a thread, bounded by WAIT_S; re-raises what it raised."""
    failure = []

    def body():
        try:
            target()
        except BaseException as error:  # noqa: BLE001 - handed to the test
            failure.append(error)

    thread = threading.Thread(target=body)
    thread.start()
    thread.join(WAIT_S)
    assert not thread.is_alive(), f"{target.__name__} did not return within {WAIT_S} s"
    if failure:
        raise failure[0]


def test_close_mid_stream_while_parallel_python_maps_run():
    calls = []

    def slow(x):
        calls.append(int(x))
        time.sleep(0.002)
        return x

    for parallel in (4, sluice.AUTOTUNE):
        it = iter(sluice.Dataset.range(100_000).map(slow, num_parallel_calls=parallel).prefetch(8))
        assert next(it).tolist() == 0
        run_in_thread(it.close)
        assert it.closed
        with pytest.raises(StopIteration):
            next(it)
    assert calls and len(calls) < 200_000


def test_drop_dataset_and_iterator_from_another_thread():
    def slow(x):
        time.sleep(0.001)
        return x + 1

    ds = sluice.Dataset.range(10_000).map(slow, num_parallel_calls=4).filter(lambda x: x % 2 == 0)
    it = iter(ds)
    assert next(it).tolist() == 2
    holder = [ds, it]
    del ds, it

    def drop():
        holder.clear()  # the last references: workers are stopped on this thread

    run_in_thread(drop)
    # A fresh pipeline still works on this thread after the other dropped its own.
    assert values(sluice.Dataset.range(3).map(lambda x: x * 2, num_parallel_calls=2)) == [0, 2, 4]


def test_exit_with_parallel_python_maps_running():
    # The interpreter exits while CPU-pool workers call Python: they finish
    # their calls before it finalizes, and the process exits cleanly.
    code = """
import time, sluice
def slow(x):
    time.sleep(0.001)
    return x
it = iter(sluice.Dataset.range(10**6).map(slow, num_parallel_calls=4).prefetch(4))
next(it)
print("exiting")
"""
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=WAIT_S)
    assert result.returncode == 0 and result.stdout.strip() == "exiting", result.stderr


def test_iterate_on_another_thread_while_this_one_runs_python():
    ds = sluice.Dataset.range(300).map(lambda x: x * 3, num_parallel_calls=4)
    results = {}

    def consume():
        results["other"] = values(ds)

    thread = threading.Thread(target=consume)
    thread.start()
    mine = values(ds)
    thread.join(WAIT_S)
    assert not thread.is_alive()
    assert mine == results["other"] == [3 * x for x in range(300)]


def test_a_scalar_string_reaches_the_traced_function_as_bytes():
    # As in iteration: the output spec is traced with bytes, so len() works.
    ds = sluice.Dataset.from_tensor_slices(np.array([b"ab", b"c"], dtype=object)).map(lambda r: np.int64(len(r)))
    assert ds.element_spec.dtype == np.int64
    assert [int(n) for n in ds] == [2, 1]
