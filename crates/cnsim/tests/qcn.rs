//! QCN behaviour that must hold in a faithful model (Mliki et al. 2016; reference §1–§2), and the
//! trends of the Mliki et al. 2016 experiments. These assert directions and rough sizes, never
//! the paper's exact numbers.

use cnsim::engine::PS_PER_S;
use cnsim::l2::qcn::Sampling;
use cnsim::metrics::jain_index;
use cnsim::repro::mliki2016::{measure, Measures, Scheme, SourceModel, Topology, Variant};
use cnsim::scenario::{build, parse};
use cnsim::units::Duration;

fn run_variant(v: Variant, secs: u64) -> Measures {
    run_seeded(v, secs, None)
}

/// `v` for `secs` simulated seconds, with `seed` instead of the variant's own if given.
fn run_seeded(v: Variant, secs: u64, seed: Option<u64>) -> Measures {
    let mut s = v.scenario(Some(Duration(secs * PS_PER_S)));
    if let Some(seed) = seed {
        s.seed = seed;
    }
    let mut sim = build(&s, &s.name).unwrap();
    sim.run_to_end();
    sim.check_conservation().unwrap();
    measure(&sim)
}

fn variant(topology: Topology, qeq: u64, scheme: Scheme, source: SourceModel, sampling: Sampling) -> Variant {
    Variant { topology, qeq, scheme, source, sampling }
}

#[test]
fn unicast_flows_converge_to_a_fair_share_around_qeq() {
    // Eight saturated sources into one 10 Gbit/s port with a CP (802.1Qau defaults,
    // Qeq = 26 000 B ≈ 17 frames). QCN converges to fairness slowly (additive increase
    // of 5 Mbit/s per cycle), so the run is long: 4 s, judged over the last 2 s.
    let text = r#"
name = "qcn-unicast"
duration = "4s"
[topology.star]
hosts = ["s1", "s2", "s3", "s4", "s5", "s6", "s7", "s8", "d"]
link = { rate = "10Gbps", delay = "1us" }
[queues]
capacity = "150KB"
[[traffic]]
name = "f"
kind = "saturated"
from = "s*"
to = "d"
start = { uniform = ["0us", "10us"] }
[protocols.qcn]
congestion_points = ["sw->d"]
flows = "*"
"#;
    let s = parse(text, "qcn-unicast", &[]).unwrap();
    let mut sim = build(&s, "qcn-unicast").unwrap();
    let half = 2 * PS_PER_S;
    sim.run_until(half, &mut |_| true).unwrap();
    let bottleneck = (0..sim.net().ports.len()).find(|&p| sim.net().port_name(p as u32) == "sw->d").unwrap();
    let drops_first_half = sim.net().ports[bottleneck].classes.queue(0).stats.dropped_frames;
    let bytes_first_half: Vec<u64> = sim.flows().iter().map(|f| f.stats.delivered_bytes).collect();
    sim.run_to_end();
    sim.check_conservation().unwrap();

    // Fair share over the second half.
    let second: Vec<f64> = sim
        .flows()
        .iter()
        .zip(&bytes_first_half)
        .map(|(f, b)| (f.stats.delivered_bytes - b) as f64)
        .collect();
    let jain = jain_index(&second);
    assert!(jain >= 0.95, "Jain {jain:.3} over the last half: {second:?}");
    // The port stays busy: at least 95 % of 10 Gbit/s over the second half.
    let total_bits: f64 = second.iter().sum::<f64>() * 8.0;
    assert!(total_bits / 2.0 > 9.5e9, "throughput {:.2} Gbit/s", total_bits / 2.0 / 1e9);
    // Loss only during the start-up transient.
    let q = &sim.net().ports[bottleneck].classes.queue(0).stats;
    assert!(drops_first_half > 0, "the start-up surge at line rate overflows the queue");
    assert_eq!(q.dropped_frames, drops_first_half, "no loss after the first half");
    // The queue oscillates around Qeq (26 000 B ≈ 17.3 frames) in the second half.
    let series = sim.recorder().queues.column("sw->d").unwrap();
    let tail: Vec<f64> = series.values[series.values.len() / 2..].to_vec();
    let qeq = 26_000.0 / 1500.0;
    let mean = tail.iter().sum::<f64>() / tail.len() as f64;
    assert!(mean > 0.5 * qeq && mean < 2.0 * qeq, "mean queue {mean:.1} frames vs Qeq {qeq:.1}");
    let crossings = tail.windows(2).filter(|w| (w[0] - qeq).signum() != (w[1] - qeq).signum()).count();
    assert!(crossings >= 20, "the queue crosses Qeq only {crossings} times");
}

/// The paper's claim for both enhanced schemes: fewer CNMs than standard QCN, at every
/// Qeq, in both topologies, with the paper's 200 Mbit/s CBR sources and either sampling
/// rule, over 5 simulated seconds. Summed over three seeds: one seed alone can reverse a
/// close cell (the representative-CP reading on the star at Qeq 75 with per-frame checks
/// sends 7 130 ± 1 163 CNMs against standard's 9 737 ± 529 over the reproduction's 10
/// seeds, but more on the variant's own seed).
#[test]
fn enhanced_schemes_send_fewer_cnms_than_standard_qcn() {
    let cnms = |v: Variant| [1, 2, 3].into_iter().map(|seed| run_seeded(v, 5, Some(seed)).cnms).sum::<u64>();
    for topology in [Topology::Star, Topology::Multilink] {
        for sampling in [Sampling::PerFrame, Sampling::Standard] {
            for qeq in [25, 50, 75] {
                let std = cnms(variant(topology, qeq, Scheme::Standard, SourceModel::Cbr, sampling));
                for scheme in [Scheme::Enhanced, Scheme::EnhancedRepresentative] {
                    let enh = cnms(variant(topology, qeq, scheme, SourceModel::Cbr, sampling));
                    assert!(
                        enh < std,
                        "{topology:?} {sampling:?} Qeq {qeq}: {scheme:?} sent {enh} CNMs, standard {std}"
                    );
                }
            }
        }
    }
}

#[test]
fn saturated_star_loss_rises_with_qeq_and_cr_converges_to_a_sixth() {
    let runs: Vec<Measures> = [25, 50, 75]
        .iter()
        .map(|&q| {
            run_variant(
                variant(Topology::Star, q, Scheme::Standard, SourceModel::Saturated, Sampling::Standard),
                5,
            )
        })
        .collect();
    let loss: Vec<f64> = runs.iter().map(|m| m.loss_pct).collect();
    assert!(loss[0] < loss[1] && loss[1] < loss[2], "loss by Qeq: {loss:?}");
    assert!(loss[0] < 0.5, "loss at Qeq 25: {:.3} %", loss[0]);
    let sixth = 1000.0 / 6.0;
    for (m, q) in runs.iter().zip([25, 50]) {
        let err = (m.mean_cr_mbps - sixth).abs() / sixth;
        assert!(err < 0.05, "Qeq {q}: mean CR {:.1} Mbit/s vs {sixth:.1}", m.mean_cr_mbps);
    }
}

#[test]
fn without_qcn_the_star_loses_the_overload_share() {
    // Six 200 Mbit/s sources into each 1 Gbit/s receiver port: (1.2 − 1)/1.2 = 1/6.
    let m = run_variant(variant(Topology::Star, 25, Scheme::Off, SourceModel::Cbr, Sampling::PerFrame), 2);
    assert!((m.loss_pct - 100.0 / 6.0).abs() < 0.1, "loss {:.3} %", m.loss_pct);
    assert_eq!(m.cnms, 0);
    // Saturated sources at line rate: (6 − 1)/6.
    let m =
        run_variant(variant(Topology::Star, 25, Scheme::Off, SourceModel::Saturated, Sampling::PerFrame), 1);
    assert!((m.loss_pct - 500.0 / 6.0).abs() < 0.1, "loss {:.3} %", m.loss_pct);
}

#[test]
fn literal_enhanced_scheme_stalls_its_feedback() {
    // Algorithm 1 keeps the largest |Fb| and resets it only at exactly 63; Algorithm 2
    // silences every CP below it. Count the CNMs each source receives per 100 ms window
    // after 0.5 s: under the literal reading sources go whole windows without feedback
    // while their queue overflows; standard QCN and the prose reading keep talking.
    let at = |scheme| {
        run_variant(variant(Topology::Star, 25, scheme, SourceModel::Saturated, Sampling::Standard), 3)
    };
    let literal = at(Scheme::Enhanced);
    let standard = at(Scheme::Standard);
    let prose = at(Scheme::EnhancedRepresentative);
    assert!(literal.silent_window_share() > 0.3, "silent share {:.2}", literal.silent_window_share());
    assert!(literal.cnm_windows.iter().any(|w| w.iter().filter(|&&c| c == 0).count() >= 5));
    assert_eq!(standard.silent_window_share(), 0.0);
    assert_eq!(prose.silent_window_share(), 0.0);
    // Silence costs: the stalled sources overrun the queue.
    assert!(
        literal.loss_pct > 10.0 * standard.loss_pct.max(0.01),
        "{} vs {}",
        literal.loss_pct,
        standard.loss_pct
    );
}

#[test]
fn a_run_stopped_part_way_shows_every_arrival_to_its_congestion_point() {
    // A congestion point is shown only the arrivals that can reach its next sample; the
    // rest are counted by the port and handed over when a run stops, interrupted or not.
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/../../scenarios/dumbbell-qcn-64.toml");
    let text = std::fs::read_to_string(path).unwrap();
    let s = parse(&text, path, &["duration=40ms".to_string()]).unwrap();
    let mut sim = build(&s, "qcn-quiet").unwrap();
    let cp_arrivals = |sim: &cnsim::sim::Sim| match &sim.congestion_points()[0] {
        cnsim::protocol::AnyCongestionPoint::Qcn(cp) => cp.cp.stats.arrivals,
        _ => unreachable!("a QCN congestion point"),
    };
    let bottleneck = sim.net().port_by_name("r1->r2").unwrap();
    let arrived =
        |sim: &cnsim::sim::Sim| sim.net().ports[bottleneck as usize].classes.queue(0).arrived_frames();
    sim.run_until(5 * PS_PER_S / 1000, &mut |_| true).unwrap();
    assert!(arrived(&sim) > 1000);
    assert_eq!(cp_arrivals(&sim), arrived(&sim));
    // Interrupted at its first progress report (every 65 536 events: about 26 ms in).
    assert!(sim.run_until(PS_PER_S, &mut |_| false).is_err());
    assert!(cp_arrivals(&sim) > 0);
    assert_eq!(cp_arrivals(&sim), arrived(&sim));
    sim.run_to_end();
    assert_eq!(cp_arrivals(&sim), arrived(&sim));
}
