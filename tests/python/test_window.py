"""Dataset.window, flat_map and group_by_window against tf.data's documented
examples."""

import numpy as np
import pytest

import sluice


def rows(ds):
    return [np.asarray(e).tolist() for e in ds]


def test_window_documented_examples():
    assert rows(sluice.Dataset.range(7).window(3)) == [[0, 1, 2], [3, 4, 5], [6]]
    assert rows(sluice.Dataset.range(7).window(3, drop_remainder=True)) == [[0, 1, 2], [3, 4, 5]]
    assert rows(sluice.Dataset.range(7).window(3, shift=2, drop_remainder=True)) == [[0, 1, 2], [2, 3, 4], [4, 5, 6]]
    assert rows(sluice.Dataset.range(7).window(3, shift=1, stride=2, drop_remainder=True)) == [[0, 2, 4], [1, 3, 5], [2, 4, 6]]
    windows = list(sluice.Dataset.from_tensor_slices({"a": [1, 2, 3], "b": [4, 5, 6]}).window(2))
    assert [w["a"].tolist() for w in windows] == [[1, 2], [3]]
    assert [w["b"].tolist() for w in windows] == [[4, 5], [6]]


def test_window_errors():
    with pytest.raises(sluice.InvalidArgumentError, match="Window size must be greater than zero, but got 0."):
        sluice.Dataset.range(3).window(0)
    with pytest.raises(sluice.InvalidArgumentError, match="Window shift must be greater than zero, but got -1."):
        sluice.Dataset.range(3).window(2, shift=-1)


def test_flat_map_over_windows_runs_as_a_spec_function():
    ds = sluice.Dataset.range(7).window(3, shift=1, drop_remainder=True).flat_map(lambda w: w.batch(3))
    assert rows(ds) == [[0, 1, 2], [1, 2, 3], [2, 3, 4], [3, 4, 5], [4, 5, 6]]
    assert "flat_map" in ds._ds.to_spec_text()


def test_flat_map_over_windows_with_a_python_callable_inside():
    ds = sluice.Dataset.range(5).window(2).flat_map(lambda w: w.map(lambda x: x * 10))
    assert rows(ds) == [0, 10, 20, 30, 40]


def test_flat_map_of_elements():
    ds = sluice.Dataset.range(4).flat_map(lambda x: sluice.Dataset.range(int(x)))
    assert rows(ds) == [0, 0, 1, 0, 1, 2]


def test_group_by_window_documented_example():
    ds = sluice.Dataset.range(10).group_by_window(
        key_func=lambda x: x % 2, reduce_func=lambda key, ds: ds.batch(5), window_size=5
    )
    assert rows(ds) == [[0, 2, 4, 6, 8], [1, 3, 5, 7, 9]]


def test_group_by_window_size_func_and_key():
    ds = sluice.Dataset.range(9).group_by_window(
        key_func=lambda x: x % 3,
        reduce_func=lambda key, ds: ds.batch(10).map(lambda x: x + 100 * key),
        window_size_func=lambda key: key + 1,
    )
    assert rows(ds) == [[0], [3], [101, 104], [6], [202, 205, 208], [107]]


def test_group_by_window_by_component_name():
    ds = sluice.Dataset.from_tensor_slices({"x": [1, 2, 3, 4], "k": [0, 1, 0, 1]}).group_by_window(
        "k", lambda key, ds: ds.batch(2), window_size=2
    )
    assert [e["x"].tolist() for e in ds] == [[1, 3], [2, 4]]


def test_group_by_window_errors():
    with pytest.raises(sluice.InvalidArgumentError, match="Either the `window_size` argument or the `window_size_func`"):
        sluice.Dataset.range(3).group_by_window(lambda x: x, lambda key, ds: ds)
    with pytest.raises(TypeError, match="key_func must be callable or a component name"):
        sluice.Dataset.range(3).group_by_window(3, lambda key, ds: ds, window_size=2)
