//! DCQCN's reaction point: the rate limiter of one flow at the sending NIC (Zhu et al.
//! 2015, §3.3; the reference's §3).
//!
//! - **On a CNP**: R_T ← R_C (as `target_on_cut` says), R_C ← max(minRate,
//!   R_C·(1 − α/2)), then α ← (1 − g)·α + g; the byte counter, the timer and their
//!   stages restart, and so does the α timer.
//! - **α timer**: every K without a CNP, α ← (1 − g)·α. Taken lazily: a CNP at `t`
//!   first applies the ⌊(t − t₀)/K⌋ decays due since the last CNP at t₀ (a decay due at
//!   exactly `t` comes first), so the timer costs no event. Before the first CNP α keeps
//!   `alpha_init`.
//! - **Increase**: QCN's machine unchanged ([`crate::l2::qcn::rp`]): the timer T and the
//!   byte counter B each end cycles; fewer than F of both is fast recovery
//!   (R_C ← (R_T + R_C)/2), more than F of one is additive increase (R_T += R_AI), of
//!   both hyper increase (R_T += i·R_HAI).
//!
//! The HPCC ns-3 fork's "Mellanox" DCQCN differs: its first CNP sets α = 1 and cuts to
//! `RateOnFirstCnp`·R_C (1.0: no cut) instead of cutting by α/2 (`rate_on_first_cnp`),
//! it sets R_T only after an increase (`target_on_cut = "after-increase"`), it updates α
//! on a fixed 55 µs clock and batches CNPs into one cut per 4 µs (not modelled: the
//! notification point here already sends at most one CNP per flow per N).

use std::sync::Arc;

use serde::{Deserialize, Serialize};

use crate::engine::{RngStream, Time};
use crate::l2::qcn::{self, TargetRule};
use crate::protocol::RateChange;
use crate::units::{Duration, Rate, Size};

/// The reaction point's parameters (`protocols.dcqcn.rp`); defaults are the paper's
/// 40 Gbit/s values as the reference (§3) gives them.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct RpParams {
    /// Weight g of each α update (1/256).
    pub g: f64,
    /// α before the first CNP (1: the first CNP halves the rate).
    pub alpha_init: f64,
    /// K: α decays once per this long without a CNP (55 µs).
    pub alpha_timer: Duration,
    /// T: the rate-increase timer (55 µs).
    pub timer: Duration,
    /// B: the rate-increase byte counter (10 MB).
    pub byte_counter: Size,
    /// F: fast-recovery cycles before additive increase (5).
    pub fast_recovery: u32,
    /// R_AI: the additive-increase step (40 Mbit/s).
    pub r_ai: Rate,
    /// R_HAI: the hyper-increase step (400 Mbit/s).
    pub r_hai: Rate,
    /// The rate floor (100 Mbit/s, the fork's `MinRate`).
    pub min_rate: Rate,
    /// When a cut sets R_T to R_C: "always" (the paper), "after-increase" (the fork).
    pub target_on_cut: TargetRule,
    /// The fork's first CNP: R_C = R_T = this fraction of R_C and α = 1, no cut by α;
    /// absent: the first CNP cuts as every other (the paper).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub rate_on_first_cnp: Option<f64>,
}

impl Default for RpParams {
    fn default() -> Self {
        RpParams {
            g: 1.0 / 256.0,
            alpha_init: 1.0,
            alpha_timer: Duration(55 * crate::engine::PS_PER_US),
            timer: Duration(55 * crate::engine::PS_PER_US),
            byte_counter: Size::Bytes(10_000_000),
            fast_recovery: 5,
            r_ai: Rate(40_000_000),
            r_hai: Rate(400_000_000),
            min_rate: Rate(100_000_000),
            target_on_cut: TargetRule::Always,
            rate_on_first_cnp: None,
        }
    }
}

impl RpParams {
    /// QCN's increase machine with DCQCN's periods and steps: no jitter, no halving of
    /// the periods after fast recovery, the TR/8 guard kept (reference §3).
    pub fn increase(&self) -> qcn::RpParams {
        qcn::RpParams {
            min_rate: self.min_rate,
            byte_counter: self.byte_counter,
            timer: self.timer,
            fast_recovery_threshold: self.fast_recovery,
            r_ai: self.r_ai,
            r_hai: self.r_hai,
            halve_after_fast_recovery: false,
            jitter: [1.0, 1.0],
            ..qcn::RpParams::default()
        }
    }
}

/// The reaction point of one flow.
#[derive(Clone, Debug)]
pub struct Rp {
    /// The rate machine (R_C, R_T, the byte counter and the timer).
    pub rate: qcn::Rp,
    g: f64,
    alpha_timer: Time,
    target: TargetRule,
    rate_on_first_cnp: Option<f64>,
    /// α as of `alpha_at`.
    alpha: f64,
    /// When α was last updated by a CNP (None before the first).
    alpha_at: Option<Time>,
    /// CNPs received.
    pub cnps: u64,
    /// CNPs since the recorder's last sample.
    pub cnps_since_sample: u64,
}

impl Rp {
    /// The reaction point of a flow whose NIC runs at `line_bps`.
    pub fn new(p: &RpParams, increase: Arc<qcn::RpParams>, line_bps: u64, rng: RngStream) -> Self {
        Rp {
            rate: qcn::Rp::new(increase, qcn::MulticastScheme::Standard, line_bps, rng),
            g: p.g,
            alpha_timer: p.alpha_timer.0,
            target: p.target_on_cut,
            rate_on_first_cnp: p.rate_on_first_cnp,
            alpha: p.alpha_init,
            alpha_at: None,
            cnps: 0,
            cnps_since_sample: 0,
        }
    }

    /// α at `now`, with the decays due since the last CNP.
    pub fn alpha(&self, now: Time) -> f64 {
        match self.alpha_at {
            None => self.alpha,
            Some(at) => {
                let periods = (now.saturating_sub(at) / self.alpha_timer).min(i32::MAX as u64) as i32;
                self.alpha * (1.0 - self.g).powi(periods)
            }
        }
    }

    /// A CNP arrived at `now`.
    pub fn on_cnp(&mut self, now: Time, line_bps: u64) -> RateChange {
        self.cnps += 1;
        self.cnps_since_sample += 1;
        let first = self.alpha_at.is_none();
        let alpha = self.alpha(now);
        let action = match (first, self.rate_on_first_cnp) {
            (true, Some(fraction)) => {
                self.alpha = 1.0;
                let action = self.rate.cut(fraction, TargetRule::Always, line_bps);
                self.rate.tr = self.rate.cr;
                action
            }
            _ => {
                let action = self.rate.cut(1.0 - alpha / 2.0, self.target, line_bps);
                self.alpha = (1.0 - self.g) * alpha + self.g;
                action
            }
        };
        self.alpha_at = Some(now);
        action
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::{StreamKey, PS_PER_US};

    const G40: u64 = 40_000_000_000;

    fn rp(p: RpParams) -> Rp {
        let increase = Arc::new(p.increase());
        Rp::new(&p, increase, G40, RngStream::new(1, StreamKey { kind: "rp", name: "t" }))
    }

    /// The first CNP with α = 1 halves R_C (40 → 20 Gbit/s), R_T keeps 40, then
    /// α = 255/256 + 1/256 = 1; a second CNP 10 µs later (no decay due) cuts by α/2 = ½
    /// again with R_T ← 20.
    #[test]
    fn the_first_cnp_halves_the_rate() {
        let mut r = rp(RpParams::default());
        let a = r.on_cnp(0, G40);
        assert_eq!(a.rate_bps, Some(20_000_000_000));
        assert_eq!(a.arm_timer.map(|t| t.0), Some(55 * PS_PER_US), "the increase timer restarts");
        assert_eq!(r.rate.tr, 40e9, "R_T ← R_C before the cut");
        assert_eq!(r.alpha(0), 1.0);
        r.on_cnp(10 * PS_PER_US, G40);
        assert_eq!((r.rate.cr, r.rate.tr), (10e9, 20e9));
    }

    /// Without CNPs α decays by (1 − g) per K: after 3 periods (165 µs) from α = 1,
    /// α = (255/256)³; a CNP at 170 µs cuts by that α/2, then α ← (1 − g)·α + g.
    #[test]
    fn alpha_decays_by_periods_of_k() {
        let mut r = rp(RpParams::default());
        r.on_cnp(0, G40);
        let g = 1.0 / 256.0;
        assert_eq!(r.alpha(54 * PS_PER_US), 1.0, "no period complete");
        assert_eq!(r.alpha(55 * PS_PER_US), 1.0 - g, "the decay due at K counts");
        let a3 = (1.0 - g) * (1.0 - g) * (1.0 - g);
        assert!((r.alpha(170 * PS_PER_US) - a3).abs() < 1e-15);
        let cr = r.rate.cr;
        r.on_cnp(170 * PS_PER_US, G40);
        assert!((r.rate.cr - cr * (1.0 - a3 / 2.0)).abs() < 1.0, "{}", r.rate.cr);
        assert!((r.alpha(170 * PS_PER_US) - ((1.0 - g) * a3 + g)).abs() < 1e-15);
    }

    /// The increase after a cut to 20 Gbit/s from 40: five timer expiries of fast
    /// recovery halve the gap to R_T each (30, 35, 37.5, 38.75, 39.375 Gbit/s); the
    /// sixth (timer stage 6 > F) adds R_AI = 40 Mbit/s to R_T = 40, and R_C becomes
    /// (39.375 + 40.04)/2 = 39.7075.
    #[test]
    fn fast_recovery_then_additive_increase_by_timer() {
        let mut r = rp(RpParams { target_on_cut: TargetRule::Always, ..RpParams::default() });
        let a = r.on_cnp(0, G40);
        let (_, mut epoch) = a.arm_timer.unwrap();
        let mut rates = Vec::new();
        for _ in 0..6 {
            let a = r.rate.on_timer(epoch, G40);
            if let Some((_, e)) = a.arm_timer {
                epoch = e;
            }
            rates.push(r.rate.cr / 1e9);
        }
        assert_eq!(rates[..5], [30.0, 35.0, 37.5, 38.75, 39.375]);
        assert_eq!(r.rate.phase(), qcn::rp::Phase::ActiveIncrease);
        assert!((rates[5] - 39.7075).abs() < 1e-9, "{rates:?}");
    }

    /// The fork's first CNP: R_C = R_T = fraction·R_C, α = 1; the second cuts by ½ and,
    /// with no increase since, leaves R_T ("after-increase").
    #[test]
    fn the_forks_first_cnp() {
        let mut r = rp(RpParams {
            rate_on_first_cnp: Some(1.0),
            target_on_cut: TargetRule::AfterIncrease,
            alpha_init: 0.0,
            ..RpParams::default()
        });
        r.on_cnp(0, G40);
        assert_eq!((r.rate.cr, r.rate.tr, r.alpha(0)), (40e9, 40e9, 1.0));
        r.on_cnp(PS_PER_US, G40);
        assert_eq!((r.rate.cr, r.rate.tr), (20e9, 40e9));
    }
}
