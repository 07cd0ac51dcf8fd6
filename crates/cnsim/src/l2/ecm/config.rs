//! ECM's scenario table (`[protocols.ecm]`) and its rules.

use serde::{Deserialize, Serialize};

use super::{CpParams, RpParams};
use crate::protocol::Validate;
use crate::units::select::{HostSel, PortSel};
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
    pub(crate) enabled: bool,
    /// Egress queues with a congestion point: "switches", "all", "none" or port names.
    pub(crate) congestion_points: PortSel,
    /// Flows with a reaction point: traffic entry names or patterns ("*" for all).
    pub(crate) flows: HostSel,
    /// BCN size on the wire (a minimum-size Ethernet frame).
    #[serde(default = "default_bcn_size")]
    pub(crate) bcn_size: Size,
    /// BCN priority (0..=7).
    #[serde(default)]
    pub(crate) bcn_priority: u8,
    /// Congestion point parameters.
    #[serde(default)]
    pub(crate) cp: CpParams,
    /// Reaction point parameters.
    #[serde(default)]
    pub(crate) rp: RpParams,
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
