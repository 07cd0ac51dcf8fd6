//! QCN reaction point (RP): the rate limiter state of one flow at its source.
//!
//! On a CNM carrying quantized feedback |Fb| (reference §2.3, Mliki et al. 2016 eq. 4–5):
//!
//! ```text
//! TR ← CR                        (if a byte-counter cycle completed since the last CNM)
//! CR ← max(CR·max(1 − Gd·|Fb|, minDecFactor), minRate)      Gd·63 ≈ 1/2
//! byte counter and timer stages ← 0; timer restarted
//! ```
//!
//! Without feedback, the byte counter (every `byte_counter` bytes sent) and the timer
//! (every `timer`) each complete cycles; at each cycle end (reference §2.3 table):
//!
//! | stages (SI = byte, TS = timer)     | phase              | TR ←            |
//! |------------------------------------|--------------------|-----------------|
//! | both ≤ FR threshold (5)            | Fast Recovery      | TR              |
//! | exactly one > 5                    | Active Increase    | TR + R_AI       |
//! | both > 5                           | Hyper-Active Inc.  | TR + i·R_HAI, i = min(SI,TS) − 5 |
//!
//! and then CR ← (CR + TR)/2. After the fast-recovery cycles the byte counter and timer
//! periods are halved (150 KB → 75 KB, T → T/2). When CR reaches the line rate C with
//! nothing queued, the limiter is released.
//!
//! Options Roeck 2007 ran QCN with (the seed names them; no retrieved source defines
//! them, so each follows reference §2.6's suggested reading and is off by default):
//! - `extra_fast_recovery`: for the first `efr_max` bytes sent after a CNM the byte
//!   counter reloads at half its cycle, so recovery from a cut is quicker;
//! - `drift_factor`: at each timer expiry of an active limiter CR ← min(C, CR·factor),
//!   an unconditional upward pressure;
//! - "-P" and "-PR" (the seed's QCN-P and QCN-PR; [`crate::l2::probing`]): the limiter
//!   probes the CP of its latest CNM every `probes.interval` bytes; a reply with Fb ≥ 0
//!   adds `self_increase` to CR ("linear selfIncrease"; TR is raised to at least CR); a
//!   reply with a rate M makes each later frame move CR by `self_increase_factor`·(M − CR)
//!   (the seed's "rate += (switchMaxRate − rate) × selfIncreaseFactor", applied per frame
//!   sent: per reply its 0.1 % would take seconds to matter).

use std::sync::Arc;

use serde::{Deserialize, Serialize};

use super::cp::FB_MAX;
use super::MulticastScheme;
use super::{Cnm, Representative};
use crate::engine::{RngStream, Time};
use crate::l2::probing::{ProbeParams, Prober, Reply};
use crate::protocol::{Ctx, FlowView, RateChange};
use crate::units::{Duration, Rate, Size};

/// How the Hyper-Active Increase multiplier i is chosen.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum HaiMultiplier {
    /// i = min(SI, TS) − FR threshold, growing by one per HAI cycle (the pseudocode,
    /// reference §2.3).
    #[default]
    Stages,
    /// i = 1 at every HAI cycle (one reading of Mliki et al. 2016 §2.2.3, "i ... selected to be
    /// equal to one").
    One,
}

/// RP parameters (scenario table `protocols.qcn.rp`). Defaults are the IEEE 802.1Qau MIB
/// values (reference §2.2, §10).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct RpParams {
    /// Decrease gain Gd (rpgGd = 7 → 1/128, so Gd·63 ≈ 1/2).
    pub(crate) gd: f64,
    /// Smallest multiplier a single CNM may apply (rpgMinDecFac = 50 %).
    pub(crate) min_dec_factor: f64,
    /// Floor of CR (rpgMinRate).
    pub(crate) min_rate: Rate,
    /// Byte-counter cycle (rpgByteReset).
    pub(crate) byte_counter: Size,
    /// Timer cycle T (rpgTimeReset).
    pub timer: Duration,
    /// Number of Fast Recovery cycles before Active Increase (rpgThreshold).
    pub(crate) fast_recovery_threshold: u32,
    /// Active Increase step R_AI (rpgAiRate).
    pub(crate) r_ai: Rate,
    /// Hyper-Active Increase step R_HAI (rpgHaiRate).
    pub(crate) r_hai: Rate,
    /// HAI multiplier rule.
    pub(crate) hai_multiplier: HaiMultiplier,
    /// Halve the byte-counter and timer periods once past fast recovery (pseudocode).
    pub(crate) halve_after_fast_recovery: bool,
    /// Byte-counter and timer reloads are multiplied by U(jitter[0], jitter[1]).
    pub(crate) jitter: [f64; 2],
    /// The pseudocode's guard: on the first cycle after a cut, if TR > 10·CR then TR ← TR/8.
    pub(crate) target_guard: bool,
    /// Rate CR and TR start from, and return to on release; absent = the source's line rate.
    pub(crate) initial_rate: Option<Rate>,
    /// Half-length byte-counter cycles for the first `efr_max` bytes after a CNM
    /// (Roeck 2007's extraFastRecovery).
    pub(crate) extra_fast_recovery: bool,
    /// How long extra fast recovery lasts after a CNM, bytes sent (Roeck 2007's EfrMax).
    pub(crate) efr_max: Size,
    /// CR ← min(C, CR·drift_factor) at each timer expiry of an active limiter (Roeck
    /// 2007's driftFactor, 1.0005; 1 = off).
    pub(crate) drift_factor: f64,
    /// Probes to the latest CP (QCN-P, QCN-PR); absent = none.
    pub(crate) probes: Option<ProbeParams>,
    /// Added to CR by each reply with Fb ≥ 0 (QCN-P's selfIncrease, 1 Mbit/s; 0 = none).
    #[serde(deserialize_with = "crate::units::rate_or_zero")]
    pub(crate) self_increase: Rate,
    /// Each frame sent moves CR by this fraction of the gap to the CP's guided rate
    /// (QCN-PR's selfIncreaseFactor, 0.1 %).
    pub(crate) self_increase_factor: f64,
    /// Devkota & Reddy's adaptive R_AI: a memory M adds each CNM's |Fb| and loses 1 at
    /// each timer expiry; while M > 64 the increase steps are R_AI/(M/64) and
    /// R_HAI/(M/64) (one memory for both; below 64 the steps are the configured ones).
    pub(crate) adaptive_increase: bool,
}

impl Default for RpParams {
    fn default() -> Self {
        Self {
            gd: 1.0 / 128.0,
            min_dec_factor: 0.5,
            min_rate: Rate(5_000_000),
            byte_counter: Size::Bytes(150_000),
            timer: Duration(15 * crate::engine::PS_PER_MS),
            fast_recovery_threshold: 5,
            r_ai: Rate(5_000_000),
            r_hai: Rate(50_000_000),
            hai_multiplier: HaiMultiplier::Stages,
            halve_after_fast_recovery: true,
            jitter: [0.85, 1.15],
            target_guard: true,
            initial_rate: None,
            extra_fast_recovery: false,
            efr_max: Size::Bytes(1_000_000),
            drift_factor: 1.0,
            probes: None,
            self_increase: Rate(0),
            self_increase_factor: 0.0,
            adaptive_increase: false,
        }
    }
}

/// When a decrease sets the target rate TR to the current rate CR (and restarts the
/// byte counter).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum TargetRule {
    /// Only if a byte-counter cycle completed since the last decrease (QCN's pseudocode,
    /// reference §2.3).
    AfterByteCycle,
    /// Only if any increase step (byte counter or timer) was taken since the last
    /// decrease (the HPCC ns-3 fork's DCQCN without `ClampTargetRate`).
    AfterIncrease,
    /// At every decrease (the DCQCN paper's RP: "R_T ← R_C" on each CNP).
    #[default]
    Always,
}

/// The increase phase an RP is in.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Phase {
    /// Fast Recovery.
    FastRecovery,
    /// Active Increase.
    ActiveIncrease,
    /// Hyper-Active Increase.
    HyperActiveIncrease,
}

/// Per-RP counters.
#[derive(Clone, Debug, Default, Serialize)]
pub struct RpStats {
    /// CNMs received.
    pub(crate) cnms: u64,
    /// Rate increase steps taken in each phase.
    pub(crate) fast_recovery_steps: u64,
    /// Active Increase steps.
    pub(crate) active_increase_steps: u64,
    /// Hyper-Active Increase steps.
    pub(crate) hyper_active_steps: u64,
    /// Times the limiter was released at line rate.
    pub(crate) releases: u64,
    /// Probes sent (QCN-P, QCN-PR).
    pub(crate) probes: u64,
    /// Probe replies received.
    pub(crate) replies: u64,
    /// Replies with Fb ≥ 0 (each a self-increase).
    pub(crate) positive_replies: u64,
}

/// The reaction point of one flow.
#[derive(Clone, Debug)]
pub struct Rp {
    /// The parameters, shared by every RP of the table: one copy stays in cache.
    p: Arc<RpParams>,
    /// Whether the rate limiter is engaged (a CNM arrived since the last release).
    pub(crate) active: bool,
    /// Current rate CR, bit/s.
    pub(crate) cr: f64,
    /// Target rate TR, bit/s.
    pub(crate) tr: f64,
    /// Bytes left in the current byte-counter cycle.
    pub(crate) bc_left: f64,
    /// Byte-counter stage SI: cycles completed since the last CNM.
    pub(crate) si: u32,
    /// Timer stage TS: timer expiries since the last CNM.
    pub(crate) ts: u32,
    /// Current timer epoch; older timers are stale.
    pub(crate) timer_epoch: u32,
    /// Multicast scheme this RP follows (only multicast flows use the enhanced ones).
    pub(crate) scheme: MulticastScheme,
    /// Mliki et al. 2016 Algorithm 1: F̂b, the |Fb| stamped on outgoing data frames.
    pub(crate) fb_hat: u8,
    /// CPID of the CP that set F̂b.
    pub(crate) rep_cpid: u32,
    rng: RngStream,
    /// Counters.
    pub(crate) stats: RpStats,
    /// Times of received CNMs are counted per sampling interval by the recorder.
    pub(crate) cnms_since_sample: u64,
    /// Bytes sent since the last CNM (extra fast recovery).
    bytes_since_cnm: f64,
    /// Bytes the last [`grant_quiet`](Self::grant_quiet) let pass unseen.
    quiet_granted: u32,
    /// The probing side (QCN-P, QCN-PR), boxed: most RPs do not probe.
    prober: Option<Box<Prober>>,
    /// The rate the latest CP reply guides CR towards (QCN-PR).
    guided_bps: Option<f64>,
    /// The CPs' weight W, to read Fb from a reply.
    w: f64,
    /// Adaptive R_AI's memory M.
    pub(crate) ai_memory: f64,
}

impl Rp {
    /// An RP for a source whose link runs at `line_bps`.
    pub fn new(
        params: impl Into<Arc<RpParams>>,
        scheme: MulticastScheme,
        line_bps: u64,
        rng: RngStream,
    ) -> Self {
        let params: Arc<RpParams> = params.into();
        let c = params.initial_rate.map(|r| r.0).unwrap_or(line_bps) as f64;
        Self {
            prober: params.probes.as_ref().map(|p| Box::new(Prober::new(p))),
            active: false,
            cr: c,
            tr: c,
            bc_left: params.byte_counter.value() as f64,
            si: 0,
            ts: 0,
            timer_epoch: 0,
            scheme,
            fb_hat: 0,
            rep_cpid: 0,
            rng,
            stats: RpStats::default(),
            cnms_since_sample: 0,
            bytes_since_cnm: 0.0,
            quiet_granted: 0,
            p: params,
            guided_bps: None,
            w: 2.0,
            ai_memory: 0.0,
        }
    }

    /// Sets the CPs' weight W, with which probe replies are read.
    pub fn with_cp_weight(mut self, w: f64) -> Self {
        self.w = w;
        self
    }

    /// The flow sent `bytes` (before [`on_transmit`](Self::on_transmit)): a probe to the
    /// latest CP when an interval is complete (QCN-P, QCN-PR).
    #[inline]
    pub fn probe(&mut self, ctx: &mut Ctx, flow: &FlowView, bytes: u32) {
        if let (true, Some(p)) = (self.active, &mut self.prober) {
            let before = p.sent;
            p.on_transmit(ctx, flow, bytes);
            self.stats.probes += p.sent - before;
        }
    }

    /// A CP answered a probe: Fb ≥ 0 adds `self_increase` to CR; a guided rate is kept
    /// for the frames that follow.
    pub fn on_reply(&mut self, reply: Reply, line_bps: u64) -> RateChange {
        self.stats.replies += 1;
        self.cnms_since_sample += 1;
        if !self.active {
            return RateChange::default();
        }
        if let Some(rate) = reply.rate_bps() {
            self.guided_bps = Some(rate);
        }
        if reply.fb(self.w) >= 0.0 && self.p.self_increase.0 > 0 {
            self.stats.positive_replies += 1;
            let c = self.p.initial_rate.map(|r| r.0).unwrap_or(line_bps) as f64;
            self.cr = (self.cr + self.p.self_increase.0 as f64).min(c);
            self.tr = self.tr.max(self.cr);
            return RateChange { rate_bps: Some(self.current_rate()), arm_timer: None };
        }
        RateChange::default()
    }

    /// The parameters.
    pub fn params(&self) -> &RpParams {
        &self.p
    }

    /// Current rate CR in bit/s, rounded.
    pub fn current_rate(&self) -> u64 {
        self.cr.round() as u64
    }

    /// The representative tag this source stamps on multicast data frames.
    pub fn representative(&self) -> Representative {
        Representative { fb: self.fb_hat, cpid: self.rep_cpid }
    }

    fn jitter(&mut self) -> f64 {
        let [lo, hi] = self.p.jitter;
        if lo == hi {
            lo
        } else {
            self.rng.uniform_range(lo, hi)
        }
    }

    /// One byte-counter cycle, in the counter's own unit (bytes, or frames when the
    /// scenario gives the counter in frames: then each released frame counts one,
    /// whatever its size).
    fn byte_cycle(&self) -> f64 {
        self.p.byte_counter.value() as f64
    }

    /// The phase implied by the current stages.
    pub fn phase(&self) -> Phase {
        let th = self.p.fast_recovery_threshold;
        match (self.si > th, self.ts > th) {
            (true, true) => Phase::HyperActiveIncrease,
            (false, false) => Phase::FastRecovery,
            _ => Phase::ActiveIncrease,
        }
    }

    /// Mliki et al. 2016 Algorithm 1 (and its prose reading): which |Fb| the RP reacts to.
    fn select_feedback(&mut self, cnm: Cnm) -> u8 {
        match self.scheme {
            MulticastScheme::Standard => cnm.fb,
            MulticastScheme::Enhanced => {
                if self.fb_hat < cnm.fb {
                    self.fb_hat = cnm.fb;
                    self.rep_cpid = cnm.cpid;
                }
                self.fb_hat
            }
            MulticastScheme::EnhancedRepresentative => {
                if cnm.cpid == self.rep_cpid || cnm.fb > self.fb_hat {
                    self.fb_hat = cnm.fb;
                    self.rep_cpid = cnm.cpid;
                }
                self.fb_hat
            }
        }
    }

    /// A CNM arrived (reference §2.3 "on CNM"; Mliki et al. 2016 Algorithm 1 for multicast).
    pub fn on_cnm(&mut self, cnm: Cnm, line_bps: u64) -> RateChange {
        if cnm.fb == 0 {
            return RateChange::default();
        }
        self.stats.cnms += 1;
        self.cnms_since_sample += 1;
        let fb = self.select_feedback(cnm);
        if self.p.adaptive_increase {
            self.ai_memory += f64::from(fb);
        }
        if let Some(p) = &mut self.prober {
            p.heard_from(cnm.cpid);
        }
        let dec = (1.0 - self.p.gd * fb as f64).max(self.p.min_dec_factor);
        let action = self.cut(dec, TargetRule::AfterByteCycle, line_bps);
        if self.scheme != MulticastScheme::Standard && self.fb_hat == FB_MAX {
            // Algorithm 1: at the largest value, restart the selection.
            self.fb_hat = 0;
            self.rep_cpid = 0;
        }
        action
    }

    /// A decrease by `factor`: the limiter engages if it was released, TR takes CR as
    /// `target` says, the stages and the byte counter restart, CR ← max(CR·factor,
    /// minRate) and the timer restarts. QCN's CNM (with |Fb|) and DCQCN's CNP (with α)
    /// both end here.
    pub fn cut(&mut self, factor: f64, target: TargetRule, line_bps: u64) -> RateChange {
        if !self.active {
            self.active = true;
            let c = self.p.initial_rate.map(|r| r.0).unwrap_or(line_bps) as f64;
            self.cr = self.cr.min(c);
            self.tr = self.cr;
            self.si = 0;
            self.ts = 0;
            self.bc_left = self.byte_cycle();
        }
        let set_target = match target {
            TargetRule::AfterByteCycle => self.si != 0,
            TargetRule::AfterIncrease => self.si != 0 || self.ts != 0,
            TargetRule::Always => true,
        };
        if set_target {
            self.tr = self.cr;
            self.bc_left = self.byte_cycle();
        }
        self.si = 0;
        self.ts = 0;
        self.bytes_since_cnm = 0.0;
        self.cr = (self.cr * factor).max(self.p.min_rate.0 as f64);
        self.timer_epoch = self.timer_epoch.wrapping_add(1);
        RateChange {
            rate_bps: Some(self.current_rate()),
            arm_timer: Some((self.p.timer.0, self.timer_epoch)),
        }
    }

    /// The limiter released `bytes` (reference §2.3 "on frame transmitted").
    #[inline]
    pub fn on_transmit(&mut self, bytes: u32, line_bps: u64) -> RateChange {
        if !self.active {
            return RateChange::default();
        }
        self.bytes_since_cnm += bytes as f64;
        let mut guided = RateChange::default();
        if let Some(m) = self.guided_bps {
            self.cr = (self.cr + self.p.self_increase_factor * (m - self.cr))
                .clamp(self.p.min_rate.0 as f64, line_bps as f64);
            guided.rate_bps = Some(self.current_rate());
        }
        self.bc_left -= match self.p.byte_counter {
            Size::Bytes(_) => bytes as f64,
            Size::Frames(_) => 1.0,
        };
        if self.bc_left >= 0.0 {
            return guided;
        }
        self.si += 1;
        let extra = self.p.extra_fast_recovery && self.bytes_since_cnm < self.p.efr_max.value() as f64;
        let full = (self.si < self.p.fast_recovery_threshold || !self.p.halve_after_fast_recovery) && !extra;
        let cycle = if full { self.byte_cycle() } else { self.byte_cycle() / 2.0 };
        self.bc_left = cycle * self.jitter();
        self.self_increase(line_bps)
    }

    /// Bytes the flow may send before this RP must see a frame: releases whose total
    /// stays within them only add to the byte counts, which [`absorb`](Self::absorb) does
    /// at once. All while the RP is inactive; none with a prober, a guided rate or a
    /// byte counter in frames (every frame counts); else what is left of the
    /// byte-counter cycle, so the frame that ends it is seen.
    #[inline]
    pub fn grant_quiet(&mut self) -> u32 {
        let quiet = if !self.active {
            u32::MAX
        } else if self.prober.is_some()
            || self.guided_bps.is_some()
            || matches!(self.p.byte_counter, Size::Frames(_))
        {
            0
        } else {
            // `bc_left - b >= 0` for every whole b up to the floor: the cycle goes on.
            self.bc_left.floor().clamp(0.0, u32::MAX as f64) as u32
        };
        self.quiet_granted = quiet;
        quiet
    }

    /// Counts what the flow sent while quiet, `left` of the bytes last granted being
    /// unused, as [`on_transmit`](Self::on_transmit) would have frame by frame: the sums
    /// are of whole bytes, so exact in any order.
    #[inline]
    pub fn absorb(&mut self, left: u32) {
        let bytes = self.quiet_granted - left;
        self.quiet_granted = left;
        if self.active {
            self.bytes_since_cnm += bytes as f64;
            self.bc_left -= bytes as f64;
        }
    }

    /// The timer expired (reference §2.3 "on timer expiry").
    pub fn on_timer(&mut self, epoch: u32, line_bps: u64) -> RateChange {
        if !self.active || epoch != self.timer_epoch {
            return RateChange::default();
        }
        self.ts += 1;
        if self.p.adaptive_increase {
            self.ai_memory = (self.ai_memory - 1.0).max(0.0);
        }
        if self.p.drift_factor != 1.0 {
            let c = self.p.initial_rate.map(|r| r.0).unwrap_or(line_bps) as f64;
            self.cr = (self.cr * self.p.drift_factor).min(c);
        }
        let mut action = self.self_increase(line_bps);
        if self.active {
            let full = self.ts < self.p.fast_recovery_threshold || !self.p.halve_after_fast_recovery;
            let period = if full { self.p.timer.0 as f64 } else { self.p.timer.0 as f64 / 2.0 };
            let delay = (period * self.jitter()).round() as Time;
            action.arm_timer = Some((delay.max(1), self.timer_epoch));
        }
        action
    }

    /// One increase step at the end of a byte-counter or timer cycle.
    fn self_increase(&mut self, line_bps: u64) -> RateChange {
        let th = self.p.fast_recovery_threshold;
        // Adaptive R_AI: the steps shrink while the memory of recent feedback is large.
        let scale = if self.ai_memory > 64.0 { 64.0 / self.ai_memory } else { 1.0 };
        let increment = match self.phase() {
            Phase::FastRecovery => {
                self.stats.fast_recovery_steps += 1;
                0.0
            }
            Phase::ActiveIncrease => {
                self.stats.active_increase_steps += 1;
                self.p.r_ai.0 as f64 * scale
            }
            Phase::HyperActiveIncrease => {
                self.stats.hyper_active_steps += 1;
                let i = match self.p.hai_multiplier {
                    HaiMultiplier::Stages => self.si.min(self.ts) - th,
                    HaiMultiplier::One => 1,
                };
                self.p.r_hai.0 as f64 * i as f64 * scale
            }
        };
        if self.p.target_guard && (self.si == 1 || self.ts == 1) && self.tr > 10.0 * self.cr {
            self.tr /= 8.0;
        } else {
            self.tr += increment;
        }
        let c = self.p.initial_rate.map(|r| r.0).unwrap_or(line_bps) as f64;
        self.cr = ((self.cr + self.tr) / 2.0).min(c);
        if self.cr >= c {
            // Reached the line rate: release the limiter (reference §2.3; the limiter
            // queue is drained at C from here on, so "nothing queued" follows).
            self.active = false;
            self.cr = c;
            self.tr = c;
            self.si = 0;
            self.ts = 0;
            self.bc_left = self.byte_cycle();
            self.timer_epoch = self.timer_epoch.wrapping_add(1);
            self.stats.releases += 1;
            self.guided_bps = None;
            if let Some(p) = &mut self.prober {
                p.stop();
            }
        }
        RateChange { rate_bps: Some(self.current_rate()), arm_timer: None }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::{StreamKey, PS_PER_MS};

    const G: u64 = 1_000_000_000;

    /// RP at 1 Gbit/s without jitter, so every cycle is exact.
    fn rp() -> Rp {
        let params = RpParams { jitter: [1.0, 1.0], ..RpParams::default() };
        Rp::new(params, MulticastScheme::Standard, G, RngStream::new(1, StreamKey { kind: "rp", name: "t" }))
    }

    fn cnm(fb: u8) -> Cnm {
        Cnm { fb, cpid: 1 }
    }

    /// Sends frames until one completes a byte-counter cycle; returns frames sent.
    fn finish_byte_cycle(r: &mut Rp) -> u32 {
        let before = r.si;
        let mut n = 0;
        while r.si == before && r.active {
            r.on_transmit(1500, G);
            n += 1;
        }
        n
    }

    #[test]
    fn quiet_bytes_are_what_is_left_of_the_byte_cycle() {
        let mut r = rp();
        // Inactive: nothing a release does matters.
        assert_eq!(r.grant_quiet(), u32::MAX);
        r.on_cnm(cnm(32), G);
        // A fresh 150 000 B cycle: 100 frames of 1500 B leave bc_left at 0, still a cycle.
        assert_eq!(r.grant_quiet(), 150_000);
        r.absorb(150_000 - 100 * 1500);
        assert_eq!(r.bc_left, 0.0);
        assert_eq!(r.grant_quiet(), 0);
        // The 101st frame ends the cycle, as in `fast_recovery_by_byte_counter`.
        r.on_transmit(1500, G);
        assert_eq!((r.si, r.cr), (1, 875e6));
        // With a jittered cycle the quiet bytes are the whole bytes left.
        r.bc_left = 1234.75;
        assert_eq!(r.grant_quiet(), 1234);
        // Counting frames, or following a guided rate, every frame is seen.
        r.guided_bps = Some(1e8);
        assert_eq!(r.grant_quiet(), 0);
    }

    #[test]
    fn quiet_releases_absorbed_at_once_leave_the_same_state() {
        // Frames of varied sizes, one RP told of each, the other only when its quiet
        // bytes run out (the rest absorbed in one sum, and before any CNM): the same
        // rates, cycles and counters, frame by frame, through many byte-counter cycles.
        let params = RpParams { jitter: [0.85, 1.15], ..RpParams::default() };
        let make = || {
            Rp::new(
                params.clone(),
                MulticastScheme::Standard,
                G,
                RngStream::new(7, StreamKey { kind: "rp", name: "q" }),
            )
        };
        let (mut each, mut quiet) = (make(), make());
        each.on_cnm(cnm(40), G);
        quiet.on_cnm(cnm(40), G);
        let mut left = quiet.grant_quiet();
        let (mut calls, mut changes) = (0, 0);
        for i in 0..3000u32 {
            if i % 700 == 699 {
                // Feedback: the quiet RP is caught up first, as the simulator does.
                quiet.absorb(left);
                assert_eq!(each.on_cnm(cnm(20), G), quiet.on_cnm(cnm(20), G));
                left = quiet.grant_quiet();
            }
            let size = 64 + (i * 997) % 1437;
            let a = each.on_transmit(size, G);
            let b = if size <= left {
                left -= size;
                RateChange::default()
            } else {
                quiet.absorb(left);
                calls += 1;
                let b = quiet.on_transmit(size, G);
                left = quiet.grant_quiet();
                b
            };
            assert_eq!(a, b, "frame {i}");
            assert_eq!(each.cr, quiet.cr, "frame {i}");
            changes += a.rate_bps.is_some() as u32;
        }
        quiet.absorb(left);
        assert_eq!((each.si, each.tr, each.bc_left), (quiet.si, quiet.tr, quiet.bc_left));
        assert_eq!(each.bytes_since_cnm, quiet.bytes_since_cnm);
        assert!(changes >= 10, "several byte-counter cycles: {changes}");
        assert!(calls < 100, "the quiet RP was called {calls} times for 3000 frames");
    }

    #[test]
    fn one_decrease() {
        // CR = 1 Gbit/s, |Fb| = 32 → CR·(1 − 32/128) = 750 Mbit/s; TR stays at C.
        let mut r = rp();
        let a = r.on_cnm(cnm(32), G);
        assert_eq!(a.rate_bps, Some(750_000_000));
        assert_eq!(a.arm_timer, Some((15 * PS_PER_MS, 1)));
        assert_eq!(r.tr, 1e9);
        assert!(r.active);
    }

    #[test]
    fn decrease_is_floored_by_min_dec_factor_and_min_rate() {
        let mut r = rp();
        r.on_cnm(cnm(63), G); // 1 − 63/128 = 0.5078 > 0.5
        assert_eq!(r.current_rate(), 507_812_500);
        let params = RpParams { gd: 1.0 / 64.0, jitter: [1.0, 1.0], ..RpParams::default() };
        let mut r2 = Rp::new(
            params,
            MulticastScheme::Standard,
            G,
            RngStream::new(1, StreamKey { kind: "rp", name: "t" }),
        );
        r2.on_cnm(cnm(63), G); // 1 − 63/64 < 0.5 → 0.5
        assert_eq!(r2.current_rate(), 500_000_000);
        for _ in 0..20 {
            r2.on_cnm(cnm(63), G);
        }
        assert_eq!(r2.current_rate(), 5_000_000); // min rate
    }

    #[test]
    fn fast_recovery_by_byte_counter() {
        // After a cut to 750 Mbit/s with TR = 1 Gbit/s, each 150 KB cycle averages:
        // 875, 937.5, 968.75, 984.375, 992.1875 Mbit/s (five FR cycles).
        let mut r = rp();
        r.on_cnm(cnm(32), G);
        let expected = [875e6, 937.5e6, 968.75e6, 984.375e6, 992.1875e6];
        for (i, &cr) in expected.iter().enumerate() {
            // 150 000 B = 100 frames to reach 0, the 101st makes it negative.
            assert_eq!(finish_byte_cycle(&mut r), 101, "cycle {}", i + 1);
            assert_eq!(r.phase(), Phase::FastRecovery);
            assert_eq!(r.cr, cr, "cycle {}", i + 1);
            assert_eq!(r.tr, 1e9);
        }
        assert_eq!(r.stats.fast_recovery_steps, 5);
        // After the 5th cycle the counter reloads with 75 KB: the 6th cycle is 51 frames.
        assert_eq!(r.bc_left, 75_000.0);
    }

    #[test]
    fn byte_counter_in_frames_counts_frames_whatever_their_size() {
        // byte_counter = 10 frames: the 11th released frame ends the cycle, be the frames
        // 64 B or 9000 B (the counter is not converted at an assumed 1500 B).
        for size in [64, 9000] {
            let params =
                RpParams { jitter: [1.0, 1.0], byte_counter: Size::Frames(10), ..RpParams::default() };
            let mut r = Rp::new(
                params,
                MulticastScheme::Standard,
                G,
                RngStream::new(1, StreamKey { kind: "rp", name: "t" }),
            );
            r.on_cnm(cnm(32), G);
            let mut n = 0;
            while r.si == 0 {
                r.on_transmit(size, G);
                n += 1;
            }
            assert_eq!(n, 11, "{size}-byte frames");
        }
    }

    #[test]
    fn active_increase_by_byte_counter() {
        let mut r = rp();
        r.on_cnm(cnm(32), G);
        for _ in 0..5 {
            finish_byte_cycle(&mut r);
        }
        // Cycle 6 (SI = 6 > 5): AI, TR = 1000 + 5 = 1005 Mbit/s, CR = (992.1875 + 1005)/2.
        let n = finish_byte_cycle(&mut r);
        assert_eq!(n, 51);
        assert_eq!(r.phase(), Phase::ActiveIncrease);
        assert_eq!(r.tr, 1005e6);
        assert_eq!(r.cr, (992.1875e6 + 1005e6) / 2.0);
    }

    #[test]
    fn fast_recovery_and_active_increase_by_timer() {
        // At a low rate the timer drives recovery: cut to 100 Mbit/s-ish, no bytes sent.
        let mut r = rp();
        r.cr = 200e6;
        r.tr = 200e6;
        r.active = true;
        let a = r.on_cnm(cnm(32), G); // CR 150 Mbit/s, TR 200 Mbit/s (SI = 0: TR kept)
        assert_eq!(r.cr, 150e6);
        let (delay, epoch) = a.arm_timer.unwrap();
        assert_eq!(delay, 15 * PS_PER_MS);
        let mut e = epoch;
        for k in 1..=5 {
            let a = r.on_timer(e, G);
            assert_eq!(r.phase(), Phase::FastRecovery);
            let (d, ep) = a.arm_timer.unwrap();
            // T for stages 1..4, T/2 from stage 5 on (the pseudocode's halving).
            assert_eq!(d, if k < 5 { 15 * PS_PER_MS } else { 15 * PS_PER_MS / 2 }, "stage {k}");
            e = ep;
        }
        assert_eq!(r.cr, 200e6 - 50e6 / 32.0);
        r.on_timer(e, G);
        assert_eq!(r.phase(), Phase::ActiveIncrease);
        assert_eq!(r.tr, 205e6);
    }

    #[test]
    fn stale_timer_is_ignored() {
        let mut r = rp();
        let first = r.on_cnm(cnm(10), G).arm_timer.unwrap().1;
        r.on_cnm(cnm(10), G);
        let cr = r.cr;
        assert_eq!(r.on_timer(first, G), RateChange::default());
        assert_eq!(r.cr, cr);
    }

    #[test]
    fn hyper_active_increase() {
        // Both stages > 5: HAI with i = min(SI, TS) − 5.
        let mut r = rp();
        r.active = true;
        r.cr = 500e6;
        r.tr = 600e6;
        r.si = 7;
        r.ts = 6;
        r.self_increase(G);
        assert_eq!(r.phase(), Phase::HyperActiveIncrease);
        assert_eq!(r.tr, 650e6); // i = 1
        r.si = 8;
        r.ts = 8;
        r.self_increase(G);
        assert_eq!(r.tr, 650e6 + 3.0 * 50e6); // i = 3
        assert_eq!(r.stats.hyper_active_steps, 2);
    }

    #[test]
    fn hyper_active_increase_reached_by_byte_counter_and_timer() {
        // After a cut, six timer expiries (TS = 6) and six byte-counter cycles (SI = 6)
        // bring the RP to HAI; the next cycle end adds R_HAI·(min(SI, TS) − 5).
        let mut r = rp();
        let mut epoch = r.on_cnm(cnm(32), G).arm_timer.unwrap().1;
        // Far below the line rate, so no step releases the limiter.
        r.cr = 100e6;
        r.tr = 200e6;
        for _ in 0..6 {
            epoch = r.on_timer(epoch, G).arm_timer.unwrap().1;
        }
        assert_eq!((r.ts, r.phase()), (6, Phase::ActiveIncrease));
        for _ in 0..5 {
            finish_byte_cycle(&mut r);
        }
        assert_eq!((r.si, r.phase()), (5, Phase::ActiveIncrease));
        let tr = r.tr;
        finish_byte_cycle(&mut r); // SI = 6: both stages past 5, i = min(6, 6) − 5 = 1
        assert_eq!(r.phase(), Phase::HyperActiveIncrease);
        assert_eq!(r.tr, tr + 50e6);
        let (tr, cr) = (r.tr, r.cr);
        r.on_timer(epoch, G); // TS = 7, SI = 6: i = 1 again
        assert_eq!(r.tr, tr + 50e6);
        assert_eq!(r.cr, ((cr + tr + 50e6) / 2.0).min(1e9));
        assert_eq!(r.stats.hyper_active_steps, 2);
    }

    #[test]
    fn target_guard_divides_a_stale_target() {
        let mut r = rp();
        r.active = true;
        r.cr = 50e6;
        r.tr = 1e9;
        r.si = 1;
        r.self_increase(G);
        assert_eq!(r.tr, 125e6); // 1e9 / 8, since TR > 10·CR on the first cycle
        assert_eq!(r.cr, 87.5e6);
    }

    #[test]
    fn release_at_line_rate() {
        let mut r = rp();
        r.active = true;
        r.cr = 999e6;
        r.tr = 1.2e9;
        r.si = 6;
        let a = r.self_increase(G);
        assert!(!r.active);
        assert_eq!(a.rate_bps, Some(G));
        assert_eq!(r.stats.releases, 1);
        // Once released, sending bytes changes nothing.
        assert_eq!(r.on_transmit(1500, G), RateChange::default());
    }

    #[test]
    fn algorithm1_keeps_the_max_and_resets_at_63() {
        let params = RpParams { jitter: [1.0, 1.0], ..RpParams::default() };
        let mut r = Rp::new(
            params,
            MulticastScheme::Enhanced,
            G,
            RngStream::new(1, StreamKey { kind: "rp", name: "t" }),
        );
        r.on_cnm(Cnm { fb: 20, cpid: 4 }, G);
        assert_eq!((r.fb_hat, r.rep_cpid), (20, 4));
        // A smaller |Fb| from another CP: F̂b stays, and the RP reacts with F̂b = 20.
        let cr = r.cr;
        r.on_cnm(Cnm { fb: 10, cpid: 5 }, G);
        assert_eq!((r.fb_hat, r.rep_cpid), (20, 4));
        assert_eq!(r.cr, cr * (1.0 - 20.0 / 128.0));
        // 63 is taken, reacted to, then reset to 0.
        let cr = r.cr;
        r.on_cnm(Cnm { fb: 63, cpid: 6 }, G);
        assert_eq!(r.cr, cr * (1.0 - 63.0 / 128.0));
        assert_eq!((r.fb_hat, r.rep_cpid), (0, 0));
    }

    #[test]
    fn representative_reading_follows_its_cp_down() {
        let params = RpParams { jitter: [1.0, 1.0], ..RpParams::default() };
        let mut r = Rp::new(
            params,
            MulticastScheme::EnhancedRepresentative,
            G,
            RngStream::new(1, StreamKey { kind: "rp", name: "t" }),
        );
        r.on_cnm(Cnm { fb: 30, cpid: 4 }, G);
        r.on_cnm(Cnm { fb: 8, cpid: 4 }, G);
        assert_eq!((r.fb_hat, r.rep_cpid), (8, 4));
        r.on_cnm(Cnm { fb: 9, cpid: 7 }, G);
        assert_eq!((r.fb_hat, r.rep_cpid), (9, 7));
    }

    fn roeck_rp(f: impl FnOnce(&mut RpParams)) -> Rp {
        let mut params = RpParams { jitter: [1.0, 1.0], ..RpParams::default() };
        f(&mut params);
        Rp::new(params, MulticastScheme::Standard, G, RngStream::new(1, StreamKey { kind: "rp", name: "t" }))
    }

    /// Extra fast recovery: while fewer than efr_max bytes were sent since the CNM, the
    /// byte counter cycles at 75 KB (50 frames) instead of 150 KB (100 frames).
    #[test]
    fn extra_fast_recovery_halves_the_first_cycles() {
        let mut r = roeck_rp(|p| {
            p.extra_fast_recovery = true;
            p.efr_max = Size::Bytes(200_000);
        });
        r.on_cnm(cnm(32), G);
        // A cycle ends when the counter goes below zero: 101 frames for 150 KB.
        assert_eq!(finish_byte_cycle(&mut r), 101, "the first cycle is loaded at the CNM");
        // 151500 B sent < 200000: the reload is half (75 KB, 51 frames).
        assert_eq!(finish_byte_cycle(&mut r), 51);
        // 228000 B sent ≥ 200000: full cycles again (still in fast recovery).
        assert_eq!(finish_byte_cycle(&mut r), 101);
    }

    /// Drift: each timer expiry multiplies CR by the factor before the increase step.
    #[test]
    fn drift_factor_at_timer_expiry() {
        let mut r = roeck_rp(|p| p.drift_factor = 1.0005);
        r.on_cnm(cnm(32), G);
        // CR = 750 Mbit/s, TR = 1 Gbit/s; drift: CR = 750.375; FR: CR = (750.375 + 1000)/2.
        r.on_timer(1, G);
        assert_eq!(r.current_rate(), 875_187_500);
    }

    /// QCN-P: probes go to the CP of the latest CNM every 100000 bytes while limited; a
    /// reply with Fb ≥ 0 adds 1 Mbit/s to CR (and lifts TR to CR); Fb < 0 does nothing.
    #[test]
    fn qcn_p_probes_and_self_increase() {
        let mut r = roeck_rp(|p| {
            p.probes = Some(ProbeParams::default());
            p.self_increase = Rate(1_000_000);
        });
        let mut timers = crate::engine::Timers::default();
        let mut events = crate::engine::EventQueue::new();
        let mut outbox = crate::protocol::Outbox::default();
        let mut ctx = Ctx { now: 0, timers: &mut timers, events: &mut events, outbox: &mut outbox };
        let flow = FlowView { id: 0, src: 1, dst: 2, timers: 0 };
        for _ in 0..100 {
            r.probe(&mut ctx, &flow, 1500);
        }
        assert_eq!(r.stats.probes, 0, "not limited");
        r.on_cnm(Cnm { fb: 32, cpid: 5 }, G);
        for _ in 0..67 {
            r.probe(&mut ctx, &flow, 1500);
        }
        assert_eq!(r.stats.probes, 1);
        assert_eq!(
            outbox.pop().unwrap().1.header,
            crate::net::Header::Probe(crate::l2::probing::Probe { cpid: 5 })
        );
        let negative = Reply { cpid: 5, qoff: 10, qdelta: 0, rate_kbps: 0 };
        assert_eq!(r.on_reply(negative, G), RateChange::default());
        let positive = Reply { cpid: 5, qoff: -10, qdelta: 0, rate_kbps: 0 };
        assert_eq!(r.on_reply(positive, G).rate_bps, Some(751_000_000));
        assert_eq!(r.stats.positive_replies, 1);
    }

    /// QCN-PR: after a reply with M = 500 Mbit/s, each frame moves CR by 0.1 % of the gap.
    #[test]
    fn qcn_pr_guidance_per_frame() {
        let mut r = roeck_rp(|p| {
            p.probes = Some(ProbeParams::default());
            p.self_increase_factor = 0.001;
        });
        r.on_cnm(cnm(32), G);
        r.on_reply(Reply { cpid: 1, qoff: 10, qdelta: 0, rate_kbps: 500_000 }, G);
        let a = r.on_transmit(1500, G);
        // 750 − 0.001·250 = 749.75 Mbit/s.
        assert_eq!(a.rate_bps, Some(749_750_000));
        // 49 more frames, within the byte-counter cycle: the gap shrinks by 0.999 each.
        for _ in 0..49 {
            r.on_transmit(1500, G);
        }
        let want = 500e6 + 250e6 * 0.999f64.powi(50);
        assert!((r.cr - want).abs() < 1.0, "{} vs {want}", r.cr);
    }

    /// Adaptive R_AI: M adds each CNM's |Fb| (63 + 63 = 126 > 64), so an Active Increase
    /// step is R_AI·64/126; each timer expiry takes 1 from M.
    #[test]
    fn adaptive_increase_scales_the_step_by_the_memory() {
        let mut r = roeck_rp(|p| p.adaptive_increase = true);
        r.on_cnm(cnm(63), G);
        r.on_cnm(cnm(63), G);
        assert_eq!(r.ai_memory, 126.0);
        // Active Increase: byte stage past the threshold, timer stage not.
        r.si = 6;
        r.ts = 0;
        let (cr, tr) = (r.cr, r.tr);
        r.self_increase(G);
        let step = 5_000_000.0 * 64.0 / 126.0;
        assert!((r.tr - (tr + step)).abs() < 1e-6, "{} vs {}", r.tr, tr + step);
        assert!((r.cr - (cr + tr + step) / 2.0).abs() < 1e-6);
        r.on_timer(r.timer_epoch, G);
        assert_eq!(r.ai_memory, 125.0);
        // Without the option the memory stays at 0 and the step is R_AI.
        let mut plain = roeck_rp(|_| {});
        plain.on_cnm(cnm(63), G);
        assert_eq!(plain.ai_memory, 0.0);
    }
}
