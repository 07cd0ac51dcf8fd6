//! TCP in the data path: a connection's segments leave through its flow's shaper (so a
//! QCN reaction point's rate limiter sits beneath TCP, which sees the delay), its ACKs
//! come back from the destination host as frames, and its retransmission timer is a
//! generic timer. What the application sends, and when, is asked of [`crate::l4::app`].

use super::Sim;
use crate::engine::{Event, Time};
use crate::l4::app::App;
use crate::net::{Frame, Header, HeaderKind, NodeId, NONE};

/// The tag of a connection's timer when it stands for the application's start.
pub(super) const START: u32 = 1;
/// The tag of the sender's delayed-send timer (`overhead`).
pub(super) const DELAYED_SEND: u32 = 2;
/// The tag of the receiver's delayed-ACK timer.
pub(super) const DELAYED_ACK: u32 = 3;

impl Sim {
    /// Flow `f`'s TCP timers: the start of its application, a retransmission timeout, a
    /// delayed send, or a delayed ACK. The host it runs at takes no frame early
    /// meanwhile (see [`Sim::deliver_early`]).
    pub(super) fn tcp_timer(&mut self, f: u32, tag: u32, now: Time) -> Option<(Time, Event)> {
        let flow = &self.flows[f as usize];
        self.handling = match (tag, &flow.dst) {
            (DELAYED_ACK, &crate::traffic::Destination::Host(host)) => host,
            _ => flow.src,
        };
        self.tcp_timer_expired(f, tag, now);
        self.handling = NONE;
        None
    }

    fn tcp_timer_expired(&mut self, f: u32, tag: u32, now: Time) {
        match tag {
            DELAYED_SEND => {
                let stopped = now >= self.flows[f as usize].stop;
                let c = &mut self.protocols.tcp[self.flows[f as usize].tcp as usize];
                c.send_armed = None;
                if stopped {
                    c.sender.app_stop();
                }
                c.sender.on_delayed_send(now);
                self.tcp_output(f, now);
                return;
            }
            DELAYED_ACK => {
                let c = &mut self.protocols.tcp[self.flows[f as usize].tcp as usize];
                c.ack_armed = None;
                if let Some((ack, echo)) = c.receiver.on_timer() {
                    let flow = &self.flows[f as usize];
                    let crate::traffic::Destination::Host(host) = flow.dst else {
                        unreachable!("a TCP flow has one destination host")
                    };
                    let (src, priority) = (flow.src, flow.priority);
                    self.tcp_send_ack(f, host, src, priority, (ack, echo), now);
                }
                return;
            }
            _ => {}
        }
        let flow = &mut self.flows[f as usize];
        let stopped = now >= flow.stop;
        let c = &mut self.protocols.tcp[flow.tcp as usize];
        c.armed = None;
        c.thinking = false;
        if stopped {
            c.sender.app_stop();
        }
        if tag != START {
            c.sender.on_timeout(now);
        } else if let App::Web(web) = c.app {
            if stopped {
                return;
            }
            // The next object, from the initial window.
            let segments = web.next_object(&mut flow.rng, c.payload);
            if c.sender.highest_ack >= 0 {
                c.sender.restart_after_idle();
            }
            c.sender.app_send(segments, now);
        } else {
            let segments = c.app_segments();
            c.sender.app_send(segments, now);
        }
        self.tcp_output(f, now);
    }

    /// Sends what flow `f`'s sender put out, and keeps its timer in step with it.
    fn tcp_output(&mut self, f: u32, now: Time) {
        let ci = self.flows[f as usize].tcp as usize;
        let mut k = 0;
        while k < self.protocols.tcp[ci].sender.out.len() {
            let c = &self.protocols.tcp[ci];
            let seq = c.sender.out[k];
            let cwr = c.sender.cwr_seq == Some(seq);
            k += 1;
            let size = if c.is_syn(seq) { c.ack_size } else { c.segment_size };
            let flow = &mut self.flows[f as usize];
            let Some(dst) = flow.pick_host() else { continue };
            flow.stats.offered_frames += 1;
            flow.stats.offered_bytes += u64::from(size);
            let frame = Frame {
                size,
                priority: flow.priority,
                ecn: flow.ecn,
                multicast: false,
                src: flow.src,
                dst,
                flow: f,
                ingress: NONE,
                born: now,
                header: Header::TcpSegment(crate::l4::tcp::Segment { seq: seq as i32, cwr }),
            };
            let id = self.frames.alloc(frame);
            self.counters.count_created(HeaderKind::TcpSegment);
            self.offer(f, id, size, now);
        }
        let c = &mut self.protocols.tcp[ci];
        c.sender.out.clear();
        c.sender.cwr_seq = None;
        if c.sender.deadline != c.armed {
            c.armed = c.sender.deadline;
            match c.armed {
                Some(at) => self.timers.arm_in(&mut self.events, c.timer, at, 0),
                None => self.timers.cancel(c.timer),
            }
        }
        if c.send_timer != NONE && c.sender.delsnd != c.send_armed {
            c.send_armed = c.sender.delsnd;
            match c.send_armed {
                Some(at) => self.timers.arm_in(&mut self.events, c.send_timer, at, DELAYED_SEND),
                None => self.timers.cancel(c.send_timer),
            }
        }
    }

    /// A segment of flow `f` reached its destination `host`: the receiver takes it, the
    /// newly in-order data counts as delivered, and an ACK goes back.
    pub(super) fn tcp_segment(&mut self, host: NodeId, frame: &Frame, now: Time) {
        let f = frame.flow;
        let Header::TcpSegment(segment) = frame.header else { return };
        let seq = segment.seq;
        let ci = self.flows[f as usize].tcp as usize;
        let c = &mut self.protocols.tcp[ci];
        let level = c.level(frame.ecn);
        if frame.ecn.capable() {
            c.receiver.echo(segment.cwr, level);
        }
        let early = c.receiver.early.take();
        let seq = i64::from(seq);
        let receipt = c.receiver.receive(seq, c.is_syn(seq), now);
        let in_order = receipt.in_order;
        let data = in_order - u64::from(c.is_syn(seq) && in_order > 0);
        let srus = c.srus_delivered();
        let bytes = c.deliver(data);
        let round_done = c.srus_delivered() > srus;
        if c.ack_timer != NONE && c.receiver.deadline != c.ack_armed {
            c.ack_armed = c.receiver.deadline;
            match c.ack_armed {
                Some(at) => self.timers.arm_in(&mut self.events, c.ack_timer, at, DELAYED_ACK),
                None => self.timers.cancel(c.ack_timer),
            }
        }
        let st = &mut self.flows[f as usize].stats;
        st.delivered_frames += data;
        st.delivered_bytes += bytes;
        st.delay_sum += u128::from(now - frame.born);
        st.delay.record(now - frame.born);
        if let Some(ack) = early {
            self.tcp_send_ack(f, host, frame.src, frame.priority, ack, now);
        }
        if let Some(ack) = receipt.ack {
            self.tcp_send_ack(f, host, frame.src, frame.priority, ack, now);
        }
        if round_done {
            self.incast_arrived(ci, host, now);
        }
    }

    /// Flow `f`'s receiver at `host` sends the cumulative ACK `ack.0` echoing congestion
    /// level `ack.1` to the flow's source `src`, at the flow's `priority`. Pure ACKs are
    /// not ECN-capable (RFC 3168 §6.1.4).
    #[inline(always)] // once per segment; out of line it costs 1 % on dumbbell-tcp-64
    fn tcp_send_ack(&mut self, f: u32, host: NodeId, src: NodeId, priority: u8, ack: (i64, u8), now: Time) {
        let c = &mut self.protocols.tcp[self.flows[f as usize].tcp as usize];
        c.acks_sent += 1;
        let header = Header::TcpAck(crate::l4::tcp::Ack { ack: ack.0 as i32, echo: ack.1 });
        let back = Frame::message(c.ack_size, priority, host, src, f, now, header);
        let id = self.frames.alloc(back);
        self.counters.count_created(HeaderKind::TcpAck);
        self.host_send(id, now);
    }

    /// Incast: connection `ci`'s SRU of this round reached the client `host`; when it is
    /// the last one, the client requests the next round from every server.
    fn incast_arrived(&mut self, ci: usize, host: NodeId, now: Time) {
        let App::Incast { group, .. } = self.protocols.tcp[ci].app else { return };
        let Some(round) = self.protocols.incast[group as usize].arrived() else { return };
        for k in 0..self.protocols.incast[group as usize].flows.len() {
            let f = self.protocols.incast[group as usize].flows[k];
            let flow = &self.flows[f as usize];
            if now >= flow.stop {
                continue;
            }
            let size = self.protocols.tcp[flow.tcp as usize].ack_size;
            let request =
                Frame::message(size, flow.priority, host, flow.src, f, now, Header::TcpRequest(round));
            let id = self.frames.alloc(request);
            self.counters.count_created(HeaderKind::TcpRequest);
            self.host_send(id, now);
        }
    }

    /// Incast: the client's request reached the server of flow `f`: one more SRU.
    pub(super) fn tcp_request(&mut self, f: u32, now: Time) {
        let c = &mut self.protocols.tcp[self.flows[f as usize].tcp as usize];
        let segments = c.app_segments();
        c.sender.app_send(segments, now);
        self.tcp_output(f, now);
    }

    /// An ACK of flow `f` reached its source.
    pub(super) fn tcp_ack(&mut self, frame: &Frame, now: Time) {
        let f = frame.flow;
        let Header::TcpAck(ack) = frame.header else { return };
        let ci = self.flows[f as usize].tcp as usize;
        if now >= self.flows[f as usize].stop {
            self.protocols.tcp[ci].sender.app_stop();
        }
        self.protocols.tcp[ci].sender.on_ack_echo(i64::from(ack.ack), ack.echo, now);
        self.tcp_output(f, now);
        let c = &mut self.protocols.tcp[ci];
        if c.completed.is_none() && matches!(c.app, App::Bytes(_)) && c.sender.all_acked() {
            c.completed = Some(now);
            let flow = &self.flows[f as usize];
            if flow.workload {
                let fct = (now - flow.start) as f64 / 1e12;
                self.flow_finished(f, fct);
            }
        }
        let c = &mut self.protocols.tcp[ci];
        if let App::Web(web) = c.app {
            if c.sender.all_acked() && !c.thinking && now < self.flows[f as usize].stop {
                // The object is in: the user thinks, then fetches the next. (The timer is
                // idle: nothing is outstanding, so no retransmission timer runs.)
                let think = web.think(&mut self.flows[f as usize].rng);
                self.timers.arm_in(&mut self.events, c.timer, now + think, START);
                c.thinking = true;
            }
        }
    }
}
