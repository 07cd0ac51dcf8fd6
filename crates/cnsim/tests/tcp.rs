//! TCP in the data path: goodput of one connection, sharing among several, QCN beneath
//! TCP, a finite transfer, the flow counters, phase effects and their randomization, the
//! rule presets and delayed ACKs.

use cnsim::metrics::summary::Summary;
use cnsim::net::HeaderKind;
use cnsim::scenario::{build, parse};

const DUMBBELL: &str = r#"
name = "tcp"
duration = "1s"
seed = 1

[topology.dumbbell]
senders = 1
sender_link = { rate = "1Gbps", delay = "10us" }
bottleneck = { rate = "1Gbps", delay = "10us" }
receiver_link = { rate = "1Gbps", delay = "10us" }

[queues]
capacity = "100 frames"

[[traffic]]
name = "bulk"
kind = "tcp"
from = "s*"
to = "d1"
frame_size = "1500B"
"#;

fn run(text: &str, overrides: &[&str]) -> Summary {
    let overrides: Vec<String> = overrides.iter().map(|s| s.to_string()).collect();
    let s = parse(text, "tcp.toml", &overrides).unwrap_or_else(|e| panic!("{e}"));
    let mut sim = build(&s, "tcp.toml").unwrap_or_else(|e| panic!("{e}"));
    sim.run_to_end();
    sim.check_conservation().unwrap();
    Summary::of(&sim, "tcp", s.seed)
}

fn jain(x: &[f64]) -> f64 {
    x.iter().sum::<f64>().powi(2) / (x.len() as f64 * x.iter().map(|v| v * v).sum::<f64>())
}

/// One long-lived connection over 1 Gbit/s links: at least 95 % of the link as
/// goodput (1460 data bytes per 1500-byte segment allow 97.3 %).
#[test]
fn one_connection_fills_the_link() {
    let s = run(DUMBBELL, &[]);
    let goodput = s.flows[0].throughput_bps;
    assert!(goodput > 0.95e9, "{goodput}");
    assert!(goodput <= 1e9 * 1460.0 / 1500.0 + 1e6, "{goodput}");
}

/// Eight NewReno connections with windows large enough to overflow a 100-frame
/// drop-tail queue: they lose frames, recover, keep the link busy and share it evenly.
#[test]
fn newreno_connections_share_a_drop_tail_bottleneck() {
    let s = run(DUMBBELL, &["topology.dumbbell.senders=8", "duration=2s", "traffic[0].tcp={window=1000}"]);
    let x: Vec<f64> = s.flows.iter().map(|f| f.throughput_bps).collect();
    assert!(jain(&x) > 0.9, "{x:?}");
    assert!(x.iter().sum::<f64>() > 0.95e9, "{x:?}");
    let lost = s.queues.iter().find(|q| q.port == "r1->r2").unwrap().dropped_frames;
    assert!(lost > 100, "the window overflows the queue: {lost}");
}

/// Reno, whose second loss in a window waits for a timeout, uses the link less well than
/// NewReno but still shares it (Jain ≥ 0.9 over 10 s).
#[test]
fn reno_connections_share_too() {
    let s = run(
        DUMBBELL,
        &["topology.dumbbell.senders=8", "duration=10s", "traffic[0].tcp={window=1000, variant=\"reno\"}"],
    );
    let x: Vec<f64> = s.flows.iter().map(|f| f.throughput_bps).collect();
    assert!(jain(&x) > 0.9, "{x:?}");
}

/// QCN beneath TCP: the reaction points' rate limiters hold frames back at the senders,
/// so the bottleneck queue stays lower and loses fewer frames, and TCP still fills the
/// link.
#[test]
fn qcn_beneath_tcp_holds_the_queue_down() {
    let base = ["topology.dumbbell.senders=8", "duration=2s", "traffic[0].tcp={window=1000}"];
    let plain = run(DUMBBELL, &base);
    let qcn = r#"protocols.qcn={congestion_points=["r1->r2"], flows="*", cp={qeq="30 frames"}}"#;
    let with = run(DUMBBELL, &[base[0], base[1], base[2], qcn]);
    let port = |s: &Summary| s.queues.iter().find(|q| q.port == "r1->r2").unwrap().clone();
    let (p, q) = (port(&plain), port(&with));
    assert!(q.mean_frames < 0.6 * p.mean_frames, "{} vs {}", q.mean_frames, p.mean_frames);
    assert!(q.dropped_frames * 3 < p.dropped_frames, "{} vs {}", q.dropped_frames, p.dropped_frames);
    assert!(with.protocols.qcn.as_ref().unwrap().stats.cnms_sent > 100);
    let total: f64 = with.flows.iter().map(|f| f.throughput_bps).sum();
    assert!(total > 0.95e9, "{total}");
}

/// A finite transfer: 256 KB = 256000 bytes in 1460-byte segments (176, the last one
/// carrying 480 bytes) arrive exactly once, in order, over a lossy path too.
#[test]
fn a_finite_transfer_completes() {
    let s = run(DUMBBELL, &["traffic[0].bytes=\"256KB\"", "duration=100ms"]);
    let f = &s.flows[0];
    assert_eq!(f.stats.delivered_frames, 176, "{f:?}");
    assert_eq!(f.stats.delivered_bytes, 256_000);
    // Eight at once into a 10-frame queue: losses, retransmissions, still every byte.
    let s = run(
        DUMBBELL,
        &[
            "traffic[0].bytes=\"256KB\"",
            "duration=2s",
            "topology.dumbbell.senders=8",
            "queues.capacity=\"10 frames\"",
        ],
    );
    assert!(s.queues.iter().map(|q| q.dropped_frames).sum::<u64>() > 0);
    for f in &s.flows {
        assert_eq!(f.stats.delivered_bytes, 256_000, "{}", f.name);
    }
}

/// One client and `n` servers on one switch, 1 Gbit/s links, `buffer` per switch port;
/// every server returns a 256 KB SRU per round (ns-2's 1000-byte segments plus 40
/// header bytes); the client asks for the next round when all have arrived.
fn incast(n: usize, buffer: &str, min_rto: &str) -> String {
    let servers: Vec<String> = (1..=n).map(|i| format!("\"s{i}\"")).collect();
    format!(
        r#"
name = "incast"
duration = "2s"
seed = 1

[topology.star]
switch = "sw"
hosts = ["client", {servers}]
link = {{ rate = "1Gbps", delay = "10us" }}

[queues]
capacity = "{buffer}"
host_capacity = "1000 frames"

[[traffic]]
name = "sru"
kind = "tcp"
from = [{servers}]
to = "client"
frame_size = "1040B"
sru = "256KB"
tcp = {{ min_rto = "{min_rto}" }}
"#,
        servers = servers.join(", ")
    )
}

fn goodput(s: &Summary) -> f64 {
    s.flows.iter().map(|f| f.throughput_bps).sum()
}

/// The barrier: a round's SRUs all arrive before the next is requested, so every server
/// delivers the same number of SRUs (give or take the round under way at the end), and
/// without loss the client's link is nearly full.
#[test]
fn incast_rounds_are_a_barrier() {
    let s = run(&incast(4, "1000 frames", "200ms"), &[]);
    let srus: Vec<u64> = s.flows.iter().map(|f| f.stats.delivered_bytes / 256_000).collect();
    let (lo, hi) = (srus.iter().min().unwrap(), srus.iter().max().unwrap());
    assert!(hi - lo <= 1 && *lo > 100, "{srus:?}");
    assert!(goodput(&s) > 0.9e9, "{}", goodput(&s));
}

/// The incast collapse (Devkota & Reddy's premise, after Phanishayee et al.): with a
/// 32 KB buffer and 200 ms minimum RTO, 16 servers get less than half the client's link,
/// because a round waits for a server's timeout; a 10 ms minimum RTO recovers most of it.
#[test]
fn incast_collapses_with_a_200ms_rto_and_recovers_with_10ms() {
    let slow = run(&incast(16, "32000B", "200ms"), &[]);
    let fast = run(&incast(16, "32000B", "10ms"), &[]);
    let timeouts =
        |s: &Summary| s.flows.iter().map(|f| f.transport.tcp.as_ref().unwrap().sender.timeouts).sum::<u64>();
    assert!(goodput(&slow) < 0.5e9, "200 ms: {}", goodput(&slow));
    assert!(timeouts(&slow) > 0);
    assert!(goodput(&fast) > 2.0 * goodput(&slow), "10 ms: {} vs {}", goodput(&fast), goodput(&slow));
}

/// Devkota & Reddy's QCN changes on the incast workload (32 servers, 128 KB buffers,
/// 200 ms minimum RTO, 802.1Qau's QCN on the client's port), two seeds of the paper's
/// 20 s (adaptive R_AI's memory builds over seconds): unmodified QCN (their I) keeps the
/// average queue well below the buffer; adaptive R_AI sends fewer CNMs than either
/// sampling change alone (Table II's ordering); every change (II–VI) raises goodput by
/// more than a third over I (Figs. 9–13: "considerably better"; ours: 292 → 683–761
/// Mbit/s), and so does sampling every frame (§VII-A), which sends several times I's
/// CNMs. The readings cnsim had before (II's memory −1 per calm sample, III's split top
/// level) gave II and III within a few per cent of I.
#[test]
fn devkota_reddy_changes_on_incast() {
    let qcn =
        |extra: &str| format!(r#"protocols.qcn={{congestion_points=["sw->client"], flows="*"{extra}}}"#);
    let run_all = |extra: &str| -> (f64, u64, f64) {
        let mut goodput_sum = 0.0;
        let mut queue_sum = 0.0;
        let mut cnms = 0;
        for seed in [1, 2] {
            let text = cnsim::scenario::bundled::get("devkota2010-incast").unwrap();
            let s = run(text, &[&qcn(extra), &format!("seed={seed}"), "duration=\"20s\""]);
            goodput_sum += goodput(&s);
            queue_sum += s.queues.iter().find(|q| q.port == "sw->client").unwrap().mean_bytes;
            cnms += s.protocols.qcn.as_ref().unwrap().stats.cnms_sent;
        }
        (goodput_sum / 2.0, cnms, queue_sum / 2.0)
    };
    let (g1, c1, q1) = run_all("");
    let (g2, c2, _) = run_all(", cp={congestion_memory={}}");
    let (g3, c3, _) = run_all(", cp={sampling=\"detailed\"}");
    let (g4, c4, _) = run_all(", rp={adaptive_increase=true}");
    let (g5, _, _) = run_all(", cp={congestion_memory={}}, rp={adaptive_increase=true}");
    let (g6, _, _) = run_all(", cp={sampling=\"detailed\"}, rp={adaptive_increase=true}");
    let (gp, cp, _) = run_all(", cp={sampling=\"per-frame\"}");
    eprintln!(
        "goodput I {g1:.3e}, II {g2:.3e}, III {g3:.3e}, IV {g4:.3e}, V {g5:.3e}, VI {g6:.3e}, per frame {gp:.3e}; \
         CNMs I {c1}, II {c2}, III {c3}, IV {c4}, per frame {cp}; queue I {q1:.0} B"
    );
    assert!(q1 < 0.3 * 128000.0, "QCN's average queue {q1} B against a 128 KB buffer");
    assert!(c4 < c2 && c4 < c3, "CNMs: adaptive {c4}, memory {c2}, detailed {c3}");
    assert!(c2 > c1 && c3 > c1, "both sampling changes sample more: {c2}, {c3} vs {c1}");
    assert!(cp > 3 * c1, "sampling every frame: {cp} CNMs vs {c1}");
    for (name, g) in [("II", g2), ("III", g3), ("IV", g4), ("V", g5), ("VI", g6), ("per frame", gp)] {
        assert!(g > 1.33 * g1, "goodput: {name} {g} vs I {g1}");
    }
}

/// The readings of Devkota & Reddy's sampling changes that the paper's Table II and §VII
/// rule out or leave behind, at 32 servers and 128 KB, seed 1 of 20 s: II's memory
/// counting down at calm samples, and III's split top level (with the 150 KB/(k + 1)
/// table), each leave goodput within a tenth of I's, where the chosen readings (never
/// decaying, even slices with the halving table) more than double it.
#[test]
fn devkota_reddy_sampling_readings() {
    let run_with = |cp: &str| {
        let text = cnsim::scenario::bundled::get("devkota2010-incast").unwrap();
        let qcn = format!(r#"protocols.qcn={{congestion_points=["sw->client"], flows="*", cp={{{cp}}}}}"#);
        goodput(&run(text, &[&qcn, "duration=\"20s\""]))
    };
    let i = run_with("");
    let calm = run_with(r#"congestion_memory={decay="calm-sample"}"#);
    let never = run_with("congestion_memory={}");
    let split = run_with(
        r#"sampling="detailed", detailed_levels="split-top", detailed_table=["150000B","75000B","50000B","37500B","30000B","25000B","21500B","18500B","16667B","15000B","13636B","12500B","11538B","10714B","10000B"]"#,
    );
    let even = run_with(r#"sampling="detailed""#);
    eprintln!("I {i:.3e}; II calm {calm:.3e}, never {never:.3e}; III split top {split:.3e}, even {even:.3e}");
    for (name, g) in [("calm-sample", calm), ("split-top", split)] {
        assert!((g - i).abs() < 0.1 * i, "{name}: {g} vs I {i}");
    }
    for (name, g) in [("never", never), ("even", even)] {
        assert!(g > 2.0 * i, "{name}: {g} vs I {i}");
    }
}

/// Devkota & Reddy's §VII-C: with the CP and RP changes combined (V, VI) the average
/// queue stays "constantly below 30KB even with 256KB buffer size, upto 64 flows"; under
/// unmodified QCN it is higher (§V: 70 KB at 64 flows). 64 servers, 256 KB, 2 s (ours
/// over 20 s and 5 seeds: V 10.3, VI 28.9, I 45.4 KB).
#[test]
fn combined_changes_keep_the_queue_below_30kb() {
    let queue = |extra: &str| {
        let servers: Vec<String> = (1..=64).map(|i| format!("\"s{i}\"")).collect();
        let list = servers.join(", ");
        let text = cnsim::scenario::bundled::get("devkota2010-incast").unwrap();
        let qcn = format!(r#"protocols.qcn={{congestion_points=["sw->client"], flows="*"{extra}}}"#);
        let s = run(
            text,
            &[
                &format!("topology.star.hosts=[\"client\", {list}]"),
                &format!("traffic[0].from=[{list}]"),
                "queues.capacity=\"256000B\"",
                &qcn,
            ],
        );
        s.queues.iter().find(|q| q.port == "sw->client").unwrap().mean_bytes
    };
    let i = queue("");
    let v = queue(", cp={congestion_memory={}}, rp={adaptive_increase=true}");
    let vi = queue(", cp={sampling=\"detailed\"}, rp={adaptive_increase=true}");
    eprintln!("average queue: I {i:.0}, V {v:.0}, VI {vi:.0} B");
    assert!(v < 30_000.0 && vi < 30_000.0, "V {v}, VI {vi}");
    assert!(i > 30_000.0, "I {i}");
}

/// Devkota & Reddy's §VIII mix (16 servers, 128 KB, one more host sending 400 Mbit/s of
/// UDP to the client, 2 s): without QCN the UDP flow keeps its rate (the paper: TCP with
/// a 10 ms minimum RTO "yielded 400Mbps to the UDP flow"); under QCN its rate limiter
/// cuts it below 300 Mbit/s (ours: 108 over 20 s), which the paper's "around 800Mbps"
/// for TCP beside it implies.
#[test]
fn qcn_throttles_the_udp_flow_of_the_mix() {
    let udp_rate = |qcn: bool| {
        let mut text = cnsim::scenario::bundled::get("devkota2010-incast").unwrap().to_string();
        text.push_str(
            "\n[[traffic]]\nname = \"udp\"\nkind = \"cbr\"\nfrom = \"udp\"\nto = \"client\"\nframe_size = \"1040B\"\nrate = \"400Mbps\"\njitter = 0.5\n",
        );
        let servers: Vec<String> = (1..=16).map(|i| format!("\"s{i}\"")).collect();
        let list = servers.join(", ");
        let hosts = format!("topology.star.hosts=[\"client\", \"udp\", {list}]");
        let from = format!("traffic[0].from=[{list}]");
        let mut sets = vec![hosts.as_str(), from.as_str(), r#"traffic[0].tcp={min_rto="10ms"}"#];
        if qcn {
            sets.push(r#"protocols.qcn={congestion_points=["sw->client"], flows="*"}"#);
        }
        let s = run(&text, &sets);
        s.flows.iter().filter(|f| f.transport.tcp.is_none()).map(|f| f.throughput_bps).sum::<f64>()
    };
    let (alone, under_qcn) = (udp_rate(false), udp_rate(true));
    assert!(alone > 390e6, "without QCN: {alone}");
    assert!(under_qcn < 300e6, "under QCN: {under_qcn}");
}

/// Devkota & Reddy's Table I check, with 802.1Qau's QCN on the incast workload (128 KB):
/// before timeouts set in (4 servers) the average minrate × flows is the goodput (within
/// 10 %); once they do (32 servers) it is far above it, because synchronised flows wait
/// for the one that timed out.
#[test]
fn average_minrate_times_flows_is_the_goodput_until_timeouts() {
    let with = |n: usize| {
        let servers: Vec<String> = (1..=n).map(|i| format!("\"s{i}\"")).collect();
        let list = servers.join(", ");
        let text = cnsim::scenario::bundled::get("devkota2010-incast").unwrap();
        let s = run(
            text,
            &[
                &format!("topology.star.hosts=[\"client\", {list}]"),
                &format!("traffic[0].from=[{list}]"),
                r#"protocols.qcn={congestion_points=["sw->client"], flows="*"}"#,
            ],
        );
        let minrate = s.protocols.qcn.as_ref().unwrap().avg_minrate_bps.unwrap();
        (minrate * n as f64, goodput(&s))
    };
    let (product, goodput4) = with(4);
    assert!((product - goodput4).abs() < 0.1 * goodput4, "4 servers: {product} vs {goodput4}");
    let (product, goodput32) = with(32);
    assert!(product > 2.0 * goodput32, "32 servers: {product} vs {goodput32}");
}

/// A web user alone on a fast link: objects of mean 12 KB (Pareto, α = 3 so that 500 s
/// average well) every think time of mean 1 s plus a few round trips: about 12.5 KB
/// (whole 1000-byte segments) per 1.05 s.
#[test]
fn a_web_user_fetches_objects_after_think_times() {
    let s = run(
        DUMBBELL,
        &[
            "duration=\"500s\"",
            r#"traffic[0].web={size_mean="12KB", size_shape=3.0, think_mean="1s"}"#,
            "traffic[0].frame_size=\"1040B\"",
            "topology.dumbbell.sender_link.delay=\"5ms\"",
        ],
    );
    let f = &s.flows[0];
    let per_second = f.throughput_bps / 8.0;
    let expected = 12_500.0 / 1.05;
    assert!((per_second - expected).abs() < 0.15 * expected, "{per_second} B/s against {expected}");
    assert_eq!(f.transport.tcp.as_ref().unwrap().sender.timeouts, 0);
}

/// The flow counters count a TCP flow's segments. Without loss (worked by hand): 10
/// segments of 1460 data bytes after the 64-byte SYN: 11 sent, 15 064 bytes (64 + 10 ×
/// 1500), 10 delivered (14 600 bytes), none dropped; 11 ACKs, one per segment. Eight
/// such transfers of 256 KB into a 10-frame queue: every flow sends at least what it
/// delivered (176 segments and the SYN) plus what it lost, retransmits at least as many
/// segments as it lost, and the flows' counters add up to the per-kind totals.
#[test]
fn tcp_flow_counters_count_segments() {
    let s = run(DUMBBELL, &["traffic[0].bytes=\"14600B\"", "duration=100ms"]);
    let f = &s.flows[0];
    let st = &f.stats;
    let counts = (st.sent_frames, st.sent_bytes, st.delivered_frames, st.delivered_bytes, st.dropped_frames);
    assert_eq!(counts, (11, 15_064, 10, 14_600, 0), "{f:?}");
    let tcp = f.transport.tcp.as_ref().unwrap();
    assert_eq!((tcp.sender.segments_sent, tcp.acks_sent, tcp.acks_dropped), (11, 11, 0));

    let s = run(
        DUMBBELL,
        &[
            "traffic[0].bytes=\"256KB\"",
            "duration=2s",
            "topology.dumbbell.senders=8",
            "queues.capacity=\"10 frames\"",
        ],
    );
    for f in &s.flows {
        let (st, tcp) = (&f.stats, f.transport.tcp.as_ref().unwrap());
        assert_eq!(st.delivered_frames, 176, "{}", f.name);
        assert!(st.dropped_frames > 0, "{}: the queue overflows", f.name);
        assert!(st.sent_frames >= st.delivered_frames + 1 + st.dropped_frames, "{f:?}");
        assert_eq!(st.sent_frames, tcp.sender.segments_sent, "no shaper: all sent");
        assert!(tcp.sender.retransmits >= st.dropped_frames, "{f:?}");
        assert!(st.sent_bytes > st.delivered_bytes, "{f:?}");
    }
    let total = |g: fn(&cnsim::metrics::summary::FlowSummary) -> u64| s.flows.iter().map(g).sum::<u64>();
    let segments = s.frames.by_kind[&HeaderKind::TcpSegment];
    let acks = s.frames.by_kind[&HeaderKind::TcpAck];
    assert_eq!(total(|f| f.stats.sent_frames), segments.created);
    assert_eq!(total(|f| f.stats.dropped_frames), segments.dropped);
    assert_eq!(total(|f| f.transport.tcp.as_ref().unwrap().acks_sent), acks.created);
    assert_eq!(total(|f| f.transport.tcp.as_ref().unwrap().acks_dropped), acks.dropped);
}

/// Floyd & Jacobson's phase effect: two Reno flows of round-trip times 20 and 40 ms
/// (sender links 4 and 14 ms, bottleneck 10 Mbit/s and 5 ms, receiver link 1 ms) share a
/// 25-frame drop-tail queue for 300 s. `spread` moves the second sender's link delay.
const PHASE: &str = r#"
name = "phase"
duration = "300s"
seed = 1

[topology.dumbbell]
senders = 2
sender_link = { rate = "100Mbps", delay = "4ms" }
sender_delay_spread = "10ms"
bottleneck = { rate = "10Mbps", delay = "5ms" }
receiver_link = { rate = "100Mbps", delay = "1ms" }

[queues]
capacity = "25 frames"

[metrics]
interval = "1s"

[[traffic]]
name = "reno"
kind = "tcp"
from = "s*"
to = "d1"
frame_size = "1040B"
tcp = { variant = "reno", window = 1000 }
"#;

/// The short flow's throughput over the long one's at sender delay spread `spread`, the
/// mean over `seeds`, with `extra` keys.
fn phase_ratio(spread: &str, seeds: &[u64], extra: &[&str]) -> f64 {
    let spread = format!("topology.dumbbell.sender_delay_spread=\"{spread}\"");
    let ratios = seeds.iter().map(|seed| {
        let seed = format!("seed={seed}");
        let mut keys = vec![spread.as_str(), seed.as_str()];
        keys.extend_from_slice(extra);
        let s = run(PHASE, &keys);
        s.flows[0].throughput_bps / s.flows[1].throughput_bps
    });
    ratios.sum::<f64>() / seeds.len() as f64
}

/// One 1040-byte segment's time at the 10 Mbit/s bottleneck (832 µs): the size of the
/// randomization, as Floyd & Jacobson and ns-2's users take it.
const SERVICE_TIME: &str = "832us";

/// Without randomization the outcome is a matter of phase: the short flow gets 10.1
/// times the long one's throughput, 13.5 times with the long flow's link 0.1 ms longer,
/// 4.7 times with it 0.25 ms longer (nothing is random here: one seed says it all).
/// ns-2's `overhead_` of one service time takes the ratio into Reno's RTT-bias range
/// (between 1 and (40/20)² = 4; measured 1.81, 2.03 and 1.55, four seeds) but leaves a
/// dependence on the delay: a factor 1.31 between the three, against 2.91 without (and
/// 1.03 with the switches' jitter, below). Its cause is not isolated here: delaying every
/// segment on its own, or the fast retransmissions too, leaves it.
#[test]
fn drop_tail_phase_effect_and_send_overhead() {
    let none: Vec<f64> = ["10ms", "10.1ms", "10.25ms"].iter().map(|d| phase_ratio(d, &[1], &[])).collect();
    assert!(none[0] > 8.0 && none[1] > 8.0, "phase-locked: {none:?}");
    assert!(none[0] > 2.0 * none[2], "a quarter millisecond halves it: {none:?}");
    let overhead = format!("traffic[0].tcp={{variant=\"reno\", window=1000, overhead=\"{SERVICE_TIME}\"}}");
    let seeds = [1, 2, 3, 4];
    let with: Vec<f64> =
        ["10ms", "10.1ms", "10.25ms"].iter().map(|d| phase_ratio(d, &seeds, &[&overhead])).collect();
    eprintln!("drop-tail ratios without randomization {none:?}, with overhead {with:?}");
    for r in &with {
        assert!(*r > 1.0 && *r < 4.0, "{with:?}");
    }
    let spread =
        |v: &[f64]| v.iter().cloned().fold(0.0, f64::max) / v.iter().cloned().fold(f64::MAX, f64::min);
    assert!(spread(&with) < 1.5, "{with:?}");
    assert!(spread(&none) > 2.5, "{none:?}");
}

/// A processing jitter of one service time at the switches removes the phase effect:
/// the ratio is 1.60, 1.55 and 1.57 at the three delays (four seeds; within 10 %), in
/// the RTT-bias range. (Below 2: the queue adds about 8 ms to both round trips, and
/// Reno's timeouts, a 200 ms minimum RTO at 20–40 ms round trips, weigh alike on both.)
#[test]
fn switch_processing_jitter_removes_the_phase_effect() {
    let jitter = format!("switches={{processing_jitter=\"{SERVICE_TIME}\"}}");
    let seeds = [1, 2, 3, 4];
    let with: Vec<f64> =
        ["10ms", "10.1ms", "10.25ms"].iter().map(|d| phase_ratio(d, &seeds, &[&jitter])).collect();
    eprintln!("drop-tail ratios with a processing jitter {with:?}");
    let (lo, hi) = (with.iter().cloned().fold(f64::MAX, f64::min), with.iter().cloned().fold(0.0, f64::max));
    assert!(lo > 1.0 && hi < 4.0, "{with:?}");
    assert!(hi < 1.1 * lo, "{with:?}");
}

/// The jitter never reorders a link's frames: one connection through two jittered
/// switches, no loss, no duplicate ACK, so no retransmission.
#[test]
fn processing_jitter_keeps_each_link_in_order() {
    let s = run(DUMBBELL, &["switches={processing_jitter=\"50us\"}", "duration=200ms"]);
    let tcp = s.flows[0].transport.tcp.as_ref().unwrap();
    assert!(s.flows[0].stats.delivered_frames > 10_000);
    assert_eq!((tcp.sender.retransmits, s.flows[0].stats.dropped_frames), (0, 0), "{tcp:?}");
}

/// ECN's floor: 40 ECN-capable NewReno flows over a 100 Mbit/s bottleneck whose pipe
/// holds about a segment, marked above 10 frames. Their share is below two segments
/// each, so the floor sets the standing queue: about one segment per flow with ns-2's
/// and RFC 3168's floor of 1 (38 frames), two with ns-3's floor of 2 (78 frames).
#[test]
fn the_ecn_floor_sets_the_standing_queue_of_many_flows() {
    let text = DUMBBELL
        .replace("senders = 1", "senders = 40")
        .replace("bottleneck = { rate = \"1Gbps\"", "bottleneck = { rate = \"100Mbps\"")
        + "ecn = true\n[protocols.ecn_threshold]\nk = \"10 frames\"\nports = [\"r1->r2\"]\n";
    let queue = |rules: &str| {
        let s = run(
            &text,
            &[
                "queues.capacity=\"1000 frames\"",
                &format!("traffic[0].tcp={{window=1000, rules=\"{rules}\"}}"),
            ],
        );
        assert_eq!(s.queues.iter().map(|q| q.dropped_frames).sum::<u64>(), 0);
        s.queues.iter().find(|q| q.port == "r1->r2").unwrap().mean_frames
    };
    let (ns2, rfc, ns3) = (queue("ns2"), queue("rfc"), queue("ns3"));
    assert!((30.0..45.0).contains(&ns2), "{ns2}");
    assert!((rfc - ns2).abs() < 0.1 * ns2, "the same floor: {rfc} vs {ns2}");
    assert!(ns3 > 1.8 * ns2, "{ns3} vs {ns2}");
}

/// Delayed ACKs (ns-2's DelAckSink: every second segment, 100 ms): a 256 KB transfer of
/// 176 segments gets 89 ACKs (one for the SYN, one per pair) instead of 177, and, cwnd
/// growing by one per ACK, slow start is slower: 75 segments out by 1 ms instead of 123.
#[test]
fn delayed_acks_halve_the_acks_and_slow_slow_start() {
    let keys = |delayed: &str, duration: &str| {
        let s = run(
            DUMBBELL,
            &[
                "traffic[0].bytes=\"256KB\"",
                &format!("duration={duration}"),
                &format!("traffic[0].tcp={{window=1000{delayed}}}"),
            ],
        );
        let f = &s.flows[0];
        (f.stats.delivered_frames, f.stats.sent_frames, f.transport.tcp.as_ref().unwrap().acks_sent)
    };
    assert_eq!(keys("", "\"1s\""), (176, 177, 177));
    assert_eq!(keys(", delayed_ack={}", "\"1s\""), (176, 177, 89));
    let (_, early, _) = keys("", "\"1ms\"");
    let (_, early_delayed, _) = keys(", delayed_ack={}", "\"1ms\"");
    assert_eq!((early, early_delayed), (123, 75));
}

/// A lone segment waits for the delayed-ACK timer: one segment of data after the SYN
/// (acknowledged at once) is acknowledged 100 ms after it arrives, 40 ms with a 40 ms
/// timeout.
#[test]
fn a_lone_segment_is_acked_when_the_timer_expires() {
    for (timeout, ms) in [("100ms", 100), ("40ms", 40)] {
        let keys = [
            "traffic[0].bytes=\"1460B\"".to_string(),
            format!("traffic[0].tcp={{delayed_ack={{timeout=\"{timeout}\"}}}}"),
        ];
        let s = parse(DUMBBELL, "tcp.toml", &keys).unwrap();
        let mut sim = build(&s, "tcp.toml").unwrap();
        let ms_ps = cnsim::engine::PS_PER_MS;
        sim.run_until(ms * ms_ps, &mut |_| true).unwrap();
        assert!(!sim.tcp_connection(0).unwrap().sender.all_acked(), "{timeout}: still held");
        sim.run_until((ms + 1) * ms_ps, &mut |_| true).unwrap();
        assert!(sim.tcp_connection(0).unwrap().sender.all_acked(), "{timeout}: acknowledged");
    }
}
