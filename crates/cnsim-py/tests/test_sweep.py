"""Sweeps from Python: the local pool and Dask give the command line's table; Dask
resumes without recomputing, survives a killed worker, and reports failed runs."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path
from typing import Dict, Iterator

import pandas as pd
import pytest

import cnsim
from conftest import require

distributed = require("distributed")

GRID = {"protocols.qcn.cp.qeq": ["25 frames", "50 frames"]}


class Stop(Exception):
    pass


def complete_runs(directory: Path) -> Dict[str, int]:
    """Run id -> modification time (ns) of its summary.json, for every complete run."""
    runs = directory / "runs"
    return {
        d.name: (d / "summary.json").stat().st_mtime_ns
        for d in runs.iterdir()
        if not d.name.startswith(".") and (d / ".cnsim-run").is_file()
    }


@pytest.fixture(scope="module")
def client() -> Iterator[distributed.Client]:
    cluster = distributed.LocalCluster(
        n_workers=2, threads_per_worker=1, processes=True, dashboard_address=None, silence_logs=40
    )
    with distributed.Client(cluster) as c:
        yield c
    cluster.close()


def settle(client: distributed.Client, directory: Path) -> None:
    """Waits until the runs an interrupted sweep left under way have ended: cancelling
    releases their futures, not the worker threads running them, which go on to write
    their run directories (staged in `.cnsim-tmp-*` until complete)."""
    quiet_since = None
    for _ in range(1200):
        busy = any(client.processing().values()) or any(
            d.startswith(".cnsim-tmp-") for d in os.listdir(directory / "runs")
        )
        if busy:
            quiet_since = None
        elif quiet_since is None:
            quiet_since = time.monotonic()
        elif time.monotonic() - quiet_since > 0.5:
            return
        time.sleep(0.05)
    raise AssertionError("the cluster stayed busy")


def test_local_pool_gives_the_command_lines_table(cli: Path, tmp_path: Path, small_qcn: dict) -> None:
    s = cnsim.load("dumbbell-qcn-64", small_qcn)
    ours = cnsim.sweep(s, grid=GRID, repeat=2, out=tmp_path / "py")
    args = [str(cli), "sweep", "dumbbell-qcn-64", "--out", str(tmp_path / "cli"), "--repeat", "2", "--quiet"]
    args += ["--grid", "protocols.qcn.cp.qeq=[25,50] frames"]
    for k, v in small_qcn.items():
        args += ["--set", f"{k}={v}"]
    subprocess.run(args, check=True)
    theirs = pd.read_parquet(tmp_path / "cli" / "results.parquet")
    pd.testing.assert_frame_equal(ours, theirs, check_exact=True)
    assert len(ours) == 4 and ours["run"].is_unique
    # Runs are named by their swept value and seed, and keep their id beside.
    assert sorted(ours["run"]) == [f"qeq={q}_frames,seed={k}" for q in (25, 50) for k in (1, 2)]
    assert sorted(complete_runs(tmp_path / "py")) == sorted(ours["run"])
    assert all(len(i) == 16 for i in ours["run_id"])
    # Run again: a finished sweep runs nothing.
    before = complete_runs(tmp_path / "py")
    again = cnsim.sweep(s, grid=GRID, repeat=2, out=tmp_path / "py")
    pd.testing.assert_frame_equal(again, ours)
    assert complete_runs(tmp_path / "py") == before


def test_the_local_pool_reports_runs_as_they_finish_and_stops_when_told(tmp_path: Path, small_qcn: dict) -> None:
    s = cnsim.load("dumbbell-qcn-64", small_qcn)
    out = tmp_path / "sweep"
    seen = []

    def stop_after_two(info: dict) -> None:
        seen.append(info)
        if len(seen) == 2:
            raise Stop()

    with pytest.raises(Stop):
        cnsim.sweep(s, grid=GRID, repeat=3, out=out, jobs=1, on_run=stop_after_two)
    assert len(seen) == 2 and all(i["ran"] for i in seen)
    assert {i["run"] for i in seen} <= set(complete_runs(out))
    assert seen[0]["summary"]["scenario"] == "dumbbell-qcn-64"
    kept = complete_runs(out)
    assert 2 <= len(kept) < 6 and not (out / "results.parquet").exists()
    rest = []
    table = cnsim.sweep(s, grid=GRID, repeat=3, out=out, jobs=2, on_run=rest.append)
    assert sorted(i["run"] for i in rest) == sorted(set(table["run"]) - set(kept))
    assert {i["values"]["protocols.qcn.cp.qeq"] for i in seen + rest} == {"25 frames", "50 frames"}


def test_dask_gives_the_local_pools_table(client, tmp_path: Path, small_qcn: dict) -> None:
    s = cnsim.load("dumbbell-qcn-64", small_qcn)
    local = cnsim.sweep(s, grid=GRID, repeat=3, out=tmp_path / "local", summarize=True)
    seen = []
    remote = cnsim.sweep(
        s, grid=GRID, repeat=3, out=tmp_path / "dask", client=client, summarize=True, on_run=seen.append
    )
    pd.testing.assert_frame_equal(remote, local, check_exact=True)
    assert sorted(i["run"] for i in seen) == sorted(local["run"]) and all(i["ran"] for i in seen)
    assert {i["values"]["protocols.qcn.cp.qeq"] for i in seen} == {"25 frames", "50 frames"}
    assert all(i["summary"]["cnsim_version"] == cnsim.__version__ for i in seen)
    summary = cnsim.open_sweep(tmp_path / "dask", summary=True)
    pd.testing.assert_frame_equal(summary, cnsim.open_sweep(tmp_path / "local", summary=True), check_exact=True)
    assert len(summary) == 2 and (summary["runs"] == 3).all()
    assert list(summary["protocols.qcn.cp.qeq [frames]"]) == [25.0, 50.0]
    polars = cnsim.open_sweep(tmp_path / "dask", backend="polars")
    assert polars.shape == remote.shape


def test_an_interrupted_dask_sweep_resumes_without_recomputing(client, tmp_path: Path) -> None:
    # Runs long enough (~0.1 s) that the interruption finds most of them not yet started.
    s = cnsim.load("dumbbell-qcn-64", {"duration": "20ms", "topology.dumbbell.senders": 8})
    out = tmp_path / "sweep"
    finished = []

    def stop_after_two(info: dict) -> None:
        finished.append(info["run"])
        if len(finished) == 2:
            raise Stop()

    with pytest.raises(Stop):
        cnsim.sweep(s, grid=GRID, repeat=6, out=out, client=client, on_run=stop_after_two)
    assert not (out / "results.parquet").exists()
    settle(client, out)
    kept = complete_runs(out)
    assert 2 <= len(kept) < 12
    ran_now = []
    # Resumed through the scheduler's address, as another process would.
    table = cnsim.sweep(s, grid=GRID, repeat=6, out=out, client=client.scheduler.address, on_run=ran_now.append)
    assert len(table) == 12 and table["run"].is_unique
    # Only the missing runs ran; the kept ones were not touched.
    assert sorted(i["run"] for i in ran_now) == sorted(set(table["run"]) - set(kept))
    after = complete_runs(out)
    assert {k: after[k] for k in kept} == kept
    local = cnsim.sweep(s, grid=GRID, repeat=6, out=tmp_path / "local")
    pd.testing.assert_frame_equal(table, local, check_exact=True)


def test_a_worker_killed_mid_sweep_loses_and_duplicates_no_row(tmp_path: Path) -> None:
    # Runs long enough (~0.3 s each) that the kill lands while the worker simulates.
    s = cnsim.load("dumbbell-qcn-64", {"duration": "40ms", "topology.dumbbell.senders": 16})
    out = tmp_path / "sweep"
    with (
        distributed.LocalCluster(
            n_workers=2, threads_per_worker=1, processes=True, dashboard_address=None, silence_logs=50
        ) as cluster,
        distributed.Client(cluster) as c,
    ):
        killed: list = []
        pids = c.run(os.getpid)  # worker address -> process id, before any dies

        def kill_one(info: dict) -> None:
            # Twice: first a worker holding finished runs' results (which the client
            # has not collected yet: lost with it), else a busy one; then a busy one.
            if len(killed) == 2:
                return
            holding = [w for ws in c.who_has().values() for w in ws] if not killed else []
            busy = [w for w, tasks in c.processing().items() if tasks]
            victims = [pids[w] for w in holding or busy if w in pids and pids[w] not in killed]
            if victims:
                os.kill(victims[0], signal.SIGKILL)
                killed.append(victims[0])

        table = cnsim.sweep(s, grid=GRID, repeat=4, out=out, client=c, on_run=kill_one)
    assert killed, "no worker to kill"
    assert len(table) == 8 and table["run"].is_unique
    assert table["frames.delivered"].notna().all()
    # The killed worker's half-written run left nothing behind.
    assert [d for d in os.listdir(out / "runs") if d.startswith(".")] == []
    local = cnsim.sweep(s, grid=GRID, repeat=4, out=tmp_path / "local")
    pd.testing.assert_frame_equal(table, local, check_exact=True)


def test_failed_runs_are_retried_reported_and_rerun(client, tmp_path: Path) -> None:
    s = cnsim.load("dumbbell-qcn-64", {"duration": "5ms"})
    out = tmp_path / "sweep"
    grid = {"topology.dumbbell.senders": [2, 64]}
    # 64 KiB is enough for 2 senders, not for 64: those runs fail on their workers.
    with pytest.raises(cnsim.SweepError) as info:
        cnsim.sweep(s, grid=grid, repeat=2, out=out, client=client, retries=1, max_memory=64 << 10)
    e = info.value
    assert len(e.failures) == 2
    assert {f["values"]["topology.dumbbell.senders"] for f in e.failures} == {"64"}
    assert all("memory limit" in f["error"] for f in e.failures), e.failures
    assert "run the same sweep again" in str(e)
    # The runs that finished are kept, and shown.
    assert sorted(e.table["topology.dumbbell.senders"]) == [2, 2]
    assert not (out / "results.parquet").exists()
    done = complete_runs(out)
    assert len(done) == 2
    ran_now = []
    table = cnsim.sweep(s, grid=grid, repeat=2, out=out, client=client, on_run=ran_now.append)
    assert len(table) == 4 and len(ran_now) == 2
    assert {k: v for k, v in complete_runs(out).items() if k in done} == done


def test_python_m_cnsim_and_cnsim_sweep_dask(cli: Path, client, tmp_path: Path, small_qcn: dict) -> None:
    address = client.scheduler.address
    sets = [a for k, v in small_qcn.items() for a in ("--set", f"{k}={v}")]
    grid = ["--grid", "protocols.qcn.cp.qeq=[25,50] frames", "--repeat", "2"]
    env = dict(os.environ, CNSIM_PYTHON=sys.executable)
    subprocess.run(
        [
            sys.executable,
            "-m",
            "cnsim",
            "sweep",
            "dumbbell-qcn-64",
            *grid,
            *sets,
            "--dask",
            address,
            "--out",
            str(tmp_path / "py"),
            "--quiet",
        ],
        check=True,
        env=env,
    )
    subprocess.run(
        [
            str(cli),
            "sweep",
            "dumbbell-qcn-64",
            *grid,
            *sets,
            "--dask",
            address,
            "--out",
            str(tmp_path / "cli"),
            "--quiet",
        ],
        check=True,
        env=env,
    )
    subprocess.run(
        [str(cli), "sweep", "dumbbell-qcn-64", *grid, *sets, "--out", str(tmp_path / "here"), "--quiet"], check=True
    )
    here = pd.read_parquet(tmp_path / "here" / "results.parquet")
    for d in ["py", "cli"]:
        pd.testing.assert_frame_equal(pd.read_parquet(tmp_path / d / "results.parquet"), here, check_exact=True)
    bad = subprocess.run(
        [str(cli), "sweep", "dumbbell-qcn-64", "--dask", address, "--set", "duration=5"],
        env=env,
        capture_output=True,
        text=True,
    )
    assert bad.returncode == 2 and "duration" in bad.stderr and "has no unit" in bad.stderr
    missing = subprocess.run(
        [str(cli), "sweep", "dumbbell-qcn-64", "--dask", address],
        env=dict(env, CNSIM_PYTHON="/nonexistent/python"),
        capture_output=True,
        text=True,
    )
    assert missing.returncode == 2 and "cannot import the cnsim Python package" in missing.stderr


def test_ctrl_c_stops_a_local_sweep_keeping_its_finished_runs(tmp_path: Path) -> None:
    out = tmp_path / "sweep"
    # Runs of about two seconds each (six, one at a time): the signal, sent once the
    # first is written, reaches the sweep seconds before it could finish.
    overrides = {"duration": "10s"}
    code = (
        "import cnsim\n"
        f"s = cnsim.load('dumbbell-qcn-64', {overrides!r})\n"
        f"cnsim.sweep(s, grid={GRID!r}, repeat=3, out={str(out)!r}, jobs=1)\n"
    )
    # Under nohup SIGHUP is ignored, and the child would inherit (and rightly honour)
    # that: it starts with the default action, as a terminal's job does.
    p = subprocess.Popen(
        [sys.executable, "-c", code],
        stderr=subprocess.PIPE,
        text=True,
        preexec_fn=lambda: signal.signal(signal.SIGHUP, signal.SIG_DFL),
    )
    deadline = time.monotonic() + 120
    while not ((out / "runs").is_dir() and complete_runs(out)):
        assert time.monotonic() < deadline and p.poll() is None, "no run finished"
        time.sleep(0.02)
    p.send_signal(signal.SIGINT)
    _, err = p.communicate(timeout=60)
    assert p.returncode != 0 and "KeyboardInterrupt" in err, err
    kept = complete_runs(out)
    assert 1 <= len(kept) < 6
    assert not (out / "results.parquet").exists()
    assert [d for d in os.listdir(out / "runs") if d.startswith(".")] == []
    s = cnsim.load("dumbbell-qcn-64", overrides)
    table = cnsim.sweep(s, grid=GRID, repeat=3, out=out)
    assert len(table) == 6
    after = complete_runs(out)
    assert {k: after[k] for k in kept} == kept


def test_a_run_on_a_worker_is_bounded_by_the_workers_memory() -> None:
    from cnsim._sweep import _worker_memory_limit

    assert _worker_memory_limit() is None  # not on a worker: the machine's default
    with (
        distributed.LocalCluster(
            n_workers=1, threads_per_worker=1, processes=True, dashboard_address=None, memory_limit="3GiB"
        ) as cluster,
        distributed.Client(cluster) as c,
    ):
        assert c.submit(_worker_memory_limit, pure=False).result() == 3 << 30


class FakeFuture:
    """A finished Dask future as the sweep sees it: a key, a status, a result."""

    def __init__(self, key: str, status: str, result: object = None) -> None:
        self.key, self.status, self._result = key, status, result

    def result(self) -> object:
        return self._result

    def exception(self) -> object:
        return self._result


class LosingClient:
    """Runs each task at once, here, but reports chosen tasks of the first round as lost:
    one after its run was written (its worker died holding the result), one before."""

    def __init__(self, lose_after: int, lose_before: int) -> None:
        self.lose_after, self.lose_before = lose_after, lose_before
        self.submitted: list = []
        self.first_token = ""

    def submit(self, fn, *args, key: str, **_: object) -> FakeFuture:
        token = key.rsplit("-", 1)[1]  # one per round of submissions
        self.first_token = self.first_token or token
        first_round, n = token == self.first_token, len(self.submitted)
        self.submitted.append(key)
        if first_round and n == self.lose_before:
            return FakeFuture(key, "lost")
        result = fn(*args)
        return FakeFuture(key, "lost" if first_round and n == self.lose_after else "finished", result)

    def cancel(self, *_: object, **__: object) -> None:
        pass


def test_a_task_whose_result_was_lost_is_judged_by_the_disk(monkeypatch, tmp_path: Path, small_qcn: dict) -> None:
    monkeypatch.setattr(distributed, "as_completed", lambda futures: iter(list(futures)))
    s = cnsim.load("dumbbell-qcn-64", small_qcn)
    client = LosingClient(lose_after=0, lose_before=1)
    seen = []
    table = cnsim.sweep(s, grid=GRID, out=tmp_path / "sweep", client=client, on_run=seen.append)
    assert len(table) == 2 and table["run"].is_unique
    # The run written before its result was lost is not run again; the other is.
    assert len(client.submitted) == 3
    assert sorted(i["run"] for i in seen) == sorted(table["run"])


@pytest.mark.parametrize("sig", [signal.SIGTERM, signal.SIGHUP])
def test_sigterm_stops_a_local_sweep_cleanly(tmp_path: Path, sig: int) -> None:
    # The default action of SIGTERM/SIGHUP ended the interpreter at once, leaving the
    # run being written as a temporary directory. While cnsim works they stop it as
    # Ctrl-C does, and the interpreter exits with 128 + the signal.
    out = tmp_path / "sweep"
    # Runs of about two seconds each (six, one at a time): the signal, sent once the
    # first is written, reaches the sweep seconds before it could finish.
    overrides = {"duration": "10s"}
    code = (
        "import cnsim\n"
        f"s = cnsim.load('dumbbell-qcn-64', {overrides!r})\n"
        f"cnsim.sweep(s, grid={GRID!r}, repeat=3, out={str(out)!r}, jobs=1)\n"
    )
    # Under nohup SIGHUP is ignored, and the child would inherit (and rightly honour)
    # that: it starts with the default action, as a terminal's job does.
    p = subprocess.Popen(
        [sys.executable, "-c", code],
        stderr=subprocess.PIPE,
        text=True,
        preexec_fn=lambda: signal.signal(signal.SIGHUP, signal.SIG_DFL),
    )
    deadline = time.monotonic() + 120
    while not ((out / "runs").is_dir() and complete_runs(out)):
        assert time.monotonic() < deadline and p.poll() is None, "no run finished"
        time.sleep(0.02)
    p.send_signal(sig)
    _, err = p.communicate(timeout=60)
    assert p.returncode == 128 + sig, (p.returncode, err)
    assert [d for d in os.listdir(out / "runs") if d.startswith(".")] == []
    assert 1 <= len(complete_runs(out)) < 6


def test_a_scheduler_lost_mid_sweep_loses_and_duplicates_no_row(tmp_path: Path) -> None:
    # The whole cluster (scheduler and workers) goes away while runs are under way: the
    # sweep fails, keeping what was written; against a new scheduler the same sweep runs
    # only what is missing, and the table is the local pool's.
    s = cnsim.load("dumbbell-qcn-64", {"duration": "20ms", "topology.dumbbell.senders": 8})
    out = tmp_path / "sweep"
    cluster = distributed.LocalCluster(
        n_workers=2, threads_per_worker=1, processes=True, dashboard_address=None, silence_logs=50
    )
    c = distributed.Client(cluster)

    def lose_the_scheduler(info: dict) -> None:
        cluster.close()

    try:
        with pytest.raises(Exception):  # noqa: B017 - whatever the client raises when its scheduler is gone
            cnsim.sweep(s, grid=GRID, repeat=4, out=out, client=c, retries=0, on_run=lose_the_scheduler)
    finally:
        c.close()
        cluster.close()
    kept = complete_runs(out)
    assert 1 <= len(kept) < 8
    assert [d for d in os.listdir(out / "runs") if d.startswith(".")] == []
    with (
        distributed.LocalCluster(
            n_workers=2, threads_per_worker=1, processes=True, dashboard_address=None, silence_logs=50
        ) as again,
        distributed.Client(again) as c2,
    ):
        ran_now: list = []
        table = cnsim.sweep(s, grid=GRID, repeat=4, out=out, client=c2, on_run=ran_now.append)
    assert len(table) == 8 and table["run"].is_unique
    assert sorted(i["run"] for i in ran_now) == sorted(set(table["run"]) - set(kept))
    assert {k: v for k, v in complete_runs(out).items() if k in kept} == kept
    local = cnsim.sweep(s, grid=GRID, repeat=4, out=tmp_path / "local")
    pd.testing.assert_frame_equal(table, local, check_exact=True)


def _limit_file_size(limit: int) -> None:
    """On a worker: files may grow to `limit` bytes, as on a disk that is full (a write
    past it fails with EFBIG instead of ending the process)."""
    import resource

    signal.signal(signal.SIGXFSZ, signal.SIG_IGN)
    resource.setrlimit(resource.RLIMIT_FSIZE, (limit, resource.RLIM_INFINITY))


def test_workers_whose_disk_is_full_lose_and_duplicate_no_row(tmp_path: Path) -> None:
    # Workers that cannot write more than a few bytes per file: their runs fail, leave
    # nothing half-written, and are retried elsewhere or reported; once the disk has
    # room the same sweep runs what is missing. The table is the local pool's.
    s = cnsim.load("dumbbell-qcn-64", {"duration": "5ms", "topology.dumbbell.senders": 4})
    out = tmp_path / "sweep"

    def no_leftovers() -> bool:
        return [d for d in os.listdir(out / "runs") if d.startswith(".")] == []

    with (
        distributed.LocalCluster(
            n_workers=2, threads_per_worker=1, processes=True, dashboard_address=None, silence_logs=50
        ) as cluster,
        distributed.Client(cluster) as c,
    ):
        workers = sorted(c.scheduler_info()["workers"])
        # Both full: every run fails, after its retries, and none is half there.
        c.run(_limit_file_size, 64)
        with pytest.raises(cnsim.SweepError) as info:
            cnsim.sweep(s, grid=GRID, repeat=3, out=out, client=c, retries=1)
        assert len(info.value.failures) == 6
        assert all("File too large" in f["error"] for f in info.value.failures), info.value.failures
        assert complete_runs(out) == {} and no_leftovers()
        # One full: its runs fail and are retried, on the other worker or in vain.
        c.run(_limit_file_size, resource_unlimited(), workers=[workers[1]])
        try:
            cnsim.sweep(s, grid=GRID, repeat=3, out=out, client=c, retries=3)
        except cnsim.SweepError as e:
            assert all("File too large" in f["error"] for f in e.failures), e.failures
        assert no_leftovers()
        # Room again: what is missing runs, nothing twice.
        done = complete_runs(out)
        c.run(_limit_file_size, resource_unlimited())
        table = cnsim.sweep(s, grid=GRID, repeat=3, out=out, client=c)
    assert len(table) == 6 and table["run"].is_unique
    assert {k: v for k, v in complete_runs(out).items() if k in done} == done
    assert no_leftovers()
    local = cnsim.sweep(s, grid=GRID, repeat=3, out=tmp_path / "local")
    pd.testing.assert_frame_equal(table, local, check_exact=True)


def resource_unlimited() -> int:
    import resource

    return resource.RLIM_INFINITY
