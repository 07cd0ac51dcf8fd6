//! E2CM's scenario table (`[protocols.e2cm]`): ECM's congestion points without positive
//! feedback, answering probes (with a fair rate when `guidance` is given: E2CM-PR) or
//! adding their queue's drain time to path probes (E2CM), and a probing reaction point on
//! each selected flow.

use serde::{Deserialize, Serialize};

use crate::l2::ecm::{CpParams, RpParams};
use crate::l2::probing::{GuidanceParams, ProbeParams};
use crate::units::select::{HostSel, PortSel};
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
    pub(crate) enabled: bool,
    /// Egress queues with a congestion point: "switches", "all", "none" or port names.
    pub(crate) congestion_points: PortSel,
    /// Flows with a reaction point: traffic entry names or patterns ("*" for all).
    pub(crate) flows: HostSel,
    /// BCN size on the wire.
    #[serde(default = "default_bcn_size")]
    pub(crate) bcn_size: Size,
    /// BCN priority (0..=7).
    #[serde(default)]
    pub(crate) bcn_priority: u8,
    /// Congestion point parameters (ECM's).
    #[serde(default)]
    pub(crate) cp: CpParams,
    /// Reaction point parameters (ECM's).
    #[serde(default)]
    pub(crate) rp: RpParams,
    /// The probes (probeInterval 100000 bytes, 64 bytes, priority 7).
    #[serde(default)]
    pub(crate) probes: ProbeParams,
    /// Rate guidance in replies (E2CM-PR: rateTimer 1 ms, switchRateWeight 0.02);
    /// absent = E2CM-P.
    #[serde(default)]
    pub(crate) guidance: Option<GuidanceParams>,
    /// Where probes go: "cp" (E2CM-P, E2CM-PR) or "destination" (E2CM).
    #[serde(default)]
    pub(crate) probe_to: ProbeTo,
    /// E2CM: the backlog a flow may hold on its path at equilibrium (Roeck 2007's flowQeq).
    #[serde(default = "default_flow_qeq")]
    pub(crate) flow_qeq: Size,
}
