//! DCQCN's reaction point: the rate limiter of one flow at the sending NIC (Zhu et al.
//! 2015, §3.3; the reference's §3). Two readings, by `clocks`:
//!
//! **The paper** (`clocks = "paper"`, Fig. 7):
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
//! **The HPCC ns-3 fork's "Mellanox" DCQCN** (`clocks = "fork"`; `rdma-hw.cc`,
//! `cnp_received_mlx`, `UpdateAlphaMlx`, `CheckRateDecreaseMlx`, `RateIncEventTimerMlx`):
//! - **On a CNP** nothing changes at once: it sets a flag for the α clock and one for the
//!   decrease clock. The first CNP also sets α = 1 (without raising its flag), R_C = R_T
//!   = `rate_on_first_cnp`·R_C (1 when absent), and starts both clocks.
//! - **α clock**: every `alpha_timer` from the first CNP, α ← (1 − g)·α + g if a CNP came
//!   in the period, else α ← (1 − g)·α. Taken lazily, like the paper's α timer; a tick at
//!   exactly a CNP's time comes first.
//! - **Decrease clock**: every `rate_decrease_interval` (4 µs) from the first CNP plus
//!   1 ns (so that it never meets an α tick), if a CNP came since the last tick: R_T ← R_C
//!   (as `target_on_cut` says), R_C ← max(minRate, R_C·(1 − α/2)), the increase stage
//!   restarts and so does the increase timer. Many CNPs in one interval are one cut. The
//!   clock is armed only while a CNP waits: ticks with nothing to do cost no event.
//! - **Increase**: the timer T alone (the fork has no byte counter), from the first cut:
//!   at stage s < F, R_C ← (R_T + R_C)/2; at s = F, R_T += R_AI first; at s > F,
//!   R_T += R_HAI (one step, not i steps) first; R_T at most the line rate; s counts the
//!   expiries since the last cut. The timer stops once R_C and R_T are the line rate (the
//!   fork's further expiries change nothing).
//!
//! A unit here is one CNP-driven machine per flow; the notification point
//! ([`super::np`]) sends at most one CNP per flow per N either way.

use std::sync::Arc;

use serde::{Deserialize, Serialize};

use crate::engine::{RngStream, Time, PS_PER_US};
use crate::l2::qcn::{self, TargetRule};
use crate::protocol::RateChange;
use crate::units::{Duration, Rate, Size};

/// The reaction point's parameters (`protocols.dcqcn.rp`); defaults are the paper's
/// 40 Gbit/s values as the reference (§3) gives them.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct RpParams {
    /// Weight g of each α update (1/256).
    pub(crate) g: f64,
    /// α before the first CNP (1: the first CNP halves the rate).
    pub(crate) alpha_init: f64,
    /// K: α decays once per this long without a CNP (55 µs).
    pub(crate) alpha_timer: Duration,
    /// T: the rate-increase timer (55 µs).
    pub(crate) timer: Duration,
    /// B: the rate-increase byte counter (10 MB).
    pub(crate) byte_counter: Size,
    /// F: fast-recovery cycles before additive increase (5).
    pub(crate) fast_recovery: u32,
    /// R_AI: the additive-increase step (40 Mbit/s).
    pub(crate) r_ai: Rate,
    /// R_HAI: the hyper-increase step (400 Mbit/s).
    pub(crate) r_hai: Rate,
    /// The rate floor (100 Mbit/s, the fork's `MinRate`).
    pub(crate) min_rate: Rate,
    /// When a cut sets R_T to R_C: "always" (the paper), "after-increase" (the fork).
    pub(crate) target_on_cut: TargetRule,
    /// The fork's first CNP: R_C = R_T = this fraction of R_C and α = 1, before the cut
    /// that CNP causes; absent: the first CNP cuts as every other (the paper).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(crate) rate_on_first_cnp: Option<f64>,
    /// How decreases and α updates are timed: "paper" (each CNP at once) or "fork" (the
    /// HPCC fork's clocks; see the module documentation).
    pub(crate) clocks: Clocks,
    /// The fork's decrease clock period (4 µs, its `RateDecreaseInterval`); only with
    /// `clocks = "fork"`.
    pub(crate) rate_decrease_interval: Duration,
}

/// How a DCQCN reaction point times its decreases and α updates.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Clocks {
    /// The paper's Fig. 7: each CNP cuts at once; α decays per K without a CNP; QCN's
    /// increase by timer and byte counter.
    #[default]
    Paper,
    /// The HPCC ns-3 fork's Mellanox model: CNPs batched into one cut per decrease-clock
    /// tick, α on a fixed clock, increase by timer alone.
    Fork,
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
            clocks: Clocks::Paper,
            rate_decrease_interval: Duration(4 * PS_PER_US),
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
    pub(crate) rate: qcn::Rp,
    g: f64,
    alpha_timer: Time,
    target: TargetRule,
    rate_on_first_cnp: Option<f64>,
    /// α as of `alpha_at`.
    alpha: f64,
    /// When α was last updated by a CNP (None before the first).
    alpha_at: Option<Time>,
    /// CNPs received.
    pub(crate) cnps: u64,
    /// CNPs since the recorder's last sample.
    pub(crate) cnps_since_sample: u64,
    /// The fork's clocks, with `clocks = "fork"`.
    fork: Option<Box<ForkClocks>>,
}

/// The state of the fork's clocks ([`Clocks::Fork`]).
#[derive(Clone, Debug)]
struct ForkClocks {
    /// The decrease clock's period.
    decrease_interval: Time,
    /// T, the increase timer's period.
    increase_timer: Time,
    /// F.
    fast_recovery: u32,
    /// R_AI, R_HAI and the rate floor, bit/s.
    r_ai: f64,
    r_hai: f64,
    min_rate: f64,
    /// Increase-timer expiries since the last cut.
    stage: u32,
    /// A CNP came since the last α tick.
    alpha_pending: bool,
    /// α ticks applied (α is as of the last of them).
    alpha_ticks: u64,
    /// A CNP came since the last decrease tick.
    decrease_pending: bool,
    /// The epoch of the increase timer (a cut restarts it).
    epoch: u32,
    /// Whether the increase timer runs.
    increasing: bool,
}

/// Timer 1 of a reaction point with the fork's clocks: the decrease clock (timer 0 is
/// the increase timer).
pub const DECREASE_CLOCK: u8 = 1;

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
            fork: (p.clocks == Clocks::Fork).then(|| {
                Box::new(ForkClocks {
                    decrease_interval: p.rate_decrease_interval.0,
                    increase_timer: p.timer.0,
                    fast_recovery: p.fast_recovery,
                    r_ai: p.r_ai.0 as f64,
                    r_hai: p.r_hai.0 as f64,
                    min_rate: p.min_rate.0 as f64,
                    stage: 0,
                    alpha_pending: false,
                    alpha_ticks: 0,
                    decrease_pending: false,
                    epoch: 0,
                    increasing: false,
                })
            }),
        }
    }

    /// Whether the reaction point runs the fork's clocks.
    pub fn forked(&self) -> bool {
        self.fork.is_some()
    }

    /// Its timers: the increase timer, and with the fork's clocks the decrease clock.
    pub fn timers(&self) -> u8 {
        if self.forked() {
            2
        } else {
            1
        }
    }

    /// α at `now`, with the decays due since the last CNP (with the fork's clocks, the
    /// ticks due by `now`).
    pub fn alpha(&self, now: Time) -> f64 {
        if let (Some(fork), Some(first)) = (&self.fork, self.alpha_at) {
            let mut state = (self.alpha, fork.alpha_ticks, fork.alpha_pending);
            self.alpha_ticks_to(&mut state, first, now);
            return state.0;
        }
        match self.alpha_at {
            None => self.alpha,
            Some(at) => {
                let periods = (now.saturating_sub(at) / self.alpha_timer).min(i32::MAX as u64) as i32;
                self.alpha * (1.0 - self.g).powi(periods)
            }
        }
    }

    /// A CNP arrived at `now`. The paper's machine answers with the cut; the fork's
    /// with no change, and the time the decrease clock must fire if it is not armed.
    pub fn on_cnp(&mut self, now: Time, line_bps: u64) -> (RateChange, Option<Time>) {
        self.cnps += 1;
        self.cnps_since_sample += 1;
        if self.fork.is_some() {
            return (RateChange::default(), self.fork_cnp(now, line_bps));
        }
        let alpha = match (self.alpha_at, self.rate_on_first_cnp) {
            (None, Some(fraction)) => {
                self.first_cut(fraction, line_bps);
                1.0
            }
            _ => self.alpha(now),
        };
        let action = self.rate.cut(1.0 - alpha / 2.0, self.target, line_bps);
        self.alpha = (1.0 - self.g) * alpha + self.g;
        self.alpha_at = Some(now);
        (action, None)
    }

    /// The fork's first CNP: α = 1, R_C = R_T = `fraction`·R_C.
    fn first_cut(&mut self, fraction: f64, line_bps: u64) {
        self.alpha = 1.0;
        self.rate.cut(fraction, TargetRule::Always, line_bps);
        self.rate.tr = self.rate.cr;
    }

    /// Applies to `(α, ticks applied, CNP pending)` the α ticks of a clock started at
    /// `first` that are due by `now`.
    fn alpha_ticks_to(&self, state: &mut (f64, u64, bool), first: Time, now: Time) {
        let due = now.saturating_sub(first) / self.alpha_timer;
        if due > state.1 {
            let g = self.g;
            state.0 = (1.0 - g) * state.0 + if state.2 { g } else { 0.0 };
            let decays = (due - state.1 - 1).min(i32::MAX as u64) as i32;
            state.0 *= (1.0 - g).powi(decays);
            state.1 = due;
            state.2 = false;
        }
    }

    /// Brings α up to the ticks due by `now` (fork).
    fn fork_alpha_catch_up(&mut self, now: Time) {
        let (Some(first), Some(fork)) = (self.alpha_at, &self.fork) else { return };
        let mut state = (self.alpha, fork.alpha_ticks, fork.alpha_pending);
        self.alpha_ticks_to(&mut state, first, now);
        let fork = self.fork.as_mut().expect("fork clocks");
        (self.alpha, fork.alpha_ticks, fork.alpha_pending) = state;
    }

    /// A CNP at `now` with the fork's clocks; returns when the decrease clock must fire,
    /// if it was not armed.
    fn fork_cnp(&mut self, now: Time, line_bps: u64) -> Option<Time> {
        let first = match self.alpha_at {
            None => {
                self.alpha_at = Some(now);
                self.first_cut(self.rate_on_first_cnp.unwrap_or(1.0), line_bps);
                true
            }
            Some(_) => {
                self.fork_alpha_catch_up(now);
                false
            }
        };
        let start = self.alpha_at.expect("set above");
        let fork = self.fork.as_mut().expect("fork clocks");
        fork.alpha_pending |= !first;
        if fork.decrease_pending {
            return None;
        }
        fork.decrease_pending = true;
        // The decrease clock ticks at start + 1 ns + j·interval, j ≥ 1; the next after now.
        let phase = start + 1000;
        let j = if now < phase { 1 } else { (now - phase) / fork.decrease_interval + 1 };
        Some(phase + j * fork.decrease_interval)
    }

    /// The decrease clock fired at `now` with a CNP waiting (fork): one cut.
    pub fn fork_decrease(&mut self, now: Time) -> RateChange {
        self.fork_alpha_catch_up(now);
        let alpha = self.alpha;
        let fork = self.fork.as_mut().expect("fork clocks");
        if !fork.decrease_pending {
            return RateChange::default();
        }
        fork.decrease_pending = false;
        let clamp = match self.target {
            TargetRule::Always => true,
            TargetRule::AfterIncrease | TargetRule::AfterByteCycle => fork.stage != 0,
        };
        if clamp {
            self.rate.tr = self.rate.cr;
        }
        self.rate.cr = (self.rate.cr * (1.0 - alpha / 2.0)).max(fork.min_rate);
        fork.stage = 0;
        fork.epoch = fork.epoch.wrapping_add(1);
        fork.increasing = true;
        RateChange {
            rate_bps: Some(self.rate.current_rate()),
            arm_timer: Some((fork.increase_timer, fork.epoch)),
        }
    }

    /// The increase timer expired with `epoch` (fork): one step by the stage.
    pub fn fork_increase(&mut self, epoch: u32, line_bps: u64) -> RateChange {
        let fork = self.fork.as_mut().expect("fork clocks");
        if epoch != fork.epoch || !fork.increasing {
            return RateChange::default();
        }
        let line = line_bps as f64;
        let rate = &mut self.rate;
        if fork.stage == fork.fast_recovery {
            rate.tr = (rate.tr + fork.r_ai).min(line);
        } else if fork.stage > fork.fast_recovery {
            rate.tr = (rate.tr + fork.r_hai).min(line);
        }
        rate.cr = rate.cr / 2.0 + rate.tr / 2.0;
        fork.stage = fork.stage.saturating_add(1);
        let at_line = rate.current_rate() == line_bps && rate.tr == line;
        fork.increasing = !at_line;
        RateChange {
            rate_bps: Some(rate.current_rate()),
            arm_timer: (!at_line).then_some((fork.increase_timer, fork.epoch)),
        }
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
        let (a, _) = r.on_cnp(0, G40);
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
        let (a, _) = r.on_cnp(0, G40);
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

    /// The fork's first CNP with the paper's clocks: R_C = R_T = fraction·R_C (1: 40
    /// Gbit/s), α = 1, then that CNP's cut by α/2 = ½ (20 Gbit/s), R_T kept
    /// ("after-increase": no increase yet); the second cuts by ½ again.
    #[test]
    fn the_forks_first_cnp() {
        let mut r = rp(RpParams {
            rate_on_first_cnp: Some(1.0),
            target_on_cut: TargetRule::AfterIncrease,
            alpha_init: 0.0,
            ..RpParams::default()
        });
        r.on_cnp(0, G40);
        assert_eq!((r.rate.cr, r.rate.tr, r.alpha(0)), (20e9, 40e9, 1.0));
        r.on_cnp(PS_PER_US, G40);
        assert_eq!((r.rate.cr, r.rate.tr), (10e9, 40e9));
    }

    fn fork(p: RpParams) -> Rp {
        rp(RpParams { clocks: Clocks::Fork, target_on_cut: TargetRule::AfterIncrease, ..p })
    }

    /// The fork's clocks: CNPs at 0 and 2 µs change nothing at once and arm the decrease
    /// clock once, for 4 µs + 1 ns; its tick makes one cut by α/2 = ½ (α = 1 after the
    /// first CNP), R_T kept (no increase yet), and starts the increase timer. A CNP at
    /// 5 µs waits for the tick at 8 µs + 1 ns.
    #[test]
    fn fork_batches_cnps_into_one_cut_per_tick() {
        let mut r = fork(RpParams::default());
        assert_eq!(r.timers(), 2);
        assert_eq!(r.on_cnp(0, G40), (RateChange::default(), Some(4 * PS_PER_US + 1000)));
        assert_eq!(r.on_cnp(2 * PS_PER_US, G40), (RateChange::default(), None), "armed already");
        assert_eq!((r.rate.cr, r.rate.tr), (40e9, 40e9));
        let a = r.fork_decrease(4 * PS_PER_US + 1000);
        assert_eq!(a.rate_bps, Some(20_000_000_000));
        assert_eq!(a.arm_timer, Some((55 * PS_PER_US, 1)), "the increase timer starts");
        assert_eq!(r.rate.tr, 40e9);
        assert_eq!(r.cnps, 2);
        assert_eq!(r.on_cnp(5 * PS_PER_US, G40).1, Some(8 * PS_PER_US + 1000));
    }

    /// The fork's α clock, every 55 µs from the first CNP (α = 1, no CNP counted): a CNP
    /// at 10 µs makes the tick at 55 µs α = (1 − g)·1 + g = 1; the tick at 110 µs, with
    /// no CNP, decays to 1 − g; a CNP at 120 µs makes the tick at 165 µs (1 − g)² + g.
    #[test]
    fn fork_alpha_follows_a_fixed_clock() {
        let g = 1.0 / 256.0;
        let mut r = fork(RpParams::default());
        r.on_cnp(0, G40);
        r.on_cnp(10 * PS_PER_US, G40);
        assert_eq!(r.alpha(55 * PS_PER_US), 1.0);
        assert_eq!(r.alpha(110 * PS_PER_US), 1.0 - g);
        assert_eq!(r.alpha(170 * PS_PER_US), (1.0 - g) * (1.0 - g), "no CNP in the third period");
        r.on_cnp(120 * PS_PER_US, G40);
        assert!((r.alpha(170 * PS_PER_US) - ((1.0 - g) * (1.0 - g) + g)).abs() < 1e-15);
    }

    /// The fork's increase, by timer alone: from R_C = R_T = 20 Gbit/s (first CNP at ½)
    /// cut to 10, five stages of fast recovery (15, 17.5, 18.75, 19.375, 19.6875), then
    /// stage F = 5 adds R_AI = 40 Mbit/s to R_T (19.86375) and stage 6 R_HAI = 400
    /// Mbit/s (20.151875). A cut after an increase sets R_T ← R_C ("after-increase").
    #[test]
    fn fork_increases_by_stage() {
        let mut r = fork(RpParams { rate_on_first_cnp: Some(0.5), ..RpParams::default() });
        let (_, at) = r.on_cnp(0, G40);
        let (_, epoch) = r.fork_decrease(at.unwrap()).arm_timer.unwrap();
        assert_eq!((r.rate.cr, r.rate.tr), (10e9, 20e9));
        let mut rates = Vec::new();
        for _ in 0..7 {
            let a = r.fork_increase(epoch, G40);
            assert_eq!(a.arm_timer, Some((55 * PS_PER_US, epoch)), "periodic");
            rates.push(r.rate.cr / 1e9);
        }
        assert_eq!(rates[..5], [15.0, 17.5, 18.75, 19.375, 19.6875]);
        assert!((rates[5] - 19.86375).abs() < 1e-9 && (rates[6] - 20.151875).abs() < 1e-9, "{rates:?}");
        assert_eq!(r.fork_increase(epoch - 1, G40), RateChange::default(), "a stale epoch");
        let (_, at) = r.on_cnp(500 * PS_PER_US, G40);
        r.fork_decrease(at.unwrap());
        assert!((r.rate.tr / 1e9 - 20.151875).abs() < 1e-9, "R_T ← R_C after an increase");
    }

    /// The increase timer stops once R_C and R_T are the line rate.
    #[test]
    fn fork_increase_stops_at_line_rate() {
        let mut r = fork(RpParams::default());
        let (_, at) = r.on_cnp(0, G40);
        let (_, epoch) = r.fork_decrease(at.unwrap()).arm_timer.unwrap();
        let mut steps = 0;
        while r.fork_increase(epoch, G40).arm_timer.is_some() {
            steps += 1;
            assert!(steps < 64, "never reaches the line rate");
        }
        assert_eq!((r.rate.current_rate(), r.rate.tr), (G40, 40e9));
        assert_eq!(r.fork_increase(epoch, G40), RateChange::default(), "stopped");
    }
}
