//! IEEE 802.3x PAUSE and 802.1Qbb PFC, priority classes, and hosts that drain their
//! input at a service rate: hand-computed times and the behaviour the 802.1au tests rely
//! on (a slow host backs up its switch; PFC makes an incast lossless and spreads the
//! congestion upstream).

use cnsim::engine::{Time, PS_PER_US};
use cnsim::l2::pause::{PauseFrame, PAUSE_FRAME_BYTES};
use cnsim::metrics::summary::Summary;
use cnsim::net::{Frame, Header, NONE};
use cnsim::protocol::Send;
use cnsim::scenario::{build, parse};
use cnsim::sim::Sim;

fn sim(text: &str) -> Sim {
    let s = parse(text, "test.toml", &[]).unwrap_or_else(|e| panic!("{e}"));
    build(&s, "test.toml").unwrap_or_else(|e| panic!("{e}"))
}

fn port(s: &Sim, name: &str) -> u32 {
    s.net().port_by_name(name).expect(name)
}

/// Frames port `name` has started sending, per class.
fn sent(s: &Sim, name: &str) -> Vec<u64> {
    s.queue_stats(port(s, name)).map(|q| q.sent_frames).collect()
}

fn pause_frame(priorities: u8, quanta: u16) -> Frame {
    Frame {
        size: PAUSE_FRAME_BYTES,
        src: NONE,
        dst: NONE,
        flow: NONE,
        ingress: NONE,
        header: Header::Pause(PauseFrame { priorities, quanta }),
        ..Frame::default()
    }
}

/// h1 -(10G, 1us)- sw -(10G, 1us)- h2; h1 sends at line rate. Switch thresholds are set
/// so high that the switch never pauses on its own: the tests inject PAUSE frames.
fn line_rate_pair(classes: u8, traffic: &str) -> String {
    format!(
        r#"
name = "pause"
duration = "2ms"
[topology.star]
hosts = ["h1", "h2"]
link = {{ rate = "10Gbps", delay = "1us" }}
[queues]
capacity = "10000 frames"
classes = {classes}
{traffic}
[protocols.pause]
mode = "pfc"
[protocols.pause.switches]
xoff = "100000 frames"
xon = "50000 frames"
"#
    )
}

const ONE_FLOW: &str = r#"
[[traffic]]
name = "f"
kind = "cbr"
from = "h1"
to = "h2"
rate = "10Gbps"
frame_size = "1500B"
"#;

/// The time the injected PAUSE reaches h1: sent by sw at `t0` on an idle port, it takes
/// 64 B at 10 Gbit/s (51.2 ns) plus the 1 µs link delay.
fn arrival(t0: Time) -> Time {
    t0 + 51_200 + PS_PER_US
}

#[test]
fn paused_port_stays_silent_exactly_quanta_times_512_bit_times() {
    let mut s = sim(&line_rate_pair(1, ONE_FLOW));
    // Off the 1.2 µs frame grid, so no event coincides with the PAUSE's arrival.
    let t0 = 500 * PS_PER_US + 333_000;
    s.run_until(t0, &mut |_| true).unwrap();
    s.inject(t0, Send::OnPort { port: port(&s, "sw->h1") }, pause_frame(0xFF, 100));
    let ta = arrival(t0);
    // 100 quanta × 512 bit times at 10 Gbit/s = 5.12 µs.
    let resume = ta + 5_120_000;
    s.run_until(ta + 1, &mut |_| true).unwrap();
    let busy = s.net().ports[port(&s, "h1->sw") as usize].busy_until;
    assert!(busy > ta, "a frame is on the wire when the PAUSE arrives");
    let at_pause = sent(&s, "h1->sw")[0];
    // The frame in flight is finished; nothing else starts until the pause ends.
    s.run_until(resume, &mut |_| true).unwrap();
    assert_eq!(sent(&s, "h1->sw")[0], at_pause, "silent during the pause");
    s.run_until(resume + 1, &mut |_| true).unwrap();
    assert_eq!(sent(&s, "h1->sw")[0], at_pause + 1, "sends again exactly when the pause ends");
    s.run_to_end();
    s.check_conservation().unwrap();
}

#[test]
fn pause_zero_resumes_at_once() {
    let mut s = sim(&line_rate_pair(1, ONE_FLOW));
    let t0 = 500 * PS_PER_US + 333_000;
    s.run_until(t0, &mut |_| true).unwrap();
    s.inject(t0, Send::OnPort { port: port(&s, "sw->h1") }, pause_frame(0xFF, u16::MAX));
    // PAUSE(0) 10 µs later: h1 resumes when it arrives, not 3.36 ms after the first.
    let t1 = t0 + 10 * PS_PER_US;
    s.run_until(t1, &mut |_| true).unwrap();
    let before = sent(&s, "h1->sw")[0];
    s.inject(t1, Send::OnPort { port: port(&s, "sw->h1") }, pause_frame(0xFF, 0));
    let resume = arrival(t1);
    s.run_until(resume, &mut |_| true).unwrap();
    assert_eq!(sent(&s, "h1->sw")[0], before);
    s.run_until(resume + 1, &mut |_| true).unwrap();
    assert_eq!(sent(&s, "h1->sw")[0], before + 1);
}

#[test]
fn pfc_pauses_one_class_and_not_the_other() {
    let two_flows = r#"
[[traffic]]
name = "low"
kind = "cbr"
from = "h1"
to = "h2"
rate = "5Gbps"
priority = 1
[[traffic]]
name = "high"
kind = "cbr"
from = "h1"
to = "h2"
rate = "5Gbps"
priority = 5
"#;
    let mut s = sim(&line_rate_pair(8, two_flows));
    let t0 = 500 * PS_PER_US + 333_000;
    s.run_until(t0, &mut |_| true).unwrap();
    // Pause priority 1 for 1000 quanta: 51.2 µs at 10 Gbit/s.
    s.inject(t0, Send::OnPort { port: port(&s, "sw->h1") }, pause_frame(1 << 1, 1000));
    let ta = arrival(t0);
    s.run_until(ta + 2 * PS_PER_US, &mut |_| true).unwrap();
    let before = sent(&s, "h1->sw");
    s.run_until(ta + 51_200_000, &mut |_| true).unwrap();
    let during = sent(&s, "h1->sw");
    assert_eq!(during[1], before[1], "class 1 is paused");
    // Class 5 goes on at its own 5 Gbit/s: about 20 frames in 49 µs.
    let high = during[5] - before[5];
    assert!((19..=22).contains(&high), "class 5 kept sending: {high} frames");
    s.run_until(ta + 51_200_000 + 2 * PS_PER_US, &mut |_| true).unwrap();
    assert!(sent(&s, "h1->sw")[1] > during[1], "class 1 resumes");
    s.run_to_end();
    s.check_conservation().unwrap();
}

/// h1 sends 5 Gbit/s through sw to r, a host that drains its input at 1 Gbit/s (input
/// buffer 100 frames, XOFF 75, XON 50, PAUSE on). The switch does not send PAUSE.
const SLOW_HOST: &str = r#"
name = "slow-host"
duration = "20ms"
[topology.star]
hosts = ["h1", "r"]
link = { rate = "10Gbps", delay = "1us" }
[queues]
capacity = "200 frames"
host_capacity = "100000 frames"
[[traffic]]
name = "f"
kind = "cbr"
from = "h1"
to = "r"
rate = "5Gbps"
[protocols.pause]
[[protocols.pause.hosts]]
hosts = "r"
service_rate = "1Gbps"
input_buffer = "100 frames"
xoff = "75 frames"
xon = "50 frames"
"#;

#[test]
fn slow_host_loses_nothing_and_backs_up_its_switch() {
    let mut s = sim(SLOW_HOST);
    s.run_to_end();
    s.check_conservation().unwrap();
    let summary = Summary::of(&s, "slow-host", 1);
    let pause = summary.protocols.pause.expect("pause section");
    let host = &pause.hosts[0];
    assert_eq!(host.stats.dropped_frames, 0, "the host loses nothing");
    assert!(host.stats.max_frames <= 100);
    // XOFF/XON hysteresis: the host alternates PAUSE and PAUSE(0).
    let r = pause.ports.iter().find(|p| p.port == "r->sw").expect("r sent PAUSE");
    assert!(r.stats.pause_sent >= 2, "{:?}", r.stats);
    assert!(r.stats.resume_sent + 1 >= r.stats.pause_sent && r.stats.resume_sent <= r.stats.pause_sent);
    // The switch queue feeding r fills to its capacity and drops (switch PAUSE off).
    let q = summary.queues.iter().find(|q| q.port == "sw->r").unwrap();
    assert_eq!(q.max_frames, 200);
    assert!(q.dropped_frames > 0);
    // r receives at its service rate: 1 Gbit/s within 2 %.
    let f = &summary.flows[0];
    assert!((f.throughput_bps / 1e9 - 1.0).abs() < 0.02, "{}", f.throughput_bps);
}

/// Four senders on sw1 send 2.5 Gbit/s each to r on sw2: 10 Gbit/s over the 10 Gbit/s
/// link between the switches, into r's 5 Gbit/s port. Links 1 µs.
fn incast(pfc: bool) -> String {
    let pause = if pfc {
        "[protocols.pause]\nmode = \"pfc\"\n[protocols.pause.switches]\nxoff = \"20 frames\"\nxon = \"10 frames\"\n"
    } else {
        ""
    };
    format!(
        r#"
name = "incast"
duration = "5ms"
[topology]
nodes = [
  {{ name = "s1", kind = "host" }}, {{ name = "s2", kind = "host" }}, {{ name = "s3", kind = "host" }},
  {{ name = "s4", kind = "host" }}, {{ name = "sw1", kind = "switch" }}, {{ name = "sw2", kind = "switch" }},
  {{ name = "r", kind = "host" }},
]
links = [
  {{ from = "s1", to = "sw1", rate = "10Gbps", delay = "1us" }},
  {{ from = "s2", to = "sw1", rate = "10Gbps", delay = "1us" }},
  {{ from = "s3", to = "sw1", rate = "10Gbps", delay = "1us" }},
  {{ from = "s4", to = "sw1", rate = "10Gbps", delay = "1us" }},
  {{ from = "sw1", to = "sw2", rate = "10Gbps", delay = "1us" }},
  {{ from = "sw2", to = "r", rate = "5Gbps", delay = "1us" }},
]
[queues]
capacity = "300 frames"
host_capacity = "100000 frames"
[[traffic]]
name = "f"
kind = "cbr"
from = "s*"
to = "r"
rate = "2.5Gbps"
{pause}"#
    )
}

#[test]
fn pfc_makes_an_incast_lossless_and_spreads_the_pause_upstream() {
    let mut lossy = sim(&incast(false));
    lossy.run_to_end();
    assert!(lossy.counters().dropped_at_queues > 0, "without PFC the incast drops");

    let mut s = sim(&incast(true));
    s.run_to_end();
    s.check_conservation().unwrap();
    assert_eq!(s.counters().dropped, 0, "with PFC nothing is lost");
    let summary = Summary::of(&s, "incast", 1);
    let pause = summary.protocols.pause.expect("pause section");
    let stats =
        |name: &str| pause.ports.iter().find(|p| p.port == name).map(|p| p.stats.clone()).unwrap_or_default();
    // The congested switch pauses its upstream switch ...
    assert!(stats("sw2->sw1").pause_sent > 0);
    assert!(stats("sw1->sw2").pause_received > 0);
    // ... whose queue then fills, so it pauses the senders: congestion spreading.
    assert!((1..=4).all(|i| stats(&format!("sw1->s{i}")).pause_sent > 0));
    assert!((1..=4).all(|i| stats(&format!("s{i}->sw1")).pause_received > 0));
    // The bottleneck stays busy: r receives close to 5 Gbit/s.
    let delivered: f64 = summary.flows.iter().map(|f| f.throughput_bps).sum();
    assert!(delivered > 4.75e9, "{delivered}");
}
