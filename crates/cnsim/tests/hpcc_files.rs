//! The HPCC ns-3 fork's input files, read as they are: its fat.txt is the fabric the
//! `clos` generator builds, link for link; a topology and a flow file in its format run
//! as the fork would run them, every listed flow once.

use cnsim::scenario::{build, parse};
use std::collections::BTreeSet;

fn data(name: &str) -> String {
    format!("{}/tests/data/{name}", env!("CARGO_MANIFEST_DIR"))
}

/// The links of a built network as unordered pairs of node names, after `rename`.
fn links(sim: &cnsim::sim::Sim, rename: &dyn Fn(&str) -> String) -> BTreeSet<(String, String)> {
    let net = sim.net();
    net.ports
        .iter()
        .map(|p| {
            let a = rename(&net.nodes[p.node as usize].name);
            let b = rename(&net.nodes[net.ports[p.peer as usize].node as usize].name);
            if a < b {
                (a, b)
            } else {
                (b, a)
            }
        })
        .collect()
}

/// The fork's fat.txt (376 nodes, 56 switches, 480 links, all 1 µs; 100 Gbit/s to the
/// hosts, 400 Gbit/s in the fabric) and `clos` with the HPCC paper's counts are one
/// network: fork node i is h(i+1) for i < 320, then tor, agg and core in order.
#[test]
fn the_forks_fat_tree_is_the_clos_generators() {
    let from_file =
        format!("name = \"fat\"\nduration = \"1us\"\n[topology.hpcc]\nfile = \"{}\"\n", data("hpcc-fat.txt"));
    let s = parse(&from_file, "fat.toml", &[]).unwrap_or_else(|e| panic!("{e}"));
    let fork = build(&s, "fat.toml").unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(fork.net().nodes.len(), 376);
    assert_eq!(fork.net().ports.len(), 960);
    let clos = r#"
name = "clos"
duration = "1us"
[topology.clos]
pods = 5
tors_per_pod = 4
aggs_per_pod = 4
hosts_per_tor = 16
cores = 16
host_link = { rate = "100Gbps", delay = "1us" }
tor_link = { rate = "400Gbps", delay = "1us" }
core_link = { rate = "400Gbps", delay = "1us" }
"#;
    let ours = build(&parse(clos, "clos.toml", &[]).unwrap(), "clos.toml").unwrap();
    let rename = |name: &str| {
        let id: u32 = name.trim_start_matches(|c: char| c.is_alphabetic()).parse().unwrap();
        match id {
            0..=319 => format!("h{}", id + 1),
            320..=339 => format!("tor{}", id - 319),
            340..=359 => format!("agg{}", id - 339),
            _ => format!("core{}", id - 359),
        }
    };
    assert_eq!(links(&fork, &rename), links(&ours, &|n: &str| n.to_string()));
    for (p, q) in fork.net().ports.iter().zip(&ours.net().ports) {
        assert_eq!(p.to_next_node, 1_000_000);
        assert!(p.rate_bps == 100_000_000_000 || p.rate_bps == 400_000_000_000);
        assert_eq!(q.to_next_node, 1_000_000);
    }
}

/// A star of three hosts in the fork's topology format and two flows in its flow format
/// (the first line says 2; a third line is not read): both flows run, from and to the
/// hosts the file names, of the sizes and at the times it gives, and complete.
#[test]
fn a_fork_flow_file_runs_every_listed_flow() {
    let dir = std::env::temp_dir().join(format!("cnsim-hpcc-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::write(
        dir.join("topo.txt"),
        "4 1 3\n3\n0 3 10Gbps 1000ns 0\n1 3 10Gbps 1000ns 0\n2 3 10Gbps 0.001ms 0\n",
    )
    .unwrap();
    std::fs::write(
        dir.join("flow.txt"),
        "2\n0 2 3 100 50000 0.0001\n1 2 3 100 20000 0.00005\n1 0 3 100 9 1\n",
    )
    .unwrap();
    let text = r#"
name = "fork-files"
duration = "2ms"
[topology.hpcc]
file = "topo.txt"
[[traffic]]
name = "f"
kind = "flows"
from = "h*"
to = "file"
file = "flow.txt"
frame_size = "1000B"
"#;
    let scenario = dir.join("s.toml");
    std::fs::write(&scenario, text).unwrap();
    let file = scenario.to_str().unwrap();
    let s = parse(text, file, &[]).unwrap_or_else(|e| panic!("{e}"));
    let mut sim = build(&s, file).unwrap_or_else(|e| panic!("{e}"));
    sim.run_to_end();
    let rows = cnsim::metrics::fct::rows(&sim);
    let got: Vec<(&str, &str, u64, f64)> =
        rows.iter().map(|r| (r.src.as_str(), r.dst.as_str(), r.bytes, (r.start_s * 1e6).round())).collect();
    assert_eq!(got, [("h1", "h2", 20000, 50.0), ("h0", "h2", 50000, 100.0)], "in start order");
    assert!(rows.iter().all(|r| r.slowdown.is_some()));
    // A flow from a host `from` does not name is refused at the flow's line.
    let e = build(&parse(text, file, &["traffic[0].from=\"h0\"".into()]).unwrap(), file)
        .err()
        .unwrap()
        .to_string();
    assert!(e.contains("traffic[0].from") && e.contains("flow 2 starts at h1"), "{e}");
    std::fs::write(dir.join("bad.txt"), "1\n0 7 3 100 500 0\n").unwrap();
    let e = build(&parse(text, file, &["traffic[0].file=\"bad.txt\"".into()]).unwrap(), file)
        .err()
        .unwrap()
        .to_string();
    assert!(e.contains("traffic[0].file") && e.contains("destination 7 is not a host"), "{e}");
    std::fs::remove_dir_all(&dir).unwrap();
}
