"""sluice.profiler: Dataset.profile's report, verdict, JSON and trace, and
the profiler of a training loop (its steps and whether it is input-bound)."""

import json
import time

import numpy as np
import pytest

import sluice


def cpu_heavy_map():
    """from_slices -> map(cast to float16) -> batch -> prefetch: the cast of
    1 MiB elements (~0.5 ms each) is nearly all the pipeline's work, as the
    spinning map of tests/dataset/profiler_test.cc's SlowMapPipeline is."""
    x = np.random.default_rng(0).random((64, 256, 1024), dtype=np.float32)
    return sluice.Dataset.from_tensor_slices(x).map(sluice.fn.cast("", "float16")).batch(4).prefetch(2)


@pytest.fixture(scope="module")
def report():
    return cpu_heavy_map().profile()


def test_a_cpu_heavy_map_is_named_cpu_bound(report):
    verdict = report.verdict
    assert verdict.kind == "cpu_bound", report.text
    assert verdict.stage == 2 and verdict.stage_name == "[2] map", report.text
    assert verdict.share > 0.5
    assert "num_parallel_calls" in verdict.remedy
    assert verdict.reason
    assert "Verdict: [2] map limits throughput (cpu_bound)" in report.text
    assert str(report) == report.text
    assert "cpu_bound at [2] map" in repr(report)
    assert report.consumer is None  # nothing reported steps


def test_json_parses_and_has_the_stages(report):
    parsed = json.loads(report.json)
    assert parsed == report.to_dict()
    assert [s["name"] for s in parsed["stages"]] == ["[0] prefetch", "[1] batch", "[2] map", "[3] from_slices"]
    assert [s["elements"] for s in parsed["stages"]] == [16, 16, 64, 64]
    assert report.stages == parsed["stages"]
    assert parsed["verdict"]["kind"] == "cpu_bound"
    assert report.wall_s == parsed["wall_s"] > 0
    report.to_dict()["stages"].clear()  # a copy: the report keeps its own
    assert len(report.stages) == 4


def test_trace_parses_and_has_events_per_stage(report):
    events = json.loads(report.trace)["traceEvents"]
    names = {e["tid"]: e["args"]["name"] for e in events if e["ph"] == "M" and e["name"] == "thread_name"}
    assert sorted(names.values()) == ["[0] prefetch", "[1] batch", "[2] map", "[3] from_slices"]
    calls = [e for e in events if e["ph"] == "X"]
    assert calls and all(e["dur"] >= 0 and e["tid"] in names for e in calls)


def test_save_trace_and_save_json_write_files(report, tmp_path):
    report.save_trace(tmp_path / "trace.json")
    report.save_json(str(tmp_path / "report.json"))
    assert json.loads((tmp_path / "trace.json").read_text()) == json.loads(report.trace)
    assert json.loads((tmp_path / "report.json").read_text()) == report.to_dict()


def test_profile_stops_after_steps_or_seconds_or_at_the_end():
    assert sluice.Dataset.range(10**12).profile(steps=10).stages[0]["elements"] == 10
    assert sluice.Dataset.range(7).profile(steps=100).stages[0]["elements"] == 7
    assert sluice.Dataset.range(5).profile().stages[0]["elements"] == 5
    by_time = sluice.Dataset.range(10**12).profile(seconds=0.05)
    assert by_time.stages[0]["elements"] > 0 and by_time.wall_s > 0
    assert sluice.profiler.profile_dataset(sluice.Dataset.range(3), seconds=1).stages[0]["elements"] == 3


def test_profile_arguments_are_checked():
    ds = sluice.Dataset.range(3)
    with pytest.raises(ValueError, match="seconds"):
        ds.profile(seconds=0)
    with pytest.raises(TypeError, match="seconds"):
        ds.profile(seconds="5")
    with pytest.raises(ValueError, match="steps"):
        ds.profile(steps=0)
    with pytest.raises(TypeError, match="ds"):
        sluice.profiler.profile_dataset([1, 2, 3])
    with pytest.raises(TypeError, match="dataset"):
        sluice.profiler.profile(range(3))
    with pytest.raises(ValueError, match="max_trace_events_per_node"):
        sluice.profiler.profile(ds, max_trace_events_per_node=-1)


def test_trace_events_are_bounded_per_stage():
    r = sluice.profiler.profile_dataset(sluice.Dataset.range(1000), max_trace_events_per_node=5)
    assert len([e for e in json.loads(r.trace)["traceEvents"] if e["ph"] == "X"]) == 5


def test_a_loop_that_does_no_work_is_input_bound():
    with sluice.profiler.profile(sluice.Dataset.range(2000)) as prof:
        seen = sum(1 for _ in prof)
    assert seen == 2000
    consumer = prof.report().consumer
    assert consumer.steps == 2000
    assert consumer.input_bound, prof.report().text
    assert consumer.wait_share > 0.1
    assert "input-bound" in prof.report().text


def test_a_loop_much_slower_than_its_input_is_not_input_bound():
    # Each element takes microseconds; each step sleeps 10 ms.
    with sluice.profiler.profile(sluice.Dataset.range(20)) as prof:
        for _ in prof:
            time.sleep(0.01)
    consumer = prof.report().consumer
    assert consumer.steps == 20
    assert not consumer.input_bound, prof.report().text
    assert consumer.wait_share < 0.1
    assert consumer.mean_step_ms >= 10
    assert "not input-bound" in prof.report().text


def test_steps_count_when_the_loop_asks_for_more_and_epochs_add_up():
    ds = sluice.Dataset.range(10)
    with sluice.profiler.profile(ds) as prof:
        assert prof.dataset is ds
        assert prof.report().verdict.kind == "none" and prof.report().consumer is None
        for i, _ in enumerate(prof):
            if i == 3:
                break  # the step broken out of is not counted
        assert prof.report().consumer.steps == 3
        for i, _ in enumerate(prof):
            if i == 5:
                during = prof.report()  # a report of the loop so far
        assert during.consumer.steps == 3 + 5
        assert prof.report().consumer.steps == 3 + 10
    assert prof.report().stages[0]["elements"] == 4 + 10


def test_close_stops_a_running_traversal():
    prof = sluice.profiler.profile(sluice.Dataset.range(10**12).prefetch(4))
    loop = iter(prof)
    next(loop)
    prof.close()
    assert list(loop) == []  # the traversal ended
    assert prof.report().stages[0]["elements"] >= 1


def test_exported_names():
    assert sluice.ProfileReport is sluice.profiler.ProfileReport
    assert "ProfileReport" in sluice.__all__ and "profiler" in sluice.__all__


def test_consumer_steps_must_be_durations():
    profile = sluice._sluice.Profile()
    for bad in (float("nan"), float("inf"), -1.0, 1e30):
        with pytest.raises(ValueError, match="waiting_for_input_s"):
            profile.record_consumer_step(bad, 1.0)
        with pytest.raises(ValueError, match="step_s"):
            profile.record_consumer_step(0.0, bad)
    profile.record_consumer_step(0.001, 0.002)
