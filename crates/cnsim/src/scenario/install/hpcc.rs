//! Installs HPCC (`[protocols.hpcc]`): each flow of `flows`, an RDMA queue pair, gets an
//! HPCC sender as its reaction point and collects in-band telemetry, which makes its
//! packets and ACKs [`HEADER_BYTES`](crate::wire::int::HEADER_BYTES) longer on the wire.
//! Each flow's base RTT T and BDP are as [`super::window`] computes them.

use super::window::{base_rtts, queue_pair_destination, queue_pair_workload, set_window};
use super::{Install, InstallCx};
use crate::l4::hpcc::{HpccConfig, Rp, MAX_HOPS};
use crate::net::{NodeKind, PortId};
use crate::protocol::AnyReactionPoint;
use crate::scenario::ScenarioError;
use crate::sim::RpRecipe;
use crate::units::Rate;
use crate::wire::int::{IntHop, IntMode};

impl Install for HpccConfig {
    fn install(&self, path: &str, cx: &mut InstallCx) -> Result<(), ScenarioError> {
        cx.validate(path, self)?;
        let at = format!("{path}.flows");
        let (flows, workloads) = cx.flows_and_workloads_of(&self.flows, &at)?;
        for &f in &flows {
            let dst = queue_pair_destination(cx, f, &at)?;
            let flow = &cx.flows[f as usize];
            let ports = cx.routes.path(cx.net, flow.src, dst, f);
            check_path(cx, &ports, &flow.name, &at)?;
        }
        for &w in &workloads {
            queue_pair_workload(cx, w, &at)?;
            for (k, (src, dst, key)) in cx.arrivals(w).enumerate() {
                let ports = cx.routes.path_keyed(cx.net, src, dst, key);
                let name = format!("{}/{}", cx.workloads.entries[w].name, k + 1);
                check_path(cx, &ports, &name, &at)?;
            }
        }
        let (rtts, base) = base_rtts(cx, (&flows, &workloads), IntMode::Hops, self.base_rtt);
        let params = self.params();
        let floor = format!("{path}.min_rate");
        for (&f, &(rtt, bdp)) in flows.iter().zip(&rtts) {
            cx.check_frame_time(f, self.min_rate.0, &floor)?;
            cx.check_rate_floor(f, self.min_rate.0, &floor)?;
            let flow = &cx.flows[f as usize];
            let line = flow.line_bps;
            cx.protocols.rdma[flow.qp as usize].int = IntMode::Hops;
            set_window(cx, f, self.window, bdp);
            let rp = Rp::new(&params, line, rtt);
            cx.attach_reaction_point(f, AnyReactionPoint::Hpcc(rp), &at)?;
        }
        for &w in &workloads {
            cx.check_workload_frame_time(w, self.min_rate.0, &floor)?;
            cx.check_workload_rate_floor(w, self.min_rate.0, &floor)?;
            cx.set_workload_rp(w, RpRecipe::Hpcc(params.clone()), &at)?;
            let recipe = &mut cx.workloads.entries[w].recipe;
            recipe.int = IntMode::Hops;
            recipe.window = self.window;
            recipe.base_rtt = base;
        }
        if !flows.is_empty() || !workloads.is_empty() {
            cx.protocols.int_multi = self.int_multi;
        }
        Ok(())
    }
}

/// Checks that HPCC's INT records can describe the path `ports` of flow `name`: it
/// crosses at least one switch and at most [`MAX_HOPS`], each at a rate a record names.
fn check_path(cx: &InstallCx, ports: &[PortId], name: &str, at: &str) -> Result<(), ScenarioError> {
    let mut hops = 0;
    for &p in ports {
        let port = &cx.net.ports[p as usize];
        if cx.net.nodes[port.node as usize].kind != NodeKind::Switch {
            continue;
        }
        hops += 1;
        if IntHop::new(0, 0, 0, port.rate_bps, 1).is_none() {
            return Err(cx.err(
                at,
                format!(
                    "port {} on the path of flow {name} runs at {}, which an INT record cannot name; expected \
                     links of 25, 50, 100, 200 or 400 Gbit/s on the paths of HPCC's flows",
                    cx.net.port_name(p),
                    Rate(port.rate_bps)
                ),
            ));
        }
    }
    if hops == 0 {
        return Err(cx.err(
            at,
            format!(
                "flow {name} crosses no switch, so no INT record would reach its sender; expected flows whose \
                 paths cross at least one switch"
            ),
        ));
    }
    if hops > MAX_HOPS {
        return Err(cx.err(
            at,
            format!("flow {name} crosses {hops} switches; expected at most {MAX_HOPS}, the hops an INT header holds"),
        ));
    }
    Ok(())
}
