# sluice.profiler for type checkers; tests/python/test_stubs.py keeps it in
# step with profiler.py.
import os
from types import TracebackType
from typing import Any, Iterator as _Iterator

from . import Dataset

__all__: list[str]

DEFAULT_SECONDS: float

class Verdict:
    kind: str
    stage: int
    stage_name: str
    share: float
    estimated_gain: float
    reason: str
    remedy: str
    def __init__(
        self, kind: str, stage: int, stage_name: str, share: float, estimated_gain: float, reason: str, remedy: str
    ) -> None: ...

class ConsumerReport:
    steps: int
    mean_step_ms: float
    wait_share: float
    input_bound: bool
    def __init__(self, steps: int, mean_step_ms: float, wait_share: float, input_bound: bool) -> None: ...

class ProfileReport:
    text: str
    json: str
    trace: str
    def __init__(self, text: str, json: str, trace: str) -> None: ...
    def to_dict(self) -> dict[str, Any]: ...
    @property
    def verdict(self) -> Verdict: ...
    @property
    def consumer(self) -> ConsumerReport | None: ...
    @property
    def wall_s(self) -> float: ...
    @property
    def stages(self) -> list[dict[str, Any]]: ...
    def save_trace(self, path: str | os.PathLike[str]) -> None: ...
    def save_json(self, path: str | os.PathLike[str]) -> None: ...

class Profiler:
    def __init__(self, dataset: Dataset, max_trace_events_per_node: int = 2000) -> None: ...
    @property
    def dataset(self) -> Dataset: ...
    def __iter__(self) -> _Iterator[Any]: ...
    def report(self) -> ProfileReport: ...
    def close(self) -> None: ...
    def __enter__(self) -> Profiler: ...
    def __exit__(
        self, exc_type: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> bool: ...

def profile(dataset: Dataset, max_trace_events_per_node: int = 2000) -> Profiler: ...
def profile_dataset(
    ds: Dataset, seconds: float | None = None, steps: int | None = None, max_trace_events_per_node: int = 2000
) -> ProfileReport: ...
