//! QCN's scenario table (`[protocols.qcn]`), its rules, and its installation: a
//! congestion point on each selected egress port, a reaction point and shaper on each
//! selected flow.

use serde::{Deserialize, Serialize};

use super::{CnmFormat, CongestionPoint, Cp, CpParams, MulticastScheme, Rp, RpParams};
use crate::engine::time::format_time;
use crate::engine::PS_PER_S;
use crate::protocol::{AnyCongestionPoint, AnyReactionPoint};
use crate::scenario::install::{Install, InstallCx, Validate};
use crate::scenario::periodic::{Periodic, MAX_TIMER_FIRINGS};
use crate::scenario::schema::{HostSel, PortSel};
use crate::scenario::ScenarioError;
use crate::traffic::Destination;
use crate::units::{Rate, Size, MAX_TIME};

/// Largest factor a QCN jitter range may reach.
pub const MAX_JITTER: f64 = 10.0;

fn default_true() -> bool {
    true
}

fn default_cnm_size() -> Size {
    Size::Bytes(64)
}

/// `[protocols.qcn]`. Where QCN applies is never implied: `congestion_points` and
/// `flows` must both be given.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct QcnConfig {
    /// Switch QCN on or off without deleting the table.
    #[serde(default = "default_true")]
    pub enabled: bool,
    /// Egress queues with a congestion point: "switches", "all", "none" or port names.
    pub congestion_points: PortSel,
    /// Flows with a reaction point: traffic entry names or patterns ("*" for all).
    pub flows: HostSel,
    /// Multicast scheme.
    #[serde(default)]
    pub multicast: MulticastScheme,
    /// CNM size on the wire (a minimum-size Ethernet frame).
    #[serde(default = "default_cnm_size")]
    pub cnm_size: Size,
    /// CNM priority (0..=7).
    #[serde(default)]
    pub cnm_priority: u8,
    /// Congestion point parameters.
    #[serde(default)]
    pub cp: CpParams,
    /// Reaction point parameters.
    #[serde(default)]
    pub rp: RpParams,
}

/// The rule every jitter range follows: 0 < low ≤ high ≤ [`MAX_JITTER`].
pub(crate) fn jitter_rule(key: &str, [lo, hi]: [f64; 2]) -> Result<(), (String, String)> {
    if lo > 0.0 && lo <= hi && hi <= MAX_JITTER {
        return Ok(());
    }
    let why = if lo > hi { "is reversed" } else { "is out of range" };
    Err((
        key.into(),
        format!("[{lo:?}, {hi:?}] {why}; expected [low, high] with 0 < low ≤ high ≤ {MAX_JITTER}, e.g. [0.85, 1.15]"),
    ))
}

impl Validate for CpParams {
    fn validate(&self) -> Result<(), (String, String)> {
        if self.w < 0.0 || !self.w.is_finite() {
            return Err((
                "w".into(),
                format!("{:?} is not a weight; expected a non-negative finite number, e.g. 2.0", self.w),
            ));
        }
        if self.qeq.value() == 0 {
            return Err((
                "qeq".into(),
                format!(
                    "\"{}\" is zero; expected a positive set point, e.g. \"26000B\" or \"60 frames\"",
                    self.qeq
                ),
            ));
        }
        if self.sample_table.is_empty() || self.sample_table.len() > 8 {
            return Err((
                "sample_table".into(),
                format!("{} entries; expected 1 to 8 byte intervals", self.sample_table.len()),
            ));
        }
        for (i, e) in self.sample_table.iter().enumerate() {
            if !matches!(e, Size::Bytes(b) if *b > 0) {
                return Err((
                    format!("sample_table[{i}]"),
                    format!(
                        "\"{e}\" is not a sample interval; expected a positive size in bytes, e.g. \"150KB\""
                    ),
                ));
            }
        }
        if !(self.base_probability > 0.0 && self.base_probability <= 0.1) {
            return Err((
                "base_probability".into(),
                format!(
                    "{:?} is not a base probability; expected a number in (0, 0.1] (it grows to ten times at the largest |Fb|), e.g. 0.01",
                    self.base_probability
                ),
            ));
        }
        if let Some(g) = &self.guidance {
            g.check("guidance")?;
        }
        if self.detailed_table.is_empty() || self.detailed_table.len() > 15 {
            return Err((
                "detailed_table".into(),
                format!("{} entries; expected 1 to 15 byte intervals", self.detailed_table.len()),
            ));
        }
        for (i, e) in self.detailed_table.iter().enumerate() {
            if !matches!(e, Size::Bytes(b) if *b > 0) {
                return Err((
                    format!("detailed_table[{i}]"),
                    format!(
                        "\"{e}\" is not a sample interval; expected a positive size in bytes, e.g. \"10KB\""
                    ),
                ));
            }
        }
        if let Some(m) = &self.congestion_memory {
            if !(m.threshold > 0.0 && m.threshold <= 1.0) {
                return Err((
                    "congestion_memory.threshold".into(),
                    format!(
                        "{:?} is not a fraction of the buffer; expected a number in (0, 1], e.g. 0.9",
                        m.threshold
                    ),
                ));
            }
            if m.max_count > 20 {
                return Err((
                    "congestion_memory.max_count".into(),
                    format!(
                        "{} is too large; expected at most 20 halvings of the sampling interval, e.g. 7",
                        m.max_count
                    ),
                ));
            }
        }
        if let Some(f) = self.qeq_fraction {
            if !(f > 0.0 && f <= 1.0) {
                return Err((
                    "qeq_fraction".into(),
                    format!("{f:?} is not a fraction of the buffer; expected a number in (0, 1], e.g. 0.2"),
                ));
            }
        }
        jitter_rule("jitter", self.jitter)
    }
}

impl Validate for RpParams {
    fn validate(&self) -> Result<(), (String, String)> {
        jitter_rule("jitter", self.jitter)?;
        if !(self.gd > 0.0 && self.gd * 63.0 <= 1.0) {
            return Err((
                "gd".into(),
                format!(
                    "{:?} is out of range; expected 0 < Gd ≤ 1/63 so that a cut never exceeds the rate, e.g. 0.0078125 (1/128)",
                    self.gd
                ),
            ));
        }
        if !(0.0..=1.0).contains(&self.min_dec_factor) {
            return Err((
                "min_dec_factor".into(),
                format!("{:?} is out of range; expected a factor in [0, 1], e.g. 0.5", self.min_dec_factor),
            ));
        }
        if self.timer.0 == 0 {
            return Err((
                "timer".into(),
                "\"0s\" is not a timer period; expected a positive time, e.g. \"15ms\"".into(),
            ));
        }
        if !(self.drift_factor >= 1.0 && self.drift_factor.is_finite()) {
            return Err((
                "drift_factor".into(),
                format!(
                    "{:?} is not a drift factor; expected a number ≥ 1 (1 = off), e.g. 1.0005",
                    self.drift_factor
                ),
            ));
        }
        if !(0.0..=1.0).contains(&self.self_increase_factor) {
            return Err((
                "self_increase_factor".into(),
                format!(
                    "{:?} is out of range; expected a fraction in [0, 1], e.g. 0.001",
                    self.self_increase_factor
                ),
            ));
        }
        if let Some(p) = &self.probes {
            p.check("probes")?;
        }
        if self.byte_counter.value() == 0 {
            return Err((
                "byte_counter".into(),
                format!("\"{}\" is zero; expected a positive byte count, e.g. \"150KB\"", self.byte_counter),
            ));
        }
        Ok(())
    }
}

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
            let ps = crate::scenario::build::frame_time(u64::from(cnm_size), rate);
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
