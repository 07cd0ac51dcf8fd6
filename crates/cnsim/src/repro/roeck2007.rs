//! Roeck, "Congestion Management Protocols Simulation Results and Protocol Variations"
//! (IEEE 802.1au, July 2007): ECM, E2CM, FECN, QCN and their probing variants on the
//! 802.1au test topologies: every test the seed describes (baseline, 1, 2, 3, 5, 6, 7, 8,
//! 9, 10; the wiring of tests 2, 3 and 6 reconstructed; test 1 with a flow per destination
//! and with frames to random nodes) with no congestion management and with every protocol
//! the seed ran: ECM, E2CM, E2CM-P, E2CM-PR, FECN, FECN-B, QCN, QCN-P and QCN-PR, each under
//! both of the seed's parameter sets where it gives two.
//!
//! The seed's results are plots and verdicts. Its numbers are the fair allocations it
//! states (tests 3, 7 and 8), set against our max-min allocation and against each flow's
//! throughput under every protocol; its verdicts ("excellent fairness", "slow reaction to
//! load decreases", ...) are read as directions between cells, each with the rule that
//! decides it. Every cell is a bundled scenario (`scenarios/roeck2007/*.toml`) with the
//! protocol's table added.

use super::study::{
    At, Axis, Cell, CellSeries, Column, Comparison, Figure, Level, Measured, MetricDoc, PaperNumber,
    Quantity, Rule, Study, TableColumn, Tables, Verdict,
};
use crate::engine::{Time, PS_PER_MS};
use crate::metrics::summary::Summary;
use crate::scenario::{bundled, parse, Scenario};
use crate::sim::Sim;
use crate::units::Duration;

/// The registry entry of this reproduction.
pub const REPRODUCTION: super::Reproduction = super::Reproduction { name: "roeck2007", declare: study };

const fn level(key: &'static str, label: &'static str) -> Level {
    Level { key, label }
}

/// The tests, as (key, label, the hotspot's port: where the max-min allocation's first
/// bottleneck lies, a host's port or, on tests 8, 9 and 10, a trunk; on the chains the
/// trunk into the last switch, which 8 of test 9's flows and 13 of test 10's share, where
/// the hotspot host's own port carries 7 × 1.25 and 12 × 0.77 Gbit/s).
const TESTS: [(&str, &str, &str); 11] = [
    ("baseline", "baseline: 4 sources into 1 port", "sw->n5"),
    ("test1", "test 1: output-generated hotspot, a flow per destination", "sw->n1"),
    ("test1-uniform", "test 1: output-generated hotspot, frames to random nodes", "sw->n1"),
    ("test2", "test 2: output-generated hotspot, multi-hop, background", "sw4->n7"),
    ("test3", "test 3: output-generated hotspot, multi-hop, victims", "sw4->n7"),
    ("test5", "test 5: bursty single hotspot", "sw->n5"),
    ("test6", "test 6: output-generated dual hotspot, multi-hop, background", "sw4->n7"),
    ("test7", "test 7: light then heavy hotspot", "sw2->n8"),
    ("test8", "test 8: heavy then light hotspot", "sw1->sw2"),
    ("test9", "test 9: 7-switch chain", "sw6->sw7"),
    ("test10", "test 10: 12-switch chain", "sw11->sw12"),
];

fn hotspot(test: &str) -> &'static str {
    TESTS.iter().find(|t| t.0 == test).map_or("", |t| t.2)
}

/// The two test-1 readings of "All nodes (10): uniform distribution".
fn is_test1(test: &str) -> bool {
    matches!(test, "test1" | "test1-uniform")
}

/// The window a test's traffic fills, ps: test 1's sources send from 10 to 90 ms (or
/// until a shorter run ends); every other test's send for the whole run.
pub fn traffic_window(test: &str, end: Time) -> (Time, Time) {
    if is_test1(test) {
        ((10 * PS_PER_MS).min(end), (90 * PS_PER_MS).min(end))
    } else {
        (0, end)
    }
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

/// The bundled scenario of a test: test 1 with a flow per source and destination (the
/// seed ran FECN and E2CM on it, whose probes need one destination per flow), and with
/// frames to random nodes (`test1-uniform`).
pub fn scenario_name(test: &str) -> String {
    match test {
        "test1" => "roeck2007-test1-pairs".into(),
        "test1-uniform" => "roeck2007-test1".into(),
        _ => format!("roeck2007-{test}"),
    }
}

/// Cells that cannot run: FECN probes the path to a flow's one destination, which a
/// source sending each frame to a random node does not have.
fn skip(cell: &Cell) -> bool {
    cell.get("test") == "test1-uniform" && matches!(cell.get("protocol"), "fecn" | "fecn-b")
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

/// The rate a port's queue drains at, bit/s: its link's, or the service rate of the host
/// it feeds where that is lower (an output-generated hotspot).
fn drain_rate(sim: &Sim, port: u32) -> f64 {
    let net = sim.net();
    let p = &net.ports[port as usize];
    let peer = net.ports[p.peer as usize].node;
    let service = sim
        .link_control()
        .and_then(|l| l.service_rates().into_iter().find(|(h, _)| *h == peer).map(|(_, r)| r));
    service.map_or(p.rate_bps, |r| r.min(p.rate_bps)) as f64
}

/// Bits `port` sent within [from, to] ps, from the recorder's utilisation series (its
/// samples cover (t − interval, t]); all it sent in the run where the series is missing.
fn bits_sent_within(sim: &Sim, port: u32, from: Time, to: Time) -> f64 {
    let net = sim.net();
    let rec = sim.recorder();
    let name = net.port_name(port);
    let rate = net.ports[port as usize].rate_bps as f64;
    let dt = rec.interval as f64 / crate::engine::PS_PER_S as f64;
    let col = rec.utilisation.columns.iter().find(|c| c.name == name);
    match col {
        Some(c) if dt > 0.0 => {
            let (a, b) =
                (from as f64 / crate::engine::PS_PER_S as f64, to as f64 / crate::engine::PS_PER_S as f64);
            rec.utilisation
                .times_s
                .iter()
                .zip(&c.values)
                .filter(|(&t, _)| t - dt >= a - 1e-12 && t <= b + 1e-12)
                .map(|(_, u)| u * dt * rate)
                .sum()
        }
        _ => sim.queue_stats(port).map(|q| q.sent_bytes).sum::<u64>() as f64 * 8.0,
    }
}

/// The metrics of a run.
fn measure(cell: &Cell, sim: &Sim) -> Measured {
    let test = cell.get("test");
    let summary = Summary::of(sim, "", 0);
    let (w0, w1) = traffic_window(test, sim.end());
    let window_s = (w1 - w0) as f64 / crate::engine::PS_PER_S as f64;
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
    let hot = summary.queues.iter().find(|q| q.port == hotspot(test));
    let hot_port = sim.net().port_by_name(hotspot(test));
    let hot_bits = hot_port.map_or(0.0, |p| bits_sent_within(sim, p, w0, w1));
    let mut scalars = vec![
        (
            "hotspot_utilisation_pct".to_string(),
            hot_port.map_or(f64::NAN, |p| 100.0 * hot_bits / drain_rate(sim, p) / window_s),
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
    let gbps = |bytes: u64| bytes as f64 * 8.0 / window_s / 1e9;
    for f in &summary.flows {
        scalars.push((format!("gbps_{}", f.name), gbps(f.stats.delivered_bytes)));
    }
    for f in &summary.flows {
        if let Some(fair) = f.maxmin_bps {
            scalars.push((format!("fair_gbps_{}", f.name), fair / 1e9));
        }
    }
    if is_test1(test) {
        // Into node 1 within the window; elsewhere: everything delivered but what node 1
        // took in the whole run; per source, all it delivered, averaged over nodes 2-10.
        let delivered: u64 = summary.flows.iter().map(|f| f.stats.delivered_bytes).sum();
        let into_n1: u64 = hot.map_or(0, |q| q.sent_bytes);
        scalars.push(("hotspot_flows_gbps".to_string(), hot_bits / window_s / 1e9));
        scalars.push(("other_flows_gbps".to_string(), gbps(delivered.saturating_sub(into_n1))));
        let mut per_source = std::collections::BTreeMap::<&str, u64>::new();
        for f in summary.flows.iter().filter(|f| f.src != "n1") {
            *per_source.entry(f.src.as_str()).or_default() += f.stats.delivered_bytes;
        }
        let victims: Vec<f64> = per_source.values().map(|&b| gbps(b)).collect();
        scalars.push((
            "victim_source_gbps".to_string(),
            victims.iter().sum::<f64>() / victims.len().max(1) as f64,
        ));
    }
    if test == "test5" {
        let dt = sim.recorder().interval as f64 / crate::engine::PS_PER_S as f64;
        let (up, down) = reaction_times_ms(&sim.recorder().throughput, dt);
        scalars.push(("reaction_up_ms".to_string(), up));
        scalars.push(("reaction_down_ms".to_string(), down));
        scalars.push(("reaction_gap_ms".to_string(), down - up));
    }
    if matches!(test, "test9" | "test10") {
        // The hot flows from the first switch (across every trunk) and from the last
        // switch but one (across one).
        let n = if test == "test9" { 7 } else { 12 };
        let rate =
            |name: String| summary.flows.iter().find(|f| f.name.starts_with(&name)).map(|f| f.throughput_bps);
        let near_far = match (rate(format!("hot{}/", n - 1)), rate("hot1/".to_string())) {
            (Some(near), Some(far)) if far > 0.0 => near / far,
            _ => f64::NAN,
        };
        scalars.push(("near_far_ratio".to_string(), near_far));
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

/// The protocols the seed ran, as (key, label).
const SEED_PROTOCOLS: [(&str, &str); 9] = [
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

/// The fair allocations the seed states, as (test, flow, what, Gbit/s).
const STATED: [(&str, &str, &str, f64); 10] = [
    ("test3", "culprit/n1", "culprit 1 → 7, one of four into node 7's 2 Gbit/s", 0.5),
    ("test3", "culprit/n9", "culprit 9 → 7, joining at switch 2", 0.5),
    ("test3", "victim-n2/n2", "victim 2 → 9, sharing switch 1's trunk", 7.0),
    ("test3", "victim-n10/n10", "victim 10 → 6, sharing switch 3's trunk", 7.0),
    ("test7", "hot/n1", "flow 1 → 8, one of four to node 8", 2.5),
    ("test7", "hot/n7", "flow 7 → 8, one of four to node 8", 2.5),
    ("test7", "light/n2", "flow 2 → 4, sharing sw1 → sw2 with 1 → 8", 7.5),
    ("test8", "hot/n1", "flow 1 → 8, one of four into switch 2", 2.5),
    ("test8", "n6-n7/n6", "flow 6 → 7, one of four into switch 2", 2.5),
    ("test8", "hot/n4", "flow 4 → 8, the local flow to node 8", 7.5),
];

/// The tests with a fairness slide in the seed and a max-min allocation of their flows.
const FAIRNESS_TESTS: [&str; 7] = ["baseline", "test3", "test5", "test7", "test8", "test9", "test10"];

/// The tests with an output-generated hotspot (a host that PAUSEs its switch port).
const OGH_TESTS: [&str; 5] = ["test1", "test1-uniform", "test2", "test3", "test6"];

/// The declaration's rows are built from the tables above once per declaration; their
/// text and coordinates live as long as the program.
fn leak(s: String) -> &'static str {
    Box::leak(s.into_boxed_str())
}

fn leak_at(v: Vec<(&'static str, &'static str)>) -> At {
    Box::leak(v.into_boxed_slice())
}

/// The seed's numbers and claims, each with the rule that decides its verdict.
fn paper_numbers() -> Vec<PaperNumber> {
    let mut out = Vec::new();
    let above = Rule::Beyond { above: true };
    let below = Rule::Beyond { above: false };
    let by_protocol = |metric, from, to| Quantity::Change { metric, axis: "protocol", from, to };
    let by_test = |metric, from, to| Quantity::Change { metric, axis: "test", from, to };
    let mut push = |what: String, at: Vec<(&'static str, &'static str)>, value, unit, quantity, rule| {
        out.push(PaperNumber { what: leak(what), at: leak_at(at), value, unit, quantity, rule })
    };
    // The stated allocations, against the max-min allocation of our topologies (test 3's
    // wiring is ours; tests 7 and 8 place the nodes as the one wiring that fits both).
    for (test, flow, what, v) in STATED {
        push(
            format!("fair allocation of {what}: our max-min rate"),
            vec![("test", test), ("protocol", "none")],
            v,
            "Gbit/s",
            Quantity::Metric(leak(format!("fair_gbps_{flow}"))),
            Rule::VALUE,
        );
    }
    // Each protocol's throughput against them, moved from drop-tail's.
    for (test, flow, what, v) in STATED {
        for (protocol, _) in SEED_PROTOCOLS {
            push(
                format!("{what}: throughput against the stated fair share"),
                vec![("test", test), ("protocol", protocol)],
                v,
                "Gbit/s",
                Quantity::Metric(leak(format!("gbps_{flow}"))),
                Rule::Value { from: Some(&[("protocol", "none")]) },
            );
        }
    }
    // The fairness verdicts as orderings of Jain's index against max-min.
    let orderings = [
        ("ecm", "fecn", "FECN \"excellent fairness\" above ECM's \"marginal\": fairness index, change ECM → FECN"),
        ("ecm", "e2cm", "E2CM \"good fairness\" above ECM's \"marginal\": fairness index, change ECM → E2CM"),
        (
            "e2cm-p",
            "e2cm-pr",
            "E2CM-PR \"very good fairness\", \"rate guidance improves fairness\": fairness index, change E2CM-P → E2CM-PR",
        ),
        (
            "qcn-p",
            "qcn-pr",
            "QCN-PR \"good fairness\" above QCN-P's \"marginal\", \"rate guidance improves fairness\": fairness index, change QCN-P → QCN-PR",
        ),
        (
            "qcn",
            "qcn-p",
            "\"linear self-increase improves fairness over multiplicative\": fairness index, change QCN → QCN-P",
        ),
    ];
    for (from, to, what) in orderings {
        for test in FAIRNESS_TESTS {
            push(
                what.into(),
                vec![("test", test)],
                0.0,
                "%",
                by_protocol("maxmin_fairness", from, to),
                above,
            );
        }
    }
    for test in FAIRNESS_TESTS {
        for (metric, what) in
            [("maxmin_fairness", "fairness index"), ("hotspot_queue_mean_frames", "hotspot queue")]
        {
            push(
                format!("E2CM-P \"pretty much equivalent to ECM\": {what}, change ECM → E2CM-P"),
                vec![("test", test)],
                0.0,
                "%",
                by_protocol(metric, "ecm", "e2cm-p"),
                Rule::VALUE,
            );
        }
    }
    // Oscillation: the standard deviation of the hotspot's queue.
    let std = "hotspot_queue_std_frames";
    let short = |test: &str| {
        if test == "baseline" {
            "the baseline".to_string()
        } else {
            format!("test {}", &test[4..])
        }
    };
    for to in ["test9", "test10"] {
        push(
            format!(
                "ECM \"some oscillation with complex topologies\": hotspot queue std, change baseline → {}",
                short(to)
            ),
            vec![("protocol", "ecm")],
            0.0,
            "%",
            by_test(std, "baseline", to),
            above,
        );
    }
    for to in ["test7", "test8", "test9", "test10"] {
        push(
            format!(
                "FECN \"oscillation with multiple hotspots\": hotspot queue std, change baseline → {}",
                short(to)
            ),
            vec![("protocol", "fecn")],
            0.0,
            "%",
            by_test(std, "baseline", to),
            above,
        );
    }
    for to in ["test9", "test10"] {
        push(
            format!("E2CM-PR \"oscillation in complex topologies w/ multiple hotspots\": hotspot queue std, change baseline → {}", short(to)),
            vec![("protocol", "e2cm-pr")],
            0.0,
            "%",
            by_test(std, "baseline", to),
            above,
        );
    }
    push(
        "QCN-PR \"starts oscillating in topology with 12 hotspots\": hotspot queue std, change test 9 (7 hotspots) → test 10 (12)".into(),
        vec![("protocol", "qcn-pr")],
        0.0,
        "%",
        by_test(std, "test9", "test10"),
        above,
    );
    for test in ["test9", "test10"] {
        for (from, to, label) in
            [("e2cm-p", "e2cm-pr", "E2CM-P → E2CM-PR"), ("qcn-p", "qcn-pr", "QCN-P → QCN-PR")]
        {
            push(
                format!("rate guidance \"may cause oscillations\": hotspot queue std, change {label}"),
                vec![("test", test)],
                0.0,
                "%",
                by_protocol(std, from, to),
                above,
            );
        }
    }
    // Performance.
    for (test, _, _) in TESTS {
        push(
            "ECM \"good performance over wide range of conditions\": frames lost at switch queues".into(),
            vec![("test", test), ("protocol", "ecm")],
            1.0,
            "%",
            Quantity::Metric("loss_pct"),
            below,
        );
    }
    push(
        "ECM \"visible throughput impact due to tagging\"".into(),
        vec![("test", "baseline"), ("protocol", "ecm")],
        f64::NAN,
        "",
        Quantity::Metric("hotspot_utilisation_pct"),
        Rule::Declared(
            Verdict::NotComparable,
            "our tag rides in the data frame's header and costs no bytes on the wire, so the model has no such impact",
        ),
    );
    push(
        "QCN-P \"overall best performance\"".into(),
        vec![("test", "baseline"), ("protocol", "qcn-p")],
        f64::NAN,
        "",
        Quantity::Metric("loss_pct"),
        Rule::Declared(
            Verdict::NotComparable,
            "the seed names no measure that ranks protocols overall; the tables give each measure per test",
        ),
    );
    for test in OGH_TESTS {
        push(
            "E2CM \"problems with output generated hotspots\": loss, change ECM → E2CM".into(),
            vec![("test", test)],
            0.0,
            "%",
            by_protocol("loss_pct", "ecm", "e2cm"),
            above,
        );
    }
    for test in OGH_TESTS.into_iter().filter(|t| *t != "test1-uniform") {
        push(
            "FECN \"problems with output generated hotspots\": loss, change ECM → FECN".into(),
            vec![("test", test)],
            0.0,
            "%",
            by_protocol("loss_pct", "ecm", "fecn"),
            above,
        );
    }
    for test in ["test9", "test10"] {
        push(
            "FECN \"problems ... with complex topologies\": loss, change ECM → FECN".into(),
            vec![("test", test)],
            0.0,
            "%",
            by_protocol("loss_pct", "ecm", "fecn"),
            above,
        );
    }
    // Reaction times on test 5.
    for (metric, what) in
        [("reaction_up_ms", "to a load increase"), ("reaction_down_ms", "to a load decrease")]
    {
        push(
            format!("FECN \"slow reaction to changed conditions\": reaction {what}, change ECM → FECN"),
            vec![("test", "test5")],
            0.0,
            "%",
            by_protocol(metric, "ecm", "fecn"),
            above,
        );
    }
    push(
        "QCN \"fast reaction to load increases, slow reaction to load decreases\": reaction to a decrease less reaction to an increase"
            .into(),
        vec![("test", "test5"), ("protocol", "qcn")],
        0.0,
        "ms",
        Quantity::Metric("reaction_gap_ms"),
        above,
    );
    for test in ["test9", "test10"] {
        push(
            "E2CM \"favors short-distance flows over long distance flows\": the nearest hot flow's throughput ÷ the farthest's"
                .into(),
            vec![("test", test), ("protocol", "e2cm")],
            1.0,
            "",
            Quantity::Metric("near_far_ratio"),
            above,
        );
    }
    out
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
        doc("hotspot_utilisation_pct", "Hotspot utilisation", "%", "bits the test's hotspot port (the max-min allocation's first bottleneck: a host's port, test 8's sw1 → sw2, the chains' trunk into the last switch) sent while the traffic flows ÷ the rate it drains at (its link's, or the service rate of the host it feeds: 1 Gbit/s on test 1, 2 on test 3, 0.5 on tests 2 and 6) × that time (test 1: 10–90 ms; elsewhere the run). A host that PAUSEs its port also takes up to its 100-frame input buffer beyond what it served (1.5 % of test 1's 80 ms at 1 Gbit/s, 2.4 % of 100 ms at 0.5 Gbit/s), so a hotspot busy throughout reads 100–102 %."),
        doc("hotspot_queue_mean_frames", "Hotspot queue", "frames", "time-weighted mean length of that port's queue (ECM's Qeq = 24000 B = 16 frames)."),
        doc("hotspot_queue_std_frames", "Hotspot queue std", "frames", "its time-weighted standard deviation: the oscillation measure."),
        doc("max_queue_frames", "Largest queue", "frames", "the longest any switch queue grew (capacity 200)."),
        doc("loss_pct", "Loss", "%", "frames dropped at switch queues ÷ frames arriving at them."),
        doc("maxmin_fairness", "Fairness vs max-min", "index", "Jain's index over the flows' throughput ÷ their max-min fair rate (progressive filling over link rates and host service rates, for each phase of the offered load and averaged over the run: on test 5, 1.25 Gbit/s for each on/off source and 3.75 for each steady one)."),
        doc("worst_maxmin_share", "Worst share", "fraction", "the smallest throughput ÷ max-min fair rate of any flow."),
        doc("gbps_*", "Flow throughput", "Gbit/s", "a flow's delivered bits ÷ the time its traffic flows (test 1: 80 ms; elsewhere the run), named by its traffic entry and source."),
        doc("fair_gbps_*", "Flow's fair rate", "Gbit/s", "a flow's max-min fair rate averaged over the run (the summary's maxmin_bps)."),
        doc("hotspot_flows_gbps", "Into the hotspot", "Gbit/s", "test 1: bits node 1 received from its switch port between 10 and 90 ms ÷ 80 ms (node 1 serves 1 Gbit/s)."),
        doc("other_flows_gbps", "Elsewhere", "Gbit/s", "test 1: bits delivered to nodes 2–10 ÷ 80 ms (offered: 76.5 Gbit/s, node 1's 8.5 and 8/9 of each other node's 8.5)."),
        doc("victim_source_gbps", "Per source", "Gbit/s", "test 1: what each of nodes 2–10 delivered to all its destinations ÷ 80 ms, their mean (max-min with a flow per destination: 8 × 0.944 + 0.111 = 7.67 Gbit/s)."),
        doc("reaction_up_ms", "Reaction to a load increase", "ms", "test 5: after the bursty pair switches on, the time until both steady flows stay within 10 % of their new fair share (2.5 Gbit/s) for 1 ms; the mean over the switches where that happens within the 20 ms period (250 µs samples)."),
        doc("reaction_down_ms", "Reaction to a load decrease", "ms", "the same after the pair switches off (new share 5 Gbit/s)."),
        doc("reaction_gap_ms", "Decrease less increase", "ms", "test 5: reaction_down_ms − reaction_up_ms of the same run."),
        doc("near_far_ratio", "Near ÷ far", "ratio", "tests 9 and 10: throughput of the hot flow from the last switch but one ÷ that of the hot flow from switch 1 (max-min: 1)."),
    ];
    let comparison = Comparison {
        numbers: paper_numbers(),
        where_axes: &["test", "protocol"],
        columns: &[
            Column { label: "parameter set 1 (the seed's)", at: &[("params", "run1")] },
            Column { label: "parameter set 2", at: &[("params", "run2")] },
        ],
        alternative: None,
        bounds: &[],
        tolerance: 0.25,
        note: "The seed states fair allocations and one-line verdicts, not measurements. The first rows set its \
               stated allocations against the max-min allocation of our topologies; the next, each protocol's \
               throughput of those flows against them (same trend: moved from drop-tail's towards the fair \
               share). The verdicts follow as directions: a change between protocols or tests (in %) or a value \
               above or below a threshold. The seed shows its first parameter set, which decides the verdict; \
               the second is shown beside it (FECN, FECN-B and no management have one set).",
    };
    const fn column(header: &'static str, metric: &'static str, digits: usize) -> TableColumn {
        TableColumn { header, metric, digits, absent_at: &[] }
    }
    const COLUMNS: &[TableColumn] = &[
        column("utilisation %", "hotspot_utilisation_pct", 1),
        column("hotspot queue", "hotspot_queue_mean_frames", 1),
        column("queue std", "hotspot_queue_std_frames", 1),
        column("largest queue", "max_queue_frames", 0),
        column("loss %", "loss_pct", 3),
        column("fairness vs max-min", "maxmin_fairness", 3),
        column("worst share", "worst_maxmin_share", 2),
        column("into hotspot Gbit/s", "hotspot_flows_gbps", 2),
        column("elsewhere Gbit/s", "other_flows_gbps", 1),
        column("per source Gbit/s", "victim_source_gbps", 2),
        column("reaction up ms", "reaction_up_ms", 2),
        column("reaction down ms", "reaction_down_ms", 2),
        column("near ÷ far", "near_far_ratio", 2),
    ];
    let tables = Tables { sections: "test", rows: &["protocol"], columns: COLUMNS };
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
        seeds: (10, 2),
        quick_duration: Duration(20 * PS_PER_MS),
        axes,
        // Without congestion management, and for FECN (one parameter set in the seed),
        // the parameter sets do not differ.
        alias: |c| {
            (one_parameter_set(c.get("protocol")) && c.get("params") == "run2")
                .then(|| c.with(&[("params", "run1")]))
                .flatten()
        },
        skip,
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
                share: None,
            },
            CellSeries {
                series: "throughput",
                title: "throughput",
                scale: 1e-9,
                y_label: "Gbit/s",
                step: crate::report::plot::Step::Before,
                worst_is_lowest: true,
                share: Some(("max-min fair share (run mean)", "fair_gbps_")),
            },
        ],
        intro: INTRO,
        gaps: GAPS,
    }
}

const INTRO: &str = r#"
## What was run

- **Tests** (`scenarios/roeck2007/`): every test the seed describes, with its system
  parameters: 10 Gbit/s links, 1 µs switch latency, 500 ns link latency, 200-frame
  (300 kB) switch queues, 1500-byte frames, no switch PAUSE; test 4 is not defined in
  the seed ("no time to implement framework changes required to run test 4") and is
  left out. 10 seeds per cell: every mean below comes with the 95 % confidence
  half-width of that mean over them (Student's t).
- **Readings, and what decides them** (each scenario file says the same):
  - baseline: "50 % load" as 5 Gbit/s per source to node 5 (the reference's other
    reading gives the same hotspot share).
  - test 1: node 1 serves 1 Gbit/s behind 802.3x PAUSE (XOFF 3/4, XON 1/2 of a
    100-frame input buffer: the seed gives no thresholds); traffic from 10 to 90 ms.
    "Uniform distribution" is run both ways: `test1`, one flow per source and
    destination (each node's 8.5 Gbit/s as nine 944 Mbit/s flows), and
    `test1-uniform`, each frame to a random node (one flow, and so one rate limiter,
    per source). The first is the default because the seed ran FECN and E2CM on test 1,
    whose probes need one destination per flow (FECN refuses the second: its cells are
    n/a); the second is where a source's one limiter throttles its frames to every node.
  - tests 2 and 6: the seed's loads (nodes 1–6 at 2.5, 7–10 at 4 Gbit/s, uniform over
    the nine others, a flow per destination as in `test1`) and hotspots (node 7, and on
    test 6 node 9, serving 5 % = 500 Mbit/s, PAUSE as in test 1) on test 3's
    reconstructed wiring (the same ten nodes): four switches in a chain, nodes 1, 2, 4, 8
    on sw1, 5 and 9 on sw2, 3 and 10 on sw3, 6 and 7 on sw4. The fair shares barely
    depend on it: no trunk carries more than 8.7 Gbit/s of the background, so the only
    bottlenecks are the hotspots, 55.6 Mbit/s for each of their nine senders, and every
    other flow keeps its offered rate under any wiring whose trunks carry less than 10.
  - test 3: the seed's flows, service rate and fair allocation; the wiring is ours (the
    same chain), which gives the seed's "five congestion points; all switches and all
    flows are affected" and its stated allocation.
  - tests 7 and 8: nodes 1, 2, 3, 6 on switch 1 and 4, 5, 7, 8 on switch 2, the one
    placement that gives both tests' stated congestion points and fair shares.
  - tests 9 and 10: the seed's rules ("node <i> sends to node <i+3>; node <i+1> to node
    (N-1)*3+1; node <i+2> to node <i+4>") read with hosts numbered from 0, as OMNeT++
    numbers the `host[]` vector of the seed's legends: the statement "node (N-1)*3+1
    receives traffic from <N> sources" decides it, since numbered from 1 the same rules
    send N + 1 flows there. Test 10 has N = 12 switches, not the "N = 10" of its slide's
    text: its title ("12-stage hotspot"), the overview's "(7, 12) congestion points",
    the verdict "topology with 12 hotspots" and its legends (`host[31]`, `host[33]`, at
    least 34 hosts where N = 10 has 30) all say 12.
- **The hotspot** of a test, whose queue, deviation and utilisation the tables give, is
  where the max-min allocation's first bottleneck lies: the port to the hotspot host on
  the baseline and tests 1, 2, 3, 5 and 6 (node 7 on test 6), sw1 → sw2 on test 8, and
  on the chains the trunk into the last switch (8 flows on test 9, 13 on test 10; the
  hotspot host's own port then carries 7 × 1.25 and 12 × 0.77 Gbit/s).
- **Fair shares** are max-min over each phase of the offered load, averaged over the
  run (`metrics::maxmin`): on test 5, whose on/off pair switches together, 1.25 Gbit/s
  for each on/off source and 3.75 for each steady one.
- **Every protocol runs on every switch port and every flow**, with the seed's
  parameters; the table each cell adds to its test's scenario is in the cell's
  `scenario.toml` (`scenarios/` of this directory), and
  `cnsim::repro::roeck2007::protocol_table` writes it. **Switch PAUSE** is off in every
  cell, as in the seed's runs; `protocols.pause.switches` turns it on (on test 1 with
  frames to random nodes it trades node 1's losses for head-of-line blocking at every
  source; the integration tests check both).

### The seed's parameters and ours

"stated": the seed's value, used as it gives it; "reading": a value or a rule the seed
leaves open, chosen as the text says.

| protocol | parameter | seed, set 1 / set 2 | ours | status |
|---|---|---|---|---|
| ECM, E2CM | Qeq, Qsc | 375, 1600 / same | pages of 64 B: Qeq = 24000 B (FECN's and QCN's target), BCN(0,0) at Q ≥ Qsc | stated; the page a reading |
| ECM, E2CM | Qmc | 2400 / 2400 | not modelled | reading: no source we have gives Qmc a rule (the reference reads it as the buffer size, 150 KiB; our queues hold 300 kB) |
| ECM, E2CM | Qsat | disabled / disabled | no saturation rule | reading: nothing in our ECM to disable |
| ECM, E2CM | Gi, Gd, Ru, Rd, Td, Rmin, W | 0.53333, 0.00026667, 1 Mbit/s, 1 Mbit/s, 1 ms, 1 Mbit/s, 2 / same | as stated; a drift of Rd per Td without feedback | stated; the drift a reading |
| ECM | samplingInterval | 150000 / (blank) | 150000 / 75000 B, randomized by U(0.85, 1.15) | set 2 a reading: the seed's cell is blank, a lone "75000" stands above its table and is E2CM's set-2 value, and ECM's other set-2 values equal set 1's while the seed says the sets differ; the jitter a reading |
| E2CM | samplingInterval, flowQeq | 150000, 15000 / 75000, 15000 | as stated | stated |
| E2CM | probeInterval | (for -P, -PR only) 100000 / 50000 | E2CM's path probes too | reading |
| E2CM-P, E2CM-PR | probeInterval, rateTimer, switchRateWeight | 100000, 1 ms, 0.02 / 50000, 1 ms, 0.02 | as stated; probes of 64 B at priority 7, only replies with Fb > 0 act | stated; size and the positive-only replies readings |
| FECN, FECN-B | N0, A, B, C, α, minRate, Qeq, Qsc, T | 10, 1.1, 1.002, 0.1, 0.5, 10 Mbit/s, 192000 bits, 960000 bits, 1 ms (one set) | as stated, with the reference's rate law; probes of 64 B at priority 7; FECN-B's BCN(0,0) checked every 150000 B | stated; the rate law, probe size and check interval readings |
| QCN | Gd, timerPeriod, minRate, minDecFactor, fastRecoveryThreshold, Qeq, W | 1/128, 200 µs, 10 Mbit/s, 0.5, 5, 24000 B, 2 / same | as stated | stated |
| QCN | A, hyperactiveIncrease | 12 Mbit/s, on / same | the active-increase step; hyper-active step 50 Mbit/s (802.1Qau) | reading |
| QCN | baseProbability, toThreshold | 1 %, 150000 / 2 %, 75000 | sampling with probability baseProbability·(1 + 9·\|Fb\|/63); the byte counter | reading |
| QCN | extraFastRecovery, EfrMax, driftFactor | on, 1000000, 1.0005 / same | byte-counter cycles halved for the first EfrMax bytes after a CNM; CR × driftFactor at each timer expiry | reading |
| QCN-P, QCN-PR | toThreshold | 100000 / 50000 | the byte counter and the probe interval | reading |
| QCN-P | selfIncrease | 1 Mbit/s | added per reply with Fb ≥ 0 | reading |
| QCN-PR | selfIncreaseFactor, rateT, switchRateWeight | 0.1 %, 1 ms, 0.002 | each frame sent moves the rate 0.1 % of the gap to the CP's fair rate (measured over rateT, smoothed by the weight per arriving frame) | reading |

### How the verdicts are read

The seed's verdicts are one-liners; each is read as a direction between cells, judged on
parameter set 1 (the one the seed shows) by the rule in its row:

- fairness adjectives ("excellent", "very good", "good", "marginal") as orderings of
  Jain's index against max-min on the seven tests with a fairness slide and a max-min
  allocation (baseline, 3, 5, 7, 8, 9, 10): FECN and E2CM above ECM, E2CM-PR above
  E2CM-P, QCN-PR above QCN-P, QCN-P above QCN ("linear self-increase improves
  fairness"); E2CM-P "pretty much equivalent to ECM" as its index and hotspot queue
  within 25 % of ECM's;
- "oscillation" as a larger standard deviation of the hotspot's queue, from the
  baseline (one hotspot) to the tests with several, or from guidance off to on;
- ECM's "good performance over wide range of conditions" as losing under 1 % of the
  frames reaching switch queues on every test;
- "problems with output generated hotspots" (E2CM, FECN) and FECN's "... with complex
  topologies" as losing more than ECM there;
- FECN's "slow reaction" as reacting more slowly than ECM on test 5; QCN's "fast
  reaction to load increases, slow reaction to load decreases" as the decrease's reaction
  time minus the increase's, per run, above 0;
- E2CM's "favors short-distance flows" as the near hot flow's throughput over the far
  one's above 1 on the chains.

Left out, with no measure of ours: "visible throughput impact due to tagging" (our tag
costs no bytes) and QCN-P's "overall best performance" (no measure ranks protocols
overall) are declared not comparable; "second set of tests typically does not change the
trend ... typically better", "QCN style ECM packet generation improves reaction time" and
"avoid negative feedback to probes" are not judged (no cell runs ECM with QCN's
sampling, and our probes act on positive replies only).
"#;

const GAPS: &str = r#"
### The seed's verdicts next to ours

Parameter set 1, 10 seeds, mean ± 95 % half-width; every row's numbers are in the table.

- **ECM** — *"Good performance over wide range of conditions"*: it loses under 1 % on 9
  of 11 tests (0.10–0.86 %), and more on test 1 with frames to random nodes (1.37 ± 0.04
  %) and on test 6's two 500 Mbit/s hotspots (2.25 ± 0.10 %): both contradict the reading
  (set 2: 0.67 and 1.13 %).
  *"Marginal fairness"*: its index is below FECN's and E2CM's on every test but the
  chains (0.90 on the baseline, 0.92 and 0.91 on tests 7 and 8). *"Some
  oscillation with complex topologies"*: its hotspot queue's deviation rises from 17 frames
  on the baseline to 27 and 38 on the chains (+56 ± 15 %, +116 ± 15 %): reproduced.
  *"Visible throughput impact due to tagging"*: our tag costs no bytes on the wire.
- **E2CM** — *"Good fairness"*: above ECM on the baseline and tests 3, 5, 7, 8 (by 4–10 %),
  not on the 7-switch chain (−1.3 ± 4.5 %, within noise) and below it on the 12-switch
  chain (−7.9 ± 3.0 %, contradicted), where *"favors short-distance flows over long
  distance flows"* takes over: the near hot flow gets 4.9 ± 0.6 times the far one's on
  test 9 and 8.5 ± 0.9 times on test 10 (max-min: 1). A flow's path probe sums every
  queue it crosses, so the longest flows read the largest backlog and are cut hardest.
  *"Seems to have problems with output generated hotspots"*: it loses more than ECM on
  tests 1 (both readings), 2 and 6 (2.6 % against 0.86 % on test 2); on test 3 the
  difference is within noise (+10 ± 11 %). A path probe counts a PAUSEd port's queue at
  the link's 10 Gbit/s (Q/C) while the port drains at the host's 1 or 0.5 Gbit/s, so the
  flows into the hotspot read a fraction of their backlog.
- **E2CM-P** — *"Pretty much equivalent to ECM"*: its index is within 25 % of ECM's on
  all seven tests (reproduced; −12 ± 5 % and −23 ± 3 % on the chains), but it holds the
  hotspot queue 4–5 times higher (67–187 frames against ECM's 14–44; contradicted on all
  seven). Without tags, a regulated flow rises only on its probes' positive replies,
  every 100 KB to its latest CP; we have not traced why that holds the queue higher.
- **E2CM-PR** — *"Very good fairness"*: above E2CM-P on six of seven tests (test 3:
  +0.7 ± 1.0 %, within noise); 0.999 on the baseline, 0.993 and 0.992 on tests 7 and 8.
  *"Oscillation in complex topologies w/ multiple hotspots"*: its queue deviation on test
  10 is 12 ± 9 % above the baseline's, on test 9 the same. Rate guidance *"may cause
  oscillations"*: E2CM-PR's deviation on the chains is a third *below* E2CM-P's
  (contradicted), QCN-PR's 19–26 % above QCN-P's (reproduced). Its hotspots are 66–88 %
  busy (77 % on the baseline, where the others are 96–100 %); we have not traced which of
  its mechanisms leaves the port idle.
- **FECN** — *"Excellent fairness"*: above ECM on all seven tests, with an index of 0.990
  to 1.000 on each (test 5: 0.998 ± 0.000 against the per-phase fair shares; against the
  mean-rate shares the summary used before, 0.81). *"Problems with output generated
  hotspots"*: it loses more than ECM on tests 1, 2, 3 and 6 (6.0 % against 0.84 % on test
  1): a PAUSEd port advertises a share of its 10 Gbit/s link while it drains at the host's
  rate (we do not model the "variable capacity adjustment" that would correct for time
  spent paused). *"... and with complex topologies"*: 3.4 % lost on both chains against
  ECM's 0.18 and 0.23 %. *"Oscillation with multiple hotspots"*: its queue deviation on the
  chains is 81 ± 13 % and 88 ± 18 % above the baseline's; on tests 7 and 8 within noise.
  *"Slow reaction to changed conditions"*: not comparable with ECM on test 5 (ECM's steady
  flows settle after an increase in only 4 of 10 seeds); FECN itself reacts in 4.6 ± 0.6 ms
  to an increase and 3.96 ± 0.04 ms to a decrease, faster to decreases than QCN.
- **FECN-B** — the seed gives no verdict. Its BCN(0,0) cuts FECN's losses on the
  baseline and tests 5 and 7 to 10 (3.4 % → 0.5 % on test 9) but not on the
  output-generated hotspots, where a BCN(0,0)
  every 150 KB of arrivals is no match for a port draining at a tenth of its rate.
- **QCN** — *"Fast reaction to load increases, slow reaction to load decreases"*: on
  test 5 the steady flows take 5.3 ± 2.5 ms to settle after the bursty pair arrives and
  10.1 ± 2.6 ms after it leaves; per run the difference is 4.6 ± 3.2 ms (8 of 10 seeds
  settle both ways): reproduced with set 1, narrowly. With set 2 it is −1.0 ± 2.4 ms:
  within noise. *"Marginal fairness"*: below FECN's on every test but test 3 (0.996
  against 0.995), 0.88–0.91 on the chains.
- **QCN-P** — *"Overall best performance"*: not judged; on every test without an
  output-generated hotspot the QCN family loses ≤ 0.01 % and keeps the steadiest queues
  (deviation 8–15 frames). *"Marginal fairness"* and the seed's *"linear self-increase improves
  fairness over multiplicative"*: QCN-P's index is within noise of QCN's on five tests
  and below it on the chains (−2.1 ± 0.8 %, −4.8 ± 0.9 %): 1 Mbit/s per positive reply is
  small beside QCN's own increases, and a flow probes only its latest CP.
- **QCN-PR** — *"Good fairness"*: above QCN-P on tests 7, 8, 9 and 10; within noise on the
  baseline and tests 3 and 5, where every QCN variant is within 2.5 % of max-min already.
  *"Starts oscillating in topology with 12 hotspots"*: its deviation is 21 ± 18 % higher on
  test 10 than on test 9.
- **Rate guidance on test 3** (*"rate guidance from switch improves fairness"*): neither
  guided variant is clearly fairer there (E2CM-PR +0.7 ± 1.0 %, QCN-PR −0.1 ± 0.4 %). The
  hotspot port is PAUSEd by node 7 and drains at 2 Gbit/s, but its fair-rate estimate takes
  the link's 10 Gbit/s as C, so the rate it advertises seldom binds.

### What the reconstructed tests add

- **Test 1, the two readings.** With a flow per destination every protocol leaves the
  other nodes their traffic: each source delivers 7.68 Gbit/s (the max-min 7.67). With
  each frame to a random node, a source's one limiter slows all its frames: each source
  delivers 1.27 ± 0.01 Gbit/s under ECM, 1.07 ± 0.03 under E2CM, 1.64 ± 0.06 under QCN and
  1.83 ± 0.07 under QCN-P and QCN-PR, from 7.67 without management — the victims the
  seed's "problems with output generated hotspots" most likely describes. A flow with no
  single destination sends no probes, so E2CM-P equals E2CM-PR and QCN-P equals QCN-PR
  there, seed for seed; under E2CM node 1 idles a fifth of the time (81 % busy).
- **Tests 2 and 6** (500 Mbit/s hotspots under background traffic): only ECM and E2CM-PR
  keep the hotspot's queue below full (168 and 164 frames on test 2) and lose less than
  drop-tail's 3.28 % (0.86 and 0.62 %); the QCN family loses 2.2 %, E2CM 2.6 %, FECN 3.1 %;
  on test 6 every loss roughly doubles. QCN's trouble here is not in the seed's verdicts;
  we have not traced its mechanism.
- **Flows crossing two congestion points** (tests 7 and 8, 1 → 8): under QCN, QCN-P and
  E2CM-P the flow from switch 1 gets 1.5–1.8 Gbit/s against its fair 2.5 (same trend from
  drop-tail's 1.19 on test 7; contradicted on test 8, where drop-tail gives it 1.74): both
  congestion points cut it. FECN (2.43, 2.47) and E2CM (2.03, 2.07) come closest.
"#;

#[cfg(test)]
mod tests {
    use super::*;
    use crate::metrics::TimeSeries;

    /// Every cell's scenario (each protocol's table under each parameter set, on every
    /// test) is valid and builds, but for the skipped ones, which FECN refuses.
    #[test]
    fn every_protocol_table_installs_on_every_test() {
        for (test, _, _) in TESTS {
            for (protocol, _) in PROTOCOLS {
                for params in ["run1", "run2"] {
                    let name = scenario_name(test);
                    let text =
                        format!("{}\n{}", bundled::get(&name).unwrap(), protocol_table(protocol, params));
                    let s = parse(&text, &name, &[]).unwrap_or_else(|e| panic!("{protocol} {params}: {e}"));
                    let built = crate::scenario::build(&s, &name);
                    let cell = Cell(vec![("test", test), ("protocol", protocol), ("params", params)]);
                    if skip(&cell) {
                        let e =
                            built.err().unwrap_or_else(|| panic!("{test} {protocol}: skipped, but builds"));
                        assert!(e.to_string().contains("no single destination to probe"), "{e}");
                    } else {
                        built.unwrap_or_else(|e| panic!("{test} {protocol} {params}: {e}"));
                    }
                }
            }
        }
    }

    /// Test 1's hotspot utilisation is node 1's port over the traffic's window (10 ms to
    /// the end of a 30 ms run) against its 1 Gbit/s service: drop-tail keeps it busy, so
    /// 100 %, plus at most what node 1's 100-frame input buffer holds (1.2 Mbit, 6 % of
    /// 20 ms); over the run against the 10 Gbit/s link it would read under 7 %.
    #[test]
    fn test1_utilisation_is_over_the_traffic_against_the_service() {
        let cell = Cell(vec![("test", "test1"), ("protocol", "none"), ("params", "run1")]);
        let mut s = scenario(&cell);
        s.duration = Duration(30 * PS_PER_MS);
        let mut sim = crate::scenario::build(&s, "t1").unwrap();
        sim.run_to_end();
        let m = measure(&cell, &sim);
        let get = |k: &str| m.scalars.iter().find(|(n, _)| n == k).unwrap().1;
        let u = get("hotspot_utilisation_pct");
        assert!((100.0..106.0).contains(&u), "{u}");
        // Each of nodes 2-10 delivers 8 × 944 Mbit/s to the others and about 111 to node 1.
        let v = get("victim_source_gbps");
        assert!((7.5..7.8).contains(&v), "{v}");
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
