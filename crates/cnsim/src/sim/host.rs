//! The host endpoint: a frame that reaches a host passes its input (a host input
//! service, when a link control has one) and is then consumed by its header: data is
//! counted as delivered to its flow, a CNM goes to the flow's reaction point, TCP
//! segments and RDMA packets to their receivers, their acknowledgements to their
//! senders.

use super::{ctx, DropSite, Sim};
use crate::engine::Time;
use crate::net::{Ecn, Frame, FrameId, Header, NodeId, NONE};
use crate::protocol::HostArrival;

impl Sim {
    /// A frame reached host `host`: through its input buffer if it has one, then to its
    /// endpoint.
    #[inline(always)]
    pub(super) fn at_host(&mut self, host: NodeId, id: FrameId, now: Time) {
        if let Some(link) = &mut self.protocols.link {
            let size = self.frames.get(id).size;
            let arrival = link.on_host_arrival(&mut ctx!(self, now), host, id, size);
            self.flush(now);
            match arrival {
                HostArrival::Deliver => {}
                HostArrival::Held => return,
                HostArrival::Dropped => return self.drop_frame(id, DropSite::Host),
            }
        }
        self.handling = host;
        self.deliver(host, id, now);
        self.handling = NONE;
    }

    /// The host endpoint: a frame is consumed, by its header.
    #[inline(always)]
    pub(super) fn deliver(&mut self, host: NodeId, id: FrameId, now: Time) {
        let frame = self.frames.get(id);
        self.counters.count_delivered(frame.kind());
        match frame.header {
            Header::Data(_) => {
                let st = &mut self.flows[frame.flow as usize].stats;
                st.delivered_frames += 1;
                st.delivered_bytes += frame.size as u64;
                st.delay_sum += (now - frame.born) as u128;
                st.delay.record(now - frame.born);
                let marked = (frame.ecn == Ecn::Ce).then_some(*frame);
                self.frames.free(id);
                if let Some(frame) = marked {
                    self.notify(host, &frame, now);
                }
            }
            Header::Cnm(_) | Header::Bcn(_) | Header::ProbeReply(_) | Header::Cnp(_) => {
                let frame = *frame;
                self.frames.free(id);
                self.feedback(&frame, now);
            }
            // Round-trip probes: reflected at the destination, feedback at the source.
            Header::Fecn(_) | Header::PathProbe(_) => {
                let frame = *frame;
                self.frames.free(id);
                if !crate::protocol::reflect_probe(&mut ctx!(self, now), host, &frame) {
                    self.feedback(&frame, now);
                }
                self.flush(now);
            }
            Header::TcpSegment(_) => {
                let frame = *frame;
                self.frames.free(id);
                self.tcp_segment(host, &frame, now);
            }
            Header::TcpAck(_) => {
                let frame = *frame;
                self.frames.free(id);
                self.tcp_ack(&frame, now);
            }
            Header::RdmaData(packet) => {
                let frame = *frame;
                let int = self.frames.int(id).copied();
                self.frames.free(id);
                self.rdma_data(host, &frame, packet, int, now);
            }
            Header::RdmaAck(ack) => {
                let f = frame.flow;
                let int = self.frames.int(id).copied();
                self.frames.free(id);
                self.rdma_ack(f, ack, int, now);
            }
            Header::TcpRequest(_) => {
                let f = frame.flow;
                self.frames.free(id);
                self.tcp_request(f, now);
            }
            // Answered (or passed by) at its congestion point on the way.
            Header::Probe(_) => self.frames.free(id),
            // Link-local: consumed by the receiving port, never delivered.
            Header::Pause(_) => self.frames.free(id),
        }
    }

    /// A CE-marked data frame reached its destination `host`: the flow's notification
    /// point, if it has one, may answer.
    #[inline(never)]
    pub(super) fn notify(&mut self, host: NodeId, frame: &Frame, now: Time) {
        let Some(Some(np)) = self.protocols.notification_points.get_mut(frame.flow as usize) else { return };
        np.on_marked(&mut ctx!(self, now), host, frame);
        self.flush(now);
    }
}
