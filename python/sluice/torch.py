"""sluice.torch: Sluice pipelines feeding PyTorch.

    import sluice, sluice.torch
    ds = (sluice.Dataset.tfrecord(files, compression="GZIP")
          .shuffle(10_000, seed=1).batch(256)
          .map(sluice.fn.parse_example(features)).prefetch(sluice.AUTOTUNE))
    for batch in sluice.torch.iterate(ds):
        batch["image"]  # torch.Tensor [256, ...], Sluice's buffer (no copy)

    loader = torch.utils.data.DataLoader(sluice.torch.IterableDataset(ds), batch_size=None)

Tensors come through DLPack: a torch tensor views the buffer Sluice made
(no copy, no warning about read-only memory) and keeps it alive after the
iterator and the dataset are gone. That buffer may be shared (a cached,
repeated or from_tensors element is handed out again): never write to these
tensors in place; clone() one to modify it. String components stay numpy
object arrays of bytes (torch has no strings); bool components are viewed
as torch.bool.

Sluice runs the pipeline on its own C++ threads and next() releases the
GIL, so DataLoader worker processes add nothing but copies:
num_workers=0 is the usual choice.
"""

import os

import torch
import torch.utils.data
from torch.utils.dlpack import from_dlpack as _from_dlpack

from . import _args, _iterator, _sluice, dataset as _dataset


def _bool_view(spec):
    """The function that views an element's bool components (which DLPack
    0.6 carries as uint8) as torch.bool, or None when it has none."""

    def is_bool(s):
        return s.dtype_name == "bool"

    if isinstance(spec, dict):
        keys = [key for key, s in spec.items() if is_bool(s)]
        if not keys:
            return None

        def view(element):
            for key in keys:
                element[key] = element[key].view(torch.bool)
            return element

        return view
    if isinstance(spec, tuple):
        if not any(is_bool(s) for s in spec):
            return None
        flags = [is_bool(s) for s in spec]
        return lambda element: tuple(t.view(torch.bool) if b else t for t, b in zip(element, flags))
    return (lambda tensor: tensor.view(torch.bool)) if is_bool(spec) else None


class Iterator(_iterator.Iterator):
    """One traversal of a sluice.Dataset yielding torch tensors (dicts,
    tuples or single tensors, as the numpy iterator yields arrays) that
    share Sluice's buffers: do not write to them in place.

    state_dict() / load_state_dict() save and restore the position, as
    sluice.Iterator's do (bytes)."""

    def __init__(self, dataset, state=None):
        super().__init__(dataset, state=state, _converter=_from_dlpack)
        self._view_bools = _bool_view(self.dataset.element_spec)

    def __next__(self):
        element = super().__next__()
        return element if self._view_bools is None else self._view_bools(element)


def iterate(ds, state=None):
    """An iterator over `ds` (a sluice.Dataset) yielding torch tensors
    without a copy (see Iterator); with `state` (bytes from state_dict()),
    it resumes where the saved one was."""
    return Iterator(ds, state=state)


to_torch = iterate


def _from_environment(name, default):
    value = os.environ.get(name)
    if value is None or value == "":
        return default
    try:
        return int(value)
    except ValueError:
        raise ValueError(f"environment variable {name}: expected an integer, got {value!r}") from None


class IterableDataset(torch.utils.data.IterableDataset):
    """A sluice.Dataset as a torch.utils.data.IterableDataset, sharded by
    rank and by DataLoader worker, yielding torch tensors (as iterate()).

        loader = DataLoader(sluice.torch.IterableDataset(ds), batch_size=None)

    rank, world_size: this process's place among the training processes;
        None reads the RANK and WORLD_SIZE environment variables (torchrun
        sets them), 0 and 1 when unset.

    Sharding is of the elements of `ds` as given: each iteration traverses
    ds.shard(world_size * num_workers, rank + world_size * worker_id), so
    rank r sees the elements whose index is r modulo world_size (as
    DistributedSampler deals them), however many workers it has, and
    DataLoader(num_workers=k, batch_size=None) sees each of them exactly
    once. Every shard still runs the whole pipeline up to ds and drops the
    others' elements, so pass a dataset whose elements are cheap to make
    (records, file names), and batch and parse after it if that is
    costly; batch_size=None when ds already batches. The shards partition
    the elements only when every process and worker traverses ds in the
    same order: shuffles need a seed.

    DataLoader workers: Sluice's C++ threads already run the pipeline in
    parallel, so num_workers=0 is the usual choice. With workers, each
    holds its own copy of this object. Under the default start method
    (fork) a worker copies the parent's memory but none of its threads,
    and oneTBB's thread pool, which runs parallel ops (those with
    num_parallel_calls), does not survive a fork: once this process has
    run a Sluice pipeline, parallel ops in forked workers run on plain
    threads of their own instead (Sluice logs a warning once per worker),
    any functions work, and the results are the same. Start methods
    "forkserver" and "spawn" (multiprocessing_context=) keep oneTBB in
    the workers; they send this object by its pipeline spec
    (Dataset.to_spec), so its functions must be sluice.fn built-ins.
    A new worker's copy starts from this object's dataset, so a shuffle
    with reshuffle_each_iteration gives each epoch the same order unless
    the workers persist (persistent_workers=True).

    len(): this rank's share of a dataset of known cardinality, all its
    workers together; TypeError for an infinite or unknown one.

    state_dict() / load_state_dict(): the position of the iteration in
    progress, as {"rank", "world_size", "iterator": bytes}, with
    num_workers=0 (the iteration then runs in this process). The next
    iteration after load_state_dict() resumes there, exactly. With
    num_workers > 0 the iterations run in the workers, out of this
    process's reach: state_dict() knows only iterations run here (none:
    RuntimeError), and a worker given a loaded state raises RuntimeError
    rather than start over.
    """

    def __init__(self, ds, rank=None, world_size=None):
        super().__init__()
        self._ds = _dataset._as_dataset(ds, "ds")
        if world_size is None:
            world_size = _from_environment("WORLD_SIZE", 1)
        if rank is None:
            rank = _from_environment("RANK", 0)
        self.world_size = _args.integer(world_size, "world_size", minimum=1)
        self.rank = _args.integer(rank, "rank", minimum=0)
        if self.rank >= self.world_size:
            raise ValueError(f"rank: {self.rank} is not below world_size {self.world_size}")
        self._iterator = None  # the iteration this process runs (num_workers=0)
        self._loaded_state = None  # bytes for the next iteration, from load_state_dict

    @property
    def dataset(self):
        """The sluice.Dataset as given (before sharding)."""
        return self._ds

    def __iter__(self):
        worker = torch.utils.data.get_worker_info()
        workers, worker_id = (1, 0) if worker is None else (worker.num_workers, worker.id)
        if worker is not None and self._loaded_state is not None:
            raise RuntimeError(
                "sluice.torch.IterableDataset: a state from load_state_dict() resumes with num_workers=0 only "
                "(DataLoader workers each traverse their own shard)"
            )
        shards = self.world_size * workers
        ds = self._ds if shards == 1 else self._ds.shard(shards, self.rank + self.world_size * worker_id)
        state, self._loaded_state = self._loaded_state, None
        iterator = Iterator(ds, state=state)
        if worker is None:
            self._iterator = iterator
        return iterator

    def __len__(self):
        n = self._ds.cardinality()
        if n == _dataset.INFINITE_CARDINALITY:
            raise TypeError("sluice.torch.IterableDataset: the dataset is infinite")
        if n == _dataset.UNKNOWN_CARDINALITY:
            raise TypeError("sluice.torch.IterableDataset: the dataset's length is unknown")
        return len(range(self.rank, n, self.world_size))

    def state_dict(self):
        """The position of the iteration in progress (see the class)."""
        if self._loaded_state is not None:
            return self._state(self._loaded_state)
        if self._iterator is None:
            raise RuntimeError(
                "sluice.torch.IterableDataset.state_dict: no iteration has started in this process (with "
                "DataLoader(num_workers > 0) they run in the workers, whose positions cannot be saved: "
                "use num_workers=0)"
            )
        return self._state(self._iterator.state_dict())

    def _state(self, iterator_state):
        return {"rank": self.rank, "world_size": self.world_size, "iterator": iterator_state}

    def load_state_dict(self, state):
        """Makes the next iteration resume at `state` (from state_dict())."""
        if not isinstance(state, dict) or set(state) != {"rank", "world_size", "iterator"}:
            raise TypeError("state: expected the dict of IterableDataset.state_dict()")
        if (state["rank"], state["world_size"]) != (self.rank, self.world_size):
            raise ValueError(
                f"state: saved by rank {state['rank']} of {state['world_size']}, "
                f"loaded by rank {self.rank} of {self.world_size}"
            )
        if not isinstance(state["iterator"], (bytes, bytearray)):
            raise TypeError(f"state['iterator']: expected bytes, got {type(state['iterator']).__name__}")
        self._loaded_state = bytes(state["iterator"])

    # DataLoader workers started by spawn or forkserver get this object
    # pickled: the dataset travels as its pipeline spec.
    def __getstate__(self):
        try:
            spec = self._ds.to_spec(binary=True)
        except _sluice.UnimplementedError as e:
            raise TypeError(
                "sluice.torch.IterableDataset: cannot be sent to spawned DataLoader workers: "
                f"{e}; use num_workers=0 or multiprocessing_context='fork'"
            ) from e
        return {
            "spec": spec,
            "options": self._ds.options,
            "rank": self.rank,
            "world_size": self.world_size,
            "loaded_state": self._loaded_state,
        }

    def __setstate__(self, state):
        self._ds = _dataset.Dataset.from_spec(state["spec"]).with_options(state["options"])
        self.rank = state["rank"]
        self.world_size = state["world_size"]
        self._iterator = None
        self._loaded_state = state["loaded_state"]
