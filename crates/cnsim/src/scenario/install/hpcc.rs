//! Installs HPCC (`[protocols.hpcc]`): each flow of `flows`, an RDMA queue pair, gets an
//! HPCC sender as its reaction point and collects in-band telemetry, which makes its
//! packets and ACKs [`HEADER_BYTES`] longer on the wire.
//!
//! Each flow's base RTT is the HPCC fork's (`third.cc`): twice the path's one-way delay
//! (propagation and processing) plus one full packet's transmission at every hop; its
//! BDP is its line rate times that. With `base_rtt = "fabric"` every flow takes the
//! largest of both over HPCC's flows (the fork's `GLOBAL_T 1`, `maxRtt`, `maxBdp`).

use super::{Install, InstallCx};
use crate::engine::{Time, PS_PER_S};
use crate::l4::hpcc::{BaseRtt, HpccConfig, HpccWindow, Rp, MAX_HOPS};
use crate::net::{NodeKind, NONE};
use crate::protocol::AnyReactionPoint;
use crate::scenario::ScenarioError;
use crate::traffic::Destination;
use crate::units::Rate;
use crate::wire::int::{IntHop, HEADER_BYTES};

impl Install for HpccConfig {
    fn install(&self, path: &str, cx: &mut InstallCx) -> Result<(), ScenarioError> {
        cx.validate(path, self)?;
        let at = format!("{path}.flows");
        let flows = cx.flows_of(&self.flows, &at)?;
        let mut paths = Vec::with_capacity(flows.len());
        for &f in &flows {
            let flow = &cx.flows[f as usize];
            let dst = match flow.dst {
                Destination::Host(d) if flow.qp != NONE => d,
                _ => {
                    return Err(cx.err(
                        &at,
                        format!(
                            "flow {} is not an RDMA queue pair; expected flows of traffic entries with \
                             kind = \"rdma\"",
                            flow.name
                        ),
                    ))
                }
            };
            let ports = cx.routes.path(cx.net, flow.src, dst, f);
            let mut hops = 0;
            for &p in &ports {
                let port = &cx.net.ports[p as usize];
                if cx.net.nodes[port.node as usize].kind != NodeKind::Switch {
                    continue;
                }
                hops += 1;
                if IntHop::new(0, 0, 0, port.rate_bps, 1).is_none() {
                    return Err(cx.err(
                        &at,
                        format!(
                            "port {} on the path of flow {} runs at {}, which an INT record cannot \
                             name; expected links of 25, 50, 100, 200 or 400 Gbit/s on the paths of \
                             HPCC's flows",
                            cx.net.port_name(p),
                            flow.name,
                            Rate(port.rate_bps)
                        ),
                    ));
                }
            }
            if hops > MAX_HOPS {
                return Err(cx.err(
                    &at,
                    format!(
                        "flow {} crosses {hops} switches; expected at most {MAX_HOPS}, the hops an INT \
                         header holds",
                        flow.name
                    ),
                ));
            }
            let packet = u64::from(flow.frame_size + HEADER_BYTES);
            let (mut delay, mut tx) = (0u128, 0u128);
            for &p in &ports {
                let port = &cx.net.ports[p as usize];
                delay += u128::from(port.to_next_node);
                tx += crate::scenario::build::frame_time(packet, port.rate_bps);
            }
            let rtt = Time::try_from(2 * delay + tx).unwrap_or(Time::MAX);
            let bdp = u128::from(flow.line_bps) * u128::from(rtt) / 8 / u128::from(PS_PER_S);
            paths.push((rtt, u64::try_from(bdp).unwrap_or(u64::MAX)));
        }
        let largest = paths.iter().fold((0, 0), |(r, b), &(rtt, bdp)| (r.max(rtt), b.max(bdp)));
        let params = self.params();
        let floor = format!("{path}.min_rate");
        for (&f, &own) in flows.iter().zip(&paths) {
            cx.check_frame_time(f, self.min_rate.0, &floor)?;
            cx.check_rate_floor(f, self.min_rate.0, &floor)?;
            let (rtt, bdp) = match self.base_rtt {
                BaseRtt::Fabric => largest,
                BaseRtt::Path => own,
            };
            let flow = &cx.flows[f as usize];
            let (line, frame_size) = (flow.line_bps, flow.frame_size);
            let qp = &mut cx.protocols.rdma[flow.qp as usize];
            qp.int_bytes = HEADER_BYTES;
            if self.window == Some(HpccWindow::Bdp) {
                qp.bdp_bytes = bdp.max(1);
                qp.scale_window(line, line, frame_size);
            }
            let rp = Rp::new(&params, line, rtt);
            cx.attach_reaction_point(f, AnyReactionPoint::Hpcc(rp), &at)?;
        }
        if !flows.is_empty() {
            cx.protocols.int_multi = self.int_multi;
        }
        Ok(())
    }
}
