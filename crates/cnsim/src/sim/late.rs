//! Sources whose frames are made when they reach the next node.
//!
//! A CBR source that is alone on its host's one link sends each frame onto an idle
//! wire, and nothing sees the frame, or the source, until the frame reaches the node at
//! the link's far end, a fixed flight time after it was made. Its emission and that
//! arrival can then be one event, at the arrival: the source makes the frame as it
//! would have at its emission time, puts it on the wire as it would have then, and the
//! node takes it. On `dumbbell-cbr-64` that removes every frame's emission event but
//! those with a sample due before the frame arrives: 17.56 M events in 10 s instead of
//! 26.70 M, and the same files (see [`Sim::emit_late`]). The event is the link's own
//! [`Event::Arrive`], which the frame's arrival would have had anyway, so where
//! simultaneous events are ordered by content ([`Ties::Content`](crate::engine::Ties::Content))
//! it takes the place the arrival would have taken.

use super::Sim;
use crate::engine::time::{periodic_instant, serialization_time};
use crate::engine::{Event, Time};
use crate::net::{Flight, FrameId, HeaderKind, NodeKind, PortId, NONE};
use crate::traffic::{Destination, Pattern};

/// A host port whose frames are made at their arrival at the next node.
#[derive(Clone, Copy, Debug)]
pub(super) struct LateSource {
    /// The flow that sends them, or `NONE` where the port is not one.
    flow: u32,
    /// Their flight time: serialization, propagation and the next node's processing.
    flight: Time,
    /// When the frame whose arrival is the source's pending event was due to be made,
    /// or `Time::MAX` if the frame exists (or the pending event is an emission).
    due: Time,
}

const NOT_LATE: LateSource = LateSource { flow: NONE, flight: 0, due: Time::MAX };

impl Sim {
    /// Finds the sources that may make their frames at their arrival at the next node
    /// ([`Sim::emit_late`]) and notes their hosts' ports. A source may if:
    /// - it is CBR without jitter, shaper, reaction point, TCP or RDMA, to one host, and
    ///   its host has one port, by which the route to that host leaves;
    /// - its host sends nothing else: no other flow, and no flow whose frames it would
    ///   answer comes to it (TCP, RDMA, or with a reaction or notification point, whose
    ///   ACKs, notifications or reflected probes it would send; where such a flow goes
    ///   to random hosts or a group, no source is late); the run has no workload (whose flows start at
    ///   hosts at times of their own), no packet trace and no link control (whose PAUSE
    ///   frames stop ports; see [`Sim::may_pass_through`]);
    /// - the port sends straight to the next node ([`Flight::Direct`]) with drop-tail in
    ///   every class, and has no congestion point or shared buffer;
    /// - the source's period is longer than the flight time, so each frame has arrived
    ///   before the next is made: the wire is idle at every emission, and the next
    ///   emission never comes before the arrival that makes the frame before.
    #[cold]
    pub(super) fn mark_late_sources(&mut self) {
        self.late_sources = Vec::new();
        if !self.workloads.entries.is_empty() || self.recorder.trace.is_some() {
            return;
        }
        let net = &self.net;
        // Per node: the one flow it sends, `NONE` if none, `NO` if it may not.
        const NO: u32 = NONE - 1;
        let mut sends = vec![NONE; net.nodes.len()];
        for (f, flow) in (0u32..).zip(&self.flows) {
            let src = flow.src as usize;
            sends[src] = if sends[src] == NONE { f } else { NO };
            // A flow whose frames its destination answers: ACKs, notifications, probes
            // sent back.
            let answered = flow.tcp != NONE
                || flow.qp != NONE
                || flow.rp != NONE
                || self.protocols.notification_points.get(f as usize).is_some_and(Option::is_some);
            match flow.dst {
                Destination::Host(dst) if answered => sends[dst as usize] = NO,
                Destination::Host(_) => {}
                // Answered by hosts the flow draws or reaches through a tree.
                _ if answered => return,
                _ => {}
            }
        }
        let mut late = vec![NOT_LATE; net.ports.len()];
        let mut any = false;
        for (n, &f) in sends.iter().enumerate() {
            if f == NONE || f == NO {
                continue;
            }
            let flow = &self.flows[f as usize];
            let (&Pattern::Cbr { rate_bps, jitter }, &Destination::Host(dst)) = (&flow.pattern, &flow.dst)
            else {
                continue;
            };
            let plain_flow = jitter == 0.0
                && flow.shaper.is_none()
                && flow.rp == NONE
                && flow.tcp == NONE
                && flow.qp == NONE
                && !flow.rp_stamps;
            let node = &net.nodes[n];
            let [p] = node.ports[..] else { continue };
            if !plain_flow || node.kind != NodeKind::Host || self.routes.forward_port(n as u32, dst, f) != p {
                continue;
            }
            let port = &net.ports[p as usize];
            let plain_port = port.flight == Flight::Direct
                && port.unobserved()
                && port.classes.queues().all(|c| matches!(c.discipline, crate::aqm::AnyDiscipline::DropTail));
            if !plain_port {
                continue;
            }
            let flight = serialization_time(flow.frame_size, port.rate_bps) + port.to_next_node;
            // The shortest gap between two emissions (see `periodic_instant`).
            let period = periodic_instant(0, 1, flow.frame_size, rate_bps);
            if period > flight {
                late[p as usize] = LateSource { flow: f, flight, due: Time::MAX };
                any = true;
            }
        }
        if any {
            self.late_sources = late;
        }
    }

    /// The event that makes flow `f`'s frame due at `t`. Where the source makes its
    /// frames late ([`Sim::mark_late_sources`]) and no sample is due from `t` to the
    /// frame's arrival at the next node, it is that arrival: nothing reads the source,
    /// its port or the run's counters in between, but a query after a run that stopped
    /// first, for which [`Sim::catch_up_late`] makes the frame. Otherwise it is the
    /// source's own emission.
    #[inline(always)] // one test where no source is late
    pub(super) fn emission_event(&mut self, f: u32, t: Time) -> (Time, Event) {
        if self.late_sources.is_empty() {
            return (t, Event::SourceEmit { flow: f });
        }
        self.late_emission_event(f, t)
    }

    /// [`Sim::emission_event`] where some sources are late.
    #[inline(never)]
    fn late_emission_event(&mut self, f: u32, t: Time) -> (Time, Event) {
        let src = self.flows[f as usize].src;
        if let [p] = self.net.nodes[src as usize].ports[..] {
            let late = self.late_sources[p as usize];
            if late.flow == f && !self.sample_within(t, t + late.flight) {
                self.late_sources[p as usize].due = t;
                return (t + late.flight, Event::Arrive { port: p });
            }
        }
        (t, Event::SourceEmit { flow: f })
    }

    /// Whether a sample is due at an instant from `from` to `to`: samples are due at
    /// every multiple of the interval up to the end.
    #[inline]
    fn sample_within(&self, from: Time, to: Time) -> bool {
        if to < self.next_sample {
            return false;
        }
        let interval = self.recorder.interval;
        let first = from.div_ceil(interval) * interval;
        first <= to && first <= self.end
    }

    /// The arrival of a frame that port `p`'s source makes late reaches the next node
    /// at `now`: the source makes the frame it was due to make a flight time before
    /// ([`Sim::make_late`]) and the next node takes it now. Returns the event that makes
    /// the source's next frame.
    ///
    /// Exact because nothing else touches what the emission touches between the
    /// emission time and now ([`Sim::mark_late_sources`], [`Sim::emission_event`]):
    /// the source's state and random stream are the source's own, its host sends
    /// nothing else, so its port is idle at the emission (the frame before has arrived)
    /// and its link carries nothing else, and nothing reads the counters before now.
    /// The next node sees the frame at the time, in the order among the link's frames,
    /// that it would have. What changes is the number of events, and, under the default
    /// first-in, first-out rule for simultaneous events, the order of this arrival among
    /// events due at the same instant: it was scheduled with the frame before, not at
    /// the emission (as with [`Sim::pass_through`]).
    #[inline(never)] // out of the event loop, whose other events it would crowd
    pub(super) fn emit_late(&mut self, p: PortId, now: Time) -> Option<(Time, Event)> {
        let (id, f, next) = self.make_late(p);
        self.land(p, id, now);
        next.map(|t| self.emission_event(f, t))
    }

    /// Port `p`'s late source makes the frame it was due to make: with that time as
    /// its birth, the frame leaves its host as it would have then (counted as sent,
    /// straight onto the idle wire, which stays busy for its serialization) and is on
    /// the wire. Returns it, the flow, and when the flow's next frame is due.
    fn make_late(&mut self, p: PortId) -> (FrameId, u32, Option<Time>) {
        let late = &mut self.late_sources[p as usize];
        let (f, t) = (late.flow, late.due);
        debug_assert!(f != NONE && t != Time::MAX, "an arrival without a frame in flight or due");
        late.due = Time::MAX;
        let frame = self.make_frame(f, t);
        let next = self.flows[f as usize].next_emission(t);
        let id = self.frames.alloc(frame);
        self.counters.count_created(HeaderKind::Data);
        // What `host_send`, `enqueue` (straight onto an idle wire, under drop-tail) and
        // `transmit` do at `t`.
        let stats = &mut self.flows[f as usize].stats;
        stats.sent_frames += 1;
        stats.sent_bytes += u64::from(frame.size);
        let port = &mut self.net.ports[p as usize];
        debug_assert!(port.busy_until <= t && port.classes.backlog() == 0 && port.in_flight.is_empty());
        let class = port.classes.class_of(frame.priority);
        port.classes.queue_mut(class).record_cut_through(frame.size);
        port.classes.serializing(class, frame.size);
        port.busy_until = t + port.serialization_time(frame.size);
        self.counters.frame_hops += 1;
        self.counters.on_wire += 1;
        (id, f, next)
    }

    /// Every late source makes the frame it was due to make before `until`, and puts
    /// it in flight, so that a run stopped at `until` can be read (the frame's arrival
    /// event, already pending, then takes it from the link as any other); the source's
    /// next frame gets its event.
    pub(super) fn catch_up_late(&mut self, until: Time) {
        for p in 0..self.late_sources.len() {
            let late = self.late_sources[p];
            if late.due >= until {
                continue;
            }
            let arrival = late.due + late.flight;
            let (id, f, next) = self.make_late(p as PortId);
            self.net.ports[p].in_flight.push_back((arrival, id));
            if let Some(t) = next {
                let (at, event) = self.emission_event(f, t);
                match self.flows[f as usize].emission_lane {
                    NONE => self.events.schedule(at, event),
                    lane => self.events.schedule_in_lane(lane, at, event),
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::Sim;
    use crate::engine::{Event, Time, PS_PER_US};
    use crate::net::NONE;

    /// Four CBR senders, 1500-byte frames at `rate` (or with more of the traffic entry's
    /// keys), into one receiver over a 10 Gbit/s dumbbell (1.2 µs a frame on every link,
    /// 2 µs on a host's link): a frame's flight from its source to `r1` is 3.2 µs.
    /// `extra` adds tables at the end.
    fn dumbbell(rate: &str, duration: &str, interval: &str, extra: &str) -> Sim {
        let text = format!(
            r#"
name = "late"
duration = "{duration}"
seed = 5
[topology.dumbbell]
senders = 4
receivers = 1
sender_link = {{ rate = "10Gbps", delay = "2us" }}
bottleneck = {{ rate = "10Gbps", delay = "10us" }}
receiver_link = {{ rate = "10Gbps", delay = "2us" }}
[queues]
capacity = "20 frames"
[[traffic]]
name = "cbr"
kind = "cbr"
from = "s*"
to = "d1"
frame_size = "1500B"
rate = {rate}
start = {{ uniform = ["0us", "30us"] }}
{extra}
[metrics]
interval = "{interval}"
queues = "all"
"#
        );
        // Simultaneous events ordered by content: a rule under which an event's place
        // does not depend on when it was scheduled, so that making frames late must
        // change nothing but the events.
        crate::sim::pass::tests::dumbbell_from(&text)
    }

    /// Runs `sim` to its end, with or without late sources (passing through switches
    /// either way); returns its events.
    fn run(mut sim: Sim, late: bool) -> (Sim, u64) {
        if !late {
            without_late_sources(&mut sim);
        }
        sim.run_to_end();
        let events = sim.counters.events;
        (sim, events)
    }

    /// Marks what passes through switches, but no late source.
    fn without_late_sources(sim: &mut Sim) {
        if !sim.passes_marked {
            sim.mark_passes();
        }
        sim.late_sources.clear();
    }

    const ONE_GBPS: &str = "\"1Gbps\"";

    fn late_flows(sim: &Sim) -> Vec<u32> {
        sim.late_sources.iter().map(|l| l.flow).filter(|&f| f != NONE).collect()
    }

    #[test]
    fn a_frame_made_at_its_arrival_is_the_frame_its_emission_would_have_made() {
        // 1 Gbit/s: a frame every 12 µs from each sender, for 100 µs.
        let (sim, events) = run(dumbbell(ONE_GBPS, "100us", "1ms", ""), true);
        let (plain, plain_events) = run(dumbbell(ONE_GBPS, "100us", "1ms", ""), false);
        assert_eq!(late_flows(&sim), [0, 1, 2, 3]);
        let s1 = sim.net.port_by_name("s1->r1").expect("a port");
        let late = sim.late_sources[s1 as usize];
        assert_eq!((late.flow, late.flight), (0, 3_200_000));
        assert_eq!(sim.observed(), plain.observed());
        let sent: u64 = sim.flows.iter().map(|f| f.stats.sent_frames).sum();
        let delivered: u64 = sim.flows.iter().map(|f| f.stats.delivered_frames).sum();
        // Started within 30 µs, each sender makes 6 to 9 frames in 100 µs, its first by
        // an emission event and every later one at its arrival at r1 (those due after
        // 96.8 µs, which arrive after the end, when the run stops): frame k ≥ 1 of a
        // sender that started at `start`, due at start + k·12 µs, has no event before
        // the end.
        assert!((24..=36).contains(&sent), "{sent} frames sent");
        let made_late: u64 = (sim.flows.iter())
            .map(|f| (1..10).filter(|k| f.start + k * 12_000_000 < 100_000_000).count() as u64)
            .sum();
        assert_eq!(plain_events - events, made_late, "{events} events against {plain_events}");
        assert!(delivered + 4 >= sent, "{delivered} of {sent} delivered");
        for f in &sim.flows {
            // Each frame's one-way delay is at least its three links' flight times.
            let delay = f.stats.delay_sum / u128::from(f.stats.delivered_frames.max(1));
            assert!(delay >= 3 * 3_200_000 + 8_000_000, "{delay} ps");
        }
    }

    #[test]
    fn making_frames_late_changes_nothing_but_the_number_of_events() {
        // 2.75 Gbit/s each: 110 % of the bottleneck, whose queue fills and drops;
        // samples every 50 µs, and the run inspected between two of them.
        let (mut sim, mut plain) =
            (dumbbell("\"2.75Gbps\"", "3ms", "50us", ""), dumbbell("\"2.75Gbps\"", "3ms", "50us", ""));
        without_late_sources(&mut plain);
        let mid = 1_234 * PS_PER_US + 567;
        for s in [&mut sim, &mut plain] {
            s.run_until(mid, &mut |_| true).unwrap_or_else(|e| panic!("{e:?}"));
        }
        // A frame made less than 3.2 µs before, whose arrival at r1 was still pending,
        // is on a sender's link, made when the run stopped.
        let on_senders_links = (0..4).filter(|&s| {
            let p = sim.net.port_by_name(&format!("s{}->r1", s + 1)).expect("a port");
            !sim.net.ports[p as usize].in_flight.is_empty()
        });
        assert!(on_senders_links.count() >= 1);
        assert_eq!(sim.observed(), plain.observed());
        let (sim, events) = run(sim, true);
        let (plain, plain_events) = run(plain, false);
        assert_eq!(sim.observed(), plain.observed());
        let dropped: u64 = sim.flows.iter().map(|f| f.stats.dropped_frames).sum();
        assert!(dropped > 100, "{dropped} frames dropped at the bottleneck");
        assert!(sim.recorder.queues.times_s.len() >= 59, "sampled");
        // A frame made late saves its emission's event: most of the 3 per frame here.
        let sent: u64 = sim.flows.iter().map(|f| f.stats.sent_frames).sum();
        assert!(plain_events - events > sent * 9 / 10, "{events} against {plain_events} for {sent} frames");
        sim.check_conservation().unwrap();
    }

    #[test]
    fn an_emission_with_a_sample_due_before_its_frame_arrives_keeps_its_event() {
        // Samples every 10 µs and a frame every 12 µs: the frame made at `t` arrives
        // at `t` + 3.2 µs, after the next sample when `t` is in the 3.2 µs before it.
        let mut sim = dumbbell(ONE_GBPS, "1ms", "10us", "");
        sim.mark_passes();
        let (f, s1) = (0, sim.net.port_by_name("s1->r1").expect("a port"));
        let mut at = |t: Time| sim.emission_event(f, t);
        assert_eq!(at(16_799_999), (19_999_999, Event::Arrive { port: s1 }));
        assert_eq!(at(16_800_000), (16_800_000, Event::SourceEmit { flow: f }));
        assert_eq!(at(20_000_000), (20_000_000, Event::SourceEmit { flow: f }));
        assert_eq!(at(20_000_001), (23_200_001, Event::Arrive { port: s1 }));
        // The last sample, at the end (1 ms), is taken; none is due after it.
        assert_eq!(at(996_800_000), (996_800_000, Event::SourceEmit { flow: f }));
        assert_eq!(at(1_000_000_001), (1_003_200_001, Event::Arrive { port: s1 }));
        sim.late_sources[s1 as usize].due = Time::MAX;
        let (sim, events) = run(sim, true);
        let (plain, plain_events) = run(dumbbell(ONE_GBPS, "1ms", "10us", ""), false);
        assert_eq!(sim.observed(), plain.observed());
        // About a third of the frames (3.2 µs in 10) keep their emission event.
        let sent: u64 = sim.flows.iter().map(|f| f.stats.sent_frames).sum();
        let saved = plain_events - events;
        assert!(saved * 10 > sent * 6 && saved * 10 < sent * 9, "{saved} events saved for {sent} frames");
    }

    #[test]
    fn only_a_lone_plain_cbr_source_on_an_idle_wire_makes_its_frames_late() {
        let marked = |rate: &str, extra: &str| {
            let mut sim = dumbbell(rate, "1ms", "1ms", extra);
            sim.mark_passes();
            late_flows(&sim)
        };
        assert_eq!(marked(ONE_GBPS, ""), [0, 1, 2, 3]);
        // 4 Gbit/s: a frame every 3 µs, sooner than its 3.2 µs flight.
        assert_eq!(marked("\"4Gbps\"", ""), Vec::<u32>::new());
        let second = |kind: &str, from: &str, to: &str| {
            let rate = if kind == "cbr" { "rate = \"1Gbps\"" } else { "" };
            format!(
                "[[traffic]]\nname = \"two\"\nkind = \"{kind}\"\nfrom = \"{from}\"\nto = \"{to}\"\n{rate}"
            )
        };
        // s2 sends a second flow; d1 sends one to s3, a TCP connection to s4 (which
        // sends its ACKs).
        assert_eq!(marked(ONE_GBPS, &second("cbr", "s2", "d1")), [0, 2, 3]);
        assert_eq!(marked(ONE_GBPS, &second("cbr", "d1", "s3")), [0, 1, 2, 3]);
        assert_eq!(marked(ONE_GBPS, &second("tcp", "d1", "s4")), [0, 1, 2]);
        // d1 sends s2 frames under QCN, whose reaction point may probe (not here); to
        // random hosts, it might send any of them frames.
        let qcn_two = "[protocols.qcn]\ncongestion_points = [\"r2->r1\"]\nflows = [\"two\"]";
        let regulated = |to: &str| format!("{}\n{qcn_two}", second("cbr", "d1", to));
        assert_eq!(marked(ONE_GBPS, &regulated("s2")), [0, 2, 3]);
        assert_eq!(marked(ONE_GBPS, &regulated("uniform")), Vec::<u32>::new());
        // Jitter, a rate limiter, a QCN reaction point, a trace of s1's port.
        assert_eq!(marked("\"1Gbps\"\njitter = 0.5", ""), Vec::<u32>::new());
        assert_eq!(marked("\"1Gbps\"\nrate_limit = \"2Gbps\"", ""), Vec::<u32>::new());
        let qcn = "[protocols.qcn]\ncongestion_points = [\"r1->r2\"]\nflows = [\"cbr\"]";
        assert_eq!(marked(ONE_GBPS, qcn), Vec::<u32>::new());
    }
}
