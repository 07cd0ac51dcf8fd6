//! ECM's scenario table (`[protocols.ecm]`), its rules, and its installation: a
//! congestion point on each selected egress port, a reaction point and shaper on each
//! selected unicast flow.

use serde::{Deserialize, Serialize};

use super::{BcnFormat, CongestionPoint, Cp, CpParams, Rp, RpParams};
use crate::protocol::{AnyCongestionPoint, AnyReactionPoint};
use crate::scenario::install::{Install, InstallCx, Validate};
use crate::scenario::periodic::{Periodic, MAX_TIMER_FIRINGS};
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

/// `[protocols.ecm]`. As for QCN, where ECM applies is never implied.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct EcmConfig {
    /// Switch ECM on or off without deleting the table.
    #[serde(default = "default_true")]
    pub enabled: bool,
    /// Egress queues with a congestion point: "switches", "all", "none" or port names.
    pub congestion_points: PortSel,
    /// Flows with a reaction point: traffic entry names or patterns ("*" for all).
    pub flows: HostSel,
    /// BCN size on the wire (a minimum-size Ethernet frame).
    #[serde(default = "default_bcn_size")]
    pub bcn_size: Size,
    /// BCN priority (0..=7).
    #[serde(default)]
    pub bcn_priority: u8,
    /// Congestion point parameters.
    #[serde(default)]
    pub cp: CpParams,
    /// Reaction point parameters.
    #[serde(default)]
    pub rp: RpParams,
}

fn positive(key: &str, value: f64, example: &str) -> Result<(), (String, String)> {
    if value > 0.0 && value.is_finite() {
        Ok(())
    } else {
        Err((key.into(), format!("{value:?} is not positive; expected a positive number, e.g. {example}")))
    }
}

impl Validate for CpParams {
    fn validate(&self) -> Result<(), (String, String)> {
        positive("qeq", self.qeq, "375")?;
        if !(self.qsc > self.qeq && self.qsc.is_finite()) {
            return Err((
                "qsc".into(),
                format!("{:?} is not above qeq ({:?}); expected a severe threshold above the set point, e.g. 1600", self.qsc, self.qeq),
            ));
        }
        if !(self.w >= 0.0 && self.w.is_finite()) {
            return Err((
                "w".into(),
                format!("{:?} is not a weight; expected a non-negative number, e.g. 2.0", self.w),
            ));
        }
        if !matches!(self.page, Size::Bytes(b) if b > 0) {
            return Err((
                "page".into(),
                format!("\"{}\" is not a page; expected a positive size in bytes, e.g. \"64B\"", self.page),
            ));
        }
        if !matches!(self.sampling_interval, Size::Bytes(b) if b > 0) {
            return Err((
                "sampling_interval".into(),
                format!(
                    "\"{}\" is not a sampling interval; expected a positive size in bytes, e.g. \"150000B\"",
                    self.sampling_interval
                ),
            ));
        }
        crate::l2::qcn::config::jitter_rule("jitter", self.jitter)?;
        Ok(())
    }
}

impl Validate for RpParams {
    fn validate(&self) -> Result<(), (String, String)> {
        positive("gd", self.gd, "0.00026667")?;
        if !(self.gi >= 0.0 && self.gi.is_finite()) {
            return Err((
                "gi".into(),
                format!("{:?} is not a gain; expected a non-negative number, e.g. 0.53333", self.gi),
            ));
        }
        if self.td.0 == 0 {
            return Err((
                "td".into(),
                "\"0s\" is not a drift period; expected a positive time, e.g. \"1ms\"".into(),
            ));
        }
        if self.rmin.0 == 0 {
            return Err((
                "rmin".into(),
                "\"0bps\" is not a lowest rate; expected a positive rate, e.g. \"1Mbps\"".into(),
            ));
        }
        Ok(())
    }
}

/// Bounds the drift timers of `flows` reaction points (ECM's and E2CM's): each fires
/// every td for as long as a regulator limits its flow (with drift on).
pub(crate) fn bound_drift(
    ep: &str,
    cx: &InstallCx,
    rp: &RpParams,
    flows: usize,
) -> Result<(), ScenarioError> {
    if !rp.drift {
        return Ok(());
    }
    cx.bound_period(&Periodic {
        key: &format!("{ep}.rp.td"),
        period: rp.td,
        shortest: 1.0,
        instances: flows as u64,
        instance: "reaction point",
        firings: "drift timer expiries",
        limit: MAX_TIMER_FIRINGS,
    })
}

/// Checks what ECM and E2CM share: the CP and RP parameters, that the largest
/// negative Fb cannot cut a rate below zero, and the BCN format.
pub(crate) fn check(
    ep: &str,
    cx: &InstallCx,
    cp: &CpParams,
    rp: &RpParams,
    bcn_size: Size,
    bcn_priority: u8,
) -> Result<BcnFormat, ScenarioError> {
    cx.validate(&format!("{ep}.cp"), cp)?;
    cx.validate(&format!("{ep}.rp"), rp)?;
    let fb_max = cp.qeq * (2.0 * cp.w + 1.0);
    if rp.gd * fb_max > 1.0 {
        return Err(cx.err(
            &format!("{ep}.rp.gd"),
            format!(
                "{:?} × the largest |Fb| (qeq·(2w+1) = {fb_max}) = {:.3} would cut a rate below zero; expected Gd ≤ {:.8}",
                rp.gd,
                rp.gd * fb_max,
                1.0 / fb_max
            ),
        ));
    }
    let size = match bcn_size {
        Size::Bytes(b) if (64..=9216).contains(&b) => b as u32,
        other => {
            return Err(cx.err(
                &format!("{ep}.bcn_size"),
                format!("\"{other}\" is not a BCN size; expected 64 to 9216 bytes, e.g. \"64B\""),
            ))
        }
    };
    if bcn_priority > 7 {
        return Err(cx.err(
            &format!("{ep}.bcn_priority"),
            format!("{bcn_priority} is not a priority; expected 0 to 7"),
        ));
    }
    Ok(BcnFormat { size, priority: bcn_priority })
}

impl Install for EcmConfig {
    fn install(&self, ep: &str, cx: &mut InstallCx) -> Result<(), ScenarioError> {
        if !self.enabled {
            return Ok(());
        }
        let format = check(ep, cx, &self.cp, &self.rp, self.bcn_size, self.bcn_priority)?;
        let cp_key = format!("{ep}.congestion_points");
        for p in cx.ports(&self.congestion_points, &cp_key)? {
            let rng = cx.rng("ecm-cp", &cx.net.port_name(p));
            let capacity_bps = cx.net.ports[p as usize].rate_bps;
            let cp =
                CongestionPoint { cp: Cp::new(&self.cp, p + 1, rng), format, guidance: None, capacity_bps };
            cx.attach_congestion_point(p, AnyCongestionPoint::Ecm(cp), &cp_key)?;
        }
        let flows_key = format!("{ep}.flows");
        let flows = cx.flows_of(&self.flows, &flows_key)?;
        bound_drift(ep, cx, &self.rp, flows.len())?;
        for f in flows {
            cx.check_frame_time(f, self.rp.rmin.0, &format!("{ep}.rp.rmin"))?;
            cx.check_rate_floor(f, self.rp.rmin.0, &format!("{ep}.rp.rmin"))?;
            let flow = &cx.flows[f as usize];
            if matches!(flow.dst, Destination::Tree { .. }) {
                return Err(cx.err(
                    &flows_key,
                    format!("flow {} is multicast; ECM regulates unicast flows", flow.name),
                ));
            }
            let rp = Rp::new(&self.rp, self.cp.w, self.cp.qeq, flow.line_bps);
            cx.attach_reaction_point(f, AnyReactionPoint::Ecm(rp), &flows_key)?;
        }
        Ok(())
    }
}
