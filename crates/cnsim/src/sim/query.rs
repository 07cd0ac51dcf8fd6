//! What a run exposes: the read-only query API that metrics, reproductions, the CLI and
//! (later) Python use, and the end-of-run checks.

use super::{Counters, Recorder, Sim};
use crate::engine::Time;
use crate::net::{Frame, Network, QueueStats};
use crate::protocol::{AnyCongestionPoint, AnyLinkControl, AnyReactionPoint, Send};
use crate::traffic::Flow;

impl Sim {
    /// The network: nodes, ports (with their queues and counters) and buffers.
    pub fn net(&self) -> &Network {
        &self.net
    }

    /// The unicast forwarding tables (`Routes::path` gives a flow's ports).
    pub fn routes(&self) -> &crate::net::Routes {
        &self.routes
    }

    /// The multicast trees (`MulticastTrees::out_ports` gives a tree's ports at a node).
    pub fn trees(&self) -> &crate::net::MulticastTrees {
        &self.trees
    }

    /// The flows and their counters.
    pub fn flows(&self) -> &[Flow] {
        &self.flows
    }

    /// The TCP connection of flow `f`, if it is a TCP flow.
    pub fn tcp_connection(&self, f: u32) -> Option<&crate::l4::tcp::Connection> {
        let c = self.flows.get(f as usize)?.tcp;
        self.protocols.tcp.get(c as usize)
    }

    /// The workload flows (`kind = "flows"`): hosts, sizes, starts, ideal and actual
    /// completion times, entry by entry.
    pub fn workload(&self) -> &[crate::metrics::fct::FctRecord] {
        &self.workloads.records
    }

    /// Flow `f`'s RDMA queue pair, if it is one.
    pub fn rdma_qp(&self, f: u32) -> Option<&crate::l4::rdma::Qp> {
        let q = self.flows.get(f as usize)?.qp;
        self.protocols.rdma.get(q as usize)
    }

    /// The incast groups (one per traffic entry with an `sru`).
    pub fn incast_groups(&self) -> &[crate::l4::app::IncastGroup] {
        &self.protocols.incast
    }

    /// Global counters.
    pub fn counters(&self) -> &Counters {
        &self.counters
    }

    /// The sampled time series.
    pub fn recorder(&self) -> &Recorder {
        &self.recorder
    }

    /// The sampled time series, taken out of a finished simulator (no copy).
    pub fn into_recorder(self) -> Recorder {
        self.recorder
    }

    /// The simulated end time.
    pub fn end(&self) -> Time {
        self.end
    }

    /// The congestion points, indexed by `Port::cp`.
    pub fn congestion_points(&self) -> &[AnyCongestionPoint] {
        &self.protocols.congestion_points
    }

    /// The reaction points, indexed by `Flow::rp`.
    pub fn notification_points(&self) -> &[Option<crate::protocol::AnyNotificationPoint>] {
        &self.protocols.notification_points
    }

    /// The reaction points, indexed by `Flow::rp`.
    pub fn reaction_points(&self) -> &[AnyReactionPoint] {
        &self.protocols.reaction_points
    }

    /// The link control (PAUSE / PFC), if any.
    pub fn link_control(&self) -> Option<&AnyLinkControl> {
        self.protocols.link.as_ref()
    }

    /// Frames made and not yet delivered or dropped (queued, in shapers and host inputs,
    /// on wires), built or not.
    #[inline]
    pub fn frames_live(&self) -> u64 {
        self.frames.live() + self.unbuilt + self.absorbed_live
    }

    /// Counters of port `p`'s queues, one per class.
    pub fn queue_stats(&self, p: crate::net::PortId) -> impl Iterator<Item = &QueueStats> {
        self.net.ports[p as usize].classes.queues().map(|q| &q.stats)
    }

    /// Limits the frames the run may hold at once (checked with the progress callback).
    pub fn set_max_live_frames(&mut self, limit: u64) {
        self.max_live_frames = limit;
    }

    /// Sends `frame` at time `at` as `how` says (for tests and scripted experiments: e.g.
    /// a PAUSE frame on a port). Call it right after [`Sim::run_until`]`(at)`, so that
    /// every event before `at` has happened and none after it; a time before the last
    /// event handled is moved up to it.
    pub fn inject(&mut self, at: Time, how: Send, frame: Frame) {
        let now = at.max(self.events.now());
        super::ctx!(self, now).send(how, frame);
        self.flush(now);
    }

    /// Flow counters, mutably (tests).
    #[cfg(test)]
    pub(crate) fn flows_mut(&mut self) -> &mut [Flow] {
        &mut self.flows
    }

    /// Global counters, mutably (tests).
    #[cfg(test)]
    pub(crate) fn counters_mut(&mut self) -> &mut Counters {
        &mut self.counters
    }

    /// Frames waiting in egress queues, shapers and host inputs.
    pub fn frames_queued(&self) -> u64 {
        let in_ports: u64 = self.net.ports.iter().map(|p| p.classes.backlog() + p.control_len() as u64).sum();
        let in_shapers: u64 =
            self.flows.iter().filter_map(|f| f.shaper.as_ref()).map(|l| l.waiting() as u64).sum();
        let in_hosts = self.protocols.link.as_ref().map_or(0, |l| l.frames_held());
        in_ports + in_shapers + in_hosts
    }

    /// Gives back the event queue's room once the run is over for good: the reports read
    /// none of it, and what they compute (the summary; the fair shares of a partitioned
    /// run) then takes that room instead of adding to the run's peak. The simulation
    /// cannot go on afterwards. Out of line: the new queue is made on the stack (its
    /// window is 16 KB), which inlined would sit in the caller's frame under the whole
    /// build and run.
    #[cfg(feature = "outputs")]
    #[inline(never)]
    pub(crate) fn release_events(&mut self) {
        self.events = crate::engine::EventQueue::new();
    }

    /// Checks frame conservation: every frame created was delivered, dropped, or is
    /// still in the network (queued or on a wire), and the arena agrees; every drop is
    /// accounted for where it happened.
    pub fn check_conservation(&self) -> Result<(), String> {
        let c = &self.counters;
        let at_queues: u64 =
            self.net.ports.iter().flat_map(|p| p.classes.queues()).map(|q| q.stats.dropped_frames).sum();
        let at_sources: u64 = self.workloads.retired_source_drops
            + self.flows.iter().map(|f| f.stats.source_dropped_frames).sum::<u64>();
        let on_links: u64 = self.net.losses.iter().map(|l| l.lost).sum();
        if c.dropped
            != c.dropped_at_queues
                + c.dropped_at_sources
                + c.dropped_unroutable
                + c.dropped_at_hosts
                + c.dropped_on_links
            || at_queues != c.dropped_at_queues
            || at_sources != c.dropped_at_sources
            || on_links != c.dropped_on_links
        {
            return Err(format!(
                "drop accounting violated: dropped {} != at queues {} (queue counters {}) + at \
                 sources {} (flow counters {}) + unroutable {} + at hosts {} + on links {} (link \
                 counters {})",
                c.dropped,
                c.dropped_at_queues,
                at_queues,
                c.dropped_at_sources,
                at_sources,
                c.dropped_unroutable,
                c.dropped_at_hosts,
                c.dropped_on_links,
                on_links
            ));
        }
        let unbuilt: u64 =
            self.flows.iter().filter_map(|f| f.shaper.as_ref()).map(|s| s.unbuilt() as u64).sum();
        if unbuilt != self.unbuilt {
            return Err(format!("{unbuilt} frames wait unbuilt in shapers, {} counted", self.unbuilt));
        }
        let in_flight = self.frames_queued() + c.on_wire;
        if c.created != c.delivered + c.dropped + in_flight || in_flight != self.frames_live() {
            return Err(format!(
                "frame conservation violated: created {} != delivered {} + dropped {} + in flight {} \
                 (queued {} + on wire {}); arena holds {}",
                c.created,
                c.delivered,
                c.dropped,
                in_flight,
                self.frames_queued(),
                c.on_wire,
                self.frames_live()
            ));
        }
        Ok(())
    }
}
#[cfg(test)]
mod tests {
    /// Ports and queues are touched by every frame: growing them costs speed everywhere.
    /// (What a frame touches counts more than the total: a queue's counters keep their
    /// cold half, drops and the folded integrals, last.)
    #[test]
    fn hot_structs_stay_small() {
        let port = std::mem::size_of::<crate::net::Port>();
        assert!(port <= 320, "{port}");
        let queue = std::mem::size_of::<crate::net::EgressQueue>();
        assert!(queue <= 168, "{queue}");
        let hot_counters = std::mem::offset_of!(crate::net::QueueStats, dropped_frames);
        assert_eq!(hot_counters, 64, "a length change writes one cache line of counters");
    }
}
