"""Iteration: zero-copy arrays and their lifetime, checkpoints, errors, closing."""

import gc
import threading

import numpy as np
import pytest

import sluice


def test_batches_are_read_only_views_of_sluice_buffers():
    x = np.arange(64 * 32, dtype=np.float32).reshape(64, 32)
    ds = sluice.Dataset.from_tensor_slices({"x": x}).batch(16)
    batch = next(iter(ds))["x"]
    assert not batch.flags.owndata and not batch.flags.writeable
    assert batch.base is not None
    with pytest.raises(ValueError):
        batch[0, 0] = 1.0
    # A second view of the same batch shares its memory, and neither copies.
    view = np.asarray(batch)
    assert np.shares_memory(view, batch)
    assert view.ctypes.data == batch.ctypes.data
    # The source array was copied into Sluice once, so batches don't alias it.
    assert not np.shares_memory(batch, x)


def test_from_tensors_repeats_one_buffer_without_copies():
    ds = sluice.Dataset.from_tensors(np.arange(1000, dtype=np.int64)).repeat(3)
    a, b, c = list(ds)
    assert a.ctypes.data == b.ctypes.data == c.ctypes.data


def test_arrays_outlive_their_iterator_and_dataset():
    ds = sluice.Dataset.from_tensor_slices({"x": np.arange(4096, dtype=np.float64).reshape(256, 16)}).batch(64).prefetch(2)
    it = iter(ds)
    kept = [next(it)["x"], next(it)["x"]]
    del it, ds
    gc.collect()
    # Allocate and free a lot so that freed memory would be reused.
    for _ in range(50):
        np.ones(1 << 16).sum()
    assert kept[0][0, 0] == 0.0 and kept[1][0, 0] == 64 * 16
    assert kept[1].sum() == np.arange(64 * 16, 128 * 16, dtype=np.float64).sum()


def test_strings_come_out_as_bytes():
    ds = sluice.Dataset.from_tensor_slices(np.array([b"a", b"bc", b""], dtype=object)).batch(3)
    (batch,) = list(ds)
    assert batch.dtype == object and batch.tolist() == [b"a", b"bc", b""]


def take_all(it):
    return [v.tolist() for v in it]


@pytest.mark.parametrize("parallel", [None, 3, sluice.AUTOTUNE])
def test_state_resumes_exactly_mid_epoch(parallel):
    ds = (
        sluice.Dataset.range(200)
        .shuffle(37, seed=7, reshuffle_each_iteration=False)
        .map(sluice.fn.scale_shift("", 2.0, 1.0), num_parallel_calls=parallel)
        .batch(5)
        .prefetch(3)
    )
    expected = take_all(iter(ds))
    for stop in (0, 1, 13, 39):
        it = iter(ds)
        head = [next(it).tolist() for _ in range(stop)]
        state = it.state_dict()
        assert isinstance(state, bytes)
        rest_of_saved = take_all(it)
        resumed = take_all(ds.iterator(state))
        assert head + resumed == expected
        assert resumed == rest_of_saved
        loaded = iter(ds)
        loaded.load_state_dict(state)
        assert take_all(loaded) == rest_of_saved


def test_state_of_another_graph_is_refused():
    it = iter(sluice.Dataset.range(10).batch(2))
    next(it)
    state = it.state_dict()
    with pytest.raises(sluice.InvalidArgumentError, match="batch"):
        sluice.Dataset.range(10).batch(3).iterator(state)
    with pytest.raises(sluice.DataLossError):
        sluice.Dataset.range(10).batch(2).iterator(b"\x08garbage")
    with pytest.raises(TypeError, match="state"):
        sluice.Dataset.range(10).iterator("not bytes")


def test_cache_cannot_save_and_says_so():
    it = iter(sluice.Dataset.range(10).cache())
    next(it)
    with pytest.raises(sluice.UnimplementedError, match="cache"):
        it.state_dict()


def test_an_element_error_raises_and_iteration_continues():
    # Batching rows of different shapes fails for that batch only.
    ragged = sluice.Dataset.from_tensors(np.arange(2)).concatenate(sluice.Dataset.from_tensors(np.arange(3)))
    ds = ragged.batch(2).concatenate(ragged.batch(1))
    it = iter(ds)
    with pytest.raises(sluice.InvalidArgumentError, match="batch"):
        next(it)
    assert next(it).tolist() == [[0, 1]]
    assert next(it).tolist() == [[0, 1, 2]]
    with pytest.raises(StopIteration):
        next(it)
    assert list(ragged.batch(2).ignore_errors()) == []


def test_exception_classes():
    codes = {
        "CancelledError": "Cancelled",
        "InvalidArgumentError": "InvalidArgument",
        "NotFoundError": "NotFound",
        "AlreadyExistsError": "AlreadyExists",
        "OutOfRangeError": "OutOfRange",
        "ResourceExhaustedError": "ResourceExhausted",
        "FailedPreconditionError": "FailedPrecondition",
        "UnimplementedError": "Unimplemented",
        "InternalError": "Internal",
        "DataLossError": "DataLoss",
    }
    for name in codes:
        cls = getattr(sluice, name)
        assert issubclass(cls, sluice.Error) and issubclass(sluice.Error, Exception)
        assert cls.__doc__
    assert issubclass(sluice.InvalidArgumentError, ValueError)
    # Raised ones carry their code and the full message.
    with pytest.raises(sluice.NotFoundError) as info:
        sluice.Dataset.list_files("/nonexistent-dir/*.tfrecord")
    assert info.value.code == "NotFound" and "/nonexistent-dir/*.tfrecord" in str(info.value)
    with pytest.raises(sluice.InvalidArgumentError) as info:
        sluice.Dataset.range(3).shard(2, 5)
    assert info.value.code == "InvalidArgument" and "shard" in str(info.value)
    with pytest.raises(sluice.ResourceExhaustedError) as info:
        list(sluice.Dataset.range(10**6).shuffle(10**6).with_options(sluice.Options(ram_budget_bytes=1 << 20)))
    assert info.value.code == "ResourceExhausted"


def test_data_loss_names_file_and_offset(tmp_path):
    path = tmp_path / "bad.tfrecord"
    path.write_bytes(b"\x10\x00\x00\x00\x00\x00\x00\x00" + b"\x00" * 4 + b"short")
    with pytest.raises(sluice.DataLossError) as info:
        list(sluice.Dataset.tfrecord(str(path)))
    assert str(path) in str(info.value) and "offset" in str(info.value)


def test_close_stops_and_ends_iteration():
    ds = sluice.Dataset.range(10**9).map(sluice.fn.scale_shift("", 1.0, 0.0), num_parallel_calls=2).prefetch(8)
    it = iter(ds)
    next(it)
    it.close()
    assert it.closed
    with pytest.raises(StopIteration):
        next(it)
    with iter(ds) as it2:
        next(it2)
    assert it2.closed


def test_two_threads_on_one_iterator_is_an_error_not_a_crash():
    ds = sluice.Dataset.range(10**6).shuffle(10**5, seed=1)
    it = iter(ds)
    errors = []

    def pull():
        try:
            for _ in range(2000):
                next(it)
        except RuntimeError as e:
            errors.append(e)

    threads = [threading.Thread(target=pull) for _ in range(2)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(timeout=120)
    assert not any(t.is_alive() for t in threads)
    for e in errors:
        assert "two threads" in str(e)


def test_a_daemon_thread_waiting_in_next_at_exit_does_not_abort_the_process():
    import subprocess
    import sys

    code = """
import threading, time, sluice
ds = sluice.Dataset.range(10**7).shuffle(10**6, seed=1)
def pull():
    while True:
        next(iter(ds))   # each fills a shuffle buffer without the GIL
threading.Thread(target=pull, daemon=True).start()
time.sleep(0.3)
"""
    for _ in range(3):
        run = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
        assert run.returncode == 0, run.stderr


def test_daemon_threads_taking_the_gil_back_as_the_interpreter_exits_do_not_abort_the_process():
    import subprocess
    import sys

    # Four threads return from next() and drop iterators without pause, so
    # some are waiting for the GIL whenever the main thread starts to exit;
    # two of them also run a Python function on the CPU pool.
    code = """
import threading, time, sluice
def pull(k):
    ds = sluice.Dataset.range(10**12)
    if k % 2:
        ds = ds.map(lambda x: x + 1, num_parallel_calls=2)
    while True:
        it = iter(ds.prefetch(2))
        for _ in range(50):
            next(it)
        del it
for k in range(4):
    threading.Thread(target=pull, args=(k,), daemon=True).start()
time.sleep(0.3)
"""
    for _ in range(3):
        run = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
        assert run.returncode == 0, run.stderr
        assert run.stderr == ""  # nothing kept the exit waiting
