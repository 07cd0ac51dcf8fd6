//! The protocols' sections of `summary.json`. Each protocol builds its own section in
//! its own module, with a constructor `of` that returns `None` when the run does not use
//! it; these registries list the sections, one field and one line per protocol, in the
//! order they appear in the document.

use serde::Serialize;

use crate::l2::{ecm, pause, qcn};
use crate::l4::{dcqcn, rdma, tcp};
use crate::sim::Sim;

/// The run-wide protocol sections of `summary.json`, each present when the run uses the
/// protocol.
#[derive(Clone, Debug, Serialize)]
pub struct Sections {
    /// QCN, when enabled.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub qcn: Option<qcn::QcnSummary>,
    /// ECM, when enabled.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub ecm: Option<ecm::EcmStats>,
    /// DCQCN, when configured.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub dcqcn: Option<dcqcn::DcqcnStats>,
    /// PAUSE / PFC, when configured.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub pause: Option<pause::PauseSummary>,
}

impl Sections {
    /// The sections of a finished run.
    pub fn of(sim: &Sim) -> Self {
        Sections {
            qcn: qcn::QcnSummary::of(sim),
            ecm: ecm::EcmStats::of(sim),
            dcqcn: dcqcn::DcqcnStats::of(sim),
            pause: pause::PauseSummary::of(sim),
        }
    }
}

/// A flow's transport sections of `summary.json`, each present when the flow uses the
/// transport.
#[derive(Clone, Debug, Serialize)]
pub struct FlowSections {
    /// A TCP flow's connection counters (segments, retransmissions, timeouts, ACKs).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub tcp: Option<tcp::TcpSummary>,
    /// An RDMA flow's queue-pair counters (the message, acknowledgements,
    /// retransmissions, completion time).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub rdma: Option<rdma::QpStats>,
}

impl FlowSections {
    /// The sections of flow `flow` of a finished run.
    pub fn of(sim: &Sim, flow: u32) -> Self {
        FlowSections { tcp: tcp::TcpSummary::of(sim, flow), rdma: rdma::QpStats::of(sim, flow) }
    }
}
