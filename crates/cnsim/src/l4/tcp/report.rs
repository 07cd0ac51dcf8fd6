//! TCP's section of a flow in `summary.json`: the connection's counters and DCTCP's α.

use serde::Serialize;

use crate::protocol::Finished;

/// A TCP connection's counters. The flow's own counters count its data segments (the
/// SYN and retransmissions included: `sent_frames`, `sent_bytes`, `dropped_frames`) and
/// the in-order data delivered (`delivered_frames`, `delivered_bytes`); its ACKs, which
/// travel the other way, are counted here.
#[derive(Clone, Debug, Serialize)]
pub struct TcpSummary {
    /// The sender's counters.
    #[serde(flatten)]
    pub sender: super::sender::SenderStats,
    /// ACKs the receiver sent.
    pub acks_sent: u64,
    /// ACKs dropped in the network.
    pub acks_dropped: u64,
    /// DCTCP: α at the end and the estimates taken.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(crate) dctcp: Option<DctcpSummary>,
}

/// A DCTCP sender's estimate of the marked fraction.
#[derive(Clone, Debug, Serialize)]
pub struct DctcpSummary {
    /// α at the end of the run.
    pub(crate) alpha: f64,
    /// Times α was updated (windows of data acknowledged).
    pub(crate) alpha_updates: u64,
}

impl TcpSummary {
    /// The section of flow `flow` of a finished run, if the flow is a TCP connection.
    pub fn of(run: &Finished, flow: u32) -> Option<Self> {
        let c = run.protocols.tcp.get(run.flows.get(flow as usize)?.tcp as usize)?;
        Some(TcpSummary {
            sender: c.sender.stats.clone(),
            acks_sent: c.acks_sent,
            acks_dropped: c.acks_dropped,
            dctcp: c.sender.cc.dctcp().map(|d| DctcpSummary { alpha: d.alpha, alpha_updates: d.updates }),
        })
    }
}
