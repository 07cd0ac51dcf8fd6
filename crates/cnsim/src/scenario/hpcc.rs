//! The HPCC ns-3 fork's input files (`simulation/scratch/third.cc`), read as they are,
//! so that an experiment written for the fork runs here unchanged:
//!
//! - a topology file: `<nodes> <switches> <links>`, then the switches' node ids, then
//!   one link per line, `<node> <node> <rate> <delay> <error rate>` (e.g.
//!   `0 320 100Gbps 1000ns 0`); nodes are numbered from 0, every node not listed as a
//!   switch is a host. Node `i` is named `h{i}` (a host) or `sw{i}` (a switch).
//! - a flow file: `<flows>`, then one flow per line, `<src> <dst> <priority group>
//!   <destination port> <bytes> <start time, s>` (e.g. `2 1 3 100 200000 2.0`), exactly
//!   as many as the first line says (the fork reads no more).

use super::generators::{GenLink, GenNode, Generated};
use super::schema::{LinkParams, NodeKindSpec};
use crate::engine::{Time, PS_PER_S};
use crate::units::{Duration, Rate};

/// A located problem in a file: the line (from 1) and what is wrong.
pub type LineError = (usize, String);

/// The numbers and words of a file, with their line numbers.
fn tokens(text: &str) -> impl Iterator<Item = (usize, &str)> {
    text.lines().enumerate().flat_map(|(i, l)| l.split_whitespace().map(move |t| (i + 1, t)))
}

/// The next token as a `T`, or a located error naming `what`.
fn next<'a, T: std::str::FromStr>(
    it: &mut impl Iterator<Item = (usize, &'a str)>,
    last_line: usize,
    what: &str,
) -> Result<(usize, T), LineError> {
    let (line, t) =
        it.next().ok_or_else(|| (last_line, format!("the file ends where {what} was expected")))?;
    t.parse::<T>().map(|v| (line, v)).map_err(|_| (line, format!("{t:?} is not {what}")))
}

/// A topology file's network, as generated nodes and links (`path` names the key for
/// messages), and its host count.
pub fn topology(text: &str, path: &str) -> Result<Generated, LineError> {
    let last = text.lines().count().max(1);
    let mut it = tokens(text);
    let (_, nodes) = next::<u32>(&mut it, last, "the number of nodes")?;
    let (_, switches) = next::<u32>(&mut it, last, "the number of switches")?;
    let (line, links) = next::<u64>(&mut it, last, "the number of links")?;
    if switches > nodes {
        return Err((
            line,
            format!("{switches} switches of {nodes} nodes; expected at most as many switches as nodes"),
        ));
    }
    let mut is_switch = vec![false; nodes as usize];
    for _ in 0..switches {
        let (line, id) = next::<u32>(&mut it, last, "a switch's node id")?;
        if id >= nodes {
            return Err((line, format!("switch {id} is not a node; expected ids 0 to {}", nodes - 1)));
        }
        is_switch[id as usize] = true;
    }
    let name = |i: u32| if is_switch[i as usize] { format!("sw{i}") } else { format!("h{i}") };
    let mut g = Generated::default();
    for (i, &sw) in (0..nodes).zip(&is_switch) {
        let kind = if sw { NodeKindSpec::Switch } else { NodeKindSpec::Host };
        g.nodes.push(GenNode { name: name(i), kind, path: path.into(), buffer: None });
    }
    for _ in 0..links {
        let (line, a) = next::<u32>(&mut it, last, "a link's first node")?;
        let (_, b) = next::<u32>(&mut it, last, "a link's second node")?;
        for id in [a, b] {
            if id >= nodes {
                return Err((line, format!("node {id} is not a node; expected ids 0 to {}", nodes - 1)));
            }
        }
        let (_, rate) = next::<String>(&mut it, last, "a link rate")?;
        let rate: Rate = rate.parse().map_err(|e| (line, format!("{rate:?}: {e}")))?;
        let (_, delay) = next::<String>(&mut it, last, "a link delay")?;
        let delay: Duration = delay.parse().map_err(|e| (line, format!("{delay:?}: {e}")))?;
        let (_, error) = next::<f64>(&mut it, last, "a link's error rate")?;
        if error != 0.0 {
            return Err((
                line,
                format!("error rate {error} is not supported here; expected 0 (set losses with queues.loss)"),
            ));
        }
        g.links.push(GenLink {
            from: name(a),
            to: name(b),
            params: LinkParams { rate, delay },
            path: path.into(),
        });
    }
    Ok(g)
}

/// The header line of a topology file: (nodes, switches, links), for the memory
/// estimate before the file is expanded.
pub fn topology_counts(text: &str) -> Result<(u64, u64, u64), LineError> {
    let last = text.lines().count().max(1);
    let mut it = tokens(text);
    let (_, nodes) = next::<u64>(&mut it, last, "the number of nodes")?;
    let (_, switches) = next::<u64>(&mut it, last, "the number of switches")?;
    let (_, links) = next::<u64>(&mut it, last, "the number of links")?;
    Ok((nodes, switches, links))
}

/// One flow of a flow file.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct FileFlow {
    /// Source node id.
    pub(crate) src: u32,
    /// Destination node id.
    pub(crate) dst: u32,
    /// Bytes.
    pub(crate) bytes: u64,
    /// Start.
    pub(crate) start: Time,
}

/// The number of flows a flow file's first line announces.
pub fn flow_count(text: &str) -> Result<u64, LineError> {
    let last = text.lines().count().max(1);
    next::<u64>(&mut tokens(text), last, "the number of flows").map(|(_, n)| n)
}

/// A flow file's flows, in the file's order.
pub fn flows(text: &str) -> Result<Vec<FileFlow>, LineError> {
    let last = text.lines().count().max(1);
    let mut it = tokens(text);
    let (_, n) = next::<u64>(&mut it, last, "the number of flows")?;
    let mut out = Vec::new();
    for _ in 0..n {
        let (line, src) = next::<u32>(&mut it, last, "a flow's source node")?;
        let (_, dst) = next::<u32>(&mut it, last, "a flow's destination node")?;
        let _priority_group = next::<u32>(&mut it, last, "a flow's priority group")?;
        let _port = next::<u32>(&mut it, last, "a flow's destination port")?;
        let (_, bytes) = next::<u64>(&mut it, last, "a flow's size in bytes")?;
        let (_, start) = next::<f64>(&mut it, last, "a flow's start time in seconds")?;
        if !(start.is_finite() && start >= 0.0) || bytes == 0 {
            return Err((line, "expected a positive size and a start time at least 0".into()));
        }
        out.push(FileFlow { src, dst, bytes, start: (start * PS_PER_S as f64).round() as Time });
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_topology_file_names_hosts_and_switches_by_id() {
        let g = topology(
            "4 2 3\n2 3\n0 2 100Gbps 1000ns 0.000000\n1 2 100Gbps 0.001ms 0\n2 3 400Gbps 1us 0\n",
            "t",
        )
        .unwrap();
        let names: Vec<&str> = g.nodes.iter().map(|n| n.name.as_str()).collect();
        assert_eq!(names, ["h0", "h1", "sw2", "sw3"]);
        assert_eq!(g.links.len(), 3);
        assert_eq!(g.links[1].params.delay.0, 1_000_000);
        assert_eq!(g.links[2].params.rate.0, 400_000_000_000);
        assert_eq!(topology_counts("376 56 480\n").unwrap(), (376, 56, 480));
    }

    #[test]
    fn bad_files_name_their_line() {
        assert_eq!(topology("3 1 1\n2\n0 5 1Gbps 1us 0\n", "t").unwrap_err().0, 3);
        assert_eq!(topology("3 1 1\n2\n0 2 fast 1us 0\n", "t").unwrap_err().0, 3);
        assert_eq!(topology("3 1 2\n2\n0 2 1Gbps 1us 0\n", "t").unwrap_err().0, 3);
        assert!(topology("3 1 1\n2\n0 2 1Gbps 1us 0.01\n", "t").unwrap_err().1.contains("queues.loss"));
        let f = flows("2\n2 1 3 100 200000 2\n3 1 3 100 5000 2.5\n9 9 9 9 9 9\n").unwrap();
        assert_eq!(f.len(), 2, "as many as the first line says");
        assert_eq!(f[1], FileFlow { src: 3, dst: 1, bytes: 5000, start: 2_500_000_000_000 });
        assert_eq!(flows("2\n2 1 3 100 200000 2\n").unwrap_err().0, 2);
        assert_eq!(flows("1\n2 1 3 100 0 2\n").unwrap_err().0, 2);
        assert_eq!(flow_count("  7 \n").unwrap(), 7);
    }
}
