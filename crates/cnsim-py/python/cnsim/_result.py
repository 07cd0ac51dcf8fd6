"""Results of runs as DataFrames: from a run in this process, or from a run directory."""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import TYPE_CHECKING, Any, Dict, List, Mapping, Optional, Sequence, Union

# numpy, pyarrow, pandas and polars are imported where first needed: `import cnsim` and a
# run that reads only its summary do not pay for them.
from . import _native

if TYPE_CHECKING:
    import numpy as np
    import pandas
    import polars
    import pyarrow as pa

    from ._scenario import Scenario

    DataFrame = Union[pandas.DataFrame, polars.DataFrame]
else:
    DataFrame = Any

#: The tables a run records: attribute of `Result` -> file stem in a run directory.
TABLES: Dict[str, str] = {
    "queues": "queue_length",
    "avg_queues": "queue_average",
    "max_ps": "max_p",
    "utilisation": "utilisation",
    "throughput": "throughput",
    "rates": "rp_rate",
    "cnms": "rp_cnms",
}

BACKENDS = ("pandas", "polars")


def check_backend(backend: str) -> str:
    if backend not in BACKENDS:
        raise ValueError(f"backend={backend!r}; expected one of {', '.join(map(repr, BACKENDS))}")
    return backend


def to_frame(table: pa.Table, backend: str) -> DataFrame:
    """An Arrow table as a DataFrame of `backend`, sharing its buffers where the library
    allows (polars always; pandas column by column)."""
    if backend == "polars":
        import polars as pl

        return pl.from_arrow(table)
    return table.to_pandas(split_blocks=True)


def arrow_table(names: Sequence[str], columns: Sequence[np.ndarray], unit: str) -> pa.Table:
    """Columns (NumPy arrays owning the simulator's buffers) as an Arrow table, without a
    copy, with the unit in its metadata as the Parquet files carry it."""
    import pyarrow as pa

    schema = pa.schema([pa.field(n, pa.float64(), nullable=False) for n in names], metadata={"unit": unit})
    return pa.Table.from_arrays([pa.array(c) for c in columns], schema=schema)


class Result:
    """The results of one run.

    `summary` is the run's ``summary.json`` as a dict; `timing` its ``timing.json`` (wall
    time, events/s: the one part that differs between identical runs). The time series
    are DataFrames (pandas, or polars with ``backend="polars"``), one column per series
    and ``time_s`` first, exactly as the run directory's Parquet files hold them:

    - `queues`: queue length (frames) per recorded port (``queue_length.parquet``);
    - `avg_queues`: the average queue a RED/ARED/MECN discipline keeps (``queue_average``);
    - `max_ps`: the same ports' maximum marking probability, which Adaptive RED and
      Adaptive MECN move (``max_p``);
    - `utilisation`: fraction of each recorded port's link rate used per interval;
    - `throughput`: delivered bit/s per recorded flow over each interval;
    - `rates`: every reaction point's rate, bit/s (``rp_rate``);
    - `cnms`: feedback messages each reaction point received per interval (``rp_cnms``);
    - `flows`: one row per flow of the summary (name, src, dst, its counters, throughput,
      max-min fair rate and share, delays; a TCP flow's counters as ``tcp.<name>``).

    A table the run did not record is empty (a ``time_s`` column and no rows).
    """

    def __init__(
        self,
        summary: Dict[str, Any],
        timing: Optional[Dict[str, Any]],
        tables: Mapping[str, pa.Table],
        scenario: Optional[Scenario] = None,
        path: Optional[Path] = None,
        backend: str = "pandas",
        native: Optional[_native.Tables] = None,
    ) -> None:
        self.summary = summary
        self.timing = timing
        self.scenario = scenario
        self.path = path
        self.backend = check_backend(backend)
        # Tables as Arrow, made on first access from those the simulator still holds
        # (`native`); shared with the results `with_backend` makes.
        self._tables: Dict[str, pa.Table] = tables if isinstance(tables, dict) else dict(tables)
        self._native = native

    def __repr__(self) -> str:
        where = f" at {self.path}" if self.path else ""
        return (
            f"<cnsim.Result {self.summary.get('scenario', '?')!r} seed {self.summary.get('seed')}{where}: "
            f"tables {', '.join(self.table_names) or 'none'}>"
        )

    @property
    def table_names(self) -> List[str]:
        """The attributes of the tables the run recorded (those with a Parquet file)."""
        return [attr for attr, stem in TABLES.items() if self._recorded(stem)]

    def _recorded(self, stem: str) -> bool:
        t = self._tables.get(stem)
        if t is not None:
            return t.num_columns > 1 and t.num_rows > 0
        if self._native is not None and stem in self._native.stems():
            columns, rows = self._native.shape(stem)
            return columns > 1 and rows > 0
        return False

    def arrow(self, name: str) -> pa.Table:
        """A table as Arrow, by attribute (``"queues"``) or file stem (``"queue_length"``)."""
        stem = TABLES.get(name, name)
        if stem not in TABLES.values():
            raise KeyError(f"{name!r}: no such table; expected one of {', '.join(TABLES)}")
        if not self._recorded(stem):
            import numpy as np

            return arrow_table(["time_s"], [np.empty(0)], "")
        if stem not in self._tables:
            assert self._native is not None
            names, unit, columns = self._native.take(stem)
            self._tables[stem] = arrow_table(names, columns, unit)
        return self._tables[stem]

    def frame(self, name: str) -> DataFrame:
        """A table as a DataFrame of this result's backend."""
        return to_frame(self.arrow(name), self.backend)

    def with_backend(self, backend: str) -> Result:
        """The same result, its tables as DataFrames of `backend` (no copy)."""
        return Result(self.summary, self.timing, self._tables, self.scenario, self.path, backend, self._native)

    @property
    def queues(self) -> DataFrame:
        return self.frame("queues")

    @property
    def avg_queues(self) -> DataFrame:
        return self.frame("avg_queues")

    @property
    def max_ps(self) -> DataFrame:
        return self.frame("max_ps")

    @property
    def utilisation(self) -> DataFrame:
        return self.frame("utilisation")

    @property
    def throughput(self) -> DataFrame:
        return self.frame("throughput")

    @property
    def rates(self) -> DataFrame:
        return self.frame("rates")

    @property
    def cnms(self) -> DataFrame:
        return self.frame("cnms")

    @property
    def fct(self) -> DataFrame:
        """Every workload flow's size, start, completion time, ideal time and slowdown
        (``fct.parquet`` of the run directory; ``kind = "flows"`` entries write it)."""
        from ._errors import RunError

        if self.path is None:
            raise RunError("this result has no run directory; run with out=... to keep fct.parquet")
        path = Path(self.path) / "fct.parquet"
        if not _regular_file(path):
            raise RunError(f'{path}: not written; expected a run with a kind = "flows" workload')
        import pyarrow.parquet as pq

        return to_frame(pq.read_table(path), self.backend)

    @property
    def flows(self) -> DataFrame:
        import pyarrow as pa

        rows: List[Dict[str, Any]] = []
        for f in self.summary.get("flows", []):
            row = {k: v for k, v in f.items() if not isinstance(v, dict)}
            for transport in ("tcp", "rdma"):
                for k, v in (f.get(transport) or {}).items():
                    row[f"{transport}.{k}"] = v
            rows.append(row)
        return to_frame(pa.Table.from_pylist(rows), self.backend)


def _regular_file(path: Path) -> bool:
    """Whether `path` is there; a RunError if it is there but not a regular file."""
    from ._errors import RunError

    if not os.path.lexists(path):
        return False
    if path.is_symlink() or not path.is_file():
        raise RunError(f"{path}: is not a regular file; expected the file cnsim wrote there")
    return True


def _read_json(path: Path) -> Any:
    from ._errors import RunError

    try:
        return json.loads(path.read_text())
    except (OSError, UnicodeDecodeError, ValueError) as e:
        raise RunError(f"{path}: cannot be read ({e}); expected the JSON file cnsim wrote") from e


def _read_parquet(path: Path) -> pa.Table:
    import pyarrow as pa
    import pyarrow.parquet as pq

    from ._errors import RunError

    try:
        return pq.read_table(path)
    except (OSError, pa.ArrowException) as e:
        raise RunError(f"{path}: cannot be read ({e}); expected the Parquet file cnsim wrote") from e


def open_run(directory: Union[str, Path], backend: str = "pandas") -> Result:
    """Opens a run directory written by ``cnsim run``, ``cnsim.run(out=...)`` or a sweep
    (``<sweep>/runs/<name>``): its summary, timing, scenario and tables. A file there that
    cannot be read (damaged, not a regular file) raises `RunError` naming it."""
    from ._errors import RunError
    from ._scenario import load

    check_backend(backend)
    d = Path(directory)
    summary_path = d / "summary.json"
    if not _regular_file(summary_path):
        raise RunError(f"{d}: not a cnsim run directory (it has no summary.json)")
    summary = _read_json(summary_path)
    timing_path = d / "timing.json"
    timing = _read_json(timing_path) if _regular_file(timing_path) else None
    scenario_path = d / "scenario.toml"
    scenario = load(scenario_path) if _regular_file(scenario_path) else None
    tables = {
        stem: _read_parquet(d / f"{stem}.parquet") for stem in TABLES.values() if _regular_file(d / f"{stem}.parquet")
    }
    return Result(summary, timing, tables, scenario, d, backend)


def open_sweep(directory: Union[str, Path], backend: str = "pandas", summary: bool = False) -> DataFrame:
    """The results table of a sweep directory (one row per run); with `summary`, its
    summary table (one row per point: mean, std and 95 % CI over the seeds), which a
    sweep writes with ``summarize=True``."""
    from ._errors import RunError

    check_backend(backend)
    stem = "results_summary" if summary else "results"
    path = Path(directory) / f"{stem}.parquet"
    if not _regular_file(path):
        hint = "a sweep run with summarize=True" if summary else "a finished cnsim sweep directory"
        raise RunError(f"{directory}: no {stem}.parquet; expected {hint}")
    return to_frame(_read_parquet(path), backend)
