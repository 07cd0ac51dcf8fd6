//! RDMA queue pairs in the data path: a queue pair's packets leave as a saturated
//! source's frames, numbered by its requester, and only while it may send; its
//! acknowledgements come back from the destination host as frames; its retransmission
//! timer is a generic timer. The rules are in [`crate::l4::rdma`].
//!
//! A queue pair whose flow collects in-band telemetry (HPCC) sends each packet and ACK
//! [`HEADER_BYTES`](crate::wire::int::HEADER_BYTES) longer; the ACK echoes the stack its
//! packet collected, and the source's reaction point hears every ACK. One whose flow
//! measures RTTs (TIMELY) carries its send time instead, which the ACK echoes.

use super::{ctx, Sim};
use crate::engine::{Event, Time};
use crate::l4::rdma::{Ack, Packet, Received};
use crate::net::{Ecn, Frame, Header, HeaderKind, NodeId, NONE};
use crate::protocol::AckView;
use crate::wire::int::{IntMode, IntStack};

impl Sim {
    /// Whether flow `f`, a queue pair, may send a packet now; when it may not, it stops
    /// until an acknowledgement or a timeout lets it.
    #[inline]
    pub(super) fn rdma_may_send(&mut self, f: u32) -> bool {
        let qp = &mut self.protocols.rdma[self.flows[f as usize].qp as usize];
        let may = qp.requester.can_send();
        qp.blocked = !may;
        may
    }

    /// Queue pair `f`'s next packet, born at `now`: counted as offered, and its
    /// retransmission timer running.
    pub(super) fn rdma_packet(&mut self, f: u32, now: Time) -> Frame {
        let flow = &mut self.flows[f as usize];
        let crate::traffic::Destination::Host(dst) = flow.dst else {
            unreachable!("a queue pair has one destination host")
        };
        let frame_size = flow.frame_size;
        let qp = &mut self.protocols.rdma[flow.qp as usize];
        let (packet, again) = qp.requester.next_packet();
        let size = qp.size_of(packet, frame_size);
        qp.stats.retransmitted_packets += u64::from(again);
        if qp.timeout > 0 && self.timers.deadline(qp.timer).is_none() {
            self.timers.arm_in(&mut self.events, qp.timer, now.saturating_add(qp.timeout), 0);
        }
        flow.stats.offered_frames += 1;
        flow.stats.offered_bytes += u64::from(size);
        let mut frame = self.build_frame(f, dst, now);
        frame.size = size;
        frame.header = Header::RdmaData(packet);
        frame
    }

    /// Packet `packet` of flow `frame.flow` reached its destination `host`: the responder
    /// delivers it if in order and may answer with an ACK or a NAK; a CE mark goes to the
    /// flow's notification point (DCQCN's CNPs), whatever the PSN. `int` is the
    /// packet's telemetry, which the ACK echoes.
    pub(super) fn rdma_data(
        &mut self,
        host: NodeId,
        frame: &Frame,
        packet: Packet,
        int: Option<IntStack>,
        now: Time,
    ) {
        let f = frame.flow;
        let flow = &mut self.flows[f as usize];
        let qp = &mut self.protocols.rdma[flow.qp as usize];
        let (ack_every, nack_interval) = (qp.ack_every, qp.nack_interval);
        let answer = match qp.responder.on_packet(packet, ack_every, nack_interval, now) {
            Received::InOrder(ack) => {
                let st = &mut flow.stats;
                st.delivered_frames += 1;
                st.delivered_bytes += u64::from(qp.payload_of(packet));
                st.delay_sum += (now - frame.born) as u128;
                st.delay.record(now - frame.born);
                ack
            }
            Received::Gap(nak) => nak,
            Received::Duplicate(ack) => Some(ack),
        };
        if let Some(ack) = answer {
            if ack.nak {
                qp.stats.naks_sent += 1;
            } else {
                qp.stats.acks_sent += 1;
            }
            let size = qp.ack_size();
            let mode = qp.int;
            let back = Frame::message(size, flow.priority, host, flow.src, f, now, Header::RdmaAck(ack));
            let id = self.frames.alloc(back);
            if let (Some(int), Some(slot)) = (int, self.frames.int_mut(id)) {
                match mode {
                    IntMode::None => {}
                    IntMode::Hops => *slot = int,
                    // The packet's header carries its send time, its birth.
                    IntMode::Timestamp => slot.sent = frame.born,
                }
            }
            self.counters.count_created(HeaderKind::RdmaAck);
            self.forward(host, id, now);
        }
        if frame.ecn == Ecn::Ce {
            self.notify(host, frame, now);
        }
    }

    /// An ACK or NAK `ack` reached flow `f`'s source: the requester moves on (or back),
    /// the retransmission timer restarts on progress, a reaction point that hears
    /// acknowledgements sets the rate (and a queue pair with a BDP its window from it),
    /// and a stopped source may go again. `int` is the telemetry the ACK echoes.
    pub(super) fn rdma_ack(&mut self, f: u32, ack: Ack, int: Option<IntStack>, now: Time) {
        let flow = &self.flows[f as usize];
        let start = flow.start;
        let qp = &mut self.protocols.rdma[flow.qp as usize];
        let acked = qp.requester.on_ack(ack);
        qp.stats.acked_packets += acked;
        qp.stats.go_backs += u64::from(ack.nak);
        let complete = qp.requester.complete();
        if !complete && flow.rp != NONE && self.protocols.reaction_points[flow.rp as usize].hears_acks() {
            self.rdma_ack_to_rp(f, int.unwrap_or_default(), now);
        }
        let qp = &mut self.protocols.rdma[self.flows[f as usize].qp as usize];
        if complete {
            if qp.stats.completed_s.is_none() {
                qp.completed(start, now);
                if let (true, Some(fct)) = (self.flows[f as usize].workload, qp.stats.fct_s) {
                    self.flow_finished(f, fct);
                }
            }
            let qp = &mut self.protocols.rdma[self.flows[f as usize].qp as usize];
            if qp.timer != NONE {
                self.timers.cancel(qp.timer);
            }
            // The queue pair is gone, and its rate limiter's timers with it (the fork's
            // `QpComplete`).
            let flow = &self.flows[f as usize];
            if flow.rp != NONE {
                let count = self.protocols.reaction_points[flow.rp as usize].timers();
                for k in 0..count {
                    self.timers.cancel(flow.rp_timer + u32::from(k));
                }
            }
        } else if acked > 0 && qp.timeout > 0 {
            if qp.requester.outstanding() > 0 {
                self.timers.arm_in(&mut self.events, qp.timer, now.saturating_add(qp.timeout), 0);
            } else {
                self.timers.cancel(qp.timer);
            }
        }
        self.rdma_wake(f, now);
    }

    /// Flow `f`'s reaction point hears an acknowledgement that echoes `int`: its rate
    /// goes to the flow's shaper (and scales the queue pair's window).
    #[inline(never)]
    fn rdma_ack_to_rp(&mut self, f: u32, int: IntStack, now: Time) {
        let flow = &self.flows[f as usize];
        let (rp, line, view) = (flow.rp, flow.line_bps, super::source::flow_view(f, flow));
        let qp = &mut self.protocols.rdma[flow.qp as usize];
        let payload = u64::from(qp.payload);
        let ack = AckView {
            acked: qp.requester.snd_una.saturating_mul(payload),
            next: qp.requester.snd_nxt.saturating_mul(payload),
            int: &int,
            sent: int.sent,
        };
        self.rp_catch_up(f);
        let change =
            self.protocols.reaction_points[rp as usize].on_ack(&mut ctx!(self, now), &view, &ack, line);
        self.rp_requiet(f);
        self.flush(now);
        self.apply_rate_change(f, change, now);
    }

    /// Queue pair `f`'s retransmission timer expired: no acknowledgement advanced for
    /// its timeout, so it goes back to the first unacknowledged packet.
    pub(super) fn rdma_timeout(&mut self, f: u32, now: Time) -> Option<(Time, Event)> {
        let qp = &mut self.protocols.rdma[self.flows[f as usize].qp as usize];
        if qp.requester.outstanding() == 0 {
            return None;
        }
        qp.stats.timeouts += 1;
        qp.requester.go_back();
        self.rdma_wake(f, now);
        None
    }

    /// A stopped queue pair `f` that may send again resumes at its rate limiter's next
    /// release.
    fn rdma_wake(&mut self, f: u32, now: Time) {
        let flow = &mut self.flows[f as usize];
        let qp = &mut self.protocols.rdma[flow.qp as usize];
        if !qp.blocked || !qp.requester.can_send() || now >= flow.stop {
            return;
        }
        qp.blocked = false;
        let shaper = flow.shaper.as_mut().expect("a queue pair has a shaper");
        let at = shaper.next_allowed(now);
        shaper.pacing(at);
        let timer = shaper.timer;
        self.arm(timer, at);
    }
}
