//! The speed model of a partitioned run: how much of one run's work a conservative
//! parallel engine could do at once, measured on the sequential engine.
//!
//! Such an engine (Unison, EuroSys 2024; the classic window-based conservative
//! synchronisation) splits the network into partitions, one event queue each, and
//! advances them in *windows*: from the earliest pending event t₀ of all partitions to
//! t₀ + L, where the lookahead L is the shortest delay of a link between two partitions
//! (a frame sent over it in the window arrives after the window). Inside a window the
//! partitions run alone; at its end they meet at a barrier and exchange the frames that
//! crossed. A window then takes as long as its busiest partition, plus the barrier.
//!
//! [`Probe`] replays that accounting on a sequential run: every event is placed on the
//! partition of the node it acts at, windows are cut as the engine would cut them, and
//! [`Model`] reports per thread count (one partition per thread) the events per window
//! and partition, the critical path (the sum over windows of the busiest partition's
//! events), the available parallelism (events over critical path, the speed-up bound
//! with free synchronisation) and a predicted speed-up with the barrier's cost.
//!
//! Partitions follow the topology, never the run (see [`Partition::of`]): each host goes
//! with the switch its first link reaches; switches with hosts are cut, in node order,
//! into runs of equal host counts (a generated fat-tree or Clos numbers its ToRs pod by
//! pod, so the runs are whole pods where the counts allow); every other switch, layer by
//! layer outwards from those, joins the partition most of its neighbours are in, or,
//! tied, the one with the fewest hosts and switches once its layer's untied switches
//! are placed (a core switch, equally linked to every pod; the aggregation switches of
//! a pod that two partitions share).

use serde::Serialize;

use crate::engine::Time;
use crate::net::{Network, NodeId, NodeKind};

/// The events one barrier costs, in the model: about 2 µs of synchronisation on a
/// shared-memory machine against about 100 ns per event.
pub const BARRIER_EVENTS: f64 = 20.0;

/// A split of the nodes into partitions, with the lookahead it allows.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Partition {
    /// The partition of each node.
    pub part_of: Vec<u32>,
    /// Partitions.
    pub parts: u32,
    /// The shortest delay (propagation and the next node's processing) of a link
    /// between two partitions; `Time::MAX` when no link crosses.
    pub lookahead: Time,
}

impl Partition {
    /// The partition of `net` into `parts` parts (at least 1), as the module describes.
    pub fn of(net: &Network, parts: u32) -> Partition {
        let parts = parts.max(1);
        let n = net.nodes.len();
        let switch = |v: NodeId| net.nodes[v as usize].kind == NodeKind::Switch;
        let neighbours = |v: NodeId| net.nodes[v as usize].ports.iter().map(|&p| net.next_node(p));
        let mut part_of = vec![u32::MAX; n];
        // Each host's switch: the first its links reach.
        let home: Vec<Option<NodeId>> = (0..n as NodeId)
            .map(|v| (!switch(v)).then(|| neighbours(v).find(|&s| switch(s))).flatten())
            .collect();
        let mut hosts_at = vec![0u64; n];
        for s in home.iter().flatten() {
            hosts_at[*s as usize] += 1;
        }
        let total_hosts: u64 = hosts_at.iter().sum();
        let mut load = vec![0u64; parts as usize];
        // Switches with hosts: contiguous runs of equal host counts.
        let mut seen = 0u64;
        for v in 0..n {
            if switch(v as NodeId) && hosts_at[v] > 0 {
                let p = ((seen * u64::from(parts)) / total_hosts.max(1)).min(u64::from(parts) - 1) as u32;
                part_of[v] = p;
                load[p as usize] += hosts_at[v] + 1;
                seen += hosts_at[v];
            }
        }
        // Other switches, nearest to the placed ones first: each where most of its
        // placed neighbours are, ties to the least loaded partition.
        let mut frontier: Vec<NodeId> =
            (0..n as NodeId).filter(|&v| part_of[v as usize] != u32::MAX).collect();
        if frontier.is_empty() && n > 0 {
            // No host at all: start from the first switch.
            if let Some(v) = (0..n as NodeId).find(|&v| switch(v)) {
                part_of[v as usize] = 0;
                frontier.push(v);
            }
        }
        while !frontier.is_empty() {
            let mut next: Vec<NodeId> = frontier
                .iter()
                .flat_map(|&u| neighbours(u))
                .filter(|&w| switch(w) && part_of[w as usize] == u32::MAX)
                .collect();
            next.sort_unstable();
            next.dedup();
            // The partitions with most placed neighbours of `w`.
            let leaders = |w: NodeId, part_of: &[u32]| {
                let mut votes = vec![0u32; parts as usize];
                for x in neighbours(w) {
                    let p = part_of[x as usize];
                    if p != u32::MAX {
                        votes[p as usize] += 1;
                    }
                }
                let most = votes.iter().copied().max().unwrap_or(0);
                (0..parts).filter(move |&p| votes[p as usize] == most)
            };
            // Clear majorities first, then the ties, each to the least loaded of its
            // leaders once the whole layer's clear majorities are in the loads: a tie
            // settled in node order would go to whichever side the switches after it
            // had not yet filled.
            let (clear, tied): (Vec<NodeId>, Vec<NodeId>) =
                next.iter().partition(|&&w| leaders(w, &part_of).nth(1).is_none());
            for w in clear.into_iter().chain(tied) {
                let p = leaders(w, &part_of)
                    .min_by_key(|&p| (load[p as usize], p))
                    .expect("at least one partition");
                part_of[w as usize] = p;
                load[p as usize] += 1;
            }
            frontier = next;
        }
        // Hosts with their switch; anything unreached (a switch-less pair) on the first.
        for v in 0..n {
            if !switch(v as NodeId) {
                part_of[v] = home[v].map_or(0, |s| part_of[s as usize]);
            }
        }
        for p in part_of.iter_mut().filter(|p| **p == u32::MAX) {
            *p = 0;
        }
        let lookahead = net
            .ports
            .iter()
            .filter(|port| {
                part_of[port.node as usize] != part_of[net.ports[port.peer as usize].node as usize]
            })
            .map(|port| port.to_next_node)
            .min()
            .unwrap_or(Time::MAX);
        Partition { part_of, parts, lookahead }
    }
}

/// The windows of one partition, counted as a run goes.
#[derive(Clone, Debug)]
struct Windows {
    partition: Partition,
    /// The end of the current window (exclusive); 0 before the first event.
    end: Time,
    /// Events of each partition in the current window.
    current: Vec<u64>,
    windows: u64,
    events: u64,
    critical: u64,
    crossed: u64,
    largest: u64,
}

impl Windows {
    fn new(partition: Partition) -> Self {
        let parts = partition.parts as usize;
        Self {
            partition,
            end: 0,
            current: vec![0; parts],
            windows: 0,
            events: 0,
            critical: 0,
            crossed: 0,
            largest: 0,
        }
    }

    /// Closes the current window, if it holds events.
    fn close(&mut self) {
        let busiest = self.current.iter().copied().max().unwrap_or(0);
        if busiest > 0 {
            self.windows += 1;
            self.critical += busiest;
            self.largest = self.largest.max(busiest);
        }
        self.current.iter_mut().for_each(|c| *c = 0);
    }

    #[inline]
    fn record(&mut self, now: Time, node: NodeId, from: Option<NodeId>) {
        if now >= self.end {
            self.close();
            self.end = now.saturating_add(self.partition.lookahead);
        }
        let p = self.partition.part_of[node as usize];
        self.current[p as usize] += 1;
        self.events += 1;
        if from.is_some_and(|f| self.partition.part_of[f as usize] != p) {
            self.crossed += 1;
        }
    }
}

/// Counts a run's events into the windows of partitions of several sizes.
#[derive(Clone, Debug)]
pub struct Probe {
    sizes: Vec<Windows>,
}

impl Probe {
    /// A probe for one partition of `net` per thread count in `threads`.
    pub fn new(net: &Network, threads: &[u32]) -> Probe {
        Probe { sizes: threads.iter().map(|&t| Windows::new(Partition::of(net, t))).collect() }
    }

    /// An event at `now` acting at node `node`; for a frame's arrival, `from` is the
    /// node that sent it, and the frame crossed between partitions if `from` lies on
    /// another.
    #[inline]
    pub fn record(&mut self, now: Time, node: NodeId, from: Option<NodeId>) {
        for w in &mut self.sizes {
            w.record(now, node, from);
        }
    }

    /// The model, once the run is over.
    pub fn model(&self) -> Model {
        let rows = self
            .sizes
            .iter()
            .map(|w| {
                let mut w = w.clone();
                w.close();
                let parts = w.partition.parts;
                let mut used: Vec<u32> = w.partition.part_of.clone();
                used.sort_unstable();
                used.dedup();
                let used = used.len() as u32;
                let events = w.events as f64;
                let critical = w.critical.max(1) as f64;
                let windows = w.windows.max(1) as f64;
                ModelRow {
                    threads: parts,
                    partitions: used,
                    lookahead_s: (w.partition.lookahead != Time::MAX)
                        .then(|| w.partition.lookahead as f64 / 1e12),
                    windows: w.windows,
                    events: w.events,
                    events_per_window_per_partition: events / windows / f64::from(used.max(1)),
                    largest_window_events: w.largest,
                    critical_path_events: w.critical,
                    crossing_frames: w.crossed,
                    available_parallelism: events / critical,
                    predicted_speedup: events / (critical + BARRIER_EVENTS * windows),
                }
            })
            .collect();
        Model { barrier_events: BARRIER_EVENTS, rows }
    }
}

/// The speed model of one run.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Model {
    /// The events one barrier is taken to cost.
    pub barrier_events: f64,
    /// One row per thread count.
    pub rows: Vec<ModelRow>,
}

/// The model for one thread count (as many partitions).
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct ModelRow {
    /// Threads, and partitions asked for.
    pub threads: u32,
    /// Partitions that hold nodes: fewer than the threads when the topology has fewer
    /// switches with hosts (a switch and its hosts are never split).
    pub partitions: u32,
    /// The lookahead, s; `None` when no link crosses partitions.
    pub lookahead_s: Option<f64>,
    /// Windows that held events.
    pub windows: u64,
    /// Events of the run.
    pub events: u64,
    /// Mean events per window and partition.
    pub events_per_window_per_partition: f64,
    /// The most events one partition had in one window.
    pub largest_window_events: u64,
    /// The sum over windows of the busiest partition's events.
    pub critical_path_events: u64,
    /// Frames that arrived over links between partitions (the channels' traffic).
    pub crossing_frames: u64,
    /// Events over critical path: the speed-up with free synchronisation.
    pub available_parallelism: f64,
    /// Events over (critical path + barriers × `barrier_events`).
    pub predicted_speedup: f64,
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::net::Network;

    /// Two switches, two hosts each: h0 h1 – s0 – s1 – h2 h3 (node order h0 h1 s0 h2 h3
    /// s1), every link 1 µs; the s0–s1 link 3 µs.
    fn two_pods() -> Network {
        let mut net = Network::new();
        let h0 = net.add_node("h0", NodeKind::Host, 0);
        let h1 = net.add_node("h1", NodeKind::Host, 0);
        let s0 = net.add_node("s0", NodeKind::Switch, 0);
        let h2 = net.add_node("h2", NodeKind::Host, 0);
        let h3 = net.add_node("h3", NodeKind::Host, 0);
        let s1 = net.add_node("s1", NodeKind::Switch, 0);
        let us = 1_000_000;
        let cap = crate::net::Capacity::Frames(10);
        for (a, b, d) in [(h0, s0, us), (h1, s0, us), (h2, s1, us), (h3, s1, us), (s0, s1, 3 * us)] {
            net.add_link(a, b, 10_000_000_000, d, cap, cap);
        }
        net.finalize();
        net
    }

    #[test]
    fn hosts_go_with_their_switch_and_the_cut_link_sets_the_lookahead() {
        let net = two_pods();
        let p = Partition::of(&net, 2);
        assert_eq!(p.part_of, vec![0, 0, 0, 1, 1, 1]);
        assert_eq!(p.lookahead, 3_000_000);
        let one = Partition::of(&net, 1);
        assert_eq!(one.part_of, vec![0; 6]);
        assert_eq!(one.lookahead, Time::MAX);
    }

    /// A core switch linked to both pods' switches goes to the less loaded partition,
    /// and the lookahead is then the shortest cut link.
    #[test]
    fn a_switch_without_hosts_joins_its_neighbours_or_the_lightest_partition() {
        let mut net = Network::new();
        let h0 = net.add_node("h0", NodeKind::Host, 0);
        let t0 = net.add_node("t0", NodeKind::Switch, 0);
        let h1 = net.add_node("h1", NodeKind::Host, 0);
        let t1 = net.add_node("t1", NodeKind::Switch, 0);
        let agg = net.add_node("agg", NodeKind::Switch, 0);
        let core = net.add_node("core", NodeKind::Switch, 0);
        let cap = crate::net::Capacity::Frames(10);
        for (a, b, d) in [(h0, t0, 5), (h1, t1, 5), (t0, agg, 7), (agg, core, 2), (t1, core, 9)] {
            net.add_link(a, b, 1_000_000_000, d, cap, cap);
        }
        net.finalize();
        let p = Partition::of(&net, 2);
        // agg: its one placed neighbour, t0, is on partition 0. core: agg (just placed)
        // and t1 are on one partition each, so it joins the lighter, t1's.
        assert_eq!(p.part_of[agg as usize], 0);
        assert_eq!(p.part_of[core as usize], 1);
        assert_eq!(p.lookahead, 2);
    }

    /// Three pods of two ToRs (one host each) and two aggregation switches, agg j of
    /// every pod linked to core j (node order: hosts, ToRs, aggs, cores). In two halves
    /// of three ToRs, pod 1 is cut: its aggs a2 and a3 have one placed neighbour on
    /// each side. Pods 0 and 2's aggs go first (loads 8 and 8), then a2 to partition 0
    /// (the tie's lower number), a3 to 1 (now the lighter); core 0 follows a0 and a2,
    /// core 1 a3 and a5. Settled in node order instead, a2 and a3 would both join
    /// partition 1 (lighter before pod 2's aggs are placed) and both cores after them.
    #[test]
    fn tied_switches_are_settled_after_their_layers_clear_majorities() {
        let mut net = Network::new();
        let hosts: Vec<NodeId> = (0..6).map(|i| net.add_node(&format!("h{i}"), NodeKind::Host, 0)).collect();
        let tors: Vec<NodeId> = (0..6).map(|i| net.add_node(&format!("t{i}"), NodeKind::Switch, 0)).collect();
        let aggs: Vec<NodeId> = (0..6).map(|i| net.add_node(&format!("a{i}"), NodeKind::Switch, 0)).collect();
        let cores: Vec<NodeId> =
            (0..2).map(|i| net.add_node(&format!("c{i}"), NodeKind::Switch, 0)).collect();
        let cap = crate::net::Capacity::Frames(10);
        let mut link = |a: NodeId, b: NodeId| net.add_link(a, b, 1_000_000_000, 1, cap, cap);
        for i in 0..6 {
            link(hosts[i], tors[i]);
        }
        for pod in 0..3 {
            for j in 0..2 {
                for t in 0..2 {
                    link(tors[2 * pod + t], aggs[2 * pod + j]);
                }
                link(aggs[2 * pod + j], cores[j]);
            }
        }
        net.finalize();
        let p = Partition::of(&net, 2);
        let part = |v: NodeId| p.part_of[v as usize];
        assert_eq!(tors.iter().map(|&t| part(t)).collect::<Vec<_>>(), [0, 0, 0, 1, 1, 1]);
        assert_eq!(aggs.iter().map(|&a| part(a)).collect::<Vec<_>>(), [0, 0, 0, 1, 1, 1]);
        assert_eq!(cores.iter().map(|&c| part(c)).collect::<Vec<_>>(), [0, 1]);
        assert_eq!(p.part_of.iter().filter(|&&q| q == 0).count(), 10);
    }

    /// Windows by hand: lookahead 3 µs; events at 0 (h0), 1 (s0), 2 (s1) µs make one
    /// window [0, 3) with two events on partition 0 and one on 1; events at 5 (h2), 6
    /// (h3) and 6 (s0, a frame arriving from s1) µs a window [5, 8) with two on
    /// partition 1 and one, which crossed, on 0. Critical path 2 + 2 = 4 of 6 events: parallelism
    /// 1.5; with barriers of 20 events, 6 / 44.
    #[test]
    fn windows_start_at_the_first_event_after_the_last_and_take_the_busiest_partition() {
        let net = two_pods();
        let mut probe = Probe::new(&net, &[1, 2]);
        let us = 1_000_000;
        for (t, node) in [(0, 0), (us, 2), (2 * us, 5), (5 * us, 3), (6 * us, 4)] {
            probe.record(t, node, None);
        }
        probe.record(6 * us, 2, Some(5));
        let m = probe.model();
        let two = &m.rows[1];
        assert_eq!((two.windows, two.events, two.critical_path_events), (2, 6, 4));
        assert_eq!(two.partitions, 2);
        assert!((two.events_per_window_per_partition - 1.5).abs() < 1e-12);
        assert_eq!(two.crossing_frames, 1);
        assert_eq!(two.largest_window_events, 2);
        assert!((two.available_parallelism - 1.5).abs() < 1e-12);
        assert!((two.predicted_speedup - 6.0 / 44.0).abs() < 1e-12);
        // One partition: no lookahead, one window, no parallelism.
        let one = &m.rows[0];
        assert_eq!((one.windows, one.critical_path_events), (1, 6));
        assert_eq!(one.lookahead_s, None);
        assert!((one.available_parallelism - 1.0).abs() < 1e-12);
    }
}
