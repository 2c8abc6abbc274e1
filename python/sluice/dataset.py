"""sluice.Dataset: tf.data's Dataset API over Sluice's C++ engine."""

import os

from . import _args, _generator, _sluice, _structure

AUTOTUNE = _sluice.AUTOTUNE
INFINITE_CARDINALITY = _sluice.INFINITE_CARDINALITY
UNKNOWN_CARDINALITY = _sluice.UNKNOWN_CARDINALITY


class Options:
    """Runtime options of a pipeline's traversals (Dataset.with_options).

    cpu_budget: threads for CPU-bound element work (parallel map, batch,
        interleave); 0 = the cores this process may use.
    ram_budget_bytes: hard limit on the bytes buffered by the pipeline
        (prefetch, shuffle, parallel ops, cache); 0 = half the available
        memory. Buffers that would pass it fail with ResourceExhaustedError
        instead of growing.
    deterministic: the order of parallel ops whose own `deterministic`
        argument is None: True keeps the sequential order, False lets
        elements that are ready first overtake (tf.data's
        Options.deterministic).
    """

    __slots__ = ("cpu_budget", "ram_budget_bytes", "deterministic")

    def __init__(self, cpu_budget=0, ram_budget_bytes=0, deterministic=True):
        self.cpu_budget = _args.integer(cpu_budget, "cpu_budget", minimum=0, maximum=2**31 - 1)
        self.ram_budget_bytes = _args.integer(ram_budget_bytes, "ram_budget_bytes", minimum=0)
        self.deterministic = _args.boolean(deterministic, "deterministic")

    def __repr__(self):
        return (
            f"Options(cpu_budget={self.cpu_budget}, ram_budget_bytes={self.ram_budget_bytes}, "
            f"deterministic={self.deterministic})"
        )

    def __eq__(self, other):
        return isinstance(other, Options) and all(getattr(self, k) == getattr(other, k) for k in self.__slots__)


def _compression(value):
    return "NONE" if value in (None, "") else _args.string(value, "compression").upper()


def _file_source_args(filenames, compression, compression_type, buffer_size):
    """The arguments every file source takes: the files, the compression
    (compression_type is tf.data's name for it) and the read buffer."""
    files = _args.strings(filenames, "filenames")
    compression = _compression(compression if compression is not None else compression_type)
    buffer_size = _args.integer(buffer_size, "buffer_size", minimum=-1, allow_none=True, default=AUTOTUNE)
    return files, compression, buffer_size


def _as_dataset(value, name):
    if not isinstance(value, Dataset):
        raise TypeError(f"{name}: expected a sluice.Dataset, got {type(value).__name__}")
    return value


class Dataset:
    """A lazily evaluated sequence of elements, built from sources and ops.

    Each method returns a new Dataset; nothing runs until it is iterated.
    Iterating yields each element as a dict of numpy arrays (when its
    components are named), a tuple of arrays, or one array. The arrays are
    read-only views of Sluice's buffers (no copy) and stay valid after the
    iterator and the dataset are gone. Strings come out as numpy object
    arrays of bytes, a scalar string (a record) as one bytes.

        ds = (sluice.Dataset.from_tensor_slices({"x": x, "y": y})
              .shuffle(1000, seed=42)
              .batch(32)
              .prefetch(sluice.AUTOTUNE))
        for batch in ds:
            batch["x"]  # numpy.ndarray [32, ...]

    Errors met while building raise at once: InvalidArgumentError (also a
    ValueError) names the op and what is wrong. An element's error raises
    from next(); the iterator stays usable for the following elements.
    """

    __slots__ = ("_ds", "_options", "_seed")

    def __init__(self, _ds, _options=None, _seed=None):
        if not isinstance(_ds, _sluice.Dataset):
            raise TypeError("sluice.Dataset is made by its sources (from_tensor_slices, range, tfrecord, ...)")
        self._ds = _ds
        self._options = _options or Options()
        self._seed = _seed

    def _then(self, ds):
        return Dataset(ds, self._options, self._seed)

    def seed(self, seed):
        """The same dataset with a pipeline seed (tf.random.set_seed's
        global seed) for the maps added after it: their random functions
        without a seed of their own (sluice.fn.random_flip, ...) take a
        seed mixed from it and the map's depth in the graph, so the draws
        repeat from run to run. Without one such functions take a random
        seed per map. A spec writes it as Pipeline.seed."""
        return Dataset(self._ds, self._options, _args.seed(seed))

    # ----------------------------------------------------------------- sources

    @staticmethod
    def from_tensor_slices(tensors):
        """The slices of `tensors` along their first dimension.

        tensors: a dict {name: array} (named components), a tuple of arrays
        (positional components) or one array-like. Every component must have
        the same first dimension. Arrays are copied into Sluice once.
        Like tf.data.Dataset.from_tensor_slices (nested structures are not
        supported; Python floats become float64 as in numpy, not float32)."""
        return Dataset(_sluice.from_slices(_structure.components_from_value(tensors, "from_tensor_slices")))

    @staticmethod
    def from_tensors(tensors):
        """A dataset of one element: `tensors` (a dict, a tuple or one
        array-like), like tf.data.Dataset.from_tensors."""
        return Dataset(_sluice.from_tensors(_structure.components_from_value(tensors, "from_tensors")))

    @staticmethod
    def from_generator(generator, output_signature, args=None):
        """The elements a Python generator yields, as
        tf.data.Dataset.from_generator: each traversal calls
        generator(*args) (args: a tuple, passed as given) and iterates what
        it returns. output_signature (a sluice.TensorSpec, or a dict or tuple
        of them) is required; each yielded value is converted to its dtypes,
        and a value of another structure, shape or kind of number is that
        element's error (see sluice/_generator.py). The generator runs with
        the GIL held, on whichever thread pulls from it (a prefetch after it
        overlaps it with the training loop). Cardinality is unknown; a
        traversal's position can't be saved and the dataset can't be written
        as a spec."""
        return Dataset(_generator.dataset(generator, output_signature, args))

    @staticmethod
    def range(*args, dtype="int64"):
        """range(stop), range(start, stop) or range(start, stop, step), as
        Python's range, yielding scalars of `dtype` (any numeric dtype).
        Like tf.data.Dataset.range."""
        if not 1 <= len(args) <= 3:
            raise TypeError(f"range: expected 1 to 3 positional arguments (stop | start, stop[, step]), got {len(args)}")
        values = [_args.integer(a, f"range: argument {i}") for i, a in enumerate(args)]
        start, stop, step = (0, values[0], 1) if len(values) == 1 else (values + [1])[:3]
        if step == 0:
            raise ValueError("range: step must not be zero")
        return Dataset(_sluice.range(start, stop, step, dtype))

    @staticmethod
    def list_files(file_pattern, shuffle=None, seed=None):
        """The files matching glob pattern(s) `file_pattern` (a string or a
        list), as scalar strings: sorted, then shuffled unless shuffle is
        False (shuffle=None means True, as in tf.data). NotFoundError when
        nothing matches."""
        patterns = _args.strings(file_pattern, "file_pattern")
        shuffle = True if shuffle is None else _args.boolean(shuffle, "shuffle")
        return Dataset(_sluice.list_files(patterns, shuffle, _args.seed(seed)))

    @staticmethod
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
        return Dataset(_sluice.load(os.fspath(path), entries, max_record_bytes))

    @staticmethod
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
        return Dataset(
            _sluice.tfrecord(files, compression, buffer_size, reads, _args.string(on_corrupt, "on_corrupt"), max_record_bytes)
        )

    @staticmethod
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
        return Dataset(_sluice.text_line(files, compression, buffer_size, reads, max_line_bytes))

    @staticmethod
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
        return Dataset(
            _sluice.fixed_length_record(
                files,
                _args.integer(record_bytes, "record_bytes", minimum=1),
                _args.integer(header_bytes, "header_bytes", minimum=0, allow_none=True, default=0),
                _args.integer(footer_bytes, "footer_bytes", minimum=0, allow_none=True, default=0),
                compression,
                buffer_size,
                reads,
            )
        )

    @staticmethod
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
        return Dataset(
            _sluice.csv(
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
        )

    @staticmethod
    def counter(start=0, step=1, dtype="int64"):
        """start, start + step, ... without end (tf.data's Dataset.counter),
        as scalars of `dtype` (an integer or floating dtype)."""
        return Dataset(
            _sluice.counter(_args.integer(start, "start", minimum=-(2**63)), _args.integer(step, "step", minimum=-(2**63)), dtype)
        )

    @staticmethod
    def random(seed=None, rerandomize_each_iteration=None):
        """Uniform int64 scalars without end (tf.data's Dataset.random): the
        same sequence for the same seed (None: a random seed); with
        rerandomize_each_iteration, a new sequence each traversal."""
        rerandomize = _args.boolean(rerandomize_each_iteration, "rerandomize_each_iteration", allow_none=True)
        return Dataset(_sluice.random(_args.seed(seed), bool(rerandomize)))

    @staticmethod
    def sample_from_datasets(datasets, weights=None, seed=None, stop_on_empty_dataset=False,
                             rerandomize_each_iteration=None):
        """Elements drawn from `datasets` at random, dataset i with
        probability weights[i] / sum(weights) (None: equal), as tf.data's
        sample_from_datasets. `weights` may also be a Dataset of weight
        vectors (float32 or float64, one weight per dataset): element k
        weighs draw k, and the sampling ends with it. An exhausted dataset
        drops out of the draw, or ends the sampling with
        stop_on_empty_dataset. The datasets' elements must have one spec.
        With rerandomize_each_iteration each traversal draws a new sequence
        (still a function of the seed)."""
        inputs = Dataset._inputs(datasets, "sample_from_datasets")
        weights_dataset = None
        if isinstance(weights, Dataset):
            weights_dataset, weights = weights._ds, []
        else:
            weights = [] if weights is None else [float(w) for w in weights]
        rerandomize = _args.boolean(rerandomize_each_iteration, "rerandomize_each_iteration", allow_none=True)
        return Dataset(
            _sluice.sample_from_datasets(
                [d._ds for d in inputs], weights, weights_dataset, _args.seed(seed),
                _args.boolean(stop_on_empty_dataset, "stop_on_empty_dataset"), bool(rerandomize),
            ),
            inputs[0]._options,
        )

    @staticmethod
    def choose_from_datasets(datasets, choice_dataset, stop_on_empty_dataset=True):
        """The element of datasets[i] for each int64 scalar i of
        choice_dataset (tf.data's choose_from_datasets). With
        stop_on_empty_dataset (the default) a choice of an exhausted dataset
        ends the output; without it, choices of an exhausted dataset are
        skipped."""
        inputs = Dataset._inputs(datasets, "choose_from_datasets")
        choice = _as_dataset(choice_dataset, "choose_from_datasets: choice_dataset")
        return Dataset(
            _sluice.choose_from_datasets(
                [d._ds for d in inputs], choice._ds, _args.boolean(stop_on_empty_dataset, "stop_on_empty_dataset")
            ),
            inputs[0]._options,
        )

    @staticmethod
    def _inputs(datasets, op):
        if isinstance(datasets, Dataset) or not hasattr(datasets, "__iter__"):
            raise TypeError(f"{op}: datasets must be a list of sluice.Dataset")
        inputs = [_as_dataset(d, f"{op}: datasets[{i}]") for i, d in enumerate(datasets)]
        if not inputs:
            raise ValueError(f"{op}: needs at least one dataset")
        return inputs

    @staticmethod
    def zip(*datasets):
        """Elements of several datasets side by side, as tf.data's zip:
        Dataset.zip(a, b) or Dataset.zip((a, b)). Ends with the shortest.
        The components of each input follow those of the previous one
        (names must stay distinct)."""
        if len(datasets) == 1 and isinstance(datasets[0], (tuple, list)):
            datasets = tuple(datasets[0])
        inputs = Dataset._inputs(datasets, "zip")
        return Dataset(_sluice.zip([d._ds for d in inputs]), inputs[0]._options)

    @staticmethod
    def from_spec(spec):
        """The dataset a pipeline spec describes: a path to a .pbtxt file, the
        spec's text (protobuf text format, as `sluice describe` reads), or
        its binary form (bytes from to_spec(binary=True))."""
        if isinstance(spec, os.PathLike) or (isinstance(spec, str) and "\n" not in spec and os.path.exists(spec)):
            return Dataset(_sluice.read_spec_file(os.fspath(spec)))
        if isinstance(spec, bytes):
            return Dataset(_sluice.from_spec(spec, True))
        return Dataset(_sluice.from_spec(_args.string(spec, "spec"), False))

    @staticmethod
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
        Every split's elements arrive once, also when a worker dies; an
        iterator's state (iterator(state=...)) keeps the splits consumed. The
        consumers of a shared job each save their own state and restore it
        together: the restored job waits for all of them (docs/service.md)."""
        address = _args.string(address, "address")
        if (spec is None) == (dataset_id is None):
            raise ValueError("from_service: give exactly one of spec and dataset_id")
        binary = False
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
        return Dataset(
            _sluice.from_service(
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
            )
        )

    # --------------------------------------------------------------------- ops

    def map(self, map_func, num_parallel_calls=None, deterministic=None, output_spec=None):
        """Applies `map_func` to each element (tf.data's map).

        map_func: a built-in function from sluice.fn (runs in C++, without
            the GIL: the fast path), or a Python callable taking the element
            as a dict of numpy arrays (or a tuple, or one array) and
            returning the new element the same way. A Python callable holds
            the GIL while it runs, so parallel calls of it do not overlap:
            it is the slow path. An exception it raises becomes that
            element's error, with the message and the Python traceback
            (InvalidArgumentError, or the class of a sluice.Error it
            raised); KeyboardInterrupt and SystemExit are not element
            errors: the next next() of an iterator re-raises them and closes
            that iterator.
        num_parallel_calls: None (sequential), N >= 1, or sluice.AUTOTUNE.
        deterministic: None (the Options' default), True (keep order) or
            False (elements whose calls finish first may overtake).
        output_spec: for a Python callable, the structure of TensorSpecs it
            returns (a dict, a tuple or one TensorSpec); every result must
            have that structure, dtypes and shapes (else that element's
            InvalidArgumentError). By default it is traced, as tf.data
            traces its functions: map_func is called once, here, on a
            placeholder element of the input spec (read-only zeros,
            b"placeholder" for strings, 1 for unknown dims, a scalar for an
            unknown rank), and its result gives the names, dtypes and ranks.
            Its dims are kept only when every input component is numeric
            with a fully known shape; otherwise they are all unknown. Pass
            output_spec when map_func fails on the placeholder (a
            ValueError says so) or when its shapes depend on the values.
        """
        parallel = _args.parallelism(num_parallel_calls)
        deterministic = _args.boolean(deterministic, "deterministic", allow_none=True)
        if isinstance(map_func, _sluice.ElementFunction):
            if output_spec is not None:
                raise ValueError("map: output_spec is for Python callables; a built-in function's spec is inferred")
            fn = map_func
        elif callable(map_func):
            from . import _callables

            fn = _callables.element_function(map_func, self._ds.element_spec, output_spec)
        else:
            raise TypeError(f"map: map_func must be a sluice.fn function or a callable, got {type(map_func).__name__}")
        return self._then(self._ds.map(fn, parallel, deterministic, self._seed))

    def filter(self, predicate):
        """Keeps the elements for which `predicate` is true (tf.data's
        filter): a built-in predicate from sluice.fn (equal, less, ...) or a
        Python callable taking the element as map's does and returning a
        bool, a numpy.bool_ or a 0-d bool array (the slow path, as for map;
        anything else is that element's InvalidArgumentError)."""
        return self._then(self._ds.filter(self._predicate(predicate, "filter")))

    def take_while(self, predicate):
        """The elements up to the first for which `predicate` is false
        (tf.data's take_while); `predicate` as filter's."""
        return self._then(self._ds.take_while(self._predicate(predicate, "take_while")))

    def _predicate(self, predicate, op):
        """A sluice.fn predicate, or a Python callable of this dataset's
        elements made into one."""
        if isinstance(predicate, _sluice.Predicate):
            return predicate
        if callable(predicate):
            from . import _callables

            return _callables.predicate(predicate, self._ds.element_spec)
        raise TypeError(f"{op}: predicate must be a sluice.fn predicate or a callable, got {type(predicate).__name__}")

    def scan(self, initial_state, scan_func):
        """Carries a state through the elements (tf.data's scan):
        scan_func(state, element) returns (new_state, output), and the
        dataset yields the outputs. initial_state is a dict, a tuple or one
        value; each new state must have its structure, dtypes and shapes.
        scan_func is a Python callable (the slow path, as for map), traced
        once on placeholders as map's is; an exception it raises is that
        element's error, and the state does not advance."""
        if not callable(scan_func):
            raise TypeError(f"scan: scan_func must be callable, got {type(scan_func).__name__}")
        state = _structure.components_from_value(initial_state, "scan: initial_state")
        state_names = [name for name, _ in state]
        state_count = len(state)
        state_is_tuple = isinstance(initial_state, tuple)
        inputs = self._ds.element_spec
        input_names = [name for name, _, _ in inputs]
        # The C++ op hands the function one element, the state's components
        # then the input's, under these names.
        carried = [(f"__scan_state_{i}", value) for i, (_, value) in enumerate(state)]

        def restructured(names, values, is_tuple=False):
            if names and all(names):
                return dict(zip(names, values))
            return values[0] if len(values) == 1 and not is_tuple else tuple(values)

        def step(combined):
            values = list(combined.values()) if isinstance(combined, dict) else list(combined)
            result = scan_func(restructured(state_names, values[:state_count], state_is_tuple),
                               restructured(input_names, values[state_count:]))
            if not isinstance(result, tuple) or len(result) != 2:
                raise TypeError(f"scan: scan_func must return (new_state, output), got {type(result).__name__}")
            new_state = [value for _, value in _structure.components_from_value(result[0], "scan: new state")]
            if len(new_state) != state_count:
                raise ValueError(f"scan: the new state has {len(new_state)} components, initial_state {state_count}")
            output = _structure.components_from_value(result[1], "scan: scan_func's output")
            if all(name for name, _ in output):
                return {**{name: value for (name, _), value in zip(carried, new_state)}, **dict(output)}
            return tuple(new_state + [value for _, value in output])

        from . import _callables

        step_entries = [(name, dtype, shape) for (name, _), (_, dtype, shape) in
                        zip(carried, _sluice.from_tensors(carried).element_spec)] + list(inputs)
        fn = _callables.element_function(step, step_entries, None, op="scan", name="scan_func")
        return self._then(self._ds.scan(fn, carried))

    def unique(self):
        """Each distinct element once, at its first occurrence (tf.data's
        unique): elements of one int32, int64 or string component. The
        elements seen are held, charged to the RAM budget."""
        return self._then(self._ds.unique())

    def shuffle(self, buffer_size, seed=None, reshuffle_each_iteration=True):
        """Shuffles with a buffer of `buffer_size` elements, as tf.data's
        shuffle: each element comes uniformly from the buffer. seed=None
        picks a random seed; with reshuffle_each_iteration each traversal
        (each repeat epoch) is in a new order. A buffer that alone passes
        the RAM budget is a ResourceExhaustedError."""
        size = _args.integer(buffer_size, "buffer_size", minimum=1)
        return self._then(
            self._ds.shuffle(size, _args.seed(seed), _args.boolean(reshuffle_each_iteration, "reshuffle_each_iteration"))
        )

    def batch(self, batch_size, drop_remainder=False, num_parallel_calls=None, deterministic=None):
        """Stacks `batch_size` consecutive elements along a new first
        dimension (tf.data's batch). Components must have equal shapes within
        a batch (else InvalidArgumentError naming the component; see
        padded_batch). The last batch is smaller unless drop_remainder."""
        size = _args.integer(batch_size, "batch_size", minimum=1)
        return self._then(
            self._ds.batch(
                size,
                _args.boolean(drop_remainder, "drop_remainder"),
                _args.parallelism(num_parallel_calls),
                _args.boolean(deterministic, "deterministic", allow_none=True),
            )
        )

    def padded_batch(self, batch_size, padded_shapes=None, padding_values=None, drop_remainder=False):
        """Batches elements of different shapes, padding each component to
        `padded_shapes` (tf.data's padded_batch).

        padded_shapes: None (every dim pads to the batch's largest), or the
            element's structure (a dict by name, a tuple, or one shape) of
            shapes whose None or -1 dims pad to the batch's largest.
        padding_values: None (0 and b""), one scalar for every component, or
            the element's structure of scalars."""
        size = _args.integer(batch_size, "batch_size", minimum=1)
        shapes, values = self._padding(padded_shapes, padding_values)
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

    def _padding(self, padded_shapes, padding_values):
        """padded_shapes and padding_values as padded_batch takes them, one per
        component (None: the defaults)."""
        entries = self._ds.element_spec
        shapes = None if padded_shapes is None else self._per_component(padded_shapes, entries, "padded_shapes")
        values = None
        if padding_values is not None:
            if isinstance(padding_values, (dict, tuple)):
                values = self._per_component(padding_values, entries, "padding_values")
            else:
                values = [padding_values]
            values = [_padding_value(v, entries[i][1] if len(values) > 1 else None) for i, v in enumerate(values)]
        if shapes is not None:
            shapes = [None if s is None else [-1 if d is None else _args.integer(d, "padded_shapes", minimum=-1) for d in s] for s in shapes]
        return shapes, values

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
        shapes, values = self._padding(padded_shapes, padding_values)
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

    def flat_map(self, map_func):
        """Maps each element to a dataset and yields their elements one
        dataset after another (tf.data's flat_map; interleave with
        cycle_length 1).

        map_func: a sluice DatasetFunction, or a Python callable returning a
            sluice.Dataset: of the element (traced as interleave's), or,
            right after window, of a sluice.Dataset of the window's rows.
            A rows function built from built-in ops runs in C++ with no
            Python per window."""
        return self._then(self._ds.flat_map(self._dataset_function(map_func, "flat_map")))

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

    def _dataset_function(self, map_func, op):
        """map_func as the DatasetFunction of flat_map or interleave over
        this dataset's elements; over windows (right after window) it is
        given a dataset of each window's rows."""
        if isinstance(map_func, _sluice.DatasetFunction):
            return map_func
        if not callable(map_func):
            raise TypeError(f"{op}: map_func must be a callable returning a sluice.Dataset, got {type(map_func).__name__}")
        from . import _callables

        entries = self._ds.element_spec
        if self._ds.op_name != "window":
            return _callables.dataset_function(map_func, entries)
        built = map_func(Dataset(_sluice.window_rows(entries), self._options))
        if not isinstance(built, Dataset):
            raise TypeError(f"{op}: map_func must return a sluice.Dataset, got {type(built).__name__}")
        try:
            return _sluice.fn_spec_dataset_function(built._ds.to_spec_binary(), entries)
        except _sluice.UnimplementedError:
            # A Python callable inside: each window's rows become a dataset in Python.
            return _callables.dataset_function(lambda window: map_func(Dataset.from_tensor_slices(window)), entries)

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
            lengths = self._per_component(sequence_lengths, entries, "sequence_lengths")
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

    @staticmethod
    def _per_component(structure, entries, what):
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

    def prefetch(self, buffer_size):
        """Produces elements ahead of the consumer on a background thread,
        up to `buffer_size` (sluice.AUTOTUNE: sized by the autotuner within
        the RAM budget), as tf.data's prefetch."""
        return self._then(self._ds.prefetch(_args.integer(buffer_size, "buffer_size", minimum=-1)))

    def repeat(self, count=None):
        """Repeats the dataset `count` times (None or -1: forever)."""
        count = _args.integer(count, "count", minimum=-1, allow_none=True, default=-1)
        return self._then(self._ds.repeat(count))

    def take(self, count):
        """The first `count` elements (-1: all)."""
        return self._then(self._ds.take(_args.integer(count, "count", minimum=-1)))

    def skip(self, count):
        """All but the first `count` elements (-1: skips everything)."""
        return self._then(self._ds.skip(_args.integer(count, "count", minimum=-1)))

    def interleave(self, map_func, cycle_length=None, block_length=None, num_parallel_calls=None, deterministic=None):
        """Maps each element to a dataset and interleaves their elements
        (tf.data's interleave): `cycle_length` datasets are open at once and
        `block_length` consecutive elements are taken from each in turn.

        map_func: a Python callable taking an element and returning a
            sluice.Dataset (called once per input element, with the GIL),
            e.g. lambda path: sluice.Dataset.tfrecord(path). The datasets'
            element spec is traced as map's output_spec is: map_func is
            called once, here, on a placeholder element, and must return a
            dataset for it (a ValueError says so when it fails).
        cycle_length: None or sluice.AUTOTUNE = the number of CPU cores.
        num_parallel_calls: None (sequential), N <= cycle_length, or AUTOTUNE.
        """
        cycle = _args.integer(cycle_length, "cycle_length", minimum=-1, allow_none=True, default=AUTOTUNE)
        block = _args.integer(block_length, "block_length", minimum=1, allow_none=True, default=1)
        parallel = _args.parallelism(num_parallel_calls)
        deterministic = _args.boolean(deterministic, "deterministic", allow_none=True)
        fn = self._dataset_function(map_func, "interleave")
        return self._then(self._ds.interleave(fn, cycle, block, parallel, deterministic))

    def concatenate(self, dataset):
        """This dataset's elements, then `dataset`'s (same element spec)."""
        return self._then(self._ds.concatenate(_as_dataset(dataset, "dataset")._ds))

    def shard(self, num_shards, index):
        """Every num_shards-th element starting at `index` (tf.data's shard)."""
        return self._then(self._ds.shard(_args.integer(num_shards, "num_shards", minimum=1), _args.integer(index, "index", minimum=0)))

    def unbatch(self):
        """Splits each element along its first dimension (tf.data's unbatch)."""
        return self._then(self._ds.unbatch())

    def cache(self, filename=""):
        """Keeps the first traversal's elements in memory and replays them
        afterwards (tf.data's cache; in memory only: `filename` must be
        empty). A pass that would pass the RAM budget is read through
        uncached, with a warning."""
        if filename:
            raise ValueError("cache: only the in-memory cache is supported (filename must be '')")
        return self._then(self._ds.cache())

    def enumerate(self, start=0):
        """Pairs each element with its index: (index, element...), the index
        an int64 scalar counting from `start`."""
        return self._then(self._ds.enumerate(_args.integer(start, "start")))

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
                _compression(compression),
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
        return self._ds.save(os.fspath(path), _compression(compression), shards, function)

    def ignore_errors(self, log_warning=False):
        """Drops elements whose production failed, instead of raising."""
        return self._then(self._ds.ignore_errors(_args.boolean(log_warning, "log_warning")))

    def apply(self, transformation_func):
        """transformation_func(self), as tf.data's apply."""
        return transformation_func(self)

    def with_options(self, options):
        """The same dataset with runtime `options` (a sluice.Options) for its
        traversals."""
        if not isinstance(options, Options):
            raise TypeError(f"with_options: expected a sluice.Options, got {type(options).__name__}")
        return Dataset(self._ds, options, self._seed)

    # ------------------------------------------------------------ inspection

    @property
    def element_spec(self):
        """The structure of TensorSpecs of each element: a dict by name, a
        tuple, or one TensorSpec."""
        return _structure.spec_from_entries(self._ds.element_spec)

    @property
    def options(self):
        """The runtime Options of this dataset's traversals (with_options)."""
        return self._options

    def cardinality(self):
        """The number of elements, or sluice.INFINITE_CARDINALITY (-1) or
        sluice.UNKNOWN_CARDINALITY (-2), as tf.data's cardinality."""
        return self._ds.cardinality

    def __len__(self):
        n = self._ds.cardinality
        if n == INFINITE_CARDINALITY:
            raise TypeError("The dataset is infinite.")
        if n == UNKNOWN_CARDINALITY:
            raise TypeError("The dataset's length is unknown.")
        return n

    def describe(self):
        """The graph for people: one line per op, inputs indented, each with
        its arguments, element spec and cardinality."""
        return self._ds.describe()

    def __repr__(self):
        return "<sluice.Dataset\n" + self._ds.describe().rstrip("\n") + ">"

    def to_spec(self, binary=False):
        """The pipeline spec of this graph: protobuf text (or bytes with
        binary=True) that Dataset.from_spec and the sluice CLI read.
        UnimplementedError, naming the op, when the graph holds a Python
        callable."""
        return self._ds.to_spec_binary() if binary else self._ds.to_spec_text()

    # ------------------------------------------------------------- iteration

    def __iter__(self):
        return Iterator(self)

    def iterator(self, state=None):
        """A new iterator; with `state` (bytes from Iterator.state_dict()), it
        resumes exactly where the saved one was."""
        return Iterator(self, state=state)

    def as_numpy_iterator(self):
        """An iterator of numpy elements (as iterating the dataset: Sluice
        always yields numpy)."""
        return Iterator(self)

    def profile(self, seconds=None, steps=None):
        """Runs the pipeline under the profiler for `seconds` (5 when neither
        is given) or `steps` elements, whichever ends first (or to its end),
        and returns a sluice.ProfileReport: the per-stage table, the verdict
        naming the stage that limits throughput and what would help, JSON
        and a Perfetto trace."""
        from . import profiler

        return profiler.profile_dataset(self, seconds=seconds, steps=steps)


def _padding_value(value, dtype_name):
    import numpy as np

    if isinstance(value, (bytes, str)):
        return value
    if dtype_name is not None and dtype_name not in ("string", "bfloat16"):
        return np.asarray(value, dtype=dtype_name)
    return value


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
        return reduce_func(int(key[0]), Dataset.from_tensor_slices(rows))

    return reduce


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
