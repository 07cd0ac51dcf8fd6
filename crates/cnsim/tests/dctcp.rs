//! DCTCP end to end (Alizadeh et al. 2010): the queue held near K at full link use and
//! fair sharing, far below NewReno's, and a late flow converging to its fair share.

use cnsim::metrics::summary::Summary;
use cnsim::scenario::{build, bundled, parse};
use cnsim::sim::Sim;

/// `dctcp-dumbbell` with `sets`, run to its end.
fn run(sets: &[&str]) -> (Sim, Summary) {
    run_with(bundled::get("dctcp-dumbbell").unwrap(), sets)
}

/// Scenario `text` with `sets`, run to its end.
fn run_with(text: &str, sets: &[&str]) -> (Sim, Summary) {
    let sets: Vec<String> = sets.iter().map(|s| s.to_string()).collect();
    let s = parse(text, "dctcp-dumbbell", &sets).unwrap_or_else(|e| panic!("{e}"));
    let mut sim = build(&s, "dctcp-dumbbell").unwrap_or_else(|e| panic!("{e}"));
    sim.run_to_end();
    sim.check_conservation().unwrap();
    let summary = Summary::of(&sim, "dctcp-dumbbell", s.seed);
    (sim, summary)
}

/// The mean of the bottleneck's sampled queue (frames) from `from_s` on.
fn queue_after(sim: &Sim, from_s: f64) -> f64 {
    let q = &sim.recorder().queues;
    let col = q.columns.iter().position(|c| c.name == "r1->r2").expect("the bottleneck's series");
    let late: Vec<f64> = q
        .times_s
        .iter()
        .zip(&q.columns[col].values)
        .filter(|(t, _)| **t >= from_s)
        .map(|(_, v)| *v)
        .collect();
    late.iter().sum::<f64>() / late.len() as f64
}

fn jain(x: &[f64]) -> f64 {
    x.iter().sum::<f64>().powi(2) / (x.len() as f64 * x.iter().map(|v| v * v).sum::<f64>())
}

fn throughputs(s: &Summary) -> Vec<f64> {
    s.flows.iter().map(|f| f.throughput_bps).collect()
}

/// Two long flows at 10 Gbit/s (K = 65) and at 1 Gbit/s (K = 20, the paper's §3.4
/// values): the queue stays near K (the paper's Fig. 1 and §4.1: a standing queue of
/// about K), the link ≥ 95 % used (1460 of 1500 bytes are data, so goodput can reach
/// 97.3 %), and the two share it (Jain ≥ 0.99); nothing is lost.
#[test]
fn two_flows_hold_the_queue_near_k_at_full_use() {
    let one_g = [
        "topology.dumbbell.sender_link.rate=\"1Gbps\"",
        "topology.dumbbell.bottleneck.rate=\"1Gbps\"",
        "topology.dumbbell.receiver_link.rate=\"1Gbps\"",
        "protocols.ecn_threshold.k=\"20 frames\"",
        "duration=\"1s\"",
    ];
    for (sets, rate, k) in [(&[][..], 10e9, 65.0), (&one_g[..], 1e9, 20.0)] {
        let (sim, s) = run(sets);
        let x = throughputs(&s);
        let q = queue_after(&sim, s.duration_s / 2.0);
        eprintln!("{rate}: {x:?}, queue {q:.1} (K = {k})");
        assert!(x.iter().sum::<f64>() >= 0.95 * rate, "{x:?}");
        assert!(jain(&x) >= 0.99, "{x:?}");
        assert!((0.6 * k..=1.5 * k).contains(&q), "queue {q} vs K = {k}");
        assert_eq!(s.flows.iter().map(|f| f.stats.dropped_frames).sum::<u64>(), 0);
        let alpha = s
            .flows
            .iter()
            .filter_map(|f| f.transport.tcp.as_ref())
            .filter(|t| t.sender.ecn_responses > 0)
            .count();
        assert_eq!(alpha, 2, "both senders answered marks");
    }
}

/// The same dumbbell with NewReno (not ECN-capable, so the marks never reach it): the
/// same throughput, a queue at least 5× longer (the paper's Fig. 1: DCTCP's queue is a
/// fraction of TCP's at the same throughput).
#[test]
fn newreno_queues_at_least_five_times_more_for_the_same_throughput() {
    let (dsim, d) = run(&["duration=\"1s\""]);
    let (rsim, r) = run(&["duration=\"1s\"", r#"traffic[0].tcp={window=100000, min_rto="10ms"}"#]);
    let (qd, qr) = (queue_after(&dsim, 0.5), queue_after(&rsim, 0.5));
    let (td, tr) = (throughputs(&d).iter().sum::<f64>(), throughputs(&r).iter().sum::<f64>());
    eprintln!("DCTCP {qd:.1} frames at {td:.3e}; NewReno {qr:.1} at {tr:.3e}");
    assert!(qr >= 5.0 * qd, "{qr} vs {qd}");
    assert!((tr - td).abs() <= 0.02 * td, "{tr} vs {td}");
}

/// A third flow starting at 100 ms into the two: over the last 50 ms each of the three
/// has its third of the link within 10 %, and the queue is still near K.
#[test]
fn a_late_flow_converges_to_its_fair_share() {
    let late = r#"
[[traffic]]
name = "late"
kind = "tcp"
from = "s3"
to = "d1"
frame_size = "1500B"
start = "100ms"
tcp = { window = 100000, min_rto = "10ms", dctcp = {} }
"#;
    let text = format!("{}{late}", bundled::get("dctcp-dumbbell").unwrap());
    let (sim, s) = run_with(&text, &["topology.dumbbell.senders=3", r#"traffic[0].from=["s1", "s2"]"#]);
    let t = &sim.recorder().throughput;
    assert_eq!(t.columns.len(), 3);
    let share = 10e9 * 1460.0 / 1500.0 / 3.0;
    for c in &t.columns {
        let late: Vec<f64> =
            t.times_s.iter().zip(&c.values).filter(|(t, _)| **t > 0.15).map(|(_, v)| *v).collect();
        let mean = late.iter().sum::<f64>() / late.len() as f64;
        eprintln!("{}: {mean:.3e} (share {share:.3e})", c.name);
        assert!((mean - share).abs() <= 0.10 * share, "{}: {mean} vs {share}", c.name);
    }
    assert!(queue_after(&sim, 0.15) <= 1.5 * 65.0);
    assert_eq!(s.flows.len(), 3);
}

/// With the paper's two-state delayed ACKs (m = 2): more than one ACK per two segments
/// (each change of CE sends the held ACK early) and fewer than one per segment, and the
/// same queue near K at full link use.
#[test]
fn delayed_acks_with_the_two_state_machine() {
    let (sim, s) = run(&["traffic[0].tcp.delayed_ack={}"]);
    for f in &s.flows {
        let t = f.transport.tcp.as_ref().unwrap();
        let per_segment = t.acks_sent as f64 / t.sender.segments_sent as f64;
        assert!((0.5..0.9).contains(&per_segment), "{per_segment}");
    }
    let q = queue_after(&sim, 0.1);
    assert!((0.6 * 65.0..=1.5 * 65.0).contains(&q), "{q}");
    assert!(throughputs(&s).iter().sum::<f64>() >= 0.95 * 10e9);
}
