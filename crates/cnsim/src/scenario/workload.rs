//! Building a `kind = "flows"` traffic entry: its arrivals are drawn when the scenario
//! is built, from each source's own stream, each checked and recorded with its ideal
//! completion time; each becomes a finite flow of its own (an RDMA queue pair or a TCP
//! connection) only when it starts (see [`crate::sim::Workloads`]).

use std::path::{Path, PathBuf};

use super::budget::Budget;
use super::error::ScenarioError;
use super::schema::{Arrivals, Source, Start, Traffic, Transport};
use crate::engine::{RngStream, StreamKey};
use crate::metrics::fct::FctRecord;
use crate::net::{Network, NodeId, Routes};
use crate::sim::{BaseRttRecipe, Recipe, RpRecipe, WorkloadEntry};
use crate::traffic::workload::{arrivals_at, derangement, mean_gap, Arrival, Cdf, Pattern, MAX_CDF_BYTES};

/// Memory of one arrival: its record, and while the scenario is built the draw it is
/// made from, three times over (the draws' list grows by doubling, and sorting them
/// takes half as much again).
pub const WORKLOAD_FLOW_BYTES: u64 = crate::sim::ARRIVAL_BYTES + 3 * std::mem::size_of::<Arrival>() as u64;

/// Most flows one scenario's workloads may draw.
pub const MAX_WORKLOAD_FLOWS: u64 = 50_000_000;

/// What a workload entry adds to the scenario.
pub(super) struct Added {
    /// The entry at run time.
    pub(crate) entry: WorkloadEntry,
    /// Its arrivals' records, in start order.
    pub(crate) records: Vec<FctRecord>,
}

/// Where a workload's flows stand among the scenario's.
pub(super) struct Numbering {
    /// The flows of the other kinds before it.
    pub(crate) flows_before: u32,
    /// The ECMP key of its first flow: the number it would have among all flows.
    pub(crate) first_key: u32,
    /// The index of its first record.
    pub(crate) first_record: u32,
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
    let header = match transport {
        Transport::Rdma => crate::l4::rdma::HEADER_BYTES,
        Transport::Tcp => tcp.header.value() as u32,
    };
    let mut records = Vec::with_capacity(arrivals.len());
    for (k, a) in (0u32..).zip(&arrivals) {
        let src = hosts[a.src as usize];
        let dst = match pattern {
            Pattern::To(d) => d,
            _ => hosts[a.dst as usize],
        };
        let path = routes.path_keyed(net, src, dst, numbering.first_key + k);
        if path.is_empty() {
            return Err(err(
                "to",
                format!(
                    "\"{}\" is not reachable from \"{}\"; expected hosts connected through switches",
                    net.nodes[dst as usize].name, net.nodes[src as usize].name
                ),
            ));
        }
        let ideal = crate::sim::ideal_fct(net, &path, a.bytes, frame, header);
        records.push(FctRecord {
            entry: ti as u32,
            src,
            dst,
            bytes: a.bytes,
            start: a.start,
            ideal,
            fct_s: None,
        });
    }
    let recipe = Recipe {
        frame,
        priority: t.priority,
        ecn: t.ecn,
        rate_limit: t.rate_limit.map(|r| r.0),
        stop: s.duration.0,
        seed: s.seed,
        transport: match transport {
            Transport::Rdma => crate::sim::Transport::Rdma(*rdma),
            Transport::Tcp => crate::sim::Transport::Tcp(*tcp),
        },
        rp: RpRecipe::None,
        np: None,
        int: crate::wire::int::IntMode::None,
        window: None,
        base_rtt: BaseRttRecipe::Path,
    };
    let count = u32::try_from(records.len()).map_err(|_| err("load", "too many flows".into()))?;
    let entry = WorkloadEntry::new(
        t.name.clone(),
        ti as u32,
        (numbering.first_record, count),
        (numbering.flows_before, numbering.first_key),
        recipe,
    );
    Ok(Added { entry, records })
}
