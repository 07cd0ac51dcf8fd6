//! Flow-size workloads (`kind = "flows"`) end to end: the generated flows offer the
//! target load and follow their size distribution; a flow alone on an idle fabric
//! completes in its ideal time (slowdown 1.0), the ideal computed by hand; every flow
//! is accounted for (completed or counted unfinished); bad workloads are located errors.

use cnsim::metrics::fct::{rows, FctSummary};
use cnsim::scenario::{build, build_with, bundled, parse, Limits};
use cnsim::sim::Sim;

const K4: &str = r#"
name = "k4"
duration = "120ms"
[topology.fat_tree]
k = 4
host_link = { rate = "10Gbps", delay = "1us" }
fabric_link = { rate = "40Gbps", delay = "1us" }
[switches]
ecmp = true
processing_latency = "0ns"
[[traffic]]
name = "w"
kind = "flows"
from = "h1"
to = "h16"
sizes = "hadoop"
load = 0.05
stop = "100ms"
frame_size = "1000B"
"#;

fn built(text: &str, sets: &[&str]) -> Sim {
    let sets: Vec<String> = sets.iter().map(|s| s.to_string()).collect();
    let s = parse(text, "workload.toml", &sets).unwrap_or_else(|e| panic!("{e}"));
    build(&s, "workload.toml").unwrap_or_else(|e| panic!("{e}"))
}

fn error(text: &str, sets: &[&str]) -> String {
    let sets: Vec<String> = sets.iter().map(|s| s.to_string()).collect();
    match parse(text, "workload.toml", &sets) {
        Err(e) => e.to_string(),
        Ok(s) => build(&s, "workload.toml").err().expect("refused").to_string(),
    }
}

/// h1 (pod 1) to h16 (pod 4) on a k = 4 fat-tree, Hadoop flows at 5 % load: a few
/// dozen flows, most far apart.
/// Each one's ideal time by hand (the HPCC fork's definition): twice the 6 µs path,
/// one 1000-byte packet at each hop (2 × 0.8 + 4 × 0.2 µs), and the flow's bytes with
/// 62 bytes of headers per 938-byte packet at 10 Gbit/s. A flow that starts after the
/// ones before it finished and finishes before the next starts is alone: its slowdown is exactly 1.0 (its completion time is
/// below the ideal, which counts a full packet's time at every hop and no ACK).
#[test]
fn a_flow_alone_completes_in_its_ideal_time() {
    let mut sim = built(K4, &[]);
    sim.run_to_end();
    sim.check_conservation().unwrap();
    let out = rows(&sim);
    assert!(out.len() >= 3, "{} flows", out.len());
    let mut alone = 0;
    let mut busy_until = 0.0;
    for (k, r) in out.iter().enumerate() {
        let packets = r.bytes.div_ceil(938) as f64;
        let ideal_us = 12.0 + 2.4 + (r.bytes as f64 + 62.0 * packets) * 8.0 / 10e3;
        assert!((r.ideal_fct_s * 1e6 - ideal_us).abs() < 1e-6, "{r:?}: ideal {ideal_us} µs");
        let fct = r.fct_s.expect("every flow finishes on an idle fabric");
        let next = out.get(k + 1).map_or(f64::MAX, |n| n.start_s);
        if r.start_s >= busy_until && r.start_s + fct <= next {
            alone += 1;
            assert_eq!(r.slowdown, Some(1.0), "{r:?}");
            // Alone, it takes at most the ideal, and less by no more than the packet
            // times the ideal counts at every hop (2.4 µs).
            assert!(fct <= r.ideal_fct_s && fct >= r.ideal_fct_s - 2.4e-6, "{r:?}");
        }
        busy_until = f64::max(busy_until, r.start_s + fct);
    }
    assert!(alone >= 2, "{alone}");
    let s = FctSummary::of(&out).unwrap();
    assert_eq!((s.completed, s.unfinished), (out.len() as u64, 0));
}

/// A finished flow's state is recycled: its slot holds later flows of its entry, so
/// the run holds far fewer flows than arrive, and gives the same completion times, the
/// same DCQCN totals and the same frame counts as a run that keeps every flow (ECMP
/// hashes a flow's number, not its slot; its events keep their order).
#[test]
fn recycled_flows_complete_as_kept_ones() {
    let sets = ["duration=\"8ms\"", "traffic[0].stop=\"6ms\""];
    let text = bundled::get("fattree-websearch").unwrap();
    let mut kept = built(text, &sets);
    kept.keep_finished_flows();
    kept.run_to_end();
    let mut recycled = built(text, &sets);
    recycled.run_to_end();
    recycled.check_conservation().unwrap();
    let arrivals = recycled.workload().len();
    assert_eq!(kept.flows().len(), arrivals);
    let slots = recycled.flows().len();
    let peak = recycled.peak_active_flows() as usize;
    assert!(arrivals > 100, "{arrivals} flows");
    assert!(peak <= slots && slots * 2 < arrivals, "{arrivals} flows, {slots} slots, {peak} at once");
    assert_eq!(rows(&kept), rows(&recycled));
    let json = |sim: &Sim| {
        let s = cnsim::metrics::summary::Summary::of(sim, "w", 1);
        let mut v = serde_json::to_value(&s).unwrap();
        let alpha = v["dcqcn"]["mean_alpha"].take().as_f64().unwrap();
        v["events"].take();
        assert!(v["fct"]["peak_active_flows"].take().as_u64().unwrap() > 0);
        (v, alpha)
    };
    let ((a, alpha_a), (b, alpha_b)) = (json(&kept), json(&recycled));
    assert!(a["dcqcn"]["cnps_received"].as_u64().unwrap() > 0, "{}", a["dcqcn"]);
    assert_eq!(a, b);
    assert!((alpha_a - alpha_b).abs() < 1e-12, "{alpha_a} vs {alpha_b}");
}

/// DCQCN's periodic timer is bounded over what it can cost: a workload flow's runs only
/// while the flow does (at least its ideal completion time), not for the whole run, so
/// a second of web search arrivals (about 30 000 flows, each counted for the whole run
/// 5·10⁸ expiries at 55 µs) builds, and a period that even the flows' ideal times make
/// too costly is refused at its key.
#[test]
fn a_workload_flows_timer_counts_for_its_life_not_the_run() {
    let text = bundled::get("fattree-websearch").unwrap();
    let long = ["duration=\"1s\"", "traffic[0].stop=\"1s\""];
    let sim = built(text, &long);
    assert!(sim.workload().len() > 25_000, "{}", sim.workload().len());
    let e = error(text, &[long[0], long[1], "protocols.dcqcn.rp.timer=\"100ns\""]);
    assert!(e.contains("protocols.dcqcn.rp.timer") && e.contains("ideal completion time"), "{e}");
}

/// 128 hosts at 30 % of 10 Gbit/s for 3.5 s of arrivals: about 10⁵ web search flows,
/// built (not run). Their bytes offer 30 % of the hosts' links within 2 %; their sizes
/// pass a Kolmogorov–Smirnov test against the distribution at α = 0.01; every flow goes
/// to another host; they are numbered in start order.
#[test]
fn generated_flows_offer_the_load_and_follow_the_distribution() {
    let text = bundled::get("fattree-websearch").unwrap();
    let sets = ["traffic[0].stop=\"3.5s\"", "duration=\"3.5s\"", "protocols.dcqcn.flows=[]"];
    let s = parse(text, "fw.toml", &sets.map(String::from)).unwrap();
    let sim = build_with(&s, "fw.toml", &Limits { max_memory: 8 << 30 }).unwrap();
    let w = sim.workload();
    assert!(w.len() > 90_000, "{}", w.len());
    let bytes: u64 = w.iter().map(|r| r.bytes).sum();
    let load = bytes as f64 * 8.0 / (128.0 * 10e9 * 3.5);
    assert!((load / 0.3 - 1.0).abs() < 0.02, "offered load {load}");
    assert!(w.windows(2).all(|p| p[0].start <= p[1].start));
    assert!(w.iter().take(1000).all(|r| r.src != r.dst));
    let cdf = cnsim::traffic::workload::Cdf::bundled("websearch").unwrap();
    let mut x: Vec<u64> = w.iter().map(|r| r.bytes).collect();
    x.sort_unstable();
    let n = x.len() as f64;
    let d = x.iter().enumerate().fold(0.0f64, |d, (i, &v)| {
        let f = cdf.at(v as f64);
        d.max((f - i as f64 / n).abs()).max(((i + 1) as f64 / n - f).abs())
    });
    assert!(d < 1.628 / n.sqrt(), "KS D = {d}");
}

/// The bundled fat-tree workload over DCQCN and PFC: no loss, every flow either
/// completes or is counted unfinished, short flows' tail slowdown above long flows'
/// median (the queueing a short flow meets behind long ones).
#[test]
fn the_fat_tree_workload_accounts_for_every_flow() {
    let mut sim =
        built(bundled::get("fattree-websearch").unwrap(), &["duration=\"30ms\"", "traffic[0].stop=\"15ms\""]);
    sim.keep_finished_flows();
    sim.run_to_end();
    sim.check_conservation().unwrap();
    assert_eq!(sim.counters().dropped, 0);
    let out = rows(&sim);
    let s = FctSummary::of(&out).unwrap();
    assert_eq!(s.completed + s.unfinished, out.len() as u64);
    assert!(s.completed as f64 > 0.9 * out.len() as f64, "{} of {}", s.completed, out.len());
    for r in &out {
        let f = sim.flows().iter().find(|f| f.name == r.flow).unwrap();
        if r.fct_s.is_some() {
            assert_eq!(f.stats.delivered_bytes, r.bytes, "{r:?}");
        }
    }
    let first = &s.by_size[0].slowdown;
    let last = &s.by_size[s.by_size.len() - 1].slowdown;
    assert!(first.p99 > last.p50, "{first:?} vs {last:?}");
}

/// Bad workloads are refused at their key: an unknown distribution, a malformed
/// distribution file (with its line), a load of 1 or more, an incast host that is the
/// only source, and a workload too large for the memory limit, before it is drawn.
#[test]
fn bad_workloads_are_located() {
    let e = error(K4, &["traffic[0].sizes=\"no-such-cdf\""]);
    assert!(e.contains("traffic[0].sizes") && e.contains("not a bundled distribution"), "{e}");
    let dir = std::env::temp_dir().join(format!("cnsim-cdf-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let bad = dir.join("bad.txt");
    std::fs::write(&bad, "0 0\n5000 40\n4000 60\n9000 100\n").unwrap();
    let e = error(K4, &[&format!("traffic[0].sizes=\"{}\"", bad.display())]);
    assert!(e.contains("traffic[0].sizes") && e.contains("line 3") && e.contains("never decrease"), "{e}");
    let good = dir.join("good.txt");
    std::fs::write(&good, "# one size\n1000 0\n1000 100\n").unwrap();
    let sim = built(K4, &[&format!("traffic[0].sizes=\"{}\"", good.display())]);
    assert!(sim.workload().iter().all(|r| r.bytes == 1000));
    std::fs::remove_dir_all(&dir).unwrap();
    let e = error(K4, &["traffic[0].load=1.0"]);
    assert!(e.contains("traffic[0].load") && e.contains("below 1"), "{e}");
    let e = error(K4, &["traffic[0].to=\"h1\""]);
    assert!(e.contains("traffic[0].from") && e.contains("no host other than"), "{e}");
    let e = error(K4, &["traffic[0].to=\"core1\""]);
    assert!(e.contains("traffic[0].to") && e.contains("not a host"), "{e}");
    let e = error(K4, &["traffic[0].rate=\"1Gbps\""]);
    assert!(e.contains("traffic[0].rate") && e.contains("no rate of its own"), "{e}");
    // 10⁸ flows: refused by the memory limit (or the flow cap) before any is drawn.
    let s = parse(
        K4,
        "workload.toml",
        &[
            "traffic[0].sizes=\"hadoop\"".into(),
            "traffic[0].stop=\"1000s\"".into(),
            "duration=\"1000s\"".into(),
            "traffic[0].from=\"h*\"".into(),
            "traffic[0].to=\"uniform\"".into(),
            "traffic[0].load=0.9".into(),
        ],
    )
    .unwrap();
    let t0 = std::time::Instant::now();
    let e =
        build_with(&s, "workload.toml", &Limits { max_memory: 1 << 30 }).err().expect("refused").to_string();
    assert!(e.contains("traffic[0].load") && e.contains("flows"), "{e}");
    assert!(t0.elapsed().as_secs_f64() < 2.0, "refused before drawing");
    // A workload's flows take DCQCN, HPCC or TIMELY, which read its recipe; the layer-2
    // reaction points attach to the flows of other kinds only.
    let qcn = format!("{K4}\n[protocols.qcn]\ncongestion_points = \"switches\"\nflows = \"w\"\n");
    let e = error(&qcn, &["traffic[0].transport=\"rdma\""]);
    assert!(e.contains("protocols.qcn.flows") && e.contains("\"w\" is a flows workload"), "{e}");
    // A workload's flows are named after its entry, which no other entry may share.
    let twice = format!(
        "{K4}\n[[traffic]]\nname = \"w\"\nkind = \"cbr\"\nfrom = \"h2\"\nto = \"h3\"\nrate = \"1Gbps\"\n"
    );
    let e = error(&twice, &[]);
    assert!(e.contains("traffic[0].name") && e.contains("unique traffic names"), "{e}");
}

/// Incast events on a k = 4 fat-tree: every event is `fan_in` = 5 flows of the given
/// size (`sizes = "50KB"`), from distinct hosts other than its receiver, all starting at
/// once; and bad incast keys are located.
#[test]
fn incast_events_start_fan_in_flows_together() {
    let sets = [
        "traffic[0].from=\"h*\"",
        "traffic[0].to=\"incast\"",
        "traffic[0].fan_in=5",
        "traffic[0].sizes=\"50KB\"",
        "traffic[0].load=0.02",
        "traffic[0].stop=\"20ms\"",
    ];
    let sim = built(K4, &sets);
    let w = sim.workload();
    assert!(w.len() >= 5 * 3 && w.len().is_multiple_of(5), "{} flows", w.len());
    for event in w.chunks(5) {
        let mut srcs: Vec<u32> = event.iter().map(|r| r.src).collect();
        srcs.sort_unstable();
        srcs.dedup();
        assert_eq!(srcs.len(), 5);
        assert!(event.iter().all(|r| r.dst == event[0].dst && r.src != r.dst));
        assert!(event.iter().all(|r| r.start == event[0].start && r.bytes == 50_000));
    }
    let e = error(K4, &["traffic[0].from=\"h*\"", "traffic[0].to=\"incast\""]);
    assert!(e.contains("traffic[0].fan_in") && e.contains("missing required key"), "{e}");
    let e = error(K4, &["traffic[0].fan_in=5"]);
    assert!(e.contains("traffic[0].fan_in") && e.contains("only with to = \"incast\""), "{e}");
    let e = error(K4, &["traffic[0].from=\"h*\"", "traffic[0].to=\"incast\"", "traffic[0].fan_in=16"]);
    assert!(e.contains("traffic[0].fan_in") && e.contains("16 senders among 16 hosts"), "{e}");
    let e = error(K4, &["traffic[0].sizes=\"0B\""]);
    assert!(e.contains("traffic[0].sizes") && e.contains("no flow"), "{e}");
}
