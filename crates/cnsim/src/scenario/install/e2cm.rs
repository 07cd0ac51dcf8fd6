//! Installs E2CM (`[protocols.e2cm]`): ECM's congestion points without positive
//! feedback, answering probes (with a fair rate when `guidance` is given: E2CM-PR) or
//! adding their queue's drain time to path probes (E2CM), and a probing reaction point on
//! each selected flow.

use super::{Install, InstallCx};
use crate::l2::e2cm::config::ProbeTo;
use crate::l2::e2cm::{E2cmConfig, Rp};
use crate::l2::ecm::{CongestionPoint, Cp};
use crate::l2::probing::FairShare;
use crate::protocol::{AnyCongestionPoint, AnyReactionPoint};
use crate::scenario::ScenarioError;
use crate::traffic::Destination;
use crate::units::Size;

impl Install for E2cmConfig {
    fn install(&self, ep: &str, cx: &mut InstallCx) -> Result<(), ScenarioError> {
        if !self.enabled {
            return Ok(());
        }
        let format = super::ecm::check(ep, cx, &self.cp, &self.rp, self.bcn_size, self.bcn_priority)?;
        self.probes.check("probes").map_err(|(k, m)| cx.err(&format!("{ep}.{k}"), m))?;
        if let Some(g) = &self.guidance {
            g.check("guidance").map_err(|(k, m)| cx.err(&format!("{ep}.{k}"), m))?;
            if self.probe_to == ProbeTo::Destination {
                return Err(cx.err(
                    &format!("{ep}.guidance"),
                    "is given with probe_to = \"destination\"; expected rate guidance only where CPs answer probes (probe_to = \"cp\", E2CM-PR)".into(),
                ));
            }
        }
        if !matches!(self.flow_qeq, Size::Bytes(b) if b > 0) {
            return Err(cx.err(
                &format!("{ep}.flow_qeq"),
                format!(
                    "\"{}\" is not a backlog; expected a positive size in bytes, e.g. \"15000B\"",
                    self.flow_qeq
                ),
            ));
        }
        let cp_key = format!("{ep}.congestion_points");
        for p in cx.ports(&self.congestion_points, &cp_key)? {
            let rng = cx.rng("e2cm-cp", &cx.net.port_name(p));
            let mut cp = Cp::new(&self.cp, p + 1, rng);
            cp.positive_to_tagged = false;
            let guidance =
                self.guidance.as_ref().map(|g| FairShare::new(g, cx.net.ports[p as usize].rate_bps));
            let capacity_bps = cx.net.ports[p as usize].rate_bps;
            let cp = CongestionPoint { cp, format, guidance, capacity_bps };
            cx.attach_congestion_point(p, AnyCongestionPoint::Ecm(cp), &cp_key)?;
        }
        let flows_key = format!("{ep}.flows");
        let flows = cx.flows_of(&self.flows, &flows_key)?;
        super::ecm::bound_drift(ep, cx, &self.rp, flows.len())?;
        for f in flows {
            cx.check_frame_time(f, self.rp.rmin.0, &format!("{ep}.rp.rmin"))?;
            cx.check_rate_floor(f, self.rp.rmin.0, &format!("{ep}.rp.rmin"))?;
            let flow = &cx.flows[f as usize];
            if matches!(flow.dst, Destination::Tree { .. }) {
                return Err(cx.err(
                    &flows_key,
                    format!("flow {} is multicast; E2CM regulates unicast flows", flow.name),
                ));
            }
            let mut rp = Rp::new(&self.rp, self.cp.w, self.cp.qeq, &self.probes, flow.line_bps);
            if self.probe_to == ProbeTo::Destination {
                rp = rp.with_path_probes(self.flow_qeq.value() as f64, self.cp.page.value() as f64);
            }
            cx.attach_reaction_point(f, AnyReactionPoint::E2cm(rp), &flows_key)?;
        }
        Ok(())
    }
}
