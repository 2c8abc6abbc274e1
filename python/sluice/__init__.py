"""Sluice: tf.data-style input pipelines on a C++ engine.

    import sluice
    ds = (sluice.Dataset.from_tensor_slices({"x": x, "y": y})
          .shuffle(1000, seed=42).batch(32).prefetch(sluice.AUTOTUNE))
    for batch in ds:
        ...  # a dict of read-only numpy arrays that view Sluice's buffers

Modules: sluice.fn (built-in and named functions for map and filter; plugins
from sluice.load_plugin), sluice.torch
(PyTorch integration), sluice.profiler (the profiler).
"""

from . import _sluice
from ._sluice import (
    AlreadyExistsError,
    CancelledError,
    DataLossError,
    DeadlineExceededError,
    Error,
    FailedPreconditionError,
    InternalError,
    InvalidArgumentError,
    NotFoundError,
    OutOfRangeError,
    ResourceExhaustedError,
    UnauthenticatedError,
    UnavailableError,
    UnimplementedError,
)
from ._plugin import Plugin, load_plugin
from ._structure import TensorSpec
from ._iterator import Iterator
from ._options import Options
from .dataset import AUTOTUNE, INFINITE_CARDINALITY, UNKNOWN_CARDINALITY, Dataset
from . import fn, profiler
from .profiler import ProfileReport

__all__ = [
    "AUTOTUNE",
    "INFINITE_CARDINALITY",
    "UNKNOWN_CARDINALITY",
    "Dataset",
    "Iterator",
    "Options",
    "TensorSpec",
    "Plugin",
    "load_plugin",
    "ProfileReport",
    "fn",
    "profiler",
    "Error",
    "CancelledError",
    "InvalidArgumentError",
    "NotFoundError",
    "AlreadyExistsError",
    "OutOfRangeError",
    "ResourceExhaustedError",
    "FailedPreconditionError",
    "UnimplementedError",
    "InternalError",
    "DataLossError",
    "DeadlineExceededError",
    "UnavailableError",
    "UnauthenticatedError",
]
