//! Installs PAUSE / PFC (`[protocols.pause]`): the link control on every switch port and
//! its peer when switches send PAUSE, and on each serviced host's port and its peer.

use super::{Install, InstallCx};
use crate::l2::pause::{HostSpec, Pause, PauseParams, PortSpec, Thresholds};
use crate::net::{NodeKind, PortId, NONE};
use crate::protocol::AnyLinkControl;
use crate::scenario::ScenarioError;

impl Install for PauseParams {
    fn install(&self, path: &str, cx: &mut InstallCx) -> Result<(), ScenarioError> {
        cx.validate(path, self)?;
        let net = &*cx.net;
        // Ports concerned: every switch port and its peer when switches send PAUSE, and
        // each serviced host's port and its peer.
        let mut specs: Vec<PortSpec> = Vec::new();
        let mut slot_of = vec![NONE; net.ports.len()];
        let mut add = |p: PortId, counted: bool, specs: &mut Vec<PortSpec>| {
            if slot_of[p as usize] == NONE {
                slot_of[p as usize] = specs.len() as u32;
                specs.push(PortSpec { port: p, rate_bps: net.ports[p as usize].rate_bps, counted: false });
            }
            specs[slot_of[p as usize] as usize].counted |= counted;
            slot_of[p as usize]
        };
        if self.switches.is_some() {
            for (p, port) in net.ports.iter().enumerate() {
                if net.nodes[port.node as usize].kind == NodeKind::Switch {
                    add(p as PortId, true, &mut specs);
                    add(port.peer, false, &mut specs);
                }
            }
        }
        let mut hosts = Vec::new();
        for (i, h) in self.hosts.iter().enumerate() {
            for host in cx.hosts(&h.hosts, &format!("{path}.hosts[{i}].hosts"))? {
                let node = &net.nodes[host as usize];
                if node.ports.len() != 1 {
                    return Err(cx.err(
                        &format!("{path}.hosts[{i}].hosts"),
                        format!(
                            "host \"{}\" has {} links; expected hosts with one link",
                            node.name,
                            node.ports.len()
                        ),
                    ));
                }
                if hosts.iter().any(|s: &HostSpec| s.host == host) {
                    return Err(cx.err(
                        &format!("{path}.hosts[{i}].hosts"),
                        format!(
                            "host \"{}\" is given a service rate twice; expected each host once",
                            node.name
                        ),
                    ));
                }
                let port = node.ports[0];
                let slot = add(port, false, &mut specs);
                add(net.ports[port as usize].peer, false, &mut specs);
                hosts.push(HostSpec {
                    host,
                    slot,
                    rate_bps: h.service_rate.0,
                    capacity: h.input_buffer,
                    thresholds: h.thresholds().map(|(xoff, xon)| Thresholds { xoff, xon }),
                });
            }
        }
        let nodes = net.nodes.len();
        for (p, &slot) in slot_of.iter().enumerate() {
            cx.net.ports[p].link = slot;
        }
        let pause = Pause::new(self, specs, hosts, nodes, cx.timers);
        cx.protocols.link = Some(AnyLinkControl::Pause(pause));
        Ok(())
    }
}
