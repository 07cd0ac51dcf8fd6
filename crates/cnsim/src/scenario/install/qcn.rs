//! Installs QCN (`[protocols.qcn]`): a congestion point on each selected egress port, a
//! reaction point and shaper on each selected flow.

use super::{Install, InstallCx};
use crate::engine::time::format_time;
use crate::engine::PS_PER_S;
use crate::l2::qcn::{CnmFormat, CongestionPoint, Cp, CpParams, MulticastScheme, QcnConfig, Rp};
use crate::protocol::{AnyCongestionPoint, AnyReactionPoint};
use crate::scenario::periodic::{Periodic, MAX_TIMER_FIRINGS};
use crate::scenario::ScenarioError;
use crate::traffic::Destination;
use crate::units::{Rate, Size, MAX_TIME};

impl Install for QcnConfig {
    fn install(&self, qp: &str, cx: &mut InstallCx) -> Result<(), ScenarioError> {
        if !self.enabled {
            return Ok(());
        }
        cx.validate(&format!("{qp}.cp"), &self.cp)?;
        cx.validate(&format!("{qp}.rp"), &self.rp)?;
        let cnm_size = match self.cnm_size {
            Size::Bytes(b) if b > 0 && b <= u32::MAX as u64 => b as u32,
            other => {
                return Err(cx.err(
                    &format!("{qp}.cnm_size"),
                    format!("\"{other}\" is not a CNM size; expected a positive size in bytes, e.g. \"64B\""),
                ))
            }
        };
        if self.cnm_priority > 7 {
            return Err(cx.err(
                &format!("{qp}.cnm_priority"),
                format!("{} is not a priority; expected 0 to 7", self.cnm_priority),
            ));
        }
        if let Some((rate, at)) = &cx.slowest_link {
            let (rate, at) = (*rate, at.clone());
            let ps = crate::engine::time::frame_time(u64::from(cnm_size), rate);
            if ps > u128::from(MAX_TIME) {
                return Err(cx.err(
                    &format!("{qp}.cnm_size"),
                    format!(
                        "\"{}\" CNMs take {}s each at {} ({}); expected CNMs that take at most {} to send",
                        self.cnm_size,
                        ps / u128::from(PS_PER_S),
                        Rate(rate),
                        at,
                        format_time(MAX_TIME)
                    ),
                ));
            }
        }
        let format = CnmFormat { size: cnm_size, priority: self.cnm_priority, scheme: self.multicast };
        let cp_key = format!("{qp}.congestion_points");
        for p in cx.ports(&self.congestion_points, &cp_key)? {
            let rng = cx.rng("cp", &cx.net.port_name(p));
            let guidance = self
                .cp
                .guidance
                .as_ref()
                .map(|g| crate::l2::probing::FairShare::new(g, cx.net.ports[p as usize].rate_bps));
            let cp = match self.cp.qeq_fraction {
                None => Cp::new(&self.cp, p + 1, rng),
                Some(f) => {
                    // Qeq in the unit of the port's buffer (of its first class, where data
                    // queue), at least one byte or frame.
                    let qeq = match cx.net.ports[p as usize].classes.queue(0).capacity {
                        crate::net::Capacity::Frames(n) => {
                            Size::Frames(((n as f64 * f).round() as u64).max(1))
                        }
                        crate::net::Capacity::Bytes(b) => Size::Bytes(((b as f64 * f).round() as u64).max(1)),
                    };
                    Cp::new(&CpParams { qeq, ..self.cp.clone() }, p + 1, rng)
                }
            };
            let cp = CongestionPoint { cp, format, guidance };
            cx.attach_congestion_point(p, AnyCongestionPoint::Qcn(cp), &cp_key)?;
        }
        let params = std::sync::Arc::new(self.rp.clone());
        let flows = cx.flows_of(&self.flows, &format!("{qp}.flows"))?;
        // A limited reaction point's timer fires every period (half of it after fast
        // recovery), times a jitter drawn in its range, for as long as it stays limited.
        let halved = if self.rp.halve_after_fast_recovery { 0.5 } else { 1.0 };
        cx.bound_period(&Periodic {
            key: &format!("{qp}.rp.timer"),
            period: self.rp.timer,
            shortest: halved * self.rp.jitter[0],
            instances: flows.len() as u64,
            instance: "reaction point",
            firings: "timer expiries",
            limit: MAX_TIMER_FIRINGS,
        })?;
        for f in flows {
            cx.check_frame_time(f, self.rp.min_rate.0, &format!("{qp}.rp.min_rate"))?;
            cx.check_rate_floor(f, self.rp.min_rate.0, &format!("{qp}.rp.min_rate"))?;
            if let Some(r) = self.rp.initial_rate {
                cx.check_frame_time(f, r.0, &format!("{qp}.rp.initial_rate"))?;
            }
            let flow = &cx.flows[f as usize];
            let multicast = matches!(flow.dst, Destination::Tree { .. });
            let scheme = if multicast { self.multicast } else { MulticastScheme::Standard };
            let rng = cx.rng("rp", &flow.name);
            let rp =
                Rp::new(std::sync::Arc::clone(&params), scheme, flow.line_bps, rng).with_cp_weight(self.cp.w);
            cx.attach_reaction_point(f, AnyReactionPoint::Qcn(rp), &format!("{qp}.flows"))?;
        }
        Ok(())
    }
}
