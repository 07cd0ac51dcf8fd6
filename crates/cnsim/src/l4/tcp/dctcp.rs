//! DCTCP's sender: the fraction of marked data, α, estimated once per window, and the
//! window cut in proportion to it (Alizadeh et al., "Data Center TCP", SIGCOMM 2010, §3.1;
//! RFC 8257 §3.3).
//!
//! - **Counting.** Every ACK adds the segments it newly acknowledges to `acked`, and to
//!   `marked` too when it echoes CE (the receiver echoes each segment's own CE, see
//!   [`super::receiver`]).
//! - **α, once per window of data.** When an ACK acknowledges beyond `window_end` (the
//!   next segment to send when the last estimate was taken: ns-2's
//!   `dctcp_alpha_update_seq = t_seqno_`, RFC 8257's `SND.UNA > Window_End`), then
//!   F = marked / acked, α ← (1 − g)·α + g·F, the counters reset and `window_end` moves
//!   to the next segment to send. An ACK is counted before the estimate it completes.
//! - **The cut.** An ACK echoing CE cuts cwnd ← cwnd·(1 − α/2), at most once per window
//!   of data (the sender's ECN rule, [`super::sender`]), with the α of that ACK.
//!
//! g = 1/16 is the paper's (§3.4: g < 1.386/√(2(C·RTT + K))). α starts at 1 (RFC 8257
//! §3.3 and Linux's `dctcp_alpha_on_init`: the first marks cut by half, as TCP would);
//! ns-2's patch starts it at 0, which `alpha_init` gives.

use serde::{Deserialize, Serialize};

/// DCTCP's parameters (`tcp.dctcp`).
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct DctcpParams {
    /// Weight g of a new sample in α (the paper's 1/16).
    pub(crate) g: f64,
    /// α before the first estimate (RFC 8257: 1).
    pub(crate) alpha_init: f64,
}

impl Default for DctcpParams {
    fn default() -> Self {
        DctcpParams { g: 1.0 / 16.0, alpha_init: 1.0 }
    }
}

impl DctcpParams {
    /// Checks the values; errors name the key under `prefix`.
    pub fn check(&self, prefix: &str) -> Result<(), (String, String)> {
        if !(self.g > 0.0 && self.g <= 1.0) {
            return Err((
                format!("{prefix}.g"),
                format!(
                    "{} is not a weight; expected a fraction in (0, 1], e.g. 0.0625 (1/16, the paper's)",
                    self.g
                ),
            ));
        }
        if !(0.0..=1.0).contains(&self.alpha_init) {
            return Err((
                format!("{prefix}.alpha_init"),
                format!("{} is not a fraction; expected 0 to 1, e.g. 1 (RFC 8257)", self.alpha_init),
            ));
        }
        Ok(())
    }
}

/// The sender's DCTCP state.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Dctcp {
    g: f64,
    /// The estimate of the fraction of marked data.
    pub(crate) alpha: f64,
    /// Segments acknowledged in this window.
    acked: u64,
    /// Of which acknowledged by ACKs echoing CE.
    marked: u64,
    /// The estimate is taken at the first ACK beyond this segment.
    window_end: i64,
    /// Estimates taken.
    pub(crate) updates: u64,
}

impl Dctcp {
    /// The state before any ACK.
    pub fn new(p: DctcpParams) -> Self {
        Dctcp { g: p.g, alpha: p.alpha_init, acked: 0, marked: 0, window_end: 0, updates: 0 }
    }

    /// An ACK for segments up to `ack` newly acknowledged `acked` segments, echoing CE
    /// if `ce`; `next_seq` is the next segment the sender will send. Returns whether it
    /// completed a window (α was updated).
    pub fn on_ack(&mut self, ack: i64, acked: u64, ce: bool, next_seq: i64) -> bool {
        self.acked += acked;
        if ce {
            self.marked += acked;
        }
        if ack <= self.window_end {
            return false;
        }
        let f = if self.acked > 0 { self.marked as f64 / self.acked as f64 } else { 0.0 };
        self.alpha = (1.0 - self.g) * self.alpha + self.g * f;
        self.acked = 0;
        self.marked = 0;
        self.window_end = next_seq;
        self.updates += 1;
        true
    }

    /// The window after a cut of `cwnd`: cwnd·(1 − α/2).
    pub fn cut(&self, cwnd: f64) -> f64 {
        cwnd * (1.0 - self.alpha / 2.0)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn state(alpha_init: f64) -> Dctcp {
        Dctcp::new(DctcpParams { g: 1.0 / 16.0, alpha_init })
    }

    /// A window of 10 segments, 4 acknowledged by echoing ACKs: F = 0.4 and, from α = 1,
    /// α = 15/16 + 0.4/16 = 0.9625; the next window (all marked) gives
    /// 0.9625·15/16 + 1/16 = 0.96484375.
    #[test]
    fn alpha_is_a_moving_average_of_the_marked_fraction_per_window() {
        let mut d = state(1.0);
        // The first ACK passes window_end 0: an estimate over that one ACK alone.
        assert!(d.on_ack(1, 1, false, 11));
        assert_eq!(d.alpha, 15.0 / 16.0);
        let mut d = state(1.0);
        d.window_end = 10;
        for (ack, ce) in (1..=10).zip([false, true, false, true, false, true, false, true, false, false]) {
            assert!(!d.on_ack(ack, 1, ce, 20), "no estimate within the window (ack {ack})");
        }
        assert!(d.on_ack(11, 1, false, 21), "the ACK beyond window_end completes it");
        assert!((d.alpha - (15.0 / 16.0 + (4.0 / 11.0) / 16.0)).abs() < 1e-15, "{}", d.alpha);
        let mut d = state(1.0);
        d.window_end = 9;
        for ack in 1..=6 {
            d.on_ack(ack, 1, false, 20);
        }
        for ack in 7..=10 {
            d.on_ack(ack, 1, true, 20);
        }
        assert!((d.alpha - 0.9625).abs() < 1e-15, "{}", d.alpha);
        for ack in 11..=20 {
            d.on_ack(ack, 1, true, 30);
        }
        assert!(d.on_ack(21, 1, true, 31));
        assert!((d.alpha - (0.9625 * 15.0 / 16.0 + 1.0 / 16.0)).abs() < 1e-15, "{}", d.alpha);
    }

    /// With no marks α decays by (1 − g) per window: 1 → (15/16)^k; and a cumulative
    /// ACK counts every segment it covers.
    #[test]
    fn alpha_decays_without_marks_and_counts_cumulative_acks() {
        let mut d = state(1.0);
        let mut next = 0;
        for k in 1..=5 {
            next += 10;
            assert!(d.on_ack(next, 10, false, next));
            assert!((d.alpha - (15f64 / 16.0).powi(k)).abs() < 1e-15);
        }
        let mut d = state(0.0);
        d.window_end = 5;
        assert!(d.on_ack(8, 8, true, 16), "one ACK for 8 segments, marked");
        assert_eq!(d.alpha, 1.0 / 16.0);
    }

    /// The cut: cwnd·(1 − α/2): half at α = 1, none at α = 0, 3/4 at α = ½.
    #[test]
    fn the_cut_is_proportional_to_alpha() {
        let mut d = state(1.0);
        assert_eq!(d.cut(40.0), 20.0);
        d.alpha = 0.0;
        assert_eq!(d.cut(40.0), 40.0);
        d.alpha = 0.5;
        assert_eq!(d.cut(40.0), 30.0);
    }

    #[test]
    fn bad_parameters_are_refused_at_their_key() {
        let p = DctcpParams::default();
        assert_eq!(p.check("tcp.dctcp"), Ok(()));
        let (k, m) = DctcpParams { g: 0.0, ..p }.check("tcp.dctcp").unwrap_err();
        assert_eq!(k, "tcp.dctcp.g");
        assert!(m.starts_with("0 is not a weight"), "{m}");
        let (k, _) = DctcpParams { alpha_init: 1.5, ..p }.check("tcp.dctcp").unwrap_err();
        assert_eq!(k, "tcp.dctcp.alpha_init");
        assert!(DctcpParams { g: f64::NAN, ..p }.check("x").is_err());
    }
}
