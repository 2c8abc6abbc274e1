# The public API of sluice, for type checkers and editors. tests/python/
# test_stubs.py checks that every public name and parameter of the runtime
# module is here, so keep it in step with dataset.py, _structure.py and the
# errors of _sluice.
import os
from types import TracebackType
from typing import Any, Callable, Iterable, Literal, Mapping, Sequence, TypeVar, overload

import numpy as np
import numpy.typing as npt

from . import fn as fn
from . import profiler as profiler
from .fn import _DatasetFunction, _ElementFunction, _Predicate
from .profiler import ProfileReport as ProfileReport

__all__: list[str]

AUTOTUNE: int
INFINITE_CARDINALITY: int
UNKNOWN_CARDINALITY: int

# An element as iteration yields it: a dict {name: array} when every
# component is named, else a tuple of arrays, or the one array (numpy
# arrays, or torch tensors from sluice.torch). Any, so that a loop needs no
# casts; element_spec says which.
_Element = Any
# What from_tensor_slices and from_tensors take: a dict of array-likes, a
# tuple of them, or one.
_Tensors = Mapping[str, npt.ArrayLike] | tuple[npt.ArrayLike, ...] | npt.ArrayLike
# A dtype as a Sluice name ("float32", "string"), a numpy dtype or type.
_DTypeLike = str | np.dtype[Any] | type
_Spec = TensorSpec | dict[str, TensorSpec] | tuple[TensorSpec, ...]
_T = TypeVar("_T")

class Error(Exception):
    code: str

class CancelledError(Error): ...
class InvalidArgumentError(Error, ValueError): ...
class NotFoundError(Error): ...
class AlreadyExistsError(Error): ...
class OutOfRangeError(Error): ...
class ResourceExhaustedError(Error): ...
class FailedPreconditionError(Error): ...
class UnimplementedError(Error): ...
class InternalError(Error): ...
class DataLossError(Error): ...
class DeadlineExceededError(Error): ...
class UnavailableError(Error): ...
class UnauthenticatedError(Error): ...

class Plugin:
    path: str
    name: str
    version: str
    functions: list[str]
    def __init__(self, path: str, name: str, version: str, functions: Sequence[str]) -> None: ...
    def function(self, function: str, **args: object) -> _ElementFunction: ...

def load_plugin(path: str | os.PathLike[str]) -> Plugin: ...

class TensorSpec:
    shape: tuple[int | None, ...] | None
    dtype: np.dtype[Any]
    dtype_name: str
    name: str
    def __init__(self, shape: Sequence[int | None] | None, dtype: _DTypeLike, name: str = "") -> None: ...
    def __eq__(self, other: object) -> bool: ...
    def __hash__(self) -> int: ...

class Options:
    cpu_budget: int
    ram_budget_bytes: int
    deterministic: bool
    def __init__(self, cpu_budget: int = 0, ram_budget_bytes: int = 0, deterministic: bool = True) -> None: ...
    def __eq__(self, other: object) -> bool: ...

class Dataset:
    @staticmethod
    def from_tensor_slices(tensors: _Tensors) -> Dataset: ...
    @staticmethod
    def from_tensors(tensors: _Tensors) -> Dataset: ...
    @staticmethod
    def from_generator(
        generator: Callable[..., Iterable[Any]],
        output_signature: TensorSpec | Mapping[str, TensorSpec] | tuple[TensorSpec, ...],
        args: Sequence[Any] | None = None,
    ) -> Dataset: ...
    @staticmethod
    def range(*args: int, dtype: _DTypeLike = "int64") -> Dataset: ...
    @staticmethod
    def list_files(
        file_pattern: str | os.PathLike[str] | Sequence[str | os.PathLike[str]],
        shuffle: bool | None = None,
        seed: int | None = None,
    ) -> Dataset: ...
    @staticmethod
    def labelled_files(
        directory: str | os.PathLike[str],
        class_names: Sequence[str] | None = None,
        extensions: Sequence[str] | None = None,
        shuffle: bool = True,
        seed: int | None = None,
        num_parallel_reads: int | None = None,
        max_file_bytes: int | None = None,
        num_shards: int = 1,
        shard_index: int = 0,
    ) -> Dataset: ...
    @staticmethod
    def load(
        path: str | os.PathLike[str], element_spec: _Spec | None = None, max_record_bytes: int | None = None
    ) -> Dataset: ...
    @staticmethod
    def tfrecord(
        filenames: str | os.PathLike[str] | Sequence[str | os.PathLike[str]],
        compression: Literal["", "NONE", "ZLIB", "GZIP"] | None = None,
        buffer_size: int | None = None,
        num_parallel_reads: int | None = None,
        on_corrupt: Literal["fail", "skip_record", "stop_file"] = "fail",
        max_record_bytes: int | None = None,
        compression_type: Literal["", "NONE", "ZLIB", "GZIP"] | None = None,
    ) -> Dataset: ...
    @staticmethod
    def text_line(
        filenames: str | os.PathLike[str] | Sequence[str | os.PathLike[str]],
        compression: Literal["", "NONE", "ZLIB", "GZIP"] | None = None,
        buffer_size: int | None = None,
        num_parallel_reads: int | None = None,
        max_line_bytes: int | None = None,
        compression_type: Literal["", "NONE", "ZLIB", "GZIP"] | None = None,
    ) -> Dataset: ...
    @staticmethod
    def fixed_length_record(
        filenames: str | os.PathLike[str] | Sequence[str | os.PathLike[str]],
        record_bytes: int,
        header_bytes: int | None = None,
        footer_bytes: int | None = None,
        buffer_size: int | None = None,
        compression_type: Literal["", "NONE", "ZLIB", "GZIP"] | None = None,
        num_parallel_reads: int | None = None,
        compression: Literal["", "NONE", "ZLIB", "GZIP"] | None = None,
    ) -> Dataset: ...
    @staticmethod
    def csv(
        filenames: str | os.PathLike[str] | Sequence[str | os.PathLike[str]],
        record_defaults: Sequence[Any],
        compression: Literal["", "NONE", "ZLIB", "GZIP"] | None = None,
        buffer_size: int | None = None,
        header: bool = False,
        field_delim: str = ",",
        use_quote_delim: bool = True,
        na_value: str = "",
        select_cols: Sequence[int] | None = None,
        exclude_cols: Sequence[int] | None = None,
        column_names: Sequence[str] | None = None,
        num_parallel_reads: int | None = None,
        max_record_bytes: int | None = None,
        compression_type: Literal["", "NONE", "ZLIB", "GZIP"] | None = None,
    ) -> Dataset: ...
    @staticmethod
    def counter(start: int = 0, step: int = 1, dtype: _DTypeLike = "int64") -> Dataset: ...
    @staticmethod
    def random(seed: int | None = None, rerandomize_each_iteration: bool | None = None) -> Dataset: ...
    @staticmethod
    def sample_from_datasets(
        datasets: Sequence[Dataset],
        weights: Sequence[float] | Dataset | None = None,
        seed: int | None = None,
        stop_on_empty_dataset: bool = False,
        rerandomize_each_iteration: bool | None = None,
    ) -> Dataset: ...
    @staticmethod
    def choose_from_datasets(
        datasets: Sequence[Dataset], choice_dataset: Dataset, stop_on_empty_dataset: bool = True
    ) -> Dataset: ...
    @staticmethod
    def zip(*datasets: Dataset | Sequence[Dataset]) -> Dataset: ...
    @staticmethod
    def from_spec(spec: str | bytes | os.PathLike[str]) -> Dataset: ...
    @staticmethod
    def from_service(
        address: str,
        spec: Dataset | str | bytes | os.PathLike[str] | None = None,
        dataset_id: str | None = None,
        job_name: str | None = None,
        processing_mode: str = "parallel_epochs",
        consumer_index: int | None = None,
        num_consumers: int | None = None,
        token_file: str | os.PathLike[str] | None = None,
        compression: str | None = None,
        timeout: float | None = None,
        seed: int | None = None,
    ) -> Dataset: ...
    def map(
        self,
        map_func: _ElementFunction | Callable[[_Element], _Element],
        num_parallel_calls: int | None = None,
        deterministic: bool | None = None,
        output_spec: _Spec | None = None,
    ) -> Dataset: ...
    def filter(self, predicate: _Predicate | Callable[[_Element], bool]) -> Dataset: ...
    def take_while(self, predicate: _Predicate | Callable[[_Element], bool]) -> Dataset: ...
    def scan(self, initial_state: Any, scan_func: Callable[[Any, _Element], tuple[Any, _Element]]) -> Dataset: ...
    def rejection_resample(
        self,
        class_func: str | _ElementFunction | Callable[[_Element], Any],
        target_dist: Sequence[float] | npt.ArrayLike,
        initial_dist: Sequence[float] | npt.ArrayLike | None = None,
        seed: int | None = None,
    ) -> Dataset: ...
    def unique(self) -> Dataset: ...
    def shuffle(self, buffer_size: int, seed: int | None = None, reshuffle_each_iteration: bool = True) -> Dataset: ...
    def batch(
        self,
        batch_size: int,
        drop_remainder: bool = False,
        num_parallel_calls: int | None = None,
        deterministic: bool | None = None,
    ) -> Dataset: ...
    def padded_batch(
        self,
        batch_size: int,
        padded_shapes: Any = None,
        padding_values: Any = None,
        drop_remainder: bool = False,
    ) -> Dataset: ...
    def rebatch(self, batch_size: int | Sequence[int], drop_remainder: bool = False) -> Dataset: ...
    def ragged_batch(self, batch_size: int, drop_remainder: bool = False) -> Dataset: ...
    def sparse_batch(self, batch_size: int, row_shape: Sequence[int | None]) -> Dataset: ...
    def bucket_by_sequence_length(
        self,
        element_length_func: str | None,
        bucket_boundaries: Sequence[int],
        bucket_batch_sizes: Sequence[int],
        padded_shapes: Any = None,
        padding_values: Any = None,
        pad_to_bucket_boundary: bool = False,
        no_padding: bool = False,
        drop_remainder: bool = False,
    ) -> Dataset: ...
    def window(
        self,
        size: int,
        shift: int | None = None,
        stride: int = 1,
        drop_remainder: bool = False,
    ) -> Dataset: ...
    def flat_map(self, map_func: _DatasetFunction | Callable[[Any], Dataset]) -> Dataset: ...
    def group_by_window(
        self,
        key_func: str | _ElementFunction | Callable[[_Element], Any],
        reduce_func: _DatasetFunction | Callable[[int, Dataset], Dataset],
        window_size: int | None = None,
        window_size_func: Callable[[int], int] | None = None,
        max_open_groups: int = 65536,
    ) -> Dataset: ...
    def pack_sequences(
        self,
        sequence_lengths: Any,
        max_open_rows: int = 8,
        truncate_long_sequences: bool = True,
    ) -> Dataset: ...
    def prefetch(self, buffer_size: int) -> Dataset: ...
    def repeat(self, count: int | None = None) -> Dataset: ...
    def take(self, count: int) -> Dataset: ...
    def skip(self, count: int) -> Dataset: ...
    def interleave(
        self,
        map_func: _DatasetFunction | Callable[[_Element], Dataset],
        cycle_length: int | None = None,
        block_length: int | None = None,
        num_parallel_calls: int | None = None,
        deterministic: bool | None = None,
    ) -> Dataset: ...
    def concatenate(self, dataset: Dataset) -> Dataset: ...
    def shard(self, num_shards: int, index: int) -> Dataset: ...
    def unbatch(self) -> Dataset: ...
    def cache(self, filename: str = "") -> Dataset: ...
    def snapshot(
        self, path: str | os.PathLike[str], compression: Literal["", "NONE", "ZLIB", "GZIP"] | None = None, fingerprint: str | None = None
    ) -> Dataset: ...
    def save(
        self,
        path: str | os.PathLike[str],
        compression: Literal["", "NONE", "ZLIB", "GZIP"] | None = None,
        shard_count: int | None = None,
        shard_func: _ElementFunction | Callable[[_Element], Any] | None = None,
    ) -> int: ...
    def enumerate(self, start: int = 0) -> Dataset: ...
    def ignore_errors(self, log_warning: bool = False) -> Dataset: ...
    def apply(self, transformation_func: Callable[[Dataset], _T]) -> _T: ...
    def with_options(self, options: Options) -> Dataset: ...
    def seed(self, seed: int | None) -> Dataset: ...
    @property
    def element_spec(self) -> _Spec: ...
    @property
    def options(self) -> Options: ...
    def cardinality(self) -> int: ...
    def __len__(self) -> int: ...
    def describe(self) -> str: ...
    @overload
    def to_spec(self, binary: Literal[False] = False) -> str: ...
    @overload
    def to_spec(self, binary: Literal[True]) -> bytes: ...
    def __iter__(self) -> Iterator: ...
    def iterator(self, state: bytes | None = None) -> Iterator: ...
    def as_numpy_iterator(self) -> Iterator: ...
    def reduce(self, initial_state: _T, reduce_func: Callable[[_T, _Element], _T]) -> _T: ...
    def get_single_element(self) -> _Element: ...
    def profile(self, seconds: float | None = None, steps: int | None = None) -> ProfileReport: ...

class Iterator:
    def __init__(self, dataset: Dataset, state: bytes | None = None) -> None: ...
    def __iter__(self) -> Iterator: ...
    def __next__(self) -> _Element: ...
    @property
    def dataset(self) -> Dataset: ...
    def state_dict(self) -> bytes: ...
    def load_state_dict(self, state: bytes) -> None: ...
    def save(self) -> bytes: ...
    def close(self) -> None: ...
    @property
    def closed(self) -> bool: ...
    @property
    def cpu_budget(self) -> int: ...
    @property
    def ram_budget_bytes(self) -> int: ...
    def __enter__(self) -> Iterator: ...
    def __exit__(
        self, exc_type: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> bool: ...
