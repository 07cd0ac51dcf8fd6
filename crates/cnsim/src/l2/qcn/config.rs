//! QCN's scenario table (`[protocols.qcn]`) and its rules.

use serde::{Deserialize, Serialize};

use super::{CpParams, MulticastScheme, RpParams};
use crate::protocol::Validate;
use crate::units::select::{HostSel, PortSel};
use crate::units::Size;

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
    pub(crate) enabled: bool,
    /// Egress queues with a congestion point: "switches", "all", "none" or port names.
    pub(crate) congestion_points: PortSel,
    /// Flows with a reaction point: traffic entry names or patterns ("*" for all).
    pub(crate) flows: HostSel,
    /// Multicast scheme.
    #[serde(default)]
    pub(crate) multicast: MulticastScheme,
    /// CNM size on the wire (a minimum-size Ethernet frame).
    #[serde(default = "default_cnm_size")]
    pub(crate) cnm_size: Size,
    /// CNM priority (0..=7).
    #[serde(default)]
    pub(crate) cnm_priority: u8,
    /// Congestion point parameters.
    #[serde(default)]
    pub(crate) cp: CpParams,
    /// Reaction point parameters.
    #[serde(default)]
    pub(crate) rp: RpParams,
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
