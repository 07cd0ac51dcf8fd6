//! Queue disciplines on a TCP dumbbell (the shape of Sridharan et al.'s: sources on
//! 10 Mbit/s links, a 1.5 Mbit/s / 40 ms bottleneck, a 40-frame buffer counted as ns-2
//! counts it): RED against drop-tail, and Adaptive RED finding its target band.

use cnsim::metrics::summary::{QueueSummary, Summary};
use cnsim::scenario::{build, parse};

const DUMBBELL: &str = r#"
name = "aqm"
duration = "60s"
seed = 1

[topology.dumbbell]
senders = 10
sender_link = { rate = "10Mbps", delay = "5ms" }
bottleneck = { rate = "1.5Mbps", delay = "40ms" }
receiver_link = { rate = "10Mbps", delay = "4ms" }

[queues]
capacity = "40 frames"
occupancy = "waiting"

[[traffic]]
name = "ftp"
kind = "tcp"
from = "s*"
to = "d1"
frame_size = "1040B"
tcp = { variant = "reno", window = 1000 }
"#;

const RED: &str = r#"protocols.red={ports=["r1->r2"], min_th="5 frames", max_th="15 frames", w_q=0.002, mean_packet_size="1000B"}"#;

fn run(overrides: &[&str]) -> Summary {
    let overrides: Vec<String> = overrides.iter().map(|s| s.to_string()).collect();
    let s = parse(DUMBBELL, "aqm.toml", &overrides).unwrap_or_else(|e| panic!("{e}"));
    let mut sim = build(&s, "aqm.toml").unwrap_or_else(|e| panic!("{e}"));
    sim.run_to_end();
    sim.check_conservation().unwrap();
    Summary::of(&sim, "aqm", s.seed)
}

fn bottleneck(s: &Summary) -> &QueueSummary {
    s.queues.iter().find(|q| q.port == "r1->r2").unwrap()
}

/// RED holds the queue near its thresholds where drop-tail fills the buffer, at the
/// same link utilisation.
#[test]
fn red_holds_the_queue_between_its_thresholds() {
    let dt = run(&[]);
    let red = run(&[RED]);
    let (qd, qr) = (bottleneck(&dt), bottleneck(&red));
    eprintln!("drop-tail {:.1} frames, RED {:.1} ({:?})", qd.mean_frames, qr.mean_frames, qr.aqm);
    assert!(qd.mean_frames > 25.0, "drop-tail {}", qd.mean_frames);
    assert!((5.0..=18.0).contains(&qr.mean_frames), "RED {}", qr.mean_frames);
    let aqm = qr.aqm.as_ref().unwrap();
    assert!(aqm.early_drops > 5 * aqm.forced_drops, "{aqm:?}");
    assert!(qr.sent_frames as f64 > 0.98 * qd.sent_frames as f64);
}

/// Adaptive RED moves max_p until the average sits in the middle of [min_th, max_th]
/// (9–11 frames here); plain RED with the same thresholds settles higher.
#[test]
fn adaptive_red_finds_its_target_band() {
    let red = run(&[RED]);
    let ared = run(&[RED, "protocols.red.adaptive={}"]);
    let (qr, qa) = (bottleneck(&red), bottleneck(&ared));
    let a = qa.aqm.as_ref().unwrap();
    eprintln!("RED {:.1} frames, ARED {:.1} ({a:?})", qr.mean_frames, qa.mean_frames);
    assert!(a.max_p_changes > 0);
    assert!((8.5..=12.0).contains(&qa.mean_frames), "ARED {}", qa.mean_frames);
    assert!(qr.mean_frames > qa.mean_frames + 2.0);
}

/// Above max_th, ns-2's gentle line starts at the initial max_p whatever Adaptive RED
/// did; starting it at the current max_p lets a raised max_p pull a heavy load (40 flows)
/// back down.
#[test]
fn the_gentle_line_reading_matters_under_heavy_load() {
    let ns2 = run(&[RED, "protocols.red.adaptive={}", "topology.dumbbell.senders=40"]);
    let current = run(&[
        RED,
        "protocols.red.adaptive={}",
        "topology.dumbbell.senders=40",
        r#"protocols.red.gentle_line="current""#,
    ]);
    let (a, b) = (bottleneck(&ns2).mean_frames, bottleneck(&current).mean_frames);
    eprintln!("initial line {a:.1} frames, current line {b:.1}");
    assert!(b < a - 3.0);
}

/// One queue discipline per port.
#[test]
fn two_disciplines_on_one_port_are_an_error() {
    let s = parse(
        DUMBBELL,
        "aqm.toml",
        &[RED.to_string(), r#"protocols.ecn_threshold={k="10 frames", ports=["r1->r2"]}"#.to_string()],
    )
    .unwrap();
    let e = build(&s, "aqm.toml").err().expect("an error").to_string();
    assert!(e.contains("r1->r2") && e.contains("one queue discipline per port"), "{e}");
}

/// RED marking ECN-capable TCP (RFC 3168): the marks replace almost every early drop,
/// the senders halve on echoes, and the queue stays where RED holds it.
#[test]
fn red_marks_ecn_capable_tcp_instead_of_dropping() {
    let drop = run(&[RED]);
    let mark = run(&[RED, "protocols.red.ecn=true", "traffic[0].ecn=true"]);
    let (qd, qm) = (bottleneck(&drop), bottleneck(&mark));
    let responses: u64 =
        mark.flows.iter().filter_map(|f| f.transport.tcp.as_ref()).map(|t| t.sender.ecn_responses).sum();
    eprintln!("drop: {:?}\nmark: {:?}, {responses} responses", qd.aqm, qm.aqm);
    let a = qm.aqm.as_ref().unwrap();
    assert!(a.marks > 200 && a.early_drops == 0, "{a:?}");
    assert!(qm.dropped_frames * 5 < qd.dropped_frames, "{} vs {}", qm.dropped_frames, qd.dropped_frames);
    assert!(responses > 100 && responses <= a.marks);
    assert!((5.0..=18.0).contains(&qm.mean_frames), "{}", qm.mean_frames);
    assert!(qm.sent_frames as f64 > 0.98 * qd.sent_frames as f64);
}

/// Sridharan et al.'s load step (`sridharan2004-increase`, their Figs. 4 and 5) with the
/// average queue over 40–50 s and the bottleneck's utilisation over the run.
fn step(joining: usize, adaptive: bool, seed: u64) -> (f64, f64, Summary) {
    let list: Vec<String> = (3..3 + joining).map(|i| format!("\"s{i}\"")).collect();
    step_in("sridharan2004-increase", vec![format!("traffic[2].from=[{}]", list.join(", "))], adaptive, seed)
}

/// A load step of `scenario` with `sets`: (the average queue over 40–50 s, the
/// bottleneck's utilisation over the run, the summary).
fn step_in(scenario: &str, mut sets: Vec<String>, adaptive: bool, seed: u64) -> (f64, f64, Summary) {
    sets.push(format!("seed={seed}"));
    if adaptive {
        sets.push("protocols.mecn.adaptive={}".into());
    }
    let text = cnsim::scenario::bundled::get(scenario).unwrap();
    let s = parse(text, scenario, &sets).unwrap_or_else(|e| panic!("{e}"));
    let mut sim = build(&s, scenario).unwrap_or_else(|e| panic!("{e}"));
    sim.run_to_end();
    sim.check_conservation().unwrap();
    let avg = &sim.recorder().avg_queues;
    let col = avg.columns.iter().position(|c| c.name == "r1->r2").expect("the bottleneck's average");
    let late: Vec<f64> = avg
        .times_s
        .iter()
        .zip(&avg.columns[col].values)
        .filter(|(t, _)| **t >= 40.0)
        .map(|(_, v)| *v)
        .collect();
    let summary = Summary::of(&sim, scenario, seed);
    let q = bottleneck(&summary);
    let utilisation = q.sent_bytes as f64 * 8.0 / 50.0 / 1.5e6;
    (late.iter().sum::<f64>() / late.len() as f64, utilisation, summary)
}

fn names(from: usize, to: usize) -> String {
    let list: Vec<String> = (from..=to).map(|i| format!("\"s{i}\"")).collect();
    format!("[{}]", list.join(", "))
}

/// After a step in load (here six flows joining two), Adaptive MECN brings the average
/// queue back into its target band (9–12 packets) within 15 s while MECN's stays above
/// it; Adaptive MECN keeps as much of the link busy, with fewer drops.
#[test]
fn adaptive_mecn_returns_to_its_band_after_a_load_step_and_mecn_does_not() {
    for seed in [1, 2] {
        let (mecn, u_mecn, s_mecn) = step(6, false, seed);
        let (amecn, u_amecn, s_amecn) = step(6, true, seed);
        eprintln!("seed {seed}: MECN {mecn:.1} ({u_mecn:.3}), AMECN {amecn:.1} ({u_amecn:.3})");
        assert!((9.0..=12.0).contains(&amecn), "AMECN {amecn}");
        assert!(mecn > 12.5, "MECN {mecn}");
        assert!(u_amecn > u_mecn - 0.005, "utilisation {u_amecn} vs {u_mecn}");
        assert!(bottleneck(&s_amecn).dropped_frames < bottleneck(&s_mecn).dropped_frames);
    }
}

/// The seed's own step (twenty flows joining) leaves both pinned just below max_th:
/// twenty-two Reno flows whose windows are cut at most once per round trip by at most
/// β2 = 40 % keep about 2 packets each in flight on average, 44 against a pipe of
/// about 19.5 (1.5 Mbit/s × 108 ms), so no marking probability brings the queue to 10;
/// Adaptive MECN drives Pmax to its ceiling trying.
#[test]
fn twenty_joining_flows_pin_the_average_at_max_th() {
    let (mecn, _, _) = step(20, false, 1);
    let (amecn, _, s) = step(20, true, 1);
    eprintln!("MECN {mecn:.1}, AMECN {amecn:.1}");
    assert!(mecn > 13.0 && amecn > 13.0);
    let a = bottleneck(&s).aqm.as_ref().unwrap();
    assert!(a.max_p > 0.45, "{a:?}");
}

/// The paper's own decrease (Figs. 6 and 7: twenty of twenty-two flows stop at 25 s)
/// cannot tell the schemes apart: MECN with Pmax fixed at 0.1 ends in the 9–12 band too,
/// because the Pmax Adaptive MECN returns to for two flows is about MECN's own 0.1 (it
/// climbs to its 0.5 ceiling under 22 flows and comes back).
#[test]
fn the_papers_decrease_cannot_tell_the_schemes_apart() {
    for seed in [1, 2] {
        let (mecn, _, _) = step_in("sridharan2004-decrease", Vec::new(), false, seed);
        let (amecn, _, s) = step_in("sridharan2004-decrease", Vec::new(), true, seed);
        let pmax = bottleneck(&s).aqm.as_ref().unwrap().max_p;
        eprintln!("seed {seed}: MECN {mecn:.1}, AMECN {amecn:.1}, Pmax {pmax:.3}");
        assert!((8.5..=12.0).contains(&mecn), "MECN {mecn}");
        assert!((8.5..=12.0).contains(&amecn), "AMECN {amecn}");
        assert!((0.05..=0.2).contains(&pmax), "Pmax {pmax}");
    }
}

/// A decrease that the fixed Pmax does not answer: twenty-two flows down to eight at
/// 25 s. Adaptive MECN keeps the Pmax it reached under 22 flows (its 0.5 ceiling) and
/// its average settles in the band; MECN's stays above it.
#[test]
fn from_twenty_two_flows_to_eight_only_adaptive_mecn_returns_to_its_band() {
    let sets =
        || vec![format!("traffic[0].from={}", names(1, 8)), format!("traffic[2].from={}", names(9, 22))];
    for seed in [1, 2] {
        let (mecn, _, _) = step_in("sridharan2004-decrease", sets(), false, seed);
        let (amecn, _, s) = step_in("sridharan2004-decrease", sets(), true, seed);
        let pmax = bottleneck(&s).aqm.as_ref().unwrap().max_p;
        eprintln!("seed {seed}: MECN {mecn:.1}, AMECN {amecn:.1}, Pmax {pmax:.3}");
        assert!((9.0..=12.0).contains(&amecn), "AMECN {amecn}");
        assert!(mecn > 12.5, "MECN {mecn}");
        assert!(pmax > 0.45, "Pmax {pmax}");
    }
}

/// The scheme of a sweep cell.
#[derive(Clone, Copy, Debug, PartialEq)]
enum Scheme {
    Amecn,
    /// Adaptive RED marking ECN (the reproduction's reading).
    Ared,
    /// Adaptive RED dropping (the other reading).
    AredDrop,
}

/// A cell of Sridharan et al.'s sweeps: (forward goodput bit/s, mean queue per bottleneck
/// port over the second half, packets).
fn sweep(scenario: &str, scheme: Scheme, target_ms: u32, seed: u64) -> (f64, f64) {
    let mut text = cnsim::scenario::bundled::get(scenario).unwrap().to_string();
    let table = if scheme == Scheme::Amecn {
        "mecn"
    } else {
        text = cnsim::repro::sridharan2004::as_ared(&text, scheme == Scheme::Ared);
        "red"
    };
    let sets = vec![format!("protocols.{table}.target_delay=\"{target_ms}ms\""), format!("seed={seed}")];
    let s = parse(&text, scenario, &sets).unwrap_or_else(|e| panic!("{e}"));
    let mut sim = build(&s, scenario).unwrap_or_else(|e| panic!("{e}"));
    sim.run_to_end();
    let r = sim.recorder();
    let half: Vec<usize> = (0..r.queues.times_s.len()).filter(|&i| r.queues.times_s[i] >= 50.0).collect();
    let queue =
        r.queues.columns.iter().map(|c| half.iter().map(|&i| c.values[i]).sum::<f64>() / half.len() as f64);
    let queue = queue.sum::<f64>() / r.queues.columns.len() as f64;
    let summary = Summary::of(&sim, scenario, seed);
    let goodput =
        summary.flows.iter().filter(|f| !f.name.starts_with("reverse")).map(|f| f.throughput_bps).sum();
    (goodput, queue)
}

/// The measured queue follows the target: on the parking lot (per trunk) within 30 % of
/// the target queue (target delay × 875 packets/s, at least 10) for both schemes (at the
/// 10-packet floor Adaptive MECN sits 27 % above it, 40 flows per trunk keeping the
/// queue up), and on both topologies it rises with the target.
#[test]
fn measured_delay_tracks_target_delay() {
    for ared in [Scheme::Amecn, Scheme::Ared] {
        let mut last = [0.0, 0.0];
        for target in [10, 40, 80] {
            let (_, lot) = sweep("sridharan2004-parking-lot", ared, target, 1);
            let (_, bell) = sweep("sridharan2004-dumbbell", ared, target, 1);
            let expected = (f64::from(target) * 0.875).max(10.0);
            eprintln!(
                "{ared:?} target {target} ms: parking lot {lot:.1}, dumbbell {bell:.1} (target {expected})"
            );
            assert!((lot - expected).abs() < 0.3 * expected, "parking lot {lot} against {expected}");
            assert!(lot > last[0] && bell > last[1], "rises with the target");
            last = [lot, bell];
        }
    }
}

/// On the parking lot Adaptive MECN delivers at least as much as Adaptive RED at the
/// same target delay (the seed's Fig. 11), at the low targets where marking matters.
/// (On the 100-flow dumbbell ours does not: see docs/sridharan2004.md.)
#[test]
fn adaptive_mecn_delivers_at_least_ared_on_the_parking_lot() {
    for target in [10, 20] {
        let (amecn, _) = sweep("sridharan2004-parking-lot", Scheme::Amecn, target, 1);
        let (ared, _) = sweep("sridharan2004-parking-lot", Scheme::Ared, target, 1);
        eprintln!("target {target} ms: AMECN {amecn:.4e}, ARED {ared:.4e}");
        assert!(amecn >= 0.999 * ared, "AMECN {amecn} vs ARED {ared}");
    }
}

/// Fig. 9's verdict on Adaptive RED turns on how it signals: marking ECN (the reading the
/// paper's "binary congestion feedback" implies) its measured delay on the 100-flow
/// dumbbell is about twice Adaptive MECN's (+95 % at 20 ms over 10 seeds), dropping it is
/// within 10 % of Adaptive MECN's, as the paper has both "conform very closely".
#[test]
fn adaptive_red_conforms_like_adaptive_mecn_only_when_it_drops() {
    let (_, amecn) = sweep("sridharan2004-dumbbell", Scheme::Amecn, 20, 1);
    let (_, marking) = sweep("sridharan2004-dumbbell", Scheme::Ared, 20, 1);
    let (_, dropping) = sweep("sridharan2004-dumbbell", Scheme::AredDrop, 20, 1);
    eprintln!("AMECN {amecn:.1}, ARED marking {marking:.1}, dropping {dropping:.1} packets");
    assert!(marking > 1.5 * amecn, "marking {marking} vs {amecn}");
    assert!((dropping - amecn).abs() < 0.25 * amecn, "dropping {dropping} vs {amecn}");
}

/// The recorder samples max_p beside the average queue: MECN's stays at its 0.1, Adaptive
/// MECN's sits near 0.1 under two flows and climbs after six more join at 25 s, ending
/// where the summary has it.
#[test]
fn max_p_is_recorded_over_time() {
    for adaptive in [false, true] {
        let mut sets = vec![format!("traffic[2].from={}", names(3, 8))];
        if adaptive {
            sets.push("protocols.mecn.adaptive={}".into());
        }
        let text = cnsim::scenario::bundled::get("sridharan2004-increase").unwrap();
        let s = parse(text, "increase", &sets).unwrap();
        let mut sim = build(&s, "increase").unwrap();
        sim.run_to_end();
        let r = sim.recorder();
        let col = r.max_ps.columns.iter().find(|c| c.name == "r1->r2").expect("the bottleneck's max_p");
        let at = |from: f64, to: f64| -> Vec<f64> {
            r.max_ps
                .times_s
                .iter()
                .zip(&col.values)
                .filter(|(t, _)| (from..to).contains(*t))
                .map(|(_, v)| *v)
                .collect()
        };
        let (before, after) = (at(0.0, 25.0), at(45.0, 51.0));
        let end = Summary::of(&sim, "increase", 1)
            .queues
            .iter()
            .find(|q| q.port == "r1->r2")
            .unwrap()
            .aqm
            .as_ref()
            .unwrap()
            .max_p;
        assert_eq!(*col.values.last().unwrap(), end, "the last sample is the summary's");
        if adaptive {
            assert!(before.iter().all(|&p| p < 0.15), "{before:?}");
            assert!(after.iter().all(|&p| p > 0.35), "{after:?}");
        } else {
            assert!(col.values.iter().all(|&p| p == 0.1));
        }
    }
}

/// Marking 11 above max_th (`above_max = "mark"`, the seed's "all packets are marked"
/// read literally) in place of dropping: on the paper's increase MECN's late average
/// passes max_th (15.7 ± 0.04 against 14.4 ± 0.09 packets over 10 seeds) and the drops,
/// now only from the full buffer, fall to a tenth (124 ± 8 against 1489 ± 31).
#[test]
fn marking_above_max_th_lifts_the_average_past_it() {
    let run = |above: &str| {
        step_in("sridharan2004-increase", vec![format!("protocols.mecn.above_max=\"{above}\"")], false, 1)
    };
    let (drop, _, s_drop) = run("drop");
    let (mark, _, s_mark) = run("mark");
    let (d_drop, d_mark) = (bottleneck(&s_drop).dropped_frames, bottleneck(&s_mark).dropped_frames);
    eprintln!("drop: {drop:.2} ({d_drop} drops), mark: {mark:.2} ({d_mark} drops)");
    assert!(mark > 15.0 && mark > drop + 0.8, "{mark} vs {drop}");
    assert!(d_mark * 5 < d_drop, "{d_mark} vs {d_drop}");
}
