//! RDMA message flows end to end: a message alone completes at line rate plus the path's
//! delay; a window bounds what is in flight; an incast over PFC completes without a
//! loss or a retransmission; on a lossy fabric go-back-N (NAKs, and the timeout for a
//! lost tail) still delivers every message exactly once.

use cnsim::engine::PS_PER_US;
use cnsim::scenario::{build, bundled, parse};
use cnsim::sim::Sim;

/// `rdma-incast` with `sets`, run to its end.
fn run(sets: &[&str]) -> Sim {
    run_text(bundled::get("rdma-incast").unwrap(), sets)
}

/// `rdma-incast` without PFC.
fn lossy() -> String {
    let text = bundled::get("rdma-incast").unwrap();
    let (head, tail) = text.split_once("\n[protocols.pause]").unwrap();
    format!("{head}{}", &tail[tail.find("[metrics]").unwrap()..])
}

/// Scenario `text` with `sets`, run to its end.
fn run_text(text: &str, sets: &[&str]) -> Sim {
    let sets: Vec<String> = sets.iter().map(|s| s.to_string()).collect();
    let s = parse(text, "rdma.toml", &sets).unwrap_or_else(|e| panic!("{e}"));
    let mut sim = build(&s, "rdma.toml").unwrap_or_else(|e| panic!("{e}"));
    sim.run_to_end();
    sim.check_conservation().unwrap();
    sim
}

/// The error `sets` on `rdma-incast` give.
fn error(sets: &[&str]) -> String {
    let text = bundled::get("rdma-incast").unwrap();
    let sets: Vec<String> = sets.iter().map(|s| s.to_string()).collect();
    match parse(text, "rdma.toml", &sets) {
        Err(e) => e.to_string(),
        Ok(s) => match build(&s, "rdma.toml") {
            Err(e) => e.to_string(),
            Ok(_) => panic!("{sets:?} accepted"),
        },
    }
}

/// A 1 MB message alone on 40 Gbit/s links: 1067 packets, 1066 of 1000 bytes (938 of
/// message each) and a last of 154 (92 of message), leave back to back. The last leaves
/// the host at 213.2 µs + 30.8 ns; at each of the two switches it waits for the packet
/// before it (0.2 µs to serialize, begun as the last arrives), then takes 30.8 ns;
/// three links add 1 µs each. Its ACK (66 bytes) comes back in 3 × (1 µs + 13.2 ns).
/// So the completion time is 219.6704 µs; nothing is sent twice, every packet is
/// acknowledged, and the receiver gets exactly the message.
#[test]
fn a_message_alone_completes_at_line_rate_plus_the_round_trip() {
    let sim = run(&["topology.dumbbell.senders=1", "protocols.dcqcn.flows=[]"]);
    let flow = &sim.flows()[0];
    let qp = sim.rdma_qp(0).unwrap();
    assert_eq!(qp.requester.packets, 1067);
    assert_eq!(flow.stats.sent_frames, 1067);
    assert_eq!(flow.stats.delivered_bytes, 1_000_000);
    assert_eq!(qp.stats.retransmitted_packets, 0);
    assert_eq!(qp.stats.acks_sent, 1067);
    assert_eq!(qp.stats.acked_packets, 1067);
    let fct_us = qp.stats.fct_s.expect("completed") * 1e6;
    let last = 154.0 * 8.0 / 40e3;
    let expected = 1066.0 * 0.2 + last + 2.0 * 0.2 + 3.0 + 3.0 * (1.0 + 66.0 * 8.0 / 40e3);
    assert!((fct_us - expected).abs() < 0.01, "FCT {fct_us} µs, expected {expected}");
}

/// A window of 4 packets holds the sender to 4 packets per round trip (6.64 µs), far
/// below the line rate: the message completes in 267 round trips (within 2 %).
#[test]
fn a_window_bounds_the_packets_in_flight() {
    let sim = run(&[
        "topology.dumbbell.senders=1",
        "protocols.dcqcn.flows=[]",
        "traffic[0].rdma={window=\"4000B\"}",
    ]);
    let qp = sim.rdma_qp(0).unwrap();
    let fct_us = qp.stats.fct_s.expect("completed") * 1e6;
    eprintln!("window 4: FCT {fct_us:.1} µs");
    // A round trip: three hops of 1 µs and a 0.2 µs serialization out, three of 1 µs
    // and 13.2 ns back.
    let rtt = 3.0 * (1.0 + 0.2) + 3.0 * (1.0 + 66.0 * 8.0 / 40e3);
    let rounds = (1067.0_f64 / 4.0).ceil();
    assert!((fct_us / (rounds * rtt) - 1.0).abs() < 0.02, "{fct_us} against {rounds} × {rtt}");
    assert_eq!(sim.flows()[0].stats.delivered_bytes, 1_000_000);
}

/// 8:1 over PFC with DCQCN: every message completes, nothing is dropped, nothing is
/// sent twice, and the receiver NAKs nothing.
#[test]
fn an_incast_over_pfc_completes_without_loss_or_retransmission() {
    let sim = run(&["topology.dumbbell.senders=8"]);
    assert_eq!(sim.counters().dropped, 0);
    for f in 0..8 {
        let qp = sim.rdma_qp(f).unwrap();
        assert!(qp.stats.fct_s.is_some(), "flow {f} incomplete: {:?}", qp.stats);
        assert_eq!(qp.stats.retransmitted_packets, 0);
        assert_eq!(qp.stats.naks_sent, 0);
        assert_eq!(sim.flows()[f as usize].stats.delivered_bytes, 1_000_000);
    }
    // 8 MB through one 40 Gbit/s port takes at least 1.7 ms (wire bytes).
    let last = (0..8).map(|f| sim.rdma_qp(f).unwrap().stats.fct_s.unwrap()).fold(0.0, f64::max);
    assert!(last > 8.0 * 1067.0 * 1000.0 * 8.0 / 40e9, "{last}");
}

/// The same incast without PFC into a 50 KB queue: packets are dropped, the receiver
/// NAKs the gaps, the senders go back, and with a 1 ms timeout for lost tails every
/// message completes, each delivered exactly once. Without the timeout some queue pair
/// waits for ever on a lost packet no NAK reports.
#[test]
fn on_a_lossy_fabric_go_back_n_delivers_every_message_once() {
    let text = lossy();
    let base = ["topology.dumbbell.senders=8", "queues.capacity=\"50KB\"", "duration=\"30ms\""];
    let mut sets = base.to_vec();
    sets.push("traffic[0].rdma={timeout=\"1ms\"}");
    let sim = run_text(&text, &sets);
    assert!(sim.counters().dropped > 100, "{}", sim.counters().dropped);
    let (mut naks, mut again) = (0, 0);
    for f in 0..8 {
        let qp = sim.rdma_qp(f).unwrap();
        assert!(qp.stats.fct_s.is_some(), "flow {f} incomplete: {:?}", qp.stats);
        assert_eq!(sim.flows()[f as usize].stats.delivered_bytes, 1_000_000);
        assert_eq!(qp.stats.acked_packets, 1067);
        naks += qp.stats.naks_sent;
        again += qp.stats.retransmitted_packets;
    }
    eprintln!("lossy incast: {naks} NAKs, {again} packets sent again");
    assert!(naks > 0 && again > 0);

    let sim = run_text(&text, &base);
    let incomplete = (0..8).filter(|&f| sim.rdma_qp(f).unwrap().stats.fct_s.is_none()).count();
    assert!(incomplete > 0, "without a timeout a lost tail is never recovered");
}

/// Bad RDMA keys are refused at their key path.
#[test]
fn bad_rdma_keys_are_located() {
    let e = error(&["traffic[0].rdma={ack_every=0}"]);
    assert!(e.contains("traffic[0].rdma.ack_every") && e.contains("expected 1 to 1000000"), "{e}");
    let e = error(&["traffic[0].rdma={timeout=\"0s\"}"]);
    assert!(e.contains("traffic[0].rdma.timeout"), "{e}");
    let e = error(&["traffic[0].rate=\"1Gbps\""]);
    assert!(e.contains("traffic[0].rate") && e.contains("rdma source has no rate"), "{e}");
    let e = error(&["traffic[0].frame_size=\"62B\""]);
    assert!(e.contains("traffic[0].frame_size") && e.contains("no room for data"), "{e}");
    let e = error(&["traffic[0].bytes=\"0B\""]);
    assert!(e.contains("traffic[0].bytes") && e.contains("message size"), "{e}");
    let e = error(&["traffic[0].to=\"uniform\""]);
    assert!(e.contains("traffic[0].to") && e.contains("rdma source"), "{e}");
    let e = error(&["traffic[0].kind=\"saturated\"", "traffic[0].bytes=\"0B\""]);
    assert!(e.contains("traffic[0].bytes") && e.contains("kind = \"rdma\""), "{e}");
}

/// Retransmission timer sanity: the timeout counts only when packets are outstanding,
/// and the first packet's timer starts at its send.
#[test]
fn a_timeout_longer_than_the_transfer_never_fires() {
    let sim = run(&["topology.dumbbell.senders=2", "traffic[0].rdma={timeout=\"500us\"}"]);
    for f in 0..2 {
        let qp = sim.rdma_qp(f).unwrap();
        assert_eq!(qp.stats.timeouts, 0);
        assert!(
            qp.stats.fct_s.unwrap() * 1e12 > 500.0 * PS_PER_US as f64,
            "the transfer outlasts one timeout"
        );
    }
}
