"""Sweeps: a grid of runs, here on a local pool or as Dask tasks on a cluster.

Either way a sweep writes the directory ``cnsim sweep`` writes: ``sweep.json``, one run
directory per run under ``runs/``, named by its swept values and seed
(``runs/qeq=25_frames,seed=1``), then ``results.parquet``/``.csv`` and ``report.html``.
A run is identified by a hash of its resolved scenario, its id, which ``sweep.json``
records beside the directory's name. A run whose directory is complete is
never run again, so an interrupted sweep resumes where it stopped, on whichever engine.

On Dask each run is one task. The worker writes the run's directory itself (staged and
renamed into place when complete, as ``cnsim run`` does), so the workers need the sweep
directory on a shared file system (the usual case on a cluster: a home or scratch
file system every node mounts). A task retried after its worker died, or run twice,
leaves one complete directory; the results table has one row per planned run, read back
from the directories once every run is done.
"""

from __future__ import annotations

import contextlib
import json
import os
import uuid
import warnings
from pathlib import Path
from typing import Any, Callable, ContextManager, Dict, List, Mapping, Optional, Sequence, Union

from . import _native
from ._errors import SweepError
from ._result import DataFrame, check_backend, open_sweep, to_frame
from ._scenario import Source, load

#: What `sweep` calls as each run it runs finishes: a dict with ``run`` (its directory
#: under ``runs/``, as in the results table), ``run_id`` (its id), ``point``,
#: ``seed``, ``values`` (swept key -> value as typed), ``ran`` (False when another task
#: had completed the same run first) and ``summary`` (the run's summary.json). Runs found
#: complete when the sweep starts are not reported. If it raises, the sweep stops,
#: keeping the finished runs, and the exception propagates.
OnRun = Callable[[Dict[str, Any]], None]


def _axes(values: Optional[Mapping[str, Sequence[Any]]], name: str) -> List[tuple]:
    out = []
    for key, vs in (values or {}).items():
        if isinstance(vs, (str, bytes)) or not isinstance(vs, Sequence):
            raise TypeError(f"{name}[{key!r}]: {vs!r}; expected a list of values")
        out.append((key, list(vs)))
    return out


def plan(
    scenario: Source,
    grid: Optional[Mapping[str, Sequence[Any]]] = None,
    *,
    zip: Optional[Mapping[str, Sequence[Any]]] = None,
    repeat: Optional[int] = None,
    seed: Optional[int] = None,
    grid_text: Sequence[str] = (),
    zip_text: Sequence[str] = (),
) -> _native.Plan:
    """Resolves and checks every run of a sweep (see `sweep`)."""
    s = load(scenario)
    return _native.plan(
        s._native, _axes(grid, "grid"), _axes(zip, "zip"), list(grid_text), list(zip_text), repeat, seed
    )


def default_directory(p: _native.Plan) -> Path:
    """Where ``cnsim sweep`` puts a sweep by default."""
    return Path("sweeps" if p.axes else "runs") / p.name


def sweep(
    scenario: Source,
    grid: Optional[Mapping[str, Sequence[Any]]] = None,
    *,
    zip: Optional[Mapping[str, Sequence[Any]]] = None,
    repeat: Optional[int] = None,
    seed: Optional[int] = None,
    out: Union[str, os.PathLike[str], None] = None,
    client: Any = None,
    jobs: Optional[int] = None,
    summarize: bool = False,
    csv: bool = False,
    allow_mixed_versions: bool = False,
    retries: int = 2,
    max_memory: Optional[int] = None,
    on_run: Optional[OnRun] = None,
    backend: str = "pandas",
    grid_text: Sequence[str] = (),
    zip_text: Sequence[str] = (),
) -> DataFrame:
    """Runs a scenario over a grid of key values and seeds; returns the results table.

    Args:
        scenario: a `Scenario`, a file, a bundled scenario's name or TOML text. Its
            ``[sweep]`` table, if any, gives the grid the arguments add to.
        grid: crossed axes, key path -> values, e.g. ``{"protocols.qcn.cp.qeq":
            ["25 frames", "50 frames"]}``.
        zip: axes varied together (equal lengths), crossed with the `grid` ones.
        repeat: seeds per point (``seed``, ``seed + 1``, ...); `seed`: the first seed.
        out: the sweep directory (default ``sweeps/<name>``, as ``cnsim sweep``). A
            directory of the same sweep is resumed: complete runs are not run again.
        client: ``None`` runs here, `jobs` runs at once (default: one per core) on
            native threads that share nothing, as ``cnsim sweep`` does; a
            ``dask.distributed.Client`` (of a ``LocalCluster``, a scheduler address or
            a ``dask_jobqueue.SLURMCluster``), or a scheduler's address as a string,
            runs each run as a Dask task, retried `retries` times on failure.
        summarize: also write ``results_summary.parquet`` (mean, std, 95 % CI per point),
            which ``open_sweep(out, summary=True)`` reads.
        csv: also write each run's time series as CSV.
        allow_mixed_versions: use runs made by another cnsim version instead of refusing.
        max_memory: most memory each run may need, bytes (default: half the machine's,
            shared among the local jobs).
        on_run: called with each run's summary as it finishes, here or on Dask (see `OnRun`).
        backend: ``"pandas"`` or ``"polars"``.
        grid_text, zip_text: axes as ``cnsim sweep --grid`` takes them, e.g.
            ``"protocols.qcn.cp.qeq=[25,50] frames"``.

    Returns:
        The results table (``results.parquet``): one row per run, its swept keys, its
        seed and every figure of its ``summary.json``.

    Raises:
        ScenarioError: a run's scenario is invalid (nothing has run).
        SweepError: runs failed on Dask after their retries (the others are kept, and
            its `table` holds their rows).
        KeyboardInterrupt: Ctrl-C; the runs finished so far are kept.
    """
    check_backend(backend)
    p = plan(scenario, grid, zip=zip, repeat=repeat, seed=seed, grid_text=grid_text, zip_text=zip_text)
    directory = Path(out) if out is not None else default_directory(p)
    p = p.settled_in(str(directory))
    if client is None:
        jobs = jobs if jobs is not None else (os.cpu_count() or 1)
        report = None
        if on_run is not None:
            runs = _runs(p)

            def report(run_id: str) -> None:
                on_run(_info(directory, run_id, runs[run_id], True))

        p.execute(str(directory), jobs, summarize, csv, allow_mixed_versions, max_memory, report)
    else:
        with _connected(client) as c:
            _on_dask(p, directory, c, summarize, csv, allow_mixed_versions, retries, max_memory, on_run, backend)
    return open_sweep(directory, backend)


def _connected(client: Any) -> ContextManager[Any]:
    """The client itself, or a client of the scheduler at an address (closed after)."""
    if isinstance(client, str):
        from distributed import Client

        return Client(client)
    return contextlib.nullcontext(client)


def _complete_table(p: _native.Plan, directory: Path, backend: str) -> DataFrame:
    """The results table of the runs complete in `directory`."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    return to_frame(pq.read_table(pa.BufferReader(p.complete_table(str(directory)))), backend)


def _runs(p: _native.Plan) -> Dict[str, tuple]:
    """Run id -> (point, seed, swept values, resolved scenario, directory name), first
    occurrence."""
    runs: Dict[str, tuple] = {}
    for run_id, name, point, seed, values, resolved in p.runs():
        runs.setdefault(run_id, (point, seed, dict(zip(p.axes, values)), resolved, name))
    return runs


def _about(run_id: str, run: tuple) -> Dict[str, Any]:
    """How `on_run` and `SweepError` name a run."""
    point, seed, values, _, name = run
    return {"run": name, "run_id": run_id, "point": point, "seed": seed, "values": values}


def _info(directory: Path, run_id: str, run: tuple, ran: bool) -> Dict[str, Any]:
    summary = json.loads((directory / "runs" / run[4] / "summary.json").read_text())
    return {**_about(run_id, run), "ran": ran, "summary": summary}


def is_complete(run_dir: Path) -> bool:
    """Whether a run directory is complete (cnsim renames it into place only then)."""
    return (run_dir / ".cnsim-run").is_file()


def _submit(
    client: Any,
    run_ids: Sequence[str],
    runs: Dict[str, tuple],
    runs_dir: str,
    csv: bool,
    max_memory: Optional[int],
    retries: int,
) -> tuple:
    """Submits a task per run; returns the futures and the run of each future's key."""
    # Keys unique to this submission: a resubmitted run must not meet a task of the
    # same key that the cluster is still forgetting (cancelled, failed). Two tasks of
    # one run are harmless: the second finds the run complete, or loses the rename.
    token = uuid.uuid4().hex[:12]
    run_of = {}
    futures = []
    for run_id in run_ids:
        future = client.submit(
            run_task,
            runs[run_id][3],
            run_id,
            runs[run_id][4],
            runs_dir,
            csv,
            max_memory,
            key=f"cnsim-run-{run_id}-{token}",
            retries=retries,
            pure=False,
        )
        run_of[future.key] = run_id
        futures.append(future)
    return futures, run_of


def run_task(resolved: str, run_id: str, name: str, runs_dir: str, csv: bool, max_memory: Optional[int]) -> bool:
    """One run of a sweep on a worker: writes ``runs_dir/<name>``; False when it was
    already complete there. Without `max_memory`, the run is bounded by the worker's
    own memory limit (the node's memory shared among its workers), where it has one."""
    if max_memory is None:
        max_memory = _worker_memory_limit()
    return _native.run_resolved(resolved, run_id, name, runs_dir, csv, max_memory)


def _worker_memory_limit() -> Optional[int]:
    try:
        from distributed import get_worker

        limit = get_worker().memory_manager.memory_limit
    except (ImportError, ValueError, AttributeError):  # not on a worker, or an older one
        return None
    return int(limit) if limit else None


def _on_dask(
    p: _native.Plan,
    directory: Path,
    client: Any,
    summarize: bool,
    csv: bool,
    allow_mixed_versions: bool,
    retries: int,
    max_memory: Optional[int],
    on_run: Optional[OnRun],
    backend: str,
) -> None:
    try:
        import distributed  # noqa: F401  (checked before the directory is touched)
    except ImportError as e:  # pragma: no cover - depends on the environment
        raise ImportError("a Dask sweep needs dask.distributed: pip install 'cnsim[dask]'") from e
    directory = directory.resolve()
    prepared = p.prepare(str(directory), allow_mixed_versions)
    try:
        _run_on_dask(p, directory, client, prepared, summarize, csv, retries, max_memory, on_run, backend)
    finally:
        prepared.release()


def _run_on_dask(
    p: _native.Plan,
    directory: Path,
    client: Any,
    prepared: _native.PreparedSweep,
    summarize: bool,
    csv: bool,
    retries: int,
    max_memory: Optional[int],
    on_run: Optional[OnRun],
    backend: str,
) -> None:
    from distributed import as_completed

    for note in prepared.redone:
        warnings.warn(note, stacklevel=4)
    todo = prepared.todo
    runs = _runs(p)
    runs_dir = str(directory / "runs")
    failures: List[Dict[str, Any]] = []
    failed = []
    pending = list(todo)
    # A task whose result the cluster lost (the worker that held it died after the run
    # was written) is judged by the disk: its run is complete, or it is submitted again.
    for _ in range(retries + 2):
        if not pending:
            break
        futures, run_of = _submit(client, pending, runs, runs_dir, csv, max_memory, retries)
        pending = []
        try:
            for future in as_completed(futures):
                run_id = run_of[future.key]
                if future.status == "finished":
                    ran = future.result()
                elif future.status == "error":
                    failures.append({**_about(run_id, runs[run_id]), "error": str(future.exception())})
                    failed.append(future)
                    continue
                elif is_complete(directory / "runs" / runs[run_id][4]):
                    ran = True
                else:
                    pending.append(run_id)
                    continue
                if on_run is not None:
                    on_run(_info(directory, run_id, runs[run_id], ran))
        except BaseException:
            # Interrupted (Ctrl-C, or on_run raised): runs under way may finish on their
            # workers and are kept; nothing else is started.
            client.cancel(futures)
            raise
    for run_id in pending:
        failures.append({**_about(run_id, runs[run_id]), "error": "the cluster lost the task again and again"})
    if failures:
        client.cancel(failed, force=True)
        raise SweepError(failures, str(directory), _complete_table(p, directory, backend))
    p.finish(str(directory), summarize)
