//! TIMELY end to end (Mittal et al. 2015, as the HPCC paper's ns-3 fork runs it): each
//! packet carries its send time and the ACK echoes it, so a lone flow measures its base
//! RTT; under an 8:1 incast the RTT, not the queue, is what TIMELY holds: it settles near
//! T_low. With a BDP window (TIMELY+win, DCQCN+win, the HPCC paper's `vwin` variants)
//! the window follows the rate and bounds what a queue pair has in flight.

use cnsim::scenario::bundled;
use cnsim::sim::Sim;

use crate::hpcc::{built, column, late_means};

const US: f64 = 1e-6;

/// One packet's transmission at 100 Gbit/s, s.
fn tx(bytes: f64) -> f64 {
    bytes * 8.0 / 100e9
}

/// A lone queue pair over s1 -> r1 -> r2 -> d1 (three 1 µs links at 100 Gbit/s): its
/// packets are 1000 + 8 bytes on the wire, and the RTT the echoed send time gives is
/// the path's: 6 µs of propagation, a packet's and an ACK's transmission at each of
/// three hops. Below T_low the rate only rises, so it stays at line rate.
#[test]
fn a_lone_flow_measures_its_base_rtt() {
    let text = bundled::get("timely-incast").unwrap();
    let mut sim = built(text, &["topology.dumbbell.senders=1", "duration=\"300us\""]);
    sim.run_to_end();
    let st = &sim.flows()[0].stats;
    assert_eq!(st.sent_bytes, st.sent_frames * 1008, "1000-byte packets and an 8-byte timestamp");
    let timely = sim.reaction_points()[0].as_timely().expect("TIMELY");
    let rtt = timely.last_rtt() as f64 * 1e-12;
    let ack = cnsim::l4::rdma::ACK_BYTES as f64 + 8.0;
    let base = 6.0 * US + 3.0 * (tx(1008.0) + tx(ack));
    eprintln!("lone TIMELY flow: RTT {:.4} µs (base {:.4} µs), rate {}", rtt / US, base / US, timely.rate());
    assert!((rtt - base).abs() < 0.01 * US, "RTT {rtt}, base {base}");
    assert_eq!(timely.rate(), 100e9);
}

/// `timely-incast` with long messages (8:1 at 100 Gbit/s, 50 ms): over the last half
/// the queue pairs share the port (Jain ≥ 0.95), and the queueing delay sits near
/// T_low = 50 µs (between a fifth of it and T_high), because below T_low every update
/// raises the rate and above it a rising RTT cuts it: hundreds of frames, where HPCC's
/// queue on the same incast is about one. A gradient cut takes a third or more off
/// every rate at once, and the rates climb back by δ per RTT, so the port idles at
/// times: busy at least 75 % (82 % here), below HPCC's 95 %.
#[test]
fn an_incast_settles_its_rtt_near_t_low() {
    let text = bundled::get("timely-incast").unwrap();
    let mut sim = built(text, &["duration=\"50ms\"", "traffic[0].bytes=\"1GB\""]);
    sim.run_to_end();
    sim.check_conservation().unwrap();
    let rec = sim.recorder();
    let x: Vec<f64> = late_means(&rec.throughput, 0.025).into_iter().map(|(_, v)| v).collect();
    let busy = column(&late_means(&rec.utilisation, 0.025), "r1->r2");
    let q = column(&late_means(&rec.queues, 0.025), "r1->r2");
    let delay = q * tx(1008.0);
    let jain = cnsim::metrics::jain_index(&x);
    eprintln!("8:1 TIMELY: Jain {jain:.4}, busy {busy:.4}, queue {q:.1} frames = {:.1} µs", delay / US);
    assert!(busy >= 0.75, "{busy}");
    assert!(jain >= 0.95, "{x:?}");
    assert!((10.0 * US..500.0 * US).contains(&delay), "{delay}");
}

/// The last rate of `sim`'s flow `f` and its queue pair's window, packets.
fn rate_and_window(sim: &Sim, f: u32) -> (u64, u64) {
    let rate = sim.reaction_points()[f as usize].current_rate();
    (rate, sim.rdma_qp(f).unwrap().requester.window())
}

/// TIMELY+win on the incast: each queue pair's window is its BDP (100 Gbit/s × the
/// path's base RTT, about 78 KB) scaled by its rate over the line rate, in whole
/// 1008-byte packets rounded up; the queue then never holds more than the eight
/// windows.
#[test]
fn timely_windows_follow_the_rate() {
    let text = bundled::get("timely-incast").unwrap();
    let mut sim =
        built(text, &["protocols.timely.window=\"bdp\"", "duration=\"5ms\"", "traffic[0].bytes=\"1GB\""]);
    sim.run_to_end();
    let base = 6.0 * US + 3.0 * tx(1008.0);
    let bdp = (100e9 * base / 8.0).floor();
    let mut total = 0;
    for f in 0..8 {
        let (rate, window) = rate_and_window(&sim, f);
        let expected = (bdp * rate as f64 / 100e9 / 1008.0).ceil().max(1.0) as u64;
        assert!(window.abs_diff(expected) <= 1, "flow {f}: window {window}, expected {expected} at {rate}");
        total += window;
    }
    let peak =
        sim.queue_stats(sim.net().port_by_name("r1->r2").unwrap()).map(|s| s.max_frames).max().unwrap();
    eprintln!("TIMELY+win: windows {total} packets in all, peak queue {peak} frames");
    assert!(peak <= 8 * (bdp / 1008.0).ceil() as u64, "{peak}");
}

/// DCQCN+win with no switch marking: no CNP ever comes, the rates stay at line rate,
/// and the windows alone (a BDP each, 78 packets) hold the incast's queue to at most
/// eight of them, where without the window it would grow to PFC's threshold at each
/// of the eight ingress ports (400 KB each).
#[test]
fn dcqcn_windows_alone_bound_the_queue() {
    let text = bundled::get("hpcc-incast").unwrap();
    let start = text.find("\n[protocols.hpcc]").unwrap() + 1;
    let end = text.find("\n[protocols.pause]").unwrap() + 1;
    let dcqcn = |window: &str| {
        format!(
            "{}[protocols.dcqcn]\ncongestion_points = \"none\"\nflows = \"*\"\n{window}\n{}",
            &text[..start],
            &text[end..]
        )
    };
    let peak_queue = |sim: &Sim| {
        sim.queue_stats(sim.net().port_by_name("r1->r2").unwrap()).map(|s| s.max_frames).max().unwrap()
    };
    let mut win = built(&dcqcn("window = \"bdp\""), &["duration=\"2ms\"", "traffic[0].bytes=\"1GB\""]);
    win.run_to_end();
    let mut plain = built(&dcqcn(""), &["duration=\"2ms\"", "traffic[0].bytes=\"1GB\""]);
    plain.run_to_end();
    let (rate, window) = rate_and_window(&win, 0);
    let (w, p) = (peak_queue(&win), peak_queue(&plain));
    eprintln!("DCQCN+win unmarked: rate {rate}, window {window}, peak queue {w} frames; without window {p}");
    assert_eq!((rate, window), (100_000_000_000, 78));
    assert!(w <= 8 * 78, "{w}");
    assert!(p > 8 * 78, "{p}");
}
