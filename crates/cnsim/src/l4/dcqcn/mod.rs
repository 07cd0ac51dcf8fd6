//! DCQCN, RoCEv2's congestion control (Zhu et al., "Congestion Control for Large-Scale
//! RDMA Deployments", SIGCOMM 2015): QCN's rate machine driven by ECN.
//!
//! - the congestion point ([`cp`]) is a switch queue marking CE on its instantaneous
//!   length, RED's curve with w_q = 1;
//! - the notification point ([`np`]) is the receiving NIC: it answers CE-marked packets
//!   with at most one CNP per flow per N;
//! - the reaction point ([`rp`]) is the sending NIC's rate limiter: a CNP cuts the rate
//!   by α/2 and raises α; timers and a byte counter bring the rate back.
//!
//! `[protocols.dcqcn]` puts the marking on the `congestion_points` ports and a
//! notification point and a reaction point on each flow of `flows`, whose frames then
//! leave ECN-capable. Run it over PFC (`[protocols.pause]`) for the lossless fabric
//! RoCEv2 expects.

pub mod np;
pub mod rp;

use serde::{Deserialize, Serialize};

use crate::aqm::{AnyDiscipline, Aqm};
use crate::engine::PS_PER_US;
use crate::protocol::{AnyReactionPoint, Validate};
use crate::units::select::{HostSel, PortSel};
use crate::units::{Duration, Size};

pub use crate::aqm::dcqcn as cp;
pub use cp::Marker;
pub use np::Np;
pub use rp::{Clocks, Rp, RpParams, DECREASE_CLOCK};

pub use crate::wire::dcqcn::Cnp;

/// `[protocols.dcqcn]`; the defaults are the paper's 40 Gbit/s values as the reference
/// (§3) gives them.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct DcqcnConfig {
    /// Egress queues that mark: "switches", "all", "none" or port names.
    pub(crate) congestion_points: PortSel,
    /// Flows with a notification point and a reaction point: traffic entry names or
    /// patterns ("*" for all).
    pub(crate) flows: HostSel,
    /// Kmin: no marking at or below this queue (5 KB).
    #[serde(default = "kmin")]
    pub(crate) kmin: Size,
    /// Kmax: marking probability Pmax here, 1 above (200 KB).
    #[serde(default = "kmax")]
    pub(crate) kmax: Size,
    /// Pmax (1 %).
    #[serde(default = "pmax")]
    pub(crate) pmax: f64,
    /// N: the least time between two CNPs of a flow (50 µs).
    #[serde(default = "cnp_interval")]
    pub(crate) cnp_interval: Duration,
    /// Size of a CNP on the wire (64 bytes).
    #[serde(default = "cnp_size")]
    pub(crate) cnp_size: Size,
    /// Priority of CNPs (7: "high priority"; with one class per port they share the
    /// data's queue).
    #[serde(default = "cnp_priority")]
    pub(crate) cnp_priority: u8,
    /// The reaction points' parameters.
    #[serde(default)]
    pub(crate) rp: RpParams,
    /// The queue pairs' window: "bdp" for the HPCC fork's variable window, bdp·R/line
    /// rate (DCQCN+win, the HPCC paper's `dcqcn_vwin`); absent, the traffic entry's
    /// window (or none) stays. Only for flows that are RDMA queue pairs.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(crate) window: Option<crate::l4::rdma::Window>,
    /// Which base RTT sizes the window's BDP: "fabric" (the largest over DCQCN's flows,
    /// the fork's) or "path".
    #[serde(default, skip_serializing_if = "crate::l4::rdma::BaseRtt::is_fabric")]
    pub(crate) base_rtt: crate::l4::rdma::BaseRtt,
}

fn kmin() -> Size {
    Size::Bytes(5_000)
}
fn kmax() -> Size {
    Size::Bytes(200_000)
}
fn pmax() -> f64 {
    0.01
}
fn cnp_interval() -> Duration {
    Duration(50 * PS_PER_US)
}
fn cnp_size() -> Size {
    Size::Bytes(64)
}
fn cnp_priority() -> u8 {
    7
}

impl Validate for DcqcnConfig {
    fn validate(&self) -> Result<(), (String, String)> {
        let same_unit = matches!(
            (self.kmin, self.kmax),
            (Size::Frames(_), Size::Frames(_)) | (Size::Bytes(_), Size::Bytes(_))
        );
        if !same_unit || self.kmin.value() >= self.kmax.value() {
            return Err((
                "kmax".into(),
                format!(
                    "\"{}\" is not above kmin (\"{}\") in the same unit; expected e.g. kmin = \"5KB\", kmax = \"200KB\"",
                    self.kmax, self.kmin
                ),
            ));
        }
        if !(self.pmax > 0.0 && self.pmax <= 1.0) {
            return Err((
                "pmax".into(),
                format!("{} is not a probability; expected (0, 1], e.g. 0.01", self.pmax),
            ));
        }
        if self.cnp_interval.0 == 0 {
            return Err((
                "cnp_interval".into(),
                "\"0s\" is not an interval; expected a positive time, e.g. \"50us\" (the paper's N)".into(),
            ));
        }
        if !matches!(self.cnp_size, Size::Bytes(b) if (1..=9216).contains(&b)) {
            return Err((
                "cnp_size".into(),
                format!("\"{}\" is not a CNP size; expected 1 to 9216 bytes, e.g. \"64B\"", self.cnp_size),
            ));
        }
        if self.cnp_priority > 7 {
            return Err((
                "cnp_priority".into(),
                format!("{} is not a priority; expected 0 to 7", self.cnp_priority),
            ));
        }
        let r = &self.rp;
        if !(r.g > 0.0 && r.g <= 1.0) {
            return Err((
                "rp.g".into(),
                format!("{} is not a weight; expected (0, 1], e.g. 0.00390625 (1/256)", r.g),
            ));
        }
        if !(0.0..=1.0).contains(&r.alpha_init) {
            return Err((
                "rp.alpha_init".into(),
                format!("{} is not a fraction; expected 0 to 1, e.g. 1", r.alpha_init),
            ));
        }
        for (key, d) in [("rp.alpha_timer", r.alpha_timer), ("rp.timer", r.timer)] {
            if d.0 == 0 {
                return Err((
                    key.into(),
                    "\"0s\" is not a period; expected a positive time, e.g. \"55us\"".into(),
                ));
            }
        }
        if !matches!(r.byte_counter, Size::Bytes(b) if b > 0) {
            return Err((
                "rp.byte_counter".into(),
                format!(
                    "\"{}\" is not a byte counter; expected a positive size in bytes, e.g. \"10MB\"",
                    r.byte_counter
                ),
            ));
        }
        if !(1..=1000).contains(&r.fast_recovery) {
            return Err((
                "rp.fast_recovery".into(),
                format!("{} is not a number of cycles; expected 1 to 1000, e.g. 5", r.fast_recovery),
            ));
        }
        if r.min_rate.0 == 0 {
            return Err((
                "rp.min_rate".into(),
                "is zero; expected a positive rate floor, e.g. \"100Mbps\"".into(),
            ));
        }
        if r.clocks == rp::Clocks::Fork {
            if r.rate_decrease_interval.0 == 0 {
                return Err((
                    "rp.rate_decrease_interval".into(),
                    "\"0s\" is not a period; expected a positive time, e.g. \"4us\" (the fork's)".into(),
                ));
            }
            if r.target_on_cut == crate::l2::qcn::TargetRule::AfterByteCycle {
                return Err((
                    "rp.target_on_cut".into(),
                    "\"after-byte-cycle\" needs a byte counter, which clocks = \"fork\" has not; expected \"always\" or \"after-increase\"".into(),
                ));
            }
        }
        if let Some(f) = r.rate_on_first_cnp {
            if !(f > 0.0 && f <= 1.0) {
                return Err((
                    "rp.rate_on_first_cnp".into(),
                    format!("{f} is not a fraction of the rate; expected (0, 1], e.g. 1 (the fork's)"),
                ));
            }
        }
        Ok(())
    }
}

/// DCQCN's counters for the whole network (`dcqcn` in summary.json).
#[derive(Clone, Debug, Default, serde::Serialize)]
pub struct DcqcnStats {
    /// Packets the congestion points marked CE.
    pub(crate) marked: u64,
    /// Marked packets that reached a notification point.
    pub(crate) marked_received: u64,
    /// CNPs the notification points sent.
    pub(crate) cnps_sent: u64,
    /// CNPs that reached their reaction point.
    pub(crate) cnps_received: u64,
    /// CNPs dropped on the way back.
    pub(crate) cnps_dropped: u64,
    /// α of each reaction point at the end of the run, averaged.
    pub(crate) mean_alpha: f64,
}

/// What retired workload flows add to [`DcqcnStats`].
#[derive(Clone, Debug, Default)]
pub struct Retired {
    /// Reaction points.
    flows: u64,
    /// CNPs they heard.
    cnps_received: u64,
    /// Their α at the end of the run, summed.
    alpha_sum: f64,
    /// Marked packets their notification points received.
    marked_received: u64,
    /// CNPs their notification points sent.
    cnps_sent: u64,
}

impl Retired {
    /// Adds `rp`, of a run ending at `end`.
    pub(crate) fn fold_rp(&mut self, rp: &Rp, end: crate::engine::Time) {
        self.flows += 1;
        self.cnps_received += rp.cnps;
        self.alpha_sum += rp.alpha(end);
    }

    /// Adds `np`.
    pub(crate) fn fold_np(&mut self, np: &Np) {
        self.marked_received += np.marked;
        self.cnps_sent += np.cnps;
    }
}

impl DcqcnStats {
    /// The counters of a run, if it has DCQCN flows.
    pub fn of(run: &crate::protocol::Finished) -> Option<Self> {
        let rps: Vec<&Rp> = run
            .protocols
            .reaction_points
            .iter()
            .filter_map(|rp| match rp {
                AnyReactionPoint::Dcqcn(rp) => Some(rp),
                _ => None,
            })
            .collect();
        let retired = &run.protocols.retired.dcqcn;
        if rps.is_empty() && retired.flows == 0 {
            return None;
        }
        let nps = run.protocols.notification_points.iter().flatten().filter_map(|np| np.as_dcqcn());
        let (marked_received, cnps_sent) =
            nps.fold((retired.marked_received, retired.cnps_sent), |(m, c), np| (m + np.marked, c + np.cnps));
        let marked = run
            .net
            .ports
            .iter()
            .flat_map(|p| p.classes.queues())
            .filter_map(|q| match &q.discipline {
                AnyDiscipline::Aqm(a) => match &**a {
                    Aqm::Dcqcn(m) => Some(m.marked),
                    _ => None,
                },
                AnyDiscipline::DropTail | AnyDiscipline::EcnThreshold(_) => None,
            })
            .sum();
        let end = run.end;
        Some(DcqcnStats {
            marked,
            marked_received,
            cnps_sent,
            cnps_received: retired.cnps_received + rps.iter().map(|rp| rp.cnps).sum::<u64>(),
            cnps_dropped: run.kind(crate::net::HeaderKind::Cnp).dropped,
            mean_alpha: (rps.iter().map(|rp| rp.alpha(end)).sum::<f64>() + retired.alpha_sum)
                / (rps.len() as u64 + retired.flows) as f64,
        })
    }
}
