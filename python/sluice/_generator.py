"""Dataset.from_generator: a Python generator as a pipeline's source.

Each traversal calls generator(*args) and iter() on what it returns; each
element is next() of that iterator, converted to the output signature. The
C++ side (python/python_function.h) calls the step function this module
makes with the GIL held, ends the sequence on StopIteration, and checks
shapes against the signature.

A yielded value must have the signature's structure: a dict with its keys,
a tuple (or list) of its length, or anything for one TensorSpec. Each value
becomes an array of its TensorSpec's dtype as tf.data converts it
(numpy.asarray with that dtype), except that a conversion that would change
values is refused: another kind of number (a float where an int is
declared), an integer out of the declared type's range, or a non-string for
a string component. A refused value is that element's error
(InvalidArgumentError from next()), and the traversal goes on.
"""

import numpy as np

from . import _callables, _sluice, _structure


def dataset(generator, output_signature, args):
    """The _sluice.Dataset of Dataset.from_generator."""
    _callables.check_callable(generator, "from_generator", "generator")
    if output_signature is None:
        raise TypeError(
            "from_generator: output_signature is required (a sluice.TensorSpec, or a dict or tuple of them): "
            "a generator can't be traced without consuming it"
        )
    entries = _structure.entries_from_spec(output_signature, "from_generator: output_signature")
    for name, dtype, _ in entries:
        if dtype == "bfloat16":
            raise TypeError(
                f"from_generator: output_signature component {name or 0!r} is bfloat16, which numpy can't hold; "
                "declare float32 and cast with sluice.fn.cast"
            )
    specs = [_structure.TensorSpec(shape, dtype, name) for name, dtype, shape in entries]
    convert = _converter(output_signature, specs)
    if args is None:
        args = ()
    elif not isinstance(args, (tuple, list)):
        raise TypeError(f"from_generator: args must be a tuple or a list, got {type(args).__name__}")
    args = tuple(args)

    def start():
        iterator = iter(generator(*args))

        def step():
            return convert(next(iterator))

        return step

    return _sluice.python_generator_dataset(start, entries)


def _converter(signature, specs):
    """The function turning a yielded value into the tuple of its components'
    arrays, in the signature's order (what the C++ side takes)."""
    if isinstance(signature, dict):
        keys = signature.keys()
        named = [(spec.name, _component_converter(spec, repr(spec.name))) for spec in specs]

        def convert(value):
            if not isinstance(value, dict) or value.keys() != keys:
                raise TypeError(
                    f"from_generator: the generator yielded {_describe(value)}, which does not match the expected "
                    f"structure: a dict with keys {list(keys)}"
                )
            return tuple([component(value[name]) for name, component in named])

        return convert
    if isinstance(signature, tuple):
        positional = [_component_converter(spec, str(i)) for i, spec in enumerate(specs)]

        def convert(value):
            if not isinstance(value, (tuple, list)) or len(value) != len(positional):
                raise TypeError(
                    f"from_generator: the generator yielded {_describe(value)}, which does not match the expected "
                    f"structure: a tuple of {len(positional)}"
                )
            return tuple([component(v) for component, v in zip(positional, value)])

        return convert
    single = _component_converter(specs[0], "0")
    return lambda value: (single(value),)


def _component_converter(spec, component):
    """The function converting one component's value: values already of its
    dtype pass as they are (the C++ side copies them), others go through
    _array."""
    if spec.dtype_name == "string":

        def convert(value):
            return value if isinstance(value, (bytes, str)) else _array(value, spec, component)

        return convert
    dtype = spec.dtype

    def convert(value):
        if isinstance(value, (np.ndarray, np.generic)) and value.dtype == dtype:
            return value
        return _array(value, spec, component)

    return convert


def _array(value, spec, component):
    where = f"from_generator: component {component}"
    try:
        found = np.asarray(value)
    except (TypeError, ValueError) as error:
        raise TypeError(f"{where}: the generator yielded {_describe(value)}, which is not an array: {error}") from None
    if spec.dtype_name == "string":
        if found.dtype.kind not in "SUO":
            raise TypeError(f"{where} is declared string, but the generator yielded {_describe(value)}")
        return np.asarray(value, dtype=object)  # the bytes as they are: an 'S' array drops trailing NULs
    if found.dtype == spec.dtype:
        return found
    if found.dtype.kind not in "biuf" or not np.can_cast(found.dtype, spec.dtype, casting="same_kind"):
        raise TypeError(
            f"{where} is declared {spec.dtype_name}, but the generator yielded {_describe(value)}, "
            f"{_kind(found.dtype)}, which does not convert to it without changing values"
        )
    converted = found.astype(spec.dtype)
    if found.dtype.kind in "iu" and spec.dtype.kind in "iu" and not np.array_equal(converted, found):
        info = np.iinfo(spec.dtype)
        raise ValueError(
            f"{where} is declared {spec.dtype_name}, but the generator yielded {_describe(value)}, outside its "
            f"range [{info.min}, {info.max}]"
        )
    return converted


def _kind(dtype):
    if dtype.kind in "SU":
        return "strings"
    if dtype.kind == "O":
        return "Python objects"
    return f"of dtype {dtype}"


def _describe(value):
    if isinstance(value, np.ndarray):
        return f"an ndarray {value.dtype} {value.shape}"
    text = repr(value)
    if len(text) > 60:
        text = text[:57] + "..."
    return f"{type(value).__name__} {text}"
