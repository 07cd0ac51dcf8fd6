"""Shared fixtures: the repository, the `cnsim` command-line binary, small scenarios."""

from __future__ import annotations

import os
import shutil
from pathlib import Path
from typing import Iterator

import pytest

ROOT = Path(__file__).resolve().parents[3]


def _find_cli() -> Path | None:
    if os.environ.get("CNSIM_CLI"):
        return Path(os.environ["CNSIM_CLI"])
    for profile in ("test-opt", "release", "debug"):
        p = ROOT / "target" / profile / "cnsim"
        if p.is_file():
            return p
    found = shutil.which("cnsim")
    return Path(found) if found else None


@pytest.fixture(scope="session")
def cli() -> Path:
    """The cnsim binary (CNSIM_CLI, or the workspace's target/): the tests compare the
    package's results with the command line's."""
    path = _find_cli()
    if path is None:
        if os.environ.get("CNSIM_REQUIRE_PYTHON_TESTS"):
            pytest.fail("no cnsim binary: build it (cargo build --release) or set CNSIM_CLI")
        pytest.skip("no cnsim binary (cargo build --release, or set CNSIM_CLI)")
    return path


@pytest.fixture(scope="session")
def small_qcn() -> dict:
    """Overrides that make the QCN dumbbell a sweep-sized run (~50 ms of wall time)."""
    return {"duration": "5ms", "topology.dumbbell.senders": 8}


@pytest.fixture()
def workdir(tmp_path: Path) -> Iterator[Path]:
    """A scratch directory that is also the working directory (default outputs land here)."""
    old = os.getcwd()
    os.chdir(tmp_path)
    try:
        yield tmp_path
    finally:
        os.chdir(old)


def require(module: str):
    """Imports an optional module the tests need: skips without it, but fails where
    CNSIM_REQUIRE_PYTHON_TESTS says the tests must run (CI)."""
    if os.environ.get("CNSIM_REQUIRE_PYTHON_TESTS"):
        import importlib

        return importlib.import_module(module)
    return pytest.importorskip(module)
