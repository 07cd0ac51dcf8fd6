//! Frames that pass through a switch without an arrival event there.
//!
//! Where one link alone brings a switch port frames (each port of a switch of two
//! ports; a switch's port to a host that only one side of the network sends to), and
//! nothing waits at that port, what a frame on that link meets there is known the
//! moment the port before sends it: the port's transmitter, free at the frame's
//! arrival or still sending the frame before. The simulator then forwards the frame at
//! once, as it would at its arrival time, and only its arrival at the node after has an
//! event. On a dumbbell with one receiver that removes every frame's arrival at the
//! receiver's switch, and an ACK's at the senders' switch: `dumbbell-tcp-64` handles
//! 3.51 M events in its first simulated second instead of 6.00 M, `dumbbell-cbr-64`
//! 3.50 M instead of 4.33 M. The port sees the same frames at the same times, so every
//! output is the same but the number of events (and, where events tie, possibly the
//! order of simultaneous ones: see [`Sim::pass_through`]).

use super::Sim;
use crate::engine::{Event, Time, TimerId};
use crate::net::{Ecn, Flight, FrameId, Header, NodeId, NodeKind, PortId, NONE};
use crate::traffic::Destination;

/// How many early deliveries may run one inside another. A frame delivered early makes
/// frames for the host it came from (a segment its ACK, an ACK the next segments), and a
/// host handling a frame takes none early, so two is the deepest the traffic here nests;
/// a deeper nest would need [`Sim::deliver_early`] to remember more hosts than the one
/// further up, so it stops with an arrival event.
const EARLY_DEPTH: u32 = 2;

/// What a host that may take frames as they are sent checks before it does (see
/// [`Sim::deliver_early`]): that its port has nothing waiting, and that its one timer,
/// if it has one, is not due first.
#[derive(Clone, Copy, Debug)]
pub(super) struct EarlyHost {
    /// The host's port.
    port: PortId,
    /// The retransmission timer of the one TCP connection the host sends for, or `NONE`.
    timer: TimerId,
}

impl Sim {
    /// Frame `id`, sent by port `p`, reaches a switch at `at`: if the port it leaves by
    /// is one that `p`'s link alone brings frames to, and nothing waits there, the
    /// switch forwards it now, as it would at `at` (on the wire at once, or behind the
    /// frame the port is still sending, with the `PortFree` event that takes it), and
    /// only its arrival at the node after has an event. The arrival event at the switch
    /// is removed, not made cheaper.
    ///
    /// Exact because nothing else touches that port between now and `at`:
    /// - frames reach it from `p`'s link only ([`Sim::mark_passes`] found no other link
    ///   and no frame the switch makes; a link control, whose PAUSE frames stop ports,
    ///   rules the whole run out), in the order `p` sent them;
    /// - no frame sent earlier is still on `p`'s link with an arrival event of its own
    ///   (the link's list of frames in flight is empty), and none waits at the port, so
    ///   no `PortFree` of the port comes before `at`;
    /// - nothing reads the port before `at`: `at` comes before the next sample and the
    ///   end of the events being processed ([`Sim::pass_before`]), and no trace, probe,
    ///   shared buffer or discipline that draws random numbers concerns it.
    ///
    /// So the port sees the same frames at the same times in the same order, and its
    /// counters and time integrals take the same values. What changes is the number of
    /// events, and, where events tie, the order of simultaneous ones: scheduled as `p`
    /// sends, not as the switch forwards, the arrival at the node after takes an
    /// earlier place among the events due at its instant (first in, first out). Under
    /// [`Ties::Content`](crate::engine::Ties::Content), whose order does not depend on
    /// when an event was scheduled, outputs are the same byte for byte; under the
    /// default, they were on every scenario in `scenarios/` compared.
    #[inline]
    pub(super) fn pass_through(&mut self, p: PortId, id: FrameId, at: Time) -> bool {
        self.net.ports[p as usize].in_flight.is_empty() && self.pass(p, id, at)
    }

    /// The frames on port `p`'s link after one that arrived with an event of its own
    /// pass through the switch (or are delivered early, on a link to a host), in order,
    /// until one cannot; returns the arrival event of that one, if any. Without this a
    /// busy link, once a frame has stopped at the switch (a sample was due before it
    /// arrived), would keep frames in flight and stop every later one too.
    #[cold]
    #[inline(never)]
    pub(super) fn pass_waiting(&mut self, p: PortId) -> Option<(Time, Event)> {
        let delivers = self.net.ports[p as usize].flight == Flight::Delivers;
        while let Some(&(at, id)) = self.net.ports[p as usize].in_flight.front() {
            let taken = if delivers { self.deliver_early(p, id, at) } else { self.pass(p, id, at) };
            if !taken {
                return Some((at, Event::Arrive { port: p }));
            }
            self.net.ports[p as usize].in_flight.pop_front();
        }
        None
    }

    /// [`Sim::pass_through`] of frame `id`, the first on port `p`'s link that has not
    /// reached the switch. Out of line: one copy of the switch's forwarding, which keeps
    /// the code a frame runs through within the instruction cache.
    #[inline(never)]
    fn pass(&mut self, p: PortId, id: FrameId, at: Time) -> bool {
        if at >= self.pass_before {
            return false;
        }
        let node = self.net.ports[p as usize].next;
        let frame = self.frames.get(id);
        if frame.multicast || frame.header.link_local() {
            return false;
        }
        let out = self.routes.forward_port(node, frame.dst, frame.flow);
        if out == NONE || self.sole_feeder[out as usize] != p {
            return false;
        }
        let next = &self.net.ports[out as usize];
        if next.classes.backlog() != 0 || next.control_waiting() {
            return false;
        }
        // What `land` does at `at` (no loss on the link, no link control), then the
        // switch forwards.
        self.counters.on_wire -= 1;
        self.enqueue(out, id, at);
        true
    }

    /// Frame `id`, sent by port `p`, reaches the host at the other end of `p`'s link at
    /// `at`: if the host may take it early, it does so now, as it would at `at`, and the
    /// frame has no arrival event. That removes a TCP segment's arrival at its receiver
    /// and its ACK's at the sender, and a data frame's at its destination.
    #[inline]
    pub(super) fn deliver_through(&mut self, p: PortId, id: FrameId, at: Time) -> bool {
        self.net.ports[p as usize].in_flight.is_empty() && self.deliver_early(p, id, at)
    }

    /// [`Sim::deliver_through`] of frame `id`, the first on port `p`'s link that has not
    /// reached the host.
    ///
    /// Exact because nothing else touches the host, or anything the frame's handling
    /// touches, between now and `at`:
    /// - its frames come over `p`'s link only, in the order `p` sends them, and no frame
    ///   sent earlier is still on the link with an event of its own (the link's list of
    ///   frames in flight is empty);
    /// - nothing of its own is due before `at`: its port has nothing waiting (so no
    ///   `PortFree`), and [`Sim::mark_passes`] allowed only hosts that send no flow but
    ///   TCP connections, for one connection at most, without delayed ACKs or sends,
    ///   shaper or reaction point, whose retransmission or start timer is checked here;
    /// - nothing reads the host's state before `at`: `at` comes before the next sample
    ///   and the end of the events being processed, and no packet trace is kept;
    /// - the host is not in the middle of handling something else: not the host whose
    ///   frame or timer the present event is ([`Sim::handling`]), nor one taking a frame
    ///   early further up. Its handler would go on, at its earlier time, after the
    ///   frame's handling had sent at a later one (a TCP sender that sent the first of
    ///   two segments, whose ACK came back through switches that pass every frame);
    /// - only frames whose handling stays within the host and its flow are taken: TCP
    ///   segments and ACKs, and data frames not marked CE (which a notification point
    ///   would answer).
    ///
    /// What the handling sends, it sends at `at`: the ports, timers and counters it
    /// touches take the values they would at `at`. As with [`Sim::pass_through`], only
    /// the number of events changes, and where events tie under the default first-in,
    /// first-out rule, possibly the order of simultaneous ones.
    #[inline(never)]
    fn deliver_early(&mut self, p: PortId, id: FrameId, at: Time) -> bool {
        if at >= self.pass_before || self.early_depth >= EARLY_DEPTH {
            return false;
        }
        let host = self.net.ports[p as usize].next;
        let frame = self.frames.get(id);
        let plain = match frame.header {
            Header::TcpSegment(_) | Header::TcpAck(_) => true,
            Header::Data(_) => frame.ecn != Ecn::Ce,
            _ => false,
        };
        if !plain || frame.multicast {
            return false;
        }
        let early = self.early_hosts[host as usize];
        if early.timer != NONE && self.timers.deadline(early.timer).is_some_and(|d| d <= at) {
            return false;
        }
        let port = &self.net.ports[early.port as usize];
        if port.classes.backlog() != 0 || port.control_waiting() {
            return false;
        }
        if host == self.handling || host == self.early_outer {
            return false;
        }
        self.counters.on_wire -= 1;
        let outer = self.early_outer;
        self.early_outer = host;
        self.early_depth += 1;
        self.deliver(host, id, at);
        self.early_depth -= 1;
        self.early_outer = outer;
        true
    }

    /// Whether frames may pass through switches without arrival events in this run:
    /// not where arrivals are per frame (a fabric), in a partition, under the speed
    /// model's count of events, with in-band telemetry or with a link control.
    pub(super) fn may_pass_through(&self) -> bool {
        !self.arrival_per_frame
            && self.part.is_none()
            && !self.before_each
            && self.int_tx.is_empty()
            && self.protocols.link.is_none()
    }

    /// Finds the switch ports that one link alone brings frames to, and marks that
    /// link's port ([`Flight::Passes`]) if the link is direct and loses nothing:
    /// - each port of a switch of two ports, fed by the other port's link;
    /// - a switch's port to a host, when the traffic says who sends that host frames:
    ///   fixed pairs of hosts (a flow's frames one way, its ACKs, requests or
    ///   notifications the other), no congestion point anywhere (whose switch would
    ///   send frames of its own), no multicast, workload or sprayed packets; then the
    ///   routes from those senders tell which links reach the port.
    ///
    /// The port must have no congestion point, link control, trace or shared buffer,
    /// and only disciplines that draw nothing at random (drop-tail, the ECN threshold);
    /// its switch no processing jitter and no congestion point on any port.
    #[cold]
    pub(super) fn mark_passes(&mut self) {
        self.passes_marked = true;
        let net = &self.net;
        let plain_switch = |n: NodeId| {
            let node = &net.nodes[n as usize];
            node.kind == NodeKind::Switch
                && node.pool == NONE
                && node.processing_jitter == 0
                && node.ports.iter().all(|&q| net.ports[q as usize].cp == NONE)
        };
        let plain_port = |q: PortId| {
            let port = &net.ports[q as usize];
            port.unobserved()
                && port.classes.queues().all(|c| {
                    matches!(
                        c.discipline,
                        crate::aqm::AnyDiscipline::DropTail | crate::aqm::AnyDiscipline::EcnThreshold(_)
                    )
                })
        };
        let mut sole = vec![NONE; net.ports.len()];
        for (n, node) in (0..).zip(&net.nodes) {
            if let [a, b] = node.ports[..] {
                if plain_switch(n) && plain_port(a) && plain_port(b) {
                    sole[b as usize] = net.ports[a as usize].peer;
                    sole[a as usize] = net.ports[b as usize].peer;
                }
            }
        }
        if let Some(senders) = self.senders_to_hosts() {
            for (out, port) in (0..).zip(&net.ports) {
                let host = port.next;
                let node = &net.nodes[port.node as usize];
                if node.ports.len() == 2
                    || net.kind(host) != NodeKind::Host
                    || !plain_switch(port.node)
                    || !plain_port(out)
                {
                    continue;
                }
                let mut feeders = senders[host as usize].iter().filter_map(|&(from, flow)| {
                    let path = self.routes.path(net, from, host, flow);
                    let at = path.iter().position(|&q| q == out)?;
                    Some(if at == 0 { NONE } else { path[at - 1] })
                });
                if let Some(first) = feeders.next() {
                    if first != NONE && feeders.all(|q| q == first) {
                        sole[out as usize] = first;
                    }
                }
            }
        }
        // The feeder's link must bring frames after its fixed delay and lose none.
        for q in &mut sole {
            let Some(feeder) = net.ports.get(*q as usize) else { continue };
            if !matches!(feeder.flight, Flight::Direct | Flight::Passes) || feeder.loss != NONE {
                *q = NONE;
            }
        }
        let mut any = false;
        for &q in &sole {
            if q != NONE {
                self.net.ports[q as usize].flight = Flight::Passes;
                any = true;
            }
        }
        self.sole_feeder = if any { sole } else { Vec::new() };
        self.mark_deliveries();
        self.mark_late_sources();
    }

    /// Finds the hosts that may take frames as they are sent ([`Sim::deliver_early`]) and
    /// marks the ports that send them frames ([`Flight::Delivers`]) where the link is
    /// direct and loses nothing. A host may if it has one port, with no trace, shared
    /// buffer or link control, and every flow it sends is a TCP connection without
    /// delayed ACKs, delayed sends, shaper or reaction point, for one timer at most (one
    /// connection), and every TCP connection it receives has no delayed ACKs. No host
    /// may where the run keeps a packet trace or has workloads (whose flows start at
    /// hosts at times of their own).
    #[cold]
    fn mark_deliveries(&mut self) {
        if self.recorder.trace.is_some() || !self.workloads.entries.is_empty() {
            return;
        }
        // Per node: the one timer it has (`NONE`: none), or `NO` where it may not.
        const NO: TimerId = NONE - 1;
        let net = &self.net;
        let mut timer: Vec<TimerId> = (net.nodes.iter())
            .map(|node| {
                let port = node.ports.first().map(|&q| &net.ports[q as usize]);
                let plain = node.kind == NodeKind::Host
                    && node.processing_jitter == 0
                    && node.pool == NONE
                    && node.ports.len() == 1
                    && port.is_some_and(|q| q.link == NONE && !q.traced && q.pool == NONE);
                if plain {
                    NONE
                } else {
                    NO
                }
            })
            .collect();
        for (f, flow) in (0u32..).zip(&self.flows) {
            let src = flow.src as usize;
            let tcp = self.tcp_connection(f);
            match tcp {
                Some(c) if flow.shaper.is_none() && flow.rp == NONE && c.send_timer == NONE => {
                    timer[src] = if timer[src] == NONE { c.timer } else { NO };
                }
                _ => timer[src] = NO,
            }
            if let (Some(c), &Destination::Host(dst)) = (tcp, &flow.dst) {
                if c.ack_timer != NONE {
                    timer[dst as usize] = NO;
                }
            }
        }
        let mut any = false;
        for port in &mut self.net.ports {
            let t = timer[port.next as usize];
            if t != NO && port.flight == Flight::Direct && port.loss == NONE && !port.traced {
                port.flight = Flight::Delivers;
                any = true;
            }
        }
        self.early_hosts = if any {
            (0..self.net.nodes.len())
                .map(|n| EarlyHost {
                    port: self.net.nodes[n].ports.first().copied().unwrap_or(NONE),
                    timer: timer[n],
                })
                .collect()
        } else {
            Vec::new()
        };
    }

    /// For every host, the hosts that may send it frames and the flows they belong to;
    /// `None` when the run does not say (see [`Sim::mark_passes`]).
    #[cold]
    fn senders_to_hosts(&self) -> Option<Vec<Vec<(NodeId, u32)>>> {
        if !self.protocols.congestion_points.is_empty()
            || !self.workloads.entries.is_empty()
            || self.routes.sprays()
        {
            return None;
        }
        let mut senders = vec![Vec::new(); self.net.nodes.len()];
        for (f, flow) in (0..).zip(&self.flows) {
            let Destination::Host(dst) = flow.dst else { return None };
            senders[dst as usize].push((flow.src, f));
            senders[flow.src as usize].push((dst, f));
        }
        Some(senders)
    }
}

#[cfg(test)]
pub(super) mod tests {
    use super::Sim;
    use crate::engine::{Ties, Time, PS_PER_US};
    use crate::net::Flight;

    /// A dumbbell of one sender `s1` and one receiver `d1`, running `duration` with
    /// `traffic` (one `[[traffic]]` table's keys) and samples every `interval`: its
    /// switches `r1` and `r2` have two ports each. 1500 bytes take 1.2 µs on every
    /// 10 Gbit/s link.
    fn one_sender(duration: &str, traffic: &str, interval: &str) -> Sim {
        let text = format!(
            r#"
name = "one-sender"
duration = "{duration}"
[topology.dumbbell]
senders = 1
receivers = 1
sender_link = {{ rate = "10Gbps", delay = "2us" }}
bottleneck = {{ rate = "10Gbps", delay = "10us" }}
receiver_link = {{ rate = "10Gbps", delay = "2us" }}
[[traffic]]
from = "s1"
to = "d1"
frame_size = "1500B"
{traffic}
[metrics]
interval = "{interval}"
"#
        );
        let s = crate::scenario::parse(&text, "one.toml", &[]).unwrap_or_else(|e| panic!("{e}"));
        crate::scenario::build(&s, "one.toml").unwrap_or_else(|e| panic!("{e}"))
    }

    /// One frame from `s1` to `d1` (see [`one_sender`]).
    fn one_frame(interval: &str) -> Sim {
        let cbr = "name = \"one\"\nkind = \"cbr\"\nrate = \"1Gbps\"\nstop = \"1us\"";
        one_sender("100us", cbr, interval)
    }

    /// Runs `sim` with or without passing through switches; returns its events.
    fn run(mut sim: Sim, passing: bool) -> (Sim, u64) {
        if !passing {
            // Marked already: no link is marked, and every frame arrives with an event.
            sim.passes_marked = true;
        }
        sim.run_to_end();
        let events = sim.counters.events;
        (sim, events)
    }

    #[test]
    fn a_frame_passes_both_switches_of_two_ports_and_arrives_when_it_would() {
        let (sim, events) = run(one_frame("1ms"), true);
        let (plain, plain_events) = run(one_frame("1ms"), false);
        let ports = |sim: &Sim, flight| sim.net.ports.iter().filter(|p| p.flight == flight).count();
        // The links into r1 (from s1 and from r2) and into r2 (from r1 and from d1).
        assert_eq!((ports(&sim, Flight::Passes), ports(&plain, Flight::Passes)), (4, 0));
        // The link into d1, which sends nothing; not the one into s1, a CBR source.
        assert_eq!((ports(&sim, Flight::Delivers), ports(&plain, Flight::Delivers)), (1, 0));
        // Sent at 0, it reaches r1 at 1.2 + 2 µs, r2 at 3.2 + 1.2 + 10 µs and d1 at
        // 14.4 + 1.2 + 2 = 17.6 µs: the delay of the frame as delivered either way.
        for s in [&sim, &plain] {
            let stats = &s.flows[0].stats;
            assert_eq!((stats.sent_frames, stats.delivered_frames), (1, 1));
            assert_eq!(stats.delay_sum, 176 * PS_PER_US as u128 / 10);
        }
        // Its arrivals at r1, r2 and d1 were not events.
        assert_eq!(plain_events - events, 3);
        let queues = |s: &Sim| -> Vec<String> {
            (0..s.net.ports.len() as u32).flat_map(|p| s.queue_stats(p).map(|q| format!("{q:?}"))).collect()
        };
        assert_eq!(queues(&sim), queues(&plain));
    }

    #[test]
    fn a_frame_due_at_a_switch_after_the_next_sample_arrives_there_with_an_event() {
        // Samples every 10 µs: the frame reaches r1 at 3.2 µs, before the first sample,
        // and passes; it would reach r2 at 14.4 µs, after it, and arrives with an event.
        // r2 sends it on then, and d1, which it reaches at 17.6 µs, before the sample at
        // 20 µs, takes it early.
        let (sim, events) = run(one_frame("10us"), true);
        let (plain, plain_events) = run(one_frame("10us"), false);
        assert_eq!(plain_events - events, 2);
        assert_eq!(sim.flows[0].stats.delay_sum, plain.flows[0].stats.delay_sum);
    }

    /// 16 TCP senders into one receiver behind a QCN congestion point at `r1->r2` (so
    /// only `r2` has two plain ports), with 100-byte frames among the segments (one that
    /// reaches `r2` just after a segment finds `r2->d1` still sending it, and waits);
    /// samples of every queue every 100 µs.
    const DUMBBELL: &str = r#"
name = "tcp-passing"
duration = "6ms"
seed = 3
[topology.dumbbell]
senders = 16
receivers = 1
sender_link = { rate = "10Gbps", delay = "2us" }
bottleneck = { rate = "10Gbps", delay = "10us" }
receiver_link = { rate = "10Gbps", delay = "2us" }
[queues]
capacity = "100 frames"
[[traffic]]
name = "tcp"
kind = "tcp"
from = "s*"
to = "d1"
frame_size = "1500B"
start = { uniform = ["0us", "50us"] }
[[traffic]]
name = "cbr"
kind = "cbr"
from = "s1"
to = "d1"
rate = "2Gbps"
[[traffic]]
name = "small"
kind = "cbr"
from = "s2"
to = "d1"
rate = "1Gbps"
frame_size = "100B"
[protocols.qcn]
congestion_points = ["r1->r2"]
flows = ["cbr"]
[metrics]
interval = "100us"
queues = "all"
"#;

    /// The dumbbell, ordering simultaneous events by content: a rule under which an
    /// event's place does not depend on when it was scheduled, so that passing must
    /// leave every output the same.
    fn dumbbell() -> Sim {
        dumbbell_from(DUMBBELL)
    }

    /// The scenario `text`, built and started, ordering simultaneous events by content.
    pub(in crate::sim) fn dumbbell_from(text: &str) -> Sim {
        let s = crate::scenario::parse(text, "test.toml", &[]).unwrap_or_else(|e| panic!("{e}"));
        let limits = crate::scenario::Limits::machine_default();
        let Ok(mut sim) = crate::scenario::build::build_unstarted(&s, "test.toml", &limits, &mut || true)
        else {
            panic!("the dumbbell builds")
        };
        sim.events.set_ties(Ties::Content);
        sim.start();
        *sim
    }

    #[test]
    fn passing_through_changes_nothing_but_the_number_of_events() {
        let (mut sim, mut plain) = (dumbbell(), dumbbell());
        // Inspected part-way, between two samples, and at the end.
        let mid = 3_050 * PS_PER_US;
        plain.passes_marked = true;
        for s in [&mut sim, &mut plain] {
            s.run_until(mid, &mut |_| true).unwrap_or_else(|e| panic!("{e:?}"));
        }
        assert_eq!(sim.observed(), plain.observed());
        let (sim, events) = run(sim, true);
        let (plain, plain_events) = run(plain, false);
        assert_eq!(sim.observed(), plain.observed());
        let delivered: u64 = sim.flows.iter().map(|f| f.stats.delivered_frames).sum();
        assert!(delivered > 3_000, "{delivered} frames delivered");
        assert!(sim.recorder.queues.times_s.len() > 50, "sampled");
        // Some frames waited at r2 (behind a segment), and did so either way.
        let to_d1 = sim.net.port_by_name("r2->d1").expect("a port");
        let waited = sim.queue_stats(to_d1).map(|q| q.max_frames).max();
        assert!(waited >= Some(1), "frames waited at r2: {waited:?}");
        // Fewer: a segment or ACK passes r2 unless a 100-byte frame waits there or the
        // link carries one that stopped (then the next arrival with an event lets the
        // frames behind it pass).
        assert!(events * 100 < plain_events * 95, "{events} events against {plain_events}");
    }

    /// [`DUMBBELL`] without QCN: no congestion point, so the traffic says who sends each
    /// host frames.
    fn without_qcn() -> String {
        let at = DUMBBELL.find("[protocols.qcn]").expect("a QCN section");
        let end = DUMBBELL.find("[metrics]").expect("a metrics section");
        format!("{}{}", &DUMBBELL[..at], &DUMBBELL[end..])
    }

    #[test]
    fn a_port_to_a_host_that_one_link_alone_sends_frames_to_is_passed_to() {
        let mut sim = dumbbell_from(&without_qcn());
        sim.mark_passes();
        let port = |name: &str| sim.net.port_by_name(name).expect("a port");
        // s1 hears from d1 only (ACKs), through r2: r1->s1 is fed by r2->r1 alone.
        assert_eq!(sim.sole_feeder[port("r1->s1") as usize], port("r2->r1"));
        assert_eq!(sim.net.ports[port("r2->r1") as usize].flight, Flight::Passes);
        // r1->r2 is fed by 16 senders' links.
        assert_eq!(sim.sole_feeder[port("r1->r2") as usize], crate::net::NONE);
        // A flow from s2 to s1 brings s1 frames through s2's link too.
        let text = without_qcn().replace(
            "[metrics]",
            "[[traffic]]\nname = \"back\"\nkind = \"cbr\"\nfrom = \"s2\"\nto = \"s1\"\nrate = \"1Gbps\"\n[metrics]",
        );
        let mut sim = dumbbell_from(&text);
        sim.mark_passes();
        let port = |name: &str| sim.net.port_by_name(name).expect("a port");
        assert_eq!(sim.sole_feeder[port("r1->s1") as usize], crate::net::NONE);
        assert_eq!(sim.sole_feeder[port("r1->s3") as usize], port("r2->r1"));
    }

    #[test]
    fn passing_to_ports_to_hosts_changes_nothing_but_the_number_of_events() {
        let (sim, events) = run(dumbbell_from(&without_qcn()), true);
        let (plain, plain_events) = run(dumbbell_from(&without_qcn()), false);
        assert_eq!(sim.observed(), plain.observed());
        // The ACKs at r1 pass too.
        assert!(events * 100 < plain_events * 90, "{events} events against {plain_events}");
    }

    /// One TCP connection from `s1` to `d1` (see [`one_sender`]) for 10 ms, with a
    /// window of `window` segments and samples every `interval`.
    fn one_connection(window: u32, interval: &str) -> Sim {
        let tcp =
            format!("name = \"tcp\"\nkind = \"tcp\"\ntcp = {{ window = {window}, initial_window = 1 }}");
        one_sender("10ms", &tcp, interval)
    }

    #[test]
    fn a_host_takes_no_frame_early_while_it_handles_another() {
        // One segment at a time, and every switch passes every frame. d1's ACK of a
        // segment reaches s1 early, and the segment s1 sends then would reach d1 early
        // too, while d1 is still handling the segment before (and s1 its ACK). It does
        // not: it arrives with an event. Were it taken, s1 would send its next segment
        // inside the handling of the ACK before, at a later time than the rest of that
        // handling (a second segment, the timer) and out of order at its port.
        let (sim, events) = run(one_connection(1, "1s"), true);
        let (plain, plain_events) = run(one_connection(1, "1s"), false);
        assert_eq!(sim.observed(), plain.observed());
        let delivered = sim.flows[0].stats.delivered_frames;
        let acks = sim.protocols.tcp[0].acks_sent;
        // A segment takes 3 × (1.2 µs + its link's delay), 17.6 µs, and its ACK
        // 3 × 51.2 ns + 14 µs: 31.75 µs a round, 315 rounds in 10 ms.
        assert!((310..=315).contains(&delivered), "{delivered} segments delivered");
        assert_eq!(sim.protocols.tcp[0].sender.stats.retransmits, 0);
        // Without passing or early deliveries, each frame has three arrival events (at
        // r1, r2 and its host); with them, each segment one, at d1.
        let arrivals = delivered + acks;
        assert!(plain_events >= 3 * arrivals, "{plain_events} events for {arrivals} frames");
        assert!((delivered..delivered + 10).contains(&events), "{events} events for {delivered} segments");
    }

    #[test]
    fn a_host_with_a_timer_due_first_takes_no_frame_early() {
        let mut sim = one_connection(20, "1ms");
        sim.mark_passes();
        let to_s1 = sim.net.port_by_name("r1->s1").expect("a port");
        let to_d1 = sim.net.port_by_name("r2->d1").expect("a port");
        assert_eq!(sim.net.ports[to_s1 as usize].flight, Flight::Delivers);
        assert_eq!(sim.net.ports[to_d1 as usize].flight, Flight::Delivers);
        let s1 = sim.net.ports[to_s1 as usize].next;
        let timer = sim.early_hosts[s1 as usize].timer;
        assert_eq!(timer, sim.protocols.tcp[0].timer);
        sim.pass_before = Time::MAX;
        let ack = crate::net::Frame::message(
            64,
            0,
            sim.net.ports[to_d1 as usize].next,
            s1,
            0,
            0,
            crate::net::Header::TcpAck(crate::l4::tcp::Ack { ack: 0, echo: 0 }),
        );
        let id = sim.frames.alloc(ack);
        // The connection's start timer is due at its start, 0: before an ACK at 5 µs, and
        // at the same time as one at 0.
        assert_eq!(sim.timers.deadline(timer), Some(0));
        assert!(!sim.deliver_through(to_s1, id, 5 * PS_PER_US));
        assert!(!sim.deliver_through(to_s1, id, 0));
        // Due after it, or not armed: s1 takes it.
        sim.timers.cancel(timer);
        sim.counters.on_wire += 1;
        assert!(sim.deliver_through(to_s1, id, 5 * PS_PER_US));
        assert_eq!(sim.counters.on_wire, 0);
    }

    #[test]
    fn hosts_that_send_more_than_one_tcp_connection_or_anything_else_take_nothing_early() {
        let text = without_qcn().replace(
            "[metrics]",
            "[[traffic]]\nname = \"two\"\nkind = \"tcp\"\nfrom = \"s3\"\nto = \"d1\"\n[metrics]",
        );
        let mut sim = dumbbell_from(&text);
        sim.mark_passes();
        let flight = |name: &str| sim.net.ports[sim.net.port_by_name(name).expect("a port") as usize].flight;
        // s1 and s2 send CBR flows, s3 two TCP connections; s4 one, d1 receives.
        assert_eq!(flight("r1->s1"), Flight::Direct);
        assert_eq!(flight("r1->s2"), Flight::Direct);
        assert_eq!(flight("r1->s3"), Flight::Direct);
        assert_eq!(flight("r1->s4"), Flight::Delivers);
        assert_eq!(flight("r2->d1"), Flight::Delivers);
        // Delayed ACKs at d1 put a timer there too.
        let delayed = text.replace("start = {", "tcp = { delayed_ack = { every = 2 } }\nstart = {");
        let mut sim = dumbbell_from(&delayed);
        sim.mark_passes();
        let flight = |name: &str| sim.net.ports[sim.net.port_by_name(name).expect("a port") as usize].flight;
        assert_eq!(flight("r2->d1"), Flight::Direct);
        assert_eq!(flight("r1->s4"), Flight::Delivers);
    }
}
