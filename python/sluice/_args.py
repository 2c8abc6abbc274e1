"""Checks of Python arguments before they reach C++: a wrong type is a
TypeError and a wrong value a ValueError, each naming the argument."""

import numbers
import operator

_INT64_MIN = -(2**63)
_INT64_MAX = 2**63 - 1
INT32_MAX = 2**31 - 1


def integer(value, name, minimum=None, maximum=_INT64_MAX, allow_none=False, default=None):
    """`value` as a Python int in [minimum, maximum] (int64 by default)."""
    if value is None:
        if allow_none:
            return default
        raise TypeError(f"{name}: expected an integer, got None")
    if isinstance(value, bool) or not isinstance(value, numbers.Integral):
        try:
            value = operator.index(value)
        except TypeError:
            raise TypeError(f"{name}: expected an integer, got {type(value).__name__} {value!r}") from None
    value = int(value)
    low = _INT64_MIN if minimum is None else minimum
    if value < low or value > maximum:
        raise ValueError(f"{name}: {value} is out of range [{low}, {maximum}]")
    return value


def parallelism(value, name="num_parallel_calls"):
    """None (sequential) -> 0; AUTOTUNE (-1) or N >= 1."""
    if value is None:
        return 0
    value = integer(value, name, minimum=-1)
    if value == 0:
        raise ValueError(f"{name}: 0 is not a parallelism; use None for sequential, N >= 1, or sluice.AUTOTUNE")
    return value


def boolean(value, name, allow_none=False):
    if value is None and allow_none:
        return None
    if isinstance(value, bool):
        return value
    try:
        import numpy

        if isinstance(value, numpy.bool_):
            return bool(value)
    except ImportError:  # pragma: no cover
        pass
    raise TypeError(f"{name}: expected True or False{' or None' if allow_none else ''}, got {value!r}")


def string(value, name):
    if isinstance(value, bytes):
        value = value.decode()
    if not isinstance(value, str):
        raise TypeError(f"{name}: expected a string, got {type(value).__name__} {value!r}")
    return value


def strings(value, name):
    """A str (or bytes, or os.PathLike) or a sequence of them, as a list of str.
    A 0-d numpy array counts as its one string."""
    import os

    if getattr(value, "ndim", None) == 0 and hasattr(value, "item"):
        value = value.item()
    if isinstance(value, (str, bytes, os.PathLike)):
        value = [value]
    try:
        items = list(value)
    except TypeError:
        raise TypeError(f"{name}: expected a string or a sequence of strings, got {type(value).__name__}") from None
    out = []
    for i, item in enumerate(items):
        if isinstance(item, os.PathLike):
            item = os.fspath(item)
        out.append(string(item, f"{name}[{i}]"))
    return out


def seconds(value, name, allow_none=False):
    """`value` as a float number of seconds > 0 (None passes when allowed)."""
    if value is None and allow_none:
        return None
    if isinstance(value, bool) or not isinstance(value, numbers.Real):
        raise TypeError(f"{name}: expected a number of seconds, got {type(value).__name__}")
    if not value > 0:
        raise ValueError(f"{name}: must be > 0, got {value}")
    return float(value)


def seed(value, name="seed"):
    if value is None:
        return None
    return integer(value, name, minimum=0, maximum=2**64 - 1)


def compression(value):
    """A file compression argument: None or "" -> "NONE", else its name in
    upper case ("ZLIB", "GZIP")."""
    return "NONE" if value in (None, "") else string(value, "compression").upper()


def component(value):
    """A built-in function's component argument: None or "" -> "" (every
    component, or the only one), else its name."""
    return "" if value is None else string(value, "component")
