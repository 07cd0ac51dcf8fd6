"""Scenarios: loading, checking, overriding."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any, List, Mapping, Optional, Sequence, Union

from . import _native

Source = Union[str, "os.PathLike[str]", "Scenario"]


class Scenario:
    """A checked scenario: a file, a bundled scenario or TOML text, with overrides
    applied and every default resolved. Immutable: `with_overrides` makes a new one."""

    def __init__(self, native: _native.Scenario) -> None:
        self._native = native

    @property
    def name(self) -> str:
        return self._native.name

    @property
    def seed(self) -> int:
        return self._native.seed

    @property
    def duration_s(self) -> float:
        """Simulated duration, seconds."""
        return self._native.duration_s

    @property
    def file(self) -> str:
        """How errors name the source: the path, ``<bundled:NAME>`` or ``<string>``."""
        return self._native.file

    @property
    def overrides(self) -> List[str]:
        """The overrides applied, as ``key=value``."""
        return self._native.overrides

    @property
    def run_id(self) -> str:
        """The identity of the run this scenario makes (its directory name in a sweep)."""
        return self._native.run_id

    @property
    def toml(self) -> str:
        """The fully resolved scenario as TOML, as a run directory's ``scenario.toml``."""
        return self._native.resolved_toml()

    def get(self, key: str) -> Any:
        """The resolved value at a key path, e.g. ``s.get("protocols.qcn.cp.qeq")``."""
        return self._native.get(key)

    def with_overrides(self, overrides: Optional[Mapping[str, Any]] = None, **more: Any) -> Scenario:
        """This scenario with more keys set (later ones win); values as in `load`."""
        items = list((overrides or {}).items()) + list(more.items())
        return Scenario(self._native.with_overrides(items))

    def __reduce__(self) -> Any:
        # Picklable (for multiprocessing, or a task of one's own on Dask): rebuilt from
        # the document as written, overrides applied.
        return (_from_state, self._native.state())

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Scenario) and self.run_id == other.run_id

    def __hash__(self) -> int:
        return hash(self.run_id)

    def __repr__(self) -> str:
        extra = f" with {', '.join(self.overrides)}" if self.overrides else ""
        return f"<cnsim.Scenario {self.name!r} from {self.file}{extra}>"


def _from_state(text: str, file: str, overrides: List[str]) -> Scenario:
    return Scenario(_native.from_state(text, file, overrides))


def _is_text(source: str) -> bool:
    """TOML text rather than a file or bundled scenario name."""
    if "\n" in source:
        return True
    if "=" in source:
        try:
            return not Path(source).exists()
        except OSError:  # too long for a path
            return True
    return False


def load(
    source: Source,
    overrides: Optional[Mapping[str, Any]] = None,
    *,
    set: Sequence[str] = (),
) -> Scenario:
    """Reads and checks a scenario.

    Args:
        source: a scenario file's path, the name of a bundled scenario
            (``"dumbbell-qcn-64"``), or TOML text. A `Scenario` is returned as it is
            (with the overrides applied).
        overrides: key paths and values to set, e.g. ``{"duration": "50ms",
            "traffic[0].rate": "5Gbps", "topology.dumbbell.senders": 8}``. Values are
            str, int, float, bool, list or dict; quantities are strings with units.
        set: overrides as ``cnsim --set`` takes them, ``"key=value"`` text.

    Raises:
        ScenarioError: the scenario is invalid; it says where (file, key path), the value
            there and what was expected.
    """
    items = list((overrides or {}).items())
    if isinstance(source, Scenario):
        if set:
            raise TypeError("set=...: give text overrides when loading from a file or text")
        return source.with_overrides(dict(items)) if items else source
    if isinstance(source, os.PathLike):
        return Scenario(_native.load(os.fspath(source), False, items, list(set)))
    if not isinstance(source, str):
        raise TypeError(f"source: {type(source).__name__}; expected a path, a bundled scenario name or TOML text")
    return Scenario(_native.load(source, _is_text(source), items, list(set)))


def bundled() -> List[str]:
    """The names of the bundled scenarios."""
    return list(_native.bundled())
