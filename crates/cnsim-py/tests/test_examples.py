"""The examples run, and show what they claim."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pandas as pd

from conftest import ROOT, require

require("matplotlib")


def qeq_tradeoff(out: Path) -> subprocess.CompletedProcess:
    """Runs the example quickly at three set points."""
    script = ROOT / "examples" / "qeq_tradeoff.py"
    return subprocess.run(
        [sys.executable, str(script), "--quick", "--qeq", "10", "40", "150", "--out", str(out)],
        env=dict(os.environ, MPLBACKEND="Agg"),
        capture_output=True,
        text=True,
        timeout=300,
    )


def test_qeq_tradeoff_sweeps_and_plots(tmp_path: Path) -> None:
    out = tmp_path / "out"
    done = qeq_tradeoff(out)
    assert done.returncode == 0, done.stderr
    assert "Warning" not in done.stderr, done.stderr
    png = out / "qeq_tradeoff.png"
    assert png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n" and png.stat().st_size > 30_000
    points = pd.read_csv(out / "qeq_tradeoff.csv", index_col="qeq")
    assert list(points.index) == [10, 40, 150]
    # The trade-off the example is about: a higher set point keeps a longer queue ...
    q = points["queue_mean"]
    assert q[150] > 2 * q[40] > 2 * q[10] > 0, q.to_dict()
    # ... and the bottleneck stays busy throughout.
    assert (points["utilisation"] > 0.9).all(), points["utilisation"].to_dict()
    # The sweep resumes: a second run recomputes nothing.
    runs = sorted(p.name for p in (out / "sweep" / "runs").iterdir())
    mtimes = [(out / "sweep" / "runs" / r / "summary.json").stat().st_mtime_ns for r in runs]
    again = qeq_tradeoff(out)
    assert again.returncode == 0, again.stderr
    assert [(out / "sweep" / "runs" / r / "summary.json").stat().st_mtime_ns for r in runs] == mtimes
