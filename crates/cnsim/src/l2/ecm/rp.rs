//! ECM reaction point (reference §4.3): the rate regulators of one flow.
//!
//! A BCN from CP c recombines Fb = −(Qoff + W·Qdelta) (clamped to ±Qeq(2W+1)) and acts on
//! the regulator of c:
//!
//! ```text
//! Fb < 0:  R ← max(Rmin, R·(1 − Gd·|Fb|))     (creates the regulator at R = C first)
//! Fb > 0:  R ← min(C, R + Gi·Fb·Ru)           (a regulator that reaches C is removed)
//! ```
//!
//! A severe-congestion BCN(0,0) counts as the largest negative Fb, −Qeq(2W+1): with the
//! seed's Gd that halves R (the patent's "maximum negative rate-control value", reference
//! §4.1; the rule itself was not found). Without any BCN for Td, every regulator drifts
//! up by Rd (reference §4.3's reading of the seed's Td and Rd; `drift = false` turns it
//! off). The flow sends at its most restrictive regulator's rate (C with none) and tags
//! its data frames with that regulator's CP, so that only this CP answers with positive
//! feedback (reference §4.5's choice for flows crossing several CPs).

use serde::{Deserialize, Serialize};

use super::{feedback, Bcn};
use crate::engine::{Time, PS_PER_MS};
use crate::protocol::RateChange;
use crate::units::{Duration, Rate};

/// Reaction point parameters (`[protocols.ecm.rp]`): Roeck 2007's ECM set.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct RpParams {
    /// Increase gain (0.53333 = 1000/1875: the largest positive Fb adds 1000 Ru).
    pub(crate) gi: f64,
    /// Decrease gain (0.00026667 = 1/3750: the largest negative Fb halves the rate).
    pub(crate) gd: f64,
    /// Rate unit of increases.
    pub(crate) ru: Rate,
    /// Drift: the increase after `td` without feedback.
    pub(crate) rd: Rate,
    /// Drift period.
    pub(crate) td: Duration,
    /// Lowest rate.
    pub(crate) rmin: Rate,
    /// Drift up by `rd` every `td` without feedback.
    pub(crate) drift: bool,
}

impl Default for RpParams {
    fn default() -> Self {
        RpParams {
            gi: 0.53333,
            gd: 0.00026667,
            ru: Rate(1_000_000),
            rd: Rate(1_000_000),
            td: Duration(PS_PER_MS),
            rmin: Rate(1_000_000),
            drift: true,
        }
    }
}

/// Per-RP counters.
#[derive(Clone, Debug, Default, Serialize)]
pub struct RpStats {
    /// BCNs received.
    pub(crate) bcns: u64,
    /// Of which severe.
    pub(crate) severe: u64,
    /// Drift steps.
    pub(crate) drifts: u64,
}

/// One rate regulator: the rate CP `cpid` allows.
#[derive(Clone, Copy, Debug, PartialEq)]
struct Regulator {
    cpid: u32,
    rate: f64,
}

/// The ECM reaction point of one flow.
#[derive(Clone, Debug)]
pub struct Rp {
    gi: f64,
    gd: f64,
    ru: f64,
    rd: f64,
    td: Time,
    rmin: f64,
    drift: bool,
    /// The CPs' W and Qeq, to recombine and bound Fb.
    w: f64,
    qeq: f64,
    line_bps: f64,
    regulators: Vec<Regulator>,
    /// A BCN arrived since the drift timer last expired.
    heard: bool,
    timer_armed: bool,
    /// BCNs since the last sample of the feedback series.
    pub(crate) bcns_since_sample: u64,
    /// Counters.
    pub(crate) stats: RpStats,
}

impl Rp {
    /// A reaction point for a flow whose link runs at `line_bps`, reading BCNs of CPs
    /// with weight `w` and set point `qeq` (pages).
    pub fn new(params: &RpParams, w: f64, qeq: f64, line_bps: u64) -> Self {
        Rp {
            gi: params.gi,
            gd: params.gd,
            ru: params.ru.0 as f64,
            rd: params.rd.0 as f64,
            td: params.td.0,
            rmin: params.rmin.0 as f64,
            drift: params.drift,
            w,
            qeq,
            line_bps: line_bps as f64,
            regulators: Vec::new(),
            heard: false,
            timer_armed: false,
            bcns_since_sample: 0,
            stats: RpStats::default(),
        }
    }

    /// The rate the flow may send at, bit/s: its most restrictive regulator's, or the
    /// line rate.
    pub fn rate(&self) -> u64 {
        self.regulators.iter().map(|r| r.rate).fold(self.line_bps, f64::min) as u64
    }

    /// The tag for the flow's data frames: the CP of the most restrictive regulator, 0
    /// when none regulates the flow.
    pub fn tag(&self) -> u32 {
        self.regulators.iter().min_by(|a, b| a.rate.total_cmp(&b.rate)).map_or(0, |r| r.cpid)
    }

    /// Regulators held.
    pub fn regulators(&self) -> usize {
        self.regulators.len()
    }

    /// A BCN reached the source.
    pub fn on_bcn(&mut self, bcn: Bcn) -> RateChange {
        self.stats.bcns += 1;
        self.bcns_since_sample += 1;
        self.heard = true;
        let fb = if bcn.severe {
            self.stats.severe += 1;
            -self.qeq * (2.0 * self.w + 1.0)
        } else {
            self.fb(bcn.qoff, bcn.qdelta)
        };
        self.apply(bcn.cpid, fb, None);
        self.action()
    }

    /// Fb = −(Qoff + W·Qdelta) from a message's fields, clamped to ±Qeq(2W+1).
    pub fn fb(&self, qoff: i16, qdelta: i16) -> f64 {
        self.feedback_of(f64::from(qoff), f64::from(qdelta))
    }

    /// Fb = −(Qoff + W·Qdelta) from Qoff and Qdelta in pages, clamped to ±Qeq(2W+1).
    pub fn feedback_of(&self, qoff: f64, qdelta: f64) -> f64 {
        feedback(qoff, qdelta, self.w, self.qeq)
    }

    /// The laws on the regulator of CP `cpid`: Fb < 0 decreases (creating the
    /// regulator), Fb > 0 increases an existing one (removing it at C); then, with
    /// `cap`, the regulator's rate is held at or below it (E2CM-PR's maximum rate).
    pub fn apply(&mut self, cpid: u32, fb: f64, cap: Option<f64>) {
        let i = self.regulators.iter().position(|r| r.cpid == cpid);
        if fb < 0.0 {
            let i = i.unwrap_or_else(|| {
                self.regulators.push(Regulator { cpid, rate: self.line_bps });
                self.regulators.len() - 1
            });
            let r = &mut self.regulators[i];
            r.rate = (r.rate * (1.0 - self.gd * -fb)).max(self.rmin);
        } else if let (true, Some(i)) = (fb > 0.0, i) {
            let r = &mut self.regulators[i];
            r.rate = (r.rate + self.gi * fb * self.ru).min(self.line_bps);
        }
        if let (Some(cap), Some(r)) = (cap, self.regulators.iter_mut().find(|r| r.cpid == cpid)) {
            r.rate = r.rate.min(cap.max(self.rmin));
        }
        let line = self.line_bps;
        self.regulators.retain(|r| r.rate < line);
    }

    /// Whether any regulator limits the flow.
    pub fn regulated(&self) -> bool {
        !self.regulators.is_empty()
    }

    /// The new rate and the drift timer, after [`apply`](Self::apply).
    pub fn rate_change(&mut self) -> RateChange {
        self.action()
    }

    /// The drift timer expired: without feedback since the last expiry, every regulator
    /// gains Rd.
    pub fn on_timer(&mut self) -> RateChange {
        self.timer_armed = false;
        if !std::mem::take(&mut self.heard) && !self.regulators.is_empty() {
            self.stats.drifts += 1;
            for r in &mut self.regulators {
                r.rate = (r.rate + self.rd).min(self.line_bps);
            }
            let line = self.line_bps;
            self.regulators.retain(|r| r.rate < line);
        }
        self.action()
    }

    /// The new rate, and the drift timer armed while regulators remain.
    fn action(&mut self) -> RateChange {
        let arm = self.drift && !self.timer_armed && !self.regulators.is_empty();
        if arm {
            self.timer_armed = true;
        }
        RateChange { rate_bps: Some(self.rate()), arm_timer: arm.then_some((self.td, 0)) }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const C: u64 = 10_000_000_000;

    fn rp() -> Rp {
        Rp::new(&RpParams::default(), 2.0, 375.0, C)
    }

    fn bcn(qoff: i16, qdelta: i16, cpid: u32) -> Bcn {
        Bcn { qoff, qdelta, cpid, severe: false }
    }

    /// Reference §4.4: Fb = −325 cuts R by Gd·325 = 8.67 %; Fb = +275 adds
    /// 0.53333·275·1 Mbit/s = 146.67 Mbit/s.
    #[test]
    fn decrease_and_increase_hand_examples() {
        let mut rp = rp();
        let a = rp.on_bcn(bcn(225, 50, 7));
        let cut = 10e9 * (1.0 - 0.00026667 * 325.0);
        assert_eq!(a.rate_bps, Some(cut as u64));
        assert_eq!(a.arm_timer, Some((PS_PER_MS, 0)), "drift timer armed with the first regulator");
        assert_eq!(rp.tag(), 7);
        let a = rp.on_bcn(bcn(-175, -50, 7));
        assert_eq!(a.rate_bps, Some((cut + 0.53333 * 275.0 * 1e6) as u64));
        assert_eq!(a.arm_timer, None, "already armed");
    }

    #[test]
    fn positive_feedback_without_a_regulator_is_ignored_and_one_at_c_is_removed() {
        let mut rp = rp();
        assert_eq!(rp.on_bcn(bcn(-175, -50, 7)).rate_bps, Some(C));
        assert_eq!(rp.regulators(), 0);
        rp.on_bcn(bcn(10, 0, 7)); // Fb = −10: R = C·(1 − 10/3750)
        assert_eq!(rp.regulators(), 1);
        // The largest positive Fb adds 1000 Mbit/s: back to C, the regulator goes.
        assert_eq!(rp.on_bcn(bcn(-375, -750, 7)).rate_bps, Some(C));
        assert_eq!((rp.regulators(), rp.tag()), (0, 0));
    }

    /// BCN(0,0) counts as Fb = −1875: the rate halves; R never falls below Rmin.
    #[test]
    fn severe_congestion_halves_and_rmin_floors() {
        let mut rp = rp();
        let severe = Bcn { qoff: 0, qdelta: 0, cpid: 3, severe: true };
        let half = (C as f64 * (1.0 - 0.00026667 * 1875.0)) as u64;
        assert_eq!(rp.on_bcn(severe).rate_bps, Some(half));
        assert!((half as f64 / C as f64 - 0.5).abs() < 1e-4);
        for _ in 0..40 {
            rp.on_bcn(severe);
        }
        assert_eq!(rp.rate(), 1_000_000, "Rmin = 1 Mbit/s");
    }

    /// Two CPs: the flow sends at the lower regulator and carries its tag.
    #[test]
    fn the_most_restrictive_regulator_sets_rate_and_tag() {
        let mut rp = rp();
        rp.on_bcn(bcn(100, 0, 3)); // Fb = −100
        rp.on_bcn(bcn(500, 0, 9)); // Fb = −500
        assert_eq!(rp.tag(), 9);
        assert_eq!(rp.rate(), (10e9 * (1.0 - 0.00026667 * 500.0)) as u64);
    }

    /// Td without feedback: +Rd on every regulator; with feedback in between, none.
    #[test]
    fn drift_after_a_silent_td() {
        let mut rp = rp();
        rp.on_bcn(bcn(225, 50, 7));
        let before = rp.rate();
        let a = rp.on_timer();
        assert_eq!(a.rate_bps, Some(before), "a BCN came since the timer was armed: no drift");
        assert_eq!(a.arm_timer, Some((PS_PER_MS, 0)));
        let a = rp.on_timer();
        assert_eq!(a.rate_bps, Some(before + 1_000_000));
        assert_eq!(rp.stats.drifts, 1);
        let mut off = Rp::new(&RpParams { drift: false, ..RpParams::default() }, 2.0, 375.0, C);
        assert_eq!(off.on_bcn(bcn(225, 50, 7)).arm_timer, None);
    }
}
