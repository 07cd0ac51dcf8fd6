//! Multi-level ECN (Durresi, Sridharan, Liu, Goyal & Jain 2001) and Adaptive MECN
//! (Sridharan, Durresi & Jain), reference l3-tcp.md §4.
//!
//! The router keeps RED's average queue ([`super::red::Average`]) and three thresholds.
//! Below min_th nothing happens; from min_th the two ECN bits of an MECN-capable frame
//! (01) are raised to 10, *incipient congestion*, with probability
//! p1 = P1max·(avg − min_th)/(max_th − min_th) (the seed's Eq. 1; `p1_span = "mid"`
//! reaches P1max at mid_th instead); from mid_th to 11, *moderate congestion*, with
//! p2 = P2max·(avg − mid_th)/(max_th − mid_th) (and, failing that, to 10 with p1:
//! `incipient_above_mid`); above max_th the frame is dropped, *severe congestion* (with
//! `gentle`, dropped with a probability rising from P2max to 1 at 2·max_th, else marked
//! 11). A mark only raises a level a router upstream set. A frame that is not
//! MECN-capable is dropped where it would be marked. Marks are spread by the count of
//! arrivals since the last one as RED spreads them (`wait`, `spread`).
//!
//! **Adaptive MECN** (the seed's Fig. 2): every `interval`, on the first arrival after
//! it (as ns-2's Adaptive RED runs; the seed does not say), Pmax moves towards the target
//! average: above it Pmax += α with α = 0.25·((avg − target)/target)·Pmax, below it
//! Pmax ·= β with β = 1 − 0.17·(target − avg)/(target − min_th), Pmax kept in
//! [`bottom`, `top`] = [0.01, 0.5]. Both maxima move by the same factor (the seed adapts
//! one Pmax). Automatic settings: w_q = 1 − exp(−1/C), min_th from the target delay as
//! ARED's (max(5, target_delay·C/2) packets), mid_th = 2.25·min_th, max_th = 3·min_th,
//! target = 2·min_th.

use serde::{Deserialize, Serialize};

use super::red::{
    auto_min_th, check_fraction, check_interval, check_packet_size, half_second, max_p, mean_packet_size,
    packets_per_second, spread, target_delay, threshold_unit, threshold_value, top, weight, yes, Average,
    Threshold, Weight,
};
use super::{QueueView, Verdict};
use crate::engine::{RngStream, Time};
use crate::net::{Ecn, Frame};
use crate::scenario::install::{Install, InstallCx};
use crate::scenario::schema::PortSel;
use crate::scenario::units::{Duration, Size};
use crate::scenario::ScenarioError;

/// Where the incipient curve reaches P1max.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Span {
    /// At max_th (the seed's Eq. 1: P = Pmax·(avg − min_th)/(max_th − min_th)).
    #[default]
    Max,
    /// At mid_th.
    Mid,
}

/// Adaptive MECN (`[protocols.mecn.adaptive]`).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct AdaptiveParams {
    /// Least time between two changes of Pmax (0.5 s).
    #[serde(default = "half_second")]
    pub interval: Duration,
    /// Target average; "auto": 2·min_th.
    #[serde(default)]
    pub target: Threshold,
    /// Pmax is kept at or above this (0.01).
    #[serde(default = "bottom")]
    pub bottom: f64,
    /// Pmax is kept at or below this (0.5).
    #[serde(default = "top")]
    pub top: f64,
}

fn bottom() -> f64 {
    0.01
}

/// Parameters of MECN on egress queues (`[protocols.mecn]`).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct MecnParams {
    /// Egress ports whose queues run MECN.
    #[serde(default = "PortSel::switches")]
    pub ports: PortSel,
    /// min_th; "auto": max(5, target_delay·C/2) frames.
    #[serde(default)]
    pub min_th: Threshold,
    /// mid_th; "auto": 2.25·min_th.
    #[serde(default)]
    pub mid_th: Threshold,
    /// max_th; "auto": 3·min_th.
    #[serde(default)]
    pub max_th: Threshold,
    /// P1max, the incipient curve's maximum (the one Pmax the seed adapts).
    #[serde(default = "max_p")]
    pub max_p: f64,
    /// P2max, the moderate curve's; absent: equal to max_p.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub max_p2: Option<f64>,
    /// Where the incipient curve reaches P1max.
    #[serde(default)]
    pub p1_span: Span,
    /// Between mid_th and max_th, a frame not marked 11 may still be marked 10 with p1.
    #[serde(default = "yes")]
    pub incipient_above_mid: bool,
    /// Above max_th, drop with a probability rising from P2max to 1 at 2·max_th (and mark
    /// 11 otherwise), rather than always.
    #[serde(default)]
    pub gentle: bool,
    /// Spread marks by the count since the last one, as RED does.
    #[serde(default = "yes")]
    pub spread: bool,
    /// ns-2's wait_ form of that spreading.
    #[serde(default = "yes")]
    pub wait: bool,
    /// w_q.
    #[serde(default)]
    pub w_q: Weight,
    /// Packet size converting the link rate to packets per second.
    #[serde(default = "mean_packet_size")]
    pub mean_packet_size: Size,
    /// Target queueing delay for automatic thresholds.
    #[serde(default = "target_delay")]
    pub target_delay: Duration,
    /// Adaptive MECN.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub adaptive: Option<AdaptiveParams>,
}

/// The resolved thresholds and weights of one MECN queue.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct MecnSettings {
    /// Thresholds in frames or bytes.
    pub min_th: f64,
    /// See `min_th`.
    pub mid_th: f64,
    /// See `min_th`.
    pub max_th: f64,
    /// Whether they count bytes.
    pub in_bytes: bool,
    /// EWMA weight.
    pub w_q: f64,
    /// Mean-sized packets per second.
    pub ptc: f64,
    /// Mean packet size, bytes.
    pub mean_pktsize: u64,
    /// Adaptive MECN's target average.
    pub target: f64,
}

impl MecnParams {
    /// The settings on a link of `rate_bps`, or (key, message).
    pub fn settings(&self, rate_bps: u64) -> Result<MecnSettings, (String, String)> {
        let (mean, ptc) = packets_per_second(self.mean_packet_size, rate_bps);
        let in_bytes =
            threshold_unit(&[("min_th", self.min_th), ("mid_th", self.mid_th), ("max_th", self.max_th)])?;
        let scale = if in_bytes { mean as f64 } else { 1.0 };
        let min_th = threshold_value(self.min_th, auto_min_th(self.target_delay.0, ptc) * scale);
        let mid_th = threshold_value(self.mid_th, 2.25 * min_th);
        let max_th = threshold_value(self.max_th, 3.0 * min_th);
        if !(min_th < mid_th && mid_th < max_th) {
            return Err((
                "mid_th".into(),
                format!("gives min_th {min_th}, mid_th {mid_th}, max_th {max_th}; expected min_th < mid_th < max_th"),
            ));
        }
        let w_q = weight(self.w_q, ptc);
        let target = self.adaptive.as_ref().map_or(2.0 * min_th, |a| threshold_value(a.target, 2.0 * min_th));
        if self.adaptive.is_some() && target <= min_th {
            return Err((
                "adaptive.target".into(),
                format!("is {target}, not above min_th {min_th}; expected a target above min_th"),
            ));
        }
        Ok(MecnSettings { min_th, mid_th, max_th, in_bytes, w_q, ptc, mean_pktsize: mean, target })
    }

    fn check(&self, path: &str, cx: &InstallCx) -> Result<(), ScenarioError> {
        let key = |k: &str| format!("{path}.{k}");
        check_fraction(cx, &key("max_p"), self.max_p, false)?;
        if let Some(p) = self.max_p2 {
            check_fraction(cx, &key("max_p2"), p, false)?;
        }
        if let Weight::Given(w) = self.w_q {
            check_fraction(cx, &key("w_q"), w, false)?;
        }
        check_packet_size(cx, &key("mean_packet_size"), self.mean_packet_size)?;
        if let Some(a) = &self.adaptive {
            check_fraction(cx, &key("adaptive.bottom"), a.bottom, false)?;
            check_fraction(cx, &key("adaptive.top"), a.top, false)?;
            if a.bottom > a.top {
                return Err(cx.err(
                    &key("adaptive.bottom"),
                    format!("{} is above top ({}); expected bottom ≤ top", a.bottom, a.top),
                ));
            }
            check_interval(cx, &key("adaptive.interval"), a.interval)?;
        }
        Ok(())
    }
}

impl Install for MecnParams {
    fn install(&self, path: &str, cx: &mut InstallCx) -> Result<(), ScenarioError> {
        self.check(path, cx)?;
        let settings = |rate_bps| self.settings(rate_bps);
        let make = |s: &MecnSettings, rate_bps, rng| super::Aqm::Mecn(Mecn::new(self, *s, rate_bps, rng));
        super::install_seeded(cx, path, &self.ports, "mecn", settings, make)
    }
}

/// Adaptive MECN's state.
#[derive(Clone, Copy, Debug, PartialEq)]
struct Adaptive {
    interval: Time,
    bottom: f64,
    top: f64,
    lastset: Time,
}

/// What an MECN queue did.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct MecnStats {
    /// Frames marked incipient (10).
    pub incipient: u64,
    /// Frames marked moderate (11).
    pub moderate: u64,
    /// Drops: severe congestion (average above max_th), a frame that could not be
    /// marked, or no room.
    pub drops: u64,
    /// Changes of Pmax.
    pub max_p_changes: u64,
}

/// One MECN queue.
#[derive(Clone, Debug, PartialEq)]
pub struct Mecn {
    s: MecnSettings,
    /// P1max now.
    pub max_p: f64,
    /// P2max now.
    pub max_p2: f64,
    p1_span: Span,
    incipient_above_mid: bool,
    gentle: bool,
    spread: bool,
    wait: bool,
    adaptive: Option<Adaptive>,
    /// The average queue.
    pub average: Average,
    count: u64,
    old: bool,
    rng: RngStream,
    /// Counters.
    pub stats: MecnStats,
}

impl Mecn {
    /// An MECN queue with `p`'s options and the settings on its link.
    pub fn new(p: &MecnParams, s: MecnSettings, rate_bps: u64, rng: RngStream) -> Self {
        Mecn {
            average: Average::new(s.w_q, s.ptc, rate_bps),
            s,
            max_p: p.max_p,
            max_p2: p.max_p2.unwrap_or(p.max_p),
            p1_span: p.p1_span,
            incipient_above_mid: p.incipient_above_mid,
            gentle: p.gentle,
            spread: p.spread,
            wait: p.wait,
            adaptive: p.adaptive.as_ref().map(|a| Adaptive {
                interval: a.interval.0,
                bottom: a.bottom,
                top: a.top,
                lastset: 0,
            }),
            count: 0,
            old: false,
            rng,
            stats: MecnStats::default(),
        }
    }

    /// The resolved settings.
    pub fn settings(&self) -> &MecnSettings {
        &self.s
    }

    /// The seed's Fig. 2: Pmax towards the target (both maxima by the same factor).
    fn adapt(&mut self, now: Time) {
        let Some(a) = &mut self.adaptive else { return };
        let (avg, target, min_th) = (self.average.avg, self.s.target, self.s.min_th);
        let factor = if avg > target && self.max_p <= a.top {
            1.0 + 0.25 * (avg - target) / target
        } else if avg < target && self.max_p >= a.bottom {
            1.0 - 0.17 * (target - avg) / (target - min_th)
        } else {
            return;
        };
        let new = (self.max_p * factor).clamp(a.bottom, a.top);
        if new == self.max_p {
            return;
        }
        let ratio = new / self.max_p;
        self.max_p = new;
        self.max_p2 = (self.max_p2 * ratio).min(1.0);
        a.lastset = now;
        self.stats.max_p_changes += 1;
    }

    /// The incipient curve p1 at the current average (0 below min_th).
    pub fn p1(&self) -> f64 {
        let avg = self.average.avg;
        let end = match self.p1_span {
            Span::Max => self.s.max_th,
            Span::Mid => self.s.mid_th,
        };
        (self.max_p * (avg - self.s.min_th) / (end - self.s.min_th)).clamp(0.0, self.max_p)
    }

    /// The moderate curve p2 (0 below mid_th).
    pub fn p2(&self) -> f64 {
        let avg = self.average.avg;
        (self.max_p2 * (avg - self.s.mid_th) / (self.s.max_th - self.s.mid_th)).clamp(0.0, self.max_p2)
    }

    fn spread(&self, p: f64) -> f64 {
        if self.spread {
            spread(p, self.count, 0, 1, self.wait, false, 0)
        } else {
            p
        }
    }

    /// The level this arrival is marked with (0 none, 1 incipient, 2 moderate, 3 drop).
    fn decide(&mut self) -> u8 {
        let avg = self.average.avg;
        let (min_th, mid_th, max_th) = (self.s.min_th, self.s.mid_th, self.s.max_th);
        if avg >= max_th {
            if !self.gentle || avg >= 2.0 * max_th {
                return 3;
            }
            let p = self.max_p2 + (1.0 - self.max_p2) * (avg - max_th) / max_th;
            return if self.rng.uniform() < p { 3 } else { 2 };
        }
        if avg >= mid_th {
            if self.rng.uniform() < self.spread(self.p2()) {
                return 2;
            }
            if !self.incipient_above_mid {
                return 0;
            }
        }
        if avg >= min_th && self.rng.uniform() < self.spread(self.p1()) {
            return 1;
        }
        0
    }

    /// A frame is offered.
    pub fn on_enqueue(&mut self, queue: QueueView, frame: &mut Frame, now: Time) -> Verdict {
        let (q, qlen) = if self.s.in_bytes {
            (queue.bytes as f64, queue.bytes)
        } else {
            (queue.frames as f64, queue.frames)
        };
        self.average.update(q, now);
        if let Some(a) = &self.adaptive {
            if now > a.lastset + a.interval {
                self.adapt(now);
            }
        }
        self.count += 1;
        let mut level = 0;
        if self.average.avg >= self.s.min_th && qlen > 1 {
            if self.old || self.average.avg >= self.s.max_th {
                level = self.decide();
            } else {
                // The first arrival above min_th starts the count, untested (as ns-2's RED).
                self.count = 1;
                self.old = true;
            }
        } else {
            self.old = false;
        }
        if level > 0 {
            self.count = 0;
        }
        let (verdict, codepoint) = match (level, frame.ecn) {
            (0, e) => (Verdict::Enqueue, e),
            (3, e) | (_, e @ Ecn::NotEct) => (Verdict::Drop, e),
            (1, Ecn::Ect1) => (Verdict::Mark, Ecn::Ect0),
            (1, e) => (Verdict::Enqueue, e), // already at 10 or 11: a mark only raises
            (_, _) => (Verdict::Mark, Ecn::Ce),
        };
        if verdict == Verdict::Drop || !queue.admits(frame.size) {
            self.stats.drops += 1;
            return Verdict::Drop;
        }
        match level {
            1 => self.stats.incipient += 1,
            2 => self.stats.moderate += 1,
            _ => {}
        }
        if queue.straight_through {
            self.average.sent_alone(frame.size, now);
        }
        frame.ecn = codepoint;
        verdict
    }

    /// A frame left; `queue` is what stays.
    pub fn on_dequeue(&mut self, queue: QueueView, frame: &Frame, now: Time) {
        if queue.frames == 0 {
            self.average.sent_alone(frame.size, now);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::{StreamKey, PS_PER_S};
    use crate::net::Capacity;

    /// The seed's dumbbell: min 5, mid 10, max 15 frames, w_q 0.0027, 1.5 Mbit/s.
    fn params(adaptive: bool) -> MecnParams {
        let mut p: MecnParams = toml::from_str(
            r#"min_th = "5 frames"
               mid_th = "10 frames"
               max_th = "15 frames"
               w_q = 0.0027"#,
        )
        .unwrap();
        if adaptive {
            p.adaptive = Some(toml::from_str("").unwrap());
        }
        p
    }

    fn mecn(p: &MecnParams) -> Mecn {
        let s = p.settings(1_500_000).unwrap();
        Mecn::new(p, s, 1_500_000, RngStream::new(1, StreamKey { kind: "mecn", name: "t" }))
    }

    fn view(frames: u64) -> QueueView {
        QueueView { straight_through: false, frames, bytes: frames * 1000, capacity: Capacity::Frames(40) }
    }

    /// The curves: p1 = Pmax·(avg − min_th)/(max_th − min_th) (the seed's Eq. 1), p2 from
    /// mid_th; with p1_span = "mid", p1 reaches Pmax at mid_th.
    #[test]
    fn marking_curves() {
        let mut m = mecn(&params(false));
        m.average.avg = 10.0;
        assert!((m.p1() - 0.05).abs() < 1e-12);
        assert_eq!(m.p2(), 0.0);
        m.average.avg = 12.5;
        assert!((m.p1() - 0.075).abs() < 1e-12);
        assert!((m.p2() - 0.05).abs() < 1e-12);
        m.p1_span = Span::Mid;
        m.average.avg = 7.5;
        assert!((m.p1() - 0.05).abs() < 1e-12);
        m.average.avg = 12.0;
        assert_eq!(m.p1(), 0.1);
    }

    /// Codepoints: 01 → 10 (incipient) or 11 (moderate); a mark never lowers a level; a
    /// frame that is not MECN-capable is dropped instead; above max_th every frame is
    /// dropped.
    #[test]
    fn levels_and_codepoints() {
        let mut p = params(false);
        p.spread = false;
        p.max_p = 1.0;
        p.w_q = Weight::Given(1.0); // avg = q
        let mut m = mecn(&p);
        // The verdict and the codepoint the frame leaves with.
        let offer = |m: &mut Mecn, q: u64, ecn: Ecn, i: u64| {
            let mut frame = Frame { size: 1000, ecn, ..Frame::default() };
            (m.on_enqueue(view(q), &mut frame, i), frame.ecn)
        };
        m.old = true;
        // avg 9: only the incipient curve, p1 = 0.4: some marks, all 10.
        let mut seen = [0; 3];
        for i in 0..2000 {
            match offer(&mut m, 9, Ecn::Ect1, i) {
                (Verdict::Enqueue, Ecn::Ect1) => seen[0] += 1,
                (Verdict::Mark, Ecn::Ect0) => seen[1] += 1,
                v => panic!("{v:?}"),
            }
        }
        let rate = seen[1] as f64 / 2000.0;
        assert!((rate - 0.4).abs() < 0.04, "{rate}");
        // avg 14: p2 = 0.8 first, then p1 = 0.9 of the rest.
        let (mut inc, mut modr) = (0, 0);
        for i in 0..2000 {
            match offer(&mut m, 14, Ecn::Ect1, i) {
                (Verdict::Mark, Ecn::Ect0) => inc += 1,
                (Verdict::Mark, Ecn::Ce) => modr += 1,
                _ => {}
            }
        }
        assert!((modr as f64 / 2000.0 - 0.8).abs() < 0.04, "{modr}");
        assert!((inc as f64 / 2000.0 - 0.18).abs() < 0.04, "{inc}");
        // Already 11 upstream: incipient decisions leave it, moderate ones keep it 11.
        for i in 0..200 {
            let v = offer(&mut m, 14, Ecn::Ce, i);
            assert!(matches!(v, (Verdict::Enqueue | Verdict::Mark, Ecn::Ce)), "{v:?}");
        }
        // Not MECN-capable: dropped where it would be marked.
        let drops = (0..1000).filter(|&i| offer(&mut m, 14, Ecn::NotEct, i).0 == Verdict::Drop).count();
        assert!(drops > 900, "{drops}");
        // Severe congestion.
        assert_eq!(offer(&mut m, 16, Ecn::Ect1, 0).0, Verdict::Drop);
    }

    /// Automatic settings: mid_th = 2.25·min_th, max_th = 3·min_th, target 2·min_th,
    /// w_q = 1 − exp(−1/C).
    #[test]
    fn automatic_settings() {
        let mut p: MecnParams = toml::from_str(r#"mean_packet_size = "1000B""#).unwrap();
        p.adaptive = Some(toml::from_str("").unwrap());
        p.target_delay = Duration(40 * crate::engine::PS_PER_MS);
        let s = p.settings(7_000_000).unwrap(); // C = 875 packets/s
        assert!((s.min_th - 17.5).abs() < 1e-9);
        assert!((s.mid_th - 39.375).abs() < 1e-9);
        assert!((s.max_th - 52.5).abs() < 1e-9);
        assert!((s.target - 35.0).abs() < 1e-9);
        assert!((s.w_q - (1.0 - (-1.0f64 / 875.0).exp())).abs() < 1e-15);
    }

    /// The seed's Fig. 2 on hand-computed values (min_th 5, target 10).
    #[test]
    fn adaptation_steps() {
        let mut m = mecn(&params(true));
        let t = PS_PER_S;
        // avg 12 > 10: α = 0.25·(2/10)·0.1 = 0.005.
        m.average.avg = 12.0;
        m.adapt(t);
        assert!((m.max_p - 0.105).abs() < 1e-12);
        assert!((m.max_p2 - 0.105).abs() < 1e-12, "both maxima move");
        // avg 7.5 < 10: β = 1 − 0.17·2.5/5 = 0.915.
        m.max_p = 0.1;
        m.average.avg = 7.5;
        m.adapt(2 * t);
        assert!((m.max_p - 0.0915).abs() < 1e-12);
        // avg 0: β = 0.66, below ARED's 0.83 floor.
        m.max_p = 0.1;
        m.average.avg = 0.0;
        m.adapt(3 * t);
        assert!((m.max_p - 0.066).abs() < 1e-12);
        // Kept within [0.01, 0.5].
        m.max_p = 0.011;
        m.adapt(4 * t);
        assert_eq!(m.max_p, 0.01);
        m.max_p = 0.45;
        m.average.avg = 30.0;
        m.adapt(5 * t);
        assert_eq!(m.max_p, 0.5);
        assert_eq!(m.adaptive.unwrap().lastset, 5 * t);
    }
}
