//! The protocols' sections of `summary.json`. Each protocol builds its own section in
//! its own module, with a constructor `of` that reads a [`Finished`] run (per flow
//! `of(run, flow)`) and returns `None` when the run does not use it; these registries
//! list the sections, one field and one line per protocol, in the order they appear in
//! the document. The simulator describes its run as a [`Finished`] (`sim/report.rs`).

use serde::Serialize;

use super::Protocols;
use crate::engine::Time;
use crate::l2::{ecm, pause, qcn};
use crate::l4::{dcqcn, hpcc, rdma, tcp};
use crate::net::{HeaderKind, KindCounters, Network};

/// A finished run as the protocols' sections read it: the network, the protocols'
/// states, and what the data path counted.
pub struct Finished<'a> {
    /// The network at the end of the run.
    pub(crate) net: &'a Network,
    /// The protocols of the run.
    pub(crate) protocols: &'a Protocols,
    /// The flows, in flow order.
    pub(crate) flows: Vec<FinishedFlow<'a>>,
    /// The counters of each kind of frame, in the order of [`HeaderKind::ALL`].
    pub(crate) kinds: [KindCounters; HeaderKind::ALL.len()],
    /// The simulated end time.
    pub(crate) end: Time,
    /// Devkota & Reddy's "average minrate": the lowest rate any reaction point allowed at
    /// each sampling instant, averaged over the run, bit/s; `None` without samples.
    pub(crate) avg_minrate_bps: Option<f64>,
}

/// A flow as the protocols' sections read it: its name and where its protocols' states
/// are (`NONE` where it has none).
#[derive(Clone, Copy, Debug)]
pub struct FinishedFlow<'a> {
    /// The flow's name.
    pub(crate) name: &'a str,
    /// Its reaction point, in [`Protocols::reaction_points`].
    pub(crate) rp: u32,
    /// Its TCP connection, in [`Protocols::tcp`].
    pub(crate) tcp: u32,
    /// Its RDMA queue pair, in [`Protocols::rdma`].
    pub(crate) qp: u32,
}

impl Finished<'_> {
    /// The counters of one kind of frame.
    pub fn kind(&self, kind: HeaderKind) -> KindCounters {
        let i = HeaderKind::ALL.iter().position(|&k| k == kind).expect("every kind is in HeaderKind::ALL");
        self.kinds[i]
    }
}

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
    pub(crate) dcqcn: Option<dcqcn::DcqcnStats>,
    /// HPCC, when configured.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(crate) hpcc: Option<hpcc::HpccStats>,
    /// PAUSE / PFC, when configured.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub pause: Option<pause::PauseSummary>,
}

impl Sections {
    /// The sections of a finished run.
    pub fn of(run: &Finished) -> Self {
        Sections {
            qcn: qcn::QcnSummary::of(run),
            ecm: ecm::EcmStats::of(run),
            dcqcn: dcqcn::DcqcnStats::of(run),
            hpcc: hpcc::HpccStats::of(run),
            pause: pause::PauseSummary::of(run),
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
    pub(crate) rdma: Option<rdma::QpStats>,
}

impl FlowSections {
    /// The sections of flow `flow` of a finished run.
    pub fn of(run: &Finished, flow: u32) -> Self {
        FlowSections { tcp: tcp::TcpSummary::of(run, flow), rdma: rdma::QpStats::of(run, flow) }
    }
}
