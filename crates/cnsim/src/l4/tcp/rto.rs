//! The retransmission timeout (reference l3-tcp.md §5.7): Jacobson/Karels smoothing with
//! a minimum, a maximum, exponential backoff and, optionally, ns-2's clock tick.
//!
//! Two arithmetics, chosen by `tick`:
//! - **exact** (`tick = 0`): RFC 6298 in picoseconds: the first sample R gives SRTT = R,
//!   RTTVAR = R/2; later ones RTTVAR ← ¾·RTTVAR + ¼·|SRTT − R|, SRTT ← ⅞·SRTT + ⅛·R;
//!   RTO = SRTT + 4·RTTVAR;
//! - **ns-2** (`tick > 0`): samples in whole ticks, t = max(1, ⌊(τ + phase)/tick⌋), with
//!   phase = (send time + boot time) mod tick; fixed point srtt8 = 8·srtt and rttvar4 =
//!   4·rttvar; the first sample sets srtt8 = 8t, rttvar4 = 2t; later ones δ = t − ⌊srtt8/8⌋,
//!   srtt8 += δ (≥ 1), rttvar4 += |δ| − ⌊rttvar4/4⌋ (≥ 1); rtxcur = ⌊srtt8/8 + rttvar4⌋
//!   ticks. With ns-2's 10 ms tick and a 100 µs RTT every sample is one tick and rtxcur
//!   settles at 3 ticks = 30 ms, whatever the minimum: the reason the seed's 1 ms and
//!   10 ms minimum RTOs need a finer tick.
//!
//! Both then apply, as ns-2 does (`rfc2988_`): RTO = max(rtxcur, min_rto)·backoff, at
//! most max_rto, at least 2 ticks; 3 s before the first sample. Backoff doubles at each
//! expiry (up to 64) and returns to 1 on a new sample; past 8, each further backoff
//! moves srtt/4 into rttvar and clears srtt, so the next sample restarts the estimator.

use crate::engine::time::round_u64;
use crate::engine::Time;

/// RTO parameters.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct RtoParams {
    /// Clock granularity; 0 = exact arithmetic.
    pub(crate) tick: Time,
    /// Lowest RTO (ns-2 `minrto_`: 200 ms).
    pub(crate) min_rto: Time,
    /// Highest RTO (60 s).
    pub(crate) max_rto: Time,
    /// RTO before the first sample (ns-2 `rtxcur_init_`: 3 s).
    pub(crate) initial_rto: Time,
}

/// The estimator of one connection.
#[derive(Clone, Debug)]
pub struct Rto {
    p: RtoParams,
    /// Ticks' phase: (send time + boot) mod tick.
    boot: Time,
    /// Exact: SRTT and RTTVAR in ps. ns-2: srtt8 and rttvar4 in ticks.
    srtt: f64,
    rttvar: f64,
    sampled: bool,
    /// The backoff multiplier (1, 2, 4, … 64).
    pub(crate) backoff: u32,
}

impl Rto {
    /// An estimator; `boot` is the agent's boot time within a tick (ns-2 draws it
    /// uniformly in [0, tick)).
    pub fn new(p: RtoParams, boot: Time) -> Self {
        Rto { p, boot, srtt: 0.0, rttvar: 0.0, sampled: false, backoff: 1 }
    }

    /// An RTT sample for a segment sent at `sent` and acknowledged at `now`; resets the
    /// backoff.
    pub fn sample(&mut self, sent: Time, now: Time) {
        let tau = now.saturating_sub(sent);
        if self.p.tick == 0 {
            let r = tau as f64;
            if self.sampled && self.srtt > 0.0 {
                self.rttvar = 0.75 * self.rttvar + 0.25 * (self.srtt - r).abs();
                self.srtt = 0.875 * self.srtt + 0.125 * r;
            } else {
                self.srtt = r;
                self.rttvar = r / 2.0;
            }
        } else {
            let tick = self.p.tick;
            let phase = (sent + self.boot) % tick;
            let t = ((tau + phase) / tick).max(1) as f64;
            if self.sampled && self.srtt > 0.0 {
                let delta = t - (self.srtt / 8.0).floor();
                self.srtt = (self.srtt + delta).max(1.0);
                self.rttvar = (self.rttvar + delta.abs() - (self.rttvar / 4.0).floor()).max(1.0);
            } else {
                self.srtt = 8.0 * t;
                self.rttvar = 2.0 * t;
            }
        }
        self.sampled = true;
        self.backoff = 1;
    }

    /// srtt + 4·rttvar before the minimum and the backoff (ns-2's rtxcur), ps; the
    /// initial RTO before any sample.
    pub fn rtxcur(&self) -> Time {
        if !self.sampled {
            return self.p.initial_rto;
        }
        if self.p.tick == 0 {
            round_u64(self.srtt + 4.0 * self.rttvar)
        } else {
            let ticks = ((self.srtt + 8.0 * self.rttvar) / 8.0).floor() as Time;
            ticks * self.p.tick
        }
    }

    /// The timeout to arm now.
    pub fn timeout(&self) -> Time {
        let base = self.rtxcur().max(self.p.min_rto);
        let rto = base.saturating_mul(u64::from(self.backoff)).min(self.p.max_rto);
        rto.max(2 * self.p.tick).max(1)
    }

    /// The timer expired with data outstanding: double the backoff (up to 64, or beyond
    /// while the RTO is below its maximum); past 8, srtt/4 moves into rttvar.
    pub fn back_off(&mut self) {
        if self.backoff < 64 || self.timeout() < self.p.max_rto {
            self.backoff = self.backoff.saturating_mul(2);
        }
        if self.backoff > 8 && self.sampled {
            if self.p.tick == 0 {
                self.rttvar += self.srtt / 4.0;
            } else {
                self.rttvar += (self.srtt / 8.0).floor();
            }
            self.srtt = 0.0;
        }
    }

    /// Whether a sample has been taken.
    pub fn sampled(&self) -> bool {
        self.sampled
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::{PS_PER_MS, PS_PER_S, PS_PER_US};

    fn params(tick: Time, min_rto: Time) -> RtoParams {
        RtoParams { tick, min_rto, max_rto: 60 * PS_PER_S, initial_rto: 3 * PS_PER_S }
    }

    /// Reference §5.11: tick 10 ms, RTT 100 µs: rtxcur = 30 ms after any number of
    /// samples; min RTO 200 ms gives 200, then 400 and 800 ms after timeouts; min RTO 1 ms
    /// gives 30 ms, then 60.
    #[test]
    fn ns2_ten_millisecond_tick() {
        for min_rto in [200 * PS_PER_MS, PS_PER_MS] {
            let mut r = Rto::new(params(10 * PS_PER_MS, min_rto), 0);
            assert_eq!(r.timeout(), 3 * PS_PER_S, "before the first sample");
            for k in 0..20 {
                let t = k * 5 * PS_PER_MS;
                r.sample(t, t + 100 * PS_PER_US);
                assert_eq!(r.rtxcur(), 30 * PS_PER_MS);
            }
            let first = if min_rto == PS_PER_MS { 30 } else { 200 };
            assert_eq!(r.timeout(), first * PS_PER_MS);
            r.back_off();
            assert_eq!(r.timeout(), 2 * first * PS_PER_MS);
            r.back_off();
            assert_eq!(r.timeout(), 4 * first * PS_PER_MS);
        }
    }

    /// Reference §5.11: tick 1 µs, RTT 100 µs: the first sample gives rtxcur = 300 µs;
    /// with a constant RTT rttvar4 shrinks 200 → 150 → 113 → 85 → … → 3, so rtxcur →
    /// 103 µs; with min RTO 1 ms the RTO stays 1 ms.
    #[test]
    fn ns2_one_microsecond_tick() {
        let mut r = Rto::new(params(PS_PER_US, 0), 0);
        r.sample(0, 100 * PS_PER_US);
        assert_eq!(r.rtxcur(), 300 * PS_PER_US);
        let mut seen = vec![r.rttvar];
        for k in 1..40 {
            let t = k * PS_PER_MS;
            r.sample(t, t + 100 * PS_PER_US);
            seen.push(r.rttvar);
        }
        assert_eq!(&seen[..4], &[200.0, 150.0, 113.0, 85.0]);
        assert_eq!(r.rttvar, 3.0);
        assert_eq!(r.rtxcur(), 103 * PS_PER_US);
        let floored = Rto { p: params(PS_PER_US, PS_PER_MS), ..r.clone() };
        assert_eq!(floored.timeout(), PS_PER_MS);
    }

    /// Exact arithmetic (RFC 6298): R = 100 µs gives 300 µs; a second R = 200 µs gives
    /// RTTVAR = ¾·50 + ¼·100 = 62.5, SRTT = 112.5, RTO = 362.5 µs.
    #[test]
    fn exact_rfc6298() {
        let mut r = Rto::new(params(0, 0), 0);
        r.sample(0, 100 * PS_PER_US);
        assert_eq!(r.timeout(), 300 * PS_PER_US);
        r.sample(PS_PER_MS, PS_PER_MS + 200 * PS_PER_US);
        assert_eq!(r.timeout(), 362_500_000);
    }

    /// Backoff doubles while the RTO is below its maximum (past 64 too, `rfc2988_`) and a
    /// sample resets it; past 8 the estimator is cleared for the next sample to restart it.
    #[test]
    fn backoff_and_reset() {
        let mut r = Rto::new(params(0, 200 * PS_PER_MS), 0);
        r.sample(0, 100 * PS_PER_US);
        for _ in 0..6 {
            r.back_off();
        }
        assert_eq!((r.backoff, r.timeout()), (64, 64 * 200 * PS_PER_MS), "12.8 s");
        for _ in 0..4 {
            r.back_off();
        }
        // 128, 256, 512 (102.4 s, capped at 60 s), then no further doubling.
        assert_eq!((r.backoff, r.timeout()), (512, 60 * PS_PER_S));
        assert_eq!(r.srtt, 0.0, "cleared past a backoff of 8");
        r.sample(PS_PER_S, PS_PER_S + 100 * PS_PER_US);
        assert_eq!((r.backoff, r.timeout()), (1, 200 * PS_PER_MS));
        assert_eq!(r.srtt, 100.0 * PS_PER_US as f64, "restarted from the new sample");
    }
}
