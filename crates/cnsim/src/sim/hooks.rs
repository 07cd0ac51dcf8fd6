//! The glue between the protocols' seams and the data path: a congestion point seeing
//! an arrival, the link control counting frames in and out of a
//! switch and consuming link-local frames, and the outbox of frames protocols send.

use super::{ctx, Sim};
use crate::engine::Time;
use crate::net::{FrameId, PortId, NONE};
use crate::protocol::{PortView, Send};

impl Sim {
    /// Port `p`'s congestion point sees frame `id` offered to class `class`, with the
    /// port sending (`sending`, see [`Port::sending_at_arrival`]) or not, unless it is
    /// a data frame within the bytes the congestion point let pass unseen: the port only
    /// counts it then.
    ///
    /// [`Port::sending_at_arrival`]: crate::net::Port::sending_at_arrival
    #[inline]
    pub(super) fn congestion_point(&mut self, p: PortId, class: u8, id: FrameId, sending: bool, now: Time) {
        let port = &mut self.net.ports[p as usize];
        let frame = self.frames.get(id);
        let quiet = port.cp_quiet;
        if frame.size <= quiet as u32 && frame.header.data_tag().is_some() {
            port.cp_quiet = quiet + (1 << 32) - u64::from(frame.size);
            return;
        }
        self.protocols.congestion_points[port.cp as usize].absorb((quiet >> 32) as u32, quiet as u32);
        self.congestion_point_sees(p, class, id, sending, now);
    }

    #[inline(never)]
    fn congestion_point_sees(&mut self, p: PortId, class: u8, id: FrameId, sending: bool, now: Time) {
        let port = &self.net.ports[p as usize];
        let view = PortView { port: p, node: port.node, classes: &port.classes, class, serializing: sending };
        let frame = self.frames.get_mut(id);
        let cp = &mut self.protocols.congestion_points[port.cp as usize];
        cp.on_arrival(&mut ctx!(self, now), &view, frame);
        self.net.ports[p as usize].cp_quiet = u64::from(cp.grant_quiet());
        self.flush(now);
    }

    /// Every congestion point catches up with the arrivals its port let pass unseen, so
    /// that its state can be read.
    pub(super) fn cp_catch_up_all(&mut self) {
        for port in &mut self.net.ports {
            if port.cp != NONE {
                let (quiet, cp) = (port.cp_quiet, &mut self.protocols.congestion_points[port.cp as usize]);
                cp.absorb((quiet >> 32) as u32, quiet as u32);
                port.cp_quiet = u64::from(quiet as u32);
            }
        }
    }

    /// Frame `id`, which entered through another port, was queued at port `p`: the
    /// link control counts it against its ingress port.
    #[inline(never)]
    pub(super) fn admitted(&mut self, p: PortId, id: FrameId, now: Time) {
        let frame = self.frames.get(id);
        let slot = self.net.ports[frame.ingress as usize].link;
        if let (Some(link), true) = (&mut self.protocols.link, slot != NONE) {
            link.on_admitted(&mut ctx!(self, now), slot, self.net.ports[p as usize].node, frame);
            self.flush(now);
        }
    }

    /// Frame `id`, counted by the link control when it was queued at port `p`, left.
    #[inline(never)]
    pub(super) fn left(&mut self, p: PortId, id: FrameId, now: Time) {
        let frame = self.frames.get(id);
        let slot = self.net.ports[frame.ingress as usize].link;
        if let (Some(link), true) = (&mut self.protocols.link, slot != NONE) {
            link.on_left(&mut ctx!(self, now), slot, self.net.ports[p as usize].node, frame);
            self.flush(now);
        }
    }

    /// A link-local frame reached port `p` (its receiving end): the link control
    /// consumes it.
    pub(super) fn link_local(&mut self, p: PortId, id: FrameId, now: Time) {
        let frame = *self.frames.get(id);
        self.frames.free(id);
        self.counters.count_delivered(frame.kind());
        let port = &self.net.ports[p as usize];
        let (slot, classes) = (port.link, &port.classes);
        let Some(link) = &mut self.protocols.link else { return };
        if slot != NONE
            && link.on_link_local(&mut ctx!(self, now), slot, &frame, |prio| classes.class_of(prio))
        {
            self.kick(p, now);
        }
        self.flush(now);
    }

    /// Sends the frames protocols put in the outbox, oldest first.
    #[inline]
    pub(super) fn flush(&mut self, now: Time) {
        if !self.outbox.is_empty() {
            self.send_outbox(now);
        }
    }

    pub(super) fn send_outbox(&mut self, now: Time) {
        while let Some((how, frame)) = self.outbox.pop() {
            self.counters.count_created(frame.kind());
            let id = self.frames.alloc(frame);
            match how {
                Send::Forward { node } => self.forward(node, id, now),
                Send::OnPort { port } => {
                    self.net.ports[port as usize].control.get_or_insert_with(Default::default).push_back(id);
                    self.kick(port, now);
                }
            }
        }
    }
}
