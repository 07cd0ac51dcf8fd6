//! Settings that are valid but do nothing in this scenario: said as warnings (on stderr
//! by `validate` and `run`, and in `summary.json`), so that a knob that cannot act is
//! not mistaken for one that makes no difference.

use super::{Scenario, ScenarioError};
use crate::metrics::summary::{FlowRecords, QueueRecords, Summary};
use crate::net::NONE;
use crate::sim::Sim;
use crate::traffic::Destination;

impl<'a> Summary<FlowRecords<'a>, QueueRecords<'a>> {
    /// The summary of a run of scenario `s` (flows' fair rates `fair`, from
    /// [`crate::metrics::maxmin::of_sim`]), with its warnings; the records are made as
    /// they are written.
    pub fn of_run(sim: &'a Sim, fair: &'a [Option<f64>], s: &Scenario) -> Self {
        let warnings =
            warnings(s, sim, "").into_iter().map(|w| format!("{}: {}", w.path, w.message)).collect();
        Summary::with_warnings(sim, fair, &s.name, s.seed, warnings)
    }
}

/// The warnings for scenario `s` (read from `file`), built as `sim`: each located like
/// an error (file, key path, what has no effect and why).
pub fn warnings(s: &Scenario, sim: &Sim, file: &str) -> Vec<ScenarioError> {
    let mut out = Vec::new();
    let net = sim.net();
    // A priority selects a traffic class; with one class per port it selects nothing.
    if net.ports.iter().all(|p| p.classes.count() == 1) {
        for (i, t) in s.traffic.iter().enumerate() {
            if t.priority != 0 {
                out.push(ScenarioError::new(
                    file,
                    format!("traffic[{i}].priority"),
                    format!(
                        "{} has no effect: every port has one traffic class (queues.classes = 1), so every \
                         priority shares one queue; set queues.classes (up to 8) to give priorities queues of their own",
                        t.priority
                    ),
                ));
            }
        }
    }
    // A congestion point on a port no flow crosses never sees a frame.
    let mut crossed = vec![false; net.ports.len()];
    // DCTCP answers marks: without a marking queue on its path it is NewReno.
    let mut dctcp_marked = vec![None; s.traffic.len()];
    // So does DCQCN: a flow whose path never marks never hears a CNP.
    let mut dcqcn_unmarked: Vec<String> = Vec::new();
    let mut dcqcn_flows = 0;
    let marks_at = |p: u32| net.ports[p as usize].classes.queues().any(|q| q.discipline.marks());
    // Workload flows, from their records: their state exists only while they run.
    for e in sim.workload_entries() {
        let dcqcn = matches!(e.recipe.rp, crate::sim::RpRecipe::Dcqcn { .. });
        let records = &sim.workload()[e.first as usize..(e.first + e.count) as usize];
        for (k, r) in (0u32..).zip(records) {
            let mut marks = false;
            for p in sim.routes().path_keyed(net, r.src, r.dst, e.first_key + k) {
                crossed[p as usize] = true;
                marks |= marks_at(p);
            }
            if dcqcn {
                dcqcn_flows += 1;
                if !marks {
                    dcqcn_unmarked.push(format!("{}/{}", e.name, k + 1));
                }
            }
        }
    }
    for (i, f) in sim.flows().iter().enumerate().filter(|(_, f)| !f.workload) {
        match f.dst {
            Destination::Host(dst) => {
                let dctcp = sim.tcp_connection(i as u32).is_some_and(|c| c.sender.cc.dctcp().is_some());
                let mut marks = false;
                for p in sim.routes().path(net, f.src, dst, i as u32) {
                    crossed[p as usize] = true;
                    marks |= marks_at(p);
                }
                if dctcp {
                    // A flow is named "<entry>/<source host>" by the builder.
                    let src = &net.nodes[f.src as usize].name;
                    let of_entry = |t: &super::schema::Traffic| {
                        f.name.len() == t.name.len() + 1 + src.len()
                            && f.name.starts_with(t.name.as_str())
                            && f.name.ends_with(src.as_str())
                    };
                    if let Some(e) = s.traffic.iter().position(of_entry) {
                        *dctcp_marked[e].get_or_insert(false) |= marks;
                    }
                }
                let rp = sim.reaction_points().get(f.rp as usize);
                if matches!(rp, Some(crate::protocol::AnyReactionPoint::Dcqcn(_))) {
                    dcqcn_flows += 1;
                    if !marks {
                        dcqcn_unmarked.push(f.name.clone());
                    }
                }
            }
            Destination::Tree { tree, .. } => {
                for node in 0..net.nodes.len() as u32 {
                    for &p in sim.trees().out_ports(tree, node) {
                        crossed[p as usize] = true;
                    }
                }
            }
            // Frames to random hosts may cross any port: no port is known unused.
            Destination::Uniform { .. } => {
                crossed.fill(true);
                break;
            }
        }
    }
    for (i, marked) in dctcp_marked.iter().enumerate() {
        if *marked == Some(false) {
            out.push(ScenarioError::new(
                file,
                format!("traffic[{i}].tcp.dctcp"),
                "has no effect: no queue on the flows' paths marks CE, so DCTCP never sees a mark and \
                 behaves as NewReno; expected protocols.ecn_threshold (or red with ecn = true) on a port \
                 the flows cross",
            ));
        }
    }
    if let Some(first) = dcqcn_unmarked.first() {
        out.push(ScenarioError::new(
            file,
            "protocols.dcqcn.congestion_points",
            format!(
                "has no effect on {} of the {dcqcn_flows} DCQCN flows (\"{first}\" first): no port on their paths \
                 marks CE, so their reaction points never hear a CNP; expected the ports where they meet \
                 congestion, or \"switches\"",
                dcqcn_unmarked.len()
            ),
        ));
    }
    // RoCEv2 expects a lossless fabric: a saturated source retransmits nothing, a queue
    // pair only what a NAK or its timeout asks for.
    let lossless = s.protocols.pause.as_ref().is_some_and(|p| p.switches.is_some());
    if dcqcn_flows > 0 && !lossless {
        out.push(ScenarioError::new(
            file,
            "protocols.dcqcn",
            "runs without switch flow control: a frame a full queue drops is lost to its flow (a \
             saturated source has no retransmission, an rdma source goes back to it), where RoCEv2 \
             expects a lossless fabric; expected [protocols.pause] with mode = \"pfc\" and a \
             [protocols.pause.switches] table",
        ));
    }
    if !lossless {
        for (i, t) in s.traffic.iter().enumerate() {
            if matches!(t.source, super::schema::Source::Rdma { rdma, .. } if rdma.timeout.is_none()) {
                out.push(ScenarioError::new(
                    file,
                    format!("traffic[{i}].rdma.timeout"),
                    "is absent on a fabric without switch flow control: a lost packet that no later \
                     packet follows (the message's last, or the last before a go-back) is never NAKed, \
                     and its queue pair waits for ever; expected a timeout, e.g. rdma = { timeout = \"1ms\" }, \
                     or [protocols.pause] with a [protocols.pause.switches] table",
                ));
            }
        }
    }
    for (path, name) in named_congestion_points(s) {
        let Some(p) = net.port_by_name(&name) else { continue };
        if net.ports[p as usize].cp != NONE && !crossed[p as usize] {
            out.push(ScenarioError::new(
                file,
                path,
                format!(
                    "\"{name}\" has no effect: no flow crosses that port, so its congestion point never sees a \
                     frame; expected a port on some flow's path"
                ),
            ));
        }
    }
    out
}

/// The ports the protocol tables name one by one in `congestion_points`, with their key
/// paths. A selection such as "switches" puts congestion points on ports no flow may
/// use, knowingly: only a port named by hand is expected to carry traffic.
fn named_congestion_points(s: &Scenario) -> Vec<(String, String)> {
    let Ok(toml::Value::Table(tables)) = toml::Value::try_from(&s.protocols) else { return Vec::new() };
    let mut out = Vec::new();
    for (protocol, table) in &tables {
        let Some(toml::Value::Array(ports)) = table.get("congestion_points") else { continue };
        for (i, port) in ports.iter().enumerate() {
            if let toml::Value::String(name) = port {
                out.push((format!("protocols.{protocol}.congestion_points[{i}]"), name.clone()));
            }
        }
    }
    out
}
