//! The Roeck 2007 (IEEE 802.1au) test scenarios: their structure and fair shares (the
//! chains' N sources, tests 2, 5 and 6), the output-generated hotspot of test 1 with and
//! without switch PAUSE and with either reading of its traffic, and the seed's verdicts
//! as trends under the protocols the reproduction runs.

use cnsim::metrics::maxmin;
use cnsim::metrics::summary::Summary;
use cnsim::scenario::{build, bundled, parse};

fn run(name: &str, overrides: &[&str]) -> Summary {
    let overrides: Vec<String> = overrides.iter().map(|s| s.to_string()).collect();
    let s = parse(bundled::get(name).unwrap(), name, &overrides).unwrap_or_else(|e| panic!("{e}"));
    let mut sim = build(&s, name).unwrap_or_else(|e| panic!("{e}"));
    sim.run_to_end();
    sim.check_conservation().unwrap();
    Summary::of(&sim, name, s.seed)
}

/// Bytes sent per second of traffic by the switch port `port`.
fn gbps(s: &Summary, port: &str, traffic_s: f64) -> f64 {
    let q = s.queues.iter().find(|q| q.port == port).unwrap_or_else(|| panic!("{port}"));
    q.sent_bytes as f64 * 8.0 / traffic_s / 1e9
}

/// Test 1, 10 ms of traffic: node 1 drains 1 Gbit/s and pauses the switch port feeding
/// it. Without switch PAUSE (the seed's runs) that port's queue overflows, but the other
/// nine nodes get their traffic (8.5 Gbit/s × 10 sources × 8/9 of destinations ≈ 75
/// Gbit/s in all). With switch PAUSE nothing is lost, and the pause spreads to every
/// source: the victims' traffic collapses (head-of-line blocking at the sources).
#[test]
fn switch_pause_trades_hotspot_loss_for_congestion_spreading() {
    let traffic_s = 0.010;
    let off = run("roeck2007-test1", &["duration=20ms"]);
    let on = run(
        "roeck2007-test1",
        &["duration=20ms", r#"protocols.pause.switches={xoff="16 frames", xon="8 frames"}"#],
    );
    let victims = |s: &Summary| (2..=10).map(|i| gbps(s, &format!("sw->n{i}"), traffic_s)).sum::<f64>();
    let drops = |s: &Summary| s.queues.iter().find(|q| q.port == "sw->n1").unwrap().dropped_frames;
    assert!(drops(&off) > 1000, "the hotspot queue overflows: {}", drops(&off));
    assert!(victims(&off) > 60.0, "victims unharmed without switch PAUSE: {:.1} Gbit/s", victims(&off));
    assert_eq!(drops(&on), 0, "switch PAUSE loses nothing");
    assert!(
        victims(&on) < 0.5 * victims(&off),
        "congestion spreads: {:.1} vs {:.1} Gbit/s",
        victims(&on),
        victims(&off)
    );
    // Node 1 gets its service rate either way.
    for s in [&off, &on] {
        let n1 = gbps(s, "sw->n1", traffic_s);
        assert!((0.9..1.2).contains(&n1), "{n1} Gbit/s to node 1");
    }
}

/// The baseline: four 5 Gbit/s sources into one 10 Gbit/s port, 2.5 Gbit/s each by
/// max-min; drop-tail without congestion management delivers the port's capacity, shared
/// unevenly (Jain's index against max-min about 0.9 over 5 ms).
#[test]
fn baseline_hotspot_is_shared_at_capacity() {
    let s = parse(bundled::get("roeck2007-baseline").unwrap(), "b", &["duration=5ms".into()]).unwrap();
    let mut sim = build(&s, "b").unwrap();
    // The sources start within the first 10 µs of the 5 ms: their fair rates, averaged
    // over the run, are 2.5 Gbit/s within 0.5 %.
    for fair in maxmin::of_sim(&sim) {
        let fair = fair.unwrap();
        assert!((fair - 2.5e9).abs() < 0.005 * 2.5e9, "{fair}");
    }
    sim.run_to_end();
    let summary = Summary::of(&sim, "b", 1);
    let total: f64 = summary.flows.iter().map(|f| f.throughput_bps).sum();
    assert!((9.0e9..10.0e9).contains(&total), "{total}");
    // The shares of the fair rate average to the port's use: total ÷ (4 × 2.5 Gbit/s).
    let shares: Vec<f64> = summary.flows.iter().map(|f| f.maxmin_share.unwrap()).collect();
    let mean = shares.iter().sum::<f64>() / 4.0;
    assert!((mean - total / 10e9).abs() < 0.01, "{shares:?}");
    let fairness = summary.maxmin_fairness.unwrap();
    assert!(fairness > 0.25 && fairness <= 1.0, "{fairness}");
}

/// ECM on the baseline (Roeck 2007's first parameter set): after the first BCNs the
/// hotspot queue is held near Qeq = 375 pages = 24000 B = 16 frames instead of full at
/// 200, the port stays busy, losses are confined to the start (before the first
/// feedback arrives), and the sources converge towards their fair 2.5 Gbit/s.
#[test]
fn ecm_holds_the_baseline_hotspot_near_qeq_without_loss() {
    let ecm = r#"protocols.ecm={congestion_points="switches", flows="*"}"#;
    let plain = run("roeck2007-baseline", &["duration=100ms"]);
    let with = run("roeck2007-baseline", &["duration=100ms", ecm]);
    let port = |s: &Summary| s.queues.iter().find(|q| q.port == "sw->n5").unwrap().clone();
    let (p, e) = (port(&plain), port(&with));
    assert!(p.mean_frames > 190.0, "drop-tail sits at its 200-frame limit: {}", p.mean_frames);
    assert!((8.0..32.0).contains(&e.mean_frames), "ECM holds ~16 frames: {}", e.mean_frames);
    assert!(p.dropped_frames > 10_000, "{}", p.dropped_frames);
    assert!(e.dropped_frames < 300, "only the start-up burst is lost: {}", e.dropped_frames);
    let total: f64 = with.flows.iter().map(|f| f.throughput_bps).sum();
    assert!(total > 9.5e9, "the hotspot stays busy: {total}");
    let stats = with.protocols.ecm.as_ref().unwrap();
    assert!(stats.negative > 0 && stats.positive > 0, "{stats:?}");
}

/// ECM's fairness comes slowly (Roeck 2007: "marginal fairness"): Jain's index of the
/// four sources' throughput over the last 100 ms of a 300 ms run.
#[test]
fn ecm_baseline_sources_end_near_their_fair_share() {
    let over = [
        "duration=300ms".to_string(),
        r#"protocols.ecm={congestion_points="switches", flows="*"}"#.to_string(),
    ];
    let s = parse(bundled::get("roeck2007-baseline").unwrap(), "b", &over).unwrap();
    let mut sim = build(&s, "b").unwrap();
    sim.run_until(200 * cnsim::engine::PS_PER_MS, &mut |_| true).unwrap();
    let before: Vec<u64> = sim.flows().iter().map(|f| f.stats.delivered_bytes).collect();
    sim.run_to_end();
    let gbps: Vec<f64> = sim
        .flows()
        .iter()
        .zip(&before)
        .map(|(f, b)| (f.stats.delivered_bytes - b) as f64 * 8.0 / 0.1 / 1e9)
        .collect();
    let jain = cnsim::metrics::jain_index(&gbps);
    assert!(jain > 0.95, "{gbps:?}: Jain {jain}");
    assert!(gbps.iter().all(|g| (1.5..3.5).contains(g)), "{gbps:?}");
}

/// Test 9, the 7-switch congestion chain: drop-tail starves the flows that cross several
/// switches (Jain's index against max-min far below 1); ECM gives them most of their
/// fair share back.
#[test]
fn ecm_restores_the_long_flows_of_the_congestion_chain() {
    let ecm = r#"protocols.ecm={congestion_points="switches", flows="*"}"#;
    let plain = run("roeck2007-test9", &["duration=50ms"]);
    let with = run("roeck2007-test9", &["duration=50ms", ecm]);
    let (p, e) = (plain.maxmin_fairness.unwrap(), with.maxmin_fairness.unwrap());
    assert!(p < 0.4, "drop-tail: {p}");
    assert!(e > 0.8, "ECM: {e}");
    // Flows that got less than 5 % of their fair rate.
    let starved = |s: &Summary| s.flows.iter().filter(|f| f.maxmin_share.is_some_and(|x| x < 0.05)).count();
    assert!(starved(&plain) >= 3, "drop-tail starves the long flows: {}", starved(&plain));
    assert_eq!(starved(&with), 0, "ECM starves none");
}

/// FECN on the baseline (Roeck 2007: "excellent fairness"): once probes return, every
/// source sends at the advertised 2.5 Gbit/s and the hotspot queue settles near
/// Qeq = 24000 B = 16 frames.
#[test]
fn fecn_shares_the_baseline_hotspot_evenly() {
    let fecn = r#"protocols.fecn={congestion_points="switches", flows="*"}"#;
    let over = ["duration=100ms".to_string(), fecn.to_string()];
    let s = parse(bundled::get("roeck2007-baseline").unwrap(), "b", &over).unwrap();
    let mut sim = build(&s, "b").unwrap();
    sim.run_until(50 * cnsim::engine::PS_PER_MS, &mut |_| true).unwrap();
    let before: Vec<u64> = sim.flows().iter().map(|f| f.stats.delivered_bytes).collect();
    let port = sim.net().port_by_name("sw->n5").unwrap();
    let dropped_before = sim.queue_stats(port).map(|q| q.dropped_frames).sum::<u64>();
    sim.run_to_end();
    sim.check_conservation().unwrap();
    let gbps: Vec<f64> = sim
        .flows()
        .iter()
        .zip(&before)
        .map(|(f, b)| (f.stats.delivered_bytes - b) as f64 * 8.0 / 0.05 / 1e9)
        .collect();
    assert!(gbps.iter().all(|g| (2.3..2.7).contains(g)), "{gbps:?}");
    let dropped_after = sim.queue_stats(port).map(|q| q.dropped_frames).sum::<u64>();
    assert_eq!(dropped_after, dropped_before, "no loss once the rates are set");
    let summary = Summary::of(&sim, "b", 1);
    let q = summary.queues.iter().find(|q| q.port == "sw->n5").unwrap();
    assert!(q.mean_frames < 40.0, "{}", q.mean_frames);
    assert!(summary
        .frames
        .by_kind
        .iter()
        .any(|(k, c)| *k == cnsim::net::HeaderKind::Fecn && c.delivered > 0));
}

/// A test's bundled scenario with a protocol's table as the reproduction runs it
/// (`protocol_table`), under `seed`.
fn run_protocol(test: &str, protocol: &str, params: &str, seed: u64) -> Summary {
    let name = cnsim::repro::roeck2007::scenario_name(test);
    let table = cnsim::repro::roeck2007::protocol_table(protocol, params);
    let text = format!("{}\n{table}", bundled::get(&name).unwrap());
    let s = parse(&text, &name, &[format!("seed={seed}")]).unwrap_or_else(|e| panic!("{e}"));
    let mut sim = build(&s, &name).unwrap_or_else(|e| panic!("{e}"));
    sim.run_to_end();
    sim.check_conservation().unwrap();
    Summary::of(&sim, &name, seed)
}

fn switch_drops(s: &Summary) -> u64 {
    s.queues.iter().filter(|q| q.port.starts_with("sw")).map(|q| q.dropped_frames).sum()
}

/// With the seed's second parameter set (denser sampling, and for QCN a shorter byte
/// counter), ECM and QCN and its variants hold the baseline's hotspot without losing a
/// frame, start-up included, and QCN and its variants lose nothing on tests 7 and 8
/// either; E2CM-P and E2CM-PR, whose probes pass the data queue in their own class,
/// lose a few dozen frames in the start-up surge (18 to 93 of 83 000 over seeds 1–3);
/// drop-tail loses about half of what reaches the hotspot.
#[test]
fn second_parameter_set_loses_nothing_where_feedback_is_fast_enough() {
    for protocol in ["ecm", "qcn", "qcn-p", "qcn-pr"] {
        let s = run_protocol("baseline", protocol, "run2", 2);
        assert_eq!(switch_drops(&s), 0, "{protocol} on the baseline");
    }
    for protocol in ["e2cm-p", "e2cm-pr"] {
        let s = run_protocol("baseline", protocol, "run2", 2);
        let sent: u64 = s.flows.iter().map(|f| f.stats.sent_frames).sum();
        assert!(switch_drops(&s) * 1000 < sent, "{protocol} on the baseline: {} of {sent}", switch_drops(&s));
    }
    for test in ["test7", "test8"] {
        for protocol in ["qcn", "qcn-p", "qcn-pr"] {
            let s = run_protocol(test, protocol, "run2", 2);
            assert_eq!(switch_drops(&s), 0, "{protocol} on {test}");
        }
    }
    assert!(switch_drops(&run_protocol("baseline", "none", "run1", 2)) > 10_000);
}

/// The seed's "rate guidance feedback helps to achieve fairness": on test 7 (two
/// hotspots, fair shares 2.5 and 7.5 Gbit/s) E2CM-PR and QCN-PR end closer to max-min
/// than E2CM-P and QCN-P (Jain's index against max-min, mean of three seeds: about
/// 0.94 → 0.99 for E2CM and 0.95 → 0.97 for QCN with the first parameter set).
#[test]
fn rate_guidance_brings_test7_closer_to_maxmin() {
    let fairness = |protocol: &str| {
        let seeds = [1, 2, 3];
        seeds
            .iter()
            .map(|&seed| run_protocol("test7", protocol, "run1", seed).maxmin_fairness.unwrap())
            .sum::<f64>()
            / seeds.len() as f64
    };
    for (unguided, guided) in [("e2cm-p", "e2cm-pr"), ("qcn-p", "qcn-pr")] {
        let (p, pr) = (fairness(unguided), fairness(guided));
        assert!(pr > p + 0.01, "{guided} {pr:.3} vs {unguided} {p:.3}");
        assert!(pr > 0.96, "{guided} {pr:.3}");
    }
}

/// FECN-B's BCN(0,0) answers severe congestion within a round trip, where FECN waits
/// for its next probe: on test 7 and on the 7-switch chain it cuts FECN's losses by more
/// than three times (3.6 to 8.5 times over seeds 1–3; FECN itself starts at its minimum
/// rate and its probes pass the data queue, so it loses less than it would otherwise).
#[test]
fn fecn_b_cuts_fecn_losses() {
    for test in ["test7", "test9"] {
        let (fecn, fecn_b) = (run_protocol(test, "fecn", "run1", 1), run_protocol(test, "fecn-b", "run1", 1));
        let (a, b) = (switch_drops(&fecn), switch_drops(&fecn_b));
        assert!(a > 1000 && b * 3 < a, "{test}: FECN {a}, FECN-B {b} frames lost");
    }
}

/// The seed's E2CM "favors short-distance flows over long distance flows": on the
/// 7-switch chain the hot flow from switch 1 (crossing every trunk) ends with less than
/// half of what the hot flow from switch 6 (crossing one) gets, where max-min gives both
/// 1.25 Gbit/s; its path probe sums every queue it crosses (ratio 4.9 ± 0.6 over 10 seeds
/// in the reproduction).
#[test]
fn e2cm_favours_short_flows_on_the_chain() {
    let s = run_protocol("test9", "e2cm", "run1", 1);
    let gbps = |name: &str| s.flows.iter().find(|f| f.name == name).unwrap().throughput_bps / 1e9;
    let (far, near) = (gbps("hot1/h2"), gbps("hot6/h17"));
    assert!(far < 0.5 * near, "hot1 {far:.2} vs hot6 {near:.2} Gbit/s");
}

/// The seed's E2CM and FECN "problems with output generated hotspots": on test 1 (node
/// 1 drains 1 Gbit/s and PAUSEs its switch port) both read the paused port at its link
/// rate, so their hotspot queue stays fuller and they lose more there than ECM, which
/// reads the queue alone.
#[test]
fn path_probing_and_fecn_struggle_with_the_output_generated_hotspot() {
    let hot = |s: &Summary| s.queues.iter().find(|q| q.port == "sw->n1").unwrap().clone();
    let ecm = hot(&run_protocol("test1", "ecm", "run1", 1));
    for protocol in ["e2cm", "fecn"] {
        let q = hot(&run_protocol("test1", protocol, "run1", 1));
        assert!(
            q.mean_frames > ecm.mean_frames + 30.0,
            "{protocol}: {:.0} vs ECM {:.0} frames",
            q.mean_frames,
            ecm.mean_frames
        );
        assert!(
            q.dropped_frames > ecm.dropped_frames,
            "{protocol}: {} vs ECM {} lost",
            q.dropped_frames,
            ecm.dropped_frames
        );
    }
}

/// Tests 9 and 10 as the seed states them: N = 7 and N = 12 switches of three hosts, and
/// node (N-1)*3+1 (hosts numbered from 0: h(3N-1) here) receives from N sources; the
/// max-min allocation's bottleneck is the trunk into the last switch, shared by N + 1
/// flows, and the hotspot's own port carries N of those shares.
#[test]
fn the_chains_send_from_n_sources_to_the_hotspot() {
    for (name, n) in [("roeck2007-test9", 7usize), ("roeck2007-test10", 12)] {
        let s = parse(bundled::get(name).unwrap(), name, &[]).unwrap();
        let sim = build(&s, name).unwrap();
        let net = sim.net();
        let switches = net.nodes.iter().filter(|x| x.kind == cnsim::net::NodeKind::Switch).count();
        assert_eq!(switches, n, "{name}");
        let hotspot = net.node_by_name(&format!("h{}", 3 * n - 1)).unwrap();
        let fair = maxmin::of_sim(&sim);
        let into: Vec<usize> = (0..sim.flows().len())
            .filter(|&i| sim.flows()[i].dst == cnsim::traffic::Destination::Host(hotspot))
            .collect();
        assert_eq!(into.len(), n, "{name}: sources to the hotspot");
        // The N flows into the hotspot share the last trunk with a(N-1): 10/(N + 1)
        // Gbit/s each, within the 10 µs start jitter of 100 ms.
        let share = 10e9 / (n + 1) as f64;
        for i in into {
            let f = fair[i].unwrap();
            assert!((f - share).abs() < 1e-3 * share, "{name} {}: {f}", sim.flows()[i].name);
        }
    }
}

/// Test 5's fair shares follow its phases: the bursty pair is on for 20 ms and off for
/// 20 ms, together, so over the 200 ms each gets 2.5 Gbit/s half the time (1.25) and each
/// steady source 2.5 and 5 in turn (3.75), not the 2.5 each that their mean offered rates
/// would give.
#[test]
fn test5_fair_shares_are_averaged_over_its_phases() {
    let s = parse(bundled::get("roeck2007-test5").unwrap(), "t5", &[]).unwrap();
    let sim = build(&s, "t5").unwrap();
    for (f, fair) in sim.flows().iter().zip(maxmin::of_sim(&sim)) {
        let want = if f.name.starts_with("bursty/") { 1.25e9 } else { 3.75e9 };
        let fair = fair.unwrap();
        assert!((fair - want).abs() < 1e-3 * want, "{}: {fair}", f.name);
    }
}

/// Tests 2 and 6: node 7 (and on test 6 node 9) serves 500 Mbit/s, split over its nine
/// senders (55.6 Mbit/s each); every other flow keeps its offered 277.78 or 444.44 Mbit/s,
/// since no trunk of the reconstructed wiring carries more than 8.7 Gbit/s.
#[test]
fn tests_2_and_6_share_only_the_hotspots() {
    for (name, hotspots) in [("roeck2007-test2", &["n7"][..]), ("roeck2007-test6", &["n7", "n9"][..])] {
        let s = parse(bundled::get(name).unwrap(), name, &[]).unwrap();
        let sim = build(&s, name).unwrap();
        let fair = maxmin::of_sim(&sim);
        assert_eq!(sim.flows().len(), 90);
        for (f, fair) in sim.flows().iter().zip(fair) {
            let to_hotspot = hotspots.iter().any(|h| f.name.starts_with(&format!("to-{h}-")));
            let offered = if f.name.contains("-a/") { 277.78e6 } else { 444.44e6 };
            let want = if to_hotspot { 500e6 / 9.0 } else { offered };
            let fair = fair.unwrap();
            assert!((fair - want).abs() < 1e-3 * want, "{name} {}: {fair}", f.name);
        }
    }
}

/// Delivered Gbit/s per source (all its flows) of nodes 2-10, averaged, between 10 ms
/// and the end of a run of `ms` milliseconds.
fn per_source_gbps(s: &Summary, ms: f64) -> f64 {
    let mut bytes = std::collections::BTreeMap::<&str, u64>::new();
    for f in s.flows.iter().filter(|f| f.src != "n1") {
        *bytes.entry(f.src.as_str()).or_default() += f.stats.delivered_bytes;
    }
    bytes.values().map(|&b| b as f64 * 8.0 / ((ms - 10.0) / 1e3) / 1e9).sum::<f64>() / bytes.len() as f64
}

/// The two readings of test 1's "uniform distribution": with a flow per destination
/// (the reproduction's "test1") QCN throttles only the flows to node 1 and every other
/// node keeps its 7.67 Gbit/s; with each frame to a random node ("test1-uniform") a
/// source's one rate limiter slows its frames to every node, and QCN cuts the victims to
/// well under half (1.6 Gbit/s over 80 ms in the reproduction); without management either
/// reading delivers 7.67.
#[test]
fn test1_readings_differ_in_their_victims() {
    let ms = 40.0;
    let run = |test: &str, protocol: &str| {
        let name = cnsim::repro::roeck2007::scenario_name(test);
        let table = cnsim::repro::roeck2007::protocol_table(protocol, "run1");
        let text = format!("{}\n{table}", bundled::get(&name).unwrap());
        let s = parse(&text, &name, &[format!("duration={ms}ms")]).unwrap();
        let mut sim = build(&s, &name).unwrap();
        sim.run_to_end();
        per_source_gbps(&Summary::of(&sim, &name, 1), ms)
    };
    let pairs = run("test1", "qcn");
    let uniform = run("test1-uniform", "qcn");
    let plain = run("test1-uniform", "none");
    assert!(pairs > 7.4, "a flow per destination: {pairs:.2} Gbit/s per source");
    assert!(plain > 7.4, "random nodes without management: {plain:.2}");
    assert!(uniform < 0.5 * pairs, "random nodes under QCN: {uniform:.2} vs {pairs:.2}");
}

/// The seed's E2CM and FECN "problems with output generated hotspots" on the background
/// traffic of test 2 (node 7 serving 500 Mbit/s): both lose at least twice what ECM
/// loses (ECM 0.86 %, E2CM 2.6 %, FECN 3.1 % over 10 seeds in the reproduction); drop-tail
/// loses more than ECM.
#[test]
fn e2cm_and_fecn_lose_more_than_ecm_on_test_2() {
    let ecm = switch_drops(&run_protocol("test2", "ecm", "run1", 1));
    for protocol in ["e2cm", "fecn", "none"] {
        let lost = switch_drops(&run_protocol("test2", protocol, "run1", 1));
        assert!(lost > 2 * ecm, "{protocol}: {lost} vs ECM {ecm} frames lost");
    }
}

/// The seed's QCN "fast reaction to load increases, slow reaction to load decreases",
/// on test 5 with its first parameter set: after the bursty pair leaves, the steady flows
/// take longer to reach their new share than after it arrives, by 4.6 ± 3.2 ms over 10
/// seeds in the reproduction (the second set: −1.0 ± 2.4, within noise). Seeds 1-10, so
/// the mean is the reproduction's.
#[test]
fn qcn_reacts_more_slowly_to_decreases_on_test_5() {
    let gaps: Vec<f64> = (1..=10)
        .map(|seed| {
            let name = cnsim::repro::roeck2007::scenario_name("test5");
            let table = cnsim::repro::roeck2007::protocol_table("qcn", "run1");
            let text = format!("{}\n{table}", bundled::get(&name).unwrap());
            let s = parse(&text, &name, &[format!("seed={seed}")]).unwrap();
            let mut sim = build(&s, &name).unwrap();
            sim.run_to_end();
            let dt = sim.recorder().interval as f64 / 1e12;
            let (up, down) = cnsim::repro::roeck2007::reaction_times_ms(&sim.recorder().throughput, dt);
            down - up
        })
        .filter(|g| g.is_finite())
        .collect();
    let mean = gaps.iter().sum::<f64>() / gaps.len() as f64;
    assert!(gaps.len() >= 8, "{gaps:?}");
    assert!((1.0..15.0).contains(&mean), "decrease − increase: {mean:.2} ms ({gaps:?})");
}

/// The seed's FECN "excellent fairness" and E2CM "good fairness" against ECM's
/// "marginal", on the 12-switch chain: FECN's Jain index against max-min above ECM's by
/// more than 5 % (11.6 ± 2.8 % over 10 seeds in the reproduction); E2CM's below ECM's
/// there (−7.9 ± 3.0 %), the one test where the ordering reverses: E2CM's path probes cut
/// the long flows hardest.
#[test]
fn fecn_is_fairer_than_ecm_on_the_long_chain_and_e2cm_is_not() {
    let fairness = |protocol: &str| {
        (1..=3)
            .map(|seed| run_protocol("test10", protocol, "run1", seed).maxmin_fairness.unwrap())
            .sum::<f64>()
            / 3.0
    };
    let (ecm, fecn, e2cm) = (fairness("ecm"), fairness("fecn"), fairness("e2cm"));
    assert!(fecn > 1.05 * ecm, "FECN {fecn:.3} vs ECM {ecm:.3}");
    assert!(e2cm < ecm, "E2CM {e2cm:.3} vs ECM {ecm:.3}");
}
