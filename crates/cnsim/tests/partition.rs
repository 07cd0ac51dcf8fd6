//! The partitioned engine: the same scenario gives the same bytes on any number of
//! threads, and what does not partition yet is refused by name.

use std::collections::BTreeMap;
use std::path::Path;

use cnsim::run::{simulate_on, write_run_files};
use cnsim::scenario::{parse, Limits, Scenario};

/// A k = 4 fat-tree (16 hosts, 20 switches) with CBR flows between pods at more than
/// the fabric can carry, RED marking and dropping, a lossy link and sampled series: every
/// kind of state the partitions split.
const FABRIC: &str = r#"
name = "cbr-fabric"
duration = "3ms"
seed = 7
[topology.fat_tree]
k = 4
host_link = { rate = "10Gbps", delay = "1us" }
fabric_link = { rate = "10Gbps", delay = "2us" }
[switches]
ecmp = true
processing_latency = "100ns"
[queues]
capacity = "60 frames"
loss = 0.001
[protocols.red]
min_th = "10 frames"
max_th = "40 frames"
max_p = 0.1
[metrics]
interval = "200us"
delay_percentiles = true
plots = false
"#;

/// The scenario with `flows` CBR flows from host i to host (i·7 + 3) mod 16, at rates
/// that overload the cores.
fn fabric(flows: usize) -> Scenario {
    let mut text = FABRIC.to_string();
    for i in 0..flows {
        let (src, dst) = (i % 16 + 1, (i * 7 + 3) % 16 + 1);
        let dst = if dst == src { dst % 16 + 1 } else { dst };
        text.push_str(&format!(
            "[[traffic]]\nname = \"f{i}\"\nkind = \"cbr\"\nfrom = \"h{src}\"\nto = \"h{dst}\"\n\
             rate = \"{}Mbps\"\nstart = {{ uniform = [\"0us\", \"50us\"] }}\n",
            3000 + 700 * (i % 5)
        ));
    }
    parse(&text, "fabric.toml", &[]).unwrap_or_else(|e| panic!("{e}"))
}

/// Every file a run writes, by name (timing aside: it is the wall clock's).
fn outputs(s: &Scenario, threads: Option<u32>, dir: &Path) -> BTreeMap<String, Vec<u8>> {
    let done = simulate_on(s, "fabric.toml", &Limits::machine_default(), threads, &mut |_| true)
        .unwrap_or_else(|e| panic!("{e}"));
    let _ = std::fs::remove_dir_all(dir);
    write_run_files(s, &done, dir, &|| false).unwrap_or_else(|e| panic!("{e}"));
    let mut files = BTreeMap::new();
    let mut pending = vec![dir.to_path_buf()];
    while let Some(d) = pending.pop() {
        for entry in std::fs::read_dir(&d).expect("run dir") {
            let path = entry.expect("entry").path();
            if path.is_dir() {
                pending.push(path);
            } else if path.file_name().is_some_and(|n| n != "timing.json") {
                let name = path.strip_prefix(dir).expect("inside").display().to_string();
                files.insert(name, std::fs::read(&path).expect("readable"));
            }
        }
    }
    files
}

#[test]
fn a_fabric_gives_the_same_bytes_on_one_to_four_threads() {
    let s = fabric(24);
    let root = std::env::temp_dir().join(format!("cnsim-partition-{}", std::process::id()));
    let one = outputs(&s, Some(1), &root.join("1"));
    let summary = String::from_utf8(one["summary.json"].clone()).expect("utf-8");
    assert!(summary.contains("\"dropped_at_queues\""), "{summary}");
    for threads in 2..=4 {
        let many = outputs(&s, Some(threads), &root.join(threads.to_string()));
        assert_eq!(one.keys().collect::<Vec<_>>(), many.keys().collect::<Vec<_>>());
        for (name, bytes) in &one {
            assert!(
                bytes == &many[name],
                "{name} differs between 1 and {threads} threads:\n{}\n---\n{}",
                String::from_utf8_lossy(bytes),
                String::from_utf8_lossy(&many[name])
            );
        }
    }
    let _ = std::fs::remove_dir_all(&root);
}

/// Every file of a run of `s` is the same on 2, 3 and 4 threads as on 1.
fn same_on_one_to_four_threads(s: &Scenario, tag: &str) {
    let root = std::env::temp_dir().join(format!("cnsim-partition-{tag}-{}", std::process::id()));
    let one = outputs(s, Some(1), &root.join("1"));
    for threads in 2..=4 {
        let many = outputs(s, Some(threads), &root.join(threads.to_string()));
        assert_eq!(one.keys().collect::<Vec<_>>(), many.keys().collect::<Vec<_>>());
        for (name, bytes) in &one {
            assert!(bytes == &many[name], "{tag}: {name} differs between 1 and {threads} threads");
        }
    }
    let _ = std::fs::remove_dir_all(&root);
}

/// DCTCP bulk transfers on a dumbbell: each connection's sender and receiver are in
/// different partitions from 2 threads on.
#[test]
fn tcp_connections_give_the_same_bytes_on_one_to_four_threads() {
    let s = cnsim::scenario::load("dctcp-dumbbell", &["duration=20ms".to_string()])
        .unwrap_or_else(|e| panic!("{e}"));
    same_on_one_to_four_threads(&s, "dctcp");
}

/// Web search flows over DCTCP on the k = 8 fat-tree (its PFC left out): workload flows
/// built in every partition, completion times from their senders'.
#[test]
fn a_tcp_workload_gives_the_same_bytes_on_one_to_four_threads() {
    let text = cnsim::scenario::bundled::get("fattree-websearch").expect("bundled");
    let (head, rest) = text.split_once("[protocols.pause]").expect("a pause section");
    let (_, tail) = rest.split_once("[metrics]").expect("a metrics section");
    let text = format!("{head}[metrics]{tail}");
    let sets: Vec<String> = [
        "duration=3ms",
        "traffic[0].stop=3ms",
        r#"traffic[0].transport="tcp""#,
        "traffic[0].tcp={dctcp={}}",
        "protocols.dcqcn.flows=[]",
        r#"protocols.dcqcn.congestion_points="none""#,
        r#"protocols.ecn_threshold={k="65 frames", ports="switches"}"#,
    ]
    .iter()
    .map(|s| s.to_string())
    .collect();
    let s = parse(&text, "websearch.toml", &sets).unwrap_or_else(|e| panic!("{e}"));
    let done = simulate_on(&s, "websearch.toml", &Limits::machine_default(), Some(2), &mut |_| true)
        .unwrap_or_else(|e| panic!("{e}"));
    let finished = done.sim.workload().iter().filter(|r| r.fct_s.is_some()).count();
    assert!(finished > 20, "{finished} flows finished");
    same_on_one_to_four_threads(&s, "websearch");
}

/// The HPCC paper's 320-host fabric, web search over RDMA with DCQCN and PFC, briefly:
/// queue pairs, reaction and notification points, marking switch ports, pause state.
#[test]
fn the_hpcc_fabric_gives_the_same_bytes_on_one_to_four_threads() {
    let sets = ["duration=1ms".to_string(), "traffic[0].stop=700us".to_string()];
    let s = cnsim::scenario::load("hpcc320-websearch", &sets).unwrap_or_else(|e| panic!("{e}"));
    same_on_one_to_four_threads(&s, "hpcc320");
    // HPCC in place of DCQCN: its packets' telemetry crosses partitions with them.
    let hpcc = [
        "protocols.dcqcn.flows=[]",
        r#"protocols.dcqcn.congestion_points="none""#,
        r#"protocols.hpcc={flows="*", max_stage=0, int_multi=4, window="bdp"}"#,
    ];
    let sets: Vec<String> = sets.iter().cloned().chain(hpcc.iter().map(|s| s.to_string())).collect();
    let s = cnsim::scenario::load("hpcc320-websearch", &sets).unwrap_or_else(|e| panic!("{e}"));
    same_on_one_to_four_threads(&s, "hpcc320-int");
}

/// An 8:1 RDMA incast under PFC alone: pauses go upstream across partitions.
#[test]
fn a_paused_incast_gives_the_same_bytes_on_one_to_four_threads() {
    let sets: Vec<String> = [
        "duration=2ms",
        "topology.dumbbell.senders=8",
        "protocols.dcqcn.flows=[]",
        r#"protocols.dcqcn.congestion_points="none""#,
    ]
    .iter()
    .map(|s| s.to_string())
    .collect();
    let s = cnsim::scenario::load("dcqcn-incast", &sets).unwrap_or_else(|e| panic!("{e}"));
    let done = simulate_on(&s, "incast.toml", &Limits::machine_default(), Some(3), &mut |_| true)
        .unwrap_or_else(|e| panic!("{e}"));
    assert!(super::dcqcn::pauses(&done.sim) > 0, "no PAUSE sent");
    same_on_one_to_four_threads(&s, "incast");
}

#[test]
fn what_does_not_partition_yet_is_refused_by_name() {
    let s = cnsim::scenario::load("devkota2010-incast", &[]).unwrap_or_else(|e| panic!("{e}"));
    let e = match simulate_on(&s, "incast.toml", &Limits::machine_default(), Some(2), &mut |_| true) {
        Err(e) => e.to_string(),
        Ok(_) => panic!("an incast application split into partitions"),
    };
    assert!(e.starts_with("incast.toml: --threads: 2: "), "{e}");
    assert!(e.contains("incast application"), "{e}");
}

/// Partitions meet only at window ends, yet a frame's arrival in another partition is
/// exactly when one engine would have it: each flow's delivered frames and one-way
/// delay sum are those of the single-partition run, on a two-switch line whose one
/// crossing link is the lookahead.
#[test]
fn a_frame_crossing_partitions_arrives_on_time() {
    let text = r#"
name = "line"
duration = "2ms"
[topology.chain]
switches = 2
hosts_per_switch = 2
host_link = { rate = "10Gbps", delay = "500ns" }
trunk = { rate = "10Gbps", delay = "3us" }
[[traffic]]
name = "a"
kind = "cbr"
from = "h1"
to = "h3"
rate = "3Gbps"
[[traffic]]
name = "b"
kind = "poisson"
from = "h4"
to = "h2"
rate = "4Gbps"
"#;
    let s = parse(text, "line.toml", &[]).unwrap_or_else(|e| panic!("{e}"));
    let run = |threads| {
        let done = simulate_on(&s, "line.toml", &Limits::machine_default(), Some(threads), &mut |_| true)
            .unwrap_or_else(|e| panic!("{e}"));
        done.sim.flows().iter().map(|f| (f.stats.delivered_frames, f.stats.delay_sum)).collect::<Vec<_>>()
    };
    let one = run(1);
    assert!(one.iter().all(|&(frames, _)| frames > 400), "{one:?}");
    assert_eq!(one, run(2));
}
