"""sluice.fn.expression and sluice.fn.expression_predicate: typed expressions
as map and filter functions, their errors, and their pipeline spec."""

import numpy as np
import pytest

import sluice


def source():
    x = np.arange(12, dtype=np.float32).reshape(4, 3)
    return sluice.Dataset.from_tensor_slices({"x": x, "label": np.array([0, 1, 2, 1], dtype=np.int64)})


def test_map_with_named_outputs():
    fn = sluice.fn.expression(y="x * 0.5 + 1", odd="label % 2 == 1")
    assert fn.name == "expression(y = x * 0.5 + 1, odd = label % 2 == 1)"
    out = list(source().map(fn, num_parallel_calls=2))
    assert [e["y"].tolist() for e in out] == [[1, 1.5, 2], [2.5, 3, 3.5], [4, 4.5, 5], [5.5, 6, 6.5]]
    assert out[0]["y"].dtype == np.float32
    assert [bool(e["odd"]) for e in out] == [False, True, False, True]


def test_keep_inputs_and_names_in_a_dict():
    fn = sluice.fn.expression({"label": "cast(label, int32) * 10"}, keep_inputs=True)
    (first, second) = list(source().map(fn).take(2))
    assert set(first) == {"x", "label"}
    assert second["label"] == 10 and second["label"].dtype == np.int32


def test_filter_with_an_expression_predicate():
    kept = list(source().filter(sluice.fn.expression_predicate("label == 1")))
    assert [e["x"].tolist() for e in kept] == [[3, 4, 5], [9, 10, 11]]


def test_errors_name_the_position_and_the_column():
    with pytest.raises(sluice.InvalidArgumentError, match=r"outputs\[0\]: add: args\[0\] \(x\) is float32\[3\] but "
                       r"args\[1\] \(label\) is int64\[\]"):
        source().map(sluice.fn.expression(y="x + label"))
    with pytest.raises(sluice.InvalidArgumentError, match="column 5: expected an operand"):
        sluice.fn.expression(y="x * * 2")
    with pytest.raises(sluice.InvalidArgumentError, match="not a bool scalar"):
        source().filter(sluice.fn.expression_predicate("label + 1"))
    with pytest.raises(TypeError, match="at least one output"):
        sluice.fn.expression()


def test_spec_round_trip():
    ds = source().map(sluice.fn.expression(y="where(label > 0, x, -x)")).filter(
        sluice.fn.expression_predicate("length(y) == 3"))
    spec = ds.to_spec()
    again = sluice.Dataset.from_spec(spec)
    assert [e["y"].tolist() for e in again] == [e["y"].tolist() for e in ds]
