//! E2CM (IBM Zurich, Gusat, Minkenberg and Luijten, 2007) and Roeck 2007's E2CM-P and
//! E2CM-PR: ECM's backward feedback with probes in place of ECM's rate-regulator tags.
//!
//! - **E2CM** (`probe_to = "destination"`; reference §5's reconstruction, the E2CM slides
//!   were not found): one regulator per path (per flow), cut by every negative BCN; while
//!   it limits the flow, a [`PathProbe`] goes to the destination every `probes.interval`
//!   bytes, each switch port on the way adds the time its queue takes to drain (Q/C),
//!   and the destination returns it. The source reads the flow's backlog on its path by
//!   Little's law, Qflow = R·delay (its rate times the queueing delay of the path), and
//!   applies ECM's laws with Fb = −((Qflow − flowQeq) + W·(Qflow − Qflow_old)) in pages:
//!   positive feedback when the flow holds less than its share flowQeq (15000 bytes),
//!   negative when more.
//!
//! - Congestion points are ECM's ([`crate::l2::ecm::cp`]), sending negative BCNs (and
//!   BCN(0,0) under severe congestion) to sampled frames' sources but no positive BCN:
//!   frames carry no tag. They answer probes with their Qoff and Qdelta; under E2CM-PR
//!   also with their fair rate ([`crate::l2::probing::FairShare`]).
//! - The reaction point ([`Rp`]) keeps ECM's rate regulators, one per CP, with ECM's
//!   laws and drift; while any regulator limits the flow it probes the CP of the most
//!   recent negative BCN every `probes.interval` bytes. A reply with Fb > 0 is the
//!   positive feedback ECM got from tagged frames: R ← min(C, R + Gi·Fb·Ru). Under
//!   E2CM-PR the reply's rate is the regulator's maximum: R ← min(R, rate).
//!
//! Readings (reference §5; the E2CM slides were not found): a reply with Fb ≤ 0 changes
//! nothing (sampling already sends the negative feedback; applying it twice would double
//! the cut for probed flows); BCNs carry no rate, only probe replies do (the seed says
//! both do; our BCN has no room for it, and a regulated flow's probe reaches the CP every
//! 100 KB).

pub mod config;

pub use config::E2cmConfig;

use serde::Serialize;

use crate::l2::ecm::{self, Bcn};
use crate::l2::probing::{ProbeParams, Prober, Reply};
use crate::net::Header;
use crate::protocol::RateChange;
use crate::protocol::{Ctx, FlowView, Send};

pub use crate::wire::e2cm::PathProbe;

impl PathProbe {
    /// A port with `bytes` queued, sending at `capacity_bps`, was passed.
    #[inline]
    pub fn add_queue(&mut self, bytes: u64, capacity_bps: u64) {
        let ns = (bytes as f64 * 8.0 * 1e9 / capacity_bps.max(1) as f64).round();
        self.delay_ns = self.delay_ns.saturating_add(ns.min(f64::from(u32::MAX)) as u32);
    }
}

/// E2CM's path state: the flow's equilibrium backlog and its last estimate, bytes.
#[derive(Clone, Debug)]
struct Path {
    flow_qeq: f64,
    page: f64,
    q_old: f64,
}

/// The regulator key under E2CM: one per path, whatever CP sent the BCN.
const PATH_REGULATOR: u32 = 0;

/// Per-RP counters.
#[derive(Clone, Debug, Default, Serialize)]
pub struct RpStats {
    /// Probes sent.
    pub(crate) probes: u64,
    /// Replies received.
    pub(crate) replies: u64,
    /// Replies with Fb > 0 (each an increase).
    pub(crate) positive_replies: u64,
    /// Replies whose rate lowered the regulator (E2CM-PR).
    pub(crate) capped: u64,
    /// Path probes back from the destination (E2CM).
    pub(crate) path_replies: u64,
}

/// The E2CM reaction point of one flow.
#[derive(Clone, Debug)]
pub struct Rp {
    /// ECM's regulators and laws.
    pub(crate) ecm: ecm::Rp,
    prober: Prober,
    /// E2CM's path probing; `None` under E2CM-P and E2CM-PR.
    path: Option<Path>,
    /// Counters.
    pub(crate) stats: RpStats,
}

impl Rp {
    /// A reaction point with ECM's `rp` parameters (W and Qeq of the CPs) and `probes`.
    pub fn new(rp: &ecm::RpParams, w: f64, qeq: f64, probes: &ProbeParams, line_bps: u64) -> Self {
        Rp {
            ecm: ecm::Rp::new(rp, w, qeq, line_bps),
            prober: Prober::new(probes),
            path: None,
            stats: RpStats::default(),
        }
    }

    /// E2CM: probes to the destination and one regulator per path, with `flow_qeq` bytes
    /// the flow's equilibrium backlog and `page` bytes the unit of Fb.
    pub fn with_path_probes(mut self, flow_qeq: f64, page: f64) -> Self {
        self.path = Some(Path { flow_qeq, page, q_old: 0.0 });
        self
    }

    /// The rate the flow may send at, bit/s.
    pub fn rate(&self) -> u64 {
        self.ecm.rate()
    }

    /// A BCN reached the source: ECM's laws; a negative one makes its CP the probes'
    /// target.
    pub fn on_bcn(&mut self, bcn: Bcn) -> RateChange {
        let bcn = if self.path.is_some() { Bcn { cpid: PATH_REGULATOR, ..bcn } } else { bcn };
        let action = self.ecm.on_bcn(bcn);
        if self.ecm.regulated() {
            if bcn.severe || self.ecm.fb(bcn.qoff, bcn.qdelta) < 0.0 {
                // Under E2CM the target is the path (any non-zero mark).
                self.prober.heard_from(if self.path.is_some() { u32::MAX } else { bcn.cpid });
            }
        } else {
            self.prober.stop();
        }
        action
    }

    /// The flow sent `bytes`: a probe when an interval is complete.
    #[inline]
    pub fn on_transmit(&mut self, ctx: &mut Ctx, flow: &FlowView, bytes: u32) -> RateChange {
        let before = self.prober.sent;
        if self.path.is_some() {
            if self.prober.due(flow, bytes) {
                let probe = self.prober.frame(ctx, flow, Header::PathProbe(PathProbe::default()));
                ctx.send(Send::Forward { node: flow.src }, probe);
            }
        } else {
            self.prober.on_transmit(ctx, flow, bytes);
        }
        self.stats.probes += self.prober.sent - before;
        RateChange::default()
    }

    /// A path probe came back (E2CM): the flow's backlog on its path, Qflow = R·delay,
    /// against flowQeq.
    pub fn on_path_reply(&mut self, probe: PathProbe) -> RateChange {
        self.stats.path_replies += 1;
        self.ecm.bcns_since_sample += 1;
        let Some(path) = &mut self.path else { return RateChange::default() };
        let q_flow = self.ecm.rate() as f64 / 8.0 * f64::from(probe.delay_ns) * 1e-9;
        let (qoff, qdelta) = ((q_flow - path.flow_qeq) / path.page, (q_flow - path.q_old) / path.page);
        path.q_old = q_flow;
        if !self.ecm.regulated() {
            return RateChange::default();
        }
        let fb = self.ecm.feedback_of(qoff, qdelta);
        self.ecm.apply(PATH_REGULATOR, fb, None);
        if !self.ecm.regulated() {
            self.prober.stop();
        }
        self.ecm.rate_change()
    }

    /// A CP answered a probe.
    pub fn on_reply(&mut self, reply: Reply) -> RateChange {
        self.stats.replies += 1;
        self.ecm.bcns_since_sample += 1;
        let fb = self.ecm.fb(reply.qoff, reply.qdelta);
        let before = self.ecm.rate();
        let positive = fb > 0.0;
        if positive {
            self.stats.positive_replies += 1;
        }
        self.ecm.apply(reply.cpid, if positive { fb } else { 0.0 }, reply.rate_bps());
        if self.ecm.rate() < before {
            self.stats.capped += 1;
        }
        if !self.ecm.regulated() {
            self.prober.stop();
        }
        self.ecm.rate_change()
    }

    /// The drift timer expired.
    pub fn on_timer(&mut self) -> RateChange {
        let action = self.ecm.on_timer();
        if !self.ecm.regulated() {
            self.prober.stop();
        }
        action
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::net::Frame;

    const C: u64 = 10_000_000_000;

    fn rp() -> Rp {
        Rp::new(&ecm::RpParams::default(), 2.0, 375.0, &ProbeParams::default(), C)
    }

    fn bcn(qoff: i16, qdelta: i16, cpid: u32) -> Bcn {
        Bcn { qoff, qdelta, cpid, severe: false }
    }

    fn sent_probes(rp: &mut Rp, frames: u32) -> Vec<Header> {
        let mut timers = crate::engine::Timers::default();
        let mut events = crate::engine::EventQueue::new();
        let mut outbox = crate::protocol::Outbox::default();
        let mut ctx = Ctx { now: 0, timers: &mut timers, events: &mut events, outbox: &mut outbox };
        let flow = FlowView { id: 0, src: 1, dst: 2, timers: 0 };
        for _ in 0..frames {
            rp.on_transmit(&mut ctx, &flow, 1500);
        }
        std::iter::from_fn(|| outbox.pop().map(|(_, f)| f.header)).collect()
    }

    /// Unregulated flows send no probes; a negative BCN from CP 7 starts probing CP 7
    /// every 100000 bytes.
    #[test]
    fn probes_the_cp_of_the_latest_negative_bcn() {
        let mut rp = rp();
        assert!(sent_probes(&mut rp, 200).is_empty());
        rp.on_bcn(bcn(225, 50, 7));
        let probes = sent_probes(&mut rp, 134);
        let p = Header::Probe(crate::l2::probing::Probe { cpid: 7 });
        assert_eq!(probes, vec![p, p], "134 × 1500 B = 201000 B: two intervals");
    }

    /// Reference §4.4's numbers through a reply: Fb = +275 adds 0.53333·275 Mbit/s to
    /// the regulator of the answering CP; Fb < 0 in a reply changes nothing.
    #[test]
    fn a_positive_reply_is_ecm_positive_feedback() {
        let mut rp = rp();
        rp.on_bcn(bcn(225, 50, 7));
        let cut = 10e9 * (1.0 - 0.00026667 * 325.0);
        let negative = Reply { cpid: 7, qoff: 100, qdelta: 0, rate_kbps: 0 };
        assert_eq!(rp.on_reply(negative).rate_bps, Some(cut as u64));
        let positive = Reply { cpid: 7, qoff: -175, qdelta: -50, rate_kbps: 0 };
        assert_eq!(rp.on_reply(positive).rate_bps, Some((cut + 0.53333 * 275.0 * 1e6) as u64));
        assert_eq!((rp.stats.replies, rp.stats.positive_replies), (2, 1));
    }

    /// E2CM-PR: the reply's rate caps the regulator, after the increase.
    #[test]
    fn a_guided_reply_caps_the_regulator() {
        let mut rp = rp();
        rp.on_bcn(bcn(225, 50, 7));
        let reply = Reply { cpid: 7, qoff: -175, qdelta: -50, rate_kbps: 2_500_000 };
        assert_eq!(rp.on_reply(reply).rate_bps, Some(2_500_000_000));
        assert_eq!(rp.stats.capped, 1);
        // A cap above the rate changes nothing.
        let high = Reply { cpid: 7, qoff: 0, qdelta: 0, rate_kbps: 9_000_000 };
        assert_eq!(rp.on_reply(high).rate_bps, Some(2_500_000_000));
    }

    /// Back at C, the regulator goes and probing stops.
    #[test]
    fn probing_stops_when_the_flow_is_no_longer_regulated() {
        let mut rp = rp();
        rp.on_bcn(bcn(10, 0, 7));
        rp.on_reply(Reply { cpid: 7, qoff: -375, qdelta: -750, rate_kbps: 0 });
        assert_eq!(rp.rate(), C);
        assert!(sent_probes(&mut rp, 200).is_empty());
    }

    /// A path probe adds Q/C at every port: 30000 B at 10 Gbit/s is 24 µs, 1500 B at
    /// 1 Gbit/s 12 µs; the destination returns it with the sum.
    #[test]
    fn path_probes_gather_the_queueing_delay_and_come_back() {
        let mut p = PathProbe::default();
        p.add_queue(30_000, 10_000_000_000);
        p.add_queue(1_500, 1_000_000_000);
        assert_eq!(p.delay_ns, 36_000);
        let mut timers = crate::engine::Timers::default();
        let mut events = crate::engine::EventQueue::new();
        let mut outbox = crate::protocol::Outbox::default();
        let mut ctx = Ctx { now: 9, timers: &mut timers, events: &mut events, outbox: &mut outbox };
        let frame =
            Frame { src: 1, dst: 4, flow: 2, size: 64, header: Header::PathProbe(p), ..Frame::default() };
        assert!(crate::protocol::reflect_probe(&mut ctx, 4, &frame));
        let (_, back) = outbox.pop().unwrap();
        assert_eq!((back.src, back.dst, back.flow), (4, 1, 2));
        assert_eq!(back.header, Header::PathProbe(PathProbe { delay_ns: 36_000, returning: true }));
        let mut ctx = Ctx { now: 9, timers: &mut timers, events: &mut events, outbox: &mut outbox };
        assert!(!crate::protocol::reflect_probe(&mut ctx, 1, &back), "at the source it is feedback");
    }

    /// E2CM: every BCN acts on one path regulator; a returning probe gives
    /// Qflow = R·delay against flowQeq = 15000 B. At R = 5 Gbit/s a delay of 12 µs is
    /// 7500 B: Qoff = −7500 B = −117.19 pages, Qdelta (from 0) = +117.19 pages,
    /// Fb = −(−117.19 + 2·117.19) = −117.19: a cut by Gd·117.19. A second probe with the
    /// same delay at the new rate R' gives Qflow' < 7500: Qoff and Qdelta both negative, a
    /// positive Fb and an increase.
    #[test]
    fn path_probe_feedback_hand_example() {
        let mut rp = rp().with_path_probes(15_000.0, 64.0);
        // Two CPs, one regulator: the second BCN cuts the same one.
        rp.on_bcn(Bcn { qoff: 0, qdelta: 0, cpid: 3, severe: true });
        assert_eq!(rp.rate(), (10e9 * (1.0 - 0.00026667 * 1875.0)) as u64);
        rp.on_bcn(bcn(0, 0, 9)); // Fb = 0: nothing
        assert_eq!(rp.ecm.regulators(), 1);
        let r = rp.rate() as f64;
        let delay = PathProbe { delay_ns: 12_000, returning: true };
        let a = rp.on_path_reply(delay);
        let q = r / 8.0 * 12e-6;
        let (qoff, qdelta) = ((q - 15_000.0) / 64.0, q / 64.0);
        let fb = -(qoff + 2.0 * qdelta);
        assert!(fb < 0.0);
        assert_eq!(a.rate_bps, Some((r * (1.0 - 0.00026667 * -fb)) as u64));
        let r2 = rp.rate() as f64;
        let q2 = r2 / 8.0 * 12e-6;
        let fb2 = -((q2 - 15_000.0) / 64.0 + 2.0 * (q2 - q) / 64.0);
        assert!(fb2 > 0.0);
        let a = rp.on_path_reply(delay);
        assert_eq!(a.rate_bps, Some((r2 + 0.53333 * fb2 * 1e6) as u64));
        assert_eq!(rp.stats.path_replies, 2);
    }

    /// E2CM sends path probes, not CP probes, once regulated.
    #[test]
    fn e2cm_probes_the_path() {
        let mut rp = rp().with_path_probes(15_000.0, 64.0);
        assert!(sent_probes(&mut rp, 100).is_empty());
        rp.on_bcn(bcn(225, 50, 7));
        assert_eq!(sent_probes(&mut rp, 67), vec![Header::PathProbe(PathProbe::default())]);
    }
}
