//! Sridharan, Durresi & Jain, "Adaptive Multi-level Explicit Congestion Notification"
//! (SPECTS 2004): MECN against Adaptive MECN on a load step up and down (Figs. 4–7), and
//! Adaptive MECN against Adaptive RED swept over target delays on a 100-flow dumbbell
//! (Figs. 8, 9) and a four-router parking lot (Figs. 10, 11), TCP Reno throughout.
//!
//! Every cell is one of the bundled `scenarios/sridharan2004/` files: the step cells
//! switch `protocols.mecn.adaptive` on for Adaptive MECN (and two steps of our own, to
//! eight flows, change the flow lists); the sweep cells set the target delay, and for
//! Adaptive RED swap the MECN table for `[protocols.red]` (adaptive, ECN marking, or
//! dropping: the other reading) and the sources' MECN for RFC 3168 ECN ([`as_ared`]).

use super::study::{
    Alternative, Axis, Cell, Column, Comparison, Figure, Level, Measured, MetricDoc, PaperNumber, Quantity,
    Rule, Study, TableColumn, Tables, Verdict,
};
use crate::engine::PS_PER_S;
use crate::metrics::summary::Summary;
use crate::metrics::TimeSeries;
use crate::report::plot::Step;
use crate::scenario::{bundled, parse, Scenario};
use crate::sim::Sim;
use crate::units::Duration;

/// The registry entry of this reproduction.
pub const REPRODUCTION: super::Reproduction = super::Reproduction { name: "sridharan2004", declare: study };

const fn level(key: &'static str, label: &'static str) -> Level {
    Level { key, label }
}

/// Whether a cell is one of the load steps (MECN against Adaptive MECN).
fn is_step(cell: &Cell) -> bool {
    matches!(cell.get("experiment"), "increase" | "decrease" | "increase8" | "decrease8")
}

/// The flow lists of our steps to eight flows: `increase8` has six flows join the two
/// long ones (the paper's Fig. 4 step with 6 flows in place of 20), `decrease8` runs eight
/// long flows throughout and fourteen more until 25 s (Fig. 6's with 14 of 22 stopping).
fn eight_flow_sets(experiment: &str) -> Vec<String> {
    let list = |from: usize, to: usize| {
        let names: Vec<String> = (from..=to).map(|i| format!("\"s{i}\"")).collect();
        format!("[{}]", names.join(", "))
    };
    match experiment {
        "increase8" => vec![format!("traffic[2].from={}", list(3, 8))],
        "decrease8" => {
            vec![format!("traffic[0].from={}", list(1, 8)), format!("traffic[2].from={}", list(9, 22))]
        }
        _ => Vec::new(),
    }
}

/// The bundled scenario of an experiment.
fn scenario_name(experiment: &str) -> &'static str {
    match experiment {
        "increase" | "increase8" => "sridharan2004-increase",
        "decrease" | "decrease8" => "sridharan2004-decrease",
        "dumbbell" => "sridharan2004-dumbbell",
        _ => "sridharan2004-parking-lot",
    }
}

/// The scenario text with Adaptive RED in place of Adaptive MECN: the `[protocols.mecn]`
/// tables become `[protocols.red]` on the same ports (automatic settings, the same
/// target delay, `[protocols.red.adaptive]`) and the sources lose MECN. With `ecn`,
/// Adaptive RED marks and every TCP source answers RFC 3168 ECN (the paper's "binary
/// congestion feedback", §IV-C1); without, it drops and the sources are plain Reno (ns-2's
/// default for RED, and Floyd, Gummadi & Shenker's Adaptive RED runs).
pub fn as_ared(text: &str, ecn: bool) -> String {
    let start = text.find("[protocols.mecn]").expect("a [protocols.mecn] table");
    let (head, tables) = text.split_at(start);
    let ports = tables.lines().find(|l| l.starts_with("ports")).expect("the table's ports");
    let mut head = head.replace(", mecn = {} }", " }");
    if ecn {
        head = head.replace("\ntcp = {", "\necn = true\ntcp = {");
    }
    format!(
        "{head}[protocols.red]\n{ports}\nmean_packet_size = \"1000B\"\ntarget_delay = \"20ms\"\necn = {ecn}\n\n\
         [protocols.red.adaptive]\n"
    )
}

/// The scenario of a cell.
fn scenario(cell: &Cell) -> Scenario {
    let name = scenario_name(cell.get("experiment"));
    let mut text = bundled::get(name).expect("bundled").to_string();
    let mut sets: Vec<String> = eight_flow_sets(cell.get("experiment"));
    match (cell.get("scheme"), is_step(cell)) {
        ("amecn", true) => sets.push("protocols.mecn.adaptive={}".into()),
        (scheme @ ("ared" | "ared-drop"), false) => {
            text = as_ared(&text, scheme == "ared");
            sets.push(format!("protocols.red.target_delay=\"{}ms\"", cell.get("target")));
        }
        (_, false) => sets.push(format!("protocols.mecn.target_delay=\"{}ms\"", cell.get("target"))),
        _ => {}
    }
    parse(&text, name, &sets).expect("valid cell")
}

/// The bottleneck ports of an experiment.
fn ports(experiment: &str) -> &'static [&'static str] {
    if experiment == "parking-lot" {
        &["sw1->sw2", "sw2->sw3", "sw3->sw4"]
    } else {
        &["r1->r2"]
    }
}

/// Mean of a recorded column over samples at or after `from_s`.
fn mean_from(ts: &TimeSeries, column: &str, from_s: f64) -> f64 {
    let Some(col) = ts.columns.iter().find(|c| c.name == column) else { return f64::NAN };
    let v: Vec<f64> =
        ts.times_s.iter().zip(&col.values).filter(|(t, _)| **t >= from_s).map(|(_, v)| *v).collect();
    v.iter().sum::<f64>() / v.len().max(1) as f64
}

/// The metrics of a run. Steps: over the whole run (throughput, as the paper's
/// percentages) and the average queue over its last 10 s; sweeps: over the second half.
fn measure(cell: &Cell, sim: &Sim) -> Measured {
    let experiment = cell.get("experiment");
    let end = sim.end() as f64 / PS_PER_S as f64;
    let from = if is_step(cell) { 0.0 } else { end / 2.0 };
    let r = sim.recorder();
    let summary = Summary::of(sim, "", 0);
    let mut delay_ms = 0.0;
    let mut queue = 0.0;
    let mut utilisation = 0.0;
    let mut drops = 0;
    let mut marks = 0;
    let mut pmax = 0.0;
    for &port in ports(experiment) {
        let q = mean_from(&r.queues, port, from);
        let rate =
            sim.net().port_by_name(port).map_or(f64::NAN, |id| sim.net().ports[id as usize].rate_bps as f64);
        queue += q;
        delay_ms += q * 1040.0 * 8.0 / rate * 1e3;
        utilisation += mean_from(&r.utilisation, port, from);
        if let Some(s) = summary.queues.iter().find(|s| s.port == port) {
            drops += s.dropped_frames;
            marks += s.marked_frames;
            pmax += s.aqm.as_ref().map_or(f64::NAN, |a| a.max_p);
        }
    }
    let n = ports(experiment).len() as f64;
    let delivered: f64 =
        summary.flows.iter().filter(|f| !f.name.starts_with("reverse")).map(|f| f.throughput_bps).sum();
    let mut scalars = vec![
        ("throughput_pct".to_string(), 100.0 * utilisation / n),
        ("avg_delay_ms".to_string(), delay_ms),
        ("avg_queue_pkts".to_string(), queue / n),
        ("goodput_mbps".to_string(), delivered / 1e6),
        ("drops".to_string(), drops as f64),
        ("marks".to_string(), marks as f64),
        ("pmax_end".to_string(), pmax / n),
    ];
    if let Ok(t) = cell.get("target").parse::<f64>() {
        scalars.push(("target_ms".to_string(), t));
    }
    let mut series = Vec::new();
    if is_step(cell) {
        scalars.push(("late_avg_queue_pkts".to_string(), mean_from(&r.avg_queues, "r1->r2", end - 10.0)));
        let mut both = r.avg_queues.clone();
        both.name = "queues".into();
        both.columns.retain(|c| c.name == "r1->r2");
        if let (Some(avg), Some(inst)) =
            (both.columns.first_mut(), r.queues.columns.iter().find(|c| c.name == "r1->r2"))
        {
            avg.name = "average".into();
            let mut inst = inst.clone();
            inst.name = "instantaneous".into();
            both.columns.push(inst);
        }
        series.push(("queues", both));
        let mut pmax = r.max_ps.clone();
        pmax.columns.retain(|c| c.name == "r1->r2");
        if let Some(c) = pmax.columns.first_mut() {
            c.name = "Pmax".into();
        }
        series.push(("pmax", pmax));
    }
    Measured { scalars, series }
}

/// Why Fig. 7's return to the band cannot be credited to the adaptation.
const FIG7_WHY: &str = "MECN with its Pmax fixed at 0.1 ends in the band on this step too (the decrease table's \
     late average queue; `tests/aqm.rs` asserts it), so the paper's decrease cannot tell the schemes apart; the \
     22 → 8 flow step below can";

/// The paper's numbers, each with the rule that judges it.
fn paper_numbers() -> Vec<PaperNumber> {
    type At = &'static [(&'static str, &'static str)];
    let n = |what, at: At, value, unit, metric| PaperNumber {
        what,
        at,
        value,
        unit,
        quantity: Quantity::Metric(metric),
        rule: Rule::VALUE,
    };
    // A change along the scheme axis: `metric` from `from` to `to`, in %.
    let change = |what, at: At, metric, from, to, rule| PaperNumber {
        what,
        at,
        value: 0.0,
        unit: "%",
        quantity: Quantity::Change { metric, axis: "scheme", from, to },
        rule,
    };
    let above = Rule::Beyond { above: true };
    let mut v = vec![
        n(
            "Fig. 4: MECN's throughput, congestion increase",
            &[("experiment", "increase"), ("scheme", "mecn"), ("target", "paper")],
            94.5,
            "%",
            "throughput_pct",
        ),
        n(
            "Fig. 5: Adaptive MECN's throughput, congestion increase",
            &[("experiment", "increase"), ("scheme", "amecn"), ("target", "paper")],
            96.3,
            "%",
            "throughput_pct",
        ),
        change(
            "Figs. 4, 5: Adaptive MECN's throughput above MECN's (96.3 % against 94.5 %)",
            &[("experiment", "increase"), ("target", "paper")],
            "throughput_pct",
            "mecn",
            "amecn",
            above,
        ),
        n(
            "Fig. 6: MECN's throughput, congestion decrease",
            &[("experiment", "decrease"), ("scheme", "mecn"), ("target", "paper")],
            93.4,
            "%",
            "throughput_pct",
        ),
        n(
            "Fig. 7: Adaptive MECN's throughput, congestion decrease",
            &[("experiment", "decrease"), ("scheme", "amecn"), ("target", "paper")],
            94.5,
            "%",
            "throughput_pct",
        ),
        change(
            "Figs. 6, 7: Adaptive MECN's throughput above MECN's (94.5 % against 93.4 %)",
            &[("experiment", "decrease"), ("target", "paper")],
            "throughput_pct",
            "mecn",
            "amecn",
            above,
        ),
        n(
            "Fig. 5: Adaptive MECN's average queue back in the 9–12 band (its middle) within 15 s",
            &[("experiment", "increase"), ("scheme", "amecn"), ("target", "paper")],
            10.5,
            "packets",
            "late_avg_queue_pkts",
        ),
        PaperNumber {
            rule: Rule::Declared(Verdict::NotComparable, FIG7_WHY),
            ..n(
                "Fig. 7: Adaptive MECN's average queue back in the 9–12 band (its middle) within 15 s",
                &[("experiment", "decrease"), ("scheme", "amecn"), ("target", "paper")],
                10.5,
                "packets",
                "late_avg_queue_pkts",
            )
        },
    ];
    // §IV-B's claim on steps of our own that the fixed Pmax does not answer.
    for (mecn, amecn, label_mecn, label_amecn) in [
        (
            &[("experiment", "increase8"), ("scheme", "mecn"), ("target", "paper")] as At,
            &[("experiment", "increase8"), ("scheme", "amecn"), ("target", "paper")] as At,
            "§IV-B: MECN's average follows the congestion, out of the 9–12 band (our step, 2 → 8 flows)",
            "§IV-B: Adaptive MECN back in the 9–12 band (its middle) within 15 s (our step, 2 → 8 flows)",
        ),
        (
            &[("experiment", "decrease8"), ("scheme", "mecn"), ("target", "paper")] as At,
            &[("experiment", "decrease8"), ("scheme", "amecn"), ("target", "paper")] as At,
            "§IV-B: MECN's average follows the congestion, out of the 9–12 band (our step, 22 → 8 flows)",
            "§IV-B: Adaptive MECN back in the 9–12 band (its middle) within 15 s (our step, 22 → 8 flows)",
        ),
    ] {
        v.push(PaperNumber { rule: above, ..n(label_mecn, mecn, 12.0, "packets", "late_avg_queue_pkts") });
        v.push(n(label_amecn, amecn, 10.5, "packets", "late_avg_queue_pkts"));
    }
    let targets: [(&str, f64, At, At); 4] = [
        (
            "10",
            10.0,
            &[("experiment", "dumbbell"), ("target", "10")],
            &[("experiment", "parking-lot"), ("target", "10")],
        ),
        (
            "20",
            20.0,
            &[("experiment", "dumbbell"), ("target", "20")],
            &[("experiment", "parking-lot"), ("target", "20")],
        ),
        (
            "40",
            40.0,
            &[("experiment", "dumbbell"), ("target", "40")],
            &[("experiment", "parking-lot"), ("target", "40")],
        ),
        (
            "80",
            80.0,
            &[("experiment", "dumbbell"), ("target", "80")],
            &[("experiment", "parking-lot"), ("target", "80")],
        ),
    ];
    // Fig. 9: "both the schemes confirm very closely to the given target delay"; Fig. 8:
    // "AMECN gives higher throughput for a given target delay than ARED"; Fig. 11: "the
    // AMECN gives better overall throughput than ARED".
    for (t, value, bell, lot) in targets {
        let at = |scheme: &'static str| -> At {
            match (t, scheme) {
                ("10", "amecn") => &[("experiment", "dumbbell"), ("scheme", "amecn"), ("target", "10")],
                ("20", "amecn") => &[("experiment", "dumbbell"), ("scheme", "amecn"), ("target", "20")],
                ("40", "amecn") => &[("experiment", "dumbbell"), ("scheme", "amecn"), ("target", "40")],
                (_, "amecn") => &[("experiment", "dumbbell"), ("scheme", "amecn"), ("target", "80")],
                ("10", _) => &[("experiment", "dumbbell"), ("scheme", "ared"), ("target", "10")],
                ("20", _) => &[("experiment", "dumbbell"), ("scheme", "ared"), ("target", "20")],
                ("40", _) => &[("experiment", "dumbbell"), ("scheme", "ared"), ("target", "40")],
                _ => &[("experiment", "dumbbell"), ("scheme", "ared"), ("target", "80")],
            }
        };
        v.push(n(
            "Fig. 9: Adaptive MECN's measured delay ≈ its target",
            at("amecn"),
            value,
            "ms",
            "avg_delay_ms",
        ));
        v.push(n(
            "Fig. 9: Adaptive RED's measured delay ≈ its target (ECN marking; dropping in parentheses)",
            at("ared"),
            value,
            "ms",
            "avg_delay_ms",
        ));
        v.push(change(
            "Fig. 9: both conform alike: Adaptive RED's measured delay ≈ Adaptive MECN's (ECN marking)",
            bell,
            "avg_delay_ms",
            "amecn",
            "ared",
            Rule::VALUE,
        ));
        v.push(change(
            "Fig. 9: both conform alike: Adaptive RED's measured delay ≈ Adaptive MECN's (Adaptive RED dropping, the other reading)",
            bell,
            "avg_delay_ms",
            "amecn",
            "ared-drop",
            Rule::VALUE,
        ));
        v.push(change(
            "Fig. 8: Adaptive MECN's throughput above Adaptive RED's at the same target delay",
            bell,
            "throughput_pct",
            "ared",
            "amecn",
            above,
        ));
        v.push(change(
            "Fig. 8: Adaptive MECN's throughput above Adaptive RED's at the same target delay (Adaptive RED dropping, the other reading)",
            bell,
            "throughput_pct",
            "ared-drop",
            "amecn",
            above,
        ));
        v.push(change(
            "Fig. 11: Adaptive MECN's total goodput above Adaptive RED's at the same target",
            lot,
            "goodput_mbps",
            "ared",
            "amecn",
            above,
        ));
        v.push(change(
            "Fig. 11: Adaptive MECN's total goodput above Adaptive RED's at the same target (Adaptive RED dropping, the other reading)",
            lot,
            "goodput_mbps",
            "ared-drop",
            "amecn",
            above,
        ));
    }
    v
}

/// The declaration.
pub fn study() -> Study {
    let axes = vec![
        Axis {
            name: "experiment",
            title: "experiment",
            prefix: "",
            levels: vec![
                level("increase", "congestion increase (Figs. 4, 5)"),
                level("decrease", "congestion decrease (Figs. 6, 7)"),
                level("increase8", "our step: 2 → 8 flows at 25 s"),
                level("decrease8", "our step: 22 → 8 flows at 25 s"),
                level("dumbbell", "100-flow dumbbell (Figs. 8, 9)"),
                level("parking-lot", "parking lot (Figs. 10, 11)"),
            ],
        },
        Axis {
            name: "scheme",
            title: "scheme",
            prefix: "",
            levels: vec![
                level("mecn", "MECN"),
                level("amecn", "Adaptive MECN"),
                level("ared", "Adaptive RED"),
                level("ared-drop", "Adaptive RED dropping"),
            ],
        },
        Axis {
            name: "target",
            title: "target delay",
            prefix: "",
            levels: vec![
                level("paper", "the paper's thresholds"),
                level("10", "10 ms"),
                level("20", "20 ms"),
                level("40", "40 ms"),
                level("80", "80 ms"),
            ],
        },
    ];
    let doc = |name, title, unit, doc| MetricDoc { name, title, unit, doc };
    let metrics = vec![
        doc(
            "throughput_pct",
            "Throughput",
            "% of the link",
            "bytes sent on the bottleneck (the mean over the parking lot's three trunks) ÷ what the link could send: over the whole run for the load steps, over the second half for the sweeps.",
        ),
        doc(
            "avg_delay_ms",
            "Average queueing delay",
            "ms",
            "the mean instantaneous queue (sampled every 100 ms) × a 1040-byte packet's transmission time; summed over the parking lot's three trunks (the paper's sum); second half for the sweeps.",
        ),
        doc("avg_queue_pkts", "Average queue", "packets", "the mean instantaneous queue (per trunk on the parking lot)."),
        doc(
            "late_avg_queue_pkts",
            "Late average queue",
            "packets",
            "the router's average queue (its EWMA) over the last 10 s of a load step, 15–25 s after the step.",
        ),
        doc("goodput_mbps", "Goodput", "Mbit/s", "application bytes delivered by the forward flows, per second of the run."),
        doc("drops", "Drops", "packets", "dropped at the bottleneck(s)."),
        doc("target_ms", "Target delay", "ms", "the target delay the sweep set (its x in Fig. 9)."),
        doc("marks", "Marks", "packets", "marked at the bottleneck(s) (ECN, or MECN's two levels)."),
        doc(
            "pmax_end",
            "Pmax at the end",
            "probability",
            "the bottleneck's maximum marking probability when the run ends (the mean over the parking lot's trunks): MECN's fixed 0.1, or where Adaptive MECN's or Adaptive RED's adaptation left it.",
        ),
    ];
    let comparison = Comparison {
        numbers: paper_numbers(),
        where_axes: &["experiment", "scheme", "target"],
        columns: &[Column { label: "ours", at: &[] }],
        alternative: Some(Alternative { axis: "scheme", level: "ared", with: "ared-drop" }),
        bounds: &[],
        tolerance: 0.25,
        note: "Each row is a number or claim the paper states (throughputs and the target band in its text on \
               Figs. 4–7, and §IV-B's claim on two steps of ours that MECN's fixed Pmax does not answer; Fig. 9's \
               claim that measured delay follows the target, written as measured = target, and that both schemes \
               conform alike, written as Adaptive RED's delay = Adaptive MECN's; the text's claims on Figs. 8 and 11 \
               that Adaptive MECN has the higher throughput at a given target, written as a change > 0) next to \
               ours, the mean over seeds ± the 95 % confidence interval. Where a row reads Adaptive RED with ECN \
               marking (the paper's \"binary congestion feedback\"), the value in parentheses is Adaptive RED \
               dropping instead, the other reading; the verdict judges the marking reading, and the rows marked \
               \"the other reading\" judge dropping.",
    };
    let tables = Tables {
        sections: "experiment",
        rows: &["scheme", "target"],
        columns: &[
            TableColumn { header: "throughput %", metric: "throughput_pct", digits: 1, absent_at: &[] },
            TableColumn { header: "delay ms", metric: "avg_delay_ms", digits: 1, absent_at: &[] },
            TableColumn { header: "queue pkts", metric: "avg_queue_pkts", digits: 1, absent_at: &[] },
            TableColumn {
                header: "late avg queue",
                metric: "late_avg_queue_pkts",
                digits: 1,
                absent_at: &[],
            },
            TableColumn { header: "goodput Mbit/s", metric: "goodput_mbps", digits: 3, absent_at: &[] },
            TableColumn { header: "drops", metric: "drops", digits: 0, absent_at: &[] },
            TableColumn { header: "marks", metric: "marks", digits: 0, absent_at: &[] },
            TableColumn { header: "Pmax at end", metric: "pmax_end", digits: 3, absent_at: &[] },
        ],
    };
    let series = |file, caption, at| Figure::Series {
        file,
        caption,
        at,
        series: "queues",
        scale: 1.0,
        rebin: 1,
        y_label: "queue (packets)",
        reference: Some(("max_th", 15.0)),
        step: Step::None,
        worst_is_lowest: false,
    };
    let pmax = |file, caption, at| Figure::Series {
        file,
        caption,
        at,
        series: "pmax",
        scale: 1.0,
        rebin: 1,
        y_label: "Pmax",
        reference: Some(("ceiling 0.5", 0.5)),
        step: Step::None,
        worst_is_lowest: false,
    };
    let bars = |file, caption, y_label, experiment, metric| Figure::Bars {
        file,
        caption,
        y_label,
        at: experiment,
        categories: "target",
        series: ("scheme", &["amecn", "ared", "ared-drop"]),
        metric,
        y_max: None,
    };
    let figures = vec![
        series(
            "increase-mecn",
            "Fig. 4, MECN: average and instantaneous queue, 2 → 22 flows from 25 s",
            &[("experiment", "increase"), ("scheme", "mecn"), ("target", "paper")],
        ),
        series(
            "increase-amecn",
            "Fig. 5, Adaptive MECN: average and instantaneous queue, 2 → 22 flows from 25 s",
            &[("experiment", "increase"), ("scheme", "amecn"), ("target", "paper")],
        ),
        pmax(
            "increase-amecn-pmax",
            "Fig. 5, Adaptive MECN: Pmax over time, 2 → 22 flows from 25 s",
            &[("experiment", "increase"), ("scheme", "amecn"), ("target", "paper")],
        ),
        series(
            "decrease-mecn",
            "Fig. 6, MECN: average and instantaneous queue, 22 → 2 flows at 25 s",
            &[("experiment", "decrease"), ("scheme", "mecn"), ("target", "paper")],
        ),
        series(
            "decrease-amecn",
            "Fig. 7, Adaptive MECN: average and instantaneous queue, 22 → 2 flows at 25 s",
            &[("experiment", "decrease"), ("scheme", "amecn"), ("target", "paper")],
        ),
        pmax(
            "decrease-amecn-pmax",
            "Fig. 7, Adaptive MECN: Pmax over time, 22 → 2 flows at 25 s",
            &[("experiment", "decrease"), ("scheme", "amecn"), ("target", "paper")],
        ),
        series(
            "increase8-mecn",
            "Our step, MECN (Pmax fixed at 0.1): average and instantaneous queue, 2 → 8 flows",
            &[("experiment", "increase8"), ("scheme", "mecn"), ("target", "paper")],
        ),
        series(
            "increase8-amecn",
            "Our step, Adaptive MECN: average and instantaneous queue, 2 → 8 flows at 25 s",
            &[("experiment", "increase8"), ("scheme", "amecn"), ("target", "paper")],
        ),
        pmax(
            "increase8-amecn-pmax",
            "Our step, Adaptive MECN: Pmax over time, 2 → 8 flows at 25 s",
            &[("experiment", "increase8"), ("scheme", "amecn"), ("target", "paper")],
        ),
        series(
            "decrease8-mecn",
            "Our step, MECN (Pmax fixed at 0.1): average and instantaneous queue, 22 → 8 flows",
            &[("experiment", "decrease8"), ("scheme", "mecn"), ("target", "paper")],
        ),
        series(
            "decrease8-amecn",
            "Our step, Adaptive MECN: average and instantaneous queue, 22 → 8 flows at 25 s",
            &[("experiment", "decrease8"), ("scheme", "amecn"), ("target", "paper")],
        ),
        pmax(
            "decrease8-amecn-pmax",
            "Our step, Adaptive MECN: Pmax over time, 22 → 8 flows at 25 s",
            &[("experiment", "decrease8"), ("scheme", "amecn"), ("target", "paper")],
        ),
        bars(
            "dumbbell-throughput",
            "Dumbbell, 100 flows: link utilisation against target delay (Fig. 8's y)",
            "%",
            &[("experiment", "dumbbell")],
            "throughput_pct",
        ),
        bars(
            "dumbbell-delay",
            "Dumbbell, 100 flows: measured queueing delay against target delay (Fig. 9)",
            "ms",
            &[("experiment", "dumbbell")],
            "avg_delay_ms",
        ),
        bars(
            "parking-lot-throughput",
            "Parking lot: mean trunk utilisation against target delay (Fig. 11's y)",
            "%",
            &[("experiment", "parking-lot")],
            "throughput_pct",
        ),
        bars(
            "parking-lot-delay",
            "Parking lot: queueing delay summed over the trunks against target delay (Fig. 11's x)",
            "ms",
            &[("experiment", "parking-lot")],
            "avg_delay_ms",
        ),
        Figure::Curve {
            file: "dumbbell-throughput-delay",
            caption: "Dumbbell, 100 flows: utilisation against measured delay, a point per target (Fig. 8)",
            at: &[("experiment", "dumbbell")],
            points: "target",
            series: ("scheme", &["amecn", "ared", "ared-drop"]),
            x: ("avg_delay_ms", "average queueing delay (ms)"),
            y: ("throughput_pct", "throughput (% of the link)"),
        },
        Figure::Curve {
            file: "dumbbell-measured-target",
            caption: "Dumbbell, 100 flows: measured against target delay, a point per target (Fig. 9)",
            at: &[("experiment", "dumbbell")],
            points: "target",
            series: ("scheme", &["amecn", "ared", "ared-drop"]),
            x: ("target_ms", "target delay (ms)"),
            y: ("avg_delay_ms", "measured queueing delay (ms)"),
        },
        Figure::Curve {
            file: "parking-lot-throughput-delay",
            caption: "Parking lot: total forward goodput against summed delay, a point per target (Fig. 11)",
            at: &[("experiment", "parking-lot")],
            points: "target",
            series: ("scheme", &["amecn", "ared", "ared-drop"]),
            x: ("avg_delay_ms", "summed queueing delay (ms)"),
            y: ("goodput_mbps", "total goodput (Mbit/s)"),
        },
    ];
    Study {
        name: "sridharan2004",
        title: "Sridharan, Durresi & Jain 2004: Adaptive multi-level ECN",
        seeds: (10, 2),
        quick_duration: Duration(50 * PS_PER_S),
        axes,
        alias: |_| None,
        skip: |c| {
            if is_step(c) {
                !matches!(c.get("scheme"), "mecn" | "amecn") || c.get("target") != "paper"
            } else {
                c.get("scheme") == "mecn" || c.get("target") == "paper"
            }
        },
        scenario,
        measure,
        metrics,
        comparison,
        tables,
        facets: &[],
        figures,
        every_cell: Vec::new(),
        intro: INTRO,
        gaps: GAPS,
    }
}

const INTRO: &str = r#"
## What was run

- **The load steps** (`scenarios/sridharan2004/increase.toml`, `decrease.toml`): the
  seed's dumbbell (sources on 10 Mbit/s links, a 1.5 Mbit/s / 40 ms bottleneck holding 40
  packets, 10 Mbit/s / 4 ms to the sinks; TCP Reno, 1000-byte packets plus 40 bytes of
  headers, 40-byte ACKs), two long flows forward and one reverse; 20 flows with windows of
  25 join one every 0.1 s from 25 s (or run from 0 and stop at 25 s). MECN on the
  bottleneck with the seed's w_q 0.0027 and thresholds 5 / 10 / 15 packets; Adaptive MECN
  adds the seed's Fig. 2 (target 2·min_th = 10, target range 9–11). Source delay
  d = 10 ms (the seed leaves it open: round trips near the "around 100 ms" it mentions).
  50 s per run.
- **Two steps of our own** that MECN's fixed Pmax does not answer (the paper's decrease
  cannot tell the schemes apart, below): six flows join the two long ones at 25 s
  (2 → 8), and eight long flows run throughout while fourteen more stop at 25 s
  (22 → 8). Same network, same 50 s.
- **The sweeps** (`dumbbell.toml`, `parking-lot.toml`): 100 Reno flows with round trips of
  100–150 ms over 7 Mbit/s plus 10 reverse flows and 20 web users (Pareto objects of mean
  12 KB, shape 1.2, exponential think times of mean 1 s: `traffic[].web`); the parking
  lot's four routers with 20 long flows and 20 per segment over 7 Mbit/s trunks; 100 s per
  run, measured over the second half. Adaptive MECN and Adaptive RED with automatic
  parameters at target delays 10, 20, 40 and 80 ms (min_th = max(5, target_delay·C/2)
  packets, C = 875 packets/s: at 10 ms the floor of 5 packets holds, a 10-packet target).
- **Adaptive RED, two readings.** The seed does not say whether its Adaptive RED marks or
  drops. It contrasts AMECN's "multiple level of congestion feedback" with ARED's "binary
  congestion feedback" (§IV-C1), the words it uses for ECN in §II-A ("instead of the
  binary feedback provided by ECN"): we read that as ECN marking, with RFC 3168 sources,
  and run the other reading too (`ared-drop`: Adaptive RED dropping, plain Reno sources;
  ns-2's RED drops unless told to mark). The reading decides Fig. 9's "both conform
  alike" and moves Figs. 8 and 11 (below).
- **MECN** (reference §4, every choice a key of `[protocols.mecn]`): incipient marks (10)
  with p1 = P1max·(avg − min_th)/(max_th − min_th) (the seed's Eq. 1), moderate marks (11)
  from mid_th with p2 = P2max·(avg − mid_th)/(max_th − mid_th), then incipient with p1
  failing that; marks spread by count as RED's `wait`; P1max = P2max = 0.1 at the start
  (ns-2's max_p), both adapted by the same factor, kept in [0.01, 0.5]. Sources cut cwnd
  by β1 = 20 % (incipient) and β2 = 40 % (moderate) once per window; loss halves (β3).
- **Readings where the seed is ambiguous** (each a key; the default from what the seed
  states about the mechanism):
  - *Above max_th* (`above_max`, default `"drop"`): the seed says "all packets are
    marked", but also that the two bits carry three levels and "with packet-drop, four
    different levels of congestion" — no codepoint is left for a fourth mark, and its
    sources answer a drop (β3 = 50 %) as "severe congestion". We drop; `"mark"` marks 11.
  - *Target* (`adaptive.range`, default `[0.4, 0.6]`): the seed's Fig. 2 gives the target
    as the range [min_th + 0.4·(max_th − min_th), min_th + 0.6·(max_th − min_th)] and
    §III-B keeps the average "with a target range half way between min_th and max_th",
    as Adaptive RED does; its α and β measure from targetqueue = 2·min_th, the range's
    centre (`adaptive.error_from = "target"`). Pmax rests inside the range; `"point"`
    moves it whenever the average is off 2·min_th. (The text's "9 and 12 packets" is not
    the 9–11 its Fig. 2 gives for thresholds 5 and 15; the comparison uses the text's.)
"#;

const GAPS: &str = r#"
### Reading the comparison

- **The throughput rows say little.** With a 25 % band a stated 94.5 % admits anything
  from 71 %; the rows that matter compare the schemes. Adaptive MECN's throughput is not
  above MECN's on either of the paper's steps (+0.1 ± 0.9 % and −0.3 ± 1.7 %, 10 seeds):
  not comparable, where the paper has +1.9 % and +1.2 %.
- **The paper's decrease cannot tell the schemes apart (Fig. 7).** Under 22 flows
  Adaptive MECN's Pmax climbs to its 0.5 ceiling; after the 20 flows stop it comes back to
  about 0.1 (0.085 ± 0.012 at the end), which is MECN's fixed Pmax, so MECN ends in the
  band as well (late average 9.4 ± 0.4 against 9.7 ± 0.1). Fig. 7's "back in the band"
  is therefore not comparable as evidence of the adaptation. Our steps to eight flows do
  exercise it: after 2 → 8 MECN's average stays at 13.3 ± 0.2 while Adaptive MECN raises
  Pmax from 0.1 to 0.49 and settles at 10.4 ± 0.1; after 22 → 8 MECN sits at 13.4 ± 0.2
  and Adaptive MECN, holding the 0.5 it reached under 22 flows, at 10.3 ± 0.1 (Pmax
  figures below; MECN's stays at 0.1).
- **Flow counts set a floor under the queue (Fig. 5).** A Reno source cut at most once
  per round trip, by at most β2 = 40 %, keeps on average about (1/β2)(1 − β2/2) = 2
  packets in flight when marked every round trip. On the step's 1.5 Mbit/s × 108 ms pipe
  (19.5 packets) 22 flows then hold about 44 packets, so no marking probability brings
  the average to the band: both schemes sit just below max_th after the paper's
  increase, and Adaptive MECN's Pmax is pinned at its ceiling. The 100-flow dumbbell is
  in the same regime (100 flows against a 109-packet pipe): measured delay rises with the
  target but sits 34–72 % above it for Adaptive MECN, so every "measured = target" row
  is contradicted, under either reading of Adaptive RED.
- **Adaptive RED's reading decides Fig. 9's comparison.** Marking, Adaptive RED's
  measured delay is 47–95 % above Adaptive MECN's (contradicting "both conform very
  closely"); dropping, it is within −10 % to +5 % of it (reproduced at every target):
  16.0, 26.7, 55.1 and 112.9 ms against Adaptive MECN's 17.2, 29.7, 53.5 and 107.3 ms
  (marking: 32.7, 57.7, 96.7 and 157.5 ms). Against the targets themselves both
  readings are contradicted (dropping: 33–60 % above).
- **Throughput at equal target (Figs. 8, 11).** On the 100-flow dumbbell Adaptive MECN's
  link utilisation is below marking Adaptive RED's at 20, 40 and 80 ms (contradicted;
  95.8 % against 99.8 % at 40 ms, where Adaptive MECN's drops peak) and within noise at
  10 ms; against dropping Adaptive RED it is within noise at 10, 20 and 80 ms and below at
  40 ms. On the parking lot Adaptive MECN delivers more than marking Adaptive RED at 10,
  20 and 40 ms (+1.3 %, +0.7 %, +0.2 %) and less at 80 ms (−0.2 %); against dropping
  Adaptive RED it delivers less at 10 and 20 ms and more at 40 and 80 ms.
- **The figures.** Each step figure is the first seed's run: the bottleneck's average
  queue (the EWMA the scheme acts on) and instantaneous queue every 100 ms, with max_th
  (15 packets) dashed; the target range is 9–11 packets. Each Pmax figure is Adaptive
  MECN's maximum marking probability on the same run, with its 0.5 ceiling dashed;
  MECN's is 0.1 throughout. The sweep figures are means over the seeds of the second
  half of each run, for Adaptive MECN, Adaptive RED marking and Adaptive RED dropping;
  the paper has both schemes on the diagonal of Fig. 9.
- The seed's results were in ns-2 with constants it does not give (source delays, the
  long flows' windows, β1 and β2, the initial Pmax, the web traffic's model and load);
  each is a key here.
"#;

#[cfg(test)]
mod tests {
    use super::*;

    /// Every cell builds, Adaptive RED's transform included.
    #[test]
    fn every_cell_builds() {
        let s = study();
        for cell in s.cells() {
            let sc = scenario(&cell);
            crate::scenario::build(&sc, "cell").unwrap_or_else(|e| panic!("{cell:?}: {e}"));
        }
        let ared = as_ared(bundled::get("sridharan2004-dumbbell").unwrap(), true);
        assert!(ared.contains("[protocols.red.adaptive]"), "{ared}");
        assert!(!ared.contains("[protocols.mecn") && !ared.contains("mecn = {}"), "{ared}");
        assert_eq!(ared.matches("\necn = true").count(), 4, "three traffic entries and the RED table");
    }

    /// The two readings of Adaptive RED differ only in marking: the dropping one has
    /// `ecn = false` on the RED table and plain Reno sources, and its runs mark nothing.
    #[test]
    fn adaptive_red_drops_or_marks() {
        let text = bundled::get("sridharan2004-dumbbell").unwrap();
        let drop = as_ared(text, false);
        assert!(drop.contains("\necn = false\n") && !drop.contains("\necn = true"), "{drop}");
        assert_eq!(drop.replace("\necn = false", ""), as_ared(text, true).replace("\necn = true", ""));
        let s = study();
        for (scheme, marks) in [("ared", true), ("ared-drop", false)] {
            let cell =
                s.cell_at(&[("experiment", "dumbbell"), ("scheme", scheme), ("target", "20")]).unwrap();
            let mut sc = scenario(&cell);
            sc.duration = Duration(5 * PS_PER_S);
            let mut sim = crate::scenario::build(&sc, "cell").unwrap();
            sim.run_to_end();
            let m = measure(&cell, &sim);
            let get = |k: &str| m.scalars.iter().find(|(n, _)| n == k).unwrap().1;
            assert_eq!(get("marks") > 0.0, marks, "{scheme}: {} marks", get("marks"));
            assert!(get("drops") > 0.0 || marks, "{scheme} drops");
        }
    }

    /// Our steps to eight flows: six flows join the two long ones, or eight long flows
    /// stay when fourteen stop.
    #[test]
    fn the_eight_flow_steps() {
        let s = study();
        for (experiment, long, new) in [("increase8", 2, 6), ("decrease8", 8, 14)] {
            let cell =
                s.cell_at(&[("experiment", experiment), ("scheme", "mecn"), ("target", "paper")]).unwrap();
            let sc = scenario(&cell);
            let sim = crate::scenario::build(&sc, "cell").unwrap();
            let count = |prefix: &str| sim.flows().iter().filter(|f| f.name.starts_with(prefix)).count();
            assert_eq!((count("long"), count("new")), (long, new), "{experiment}");
        }
    }
}
