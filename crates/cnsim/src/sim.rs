//! The simulator: the run loop and the data path.
//!
//! Read top to bottom, a frame's life is:
//! [`Sim::emit`] (a source makes it) → `Sim::limiter_release` (if the flow is rate
//! limited) → [`Sim::host_send`] → [`Sim::enqueue`] (egress queue of a port, drop-tail)
//! → [`Sim::transmit`] (serialization on the link; the arrival is scheduled at once)
//! → [`Sim::arrive`] at the next node → [`Sim::forward`] (a switch: lookup, replicate
//! for multicast, enqueue again) or [`Sim::deliver`] (a host).
//!
//! Ports are *lazy*: a port that is idle when a frame arrives starts sending it at once
//! and no event marks the end of its transmission; only a port with a backlog schedules
//! a `PortFree` event for when the wire frees up. Each frame therefore costs one
//! `Arrive` event per hop plus one `PortFree` per hop where it had to wait.

use crate::engine::{Event, EventQueue, Fired, Time, TimerId, Timers};
use crate::l2::qcn::{self, Qcn};
use crate::metrics::TimeSeries;
use crate::net::{
    Frame, FrameArena, FrameId, FrameKind, MulticastTrees, Network, NodeId, NodeKind, PortId, Routes, NONE,
};
use crate::traffic::{Destination, Flow, Pattern};

/// Global counters of a run.
#[derive(Clone, Debug, Default, serde::Serialize)]
pub struct Counters {
    /// Events processed.
    pub events: u64,
    /// Frames put on a link (a frame crossing one link = one hop).
    pub frame_hops: u64,
    /// Frames created: by sources, by multicast replication, and control frames.
    pub created: u64,
    /// Frames consumed by a host.
    pub delivered: u64,
    /// Frames dropped anywhere: the sum of the three counters below.
    pub dropped: u64,
    /// Frames dropped at full egress queues (or shared buffers).
    pub dropped_at_queues: u64,
    /// Frames lost at a source because its limiter queue was full.
    pub dropped_at_sources: u64,
    /// Frames with nowhere to go: no route to the destination, or a multicast tree with
    /// no branch where the frame is.
    pub dropped_unroutable: u64,
    /// Frames currently serializing or propagating on a link.
    pub on_wire: u64,
}

/// Where a frame was dropped.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum DropSite {
    /// A full egress queue (or shared buffer).
    Queue,
    /// A full limiter queue at the source.
    Source,
    /// No route, or no multicast branch, where the frame was.
    Unroutable,
}

impl Counters {
    /// Counts one drop, in the total and at its site: the one place drops are counted.
    #[inline]
    pub fn count_drop(&mut self, site: DropSite) {
        self.dropped += 1;
        match site {
            DropSite::Queue => self.dropped_at_queues += 1,
            DropSite::Source => self.dropped_at_sources += 1,
            DropSite::Unroutable => self.dropped_unroutable += 1,
        }
    }
}

/// Where the simulation is, for progress reporting.
#[derive(Clone, Copy, Debug)]
pub struct Progress {
    /// Simulated time reached.
    pub now: Time,
    /// Simulated end time.
    pub end: Time,
    /// Events processed so far.
    pub events: u64,
}

/// Why a run stopped before its end time.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Halt {
    /// The progress callback said stop (e.g. Ctrl-C).
    Interrupted,
    /// More frames were held at once (queued, in limiters, on wires) than the memory
    /// limit allows.
    TooManyFrames {
        /// Frames held when the run stopped.
        live: u64,
        /// The most the limit allows.
        limit: u64,
        /// Simulated time reached.
        at: Time,
    },
}

/// Sampled series and how to sample them.
#[derive(Clone, Debug)]
pub struct Recorder {
    /// Sampling period (0 = no series).
    pub interval: Time,
    /// Ports whose queue length is recorded.
    pub queue_ports: Vec<PortId>,
    /// Queue length in frames per recorded port.
    pub queues: TimeSeries,
    /// Flows whose throughput is recorded.
    pub flow_ids: Vec<u32>,
    /// Delivered throughput per recorded flow over the previous interval, bit/s.
    pub throughput: TimeSeries,
    last_delivered: Vec<u64>,
    /// Current rate (CR) of every QCN reaction point, bit/s.
    pub rates: TimeSeries,
    /// CNMs received by every QCN reaction point during the previous interval.
    pub cnms: TimeSeries,
}

impl Recorder {
    /// A recorder for the given ports and flows.
    pub fn new(
        interval: Time,
        net: &Network,
        queue_ports: Vec<PortId>,
        flows: &[Flow],
        flow_ids: Vec<u32>,
    ) -> Self {
        let queues = TimeSeries::new("queue_length", "frames", queue_ports.iter().map(|&p| net.port_name(p)));
        let throughput =
            TimeSeries::new("throughput", "bit/s", flow_ids.iter().map(|&f| flows[f as usize].name.clone()));
        Self {
            interval,
            last_delivered: vec![0; flow_ids.len()],
            queue_ports,
            queues,
            flow_ids,
            throughput,
            rates: TimeSeries::new("rp_rate", "bit/s", std::iter::empty()),
            cnms: TimeSeries::new("rp_cnms", "CNMs per interval", std::iter::empty()),
        }
    }
}

/// What a timer belongs to: the match that dispatches an expiry.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum TimerOwner {
    /// The rate limiter of a flow: its next release.
    Limiter {
        /// The flow.
        flow: u32,
    },
    /// The QCN reaction point of a flow: its timer T.
    ReactionPoint {
        /// The flow.
        flow: u32,
    },
}

/// A built scenario, ready to run.
pub struct Sim {
    /// Nodes, ports and buffers.
    pub net: Network,
    /// Unicast forwarding tables.
    pub routes: Routes,
    /// Multicast trees.
    pub trees: MulticastTrees,
    /// Frame storage.
    pub frames: FrameArena,
    /// Traffic sources.
    pub flows: Vec<Flow>,
    /// QCN congestion and reaction points.
    pub qcn: Qcn,
    /// Every timer, with what each belongs to.
    timers: Timers<TimerOwner>,
    /// Event lane for reaction-point timers.
    rp_timer_lane: u32,
    /// Pending events and the clock.
    pub events: EventQueue,
    /// Simulated end time: events at or after it are not processed.
    pub end: Time,
    /// Global counters.
    pub counters: Counters,
    /// Time series.
    pub recorder: Recorder,
    /// Most frames the run may hold at once (the memory limit's share for frames),
    /// checked with the progress callback.
    pub max_live_frames: u64,
}

impl Sim {
    /// Assembles a simulator. Call [`Sim::start`] before [`Sim::run`].
    pub fn new(
        net: Network,
        routes: Routes,
        trees: MulticastTrees,
        flows: Vec<Flow>,
        qcn: Qcn,
        end: Time,
        recorder: Recorder,
    ) -> Self {
        let mut timers = Timers::new();
        let mut flows = flows;
        for (f, flow) in (0u32..).zip(flows.iter_mut()) {
            if let Some(lim) = &mut flow.limiter {
                lim.timer = timers.add(TimerOwner::Limiter { flow: f });
            }
            if flow.rp != NONE {
                flow.rp_timer = timers.add(TimerOwner::ReactionPoint { flow: f });
            }
        }
        Self {
            net,
            routes,
            trees,
            frames: FrameArena::with_capacity(4096),
            timers,
            flows,
            rp_timer_lane: 0,
            qcn,
            events: EventQueue::new(),
            end,
            counters: Counters::default(),
            recorder,
            max_live_frames: u64::MAX,
        }
    }

    /// Schedules every source's first frame and the first sample. CBR sources of the same
    /// period share an event lane: their emissions come in time order, so only the next
    /// one of each period sits in the event heap.
    pub fn start(&mut self) {
        self.rp_timer_lane = self.events.add_lane();
        let mut lanes: Vec<((u64, u32), u32)> = Vec::new();
        let mut first: Vec<(Time, u32, Option<u32>)> = Vec::new();
        for f in 0..self.flows.len() {
            let flow = &mut self.flows[f];
            let lane = match flow.pattern {
                Pattern::Cbr { rate_bps } => {
                    let period = (rate_bps, flow.frame_size);
                    match lanes.iter().find(|(p, _)| *p == period) {
                        Some(&(_, l)) => Some(l),
                        None => {
                            let l = self.events.add_lane();
                            lanes.push((period, l));
                            Some(l)
                        }
                    }
                }
                _ => None,
            };
            if let Some(t) = flow.first_emission() {
                first.push((t, f as u32, lane));
            }
            if flow.pattern == Pattern::Saturated && flow.start < flow.stop {
                let start = flow.start;
                self.schedule_release(f as u32, start);
            }
        }
        // In time order, so that each lane starts sorted (ties keep flow order).
        first.sort_by_key(|&(t, f, _)| (t, f));
        for (t, f, lane) in first {
            let event = Event::SourceEmit { flow: f };
            match lane {
                Some(l) => self.events.schedule_in_lane(l, t, event),
                None => self.events.schedule(t, event),
            }
        }
        if self.recorder.interval > 0 && self.recorder.interval <= self.end {
            self.events.schedule(self.recorder.interval, Event::Sample);
        }
    }

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
        while let Some((now, event)) = self.events.front() {
            if now >= until {
                break;
            }
            match self.dispatch(now, event) {
                Some((at, next)) => self.events.reschedule(at, next),
                None => self.events.retire(),
            }
            self.counters.events += 1;
            if self.counters.events & 0xffff == 0 {
                let p = Progress { now, end: self.end, events: self.counters.events };
                if !on_progress(&p) {
                    return Err(Halt::Interrupted);
                }
                let live = self.frames.live();
                if live > self.max_live_frames {
                    return Err(Halt::TooManyFrames { live, limit: self.max_live_frames, at: now });
                }
            }
        }
        Ok(())
    }

    /// Runs to the end without progress reports.
    pub fn run_to_end(&mut self) {
        let _ = self.run(&mut |_| true);
    }

    /// Handles one event. A handler that has a successor of its own (the source's next
    /// frame, the port's next transmission, the link's next arrival, the next sample)
    /// returns it, and the queue replaces the handled event by it in place.
    #[inline]
    fn dispatch(&mut self, now: Time, event: Event) -> Option<(Time, Event)> {
        match event {
            Event::Arrive { port } => self.arrive(port, now),
            Event::PortFree { port } => self.port_free(port, now),
            Event::SourceEmit { flow } => self.emit(flow, now),
            Event::Timer { timer, generation } => match self.timers.fire(timer, generation, now) {
                Fired::Stale => None,
                Fired::Moved(at, event) => Some((at, event)),
                Fired::Expired(TimerOwner::Limiter { flow }, _) => self.limiter_release(flow, timer, now),
                Fired::Expired(TimerOwner::ReactionPoint { flow }, epoch) => self.rp_timer(flow, epoch, now),
            },
            Event::Sample => self.sample(now),
        }
    }

    // ---- sources -------------------------------------------------------------------

    /// Builds the next data frame of flow `f`.
    fn make_frame(&mut self, f: u32, now: Time) -> Frame {
        let flow = &mut self.flows[f as usize];
        let (dst, multicast) = match flow.dst {
            Destination::Tree { tree, .. } => (tree, true),
            _ => (flow.pick_host().expect("unicast flow has a host"), false),
        };
        flow.stats.offered_frames += 1;
        flow.stats.offered_bytes += flow.frame_size as u64;
        let qcn = if multicast { self.qcn.representative_tag(flow.rp) } else { Default::default() };
        Frame {
            kind: FrameKind::Data,
            priority: flow.priority,
            multicast,
            size: flow.frame_size,
            src: flow.src,
            dst,
            flow: f,
            born: now,
            qcn,
        }
    }

    /// A source produces a frame: into its limiter if it has one, else onto the wire.
    /// Returns the source's next emission.
    fn emit(&mut self, f: u32, now: Time) -> Option<(Time, Event)> {
        let frame = self.make_frame(f, now);
        let next = self.flows[f as usize].next_emission(now).map(|t| (t, Event::SourceEmit { flow: f }));
        let id = self.frames.alloc(frame);
        self.counters.created += 1;
        let flow = &mut self.flows[f as usize];
        match &mut flow.limiter {
            None => self.host_send(id, now),
            Some(lim) => {
                let pending = self.timers.deadline(lim.timer).is_some();
                if lim.queue.is_empty() && !pending && lim.next_allowed(now) <= now {
                    // The limiter is idle and the rate allows a frame now: it goes at once.
                    let size = frame.size;
                    lim.last_release = Some((now, size));
                    if flow.rp != NONE {
                        self.rp_transmitted(f, size, now);
                    }
                    self.host_send(id, now);
                } else if lim.queue.len() >= lim.capacity {
                    flow.stats.source_dropped_frames += 1;
                    self.frames.free(id);
                    self.counters.count_drop(DropSite::Source);
                } else {
                    lim.queue.push_back(id);
                    if !pending {
                        let at = lim.next_allowed(now);
                        self.schedule_release(f, at);
                    }
                }
            }
        }
        next
    }

    /// Schedules the release of flow `f`'s next frame at `at` (its limiter's timer).
    pub(crate) fn schedule_release(&mut self, f: u32, at: Time) {
        let timer = self.flows[f as usize].limiter.as_ref().expect("flow has a limiter").timer;
        if let Some((at, event)) = self.timers.arm(timer, at, 0) {
            self.events.schedule(at, event);
        }
    }

    /// The limiter of flow `f` lets one frame go, then waits 8·L/rate. Returns its next
    /// release while frames wait. A release that a rate cut has made early waits again.
    fn limiter_release(&mut self, f: u32, timer: TimerId, now: Time) -> Option<(Time, Event)> {
        let flow = &mut self.flows[f as usize];
        let saturated = flow.pattern == Pattern::Saturated;
        let lim = flow.limiter.as_mut().expect("flow has a limiter");
        let allowed = lim.next_allowed(now);
        if allowed > now {
            return Some(self.timers.continue_at(timer, allowed, 0));
        }
        let id = if saturated {
            if now >= flow.stop {
                return None;
            }
            let frame = self.make_frame(f, now);
            self.counters.created += 1;
            self.frames.alloc(frame)
        } else {
            lim.queue.pop_front()?
        };
        let size = self.frames.get(id).size;
        let flow = &mut self.flows[f as usize];
        let lim = flow.limiter.as_mut().expect("flow has a limiter");
        lim.last_release = Some((now, size));
        let more = saturated || !lim.queue.is_empty();
        let rp = flow.rp;
        let next = more.then(|| self.timers.continue_at(timer, lim.next_allowed(now), 0));
        if rp != NONE {
            self.rp_transmitted(f, size, now);
        }
        self.host_send(id, now);
        next
    }

    // ---- the data path -------------------------------------------------------------

    /// A host hands a frame of its own to its egress port(s).
    fn host_send(&mut self, id: FrameId, now: Time) {
        let frame = *self.frames.get(id);
        if frame.kind == FrameKind::Data {
            let st = &mut self.flows[frame.flow as usize].stats;
            st.sent_frames += 1;
            st.sent_bytes += frame.size as u64;
        }
        self.forward(frame.src, id, now);
    }

    /// Puts frame `id` in the egress queue of port `p`, or straight on the wire if the
    /// port is idle, or drops it if the queue (or the switch's shared pool) is full.
    fn enqueue(&mut self, p: PortId, id: FrameId, now: Time) {
        let frame = *self.frames.get(id);
        let port = &mut self.net.ports[p as usize];
        if port.queue.is_empty() && port.busy_until <= now {
            port.queue.record_cut_through(frame.size);
            self.transmit(p, id, now);
        } else {
            let pool_ok = port.pool == NONE || self.net.pools[port.pool as usize].admits(frame.size);
            if pool_ok && port.queue.admits(frame.size) {
                port.queue.push(now, id, frame.size);
                if port.pool != NONE {
                    self.net.pools[port.pool as usize].take(frame.size);
                }
                if !port.wake_pending {
                    port.wake_pending = true;
                    let at = port.busy_until;
                    self.events.schedule(at, Event::PortFree { port: p });
                }
            } else {
                port.queue.record_drop(frame.size);
                self.drop_frame(id, &frame, DropSite::Queue);
            }
        }
        // The congestion point samples every arriving data frame, queued or dropped
        // (802.1Qau counts discarded arrivals too).
        let cp = self.net.ports[p as usize].cp;
        if cp != NONE && frame.kind == FrameKind::Data {
            self.cp_arrival(cp, p, &frame, now);
        }
    }

    /// Starts serializing frame `id` on port `p`; the frame reaches the next node at
    /// `now + size·8/rate + propagation delay + next node's processing latency`. Frames
    /// on a link arrive in the order they were sent, so the link keeps them in a FIFO and
    /// only its first frame has a pending `Arrive` event.
    #[inline]
    fn transmit(&mut self, p: PortId, id: FrameId, now: Time) {
        let size = self.frames.get(id).size;
        let port = &mut self.net.ports[p as usize];
        let ser = port.serialization_time(size);
        port.busy_until = now + ser;
        let at = now + ser + port.to_next_node;
        port.in_flight.push_back((at, id));
        if port.in_flight.len() == 1 {
            self.events.schedule(at, Event::Arrive { port: p });
        }
        self.counters.frame_hops += 1;
        self.counters.on_wire += 1;
    }

    /// The wire of port `p` is free: send the next waiting frame, if any. Returns the
    /// port's next `PortFree` while frames remain.
    fn port_free(&mut self, p: PortId, now: Time) -> Option<(Time, Event)> {
        let frames = &self.frames;
        let port = &mut self.net.ports[p as usize];
        let Some(id) = port.queue.pop(now, |id| frames.get(id).size) else {
            port.wake_pending = false;
            return None;
        };
        if port.pool != NONE {
            let size = frames.get(id).size;
            self.net.pools[port.pool as usize].give(size);
        }
        self.transmit(p, id, now);
        let port = &mut self.net.ports[p as usize];
        if port.queue.is_empty() {
            port.wake_pending = false;
            None
        } else {
            Some((port.busy_until, Event::PortFree { port: p }))
        }
    }

    /// The first frame in flight on port `p`'s link reaches the next node. Returns the
    /// arrival of the link's next frame, if one is in flight.
    fn arrive(&mut self, p: PortId, now: Time) -> Option<(Time, Event)> {
        let port = &mut self.net.ports[p as usize];
        let (_, id) = port.in_flight.pop_front().expect("an arrival has a frame in flight");
        let next = port.in_flight.front().map(|&(t, _)| (t, Event::Arrive { port: p }));
        let peer = port.peer;
        self.counters.on_wire -= 1;
        let node = self.net.ports[peer as usize].node;
        match self.net.nodes[node as usize].kind {
            NodeKind::Switch => self.forward(node, id, now),
            NodeKind::Host => self.deliver(node, id, now),
        }
        next
    }

    /// Looks up the egress port(s) of frame `id` at `node` and enqueues it (a copy per
    /// extra multicast branch).
    fn forward(&mut self, node: NodeId, id: FrameId, now: Time) {
        let frame = *self.frames.get(id);
        if frame.multicast {
            let range = self.trees.out_range(frame.dst, node);
            if range.is_empty() {
                self.drop_frame(id, &frame, DropSite::Unroutable);
                return;
            }
            let last = range.end - 1;
            for i in range {
                let p = self.trees.port_at(i);
                let copy = if i == last {
                    id
                } else {
                    self.counters.created += 1;
                    self.frames.alloc(frame)
                };
                self.enqueue(p, copy, now);
            }
        } else {
            let p = self.routes.next_port(node, frame.dst, frame.flow);
            if p == NONE {
                self.drop_frame(id, &frame, DropSite::Unroutable);
            } else {
                self.enqueue(p, id, now);
            }
        }
    }

    /// A host consumes frame `id`.
    fn deliver(&mut self, host: NodeId, id: FrameId, now: Time) {
        let frame = *self.frames.get(id);
        self.frames.free(id);
        self.counters.delivered += 1;
        match frame.kind {
            FrameKind::Data => {
                let st = &mut self.flows[frame.flow as usize].stats;
                st.delivered_frames += 1;
                st.delivered_bytes += frame.size as u64;
                st.delay_sum += (now - frame.born) as u128;
            }
            FrameKind::Cnm => self.rp_receive(host, &frame, now),
        }
    }

    /// Frees a frame that will not be delivered and counts it where it was dropped.
    fn drop_frame(&mut self, id: FrameId, frame: &Frame, site: DropSite) {
        self.frames.free(id);
        self.counters.count_drop(site);
        if frame.kind == FrameKind::Data {
            self.flows[frame.flow as usize].stats.dropped_frames += 1;
        } else {
            self.qcn.stats.cnms_dropped += 1;
        }
    }

    // ---- QCN hooks -----------------------------------------------------------------

    /// A data frame arrived at the queue of port `p`, which has congestion point `cp`.
    fn cp_arrival(&mut self, cp: u32, p: PortId, frame: &Frame, now: Time) {
        let port = &self.net.ports[p as usize];
        let queue = qcn::QueueView { frames: port.queue.len(), bytes: port.queue.bytes() };
        let Some(cnm) = self.qcn.cp_arrival(cp, queue, frame) else {
            return;
        };
        let switch = port.node;
        let msg = Frame {
            kind: FrameKind::Cnm,
            priority: self.qcn.cnm_priority,
            multicast: false,
            size: self.qcn.cnm_size,
            src: switch,
            dst: frame.src,
            flow: frame.flow,
            born: now,
            qcn: cnm,
        };
        let id = self.frames.alloc(msg);
        self.counters.created += 1;
        self.forward(switch, id, now);
    }

    /// A CNM reached host `host`: hand it to the reaction point of its flow.
    fn rp_receive(&mut self, _host: NodeId, cnm: &Frame, now: Time) {
        let f = cnm.flow;
        let rp = self.flows[f as usize].rp;
        if rp == NONE {
            self.qcn.stats.cnms_ignored += 1;
            return;
        }
        let line = self.line_rate(f);
        let change = self.qcn.rp_feedback(rp, cnm.qcn, line);
        self.apply_rate_change(f, change, now);
    }

    /// The limiter of flow `f` released `size` bytes: advance the RP byte counter.
    fn rp_transmitted(&mut self, f: u32, size: u32, now: Time) {
        let rp = self.flows[f as usize].rp;
        let line = self.line_rate(f);
        let change = self.qcn.rp_bytes_sent(rp, size, line);
        self.apply_rate_change(f, change, now);
    }

    /// The RP timer of flow `f` expired; `epoch` is the RP epoch it was armed in.
    fn rp_timer(&mut self, f: u32, epoch: u32, now: Time) -> Option<(Time, Event)> {
        let rp = self.flows[f as usize].rp;
        let line = self.line_rate(f);
        let change = self.qcn.rp_timer(rp, epoch, line);
        self.apply_rate_change(f, change, now);
        None
    }

    /// Rate of the source host's egress link (QCN's C).
    #[inline]
    fn line_rate(&self, f: u32) -> u64 {
        self.flows[f as usize].line_bps
    }

    /// Applies what a reaction point decided: new limiter rate, timer (re)arming.
    fn apply_rate_change(&mut self, f: u32, change: qcn::RpAction, now: Time) {
        let rp_timer = self.flows[f as usize].rp_timer;
        if let Some(rate) = change.rate_bps {
            let flow = &mut self.flows[f as usize];
            let lim = flow.limiter.as_mut().expect("RP flows have a limiter");
            lim.rate_bps = rate.max(1);
            // A pending release that the new rate makes early simply waits again when it
            // fires; one that it makes late is brought forward.
            if let Some(pending) = self.timers.deadline(lim.timer) {
                let at = lim.next_allowed(now);
                if at < pending {
                    self.schedule_release(f, at);
                }
            }
        }
        if let Some((delay, epoch)) = change.arm_timer {
            // Timers restarted by CNMs all run for the same period T, so their expiries
            // come in time order: one lane holds them all.
            if let Some((at, event)) = self.timers.arm(rp_timer, now + delay, epoch) {
                let lane = self.rp_timer_lane;
                self.events.schedule_in_lane(lane, at, event);
            }
        }
    }

    // ---- measurement ---------------------------------------------------------------

    /// Records one sample of every series; returns the next sample.
    fn sample(&mut self, now: Time) -> Option<(Time, Event)> {
        let r = &mut self.recorder;
        let t = crate::engine::time::as_secs(now);
        r.queues.times_s.push(t);
        for (i, &p) in r.queue_ports.iter().enumerate() {
            let len = self.net.ports[p as usize].queue.len();
            r.queues.columns[i].values.push(len as f64);
        }
        r.throughput.times_s.push(t);
        let secs = crate::engine::time::as_secs(r.interval);
        for (i, &f) in r.flow_ids.iter().enumerate() {
            let bytes = self.flows[f as usize].stats.delivered_bytes;
            let delta = bytes - r.last_delivered[i];
            r.last_delivered[i] = bytes;
            r.throughput.columns[i].values.push(delta as f64 * 8.0 / secs);
        }
        if !r.rates.columns.is_empty() {
            r.rates.times_s.push(t);
            r.cnms.times_s.push(t);
            for ((col, cnms), rp) in
                r.rates.columns.iter_mut().zip(&mut r.cnms.columns).zip(&mut self.qcn.rps)
            {
                col.values.push(rp.current_rate() as f64);
                cnms.values.push(rp.cnms_since_sample as f64);
                rp.cnms_since_sample = 0;
            }
        }
        let next = now + r.interval;
        (next <= self.end).then_some((next, Event::Sample))
    }

    /// Closes time integrals at the end time.
    fn finish(&mut self) {
        // A sample due exactly at the end time is taken (events at `end` are otherwise
        // not processed); its successor is never scheduled.
        if self.recorder.interval > 0
            && self.recorder.interval <= self.end
            && self.end % self.recorder.interval == 0
            && self.recorder.queues.times_s.last().copied() != Some(crate::engine::time::as_secs(self.end))
        {
            let _ = self.sample(self.end);
        }
        for port in &mut self.net.ports {
            port.queue.finish(self.end);
        }
    }

    /// Frames waiting in egress queues and limiters.
    pub fn frames_queued(&self) -> u64 {
        let in_ports: u64 = self.net.ports.iter().map(|p| p.queue.len()).sum();
        let in_limiters: u64 =
            self.flows.iter().filter_map(|f| f.limiter.as_ref()).map(|l| l.queue.len() as u64).sum();
        in_ports + in_limiters
    }

    /// Checks frame conservation: every frame created was delivered, dropped, or is
    /// still in the network (queued or on a wire), and the arena agrees; and every drop
    /// is accounted for where it happened (queues, sources, unroutable).
    pub fn check_conservation(&self) -> Result<(), String> {
        let c = &self.counters;
        let at_queues: u64 = self.net.ports.iter().map(|p| p.queue.stats.dropped_frames).sum();
        let at_sources: u64 = self.flows.iter().map(|f| f.stats.source_dropped_frames).sum();
        if c.dropped != c.dropped_at_queues + c.dropped_at_sources + c.dropped_unroutable
            || at_queues != c.dropped_at_queues
            || at_sources != c.dropped_at_sources
        {
            return Err(format!(
                "drop accounting violated: dropped {} != at queues {} (queue counters {}) + at \
                 sources {} (flow counters {}) + unroutable {}",
                c.dropped,
                c.dropped_at_queues,
                at_queues,
                c.dropped_at_sources,
                at_sources,
                c.dropped_unroutable
            ));
        }
        let in_flight = self.frames_queued() + c.on_wire;
        if c.created != c.delivered + c.dropped + in_flight || in_flight != self.frames.live() {
            return Err(format!(
                "frame conservation violated: created {} != delivered {} + dropped {} + in flight {} \
                 (queued {} + on wire {}); arena holds {}",
                c.created,
                c.delivered,
                c.dropped,
                in_flight,
                self.frames_queued(),
                c.on_wire,
                self.frames.live()
            ));
        }
        Ok(())
    }
}
