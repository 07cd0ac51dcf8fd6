"""The exceptions cnsim raises."""

from __future__ import annotations

from typing import Any, Optional, Sequence


class ScenarioError(ValueError):
    """An invalid scenario, located.

    Attributes:
        file: the scenario file (``<bundled:NAME>`` for a bundled scenario, ``<string>``
            for TOML text, ``overrides`` for a malformed override, ``grid``/``zip`` for a
            swept value).
        path: the key path, e.g. ``traffic[0].rate`` (empty for whole-file problems).
        value: the value at that key as written (``None`` where there is none).
        expected: what was expected there, when the message says.
        message: what is wrong and what was expected.
    """

    def __init__(
        self,
        text: str,
        file: str,
        path: str,
        value: Any = None,
        expected: Optional[str] = None,
        message: Optional[str] = None,
    ) -> None:
        super().__init__(text)
        self.file = file
        self.path = path
        self.value = value
        self.expected = expected
        self.message = text if message is None else message

    def __reduce__(self) -> Any:
        # Picklable with its fields, so it crosses from a Dask worker intact.
        return (type(self), (str(self), self.file, self.path, self.value, self.expected, self.message))


class RunError(RuntimeError):
    """A run that could not finish or whose results could not be written: resources
    exceeded, an output directory that may not be replaced, a full disk."""


class SweepError(RuntimeError):
    """Runs of a sweep that failed, after their retries.

    The runs that finished are kept in the sweep directory: running the same sweep again
    runs only the failed ones.

    Attributes:
        failures: one dict per failed run: ``run`` (its id), ``point``, ``seed``,
            ``values`` (the swept values) and ``error`` (what went wrong).
        directory: the sweep directory.
        table: the results table of the runs that did finish (a DataFrame), if any.
    """

    def __init__(self, failures: Sequence[dict], directory: str, table: Any = None) -> None:
        shown = "; ".join(f"run {f['run']} (point {f['point']}, seed {f['seed']}): {f['error']}" for f in failures[:3])
        more = f" and {len(failures) - 3} more" if len(failures) > 3 else ""
        super().__init__(
            f"{directory}: {len(failures)} run(s) failed: {shown}{more}; the other runs are kept, "
            "run the same sweep again to retry the failed ones"
        )
        self.failures = list(failures)
        self.directory = directory
        self.table = table

    def __reduce__(self) -> Any:
        return (type(self), (self.failures, self.directory, self.table))


def _exit_on_signal(signum: int, frame: Any) -> None:
    """SIGTERM or SIGHUP while cnsim works (installed only where the signal kept its
    default action): stop the work as Ctrl-C does, then end with 128 + the signal."""
    raise SystemExit(128 + signum)
