"""The Dataset methods that group elements: padded, ragged and sparse
batches, rebatch, windows, group_by_window, bucket_by_sequence_length and
sequence packing. Each function here is sluice.Dataset's method of the same
name (self is the Dataset)."""

from . import _args, _sluice, _structure


def padded_batch(self, batch_size, padded_shapes=None, padding_values=None, drop_remainder=False):
    """Batches elements of different shapes, padding each component to
    `padded_shapes` (tf.data's padded_batch).

    padded_shapes: None (every dim pads to the batch's largest), or the
        element's structure (a dict by name, a tuple, or one shape) of
        shapes whose None or -1 dims pad to the batch's largest.
    padding_values: None (0 and b""), one scalar for every component, or
        the element's structure of scalars."""
    size = _args.integer(batch_size, "batch_size", minimum=1)
    shapes, values = _padding(self, padded_shapes, padding_values)
    return self._then(self._ds.padded_batch(size, shapes, values, _args.boolean(drop_remainder, "drop_remainder")))


def rebatch(self, batch_size, drop_remainder=False):
    """The rows of batched elements in batches of another size (tf.data's
    rebatch): `batch_size` is one size, or a list of sizes taken in turn.
    Rows flow across the input's batches; the last batch is smaller
    unless drop_remainder."""
    sizes = batch_size if isinstance(batch_size, (list, tuple)) else [batch_size]
    if not sizes:
        raise ValueError("rebatch: batch_size must not be an empty list")
    sizes = [_args.integer(size, "batch_size", minimum=1) for size in sizes]
    return self._then(self._ds.rebatch(sizes, _args.boolean(drop_remainder, "drop_remainder")))


def ragged_batch(self, batch_size, drop_remainder=False):
    """Batches elements whose components may differ in length (tf.data's
    ragged_batch). A component whose first dim is unknown (a VarLen
    feature, a splitter's tokens) becomes its rows end to end plus
    "<name>/row_lengths", int64 [N] (what tf.RaggedTensor.row_lengths()
    gives); its other dims must agree within a batch. Other components
    are stacked as batch stacks them. The last batch is smaller unless
    drop_remainder."""
    size = _args.integer(batch_size, "batch_size", minimum=1)
    return self._then(self._ds.ragged_batch(size, _args.boolean(drop_remainder, "drop_remainder")))


def sparse_batch(self, batch_size, row_shape):
    """Batches the elements of a one-component dataset as one sparse
    tensor per batch (tf.data's sparse_batch): the values, every value of
    each element in row-major order, then "<name>/indices", int64
    [nnz, rank + 1], and "<name>/dense_shape", int64 [rank + 1], the
    parts of a tf.sparse.SparseTensor. Each element must have the rank of
    row_shape (a list of ints, None or -1 for the batch's largest size)
    and fit inside it."""
    size = _args.integer(batch_size, "batch_size", minimum=1)
    if isinstance(row_shape, (str, bytes)) or not hasattr(row_shape, "__iter__"):
        raise TypeError(f"sparse_batch: row_shape must be a list of ints, got {type(row_shape).__name__}")
    dims = [-1 if d is None else _args.integer(d, f"row_shape[{i}]", minimum=-1) for i, d in enumerate(row_shape)]
    return self._then(self._ds.sparse_batch(size, dims))


def bucket_by_sequence_length(
    self,
    element_length_func,
    bucket_boundaries,
    bucket_batch_sizes,
    padded_shapes=None,
    padding_values=None,
    pad_to_bucket_boundary=False,
    no_padding=False,
    drop_remainder=False,
):
    """Batches elements of similar length together (tf.data's
    bucket_by_sequence_length): bucket i holds the lengths
    [bucket_boundaries[i-1], bucket_boundaries[i]) and is emitted as a
    batch of bucket_batch_sizes[i] elements, padded as padded_batch pads
    (unknown dims to the batch's longest, or to bucket_boundaries[i] - 1
    with pad_to_bucket_boundary), or unpadded with no_padding; at the end
    the partly filled buckets follow in ascending order (dropped with
    drop_remainder).

    element_length_func: the name of the component whose length along
        axis 0 is the element's length, or None for the only component
        (a Python callable is not taken: name the component)."""
    if element_length_func is not None and not isinstance(element_length_func, str):
        raise TypeError(
            "element_length_func: expected a component name (its length along axis 0) or None, got "
            f"{type(element_length_func).__name__}"
        )
    boundaries = [_args.integer(b, "bucket_boundaries") for b in bucket_boundaries]
    sizes = [_args.integer(b, "bucket_batch_sizes") for b in bucket_batch_sizes]
    shapes, values = _padding(self, padded_shapes, padding_values)
    return self._then(
        self._ds.bucket_by_sequence_length(
            element_length_func or "",
            boundaries,
            sizes,
            shapes,
            values,
            _args.boolean(pad_to_bucket_boundary, "pad_to_bucket_boundary"),
            _args.boolean(no_padding, "no_padding"),
            _args.boolean(drop_remainder, "drop_remainder"),
        )
    )


def window(self, size, shift=None, stride=1, drop_remainder=False):
    """Groups consecutive elements into windows (tf.data's window):
    window k holds elements k * shift + i * stride for i < size (shift
    None: size); the last windows are shorter unless drop_remainder.

    A window is one element whose components hold its rows stacked
    along a new first dimension (rows of one window must have equal
    shapes). flat_map and interleave right after window give map_func
    each window as a sluice.Dataset of its rows, as tf.data does:
    ds.window(3, shift=1).flat_map(lambda w: w.batch(3))."""
    return self._then(
        self._ds.window(
            _args.integer(size, "size"),
            _args.integer(shift, "shift", allow_none=True, default=None),
            _args.integer(stride, "stride"),
            _args.boolean(drop_remainder, "drop_remainder"),
        )
    )


def group_by_window(self, key_func, reduce_func, window_size=None, window_size_func=None, max_open_groups=65536):
    """Groups elements by an int64 key and reduces each group's windows
    to datasets whose elements it yields (tf.data's group_by_window): a
    group reaching its window size is reduced at once; at the end the
    groups left are reduced in ascending key order.

    key_func: a Python callable of the element returning an int64
        scalar, a sluice.fn element function, or a component name.
    reduce_func: a Python callable (key, rows) -> sluice.Dataset, rows
        being a sluice.Dataset of the window's elements; or a sluice
        DatasetFunction of the window element (the rows stacked, then
        an int64 column 'key').
    window_size / window_size_func: exactly one; window_size_func maps
        the key (an int) to the window size.
    max_open_groups: groups open at once; an element opening one more
        raises ResourceExhaustedError."""
    entries = self._ds.element_spec
    if isinstance(key_func, (str, _sluice.ElementFunction)):
        key = key_func
    elif callable(key_func):
        from . import _callables

        key = _callables.element_function(key_func, entries, _structure.TensorSpec((), "int64"))
    else:
        raise TypeError(f"group_by_window: key_func must be callable or a component name, got {type(key_func).__name__}")
    size_fn = None
    if window_size_func is not None:
        if not callable(window_size_func):
            raise TypeError("group_by_window: window_size_func must be callable")
        from . import _callables

        size_fn = _callables.element_function(
            lambda element: window_size_func(int(element["key"])),
            [("key", "int64", [])],
            _structure.TensorSpec((), "int64"),
        )
    if isinstance(reduce_func, _sluice.DatasetFunction):
        reduce = reduce_func
    elif callable(reduce_func):
        from . import _callables

        window_entries = [(n, d, None if s is None else [None] + list(s)) for n, d, s in entries]
        window_entries.append(("key", "int64", [None]))
        reduce = _callables.dataset_function(_reduce_window(reduce_func), window_entries)
    else:
        raise TypeError(f"group_by_window: reduce_func must be callable, got {type(reduce_func).__name__}")
    return self._then(
        self._ds.group_by_window(
            key,
            reduce,
            _args.integer(window_size, "window_size", allow_none=True, default=None),
            size_fn,
            _args.integer(max_open_groups, "max_open_groups"),
            "key",
        )
    )


def pack_sequences(self, sequence_lengths, max_open_rows=8, truncate_long_sequences=True):
    """First-fit packing of 1-D sequences into rows of a fixed length, for
    language-model training, as Google Grain's packers do. Each element
    is one packed row: per component C, C (the packed values, then 0s),
    C_segment_ids (int32, 1-based per packed element, 0 for padding) and
    C_positions (int32, the position within its element). Batch the rows
    after.

    sequence_lengths: one row length for every component, or one per
        component (a dict by name or a tuple).
    max_open_rows: rows filled at once; at the bound the fullest leaves.
    truncate_long_sequences: cut a sequence longer than its row (else
        that element raises InvalidArgumentError)."""
    entries = self._ds.element_spec
    if isinstance(sequence_lengths, (dict, tuple)):
        lengths = _per_component(sequence_lengths, entries, "sequence_lengths")
    else:
        lengths = [sequence_lengths]
    lengths = [_args.integer(n, "sequence_lengths", minimum=1) for n in lengths]
    return self._then(
        self._ds.pack_sequences(
            lengths,
            _args.integer(max_open_rows, "max_open_rows", minimum=1),
            _args.boolean(truncate_long_sequences, "truncate_long_sequences"),
        )
    )


def _padding(dataset, padded_shapes, padding_values):
    """padded_shapes and padding_values as padded_batch takes them, one per
    component (None: the defaults), for `dataset`'s components."""
    entries = dataset._ds.element_spec
    shapes = None if padded_shapes is None else _per_component(padded_shapes, entries, "padded_shapes")
    values = None
    if padding_values is not None:
        if isinstance(padding_values, (dict, tuple)):
            values = _per_component(padding_values, entries, "padding_values")
        else:
            values = [padding_values]
        values = [_padding_value(v, entries[i][1] if len(values) > 1 else None) for i, v in enumerate(values)]
    if shapes is not None:
        shapes = [None if s is None else [-1 if d is None else _args.integer(d, "padded_shapes", minimum=-1) for d in s] for s in shapes]
    return shapes, values


def _per_component(structure, entries, what):
    """One value per component of `entries` from `structure`: a dict by
    name, a tuple of one per component, or one value for the only one."""
    names = [name for name, _, _ in entries]
    if isinstance(structure, dict):
        missing = [n for n in names if n not in structure]
        extra = [k for k in structure if k not in names]
        if missing or extra:
            raise ValueError(f"{what}: keys {sorted(structure)} do not match the components {names}")
        return [structure[n] for n in names]
    if isinstance(structure, tuple) and len(entries) > 1:
        if len(structure) != len(entries):
            raise ValueError(f"{what}: {len(structure)} values for {len(entries)} components")
        return list(structure)
    if len(entries) != 1:
        raise ValueError(f"{what}: give one per component ({names}) as a dict or a tuple")
    return [structure]


def _padding_value(value, dtype_name):
    import numpy as np

    if isinstance(value, (bytes, str)):
        return value
    if dtype_name is not None and dtype_name not in ("string", "bfloat16"):
        return np.asarray(value, dtype=dtype_name)
    return value


def _reduce_window(reduce_func):
    """group_by_window's reduce_func(key, rows) as a function of the window
    element: its rows stacked, then the int64 key column."""

    def reduce(window):
        if isinstance(window, dict):
            rows = dict(window)
            key = rows.pop("key")
        else:
            *columns, key = window
            rows = columns[0] if len(columns) == 1 else tuple(columns)
        from .dataset import Dataset

        return reduce_func(int(key[0]), Dataset.from_tensor_slices(rows))

    return reduce

