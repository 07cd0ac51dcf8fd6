//! What the rate-controlled RDMA protocols (DCQCN, TIMELY, HPCC) share when installed:
//! their flows must be queue pairs, and each flow has a base RTT and a BDP, from which
//! a `window = "bdp"` sizes the queue pair's window.
//!
//! A flow's base RTT is the HPCC fork's (`third.cc`): twice the path's one-way delay
//! (propagation and processing) plus one full packet's transmission (with its INT
//! header) at every hop; its BDP is its line rate times that. With `base_rtt =
//! "fabric"` every flow takes the largest of both over the protocol's flows (the fork's
//! `GLOBAL_T 1`, `maxRtt`, `maxBdp`).

use super::InstallCx;
use crate::engine::{Time, PS_PER_S};
use crate::l4::rdma::{BaseRtt, Window};
use crate::net::{NodeId, NONE};
use crate::scenario::ScenarioError;
use crate::traffic::Destination;
use crate::wire::int::IntMode;

/// The destination of flow `f`, which must be an RDMA queue pair (`at` is the key
/// that named it).
pub(super) fn queue_pair_destination(cx: &InstallCx, f: u32, at: &str) -> Result<NodeId, ScenarioError> {
    let flow = &cx.flows[f as usize];
    match flow.dst {
        Destination::Host(d) if flow.qp != NONE => Ok(d),
        _ => Err(cx.err(
            at,
            format!(
                "flow {} is not an RDMA queue pair; expected flows of traffic entries with kind = \
                 \"rdma\" or of flows workloads with transport = \"rdma\"",
                flow.name
            ),
        )),
    }
}

/// The base RTT and BDP (bytes) of each of `flows` (queue pairs), whose packets carry
/// an INT header of `int`, as `base` chooses them.
pub(super) fn base_rtts(cx: &InstallCx, flows: &[u32], int: IntMode, base: BaseRtt) -> Vec<(Time, u64)> {
    let own: Vec<(Time, u64)> = flows
        .iter()
        .map(|&f| {
            let flow = &cx.flows[f as usize];
            let Destination::Host(dst) = flow.dst else { return (0, 0) };
            let packet = u64::from(flow.frame_size + int.bytes());
            let (mut delay, mut tx) = (0u128, 0u128);
            for p in cx.routes.path(cx.net, flow.src, dst, f) {
                let port = &cx.net.ports[p as usize];
                delay += u128::from(port.to_next_node);
                tx += crate::scenario::build::frame_time(packet, port.rate_bps);
            }
            let rtt = Time::try_from(2 * delay + tx).unwrap_or(Time::MAX);
            let bdp = u128::from(flow.line_bps) * u128::from(rtt) / 8 / u128::from(PS_PER_S);
            (rtt, u64::try_from(bdp).unwrap_or(u64::MAX))
        })
        .collect();
    match base {
        BaseRtt::Path => own,
        BaseRtt::Fabric => {
            let largest = own.iter().fold((0, 0), |(r, b), &(rtt, bdp)| (r.max(rtt), b.max(bdp)));
            vec![largest; own.len()]
        }
    }
}

/// Gives queue pair `f` the window `window` asks for, from its BDP `bdp` bytes, at its
/// line rate (where it starts); without one the queue pair keeps its own.
pub(super) fn set_window(cx: &mut InstallCx, f: u32, window: Option<Window>, bdp: u64) {
    if window != Some(Window::Bdp) {
        return;
    }
    let flow = &cx.flows[f as usize];
    let (line, frame_size) = (flow.line_bps, flow.frame_size);
    let qp = &mut cx.protocols.rdma[flow.qp as usize];
    qp.bdp_bytes = bdp.max(1);
    qp.scale_window(line, line, frame_size);
}
