//! E2CM-P and E2CM-PR (Roeck 2007's variants of IBM Zurich's E2CM, Gusat, Minkenberg and
//! Luijten, 2007): ECM's backward feedback with probes from the source to its congestion
//! point in place of ECM's rate-regulator tags.
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
//! 100 KB). The seed's flowQeq belongs to E2CM's path probes, which we do not model.

pub mod config;

pub use config::E2cmConfig;

use serde::Serialize;

use crate::l2::ecm::{self, Bcn};
use crate::l2::probing::{ProbeParams, Prober, Reply};
use crate::l2::qcn::RpAction;
use crate::protocol::{Ctx, FlowView};

/// Per-RP counters.
#[derive(Clone, Debug, Default, Serialize)]
pub struct RpStats {
    /// Probes sent.
    pub probes: u64,
    /// Replies received.
    pub replies: u64,
    /// Replies with Fb > 0 (each an increase).
    pub positive_replies: u64,
    /// Replies whose rate lowered the regulator (E2CM-PR).
    pub capped: u64,
}

/// The E2CM reaction point of one flow.
#[derive(Clone, Debug)]
pub struct Rp {
    /// ECM's regulators and laws.
    pub ecm: ecm::Rp,
    prober: Prober,
    /// Counters.
    pub stats: RpStats,
}

impl Rp {
    /// A reaction point with ECM's `rp` parameters (W and Qeq of the CPs) and `probes`.
    pub fn new(rp: &ecm::RpParams, w: f64, qeq: f64, probes: &ProbeParams, line_bps: u64) -> Self {
        Rp { ecm: ecm::Rp::new(rp, w, qeq, line_bps), prober: Prober::new(probes), stats: RpStats::default() }
    }

    /// The rate the flow may send at, bit/s.
    pub fn rate(&self) -> u64 {
        self.ecm.rate()
    }

    /// A BCN reached the source: ECM's laws; a negative one makes its CP the probes'
    /// target.
    pub fn on_bcn(&mut self, bcn: Bcn) -> RpAction {
        let action = self.ecm.on_bcn(bcn);
        if self.ecm.regulated() {
            if bcn.severe || self.ecm.fb(bcn.qoff, bcn.qdelta) < 0.0 {
                self.prober.heard_from(bcn.cpid);
            }
        } else {
            self.prober.stop();
        }
        action
    }

    /// The flow sent `bytes`: a probe when an interval is complete.
    #[inline]
    pub fn on_transmit(&mut self, ctx: &mut Ctx, flow: &FlowView, bytes: u32) -> RpAction {
        let before = self.prober.sent;
        self.prober.on_transmit(ctx, flow, bytes);
        self.stats.probes += self.prober.sent - before;
        RpAction::default()
    }

    /// A CP answered a probe.
    pub fn on_reply(&mut self, reply: Reply) -> RpAction {
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
    pub fn on_timer(&mut self) -> RpAction {
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
    use crate::net::Header;

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
        let flow = FlowView { id: 0, src: 1, dst: 2 };
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
}
