"""sluice.Dataset: tf.data's Dataset API over Sluice's C++ engine."""

import functools
import os

from . import _args, _generator, _grouping, _io, _iterator, _sluice, _structure
from ._iterator import Iterator
from ._options import Options

AUTOTUNE = _sluice.AUTOTUNE
INFINITE_CARDINALITY = _sluice.INFINITE_CARDINALITY
UNKNOWN_CARDINALITY = _sluice.UNKNOWN_CARDINALITY


def _source(build):
    """A static method of Dataset from `build`, a function of the same
    arguments that makes the C++ dataset."""

    @functools.wraps(build)
    def source(*args, **kwargs):
        return Dataset(build(*args, **kwargs))

    return staticmethod(source)


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

    # Sources that read files or the data service (_io.py).
    tfrecord = _source(_io.tfrecord)
    text_line = _source(_io.text_line)
    fixed_length_record = _source(_io.fixed_length_record)
    csv = _source(_io.csv)
    list_files = _source(_io.list_files)
    labelled_files = _source(_io.labelled_files)
    load = _source(_io.load)
    from_service = _source(_io.from_service)

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

    def rejection_resample(self, class_func, target_dist, initial_dist=None, seed=None):
        """Keeps elements at random so that the classes of those kept follow
        target_dist (tf.data's rejection_resample). Each output is the
        class, as the first component "class", then the element: (class, x)
        for a one-array dataset, {"class": c, **element} for a dict.

        class_func: the element's class, an int32 or int64 scalar in
            [0, len(target_dist)): a Python callable of the element (the
            slow path, as for map), a sluice.fn element function, or the
            name of a component.
        target_dist: the wanted class distribution (weights >= 0; divided by
            their sum).
        initial_dist: the input's class distribution, when known; None
            estimates it from the classes seen so far, each class's count
            starting at 10, as tf.data does.
        seed: the draws' seed (None: random). Each traversal draws anew, so
            the epochs of a repeat after it keep different elements.
        An element of class c is kept with probability
        (t_c / p_c) / max_j (t_j / p_j), in one pass over the input: no
        element comes out twice (tf.data mixes the input with a filtered
        second pass over it; both read as many elements per output)."""
        if isinstance(class_func, (str, _sluice.ElementFunction)):
            fn = class_func
        elif callable(class_func):
            from . import _callables

            fn = _callables.element_function(class_func, self._ds.element_spec, None)
        else:
            raise TypeError(
                f"rejection_resample: class_func must be callable or a component name, got {type(class_func).__name__}"
            )
        target = [float(w) for w in target_dist]
        initial = [] if initial_dist is None else [float(w) for w in initial_dist]
        return self._then(self._ds.rejection_resample(fn, target, initial, _args.seed(seed)))

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

    # Batches of uneven shapes, windows and buckets (_grouping.py).
    padded_batch = _grouping.padded_batch
    rebatch = _grouping.rebatch
    ragged_batch = _grouping.ragged_batch
    sparse_batch = _grouping.sparse_batch
    bucket_by_sequence_length = _grouping.bucket_by_sequence_length
    window = _grouping.window
    group_by_window = _grouping.group_by_window
    pack_sequences = _grouping.pack_sequences

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

    def enumerate(self, start=0):
        """Pairs each element with its index: (index, element...), the index
        an int64 scalar counting from `start`."""
        return self._then(self._ds.enumerate(_args.integer(start, "start")))

    # Caching and writing files (_io.py).
    cache = _io.cache
    snapshot = _io.snapshot
    save = _io.save

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

    # Traversals run now (_iterator.py).
    reduce = _iterator.reduce
    get_single_element = _iterator.get_single_element

    def profile(self, seconds=None, steps=None):
        """Runs the pipeline under the profiler for `seconds` (5 when neither
        is given) or `steps` elements, whichever ends first (or to its end),
        and returns a sluice.ProfileReport: the per-stage table, the verdict
        naming the stage that limits throughput and what would help, JSON
        and a Perfetto trace."""
        from . import profiler

        return profiler.profile_dataset(self, seconds=seconds, steps=steps)
