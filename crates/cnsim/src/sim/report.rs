//! The run as the protocols' sections of `summary.json` read it
//! ([`crate::protocol::report`]): the simulator hands them its network, its protocols,
//! its flows' places in them and its counters, and they never see the simulator.

use super::Sim;
use crate::net::HeaderKind;
use crate::protocol::{Finished, FinishedFlow};

impl Sim {
    /// The finished run, for the protocols' sections
    /// ([`Sections::of`](crate::protocol::Sections::of),
    /// [`FlowSections::of`](crate::protocol::FlowSections::of)).
    pub fn finished(&self) -> Finished<'_> {
        let r = self.recorder();
        Finished {
            net: self.net(),
            protocols: &self.protocols,
            flows: self
                .flows()
                .iter()
                .map(|f| FinishedFlow { name: &f.name, rp: f.rp, tcp: f.tcp, qp: f.qp })
                .collect(),
            kinds: HeaderKind::ALL.map(|k| self.counters().kind(k)),
            end: self.end(),
            avg_minrate_bps: (r.minrate_samples > 0).then(|| r.minrate_sum / r.minrate_samples as f64),
        }
    }
}
