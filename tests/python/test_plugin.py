"""Named functions and plugins: sluice.load_plugin of the example plugin
(examples/plugin/, its path in SLUICE_EXAMPLE_PLUGIN_PATH), sluice.fn.named
and named_predicate, the spec they write, and the errors for a missing
plugin or an unknown name."""

import os

import numpy as np
import pytest

import sluice

PLUGIN = os.environ.get("SLUICE_EXAMPLE_PLUGIN_PATH", "")
needs_plugin = pytest.mark.skipif(not PLUGIN, reason="SLUICE_EXAMPLE_PLUGIN_PATH is not set (ctest sets it)")


@needs_plugin
def test_load_plugin_reports_the_plugin():
    plugin = sluice.load_plugin(PLUGIN)
    assert (plugin.name, plugin.version) == ("example", "1.0")
    assert plugin.functions == ["clip_and_scale", "is_nonempty", "repeat_string"]
    assert os.path.samefile(plugin.path, PLUGIN)
    assert "example.clip_and_scale" in sluice.fn.function_names()


@needs_plugin
def test_plugin_function_in_map_and_filter():
    plugin = sluice.load_plugin(PLUGIN)
    values = np.array([-1.0, 0.5, 2.0, 0.25], dtype=np.float32)
    ds = sluice.Dataset.from_tensor_slices(values).map(plugin.function("clip_and_scale", scale=4.0),
                                                       num_parallel_calls=2)
    assert [float(x) for x in ds] == [0.0, 2.0, 4.0, 1.0]
    words = sluice.Dataset.from_tensor_slices(np.array([b"ab", b"", b"c"], dtype=object))
    kept = words.filter(sluice.fn.named_predicate("example.is_nonempty")).map(
        sluice.fn.named("example.repeat_string", times=2))
    assert list(kept) == [b"abab", b"cc"]
    spec = kept.to_spec()
    assert 'name: "repeat_string"' in spec and 'version: "1.0"' in spec and "is_nonempty" in spec


@needs_plugin
def test_plugin_errors_name_the_plugin():
    plugin = sluice.load_plugin(PLUGIN)
    with pytest.raises(sluice.InvalidArgumentError, match="lo must not be above hi"):
        plugin.function("clip_and_scale", lo=2, hi=1)
    with pytest.raises(sluice.NotFoundError, match="has no function 'clip'"):
        plugin.function("clip")


def test_builtin_by_name_and_unknown_names():
    ds = sluice.Dataset.range(3).map(sluice.fn.named("scale_shift", scale=2.0, shift=1))
    assert [float(x) for x in ds] == [1.0, 3.0, 5.0]
    with pytest.raises(sluice.NotFoundError, match="did you mean 'scale_shift'"):
        sluice.fn.named("scale_shfit")
    with pytest.raises(sluice.NotFoundError, match="cannot be found"):
        sluice.load_plugin("/nonexistent/libnothing.so")
