//! Data-center fabrics: a fat-tree's ECMP spreads flows over its cores as independent
//! uniform choices would, and a message crosses pods at the rate of its host link.

use cnsim::scenario::{build, parse};
use cnsim::sim::Sim;

const FAT_TREE_K8: &str = r#"
name = "k8"
duration = "1ms"
[topology.fat_tree]
k = 8
host_link = { rate = "10Gbps", delay = "1us" }
fabric_link = { rate = "40Gbps", delay = "1us" }
[switches]
ecmp = true
processing_latency = "0ns"
[[traffic]]
name = "m"
kind = "rdma"
from = "h1"
to = "h128"
bytes = "100KB"
frame_size = "1000B"
"#;

fn built(text: &str, sets: &[&str]) -> Sim {
    let sets: Vec<String> = sets.iter().map(|s| s.to_string()).collect();
    let s = parse(text, "fabric.toml", &sets).unwrap_or_else(|e| panic!("{e}"));
    build(&s, "fabric.toml").unwrap_or_else(|e| panic!("{e}"))
}

/// k = 8: 128 hosts, 16 cores. 4096 flow ids from h1 (pod 1) to h128 (pod 8) each
/// cross exactly one core; ECMP's hash should make that choice as a uniform draw would,
/// so each core's count is Binomial(4096, 1/16): mean 256, σ = 15.5. Every core is
/// within 5σ; every flow's path has the 6 hops an inter-pod path has.
#[test]
fn ecmp_spreads_inter_pod_flows_over_every_core_within_a_binomial_bound() {
    let sim = built(FAT_TREE_K8, &[]);
    let net = sim.net();
    let (a, b) = (net.node_by_name("h1").unwrap(), net.node_by_name("h128").unwrap());
    let mut per_core = std::collections::BTreeMap::<String, u32>::new();
    for flow in 0..4096 {
        let path = sim.routes().path(net, a, b, flow);
        assert_eq!(path.len(), 6);
        let cores: Vec<String> =
            path.iter().map(|&p| net.port_name(p)).filter(|n| n.starts_with("core")).collect();
        assert_eq!(cores.len(), 1, "{cores:?}");
        let core = cores[0].split("->").next().unwrap().to_string();
        *per_core.entry(core).or_default() += 1;
    }
    assert_eq!(per_core.len(), 16, "{per_core:?}");
    let sigma = (4096.0_f64 / 16.0 * 15.0 / 16.0).sqrt();
    for (core, n) in &per_core {
        assert!((f64::from(*n) - 256.0).abs() <= 5.0 * sigma, "{core}: {n} of 4096 ({per_core:?})");
    }
}

/// A 100 KB message from pod 1 to pod 8 on an idle k = 8 fabric: 106 packets of 1000
/// bytes (938 of message) and a last of 634 leave h1 back to back at 10 Gbit/s. The
/// packet before the last reaches the last ToR at 105 × 0.8 + 0.8 + 1 + 4 × (0.2 + 1) =
/// 90.6 µs and holds its 10 Gbit/s port to h128 until 91.4 µs; the last, there at
/// 90.81 µs, follows it: it reaches h128 at 91.4 + 0.5072 + 1 µs. Its ACK (66 bytes)
/// comes back over two 10 Gbit/s and four 40 Gbit/s hops of 1 µs each.
#[test]
fn a_message_crosses_pods_at_its_host_link_rate() {
    let mut sim = built(FAT_TREE_K8, &[]);
    sim.run_to_end();
    let fct_us = sim.rdma_qp(0).unwrap().stats.fct_s.expect("completed") * 1e6;
    let data = 105.0 * 0.8 + 0.8 + 1.0 + 4.0 * (0.2 + 1.0) + 0.8 + 634.0 * 8.0 / 10e3 + 1.0;
    let ack = 2.0 * 66.0 * 8.0 / 10e3 + 4.0 * 66.0 * 8.0 / 40e3 + 6.0;
    assert!((fct_us - (data + ack)).abs() < 0.001, "FCT {fct_us} µs, expected {}", data + ack);
}

/// An odd k, and cores that do not split evenly over the aggregation switches, are
/// refused at their keys.
#[test]
fn bad_fabric_counts_are_located() {
    let error = |text: &str, set: &str| {
        let s = parse(text, "fabric.toml", &[set.to_string()]).unwrap_or_else(|e| panic!("{e}"));
        build(&s, "fabric.toml").err().expect("refused").to_string()
    };
    let e = error(FAT_TREE_K8, "topology.fat_tree.k=5");
    assert!(e.contains("topology.fat_tree.k") && e.contains("5 is not a fat-tree's k"), "{e}");
    let clos = FAT_TREE_K8.replace(
        "[topology.fat_tree]\nk = 8\nhost_link = { rate = \"10Gbps\", delay = \"1us\" }\nfabric_link = { rate = \"40Gbps\", delay = \"1us\" }",
        "[topology.clos]\npods = 2\ntors_per_pod = 2\naggs_per_pod = 2\nhosts_per_tor = 64\ncores = 4\n\
         host_link = { rate = \"10Gbps\", delay = \"1us\" }\ntor_link = { rate = \"40Gbps\", delay = \"1us\" }\n\
         core_link = { rate = \"40Gbps\", delay = \"1us\" }",
    );
    assert!(clos.contains("[topology.clos]"));
    built(&clos, &[]);
    let e = error(&clos, "topology.clos.cores=3");
    assert!(e.contains("topology.clos.cores") && e.contains("not a multiple of aggs_per_pod (2)"), "{e}");
}

/// Another ECMP seed assigns flows to cores anew (many flows change core) and still as
/// uniform draws would.
#[test]
fn an_ecmp_seed_reassigns_flows_within_the_same_bound() {
    let zero = built(FAT_TREE_K8, &[]);
    let seeded = built(FAT_TREE_K8, &["switches.ecmp_seed=7"]);
    let net = zero.net();
    let (a, b) = (net.node_by_name("h1").unwrap(), net.node_by_name("h128").unwrap());
    let core = |sim: &Sim, flow: u32| {
        let path = sim.routes().path(sim.net(), a, b, flow);
        path.iter().map(|&p| sim.net().port_name(p)).find(|n| n.starts_with("core")).unwrap()
    };
    let mut per_core = std::collections::BTreeMap::<String, u32>::new();
    let mut moved = 0;
    for flow in 0..4096 {
        let c = core(&seeded, flow);
        moved += u32::from(c != core(&zero, flow));
        *per_core.entry(c).or_default() += 1;
    }
    assert!(moved > 3000, "{moved} of 4096 flows changed core");
    let sigma = (4096.0_f64 / 16.0 * 15.0 / 16.0).sqrt();
    assert!(per_core.values().all(|&n| (f64::from(n) - 256.0).abs() <= 5.0 * sigma), "{per_core:?}");
}

/// Per-packet spraying: a 1500 KB message from h1 to h128 (1600 packets) crosses every
/// core in turn, 100 packets each, round robin at the ToR and at each aggregation
/// switch (and its acknowledgements likewise); on an idle fabric of equal paths its
/// packets arrive in order (no NAK).
#[test]
fn spraying_sends_a_flows_packets_over_every_core_in_turn() {
    let mut sim =
        built(FAT_TREE_K8, &["switches.spray=true", "traffic[0].bytes=\"1500800B\"", "duration=\"5ms\""]);
    sim.run_to_end();
    let qp = sim.rdma_qp(0).unwrap();
    assert_eq!(qp.requester.packets, 1600);
    assert!(qp.stats.fct_s.is_some());
    assert_eq!(qp.stats.naks_sent, 0);
    let net = sim.net();
    let per_core: Vec<u64> = (0..net.ports.len() as u32)
        .filter(|&p| {
            let name = net.port_name(p);
            name.starts_with("core") && net.ports[p as usize].classes.queues().any(|q| q.arrived_frames() > 0)
        })
        .map(|p| net.ports[p as usize].classes.queues().map(|q| q.arrived_frames()).sum())
        .collect();
    // 16 cores, each 100 packets down to pod 8 and 100 acknowledgements to pod 1 (the
    // receiver's acknowledgements are sprayed too).
    assert_eq!(per_core.len(), 32, "{per_core:?}");
    assert!(per_core.iter().all(|&n| n == 100), "{per_core:?}");
}

/// The speed model's partitions of the k = 8 fat-tree in 8 are its pods: each pod's
/// hosts, ToRs and aggregation switches on one partition, two of the 16 cores on each;
/// only host and fabric links of 1 µs cross, so the lookahead is 1 µs.
#[test]
fn the_speed_models_partitions_of_a_fat_tree_are_its_pods() {
    use cnsim::sim::parallelism::Partition;
    let sim = built(FAT_TREE_K8, &[]);
    let net = sim.net();
    let p = Partition::of(net, 8);
    let part = |name: &str| p.part_of[net.node_by_name(name).unwrap() as usize];
    for pod in 0..8u32 {
        for h in 1..=16 {
            assert_eq!(part(&format!("h{}", pod * 16 + h)), pod);
        }
        for s in 1..=4 {
            assert_eq!(part(&format!("tor{}", pod * 4 + s)), pod);
            assert_eq!(part(&format!("agg{}", pod * 4 + s)), pod);
        }
    }
    let mut cores = [0; 8];
    for c in 1..=16 {
        cores[part(&format!("core{c}")) as usize] += 1;
    }
    assert_eq!(cores, [2; 8]);
    assert_eq!(p.lookahead, 1_000_000);
}

/// The speed model's halves of the HPCC paper's fabric (5 pods of 4 ToRs, 4
/// aggregation switches and 16 cores): ten ToRs each, so pod 3 (ToRs 9–12) is cut two
/// and two. Its aggregation switches, each linked to two ToRs on either side, split two
/// and two once the other pods' are placed, and the cores then eight and eight, each
/// following the pod 3 switch it is linked to.
#[test]
fn the_speed_models_halves_of_the_hpcc_fabric_share_its_cut_pod_evenly() {
    use cnsim::sim::parallelism::Partition;
    let s = cnsim::scenario::load("hpcc320-websearch", &[]).unwrap_or_else(|e| panic!("{e}"));
    let sim = build(&s, "hpcc320-websearch").unwrap_or_else(|e| panic!("{e}"));
    let net = sim.net();
    let p = Partition::of(net, 2);
    let part = |name: String| p.part_of[net.node_by_name(&name).unwrap() as usize];
    let tors: Vec<u32> = (1..=20).map(|t| part(format!("tor{t}"))).collect();
    assert_eq!(tors, [[0; 10], [1; 10]].concat());
    let aggs: Vec<u32> = (1..=20).map(|a| part(format!("agg{a}"))).collect();
    assert_eq!(aggs[..8], [0; 8]);
    assert_eq!(aggs[12..], [1; 8]);
    assert_eq!(aggs[8..12].iter().filter(|&&q| q == 0).count(), 2, "{aggs:?}");
    let cores = (1..=16).filter(|&c| part(format!("core{c}")) == 0).count();
    assert_eq!(cores, 8);
}

/// The model of a web search run on the k = 8 fat-tree: one thread has no parallelism;
/// more partitions have more (pods work at once within each 1 µs window) but less
/// than the thread count, and the barriers make the prediction lower still.
#[test]
fn the_speed_model_of_a_fabric_run_grows_with_partitions_below_the_thread_count() {
    let sets = ["duration=2ms".to_string()];
    let s = cnsim::scenario::load("fattree-websearch", &sets).unwrap_or_else(|e| panic!("{e}"));
    let mut sim = build(&s, "fattree-websearch").unwrap_or_else(|e| panic!("{e}"));
    sim.probe_parallelism(&[1, 2, 8]);
    sim.run_to_end();
    let m = sim.parallelism().expect("probed");
    let (one, two, eight) = (&m.rows[0], &m.rows[1], &m.rows[2]);
    assert_eq!(one.events, sim.counters().events);
    assert!((one.available_parallelism - 1.0).abs() < 1e-12 && one.lookahead_s.is_none());
    assert!(two.available_parallelism > 1.2 && two.available_parallelism < 2.0, "{two:?}");
    assert!(eight.available_parallelism > 2.0 * two.available_parallelism, "{eight:?}");
    assert!(eight.available_parallelism < 8.0, "{eight:?}");
    for r in [two, eight] {
        assert!(r.predicted_speedup < r.available_parallelism);
        assert!(r.crossing_frames > 0);
    }
}
