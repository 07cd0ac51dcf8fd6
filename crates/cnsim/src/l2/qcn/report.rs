//! QCN's section of `summary.json`: the network-wide counters, each congestion and
//! reaction point, and Devkota & Reddy's average minrate.

use serde::Serialize;

use super::cp::CpStats;
use super::rp::RpStats;
use super::{Cp, QcnStats, Rp};
use crate::protocol::report::Finished;
use crate::protocol::AnyCongestionPoint;

/// A congestion point's counters.
#[derive(Clone, Debug, Serialize)]
pub struct CpSummary {
    /// Port the CP watches.
    pub port: String,
    /// Its CPID.
    pub(crate) cpid: u32,
    /// Counters.
    #[serde(flatten)]
    pub stats: CpStats,
}

/// A reaction point's counters.
#[derive(Clone, Debug, Serialize)]
pub struct RpSummary {
    /// Flow it controls.
    pub(crate) flow: String,
    /// Rate CR at the end, bit/s.
    pub(crate) final_rate_bps: u64,
    /// Counters.
    #[serde(flatten)]
    pub(crate) stats: RpStats,
}

/// QCN part of the summary.
#[derive(Clone, Debug, Serialize)]
pub struct QcnSummary {
    /// Network-wide counters.
    #[serde(flatten)]
    pub stats: QcnStats,
    /// Per congestion point.
    pub congestion_points: Vec<CpSummary>,
    /// Per reaction point.
    pub(crate) reaction_points: Vec<RpSummary>,
    /// Devkota & Reddy's "average minrate": the lowest rate any reaction point allowed at
    /// each sampling instant (`metrics.interval`), averaged over the run, bit/s.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub avg_minrate_bps: Option<f64>,
}

impl QcnSummary {
    /// The QCN section of a finished run, if it has a QCN congestion or reaction point.
    pub fn of(run: &Finished) -> Option<Self> {
        let net = run.net;
        let cps: Vec<&Cp> = run
            .protocols
            .congestion_points
            .iter()
            .filter_map(|cp| match cp {
                AnyCongestionPoint::Qcn(q) => Some(&q.cp),
                _ => None,
            })
            .collect();
        let rps: Vec<(&str, &Rp)> = run
            .flows
            .iter()
            .filter(|f| f.rp != crate::net::NONE)
            .filter_map(|f| run.protocols.reaction_points[f.rp as usize].as_qcn().map(|rp| (f.name, rp)))
            .collect();
        if cps.is_empty() && rps.is_empty() {
            return None;
        }
        Some(QcnSummary {
            stats: QcnStats::of(run),
            avg_minrate_bps: run.avg_minrate_bps,
            // A CP's id is its port id + 1 (CPs are created in configuration order,
            // not port order).
            congestion_points: cps
                .iter()
                .map(|cp| CpSummary {
                    port: net.port_name(cp.cpid - 1),
                    cpid: cp.cpid,
                    stats: cp.stats.clone(),
                })
                .collect(),
            reaction_points: rps
                .iter()
                .map(|(name, rp)| RpSummary {
                    flow: name.to_string(),
                    final_rate_bps: rp.current_rate(),
                    stats: rp.stats.clone(),
                })
                .collect(),
        })
    }
}
