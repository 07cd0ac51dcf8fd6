"""One run from Python: its DataFrames are the command line's Parquet files, value for
value; the interpreter is free while it runs; Ctrl-C stops it."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path

import numpy as np
import pandas as pd
import pyarrow.parquet as pq
import pytest

import cnsim
from conftest import ROOT, require

# A QCN run (queues, throughput, rates, CNMs) and an Adaptive MECN run (its average
# queue and link utilisation too), both short.
CASES = {
    "dumbbell-qcn-64": ["duration=20ms", "topology.dumbbell.senders=8"],
    "sridharan2004-decrease": ["duration=3s"],
}


def cli_run(cli: Path, name: str, sets: list, out: Path, *extra: str) -> None:
    args = [str(cli), "run", name, "--out", str(out), "--quiet", "--set", "metrics.plots=false", *extra]
    for s in sets:
        args += ["--set", s]
    subprocess.run(args, check=True)


@pytest.mark.parametrize("name", sorted(CASES))
def test_dataframes_equal_the_parquet_files_of_cnsim_run(cli: Path, tmp_path: Path, name: str) -> None:
    sets = CASES[name]
    cli_run(cli, name, sets, tmp_path / "cli")
    r = cnsim.run(cnsim.load(name, set=[*sets, "metrics.plots=false"]))
    files = sorted(p.stem for p in (tmp_path / "cli").glob("*.parquet"))
    assert files == sorted(cnsim._result.TABLES[t] for t in r.table_names)
    assert len(files) >= 4, files
    for attr in r.table_names:
        stem = cnsim._result.TABLES[attr]
        on_disk = pq.read_table(tmp_path / "cli" / f"{stem}.parquet")
        ours = r.arrow(attr)
        assert ours.column_names == on_disk.column_names
        assert ours.schema.metadata[b"unit"] == on_disk.schema.metadata[b"unit"]
        for column in on_disk.column_names:
            # Byte for byte: the same IEEE-754 doubles, not merely close ones.
            a = ours.column(column).to_numpy()
            b = on_disk.column(column).to_numpy()
            assert a.dtype == b.dtype == np.float64
            assert a.tobytes() == b.tobytes(), f"{stem}.{column}"
        pd.testing.assert_frame_equal(
            getattr(r, attr), pd.read_parquet(tmp_path / "cli" / f"{stem}.parquet"), check_exact=True
        )
    assert r.summary == json.loads((tmp_path / "cli" / "summary.json").read_text())


def test_polars_backend_gives_the_same_values() -> None:
    pl = require("polars")
    s = cnsim.load("dumbbell-qcn-64", {"duration": "10ms", "topology.dumbbell.senders": 8})
    r = cnsim.run(s, backend="polars")
    q = r.queues
    assert isinstance(q, pl.DataFrame)
    assert q.columns == r.with_backend("pandas").queues.columns.tolist()
    assert np.array_equal(q["r1->r2"].to_numpy(), r.with_backend("pandas").queues["r1->r2"].to_numpy())


def test_seed_out_and_open_run_match_the_command_line(cli: Path, tmp_path: Path) -> None:
    sets = ["duration=10ms", "topology.dumbbell.senders=8"]
    cli_run(cli, "dumbbell-qcn-64", sets, tmp_path / "cli", "--seed", "5")
    s = cnsim.load("dumbbell-qcn-64", set=[*sets, "metrics.plots=false"])
    r = cnsim.run(s, seed=5, out=tmp_path / "py")
    assert r.summary["seed"] == 5
    for f in ["summary.json", "scenario.toml", "queue_length.parquet", "rp_rate.parquet", "throughput.parquet"]:
        assert (tmp_path / "py" / f).read_bytes() == (tmp_path / "cli" / f).read_bytes(), f
    opened = cnsim.open_run(tmp_path / "cli")
    assert opened.summary == r.summary
    assert opened.scenario is not None and opened.scenario.seed == 5
    pd.testing.assert_frame_equal(opened.rates, r.rates, check_exact=True)
    assert opened.table_names == r.table_names
    # An existing result is replaced only with force; anything else never.
    with pytest.raises(cnsim.RunError, match=r"force|exists"):
        cnsim.run(s, out=tmp_path / "py")
    cnsim.run(s, out=tmp_path / "py", force=True)
    (tmp_path / "mine").mkdir()
    (tmp_path / "mine" / "notes.txt").write_text("keep me")
    with pytest.raises(cnsim.RunError):
        cnsim.run(s, out=tmp_path / "mine", force=True)
    assert (tmp_path / "mine" / "notes.txt").read_text() == "keep me"


def test_a_table_the_run_did_not_record_is_empty() -> None:
    r = cnsim.run(cnsim.load("dumbbell-cbr-64", {"duration": "5ms"}))
    assert "rates" not in r.table_names
    assert list(r.rates.columns) == ["time_s"] and len(r.rates) == 0
    assert len(r.queues) == 5


def test_the_interpreter_runs_other_threads_while_simulating() -> None:
    s = cnsim.load("dumbbell-cbr-64", {"duration": "2s"})
    ticks = 0
    done = threading.Event()

    def count() -> None:
        nonlocal ticks
        while not done.is_set():
            ticks += 1
            time.sleep(0.001)

    t = threading.Thread(target=count)
    t.start()
    start = time.monotonic()
    cnsim.run(s)
    wall = time.monotonic() - start
    done.set()
    t.join()
    # Holding the lock, the counter would advance only at the interpreter's switch
    # points around the call; released, it ticks about once a millisecond throughout.
    assert wall > 0.1, "the run is too short to tell"
    assert ticks > 0.2 * wall / 0.001, (ticks, wall)


def test_ctrl_c_stops_a_run_promptly_and_writes_nothing(tmp_path: Path) -> None:
    out = tmp_path / "run"
    code = (
        "import cnsim, sys\n"
        "s = cnsim.load('dumbbell-cbr-64', {'duration': '60s'})\n"
        "print('ready', flush=True)\n"
        f"cnsim.run(s, out={str(out)!r})\n"
    )
    p = subprocess.Popen([sys.executable, "-c", code], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    assert p.stdout is not None and p.stdout.readline().strip() == "ready"
    time.sleep(0.5)
    sent = time.monotonic()
    p.send_signal(signal.SIGINT)
    _, err = p.communicate(timeout=30)
    assert time.monotonic() - sent < 5
    assert p.returncode != 0
    assert "KeyboardInterrupt" in err
    assert not out.exists()
    assert [e for e in os.listdir(tmp_path) if e.startswith(".cnsim")] == []


def test_a_run_read_only_for_its_summary_loads_no_dataframe_library() -> None:
    # What keeps the Python path as cheap as the command line's: NumPy, Arrow and pandas
    # load when a table is first asked for, not before.
    code = (
        "import sys, cnsim\n"
        "r = cnsim.run(cnsim.load('dumbbell-cbr-64', {'duration': '2ms'}))\n"
        "assert r.summary['frames']['delivered'] > 0\n"
        "print(sorted(m for m in ('numpy', 'pyarrow', 'pandas', 'polars') if m in sys.modules))\n"
        "r.queues\n"
        "print(sorted(m for m in ('numpy', 'pyarrow', 'pandas', 'polars') if m in sys.modules))\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.splitlines() == ["[]", "['numpy', 'pandas', 'pyarrow']"]


def test_open_run_names_the_file_it_cannot_read(tmp_path: Path) -> None:
    out = tmp_path / "run"
    cnsim.run(cnsim.load("dumbbell-cbr-64", {"duration": "2ms"}), out=out)
    (out / "timing.json").write_text("{not json")
    with pytest.raises(cnsim.RunError, match=r"timing\.json: cannot be read"):
        cnsim.open_run(out)
    (out / "timing.json").write_text("{}")
    (out / "queue_length.parquet").write_bytes(b"PAR1 damaged")
    with pytest.raises(cnsim.RunError, match=r"queue_length\.parquet: cannot be read"):
        cnsim.open_run(out)
    (out / "queue_length.parquet").unlink()
    (out / "queue_length.parquet").mkdir()
    with pytest.raises(cnsim.RunError, match=r"queue_length\.parquet: is not a regular file"):
        cnsim.open_run(out)


def test_flows_are_a_table_of_the_summary() -> None:
    r = cnsim.run(cnsim.load("dumbbell-tcp-64", {"duration": "5ms", "topology.dumbbell.senders": 4}))
    f = r.flows
    assert list(f["name"]) == [x["name"] for x in r.summary["flows"]] and len(f) == 4
    assert list(f["throughput_bps"]) == [x["throughput_bps"] for x in r.summary["flows"]]
    assert list(f["tcp.acks_sent"]) == [x["tcp"]["acks_sent"] for x in r.summary["flows"]]
    q = cnsim.run(cnsim.load("rdma-incast", {"duration": "2ms", "topology.dumbbell.senders": 2})).flows
    assert list(q["rdma.acks_sent"]) == [1067, 1067]
    assert all(0 < t < 0.002 for t in q["rdma.fct_s"])


def test_a_workload_run_gives_its_completion_times(tmp_path: Path) -> None:
    s = cnsim.load("fattree-websearch", {"duration": "4ms", "traffic[0].stop": "2ms"})
    r = cnsim.run(s, out=tmp_path / "w")
    f = r.fct
    assert len(f) == r.summary["fct"]["flows"] > 10
    assert list(f.columns) == ["flow", "src", "dst", "bytes", "start_s", "fct_s", "ideal_fct_s", "slowdown"]
    with pytest.raises(cnsim.RunError, match="no run directory"):
        _ = cnsim.run(s).fct


def test_the_package_offers_no_stray_names() -> None:
    assert not {"Any", "Optional", "Union", "os", "Path"} & set(dir(cnsim))


def test_the_readme_example_shows_the_effect_of_qeq(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The README's Python example, run as written (less the Dask cluster) in a fresh
    directory: congested, so that QCN sends feedback and the queue follows the set point."""
    monkeypatch.chdir(tmp_path)
    readme = (ROOT / "README.md").read_text()
    code = readme.split("```python\n", 1)[1].split("```", 1)[0]
    code = code.split("from dask.distributed", 1)[0]
    scope: dict = {}
    exec(compile(code, "README.md", "exec"), scope)
    r, table = scope["r"], scope["table"]
    assert r.summary["frames"]["by_kind"]["cnm"]["created"] > 100, r.summary["frames"]["by_kind"]
    mean = table.groupby("protocols.qcn.cp.qeq")["queues[r1->r2].mean_frames"].mean()
    assert mean["50 frames"] > 1.5 * mean["25 frames"] > 0, mean.to_dict()


def test_a_run_on_two_threads_gives_the_results_of_one() -> None:
    s = cnsim.load("fattree-k8-poisson", {"duration": "2ms"})
    one = cnsim.run(s, threads=1)
    two = cnsim.run(s, threads=2)
    assert one.summary["frame_hops"] > 100_000
    assert one.summary == two.summary
    with pytest.raises(ValueError, match="threads"):
        cnsim.run(s, threads=0)
