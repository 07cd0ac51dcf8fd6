//! PAUSE's section of `summary.json`: the ports that sent or received PAUSE frames and
//! the hosts with an input service rate.

use serde::Serialize;

use super::{HostInputStats, PortPauseStats};
use crate::protocol::Finished;

/// One port's PAUSE counters.
#[derive(Clone, Debug, Serialize)]
pub struct PausePortSummary {
    /// Port name.
    pub port: String,
    /// Counters.
    #[serde(flatten)]
    pub stats: PortPauseStats,
}

/// One host input's counters.
#[derive(Clone, Debug, Serialize)]
pub struct HostInputSummary {
    /// Host name.
    pub(crate) host: String,
    /// Counters.
    #[serde(flatten)]
    pub stats: HostInputStats,
}

/// PAUSE part of the summary.
#[derive(Clone, Debug, Serialize)]
pub struct PauseSummary {
    /// Ports that sent or received PAUSE frames.
    pub ports: Vec<PausePortSummary>,
    /// Hosts with an input service rate.
    pub hosts: Vec<HostInputSummary>,
}

impl PauseSummary {
    /// The PAUSE section of a finished run, if it runs PAUSE or PFC.
    pub fn of(run: &Finished) -> Option<Self> {
        let net = run.net;
        let counters = run.protocols.link.as_ref().and_then(|l| l.as_pause())?.counters();
        Some(PauseSummary {
            ports: counters
                .ports
                .into_iter()
                .filter(|(_, st)| st.pause_sent + st.resume_sent + st.pause_received + st.resume_received > 0)
                .map(|(port, stats)| PausePortSummary { port: net.port_name(port), stats })
                .collect(),
            hosts: counters
                .hosts
                .into_iter()
                .map(|(h, stats)| HostInputSummary { host: net.nodes[h as usize].name.clone(), stats })
                .collect(),
        })
    }
}
