//! Assembly, sources, shapers and the glue from protocol timers and feedback to the
//! data path.

use super::{ctx, DropSite, Protocols, Recorder, Sim, TimerOwner};
use crate::engine::{Event, Time, TimerId, Timers};
use crate::net::{Frame, FrameArena, Header, HeaderKind, MulticastTrees, Network, NodeId, Routes, NONE};
use crate::protocol::{LinkTimer, TimerAction};
use crate::protocol::{Outbox, RateChange};
use crate::traffic::shaper::Offer;
use crate::traffic::{Destination, Flow, Pattern};

impl Sim {
    /// Assembles a simulator. Call [`Sim::start`] before [`Sim::run`]. Timers that
    /// protocols created while being built come in `timers`.
    #[allow(clippy::too_many_arguments)]
    pub fn new(
        net: Network,
        routes: Routes,
        trees: MulticastTrees,
        flows: Vec<Flow>,
        mut protocols: Protocols,
        mut timers: Timers<TimerOwner>,
        end: Time,
        recorder: Recorder,
    ) -> Self {
        let mut flows = flows;
        for (f, flow) in (0u32..).zip(flows.iter_mut()) {
            add_flow_timers(&mut timers, flow, &mut protocols, f);
        }
        let mut frames = FrameArena::with_capacity(4096);
        if protocols.rdma.iter().any(|qp| qp.int != crate::wire::int::IntMode::None) {
            frames.enable_int();
        }
        let int_tx = if protocols.int_multi > 0 { vec![0; net.ports.len()] } else { Vec::new() };
        Self {
            probe: None,
            before_each: false,
            arrival_per_frame: super::is_fabric(&net),
            pass_before: 0,
            pass_horizon: 0,
            next_sample: Time::MAX,
            passes_marked: false,
            sole_feeder: Vec::new(),
            early_hosts: Vec::new(),
            late_sources: Vec::new(),
            early_depth: 0,
            early_outer: NONE,
            handling: NONE,
            int_tx,
            net,
            routes,
            trees,
            frames,
            flows,
            protocols,
            timers,
            outbox: Outbox::default(),
            events: crate::engine::EventQueue::new(),
            end,
            counters: Default::default(),
            recorder,
            max_live_frames: u64::MAX,
            unbuilt: 0,
            unbuilt_over_limit: false,
            room: Default::default(),
            workloads: Default::default(),
            part: None,
            absorbed_live: 0,
        }
    }

    /// Schedules every source's first frame and the first sample. CBR sources of the same
    /// period share an event lane: their emissions come in time order, so only the next
    /// one of each period sits in the event heap.
    pub fn start(&mut self) {
        let mut lanes: Vec<((u64, u32), u32)> = Vec::new();
        let mut first: Vec<(Time, u32, Option<u32>)> = Vec::new();
        for f in 0..self.flows.len() {
            self.schedule_arrivals(f as u32);
            if !self.owns(self.flows[f].src) {
                // Another partition's source.
                continue;
            }
            let flow = &mut self.flows[f];
            let lane = match flow.pattern {
                // Jittered sources are not periodic: their events cannot share a lane.
                Pattern::Cbr { rate_bps, jitter: 0.0 } => {
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
            flow.emission_lane = lane.unwrap_or(NONE);
            // A CBR source without jitter makes the same frames whenever it makes them,
            // unless its reaction point stamps them with its state of the moment.
            flow.defers = matches!(flow.pattern, Pattern::Cbr { jitter: 0.0, .. })
                && flow.shaper.is_some()
                && flow.tcp == NONE
                && !flow.rp_stamps;
            if let (true, Some(shaper)) = (flow.defers, &mut flow.shaper) {
                shaper.holds_unbuilt();
            }
            if flow.tcp != NONE && flow.start < flow.stop {
                let timer = self.protocols.tcp[flow.tcp as usize].timer;
                let start = flow.start;
                self.timers.arm_in(&mut self.events, timer, start, super::tcp::START);
                continue;
            }
            let flow = &mut self.flows[f];
            if flow.pattern == Pattern::Saturated {
                let egress = self.egress_of(f as u32);
                self.flows[f].egress = egress;
            }
            let flow = &mut self.flows[f];
            if flow.pattern == Pattern::Saturated && flow.start < flow.stop {
                let (start, shaper) =
                    (flow.start, flow.shaper.as_mut().expect("saturated flows have a shaper"));
                shaper.pacing(start);
                let timer = shaper.timer;
                self.arm(timer, start);
            }
        }
        self.schedule_arrivals(self.flows.len() as u32);
        // In time order, so that each lane starts sorted (ties keep flow order).
        first.sort_by_key(|&(t, f, _)| (t, f));
        for (t, f, lane) in first {
            let event = Event::SourceEmit { flow: f };
            match lane {
                Some(l) => self.events.schedule_in_lane(l, t, event),
                None => self.events.schedule(t, event),
            }
        }
        let interval = self.recorder.interval;
        if interval > 0 && interval <= self.end {
            self.events.schedule(interval, Event::Sample);
            self.next_sample = interval;
        }
    }

    /// Arms timer `timer` for `at` (tag 0).
    pub(super) fn arm(&mut self, timer: TimerId, at: Time) {
        self.timers.arm_in(&mut self.events, timer, at, 0);
    }

    /// Builds the next data frame of flow `f`.
    pub(super) fn make_frame(&mut self, f: u32, now: Time) -> Frame {
        let dst = self.next_destination(f);
        self.build_frame(f, dst, now)
    }

    /// Flow `f`'s source makes a frame: it counts as offered, and here is its
    /// destination (for a flow to random hosts, the next draw of its stream).
    #[inline]
    fn next_destination(&mut self, f: u32) -> NodeId {
        let flow = &mut self.flows[f as usize];
        let dst = match flow.dst {
            Destination::Tree { tree, .. } => tree,
            _ => flow.pick_host().expect("unicast flow has a host"),
        };
        flow.stats.offered_frames += 1;
        flow.stats.offered_bytes += flow.frame_size as u64;
        dst
    }

    /// Flow `f`'s data frame to `dst`, born at `born`.
    #[inline]
    pub(super) fn build_frame(&mut self, f: u32, dst: NodeId, born: Time) -> Frame {
        let flow = &self.flows[f as usize];
        let mut frame = Frame {
            size: flow.frame_size,
            priority: flow.priority,
            ecn: flow.ecn,
            multicast: matches!(flow.dst, Destination::Tree { .. }),
            src: flow.src,
            dst,
            flow: f,
            ingress: NONE,
            born,
            header: Header::Data(Default::default()),
        };
        if flow.rp_stamps {
            self.protocols.reaction_points[flow.rp as usize].stamp(&mut frame);
        }
        frame
    }

    /// A source produces a frame: into its shaper if it has one, else onto the wire.
    /// Returns the source's next emission, unless the source defers it to its shaper's
    /// releases (see [`Flow::deferred`]).
    pub(super) fn emit(&mut self, f: u32, now: Time) -> Option<(Time, Event)> {
        let frame = self.make_frame(f, now);
        let next = self.flows[f as usize].next_emission(now);
        let id = self.frames.alloc(frame);
        self.counters.count_created(HeaderKind::Data);
        self.offer(f, id, frame.size, now);
        let flow = &mut self.flows[f as usize];
        if flow.defers && flow.shaper.as_ref().is_some_and(|s| s.waiting() > 0) {
            flow.deferred = next;
            return None;
        }
        next.map(|t| self.emission_event(f, t))
    }

    /// Makes the frames flow `f`'s deferring source was due to emit up to `until`
    /// (excluded unless `inclusive`), at the times they were due, into its shaper.
    pub(super) fn catch_up_source(&mut self, f: u32, until: Time, inclusive: bool) {
        while let Some(t) = self.flows[f as usize].deferred {
            if t > until || (t == until && !inclusive) {
                break;
            }
            // The shaper is pacing: the frame waits (built when released) or is lost.
            let dst = self.next_destination(f);
            self.counters.count_created(HeaderKind::Data);
            let flow = &mut self.flows[f as usize];
            flow.deferred = flow.next_emission(t);
            let shaper = flow.shaper.as_mut().expect("a deferring flow has a shaper");
            if shaper.is_full() {
                self.lost_at_source(f, HeaderKind::Data);
            } else {
                shaper.push_unbuilt(t, dst);
                self.unbuilt += 1;
                if self.frames_live() > self.max_live_frames {
                    // The run stops after this event; no need to make more.
                    self.unbuilt_over_limit = true;
                    return;
                }
            }
        }
    }

    /// Every deferring source makes the frames it was due to emit before `until`, so that
    /// counters and shaper queues can be read.
    pub(super) fn catch_up_sources(&mut self, until: Time) {
        for f in 0..self.flows.len() as u32 {
            if self.flows[f as usize].deferred.is_some() {
                self.catch_up_source(f, until, false);
            }
        }
    }

    /// Flow `f`'s shaper has gone idle: a deferring source runs on its own events again.
    fn resume_source(&mut self, f: u32) {
        let flow = &mut self.flows[f as usize];
        if let Some(t) = flow.deferred.take() {
            let event = Event::SourceEmit { flow: f };
            match flow.emission_lane {
                NONE => self.events.schedule(t, event),
                lane => self.events.schedule_in_lane(lane, t, event),
            }
        }
    }

    /// Flow `f`'s new frame `id` of `size` bytes: into the flow's shaper if it has one,
    /// else onto the wire.
    #[inline]
    pub(super) fn offer(&mut self, f: u32, id: crate::net::FrameId, size: u32, now: Time) {
        let flow = &mut self.flows[f as usize];
        let Some(shaper) = &mut flow.shaper else {
            self.host_send(id, now);
            return;
        };
        match shaper.offer(id, now) {
            Offer::SendNow => {
                shaper.released(size, now);
                self.rp_released(f, size, now);
                self.host_send(id, now);
            }
            Offer::Full => {
                let kind = self.frames.get(id).kind();
                self.frames.free(id);
                self.lost_at_source(f, kind);
            }
            Offer::Wait(Some(at)) => {
                let timer = shaper.timer;
                self.arm(timer, at);
            }
            Offer::Wait(None) => {}
        }
    }

    /// A frame of flow `f` lost at its source (its shaper queue full): it never reached
    /// the network, so no per-flow network drop is counted.
    fn lost_at_source(&mut self, f: u32, kind: HeaderKind) {
        self.flows[f as usize].stats.source_dropped_frames += 1;
        self.counters.count_drop(DropSite::Source, kind);
    }

    /// Flow `f`'s shaper lets one frame go, then waits 8·L/rate. Returns its next
    /// release while frames wait. A release that a rate cut has made early waits again.
    pub(super) fn shaper_release(&mut self, f: u32, timer: TimerId, now: Time) -> Option<(Time, Event)> {
        let flow = &mut self.flows[f as usize];
        let (saturated, stop) = (flow.pattern == Pattern::Saturated, flow.stop);
        let shaper = flow.shaper.as_mut().expect("flow has a shaper");
        let allowed = shaper.next_allowed(now);
        if allowed > now {
            shaper.pacing(allowed);
            return Some(self.timers.continue_at(timer, allowed, 0));
        }
        if flow.deferred.is_some_and(|t| t < now) {
            self.catch_up_source(f, now, false);
        }
        let flow = &mut self.flows[f as usize];
        let shaper = flow.shaper.as_mut().expect("flow has a shaper");
        let id = if saturated {
            if now >= stop {
                shaper.idle();
                return None;
            }
            let (egress, priority, size, qp) = (flow.egress, flow.priority, flow.frame_size, flow.qp);
            if qp != NONE && !self.rdma_may_send(f) {
                self.flows[f as usize].shaper.as_mut().expect("flow has a shaper").idle();
                return None;
            }
            if egress != NONE && !self.source_takes(qp, egress, priority, size, now) {
                self.wait_for_room(f, egress);
                return None;
            }
            let frame = if qp == NONE { self.make_frame(f, now) } else { self.rdma_packet(f, now) };
            self.counters.count_created(frame.kind());
            self.frames.alloc(frame)
        } else {
            match shaper.pop_built() {
                Some(id) => id,
                None => match shaper.pop_unbuilt() {
                    Some((born, dst)) => {
                        self.unbuilt -= 1;
                        let frame = self.build_frame(f, dst, born);
                        self.frames.alloc(frame)
                    }
                    None => {
                        shaper.idle();
                        self.resume_source(f);
                        return None;
                    }
                },
            }
        };
        let size = self.frames.get(id).size;
        let flow = &mut self.flows[f as usize];
        let shaper = flow.shaper.as_mut().expect("flow has a shaper");
        shaper.released(size, now);
        if self.flows[f as usize].deferred.is_some_and(|t| t <= now) {
            // A frame due at the very instant of the release comes after it (as the
            // source's own event, scheduled after the release's, would).
            self.catch_up_source(f, now, true);
        }
        let shaper = self.flows[f as usize].shaper.as_mut().expect("flow has a shaper");
        let next = if saturated || shaper.waiting() > 0 {
            let at = shaper.next_allowed(now);
            shaper.pacing(at);
            Some(self.timers.continue_at(timer, at, 0))
        } else {
            shaper.idle();
            self.resume_source(f);
            None
        };
        self.rp_released(f, size, now);
        self.host_send(id, now);
        next
    }

    /// Saturated flow `f`, which waited for room, may send: it takes the room at once
    /// if its rate limiter allows (before any other source's release at this instant
    /// can, so that sources waiting take the room in turn), else at its next release.
    pub(super) fn wake_source(&mut self, f: u32, now: Time) {
        let flow = &mut self.flows[f as usize];
        let (egress, priority, size, stop, qp) =
            (flow.egress, flow.priority, flow.frame_size, flow.stop, flow.qp);
        let shaper = flow.shaper.as_mut().expect("a saturated flow has a shaper");
        let (timer, at) = (shaper.timer, shaper.next_allowed(now));
        if now >= stop {
            return;
        }
        if at > now || !self.source_takes(qp, egress, priority, size, now) {
            self.flows[f as usize].shaper.as_mut().expect("shaper").pacing(at);
            self.arm(timer, at);
            return;
        }
        if qp != NONE && !self.rdma_may_send(f) {
            self.flows[f as usize].shaper.as_mut().expect("shaper").idle();
            return;
        }
        let frame = if qp == NONE { self.make_frame(f, now) } else { self.rdma_packet(f, now) };
        self.counters.count_created(frame.kind());
        let id = self.frames.alloc(frame);
        let size = self.frames.get(id).size;
        let shaper = self.flows[f as usize].shaper.as_mut().expect("shaper");
        shaper.released(size, now);
        let next = shaper.next_allowed(now);
        shaper.pacing(next);
        self.arm(timer, next);
        self.rp_released(f, size, now);
        self.host_send(id, now);
    }

    // ---- reaction points -----------------------------------------------------------

    /// A feedback frame reached its source host: hand it to the flow's reaction point.
    pub(super) fn feedback(&mut self, frame: &Frame, now: Time) {
        let f = frame.flow;
        let qp = self.flows[f as usize].qp;
        if qp != NONE && self.protocols.rdma[qp as usize].requester.complete() {
            // Feedback for a finished queue pair, still in flight when it finished.
            return;
        }
        let flow = &self.flows[f as usize];
        let (rp, line, view) = (flow.rp, flow.line_bps, flow_view(f, flow));
        let change = if rp == NONE {
            None
        } else {
            self.rp_catch_up(f);
            let change = self.protocols.reaction_points[rp as usize].on_feedback(
                &mut ctx!(self, now),
                &view,
                frame,
                line,
            );
            self.rp_requiet(f);
            self.flush(now);
            change
        };
        match change {
            Some(change) => self.apply_rate_change(f, change, now),
            None => self.counters.count_unhandled(frame.kind()),
        }
    }

    /// Flow `f`'s shaper released `size` bytes: its reaction point, if any, hears of it
    /// unless it said it need not yet.
    #[inline]
    fn rp_released(&mut self, f: u32, size: u32, now: Time) {
        let flow = &mut self.flows[f as usize];
        if flow.rp == NONE {
            return;
        }
        if size <= flow.rp_quiet_left {
            flow.rp_quiet_left -= size;
            return;
        }
        self.rp_transmitted(f, size, now);
    }

    /// Hands flow `f`'s reaction point the bytes released while it was quiet.
    #[inline]
    pub(super) fn rp_catch_up(&mut self, f: u32) {
        let flow = &self.flows[f as usize];
        self.protocols.reaction_points[flow.rp as usize].absorb(flow.rp_quiet_left);
    }

    /// Asks flow `f`'s reaction point, just called, how many bytes may pass unseen.
    #[inline]
    pub(super) fn rp_requiet(&mut self, f: u32) {
        let flow = &mut self.flows[f as usize];
        flow.rp_quiet_left = self.protocols.reaction_points[flow.rp as usize].grant_quiet();
    }

    /// Every reaction point catches up with the bytes its flow released while it was
    /// quiet, so that its state can be read.
    pub(super) fn rp_catch_up_all(&mut self) {
        for f in 0..self.flows.len() as u32 {
            if self.flows[f as usize].rp != NONE {
                self.rp_catch_up(f);
            }
        }
    }

    /// Flow `f`'s shaper released `size` bytes, which its reaction point must see.
    #[inline(never)]
    fn rp_transmitted(&mut self, f: u32, size: u32, now: Time) {
        self.rp_catch_up(f);
        let flow = &self.flows[f as usize];
        let view = flow_view(f, flow);
        let (rp, line) = (flow.rp, flow.line_bps);
        let change =
            self.protocols.reaction_points[rp as usize].on_transmit(&mut ctx!(self, now), &view, size, line);
        self.rp_requiet(f);
        self.flush(now);
        self.apply_rate_change(f, change, now);
    }

    /// Flow `f`'s reaction-point timer `id` expired with `tag`.
    pub(super) fn rp_timer(&mut self, f: u32, id: TimerId, tag: u32, now: Time) -> Option<(Time, Event)> {
        let flow = &self.flows[f as usize];
        let timer = (id - flow.rp_timer) as u8;
        let view = flow_view(f, flow);
        let (rp, line) = (flow.rp, flow.line_bps);
        self.rp_catch_up(f);
        let change = self.protocols.reaction_points[rp as usize].on_timer(
            &mut ctx!(self, now),
            &view,
            timer,
            tag,
            line,
        );
        self.rp_requiet(f);
        self.flush(now);
        self.apply_rate_change(f, change, now);
        None
    }

    /// Applies what a reaction point decided: the shaper's new rate, its timer.
    pub(super) fn apply_rate_change(&mut self, f: u32, change: RateChange, now: Time) {
        let flow = &mut self.flows[f as usize];
        let rp_timer = flow.rp_timer;
        if let (Some(rate), Some(shaper)) = (change.rate_bps, &mut flow.shaper) {
            if flow.qp != NONE {
                let qp = &mut self.protocols.rdma[flow.qp as usize];
                qp.scale_window(rate, flow.line_bps, flow.frame_size);
            }
            if let Some(at) = shaper.set_rate(rate, now) {
                let timer = shaper.timer;
                self.arm(timer, at);
            }
        }
        if let Some((delay, tag)) = change.arm_timer {
            self.timers.arm_in(&mut self.events, rp_timer, now + delay, tag);
        }
    }

    // ---- link control --------------------------------------------------------------

    /// A link-control timer expired.
    pub(super) fn link_timer(&mut self, timer: LinkTimer, now: Time) -> Option<(Time, Event)> {
        let link = self.protocols.link.as_mut()?;
        let action = link.on_timer(&mut ctx!(self, now), timer);
        self.flush(now);
        match action {
            TimerAction::None => {}
            TimerAction::Kick(port) => self.kick(port, now),
            TimerAction::Deliver(host, id) => self.deliver(host, id, now),
        }
        None
    }

    // ---- measurement ---------------------------------------------------------------

    /// Records one sample of every series; returns the next sample.
    pub(super) fn sample(&mut self, now: Time) -> Option<(Time, Event)> {
        self.recorder.sample(now, &self.net, &self.flows, &mut self.protocols.reaction_points);
        let next = now + self.recorder.interval;
        self.next_sample = if next <= self.end { next } else { Time::MAX };
        self.pass_before = self.pass_horizon.min(self.next_sample);
        (next <= self.end).then_some((next, Event::Sample))
    }

    /// Closes time integrals at the end time.
    pub(super) fn finish(&mut self) {
        // A sample due exactly at the end time is taken (events at `end` are otherwise
        // not processed); its successor is never scheduled.
        if self.recorder.due_at_end(self.end) {
            let _ = self.sample(self.end);
        }
        for port in &mut self.net.ports {
            for queue in port.classes.queues_mut() {
                queue.finish(self.end);
            }
        }
    }
}

/// What a reaction point sees of flow `f`.
#[inline]
pub(super) fn flow_view(f: u32, flow: &Flow) -> crate::protocol::FlowView {
    let dst = match flow.dst {
        crate::traffic::Destination::Host(h) => h,
        _ => NONE,
    };
    crate::protocol::FlowView { id: f, src: flow.src, dst, timers: flow.rp_timer }
}

/// Gives flow `f`'s shaper, reaction point, queue pair and connection the timers they
/// need.
pub(super) fn add_flow_timers(
    timers: &mut crate::engine::Timers<TimerOwner>,
    flow: &mut Flow,
    protocols: &mut super::Protocols,
    f: u32,
) {
    if let Some(shaper) = &mut flow.shaper {
        shaper.timer = timers.add(TimerOwner::Shaper { flow: f });
    }
    if flow.rp != NONE {
        let count = protocols.reaction_points[flow.rp as usize].timers();
        for k in 0..count {
            let id = timers.add(TimerOwner::ReactionPoint { flow: f });
            if k == 0 {
                flow.rp_timer = id;
            }
        }
    }
    if flow.qp != NONE && protocols.rdma[flow.qp as usize].timeout > 0 {
        protocols.rdma[flow.qp as usize].timer = timers.add(TimerOwner::Rdma { flow: f });
    }
    if flow.tcp != NONE {
        let c = &mut protocols.tcp[flow.tcp as usize];
        c.timer = timers.add(TimerOwner::Tcp { flow: f });
        if c.sender.overhead() > 0 {
            c.send_timer = timers.add(TimerOwner::Tcp { flow: f });
        }
        if c.receiver.delays_acks() {
            c.ack_timer = timers.add(TimerOwner::Tcp { flow: f });
        }
    }
}

#[cfg(test)]
mod tests {
    use super::Sim;
    use crate::engine::PS_PER_MS;

    /// QCN on a dumbbell whose senders offer more than their share (their shapers hold
    /// backlogs and lose frames), plus a flow to uniformly random hosts behind a fixed
    /// rate limit (a backlog from the start, destinations drawn from its random stream).
    const BACKLOGGED: &str = r#"
name = "backlogged"
duration = "30ms"
seed = 7
[topology.dumbbell]
senders = 8
receivers = 2
sender_link = { rate = "10Gbps", delay = "2us" }
bottleneck = { rate = "5Gbps", delay = "10us" }
receiver_link = { rate = "10Gbps", delay = "2us" }
[[traffic]]
name = "cbr"
kind = "cbr"
from = "s*"
to = "d1"
rate = "1.5Gbps"
start = { uniform = ["0us", "20us"] }
source_queue = "20 frames"
[[traffic]]
name = "u"
kind = "cbr"
from = "s1"
to = "uniform"
rate = "1Gbps"
frame_size = "1000B"
rate_limit = "300Mbps"
source_queue = "5 frames"
[protocols.qcn]
congestion_points = ["r1->r2"]
flows = ["cbr"]
[protocols.qcn.cp]
qeq = "30 frames"
"#;

    fn build(deferring: bool) -> Sim {
        let s = crate::scenario::parse(BACKLOGGED, "test.toml", &[]).unwrap_or_else(|e| panic!("{e}"));
        let mut sim = crate::scenario::build(&s, "test.toml").unwrap_or_else(|e| panic!("{e}"));
        if !deferring {
            for flow in &mut sim.flows {
                flow.defers = false;
            }
        }
        sim
    }

    #[test]
    fn deferring_sources_change_nothing_but_the_number_of_events() {
        let mut eager = build(false);
        eager.run_to_end();
        let mut deferring = build(true);
        deferring.run_to_end();
        let stats = &deferring.flows[0].stats;
        assert!(stats.source_dropped_frames > 100, "backlogs form: {stats:?}");
        assert!(deferring.flows[8].stats.source_dropped_frames > 100);
        assert_eq!(eager.observed(), deferring.observed());
        // Frames made at releases are not events: about one event in six saved here.
        let (e, d) = (eager.counters.events, deferring.counters.events);
        assert!(d * 10 < e * 9, "eager {e} events, deferring {d}");
    }

    #[test]
    fn a_run_inspected_part_way_shows_the_frames_its_sources_deferred() {
        let mut eager = build(false);
        let mut deferring = build(true);
        for until in [7 * PS_PER_MS + 333, 18 * PS_PER_MS] {
            eager.run_until(until, &mut |_| true).unwrap();
            deferring.run_until(until, &mut |_| true).unwrap();
            assert_eq!(eager.observed(), deferring.observed(), "at {until} ps");
        }
        eager.run_to_end();
        deferring.run_to_end();
        assert_eq!(eager.observed(), deferring.observed());
        deferring.check_conservation().unwrap();
    }
}
