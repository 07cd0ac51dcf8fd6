//! The `summary.json` document: counters of a finished run.
//!
//! This module knows frames, flows, queues and links, and no protocol: each protocol's
//! section comes from the protocol's own module through [`crate::protocol::Sections`]
//! (a flow's transport section through [`crate::protocol::FlowSections`]), and a queue
//! discipline's counters through [`crate::aqm::Discipline::summary`].

use serde::Serialize;

use crate::engine::time::as_secs;
use std::collections::BTreeMap;

use crate::net::{Capacity, HeaderKind};
use crate::sim::{KindCounters, Sim};
use crate::traffic::FlowStats;

/// Totals over all frames.
#[derive(Clone, Debug, Serialize)]
pub struct FrameTotals {
    /// Frames created (sources, multicast copies, control frames).
    pub(crate) created: u64,
    /// Frames consumed by hosts.
    pub(crate) delivered: u64,
    /// Frames dropped anywhere: the sum of the next four (five with lossy links).
    pub(crate) dropped: u64,
    /// Frames dropped at full egress queues (the sum over `queues`).
    pub(crate) dropped_at_queues: u64,
    /// Frames lost at sources whose limiter queue was full (the sum over `flows`).
    pub(crate) dropped_at_sources: u64,
    /// Frames with no route (or no multicast branch) where they were.
    pub(crate) dropped_unroutable: u64,
    /// Frames lost at full host input buffers.
    pub(crate) dropped_at_hosts: u64,
    /// Frames lost on links by their loss processes (the sum over `links`); only when
    /// some link has one.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(crate) dropped_on_links: Option<u64>,
    /// Frames still queued or on a wire at the end.
    pub(crate) in_flight: u64,
    /// The same counts per kind of frame ([`HeaderKind`]).
    pub by_kind: BTreeMap<HeaderKind, KindCounters>,
}

/// One flow's counters and derived figures.
#[derive(Clone, Debug, Serialize)]
pub struct FlowSummary {
    /// Flow name.
    pub name: String,
    /// Source host.
    pub src: String,
    /// Destination (host, group or "uniform").
    pub(crate) dst: String,
    /// Counters.
    #[serde(flatten)]
    pub stats: FlowStats,
    /// Delivered bits over the run's duration, bit/s.
    pub throughput_bps: f64,
    /// The flow's max-min fair rate, bit/s: the allocation of each phase of constant
    /// offered load (flows starting and stopping, on/off sources switching), averaged
    /// over the run's duration like `throughput_bps` (unicast flows; see
    /// `metrics::maxmin`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(crate) maxmin_bps: Option<f64>,
    /// throughput_bps ÷ maxmin_bps: 1 when the flow got exactly its fair share.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub maxmin_share: Option<f64>,
    /// Mean one-way delay of delivered frames, s (from creation at the source).
    pub(crate) mean_delay_s: f64,
    /// Median one-way delay, s (log histogram: within 3.2 %), with
    /// `metrics.delay_percentiles`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(crate) p50_delay_s: Option<f64>,
    /// 99th percentile of the one-way delay, s (within 3.2 %), with
    /// `metrics.delay_percentiles`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(crate) p99_delay_s: Option<f64>,
    /// Largest one-way delay, s (exact).
    pub(crate) max_delay_s: f64,
    /// Mean |difference| of the delays of consecutive delivered frames, s (jitter).
    pub(crate) delay_variation_s: f64,
    /// The sections of the transport the flow uses, each built by its protocol's own
    /// module (see [`crate::protocol::FlowSections`]).
    #[serde(flatten)]
    pub transport: crate::protocol::FlowSections,
}

/// One egress queue's counters and derived figures.
#[derive(Clone, Debug, Serialize)]
pub struct QueueSummary {
    /// Port name "node->next".
    pub port: String,
    /// Traffic class, on ports with several.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(crate) class: Option<u8>,
    /// Limit, e.g. "300 frames".
    pub(crate) capacity: String,
    /// Frames offered.
    pub(crate) arrived_frames: u64,
    /// Bytes offered.
    pub(crate) arrived_bytes: u64,
    /// Frames dropped.
    pub dropped_frames: u64,
    /// Bytes dropped.
    pub(crate) dropped_bytes: u64,
    /// Frames marked CE by the queue discipline (omitted when none).
    #[serde(skip_serializing_if = "crate::units::is_zero")]
    pub(crate) marked_frames: u64,
    /// Frames sent.
    pub sent_frames: u64,
    /// Bytes sent.
    pub sent_bytes: u64,
    /// Time-weighted mean length, frames.
    pub mean_frames: f64,
    /// Time-weighted standard deviation of the length, frames.
    pub(crate) std_frames: f64,
    /// Largest length, frames.
    pub max_frames: u64,
    /// Time-weighted mean length, bytes.
    pub mean_bytes: f64,
    /// Largest length, bytes.
    pub(crate) max_bytes: u64,
    /// The queue discipline's own counters and state at the end, from
    /// [`crate::aqm::Discipline::summary`].
    #[serde(skip_serializing_if = "Option::is_none")]
    pub aqm: Option<crate::aqm::AqmSummary>,
}

/// Everything `summary.json` holds. Deterministic: no wall-clock figures (those go to
/// `timing.json`), so equal seeds give byte-identical files.
///
/// The per-flow and per-queue records are `F` and `Q`: lists built in memory by
/// [`Summary::of`], or [`FlowRecords`] and [`QueueRecords`], which make each record as
/// it is written ([`Summary::streamed`]). A run with thousands of senders has a record
/// per flow and per port, and holding them all at once would double its peak memory.
#[derive(Clone, Debug, Serialize)]
pub struct Summary<F = Vec<FlowSummary>, Q = Vec<QueueSummary>> {
    /// cnsim version.
    pub(crate) cnsim_version: String,
    /// Scenario name.
    pub(crate) scenario: String,
    /// Seed.
    pub(crate) seed: u64,
    /// Simulated duration, s.
    pub duration_s: f64,
    /// Events processed.
    pub(crate) events: u64,
    /// Frames put on links.
    pub(crate) frame_hops: u64,
    /// Frame totals; conservation holds (checked before writing).
    pub frames: FrameTotals,
    /// Per flow (not the flows of workloads: see `fct`).
    pub flows: F,
    /// The workload flows' completion times and slowdowns.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(crate) fct: Option<super::fct::FctSummary>,
    /// Per egress queue of every port that carried traffic.
    pub queues: Q,
    /// Ports (link directions) that carried nothing, left out of `queues`.
    pub(crate) idle_ports: u64,
    /// Jain's index over the unicast flows' `maxmin_share` (Jain's fairness against the
    /// optimal allocation): 1 when every flow gets the same fraction of its fair share.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub maxmin_fairness: Option<f64>,
    /// The sections of the protocols the run uses, each built by its protocol's own
    /// module (see [`crate::protocol::Sections`]).
    #[serde(flatten)]
    pub protocols: crate::protocol::Sections,
    /// Every link with a loss process: its port, its process and the frames it lost.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub(crate) links: Vec<LinkSummary>,
    /// Settings that had no effect in this run ("key path: why"; see
    /// [`crate::scenario::warnings()`]).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub(crate) warnings: Vec<String>,
}

/// One lossy link's counters.
#[derive(Clone, Debug, Serialize)]
pub struct LinkSummary {
    /// The sending port, "node->next".
    pub(crate) port: String,
    /// Its loss process, as the scenario gives it.
    pub(crate) loss: String,
    /// Frames lost on the link.
    pub(crate) lost_frames: u64,
    /// Frames sent onto the link (every class).
    pub(crate) sent_frames: u64,
}

fn capacity_text(c: Capacity) -> String {
    match c {
        Capacity::Frames(n) => format!("{n} frames"),
        Capacity::Bytes(b) => format!("{b}B"),
    }
}

/// A finished run's flow records, made one at a time: serialized as the list
/// [`Summary::of`] builds, without holding it.
#[derive(Clone, Copy)]
pub struct FlowRecords<'a> {
    sim: &'a Sim,
    /// Each flow's max-min fair rate ([`super::maxmin::of_sim`]).
    fair: &'a [Option<f64>],
}

impl std::fmt::Debug for FlowRecords<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("FlowRecords").field("flows", &self.sim.flows().len()).finish()
    }
}

impl<'a> FlowRecords<'a> {
    /// The records, in flow order: every flow but those of workloads.
    pub fn iter(self) -> impl Iterator<Item = FlowSummary> + 'a {
        let (sim, secs) = (self.sim, as_secs(self.sim.end()));
        let run = sim.finished();
        let node_name = |n: u32| sim.net().nodes[n as usize].name.clone();
        sim.flows().iter().zip(self.fair).enumerate().filter(|(_, (f, _))| !f.workload).map(
            move |(i, (f, &fair))| {
                let (throughput_bps, maxmin_share) = throughput_and_share(f, fair, secs);
                let d = f.stats.delivered_frames;
                FlowSummary {
                    name: f.name.clone(),
                    src: node_name(f.src),
                    dst: f.dst_name.as_deref().unwrap_or_default().to_string(),
                    stats: f.stats.clone(),
                    throughput_bps,
                    maxmin_bps: fair,
                    maxmin_share,
                    mean_delay_s: if d == 0 { 0.0 } else { f.stats.delay_sum as f64 / d as f64 / 1e12 },
                    p50_delay_s: f.stats.delay.quantile_s(0.5),
                    p99_delay_s: f.stats.delay.quantile_s(0.99),
                    max_delay_s: f.stats.delay.max as f64 / 1e12,
                    delay_variation_s: f.stats.delay.variation_s(),
                    transport: crate::protocol::FlowSections::of(&run, i as u32),
                }
            },
        )
    }

    /// The records' `maxmin_share`s, in order, those without one left out: what the
    /// fairness index and the fair-share plot need, without making the records.
    pub fn shares(self) -> impl Iterator<Item = f64> + 'a {
        let secs = as_secs(self.sim.end());
        let flows = self.sim.flows().iter().zip(self.fair).filter(|(f, _)| !f.workload);
        flows.filter_map(move |(f, &fair)| throughput_and_share(f, fair, secs).1)
    }
}

/// Flow `f`'s delivered bits over the run's `secs`, bit/s, and that throughput over
/// its max-min fair rate `fair` where it has a positive one.
fn throughput_and_share(f: &crate::traffic::Flow, fair: Option<f64>, secs: f64) -> (f64, Option<f64>) {
    let throughput_bps = f.stats.delivered_bytes as f64 * 8.0 / secs;
    (throughput_bps, fair.filter(|&r| r > 0.0).map(|r| throughput_bps / r))
}

impl Serialize for FlowRecords<'_> {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.collect_seq(self.iter())
    }
}

/// A finished run's queue records, made one at a time: serialized as the list
/// [`Summary::of`] builds, without holding it.
#[derive(Clone, Copy)]
pub struct QueueRecords<'a> {
    sim: &'a Sim,
}

impl std::fmt::Debug for QueueRecords<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("QueueRecords").field("ports", &self.sim.net().ports.len()).finish()
    }
}

impl<'a> QueueRecords<'a> {
    /// The records, in port and class order: every class of every port that carried
    /// traffic.
    pub fn iter(self) -> impl Iterator<Item = QueueSummary> + 'a {
        let (net, end) = (self.sim.net(), self.sim.end());
        net.ports.iter().enumerate().filter(|(_, port)| carried_traffic(port)).flat_map(move |(p, port)| {
            let several = port.classes.count() > 1;
            (0u8..).zip(port.classes.queues()).map(move |(class, q)| {
                let s = &q.stats;
                let (mean, std) = s.mean_std_frames(end);
                QueueSummary {
                    port: net.port_name(p as u32),
                    class: several.then_some(class),
                    capacity: capacity_text(q.capacity),
                    arrived_frames: q.arrived_frames(),
                    arrived_bytes: q.arrived_bytes(),
                    dropped_frames: s.dropped_frames,
                    dropped_bytes: s.dropped_bytes,
                    marked_frames: s.marked_frames,
                    sent_frames: s.sent_frames,
                    sent_bytes: s.sent_bytes,
                    mean_frames: mean,
                    std_frames: std,
                    max_frames: s.max_frames,
                    mean_bytes: s.mean_bytes(end),
                    max_bytes: s.max_bytes,
                    aqm: q.discipline.summary(),
                }
            })
        })
    }
}

impl Serialize for QueueRecords<'_> {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.collect_seq(self.iter())
    }
}

/// Whether `port` has a queue record: some class of it was offered a frame.
fn carried_traffic(port: &crate::net::Port) -> bool {
    port.classes.queues().any(|q| q.arrived_frames() > 0)
}

impl Summary {
    /// Summarises a finished run, every record in memory.
    pub fn of(sim: &Sim, scenario: &str, seed: u64) -> Self {
        let fair = super::maxmin::of_sim(sim);
        let s = Summary::streamed(sim, &fair, scenario, seed);
        let (flows, queues) = (s.flows.iter().collect(), s.queues.iter().collect());
        s.with_records(flows, queues)
    }
}

impl<'a> Summary<FlowRecords<'a>, QueueRecords<'a>> {
    /// Summarises a finished run whose flows have the max-min fair rates `fair`
    /// ([`super::maxmin::of_sim`]); the records are made as they are written.
    pub fn streamed(sim: &'a Sim, fair: &'a [Option<f64>], scenario: &str, seed: u64) -> Self {
        let flows = FlowRecords { sim, fair };
        let shares: Vec<f64> = flows.shares().collect();
        let maxmin_fairness = (!shares.is_empty()).then(|| super::jain_index(&shares));
        let idle_ports = sim.net().ports.iter().filter(|p| !carried_traffic(p)).count() as u64;
        let c = sim.counters();
        let fct = super::fct::FctSummary::of(&super::fct::rows(sim))
            .map(|f| super::fct::FctSummary { peak_active_flows: Some(sim.peak_active_flows()), ..f });
        Summary {
            cnsim_version: crate::VERSION.to_string(),
            scenario: scenario.to_string(),
            seed,
            duration_s: as_secs(sim.end()),
            events: c.events,
            frame_hops: c.frame_hops,
            frames: FrameTotals {
                created: c.created,
                delivered: c.delivered,
                dropped: c.dropped,
                dropped_at_queues: c.dropped_at_queues,
                dropped_at_sources: c.dropped_at_sources,
                dropped_unroutable: c.dropped_unroutable,
                dropped_at_hosts: c.dropped_at_hosts,
                dropped_on_links: (!sim.net().losses.is_empty()).then_some(c.dropped_on_links),
                in_flight: sim.frames_live(),
                by_kind: HeaderKind::ALL
                    .iter()
                    .map(|&k| (k, c.kind(k)))
                    .filter(|(_, k)| k.created > 0)
                    .collect(),
            },
            flows,
            fct,
            queues: QueueRecords { sim },
            idle_ports,
            maxmin_fairness,
            protocols: crate::protocol::Sections::of(&sim.finished()),
            links: LinkSummary::of(sim),
            warnings: Vec::new(),
        }
    }

    /// The summary of a run of scenario `scenario` with seed `seed` (flows' fair rates
    /// `fair`), with the scenario's `warnings` (each "key path: message") and the packet
    /// trace's when it filled up.
    pub fn with_warnings(
        sim: &'a Sim,
        fair: &'a [Option<f64>],
        scenario: &str,
        seed: u64,
        warnings: Vec<String>,
    ) -> Self {
        let mut summary = Summary::streamed(sim, fair, scenario, seed);
        summary.warnings = warnings;
        if let Some(full) = sim.recorder().trace.as_deref().and_then(|t| t.full_warning()) {
            summary.warnings.push(full);
        }
        summary
    }
}

impl<F, Q> Summary<F, Q> {
    /// The same summary with the records `flows` and `queues`.
    fn with_records<F2, Q2>(self, flows: F2, queues: Q2) -> Summary<F2, Q2> {
        Summary {
            cnsim_version: self.cnsim_version,
            scenario: self.scenario,
            seed: self.seed,
            duration_s: self.duration_s,
            events: self.events,
            frame_hops: self.frame_hops,
            frames: self.frames,
            flows,
            fct: self.fct,
            queues,
            idle_ports: self.idle_ports,
            maxmin_fairness: self.maxmin_fairness,
            protocols: self.protocols,
            links: self.links,
            warnings: self.warnings,
        }
    }
}

impl LinkSummary {
    /// The lossy links of `sim`, in port order.
    fn of(sim: &Sim) -> Vec<LinkSummary> {
        let net = sim.net();
        (0..net.ports.len() as u32)
            .filter_map(|p| {
                let port = &net.ports[p as usize];
                let loss = net.losses.get(port.loss as usize)?;
                Some(LinkSummary {
                    port: net.port_name(p),
                    loss: loss.spec().to_string(),
                    lost_frames: loss.lost,
                    sent_frames: port.classes.queues().map(|q| q.stats.sent_frames).sum(),
                })
            })
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The records made as they are written serialize to the same bytes as the lists
    /// [`Summary::of`] builds: flows of two kinds (CBR, and TCP with its transport
    /// section), queues of a port with two classes, and idle ports left out.
    #[test]
    fn streamed_records_write_what_the_built_lists_write() {
        let text = r#"
name = "records"
duration = "2ms"
[topology.dumbbell]
senders = 3
sender_link = { rate = "10Gbps", delay = "2us" }
bottleneck = { rate = "10Gbps", delay = "10us" }
receiver_link = { rate = "10Gbps", delay = "2us" }
[queues]
capacity = "100 frames"
classes = 2
[[traffic]]
name = "cbr"
kind = "cbr"
from = ["s1", "s2"]
to = "d1"
rate = "6Gbps"
priority = 5
[[traffic]]
name = "tcp"
kind = "tcp"
from = "s3"
to = "d1"
"#;
        let s = crate::scenario::parse(text, "records.toml", &[]).unwrap_or_else(|e| panic!("{e}"));
        let mut sim = crate::scenario::build(&s, "records.toml").unwrap_or_else(|e| panic!("{e}"));
        sim.run_to_end();
        let built = Summary::of(&sim, "records", 1);
        assert_eq!(built.flows.len(), 3);
        assert!(built.flows[2].transport.tcp.is_some(), "the TCP flow has its section");
        assert!(built.queues.iter().any(|q| q.class == Some(1)), "the classes are named");
        assert!(
            built.idle_ports > 0 && built.queues.iter().all(|q| q.arrived_frames > 0 || q.class.is_some())
        );
        let fair = crate::metrics::maxmin::of_sim(&sim);
        let streamed = Summary::streamed(&sim, &fair, "records", 1);
        let shares: Vec<f64> = built.flows.iter().filter_map(|f| f.maxmin_share).collect();
        assert!(!shares.is_empty());
        assert_eq!(streamed.flows.shares().collect::<Vec<_>>(), shares);
        let (built, streamed) =
            (serde_json::to_string_pretty(&built), serde_json::to_string_pretty(&streamed));
        assert_eq!(built.expect("serializable"), streamed.expect("serializable"));
    }
}
