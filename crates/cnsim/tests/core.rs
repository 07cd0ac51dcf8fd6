//! Behaviour of the simulation core on hand-computed examples.

use cnsim::engine::{PS_PER_MS, PS_PER_US};
use cnsim::scenario::{build, parse};
use cnsim::sim::Sim;

fn sim(text: &str) -> Sim {
    let s = parse(text, "test.toml", &[]).unwrap_or_else(|e| panic!("{e}"));
    build(&s, "test.toml").unwrap_or_else(|e| panic!("{e}"))
}

fn run(text: &str) -> Sim {
    let mut s = sim(text);
    s.run_to_end();
    s.check_conservation().unwrap();
    s
}

fn port(s: &Sim, name: &str) -> usize {
    (0..s.net().ports.len()).find(|&p| s.net().port_name(p as u32) == name).expect(name)
}

/// h1 -(10G, 2us)- s1 -(1G, 10us)- s2 -(10G, 3us)- h2, 1us switch latency.
const THREE_HOP: &str = r#"
name = "three-hop"
duration = "1ms"
[topology]
nodes = [
  { name = "h1", kind = "host" }, { name = "s1", kind = "switch" },
  { name = "s2", kind = "switch" }, { name = "h2", kind = "host" },
]
links = [
  { from = "h1", to = "s1", rate = "10Gbps", delay = "2us" },
  { from = "s1", to = "s2", rate = "1Gbps", delay = "10us" },
  { from = "s2", to = "h2", rate = "10Gbps", delay = "3us" },
]
[switches]
processing_latency = "1us"
[[traffic]]
name = "f"
kind = "cbr"
from = "h1"
to = "h2"
rate = "10Gbps"
frame_size = "1500B"
stop = "2us"
"#;

#[test]
fn three_hop_timing_is_exact_to_the_picosecond() {
    let s = run(THREE_HOP);
    let f = &s.flows()[0];
    // Two frames, emitted at 0 and 1.2 us (10 Gbit/s CBR, stop at 2 us).
    assert_eq!(f.stats.delivered_frames, 2);
    // Frame 1: 1.2 us + 2 us + 1 us (s1) | 12 us + 10 us + 1 us (s2) | 1.2 us + 3 us.
    let first =
        (1_200_000 + 2_000_000 + 1_000_000) + (12_000_000 + 10_000_000 + 1_000_000) + (1_200_000 + 3_000_000);
    // Frame 2 reaches s1 at 5.4 us but waits for the 1 Gbit/s wire, free at 4.2 + 12 =
    // 16.2 us; it is then 12 us + 10 us + 1 us + 1.2 us + 3 us behind, born at 1.2 us.
    let second_arrival = 16_200_000 + 12_000_000 + 10_000_000 + 1_000_000 + 1_200_000 + 3_000_000;
    let second = second_arrival - 1_200_000;
    assert_eq!(first, 31_400_000);
    assert_eq!(f.stats.delay_sum, (first + second) as u128);
    // The second frame waited at s1 (one PortFree), never at the other ports.
    assert_eq!(s.net().ports[port(&s, "s1->s2")].classes.queue(0).stats.max_frames, 1);
    assert_eq!(s.net().ports[port(&s, "s2->h2")].classes.queue(0).stats.max_frames, 0);
    assert_eq!(s.counters().frame_hops, 6);
}

#[test]
fn saturated_drop_tail_drops_exactly_the_excess() {
    // 1000 frames at 10 Gbit/s (one per 1.2 us) into a 900 Mbit/s port with a capacity of
    // 50 frames. Serialization at 900 Mbit/s: 12000/9e8 s = 13 333 333.3 ps → 13 333 334.
    // Accepted = 1 (sent at once) + the frames waiting at the end + the transmissions that
    // started before the last arrival: j·13.333334 us < 999·1.2 us = 1198.8 us → j ≤ 89.
    // Counting waiting frames, 50 wait at the end; counting the buffer, the frame on the
    // wire takes one of the 50 places and 49 wait.
    for (occupancy, waiting) in [("waiting", 50), ("buffer", 49)] {
        let text = format!(
            r#"
name = "droptail"
duration = "5ms"
[topology]
nodes = [{{ name = "a", kind = "host" }}, {{ name = "sw", kind = "switch" }}, {{ name = "b", kind = "host" }}]
links = [
  {{ from = "a", to = "sw", rate = "10Gbps", delay = "1us" }},
  {{ from = "sw", to = "b", rate = "900Mbps", delay = "1us" }},
]
[queues]
capacity = "50 frames"
occupancy = "{occupancy}"
[[traffic]]
name = "f"
kind = "cbr"
from = "a"
to = "b"
rate = "10Gbps"
stop = "1200us"
"#
        );
        let s = run(&text);
        let f = &s.flows()[0].stats;
        assert_eq!(f.offered_frames, 1000);
        let accepted = 1 + waiting + 89;
        assert_eq!(f.delivered_frames, accepted, "{occupancy}");
        assert_eq!(f.dropped_frames, 1000 - accepted);
        let q = &s.net().ports[port(&s, "sw->b")].classes.queue(0).stats;
        assert_eq!(q.dropped_frames, 1000 - accepted);
        assert_eq!(q.max_frames, waiting);
        assert_eq!(s.counters().dropped, 1000 - accepted);
    }
}

#[test]
fn multicast_delivers_one_copy_per_member_and_replicates_at_branches_only() {
    // src - swA - swB; R1 on swA; R2, R3 on swB; X on swB is not a member.
    let text = r#"
name = "mc"
duration = "2ms"
[topology]
nodes = [
  { name = "src", kind = "host" }, { name = "swA", kind = "switch" }, { name = "swB", kind = "switch" },
  { name = "R1", kind = "host" }, { name = "R2", kind = "host" }, { name = "R3", kind = "host" },
  { name = "X", kind = "host" },
]
links = [
  { from = "src", to = "swA", rate = "10Gbps", delay = "1us" },
  { from = "swA", to = "swB", rate = "10Gbps", delay = "1us" },
  { from = "swA", to = "R1", rate = "10Gbps", delay = "1us" },
  { from = "swB", to = "R2", rate = "10Gbps", delay = "1us" },
  { from = "swB", to = "R3", rate = "10Gbps", delay = "1us" },
  { from = "swB", to = "X", rate = "10Gbps", delay = "1us" },
]
[groups]
G = ["R1", "R2", "R3"]
[[traffic]]
name = "m"
kind = "cbr"
from = "src"
to = "G"
rate = "1Gbps"
stop = "1200us"
"#;
    let s = run(text);
    let n = 100; // 1200 us at one frame per 12 us
    let f = &s.flows()[0].stats;
    assert_eq!(f.offered_frames, n);
    assert_eq!(f.delivered_frames, 3 * n);
    let sent = |name| s.net().ports[port(&s, name)].classes.queue(0).stats.sent_frames;
    assert_eq!(sent("src->swA"), n);
    assert_eq!(sent("swA->swB"), n, "one copy crosses the trunk");
    assert_eq!(sent("swA->R1"), n);
    assert_eq!(sent("swB->R2"), n);
    assert_eq!(sent("swB->R3"), n);
    assert_eq!(sent("swB->X"), 0);
    // One frame per source emission, one extra copy at swA and one at swB.
    assert_eq!(s.counters().created, 3 * n);
}

#[test]
fn shared_buffer_limits_all_queues_of_a_switch() {
    // Two senders at 10 Gbit/s into two 1 Gbit/s ports of one switch: each port alone
    // would hold 100 frames, but the switch shares 60.
    let text = r#"
name = "pool"
duration = "3ms"
[topology]
nodes = [
  { name = "a", kind = "host" }, { name = "b", kind = "host" }, { name = "sw", kind = "switch" },
  { name = "c", kind = "host" }, { name = "d", kind = "host" },
]
links = [
  { from = "a", to = "sw", rate = "10Gbps", delay = "1us" },
  { from = "b", to = "sw", rate = "10Gbps", delay = "1us" },
  { from = "sw", to = "c", rate = "1Gbps", delay = "1us" },
  { from = "sw", to = "d", rate = "1Gbps", delay = "1us" },
]
[queues]
capacity = "100 frames"
[switches]
shared_buffer = "60 frames"
[[traffic]]
name = "ac"
kind = "cbr"
from = "a"
to = "c"
rate = "10Gbps"
stop = "1ms"
[[traffic]]
name = "bd"
kind = "cbr"
from = "b"
to = "d"
rate = "10Gbps"
stop = "1ms"
start = "600ns"
"#;
    let s = run(text);
    let qc = &s.net().ports[port(&s, "sw->c")].classes.queue(0).stats;
    let qd = &s.net().ports[port(&s, "sw->d")].classes.queue(0).stats;
    assert!(qc.max_frames + qd.max_frames <= 61, "{} + {}", qc.max_frames, qd.max_frames);
    assert!(qc.max_frames >= 25 && qd.max_frames >= 25, "the pool is shared, not monopolised");
    assert!(qc.dropped_frames > 0 && qd.dropped_frames > 0);
}

#[test]
fn overload_share_is_dropped_on_the_dumbbell() {
    // 110 % offered load: about 1/11 of the frames are lost at the bottleneck, and the
    // bottleneck runs at its full rate.
    let text = cnsim::scenario::bundled::get("dumbbell-cbr-64").unwrap();
    let sc = parse(text, "dumbbell", &["duration=200ms".into()]).unwrap();
    let mut s = build(&sc, "dumbbell").unwrap();
    s.run_to_end();
    s.check_conservation().unwrap();
    let offered: u64 = s.flows().iter().map(|f| f.stats.offered_frames).sum();
    let dropped: u64 = s.flows().iter().map(|f| f.stats.dropped_frames).sum();
    let share = dropped as f64 / offered as f64;
    assert!((share - 1.0 / 11.0).abs() < 0.005, "drop share {share}");
    let sent = s.net().ports[port(&s, "r1->r2")].classes.queue(0).stats.sent_frames as f64;
    let line = 0.2 / 1.2e-6; // frames per 200 ms at 10 Gbit/s
    assert!(sent > 0.99 * line && sent <= line + 1.0, "bottleneck sent {sent} of {line}");
}

/// Strictly periodic senders keep their phases, so the same few flows meet the full
/// queue every time; per-frame jitter spreads the loss over the flows, at the same
/// overall loss (the overload share).
#[test]
fn cbr_jitter_spreads_drop_tail_loss_over_the_flows() {
    let losers = |jitter: &str| {
        let text = cnsim::scenario::bundled::get("dumbbell-cbr-64").unwrap();
        let sc = parse(text, "dumbbell", &["duration=100ms".into(), format!("traffic[0].jitter={jitter}")])
            .unwrap();
        let mut s = build(&sc, "dumbbell").unwrap();
        s.run_to_end();
        let offered: u64 = s.flows().iter().map(|f| f.stats.offered_frames).sum();
        let dropped: u64 = s.flows().iter().map(|f| f.stats.dropped_frames).sum();
        let share = dropped as f64 / offered as f64;
        assert!((share - 1.0 / 11.0).abs() < 0.01, "jitter {jitter}: drop share {share}");
        s.flows().iter().filter(|f| f.stats.dropped_frames > 0).count()
    };
    let (periodic, jittered) = (losers("0.0"), losers("0.5"));
    assert!(periodic <= 16, "periodic: {periodic} of 64 flows lose frames");
    assert!(jittered >= 48, "jitter 0.5: {jittered} of 64 flows lose frames");
}

#[test]
fn adding_a_flow_leaves_other_flows_draws_unchanged() {
    let base = r#"
name = "rng"
duration = "5ms"
seed = 11
[topology.star]
hosts = ["a", "b", "c", "d"]
link = { rate = "10Gbps", delay = "1us" }
[[traffic]]
name = "p"
kind = "poisson"
from = "a"
to = "b"
rate = "1Gbps"
start = { uniform = ["0us", "50us"] }
"#;
    let extra = r#"
[[traffic]]
name = "q"
kind = "poisson"
from = "c"
to = "uniform"
rate = "3Gbps"
start = { uniform = ["0us", "50us"] }
"#;
    // The new flow comes first, so that flow "p" moves from index 0 to index 1: streams
    // keyed by index (the bug this guards against) would change its draws.
    let (header, entry) = base.split_at(base.find("[[traffic]]").unwrap());
    let one = run(base);
    let two = run(&format!("{header}{extra}{entry}"));
    assert_eq!(two.flows().len(), 2);
    assert_eq!(two.flows()[1].name, "p/a");
    assert_eq!(one.flows()[0].start, two.flows()[1].start);
    assert_eq!(one.flows()[0].stats.offered_frames, two.flows()[1].stats.offered_frames);
}

#[test]
fn on_off_source_sends_only_while_on() {
    // 1 Gbit/s while on, 1 ms on / 1 ms off, for 10 ms: 5 ms on in all. The sending
    // phase carries across periods, so frames are due at on-times 0, 12 us, …: ⌈5 ms /
    // 12 us⌉ = 417 frames (not 5 × ⌈1 ms / 12 us⌉ = 420, as when every on-period
    // restarted with a frame).
    let text = r#"
name = "onoff"
duration = "10ms"
[topology.star]
hosts = ["a", "b"]
link = { rate = "10Gbps", delay = "1us" }
[[traffic]]
name = "o"
kind = "onoff"
from = "a"
to = "b"
rate = "1Gbps"
on = "1ms"
off = "1ms"
"#;
    let s = run(text);
    assert_eq!(s.flows()[0].stats.offered_frames, 417);
    let _ = (PS_PER_MS, PS_PER_US);
}

#[test]
fn rate_limiter_caps_a_saturated_source() {
    let text = r#"
name = "limit"
duration = "10ms"
[topology.star]
hosts = ["a", "b"]
link = { rate = "10Gbps", delay = "1us" }
[[traffic]]
name = "s"
kind = "saturated"
from = "a"
to = "b"
rate_limit = "2Gbps"
"#;
    let s = run(text);
    // One frame per 6 us over 10 ms.
    let sent = s.flows()[0].stats.sent_frames;
    assert!((1666..=1667).contains(&sent), "{sent}");
}

/// A 1 Gbit/s CBR source (a 1500-byte frame every 12 us) behind a 400 Mbit/s limit (one
/// frame per 30 us) with room for 3 frames, over 1 ms. Frames are made at 0, 12, 24, …,
/// 996 us (84) and released at 0, 30, …, 990 us (34); the queue is full from 48 us on, so
/// 84 − 34 − 3 = 47 are lost. Every 60 us a frame is due at the instant of a release: it
/// comes after the release, finds the place just freed, and the next one (12 us later) is
/// lost instead. A frame waits (release − birth) plus 4.4 us on the way (two 1.2 us
/// serializations, two 1 us links): 2 855.6 us over the 34 delivered (a frame due at a
/// release and lost instead would give 2 675.6 us).
const LIMITED: &str = r#"
name = "limited"
duration = "1ms"
[topology]
nodes = [{ name = "a", kind = "host" }, { name = "sw", kind = "switch" }, { name = "b", kind = "host" }]
links = [
  { from = "a", to = "sw", rate = "10Gbps", delay = "1us" },
  { from = "sw", to = "b", rate = "10Gbps", delay = "1us" },
]
[switches]
processing_latency = "0us"
[[traffic]]
name = "f"
kind = "cbr"
from = "a"
to = "b"
rate = "1Gbps"
frame_size = "1500B"
rate_limit = "400Mbps"
source_queue = "3 frames"
"#;

#[test]
fn a_source_behind_a_full_rate_limiter_loses_exactly_the_excess() {
    let s = run(LIMITED);
    let st = &s.flows()[0].stats;
    assert_eq!(
        (st.offered_frames, st.sent_frames, st.source_dropped_frames, st.delivered_frames),
        (84, 34, 47, 34)
    );
    assert_eq!(s.frames_queued(), 3);
    assert_eq!(st.delay_sum, 2_855_600_000);
    // The source makes no event of its own while its frames wait: one event per release
    // and per hop (33 + 2 · 34), not one more per frame made (84).
    assert!(s.counters().events < 3 * 34 + 10, "{} events", s.counters().events);
}

#[test]
fn a_rate_limited_source_inspected_part_way_shows_every_frame_it_made() {
    let mut s = sim(LIMITED);
    s.run_until(500 * PS_PER_US, &mut |_| true).unwrap();
    // Made at 0 … 492 us (42), released at 0 … 480 us (17), 3 waiting, 22 lost.
    let st = &s.flows()[0].stats;
    assert_eq!((st.offered_frames, st.sent_frames, st.source_dropped_frames), (42, 17, 22));
    assert_eq!(s.frames_queued(), 3);
    assert_eq!(st.delay_sum, 1_298_800_000);
    s.check_conservation().unwrap();
    s.run_to_end();
    let whole = run(LIMITED);
    assert_eq!(format!("{:?}", s.flows()[0].stats), format!("{:?}", whole.flows()[0].stats));
}

#[test]
fn summary_names_each_congestion_point_by_its_own_port() {
    // CPs listed against port order: each summary entry must still name its own queue.
    let text = r#"
name = "cp-names"
duration = "2ms"
[topology.star]
hosts = ["a", "b", "c"]
link = { rate = "1Gbps", delay = "1us" }
[[traffic]]
name = "f"
kind = "cbr"
from = ["a", "b"]
to = "c"
rate = "800Mbps"
[protocols.qcn]
congestion_points = ["sw->c", "sw->a"]
flows = "*"
"#;
    let s = run(text);
    let summary = cnsim::metrics::summary::Summary::of(&s, "cp-names", 1);
    let cps = summary.protocols.qcn.unwrap().congestion_points;
    let named: Vec<(&str, u64)> = cps.iter().map(|c| (c.port.as_str(), c.stats.arrivals)).collect();
    assert_eq!(named[0].0, "sw->c");
    assert!(named[0].1 > 0, "the congested queue sees the data: {named:?}");
    assert_eq!(named[1], ("sw->a", 0));
}

#[test]
fn qcn_applies_only_to_the_flows_it_names() {
    // Two traffic entries into one congested port; only "a" has a reaction point. The
    // CP samples both, so CNMs for "b" reach a source without one and are not handled.
    let text = r#"
name = "qcn-some-flows"
duration = "20ms"
[topology.star]
hosts = ["a", "b", "c"]
link = { rate = "1Gbps", delay = "1us" }
[[traffic]]
name = "a"
kind = "cbr"
from = "a"
to = "c"
rate = "800Mbps"
[[traffic]]
name = "b"
kind = "cbr"
from = "b"
to = "c"
rate = "800Mbps"
[protocols.qcn]
congestion_points = ["sw->c"]
flows = ["a"]
"#;
    let s = run(text);
    let flows = s.flows();
    assert_ne!(flows[0].rp, cnsim::net::NONE);
    assert_eq!(flows[1].rp, cnsim::net::NONE);
    assert!(flows[1].shaper.is_none(), "no shaper where no reaction point drives one");
    assert_eq!(s.reaction_points().len(), 1);
    let cnm = s.counters().kind(cnsim::net::HeaderKind::Cnm);
    assert!(cnm.unhandled > 0 && cnm.unhandled < cnm.delivered, "{cnm:?}");
}

/// A CBR flow over the three hops with Bernoulli loss 0.1 on the middle link only: the
/// frames sent on it are lost at about that rate, counted on the link, in the flow's
/// drops and in the totals, and conservation holds; the other links lose nothing.
#[test]
fn link_loss_is_counted_where_it_happens() {
    let steady = THREE_HOP
        .replace("duration = \"1ms\"", "duration = \"100ms\"")
        .replace("rate = \"10Gbps\"\nframe_size", "rate = \"500Mbps\"\nframe_size")
        .replace("stop = \"2us\"\n", "");
    let text = format!("{steady}[queues]\nports = [{{ port = \"s1->s2\", loss = 0.1 }}]\n");
    let s = run(&text);
    let c = s.counters();
    let lossy = &s.net().losses;
    assert_eq!(lossy.len(), 1, "only the one port has a loss process");
    let sent = s.net().ports[port(&s, "s1->s2")].classes.queues().map(|q| q.stats.sent_frames).sum::<u64>();
    let lost = lossy[0].lost;
    assert!(sent > 4000, "{sent}");
    let rate = lost as f64 / sent as f64;
    assert!((rate - 0.1).abs() < 0.02, "{lost} of {sent}");
    assert_eq!(c.dropped_on_links, lost);
    assert_eq!(c.dropped, lost, "nothing else drops");
    assert_eq!(s.flows()[0].stats.dropped_frames, lost);
    assert_eq!(c.delivered + lost + s.frames_live(), c.created);
    // The same seed loses the same frames; another seed others.
    let again = run(&text);
    assert_eq!(again.net().losses[0].lost, lost);
    let other = run(&text.replace("name = \"three-hop\"", "name = \"three-hop\"\nseed = 2"));
    assert_ne!(other.net().losses[0].lost, lost);
    // `queues.loss` for every port, and `0` on one port to exempt it.
    let every = format!("{steady}[queues]\nloss = 0.05\nports = [{{ port = \"s2->h2\", loss = 0 }}]\n");
    let s = run(&every);
    assert_eq!(s.net().losses.len(), 5, "six ports, one exempt");
    assert_eq!(s.net().ports[port(&s, "s2->h2")].loss, cnsim::net::NONE);
}

/// Mathis et al. (1997): a TCP flow losing a fraction p of its segments at random gets
/// about (MSS / RTT)·√(3 / (2p)). One NewReno flow, loss only on the data direction,
/// links fast enough that only the loss limits it, a 20 ms round trip: within 20 % for
/// p = 10⁻⁴, 10⁻³ and 10⁻².
#[test]
fn newreno_under_random_loss_follows_mathis() {
    const TEXT: &str = r#"
name = "mathis"
duration = "60s"
seed = 3
[topology.dumbbell]
senders = 1
sender_link = { rate = "10Gbps", delay = "1us" }
bottleneck = { rate = "10Gbps", delay = "9998us" }
receiver_link = { rate = "10Gbps", delay = "1us" }
[queues]
capacity = "10000 frames"
[[traffic]]
name = "bulk"
kind = "tcp"
from = "s1"
to = "d1"
frame_size = "1500B"
tcp = { window = 100000 }
"#;
    for (p, secs) in [(1e-4_f64, 60.0_f64), (1e-3, 20.0), (1e-2, 20.0)] {
        let text = format!("{TEXT}[[queues.ports]]\nport = \"r1->r2\"\nloss = {p}\n")
            .replace("duration = \"60s\"", &format!("duration = \"{secs}s\""));
        let s = run(&text);
        let segments = s.flows()[0].stats.delivered_frames as f64;
        let rtt = 20e-3;
        let mathis = (1.0 / rtt) * (3.0 / (2.0 * p)).sqrt();
        let measured = segments / secs;
        let ratio = measured / mathis;
        eprintln!("p = {p}: {measured:.0} segments/s, Mathis {mathis:.0}: ratio {ratio:.3}");
        assert!((ratio - 1.0).abs() < 0.2, "p = {p}: {measured:.0} segments/s against Mathis's {mathis:.0}");
    }
}

/// Two saturated sources on one host, each to its own receiver, no protocol: the host's
/// 10 Gbit/s port is the only bottleneck. The sources are back-pressured by the port's
/// queue (no frame is made that it cannot take) and take its room in turn: 5 + 5
/// Gbit/s, nothing lost anywhere. (Before, each made a frame at every release of its
/// 10 Gbit/s limiter: 44 % were lost at the host's own queue, split 8.8 / 1.2.)
#[test]
fn saturated_sources_of_one_host_share_its_port_without_loss() {
    const TWO: &str = r#"
name = "two-saturated"
duration = "20ms"
[topology.star]
hosts = ["a", "b", "c"]
link = { rate = "10Gbps", delay = "1us" }
[queues]
capacity = "100 frames"
[[traffic]]
name = "ab"
kind = "saturated"
from = "a"
to = "b"
[[traffic]]
name = "ac"
kind = "saturated"
from = "a"
to = "c"
"#;
    let s = run(TWO);
    let c = s.counters();
    assert_eq!(c.dropped, 0, "{c:?}");
    let secs = 0.02;
    let rates: Vec<f64> =
        s.flows().iter().map(|f| f.stats.delivered_bytes as f64 * 8.0 / secs / 1e9).collect();
    for r in &rates {
        assert!((r - 5.0).abs() < 0.1, "{rates:?} Gbit/s");
    }
    // The host's port is busy all along: the two together fill it.
    assert!(rates.iter().sum::<f64>() > 9.95, "{rates:?}");
}

/// Under PFC the switch pauses the senders; saturated sources stop making frames while
/// their port's queue is full instead of losing them: nothing is dropped anywhere, and
/// the receiver's link stays full.
#[test]
fn paused_saturated_sources_lose_nothing() {
    const PAUSED: &str = r#"
name = "paused-saturated"
duration = "20ms"
[topology.star]
hosts = ["a", "b", "c"]
link = { rate = "10Gbps", delay = "1us" }
[queues]
capacity = "100 frames"
[[traffic]]
name = "to-c"
kind = "saturated"
from = ["a", "b"]
to = "c"
[protocols.pause]
mode = "pfc"
switches = { xoff = "40 frames", xon = "20 frames" }
"#;
    let s = run(PAUSED);
    let c = s.counters();
    assert!(c.kind(cnsim::net::HeaderKind::Pause).created > 10, "the switch pauses the senders");
    assert_eq!((c.dropped, c.dropped_at_sources, c.dropped_at_queues), (0, 0, 0), "{c:?}");
    let delivered: u64 = s.flows().iter().map(|f| f.stats.delivered_bytes).sum();
    let gbps = delivered as f64 * 8.0 / 0.02 / 1e9;
    assert!(gbps > 9.9, "{gbps} Gbit/s into c");
}

/// A link kept busy by 1500-byte frames (1.2 µs at 10 Gbit/s), sampled every 1 µs:
/// counting a frame when it starts would give some intervals two frames (2.4); counting
/// the bits serialized within each interval gives 1 once the link is busy, never more.
/// Hand-worked: the first frame starts at 0, so the first interval holds 10 000 of its
/// 12 000 bits, a full link.
#[test]
fn utilisation_counts_the_bits_serialized_within_each_interval() {
    let text = THREE_HOP.replace("stop = \"2us\"", "stop = \"200us\"").replace(
        "duration = \"1ms\"",
        "duration = \"100us\"\n[metrics]\ninterval = \"1us\"\nqueues = [\"h1->s1\", \"s1->s2\"]",
    );
    let s = run(&text);
    let u = &s.recorder().utilisation;
    let host = &u.columns.iter().find(|c| c.name == "h1->s1").unwrap().values;
    assert!(host.iter().all(|&v| v <= 1.0), "{host:?}");
    assert!(host.iter().all(|&v| (v - 1.0).abs() < 1e-9), "a busy 10G link: {host:?}");
    // The 1 Gbit/s link after s1 starts when the first frame has crossed h1->s1 and s1
    // (1.2 + 2 + 1 µs): 4.2 µs in, it has sent 0.8 µs × 1 Gbit/s = 800 bits of the
    // 1 µs interval ending at 5 µs.
    let slow = &u.columns.iter().find(|c| c.name == "s1->s2").unwrap().values;
    assert_eq!(slow[..4], [0.0; 4]);
    assert!((slow[4] - 0.8).abs() < 1e-9, "{:?}", &slow[..8]);
    assert!(slow[5..].iter().all(|&v| (v - 1.0).abs() < 1e-9));
}
