//! Roeck, "Congestion Management Protocols Simulation Results and Protocol Variations"
//! (IEEE 802.1au, July 2007): ECM, E2CM, FECN, QCN and their probing variants on the
//! 802.1au test topologies: the tests that the seed describes (baseline, 1, 3, 5, 7, 8,
//! 9, 10; test 3's wiring reconstructed) with no congestion management and with every protocol the seed ran: ECM,
//! E2CM, E2CM-P, E2CM-PR, FECN, FECN-B, QCN, QCN-P and QCN-PR, each under both of the
//! seed's parameter sets where it gives two.
//!
//! The seed's results are plots and verdicts; its numbers are the fair allocations it
//! states (tests 3, 7 and 8, and the baseline's 2.5 Gbit/s per source), which the comparison
//! sets against each flow's measured throughput. Every cell is a bundled scenario
//! (`scenarios/roeck2007/*.toml`) with the protocol's table added.

use super::study::{
    Axis, Cell, CellSeries, Column, Comparison, Figure, Level, Measured, MetricDoc, PaperNumber, Quantity,
    Rule, Study, TableColumn, Tables,
};
use crate::engine::PS_PER_MS;
use crate::metrics::summary::Summary;
use crate::scenario::units::Duration;
use crate::scenario::{bundled, parse, Scenario};
use crate::sim::Sim;

/// The registry entry of this reproduction.
pub const REPRODUCTION: super::Reproduction = super::Reproduction { name: "roeck2007", declare: study };

const fn level(key: &'static str, label: &'static str) -> Level {
    Level { key, label }
}

/// The tests, as (key, label, the queue where congestion shows first).
const TESTS: [(&str, &str, &str); 8] = [
    ("baseline", "baseline: 4 sources into 1 port", "sw->n5"),
    ("test1", "test 1: output-generated hotspot", "sw->n1"),
    ("test3", "test 3: output-generated hotspot, multi-hop, victims", "sw4->n7"),
    ("test5", "test 5: bursty single hotspot", "sw->n5"),
    ("test7", "test 7: light then heavy hotspot", "sw2->n8"),
    ("test8", "test 8: heavy then light hotspot", "sw1->sw2"),
    ("test9", "test 9: 7-switch chain", "sw7->h19"),
    ("test10", "test 10: 10-switch chain", "sw10->h28"),
];

fn hotspot(test: &str) -> &'static str {
    TESTS.iter().find(|t| t.0 == test).map_or("", |t| t.2)
}

/// The protocols, as (key, label).
const PROTOCOLS: [(&str, &str); 10] = [
    ("none", "none (drop-tail)"),
    ("ecm", "ECM"),
    ("e2cm", "E2CM"),
    ("e2cm-p", "E2CM-P"),
    ("e2cm-pr", "E2CM-PR"),
    ("fecn", "FECN"),
    ("fecn-b", "FECN-B"),
    ("qcn", "QCN"),
    ("qcn-p", "QCN-P"),
    ("qcn-pr", "QCN-PR"),
];

/// Protocols that run one parameter set (the seed gives one for FECN and FECN-B).
fn one_parameter_set(protocol: &str) -> bool {
    matches!(protocol, "none" | "fecn" | "fecn-b")
}

/// The `[protocols.*]` table of a protocol under a parameter set, as scenario text: the
/// seed's values, every protocol on every switch port and every flow. `run2` is the
/// seed's second set: ECM and E2CM sample every 75000 bytes (and E2CM probes every
/// 50000), QCN samples at base probability 2 % and its byte counter (toThreshold)
/// halves.
pub fn protocol_table(protocol: &str, params: &str) -> String {
    let run2 = params == "run2";
    let everywhere = "congestion_points = \"switches\"\nflows = \"*\"\n";
    let ecm_cp =
        format!("[protocols.{{0}}.cp]\nsampling_interval = \"{}B\"\n", if run2 { 75_000 } else { 150_000 });
    // The QCN sets (Roeck 2007): Gd 1/128, timer 200 µs, minRate 10 Mbit/s, minDecFactor
    // 0.5, fast recovery threshold 5, A (the AI step) 12 Mbit/s, hyper-active increase on
    // (the seed gives no HAI step: 802.1Qau's 50 Mbit/s), extra fast recovery over
    // EfrMax = 1000000 bytes, Qeq 24000 B, W 2, probability sampling from baseProbability.
    let qcn = |to_threshold: u32, extra_rp: &str, extra_cp: &str| {
        format!(
            "[protocols.qcn]\n{everywhere}\
             [protocols.qcn.cp]\nqeq = \"24000B\"\nw = 2.0\nsampling = \"probability\"\nbase_probability = {}\n{extra_cp}\
             [protocols.qcn.rp]\ngd = 0.0078125\ntimer = \"200us\"\nmin_rate = \"10Mbps\"\nmin_dec_factor = 0.5\n\
             fast_recovery_threshold = 5\nr_ai = \"12Mbps\"\nextra_fast_recovery = true\nefr_max = \"1000000B\"\n\
             byte_counter = \"{to_threshold}B\"\n{extra_rp}",
            if run2 { 0.02 } else { 0.01 }
        )
    };
    let probe_interval = if run2 { 50_000 } else { 100_000 };
    match protocol {
        "none" => String::new(),
        "ecm" => format!("[protocols.ecm]\n{everywhere}{}", ecm_cp.replace("{0}", "ecm")),
        "e2cm" | "e2cm-p" | "e2cm-pr" => {
            let variant = match protocol {
                "e2cm" => "probe_to = \"destination\"\nflow_qeq = \"15000B\"\n",
                "e2cm-pr" => "[protocols.e2cm.guidance]\nrate_t = \"1ms\"\nswitch_rate_weight = 0.02\n",
                _ => "",
            };
            let (top, sub) = if protocol == "e2cm" { (variant, "") } else { ("", variant) };
            format!(
                "[protocols.e2cm]\n{everywhere}{top}{}[protocols.e2cm.probes]\ninterval = \"{probe_interval}B\"\n{sub}",
                ecm_cp.replace("{0}", "e2cm")
            )
        }
        "fecn" => format!("[protocols.fecn]\n{everywhere}"),
        "fecn-b" => format!(
            "[protocols.fecn]\n{everywhere}[protocols.fecn.source]\nfast_start = true\n\
             [protocols.fecn.severe]\nqsc = \"120000B\"\n"
        ),
        "qcn" => qcn(if run2 { 75_000 } else { 150_000 }, "drift_factor = 1.0005\n", ""),
        "qcn-p" => qcn(
            probe_interval,
            &format!(
                "self_increase = \"1Mbps\"\n[protocols.qcn.rp.probes]\ninterval = \"{probe_interval}B\"\n"
            ),
            "",
        ),
        "qcn-pr" => qcn(
            probe_interval,
            &format!(
                "self_increase_factor = 0.001\n[protocols.qcn.rp.probes]\ninterval = \"{probe_interval}B\"\n"
            ),
            "[protocols.qcn.cp.guidance]\nrate_t = \"1ms\"\nswitch_rate_weight = 0.002\n",
        ),
        other => panic!("unknown protocol level {other}"),
    }
}

/// The bundled scenario of a test: test 1 with a flow per source and destination, so
/// that per-flow congestion management can act on the hotspot's flows alone.
pub fn scenario_name(test: &str) -> String {
    match test {
        "test1" => "roeck2007-test1-pairs".into(),
        _ => format!("roeck2007-{test}"),
    }
}

/// The scenario of a cell: the test's bundled scenario with the protocol's table.
fn scenario(cell: &Cell) -> Scenario {
    let name = scenario_name(cell.get("test"));
    let text = format!(
        "{}\n{}",
        bundled::get(&name).expect("bundled"),
        protocol_table(cell.get("protocol"), cell.get("params"))
    );
    parse(&text, &name, &[]).expect("bundled scenarios and protocol tables are valid")
}

/// The metrics of a run.
fn measure(cell: &Cell, sim: &Sim) -> Measured {
    let summary = Summary::of(sim, "", 0);
    let secs = sim.end() as f64 / crate::engine::PS_PER_S as f64;
    let switch_queues = summary.queues.iter().filter(|q| {
        sim.net().port_by_name(&q.port).is_some_and(|p| {
            sim.net().nodes[sim.net().ports[p as usize].node as usize].kind == crate::net::NodeKind::Switch
        })
    });
    let (mut arrived, mut dropped, mut max_queue) = (0u64, 0u64, 0u64);
    for q in switch_queues {
        arrived += q.arrived_frames;
        dropped += q.dropped_frames;
        max_queue = max_queue.max(q.max_frames);
    }
    let hot = summary.queues.iter().find(|q| q.port == hotspot(cell.get("test")));
    let hot_rate = sim
        .net()
        .port_by_name(hotspot(cell.get("test")))
        .map_or(1.0, |p| sim.net().ports[p as usize].rate_bps as f64);
    let mut scalars = vec![
        (
            "hotspot_utilisation_pct".to_string(),
            hot.map_or(0.0, |q| 100.0 * q.sent_bytes as f64 * 8.0 / hot_rate / secs),
        ),
        ("hotspot_queue_mean_frames".to_string(), hot.map_or(0.0, |q| q.mean_frames)),
        ("hotspot_queue_std_frames".to_string(), hot.map_or(0.0, |q| q.std_frames)),
        ("max_queue_frames".to_string(), max_queue as f64),
        ("loss_pct".to_string(), if arrived == 0 { 0.0 } else { 100.0 * dropped as f64 / arrived as f64 }),
        ("maxmin_fairness".to_string(), summary.maxmin_fairness.unwrap_or(f64::NAN)),
        (
            "worst_maxmin_share".to_string(),
            summary.flows.iter().filter_map(|f| f.maxmin_share).fold(f64::NAN, f64::min),
        ),
    ];
    if cell.get("test") == "test1" {
        // 90 flows: the hotspot's nine and the other 81, each as a total.
        let (mut hot, mut others) = (0.0, 0.0);
        for f in &summary.flows {
            if f.name.starts_with("to-n1/") {
                hot += f.throughput_bps;
            } else {
                others += f.throughput_bps;
            }
        }
        scalars.push(("hotspot_flows_gbps".to_string(), hot / 1e9));
        scalars.push(("other_flows_gbps".to_string(), others / 1e9));
    } else {
        for f in &summary.flows {
            scalars.push((format!("gbps_{}", f.name), f.throughput_bps / 1e9));
        }
    }
    if cell.get("test") == "test5" {
        let dt = sim.recorder().interval as f64 / crate::engine::PS_PER_S as f64;
        let (up, down) = reaction_times_ms(&sim.recorder().throughput, dt);
        scalars.push(("reaction_up_ms".to_string(), up));
        scalars.push(("reaction_down_ms".to_string(), down));
    }
    let series =
        vec![("queues", sim.recorder().queues.clone()), ("throughput", sim.recorder().throughput.clone())];
    Measured { scalars, series }
}

/// Test 5's reaction times, ms: after the bursty pair switches on (a load increase: the
/// steady flows' fair share falls from 5 to 2.5 Gbit/s) and off (it rises back), the time
/// until both steady flows stay within 10 % of their new share for 1 ms, averaged over
/// the switches that reach it before the next one (NaN if none does). `ts` is the
/// per-flow throughput series, sampled every `dt` seconds.
pub fn reaction_times_ms(ts: &crate::metrics::TimeSeries, dt: f64) -> (f64, f64) {
    let steady: Vec<&[f64]> =
        ts.columns.iter().filter(|c| c.name.starts_with("steady/")).map(|c| c.values.as_slice()).collect();
    if steady.len() != 2 || ts.times_s.is_empty() || dt <= 0.0 {
        return (f64::NAN, f64::NAN);
    }
    let hold = (0.001 / dt).round().max(1.0) as usize;
    let period = 0.020;
    let end = ts.times_s.last().copied().unwrap_or(0.0);
    let (mut up, mut down) = (Vec::new(), Vec::new());
    let mut k = 1;
    while (k as f64) * period < end - period {
        let at = k as f64 * period;
        // Switches on at even multiples of 20 ms (a load increase), off at odd ones.
        let increase = k % 2 == 0;
        let share = if increase { 2.5e9 } else { 5e9 };
        let within =
            |i: usize| steady.iter().all(|c| c.get(i).is_some_and(|v| (v - share).abs() <= 0.1 * share));
        // Sample i covers (t_i − dt, t_i]: the first that starts at or after the switch.
        let first = ts.times_s.iter().position(|&t| t - dt >= at - 1e-12).unwrap_or(ts.times_s.len());
        let last = ts.times_s.iter().position(|&t| t - dt >= at + period - 1e-12).unwrap_or(ts.times_s.len());
        if let Some(i) = (first..last.saturating_sub(hold)).find(|&i| (i..i + hold).all(within)) {
            let ms = (ts.times_s[i] - dt - at) * 1e3;
            if increase {
                up.push(ms)
            } else {
                down.push(ms)
            }
        }
        k += 1;
    }
    let mean = |v: &[f64]| if v.is_empty() { f64::NAN } else { v.iter().sum::<f64>() / v.len() as f64 };
    (mean(&up), mean(&down))
}

/// The seed's numbers: the fair allocations it states.
fn paper_numbers() -> Vec<PaperNumber> {
    let n = |what, test, value, metric| PaperNumber {
        what,
        at: match test {
            "baseline" => &[("test", "baseline")],
            "test3" => &[("test", "test3")],
            "test7" => &[("test", "test7")],
            _ => &[("test", "test8")],
        },
        value,
        unit: "Gbit/s",
        quantity: Quantity::Metric(metric),
        rule: Rule::VALUE,
    };
    vec![
        n("fair share of source 1 (reference §9.1)", "baseline", 2.5, "gbps_hot/n1"),
        n("fair share of source 4 (reference §9.1)", "baseline", 2.5, "gbps_hot/n4"),
        n("culprit 1 → 7, one of four into node 7's 2 Gbit/s", "test3", 0.5, "gbps_culprit/n1"),
        n("culprit 9 → 7, joining at switch 2", "test3", 0.5, "gbps_culprit/n9"),
        n("victim 2 → 9, sharing switch 1's trunk", "test3", 7.0, "gbps_victim-n2/n2"),
        n("victim 10 → 6, sharing switch 3's trunk", "test3", 7.0, "gbps_victim-n10/n10"),
        n("flow 1 → 8, one of four to node 8", "test7", 2.5, "gbps_hot/n1"),
        n("flow 7 → 8, one of four to node 8", "test7", 2.5, "gbps_hot/n7"),
        n("flow 2 → 4, sharing sw1 → sw2 with 1 → 8", "test7", 7.5, "gbps_light/n2"),
        n("flow 1 → 8, one of four into switch 2", "test8", 2.5, "gbps_hot/n1"),
        n("flow 6 → 7, one of four into switch 2", "test8", 2.5, "gbps_n6-n7/n6"),
        n("flow 4 → 8, the local flow to node 8", "test8", 7.5, "gbps_hot/n4"),
    ]
}

/// The declaration.
pub fn study() -> Study {
    let axes = vec![
        Axis {
            name: "test",
            title: "test",
            prefix: "",
            levels: TESTS.iter().map(|(k, l, _)| level(k, l)).collect(),
        },
        Axis {
            name: "protocol",
            title: "protocol",
            prefix: "",
            levels: PROTOCOLS.iter().map(|(k, l)| level(k, l)).collect(),
        },
        Axis {
            name: "params",
            title: "parameter set",
            prefix: "",
            levels: vec![level("run1", "parameter set 1"), level("run2", "parameter set 2")],
        },
    ];
    let doc = |name, title, unit, doc| MetricDoc { name, title, unit, doc };
    let metrics = vec![
        doc("hotspot_utilisation_pct", "Hotspot utilisation", "%", "bits the test's first congested port sent ÷ its rate × the run's duration."),
        doc("hotspot_queue_mean_frames", "Hotspot queue", "frames", "time-weighted mean length of that port's queue (ECM's Qeq = 24000 B = 16 frames)."),
        doc("hotspot_queue_std_frames", "Hotspot queue std", "frames", "its time-weighted standard deviation: the oscillation measure."),
        doc("max_queue_frames", "Largest queue", "frames", "the longest any switch queue grew (capacity 200)."),
        doc("loss_pct", "Loss", "%", "frames dropped at switch queues ÷ frames arriving at them."),
        doc("maxmin_fairness", "Fairness vs max-min", "index", "Jain's index over the flows' throughput ÷ their max-min fair rate (progressive filling over link rates and host service rates)."),
        doc("worst_maxmin_share", "Worst share", "fraction", "the smallest throughput ÷ max-min fair rate of any flow."),
        doc("gbps_*", "Flow throughput", "Gbit/s", "a flow's delivered bits over the run's duration, named by its traffic entry and source."),
        doc("hotspot_flows_gbps", "Into the hotspot", "Gbit/s", "test 1: the nine flows to node 1, together, over the run's duration (node 1 serves 1 Gbit/s from 0 to 100 ms; traffic flows from 10 to 90 ms)."),
        doc("other_flows_gbps", "Elsewhere", "Gbit/s", "test 1: the other 81 flows together (offered: 81 × 944 Mbit/s × 80 % of the run = 61.2 Gbit/s)."),
        doc("reaction_up_ms", "Reaction to a load increase", "ms", "test 5: after the bursty pair switches on, the time until both steady flows stay within 10 % of their new fair share (2.5 Gbit/s) for 1 ms; the mean over the switches where that happens within the 20 ms period (250 µs samples)."),
        doc("reaction_down_ms", "Reaction to a load decrease", "ms", "the same after the pair switches off (new share 5 Gbit/s)."),
    ];
    let comparison = Comparison {
        numbers: paper_numbers(),
        where_axes: &["test"],
        columns: &[
            Column { label: "ECM", at: &[("protocol", "ecm"), ("params", "run1")] },
            Column { label: "E2CM", at: &[("protocol", "e2cm"), ("params", "run1")] },
            Column { label: "E2CM-P", at: &[("protocol", "e2cm-p"), ("params", "run1")] },
            Column { label: "E2CM-PR", at: &[("protocol", "e2cm-pr"), ("params", "run1")] },
            Column { label: "FECN", at: &[("protocol", "fecn"), ("params", "run1")] },
            Column { label: "FECN-B", at: &[("protocol", "fecn-b"), ("params", "run1")] },
            Column { label: "QCN", at: &[("protocol", "qcn"), ("params", "run1")] },
            Column { label: "QCN-P", at: &[("protocol", "qcn-p"), ("params", "run1")] },
            Column { label: "QCN-PR", at: &[("protocol", "qcn-pr"), ("params", "run1")] },
            Column { label: "none", at: &[("protocol", "none"), ("params", "run1")] },
        ],
        alternative: None,
        bounds: &[],
        tolerance: 0.25,
        note: "The seed states fair allocations, not measurements: each row is the max-min fair rate of a \
               flow next to the throughput it got over the whole run (start-up included) under each protocol; \
               the verdict judges ECM with the first parameter set against the fair rate, ± the 95 % confidence \
               interval over seeds. Every protocol column is the first parameter set.",
    };
    let tables = Tables {
        sections: "test",
        rows: &["protocol"],
        columns: &[
            TableColumn {
                header: "utilisation %",
                metric: "hotspot_utilisation_pct",
                digits: 1,
                absent_at: &[],
            },
            TableColumn {
                header: "hotspot queue",
                metric: "hotspot_queue_mean_frames",
                digits: 1,
                absent_at: &[],
            },
            TableColumn {
                header: "queue std",
                metric: "hotspot_queue_std_frames",
                digits: 1,
                absent_at: &[],
            },
            TableColumn { header: "largest queue", metric: "max_queue_frames", digits: 0, absent_at: &[] },
            TableColumn { header: "loss %", metric: "loss_pct", digits: 3, absent_at: &[] },
            TableColumn {
                header: "fairness vs max-min",
                metric: "maxmin_fairness",
                digits: 3,
                absent_at: &[],
            },
            TableColumn { header: "worst share", metric: "worst_maxmin_share", digits: 2, absent_at: &[] },
            TableColumn {
                header: "into hotspot Gbit/s",
                metric: "hotspot_flows_gbps",
                digits: 2,
                absent_at: &[],
            },
            TableColumn { header: "elsewhere Gbit/s", metric: "other_flows_gbps", digits: 1, absent_at: &[] },
            TableColumn { header: "reaction up ms", metric: "reaction_up_ms", digits: 2, absent_at: &[] },
            TableColumn { header: "reaction down ms", metric: "reaction_down_ms", digits: 2, absent_at: &[] },
        ],
    };
    let protocols: &'static [&'static str] =
        &["none", "ecm", "e2cm", "e2cm-p", "e2cm-pr", "fecn", "fecn-b", "qcn", "qcn-p", "qcn-pr"];
    let bars = |file, caption, y_label, metric, y_max| Figure::Bars {
        file,
        caption,
        y_label,
        at: &[],
        categories: "test",
        series: ("protocol", protocols),
        metric,
        y_max,
    };
    let queue = |file, caption, at| Figure::Series {
        file,
        caption,
        at,
        series: "queues",
        scale: 1.0,
        rebin: 1,
        y_label: "frames",
        reference: Some(("ECM Qeq = 16 frames", 16.0)),
        step: crate::report::plot::Step::None,
        worst_is_lowest: false,
    };
    let figures = vec![
        bars(
            "fairness",
            "Jain's index against the max-min allocation",
            "index",
            "maxmin_fairness",
            Some(1.0),
        ),
        bars("loss", "Frames lost at switch queues", "% of arrivals", "loss_pct", None),
        bars(
            "hotspot-queue",
            "Mean queue at the first congested port",
            "frames",
            "hotspot_queue_mean_frames",
            None,
        ),
        bars("oscillation", "Standard deviation of that queue", "frames", "hotspot_queue_std_frames", None),
        queue(
            "queues-baseline-ecm",
            "Queues over time, baseline, ECM",
            &[("test", "baseline"), ("protocol", "ecm")],
        ),
        queue("queues-test7-ecm", "Queues over time, test 7, ECM", &[("test", "test7"), ("protocol", "ecm")]),
        queue(
            "queues-test10-ecm",
            "Queues over time, test 10, ECM",
            &[("test", "test10"), ("protocol", "ecm")],
        ),
        queue(
            "queues-test7-none",
            "Queues over time, test 7, no congestion management",
            &[("test", "test7"), ("protocol", "none")],
        ),
        queue(
            "queues-baseline-fecn",
            "Queues over time, baseline, FECN",
            &[("test", "baseline"), ("protocol", "fecn")],
        ),
        queue(
            "queues-test9-fecn",
            "Queues over time, test 9, FECN",
            &[("test", "test9"), ("protocol", "fecn")],
        ),
    ];
    Study {
        name: "roeck2007",
        title: "Roeck 2007: congestion management protocols on the IEEE 802.1au tests",
        seeds: (5, 2),
        quick_duration: Duration(20 * PS_PER_MS),
        axes,
        // Without congestion management, and for FECN (one parameter set in the seed),
        // the parameter sets do not differ.
        alias: |c| {
            (one_parameter_set(c.get("protocol")) && c.get("params") == "run2")
                .then(|| c.with(&[("params", "run1")]))
                .flatten()
        },
        skip: |_| false,
        scenario,
        measure,
        metrics,
        comparison,
        tables,
        facets: &["params"],
        figures,
        every_cell: vec![
            CellSeries {
                series: "queues",
                title: "queues",
                scale: 1.0,
                y_label: "frames",
                step: crate::report::plot::Step::None,
                worst_is_lowest: false,
            },
            CellSeries {
                series: "throughput",
                title: "throughput",
                scale: 1e-9,
                y_label: "Gbit/s",
                step: crate::report::plot::Step::Before,
                worst_is_lowest: true,
            },
        ],
        intro: INTRO,
        gaps: GAPS,
    }
}

const INTRO: &str = r#"
## What was run

- **Tests** (`scenarios/roeck2007/`): the baseline and tests 1, 3, 5, 7, 8, 9 and 10, as the
  seed describes them, with its system parameters: 10 Gbit/s links, 1 µs switch latency,
  500 ns link latency, 200-frame (300 kB) switch queues, 1500-byte frames, no switch
  PAUSE. Where the seed is silent each file says what was chosen: the baseline's "50 %
  load" as 5 Gbit/s per source to node 5; test 1's node 1 serving 1 Gbit/s behind 802.3x
  PAUSE from a 100-frame input buffer, traffic from 10 to 90 ms; the two-switch wiring
  of tests 7 and 8 (nodes 1, 2, 3, 6 on switch 1), the only one that gives both tests'
  stated congestion points and fair shares; test 10 with the N = 10 switches its slide
  describes. Test 1 runs with one flow per source and destination
  (`roeck2007-test1-pairs`: each node's 8.5 Gbit/s as nine 944 Mbit/s flows), so that a
  rate limiter and a probe can belong to the traffic towards one node; with frames sent
  to random nodes (`roeck2007-test1`) a source's one limiter would throttle its traffic
  to every node, and there would be no path to probe. CBR sources carry a jitter of half
  a frame gap so that equal-period sources do not phase-lock.
- **Every protocol runs on every switch port and every flow**, with the seed's
  parameters; the table each cell adds to its test's scenario is in the cell's
  `scenario.toml` (`scenarios/` of this directory), and
  `cnsim::repro::roeck2007::protocol_table` writes it.
- **ECM** (`[protocols.ecm]`): Qeq 375, Qsc 1600, W 2, Gi 0.53333, Gd 0.00026667, Ru = Rd =
  Rmin = 1 Mbit/s, Td 1 ms, sampling every 150000 bytes (second set: 75000). Choices
  where neither the seed nor the reference gives the rule, each a scenario key: queue
  quantities in 64-byte pages (Qeq = 24000 B, the target QCN and FECN share); sampling
  intervals randomized by U(0.85, 1.15) as in QCN; BCN(0,0) read as the largest negative
  feedback (a halving); a drift of Rd per Td without feedback; one rate regulator per
  congestion point, the flow sending at and tagged with the most restrictive one.
- **E2CM** (`[protocols.e2cm]`, `probe_to = "destination"`): ECM's parameters, one rate
  regulator per path (every negative BCN cuts it, whichever CP sent it) and, while it
  limits the flow, a path probe to the destination every 100000 bytes (second set
  50000: the seed gives probeInterval for the -P variants only; we use it here too).
  Each port the probe passes adds the time its queue takes to drain at the port's rate
  (Q/C); the destination returns it, and the source reads its backlog on the path by
  Little's law, Qflow = R·delay, against flowQeq = 15000 bytes: Fb = −((Qflow − flowQeq)
  + W·ΔQflow) in pages, with ECM's laws. The E2CM slides were not found: this is the
  reference's reconstruction (§5), with the per-hop queue reading it offers.
- **E2CM-P and E2CM-PR** (`[protocols.e2cm]`): ECM's parameters, with probes every
  100000 bytes (second set: 50000) from a regulated flow to the CP of its latest negative
  BCN, 64 bytes at priority 7, in place of ECM's tags. Choices: the probe follows the
  flow's path and the CP with its CPID answers when the probe reaches its queue (the
  probe then goes on to the destination, which discards it); the reply carries the CP's
  Qoff and Qdelta at that moment; only a reply with Fb > 0 acts (the positive feedback
  tags used to bring; the seed's own advice is "avoid negative feedback to probes");
  under E2CM-PR the reply also carries the CP's fair rate, measured over rateTimer = 1 ms
  windows as r·f·C/A (f = Qeq/Q above the set point) and smoothed by switchRateWeight =
  0.02 per arriving frame, and the regulator never exceeds it; BCNs carry no rate.
- **FECN** (`[protocols.fecn]`): T 1 ms, N0 10, A 1.1, B 1.002, C 0.1, α 0.5, minRate
  10 Mbit/s, Qeq 192000 bits, and the reconstructed rate law of the reference (§6.1).
  Choices: probes, not tags (the seed), 64 bytes, at priority 7 in the second traffic
  class (`probe_class = "high"`: the seed sends its probes "as high priority frames";
  every test has two classes, strict priority); a port recomputes its rate at the first
  frame after each interval of T; the capacity is the link rate (no correction for time
  spent paused); a source probes with its first frame and every T after, and sends at
  minRate until the first probe returns (fast start is FECN-B's).
- **FECN-B** (`[protocols.fecn.severe]`): FECN plus BCN(0,0) from a port whose queue is at
  or above Qsc = 960000 bits (120000 B), checked every 150000 bytes of arrivals (ECM's
  sampling; the seed names no rate), which halves the source's rate at once, and "fast
  start": a source sends at line rate until its first probe returns
  (`source.fast_start`).
- **QCN** (`[protocols.qcn]`), the seed's 2-point set: Qeq 24000 B, W 2, Gd 1/128, timer
  200 µs, minRate 10 Mbit/s, minDecFactor 0.5, fast recovery threshold 5, A = 12 Mbit/s
  read as the active-increase step, hyper-active increase on (its step is not given:
  802.1Qau's 50 Mbit/s). Readings of the names the seed gives without rules: each
  arriving frame is sampled with probability baseProbability·(1 + 9·|Fb|/63), 1 % to 10 %
  (2 % to 20 % in the second set); toThreshold is the byte counter (150000 is 802.1Qau's,
  75000 in the second set); extraFastRecovery halves the byte-counter cycles for the
  first EfrMax = 1000000 bytes after a CNM; driftFactor = 1.0005 multiplies CR at each
  timer expiry.
- **QCN-P and QCN-PR**: the QCN set without drift, byte counter (toThreshold) 100000
  bytes (second set 50000), which is also the probe interval (the E2CM sets' probeInterval
  takes the same values). QCN-P: a reply with Fb ≥ 0 adds selfIncrease = 1 Mbit/s to the
  rate ("linear self-increase"). QCN-PR: the CP's fair rate as under E2CM-PR with
  switchRateWeight 0.002, and each frame sent moves the rate by selfIncreaseFactor = 0.1 %
  of the gap to it (per reply, 0.1 % would take seconds to show).
- **Test 3**'s flows, service rate and fair allocation are the seed's; its wiring is
  ours (`scenarios/roeck2007/test3.toml`): a chain of four switches on which each victim
  shares a trunk with the culprits, which gives the seed's "five congestion points; all
  switches affected" (two trunks offered 11 Gbit/s, one 10, and the hotspot port 4 for
  its 2) and its fair shares.
- **Switch PAUSE** is off in every cell, as in the seed's runs ("no PAUSE generated by
  switch"); `protocols.pause.switches` turns it on. What it changes, on test 1 with
  frames to random nodes (`roeck2007-test1`, seed 1, no congestion management, XOFF 16
  and XON 8 frames per ingress port): no frame is lost (49750 lost without), but the
  PAUSE spreads from node 1's port to every source, and the traffic between the other
  nine nodes collapses from 76.5 to 17.7 Gbit/s (head-of-line blocking at the sources);
  the integration tests check both.
- **Not run**: tests 2 and 6 (background traffic over a multi-hop topology that the seed
  shows only as a picture we do not have) and test 4 (not defined in the seed either). Reaction times are measured on
  test 5 only, whose load changes at known instants.
"#;

const GAPS: &str = r#"
### The seed's verdicts next to ours

- **ECM** — *"Good performance over wide range of conditions"*: it keeps the hotspots
  busy and their queues near Qeq (16 frames); it loses frames only at the start, before
  the first BCN arrives (none at all with the second set on the baseline), where
  drop-tail loses half or more of what reaches the hotspot. *"Marginal fairness"*: see
  the fairness column; a regulator recovers only through samples of its own frames, and
  positive feedback goes only to frames a CP has tagged. *"Some oscillation with complex
  topologies"*: compare the queue std of tests 9 and 10 with the baseline's.
  *"Visible throughput impact due to tagging"*: our tag rides in the data frame's header
  and costs no bytes on the wire, so this model cannot show that impact.
- **E2CM** — *"Good fairness; favors short-distance flows over long distance flows"*:
  on the baseline and tests 7 and 8 its index is 0.99 (every regulated flow hears its
  own backlog; only E2CM-PR and FECN-B come closer to max-min). On the chains the hot
  flows from the far switches get least: on test 9 the flow from switch 1 gets about
  0.4 Gbit/s and the one from switch 7 about 3.1 (ECM: 0.8 and 1.9; fair: 1.25 each). A
  flow's path delay sums every queue it crosses, so the longest flows read the largest
  backlog and are cut hardest.
  *"Seems to have problems with output generated hotspots"*: on test 1 its hotspot queue
  stays near full (about 169 frames, against ECM's 93) and it loses more than ECM: a
  path probe counts the PAUSEd port's queue at the link's 10 Gbit/s (Q/C), while that
  port drains at node 1's 1 Gbit/s, so the flows into the hotspot read a tenth of
  their backlog and keep being told to speed up. The same reading of capacity is
  FECN's trouble there (below).
- **E2CM-P** — *"Pretty much equivalent to ECM"*: on the single-hotspot tests its queue,
  loss and utilisation match ECM's; its fairness is better there (probes reach every
  regulated flow, where ECM's positive feedback waits for a tagged frame to be sampled),
  and worse on the chains, where a flow's probes go to its latest CP only.
- **E2CM-PR** — *"Very good fairness"*: with FECN-B the closest to max-min on tests 7
  and 8 (an index of 0.99 and more). *"Oscillation in complex topologies w/ multiple hotspots"*: on
  the chains its hotspot utilisation drops (to about 86 % on test 9 and 78 % on test 10) and its fairness
  with it: a CP's fair-rate estimate counts flows bottlenecked elsewhere.
- **FECN** — *"Excellent fairness"*: with its probes in the high-priority class, 1.00 on
  the baseline, 0.99 on test 9 and 0.98 on test 10 (5 seeds), with the hotspots 93 % busy
  on the chains; test 5 is the exception (0.81): after each switch of the bursty pair the
  steady flows keep the old share until probes return an updated rate. A port advertises
  its full capacity until its first update (after T), so the first answers send every
  source to line rate: the start-up burst loses 2.3 % on the baseline. *"Problems with
  output generated hotspots and with complex topologies"*: on test 1 FECN loses 6.0 %
  against 8.8 % without management: the PAUSEd port advertises a share of its 10 Gbit/s
  link when it drains at 1 Gbit/s (we do not model the "variable capacity adjustment"
  that would correct for time spent paused); on the chains it loses 3.6 %. *"Slow
  reaction to changed conditions"*: see test 5's reaction columns. *"Oscillation with
  multiple hotspots"*: compare the queue deviations of tests 7–10 with the baseline's.
- **FECN-B** — the seed gives no verdict; ours: BCN(0,0) cuts FECN's losses several-fold
  everywhere but test 1 (on the chains from 3.6 % to 0.5 %; on test 1 a BCN(0,0) every
  150 KB of arrivals is no match for a port draining at a tenth of its rate); its
  fairness is FECN's (0.99 on the chains).
- **QCN** — *"Fast reaction to load increases, slow reaction to load decreases"*: on test
  5 our QCN takes longer to rise after the bursty pair leaves than to fall when it comes
  with the first parameter set, as the seed says, and barely with the second. *"Marginal
  fairness"*: see the fairness column (no positive feedback: a cut flow recovers on its
  own clock whatever the others do).
- **QCN-P** — *"Overall best performance"*: the QCN family has the steadiest queues
  (the lowest deviation and peak), keeps the hotspots at 99–100 % and, with the second
  set, loses nothing on any test but test 1. *"Marginal fairness"*: likewise ours, no better than QCN's:
  1 Mbit/s per positive reply is small next to QCN's own increases.
- **QCN-PR** — *"Good fairness"*: better than QCN-P's on every test with two hotspots or
  one (tests 7, 8 and the baseline), which is the seed's case for rate guidance.
  *"Starts oscillating in topology with 12 hotspots"*: our longest chain has 10; its
  queue deviation is the largest of the QCN family there.
- **Rate guidance on test 3** (*"rate guidance from switch improves fairness"*): on test
  7 both guided variants end clearly closer to max-min than their unguided versions,
  but on test 3 not clearly: QCN-PR's index is above QCN-P's by a thousandth or two
  (both near 0.996), and E2CM-PR's is below E2CM-P's with the first parameter set (0.94
  against 0.95, seeds ranging 0.89–0.98) and above with the second (0.975 against
  0.96). The likely reason is the same reading of capacity as FECN's on test 1: the
  hotspot port is PAUSEd by node 7 and drains at 2 Gbit/s, but its fair-rate estimate
  takes the link's 10 Gbit/s as C, so the rate it advertises stays far above the
  culprits' 0.5 Gbit/s and the cap it sets under E2CM-PR seldom binds; the culprits'
  spread then comes from the backward feedback alone, as without guidance.
- Where we contradict the seed: E2CM-P is fairer than ECM on single hotspots (the seed
  calls them equivalent), likely because our probes reach the CP every 100 KB of a
  regulated flow while ECM's positive feedback needs a sampled, tagged frame; and the
  whole probing family (E2CM-P/PR, QCN-P/PR) is *less* fair than its parent on the
  10-switch chain, which the seed does not report: a flow probes only its latest CP, and
  on a chain that is whichever CP cut it last, not its bottleneck.
"#;

#[cfg(test)]
mod tests {
    use super::*;
    use crate::metrics::TimeSeries;

    /// Every cell's scenario (each protocol's table under each parameter set, on every
    /// test) is valid and builds.
    #[test]
    fn every_protocol_table_installs_on_every_test() {
        for (test, _, _) in TESTS {
            for (protocol, _) in PROTOCOLS {
                for params in ["run1", "run2"] {
                    let name = scenario_name(test);
                    let text =
                        format!("{}\n{}", bundled::get(&name).unwrap(), protocol_table(protocol, params));
                    let s = parse(&text, &name, &[]).unwrap_or_else(|e| panic!("{protocol} {params}: {e}"));
                    crate::scenario::build(&s, &name)
                        .unwrap_or_else(|e| panic!("{test} {protocol} {params}: {e}"));
                }
            }
        }
    }

    /// Steady flows at 5 Gbit/s that fall to 2.5 Gbit/s 3 ms after the switch-on at
    /// 40 ms and rise back 6 ms after the switch-off at 60 ms; 250 µs samples over 100 ms.
    #[test]
    fn reaction_times_hand_example() {
        let dt = 0.00025;
        let mut ts =
            TimeSeries::new("throughput", "bit/s", ["steady/n3", "steady/n4", "bursty/n1"].map(String::from));
        for i in 1..=400 {
            let t = i as f64 * dt;
            let start = t - dt;
            let v = if (0.043..0.066).contains(&start) { 2.5e9 } else { 5e9 };
            ts.times_s.push(t);
            for c in &mut ts.columns {
                c.values.push(v);
            }
        }
        let (up, down) = reaction_times_ms(&ts, dt);
        // Switches at 20 (off), 40 (on), 60 (off); 80 is too close to the end. At 20 the
        // flows are already at 5: reaction 0. At 40: 3 ms. At 60: 6 ms; mean down 3 ms.
        assert!((up - 3.0).abs() < 1e-9, "{up}");
        assert!((down - 3.0).abs() < 1e-9, "{down}");
    }
}
