"""sluice.Iterator, one traversal of a Dataset, and the Dataset methods that
traverse it at once (reduce, get_single_element; self is the Dataset)."""

from . import _sluice


class Iterator(_sluice.Iterator):
    """One traversal of a Dataset: next() yields its elements.

    next() releases the GIL while the pipeline works, so other Python
    threads run meanwhile; Ctrl-C interrupts a next() that is waiting
    (KeyboardInterrupt; the iterator is then closed). close() stops the
    traversal's workers at once; so does dropping the iterator.

    state_dict() saves the position (bytes); Dataset.iterator(state) or
    load_state_dict(state) resume exactly there, shuffle buffers, parallel
    maps and prefetch buffers included."""

    def __init__(self, dataset, state=None, _profile=None, _converter=None):
        from .dataset import _as_dataset

        dataset = _as_dataset(dataset, "dataset")
        if state is not None and not isinstance(state, (bytes, bytearray, memoryview)):
            raise TypeError(f"state: expected bytes from Iterator.state_dict(), got {type(state).__name__}")
        options = dataset._options
        super().__init__(
            dataset._ds,
            cpu_budget=options.cpu_budget,
            ram_budget_bytes=options.ram_budget_bytes,
            deterministic=options.deterministic,
            profile=_profile,
            state=None if state is None else bytes(state),
            converter=_converter,
        )
        self._dataset = dataset

    @property
    def dataset(self):
        """The Dataset this iterator traverses."""
        return self._dataset

    def state_dict(self):
        """The iterator's position as bytes (tf.data's iterator checkpoint):
        pass it to Dataset.iterator(state) or load_state_dict, in this
        process or another. UnimplementedError for ops that cannot save
        (cache)."""
        return self.save()

    def load_state_dict(self, state):
        """Moves this iterator to a position saved by state_dict()."""
        fresh = Iterator(self._dataset, state=state)
        self.close()
        self._swap(fresh)

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()
        return False


def reduce(self, initial_state, reduce_func):
    """Folds the elements into one value, as tf.data's reduce: state =
    reduce_func(state, element) for each element in order, from
    initial_state; returns the last state. It traverses the dataset
    now; an infinite dataset is a ValueError."""
    if not callable(reduce_func):
        raise TypeError(f"reduce: reduce_func must be callable, got {type(reduce_func).__name__}")
    if self._ds.cardinality == _sluice.INFINITE_CARDINALITY:
        raise ValueError("reduce: the dataset is infinite")
    state = initial_state
    with Iterator(self) as it:
        for element in it:
            state = reduce_func(state, element)
    return state


def get_single_element(self):
    """The only element of the dataset (tf.data's get_single_element);
    InvalidArgumentError when it has none or more than one."""
    with Iterator(self) as it:
        element = next(it, None)
        if element is None:
            raise _sluice.InvalidArgumentError("get_single_element: Dataset was empty.")
        if next(it, None) is not None:
            raise _sluice.InvalidArgumentError("get_single_element: Dataset had more than one element.")
    return element
