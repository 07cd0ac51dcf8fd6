//! Turns a parsed [`Scenario`] into a runnable [`Sim`], checking everything a parser cannot
//! see: names that must exist, reachability, consistent parameters.

use std::collections::{BTreeMap, HashMap, HashSet};

use super::error::{did_you_mean, ScenarioError};
use super::generators::{self, GenLink, GenNode, Generated};
use super::schema::{NodeKindSpec, PeriodDistribution, PortSel, Scenario, Start, TrafficKind};
use super::units::Size;
use crate::engine::{RngStream, StreamKey};
use crate::l2::qcn::{Cp, MulticastScheme, Qcn, Rp};
use crate::metrics::TimeSeries;
use crate::net::{Capacity, MulticastTrees, Network, NodeId, NodeKind, PortId, Routes};
use crate::sim::{Recorder, Sim};
use crate::traffic::{Destination, Flow, Limiter, Pattern};

fn capacity(s: Size) -> Capacity {
    match s {
        Size::Frames(n) => Capacity::Frames(n),
        Size::Bytes(b) => Capacity::Bytes(b),
    }
}

/// Matches `name` against a glob with `*` (any run) and `?` (one character).
pub fn glob_match(pattern: &str, name: &str) -> bool {
    fn rec(p: &[char], n: &[char]) -> bool {
        match (p.first(), n.first()) {
            (None, None) => true,
            (Some('*'), _) => rec(&p[1..], n) || (!n.is_empty() && rec(p, &n[1..])),
            (Some('?'), Some(_)) => rec(&p[1..], &n[1..]),
            (Some(a), Some(b)) if a == b => rec(&p[1..], &n[1..]),
            _ => false,
        }
    }
    let p: Vec<char> = pattern.chars().collect();
    let n: Vec<char> = name.chars().collect();
    rec(&p, &n)
}

/// Expands the topology section into nodes, links and generator-defined groups.
fn expand_topology(s: &Scenario, file: &str) -> Result<Generated, ScenarioError> {
    let t = &s.topology;
    let mut gens: Vec<(&str, Generated)> = Vec::new();
    if let Some(g) = &t.star {
        gens.push(("star", generators::star(g)));
    }
    if let Some(g) = &t.dumbbell {
        gens.push(("dumbbell", generators::dumbbell(g)));
    }
    if let Some(g) = &t.chain {
        if g.switches == 0 {
            return Err(ScenarioError::new(
                file,
                "topology.chain.switches",
                "0 switches; expected at least 1",
            ));
        }
        gens.push(("chain", generators::chain(g)));
    }
    if let Some(g) = &t.parking_lot {
        if g.routers == 0 {
            return Err(ScenarioError::new(
                file,
                "topology.parking_lot.routers",
                "0 routers; expected at least 1",
            ));
        }
        gens.push(("parking_lot", generators::parking_lot(g)));
    }
    if let Some(g) = &t.multilink {
        gens.push(("multilink", generators::multilink(g)));
    }
    if gens.len() > 1 {
        let names: Vec<_> = gens.iter().map(|(n, _)| *n).collect();
        return Err(ScenarioError::new(
            file,
            "topology",
            format!(
                "more than one generator ({}); expected at most one, plus explicit nodes and links",
                names.join(", ")
            ),
        ));
    }
    let mut out = gens.pop().map(|(_, g)| g).unwrap_or_default();
    for n in &t.nodes {
        out.nodes.push(GenNode {
            name: n.name.clone(),
            kind: n.kind,
        });
    }
    for l in &t.links {
        out.links.push(GenLink {
            from: l.from.clone(),
            to: l.to.clone(),
            params: super::schema::LinkParams {
                rate: l.rate,
                delay: l.delay,
            },
        });
    }
    if out.nodes.is_empty() {
        return Err(ScenarioError::new(
            file,
            "topology",
            "no nodes; expected a generator (star, dumbbell, chain, parking_lot, multilink) or [[topology.nodes]]",
        ));
    }
    Ok(out)
}

/// Where in the file a generated or explicit link came from, for messages.
fn link_path(generated: usize, i: usize) -> String {
    if i < generated {
        "topology".into()
    } else {
        format!("topology.links[{}]", i - generated)
    }
}

/// Builds the simulator for scenario `s` (read from `file`).
pub fn build(s: &Scenario, file: &str) -> Result<Sim, ScenarioError> {
    let err = |path: &str, msg: String| ScenarioError::new(file, path, msg);
    if s.duration.0 == 0 {
        return Err(err(
            "duration",
            "\"0s\" is not a duration; expected a positive time, e.g. \"10ms\"".into(),
        ));
    }
    if s.metrics.interval.0 == 0 {
        return Err(err(
            "metrics.interval",
            "\"0s\"; expected a positive sampling period, e.g. \"1ms\"".into(),
        ));
    }
    let topo = expand_topology(s, file)?;
    let explicit_links_from = topo.links.len() - s.topology.links.len();
    let explicit_nodes_from = topo.nodes.len() - s.topology.nodes.len();

    // Nodes.
    let mut net = Network::new();
    let mut by_name: HashMap<&str, NodeId> = HashMap::new();
    for (i, n) in topo.nodes.iter().enumerate() {
        let path = if i >= explicit_nodes_from {
            format!("topology.nodes[{}].name", i - explicit_nodes_from)
        } else {
            "topology".into()
        };
        if n.name.is_empty() || n.name.contains("->") || n.name.contains(char::is_whitespace) {
            return Err(err(&path, format!("\"{}\" is not a usable node name; expected a non-empty name without spaces or \"->\"", n.name)));
        }
        if by_name.contains_key(n.name.as_str()) {
            return Err(err(&path, format!("duplicate node name \"{}\"", n.name)));
        }
        let (kind, processing) = match n.kind {
            NodeKindSpec::Host => (NodeKind::Host, 0),
            NodeKindSpec::Switch => (NodeKind::Switch, s.switches.processing_latency.0),
        };
        let id = net.add_node(&n.name, kind, processing);
        by_name.insert(n.name.as_str(), id);
    }
    let lookup = |name: &str, path: &str| -> Result<NodeId, ScenarioError> {
        by_name.get(name).copied().ok_or_else(|| {
            let hint = did_you_mean(name, by_name.keys().copied())
                .map(|m| format!("; did you mean \"{m}\"?"))
                .unwrap_or_default();
            ScenarioError::new(file, path, format!("no node named \"{name}\"{hint}"))
        })
    };

    // Links and queues.
    let host_cap = s.queues.host_capacity.unwrap_or(s.queues.capacity);
    let cap_of = |node: NodeId, net: &Network| {
        if net.nodes[node as usize].kind == NodeKind::Host {
            capacity(host_cap)
        } else {
            capacity(s.queues.capacity)
        }
    };
    for (i, l) in topo.links.iter().enumerate() {
        let path = link_path(explicit_links_from, i);
        let a = lookup(&l.from, &format!("{path}.from"))?;
        let b = lookup(&l.to, &format!("{path}.to"))?;
        if a == b {
            return Err(err(&path, format!("link from \"{}\" to itself", l.from)));
        }
        let (ca, cb) = (cap_of(a, &net), cap_of(b, &net));
        net.add_link(a, b, l.params.rate.0, l.params.delay.0, ca, cb);
    }
    if let Some(shared) = s.switches.shared_buffer {
        for n in 0..net.nodes.len() as NodeId {
            if net.nodes[n as usize].kind == NodeKind::Switch {
                net.add_pool(n, capacity(shared));
            }
        }
    }
    net.finalize();
    let port_names: Vec<String> = (0..net.ports.len() as PortId)
        .map(|p| net.port_name(p))
        .collect();
    let port_by_name: HashMap<&str, PortId> = port_names
        .iter()
        .enumerate()
        .map(|(i, n)| (n.as_str(), i as PortId))
        .collect();
    let find_port = |name: &str, path: &str| -> Result<PortId, ScenarioError> {
        port_by_name.get(name).copied().ok_or_else(|| {
            let hint = did_you_mean(name, port_names.iter().map(String::as_str))
                .map(|m| format!("; did you mean \"{m}\"?"))
                .unwrap_or_else(|| " (ports are named \"node->next\", e.g. \"r1->r2\")".into());
            ScenarioError::new(file, path, format!("no port named \"{name}\"{hint}"))
        })
    };
    for (i, q) in s.queues.ports.iter().enumerate() {
        let p = find_port(&q.port, &format!("queues.ports[{i}].port"))?;
        net.ports[p as usize].queue = crate::net::EgressQueue::new(capacity(q.capacity));
    }
    let routes = Routes::compute(&net);

    // Multicast groups.
    let mut groups: BTreeMap<String, (Vec<NodeId>, String)> = BTreeMap::new();
    for (name, members) in &topo.groups {
        let ids = members
            .iter()
            .map(|m| lookup(m, "topology"))
            .collect::<Result<Vec<_>, _>>()?;
        groups.insert(name.clone(), (ids, "topology".into()));
    }
    for (name, members) in &s.groups {
        let path = format!("groups.{name}");
        if by_name.contains_key(name.as_str()) {
            return Err(err(
                &path,
                format!("group \"{name}\" has the name of a node; expected a distinct name"),
            ));
        }
        if members.is_empty() {
            return Err(err(
                &path,
                "no members; expected a list of host names".into(),
            ));
        }
        let mut ids = Vec::new();
        for (j, m) in members.iter().enumerate() {
            let mp = format!("{path}[{j}]");
            let id = lookup(m, &mp)?;
            if net.nodes[id as usize].kind != NodeKind::Host {
                return Err(err(
                    &mp,
                    format!("\"{m}\" is a switch; group members must be hosts"),
                ));
            }
            ids.push(id);
        }
        groups.insert(name.clone(), (ids, path));
    }
    let group_index: HashMap<&str, u32> = groups
        .keys()
        .enumerate()
        .map(|(i, k)| (k.as_str(), i as u32))
        .collect();

    // Traffic.
    let mut trees = MulticastTrees::new(&net);
    let mut flows: Vec<Flow> = Vec::new();
    let mut flow_names: HashSet<String> = HashSet::new();
    let hosts = net.hosts();
    for (ti, t) in s.traffic.iter().enumerate() {
        let tp = format!("traffic[{ti}]");
        let size = match t.frame_size {
            Size::Bytes(b) if b > 0 && b <= u32::MAX as u64 => b as u32,
            other => {
                return Err(err(&format!("{tp}.frame_size"), format!("\"{other}\" is not a frame size; expected a positive size in bytes, e.g. \"1500B\"")));
            }
        };
        // Sources.
        let mut srcs: Vec<NodeId> = Vec::new();
        for (k, pat) in t.from.0.iter().enumerate() {
            let fp = if t.from.0.len() == 1 {
                format!("{tp}.from")
            } else {
                format!("{tp}.from[{k}]")
            };
            if pat.contains(['*', '?']) {
                let matched: Vec<NodeId> = hosts
                    .iter()
                    .copied()
                    .filter(|&h| glob_match(pat, &net.nodes[h as usize].name))
                    .collect();
                if matched.is_empty() {
                    return Err(err(&fp, format!("pattern \"{pat}\" matches no host")));
                }
                srcs.extend(matched);
            } else {
                let id = lookup(pat, &fp)?;
                if net.nodes[id as usize].kind != NodeKind::Host {
                    return Err(err(
                        &fp,
                        format!("\"{pat}\" is a switch; traffic sources must be hosts"),
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
        // Pattern.
        let need_rate = || {
            t.rate.map(|r| r.0).ok_or_else(|| {
                err(
                    &format!("{tp}.rate"),
                    format!(
                        "missing; a {} source needs a rate, e.g. rate = \"1Gbps\"",
                        kind_name(t.kind)
                    ),
                )
            })
        };
        let pattern = match t.kind {
            TrafficKind::Cbr => Pattern::Cbr {
                rate_bps: need_rate()?,
            },
            TrafficKind::Poisson => Pattern::Poisson {
                rate_bps: need_rate()?,
            },
            TrafficKind::Onoff => {
                let on = t.on.ok_or_else(|| {
                    err(
                        &format!("{tp}.on"),
                        "missing; an onoff source needs on = \"<time>\"".into(),
                    )
                })?;
                let off = t.off.ok_or_else(|| {
                    err(
                        &format!("{tp}.off"),
                        "missing; an onoff source needs off = \"<time>\"".into(),
                    )
                })?;
                if on.0 == 0 {
                    return Err(err(
                        &format!("{tp}.on"),
                        "\"0s\"; expected a positive on-period".into(),
                    ));
                }
                Pattern::OnOff {
                    rate_bps: need_rate()?,
                    on: on.0,
                    off: off.0,
                    exponential: t.periods == PeriodDistribution::Exponential,
                }
            }
            TrafficKind::Saturated => {
                if t.rate.is_some() {
                    return Err(err(
                        &format!("{tp}.rate"),
                        "a saturated source has no rate of its own; use rate_limit to cap it"
                            .into(),
                    ));
                }
                Pattern::Saturated
            }
        };
        let stop = t
            .stop
            .map(|d| d.0)
            .unwrap_or(s.duration.0)
            .min(s.duration.0);
        for &src in &srcs {
            let src_name = net.nodes[src as usize].name.clone();
            let name = format!("{}/{}", t.name, src_name);
            if !flow_names.insert(name.clone()) {
                return Err(err(
                    &format!("{tp}.name"),
                    format!(
                        "flow \"{name}\" is defined twice; traffic names must be unique per source"
                    ),
                ));
            }
            if net.nodes[src as usize].ports.is_empty() {
                return Err(err(
                    &format!("{tp}.from"),
                    format!("host \"{src_name}\" has no link"),
                ));
            }
            let dst = if t.to == "uniform" {
                let among: Vec<NodeId> = hosts
                    .iter()
                    .copied()
                    .filter(|&h| h != src && routes.hops(src, h) != u32::MAX)
                    .collect();
                if among.is_empty() {
                    return Err(err(
                        &format!("{tp}.to"),
                        format!("\"uniform\" from \"{src_name}\": no other host is reachable"),
                    ));
                }
                Destination::Uniform(among)
            } else if let Some(&gi) = group_index.get(t.to.as_str()) {
                let members = &groups[&t.to].0;
                let tree = trees.tree(&net, src, gi, members).map_err(|u| {
                    err(
                        &format!("{tp}.to"),
                        format!(
                            "group \"{}\" member \"{}\" is not reachable from \"{src_name}\"",
                            t.to, net.nodes[u.0 as usize].name
                        ),
                    )
                })?;
                Destination::Tree { tree, group: gi }
            } else {
                let d = by_name.get(t.to.as_str()).copied().ok_or_else(|| {
                    let cands = by_name
                        .keys()
                        .copied()
                        .chain(group_index.keys().copied())
                        .chain(["uniform"]);
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
                        format!(
                            "\"{}\" is a switch; expected a host, a group or \"uniform\"",
                            t.to
                        ),
                    ));
                }
                if d == src {
                    return Err(err(
                        &format!("{tp}.to"),
                        format!("\"{}\" sends to itself", t.to),
                    ));
                }
                if routes.hops(src, d) == u32::MAX {
                    return Err(err(&format!("{tp}.to"), format!("\"{}\" is not reachable from \"{src_name}\" (disconnected destination)", t.to)));
                }
                Destination::Host(d)
            };
            let mut rng = RngStream::new(
                s.seed,
                StreamKey {
                    kind: "flow",
                    name: &name,
                },
            );
            let start = match t.start {
                Start::At(d) => d.0,
                Start::Uniform(lo, hi) => {
                    if hi.0 > lo.0 {
                        lo.0 + rng.below(hi.0 - lo.0)
                    } else {
                        lo.0
                    }
                }
            };
            let mut flow = Flow::new(
                name,
                src,
                dst,
                size,
                t.priority,
                pattern.clone(),
                start,
                stop,
                rng,
            );
            let source_queue = match t.source_queue {
                Size::Frames(n) => n as usize,
                Size::Bytes(b) => (b / size as u64) as usize,
            };
            let line = net.ports[net.nodes[src as usize].ports[0] as usize].rate_bps;
            flow.source_queue = source_queue;
            if let Some(r) = t.rate_limit {
                flow.limiter = Some(Limiter::new(r.0, source_queue));
            } else if pattern == Pattern::Saturated {
                flow.limiter = Some(Limiter::new(line, source_queue));
            }
            flows.push(flow);
        }
    }

    // QCN.
    let mut qcn = Qcn::disabled();
    if let Some(q) = s.protocols.qcn.as_ref().filter(|q| q.enabled) {
        let qp = "protocols.qcn";
        if q.cp.w < 0.0 || !q.cp.w.is_finite() {
            return Err(err(
                &format!("{qp}.cp.w"),
                format!("{}; expected a non-negative weight", q.cp.w),
            ));
        }
        if q.cp.qeq.value() == 0 {
            return Err(err(
                &format!("{qp}.cp.qeq"),
                format!("\"{}\"; expected a positive set point", q.cp.qeq),
            ));
        }
        if q.cp.sample_table.is_empty() || q.cp.sample_table.len() > 8 {
            return Err(err(
                &format!("{qp}.cp.sample_table"),
                format!(
                    "{} entries; expected 1 to 8 byte intervals",
                    q.cp.sample_table.len()
                ),
            ));
        }
        for (i, e) in q.cp.sample_table.iter().enumerate() {
            if !matches!(e, Size::Bytes(b) if *b > 0) {
                return Err(err(
                    &format!("{qp}.cp.sample_table[{i}]"),
                    format!("\"{e}\"; expected a positive size in bytes"),
                ));
            }
        }
        for (path, [lo, hi]) in [("cp.jitter", q.cp.jitter), ("rp.jitter", q.rp.jitter)] {
            if !(lo > 0.0 && lo <= hi && hi.is_finite()) {
                return Err(err(
                    &format!("{qp}.{path}"),
                    format!("[{lo}, {hi}]; expected [low, high] with 0 < low ≤ high"),
                ));
            }
        }
        if !(q.rp.gd > 0.0 && q.rp.gd * 63.0 <= 1.0) {
            return Err(err(
                &format!("{qp}.rp.gd"),
                format!(
                    "{}; expected 0 < Gd ≤ 1/63 so that a cut never exceeds the rate",
                    q.rp.gd
                ),
            ));
        }
        if !(0.0..=1.0).contains(&q.rp.min_dec_factor) {
            return Err(err(
                &format!("{qp}.rp.min_dec_factor"),
                format!("{}; expected a factor in [0, 1]", q.rp.min_dec_factor),
            ));
        }
        if q.rp.timer.0 == 0 {
            return Err(err(
                &format!("{qp}.rp.timer"),
                "\"0s\"; expected a positive timer period".into(),
            ));
        }
        if q.rp.byte_counter.bytes(1500) == 0 {
            return Err(err(
                &format!("{qp}.rp.byte_counter"),
                "zero; expected a positive byte count".into(),
            ));
        }
        qcn.scheme = q.multicast;
        qcn.cnm_size = match q.cnm_size {
            Size::Bytes(b) if b > 0 && b <= u32::MAX as u64 => b as u32,
            other => {
                return Err(err(
                    &format!("{qp}.cnm_size"),
                    format!("\"{other}\"; expected a positive size in bytes"),
                ))
            }
        };
        qcn.cnm_priority = q.cnm_priority;
        let cp_ports: Vec<PortId> = select_ports(
            &q.congestion_points,
            &net,
            &format!("{qp}.congestion_points"),
            &find_port,
        )?;
        for p in cp_ports {
            let cpid = p + 1;
            let name = &port_names[p as usize];
            let rng = RngStream::new(s.seed, StreamKey { kind: "cp", name });
            net.ports[p as usize].cp = qcn.cps.len() as u32;
            qcn.cps.push(Cp::new(&q.cp, cpid, rng));
        }
        for (fi, flow) in flows.iter_mut().enumerate() {
            let line = net.ports[net.nodes[flow.src as usize].ports[0] as usize].rate_bps;
            let multicast = matches!(flow.dst, Destination::Tree { .. });
            let scheme = if multicast {
                q.multicast
            } else {
                MulticastScheme::Standard
            };
            let rng = RngStream::new(
                s.seed,
                StreamKey {
                    kind: "rp",
                    name: &flow.name,
                },
            );
            let rp = Rp::new(&q.rp, scheme, line, rng);
            let start_rate = rp.current_rate();
            flow.limiter = Some(Limiter::new(start_rate, flow.source_queue));
            flow.rp = fi as u32;
            qcn.rps.push(rp);
        }
    }

    // Recording.
    let queue_ports = select_ports(&s.metrics.queues, &net, "metrics.queues", &find_port)?;
    let flow_ids: Vec<u32> = if s.metrics.flows {
        (0..flows.len() as u32).collect()
    } else {
        Vec::new()
    };
    let mut recorder = Recorder::new(s.metrics.interval.0, &net, queue_ports, &flows, flow_ids);
    if s.metrics.rates && !qcn.rps.is_empty() {
        recorder.rates = TimeSeries::new("rp_rate", "bit/s", flows.iter().map(|f| f.name.clone()));
    }
    let mut sim = Sim::new(net, routes, trees, flows, qcn, s.duration.0, recorder);
    sim.start();
    Ok(sim)
}

fn kind_name(k: TrafficKind) -> &'static str {
    match k {
        TrafficKind::Cbr => "cbr",
        TrafficKind::Onoff => "onoff",
        TrafficKind::Poisson => "poisson",
        TrafficKind::Saturated => "saturated",
    }
}

fn select_ports(
    sel: &PortSel,
    net: &Network,
    path: &str,
    find_port: &dyn Fn(&str, &str) -> Result<PortId, ScenarioError>,
) -> Result<Vec<PortId>, ScenarioError> {
    let all = 0..net.ports.len() as PortId;
    Ok(match sel {
        PortSel::All => all.collect(),
        PortSel::None => Vec::new(),
        PortSel::Switches => all
            .filter(|&p| net.nodes[net.ports[p as usize].node as usize].kind == NodeKind::Switch)
            .collect(),
        PortSel::List(names) => {
            let mut v = Vec::new();
            for (i, n) in names.iter().enumerate() {
                let p = find_port(n, &format!("{path}[{i}]"))?;
                if !v.contains(&p) {
                    v.push(p);
                }
            }
            v
        }
    })
}

/// Ports whose queue is sampled (exposed for reports).
pub fn port_names(net: &Network) -> Vec<String> {
    (0..net.ports.len() as PortId)
        .map(|p| net.port_name(p))
        .collect()
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
    }
}
