#!/usr/bin/env python3
"""Writes crates/cnsim-cli/link-order.txt: the functions a run of cnsim executes, in the
order the linker is to place them (see crates/cnsim-cli/build.rs).

The binary (the release, linked statically against the C library, see below) runs, under Valgrind's Cachegrind,
three sets of runs: the side-by-side cases with lean outputs (the dumbbells whose memory
is set beside htsim's), every benchmark case for a short simulated time (a test keeps
this list equal to `cnsim bench`'s), and a few runs that write every output (CSV,
Parquet, plots). The functions the first set executes come first: those more of its runs
execute ahead (start-up, the event loop), then those that ran more instructions. Those
only the second set executes follow, in the same order, then those only the third
executes. A lean dumbbell run so touches a prefix of the code that holds nothing the
fabrics alone need. Symbols are the linker's (mangled) names, read from the binary's
symbol table.

    cargo build --release && scripts/link-order.py
    scripts/link-order.py --check          (is the list that of this build?)

Made from the release linked statically (crates/cnsim-cli/build.rs; needs valgrind), the
list orders the C library's functions a run calls too. A release linked against the
shared C library (CNSIM_LINK=dynamic) has the same Rust functions under the same names
and skips the C names, which its shared C library holds. `--check`
therefore counts a missing C name (one not mangled as Rust's) as the C library's, and
fails on missing Rust names alone.

CNSIM names another binary built with the release profile. Names carry hashes of the
compiler's version, so the list is made again when the toolchain changes (and when
functions are added to the hot path); the release profile's fat LTO keeps them the same
across other changes to the code.

Writes only the list, and scratch files under target/link-order/. With --check it writes
nothing: it says how many listed functions the binary has, names those it lacks, and exits
with 1 when any is missing (the list is then to be made again: missing functions are laid
out among the rest, and more code becomes resident).
"""

import collections
import os
import subprocess
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
BINARY = os.environ.get("CNSIM", os.path.join(ROOT, "target", "release", "cnsim"))
SCRATCH = os.path.join(ROOT, "target", "link-order")
LIST = os.path.join(ROOT, "crates", "cnsim-cli", "link-order.txt")
LEAN = [f"metrics.{key}" for key in ("queues=none", "flows=false", "rates=false", "parquet=false", "plots=false")]


def sets(keys: list[str]) -> list[str]:
    return [arg for key in keys for arg in ("--set", key)]


def run(scenario: str, *keys: str, lean: bool = True) -> list[str]:
    out = os.path.join(SCRATCH, "out")
    path = os.path.join(ROOT, "scenarios", scenario + ".toml")
    return ["run", path, "--out", out, "--force", "--quiet", *sets(LEAN if lean else []), *sets(list(keys))]


def bench(duration: str, *scenarios: str, threads: str = "") -> list[str]:
    names = [arg for s in scenarios for arg in ("--scenario", s)]
    return [
        "bench",
        "--runs",
        "1",
        "--set",
        f"duration={duration}",
        *names,
        *(["--threads", threads] if threads else []),
    ]


SENDERS_4096 = (
    "topology.dumbbell.senders=4096",
    "traffic[0].rate=2685547bps",
    'traffic[0].start.uniform=["0us","4468us"]',
)
RUNS = {
    "lean": [
        run("dumbbell-cbr-64", "duration=20ms"),
        run("dumbbell-qcn-64", "duration=20ms"),
        run("dumbbell-tcp-64", "duration=20ms"),
        run("dumbbell-cbr-64", "duration=20ms", *SENDERS_4096),
    ],
    "bench": [
        bench(
            "20ms",
            "dumbbell-cbr-64",
            "dumbbell-qcn-64",
            "dumbbell-tcp-64",
            "dumbbell-tcp-red-64",
            "dumbbell-dctcp-64",
            "incast-32",
            "incast-dcqcn-8",
            "chain-10x3",
            "dumbbell-cbr-4096",
            "8021au-baseline",
            "8021au-baseline-ecm",
            "8021au-baseline-fecn",
            "8021au-baseline-fecn-b",
            "8021au-baseline-e2cm-pr",
            "8021au-baseline-qcn",
            "8021au-baseline-qcn-pr",
        ),
        bench("2ms", "fattree-k8-websearch", "fattree-k8-poisson"),
        bench("200us", "fattree-hpcc320", "fattree-hpcc320-hpcc"),
        bench("1ms", "fattree-k8-poisson", threads="2"),
    ],
    "outputs": [
        run("dumbbell-cbr-64", "duration=20ms", lean=False),
        run("dumbbell-tcp-64", "duration=20ms", lean=False),
        run("fattree-websearch", "duration=1ms", "traffic[0].stop=1ms", lean=False),
    ],
}


def symbols() -> dict[str, int]:
    """The binary's functions: name -> size."""
    nm = subprocess.run(["nm", "-S", BINARY], capture_output=True, text=True, check=True).stdout
    found = {}
    for line in nm.splitlines():
        parts = line.split()
        if len(parts) == 4 and parts[2] in "tTwW":
            found[parts[3]] = int(parts[1], 16)
    return found


def instructions(argv: list[str], tag: str) -> collections.Counter[str]:
    """Instructions executed per function in one run."""
    out = os.path.join(SCRATCH, tag + ".cg")
    cmd = ["valgrind", "--tool=cachegrind", "--cache-sim=no", "--demangle=no", f"--cachegrind-out-file={out}"]
    done = subprocess.run([*cmd, BINARY, *argv], stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    if done.returncode:
        sys.exit(f"failed: cnsim {' '.join(argv)}\n{done.stderr[-2000:]}")
    counts: collections.Counter[str] = collections.Counter()
    function = None
    with open(out) as f:
        for line in f:
            if line.startswith("fn="):
                function = line[3:].strip()
            elif function and line[:1].isdigit():
                fields = line.split()
                if len(fields) >= 2:
                    counts[function] += int(fields[1])
    return counts


def is_rust(name: str) -> bool:
    """Whether `name` is a Rust symbol (legacy `_ZN…` or v0 `_R…` mangling)."""
    return name.startswith(("_ZN", "_R"))


def check(known: dict[str, int]) -> None:
    """Exits with 1 when the list names functions the binary lacks."""
    with open(LIST) as f:
        listed = [line.strip() for line in f if line.strip()]
    absent = [name for name in listed if name not in known]
    missing = [name for name in absent if is_rust(name)]
    print(f"{len(listed) - len(absent)} of the {len(listed)} listed functions are in {BINARY}", file=sys.stderr)
    if len(absent) > len(missing):
        print(f"  the other {len(absent) - len(missing)} are the C library's (this build links it dynamically)", file=sys.stderr)
    if missing:
        for name in missing[:10]:
            print(f"  missing: {name}", file=sys.stderr)
        sys.exit(f"{len(missing)} missing: make the list again (scripts/link-order.py) and rebuild")


def main() -> None:
    if not os.path.isfile(BINARY):
        sys.exit(f"no {BINARY}: run `cargo build --release` first")
    if sys.argv[1:] == ["--check"]:
        check(symbols())
        return
    if sys.argv[1:]:
        sys.exit("usage: scripts/link-order.py [--check]")
    os.makedirs(SCRATCH, exist_ok=True)
    known = symbols()
    listed: list[str] = []
    seen: set[str] = set()
    for group, runs in RUNS.items():
        counts: collections.Counter[str] = collections.Counter()
        runs_in: collections.Counter[str] = collections.Counter()
        for i, argv in enumerate(runs):
            one = instructions(argv, f"{group}-{i}")
            counts.update(one)
            runs_in.update(one.keys())
        order = sorted(counts, key=lambda f: (-runs_in[f], -counts[f], f))
        new = [f for f in order if f in known and f not in seen]
        size = sum(known[f] for f in new)
        print(f"{group}: {len(new)} functions, {size / 1024:.0f} KiB", file=sys.stderr)
        listed += new
        seen.update(new)
    with open(LIST + ".tmp", "w") as f:
        f.write("\n".join(listed) + "\n")
    os.replace(LIST + ".tmp", LIST)
    print(f"wrote {LIST}: {len(listed)} functions", file=sys.stderr)


if __name__ == "__main__":
    main()
