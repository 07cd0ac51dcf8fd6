"""QCN's set point Qeq trades queueing delay against throughput and fairness.

Sweeps Qeq on the QCN dumbbell (N senders share one 10 Gbit/s bottleneck; every
sender runs a QCN reaction point, the bottleneck a congestion point) over several
seeds, then plots, per Qeq:

- the bottleneck's mean and largest queue (95 % confidence intervals over seeds);
- the bottleneck's utilisation and the max-min fairness of the senders' throughput;
- the queue over time and the spread of the senders' throughput, first seed.

    python examples/qeq_tradeoff.py                 # 64 senders, 0.2 s, 5 seeds: a few minutes
    python examples/qeq_tradeoff.py --quick         # 8 senders, 30 ms, 2 seeds: seconds
    python examples/qeq_tradeoff.py --dask tcp://scheduler:8786   # the runs on a Dask cluster

Writes `qeq_tradeoff.png` and `qeq_tradeoff.csv` (one row per Qeq) into --out, and the
sweep itself into --out/sweep (run it again: nothing is recomputed).
"""

from __future__ import annotations

import argparse
import math
from pathlib import Path

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt
import pandas as pd

import cnsim

BOTTLENECK = "r1->r2"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--quick", action="store_true", help="8 senders, 30 ms, 2 seeds")
    parser.add_argument("--senders", type=int, default=64)
    parser.add_argument("--duration", default="200ms")
    parser.add_argument("--seeds", type=int, default=5)
    parser.add_argument("--load", type=float, default=1.5, help="offered load / bottleneck rate")
    parser.add_argument("--qeq", type=int, nargs="+", default=[10, 20, 40, 60, 100, 150], help="frames")
    parser.add_argument("--out", type=Path, default=Path("qeq-tradeoff"))
    parser.add_argument("--dask", metavar="ADDRESS", help="run on this Dask scheduler")
    args = parser.parse_args()
    if args.quick:
        args.senders, args.duration, args.seeds = 8, "30ms", 2

    link_bps = 10e9
    per_sender = round(args.load * link_bps / args.senders)
    scenario = cnsim.load(
        "dumbbell-qcn-64",
        {
            "duration": args.duration,
            "topology.dumbbell.senders": args.senders,
            "traffic[0].rate": f"{per_sender}bps",
        },
    )
    client = None
    if args.dask:
        from distributed import Client

        client = Client(args.dask)
    qeqs = [f"{q} frames" for q in args.qeq]
    table = cnsim.sweep(
        scenario, grid={"protocols.qcn.cp.qeq": qeqs}, repeat=args.seeds, out=args.out / "sweep", client=client
    )

    # One row per Qeq: mean and 95 % CI over seeds of each figure.
    runs = pd.DataFrame(
        {
            "run": table["run"],
            "seed": table["seed"],
            "qeq": table["protocols.qcn.cp.qeq"].str.split().str[0].astype(int),
            "queue_mean": table[f"queues[{BOTTLENECK}].mean_frames"],
            "queue_max": table[f"queues[{BOTTLENECK}].max_frames"],
            "utilisation": table[f"queues[{BOTTLENECK}].sent_bytes"] * 8 / scenario.duration_s / link_bps,
            "fairness": table["maxmin_fairness"],
        }
    )
    grouped = runs.groupby("qeq")[["queue_mean", "queue_max", "utilisation", "fairness"]]
    points = pd.concat([grouped.mean(), grouped.sem().mul(1.96).fillna(0.0).add_suffix("_ci95")], axis=1)
    points.to_csv(args.out / "qeq_tradeoff.csv")
    print(points.round(4).to_string())

    fig, axes = plt.subplots(2, 2, figsize=(11, 8), constrained_layout=True)
    ax = axes[0][0]
    for name, label in [("queue_mean", "mean"), ("queue_max", "largest")]:
        ax.errorbar(points.index, points[name], yerr=points[f"{name}_ci95"], marker="o", capsize=3, label=label)
    ax.plot(points.index, points.index, ls=":", color="grey", label="Qeq")
    ax.set(xlabel="Qeq (frames)", ylabel=f"queue at {BOTTLENECK} (frames)", title="Queue against the set point")
    ax.legend()

    ax = axes[0][1]
    for name, label in [("utilisation", "bottleneck utilisation"), ("fairness", "max-min fairness (Jain)")]:
        ax.errorbar(points.index, points[name], yerr=points[f"{name}_ci95"], marker="o", capsize=3, label=label)
    ax.set(xlabel="Qeq (frames)", ylim=(0, 1.05), title="What the queue buys")
    ax.legend(loc="lower right")

    # Traces of the first seed of each Qeq, read back from the sweep's run directories.
    first = runs[runs["seed"] == runs["seed"].min()].sort_values("qeq")
    colours = plt.get_cmap("viridis")
    for i, row in enumerate(first.itertuples()):
        run = cnsim.open_run(args.out / "sweep" / "runs" / row.run)
        colour = colours(i / max(1, len(first) - 1))
        axes[1][0].plot(run.queues["time_s"] * 1e3, run.queues[BOTTLENECK], color=colour, label=f"Qeq {row.qeq}")
        flows = run.throughput.drop(columns="time_s") / 1e9
        spread = flows.max(axis=1) - flows.min(axis=1)
        axes[1][1].plot(run.throughput["time_s"] * 1e3, spread, color=colour, label=f"Qeq {row.qeq}")
    axes[1][0].set(xlabel="time (ms)", ylabel="frames waiting", title=f"Queue at {BOTTLENECK}, first seed")
    axes[1][1].set(
        xlabel="time (ms)", ylabel="fastest − slowest sender (Gbit/s)", title="Spread of the senders' throughput"
    )
    for ax in axes[1]:
        ax.legend(fontsize="small", ncol=2)
    fig.suptitle(
        f"QCN dumbbell: {args.senders} senders offering {args.load:g}× a 10 Gbit/s bottleneck, {args.duration}, "
        f"{args.seeds} seed{'s' if args.seeds > 1 else ''} per point"
    )
    path = args.out / "qeq_tradeoff.png"
    fig.savefig(path, dpi=110)
    print(f"{len(table)} runs -> {path}")
    assert all(math.isfinite(v) for v in points["queue_mean"])


if __name__ == "__main__":
    main()
