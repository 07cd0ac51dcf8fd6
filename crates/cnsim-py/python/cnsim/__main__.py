"""``python -m cnsim sweep ...``: ``cnsim sweep`` with ``--dask ADDRESS``.

The same flags as ``cnsim sweep`` (which hands ``--dask`` sweeps to this entry point),
plus ``--dask`` (a scheduler address, e.g. ``tcp://head-node:8786``) and ``--retries``.
Without ``--dask`` the sweep runs here on the native pool, as ``cnsim sweep`` does.
"""

from __future__ import annotations

import argparse
import sys
import time
from typing import List, Optional

from ._errors import RunError, ScenarioError, SweepError

#: Exit codes as ``cnsim`` uses them: 2 for bad input, 1 for a failed run, 130 for Ctrl-C.
EXIT_INPUT = 2


def _memory(text: str) -> int:
    units = {"": 1, "B": 1, "KB": 10**3, "MB": 10**6, "GB": 10**9, "KiB": 2**10, "MiB": 2**20, "GiB": 2**30}
    number = text.rstrip("KMGiB")
    unit = text[len(number) :]
    if unit not in units or not number.strip().isdigit():
        raise argparse.ArgumentTypeError(f"{text!r} is not a size; expected e.g. 4GiB or 512MB")
    return int(number) * units[unit]


def parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog="python -m cnsim", description=__doc__)
    sub = p.add_subparsers(dest="command", required=True)
    s = sub.add_parser("sweep", help="run a scenario over a grid of key values and seeds")
    s.add_argument("scenario", help="scenario file, or the name of a bundled scenario")
    s.add_argument("--grid", action="append", default=[], metavar="KEY=[VALUES]")
    s.add_argument("--zip", action="append", default=[], metavar="KEY=[VALUES]")
    s.add_argument("--repeat", type=int, metavar="K")
    s.add_argument("--seed", type=int)
    s.add_argument("--set", action="append", default=[], metavar="KEY=VALUE")
    s.add_argument("--out", help="sweep directory [default: sweeps/<scenario name>]")
    s.add_argument("--jobs", type=int, help="runs at once here (without --dask)")
    s.add_argument("--summarize", action="store_true")
    s.add_argument("--allow-mixed-versions", action="store_true")
    s.add_argument("--csv", action="store_true")
    s.add_argument("--quiet", "-q", action="store_true")
    s.add_argument("--max-memory", type=_memory, metavar="SIZE", help="most memory each run may need")
    s.add_argument("--dask", metavar="ADDRESS", help="a Dask scheduler, e.g. tcp://host:8786")
    s.add_argument("--retries", type=int, default=2, help="retries of a failed run on Dask [default: 2]")
    return p


def main(argv: Optional[List[str]] = None) -> int:
    args = parser().parse_args(argv)
    from . import load
    from ._sweep import default_directory, plan, sweep

    try:
        scenario = load(args.scenario, set=args.set)
        p = plan(scenario, repeat=args.repeat, seed=args.seed, grid_text=args.grid, zip_text=args.zip)
        out = args.out if args.out is not None else str(default_directory(p))
        client = None
        if args.dask:
            try:
                from distributed import Client
            except ImportError:
                print("error: --dask needs dask.distributed: pip install 'cnsim[dask]'", file=sys.stderr)
                return EXIT_INPUT
            client = Client(args.dask)
        finished = [0]

        def show(info: dict) -> None:
            finished[0] += 1
            if not args.quiet and sys.stderr.isatty():
                print(f"\r{finished[0]} runs finished", end="", file=sys.stderr, flush=True)

        t0 = time.monotonic()
        try:
            table = sweep(
                scenario,
                repeat=args.repeat,
                seed=args.seed,
                grid_text=args.grid,
                zip_text=args.zip,
                out=out,
                client=client,
                jobs=args.jobs,
                summarize=args.summarize,
                csv=args.csv,
                allow_mixed_versions=args.allow_mixed_versions,
                retries=args.retries,
                max_memory=args.max_memory,
                on_run=show if client is not None else None,
            )
        finally:
            if client is not None:
                client.close()
        if not args.quiet:
            where = f"on {args.dask}" if args.dask else "here"
            print(
                f"\r{p.name}: {len(table)} runs ({finished[0]} run now) in {time.monotonic() - t0:.1f} s {where} "
                f"-> {out}/results.parquet",
                file=sys.stderr,
            )
        return 0
    except ScenarioError as e:
        print(f"error: {e}", file=sys.stderr)
        return EXIT_INPUT
    except (RunError, SweepError) as e:
        print(f"error: {e}", file=sys.stderr)
        return 1
    except KeyboardInterrupt:
        print("error: interrupted; the finished runs are kept, run the same command again to resume", file=sys.stderr)
        return 130


if __name__ == "__main__":
    sys.exit(main())
