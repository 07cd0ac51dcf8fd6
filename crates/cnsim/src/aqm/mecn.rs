//! Multi-level ECN (Durresi, Sridharan, Liu, Goyal & Jain 2001) and Adaptive MECN
//! (Sridharan, Durresi & Jain), reference l3-tcp.md §4.
//!
//! The router keeps RED's average queue ([`super::red::Average`]) and three thresholds.
//! Below min_th nothing happens; from min_th the two ECN bits of an MECN-capable frame
//! (01) are raised to 10, *incipient congestion*, with probability
//! p1 = P1max·(avg − min_th)/(max_th − min_th) (the seed's Eq. 1; `p1_span = "mid"`
//! reaches P1max at mid_th instead); from mid_th to 11, *moderate congestion*, with
//! p2 = P2max·(avg − mid_th)/(max_th − mid_th) (and, failing that, to 10 with p1:
//! `incipient_above_mid`); above max_th the frame is dropped, *severe congestion*, the
//! fourth level (with `gentle`, dropped with a probability rising from P2max to 1 at
//! 2·max_th, else marked 11; with `above_max = "mark"`, marked 11, the seed's "all
//! packets are marked" read literally). A mark only raises a level a router upstream
//! set. A frame that is not MECN-capable is dropped where it would be marked. Marks are
//! spread by the count of arrivals since the last one as RED spreads them (`wait`,
//! `spread`).
//!
//! **Adaptive MECN** (the seed's Fig. 2): every `interval`, on the first arrival after
//! it (as ns-2's Adaptive RED runs; the seed does not say), Pmax moves when the average
//! lies outside the target range [min_th + 0.4·(max_th − min_th), min_th + 0.6·(max_th −
//! min_th)] (`range`; `"point"`: whenever it differs from the target): above it
//! Pmax += α with α = 0.25·((avg − target)/target)·Pmax, below it Pmax ·= β with
//! β = 1 − 0.17·(target − avg)/(target − min_th) (`error_from = "edges"` puts the range's
//! upper or lower edge in place of the target), Pmax kept in [`bottom`, `top`] =
//! [0.01, 0.5]. Both maxima move by the same factor (the seed adapts one Pmax).
//! Automatic settings: w_q = 1 − exp(−1/C), min_th from the target delay as ARED's
//! (max(5, target_delay·C/2) packets), mid_th = 2.25·min_th, max_th = 3·min_th,
//! target = 2·min_th.

use serde::{Deserialize, Serialize};

use super::red::{
    auto_min_th, check_fraction, check_interval, check_packet_size, half_second, max_p, mean_packet_size,
    packets_per_second, spread, target_delay, threshold_unit, threshold_value, top, weight, yes, Average,
    Threshold, Weight,
};
use super::{QueueView, Verdict};
use crate::engine::{RngStream, Time};
use crate::units::select::PortSel;
use crate::units::{Duration, Size};
use crate::wire::{Ecn, Frame};

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

/// What happens to an arrival while the average is at or above max_th (without `gentle`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum AboveMax {
    /// Dropped: severe congestion, the fourth level the seed counts ("with packet-drop,
    /// four different levels of congestion"), in its "marking/dropping policy".
    #[default]
    Drop,
    /// Marked 11, as the seed's "above the max_th all packets are marked" reads
    /// literally; only a full buffer drops.
    Mark,
}

/// Where Adaptive MECN leaves Pmax alone.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Band {
    /// Only at the target itself: Pmax moves whenever the average differs from it.
    Point,
    /// [min_th + lo·(max_th − min_th), min_th + hi·(max_th − min_th)] (the seed's Fig. 2:
    /// 0.4 and 0.6).
    Range(f64, f64),
}

impl Default for Band {
    fn default() -> Self {
        Band::Range(0.4, 0.6)
    }
}

impl<'de> Deserialize<'de> for Band {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V;
        impl<'de> serde::de::Visitor<'de> for V {
            type Value = Band;
            fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
                write!(f, "\"point\" or two fractions [lo, hi], e.g. [0.4, 0.6]")
            }
            fn visit_str<E: serde::de::Error>(self, s: &str) -> Result<Band, E> {
                if s == "point" {
                    Ok(Band::Point)
                } else {
                    Err(E::custom(format!("\"{s}\" is not \"point\"; expected \"point\" or [lo, hi]")))
                }
            }
            fn visit_seq<A: serde::de::SeqAccess<'de>>(self, mut seq: A) -> Result<Band, A::Error> {
                let lo: f64 =
                    seq.next_element()?.ok_or_else(|| serde::de::Error::invalid_length(0, &self))?;
                let hi: f64 =
                    seq.next_element()?.ok_or_else(|| serde::de::Error::invalid_length(1, &self))?;
                if seq.next_element::<f64>()?.is_some() {
                    return Err(serde::de::Error::invalid_length(3, &self));
                }
                Ok(Band::Range(lo, hi))
            }
        }
        d.deserialize_any(V)
    }
}

impl Serialize for Band {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        match *self {
            Band::Point => s.serialize_str("point"),
            Band::Range(lo, hi) => [lo, hi].serialize(s),
        }
    }
}

/// What Adaptive MECN's α and β measure the average's distance from.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum ErrorFrom {
    /// The target (the seed's "targetqueue = 2·min_th", by which §III-C scales β to 1
    /// and α to 0).
    #[default]
    Target,
    /// The range's edge that was crossed: the upper for α, the lower for β (Fig. 2's
    /// "target" read as the range throughout, so that α and β start from 0 and 1 at its
    /// edges rather than jumping there).
    Edges,
}

/// Adaptive MECN (`[protocols.mecn.adaptive]`).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct AdaptiveParams {
    /// Least time between two changes of Pmax (0.5 s).
    #[serde(default = "half_second")]
    pub(crate) interval: Duration,
    /// Target average; "auto": 2·min_th.
    #[serde(default)]
    pub(crate) target: Threshold,
    /// Where Pmax stays put: the seed's range [0.4, 0.6] of the way from min_th to
    /// max_th, or "point".
    #[serde(default)]
    pub(crate) range: Band,
    /// What α and β measure the error from.
    #[serde(default)]
    pub(crate) error_from: ErrorFrom,
    /// Pmax is kept at or above this (0.01).
    #[serde(default = "bottom")]
    pub(crate) bottom: f64,
    /// Pmax is kept at or below this (0.5).
    #[serde(default = "top")]
    pub(crate) top: f64,
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
    pub(crate) ports: PortSel,
    /// min_th; "auto": max(5, target_delay·C/2) frames.
    #[serde(default)]
    pub(crate) min_th: Threshold,
    /// mid_th; "auto": 2.25·min_th.
    #[serde(default)]
    pub(crate) mid_th: Threshold,
    /// max_th; "auto": 3·min_th.
    #[serde(default)]
    pub(crate) max_th: Threshold,
    /// P1max, the incipient curve's maximum (the one Pmax the seed adapts).
    #[serde(default = "max_p")]
    pub(crate) max_p: f64,
    /// P2max, the moderate curve's; absent: equal to max_p.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(crate) max_p2: Option<f64>,
    /// Where the incipient curve reaches P1max.
    #[serde(default)]
    pub(crate) p1_span: Span,
    /// Between mid_th and max_th, a frame not marked 11 may still be marked 10 with p1.
    #[serde(default = "yes")]
    pub(crate) incipient_above_mid: bool,
    /// Above max_th, drop with a probability rising from P2max to 1 at 2·max_th (and mark
    /// 11 otherwise), rather than always.
    #[serde(default)]
    pub(crate) gentle: bool,
    /// Above max_th (without `gentle`): drop every arrival, or mark it 11.
    #[serde(default)]
    pub(crate) above_max: AboveMax,
    /// Spread marks by the count since the last one, as RED does.
    #[serde(default = "yes")]
    pub(crate) spread: bool,
    /// ns-2's wait_ form of that spreading.
    #[serde(default = "yes")]
    pub(crate) wait: bool,
    /// w_q.
    #[serde(default)]
    pub(crate) w_q: Weight,
    /// Packet size converting the link rate to packets per second.
    #[serde(default = "mean_packet_size")]
    pub(crate) mean_packet_size: Size,
    /// Target queueing delay for automatic thresholds.
    #[serde(default = "target_delay")]
    pub(crate) target_delay: Duration,
    /// Adaptive MECN.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(crate) adaptive: Option<AdaptiveParams>,
}

/// The resolved thresholds and weights of one MECN queue.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct MecnSettings {
    /// Thresholds in frames or bytes.
    pub(crate) min_th: f64,
    /// See `min_th`.
    pub(crate) mid_th: f64,
    /// See `min_th`.
    pub(crate) max_th: f64,
    /// Whether they count bytes.
    pub(crate) in_bytes: bool,
    /// EWMA weight.
    pub(crate) w_q: f64,
    /// Mean-sized packets per second.
    pub(crate) ptc: f64,
    /// Mean packet size, bytes.
    pub(crate) mean_pktsize: u64,
    /// Adaptive MECN's target average.
    pub(crate) target: f64,
    /// Adaptive MECN's range, (lower, upper) edge: Pmax stays put within it.
    pub(crate) band: (f64, f64),
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
        let band = match self.adaptive.as_ref().map(|a| a.range) {
            Some(Band::Range(lo, hi)) => (min_th + lo * (max_th - min_th), min_th + hi * (max_th - min_th)),
            _ => (target, target),
        };
        let edges = self.adaptive.as_ref().is_some_and(|a| a.error_from == ErrorFrom::Edges);
        if edges && band.0 <= min_th {
            return Err((
                "adaptive.range".into(),
                format!("puts the lower edge at min_th ({min_th}); expected it above min_th with error_from = \"edges\""),
            ));
        }
        if !(band.0 <= target && target <= band.1) {
            return Err((
                "adaptive.range".into(),
                format!(
                    "gives [{}, {}], which does not hold the target {target}; expected a range around the target",
                    band.0, band.1
                ),
            ));
        }
        Ok(MecnSettings { min_th, mid_th, max_th, in_bytes, w_q, ptc, mean_pktsize: mean, target, band })
    }

    /// The rules across keys; `Err` names the key under the table.
    pub fn check(&self) -> Result<(), (String, String)> {
        check_fraction("max_p", self.max_p, false)?;
        if let Some(p) = self.max_p2 {
            check_fraction("max_p2", p, false)?;
        }
        if let Weight::Given(w) = self.w_q {
            check_fraction("w_q", w, false)?;
        }
        check_packet_size("mean_packet_size", self.mean_packet_size)?;
        if let Some(a) = &self.adaptive {
            check_fraction("adaptive.bottom", a.bottom, false)?;
            check_fraction("adaptive.top", a.top, false)?;
            if a.bottom > a.top {
                return Err((
                    "adaptive.bottom".into(),
                    format!("{} is above top ({}); expected bottom ≤ top", a.bottom, a.top),
                ));
            }
            check_interval("adaptive.interval", a.interval)?;
            if let Band::Range(lo, hi) = a.range {
                let fraction = |v: f64| v.is_finite() && (0.0..=1.0).contains(&v);
                if !(fraction(lo) && fraction(hi) && lo <= hi) {
                    return Err((
                        "adaptive.range".into(),
                        format!("[{lo}, {hi}] is out of range; expected 0 ≤ lo ≤ hi ≤ 1"),
                    ));
                }
            }
        }
        if self.gentle && self.above_max == AboveMax::Mark {
            return Err((
                "above_max".into(),
                "\"mark\" with gentle = true; expected one of them: gentle decides above max_th by a probability"
                    .into(),
            ));
        }
        Ok(())
    }
}

/// Adaptive MECN's state.
#[derive(Clone, Copy, Debug, PartialEq)]
struct Adaptive {
    interval: Time,
    bottom: f64,
    top: f64,
    error_from: ErrorFrom,
    lastset: Time,
}

/// What an MECN queue did.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct MecnStats {
    /// Frames marked incipient (10).
    pub(crate) incipient: u64,
    /// Frames marked moderate (11).
    pub(crate) moderate: u64,
    /// Drops: severe congestion (average above max_th), a frame that could not be
    /// marked, or no room.
    pub(crate) drops: u64,
    /// Changes of Pmax.
    pub(crate) max_p_changes: u64,
}

/// One MECN queue.
#[derive(Clone, Debug, PartialEq)]
pub struct Mecn {
    s: MecnSettings,
    /// P1max now.
    pub(crate) max_p: f64,
    /// P2max now.
    pub(crate) max_p2: f64,
    p1_span: Span,
    incipient_above_mid: bool,
    gentle: bool,
    above_max: AboveMax,
    spread: bool,
    wait: bool,
    adaptive: Option<Adaptive>,
    /// The average queue.
    pub(crate) average: Average,
    count: u64,
    old: bool,
    rng: RngStream,
    /// Counters.
    pub(crate) stats: MecnStats,
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
            above_max: p.above_max,
            spread: p.spread,
            wait: p.wait,
            adaptive: p.adaptive.as_ref().map(|a| Adaptive {
                interval: a.interval.0,
                bottom: a.bottom,
                top: a.top,
                error_from: a.error_from,
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

    /// The seed's Fig. 2: Pmax towards the target range (both maxima by the same factor).
    fn adapt(&mut self, now: Time) {
        let Some(a) = &mut self.adaptive else { return };
        let (avg, min_th) = (self.average.avg, self.s.min_th);
        let (lo, hi) = self.s.band;
        let (up, down) = match a.error_from {
            ErrorFrom::Target => (self.s.target, self.s.target),
            ErrorFrom::Edges => (hi, lo),
        };
        let factor = if avg > hi && self.max_p <= a.top {
            1.0 + 0.25 * (avg - up) / up
        } else if avg < lo && self.max_p >= a.bottom {
            1.0 - 0.17 * (down - avg) / (down - min_th)
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
            if !self.gentle && self.above_max == AboveMax::Mark {
                return 2;
            }
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
        // Read literally, "all packets are marked" above max_th: 11, and only a frame
        // that cannot be marked is dropped.
        m.above_max = AboveMax::Mark;
        let (moderate, drops) = (m.stats.moderate, m.stats.drops);
        for i in 0..100 {
            assert_eq!(offer(&mut m, 16, Ecn::Ect1, i), (Verdict::Mark, Ecn::Ce));
        }
        assert_eq!(m.stats.moderate, moderate + 100, "counted as moderate marks");
        assert_eq!(m.stats.drops, drops);
        assert_eq!(offer(&mut m, 16, Ecn::NotEct, 0).0, Verdict::Drop);
        // A full buffer still drops.
        let mut frame = Frame { size: 1000, ecn: Ecn::Ect1, ..Frame::default() };
        assert_eq!(m.on_enqueue(view(40), &mut frame, 0), Verdict::Drop);
    }

    /// `above_max = "mark"` and `gentle` are two answers to one question: together they
    /// are an error, each alone is not.
    #[test]
    fn above_max_mark_excludes_gentle() {
        let text = |extra: &str| {
            format!(
                "name = \"t\"\nduration = \"1ms\"\n[topology.dumbbell]\nsenders = 1\nreceivers = 1\n\
                 sender_link = {{ rate = \"10Mbps\", delay = \"1ms\" }}\n\
                 bottleneck = {{ rate = \"1.5Mbps\", delay = \"1ms\" }}\n\
                 receiver_link = {{ rate = \"10Mbps\", delay = \"1ms\" }}\n\
                 [protocols.mecn]\nports = [\"r1->r2\"]\nmin_th = \"5 frames\"\nmid_th = \"10 frames\"\n\
                 max_th = \"15 frames\"\n{extra}"
            )
        };
        let build = |extra: &str| {
            let s = crate::scenario::parse(&text(extra), "t", &[]).unwrap();
            crate::scenario::build(&s, "t").map(|_| ())
        };
        build("above_max = \"mark\"").unwrap();
        build("gentle = true").unwrap();
        let e = build("above_max = \"mark\"\ngentle = true").unwrap_err().to_string();
        assert!(e.contains("above_max"), "{e}");
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

    /// The target range (the seed's Fig. 2: [min_th + 0.4·(max_th − min_th), min_th +
    /// 0.6·(max_th − min_th)] = [9, 11] packets here) leaves Pmax alone inside it; the
    /// point reading moves it whenever avg ≠ 10; `error_from = "edges"` measures α and β
    /// from the edge crossed.
    #[test]
    fn target_range_point_and_edges() {
        let t = PS_PER_S;
        let mut m = mecn(&params(true));
        assert_eq!(m.settings().band, (9.0, 11.0));
        // Inside the range: no change.
        for (i, avg) in [9.0, 10.5, 11.0].into_iter().enumerate() {
            m.average.avg = avg;
            m.adapt((i as u64 + 1) * t);
            assert_eq!(m.max_p, 0.1, "avg {avg}");
        }
        // Above it, α from the target: 0.25·(1.5/10)·0.1 = 0.00375.
        m.average.avg = 11.5;
        m.adapt(5 * t);
        assert!((m.max_p - 0.10375).abs() < 1e-12, "{}", m.max_p);
        // Below it, β = 1 − 0.17·1.5/5 = 0.949.
        m.max_p = 0.1;
        m.average.avg = 8.5;
        m.adapt(6 * t);
        assert!((m.max_p - 0.0949).abs() < 1e-12, "{}", m.max_p);

        // The point reading: avg 10.5 moves Pmax by α = 0.25·(0.5/10)·0.1 = 0.00125.
        let mut p = params(true);
        p.adaptive.as_mut().unwrap().range = Band::Point;
        let mut m = mecn(&p);
        assert_eq!(m.settings().band, (10.0, 10.0));
        m.average.avg = 10.5;
        m.adapt(t);
        assert!((m.max_p - 0.10125).abs() < 1e-12, "{}", m.max_p);

        // From the edges: α = 0.25·(0.5/11)·0.1, β = 1 − 0.17·(9 − 8.5)/(9 − 5) = 0.97875.
        let mut p = params(true);
        p.adaptive.as_mut().unwrap().error_from = ErrorFrom::Edges;
        let mut m = mecn(&p);
        m.average.avg = 11.5;
        m.adapt(t);
        assert!((m.max_p - (0.1 + 0.25 * 0.5 / 11.0 * 0.1)).abs() < 1e-12, "{}", m.max_p);
        m.max_p = 0.1;
        m.average.avg = 8.5;
        m.adapt(2 * t);
        assert!((m.max_p - 0.097875).abs() < 1e-12, "{}", m.max_p);
    }

    /// The range parses as "point" or [lo, hi]; a range that leaves out the target, or
    /// (with error_from = "edges") starts at min_th, is refused.
    #[test]
    fn range_parsing_and_checks() {
        let a: AdaptiveParams = toml::from_str("range = \"point\"").unwrap();
        assert_eq!(a.range, Band::Point);
        let a: AdaptiveParams = toml::from_str("range = [0.3, 0.7]").unwrap();
        assert_eq!(a.range, Band::Range(0.3, 0.7));
        assert!(toml::from_str::<AdaptiveParams>("range = \"band\"").is_err());
        assert!(toml::from_str::<AdaptiveParams>("range = [0.3]").is_err());
        assert!(toml::from_str::<AdaptiveParams>("range = [0.3, 0.5, 0.7]").is_err());
        let mut p = params(true);
        p.adaptive.as_mut().unwrap().range = Band::Range(0.6, 0.8); // [11, 13] leaves out 10
        assert!(p.settings(1_500_000).is_err());
        p.adaptive.as_mut().unwrap().range = Band::Range(0.0, 0.6);
        p.settings(1_500_000).unwrap();
        p.adaptive.as_mut().unwrap().error_from = ErrorFrom::Edges;
        assert!(p.settings(1_500_000).is_err(), "β would divide by zero at min_th");
    }
}
