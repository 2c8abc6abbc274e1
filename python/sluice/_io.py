"""A Dataset's files and the data service: the sources that read them, as
functions making the C++ dataset (sluice.Dataset offers each as a static
method of the same name and arguments: Dataset.tfrecord, Dataset.csv, ...),
and the methods that keep or write elements (Dataset.cache, Dataset.snapshot,
Dataset.save; self is the Dataset)."""

import os

from . import _args, _sluice, _structure


def _file_source_args(filenames, compression, compression_type, buffer_size):
    """The arguments every file source takes: the files, the compression
    (compression_type is tf.data's name for it) and the read buffer."""
    files = _args.strings(filenames, "filenames")
    compression = _args.compression(compression if compression is not None else compression_type)
    buffer_size = _args.integer(buffer_size, "buffer_size", minimum=-1, allow_none=True, default=_sluice.AUTOTUNE)
    return files, compression, buffer_size


def list_files(file_pattern, shuffle=None, seed=None):
    """The files matching glob pattern(s) `file_pattern` (a string or a
    list), as scalar strings: sorted, then shuffled unless shuffle is
    False (shuffle=None means True, as in tf.data). NotFoundError when
    nothing matches."""
    patterns = _args.strings(file_pattern, "file_pattern")
    shuffle = True if shuffle is None else _args.boolean(shuffle, "shuffle")
    return _sluice.list_files(patterns, shuffle, _args.seed(seed))


def labelled_files(directory, class_names=None, extensions=None, shuffle=True, seed=None, num_parallel_reads=None,
                   max_file_bytes=None, num_shards=1, shard_index=0):
    """The files of a classification set laid out as
    directory/<class>/.../<file>, each with its class index, as
    torchvision's ImageFolder and Keras's image_dataset_from_directory read
    one: elements {"contents": the file's bytes, "label": int64, "path"}.

    class_names: the classes, in label order (None: every subdirectory,
        sorted by name, as ImageFolder's classes).
    extensions: the file name endings to take, e.g. (".jpg", ".jpeg",
        ".png"), compared without case (None: every file); names starting
        with "." are left out.
    shuffle: a new order of all the files each traversal (files are listed
        by class, which a shuffle buffer cannot mix); seed as shuffle's.
    num_parallel_reads: files read at once (None: autotuned).
    max_file_bytes: the largest file taken (None: 256 MiB); a larger or
        unreadable file is that element's error, naming the path.
    num_shards, shard_index: only the files at positions shard_index,
        shard_index + num_shards, ... of the listing (classes in label
        order, each class's files sorted), one host's share for multi-host
        training (torch's DistributedSampler deals indices this way); the
        other shards' files are never read.
    The files are listed now: len() is their count; none is NotFoundError.
    Follow with map(sluice.fn.decode_jpeg_random_crop("contents", ...))."""
    class_names = [] if class_names is None else _args.strings(class_names, "class_names")
    extensions = [] if extensions is None else _args.strings(extensions, "extensions")
    return _sluice.labelled_files(
        os.fspath(directory), class_names, extensions, _args.boolean(shuffle, "shuffle"), _args.seed(seed),
        _args.integer(num_parallel_reads, "num_parallel_reads", minimum=-1, allow_none=True),
        _args.integer(max_file_bytes, "max_file_bytes", minimum=1, allow_none=True),
        _args.integer(num_shards, "num_shards", minimum=1),
        _args.integer(shard_index, "shard_index", minimum=0),
    )


def load(path, element_spec=None, max_record_bytes=None):
    """The elements of a snapshot directory that Dataset.save or
    Dataset.snapshot wrote, in the order they were written
    (tf.data.Dataset.load).

    element_spec: None (the snapshot's), or the structure of TensorSpecs
        the snapshot must hold (InvalidArgumentError otherwise).
    max_record_bytes: the largest record accepted (None: 256 MiB).
    A directory without a manifest (no snapshot, or a run that stopped
    early) is NotFoundError; damage is DataLossError naming the file and
    byte offset."""
    entries = None if element_spec is None else _structure.entries_from_spec(element_spec, "element_spec")
    max_record_bytes = _args.integer(
        max_record_bytes, "max_record_bytes", minimum=1, allow_none=True, default=_sluice.MAX_RECORD_BYTES_DEFAULT
    )
    return _sluice.load(os.fspath(path), entries, max_record_bytes)


def tfrecord(
    filenames,
    compression=None,
    buffer_size=None,
    num_parallel_reads=None,
    on_corrupt="fail",
    max_record_bytes=None,
    compression_type=None,
):
    """The records of TFRecord files, as scalar strings (tf.data.TFRecordDataset).

    filenames: a path or a list of paths.
    compression: None or "" (none), "ZLIB" or "GZIP"; compression_type is
        tf.data's name for it.
    buffer_size: read-ahead bytes per file (None: autotuned).
    num_parallel_reads: files read at once (None: 1), interleaved.
    on_corrupt: "fail" (DataLossError naming the file and byte offset),
        "skip_record" (skip to the next intact record) or "stop_file".
    max_record_bytes: the largest record accepted (None: 256 MiB); a
        larger length field is a DataLossError, never an allocation.
    Every record's length and data checksums are verified."""
    files, compression, buffer_size = _file_source_args(filenames, compression, compression_type, buffer_size)
    reads = _args.integer(num_parallel_reads, "num_parallel_reads", minimum=-1, allow_none=True, default=1)
    max_record_bytes = _args.integer(
        max_record_bytes, "max_record_bytes", minimum=1, allow_none=True, default=_sluice.MAX_RECORD_BYTES_DEFAULT
    )
    return _sluice.tfrecord(files, compression, buffer_size, reads, _args.string(on_corrupt, "on_corrupt"), max_record_bytes)


def text_line(filenames, compression=None, buffer_size=None, num_parallel_reads=None, max_line_bytes=None,
              compression_type=None):
    """The lines of text files, as scalar strings (tf.data.TextLineDataset).

    A line ends at "\n", which is not part of it; every "\r" is
    dropped; the last line needs no "\n" and is dropped when empty.
    filenames: a path or a list of paths.
    compression: None or "" (none), "ZLIB" or "GZIP"; compression_type is
        tf.data's name for it.
    buffer_size: read buffer bytes per file (None: 256 KiB).
    num_parallel_reads: files read at once (None: 1), one line from each
        in turn.
    max_line_bytes: the longest line accepted (None: 256 MiB); a longer
        one is a DataLossError naming the file, line and byte offset, and
        reading goes on after it."""
    files, compression, buffer_size = _file_source_args(filenames, compression, compression_type, buffer_size)
    reads = _args.integer(num_parallel_reads, "num_parallel_reads", minimum=1, allow_none=True, default=1)
    max_line_bytes = _args.integer(
        max_line_bytes, "max_line_bytes", minimum=1, allow_none=True, default=_sluice.MAX_LINE_BYTES_DEFAULT
    )
    return _sluice.text_line(files, compression, buffer_size, reads, max_line_bytes)


def fixed_length_record(filenames, record_bytes, header_bytes=None, footer_bytes=None, buffer_size=None,
                        compression_type=None, num_parallel_reads=None, compression=None):
    """The records of binary files of fixed-length records, as scalar
    strings (tf.data.FixedLengthRecordDataset): each file's first
    header_bytes and last footer_bytes are skipped, and the bytes between
    are records of record_bytes each (CIFAR-10's binary batches: 3073).
    fn.decode_raw turns a record into numbers.

    A file whose body is not a whole number of records is an
    InvalidArgumentError naming the file and its body length (before its
    first record when uncompressed); the next file follows.
    compression, buffer_size, num_parallel_reads: as text_line's."""
    files, compression, buffer_size = _file_source_args(filenames, compression, compression_type, buffer_size)
    reads = _args.integer(num_parallel_reads, "num_parallel_reads", minimum=1, allow_none=True, default=1)
    return _sluice.fixed_length_record(
        files,
        _args.integer(record_bytes, "record_bytes", minimum=1),
        _args.integer(header_bytes, "header_bytes", minimum=0, allow_none=True, default=0),
        _args.integer(footer_bytes, "footer_bytes", minimum=0, allow_none=True, default=0),
        compression,
        buffer_size,
        reads,
    )


def csv(
    filenames,
    record_defaults,
    compression=None,
    buffer_size=None,
    header=False,
    field_delim=",",
    use_quote_delim=True,
    na_value="",
    select_cols=None,
    exclude_cols=None,
    column_names=None,
    num_parallel_reads=None,
    max_record_bytes=None,
    compression_type=None,
):
    """The records of CSV files, one element of scalars per record
    (tf.data.experimental.CsvDataset; RFC 4180 quoting).

    record_defaults: one entry per output column, in column order: a
        value (its default when a field is empty or na_value: a float
        gives float32, an int int32, a str or bytes a string, a numpy
        scalar its own dtype) or a dtype (numpy.float32, numpy.float64,
        numpy.int32, numpy.int64, float, int, str) for a required column.
    header: skip each file's first record.
    field_delim: the one-character separator; use_quote_delim: whether
        '"' quotes fields.
    select_cols / exclude_cols: ascending column indices to read / to
        skip (at most one of them).
    column_names: names for the columns, making elements dicts; None
        gives tuples.
    compression, buffer_size, num_parallel_reads: as text_line's.
    max_record_bytes: the longest record accepted (None: 256 MiB).
    A malformed record, a wrong number of fields or a field that is not
    its column's number is a DataLossError naming the file, record, byte
    offset and column; the next element is the next record."""
    files, compression, buffer_size = _file_source_args(filenames, compression, compression_type, buffer_size)
    if isinstance(record_defaults, (str, bytes)) or not hasattr(record_defaults, "__iter__"):
        raise TypeError(f"csv: record_defaults must be a list, got {type(record_defaults).__name__}")
    defaults = [_csv_default(value, i) for i, value in enumerate(record_defaults)]
    names = [] if column_names is None else [_args.string(n, "column_names") for n in column_names]
    reads = _args.integer(num_parallel_reads, "num_parallel_reads", minimum=1, allow_none=True, default=1)
    max_record_bytes = _args.integer(
        max_record_bytes, "max_record_bytes", minimum=1, allow_none=True, default=_sluice.MAX_RECORD_BYTES_DEFAULT
    )
    select = [] if select_cols is None else [_args.integer(c, "select_cols", minimum=0) for c in select_cols]
    exclude = [] if exclude_cols is None else [_args.integer(c, "exclude_cols", minimum=0) for c in exclude_cols]
    return _sluice.csv(
        files,
        defaults,
        names,
        compression,
        buffer_size,
        reads,
        _args.boolean(header, "header"),
        _args.string(field_delim, "field_delim"),
        _args.boolean(use_quote_delim, "use_quote_delim"),
        _args.string(na_value, "na_value"),
        select,
        exclude,
        max_record_bytes,
    )


_CSV_DTYPES = ("float32", "float64", "int32", "int64")


def _csv_default(value, index):
    """record_defaults[index] as a numpy array: a 0-d default, or an empty
    vector of the dtype of a required column."""
    import numpy as np

    name = f"csv: record_defaults[{index}]"
    if isinstance(value, type) and value in (float, int, str, bytes):
        dtype = {float: np.float32, int: np.int32}.get(value, object)
        return np.empty((0,), dtype)
    if isinstance(value, np.dtype) or (isinstance(value, type) and issubclass(value, np.generic)):
        dtype = np.dtype(value)
        if dtype.name not in _CSV_DTYPES and dtype.kind not in "SUO":
            raise TypeError(f"{name}: dtype {dtype.name} is not float32, float64, int32, int64 or a string")
        return np.empty((0,), object if dtype.kind in "SUO" else dtype)
    if isinstance(value, bool) or isinstance(value, np.bool_):
        raise TypeError(f"{name}: a bool is not a CSV column's default (float, int or string)")
    if isinstance(value, float) and not isinstance(value, np.generic):  # numpy.float64 is a float too
        return np.array(value, np.float32)
    if isinstance(value, int) and not isinstance(value, np.generic):
        return np.array(value, np.int32 if -(2**31) <= value < 2**31 else np.int64)
    if isinstance(value, (str, bytes)):
        return np.array(value.encode() if isinstance(value, str) else value, object)
    array = np.asarray(value)
    if array.ndim == 1 and array.size <= 1:  # tf.constant([0.0]) or an empty tensor, as tf.data takes them
        array = array.reshape(()) if array.size == 1 else array
    if array.dtype.kind in "SUO":
        array = array.astype(object)
    elif array.dtype.name not in _CSV_DTYPES:
        raise TypeError(f"{name}: {array.dtype.name} is not float32, float64, int32, int64 or a string")
    if array.ndim > 1 or (array.ndim == 1 and array.size > 0):
        raise ValueError(f"{name}: a default is one value, got shape {array.shape}")
    return array


def from_service(
    address,
    spec=None,
    dataset_id=None,
    job_name=None,
    processing_mode="parallel_epochs",
    consumer_index=None,
    num_consumers=None,
    token_file=None,
    compression=None,
    timeout=None,
    seed=None,
):
    """Elements from the data service (docs/service.md): the dispatcher
    at `address` ("host:port") runs the pipeline on its workers and this
    dataset reads from every worker of the job.

    spec: the pipeline to run, as a Dataset, a path to a .pbtxt file, the
        spec's text or its binary form; or give dataset_id instead (a
        dataset registered before, e.g. the one `sluice serve` prints).
    job_name: None gives each iterator its own job; iterators with the
        same name share one job (first come, first served).
    processing_mode: "parallel_epochs" (every worker runs the whole
        pipeline), "distributed_epoch" (each split of the source once per
        epoch, whichever worker asks first) or "static_sharding".
    consumer_index, num_consumers: coordinated reads; each round of a
        split gives one element to each of the num_consumers consumers.
    token_file: the shared secret's file (default: the
        SLUICE_SERVICE_TOKEN environment variable, else none).
    compression: None, or "zstd": workers compress the elements they
        send (for slow links; it costs CPU on both sides).
    timeout: seconds (default 60) after which a next() that hears from
        no worker and no dispatcher fails with UnavailableError (and a
        restored shared job stops waiting for its other consumers).
    seed: distributed_epoch and static_sharding jobs draw their shuffles
        anew for each iterator (each epoch), from this seed and the count
        of this dataset's iterators before it; None: the spec's pipeline
        seed if it has one, else a random one. An op the spec gives a seed
        repeats its orders from run to run whatever this is. In
        parallel_epochs jobs, the seeds the spec gives are kept in the
        first epoch and mixed with the iterator count in the next ones, so
        that seeded shuffles reshuffle each epoch; this seed only seeds a
        shuffle with reshuffle_each_iteration=False and no seed of its own
        (mixed with each worker's own), which keeps its order from epoch
        to epoch.
    Every split's elements arrive once, also when a worker dies; an
    iterator's state (iterator(state=...)) keeps the splits consumed. The
    consumers of a shared job each save their own state and restore it
    together: the restored job waits for all of them (docs/service.md)."""
    address = _args.string(address, "address")
    if (spec is None) == (dataset_id is None):
        raise ValueError("from_service: give exactly one of spec and dataset_id")
    binary = False
    from .dataset import Dataset

    if isinstance(spec, Dataset):
        spec, binary = spec.to_spec(binary=True), True
    elif isinstance(spec, os.PathLike) or (isinstance(spec, str) and "\n" not in spec and os.path.exists(spec)):
        with open(os.fspath(spec), "rb") as f:
            spec = f.read()
    elif isinstance(spec, bytes):
        binary = True
    elif spec is not None:
        spec = _args.string(spec, "spec").encode()
    if num_consumers is None and consumer_index is not None:
        raise ValueError("from_service: consumer_index needs num_consumers")
    num_consumers = _args.integer(num_consumers, "num_consumers", minimum=1, allow_none=True, default=0)
    consumer_index = _args.integer(
        consumer_index, "consumer_index", minimum=0, maximum=max(num_consumers - 1, 0), allow_none=True, default=0
    )
    if compression is not None and _args.string(compression, "compression") != "zstd":
        raise ValueError(f"from_service: compression must be None or 'zstd', got {compression!r}")
    timeout = _args.seconds(timeout, "timeout", allow_none=True)
    return _sluice.from_service(
        address,
        spec,
        binary,
        "" if dataset_id is None else _args.string(dataset_id, "dataset_id"),
        "" if job_name is None else _args.string(job_name, "job_name"),
        _args.string(processing_mode, "processing_mode"),
        consumer_index,
        num_consumers,
        "" if token_file is None else os.fspath(token_file),
        compression is not None,
        60.0 if timeout is None else timeout,
        None if seed is None else _args.seed(seed),
    )


def cache(self, filename=""):
    """Keeps the first complete traversal's elements and replays them
    in the traversals after it (tf.data's cache).

    filename "" (the default): in memory. A pass that would pass the
        RAM budget is read through uncached, with a warning.
    filename a directory: on disk, as snapshot(filename) keeps them
        (the directory holds a snapshot, not tf.data's index and data
        files): the first traversal that reaches the end writes the
        cache, and later ones, in this process or another, read it. It
        is kept per pipeline spec, so a changed pipeline is computed
        anew; a pipeline holding a Python function has no spec and is
        cached under the name "cache" whatever it computes, as tf.data
        caches: remove the directory when the function changes."""
    if not filename:
        return self._then(self._ds.cache())
    try:
        self._ds.to_spec_binary()
        fingerprint = None
    except _sluice.UnimplementedError:
        fingerprint = "cache"
    return self.snapshot(filename, fingerprint=fingerprint)


def snapshot(self, path, compression=None, fingerprint=None):
    """Computes this dataset once and keeps it on disk under `path`
    (tf.data's snapshot): a traversal finding a finished snapshot of the
    same pipeline reads it instead of computing; otherwise it computes
    the input and writes the snapshot as it goes, finishing it only at
    the end of the input (a traversal stopped early leaves none).

    compression: None (none), "ZLIB" or "GZIP".
    fingerprint: the pipeline's identity, a directory name under `path`;
        None is the spec's fingerprint, and must be given when the
        pipeline holds a Python function (which has no spec)."""
    return self._then(
        self._ds.snapshot(
            os.fspath(path),
            _args.compression(compression),
            "" if fingerprint is None else _args.string(fingerprint, "fingerprint"),
        )
    )


def save(self, path, compression=None, shard_count=None, shard_func=None):
    """Writes every element into the directory `path` as a snapshot that
    Dataset.load reads back (tf.data's Dataset.save), and returns the
    number of elements. Runs the whole dataset now; the manifest is
    written last.

    compression: None (none), "ZLIB" or "GZIP".
    shard_count: files written at once (None: 1), element i to file
        i % shard_count; load gives the elements back in order.
    shard_func: the shard of each element instead: a sluice.fn element
        function (e.g. sluice.fn.expression(shard="id % 4")) or a Python
        callable, returning an int64 scalar from 0 to 4095 (another value
        raises InvalidArgumentError naming the element). load then gives
        back shard 0's elements in the order written, then shard 1's, and
        so on; shard_count must be None or 1."""
    shards = _args.integer(shard_count, "shard_count", minimum=1, allow_none=True, default=1)
    if shard_func is None or isinstance(shard_func, _sluice.ElementFunction):
        function = shard_func
    elif callable(shard_func):
        from . import _callables

        function = _callables.element_function(shard_func, self._ds.element_spec, _structure.TensorSpec((), "int64"))
    else:
        raise TypeError(f"save: shard_func must be a sluice.fn function or callable, got {type(shard_func).__name__}")
    return self._ds.save(os.fspath(path), _args.compression(compression), shards, function)
