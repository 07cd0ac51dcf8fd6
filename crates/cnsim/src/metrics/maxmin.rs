//! The max-min fair allocation of a scenario, the yardstick of the IEEE 802.1au
//! congestion-management tests: no flow can get more without taking from a flow that has
//! no more than it.
//!
//! Computed by progressive filling (water-filling), exact for fixed routes (Bertsekas &
//! Gallager, *Data Networks*, §6.5.2): every flow not yet frozen grows at the same pace
//! until it reaches its demand or a resource it crosses is full; a full resource freezes
//! every flow through it. The resources are the link directions (capacity: the link rate)
//! and the hosts that drain their input at a service rate (802.3x output-generated
//! hotspots): a host that serves 1 Gbit/s is a 1 Gbit/s resource for every flow to it.

use crate::net::NONE;
use crate::sim::Sim;
use crate::traffic::{Destination, Pattern};

/// A flow of an allocation problem.
#[derive(Clone, Debug, PartialEq)]
pub struct Demand {
    /// The most it would send, bit/s (`f64::INFINITY`: as much as it gets).
    pub demand: f64,
    /// The resources it crosses (indices into the capacities).
    pub resources: Vec<usize>,
}

/// The max-min fair rates of `flows` over resources of `capacities` (same unit as the
/// demands). A flow that crosses no resource and demands without bound gets infinity.
pub fn water_fill(capacities: &[f64], flows: &[Demand]) -> Vec<f64> {
    let mut alloc = vec![0.0; flows.len()];
    let mut frozen: Vec<bool> = flows.iter().map(|f| f.demand <= 0.0).collect();
    let mut residual = capacities.to_vec();
    // Relative tolerance of "full" and "satisfied": float rounding of the increments.
    let eps = 1e-9;
    while frozen.iter().any(|f| !f) {
        let mut crossing = vec![0usize; capacities.len()];
        for (_, d) in flows.iter().enumerate().filter(|(f, _)| !frozen[*f]) {
            for &r in &d.resources {
                crossing[r] += 1;
            }
        }
        let by_demand = flows
            .iter()
            .enumerate()
            .filter(|(f, _)| !frozen[*f])
            .map(|(f, d)| d.demand - alloc[f])
            .fold(f64::INFINITY, f64::min);
        let by_resource = (0..capacities.len())
            .filter(|&r| crossing[r] > 0)
            .map(|r| residual[r].max(0.0) / crossing[r] as f64)
            .fold(f64::INFINITY, f64::min);
        let delta = by_demand.min(by_resource);
        if delta.is_infinite() {
            // Unbounded demands over no resource at all.
            for (f, a) in alloc.iter_mut().enumerate() {
                if !frozen[f] {
                    *a = f64::INFINITY;
                    frozen[f] = true;
                }
            }
            break;
        }
        for (f, d) in flows.iter().enumerate().filter(|(f, _)| !frozen[*f]) {
            alloc[f] += delta;
            for &r in &d.resources {
                residual[r] -= delta;
            }
        }
        let full: Vec<bool> = (0..capacities.len())
            .map(|r| crossing[r] > 0 && residual[r] <= eps * capacities[r].max(1.0))
            .collect();
        for (f, d) in flows.iter().enumerate() {
            let satisfied = d.demand.is_finite() && d.demand - alloc[f] <= eps * d.demand.max(1.0);
            if !frozen[f] && (satisfied || d.resources.iter().any(|&r| full[r])) {
                frozen[f] = true;
            }
        }
    }
    alloc
}

/// A flow's long-run offered rate, bit/s: its CBR, Poisson or mean on/off rate, or its
/// line rate if saturated; capped by a fixed rate limit (a reaction point's limiter is
/// congestion control, not demand).
fn offered_bps(f: &crate::traffic::Flow) -> f64 {
    let pattern = match f.pattern {
        Pattern::Cbr { rate_bps, .. } | Pattern::Poisson { rate_bps } => rate_bps as f64,
        Pattern::OnOff { rate_bps, on, off, .. } => {
            let period = on.saturating_add(off);
            if period == 0 {
                0.0
            } else {
                rate_bps as f64 * on as f64 / period as f64
            }
        }
        // A TCP connection takes what the network gives it.
        Pattern::Saturated | Pattern::Tcp => f.line_bps as f64,
    };
    match &f.shaper {
        Some(s) if f.rp == NONE => pattern.min(s.rate_bps as f64),
        _ => pattern,
    }
}

/// The max-min fair rate of every flow of a run, bit/s, with every flow active at its
/// offered rate over its route; `None` for multicast flows (whose copies share no single
/// rate) and unroutable ones.
pub fn of_sim(sim: &Sim) -> Vec<Option<f64>> {
    let net = sim.net();
    let mut capacities: Vec<f64> = net.ports.iter().map(|p| p.rate_bps as f64).collect();
    let mut service = vec![NONE as usize; net.nodes.len()];
    for (host, rate) in sim.link_control().map(|l| l.service_rates()).unwrap_or_default() {
        service[host as usize] = capacities.len();
        capacities.push(rate as f64);
    }
    let mut index = Vec::new();
    let mut demands = Vec::new();
    for (i, f) in sim.flows().iter().enumerate() {
        let Destination::Host(dst) = f.dst else {
            index.push(None);
            continue;
        };
        let path = sim.routes().path(net, f.src, dst, i as u32);
        if path.is_empty() {
            index.push(None);
            continue;
        }
        let mut resources: Vec<usize> = path.iter().map(|&p| p as usize).collect();
        if service[dst as usize] != NONE as usize {
            resources.push(service[dst as usize]);
        }
        index.push(Some(demands.len()));
        demands.push(Demand { demand: offered_bps(f), resources });
    }
    let rates = water_fill(&capacities, &demands);
    index.into_iter().map(|i| i.map(|i| rates[i])).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    const G: f64 = 1e9;

    fn flow(demand: f64, resources: &[usize]) -> Demand {
        Demand { demand, resources: resources.to_vec() }
    }

    fn close(a: &[f64], b: &[f64]) -> bool {
        a.len() == b.len() && a.iter().zip(b).all(|(x, y)| (x - y).abs() <= 1e-6 * y.abs().max(1.0))
    }

    /// Roeck 2007 test 3: four 1 Gbit/s culprits to node 7, which serves 20 % of
    /// 10 Gbit/s; three 7 Gbit/s victims that share links with them but not node 7.
    /// Fair: 0.5 Gbit/s per culprit, 7 Gbit/s per victim.
    #[test]
    fn victims_keep_their_demand_while_culprits_share_the_hotspot() {
        // Resources: 0 = node 7's service (2 G); 1, 2 = switch links shared by a culprit
        // and a victim (10 G); 3 = the culprits' common last link (10 G).
        let caps = [2.0 * G, 10.0 * G, 10.0 * G, 10.0 * G];
        let flows = [
            flow(G, &[1, 3, 0]),
            flow(G, &[2, 3, 0]),
            flow(G, &[3, 0]),
            flow(G, &[3, 0]),
            flow(7.0 * G, &[1]),
            flow(7.0 * G, &[2]),
            flow(7.0 * G, &[]),
        ];
        let got = water_fill(&caps, &flows);
        assert!(close(&got, &[0.5 * G, 0.5 * G, 0.5 * G, 0.5 * G, 7.0 * G, 7.0 * G, 7.0 * G]), "{got:?}");
    }

    /// Roeck 2007 test 7 (hosts 1–3 and 6 on switch 1, 4, 5, 7, 8 on switch 2): four
    /// 9 Gbit/s flows to node 8 (one from switch 1) and one 9 Gbit/s flow 2 → 4 across
    /// the inter-switch link. Fair: 2.5 Gbit/s to node 8, 7.5 Gbit/s for 2 → 4.
    #[test]
    fn test_7_light_then_heavy_hotspot() {
        // 0 = sw1 → sw2, 1 = sw2 → node 8.
        let caps = [10.0 * G, 10.0 * G];
        let flows = [
            flow(9.0 * G, &[0, 1]),
            flow(9.0 * G, &[1]),
            flow(9.0 * G, &[1]),
            flow(9.0 * G, &[1]),
            flow(9.0 * G, &[0]),
        ];
        let got = water_fill(&caps, &flows);
        assert!(close(&got, &[2.5 * G, 2.5 * G, 2.5 * G, 2.5 * G, 7.5 * G]), "{got:?}");
    }

    /// Roeck 2007 test 8: 1 → 8 and 4 → 8, and 2 → 4, 3 → 5, 6 → 7 across the
    /// inter-switch link. Fair: 2.5 Gbit/s for the four flows into switch 2, 7.5 Gbit/s
    /// for 4 → 8.
    #[test]
    fn test_8_heavy_then_light_hotspot() {
        let caps = [10.0 * G, 10.0 * G];
        let flows = [
            flow(9.0 * G, &[0, 1]),
            flow(9.0 * G, &[1]),
            flow(9.0 * G, &[0]),
            flow(9.0 * G, &[0]),
            flow(9.0 * G, &[0]),
        ];
        let got = water_fill(&caps, &flows);
        assert!(close(&got, &[2.5 * G, 7.5 * G, 2.5 * G, 2.5 * G, 2.5 * G]), "{got:?}");
    }

    /// A parking lot of 7 links: one flow through all, one local flow per link; every
    /// flow gets C/2. With a second long flow, each link carries 3: C/3 for all.
    #[test]
    fn parking_lot_gives_half_to_every_flow() {
        let caps = [10.0 * G; 7];
        let mut flows = vec![flow(f64::INFINITY, &[0, 1, 2, 3, 4, 5, 6])];
        flows.extend((0..7).map(|l| flow(f64::INFINITY, &[l])));
        assert!(close(&water_fill(&caps, &flows), &[5.0 * G; 8]));
        flows.push(flow(f64::INFINITY, &[0, 1, 2, 3, 4, 5, 6]));
        assert!(close(&water_fill(&caps, &flows), &[10.0 / 3.0 * G; 9]));
    }

    /// Unequal bottlenecks: a flow limited by its own demand frees capacity for the
    /// others, and a local flow gets what the long flow leaves.
    #[test]
    fn demands_and_second_bottlenecks() {
        // Link 0 (10) carries a, b, c; link 1 (4) carries c, d. c and d get 2 at link 1;
        // a is content with 1; b takes 10 − 1 − 2 = 7.
        let caps = [10.0, 4.0];
        let flows =
            [flow(1.0, &[0]), flow(f64::INFINITY, &[0]), flow(f64::INFINITY, &[0, 1]), flow(9.0, &[1])];
        assert!(close(&water_fill(&caps, &flows), &[1.0, 7.0, 2.0, 2.0]));
        // No resources and no bound: infinite; zero demand: zero.
        assert_eq!(water_fill(&[], &[flow(f64::INFINITY, &[]), flow(0.0, &[])]), [f64::INFINITY, 0.0]);
    }
}
