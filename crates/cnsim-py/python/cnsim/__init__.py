"""cnsim from Python: packet-level simulation of congestion notification in data-center
networks (QCN and its variants, ECM, E2CM, FECN, PAUSE/PFC, RED/ARED, MECN/AMECN, TCP),
with results as pandas or polars DataFrames and sweeps on a local pool or a Dask cluster.

    >>> import cnsim
    >>> s = cnsim.load("dumbbell-qcn-64", {"duration": "20ms"})
    >>> r = cnsim.run(s)
    >>> r.summary["frames"]["delivered"], r.queues.columns[:2].tolist()
    >>> table = cnsim.sweep(s, grid={"protocols.qcn.cp.qeq": ["25 frames", "50 frames"]}, repeat=3)

The simulator itself is Rust (the `cnsim` crate); this package runs it in-process, the
interpreter's lock released while it simulates.
"""

from __future__ import annotations

import os as _os
from pathlib import Path as _Path
from typing import Any as _Any
from typing import Optional as _Optional
from typing import Union as _Union

from . import _native
from ._errors import RunError, ScenarioError, SweepError
from ._result import Result, check_backend, open_run, open_sweep, to_frame
from ._scenario import Scenario, Source, bundled, load
from ._sweep import plan, sweep

__version__: str = _native.VERSION

__all__ = [
    "Reproduction",
    "Result",
    "RunError",
    "Scenario",
    "ScenarioError",
    "SweepError",
    "bundled",
    "load",
    "open_run",
    "open_sweep",
    "plan",
    "reproduce",
    "reproductions",
    "run",
    "sweep",
]


def run(
    scenario: Source,
    seed: _Optional[int] = None,
    *,
    out: _Union[str, _os.PathLike[str], None] = None,
    force: bool = False,
    backend: str = "pandas",
    max_memory: _Optional[int] = None,
    threads: _Optional[int] = None,
) -> Result:
    """Runs a scenario in this process and returns its results.

    Args:
        scenario: a `Scenario`, or what `load` takes.
        seed: run with this seed instead of the scenario's.
        out: also write the run directory ``cnsim run --out`` writes (Parquet, plots);
            an existing directory is replaced only if cnsim wrote it and `force` is set.
        backend: the DataFrames' library, ``"pandas"`` or ``"polars"``.
        max_memory: most memory the run may need, bytes (default: half the machine's).
        threads: run on this many threads, one partition of the network each, as
            ``cnsim run --threads`` does: the results are the same for any number
            (default: the sequential engine).

    The interpreter's lock is released while simulating (other threads run); Ctrl-C
    stops the run within about 50 ms and raises ``KeyboardInterrupt``, writing nothing.
    """
    check_backend(backend)
    s = load(scenario)
    summary_json, timing_json, tables = _native.simulate(
        s._native, seed, None if out is None else _os.fspath(out), force, max_memory, threads
    )
    import json

    path = None if out is None else _Path(out)
    return Result(json.loads(summary_json), json.loads(timing_json), {}, s, path, backend, tables)


class Reproduction:
    """A reproduction's report directory: `report` (report.md), `results` (one row per
    run) and `comparison` (the paper's numbers beside ours) as DataFrames."""

    def __init__(self, name: str, report: _Path, backend: str = "pandas") -> None:
        self.name = name
        self.report = report
        self.directory = report.parent
        self.backend = check_backend(backend)

    def _table(self, stem: str) -> _Any:
        import pyarrow.parquet as pq

        return to_frame(pq.read_table(self.directory / f"{stem}.parquet"), self.backend)

    @property
    def results(self) -> _Any:
        return self._table("results")

    @property
    def comparison(self) -> _Any:
        return self._table("comparison")

    def __repr__(self) -> str:
        return f"<cnsim.Reproduction {self.name!r}: {self.report}>"


def reproduce(
    name: str,
    out: _Union[str, _os.PathLike[str], None] = None,
    *,
    jobs: _Optional[int] = None,
    quick: bool = False,
    seeds: _Optional[int] = None,
    force: bool = False,
    backend: str = "pandas",
) -> Reproduction:
    """Reproduces a published experiment, as ``cnsim reproduce NAME`` (see
    `reproductions`): runs every cell with every seed on `jobs` threads and writes the
    report into `out` (default ``reports/<name>``)."""
    directory = _Path(out) if out is not None else _Path("reports") / name
    jobs = jobs if jobs is not None else (_os.cpu_count() or 1)
    report = _native.reproduce(name, _os.fspath(directory), jobs, quick, seeds, force)
    return Reproduction(name, _Path(report), backend)


def reproductions() -> list:
    """The names of the reproductions `reproduce` knows."""
    return list(_native.reproductions())
