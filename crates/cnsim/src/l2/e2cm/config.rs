//! E2CM's scenario table (`[protocols.e2cm]`) and its installation: ECM's congestion
//! points without positive feedback, answering probes (with a fair rate when
//! `guidance` is given: E2CM-PR) or adding their queue's drain time to path probes
//! (E2CM), and a probing reaction point on each selected flow.

use serde::{Deserialize, Serialize};

use super::Rp;
use crate::l2::ecm::{CongestionPoint, Cp, CpParams, RpParams};
use crate::l2::probing::{FairShare, GuidanceParams, ProbeParams};
use crate::protocol::{AnyCongestionPoint, AnyReactionPoint};
use crate::scenario::install::{Install, InstallCx};
use crate::scenario::schema::{HostSel, PortSel};
use crate::scenario::ScenarioError;
use crate::traffic::Destination;
use crate::units::Size;

fn default_true() -> bool {
    true
}

fn default_bcn_size() -> Size {
    Size::Bytes(64)
}

fn default_flow_qeq() -> Size {
    Size::Bytes(15_000)
}

/// Where a regulated flow's probes go.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum ProbeTo {
    /// To the CP of the latest negative BCN, which answers (E2CM-P, E2CM-PR).
    #[default]
    Cp,
    /// To the flow's destination, gathering the path's queueing delay (E2CM).
    Destination,
}

/// `[protocols.e2cm]`: E2CM-P, or E2CM-PR with `guidance`. Roeck 2007's first parameter
/// set by default (the second samples every 75000 and probes every 50000 bytes).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct E2cmConfig {
    /// Switch E2CM on or off without deleting the table.
    #[serde(default = "default_true")]
    pub enabled: bool,
    /// Egress queues with a congestion point: "switches", "all", "none" or port names.
    pub congestion_points: PortSel,
    /// Flows with a reaction point: traffic entry names or patterns ("*" for all).
    pub flows: HostSel,
    /// BCN size on the wire.
    #[serde(default = "default_bcn_size")]
    pub bcn_size: Size,
    /// BCN priority (0..=7).
    #[serde(default)]
    pub bcn_priority: u8,
    /// Congestion point parameters (ECM's).
    #[serde(default)]
    pub cp: CpParams,
    /// Reaction point parameters (ECM's).
    #[serde(default)]
    pub rp: RpParams,
    /// The probes (probeInterval 100000 bytes, 64 bytes, priority 7).
    #[serde(default)]
    pub probes: ProbeParams,
    /// Rate guidance in replies (E2CM-PR: rateTimer 1 ms, switchRateWeight 0.02);
    /// absent = E2CM-P.
    #[serde(default)]
    pub guidance: Option<GuidanceParams>,
    /// Where probes go: "cp" (E2CM-P, E2CM-PR) or "destination" (E2CM).
    #[serde(default)]
    pub probe_to: ProbeTo,
    /// E2CM: the backlog a flow may hold on its path at equilibrium (Roeck 2007's flowQeq).
    #[serde(default = "default_flow_qeq")]
    pub flow_qeq: Size,
}

impl Install for E2cmConfig {
    fn install(&self, ep: &str, cx: &mut InstallCx) -> Result<(), ScenarioError> {
        if !self.enabled {
            return Ok(());
        }
        let format =
            crate::l2::ecm::config::check(ep, cx, &self.cp, &self.rp, self.bcn_size, self.bcn_priority)?;
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
        crate::l2::ecm::config::bound_drift(ep, cx, &self.rp, flows.len())?;
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
