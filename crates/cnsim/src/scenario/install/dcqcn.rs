//! Installs DCQCN (`[protocols.dcqcn]`): the marking on the `congestion_points` ports, a
//! notification point and a reaction point on each flow of `flows`, whose frames then
//! leave ECN-capable. With `window = "bdp"` each flow, a queue pair, gets a window
//! that follows its rate (DCQCN+win).

use super::aqm::{check_below_buffer, install_on_port};
use super::window::{base_rtts, queue_pair_destination, queue_pair_workload, set_window};
use super::{Install, InstallCx};
use crate::aqm::{AnyDiscipline, Aqm};
use crate::l4::dcqcn::{DcqcnConfig, Marker, Np, Rp};
use crate::protocol::{AnyNotificationPoint, AnyReactionPoint};
use crate::scenario::periodic::{Periodic, MAX_TIMER_FIRINGS};
use crate::scenario::ScenarioError;
use crate::sim::{BaseRttRecipe, RpRecipe};
use crate::wire::int::IntMode;

impl Install for DcqcnConfig {
    fn install(&self, path: &str, cx: &mut InstallCx) -> Result<(), ScenarioError> {
        cx.validate(path, self)?;
        for p in cx.ports(&self.congestion_points, &format!("{path}.congestion_points"))? {
            let why = "nothing would be marked";
            check_below_buffer(cx, p, &format!("{path}.kmin"), self.kmin, why, "\"5KB\"")?;
            let name = cx.net.port_name(p);
            install_on_port(cx, p, path, |cx, class| {
                let rng = cx.rng("dcqcn-cp", &format!("{name}#{class}"));
                AnyDiscipline::Aqm(Box::new(Aqm::Dcqcn(Marker::new(self.kmin, self.kmax, self.pmax, rng))))
            })?;
        }
        let at_flows = format!("{path}.flows");
        let (flows, workloads) = cx.flows_and_workloads_of(&self.flows, &at_flows)?;
        // A workload flow's timer runs only while the flow does, at least its ideal
        // completion time: counted as that share of a whole run.
        let lives: u128 =
            workloads.iter().flat_map(|&w| cx.workload_records(w)).map(|r| u128::from(r.ideal)).sum();
        let whole_runs = lives.div_ceil(u128::from(cx.scenario.duration.0.max(1)));
        cx.bound_period(&Periodic {
            key: &format!("{path}.rp.timer"),
            period: self.rp.timer,
            shortest: 1.0,
            instances: flows.len() as u64 + u64::try_from(whole_runs).unwrap_or(u64::MAX),
            instance: if workloads.is_empty() {
                "reaction point"
            } else {
                "reaction point over the whole run (a workload flow's counted for its ideal completion time)"
            },
            firings: "timer expiries",
            limit: MAX_TIMER_FIRINGS,
        })?;
        let increase = std::sync::Arc::new(self.rp.increase());
        let cnp_size = self.cnp_size.value() as u32;
        if !flows.is_empty() {
            let n = cx.flows.len();
            cx.protocols.notification_points.resize(n, None);
        }
        let (rtts, base) = if self.window.is_some() {
            for &f in &flows {
                queue_pair_destination(cx, f, &format!("{path}.window"))?;
            }
            for &w in &workloads {
                queue_pair_workload(cx, w, &format!("{path}.window"))?;
            }
            base_rtts(cx, (&flows, &workloads), IntMode::None, self.base_rtt)
        } else {
            (Vec::new(), BaseRttRecipe::Path)
        };
        let at = format!("{path}.rp.min_rate");
        for (k, f) in flows.into_iter().enumerate() {
            if let Some(&(_, bdp)) = rtts.get(k) {
                set_window(cx, f, self.window, bdp);
            }
            cx.check_frame_time(f, self.rp.min_rate.0, &at)?;
            cx.check_rate_floor(f, self.rp.min_rate.0, &at)?;
            let flow = &mut cx.flows[f as usize];
            flow.ecn = crate::net::Ecn::Ect0;
            let rng = cx.rng("rp", &cx.flows[f as usize].name);
            let line = cx.flows[f as usize].line_bps;
            let rp = Rp::new(&self.rp, std::sync::Arc::clone(&increase), line, rng);
            cx.attach_reaction_point(f, AnyReactionPoint::Dcqcn(rp), &at_flows)?;
            let np = Np::new(self.cnp_interval.0, cnp_size, self.cnp_priority);
            cx.protocols.notification_points[f as usize] = Some(AnyNotificationPoint::Dcqcn(np));
        }
        for w in workloads {
            cx.check_workload_frame_time(w, self.rp.min_rate.0, &at)?;
            cx.check_workload_rate_floor(w, self.rp.min_rate.0, &at)?;
            let params = self.rp.clone();
            let increase = std::sync::Arc::clone(&increase);
            let np = Np::new(self.cnp_interval.0, cnp_size, self.cnp_priority);
            cx.set_workload_rp(w, RpRecipe::Dcqcn { params, increase }, &at_flows)?;
            let recipe = &mut cx.workloads.entries[w].recipe;
            recipe.np = Some(AnyNotificationPoint::Dcqcn(np));
            recipe.window = self.window;
            recipe.base_rtt = base;
        }
        Ok(())
    }
}
