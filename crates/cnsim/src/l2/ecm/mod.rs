//! ECM, Ethernet Congestion Management (also BCN, Backward Congestion Notification;
//! Bergamasco et al., Cisco, 2005–2007), as Roeck 2007 simulated it against QCN, FECN
//! and E2CM on the IEEE 802.1au tests.
//!
//! - [`cp`]: the congestion point: samples an egress queue every `sampling_interval`
//!   bytes, computes Fb = −(Qoff + W·Qdelta) in 64-byte pages and sends a BCN message
//!   back to the sampled frame's source: negative feedback always, positive feedback only
//!   to frames tagged with this CP (the rate-regulator tag), and BCN(0,0) under severe
//!   congestion (Q ≥ Qsc).
//! - [`rp`]: the reaction point: one rate regulator per CP that asked the source to slow
//!   down; multiplicative decrease R·(1 − Gd·|Fb|), additive increase Gi·Fb·Ru, a drift
//!   of Rd every Td without feedback; the flow sends at the most restrictive regulator's
//!   rate and tags its frames with that regulator's CP.
//! - [`config`]: `[protocols.ecm]`, with Roeck 2007's first parameter set as defaults.
//!
//! Reference: shared/reference/l2-protocols.md §4 (structure from the patent claims; the
//! equations and the page unit reconstructed from the seed's parameter values).

pub mod config;
pub mod cp;
pub mod rp;

use serde::Serialize;

pub use config::EcmConfig;
pub use cp::{Cp, CpParams};
pub use rp::{Rp, RpParams};

use crate::net::{Frame, Header};
use crate::protocol::{Ctx, PortView};

pub use crate::wire::ecm::Bcn;

/// Fb = −(Qoff + W·Qdelta), clamped to ±Qeq(2W+1) (reference §4.2: the seed's Gd and Gi
/// fit exactly this bound; with Qeq = 375 pages and W = 2 it is ±1875).
pub fn feedback(qoff: f64, qdelta: f64, w: f64, qeq: f64) -> f64 {
    let bound = qeq * (2.0 * w + 1.0);
    (-(qoff + w * qdelta)).clamp(-bound, bound)
}

/// ECM counters for the whole network.
#[derive(Clone, Debug, Default, Serialize)]
pub struct EcmStats {
    /// Samples taken by all CPs.
    pub(crate) samples: u64,
    /// Negative BCNs sent.
    pub negative: u64,
    /// Positive BCNs sent (to frames tagged with the sending CP).
    pub positive: u64,
    /// Severe-congestion BCN(0,0) sent.
    pub(crate) severe: u64,
    /// BCNs that reached their source.
    pub(crate) received: u64,
    /// BCNs dropped on the way back.
    pub(crate) dropped: u64,
}

impl EcmStats {
    /// The network-wide counters of a run, if it has an ECM congestion point.
    pub fn of(run: &crate::protocol::Finished) -> Option<Self> {
        let ecm = |cp: &crate::protocol::AnyCongestionPoint| {
            matches!(cp, crate::protocol::AnyCongestionPoint::Ecm(_))
        };
        if !run.protocols.congestion_points.iter().any(ecm) {
            return None;
        }
        let mut s = EcmStats::default();
        for cp in &run.protocols.congestion_points {
            if let crate::protocol::AnyCongestionPoint::Ecm(e) = cp {
                s.samples += e.cp.stats.samples;
                s.negative += e.cp.stats.negative;
                s.positive += e.cp.stats.positive;
                s.severe += e.cp.stats.severe;
            }
        }
        s.received =
            run.protocols.reaction_points.iter().filter_map(|rp| rp.as_ecm()).map(|rp| rp.stats.bcns).sum();
        s.dropped = run.kind(crate::net::HeaderKind::Bcn).dropped;
        Some(s)
    }
}

/// What an ECM congestion point's messages look like.
#[derive(Clone, Copy, Debug)]
pub struct BcnFormat {
    /// Size on the wire, bytes.
    pub(crate) size: u32,
    /// Priority.
    pub(crate) priority: u8,
}

/// An ECM congestion point plugged into an egress queue.
#[derive(Clone, Debug)]
pub struct CongestionPoint {
    /// The CP state machine.
    pub(crate) cp: Cp,
    /// What its messages look like.
    pub(crate) format: BcnFormat,
    /// Its fair-share estimate, for probe replies (E2CM-PR).
    pub(crate) guidance: Option<crate::l2::probing::FairShare>,
    /// The port's rate, bit/s: E2CM path probes add the time its queue takes to drain.
    pub(crate) capacity_bps: u64,
}

impl CongestionPoint {
    /// A frame arrived at the watched queue (queued or dropped). Data frames count
    /// towards sampling; a probe for this CP is answered (E2CM-P, E2CM-PR).
    #[inline]
    pub fn on_arrival(&mut self, ctx: &mut Ctx, queue: &PortView, frame: &mut Frame) {
        let tag = match frame.header {
            Header::Data(tag) => tag,
            Header::TcpSegment(_) | Header::RdmaData(_) => Default::default(),
            Header::Probe(probe) if probe.cpid == self.cp.cpid => return self.answer(ctx, queue, frame),
            Header::PathProbe(ref mut probe) if !probe.returning => {
                probe.add_queue(queue.bytes(), self.capacity_bps);
                return;
            }
            _ => return,
        };
        if let Some(g) = &mut self.guidance {
            g.on_data(ctx.now, frame.size, queue.bytes() as f64, self.cp.qeq_bytes());
        }
        if !self.cp.sampled(frame.size) {
            return;
        }
        if let Some(bcn) = self.cp.on_sample(queue.bytes(), tag.cpid) {
            ctx.send_to_source(queue.node, frame, self.format.size, self.format.priority, Header::Bcn(bcn));
        }
    }

    /// A probe for this CP: the reply goes back to its source; the probe, answered, goes
    /// on to its destination.
    #[inline(never)]
    fn answer(&mut self, ctx: &mut Ctx, queue: &PortView, frame: &mut Frame) {
        let fields = self.cp.reply_fields(queue.bytes());
        crate::l2::probing::answer(ctx, queue.node, frame, self.cp.cpid, fields, self.guidance.as_ref());
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::protocol::Send;

    /// Reference §4.4's worked examples, in pages with Qeq = 375 and W = 2.
    #[test]
    fn feedback_hand_examples() {
        // Q = 600, Qold = 550: −(225 + 2·50) = −325.
        assert_eq!(feedback(225.0, 50.0, 2.0, 375.0), -325.0);
        // Q = 200, Qold = 250: −(−175 + 2·(−50)) = +275.
        assert_eq!(feedback(-175.0, -50.0, 2.0, 375.0), 275.0);
        // Clamped to ±375·5 = ±1875.
        assert_eq!(feedback(2000.0, 0.0, 2.0, 375.0), -1875.0);
        assert_eq!(feedback(-375.0, -1000.0, 2.0, 375.0), 1875.0);
    }

    #[test]
    fn a_bcn_fits_the_frame_header() {
        assert!(std::mem::size_of::<Bcn>() <= 12);
        assert_eq!(std::mem::size_of::<Frame>(), 48);
    }

    /// A probe for this CP is answered to its source with Qoff and Qdelta in pages and,
    /// under E2CM-PR, the CP's fair rate; the answered probe goes on marked as such. A
    /// probe for another CP passes untouched.
    #[test]
    fn answers_probes_for_itself() {
        use crate::engine::{RngStream, StreamKey};
        use crate::l2::probing::{FairShare, GuidanceParams, Probe, Reply};
        let cp = Cp::new(&CpParams::default(), 7, RngStream::new(1, StreamKey { kind: "cp", name: "t" }));
        let guidance = Some(FairShare::new(&GuidanceParams::default(), 10_000_000_000));
        let mut cp = CongestionPoint {
            cp,
            format: BcnFormat { size: 64, priority: 0 },
            guidance,
            capacity_bps: 10_000_000_000,
        };
        let mut timers = crate::engine::Timers::default();
        let mut events = crate::engine::EventQueue::new();
        let mut outbox = crate::protocol::Outbox::default();
        let mut ctx = Ctx { now: 3, timers: &mut timers, events: &mut events, outbox: &mut outbox };
        let classes = crate::net::Classes::new(1, crate::net::Capacity::Frames(10));
        let view = PortView { port: 6, node: 5, classes: &classes, class: 0, serializing: false };
        let mut other =
            Frame { src: 1, dst: 9, size: 64, header: Header::Probe(Probe { cpid: 3 }), ..Frame::default() };
        cp.on_arrival(&mut ctx, &view, &mut other);
        assert_eq!(other.header, Header::Probe(Probe { cpid: 3 }));
        let mut mine = Frame { header: Header::Probe(Probe { cpid: 7 }), ..other };
        cp.on_arrival(&mut ctx, &view, &mut mine);
        assert_eq!(mine.header, Header::Probe(Probe { cpid: 0 }), "answered");
        let (how, reply) = outbox.pop().unwrap();
        assert_eq!(how, Send::Forward { node: 5 });
        assert_eq!((reply.src, reply.dst, reply.size), (5, 1, 64));
        // An empty queue: Qoff = −375 pages; the estimate starts at the capacity.
        let want = Reply { cpid: 7, qoff: -375, qdelta: 0, rate_kbps: 10_000_000 };
        assert_eq!(reply.header, Header::ProbeReply(want));
    }
}
