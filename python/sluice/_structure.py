"""Elements as Python structures.

Sluice elements are flat lists of components, each with an optional name.
In Python an element whose components are all named is a dict
{name: value}; otherwise it is a tuple, or the single value of a
one-component element. Nested structures are not supported.
"""

import numpy as np

from . import _sluice


class TensorSpec:
    """The dtype and shape of one component, as element_spec reports it.

    shape is a tuple with None for unknown dims, or None for an unknown
    rank; dtype is a numpy dtype (object for strings: they come out as
    numpy object arrays of bytes); dtype_name is Sluice's name ('float32',
    'string', 'bfloat16', ...); name is the component's name ('' when
    positional)."""

    __slots__ = ("shape", "dtype", "dtype_name", "name")

    def __init__(self, shape, dtype, name=""):
        if shape is not None:
            shape = tuple(None if d is None or d < 0 else int(d) for d in shape)
        self.shape = shape
        self.dtype_name = _dtype_name(dtype)
        self.dtype = _numpy_dtype(self.dtype_name)
        self.name = name

    def __eq__(self, other):
        return (
            isinstance(other, TensorSpec)
            and self.shape == other.shape
            and self.dtype_name == other.dtype_name
            and self.name == other.name
        )

    def __hash__(self):
        return hash((self.shape, self.dtype_name, self.name))

    def __repr__(self):
        shape = "<unknown rank>" if self.shape is None else "[" + ", ".join("?" if d is None else str(d) for d in self.shape) + "]"
        name = f"{self.name}: " if self.name else ""
        return f"TensorSpec({name}{self.dtype_name}{shape})"

    def _as_entry(self, name=None):
        return (self.name if name is None else name, self.dtype_name, None if self.shape is None else list(self.shape))


def _dtype_name(dtype):
    if isinstance(dtype, str):
        if dtype in ("bytes", "str", "string", "object"):
            return "string"
        return np.dtype(dtype).name if dtype not in ("bfloat16",) else dtype
    if dtype in (bytes, str, object):
        return "string"
    dtype = np.dtype(dtype)
    if dtype.kind in "SUO":
        return "string"
    return dtype.name


def _numpy_dtype(name):
    if name == "string":
        return np.dtype(object)
    if name == "bfloat16":
        return np.dtype(np.float32)
    return np.dtype(name)


def spec_from_entries(entries):
    """The Python structure of a C++ element spec ([(name, dtype, shape)])."""
    specs = [TensorSpec(shape, dtype, name) for name, dtype, shape in entries]
    if specs and all(s.name for s in specs):
        return {s.name: s for s in specs}
    if len(specs) == 1:
        return specs[0]
    return tuple(specs)


def entries_from_spec(structure, what="output_spec"):
    """A C++ element spec ([(name, dtype, shape)]) from a structure of
    TensorSpecs: a dict (names), a tuple (positional) or one TensorSpec."""
    if isinstance(structure, TensorSpec):
        return [structure._as_entry("")]
    if isinstance(structure, dict):
        out = []
        for name, spec in structure.items():
            if not isinstance(name, str) or not name:
                raise TypeError(f"{what}: keys must be non-empty strings, got {name!r}")
            if not isinstance(spec, TensorSpec):
                raise TypeError(f"{what}[{name!r}]: expected a sluice.TensorSpec, got {type(spec).__name__}")
            out.append(spec._as_entry(name))
        return out
    if isinstance(structure, tuple):
        out = []
        for i, spec in enumerate(structure):
            if not isinstance(spec, TensorSpec):
                raise TypeError(f"{what}[{i}]: expected a sluice.TensorSpec, got {type(spec).__name__}")
            out.append(spec._as_entry(""))
        return out
    raise TypeError(f"{what}: expected a sluice.TensorSpec, a dict or a tuple of them, got {type(structure).__name__}")


def components_from_value(value, what):
    """[(name, value)] from a dict (named components), a tuple (positional
    components) or anything else (one positional component)."""
    if isinstance(value, dict):
        out = []
        for name, component in value.items():
            if not isinstance(name, str) or not name:
                raise TypeError(f"{what}: dict keys must be non-empty strings, got {name!r}")
            out.append((name, component))
        if not out:
            raise ValueError(f"{what}: an element needs at least one component (got an empty dict)")
        return out
    if isinstance(value, tuple):
        if not value:
            raise ValueError(f"{what}: an element needs at least one component (got an empty tuple)")
        return [("", component) for component in value]
    if isinstance(value, _sluice.Dataset):
        raise TypeError(f"{what}: expected arrays, got a dataset")
    return [("", value)]
