//! The `summary.json` document: counters of a finished run.

use serde::Serialize;

use crate::engine::time::as_secs;
use crate::l2::qcn::cp::CpStats;
use crate::l2::qcn::rp::RpStats;
use crate::l2::qcn::QcnStats;
use crate::net::{Capacity, NodeKind};
use crate::sim::Sim;
use crate::traffic::FlowStats;

/// Totals over all frames.
#[derive(Clone, Debug, Serialize)]
pub struct FrameTotals {
    /// Frames created (sources, multicast copies, control frames).
    pub created: u64,
    /// Frames consumed by hosts.
    pub delivered: u64,
    /// Frames dropped anywhere: the sum of the next three.
    pub dropped: u64,
    /// Frames dropped at full egress queues (the sum over `queues`).
    pub dropped_at_queues: u64,
    /// Frames lost at sources whose limiter queue was full (the sum over `flows`).
    pub dropped_at_sources: u64,
    /// Frames with no route (or no multicast branch) where they were.
    pub dropped_unroutable: u64,
    /// Frames still queued or on a wire at the end.
    pub in_flight: u64,
}

/// One flow's counters and derived figures.
#[derive(Clone, Debug, Serialize)]
pub struct FlowSummary {
    /// Flow name.
    pub name: String,
    /// Source host.
    pub src: String,
    /// Destination (host, group or "uniform").
    pub dst: String,
    /// Counters.
    #[serde(flatten)]
    pub stats: FlowStats,
    /// Delivered bits over the run's duration, bit/s.
    pub throughput_bps: f64,
    /// Mean one-way delay of delivered frames, s.
    pub mean_delay_s: f64,
}

/// One egress queue's counters and derived figures.
#[derive(Clone, Debug, Serialize)]
pub struct QueueSummary {
    /// Port name "node->next".
    pub port: String,
    /// Limit, e.g. "300 frames".
    pub capacity: String,
    /// Frames offered.
    pub arrived_frames: u64,
    /// Bytes offered.
    pub arrived_bytes: u64,
    /// Frames dropped.
    pub dropped_frames: u64,
    /// Bytes dropped.
    pub dropped_bytes: u64,
    /// Frames sent.
    pub sent_frames: u64,
    /// Bytes sent.
    pub sent_bytes: u64,
    /// Time-weighted mean length, frames.
    pub mean_frames: f64,
    /// Time-weighted standard deviation of the length, frames.
    pub std_frames: f64,
    /// Largest length, frames.
    pub max_frames: u64,
    /// Time-weighted mean length, bytes.
    pub mean_bytes: f64,
    /// Largest length, bytes.
    pub max_bytes: u64,
}

/// A congestion point's counters.
#[derive(Clone, Debug, Serialize)]
pub struct CpSummary {
    /// Port the CP watches.
    pub port: String,
    /// Its CPID.
    pub cpid: u32,
    /// Counters.
    #[serde(flatten)]
    pub stats: CpStats,
}

/// A reaction point's counters.
#[derive(Clone, Debug, Serialize)]
pub struct RpSummary {
    /// Flow it controls.
    pub flow: String,
    /// Rate CR at the end, bit/s.
    pub final_rate_bps: u64,
    /// Counters.
    #[serde(flatten)]
    pub stats: RpStats,
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
    pub reaction_points: Vec<RpSummary>,
}

/// Everything `summary.json` holds. Deterministic: no wall-clock figures (those go to
/// `timing.json`), so equal seeds give byte-identical files.
#[derive(Clone, Debug, Serialize)]
pub struct Summary {
    /// cnsim version.
    pub cnsim_version: String,
    /// Scenario name.
    pub scenario: String,
    /// Seed.
    pub seed: u64,
    /// Simulated duration, s.
    pub duration_s: f64,
    /// Events processed.
    pub events: u64,
    /// Frames put on links.
    pub frame_hops: u64,
    /// Frame totals; conservation holds (checked before writing).
    pub frames: FrameTotals,
    /// Per flow.
    pub flows: Vec<FlowSummary>,
    /// Per egress queue that saw traffic.
    pub queues: Vec<QueueSummary>,
    /// QCN, when enabled.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub qcn: Option<QcnSummary>,
}

fn capacity_text(c: Capacity) -> String {
    match c {
        Capacity::Frames(n) => format!("{n} frames"),
        Capacity::Bytes(b) => format!("{b}B"),
    }
}

impl Summary {
    /// Summarises a finished run.
    pub fn of(sim: &Sim, scenario: &str, seed: u64) -> Self {
        let end = sim.end;
        let secs = as_secs(end);
        let node_name = |n: u32| sim.net.nodes[n as usize].name.clone();
        let flows = sim
            .flows
            .iter()
            .map(|f| {
                let dst = f.dst_name.clone();
                let d = f.stats.delivered_frames;
                FlowSummary {
                    name: f.name.clone(),
                    src: node_name(f.src),
                    dst,
                    stats: f.stats.clone(),
                    throughput_bps: f.stats.delivered_bytes as f64 * 8.0 / secs,
                    mean_delay_s: if d == 0 { 0.0 } else { f.stats.delay_sum as f64 / d as f64 / 1e12 },
                }
            })
            .collect();
        let queues = (0..sim.net.ports.len())
            .filter(|&p| {
                let port = &sim.net.ports[p];
                port.queue.stats.arrived_frames > 0
                    || sim.net.nodes[port.node as usize].kind == NodeKind::Switch
            })
            .map(|p| {
                let q = &sim.net.ports[p].queue;
                let s = &q.stats;
                let (mean, std) = s.mean_std_frames(end);
                QueueSummary {
                    port: sim.net.port_name(p as u32),
                    capacity: capacity_text(q.capacity),
                    arrived_frames: s.arrived_frames,
                    arrived_bytes: s.arrived_bytes,
                    dropped_frames: s.dropped_frames,
                    dropped_bytes: s.dropped_bytes,
                    sent_frames: s.sent_frames,
                    sent_bytes: s.sent_bytes,
                    mean_frames: mean,
                    std_frames: std,
                    max_frames: s.max_frames,
                    mean_bytes: s.mean_bytes(end),
                    max_bytes: s.max_bytes,
                }
            })
            .collect();
        let qcn = (!sim.qcn.cps.is_empty() || !sim.qcn.rps.is_empty()).then(|| {
            QcnSummary {
                stats: sim.qcn.stats.clone(),
                congestion_points: sim
                    .qcn
                    .cps
                    .iter()
                    // A CP's id is its port id + 1 (CPs are created in configuration order,
                    // not port order).
                    .map(|cp| CpSummary {
                        port: sim.net.port_name(cp.cpid - 1),
                        cpid: cp.cpid,
                        stats: cp.stats.clone(),
                    })
                    .collect(),
                reaction_points: sim
                    .flows
                    .iter()
                    .filter(|f| f.rp != crate::net::NONE)
                    .map(|f| {
                        let rp = &sim.qcn.rps[f.rp as usize];
                        RpSummary {
                            flow: f.name.clone(),
                            final_rate_bps: rp.current_rate(),
                            stats: rp.stats.clone(),
                        }
                    })
                    .collect(),
            }
        });
        let c = &sim.counters;
        Summary {
            cnsim_version: crate::VERSION.to_string(),
            scenario: scenario.to_string(),
            seed,
            duration_s: secs,
            events: c.events,
            frame_hops: c.frame_hops,
            frames: FrameTotals {
                created: c.created,
                delivered: c.delivered,
                dropped: c.dropped,
                dropped_at_queues: c.dropped_at_queues,
                dropped_at_sources: c.dropped_at_sources,
                dropped_unroutable: c.dropped_unroutable,
                in_flight: sim.frames.live(),
            },
            flows,
            queues,
            qcn,
        }
    }
}
