"""The profiler: which stage of a pipeline limits its throughput, and what would help.

A pipeline on its own, for a few seconds (Dataset.profile):

    report = ds.profile(seconds=5)        # or steps=N elements; to the end if it is shorter
    print(report)                         # the per-stage table and the verdict
    report.verdict.kind                   # "cpu_bound", "source_bound", "buffer_too_small",
                                          # "per_element_map", "tiny_map" or "none"
    report.verdict.stage_name             # "[2] map"
    report.save_trace("trace.json")       # open in https://ui.perfetto.dev

Inside a training loop, which also says whether the loop is input-bound
(waits for its batches for >= 10% of its step time):

    with sluice.profiler.profile(ds) as prof:
        for batch in prof:                # a traversal of ds that times the loop
            train_step(batch)
    print(prof.report())                  # the same report, with the consumer line
    prof.report().consumer.input_bound

Iterating the profiler times each step of the loop: a step runs from the
request for a batch to the request for the next one, and its wait for input
is the time the request took. Each `for` over it is a new traversal (an
epoch) adding to the same profile. A step counts when the loop asks for
the next batch (or finds the end), so the step a loop breaks out of is not
counted. report() can be called during the loop or after it.

The report is the one `sluice profile SPEC` prints (dataset/profiler.h says
how the verdict is decided); the JSON and the trace are those of
SLUICE_PROFILE_JSON and SLUICE_PROFILE_TRACE.
"""

import dataclasses
import json as _json
import time

from . import _args, _sluice
from .dataset import Iterator, _as_dataset

__all__ = ["ProfileReport", "Verdict", "ConsumerReport", "Profiler", "profile", "profile_dataset"]

DEFAULT_SECONDS = 5.0


@dataclasses.dataclass(frozen=True)
class Verdict:
    """The stage that limits throughput and what would help.

    kind: "cpu_bound" (a stage's own work; remedy: parallelise it or cache
        before it), "source_bound" (reading; remedy: read in parallel or
        cache), "buffer_too_small" (a prefetch whose producer is bursty),
        "per_element_map" (a row-wise map, such as parse_example, called per
        element ahead of a batch; remedy: batch first, then map the batch),
        "tiny_map" (two parallel maps, one after the other, whose elements'
        hand-offs to the CPU pool cost much of their time; remedy: fuse them)
        or "none" (nothing was iterated); docs/profiling.md has the rules.
    stage: the stage's index in the report's table (-1 for none);
    stage_name: as the table names it ("[2] map").
    share: the stage's share of the pipeline's busy time (for
        buffer_too_small: the consumer's share of time waiting on it);
    estimated_gain: at most this fraction of the time per element saved.
    """

    kind: str
    stage: int
    stage_name: str
    share: float
    estimated_gain: float
    reason: str
    remedy: str


@dataclasses.dataclass(frozen=True)
class ConsumerReport:
    """The training loop's steps: how many, their mean duration, the share
    of step time spent waiting for input, and whether that share makes the
    loop input-bound (>= 10%)."""

    steps: int
    mean_step_ms: float
    wait_share: float
    input_bound: bool


class ProfileReport:
    """A profiled traversal's report: the per-stage table, the verdict, and
    (when the loop reported steps) whether the consumer is input-bound.

    text: the table and the verdict for people (str(report));
    json: the same as a JSON string (to_dict() parses it): "wall_s",
        "stages" (one object per stage: index, parent, op, name, calls,
        elements, bytes, elements_per_s, self_ns, shares, buffer fill,
        parallelism), "verdict" and, with steps, "consumer";
    trace: Chrome trace-event JSON, one track per stage, one event per
        recorded call (Perfetto, chrome://tracing);
    verdict: a Verdict; consumer: a ConsumerReport or None; wall_s: the
        traversal's wall time; stages: the "stages" list of to_dict().
    """

    __slots__ = ("text", "json", "trace", "_dict")

    def __init__(self, text, json, trace):
        self.text = text
        self.json = json
        self.trace = trace
        self._dict = _json.loads(json)

    @classmethod
    def _of(cls, profile):
        return cls(*profile.report())

    def to_dict(self):
        """The JSON report as a new dict."""
        return _json.loads(self.json)

    @property
    def verdict(self):
        """The Verdict: the limiting stage, why, and what would help."""
        v = self._dict["verdict"]
        return Verdict(
            kind=v["kind"],
            stage=v["stage"],
            stage_name=v["stage_name"],
            share=v["share"],
            estimated_gain=v["estimated_gain"],
            reason=v["reason"],
            remedy=v["remedy"],
        )

    @property
    def consumer(self):
        """The ConsumerReport of the loop's steps, or None when no steps
        were reported (Dataset.profile)."""
        c = self._dict.get("consumer")
        if c is None:
            return None
        return ConsumerReport(
            steps=c["steps"], mean_step_ms=c["mean_step_ms"], wait_share=c["wait_share"], input_bound=c["input_bound"]
        )

    @property
    def wall_s(self):
        """The traversal's wall time in seconds."""
        return self._dict["wall_s"]

    @property
    def stages(self):
        """One dict per stage, by index (the JSON report's "stages")."""
        return self.to_dict()["stages"]

    def save_trace(self, path):
        """Writes the trace-event JSON to `path` (open it in Perfetto)."""
        _write(path, self.trace)

    def save_json(self, path):
        """Writes the JSON report to `path`."""
        _write(path, self.json)

    def __str__(self):
        return self.text

    def __repr__(self):
        v = self._dict["verdict"]
        where = f" at {v['stage_name']}" if v["stage"] >= 0 else ""
        return f"<sluice.ProfileReport {v['kind']}{where}, {len(self._dict['stages'])} stages, {self.wall_s:.3g} s>"


def _write(path, text):
    with open(path, "w", encoding="utf-8") as f:
        f.write(text)


def _new_profile(max_trace_events_per_node):
    events = _args.integer(max_trace_events_per_node, "max_trace_events_per_node", minimum=0)
    return _sluice.Profile(max_trace_events_per_node=events)


def profile_dataset(ds, seconds=None, steps=None, max_trace_events_per_node=2000):
    """Iterates `ds` under the profiler and returns its ProfileReport.

    It stops after `seconds`, after `steps` elements, or at the end of the
    dataset, whichever comes first; with neither given, seconds is 5. The
    elements are dropped as they come, so the report describes the pipeline
    on its own (no consumer line). Dataset.profile calls this.
    max_trace_events_per_node: calls per stage kept as trace events.
    """
    ds = _as_dataset(ds, "ds")
    seconds = _args.seconds(seconds, "seconds", allow_none=True)
    if seconds is None and steps is None:
        seconds = DEFAULT_SECONDS
    steps = _args.integer(steps, "steps", minimum=1, allow_none=True)
    recording = _new_profile(max_trace_events_per_node)
    clock = time.perf_counter
    deadline = None if seconds is None else clock() + seconds
    with Iterator(ds, _profile=recording) as it:
        count = 0
        for _ in it:
            count += 1
            if count == steps or (deadline is not None and clock() >= deadline):
                break
    return ProfileReport._of(recording)


class Profiler:
    """A dataset's profile over a training loop: iterate it for the batches,
    and report() gives the ProfileReport with the consumer line. Made by
    sluice.profiler.profile(ds); see the module's docstring.

    Iterating makes a new traversal of the dataset each time; leaving the
    `with` block (or close()) stops any traversal still running. A Profiler
    is for one thread at a time, as an iterator is.
    """

    def __init__(self, dataset, max_trace_events_per_node=2000):
        self._dataset = _as_dataset(dataset, "dataset")
        self._profile = _new_profile(max_trace_events_per_node)
        self._live = set()

    @property
    def dataset(self):
        """The dataset profiled."""
        return self._dataset

    def __iter__(self):
        it = Iterator(self._dataset, _profile=self._profile)
        self._live.add(it)
        return self._timed(it)

    def _timed(self, it):
        record = self._profile.record_consumer_step
        clock = time.perf_counter
        try:
            requested = clock()
            for element in it:
                arrived = clock()
                yield element
                now = clock()
                record(arrived - requested, now - requested)
                requested = now
        finally:
            it.close()
            self._live.discard(it)

    def report(self):
        """The ProfileReport of everything iterated so far."""
        return ProfileReport._of(self._profile)

    def close(self):
        """Stops the traversals still running (their workers are joined)."""
        for it in list(self._live):
            it.close()
        self._live.clear()

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()
        return False


def profile(dataset, max_trace_events_per_node=2000):
    """A Profiler over `dataset` for a training loop:

        with sluice.profiler.profile(ds) as prof:
            for batch in prof:
                train_step(batch)
        print(prof.report())

    max_trace_events_per_node: calls per stage kept as trace events.
    """
    return Profiler(dataset, max_trace_events_per_node=max_trace_events_per_node)
