//! The simulator: the run loop and the data path.
//!
//! Read top to bottom, a frame's life is:
//! a source makes it ([`source`]) → its shaper, if the flow has one → [`Sim::host_send`]
//! → [`Sim::enqueue`] (the queue discipline of its class decides: queue, mark or drop)
//! → [`Sim::transmit`] (serialization on the link; the arrival is scheduled at once)
//! → [`Sim::arrive`] at the next node → [`Sim::forward`] (a switch: lookup, replicate
//! for multicast, enqueue again) or the host endpoint ([`host`]: its input, then the
//! frame consumed by its header).
//!
//! Protocols act only at the seams of [`crate::protocol`], through a [`Ctx`]; frames they
//! send wait in the outbox until [`Sim::flush`] sends them.
//!
//! Ports are *lazy*: a port that is idle when a frame arrives starts sending it at once
//! and no event marks the end of its transmission; only a port with a backlog schedules
//! a `PortFree` event for when the wire frees up. Each frame therefore costs one
//! arrival event per hop plus one `PortFree` per hop where it had to wait, less the
//! arrivals at switches it passes through ([`pass`]), and its source's emission event
//! unless its source makes it at its first arrival ([`late`]).

mod backpressure;
mod counters;
mod hooks;
mod host;
mod late;
pub mod parallelism;
pub mod partition;
mod pass;
mod query;
mod rdma;
mod report;
mod source;
mod tcp;
mod workload;

pub use workload::{
    base_rtt, ideal_fct, tcp_connection, BaseRttRecipe, Entry as WorkloadEntry, Recipe, RpRecipe, Transport,
    Workloads, ACTIVE_FLOW_BYTES, ARRIVAL_BYTES,
};

pub use crate::metrics::recorder::Recorder;
pub use crate::protocol::Protocols;
pub use crate::protocol::TimerOwner;
pub use counters::{Counters, DropSite, Halt, KindCounters, Progress};

use crate::aqm::{AnyDiscipline, Verdict};
use crate::engine::{Event, EventQueue, Fired, Time, Timers};
use crate::net::{
    Flight, FrameArena, FrameId, Header, MulticastTrees, Network, NodeId, NodeKind, PortId, Routes, NONE,
};
use crate::protocol::{AnyLinkControl, AnyReactionPoint, Outbox};
use crate::traffic::Flow;
use crate::wire::int::IntMode;

/// A built scenario, ready to run. Read it through the query methods ([`query`]).
pub struct Sim {
    net: Network,
    routes: Routes,
    trees: MulticastTrees,
    frames: FrameArena,
    flows: Vec<Flow>,
    protocols: Protocols,
    /// Every timer, with what each belongs to.
    timers: Timers<TimerOwner>,
    /// Frames protocols asked to send.
    outbox: Outbox,
    events: EventQueue,
    end: Time,
    counters: Counters,
    recorder: Recorder,
    max_live_frames: u64,
    /// Frames waiting unbuilt in shapers (see [`crate::traffic::Shaper::unbuilt`]).
    unbuilt: u64,
    /// Set when a source's catch-up took the frames held above `max_live_frames` (a
    /// single catch-up may make many frames between two of the periodic checks): the
    /// check is due after the current event.
    unbuilt_over_limit: bool,
    /// Saturated sources waiting for room at their host's port.
    room: backpressure::RoomWaiters,
    /// The workload flows: their records, and their slots while they run.
    workloads: workload::Workloads,
    /// Bytes each port has sent, as in-band telemetry reports them (empty when no flow
    /// collects telemetry).
    int_tx: Vec<u64>,
    /// Whether every frame on a link has an arrival event of its own, scheduled as it
    /// is sent, rather than only the first in flight (whose arrival then schedules the
    /// next one's). On a fabric, where hundreds of links are busy at once, an arrival
    /// scheduled as its frame is sent joins the event queue's lane of its flight time in
    /// order (see [`EventQueue::schedule_after`]), while one scheduled at its
    /// predecessor's arrival breaks that lane's order and sits in the heap alone. On
    /// `fattree-k8-websearch`, chained arrivals keep about 230 entries in the heap, 200
    /// of them such arrivals, and arrivals per frame about 33: 8.5 % fewer instructions
    /// for the run, 10 % fewer on the HPCC paper's 320-host fabric. On a dumbbell few
    /// links are busy, the heap is small, and the chained arrival, which replaces the
    /// one just handled in place (one sift), costs less: arrivals per frame take 12 %
    /// more instructions on `dumbbell-cbr-64`, 17 % on `dumbbell-tcp-64` and 6 % on the
    /// 802.1au chain of ten switches.
    ///
    /// On a direct link the event names its frame (`ArriveFrame`), and the link keeps
    /// no list of frames in flight: on `fattree-k8-websearch` that list's buffers, one
    /// per port, cost about two first-level cache misses per hop (48.8 M misses in all
    /// under cachegrind's model, 39.0 M without them and with the next node kept in the
    /// port).
    arrival_per_frame: bool,
    /// Frames may pass through a switch without an arrival event if they reach it
    /// before this time: the next sample, or the end of the events being
    /// processed (see [`Sim::pass_through`]). 0 where they may not.
    pass_before: Time,
    /// The end of the events being processed where frames may pass through switches,
    /// else 0: [`Sim::pass_before`] is the earlier of it and the next sample.
    pass_horizon: Time,
    /// When the next sample is due (`Time::MAX` when none is).
    next_sample: Time,
    /// Whether the links frames may pass through switches from have been marked (see
    /// [`Sim::mark_passes`]).
    passes_marked: bool,
    /// Per switch port, the port whose link alone brings it frames, or `NONE`: what a
    /// frame may pass through to (see [`Sim::pass_through`]). Empty where none is.
    sole_feeder: Vec<PortId>,
    /// Per node, what a host that may take frames as they are sent checks first (see
    /// [`Sim::deliver_early`]). Empty where no host may.
    early_hosts: Vec<pass::EarlyHost>,
    /// Per port, the source whose frames it makes at their arrival at the next node, if
    /// any (see [`Sim::emit_late`]). Empty where none does.
    late_sources: Vec<late::LateSource>,
    /// How many early deliveries are under way, one inside another, and the host of the
    /// innermost (`NONE` if none).
    early_depth: u32,
    early_outer: NodeId,
    /// The host whose frame or timer the present event is, while it is handled, or
    /// `NONE`: no frame is delivered to it early meanwhile (see [`Sim::deliver_early`]).
    handling: NodeId,
    /// The speed model's accounting, when asked for (see [`parallelism`]).
    probe: Option<Box<parallelism::Probe>>,
    /// Whether anything runs before each event (a probe, a partition's filter): one test
    /// per event where there is neither.
    before_each: bool,
    /// The partition this simulator runs, in a partitioned run (see [`partition`]).
    part: Option<Box<partition::Part>>,
    /// Frames live in the other replicas of a partitioned run, merged into this one.
    absorbed_live: u64,
}

/// The number of ports between switches from which a network is a fabric: its traffic
/// spreads over them all and keeps many of its links busy at once (see
/// [`Sim::arrival_per_frame`] and [`partition::auto_threads`]). A dumbbell's crosses
/// one, however many its hosts.
const FABRIC_PORTS: usize = 64;

/// Whether `net` is a fabric: [`FABRIC_PORTS`] or more ports between switches.
fn is_fabric(net: &Network) -> bool {
    let switch = |n: NodeId| net.nodes[n as usize].kind == NodeKind::Switch;
    let between = net.ports.iter().filter(|p| switch(p.node) && switch(net.ports[p.peer as usize].node));
    between.count() >= FABRIC_PORTS
}

/// A [`Ctx`] over the simulator's timers, events and outbox.
macro_rules! ctx {
    ($sim:ident, $now:expr) => {
        $crate::protocol::Ctx {
            now: $now,
            timers: &mut $sim.timers,
            events: &mut $sim.events,
            outbox: &mut $sim.outbox,
        }
    };
}
pub(crate) use ctx;

impl Sim {
    /// Runs until the end time or until `on_progress` returns false (checked every
    /// 2^16 events and at the end), then closes the measurements.
    pub fn run(&mut self, on_progress: &mut dyn FnMut(&Progress) -> bool) -> Result<(), Halt> {
        self.run_until(self.end, on_progress)?;
        self.finish();
        on_progress(&Progress { now: self.end, end: self.end, events: self.counters.events });
        Ok(())
    }

    /// Processes every event before `until` (at most the end time), leaving later ones
    /// pending; measurements stay open, so a run can be inspected part-way and resumed.
    pub fn run_until(
        &mut self,
        until: Time,
        on_progress: &mut dyn FnMut(&Progress) -> bool,
    ) -> Result<(), Halt> {
        let until = until.min(self.end);
        let outcome = self.process_until(until, on_progress);
        // Sources that deferred their frames make those due before the last event handled.
        let reached = if outcome.is_ok() { until } else { self.events.now() };
        self.catch_up_sources(reached);
        self.catch_up_late(reached);
        // Whatever a run leaves pending (bytes protocols let pass unseen) must not show
        // in the queries, even of a run that stopped early.
        self.rp_catch_up_all();
        self.cp_catch_up_all();
        outcome
    }

    fn process_until(
        &mut self,
        until: Time,
        on_progress: &mut dyn FnMut(&Progress) -> bool,
    ) -> Result<(), Halt> {
        self.pass_horizon = if self.may_pass_through() {
            if !self.passes_marked {
                self.mark_passes();
            }
            until
        } else {
            0
        };
        self.pass_before = self.pass_horizon.min(self.next_sample);
        while let Some((now, event)) = self.events.front_before(until) {
            if self.before_each && !self.before_event(now, event) {
                // Another partition's event (see [`partition`]).
                self.events.retire();
                continue;
            }
            match self.dispatch(now, event) {
                Some((at, next)) => self.events.reschedule(at, next),
                None => self.events.retire(),
            }
            self.counters.events += 1;
            if self.counters.events & 0xffff == 0 || self.unbuilt_over_limit {
                self.unbuilt_over_limit = false;
                let p = Progress { now, end: self.end, events: self.counters.events };
                if !on_progress(&p) {
                    return Err(Halt::Interrupted);
                }
                let live = self.frames_live();
                if live > self.max_live_frames {
                    return Err(Halt::TooManyFrames { live, limit: self.max_live_frames, at: now });
                }
                if let Some(at) = self.workloads.refused {
                    return Err(Halt::TooManyFlows { limit: self.workloads.max_active, at });
                }
                self.retire_finished();
            }
        }
        Ok(())
    }

    /// What runs before each event when [`Sim::before_each`] says so: in a partitioned
    /// run, whether the event is this partition's (false: it is passed over); the speed
    /// model's count. An arrival or a port's wake-up needs neither without the model
    /// ([`partition::always_own`]); the rest is out of the loop's way.
    #[inline(always)]
    fn before_event(&mut self, now: Time, event: Event) -> bool {
        if partition::always_own(event) && self.probe.is_none() {
            debug_assert!(self.handles(event), "another partition's arrival or wake-up");
            return true;
        }
        self.check_event(now, event)
    }

    /// [`Sim::before_event`] for the other events, and with the speed model.
    #[inline(never)]
    fn check_event(&mut self, now: Time, event: Event) -> bool {
        if self.part.as_deref().is_some_and(partition::Part::split) && !self.handles(event) {
            return false;
        }
        if self.probe.is_some() {
            self.probe_event(now, event);
        }
        true
    }

    /// Counts event `event` at `now` in the speed model, at the node it acts at, as the
    /// partitioned engine places it ([`Sim::event_node`]); a sample on the first
    /// partition.
    #[cold]
    #[inline(never)]
    fn probe_event(&mut self, now: Time, event: Event) {
        let node = self.event_node(event).unwrap_or(0);
        let from = match event {
            Event::Arrive { port } | Event::ArriveFrame { port, .. } => {
                Some(self.net.ports[port as usize].node)
            }
            _ => None,
        };
        if let Some(probe) = self.probe.as_deref_mut() {
            probe.record(now, node, from);
        }
    }

    /// Asks for the speed model of a partitioned run with each of `threads` (see
    /// [`parallelism`]); call before running.
    pub fn probe_parallelism(&mut self, threads: &[u32]) {
        self.probe = Some(Box::new(parallelism::Probe::new(&self.net, threads)));
        self.before_each = true;
    }

    /// The speed model, if [`Sim::probe_parallelism`] asked for it.
    pub fn parallelism(&self) -> Option<parallelism::Model> {
        self.probe.as_deref().map(parallelism::Probe::model)
    }

    /// Runs to the end without progress reports.
    pub fn run_to_end(&mut self) {
        let _ = self.run(&mut |_| true);
    }

    /// Handles one event. A handler that has a successor of its own (the source's next
    /// frame, the port's next transmission, the link's next arrival, the next sample)
    /// returns it, and the queue replaces the handled event by it in place.
    #[inline(always)] // once per event: out of line, its result goes through memory
    fn dispatch(&mut self, now: Time, event: Event) -> Option<(Time, Event)> {
        match event {
            Event::Arrive { port } => self.arrive(port, now),
            Event::ArriveFrame { port, frame } => {
                self.land(port, frame, now);
                None
            }
            Event::PortFree { port } => self.port_free(port, now),
            Event::SourceEmit { flow } => self.emit(flow, now),
            Event::Timer { timer, generation } => match self.timers.fire(timer, generation, now) {
                Fired::Stale => None,
                Fired::Moved(at, event) => Some((at, event)),
                Fired::Expired(TimerOwner::Shaper { flow }, _) => self.shaper_release(flow, timer, now),
                Fired::Expired(TimerOwner::ReactionPoint { flow }, tag) => {
                    self.rp_timer(flow, timer, tag, now)
                }
                Fired::Expired(TimerOwner::LinkControl { owner }, _) => self.link_timer(owner, now),
                Fired::Expired(TimerOwner::Tcp { flow }, tag) => self.tcp_timer(flow, tag, now),
                Fired::Expired(TimerOwner::Rdma { flow }, _) => self.rdma_timeout(flow, now),
            },
            Event::FlowArrives { arrival } => {
                self.count_repeated();
                self.flow_arrives(arrival, now)
            }
            Event::Sample => {
                self.count_repeated();
                self.sample(now)
            }
        }
    }

    // ---- the data path -------------------------------------------------------------

    /// A host hands a frame of its own to its egress port(s). A flow's data frames and
    /// TCP segments and RDMA packets count as sent by the flow.
    fn host_send(&mut self, id: FrameId, now: Time) {
        let frame = self.frames.get(id);
        if let Header::Data(_) | Header::TcpSegment(_) | Header::RdmaData(_) = frame.header {
            let st = &mut self.flows[frame.flow as usize].stats;
            st.sent_frames += 1;
            st.sent_bytes += frame.size as u64;
        }
        let src = frame.src;
        self.forward(src, id, now);
    }

    /// Offers frame `id` to the egress queue of its class at port `p`: the queue
    /// discipline decides; an admitted frame goes straight on the wire if the port is
    /// idle, else waits (if the switch's shared pool has room). Then the port's
    /// congestion point, if any, sees the arrival, and a dropped frame is freed.
    #[inline(always)]
    fn enqueue(&mut self, p: PortId, id: FrameId, now: Time) {
        let frame = self.frames.get_mut(id);
        let port = &mut self.net.ports[p as usize];
        let class = port.classes.class_of(frame.priority);
        let straight = port.classes.backlog() == 0
            && port.busy_until <= now
            && !port.control_waiting()
            && AnyLinkControl::gate_open(&self.protocols.link, port.link, class, now);
        if straight && port.cp == NONE {
            let queue = port.classes.queue_mut(class);
            if let AnyDiscipline::DropTail = queue.discipline {
                // Drop-tail admits any frame to an idle port and marks none.
                let size = frame.size;
                queue.record_cut_through(size);
                port.classes.serializing(class, size);
                self.transmit(p, id, size, now);
                return;
            }
        }
        let sending = port.sending_at_arrival(now);
        let on_wire = port.classes.on_wire(class, sending);
        let queue = port.classes.queue_mut(class);
        let verdict = queue.discipline.on_enqueue(queue.view(straight, on_wire), frame, now);
        if verdict == Verdict::Mark {
            queue.stats.marked_frames += 1;
        }
        let (size, ingress) = (frame.size, frame.ingress);
        let admitted = verdict != Verdict::Drop;
        let mut dropped = false;
        if admitted && straight {
            queue.record_cut_through(size);
            port.classes.serializing(class, size);
            self.transmit(p, id, size, now);
        } else if admitted && (port.pool == NONE || self.net.pools[port.pool as usize].admits(size)) {
            port.classes.push(class, now, id, size);
            if port.pool != NONE {
                self.net.pools[port.pool as usize].take(size);
            }
            if !port.wake_pending {
                port.wake_pending = true;
                let at = port.busy_until.max(now);
                self.events.schedule(at, Event::PortFree { port: p });
            }
            if ingress != NONE && self.protocols.link.is_some() {
                self.admitted(p, id, now);
            }
        } else {
            queue.record_drop(size);
            dropped = true;
        }
        if self.net.ports[p as usize].cp != NONE {
            // A frame that went straight on the wire is being sent; otherwise the port
            // is as the arrival found it.
            let sending = sending || self.net.ports[p as usize].busy_until > now;
            self.congestion_point(p, class, id, sending, now);
        }
        if dropped {
            self.drop_frame(id, DropSite::Queue);
        }
    }

    /// Starts serializing frame `id` of `size` bytes on port `p`; the frame reaches the next node at
    /// `now + size·8/rate + propagation delay + next node's processing latency`, by an
    /// event in the event queue's lane of the flight time. On a fabric every frame has
    /// its own (`ArriveFrame`); elsewhere frames on a link, which arrive in the order
    /// they were sent, wait in the link's FIFO, and only the first has an `Arrive` (see
    /// [`Sim::arrival_per_frame`]).
    #[inline(always)] // once per frame per hop; LLVM drops it out of line as its callers change
    fn transmit(&mut self, p: PortId, id: FrameId, size: u32, now: Time) {
        let port = &mut self.net.ports[p as usize];
        let ser = port.serialization_time(size);
        port.busy_until = now + ser;
        let flight = ser + port.to_next_node;
        let (kind, traced) = (port.flight, port.traced);
        self.counters.frame_hops += 1;
        self.counters.on_wire += 1;
        if !self.int_tx.is_empty() {
            self.int_stamp(p, id, size, now);
        }
        if traced {
            self.trace_sent(p, id, now);
        }
        // Then the frame's arrival, which, passed through a switch or taken by a host
        // early, may be handled at once: it comes after this port's sending in every
        // count and record.
        // Tests in turn, not a match: a jump table cost a fabric's hops an indirect branch.
        if kind == Flight::Direct {
            if self.arrival_per_frame {
                debug_assert_eq!(now, self.events.now(), "frames pass through switches only off fabrics");
                self.events.schedule_after_in_lane(flight, Event::ArriveFrame { port: p, frame: id });
                return;
            }
            let port = &mut self.net.ports[p as usize];
            port.in_flight.push_back((now + flight, id));
            if port.in_flight.len() == 1 {
                if now == self.events.now() {
                    self.events.schedule_after(flight, Event::Arrive { port: p });
                } else {
                    // Sent by a port a frame passed through (see `Sim::pass_through`).
                    self.events.schedule(now + flight, Event::Arrive { port: p });
                }
            }
        } else if kind == Flight::Passes {
            if !self.pass_through(p, id, now + flight) {
                self.put_in_flight(p, id, now + flight);
            }
        } else if kind == Flight::Delivers {
            if !self.deliver_through(p, id, now + flight) {
                self.put_in_flight(p, id, now + flight);
            }
        } else {
            self.transmit_elsewhere(p, id, now + flight);
        }
    }

    /// In-band telemetry at port `p` starting to send frame `id` of `size` bytes at
    /// `now`, as the HPCC fork's `SwitchNode::SwitchNotifyDequeue` does it: a switch
    /// port appends its record to a data packet of a flow that collects telemetry — the
    /// time, the bytes the port sent before this frame, the bytes still queued at the
    /// port over all classes (this frame no longer among them) and the link's rate — and
    /// counts the frame's bytes as sent, whatever the frame but a link-local one (PAUSE
    /// leaves from the link layer, not the egress queue). Hosts add no record.
    #[inline(never)]
    fn int_stamp(&mut self, p: PortId, id: FrameId, size: u32, now: Time) {
        let port = &self.net.ports[p as usize];
        if self.net.nodes[port.node as usize].kind != NodeKind::Switch {
            return;
        }
        let frame = self.frames.get(id);
        if frame.header.link_local() {
            return;
        }
        let sent = self.int_tx[p as usize];
        self.int_tx[p as usize] = sent + u64::from(size);
        let Header::RdmaData(_) = frame.header else { return };
        let qp = self.flows.get(frame.flow as usize).map_or(NONE, |f| f.qp);
        if qp == NONE || self.protocols.rdma[qp as usize].int != IntMode::Hops {
            return;
        }
        let queued: u64 = port.classes.queues().map(|q| q.bytes()).sum();
        let at_ns = now / crate::engine::PS_PER_NS;
        let multi = self.protocols.int_multi;
        let hop = crate::wire::int::IntHop::new(at_ns, sent, queued, port.rate_bps, multi);
        if let (Some(hop), Some(stack)) = (hop, self.frames.int_mut(id)) {
            stack.push(hop);
        }
    }

    /// Adds frame `id`, which port `p` starts sending at `now`, to the packet trace.
    #[cold]
    #[inline(never)]
    fn trace_sent(&mut self, p: PortId, id: FrameId, now: Time) {
        let frame = self.frames.get(id);
        let tcp = self.tcp_connection(frame.flow);
        let ctx = crate::wire::encode::Context {
            sender: self.net.ports[p as usize].node,
            segment_payload: tcp.map_or(0, |c| c.payload),
            syn: tcp.is_some_and(|c| c.sender.syn()),
            rdma: self.flows.get(frame.flow as usize).is_some_and(|f| {
                matches!(self.protocols.reaction_points.get(f.rp as usize), Some(AnyReactionPoint::Dcqcn(_)))
            }),
        };
        if let Some(trace) = self.recorder.trace.as_deref_mut() {
            trace.record(p, frame, &ctx, now);
        }
    }

    /// [`Sim::transmit`] of frame `id`, due at `at`, into another partition or towards a
    /// switch with a processing jitter.
    #[inline(never)]
    fn transmit_elsewhere(&mut self, p: PortId, id: FrameId, at: Time) {
        if self.net.ports[p as usize].flight == Flight::Crosses {
            self.send_across(p, id, at);
        } else {
            self.transmit_jittered(p, id, at);
        }
    }

    /// [`Sim::transmit`] towards a switch with a processing jitter: the frame, due at
    /// `at` without it, arrives at [`Network::jittered_arrival`](crate::net::Network::jittered_arrival).
    fn transmit_jittered(&mut self, p: PortId, id: FrameId, at: Time) {
        let at = self.net.jittered_arrival(p, at);
        self.put_in_flight(p, id, at);
    }

    /// Frame `id` joins the frames in flight on port `p`'s link, due at the next node at
    /// `at`, with an `Arrive` event if it needs one (see [`Sim::arrival_per_frame`]), at
    /// an absolute time rather than in a delay's lane. These links keep their FIFO even
    /// on a fabric: a jitter may bring two of their frames at one instant, and `Arrive`
    /// events, each taking the FIFO's first, are interchangeable where events naming
    /// their frames would need an order the content tie rule cannot give.
    fn put_in_flight(&mut self, p: PortId, id: FrameId, at: Time) {
        let port = &mut self.net.ports[p as usize];
        port.in_flight.push_back((at, id));
        if self.arrival_per_frame || port.in_flight.len() == 1 {
            self.events.schedule(at, Event::Arrive { port: p });
        }
    }

    /// The wire of port `p` is free: send a waiting link-local frame, else the next
    /// frame of the class the scheduler picks among those not paused. Returns the port's
    /// next `PortFree` while frames remain.
    fn port_free(&mut self, p: PortId, now: Time) -> Option<(Time, Event)> {
        let port = &mut self.net.ports[p as usize];
        if let Some(id) = port.control.as_deref_mut().and_then(|c| c.pop_front()) {
            port.classes.serializing(u8::MAX, 0);
            let size = self.frames.get(id).size;
            self.transmit(p, id, size, now);
        } else {
            let (frames, link, slot) = (&self.frames, &self.protocols.link, port.link);
            let open = |c| AnyLinkControl::gate_open(link, slot, c, now);
            let Some((id, class)) = port.classes.pop(now, |id| frames.get(id).size, open) else {
                port.wake_pending = false;
                return None;
            };
            let frame = frames.get(id);
            if port.pool != NONE {
                self.net.pools[port.pool as usize].give(frame.size);
            }
            port.classes.serializing(class, frame.size);
            let queue = port.classes.queue_mut(class);
            queue.discipline.on_dequeue(queue.view(false, (0, 0)), frame, now);
            let (accounted, size) = (frame.ingress != NONE && link.is_some(), frame.size);
            let sources_wait = port.sources_wait;
            self.transmit(p, id, size, now);
            if accounted {
                self.left(p, id, now);
            }
            if sources_wait {
                self.room_freed(p, class, now);
            }
        }
        let port = &mut self.net.ports[p as usize];
        if port.classes.backlog() == 0 && !port.control_waiting() {
            port.wake_pending = false;
            None
        } else {
            Some((port.busy_until, Event::PortFree { port: p }))
        }
    }

    /// Port `p` may have become able to send (a pause ended, a link-local frame is
    /// waiting): make sure its transmitter runs.
    fn kick(&mut self, p: PortId, now: Time) {
        let port = &mut self.net.ports[p as usize];
        if port.wake_pending || (port.classes.backlog() == 0 && !port.control_waiting()) {
            return;
        }
        port.wake_pending = true;
        let at = port.busy_until.max(now);
        self.events.schedule(at, Event::PortFree { port: p });
    }

    /// The first frame in flight on port `p`'s link reaches the next node. Returns the
    /// arrival of the link's next frame, if one is in flight and has no event of its own
    /// (see [`Sim::arrival_per_frame`]).
    fn arrive(&mut self, p: PortId, now: Time) -> Option<(Time, Event)> {
        let port = &mut self.net.ports[p as usize];
        let Some((_, id)) = port.in_flight.pop_front() else {
            // The arrival of a frame its source makes now.
            return self.emit_late(p, now);
        };
        let passes = matches!(port.flight, Flight::Passes | Flight::Delivers);
        let next = match port.in_flight.front() {
            Some(&(t, _)) if !self.arrival_per_frame => Some((t, Event::Arrive { port: p })),
            _ => None,
        };
        self.land(p, id, now);
        if passes && next.is_some() {
            return self.pass_waiting(p);
        }
        next
    }

    /// Frame `id`, sent by port `p`, reaches the next node: lost on the link, taken by
    /// the link control (a link-local frame), forwarded by a switch or received by a
    /// host.
    #[inline(always)] // once per frame per hop, from either arrival event
    fn land(&mut self, p: PortId, id: FrameId, now: Time) {
        let port = &self.net.ports[p as usize];
        let (peer, loss, node) = (port.peer, port.loss, port.next);
        self.counters.on_wire -= 1;
        if loss != NONE && self.net.losses[loss as usize].lose() {
            self.drop_frame(id, DropSite::Link);
            return;
        }
        let frame = self.frames.get_mut(id);
        if self.protocols.link.is_some() {
            // Only a link control counts frames by ingress port; otherwise the frame's
            // cache line is left clean.
            frame.ingress = peer;
        }
        if frame.header.link_local() {
            self.link_local(peer, id, now);
            return;
        }
        match self.net.kind(node) {
            NodeKind::Switch => self.forward(node, id, now),
            NodeKind::Host => self.at_host(node, id, now),
        }
    }

    /// Looks up the egress port(s) of frame `id` at `node` and enqueues it (a copy per
    /// extra multicast branch).
    fn forward(&mut self, node: NodeId, id: FrameId, now: Time) {
        let f = self.frames.get(id);
        if !f.multicast {
            let p = self.routes.forward_port(node, f.dst, f.flow);
            if p == NONE {
                self.drop_frame(id, DropSite::Unroutable);
            } else {
                self.enqueue(p, id, now);
            }
        } else {
            let frame = *f;
            let range = self.trees.out_range(frame.dst, node);
            if range.is_empty() {
                self.drop_frame(id, DropSite::Unroutable);
                return;
            }
            let last = range.end - 1;
            for i in range {
                let p = self.trees.port_at(i);
                let copy = if i == last {
                    id
                } else {
                    self.counters.count_created(frame.kind());
                    self.frames.alloc(frame)
                };
                self.enqueue(p, copy, now);
            }
        }
    }

    /// Everything a run reports but the number of events, as text: the counters, every
    /// flow's counters and shaper backlog, every queue's statistics, the TCP senders,
    /// the reaction points' rates and the recorded series. Tests of changes that must
    /// alter nothing but the engine's work compare it.
    #[cfg(test)]
    fn observed(&self) -> String {
        let mut counters = self.counters.clone();
        counters.events = 0;
        let flows: Vec<_> = self.flows.iter().map(|f| format!("{:?}", f.stats)).collect();
        let shapers: Vec<_> = self.flows.iter().map(|f| f.shaper.as_ref().map(|s| s.waiting())).collect();
        let queues: Vec<_> = (0..self.net.ports.len() as u32)
            .map(|p| self.queue_stats(p).map(|q| format!("{q:?}")).collect::<Vec<_>>())
            .collect();
        let tcp: Vec<_> = self.protocols.tcp.iter().map(|c| format!("{:?}", c.sender)).collect();
        let rates: Vec<_> = self.reaction_points().iter().map(|rp| rp.current_rate()).collect();
        let r = &self.recorder;
        let series = format!("{:?}\n{:?}\n{:?}", r.queues, r.utilisation, r.throughput);
        format!("{counters:?}\n{flows:?}\n{shapers:?}\n{queues:?}\n{tcp:?}\n{rates:?}\n{series}")
    }

    /// Frees a frame that will not be delivered and counts it where it was dropped: in
    /// its flow's counters too for data frames, TCP segments and RDMA packets, in its
    /// connection's for TCP ACKs.
    fn drop_frame(&mut self, id: FrameId, site: DropSite) {
        let frame = self.frames.get(id);
        let kind = frame.kind();
        match kind {
            crate::net::HeaderKind::Data
            | crate::net::HeaderKind::TcpSegment
            | crate::net::HeaderKind::RdmaData => {
                self.flows[frame.flow as usize].stats.dropped_frames += 1;
            }
            crate::net::HeaderKind::TcpAck => {
                let c = self.flows[frame.flow as usize].tcp;
                self.protocols.tcp[c as usize].acks_dropped += 1;
            }
            _ => {}
        }
        self.frames.free(id);
        self.counters.count_drop(site, kind);
    }
}
