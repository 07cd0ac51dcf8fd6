//! DCQCN end to end (Zhu et al. 2015): incasts at 40 Gbit/s converge to the fair share
//! with the queue between Kmin and Kmax and no PFC pause once converged, where PFC
//! alone pauses throughout; a victim flow keeps its rate with DCQCN and loses it to
//! PFC's congestion spreading without.

use cnsim::metrics::jain_index as jain;
use cnsim::scenario::{build, bundled, parse};
use cnsim::sim::Sim;

/// `dcqcn-incast` (or `text`) with `sets`, built.
fn built(text: &str, sets: &[&str]) -> Sim {
    let sets: Vec<String> = sets.iter().map(|s| s.to_string()).collect();
    let s = parse(text, "dcqcn.toml", &sets).unwrap_or_else(|e| panic!("{e}"));
    build(&s, "dcqcn.toml").unwrap_or_else(|e| panic!("{e}"))
}

/// PAUSE frames sent so far, over every port.
pub(crate) fn pauses(sim: &Sim) -> u64 {
    let pause = sim.link_control().and_then(|l| l.as_pause()).expect("PFC");
    pause.counters().ports.iter().map(|(_, s)| s.pause_sent).sum()
}

/// Each flow's mean throughput over the samples from `from_s` on.
fn late_throughputs(sim: &Sim, from_s: f64) -> Vec<f64> {
    let t = &sim.recorder().throughput;
    t.columns
        .iter()
        .map(|c| {
            let late: Vec<f64> =
                t.times_s.iter().zip(&c.values).filter(|(t, _)| **t > from_s).map(|(_, v)| *v).collect();
            late.iter().sum::<f64>() / late.len() as f64
        })
        .collect()
}

/// The mean of port `port`'s sampled queue, bytes, from `from_s` on (1000-byte frames).
fn late_queue_bytes(sim: &Sim, port: &str, from_s: f64) -> f64 {
    let q = &sim.recorder().queues;
    let col = q.columns.iter().position(|c| c.name == port).unwrap();
    let late: Vec<f64> =
        q.times_s.iter().zip(&q.columns[col].values).filter(|(t, _)| **t > from_s).map(|(_, v)| *v).collect();
    1000.0 * late.iter().sum::<f64>() / late.len() as f64
}

/// 2:1 and 8:1 incasts over 100 ms: over the last half the senders share the port
/// (Jain ≥ 0.98) at ≥ 90 % of it, the queue averages between Kmin (5 KB) and Kmax
/// (200 KB), and no PAUSE is sent; with PFC alone the same incast pauses throughout
/// the last half.
#[test]
fn incasts_converge_without_pauses_where_pfc_alone_pauses() {
    let text = bundled::get("dcqcn-incast").unwrap();
    for senders in [2, 8] {
        let n = format!("topology.dumbbell.senders={senders}");
        let mut sim = built(text, &[&n, "duration=\"100ms\""]);
        sim.run_until(50 * cnsim::engine::PS_PER_MS, &mut |_| true).unwrap();
        let early = pauses(&sim);
        sim.run_to_end();
        sim.check_conservation().unwrap();
        let x = late_throughputs(&sim, 0.05);
        let q = late_queue_bytes(&sim, "r1->r2", 0.05);
        let late = pauses(&sim) - early;
        eprintln!("{senders}:1 DCQCN: {x:?}, queue {q:.0} B, pauses {early} then {late}");
        assert!(jain(&x) >= 0.98, "{x:?}");
        assert!(x.iter().sum::<f64>() >= 0.9 * 40e9, "{x:?}");
        assert!((5_000.0..=200_000.0).contains(&q), "{q}");
        assert_eq!(late, 0, "no pause once converged");

        let mut pfc = built(text, &[&n, "duration=\"100ms\"", "protocols.dcqcn.flows=[]"]);
        pfc.run_until(50 * cnsim::engine::PS_PER_MS, &mut |_| true).unwrap();
        let early = pauses(&pfc);
        pfc.run_to_end();
        let late = pauses(&pfc) - early;
        eprintln!("{senders}:1 PFC alone: pauses {early} then {late}");
        assert!(late >= 100, "PFC alone pauses continually: {late}");
    }
}

/// The HPCC fork's clocks (`rp.clocks = "fork"`: one cut per 4 µs tick, α on a 55 µs
/// clock, increase by timer alone) on the 8:1 incast: over the last half the senders
/// share the port as fairly (Jain ≥ 0.98) with no PAUSE, by a different path, using
/// ≥ 85 % of it (the paper's reading ≥ 90 %, above).
#[test]
fn the_forks_clocks_converge_too() {
    let text = bundled::get("dcqcn-incast").unwrap();
    let sets = ["topology.dumbbell.senders=8", "duration=\"100ms\""];
    let mut sim = built(text, &[&sets[..], &["protocols.dcqcn.rp.clocks=\"fork\""]].concat());
    sim.run_until(50 * cnsim::engine::PS_PER_MS, &mut |_| true).unwrap();
    let early = pauses(&sim);
    sim.run_to_end();
    sim.check_conservation().unwrap();
    let x = late_throughputs(&sim, 0.05);
    let late = pauses(&sim) - early;
    let used = x.iter().sum::<f64>() / 40e9;
    eprintln!("8:1 DCQCN, fork clocks: {x:?}, {used:.3} of the port, pauses {early} then {late}");
    assert!(jain(&x) >= 0.98, "{x:?}");
    assert!(used >= 0.85, "{x:?}");
    assert_eq!(late, 0, "no pause once converged");
    let mut paper = built(text, &sets);
    paper.run_to_end();
    let y = late_throughputs(&paper, 0.05);
    eprintln!("8:1 DCQCN, paper clocks: {:.3} of the port", y.iter().sum::<f64>() / 40e9);
    assert_ne!(x, y, "the clocks change the trajectory");
}

/// The victim of `dcqcn-victim` shares only the uncongested 100 Gbit/s link with a 2:1
/// incast: with DCQCN it keeps its 40 Gbit/s (≥ 95 %) and no PAUSE is sent; with PFC
/// alone r2 pauses that link for the incast and the victim loses at least 40 % of its
/// rate (the paper's congestion spreading).
#[test]
fn a_victim_keeps_its_rate_with_dcqcn_and_loses_it_to_pfc_alone() {
    let text = bundled::get("dcqcn-victim").unwrap();
    let victim = |sim: &Sim| {
        let s = cnsim::metrics::summary::Summary::of(sim, "v", 1);
        s.flows.iter().find(|f| f.name.starts_with("victim")).unwrap().throughput_bps
    };
    let mut dcqcn = built(text, &["duration=\"50ms\""]);
    dcqcn.run_to_end();
    let mut pfc = built(text, &["duration=\"50ms\"", "protocols.dcqcn.flows=[]"]);
    pfc.run_to_end();
    let (with, without) = (victim(&dcqcn), victim(&pfc));
    eprintln!(
        "victim: {with:.3e} with DCQCN ({} pauses), {without:.3e} with PFC alone ({} pauses)",
        pauses(&dcqcn),
        pauses(&pfc)
    );
    assert!(with >= 0.95 * 40e9, "{with}");
    assert_eq!(pauses(&dcqcn), 0);
    assert!(without <= 0.6 * 40e9, "{without}");
    assert!(pauses(&pfc) > 100);
}
