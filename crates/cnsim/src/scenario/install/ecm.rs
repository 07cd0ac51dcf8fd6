//! Installs ECM (`[protocols.ecm]`): a congestion point on each selected egress port, a
//! reaction point and shaper on each selected unicast flow.

use super::{Install, InstallCx};
use crate::l2::ecm::{BcnFormat, CongestionPoint, Cp, CpParams, EcmConfig, Rp, RpParams};
use crate::protocol::{AnyCongestionPoint, AnyReactionPoint};
use crate::scenario::periodic::{Periodic, MAX_TIMER_FIRINGS};
use crate::scenario::ScenarioError;
use crate::traffic::Destination;
use crate::units::Size;

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
