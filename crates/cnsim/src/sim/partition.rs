//! The partitioned run: one scenario on several threads, with the same bytes out
//! whatever their number.
//!
//! The network is cut into partitions ([`Partition::of`]: whole pods where the host
//! counts allow), one per thread. Every thread holds a replica of the whole simulator and
//! handles the events of its own nodes only (see [`Sim::event_node`]): arrivals at them,
//! their ports' transmitters, their hosts' sources and timers. A frame sent over a link
//! into another partition leaves its replica when the window in which it was sent ends
//! and joins the other's link in flight.
//!
//! **Synchronisation**: conservative, in barrier *windows* (as Unison, EuroSys 2024, and
//! the classic YAWNS scheme do it; null messages would cost a message per link per
//! lookahead, where a barrier costs one meeting per window). A window runs from the
//! earliest pending event t₀ of all partitions to t₀ + L, the lookahead L being the
//! shortest time from a frame's start on a link between two partitions to its arrival
//! (its propagation and the next node's processing; its serialization only adds to it).
//! A frame sent in a window therefore arrives after it, and every partition can run its
//! window alone. At the window's end each thread hands the frames that crossed to their
//! partitions' mailboxes (one per ordered pair of partitions, each written by one thread
//! and read by one, never at once) and publishes the earliest time it knows of (its next
//! event, its crossing frames' arrivals); one barrier later every thread reads the same
//! minimum, takes in its mail and runs the next window. Published times alternate
//! between two slots, so a thread already in the next window never overwrites what a
//! slower one is still reading.
//!
//! **Same bytes**: simultaneous events are ordered by their content
//! ([`Ties::Content`](crate::engine::Ties::Content)), never by when or where they were
//! scheduled, so each node sees its events in the same order with any number of
//! partitions, one included; nothing crosses a partition in less than the lookahead; and
//! every random stream belongs to one node, port, queue or flow. At the end the replicas
//! are merged ([`merge`]): each port, shared buffer, link loss and source is taken from
//! the partition that owns it, counters, drops and deliveries are summed, and each time
//! series column comes from its owner.
//!
//! **Flows with two ends.** A TCP connection's or RDMA queue pair's sender (and its
//! reaction point) runs in its source's partition, its receiver (and its notification
//! point) in its destination's; the merge takes each half from where it ran. Congestion
//! points, telemetry counts and PAUSE state belong to their port's or host's node.
//! Workload flows are built by *every* partition, at each arrival, in the same slots
//! (finished flows are kept, not recycled, since when a slot frees depends on frames in
//! flight everywhere), and each partition runs only its own end of each.
//!
//! What does not partition yet is refused when the run is built, with the reason:
//! incast applications (their rounds join several hosts' flows), QCN reaction points
//! (Devkota & Reddy's minrate is a minimum over every source at each sample), flows to a
//! group or to random hosts (their delays are measured in several partitions),
//! processing jitter (drawn at the sender for the next node) and packet traces.

use std::sync::atomic::{AtomicBool, AtomicU64, AtomicUsize, Ordering};
use std::sync::{Condvar, Mutex};

use crossbeam_utils::CachePadded;

pub use super::parallelism::Partition;
use super::{Counters, Halt, Progress, Sim};
use crate::engine::{Event, Ties, Time};
use crate::net::{Frame, FrameId, NodeId, PortId};
use crate::wire::int::IntStack;

/// What a replica knows of its partition.
pub(crate) struct Part {
    /// This replica's partition.
    me: u32,
    /// The partition of every node.
    part_of: Vec<u32>,
    /// The frames sent this window into each other partition: the port they left by,
    /// when they arrive, and the frame (still held in this replica's arena).
    outgoing: Vec<Vec<(PortId, Time, FrameId)>>,
    /// Events every partition handles (samples, workload arrivals), counted: the merged
    /// run counts each once.
    repeated: u64,
}

impl Part {
    /// Whether there are other partitions (with one, every event is this one's).
    #[inline]
    pub(super) fn split(&self) -> bool {
        self.outgoing.len() > 1
    }
}

/// Whether every replica that holds `event` owns it: only a node's own replica schedules
/// arrivals at it (a frame for another partition's node crosses as mail) and its ports'
/// wake-ups.
#[inline]
pub(super) fn always_own(event: Event) -> bool {
    matches!(event, Event::Arrive { .. } | Event::ArriveFrame { .. } | Event::PortFree { .. })
}

/// A frame that crossed into another partition: the port it left by, its arrival time
/// and the frame itself, in one cache line, since the partition that takes it in runs on
/// another core and reads each of its lines from there.
#[derive(Clone, Copy)]
#[repr(C, align(64))]
pub(crate) struct Crossing {
    port: PortId,
    at: Time,
    frame: Frame,
}

/// The frames one partition sent into another in a window, in the order sent, and their
/// telemetry stacks in the same order when the run collects telemetry (an empty list
/// otherwise, so that a frame crosses in one line).
#[derive(Default)]
pub(crate) struct Mail {
    frames: Vec<Crossing>,
    int: Vec<IntStack>,
}

impl Sim {
    /// Makes this simulator the replica of partition `me` of `partition`, ordering
    /// simultaneous events by content; call before [`Sim::start`]. Refuses what does not
    /// partition yet, saying what.
    pub(crate) fn set_partition(&mut self, me: u32, partition: &Partition) -> Result<(), String> {
        self.check_partitionable()?;
        self.events.set_ties(Ties::Content);
        let part_of = partition.part_of.clone();
        let peer_nodes: Vec<NodeId> =
            self.net.ports.iter().map(|p| self.net.ports[p.peer as usize].node).collect();
        for (port, peer_node) in self.net.ports.iter_mut().zip(peer_nodes) {
            if part_of[port.node as usize] == me && part_of[peer_node as usize] != me {
                port.flight = crate::net::Flight::Crosses;
            }
        }
        // Each event is handled by its node's partition only (see [`Sim::handles`]).
        self.before_each |= partition.parts > 1;
        // Every partition builds every workload flow, in the same slots (see the module).
        self.keep_finished_flows();
        self.part = Some(Box::new(Part {
            me,
            part_of,
            outgoing: vec![Vec::new(); partition.parts as usize],
            repeated: 0,
        }));
        Ok(())
    }

    /// What this replica cannot run as a partition yet, if anything.
    fn check_partitionable(&self) -> Result<(), String> {
        let p = &self.protocols;
        let refuse = |what: &str| Err(format!("{what} cannot be split among threads yet"));
        if !p.incast.is_empty() {
            return refuse("an incast application (its rounds join flows of several hosts)");
        }
        if p.reaction_points.iter().any(|rp| rp.minrate_sample().is_some()) {
            return refuse(
                "QCN reaction points (Devkota & Reddy's minrate is a minimum over every source at each sample)",
            );
        }
        if self.net.ports.iter().any(|port| port.flight == crate::net::Flight::Jittered) {
            return refuse("processing jitter (drawn at the sender for the next node)");
        }
        if self.flows.iter().any(|f| !matches!(f.dst, crate::traffic::Destination::Host(_))) {
            return refuse("flows to a multicast group or to random hosts (their delays are measured in several partitions)");
        }
        if self.recorder.trace.is_some() {
            return refuse("a packet trace (metrics.pcap)");
        }
        Ok(())
    }

    /// Whether this replica handles event `event`: its node's partition does; every
    /// partition takes each sample (of its own nodes) and builds each workload flow.
    pub(super) fn handles(&self, event: Event) -> bool {
        match event {
            Event::Sample | Event::FlowArrives { .. } => true,
            _ => self.event_node(event).is_none_or(|n| self.owns(n)),
        }
    }

    /// Counts an event that every partition handles, for the merged count.
    #[inline]
    pub(super) fn count_repeated(&mut self) {
        if let Some(part) = self.part.as_deref_mut() {
            part.repeated += 1;
        }
    }

    /// Whether node `node` is this replica's to run (always, unpartitioned).
    #[inline]
    pub(crate) fn owns(&self, node: NodeId) -> bool {
        self.part.as_deref().is_none_or(|p| p.part_of[node as usize] == p.me)
    }

    /// Frame `id`, which port `p` starts sending, arrives at `at` in another partition:
    /// it waits for the window's end.
    #[cold]
    #[inline(never)]
    pub(super) fn send_across(&mut self, p: PortId, id: FrameId, at: Time) {
        let peer_node = self.net.ports[self.net.ports[p as usize].peer as usize].node;
        let part = self.part.as_deref_mut().expect("only a partition's ports cross");
        let to = part.part_of[peer_node as usize];
        part.outgoing[to as usize].push((p, at, id));
    }

    /// The node event `event` acts at: an arrival at the node receiving, a transmitter
    /// at its port's node, a source or a flow's timer at the flow's source host (a TCP
    /// delayed-ACK timer at its receiver), a link-control timer at its port's or host's
    /// node, a workload arrival at its source. `None` for a sample, which every
    /// partition takes of its own nodes.
    pub(crate) fn event_node(&self, event: Event) -> Option<NodeId> {
        let flow_src = |f: u32| self.flows.get(f as usize).map(|f| f.src);
        match event {
            Event::Arrive { port } | Event::ArriveFrame { port, .. } => {
                Some(self.net.ports[port as usize].next)
            }
            Event::PortFree { port } => Some(self.net.ports[port as usize].node),
            Event::SourceEmit { flow } => flow_src(flow),
            Event::Timer { timer, .. } => match self.timers.owner(timer) {
                super::TimerOwner::Tcp { flow } => {
                    let f = self.flows.get(flow as usize)?;
                    let delayed_ack =
                        self.protocols.tcp.get(f.tcp as usize).is_some_and(|c| c.ack_timer == timer);
                    match f.dst {
                        crate::traffic::Destination::Host(d) if delayed_ack => Some(d),
                        _ => Some(f.src),
                    }
                }
                super::TimerOwner::Shaper { flow }
                | super::TimerOwner::ReactionPoint { flow }
                | super::TimerOwner::Rdma { flow } => flow_src(flow),
                super::TimerOwner::LinkControl { owner } => {
                    let net = &self.net;
                    self.protocols.link.as_ref().map(|l| l.timer_node(owner, |p| net.ports[p as usize].node))
                }
            },
            Event::FlowArrives { arrival } => self.workloads.records.get(arrival as usize).map(|r| r.src),
            Event::Sample => None,
        }
    }

    /// The frames sent into partition `to` since the last call, out of this replica's
    /// arena, in the order they were sent; returns the earliest of their arrivals.
    fn take_crossings(&mut self, to: u32, into: &mut Mail) -> Time {
        let Some(part) = self.part.as_deref_mut() else { return Time::MAX };
        let mut earliest = Time::MAX;
        for (port, at, id) in part.outgoing[to as usize].drain(..) {
            into.frames.push(Crossing { port, at, frame: *self.frames.get(id) });
            if let Some(int) = self.frames.int(id) {
                into.int.push(*int);
            }
            self.frames.free(id);
            // On the wire in the partition it reaches from now on, which counts it
            // (`Sim::take_in`) before its arrival takes it off.
            self.counters.on_wire -= 1;
            earliest = earliest.min(at);
        }
        earliest
    }

    /// Frames that crossed into this partition join their links in flight.
    fn take_in(&mut self, mail: &mut Mail) {
        let mut int = mail.int.drain(..);
        for Crossing { port, at, frame } in mail.frames.drain(..) {
            self.counters.on_wire += 1;
            let id = self.frames.alloc(frame);
            if let (Some(int), Some(stack)) = (int.next(), self.frames.int_mut(id)) {
                *stack = int;
            }
            self.put_in_flight(port, id, at);
        }
    }
}

/// The thread count `--threads auto` picks for `net` on this machine: one per core, at
/// most 8, on a fabric (at least 64 ports between switches, where a window holds
/// hundreds of events or more per partition); 1 elsewhere, where a barrier per window
/// would cost more than it saves. The results are the same either way.
pub fn auto_threads(net: &crate::net::Network) -> u32 {
    if !super::is_fabric(net) {
        return 1;
    }
    let cores = std::thread::available_parallelism().map_or(1, usize::from);
    cores.clamp(1, 8) as u32
}

/// Runs `replicas`, one partition each (as [`Sim::set_partition`] made them), on one
/// thread each up to their end time, and merges them into one simulator. The first
/// runs on the calling thread, which alone reports progress to `on_progress`.
pub fn run_partitioned(
    replicas: Vec<Sim>,
    lookahead: Time,
    on_progress: &mut dyn FnMut(&Progress) -> bool,
) -> Result<Sim, Halt> {
    let n = replicas.len();
    assert!(n > 0, "a partitioned run has a replica");
    let slots = || (0..n).map(|_| CachePadded::new(AtomicU64::new(0))).collect::<Vec<_>>();
    let shared = Shared {
        mail: (0..n * n).map(|_| CachePadded::new(Mutex::new(Mail::default()))).collect(),
        earliest: [slots(), slots()],
        barrier: SpinBarrier::new(n),
        events: CachePadded::new(AtomicU64::new(0)),
        n,
        lookahead: lookahead.max(1),
    };
    let mut replicas = replicas.into_iter();
    let first = replicas.next().expect("one replica at least");
    let results: Vec<(Sim, Result<(), Halt>)> = std::thread::scope(|scope| {
        let shared = &shared;
        let others: Vec<_> = replicas
            .enumerate()
            .map(|(i, mut sim)| {
                scope.spawn(move || {
                    let outcome = shared.run_guarded(&mut sim, i + 1, &mut |_| true);
                    (sim, outcome)
                })
            })
            .collect();
        let mut sim = first;
        let outcome = shared.run_guarded(&mut sim, 0, on_progress);
        let mut all = vec![(sim, outcome)];
        all.extend(others.into_iter().map(|h| h.join().unwrap_or_else(|p| std::panic::resume_unwind(p))));
        all
    });
    let mut sims = Vec::with_capacity(n);
    let mut halt: Option<Halt> = None;
    for (sim, outcome) in results {
        if let Err(h) = outcome {
            // A partition's own halt says more than the others' interruption by it.
            if halt.is_none() || matches!(halt, Some(Halt::Interrupted)) {
                halt = Some(h);
            }
        }
        sims.push(sim);
    }
    if let Some(h) = halt {
        return Err(h);
    }
    let merged = merge(sims);
    let end = merged.end;
    on_progress(&Progress { now: end, end, events: merged.counters.events });
    Ok(merged)
}

/// What a partition publishes at a barrier: the earliest time it knows of, or that it
/// halted.
const HALTED: u64 = u64::MAX;

/// What the threads of a partitioned run share.
struct Shared {
    /// Frames crossing from partition `i` to `j` wait in `mail[i·n + j]`. Each mailbox,
    /// published time and counter below is on cache lines of its own: threads writing
    /// neighbours would otherwise take the line from each other at every frame.
    mail: Vec<CachePadded<Mutex<Mail>>>,
    /// What each partition published (the earliest time it knows of, or [`HALTED`]),
    /// in two slots used in turn.
    earliest: [Vec<CachePadded<AtomicU64>>; 2],
    barrier: SpinBarrier,
    /// Events handled by all partitions, as of the last barrier (for progress reports).
    events: CachePadded<AtomicU64>,
    n: usize,
    lookahead: Time,
}

impl Shared {
    /// [`Shared::run`], except that a panic (a defect) breaks the barrier first, so that
    /// the other partitions stop rather than wait for this one for ever; the panic then
    /// goes on.
    fn run_guarded(
        &self,
        sim: &mut Sim,
        me: usize,
        on_progress: &mut dyn FnMut(&Progress) -> bool,
    ) -> Result<(), Halt> {
        let run = std::panic::AssertUnwindSafe(|| self.run(sim, me, on_progress));
        std::panic::catch_unwind(run).unwrap_or_else(|panic| {
            self.barrier.break_all();
            std::panic::resume_unwind(panic)
        })
    }

    /// Partition `me`'s loop: hand over, publish, meet, take the mail in, run a window;
    /// until every partition is past the end or one has halted. Then the run's end as
    /// [`Sim::run`] makes it.
    fn run(
        &self,
        sim: &mut Sim,
        me: usize,
        on_progress: &mut dyn FnMut(&Progress) -> bool,
    ) -> Result<(), Halt> {
        let end = sim.end;
        let mut outcome = Ok(());
        let mut counted = 0u64;
        for round in 0.. {
            // The earliest time this partition knows of: its next event or the arrival
            // of a frame it sent across this window.
            let mut known = sim.events.peek_time().unwrap_or(Time::MAX);
            for to in (0..self.n).filter(|&to| to != me) {
                let mut mail = self.mail[me * self.n + to].lock().expect("no thread panics holding mail");
                known = known.min(sim.take_crossings(to as u32, &mut mail));
            }
            // A time never reaches u64::MAX picoseconds (213 days): the value is free.
            let earliest = if outcome.is_err() { HALTED } else { known.min(HALTED - 1) };
            let slot = &self.earliest[round % 2];
            slot[me].store(earliest, Ordering::Relaxed);
            self.events.fetch_add(sim.counters.events - counted, Ordering::Relaxed);
            counted = sim.counters.events;
            if !self.barrier.wait() {
                // Another partition panicked.
                outcome = outcome.and(Err(Halt::Interrupted));
                break;
            }
            let published = slot.iter().map(|e| e.load(Ordering::Relaxed));
            let (t0, halted) = published.fold((Time::MAX, false), |(t, h), e| (t.min(e), h || e == HALTED));
            if halted {
                outcome = outcome.and(Err(Halt::Interrupted));
                break;
            }
            for from in (0..self.n).filter(|&from| from != me) {
                sim.take_in(
                    &mut self.mail[from * self.n + me].lock().expect("no thread panics holding mail"),
                );
            }
            if t0 >= end {
                break;
            }
            if me == 0 {
                let p = Progress { now: t0, end, events: self.events.load(Ordering::Relaxed) };
                if !on_progress(&p) {
                    outcome = Err(Halt::Interrupted);
                    continue;
                }
            }
            let until = t0.saturating_add(self.lookahead).min(end);
            outcome = sim.process_until(until, on_progress);
        }
        if outcome.is_ok() {
            sim.close_partition(end);
        }
        outcome
    }
}

impl Sim {
    /// The end of a partition's run: its own sources catch up, and the measurements
    /// close, as [`Sim::run`] ends.
    fn close_partition(&mut self, end: Time) {
        for f in 0..self.flows.len() as u32 {
            if self.flows[f as usize].deferred.is_some() && self.owns(self.flows[f as usize].src) {
                self.catch_up_source(f, end, false);
            }
        }
        for f in 0..self.flows.len() as u32 {
            if self.flows[f as usize].rp != crate::net::NONE && self.owns(self.flows[f as usize].src) {
                self.rp_catch_up(f);
            }
        }
        // Another partition's congestion points are left as they were: the merge takes
        // each from its port's partition.
        self.cp_catch_up_all();
        self.finish();
    }
}

/// One simulator from the replicas of a partitioned run, each part from the partition
/// that ran it: ports (with their queues, disciplines, congestion points and telemetry
/// counts) from their node's, shared buffers from their switch's, link losses from the
/// receiving node's, flows from their source's with the deliveries and drops counted
/// elsewhere added, the protocols' state as [`merge_transport_state`] takes it;
/// counters summed; time series columns from their port's partition (queues,
/// utilisation) or summed over partitions (throughput, which only the receiving
/// partitions count).
pub(crate) fn merge(replicas: Vec<Sim>) -> Sim {
    let mut replicas = replicas;
    let mut base = replicas.remove(0);
    let part_of = base.part.as_deref().map(|p| p.part_of.clone()).unwrap_or_default();
    // Every partition holds every workload flow to the end, whatever their number.
    base.workloads.peak_active = base.workloads.slot_record.len() as u64;
    if replicas.is_empty() {
        return base;
    }
    let owner = |node: NodeId| part_of[node as usize] as usize;
    // Replica k (of partition k) is at index k - 1 of `replicas`.
    // Each port with its congestion point and telemetry count.
    for p in 0..base.net.ports.len() {
        let k = owner(base.net.ports[p].node);
        if k == 0 {
            continue;
        }
        let theirs = &mut replicas[k - 1];
        std::mem::swap(&mut base.net.ports[p], &mut theirs.net.ports[p]);
        let cp = base.net.ports[p].cp;
        if cp != crate::net::NONE {
            let c = cp as usize;
            std::mem::swap(
                &mut base.protocols.congestion_points[c],
                &mut theirs.protocols.congestion_points[c],
            );
        }
        if let Some(tx) = base.int_tx.get_mut(p) {
            *tx = theirs.int_tx[p];
        }
    }
    for v in 0..base.net.nodes.len() {
        let pool = base.net.nodes[v].pool;
        if pool != crate::net::NONE && owner(v as NodeId) != 0 {
            let k = owner(v as NodeId);
            std::mem::swap(&mut base.net.pools[pool as usize], &mut replicas[k - 1].net.pools[pool as usize]);
        }
    }
    for p in 0..base.net.ports.len() {
        let loss = base.net.ports[p].loss;
        let k = owner(base.net.ports[base.net.ports[p].peer as usize].node);
        if loss != crate::net::NONE && k != 0 {
            std::mem::swap(
                &mut base.net.losses[loss as usize],
                &mut replicas[k - 1].net.losses[loss as usize],
            );
        }
    }
    for f in 0..base.flows.len() {
        let stats = merged_flow_stats(&base, &replicas, f, &owner);
        let k = owner(base.flows[f].src);
        if k != 0 {
            std::mem::swap(&mut base.flows[f], &mut replicas[k - 1].flows[f]);
        }
        base.flows[f].stats = stats;
    }
    merge_transport_state(&mut base, &mut replicas, &owner);
    for r in 0..base.workloads.records.len() {
        let k = owner(base.workloads.records[r].src);
        if k != 0 {
            base.workloads.records[r] = replicas[k - 1].workloads.records[r];
        }
    }
    for r in &replicas {
        base.counters.absorb(&r.counters);
        base.counters.events -= r.part.as_deref().map_or(0, |p| p.repeated);
        base.unbuilt += r.unbuilt;
        base.absorbed_live += r.frames.live();
    }
    merge_series(&mut base, &replicas, &owner);
    base
}

/// The counters of flow `f` over all partitions: what its source made and sent from
/// its source's partition, what it delivered (and its delays) from its destination's,
/// its drops summed over all.
fn merged_flow_stats(
    base: &Sim,
    replicas: &[Sim],
    f: usize,
    owner: &dyn Fn(NodeId) -> usize,
) -> crate::traffic::FlowStats {
    let replica = |k: usize| if k == 0 { base } else { &replicas[k - 1] };
    let flow = &base.flows[f];
    let source = owner(flow.src);
    let mut stats = replica(source).flows[f].stats.clone();
    if let crate::traffic::Destination::Host(dst) = flow.dst {
        let at_dst = &replica(owner(dst)).flows[f].stats;
        stats.delivered_frames = at_dst.delivered_frames;
        stats.delivered_bytes = at_dst.delivered_bytes;
        stats.delay_sum = at_dst.delay_sum;
        stats.delay.clone_from(&at_dst.delay);
    }
    stats.dropped_frames = (0..=replicas.len()).map(|k| replica(k).flows[f].stats.dropped_frames).sum();
    stats
}

/// The protocols' per-flow and per-node state, each part from the partition that ran
/// it: TCP connections and queue pairs from their sender's, with the receiver's half
/// (and what it counts) from their receiver's and TCP's dropped ACKs summed over all;
/// reaction points from their flow's source's, notification points from their flow's
/// destination's; link control from each port's and host's.
fn merge_transport_state(base: &mut Sim, replicas: &mut [Sim], owner: &dyn Fn(NodeId) -> usize) {
    for f in 0..base.flows.len() {
        let (src, dst) = match base.flows[f].dst {
            crate::traffic::Destination::Host(d) => (base.flows[f].src, d),
            _ => continue,
        };
        let ends = (owner(src), owner(dst));
        let (tcp, qp, rp) = (base.flows[f].tcp, base.flows[f].qp, base.flows[f].rp);
        if tcp != crate::net::NONE {
            let c = tcp as usize;
            let dropped: u64 = base.protocols.tcp[c].acks_dropped
                + replicas.iter().map(|r| r.protocols.tcp[c].acks_dropped).sum::<u64>();
            take_two_ended(
                base,
                replicas,
                ends,
                |s| &mut s.protocols.tcp[c],
                |mine, at_dst| {
                    std::mem::swap(&mut mine.receiver, &mut at_dst.receiver);
                    mine.delivered = at_dst.delivered;
                    mine.ack_armed = at_dst.ack_armed;
                    mine.acks_sent = at_dst.acks_sent;
                },
            );
            base.protocols.tcp[c].acks_dropped = dropped;
        }
        if qp != crate::net::NONE {
            take_two_ended(
                base,
                replicas,
                ends,
                |s| &mut s.protocols.rdma[qp as usize],
                |mine, at_dst| {
                    std::mem::swap(&mut mine.responder, &mut at_dst.responder);
                    mine.stats.acks_sent = at_dst.stats.acks_sent;
                    mine.stats.naks_sent = at_dst.stats.naks_sent;
                },
            );
        }
        let (ks, kd) = ends;
        if rp != crate::net::NONE && ks != 0 {
            let r = rp as usize;
            std::mem::swap(
                &mut base.protocols.reaction_points[r],
                &mut replicas[ks - 1].protocols.reaction_points[r],
            );
        }
        if kd != 0 && f < base.protocols.notification_points.len() {
            std::mem::swap(
                &mut base.protocols.notification_points[f],
                &mut replicas[kd - 1].protocols.notification_points[f],
            );
        }
    }
    if base.protocols.link.is_some() {
        let node_of: Vec<NodeId> = base.net.ports.iter().map(|p| p.node).collect();
        for (j, r) in replicas.iter_mut().enumerate() {
            let (Some(mine), Some(theirs)) = (base.protocols.link.as_mut(), r.protocols.link.as_mut()) else {
                continue;
            };
            mine.take_from(theirs, |p| node_of[p as usize], |n| owner(n) == j + 1);
        }
    }
}

/// A flow's two-ended state, `part` of each replica: taken whole from its sender's
/// partition `ends.0`, then `receiver_half` moves into it what its receiver's
/// partition `ends.1` ran.
fn take_two_ended<T>(
    base: &mut Sim,
    replicas: &mut [Sim],
    (ks, kd): (usize, usize),
    part: impl Fn(&mut Sim) -> &mut T,
    receiver_half: impl FnOnce(&mut T, &mut T),
) {
    if ks != 0 {
        std::mem::swap(part(base), part(&mut replicas[ks - 1]));
    }
    if kd != ks {
        // The base's own state went to the sender's replica in the swap above.
        let at_dst = part(&mut replicas[if kd == 0 { ks } else { kd } - 1]);
        receiver_half(part(base), at_dst);
    }
}

/// Each time series column of the merged simulator from the partition that owns it.
fn merge_series(base: &mut Sim, replicas: &[Sim], owner: &dyn Fn(NodeId) -> usize) {
    let rec = &mut base.recorder;
    for (i, &p) in rec.queue_ports.clone().iter().enumerate() {
        let k = owner(base.net.ports[p as usize].node);
        if k != 0 {
            let theirs = &replicas[k - 1].recorder;
            rec.queues.columns[i].values.clone_from(&theirs.queues.columns[i].values);
            rec.utilisation.columns[i].values.clone_from(&theirs.utilisation.columns[i].values);
        }
    }
    for (i, &p) in rec.avg_ports().to_vec().iter().enumerate() {
        let k = owner(base.net.ports[p as usize].node);
        if k != 0 {
            let theirs = &replicas[k - 1].recorder;
            rec.avg_queues.columns[i].values.clone_from(&theirs.avg_queues.columns[i].values);
            rec.max_ps.columns[i].values.clone_from(&theirs.max_ps.columns[i].values);
        }
    }
    let mut source_of_rp = vec![0; base.protocols.reaction_points.len()];
    for f in &base.flows {
        if f.rp != crate::net::NONE {
            source_of_rp[f.rp as usize] = f.src;
        }
    }
    for (i, &rp) in rec.rate_rps().to_vec().iter().enumerate() {
        let k = owner(source_of_rp[rp as usize]);
        if k != 0 {
            let theirs = &replicas[k - 1].recorder;
            rec.rates.columns[i].values.clone_from(&theirs.rates.columns[i].values);
            rec.cnms.columns[i].values.clone_from(&theirs.cnms.columns[i].values);
        }
    }
    for r in replicas {
        for (col, theirs) in rec.throughput.columns.iter_mut().zip(&r.recorder.throughput.columns) {
            for (v, t) in col.values.iter_mut().zip(&theirs.values) {
                *v += t;
            }
        }
    }
}

impl Counters {
    /// Adds another partition's counts.
    pub(crate) fn absorb(&mut self, other: &Counters) {
        self.events += other.events;
        self.frame_hops += other.frame_hops;
        self.created += other.created;
        self.delivered += other.delivered;
        self.dropped += other.dropped;
        self.dropped_at_queues += other.dropped_at_queues;
        self.dropped_at_sources += other.dropped_at_sources;
        self.dropped_unroutable += other.dropped_unroutable;
        self.dropped_at_hosts += other.dropped_at_hosts;
        self.dropped_on_links += other.dropped_on_links;
        self.on_wire += other.on_wire;
        self.absorb_kinds(other);
    }
}

/// A barrier that spins before it sleeps: a window is often a few microseconds of work,
/// and a barrier that puts its threads to sleep at once costs as much again to wake
/// them. With a core per thread a waiting thread spins for up to about a millisecond;
/// with more threads than cores, a few turns only, as a spinning thread would hold the
/// core that the thread it waits for needs. Then it sleeps until the last one wakes it.
struct SpinBarrier {
    n: usize,
    /// Turns of spinning before sleeping.
    spins: u32,
    /// Threads arrived in the current round.
    arrived: CachePadded<AtomicUsize>,
    /// Rounds completed; a waiting thread watches it move.
    round: CachePadded<AtomicUsize>,
    /// Threads asleep (or about to sleep) on `wake`.
    sleepers: AtomicUsize,
    /// Set when a thread will never come (it panicked): every wait returns false.
    broken: AtomicBool,
    lock: Mutex<()>,
    wake: Condvar,
}

impl SpinBarrier {
    fn new(n: usize) -> Self {
        let cores = std::thread::available_parallelism().map_or(1, usize::from);
        Self {
            n,
            spins: if n <= cores { 1 << 16 } else { 1 << 6 },
            arrived: CachePadded::new(AtomicUsize::new(0)),
            round: CachePadded::new(AtomicUsize::new(0)),
            sleepers: AtomicUsize::new(0),
            broken: AtomicBool::new(false),
            lock: Mutex::new(()),
            wake: Condvar::new(),
        }
    }

    /// Releases every waiting thread for good: one of them will never come.
    fn break_all(&self) {
        self.broken.store(true, Ordering::Release);
        let _held = self.lock.lock().unwrap_or_else(|e| e.into_inner());
        self.wake.notify_all();
    }

    /// Waits until all `n` threads have called it in this round (true), or until the
    /// barrier is broken (false). Everything a thread wrote before it is visible to
    /// every thread after it.
    fn wait(&self) -> bool {
        let round = self.round.load(Ordering::Acquire);
        if self.broken.load(Ordering::Acquire) {
            return false;
        }
        if self.arrived.fetch_add(1, Ordering::AcqRel) + 1 == self.n {
            self.arrived.store(0, Ordering::Relaxed);
            {
                // Under the lock: a thread going to sleep sees either the old round
                // (and is then woken) or the new one (and does not sleep).
                let _held = self.lock.lock().unwrap_or_else(|e| e.into_inner());
                self.round.fetch_add(1, Ordering::AcqRel);
            }
            if self.sleepers.load(Ordering::Acquire) > 0 {
                self.wake.notify_all();
            }
            return true;
        }
        let waiting = || self.round.load(Ordering::Acquire) == round && !self.broken.load(Ordering::Acquire);
        for _ in 0..self.spins {
            if !waiting() {
                return !self.broken.load(Ordering::Acquire);
            }
            std::hint::spin_loop();
        }
        let mut held = self.lock.lock().unwrap_or_else(|e| e.into_inner());
        self.sleepers.fetch_add(1, Ordering::AcqRel);
        while waiting() {
            held = self.wake.wait(held).unwrap_or_else(|e| e.into_inner());
        }
        self.sleepers.fetch_sub(1, Ordering::AcqRel);
        !self.broken.load(Ordering::Acquire)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Under the content tie rule nothing depends on when an event was scheduled, so a
    /// frame's arrival scheduled as it is sent, or at its predecessor's arrival, gives
    /// the same run: a k = 4 fat-tree (a fabric, whose arrivals are scheduled per frame)
    /// with links that carry several frames at once.
    #[test]
    fn arrivals_scheduled_per_frame_or_chained_give_the_same_run() {
        let mut text = String::from(
            r#"
name = "fabric"
duration = "1ms"
[topology.fat_tree]
k = 4
host_link = { rate = "10Gbps", delay = "1us" }
fabric_link = { rate = "10Gbps", delay = "5us" }
[switches]
ecmp = true
[queues]
capacity = "40 frames"
"#,
        );
        for i in 0..16 {
            let (src, dst) = (i + 1, (i * 7 + 3) % 16 + 1);
            let dst = if dst == src { dst % 16 + 1 } else { dst };
            text.push_str(&format!(
                "[[traffic]]\nname = \"f{i}\"\nkind = \"poisson\"\nfrom = \"h{src}\"\nto = \"h{dst}\"\nrate = \"6Gbps\"\n"
            ));
        }
        let s = crate::scenario::parse(&text, "fabric.toml", &[]).unwrap_or_else(|e| panic!("{e}"));
        let run = |per_frame: bool| {
            let limits = crate::scenario::Limits::machine_default();
            let Ok((mut replicas, lookahead)) =
                crate::scenario::build_partitioned(&s, "fabric.toml", &limits, 1, &mut || true)
            else {
                panic!("the fabric builds")
            };
            assert!(replicas[0].arrival_per_frame, "a k = 4 fat-tree is a fabric");
            replicas[0].arrival_per_frame = per_frame;
            let sim = run_partitioned(replicas, lookahead, &mut |_| true).unwrap_or_else(|e| panic!("{e:?}"));
            let stats: Vec<_> = sim.flows().iter().map(|f| &f.stats).collect();
            let delivered: u64 = stats.iter().map(|s| s.delivered_frames).sum();
            let json = |v| serde_json::to_string(&v).expect("serializable");
            (delivered, json(serde_json::json!(stats)), json(serde_json::json!(sim.counters())))
        };
        let per_frame = run(true);
        assert!(per_frame.0 > 5000, "{} frames delivered", per_frame.0);
        assert_eq!(per_frame, run(false));
    }

    /// A crossing frame is one cache line, read once by the partition taking it in.
    #[test]
    fn a_crossing_frame_is_one_cache_line() {
        assert_eq!(std::mem::size_of::<Crossing>(), 64);
        assert_eq!(std::mem::align_of::<Crossing>(), 64);
    }

    /// Two threads, three rounds each: after every wait each sees what the other wrote
    /// before it.
    #[test]
    fn the_barrier_makes_each_round_visible_to_all() {
        let barrier = SpinBarrier::new(2);
        let slots = [AtomicU64::new(0), AtomicU64::new(0)];
        std::thread::scope(|scope| {
            for me in 0..2 {
                let (barrier, slots) = (&barrier, &slots);
                scope.spawn(move || {
                    for round in 1..=3u64 {
                        slots[me].store(round * 10 + me as u64, Ordering::Relaxed);
                        assert!(barrier.wait());
                        assert_eq!(slots[1 - me].load(Ordering::Relaxed), round * 10 + (1 - me) as u64);
                        assert!(barrier.wait());
                    }
                });
            }
        });
    }

    /// A thread that will never come (it panicked) breaks the barrier: the waiting one
    /// is released with false, and later waits return at once.
    #[test]
    fn a_broken_barrier_releases_its_waiters() {
        let barrier = SpinBarrier::new(3);
        std::thread::scope(|scope| {
            let waiter = scope.spawn(|| barrier.wait());
            std::thread::sleep(std::time::Duration::from_millis(20));
            barrier.break_all();
            assert!(!waiter.join().expect("the waiter returns"));
        });
        assert!(!barrier.wait());
    }
}
