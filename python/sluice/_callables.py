"""Python callables as the functions of Dataset.map, filter and interleave.

The C++ side (python/python_function.h) calls them with the GIL, converts
elements and results, and turns what they raise into element errors. This
module checks the arguments and finds the output spec of a callable that
was given none by tracing: calling it once, when the op is built, on a
placeholder element of the input spec.

The placeholder holds read-only arrays of the input's dtypes: zeros (False
for bool), and b"placeholder" for strings (not b"", so that a function
building a dataset from a path, such as Dataset.tfrecord, can trace); unknown
dims are 1 and an unknown rank is a scalar. From the traced result come the
components' names (a dict), order (a tuple), dtypes and ranks. Its dims are
kept only when every input component is numeric with a fully known shape:
then shapes follow from shapes, and the traced ones are exact. Otherwise
every dim is unknown, since the placeholder's 1s, and a string's length,
stand for values that vary.
"""

import numpy as np

from . import _sluice, _structure

_PLACEHOLDER_STRING = b"placeholder"


def element_function(func, input_entries, output_spec, op="map", name="map_func"):
    """A _sluice.ElementFunction calling `func` on elements of
    `input_entries` ([(name, dtype, shape)]); its output spec is
    `output_spec` (a structure of TensorSpecs), or traced when None.
    `op` and `name` are the op and argument that errors name."""
    check_callable(func, op, name)
    if output_spec is not None:
        output_entries = _structure.entries_from_spec(output_spec)
        return _sluice.python_element_function(func, input_entries, output_entries, False)
    advice = " or pass output_spec= (a structure of sluice.TensorSpec)" if op == "map" else ""
    result = _trace(func, input_entries, op, advice, name)
    try:
        traced = _sluice.from_tensors(_structure.components_from_value(result, f"{name}'s result")).element_spec
    except (TypeError, ValueError) as error:
        raise TypeError(
            f"{op}: on a placeholder element {name} returned {type(result).__name__}, which is not an "
            f"element (a dict of arrays, a tuple of arrays or one array): {error}"
        ) from error
    return _sluice.python_element_function(func, input_entries, _generalized(traced, input_entries), True)


def predicate(func, input_entries):
    """A _sluice.Predicate calling `func` on elements of `input_entries`;
    it must return a bool, a numpy.bool_ or a 0-d bool array."""
    check_callable(func, "filter", "predicate")
    return _sluice.python_predicate(func, input_entries)


def dataset_function(func, input_entries):
    """A _sluice.DatasetFunction calling `func` on elements of
    `input_entries`; it must return a sluice.Dataset, whose element spec is
    traced."""
    from .dataset import Dataset

    check_callable(func, "interleave", "map_func")
    result = _trace(func, input_entries, "interleave", "")
    if not isinstance(result, Dataset):
        raise TypeError(
            f"interleave: map_func must return a sluice.Dataset; on a placeholder element it returned "
            f"{type(result).__name__}"
        )
    return _sluice.python_dataset_function(func, input_entries, _generalized(result._ds.element_spec, input_entries))


def check_callable(func, op, name):
    if not callable(func):
        raise TypeError(f"{op}: {name} must be callable, got {type(func).__name__}")


def _trace(func, input_entries, op, advice, name="map_func"):
    """func(placeholder element); a ValueError, chained to what it raised,
    when it fails there."""
    element = _placeholder(input_entries)
    try:
        return func(element)
    except Exception as error:
        raise ValueError(
            f"{op}: {name} failed on a placeholder element of the input spec {_describe(input_entries)} "
            f"(zeros, b'placeholder' for strings, 1 for unknown dims), called once to find its output spec: "
            f"{type(error).__name__}: {error}. Make it accept such an element{advice}."
        ) from error


def _placeholder(input_entries):
    arrays = []
    for _, dtype, shape in input_entries:
        dims = () if shape is None else tuple(1 if d is None else d for d in shape)
        if dtype == "string" and dims == ():
            arrays.append(_PLACEHOLDER_STRING)  # a scalar string comes as bytes, as in iteration
            continue
        if dtype == "string":
            array = np.full(dims, _PLACEHOLDER_STRING, dtype=object)
        else:
            array = np.zeros(dims, dtype=_structure.TensorSpec(None, dtype).dtype)
        array.flags.writeable = False
        arrays.append(array)
    # The layout iteration gives elements (python/tensor_conversion.h).
    names = [name for name, _, _ in input_entries]
    if names and all(names):
        return dict(zip(names, arrays))
    if len(arrays) == 1:
        return arrays[0]
    return tuple(arrays)


def _generalized(traced_entries, input_entries):
    """The traced spec, with every dim unknown unless each input component is
    numeric and fully known (see the module's docstring)."""
    static = all(
        dtype != "string" and shape is not None and None not in shape for _, dtype, shape in input_entries
    )
    if static:
        return traced_entries
    return [(name, dtype, None if shape is None else [None] * len(shape)) for name, dtype, shape in traced_entries]


def _describe(entries):
    return repr(_structure.spec_from_entries(entries))
