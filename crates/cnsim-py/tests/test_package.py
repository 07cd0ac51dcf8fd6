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


# The C library's mathematical functions the native module defines itself (the `cnsim`
# crate's feature `c-math`), among those its figures' code calls.
MATH = {"cos", "sin", "tan", "acos", "atan2", "log", "log2", "log10", "pow", "hypotf", "sincos", "sincosf", "powf"}


def _dynamic_relocation_symbols(path: Path) -> set[str]:
    """The names of the symbols an ELF64 little-endian shared object's dynamic relocations
    (`.rela.dyn`, `.rela.plt`) refer to: those the loader looks up in the whole process."""
    import struct

    b = path.read_bytes()
    assert b[:4] == b"\x7fELF" and b[4] == 2 and b[5] == 1, "not an ELF64 little-endian file"
    (shoff,) = struct.unpack_from("<Q", b, 0x28)
    shentsize, shnum = struct.unpack_from("<HH", b, 0x3A)
    # (type, offset, size, link, entry size) of each section.
    sections = []
    for i in range(shnum):
        _, kind, _, _, offset, size, link, _, _, entsize = struct.unpack_from("<IIQQQQIIQQ", b, shoff + i * shentsize)
        sections.append((kind, offset, size, link, entsize))
    sht_rela, sht_dynsym = 4, 11
    names: set[str] = set()
    for kind, offset, size, link, entsize in sections:
        if kind != sht_rela:
            continue
        _, sym_off, _, str_link, sym_size = sections[link]
        assert sections[link][0] == sht_dynsym, "a dynamic relocation section links the dynamic symbols"
        str_off = sections[str_link][1]
        for r in range(offset, offset + size, entsize):
            _, info, _ = struct.unpack_from("<QQq", b, r)
            index = info >> 32
            if index:
                (name_off,) = struct.unpack_from("<I", b, sym_off + index * sym_size)
                start = str_off + name_off
                names.add(b[start : b.index(b"\0", start)].decode())
    return names


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="the definitions are made on Linux with glibc")
def test_the_native_modules_math_is_its_own() -> None:
    """Its calls of `cos`, `pow`, ... go to the functions it defines (linked
    `-Bsymbolic-functions`), not to the interpreter's libm, which the loader would find
    first: the figures are the command line's on every processor."""
    import cnsim._native as native

    looked_up = _dynamic_relocation_symbols(Path(native.__file__))
    assert looked_up, "no dynamic relocations read: the reader is wrong"
    assert not (looked_up & MATH), f"looked up at load: {sorted(looked_up & MATH)}"
