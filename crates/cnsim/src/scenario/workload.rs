//! Building a `kind = "flows"` traffic entry: its arrivals are drawn when the scenario
//! is built, from each source's own stream, and each becomes a finite flow of its own
//! (an RDMA queue pair or a TCP connection) with its ideal completion time.

use std::collections::HashSet;
use std::path::{Path, PathBuf};

use super::budget::{Budget, FLOW_BYTES};
use super::error::ScenarioError;
use super::schema::{Arrivals, Source, Start, Traffic, Transport};
use crate::engine::{RngStream, StreamKey, Time};
use crate::metrics::fct::FctRecord;
use crate::net::{Network, NodeId, Routes};
use crate::traffic::workload::{arrivals_at, derangement, mean_gap, Arrival, Cdf, Pattern, MAX_CDF_BYTES};
use crate::traffic::{Destination, Flow, Shaper};

/// Memory of one workload flow beyond its `Flow`: its queue pair or connection, a
/// reaction and a notification point, timers, its FCT record and name.
pub const WORKLOAD_FLOW_BYTES: u64 = FLOW_BYTES + 1536;

/// Most flows one scenario's workloads may draw.
pub const MAX_WORKLOAD_FLOWS: u64 = 50_000_000;

/// What a workload entry adds to the scenario's flows.
pub(super) struct Added {
    /// The flows, in start order.
    pub(crate) flows: Vec<Flow>,
    /// Their queue pairs (transport = "rdma"), numbered from `first_qp`.
    pub(crate) qps: Vec<crate::l4::rdma::Qp>,
    /// Their connections (transport = "tcp"), numbered from `first_connection`.
    pub(crate) connections: Vec<crate::l4::tcp::Connection>,
    /// One record per flow.
    pub(crate) records: Vec<FctRecord>,
}

/// Where a workload's flows start numbering, and what they may not be named.
pub(super) struct Numbering<'a> {
    /// The index of the first flow.
    pub(crate) first_flow: u32,
    /// The index of its first queue pair.
    pub(crate) first_qp: u32,
    /// The index of its first connection.
    pub(crate) first_connection: u32,
    /// Names taken by the flows built so far.
    pub(crate) names: &'a mut HashSet<String>,
}

/// Reads the input file `name` a scenario key gives (relative to the scenario file's
/// folder), at most `max_bytes`: its path and text, or why not.
pub(super) fn read_beside(
    name: &str,
    scenario_file: &str,
    max_bytes: u64,
) -> Result<(PathBuf, String), String> {
    let path = {
        let p = Path::new(name);
        match Path::new(scenario_file).parent().filter(|d| p.is_relative() && d.is_dir()) {
            Some(dir) => dir.join(p),
            None => PathBuf::from(p),
        }
    };
    let meta = std::fs::metadata(&path).map_err(|e| format!("{} cannot be read ({e})", path.display()))?;
    if !meta.is_file() {
        return Err(format!("{} is not a file", path.display()));
    }
    if meta.len() > max_bytes {
        return Err(format!("{} holds {} bytes, more than {max_bytes}", path.display(), meta.len()));
    }
    let text =
        std::fs::read_to_string(&path).map_err(|e| format!("{} cannot be read ({e})", path.display()))?;
    Ok((path, text))
}

/// The largest topology or flow file read, bytes.
pub const MAX_INPUT_BYTES: u64 = 1 << 30;

/// The distribution `sizes` names: a bundled one, one size in bytes (every flow that
/// size), or a file (relative to the scenario file's folder), at most [`MAX_CDF_BYTES`].
fn distribution(sizes: &str, scenario_file: &str, key: &str) -> Result<Cdf, ScenarioError> {
    if let Some(cdf) = Cdf::bundled(sizes) {
        return Ok(cdf);
    }
    if let Ok(crate::units::Size::Bytes(b)) = sizes.parse() {
        if b == 0 {
            return Err(ScenarioError::new(
                scenario_file,
                key,
                "\"0B\" is no flow; expected a size above 0, e.g. \"500KB\"".to_string(),
            ));
        }
        return Ok(Cdf::fixed(b));
    }
    let bundled: Vec<&str> = crate::traffic::workload::BUNDLED.iter().map(|(n, _)| *n).collect();
    let (path, text) = read_beside(sizes, scenario_file, MAX_CDF_BYTES).map_err(|why| {
        ScenarioError::new(
            scenario_file,
            key,
            format!(
                "\"{sizes}\" is not a bundled distribution ({}) and {why}; expected one of those names or a file \
                 of lines \"<flow size in bytes> <cumulative %>\"",
                bundled.join(", ")
            ),
        )
    })?;
    Cdf::parse(&text).map_err(|(line, message)| {
        ScenarioError::new(scenario_file, key, format!("{} line {line}: {message}", path.display()))
    })
}

/// The ideal completion time of a flow of `bytes` over `path` (the HPCC ns-3 fork's
/// `standalone_fct`): twice the path's one-way delay (propagation, and the switches'
/// processing latency), plus one full packet's
/// transmission at every hop, plus the flow's bytes with every packet's headers at the
/// path's slowest link.
pub fn ideal_fct(net: &Network, path: &[u32], bytes: u64, frame: u32, header: u32) -> Time {
    let payload = u64::from(frame - header);
    let packets = bytes.div_ceil(payload).max(1);
    let (mut delay, mut tx, mut slowest) = (0u128, 0u128, u64::MAX);
    for &p in path {
        let port = &net.ports[p as usize];
        delay += u128::from(port.to_next_node);
        tx += super::build::frame_time(u64::from(frame), port.rate_bps);
        slowest = slowest.min(port.rate_bps);
    }
    let wire = u64::from(header).saturating_mul(packets).saturating_add(bytes);
    let ideal = 2 * delay + tx + super::build::frame_time(wire, slowest);
    Time::try_from(ideal).unwrap_or(Time::MAX)
}

/// The Poisson arrivals of workload entry `t` (key path `tp`) at the hosts `srcs`:
/// the hosts the arrivals index, the destination pattern, and the arrivals.
fn poisson_arrivals(
    s: &super::Scenario,
    file: &str,
    net: &Network,
    (t, tp): (&Traffic, &str),
    srcs: &[NodeId],
    (sizes, load, fan_in): (&str, f64, Option<u32>),
    budget: &mut Budget,
) -> Result<(Vec<NodeId>, Pattern, Vec<Arrival>), ScenarioError> {
    let err = |key: &str, message: String| ScenarioError::new(file, format!("{tp}.{key}"), message);
    let cdf = distribution(sizes, file, &format!("{tp}.sizes"))?;
    let from = match t.start {
        Start::At(d) => d.0,
        _ => {
            return Err(err(
                "start",
                "a flows workload's arrivals begin at one time; expected a time such as start = \"0s\""
                    .into(),
            ))
        }
    };
    let until = t.stop.map_or(s.duration.0, |d| d.0).min(s.duration.0);
    // The destination pattern: the sources are the hosts of the entry.
    let mut hosts: Vec<NodeId> = srcs.to_vec();
    hosts.dedup();
    let pattern = match t.to.as_str() {
        "uniform" => Pattern::Uniform,
        "permutation" => Pattern::Permutation,
        "incast" => Pattern::Incast { fan_in: fan_in.unwrap_or(1) },
        name => {
            let Some(d) =
                net.node_by_name(name).filter(|&d| net.nodes[d as usize].kind == crate::net::NodeKind::Host)
            else {
                return Err(err(
                    "to",
                    format!(
                        "\"{name}\" is not a host, \"uniform\", \"permutation\" or \"incast\"; expected the \
                         destination pattern of a flows workload: \"uniform\" (each flow to a random other host of \
                         the entry), \"permutation\" (each source to one partner), \"incast\" (events of fan_in \
                         senders to one receiver) or a host (N-to-1 to it)"
                    ),
                ));
            };
            // The incast host receives; it sends nothing.
            hosts.retain(|&h| h != d);
            Pattern::To(d)
        }
    };
    if matches!(pattern, Pattern::Uniform | Pattern::Permutation) && hosts.len() < 2 {
        return Err(err("from", format!("{} host(s); expected at least 2 for \"{}\"", hosts.len(), t.to)));
    }
    if let Pattern::Incast { fan_in } = pattern {
        if fan_in as usize >= hosts.len() {
            return Err(err(
                "fan_in",
                format!(
                    "{fan_in} senders among {} hosts; expected fewer senders than the entry's hosts (a receiver \
                     and fan_in others)",
                    hosts.len()
                ),
            ));
        }
    }
    if hosts.is_empty() {
        return Err(err(
            "from",
            format!("no host other than the destination \"{}\"; expected at least one source", t.to),
        ));
    }
    let line = |h: NodeId| net.first_link_rate(h);
    // Memory, before anything is drawn: the expected number of flows, with room.
    let window = until.saturating_sub(from) as f64;
    // Incast events draw on all the hosts' links together.
    let all_links: u64 = hosts.iter().map(|&h| line(h)).sum();
    let event_gap = |fan_in: u32| mean_gap(cdf.mean() * f64::from(fan_in), load, all_links);
    let expected: f64 = match pattern {
        Pattern::Incast { fan_in } => window / event_gap(fan_in) * f64::from(fan_in),
        _ => hosts.iter().map(|&h| window / mean_gap(cdf.mean(), load, line(h))).sum(),
    };
    let bound = (expected * 1.1 + 1000.0).min(u64::MAX as f64) as u64;
    if bound > MAX_WORKLOAD_FLOWS {
        return Err(err(
            "load",
            format!(
                "about {expected:.0} flows would arrive; expected at most {MAX_WORKLOAD_FLOWS}: use a shorter \
                 window (stop), fewer hosts or a lower load"
            ),
        ));
    }
    budget.charge(
        bound.saturating_mul(WORKLOAD_FLOW_BYTES),
        &format!("{tp}.load"),
        &format!("about {expected:.0} workload flows"),
        "to fit, use a shorter window (stop), fewer hosts or a lower load",
    )?;
    let n = hosts.len() as u32;
    let partners = if pattern == Pattern::Permutation {
        let mut rng = RngStream::new(s.seed, StreamKey { kind: "workload-permutation", name: &t.name });
        derangement(n, &mut rng)
    } else {
        Vec::new()
    };
    let mut arrivals: Vec<Arrival> = Vec::new();
    if let Pattern::Incast { fan_in } = pattern {
        let mut rng = RngStream::new(s.seed, StreamKey { kind: "workload-incast", name: &t.name });
        crate::traffic::workload::incast_arrivals(
            n,
            fan_in,
            &cdf,
            event_gap(fan_in),
            (from, until),
            &mut rng,
            &mut arrivals,
        );
        return Ok((hosts, pattern, arrivals));
    }
    for (i, &h) in (0u32..).zip(&hosts) {
        let key = format!("{}/{}", t.name, net.nodes[h as usize].name);
        let mut rng = RngStream::new(s.seed, StreamKey { kind: "workload", name: &key });
        let gap = mean_gap(cdf.mean(), load, line(h));
        let partner = partners.get(i as usize).copied().unwrap_or(0);
        arrivals_at(i, n, pattern, partner, &cdf, gap, (from, until), &mut rng, &mut arrivals);
    }
    Ok((hosts, pattern, arrivals))
}

/// The flows of an HPCC ns-3 fork flow file `name` (workload entry at `tp`), every
/// source among `srcs`: all hosts (which the arrivals index), and the arrivals.
fn file_arrivals(
    file: &str,
    net: &Network,
    tp: &str,
    srcs: &[NodeId],
    name: &str,
    budget: &mut Budget,
) -> Result<(Vec<NodeId>, Pattern, Vec<Arrival>), ScenarioError> {
    let key = format!("{tp}.file");
    let (path, text) = read_beside(name, file, MAX_INPUT_BYTES).map_err(|why| {
        ScenarioError::new(file, &key, format!("\"{name}\": {why}; expected an HPCC ns-3 fork flow file"))
    })?;
    let located = |(line, message): super::hpcc::LineError| {
        ScenarioError::new(file, &key, format!("{} line {line}: {message}", path.display()))
    };
    let count = super::hpcc::flow_count(&text).map_err(located)?;
    if count > MAX_WORKLOAD_FLOWS {
        return Err(ScenarioError::new(
            file,
            &key,
            format!("{} lists {count} flows; expected at most {MAX_WORKLOAD_FLOWS}", path.display()),
        ));
    }
    budget.charge(
        count.saturating_mul(WORKLOAD_FLOW_BYTES),
        &key,
        &format!("the {count} flows of {}", path.display()),
        "to fit, use a file of fewer flows",
    )?;
    let listed = super::hpcc::flows(&text).map_err(located)?;
    let hosts = net.hosts();
    let index = |id: u32, what: &str, k: usize| {
        let name = format!("h{id}");
        net.node_by_name(&name).and_then(|n| hosts.binary_search(&n).ok()).map(|i| i as u32).ok_or_else(
            || {
                ScenarioError::new(
                    file,
                    &key,
                    format!(
                        "{} flow {}: {what} {id} is not a host of the topology (no node \"{name}\")",
                        path.display(),
                        k + 1
                    ),
                )
            },
        )
    };
    let mut arrivals = Vec::with_capacity(listed.len());
    for (k, f) in listed.iter().enumerate() {
        let (src, dst) = (index(f.src, "source", k)?, index(f.dst, "destination", k)?);
        if src == dst {
            return Err(ScenarioError::new(
                file,
                &key,
                format!("{} flow {}: from h{} to itself", path.display(), k + 1, f.src),
            ));
        }
        if !srcs.contains(&hosts[src as usize]) {
            return Err(ScenarioError::new(
                file,
                format!("{tp}.from"),
                format!(
                    "{} flow {} starts at h{}, which from does not name; expected from = \"h*\"",
                    path.display(),
                    k + 1,
                    f.src
                ),
            ));
        }
        arrivals.push(Arrival { start: f.start, src, dst, bytes: f.bytes });
    }
    Ok((hosts.to_vec(), Pattern::Uniform, arrivals))
}

/// The flows of workload entry `t` (number `ti`, its key path `tp`) from the hosts
/// `srcs`, in packets of `frame` bytes.
#[allow(clippy::too_many_arguments)]
pub(super) fn add_workload(
    s: &super::Scenario,
    file: &str,
    net: &Network,
    routes: &Routes,
    (t, ti, tp): (&Traffic, usize, &str),
    srcs: &[NodeId],
    frame: u32,
    numbering: Numbering,
    budget: &mut Budget,
) -> Result<Added, ScenarioError> {
    let Source::Flows { arrivals: how, transport, rdma, tcp } = &t.source else {
        unreachable!("a flows entry")
    };
    let err = |key: &str, message: String| ScenarioError::new(file, format!("{tp}.{key}"), message);
    let (hosts, pattern, mut arrivals) = match how {
        Arrivals::Poisson { sizes, load, fan_in } => {
            poisson_arrivals(s, file, net, (t, tp), srcs, (sizes, *load, *fan_in), budget)?
        }
        Arrivals::File(name) => file_arrivals(file, net, tp, srcs, name, budget)?,
    };
    arrivals.sort_by_key(|a| (a.start, a.src));
    let mut added =
        Added { flows: Vec::new(), qps: Vec::new(), connections: Vec::new(), records: Vec::new() };
    let header = match transport {
        Transport::Rdma => crate::l4::rdma::HEADER_BYTES,
        Transport::Tcp => tcp.header.value() as u32,
    };
    for (k, a) in arrivals.iter().enumerate() {
        let src = hosts[a.src as usize];
        let dst = match pattern {
            Pattern::To(d) => d,
            _ => hosts[a.dst as usize],
        };
        let name = format!("{}/{}", t.name, k + 1);
        if !numbering.names.insert(name.clone()) {
            return Err(err(
                "name",
                format!("flow \"{name}\" is defined twice; expected unique traffic names"),
            ));
        }
        let index = numbering.first_flow + added.flows.len() as u32;
        let path = routes.path(net, src, dst, index);
        if path.is_empty() {
            return Err(err(
                "to",
                format!(
                    "\"{}\" is not reachable from \"{}\"; expected hosts connected through switches",
                    net.nodes[dst as usize].name, net.nodes[src as usize].name
                ),
            ));
        }
        let ideal = ideal_fct(net, &path, a.bytes, frame, header);
        let rng = RngStream::new(s.seed, StreamKey { kind: "flow", name: &name });
        let pattern = match transport {
            Transport::Rdma => crate::traffic::Pattern::Saturated,
            Transport::Tcp => crate::traffic::Pattern::Tcp,
        };
        let mut flow = Flow::new(
            name,
            src,
            Destination::Host(dst),
            frame,
            t.priority,
            pattern,
            a.start,
            s.duration.0,
            rng,
        );
        let rate = net.first_link_rate(src);
        flow.line_bps = rate;
        flow.dst_name = net.nodes[dst as usize].name.clone();
        flow.source_queue = 1;
        flow.workload = true;
        flow.ecn = if t.ecn { crate::net::Ecn::Ect0 } else { crate::net::Ecn::NotEct };
        match transport {
            Transport::Rdma => {
                flow.shaper = Some(Box::new(Shaper::new(t.rate_limit.map_or(rate, |r| r.0), 1)));
                flow.qp = numbering.first_qp + added.qps.len() as u32;
                added.qps.push(crate::l4::rdma::Qp::new(rdma, Some(a.bytes), frame));
            }
            Transport::Tcp => {
                if let Some(r) = t.rate_limit {
                    flow.shaper = Some(Box::new(Shaper::new(r.0, 100)));
                }
                flow.tcp = numbering.first_connection + added.connections.len() as u32;
                let app = crate::l4::app::App::Bytes(a.bytes);
                added
                    .connections
                    .push(super::build::tcp_connection(s.seed, &mut flow, tcp, frame, t.ecn, app));
            }
        }
        added.records.push(FctRecord {
            flow: index,
            entry: ti as u32,
            bytes: a.bytes,
            start: a.start,
            ideal,
        });
        added.flows.push(flow);
    }
    Ok(added)
}
