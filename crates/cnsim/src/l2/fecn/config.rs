//! FECN's scenario table (`[protocols.fecn]`) and its rules.

use serde::{Deserialize, Serialize};

use super::{RpParams, SwitchParams, DEFAULT_T};
use crate::protocol::Validate;
use crate::units::select::{HostSel, PortSel};
use crate::units::{Duration, Size};

fn default_true() -> bool {
    true
}

fn default_probe_size() -> Size {
    Size::Bytes(64)
}

fn default_t() -> Duration {
    DEFAULT_T
}

/// Probe priority under `probe_class = "high"` when `probe_priority` is not given.
pub const DEFAULT_PROBE_PRIORITY: u8 = 7;

/// Which class FECN's probes (and FECN-B's BCN(0,0)) travel in.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum ProbeClass {
    /// At `probe_priority` (7 unless given), which must select a class above every
    /// regulated flow's data class (`queues.classes` ≥ 2), so that probes pass full data
    /// queues (strict priority): Roeck 2007 sends its probes "as high priority frames".
    #[default]
    High,
    /// At each flow's own priority, in its data's class, where a full queue delays and
    /// drops them as it does data: the reading of Jain's FECN, whose rate-discovery tag
    /// rides in data frames.
    Data,
}

/// `[protocols.fecn]`. As for QCN, where FECN applies is never implied.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct FecnConfig {
    /// Switch FECN on or off without deleting the table.
    #[serde(default = "default_true")]
    pub(crate) enabled: bool,
    /// Switch ports that compute an advertised rate: "switches", "all", "none" or names.
    pub(crate) congestion_points: PortSel,
    /// Flows that probe and follow the advertised rate.
    pub(crate) flows: HostSel,
    /// The switches' measurement interval and the sources' probe period (Roeck 2007: 1 ms).
    #[serde(default = "default_t")]
    pub(crate) t: Duration,
    /// Probe size on the wire.
    #[serde(default = "default_probe_size")]
    pub(crate) probe_size: Size,
    /// The class probes travel in.
    #[serde(default)]
    pub(crate) probe_class: ProbeClass,
    /// Probe priority (0..=7) under `probe_class = "high"`; absent = 7.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(crate) probe_priority: Option<u8>,
    /// Switch parameters.
    #[serde(default)]
    pub(crate) switch: SwitchParams,
    /// Source parameters.
    #[serde(default)]
    pub(crate) source: RpParams,
    /// FECN-B's backward BCN(0,0) under severe congestion; absent = FECN.
    #[serde(default)]
    pub(crate) severe: Option<super::Severe>,
}

impl Validate for SwitchParams {
    fn validate(&self) -> Result<(), (String, String)> {
        let check = |key: &str, ok: bool, value: f64, expected: &str| {
            if ok {
                Ok(())
            } else {
                Err((key.to_string(), format!("{value:?} is out of range; expected {expected}")))
            }
        };
        check("n0", self.n0 >= 1.0 && self.n0.is_finite(), self.n0, "N0 ≥ 1, e.g. 10")?;
        check("a", self.a > 1.0 && self.a.is_finite(), self.a, "A > 1, e.g. 1.1")?;
        check("b", self.b >= 1.0 && self.b.is_finite(), self.b, "B ≥ 1, e.g. 1.002")?;
        check("c", self.c > 0.0 && self.c <= 1.0, self.c, "0 < C ≤ 1, e.g. 0.1")?;
        check("alpha", self.alpha > 0.0 && self.alpha <= 1.0, self.alpha, "0 < α ≤ 1, e.g. 0.5")?;
        if self.qeq.value() == 0 {
            return Err((
                "qeq".into(),
                format!("\"{}\" is zero; expected a positive size, e.g. \"24000B\"", self.qeq),
            ));
        }
        if self.min_rate.0 == 0 {
            return Err((
                "min_rate".into(),
                "\"0bps\" is not a rate floor; expected a positive rate, e.g. \"10Mbps\"".into(),
            ));
        }
        Ok(())
    }
}
