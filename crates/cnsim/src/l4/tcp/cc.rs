//! The sender's congestion controller: how a window answers echoed congestion marks,
//! in smoltcp's `Controller` shape (one enum, one `match` per hook, no `dyn`). Loss
//! recovery — Reno's and NewReno's fast retransmit, partial ACKs and timeouts — is the
//! sender's own ([`super::sender`]); what differs between the responses to marks lives
//! here. A response costs one variant, its arm in [`Controller::new`] and in
//! [`Controller::cut`], and one in [`Controller::on_ack`] if it watches every ACK.
//!
//! The sender applies a cut at most once per window of data, bounds it below by
//! `ecn_floor` and sets ssthresh ← max(2, ⌊cwnd⌋) (for RFC 3168's halving the same as
//! ns-2's max(2, ⌊w/2⌋), as the floor is at most 2).

use super::dctcp::Dctcp;
use super::sender::EcnResponse;

/// A TCP sender's answer to echoed congestion.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Controller {
    /// Not ECN-capable: marks never come back, echoes are ignored.
    NotEcn,
    /// RFC 3168: halve.
    Ecn,
    /// Multi-level ECN: cut by β1 on incipient (level 1), β2 on moderate congestion.
    Mecn {
        /// Fraction of cwnd removed on incipient congestion.
        beta1: f64,
        /// Fraction removed on moderate congestion.
        beta2: f64,
    },
    /// DCTCP: cut by α/2, α the marked fraction per window ([`super::dctcp`]).
    Dctcp(Dctcp),
}

impl Controller {
    /// The controller of a sender configured to answer marks as `response` says.
    pub fn new(response: EcnResponse) -> Self {
        match response {
            EcnResponse::Off => Controller::NotEcn,
            EcnResponse::Ecn => Controller::Ecn,
            EcnResponse::Mecn { beta1, beta2 } => Controller::Mecn { beta1, beta2 },
            EcnResponse::Dctcp(p) => Controller::Dctcp(Dctcp::new(p)),
        }
    }

    /// Whether the sender answers echoes (and marks its next segment CWR after a cut).
    #[inline]
    pub fn answers_marks(&self) -> bool {
        !matches!(self, Controller::NotEcn)
    }

    /// An ACK for segments up to `ack` arrived, newly acknowledging `acked` of them and
    /// echoing congestion `echo` (0 none); `next_seq` is the next segment to send.
    /// Called for every ACK, before the sender acts on it.
    #[inline]
    pub fn on_ack(&mut self, ack: i64, acked: u64, echo: u8, next_seq: i64) {
        if let Controller::Dctcp(d) = self {
            d.on_ack(ack, acked, echo > 0, next_seq);
        }
    }

    /// The window an echo of congestion `level` leaves of a window `w` (before the
    /// floor), or `None` when marks are not answered.
    pub fn cut(&self, w: f64, level: u8) -> Option<f64> {
        match *self {
            Controller::NotEcn => None,
            Controller::Ecn => Some(w / 2.0),
            Controller::Mecn { beta1, beta2 } => Some((1.0 - if level >= 2 { beta2 } else { beta1 }) * w),
            Controller::Dctcp(ref d) => Some(d.cut(w)),
        }
    }

    /// DCTCP's state, if this is DCTCP.
    pub fn dctcp(&self) -> Option<&Dctcp> {
        match self {
            Controller::Dctcp(d) => Some(d),
            _ => None,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The cuts of a window of 20: RFC 3168 to 10, MECN to 16 (incipient, β1 = 0.2) or
    /// 12 (moderate, β2 = 0.4), DCTCP at α = 1 to 10; not ECN-capable, none.
    #[test]
    fn each_response_cuts_as_its_rule_says() {
        assert_eq!(Controller::new(EcnResponse::Off).cut(20.0, 1), None);
        assert_eq!(Controller::new(EcnResponse::Ecn).cut(20.0, 1), Some(10.0));
        let mecn = Controller::new(EcnResponse::Mecn { beta1: 0.2, beta2: 0.4 });
        assert_eq!(mecn.cut(20.0, 1), Some(16.0));
        assert_eq!(mecn.cut(20.0, 2), Some(12.0));
        let dctcp = Controller::new(EcnResponse::Dctcp(Default::default()));
        assert_eq!(dctcp.cut(20.0, 1), Some(10.0));
        assert!(!Controller::NotEcn.answers_marks() && dctcp.answers_marks());
    }
}
