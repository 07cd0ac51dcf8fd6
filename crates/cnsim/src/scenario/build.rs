//! Turns a parsed [`Scenario`] into a runnable [`Sim`], checking everything a parser cannot
//! see: names that must exist, reachability, consistent parameters.

use std::collections::{BTreeMap, HashMap, HashSet};

use super::budget::{
    recorded_bytes, writing_bytes, Budget, Limits, Writers, FAIR_SHARE_HOP_BYTES, FLOW_BYTES, LINK_BYTES,
    LIVE_FRAME_BYTES, NODE_BYTES, ROUTE_ENTRY_BYTES, SUMMARY_FLOW_BYTES,
};
use super::error::{did_you_mean, ScenarioError};
use super::generators::{GenLink, GenNode, Generated};
use super::install::InstallCx;
use super::periodic::{self, Periodic, MAX_SAMPLES};
use super::schema::{
    NodeKindSpec, PeriodDistribution, PortSel, Scenario, SchedulerKind, Source, Start, Topology, Traffic,
};
use super::units::{Duration, Rate, Size, MAX_TIME};
use crate::engine::time::{format_time, frame_time};
use crate::engine::Timers;
use crate::engine::{RngStream, StreamKey, PS_PER_S};
use crate::metrics::recorder::TableShape;
use crate::net::queue::PREALLOC_FRAMES;
use crate::net::reach::{Reach, ReachKey};
use crate::net::routing::connected_through_hosts;
use crate::net::{
    Capacity, LinkLoss, LossSpec, MulticastTrees, Network, NodeId, NodeKind, PortId, Routes, Scheduler,
};
use crate::sim::{Protocols, Recorder, Sim};
use crate::traffic::{Destination, Flow, Pattern, Shaper};

fn capacity(s: Size) -> Capacity {
    match s {
        Size::Frames(n) => Capacity::Frames(n),
        Size::Bytes(b) => Capacity::Bytes(b),
    }
}

/// Matches `name` against a glob with `*` (any run) and `?` (one character), in
/// O(len(pattern) × len(name)) time whatever the number of stars.
pub fn glob_match(pattern: &str, name: &str) -> bool {
    let p: Vec<char> = pattern.chars().collect();
    let n: Vec<char> = name.chars().collect();
    let (mut pi, mut ni) = (0, 0);
    // The last star seen and the name position it currently absorbs up to.
    let mut star: Option<(usize, usize)> = None;
    while ni < n.len() {
        match p.get(pi) {
            Some('*') => {
                star = Some((pi, ni));
                pi += 1;
            }
            Some(&c) if c == '?' || c == n[ni] => {
                pi += 1;
                ni += 1;
            }
            _ => match star {
                // Let the last star absorb one more character and retry.
                Some((sp, sn)) => {
                    star = Some((sp, sn + 1));
                    pi = sp + 1;
                    ni = sn + 1;
                }
                None => return false,
            },
        }
    }
    p[pi..].iter().all(|&c| c == '*')
}

/// The destination that means "a uniformly random other host per frame"; no group may
/// take this name.
pub const UNIFORM: &str = "uniform";

/// Most nodes a topology may have.
pub const MAX_NODES: u64 = 1_000_000;
/// Most unicast forwarding-table entries (switches × hosts, 4 bytes each) a topology may
/// need: 1 GiB of tables.
pub const MAX_ROUTE_ENTRIES: u64 = 1 << 28;

/// Checks the size of what the topology section describes before anything is generated,
/// so that a huge count is a located error rather than exhausted memory.
fn check_topology_size(
    t: &Topology,
    file: &str,
    port_bytes: u64,
    budget: &mut Budget,
    hpcc: Option<(u64, u64, u64)>,
) -> Result<(), ScenarioError> {
    // (nodes, hosts, the key that sets the size, how it is written)
    let mut parts: Vec<(u64, u64, String, String)> = Vec::new();
    let mut links = t.links.len() as u64;
    if let Some((nodes, switches, file_links)) = hpcc {
        links = links.saturating_add(file_links);
        parts.push((
            nodes,
            nodes.saturating_sub(switches),
            "topology.hpcc.file".into(),
            format!("{nodes} nodes of the topology file"),
        ));
    }
    for (name, g) in t.generators() {
        let size = g.size(name);
        links = links.saturating_add(size.links);
        parts.push((size.nodes, size.hosts, size.key, size.what));
    }
    if !t.nodes.is_empty() {
        let hosts = t.nodes.iter().filter(|n| n.kind == NodeKindSpec::Host).count() as u64;
        parts.push((
            t.nodes.len() as u64,
            hosts,
            "topology.nodes".into(),
            format!("{} explicit nodes", t.nodes.len()),
        ));
    }
    let nodes = parts.iter().fold(0u64, |a, p| a.saturating_add(p.0));
    let hosts = parts.iter().fold(0u64, |a, p| a.saturating_add(p.1));
    let (path, what) = parts
        .iter()
        .max_by_key(|p| p.0)
        .map(|p| (p.2.as_str(), p.3.as_str()))
        .unwrap_or(("topology", "the topology"));
    // Forwarding tables have a row per switch (hosts with one link need none).
    let switches = nodes.saturating_sub(hosts);
    let entries = switches.saturating_mul(hosts);
    if nodes <= MAX_NODES && entries <= MAX_ROUTE_ENTRIES {
        let bytes = nodes
            .saturating_mul(NODE_BYTES)
            .saturating_add(links.saturating_mul(LINK_BYTES.saturating_add(2 * port_bytes)));
        budget.charge(
            bytes,
            path,
            &format!("{what}: the topology of {nodes} nodes and {links} links"),
            "to fit, use fewer nodes",
        )?;
        budget.charge(
            entries.saturating_mul(ROUTE_ENTRY_BYTES),
            path,
            &format!("{what}: the forwarding tables ({switches} switches × {hosts} hosts)"),
            "to fit, use fewer hosts or switches",
        )?;
        return Ok(());
    }
    Err(ScenarioError::new(
        file,
        path,
        format!(
            "{what} gives a topology of {nodes} nodes, {hosts} of them hosts; expected at most \
             {MAX_NODES} nodes and at most {MAX_ROUTE_ENTRIES} forwarding-table entries \
             (switches × hosts)"
        ),
    ))
}

/// Expands the topology section into nodes, links and generator-defined groups.
fn expand_topology(s: &Scenario, file: &str, budget: &mut Budget) -> Result<Generated, ScenarioError> {
    let t = &s.topology;
    let present = t.generators();
    let mut names: Vec<&str> = present.iter().map(|(n, _)| *n).collect();
    if t.hpcc.is_some() {
        names.push("hpcc");
    }
    if names.len() > 1 {
        return Err(ScenarioError::new(
            file,
            format!("topology.{}", names[1]),
            format!(
                "more than one topology generator ({}); expected at most one, plus explicit \
                 nodes and links",
                names.join(", ")
            ),
        ));
    }
    for (name, g) in &present {
        g.check()
            .map_err(|(key, message)| ScenarioError::new(file, format!("topology.{name}.{key}"), message))?;
    }
    let host_queue = capacity(s.queues.host_capacity.unwrap_or(s.queues.capacity)).prealloc_frames();
    let port_bytes = 4 * host_queue.max(capacity(s.queues.capacity).prealloc_frames());
    // An HPCC fork topology file: its header sizes it before it is read whole.
    let hpcc = match &t.hpcc {
        None => None,
        Some(h) => {
            let key = "topology.hpcc.file";
            let (path, text) = super::workload::read_beside(&h.file, file, super::workload::MAX_INPUT_BYTES)
                .map_err(|why| {
                    ScenarioError::new(
                        file,
                        key,
                        format!("\"{}\": {why}; expected an HPCC ns-3 fork topology file", h.file),
                    )
                })?;
            let located = |(line, message): super::hpcc::LineError| {
                ScenarioError::new(file, key, format!("{} line {line}: {message}", path.display()))
            };
            let counts = super::hpcc::topology_counts(&text).map_err(located)?;
            Some((path, text, counts))
        }
    };
    check_topology_size(t, file, port_bytes, budget, hpcc.as_ref().map(|h| h.2))?;
    let mut out = present.first().map(|(_, g)| g.generate()).unwrap_or_default();
    if let Some((path, text, _)) = &hpcc {
        out = super::hpcc::topology(text, "topology.hpcc.file").map_err(|(line, message)| {
            ScenarioError::new(
                file,
                "topology.hpcc.file",
                format!("{} line {line}: {message}", path.display()),
            )
        })?;
    }
    for (i, n) in t.nodes.iter().enumerate() {
        out.nodes.push(GenNode {
            name: n.name.clone(),
            kind: n.kind,
            path: format!("topology.nodes[{i}].name"),
            buffer: None,
        });
    }
    for (i, l) in t.links.iter().enumerate() {
        out.links.push(GenLink {
            from: l.from.clone(),
            to: l.to.clone(),
            params: super::schema::LinkParams { rate: l.rate, delay: l.delay },
            path: format!("topology.links[{i}]"),
        });
    }
    // The nodes stay until the flows are built, when the build holds the most (the
    // links are gone by then), so they give back the room their doubling left: 4 100
    // nodes held room for 8 192 on the 4096-sender dumbbell, 0.3 MB of the build's peak.
    out.nodes.shrink_to_fit();
    if out.nodes.is_empty() {
        return Err(ScenarioError::new(
            file,
            "topology",
            "no nodes; expected a generator (star, dumbbell, chain, parking_lot, multilink, fat_tree, clos), a topology file (hpcc) or [[topology.nodes]]",
        ));
    }
    Ok(out)
}

/// Up to six of `names`, quoted, for "expected one of" hints.
pub(crate) fn some_names<'a>(names: impl IntoIterator<Item = &'a str>) -> String {
    let names: Vec<&str> = names.into_iter().collect();
    let mut out = names.iter().take(6).map(|n| format!("\"{n}\"")).collect::<Vec<_>>().join(", ");
    if names.len() > 6 {
        out.push_str(&format!(", … ({} in all)", names.len()));
    }
    out
}

/// One frame of traffic entry `t` (number `ti`) must take at most [`MAX_TIME`] at
/// `rate` (which the key `at` sets), so that no time the simulator forms from frame
/// times can overflow.
pub(crate) fn check_frame_time(
    t: &Traffic,
    ti: usize,
    rate: u64,
    at: &str,
    file: &str,
) -> Result<(), ScenarioError> {
    let ps = frame_time(t.frame_size.value(), rate);
    if ps <= u128::from(MAX_TIME) {
        return Ok(());
    }
    Err(ScenarioError::new(
        file,
        format!("traffic[{ti}].frame_size"),
        format!(
            "\"{}\" frames take {}s each at {} ({at}); expected frames that take at most {} to \
             send at every rate they meet",
            t.frame_size,
            ps / u128::from(PS_PER_S),
            Rate(rate),
            format_time(MAX_TIME)
        ),
    ))
}

/// Builds the simulator for scenario `s` (read from `file`) within the default
/// [`Limits`] (half the machine's memory).
pub fn build(s: &Scenario, file: &str) -> Result<Sim, ScenarioError> {
    build_with(s, file, &Limits::machine_default())
}

/// Builds the simulator for scenario `s` (read from `file`), refusing scenarios that would
/// need more memory than `limits` allow.
pub fn build_with(s: &Scenario, file: &str, limits: &Limits) -> Result<Sim, ScenarioError> {
    match build_until(s, file, limits, &mut || true) {
        Ok(sim) => Ok(sim),
        Err(BuildError::Invalid(e)) => Err(e),
        Err(BuildError::Interrupted) => unreachable!("a build that is never asked to stop finishes"),
    }
}

/// Why a build gave no simulator.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum BuildError {
    /// The scenario is invalid, or needs more than the limits allow.
    Invalid(ScenarioError),
    /// The caller asked to stop.
    Interrupted,
}

impl From<ScenarioError> for BuildError {
    fn from(e: ScenarioError) -> Self {
        BuildError::Invalid(e)
    }
}

/// Steps of building (a node, a link, a flow, a multicast tree's nodes) between two
/// questions whether to stop: each takes well under a microsecond, so a stop request is
/// honoured within milliseconds at any size.
const CHECK_STEPS: u64 = 1 << 14;

/// Asks the caller whether to go on once per [`CHECK_STEPS`] steps.
struct Pace<'a> {
    keep_going: &'a mut dyn FnMut() -> bool,
    steps: u64,
}

impl Pace<'_> {
    /// Counts `steps` more; `Err(Interrupted)` if the caller, asked, says stop.
    fn step(&mut self, steps: u64) -> Result<(), BuildError> {
        self.steps += steps;
        if self.steps < CHECK_STEPS {
            return Ok(());
        }
        self.steps = 0;
        self.check()
    }

    /// Asks now.
    fn check(&mut self) -> Result<(), BuildError> {
        if (self.keep_going)() {
            Ok(())
        } else {
            Err(BuildError::Interrupted)
        }
    }
}

/// [`build_with`], asking `keep_going` every few milliseconds of work whether to go on
/// (a signal handler's flag, say), so that a build of millions of nodes or flows can be
/// stopped as promptly as a run.
pub fn build_until(
    s: &Scenario,
    file: &str,
    limits: &Limits,
    keep_going: &mut dyn FnMut() -> bool,
) -> Result<Sim, BuildError> {
    let mut sim = build_unstarted(s, file, limits, keep_going)?;
    sim.start();
    Ok(*sim)
}

/// The simulators of a run of scenario `s` on `threads` threads (0: as many as
/// [`crate::sim::partition::auto_threads`] picks), one replica per partition of the
/// network (see [`crate::sim::partition`]), each within an equal share of `limits`;
/// with the lookahead of the partition. Refuses, as an error
/// naming `--threads`, a scenario whose features do not partition yet.
#[inline(never)] // the rare path: its replicas would take the sequential run's stack too
pub fn build_partitioned(
    s: &Scenario,
    file: &str,
    limits: &Limits,
    threads: u32,
    keep_going: &mut dyn FnMut() -> bool,
) -> Result<(Vec<Sim>, crate::engine::Time), BuildError> {
    let mut first = None;
    let threads = match threads {
        0 => {
            let sim = *build_unstarted(s, file, limits, keep_going)?;
            let n = crate::sim::partition::auto_threads(sim.net());
            first = Some(sim).filter(|_| n == 1);
            n
        }
        n => n,
    };
    let share = limits.shared_by(threads as usize);
    let mut replicas = Vec::with_capacity(threads as usize);
    let mut partition = None;
    for me in 0..threads {
        let mut sim = match first.take() {
            Some(sim) => sim,
            None => *build_unstarted(s, file, &share, keep_going)?,
        };
        let partition =
            partition.get_or_insert_with(|| crate::sim::partition::Partition::of(sim.net(), threads));
        sim.set_partition(me, partition).map_err(|why| {
            ScenarioError::new(
                file,
                "--threads",
                format!("{threads}: {why}; expected the sequential engine (no --threads) for this scenario"),
            )
        })?;
        sim.start();
        replicas.push(sim);
    }
    let lookahead = partition.map_or(crate::engine::Time::MAX, |p| p.lookahead);
    Ok((replicas, lookahead))
}

/// [`build_until`] without starting the sources, boxed as soon as it is made (a
/// simulator is about 19 KB: returned by value, it took that much more stack in each
/// caller's frame).
pub(crate) fn build_unstarted(
    s: &Scenario,
    file: &str,
    limits: &Limits,
    keep_going: &mut dyn FnMut() -> bool,
) -> Result<Box<Sim>, BuildError> {
    let mut pace = Pace { keep_going, steps: 0 };
    let mut budget = Budget::new(limits, file);
    pace.check()?;
    check_run_keys(s, file)?;
    let mut topo = expand_topology(s, file, &mut budget)?;
    pace.check()?;
    let mut net = add_nodes(s, &topo, &mut pace, file)?;
    let slowest_link = add_links_and_queues(s, &topo, &mut net, &mut pace, &mut budget, file)?;
    // The expanded nodes and links are done with once the ports exist: names are looked
    // up in the network from here on. (On a dumbbell of 4096 senders, they and their
    // names were a sixth of the build's peak.)
    let generated_groups = std::mem::take(&mut topo.groups);
    drop(topo);
    let mut routes =
        Routes::compute_until(&net, s.switches.ecmp, &mut *pace.keep_going).ok_or(BuildError::Interrupted)?;
    routes.set_load_balancing(s.switches.ecmp_seed, s.switches.spray);

    let groups = resolve_groups(s, &generated_groups, &net, file)?;

    let built = add_flows(s, file, &net, &routes, &groups, slowest_link.as_ref(), &mut budget, &mut pace)?;
    let Flows { trees, mut flows, flow_entry, connections, incast, qps, mut workloads } = built;

    let mut protocols = Protocols { tcp: connections, incast, rdma: qps, ..Protocols::default() };
    let mut timers = Timers::new();
    install_protocols(
        s,
        file,
        &mut net,
        &routes,
        &mut flows,
        &flow_entry,
        &mut protocols,
        &mut timers,
        slowest_link,
        &mut workloads,
        &mut pace,
    )?;

    let recorder = make_recorder(s, &mut net, &flows, &mut budget, file)?;
    pace.check()?;
    let mut sim = Box::new(Sim::new(net, routes, trees, flows, protocols, timers, s.duration.0, recorder));
    // The frames held and the workload flows active at once share what memory is left.
    let left = budget.remaining();
    if workloads.is_empty() {
        sim.set_max_live_frames(left / LIVE_FRAME_BYTES);
    } else {
        sim.set_max_live_frames(left / 2 / LIVE_FRAME_BYTES);
        workloads.max_active = (left / 2 / crate::sim::ACTIVE_FLOW_BYTES).max(1);
    }
    sim.set_workloads(workloads);
    pace.check()?;
    Ok(sim)
}

/// The links of the expanded topology with their queues (capacities, classes,
/// scheduler, per-port settings, shared buffers, losses); returns the slowest link's
/// rate and the key that sets it, against which frame sizes are checked.
fn add_links_and_queues(
    s: &Scenario,
    topo: &Generated,
    net: &mut Network,
    pace: &mut Pace,
    budget: &mut Budget,
    file: &str,
) -> Result<Option<(u64, String)>, BuildError> {
    let links = &topo.links;
    let explicit_links_from = links.len() - s.topology.links.len();
    let host_cap = s.queues.host_capacity.unwrap_or(s.queues.capacity);
    // Nodes are numbered in the expanded topology's order; a generated tier may set
    // its switches' buffers.
    let cap_of = |node: NodeId, net: &Network| {
        if let Some(buffer) = topo.nodes[node as usize].buffer {
            capacity(buffer)
        } else if net.nodes[node as usize].kind == NodeKind::Host {
            capacity(host_cap)
        } else {
            capacity(s.queues.capacity)
        }
    };
    // Two ports per link, reserved at once: a doubling table would hold three times
    // the ports' memory while it moves.
    net.ports.reserve_exact(2 * links.len());
    for (i, l) in links.iter().enumerate() {
        pace.step(1)?;
        // Generated links name existing nodes; only explicit ones can name a wrong one.
        let end = |key: &str| {
            if i >= explicit_links_from {
                format!("{}.{key}", l.path)
            } else {
                l.path.clone()
            }
        };
        let a = lookup_node(net, &l.from, &end("from"), file)?;
        let b = lookup_node(net, &l.to, &end("to"), file)?;
        if a == b {
            return Err(BuildError::Invalid(ScenarioError::new(
                file,
                end("to"),
                format!("link from \"{}\" to itself; expected a link between two different nodes", l.from),
            )));
        }
        let (ca, cb) = (cap_of(a, net), cap_of(b, net));
        net.add_link(a, b, l.params.rate.0, l.params.delay.0, ca, cb);
    }
    // The slowest link, against which frame sizes are checked.
    let slowest_link: Option<(u64, String)> =
        links.iter().min_by_key(|l| l.params.rate.0).map(|l| (l.params.rate.0, format!("{}.rate", l.path)));
    if let Some(shared) = s.switches.shared_buffer {
        for n in 0..net.nodes.len() as NodeId {
            if net.nodes[n as usize].kind == NodeKind::Switch {
                net.add_pool(n, capacity(shared));
            }
        }
    }
    pace.check()?;
    net.finalize();
    pace.check()?;
    if s.queues.classes == 0 || s.queues.classes as usize > crate::net::MAX_CLASSES {
        return Err(BuildError::Invalid(ScenarioError::new(
            file,
            "queues.classes",
            format!("{} classes; expected 1 to {}", s.queues.classes, crate::net::MAX_CLASSES),
        )));
    }
    let scheduler = match s.queues.scheduler {
        SchedulerKind::Strict => Scheduler::StrictPriority,
        SchedulerKind::Dwrr => {
            let mut weights = s.queues.weights.clone();
            if weights.is_empty() {
                weights = vec![1; s.queues.classes as usize];
            }
            if weights.len() != s.queues.classes as usize || weights.contains(&0) {
                return Err(BuildError::Invalid(ScenarioError::new(
                    file,
                    "queues.weights",
                    format!("{weights:?}; expected {} positive weights, one per class", s.queues.classes),
                )));
            }
            Scheduler::dwrr(&weights)
        }
    };
    let configure = |port: &mut crate::net::Port, cap: Option<Capacity>| {
        if let Some(cap) = cap {
            port.classes = crate::net::Classes::new(s.queues.classes, cap);
        }
        port.classes.set_scheduler(&scheduler);
        port.classes.occupancy = s.queues.occupancy;
        port.classes.finishing = s.queues.finishing;
    };
    for p in 0..net.ports.len() {
        // Ports were made with one class of the right capacity.
        let cap = (s.queues.classes > 1).then(|| cap_of(net.ports[p].node, net));
        configure(&mut net.ports[p], cap);
    }
    for (i, q) in s.queues.ports.iter().enumerate() {
        let p = find_port(net, &q.port, &format!("queues.ports[{i}].port"), file)?;
        if let Some(cap) = q.capacity {
            configure(&mut net.ports[p as usize], Some(capacity(cap)));
        }
    }
    install_losses(s, net, budget, file)?;
    Ok(slowest_link)
}

/// The multicast groups, by name: the generators' and the `[groups]` table's, each
/// member a host; with the key path that defines each.
type Groups = BTreeMap<String, (Vec<NodeId>, String)>;

/// Resolves the generators' groups and the `[groups]` table against the network.
fn resolve_groups(
    s: &Scenario,
    generated: &[(String, Vec<String>)],
    net: &Network,
    file: &str,
) -> Result<Groups, ScenarioError> {
    let mut groups = Groups::new();
    for (name, members) in generated {
        let ids = members
            .iter()
            .map(|m| lookup_node(net, m, "topology.multilink", file))
            .collect::<Result<Vec<_>, _>>()?;
        groups.insert(name.clone(), (ids, "topology.multilink".into()));
    }
    for (name, members) in &s.groups {
        let path = format!("groups.{name}");
        if net.node_by_name(name).is_some() {
            return Err(ScenarioError::new(
                file,
                &path,
                format!("group \"{name}\" has the name of a node; expected a name no node has"),
            ));
        }
        if name == UNIFORM {
            return Err(ScenarioError::new(
                file,
                &path,
                format!(
                    "\"{UNIFORM}\" is reserved: to = \"{UNIFORM}\" means a random host per frame; \
                     expected another group name"
                ),
            ));
        }
        if name.is_empty() || name.contains(char::is_control) {
            return Err(ScenarioError::new(
                file,
                &path,
                format!("{name:?} is not a group name; expected a non-empty name without control characters"),
            ));
        }
        if members.is_empty() {
            return Err(ScenarioError::new(file, &path, "no members; expected a list of host names"));
        }
        let mut ids = Vec::new();
        for (j, m) in members.iter().enumerate() {
            let mp = format!("{path}[{j}]");
            let id = lookup_node(net, m, &mp, file)?;
            if net.nodes[id as usize].kind != NodeKind::Host {
                return Err(ScenarioError::new(
                    file,
                    &mp,
                    format!("\"{m}\" is a switch; expected a host (group members must be hosts)"),
                ));
            }
            ids.push(id);
        }
        groups.insert(name.clone(), (ids, path));
    }
    Ok(groups)
}

/// What the traffic entries build: a flow per source (of each entry, in order), the
/// multicast trees they use, TCP connections and incast groups.
struct Flows {
    trees: MulticastTrees,
    flows: Vec<Flow>,
    flow_entry: Vec<usize>,
    connections: Vec<crate::l4::tcp::Connection>,
    /// RDMA queue pairs, indexed by `Flow::qp`.
    qps: Vec<crate::l4::rdma::Qp>,
    /// The workloads: their entries, and their arrivals' records.
    workloads: crate::sim::Workloads,
    incast: Vec<crate::l4::app::IncastGroup>,
}

/// The flows of every traffic entry, each key checked where it is given.
#[allow(clippy::too_many_arguments)]
fn add_flows(
    s: &Scenario,
    file: &str,
    net: &Network,
    routes: &Routes,
    groups: &Groups,
    slowest_link: Option<&(u64, String)>,
    budget: &mut Budget,
    pace: &mut Pace,
) -> Result<Flows, BuildError> {
    let err = |path: &str, msg: String| BuildError::Invalid(ScenarioError::new(file, path, msg));
    let lookup = |name: &str, path: &str| lookup_node(net, name, path, file);
    let node_names = || net.nodes.iter().map(|n| n.name.as_str());
    let group_index: HashMap<&str, u32> =
        groups.keys().enumerate().map(|(i, k)| (k.as_str(), i as u32)).collect();

    let mut trees = MulticastTrees::new(net);
    let mut flows: Vec<Flow> = Vec::new();
    let mut flow_entry: Vec<usize> = Vec::new();
    let mut connections: Vec<crate::l4::tcp::Connection> = Vec::new();
    let mut qps: Vec<crate::l4::rdma::Qp> = Vec::new();
    let mut workloads = crate::sim::Workloads::default();
    let mut incast: Vec<crate::l4::app::IncastGroup> = Vec::new();
    let mut incast_entry: Option<usize> = None;
    // Each flow name's hash, to find a name given twice without a copy of every name:
    // a hash seen before is checked against the names of the flows made so far.
    let mut flow_names: HashSet<u64> = HashSet::new();
    let hosts = net.hosts();
    let mut onoff_cycles = 0u64;
    // Sources linked alike reach the same hosts and share one list.
    let mut reach: Option<Reach> = None;
    let mut uniform_lists: HashMap<ReachKey, std::sync::Arc<[NodeId]>> = HashMap::new();
    for (ti, t) in s.traffic.iter().enumerate() {
        let tp = format!("traffic[{ti}]");
        let to: std::sync::Arc<str> = t.to.as_str().into();
        if t.name.is_empty() || t.name.contains(char::is_control) {
            return Err(err(
                &format!("{tp}.name"),
                format!(
                    "{:?} is not a traffic name; expected a non-empty name without control characters",
                    t.name
                ),
            ));
        }
        let size = match t.frame_size {
            Size::Bytes(b) if b > 0 && b <= u32::MAX as u64 => b as u32,
            other => {
                return Err(err(
                    &format!("{tp}.frame_size"),
                    format!(
                        "\"{other}\" is not a frame size; expected a positive size in bytes, e.g. \"1500B\""
                    ),
                ));
            }
        };
        if !t.allow_any_frame_size && !(MIN_FRAME_BYTES..=MAX_FRAME_BYTES).contains(&size) {
            return Err(err(
                &format!("{tp}.frame_size"),
                format!(
                    "\"{}\" is outside Ethernet's frame sizes; expected {MIN_FRAME_BYTES} to \
                     {MAX_FRAME_BYTES} bytes (e.g. \"1500B\"), or allow_any_frame_size = true in \
                     this traffic entry",
                    t.frame_size
                ),
            ));
        }
        if t.priority > 7 {
            return Err(err(
                &format!("{tp}.priority"),
                format!("{} is not a priority; expected 0 to 7 (the IEEE 802.1Q PCP)", t.priority),
            ));
        }
        // Sources.
        let mut srcs: Vec<NodeId> = Vec::new();
        for (k, pat) in t.from.0.iter().enumerate() {
            let fp = if t.from.0.len() == 1 { format!("{tp}.from") } else { format!("{tp}.from[{k}]") };
            if pat.contains(['*', '?']) {
                let matched: Vec<NodeId> =
                    hosts.iter().copied().filter(|&h| glob_match(pat, &net.nodes[h as usize].name)).collect();
                if matched.is_empty() {
                    let names = hosts.iter().map(|&h| net.nodes[h as usize].name.as_str());
                    return Err(err(
                        &fp,
                        format!(
                            "pattern \"{pat}\" matches no host; expected a pattern matching at \
                             least one of the hosts {}",
                            some_names(names)
                        ),
                    ));
                }
                srcs.extend(matched);
            } else {
                let id = lookup(pat, &fp)?;
                if net.nodes[id as usize].kind != NodeKind::Host {
                    return Err(err(
                        &fp,
                        format!("\"{pat}\" is a switch; expected a host (traffic sources must be hosts)"),
                    ));
                }
                srcs.push(id);
            }
        }
        if srcs.is_empty() {
            return Err(err(
                &format!("{tp}.from"),
                "no source hosts; expected a host name, pattern or list".into(),
            ));
        }
        let pattern = match t.source {
            Source::Cbr { rate, jitter } => Pattern::Cbr { rate_bps: rate.0, jitter },
            Source::Poisson { rate } => Pattern::Poisson { rate_bps: rate.0 },
            Source::OnOff { rate, on, off, periods } => Pattern::OnOff {
                rate_bps: rate.0,
                on: on.0,
                off: off.0,
                exponential: periods == PeriodDistribution::Exponential,
            },
            // A queue pair sends as a saturated source whose packets its requester numbers.
            Source::Saturated | Source::Rdma { .. } | Source::Flows { .. } => Pattern::Saturated,
            Source::Tcp { .. } => Pattern::Tcp,
        };
        // One frame must take at most MAX_TIME at every rate it meets, so that no time the
        // simulator forms from frame times can overflow.
        let mut rates: Vec<(u64, String)> = Vec::new();
        if let Some(r) = t.source.rate() {
            rates.push((r.0, format!("{tp}.rate")));
        }
        if let Some(r) = t.rate_limit {
            rates.push((r.0, format!("{tp}.rate_limit")));
        }
        rates.extend(slowest_link.cloned());
        if let Some((rate, at)) = rates.iter().min_by_key(|r| r.0) {
            check_frame_time(t, ti, *rate, at, file)?;
        }
        if matches!(t.source, Source::Flows { .. }) {
            if let Some(other) = (0..s.traffic.len()).find(|&o| o != ti && s.traffic[o].name == t.name) {
                return Err(err(
                    &format!("{tp}.name"),
                    format!(
                        "\"{}\" names traffic[{other}] too; expected unique traffic names (a workload's flows \
                         are named after it)",
                        t.name
                    ),
                ));
            }
            let numbering = super::workload::Numbering {
                flows_before: flows.len() as u32,
                // The number its first flow would have among all flows built at once.
                first_key: (flows.len() + workloads.records.len()) as u32,
                first_record: workloads.records.len() as u32,
            };
            let added = super::workload::add_workload(
                s,
                file,
                net,
                routes,
                (t, ti, &tp),
                &srcs,
                size,
                numbering,
                budget,
            )
            .map_err(BuildError::Invalid)?;
            pace.step(added.records.len() as u64)?;
            workloads.entries.push(added.entry);
            // Exactly: the records are what a workload's memory grows with.
            workloads.records.reserve_exact(added.records.len());
            workloads.records.extend(added.records);
            continue;
        }
        let stop = t.stop.map(|d| d.0).unwrap_or(s.duration.0).min(s.duration.0);
        // Memory, before anything is allocated for these sources.
        let n_srcs = srcs.len() as u64;
        let source_queue = match t.source_queue {
            Size::Frames(n) => n as usize,
            Size::Bytes(b) => (b / u64::from(size)) as usize,
        };
        let limiter_slots = (source_queue as u64).min(PREALLOC_FRAMES);
        let histogram = if s.metrics.delay_percentiles { crate::metrics::delay::HISTOGRAM_BYTES } else { 0 };
        // A source queue slot: a frame id, or an unbuilt frame (birth time, destination).
        let slot_bytes = std::mem::size_of::<(crate::engine::Time, crate::net::NodeId)>() as u64;
        budget.charge(
            n_srcs.saturating_mul(FLOW_BYTES + SUMMARY_FLOW_BYTES + slot_bytes * limiter_slots + histogram),
            &format!("{tp}.from"),
            &format!("{n_srcs} flows"),
            "to fit, use fewer source hosts or a smaller source_queue",
        )?;
        if t.to == UNIFORM {
            // A reference per source, and the components (lists are charged as made).
            let nodes = net.nodes.len() as u64;
            budget.charge(
                (hosts.len() as u64)
                    .saturating_mul(4)
                    .saturating_add(n_srcs.saturating_mul(24))
                    .saturating_add(nodes * 8),
                &format!("{tp}.to"),
                &format!("\"{UNIFORM}\" destinations ({n_srcs} sources, {} hosts)", hosts.len()),
                "to fit, use fewer sources or hosts",
            )?;
        } else if group_index.contains_key(t.to.as_str()) {
            let nodes = net.nodes.len() as u64;
            budget.charge(
                n_srcs.saturating_mul(nodes).saturating_mul(10).saturating_add(nodes * 40),
                &format!("{tp}.to"),
                &format!("multicast trees to \"{}\" ({n_srcs} sources × {nodes} nodes)", t.to),
                "to fit, use fewer sources per group or fewer nodes",
            )?;
        }
        // The hops of this entry's unicast routes, which the summary's max-min fair
        // shares hold.
        let mut route_hops = 0u64;
        // At most a flow per source: reserved, not doubled (thousands of senders).
        flows.reserve(srcs.len());
        flow_entry.reserve(srcs.len());
        for (k, &src) in srcs.iter().enumerate() {
            // A flow, and a multicast tree's search over every node.
            let tree_steps = if group_index.contains_key(t.to.as_str()) { net.nodes.len() as u64 } else { 0 };
            pace.step(1 + tree_steps)?;
            let src_name = net.nodes[src as usize].name.clone();
            let name = format!("{}/{}", t.name, src_name);
            if !flow_names.insert(crate::net::topology::name_hash(&name))
                && flows.iter().any(|f| f.name == name)
            {
                return Err(err(
                    &format!("{tp}.name"),
                    format!(
                        "flow \"{name}\" is defined twice; expected each source host once per traffic entry and unique traffic names"
                    ),
                ));
            }
            if net.nodes[src as usize].ports.is_empty() {
                return Err(err(
                    &format!("{tp}.from"),
                    format!("host \"{src_name}\" has no link; expected a source host with a link"),
                ));
            }
            if matches!(t.source, Source::Tcp { .. } | Source::Rdma { .. })
                && (t.to == UNIFORM || group_index.contains_key(t.to.as_str()))
            {
                return Err(err(
                    &format!("{tp}.to"),
                    format!(
                        "\"{}\" is not one host; expected the one host a {} source connects to",
                        t.to,
                        super::schema::kind_name(t.source.kind())
                    ),
                ));
            }
            let dst = if t.to == UNIFORM {
                let reach = reach.get_or_insert_with(|| Reach::new(net));
                let key = reach.key(net, src);
                let reachable = match uniform_lists.get(&key) {
                    Some(list) => list.clone(),
                    None => {
                        budget.charge(
                            (reach.count_bound(&key) as u64).saturating_mul(4),
                            &format!("{tp}.to"),
                            &format!("a list of the hosts \"{src_name}\" reaches, for \"{UNIFORM}\""),
                            "to fit, use fewer hosts linked to several switches or hosts",
                        )?;
                        let list: std::sync::Arc<[NodeId]> = reach.hosts(&key).into();
                        uniform_lists.insert(key, list.clone());
                        list
                    }
                };
                if reachable.len() < 2 {
                    return Err(err(
                        &format!("{tp}.to"),
                        format!("\"uniform\" from \"{src_name}\": no other host is reachable (disconnected); expected at least one reachable host"),
                    ));
                }
                let own = reachable.binary_search(&src).expect("a host reaches itself") as u32;
                Destination::Uniform { among: reachable, own }
            } else if let Some(&gi) = group_index.get(t.to.as_str()) {
                let members = &groups[&t.to].0;
                if members.iter().all(|&m| m == src) {
                    return Err(err(
                        &format!("{tp}.to"),
                        format!(
                            "group \"{}\" has no member other than the sender \"{src_name}\", so every \
                             frame would be dropped; expected a group with at least one receiver",
                            t.to
                        ),
                    ));
                }
                let tree = trees.tree(net, src, gi, members).map_err(|u| {
                    err(
                        &format!("{tp}.to"),
                        format!(
                            "group \"{}\" member \"{}\" is not reachable from \"{src_name}\" ({}); \
                             expected every member to be reachable through switches",
                            t.to,
                            net.nodes[u.0 as usize].name,
                            unreachable_because(net, src, u.0)
                        ),
                    )
                })?;
                Destination::Tree { tree, group: gi }
            } else {
                let d = net.node_by_name(&t.to).ok_or_else(|| {
                    let cands = node_names().chain(groups.keys().map(String::as_str)).chain(["uniform"]);
                    let hint = did_you_mean(&t.to, cands)
                        .map(|m| format!("; did you mean \"{m}\"?"))
                        .unwrap_or_default();
                    err(
                        &format!("{tp}.to"),
                        format!("\"{}\" is not a host, a group or \"uniform\"{hint}", t.to),
                    )
                })?;
                if net.nodes[d as usize].kind != NodeKind::Host {
                    return Err(err(
                        &format!("{tp}.to"),
                        format!("\"{}\" is a switch; expected a host, a group or \"uniform\"", t.to),
                    ));
                }
                if d == src {
                    return Err(err(
                        &format!("{tp}.to"),
                        format!("\"{}\" sends to itself; expected a destination other than the source", t.to),
                    ));
                }
                let hops = routes.path(net, src, d, 0).len() as u64;
                route_hops += hops;
                if hops == 0 {
                    return Err(err(
                        &format!("{tp}.to"),
                        format!(
                            "\"{}\" is not reachable from \"{src_name}\" ({}); expected a host \
                             connected to the source through switches",
                            t.to,
                            unreachable_because(net, src, d)
                        ),
                    ));
                }
                Destination::Host(d)
            };
            let mut rng = RngStream::new(s.seed, StreamKey { kind: "flow", name: &name });
            let start = match t.start {
                Start::At(d) => d.0,
                Start::Uniform(lo, hi) => {
                    if hi.0 > lo.0 {
                        lo.0 + rng.below(hi.0 - lo.0)
                    } else {
                        lo.0
                    }
                }
                Start::Staggered { first, every } => first.0.saturating_add(every.0.saturating_mul(k as u64)),
            };
            let mut flow = Flow::new(name, src, dst, size, t.priority, pattern.clone(), start, stop, rng);
            if s.metrics.delay_percentiles {
                flow.stats.delay = crate::metrics::delay::DelayStats::with_percentiles();
            }
            let line = net.first_link_rate(src);
            check_source_rate(t, &tp, &src_name, line, file)?;
            if let Pattern::OnOff { on, off, exponential: true, .. } = pattern {
                // Random periods are drawn one by one: bound how many a run may draw.
                let cycles = (stop.saturating_sub(start) / on.saturating_add(off).max(1)).saturating_add(1);
                onoff_cycles = onoff_cycles.saturating_add(cycles);
                if onoff_cycles > MAX_ONOFF_CYCLES {
                    return Err(err(
                        &format!("{tp}.on"),
                        format!(
                            "on = \"{}\" and off = \"{}\" give about {cycles} random on/off cycles per \
                             source over the run ({onoff_cycles} so far in all); expected at most \
                             {MAX_ONOFF_CYCLES} in all: use longer periods, fewer sources, or \
                             periods = \"deterministic\" (computed, not drawn)",
                            Duration(on),
                            Duration(off)
                        ),
                    ));
                }
            }
            flow.source_queue = source_queue;
            flow.dst_name = Some(to.clone());
            flow.line_bps = line;
            flow.ecn = if t.ecn { crate::net::Ecn::Ect0 } else { crate::net::Ecn::NotEct };
            if let Some(r) = t.rate_limit {
                flow.shaper = Some(Box::new(Shaper::new(r.0, source_queue)));
            } else if pattern == Pattern::Saturated {
                flow.shaper = Some(Box::new(Shaper::new(line, source_queue)));
            }
            if let Source::Tcp { bytes, sru, web, tcp } = &t.source {
                let app = match (bytes, sru) {
                    _ if web.is_some() => crate::l4::app::App::Web(web.expect("web")),
                    (_, Some(sru)) => {
                        // One group per traffic entry: its sources serve one client.
                        if incast_entry != Some(ti) {
                            incast_entry = Some(ti);
                            incast.push(Default::default());
                        }
                        let group = incast.len() - 1;
                        incast[group].flows.push(flows.len() as u32);
                        incast[group].waiting += 1;
                        crate::l4::app::App::Incast { sru: sru.value(), group: group as u32 }
                    }
                    (Some(b), None) => crate::l4::app::App::Bytes(b.value()),
                    (None, None) => crate::l4::app::App::Bulk,
                };
                flow.tcp = connections.len() as u32;
                connections.push(crate::sim::tcp_connection(s.seed, &mut flow, tcp, size, t.ecn, app));
            }
            if let Source::Rdma { bytes, rdma } = &t.source {
                flow.qp = qps.len() as u32;
                qps.push(crate::l4::rdma::Qp::new(rdma, bytes.map(Size::value), size));
            }
            flows.push(flow);
            flow_entry.push(ti);
        }
        budget.charge(
            route_hops.saturating_mul(FAIR_SHARE_HOP_BYTES),
            &format!("{tp}.to"),
            &format!("the max-min fair shares in summary.json of {n_srcs} flows over {route_hops} hops"),
            "to fit, use fewer sources or shorter routes",
        )?;
    }

    Ok(Flows { trees, flows, flow_entry, connections, incast, qps, workloads })
}

/// Each configured protocol, from its own table ([`super::schema::Protocols::all`]),
/// installed on the built network and flows.
#[allow(clippy::too_many_arguments)]
fn install_protocols(
    s: &Scenario,
    file: &str,
    net: &mut Network,
    routes: &Routes,
    flows: &mut [Flow],
    flow_entry: &[usize],
    protocols: &mut Protocols,
    timers: &mut Timers<crate::protocol::TimerOwner>,
    slowest_link: Option<(u64, String)>,
    workloads: &mut crate::sim::Workloads,
    pace: &mut Pace,
) -> Result<(), BuildError> {
    let mut cx = InstallCx {
        scenario: s,
        file,
        net,
        routes,
        flows,
        flow_entry,
        protocols,
        timers,
        slowest_link,
        workloads,
    };
    for (path, table) in s.protocols.all() {
        pace.check()?;
        table.install(path, &mut cx)?;
    }
    pace.check()?;

    Ok(())
}

/// The recorder of the run's time series and packet trace, charged to the budget.
fn make_recorder(
    s: &Scenario,
    net: &mut Network,
    flows: &[Flow],
    budget: &mut Budget,
    file: &str,
) -> Result<Recorder, ScenarioError> {
    let queue_ports = select_ports(&s.metrics.queues, net, "metrics.queues", file)?;
    // Workload flows are reported by their completion times, not as series.
    let recordable: Vec<u32> = (0..flows.len() as u32).filter(|&f| !flows[f as usize].workload).collect();
    let flow_ids: Vec<u32> = if s.metrics.flows.records(recordable.len()) { recordable } else { Vec::new() };
    charge_recording(s, net, &queue_ports, flows, &flow_ids, budget)?;
    let mut recorder = Recorder::new(s.metrics.interval.0, net, queue_ports, flows, flow_ids);
    if s.metrics.rates && flows.iter().any(Flow::rp_recorded) {
        recorder.record_reaction_points(flows);
    }
    if let Some(spec) = &s.metrics.pcap {
        recorder.trace = Some(Box::new(pcap_trace(spec, net, s.duration.0, file, budget)?));
    }
    Ok(recorder)
}

/// The keys every run needs: a positive duration and a sampling period the run can
/// afford.
fn check_run_keys(s: &Scenario, file: &str) -> Result<(), ScenarioError> {
    if s.duration.0 == 0 {
        return Err(ScenarioError::new(
            file,
            "duration",
            "\"0s\" is not a duration; expected a positive time, e.g. \"10ms\"",
        ));
    }
    if s.metrics.interval.0 == 0 {
        return Err(ScenarioError::new(
            file,
            "metrics.interval",
            "\"0s\" is not a sampling period; expected a positive time, e.g. \"1ms\"",
        ));
    }
    let sampling = Periodic {
        key: "metrics.interval",
        period: s.metrics.interval,
        shortest: 1.0,
        instances: 1,
        instance: "series",
        firings: "samples",
        limit: MAX_SAMPLES,
    };
    periodic::check(&sampling, s.duration, file)
}

/// The nodes of the expanded topology, each name checked once, indexed by name.
fn add_nodes(s: &Scenario, topo: &Generated, pace: &mut Pace, file: &str) -> Result<Network, BuildError> {
    let mut net = Network::new();
    net.reserve_nodes(topo.nodes.len());
    for n in &topo.nodes {
        pace.step(1)?;
        let path = n.path.as_str();
        if n.name.is_empty()
            || n.name.contains("->")
            || n.name.contains(char::is_whitespace)
            || n.name.contains(char::is_control)
        {
            return Err(BuildError::Invalid(ScenarioError::new(
                file,
                path,
                format!(
                    "{:?} is not a usable node name; expected a non-empty name without spaces, control characters or \"->\"",
                    n.name
                ),
            )));
        }
        if let Some(first) = net.node_by_name(&n.name) {
            return Err(BuildError::Invalid(ScenarioError::new(
                file,
                path,
                format!(
                    "duplicate node name \"{}\" (already defined at {}); expected unique node names",
                    n.name, topo.nodes[first as usize].path
                ),
            )));
        }
        let (kind, processing) = match n.kind {
            NodeKindSpec::Host => (NodeKind::Host, 0),
            NodeKindSpec::Switch => (NodeKind::Switch, s.switches.processing_latency.0),
        };
        let id = net.add_node(&n.name, kind, processing);
        if kind == NodeKind::Switch && s.switches.processing_jitter.0 > 0 {
            let rng = RngStream::new(s.seed, StreamKey { kind: "switch-jitter", name: &n.name });
            net.set_processing_jitter(id, s.switches.processing_jitter.0, rng);
        }
    }
    Ok(net)
}

/// Node `name` of `net`, as the key `path` gives it; an unknown name suggests the
/// closest.
fn lookup_node(net: &Network, name: &str, path: &str, file: &str) -> Result<NodeId, ScenarioError> {
    let node_names = || net.nodes.iter().map(|n| n.name.as_str());
    net.node_by_name(name).ok_or_else(|| {
        let hint = did_you_mean(name, node_names())
            .map(|m| format!("; did you mean \"{m}\"?"))
            .unwrap_or_else(|| format!("; expected one of {}", some_names(node_names())));
        ScenarioError::new(file, path, format!("no node named \"{name}\"{hint}"))
    })
}

/// Charges the time series a run records, and their writing, before the recorder is
/// The packet trace `metrics.pcap` asks for: its ports marked as traced, its size
/// charged to the memory budget (the trace is held until the run's files are written).
fn pcap_trace(
    spec: &crate::metrics::pcap::PcapSpec,
    net: &mut Network,
    end: crate::engine::Time,
    file: &str,
    budget: &mut Budget,
) -> Result<crate::metrics::pcap::Trace, ScenarioError> {
    let err = |path: &str, msg: String| ScenarioError::new(file, path, msg);
    if spec.ports.is_empty() {
        return Err(err(
            "metrics.pcap.ports",
            "[] names no port; expected the ports to trace, e.g. [\"r1->r2\"]".into(),
        ));
    }
    if spec.snaplen < 64 || spec.snaplen > 262_144 {
        return Err(err(
            "metrics.pcap.snaplen",
            format!("{} is not a snap length; expected 64 to 262144 bytes", spec.snaplen),
        ));
    }
    let max_bytes = match spec.max_size {
        Size::Bytes(b) if (1024..=1 << 40).contains(&b) => b,
        other => {
            return Err(err(
                "metrics.pcap.max_size",
                format!("\"{other}\" is not a trace size; expected bytes, from \"1KiB\" to \"1024GiB\", e.g. \"64MiB\""),
            ))
        }
    };
    if spec.stop.is_some_and(|stop| stop.0 <= spec.start.0) {
        return Err(err(
            "metrics.pcap.stop",
            "the trace stops before it starts; expected stop after start".into(),
        ));
    }
    budget.charge(
        max_bytes,
        "metrics.pcap.max_size",
        "the packet trace, held in memory until the run's files are written",
        "to fit, lower metrics.pcap.max_size or trace fewer ports or a shorter window (start, stop)",
    )?;
    let mut ports = Vec::new();
    for (i, name) in spec.ports.iter().enumerate() {
        let p = find_port(net, name, &format!("metrics.pcap.ports[{i}]"), file)?;
        if !ports.iter().any(|(q, _)| *q == p) {
            ports.push((p, name.clone()));
        }
        net.ports[p as usize].traced = true;
    }
    Ok(crate::metrics::pcap::Trace::new(spec, &ports, net.ports.len(), end, max_bytes as usize))
}

/// made: each key's tables (metrics.queues: queue length, average and utilisation;
/// metrics.flows: throughput; metrics.rates: the reaction points'), the key's charge
/// holding the writing of the table that costs the most to write (the writers take one
/// table at a time, after the run). A charge is located at the key that selects the
/// series, or at metrics.interval where their values cost more than the series do.
fn charge_recording(
    s: &Scenario,
    net: &Network,
    queue_ports: &[PortId],
    flows: &[Flow],
    flow_ids: &[u32],
    budget: &mut Budget,
) -> Result<(), ScenarioError> {
    let rates = s.metrics.rates && flows.iter().any(Flow::rp_recorded);
    let shapes = Recorder::shapes(net, queue_ports, flows, flow_ids, rates);
    let samples = s.duration.0 / s.metrics.interval.0 + 2;
    let writers = Writers { parquet: s.metrics.parquet, csv: s.metrics.csv, plots: s.metrics.plots };
    let writing = |t: &TableShape, samples| writing_bytes(t.columns, t.name_bytes, samples, writers);
    let widest =
        (0..shapes.len()).max_by_key(|&i| (writing(&shapes[i], samples), std::cmp::Reverse(i))).unwrap_or(0);
    let outputs: Vec<&str> = [(writers.parquet, "Parquet"), (writers.csv, "CSV"), (writers.plots, "plots")]
        .into_iter()
        .filter_map(|(on, name)| on.then_some(name))
        .collect();
    let groups: [(&str, std::ops::Range<usize>, String, &str); 3] = [
        (
            "metrics.queues",
            0..4,
            format!(
                "the queue lengths and utilisation of the {} ports metrics.queues selects",
                queue_ports.len()
            ),
            "to fit, select fewer ports (metrics.queues = \"none\" or a list of port names), use a longer \
             metrics.interval, or write fewer outputs (metrics.parquet, metrics.csv, metrics.plots = false)",
        ),
        (
            "metrics.flows",
            4..5,
            format!("the throughput of {} flows", flow_ids.len()),
            "to fit, use metrics.flows = false or a longer metrics.interval",
        ),
        (
            "metrics.rates",
            5..7,
            format!("the rates of {} reaction points", shapes[5].columns),
            "to fit, use metrics.rates = false or a longer metrics.interval",
        ),
    ];
    for (key, tables, what, advice) in groups {
        let tables_here = &shapes[tables.clone()];
        let columns: u64 = tables_here.iter().map(|t| t.columns).sum();
        if columns == 0 {
            continue;
        }
        let recorded = |samples| {
            tables_here
                .iter()
                .map(|t| recorded_bytes(t.columns, t.name_bytes, samples))
                .fold(0u64, u64::saturating_add)
        };
        let written = |samples| if tables.contains(&widest) { writing(&shapes[widest], samples) } else { 0 };
        let bytes = recorded(samples).saturating_add(written(samples));
        let fixed = recorded(0).saturating_add(written(0));
        let at = if bytes - fixed > fixed { "metrics.interval" } else { key };
        let how = if written(samples) > 0 && !outputs.is_empty() {
            format!(
                "recorded and written ({}; the largest table {})",
                outputs.join(", "),
                shapes[widest].name
            )
        } else {
            "recorded".to_string()
        };
        budget.charge(
            bytes,
            at,
            &format!(
                "{what}: {columns} series × {samples} samples (one every \"{}\"), {how}",
                s.metrics.interval
            ),
            advice,
        )?;
    }
    Ok(())
}

/// Why host `dst` cannot be reached from `src`, for messages: hosts do not forward, so
/// a destination cut off only by hosts is told apart from a disconnected one.
fn unreachable_because(net: &Network, src: NodeId, dst: NodeId) -> &'static str {
    if connected_through_hosts(net, src, dst) {
        "every path to it passes through another host, and hosts do not forward"
    } else {
        "disconnected destination"
    }
}

/// Smallest Ethernet frame on the wire, bytes (IEEE 802.3 minimum).
pub const MIN_FRAME_BYTES: u32 = 64;
/// Largest frame accepted without `allow_any_frame_size`: a common jumbo-frame limit.
pub const MAX_FRAME_BYTES: u32 = 9216;

/// Most on/off cycles with random periods that a run may draw, over all sources.
pub const MAX_ONOFF_CYCLES: u64 = 100_000_000;
/// How far above its line rate a source may go with `allow_above_line_rate`.
pub const MAX_ABOVE_LINE_RATE: u64 = 1000;

/// A source's rate may not exceed its host's line rate (a faster source only fills its
/// own host queue, at the cost of one event per frame) unless the traffic entry allows it,
/// and then not beyond [`MAX_ABOVE_LINE_RATE`] times the line rate.
fn check_source_rate(t: &Traffic, tp: &str, src: &str, line: u64, file: &str) -> Result<(), ScenarioError> {
    let Some(rate) = t.source.rate() else {
        return Ok(());
    };
    let limit = if t.allow_above_line_rate { line.saturating_mul(MAX_ABOVE_LINE_RATE) } else { line };
    if rate.0 <= limit {
        return Ok(());
    }
    let message = if t.allow_above_line_rate {
        format!(
            "\"{rate}\" is more than {MAX_ABOVE_LINE_RATE} times the line rate {} of \"{src}\"; \
             expected at most \"{}\"",
            Rate(line),
            Rate(limit)
        )
    } else {
        format!(
            "\"{rate}\" is above the line rate {} of \"{src}\" (the rate of its link): such a \
             source only fills its own host queue; expected at most \"{}\", or \
             allow_above_line_rate = true in this traffic entry",
            Rate(line),
            Rate(line)
        )
    };
    Err(ScenarioError::new(file, format!("{tp}.rate"), message))
}

/// The port named `name` ("node->next"), or an error at `path` with the closest name.
/// Gives ports their link loss: `queues.loss` every port, then each `queues.ports[]`
/// entry with a `loss` its own (`0`: none).
fn install_losses(
    s: &Scenario,
    net: &mut Network,
    budget: &mut Budget,
    file: &str,
) -> Result<(), ScenarioError> {
    let check = |spec: &LossSpec, path: &str| {
        spec.validate().map_err(|(key, message)| {
            let at = if key.is_empty() { path.to_string() } else { format!("{path}.{key}") };
            ScenarioError::new(file, at, message)
        })
    };
    let mut chosen: Vec<Option<LossSpec>> = vec![s.queues.loss; net.ports.len()];
    if let Some(spec) = &s.queues.loss {
        check(spec, "queues.loss")?;
    }
    for (i, q) in s.queues.ports.iter().enumerate() {
        if let Some(spec) = &q.loss {
            let path = format!("queues.ports[{i}].loss");
            check(spec, &path)?;
            let p = find_port(net, &q.port, &format!("queues.ports[{i}].port"), file)?;
            chosen[p as usize] = Some(*spec);
        }
    }
    let lossy = chosen.iter().filter(|c| c.is_some_and(|spec| spec.mean_loss() > 0.0)).count() as u64;
    if lossy > 0 {
        let at = if s.queues.loss.is_some() { "queues.loss" } else { "queues.ports" };
        budget.charge(
            lossy.saturating_mul(std::mem::size_of::<LinkLoss>() as u64 + 8),
            at,
            &format!("the loss processes of {lossy} links"),
            "to fit, give fewer links a loss",
        )?;
    }
    for (p, spec) in chosen.into_iter().enumerate() {
        // A process that never loses is no process: the link costs nothing at arrivals.
        if let Some(spec) = spec.filter(|spec| spec.mean_loss() > 0.0) {
            let name = net.port_name(p as PortId);
            net.set_loss(p as PortId, LinkLoss::new(spec, s.seed, &name));
        }
    }
    Ok(())
}

pub(crate) fn find_port(net: &Network, name: &str, path: &str, file: &str) -> Result<PortId, ScenarioError> {
    net.port_by_name(name).ok_or_else(|| {
        let names: Vec<String> = net.port_names().collect();
        let hint = did_you_mean(name, names.iter().map(String::as_str))
            .map(|m| format!("; did you mean \"{m}\"?"))
            .unwrap_or_else(|| {
                let example = names.first().map_or("r1->r2", String::as_str);
                format!("; expected a port named \"node->next\", e.g. \"{example}\"")
            });
        ScenarioError::new(file, path, format!("no port named \"{name}\"{hint}"))
    })
}

/// The ports a selection names (`path` locates it), each once, in selection order.
pub(crate) fn select_ports(
    sel: &PortSel,
    net: &Network,
    path: &str,
    file: &str,
) -> Result<Vec<PortId>, ScenarioError> {
    let all = 0..net.ports.len() as PortId;
    Ok(match sel {
        PortSel::All => all.collect(),
        PortSel::None => Vec::new(),
        PortSel::Switches => {
            all.filter(|&p| net.nodes[net.ports[p as usize].node as usize].kind == NodeKind::Switch).collect()
        }
        PortSel::List(names) => {
            let mut v = Vec::new();
            for (i, n) in names.iter().enumerate() {
                let p = find_port(net, n, &format!("{path}[{i}]"), file)?;
                if !v.contains(&p) {
                    v.push(p);
                }
            }
            v
        }
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn globs() {
        assert!(glob_match("s*", "s12"));
        assert!(glob_match("s?", "s1"));
        assert!(!glob_match("s?", "s12"));
        assert!(glob_match("*", ""));
        assert!(glob_match("R*h1", "R3h1"));
        assert!(!glob_match("d*", "s1"));
        assert!(glob_match("a*b*c", "aXXbYYc"));
        assert!(!glob_match("a*b*c", "aXXbYY"));
        assert!(glob_match("*?", "x"));
        assert!(!glob_match("*?", ""));
        assert!(glob_match("**", "abc"));
        assert!(glob_match("s*1", "s111"));
        assert!(!glob_match("", "a"));
    }

    /// Regression: the recursive matcher took exponential time on patterns with many
    /// stars that almost match.
    #[test]
    fn globs_with_many_stars_take_polynomial_time() {
        let pattern = "*a".repeat(30) + "*";
        let name = "a".repeat(29);
        let t0 = std::time::Instant::now();
        assert!(!glob_match(&pattern, &name));
        assert!(glob_match(&pattern, &"a".repeat(30)));
        assert!(t0.elapsed() < std::time::Duration::from_secs(1));
    }

    const DUMBBELL: &str = r#"
name = "t"
duration = "1ms"
[topology.dumbbell]
senders = 2
sender_link = { rate = "10Gbps", delay = "1us" }
bottleneck = { rate = "10Gbps", delay = "1us" }
receiver_link = { rate = "10Gbps", delay = "1us" }
[[traffic]]
name = "a"
kind = "cbr"
from = "s1"
to = "d1"
rate = "1Gbps"
"#;

    fn try_build(text: &str) -> Result<Sim, ScenarioError> {
        let s = crate::scenario::parse(text, "t.toml", &[])?;
        build(&s, "t.toml")
    }

    fn build_error(text: &str) -> ScenarioError {
        match try_build(text) {
            Ok(_) => panic!("built:\n{text}"),
            Err(e) => e,
        }
    }

    /// Regression: a huge generator count was expanded node by node (and the chain's
    /// host numbering overflowed `u32`) before anything checked the size.
    #[test]
    fn huge_generator_counts_are_errors_not_allocations() {
        let e = build_error(&DUMBBELL.replace("senders = 2", "senders = 4000000000"));
        assert_eq!(e.path, "topology.dumbbell.senders", "{e}");
        let chain = r#"
name = "t"
duration = "1ms"
[topology.chain]
switches = 65536
hosts_per_switch = 65537
host_link = { rate = "1Gbps", delay = "1us" }
trunk = { rate = "1Gbps", delay = "1us" }
"#;
        let e = build_error(chain);
        assert_eq!(e.path, "topology.chain.hosts_per_switch", "{e}");
        assert!(e.message.contains("hosts_per_switch = 65537 gives a topology of 4295098368 nodes"), "{e}");
        // 20 000 switches with 20 hosts each: 8·10⁹ table entries.
        let e = build_error(&chain.replace("65536", "20000").replace("65537", "20"));
        assert_eq!(e.path, "topology.chain.switches", "{e}");
        assert!(e.message.contains("forwarding-table entries"), "{e}");
        // A dumbbell of 20 000 receivers needs only two table rows.
        try_build(&DUMBBELL.replace("senders = 2", "senders = 2\nreceivers = 20000")).unwrap();
    }

    /// Regression: a delay plus a processing latency near `u64::MAX` picoseconds
    /// overflowed while the network was finalized.
    #[test]
    fn longest_times_do_not_overflow() {
        let text = format!(
            "{}\n[switches]\nprocessing_latency = \"86400s\"\n",
            DUMBBELL.replace(
                "bottleneck = { rate = \"10Gbps\", delay = \"1us\" }",
                "bottleneck = { rate = \"10Gbps\", delay = \"86400s\" }"
            )
        );
        let mut sim = try_build(&text).unwrap_or_else(|e| panic!("{e}"));
        sim.run_to_end();
        sim.check_conservation().unwrap();
        let e = build_error(&text.replace("\"86400s\"\n", "\"18446744s\"\n"));
        assert_eq!(e.path, "switches.processing_latency", "{e}");
        assert!(e.message.contains("\"18446744s\" is too long a time"), "{e}");
    }

    /// Regression: a byte counter given in a huge number of frames overflowed when
    /// converted to bytes.
    #[test]
    fn byte_counter_in_frames_saturates() {
        let text = format!(
            "{DUMBBELL}\n[protocols.qcn]\ncongestion_points = \"switches\"\nflows = \"*\"\n[protocols.qcn.rp]\nbyte_counter = \"99999999999999999 frames\"\n"
        );
        let mut sim = try_build(&text).unwrap_or_else(|e| panic!("{e}"));
        sim.run_to_end();
        sim.check_conservation().unwrap();
    }

    /// A frame that would take longer than a day on some link (and so push the
    /// simulator's times towards overflow) is refused where its size is given.
    #[test]
    fn frames_too_slow_to_send_are_errors() {
        let text = DUMBBELL.replace("rate = \"1Gbps\"", "rate = \"1bps\"\nkind = \"poisson\"");
        let text = text.replace("kind = \"cbr\"\n", "");
        // 1500 B at 1 bit/s is 12000 s: allowed.
        let mut sim = try_build(&text).unwrap_or_else(|e| panic!("{e}"));
        sim.run_to_end();
        sim.check_conservation().unwrap();
        let e = build_error(&text.replace(
            "rate = \"1bps\"",
            "rate = \"1bps\"\nframe_size = \"4GB\"\nallow_any_frame_size = true",
        ));
        assert_eq!(e.path, "traffic[0].frame_size", "{e}");
        assert!(e.message.contains("at 1bps (traffic[0].rate)"), "{e}");
    }

    #[test]
    fn jitter_is_bounded() {
        let text = format!("{DUMBBELL}\n[protocols.qcn]\ncongestion_points = \"switches\"\nflows = \"*\"\n[protocols.qcn.rp]\njitter = [1.0, 1e300]\n");
        let e = build_error(&text);
        assert_eq!(e.path, "protocols.qcn.rp.jitter", "{e}");
        let text = text.replace("1e300", "10.0");
        try_build(&text).unwrap_or_else(|e| panic!("{e}"));
    }

    const STAR: &str = r#"
name = "t"
duration = "1ms"
[topology.star]
hosts = ["a", "b", "c"]
link = { rate = "1Gbps", delay = "1us" }
"#;

    /// Regression: a group whose only member is the sender dropped every frame, and those
    /// drops were counted nowhere but the total. Such a group is refused, and every drop
    /// lands in one of three counters whose sum the conservation check verifies.
    #[test]
    fn a_group_of_only_the_sender_is_refused() {
        let text = format!(
            "{STAR}[groups]\nself = [\"a\"]\n[[traffic]]\nname = \"m\"\nkind = \"cbr\"\nfrom = \"a\"\nto = \"self\"\nrate = \"100Mbps\"\n"
        );
        let e = build_error(&text);
        assert_eq!(e.path, "traffic[0].to", "{e}");
        assert!(e.message.contains("no member other than the sender \"a\""), "{e}");
        // With a receiver it runs, and the drop counters add up.
        let mut sim = try_build(&text.replace("self = [\"a\"]", "self = [\"a\", \"b\"]")).unwrap();
        sim.run_to_end();
        sim.check_conservation().unwrap();
        assert!(sim.counters().delivered > 0);
        assert_eq!(sim.counters().dropped_unroutable, 0);
    }

    /// The conservation check catches a drop that is not counted where it happened.
    #[test]
    fn an_unattributed_drop_breaks_conservation() {
        let text = format!(
            "{STAR}[[traffic]]\nname = \"u\"\nkind = \"cbr\"\nfrom = \"a\"\nto = \"b\"\nrate = \"100Mbps\"\n"
        );
        let mut sim = try_build(&text).unwrap();
        sim.run_to_end();
        sim.check_conservation().unwrap();
        sim.counters_mut().dropped_unroutable += 1;
        sim.counters_mut().delivered -= 1;
        let e = sim.check_conservation().unwrap_err();
        assert!(e.contains("drop accounting violated"), "{e}");
    }

    /// Regression: a group named "uniform" was silently shadowed by to = "uniform".
    #[test]
    fn uniform_is_reserved() {
        let e = build_error(&format!("{STAR}[groups]\nuniform = [\"a\", \"b\"]\n"));
        assert_eq!(e.path, "groups.uniform", "{e}");
        assert!(e.message.contains("reserved"), "{e}");
    }

    /// Regression: a source rate had no upper bound (`18446744073709551615bps` never
    /// finished; `100Tbps` into 1 Gbit/s took 33 s for 2 ms). A rate above the host's line
    /// rate needs allow_above_line_rate, and even then at most 1000 times the line rate.
    #[test]
    fn source_rates_are_bounded_by_the_line_rate() {
        let entry = |rate: &str, extra: &str| {
            format!("{STAR}[[traffic]]\nname = \"u\"\nkind = \"cbr\"\nfrom = \"a\"\nto = \"b\"\nrate = \"{rate}\"\n{extra}")
        };
        try_build(&entry("1Gbps", "")).unwrap();
        for rate in ["1.5Gbps", "100Tbps", "18446744073709551615bps"] {
            let e = build_error(&entry(rate, ""));
            assert_eq!(e.path, "traffic[0].rate", "{e}");
            assert!(e.message.contains("above the line rate 1Gbps of \"a\""), "{e}");
            assert!(e.message.contains("allow_above_line_rate = true"), "{e}");
        }
        let allowed = "allow_above_line_rate = true\n";
        let mut sim = try_build(&entry("2Gbps", allowed).replace("\"1ms\"", "\"30ms\"")).unwrap();
        sim.run_to_end();
        sim.check_conservation().unwrap();
        // Twice the line rate for 30 ms: 2500 frames more than the link carries, of which
        // the host's own queue (1000 frames) holds some and drops the rest.
        let dropped = sim.counters().dropped_at_queues;
        assert!((1400..=1600).contains(&dropped), "{dropped}");
        let e = build_error(&entry("1001Gbps", allowed));
        assert!(e.message.contains("more than 1000 times the line rate"), "{e}");
        for (kind, keys) in [("poisson", ""), ("onoff", "on = \"1us\"\noff = \"1us\"\n")] {
            let text = entry("2Gbps", keys).replace("\"cbr\"", &format!("\"{kind}\""));
            assert_eq!(build_error(&text).path, "traffic[0].rate");
        }
    }

    /// Random on/off periods are drawn one by one, so their number is bounded; fixed
    /// periods are computed and may be as short as one likes.
    #[test]
    fn random_on_off_cycles_are_bounded() {
        let entry = |periods: &str| {
            format!(
                "{}[[traffic]]\nname = \"o\"\nkind = \"onoff\"\nfrom = \"a\"\nto = \"b\"\nrate = \"100Mbps\"\non = \"1ps\"\noff = \"1ps\"\nperiods = \"{periods}\"\n",
                STAR.replace("\"1ms\"", "\"10s\"")
            )
        };
        let e = build_error(&entry("exponential"));
        assert_eq!(e.path, "traffic[0].on", "{e}");
        assert!(e.message.contains("random on/off cycles"), "{e}");
        let mut sim = try_build(&entry("deterministic").replace("\"10s\"", "\"1ms\"")).unwrap();
        sim.run_to_end();
        // 100 Mbit/s on half the time for 1 ms: 50 kbit, i.e. 4 or 5 frames of 1500 B.
        let offered = sim.flows()[0].stats.offered_frames;
        assert!((4..=5).contains(&offered), "{offered}");
    }

    /// Uniform destinations: sources that reach the same hosts share one list, and each
    /// draws uniformly among the others, never itself.
    #[test]
    fn uniform_destinations_share_one_list_and_skip_the_source() {
        let text = format!("{STAR}[[traffic]]\nname = \"u\"\nkind = \"poisson\"\nfrom = \"*\"\nto = \"uniform\"\nrate = \"1Mbps\"\n");
        let mut sim = try_build(&text).unwrap();
        let lists: Vec<_> = sim
            .flows()
            .iter()
            .map(|f| match &f.dst {
                Destination::Uniform { among, .. } => among.clone(),
                other => panic!("{other:?}"),
            })
            .collect();
        assert!(lists.windows(2).all(|w| std::sync::Arc::ptr_eq(&w[0], &w[1])));
        let flow = &mut sim.flows_mut()[1];
        let mut counts = [0u32; 3];
        for _ in 0..3000 {
            counts[flow.pick_host().unwrap() as usize - 1] += 1;
        }
        // Hosts a, b, c are nodes 1, 2, 3; flow 1 is b's.
        assert_eq!(counts[1], 0, "{counts:?}");
        assert!((1350..=1650).contains(&counts[0]) && (1350..=1650).contains(&counts[2]), "{counts:?}");
    }

    /// Per-flow series are recorded by default only up to 256 flows; true and false
    /// decide either way.
    #[test]
    fn per_flow_series_are_opt_in_above_256_flows() {
        let hosts: Vec<String> = (0..300).map(|i| format!("\"h{i}\"")).collect();
        let base = format!(
            "name = \"t\"\nduration = \"1ms\"\n[topology.star]\nhosts = [{}]\nlink = {{ rate = \"1Gbps\", delay = \"1us\" }}\n[[traffic]]\nname = \"u\"\nkind = \"poisson\"\nfrom = \"*\"\nto = \"h0\"\nrate = \"1Mbps\"\n",
            hosts.join(", ")
        );
        let columns =
            |text: &str| try_build(text).map(|sim| sim.recorder().throughput.columns.len()).unwrap();
        let few = base.replace("from = \"*\"", "from = \"h1?\"");
        assert_eq!(columns(&few), 10);
        let others = base.replace("from = \"*\"", "from = \"h*\"").replace("to = \"h0\"", "to = \"uniform\"");
        assert_eq!(columns(&others), 0, "300 flows: off by default");
        assert_eq!(columns(&format!("{others}[metrics]\nflows = true\n")), 300);
        assert_eq!(columns(&format!("{few}[metrics]\nflows = false\n")), 0);
        let e = build_error(&format!("{few}[metrics]\nflows = \"sometimes\"\n"));
        assert_eq!(e.path, "metrics.flows", "{e}");
    }

    /// s0 - m - s1 with m a host, a behind m (its one link), c on s0 and b on s1.
    const HOST_BETWEEN_SWITCHES: &str = r#"
name = "t"
duration = "1ms"
[[topology.nodes]]
name = "s0"
kind = "switch"
[[topology.nodes]]
name = "s1"
kind = "switch"
[[topology.nodes]]
name = "m"
kind = "host"
[[topology.nodes]]
name = "a"
kind = "host"
[[topology.nodes]]
name = "b"
kind = "host"
[[topology.nodes]]
name = "c"
kind = "host"
[[topology.links]]
from = "s0"
to = "m"
rate = "1Gbps"
delay = "1us"
[[topology.links]]
from = "m"
to = "s1"
rate = "1Gbps"
delay = "1us"
[[topology.links]]
from = "a"
to = "m"
rate = "1Gbps"
delay = "1us"
[[topology.links]]
from = "s1"
to = "b"
rate = "1Gbps"
delay = "1us"
[[topology.links]]
from = "c"
to = "s0"
rate = "1Gbps"
delay = "1us"
"#;

    /// Regression: a frame from a (whose one link leads to host m) to b was routed on
    /// through m, and m consumed it as if it were b. Hosts never forward: a destination
    /// reached only through another host is refused, saying so; a host's own frames
    /// and frames to it are routed.
    #[test]
    fn hosts_never_forward() {
        let entry = |from: &str, to: &str| {
            format!(
                "{HOST_BETWEEN_SWITCHES}[[traffic]]\nname = \"t\"\nkind = \"cbr\"\nfrom = \"{from}\"\nto = \"{to}\"\nrate = \"100Mbps\"\n"
            )
        };
        for (from, to) in [("a", "b"), ("c", "b"), ("b", "a"), ("a", "c")] {
            let e = build_error(&entry(from, to));
            assert_eq!(e.path, "traffic[0].to", "{e}");
            assert!(
                e.message.contains(&format!(
                    "\"{to}\" is not reachable from \"{from}\" (every path to it passes through another \
                     host, and hosts do not forward)"
                )),
                "{e}"
            );
        }
        for (from, to) in [("m", "b"), ("m", "c"), ("a", "m"), ("b", "m"), ("c", "m")] {
            let mut sim = try_build(&entry(from, to)).unwrap_or_else(|e| panic!("{from} -> {to}: {e}"));
            sim.run_to_end();
            sim.check_conservation().unwrap();
            let hops = if from == "m" || to == "m" && from != "a" { 2 } else { 1 };
            let c = sim.counters();
            // Every frame crosses `hops` links: none was consumed on the way.
            assert!(c.delivered > 0 && c.frame_hops >= hops * c.delivered, "{from} -> {to}: {c:?}");
            assert!(c.frame_hops <= hops * c.created, "{from} -> {to}: {c:?}");
        }
        // Groups and uniform destinations follow the same rule.
        let group = format!("{}[groups]\ng = [\"m\", \"b\"]\n", entry("c", "g"));
        let e = build_error(&group);
        assert!(e.message.contains("member \"b\" is not reachable from \"c\" (every path"), "{e}");
        let uniform = entry("*", "uniform").replace("\"cbr\"", "\"poisson\"");
        let sim = try_build(&uniform).unwrap();
        let among = |f: &Flow| match &f.dst {
            Destination::Uniform { among, .. } => {
                among.iter().map(|&h| sim.net().nodes[h as usize].name.clone()).collect::<Vec<_>>()
            }
            other => panic!("{other:?}"),
        };
        let lists: Vec<Vec<String>> = sim.flows().iter().map(among).collect();
        // Flows in host order m, a, b, c; each list in node order.
        assert_eq!(lists, [vec!["m", "a", "b", "c"], vec!["m", "a"], vec!["m", "b"], vec!["m", "c"]]);
    }

    /// A build asks whether to go on at its start, between phases and every
    /// [`CHECK_STEPS`] nodes, links and flows, and stops at the first "no".
    #[test]
    fn building_asks_whether_to_go_on() {
        let hosts: Vec<String> = (0..20_000).map(|i| format!("\"h{i}\"")).collect();
        let text = format!(
            "{}[[traffic]]\nname = \"u\"\nkind = \"poisson\"\nfrom = \"*\"\nto = \"uniform\"\nrate = \"1Mbps\"\n",
            STAR.replace("\"a\", \"b\", \"c\"", &hosts.join(", "))
        );
        let s = crate::scenario::parse(&text, "t.toml", &[]).unwrap();
        let limits = Limits::machine_default();
        let mut asked = 0;
        let sim = build_until(&s, "t.toml", &limits, &mut || {
            asked += 1;
            true
        });
        assert_eq!(sim.map(|sim| sim.flows().len()).ok(), Some(20_000));
        // 60 001 steps (20 001 nodes, 20 000 links, 20 000 flows): 3 questions, one
        // each 2^14 steps; and 7 between phases (the tables of one switch ask none).
        assert_eq!(asked, 10);
        for stop_at in [1, 5, 10] {
            let mut asked = 0;
            let r = build_until(&s, "t.toml", &limits, &mut || {
                asked += 1;
                asked < stop_at
            });
            assert!(matches!(r, Err(BuildError::Interrupted)), "stop at {stop_at}");
            assert_eq!(asked, stop_at);
        }
    }

    /// Regression: the estimate of the time series counted one value per selected port
    /// and nothing for the writers, so a parking lot of 10^6 routers was estimated at
    /// 1.9 GiB and peaked at 7.5 GB writing its 2·10^6-column tables. Every port's two
    /// series, and the writing of the largest table, are charged at metrics.queues.
    #[test]
    fn recording_and_writing_are_charged_where_selected() {
        let lot = |metrics: &str| {
            format!(
                "name = \"t\"\nduration = \"1ms\"\n[topology.parking_lot]\nrouters = 20000\nhosts_per_router = 0\n\
                 access_link = {{ rate = \"1Gbps\", delay = \"1us\" }}\ntrunk = {{ rate = \"1Gbps\", delay = \"1us\" }}\n\
                 [metrics]\n{metrics}"
            )
        };
        let build = |text: &str| {
            let s = crate::scenario::parse(text, "t.toml", &[]).unwrap();
            build_with(&s, "t.toml", &Limits { max_memory: 128 << 20 })
        };
        // 39 998 ports: about 38 MiB of topology, 15 MiB of series and 126 MiB to
        // write one of the two 39 998-column tables as Parquet.
        let e = build(&lot("")).err().expect("refused");
        assert_eq!(e.path, "metrics.queues", "{e}");
        assert!(
            e.message.contains("of the 39998 ports metrics.queues selects: 79996 series × 3 samples"),
            "{e}"
        );
        assert!(
            e.message.contains("recorded and written (Parquet, plots; the largest table queue_length)"),
            "{e}"
        );
        assert!(e.message.contains("metrics.queues = \"none\""), "{e}");
        // Recorded but not written, or not recorded: it fits.
        build(&lot("parquet = false\nplots = false\n")).unwrap();
        build(&lot("queues = \"none\"\n")).unwrap();
    }

    /// The summary's max-min fair shares hold every unicast route: 4999 flows along a
    /// parking lot of 5000 routers to R0h1 cross 12 507 498 hops (Σ i + 2), 95 MiB,
    /// charged at the entry's destination.
    #[test]
    fn fair_share_routes_are_charged() {
        let text = format!(
            "name = \"t\"\nduration = \"1ms\"\n[topology.parking_lot]\nrouters = 5000\nhosts_per_router = 1\n\
             access_link = {{ rate = \"1Gbps\", delay = \"1us\" }}\ntrunk = {{ rate = \"1Gbps\", delay = \"1us\" }}\n\
             [metrics]\nqueues = \"none\"\n[[traffic]]\nname = \"u\"\nkind = \"poisson\"\nfrom = [{}]\nto = \"R0h1\"\nrate = \"1Mbps\"\n",
            (1..10).map(|d| format!("\"R{d}*\"")).collect::<Vec<_>>().join(", ")
        );
        let s = crate::scenario::parse(&text, "t.toml", &[]).unwrap();
        let e = build_with(&s, "t.toml", &Limits { max_memory: 180 << 20 }).err().expect("refused");
        assert_eq!(e.path, "traffic[0].to", "{e}");
        assert!(e.message.contains("fair shares in summary.json of 4999 flows over 12507498 hops"), "{e}");
        build_with(&s, "t.toml", &Limits { max_memory: 300 << 20 }).unwrap();
    }

    #[test]
    fn sampling_is_bounded() {
        // 1 ms in samples of 99 ps: 10 101 010 samples, more than MAX_SAMPLES.
        let e = build_error(&format!("{DUMBBELL}\n[metrics]\ninterval = \"99ps\"\n"));
        assert_eq!(e.path, "metrics.interval", "{e}");
        assert!(e.message.contains("gives 10101010 samples"), "{e}");
        try_build(&format!("{DUMBBELL}\n[metrics]\ninterval = \"100ps\"\nqueues = []\nflows = false\n"))
            .unwrap_or_else(|e| panic!("{e}"));
    }
}
