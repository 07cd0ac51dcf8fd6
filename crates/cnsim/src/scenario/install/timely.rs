//! Installs TIMELY (`[protocols.timely]`): each flow of `flows`, an RDMA queue pair,
//! gets a TIMELY sender as its reaction point, and its packets carry their send time
//! (the fork's INT timestamp mode), which makes them and their ACKs
//! [`TS_BYTES`](crate::wire::int::TS_BYTES) longer on the wire. With `window = "bdp"`
//! each queue pair's window follows its rate (TIMELY+win).

use super::window::{base_rtts, queue_pair_destination, queue_pair_workload, set_window};
use super::{Install, InstallCx};
use crate::l4::timely::{Timely, TimelyConfig};
use crate::protocol::AnyReactionPoint;
use crate::scenario::ScenarioError;
use crate::sim::RpRecipe;
use crate::wire::int::IntMode;

impl Install for TimelyConfig {
    fn install(&self, path: &str, cx: &mut InstallCx) -> Result<(), ScenarioError> {
        cx.validate(path, self)?;
        let at = format!("{path}.flows");
        let (flows, workloads) = cx.flows_and_workloads_of(&self.flows, &at)?;
        for &f in &flows {
            queue_pair_destination(cx, f, &at)?;
        }
        for &w in &workloads {
            queue_pair_workload(cx, w, &at)?;
        }
        let (rtts, base) = base_rtts(cx, (&flows, &workloads), IntMode::Timestamp, self.base_rtt);
        let params = self.params();
        let floor = format!("{path}.min_rate");
        for (&f, &(_, bdp)) in flows.iter().zip(&rtts) {
            cx.check_frame_time(f, self.min_rate.0, &floor)?;
            cx.check_rate_floor(f, self.min_rate.0, &floor)?;
            let flow = &cx.flows[f as usize];
            let line = flow.line_bps;
            cx.protocols.rdma[flow.qp as usize].int = IntMode::Timestamp;
            set_window(cx, f, self.window, bdp);
            cx.attach_reaction_point(f, AnyReactionPoint::Timely(Timely::new(&params, line)), &at)?;
        }
        for &w in &workloads {
            cx.check_workload_frame_time(w, self.min_rate.0, &floor)?;
            cx.check_workload_rate_floor(w, self.min_rate.0, &floor)?;
            cx.set_workload_rp(w, RpRecipe::Timely(params.clone()), &at)?;
            let recipe = &mut cx.workloads.entries[w].recipe;
            recipe.int = IntMode::Timestamp;
            recipe.window = self.window;
            recipe.base_rtt = base;
        }
        Ok(())
    }
}
