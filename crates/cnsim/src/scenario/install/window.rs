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
use crate::engine::Time;
use crate::l4::rdma::{BaseRtt, Window};
use crate::net::{NodeId, NONE};
use crate::scenario::ScenarioError;
use crate::sim::{BaseRttRecipe, Transport};
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

/// Workload `w`'s flows must be queue pairs (`at` is the key that named it).
pub(super) fn queue_pair_workload(cx: &InstallCx, w: usize, at: &str) -> Result<(), ScenarioError> {
    let e = &cx.workloads.entries[w];
    match e.recipe.transport {
        Transport::Rdma(_) => Ok(()),
        Transport::Tcp(_) => Err(cx.err(
            at,
            format!(
                "the flows of {} are TCP connections, not RDMA queue pairs; expected flows of traffic entries \
                 with kind = \"rdma\" or of flows workloads with transport = \"rdma\"",
                e.name
            ),
        )),
    }
}

/// The base RTT and BDP (bytes) of each of `flows` (queue pairs), and the base RTT of
/// the flows of `workloads` (queue pairs), whose packets carry an INT header of `int`,
/// as `base` chooses them.
pub(super) fn base_rtts(
    cx: &InstallCx,
    (flows, workloads): (&[u32], &[usize]),
    int: IntMode,
    base: BaseRtt,
) -> (Vec<(Time, u64)>, BaseRttRecipe) {
    let own: Vec<(Time, u64)> = flows
        .iter()
        .map(|&f| {
            let flow = &cx.flows[f as usize];
            let Destination::Host(dst) = flow.dst else { return (0, 0) };
            let path = cx.routes.path(cx.net, flow.src, dst, f);
            crate::sim::base_rtt(cx.net, &path, u64::from(flow.frame_size + int.bytes()), flow.line_bps)
        })
        .collect();
    match base {
        BaseRtt::Path => (own, BaseRttRecipe::Path),
        BaseRtt::Fabric => {
            let mut largest = own.iter().fold((0, 0), |(r, b), &(rtt, bdp)| (r.max(rtt), b.max(bdp)));
            for &w in workloads {
                let packet = u64::from(cx.workloads.entries[w].recipe.frame + int.bytes());
                for (src, dst, key) in cx.arrivals(w) {
                    let path = cx.routes.path_keyed(cx.net, src, dst, key);
                    let (rtt, bdp) = crate::sim::base_rtt(cx.net, &path, packet, cx.net.first_link_rate(src));
                    largest = (largest.0.max(rtt), largest.1.max(bdp));
                }
            }
            (vec![largest; own.len()], BaseRttRecipe::Fixed(largest.0, largest.1))
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
