"""The package as a whole: reproductions, the type stubs, the names it offers."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

import cnsim
from conftest import require


def test_reproduce_writes_the_report_and_its_tables(cli: Path, tmp_path: Path) -> None:
    r = cnsim.reproduce("sridharan2004", tmp_path / "py", quick=True)
    assert r.report == tmp_path / "py" / "report.md" and r.report.is_file()
    assert (tmp_path / "py" / "report.html").is_file()
    # The same tables as the command line's reproduction.
    subprocess.run([str(cli), "reproduce", "amecn", "--quick", "--out", str(tmp_path / "cli"), "--quiet"], check=True)
    import pandas as pd

    for table in ["results", "comparison"]:
        pd.testing.assert_frame_equal(
            getattr(r, table), pd.read_parquet(tmp_path / "cli" / f"{table}.parquet"), check_exact=True
        )
    assert len(r.comparison) > 0
    # An existing report is replaced only with force.
    with pytest.raises(cnsim.RunError):
        cnsim.reproduce("sridharan2004", tmp_path / "py", quick=True)
    with pytest.raises(ValueError, match="expected one of mliki2016"):
        cnsim.reproduce("nope", tmp_path / "x")


def test_the_stubs_match_the_native_module() -> None:
    require("mypy")
    done = subprocess.run(
        [sys.executable, "-m", "mypy.stubtest", "cnsim._native"], capture_output=True, text=True, timeout=300
    )
    assert done.returncode == 0, done.stdout + done.stderr


def test_names() -> None:
    assert "dumbbell-qcn-64" in cnsim.bundled()
    assert set(cnsim.reproductions()) >= {"mliki2016", "roeck2007", "devkota2010", "sridharan2004"}
    assert cnsim.__version__.count(".") == 2
    for name in cnsim.__all__:
        assert getattr(cnsim, name) is not None
