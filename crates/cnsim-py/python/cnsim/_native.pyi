"""Type stubs of the native module (Rust, PyO3). Use it through the `cnsim` package."""

from typing import Any, Callable, List, Optional, Sequence, Tuple

import numpy as np
import numpy.typing as npt
from typing_extensions import final

__all__ = [
    "VERSION",
    "Plan",
    "PreparedSweep",
    "Scenario",
    "Tables",
    "bundled",
    "from_state",
    "load",
    "plan",
    "reproduce",
    "reproductions",
    "run_resolved",
    "simulate",
]

VERSION: str

#: A recorded table: column names (``time_s`` first), unit, columns.
_NativeTable = Tuple[List[str], str, List[npt.NDArray[np.float64]]]
#: A planned run: id, point, seed, swept values as typed, resolved scenario (TOML).
_NativeRun = Tuple[str, str, int, int, List[str], str]

@final
class Scenario:
    @property
    def name(self) -> str: ...
    @property
    def seed(self) -> int: ...
    @property
    def duration_s(self) -> float: ...
    @property
    def file(self) -> str: ...
    @property
    def overrides(self) -> List[str]: ...
    @property
    def run_id(self) -> str: ...
    def resolved_toml(self) -> str: ...
    def get(self, key: str) -> Any: ...
    def state(self) -> Tuple[str, str, List[str]]: ...
    def with_overrides(self, overrides: Sequence[Tuple[str, Any]]) -> Scenario: ...

@final
class Tables:
    def stems(self) -> List[str]: ...
    def shape(self, stem: str) -> Tuple[int, int]: ...
    def take(self, stem: str) -> _NativeTable: ...

@final
class PreparedSweep:
    @property
    def todo(self) -> List[str]: ...
    @property
    def redone(self) -> List[str]: ...
    def release(self) -> None: ...

@final
class Plan:
    @property
    def axes(self) -> List[str]: ...
    @property
    def name(self) -> str: ...
    def runs(self) -> List[_NativeRun]: ...
    def settled_in(self, dir: str) -> Plan: ...
    def prepare(self, dir: str, allow_mixed_versions: bool) -> PreparedSweep: ...
    def execute(
        self,
        dir: str,
        jobs: int,
        summarize: bool = False,
        csv: bool = False,
        allow_mixed_versions: bool = False,
        max_memory: Optional[int] = None,
        on_run: Optional[Callable[[str], object]] = None,
    ) -> Tuple[int, int, int]: ...
    def complete_table(self, dir: str) -> bytes: ...
    def finish(self, dir: str, summarize: bool) -> None: ...

def load(source: str, is_text: bool, overrides: Sequence[Tuple[str, Any]], texts: Sequence[str] = ...) -> Scenario: ...
def from_state(text: str, file: str, overrides: Sequence[str]) -> Scenario: ...
def simulate(
    scenario: Scenario,
    seed: Optional[int] = None,
    out: Optional[str] = None,
    force: bool = False,
    max_memory: Optional[int] = None,
    threads: Optional[int] = None,
) -> Tuple[str, str, Tables]: ...
def plan(
    scenario: Scenario,
    grid: Sequence[Tuple[str, Sequence[Any]]],
    zip: Sequence[Tuple[str, Sequence[Any]]],
    grid_text: Sequence[str],
    zip_text: Sequence[str],
    repeat: Optional[int] = None,
    seed: Optional[int] = None,
) -> Plan: ...
def run_resolved(
    resolved: str, id: str, name: str, runs_dir: str, csv: bool = False, max_memory: Optional[int] = None
) -> bool: ...
def reproduce(
    name: str, out: str, jobs: int, quick: bool = False, seeds: Optional[int] = None, force: bool = False
) -> str: ...
def bundled() -> List[str]: ...
def reproductions() -> List[str]: ...
