"""DLPack (_sluice.Tensor, capsules) and sluice.torch: zero-copy torch tensors, the
IterableDataset's sharding by rank and DataLoader worker, len() and state_dict resume."""

import gc
import io
import os
import pickle
import subprocess
import sys
import textwrap
import types

import numpy as np
import pytest
import torch
from torch.utils.data import DataLoader

import sluice
import sluice.torch
from sluice import _sluice

# DataLoader workers in this process get the wrapper by its pipeline spec;
# forked workers (the default start method) are tested in subprocesses.
WORKER_CONTEXT = "forkserver"
WAIT_S = 60  # DataLoader's bound on each wait for a worker
UNDER_ASAN = "libasan" in os.environ.get("LD_PRELOAD", "")


def address(array):
    return array.__array_interface__["data"][0]


def resident_bytes():
    with open("/proc/self/statm") as statm:
        return int(statm.read().split()[1]) * os.sysconf("SC_PAGE_SIZE")


def fake_worker(monkeypatch, worker_id, num_workers):
    info = types.SimpleNamespace(id=worker_id, num_workers=num_workers)
    monkeypatch.setattr(torch.utils.data, "get_worker_info", lambda: info)


def ints(elements):
    out = []
    for element in elements:
        out.extend(np.atleast_1d(element.numpy()).tolist())
    return out


# ------------------------------------------------------------------ DLPack


@pytest.mark.parametrize("dtype", ["uint8", "int32", "int64", "float16", "float32", "float64"])
def test_numpy_and_torch_read_a_tensor_without_a_copy(dtype):
    values = np.arange(12).reshape(3, 4).astype(dtype)
    tensor = _sluice.Tensor(values)
    assert tensor.shape == (3, 4) and tensor.dtype == dtype
    view = np.asarray(tensor)
    assert not view.flags.writeable and np.shares_memory(view, np.asarray(tensor))
    from_numpy = np.from_dlpack(tensor)
    from_torch = torch.from_dlpack(tensor)
    assert address(from_numpy) == address(view) and from_torch.data_ptr() == address(view)
    np.testing.assert_array_equal(from_numpy, values)
    np.testing.assert_array_equal(from_torch.numpy(), values)
    assert tensor.__dlpack_device__() == (1, 0)


def test_dlpack_keywords_of_newer_consumers():
    tensor = _sluice.Tensor(np.arange(4, dtype=np.int64))
    view = np.asarray(tensor)
    newer = torch.utils.dlpack.from_dlpack(tensor.__dlpack__(max_version=(1, 0), dl_device=(1, 0)))
    assert newer.data_ptr() == address(view)
    copy = torch.utils.dlpack.from_dlpack(tensor.__dlpack__(copy=True))
    assert copy.data_ptr() != address(view) and copy.tolist() == [0, 1, 2, 3]
    with pytest.raises(BufferError, match="host memory"):
        tensor.__dlpack__(dl_device=(2, 0))
    with pytest.raises(BufferError, match="stream"):
        tensor.__dlpack__(stream=7)
    with pytest.raises(TypeError, match="unexpected keyword argument 'colour'"):
        tensor.__dlpack__(colour=1)


@pytest.mark.parametrize("values, dtype", [(np.array([b"ab", b"c"]), "string"), (np.array([True, False]), "bool")])
def test_strings_and_bools_have_no_dlpack_form(values, dtype):
    tensor = _sluice.Tensor(values)
    with pytest.raises(TypeError, match=f"a {dtype} tensor has no DLPack form"):
        tensor.__dlpack__()
    assert np.asarray(tensor).tolist() == values.tolist()


def test_capsules_never_consumed_free_their_tensors():
    big = _sluice.Tensor(np.ones(2**21, dtype=np.float32))  # 8 MiB
    for _ in range(3):
        big.__dlpack__(copy=True)  # warm the allocator
    before = resident_bytes()
    for _ in range(50):  # each capsule owns a fresh 8 MiB copy: 400 MiB if none were freed
        big.__dlpack__(copy=True)
    gc.collect()
    if not UNDER_ASAN:  # whose quarantine keeps freed memory resident
        assert resident_bytes() - before < 64 * 2**20
    # A consumed capsule is the consumer's: deleting it frees nothing twice.
    capsule = big.__dlpack__()
    consumed = torch.utils.dlpack.from_dlpack(capsule)
    del capsule, big
    gc.collect()
    assert float(consumed.sum()) == 2**21


# ------------------------------------------------------------ sluice.torch


def test_iterate_yields_torch_tensors_of_each_structure_and_dtype():
    x = np.arange(12, dtype=np.float32).reshape(6, 2)
    named = sluice.Dataset.from_tensor_slices(
        {"x": x, "flag": x[:, 0] > 4, "word": np.array([b"a", b"b", b"c", b"d", b"e", b"f"])}
    ).batch(4)
    first = next(iter(sluice.torch.iterate(named)))
    assert first["x"].dtype == torch.float32 and first["x"].tolist() == x[:4].tolist()
    assert first["flag"].dtype == torch.bool and first["flag"].tolist() == [False, False, False, True]
    assert isinstance(first["word"], np.ndarray) and first["word"].tolist() == [b"a", b"b", b"c", b"d"]
    pair = next(sluice.torch.to_torch(sluice.Dataset.from_tensor_slices((x, x[:, 1] > 4))))
    assert isinstance(pair, tuple) and pair[0].tolist() == [0.0, 1.0] and pair[1].dtype == torch.bool
    assert [int(t) for t in sluice.torch.iterate(sluice.Dataset.range(3))] == [0, 1, 2]
    half = sluice.Dataset.range(4).map(sluice.fn.cast(None, "bfloat16"))
    assert [t.dtype for t in sluice.torch.iterate(half)] == [torch.bfloat16] * 4


def test_iterator_tensors_view_sluice_buffers():
    # from_tensors hands out its one buffer again: the numpy view and the
    # torch tensors of every repetition are the same memory.
    ds = sluice.Dataset.from_tensors({"x": np.arange(32, dtype=np.float32).reshape(4, 8)}).repeat(2)
    (numpy_view, _) = [element["x"] for element in ds]
    first, second = [element["x"] for element in sluice.torch.iterate(ds)]
    assert first.data_ptr() == address(numpy_view) == second.data_ptr()
    assert np.shares_memory(first.numpy(), second.numpy())


def test_tensors_outlive_the_iterator_and_the_dataset():
    ds = sluice.Dataset.range(64).map(sluice.fn.scale_shift(None, 2.0, 1.0), num_parallel_calls=2).batch(16).prefetch(2)
    it = sluice.torch.iterate(ds)
    batches = [next(it), next(it)]
    del it, ds
    gc.collect()
    _ = [np.full(4096, 7.0) for _ in range(256)]  # reuse whatever was freed
    assert batches[0].tolist() == [2.0 * i + 1 for i in range(16)]
    assert batches[1].tolist() == [2.0 * i + 1 for i in range(16, 32)]


def test_torch_elements_pickle():
    ds = sluice.Dataset.from_tensor_slices({"x": np.arange(6.0).reshape(3, 2), "s": [b"p", b"q", b"r"]}).batch(3)
    batch = next(sluice.torch.iterate(ds))
    copy = pickle.loads(pickle.dumps(batch))
    assert torch.equal(copy["x"], batch["x"]) and copy["s"].tolist() == [b"p", b"q", b"r"]


def test_iterator_state_resumes_with_torch_tensors():
    ds = sluice.Dataset.range(30).shuffle(10, seed=3).batch(4)
    it = sluice.torch.iterate(ds)
    [next(it) for _ in range(3)]
    state = it.state_dict()
    rest = [t.tolist() for t in it]
    resumed = sluice.torch.iterate(ds, state=state)
    assert [t.tolist() for t in resumed] == rest
    moved = sluice.torch.iterate(ds)
    moved.load_state_dict(state)
    assert all(isinstance(t, torch.Tensor) for t in moved)


# --------------------------------------------------------- IterableDataset


PARALLEL_BATCHES = sluice.Dataset.range(23).map(sluice.fn.scale_shift(None, 1.0), num_parallel_calls=2).batch(4)


@pytest.mark.parametrize("ds", [sluice.Dataset.range(23), PARALLEL_BATCHES], ids=["range", "batched"])
def test_dataloader_workers_deliver_each_element_once(ds):
    wrapper = sluice.torch.IterableDataset(ds)
    loader = DataLoader(wrapper, batch_size=None, num_workers=2, multiprocessing_context=WORKER_CONTEXT, timeout=WAIT_S)
    elements = list(loader)
    assert all(isinstance(e, torch.Tensor) for e in elements)
    assert sorted(ints(elements)) == list(range(23))
    assert len(elements) == len(wrapper) == len(ds)


def test_forked_dataloader_workers_of_a_fresh_process():
    # The default start method, in a process that has run no pipeline yet.
    script = textwrap.dedent(
        """
        import sluice, sluice.torch, torch
        ds = sluice.Dataset.range(40).map(sluice.fn.cast(None, "int32"), num_parallel_calls=2).batch(3)
        wrapper = sluice.torch.IterableDataset(ds)
        loader = torch.utils.data.DataLoader(wrapper, batch_size=None, num_workers=2, timeout=60)
        print(sorted(int(v) for batch in loader for v in batch))
        """
    )
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == str(list(range(40)))


def test_forked_dataloader_workers_after_parallel_pipelines_ran():
    # The default start method, after this process ran parallel ops (oneTBB's
    # workers started) and with one of its iterators still open: the workers'
    # parallel ops run on plain threads, and the open iterator goes on here.
    script = textwrap.dedent(
        """
        import sluice, sluice.torch, torch
        ds = (sluice.Dataset.range(40).map(sluice.fn.cast(None, "int32"), num_parallel_calls=2)
              .batch(3, num_parallel_calls=2))
        values = lambda batches: sorted(int(v) for batch in batches for v in batch)
        assert values(ds) == list(range(40))
        held = iter(ds)
        first = next(held)
        loader = torch.utils.data.DataLoader(sluice.torch.IterableDataset(ds), batch_size=None, num_workers=2,
                                             timeout=60)
        print(sorted(int(v) for batch in loader for v in batch))
        assert values([first, *held]) == list(range(40))
        """
    )
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == str(list(range(40)))
    assert "forkserver and spawn start methods keep oneTBB" in done.stderr


@pytest.mark.parametrize("world_size, num_workers", [(1, 3), (2, 2), (3, 1), (3, 2)])
def test_ranks_and_workers_partition_the_elements(monkeypatch, world_size, num_workers):
    ds = sluice.Dataset.range(17)
    seen = []
    for rank in range(world_size):
        wrapper = sluice.torch.IterableDataset(ds, rank=rank, world_size=world_size)
        mine = []
        for worker in range(num_workers):
            fake_worker(monkeypatch, worker, num_workers)
            mine += ints(wrapper)
        assert sorted(mine) == list(range(rank, 17, world_size)) and len(mine) == len(wrapper)
        seen += mine
    assert sorted(seen) == list(range(17))


def test_three_ranks_without_workers_cover_everything_once():
    ds = sluice.Dataset.range(20).batch(2)
    shares = [ints(sluice.torch.IterableDataset(ds, rank=r, world_size=3)) for r in range(3)]
    assert sorted(sum(shares, [])) == list(range(20))
    assert [len(sluice.torch.IterableDataset(ds, rank=r, world_size=3)) for r in range(3)] == [4, 3, 3]


def test_rank_and_world_size_from_the_environment(monkeypatch):
    monkeypatch.delenv("RANK", raising=False)
    monkeypatch.delenv("WORLD_SIZE", raising=False)
    wrapper = sluice.torch.IterableDataset(sluice.Dataset.range(6))
    assert (wrapper.rank, wrapper.world_size) == (0, 1)
    monkeypatch.setenv("RANK", "1")
    monkeypatch.setenv("WORLD_SIZE", "2")
    wrapper = sluice.torch.IterableDataset(sluice.Dataset.range(6))
    assert (wrapper.rank, wrapper.world_size) == (1, 2) and ints(wrapper) == [1, 3, 5]
    assert sluice.torch.IterableDataset(sluice.Dataset.range(6), rank=0).rank == 0
    monkeypatch.setenv("RANK", "one")
    with pytest.raises(ValueError, match="RANK"):
        sluice.torch.IterableDataset(sluice.Dataset.range(6))
    with pytest.raises(ValueError, match="rank: 2 is not below world_size 2"):
        sluice.torch.IterableDataset(sluice.Dataset.range(6), rank=2, world_size=2)


def test_len_needs_a_known_cardinality():
    assert len(sluice.torch.IterableDataset(sluice.Dataset.range(10), rank=1, world_size=4)) == 3
    with pytest.raises(TypeError, match="infinite"):
        len(sluice.torch.IterableDataset(sluice.Dataset.range(3).repeat()))
    with pytest.raises(TypeError, match="unknown"):
        len(sluice.torch.IterableDataset(sluice.Dataset.range(10).filter(sluice.fn.less("", 5))))


def test_state_dict_resumes_mid_epoch_exactly():
    ds = (
        sluice.Dataset.range(80)
        .shuffle(16, seed=7)
        .map(sluice.fn.scale_shift(None, 3.0, 1.0), num_parallel_calls=3)
        .batch(4)
        .prefetch(2)
    )
    wrapper = sluice.torch.IterableDataset(ds, rank=1, world_size=2)
    it = iter(DataLoader(wrapper, batch_size=None))
    [next(it) for _ in range(4)]
    saved = io.BytesIO()
    torch.save(wrapper.state_dict(), saved)
    rest = [t.tolist() for t in it]
    assert len(rest) == 6
    again = sluice.torch.IterableDataset(ds, rank=1, world_size=2)
    saved.seek(0)
    again.load_state_dict(torch.load(saved))
    assert [t.tolist() for t in DataLoader(again, batch_size=None)] == rest


def test_state_dict_misuse(monkeypatch):
    wrapper = sluice.torch.IterableDataset(sluice.Dataset.range(8), rank=0, world_size=2)
    with pytest.raises(RuntimeError, match="no iteration has started"):
        wrapper.state_dict()
    it = iter(wrapper)
    next(it)
    state = wrapper.state_dict()
    with pytest.raises(ValueError, match="saved by rank 0 of 2, loaded by rank 1 of 2"):
        sluice.torch.IterableDataset(sluice.Dataset.range(8), rank=1, world_size=2).load_state_dict(state)
    with pytest.raises(TypeError, match="state_dict"):
        wrapper.load_state_dict(b"bytes")
    wrapper.load_state_dict(state)
    assert wrapper.state_dict() == state
    fake_worker(monkeypatch, 0, 2)
    with pytest.raises(RuntimeError, match="num_workers=0 only"):
        iter(wrapper)


def test_iterable_dataset_pickles_by_spec():
    ds = sluice.Dataset.range(12).shuffle(4, seed=1).with_options(sluice.Options(cpu_budget=1))
    wrapper = sluice.torch.IterableDataset(ds, rank=1, world_size=3)
    copy = pickle.loads(pickle.dumps(wrapper))
    assert (copy.rank, copy.world_size, copy.dataset.options) == (1, 3, ds.options)
    assert ints(copy) == ints(sluice.torch.IterableDataset(ds, rank=1, world_size=3))
