//! RED (Floyd & Jacobson 1993) and Adaptive RED (Floyd, Gummadi & Shenker 2001) as ns-2's
//! `queue/red.cc` does them (reference l3-tcp.md §1–2), in ns-2's order of operations.
//!
//! On every arrival:
//! 1. **Idle correction**: if the link went idle (ns-2: the transmitter asked for a frame
//!    and found none) at `idletime`, m = ⌊ptc·(now − idletime)⌋ mean-sized packets could
//!    have left since; ptc = link rate / (8·mean_pktsize).
//! 2. **EWMA**: avg ← avg·(1 − w_q)^(m+1) + w_q·q, q the queue before the arrival. Adaptive
//!    RED's max_p update runs here, on arrivals (ns-2 `updateMaxP`).
//! 3. count + 1. If avg ≥ min_th and the queue holds more than one frame (or byte): above
//!    max_th (2·max_th when gentle) a forced drop; the first arrival above min_th sets
//!    count = 1 and is not tested; later ones are tested with probability pa (below).
//!    Otherwise `old` is cleared.
//! 4. A queue that cannot take the frame drops it, whatever was decided.
//!
//! pb = max_p·(avg − min_th)/(max_th − min_th), on the gentle line from max_p₀ at max_th
//! to 1 at 2·max_th (ns-2 builds that line from the *initial* max_p₀ and keeps it when
//! Adaptive RED moves max_p: `gentle_line = "initial"`), and spread by the count since
//! the last mark: `wait` (ns-2's default) pa = 0 while c·pb < 1, pb/(2 − c·pb) below 2,
//! else 1; without it the paper's pb/(1 − c·pb). In byte mode c counts mean-sized
//! packets and pa scales with the frame's size. An early decision marks an ECN-capable
//! frame (CE) when `ecn` is on (and, with ns-2 ≥ 2005's `mark_p`, only while pb < mark_p),
//! and drops it otherwise.

use serde::{Deserialize, Serialize};

use super::{QueueView, Verdict};
use crate::engine::time::as_secs;
use crate::engine::time::serialization_time;
use crate::engine::{RngStream, Time};
use crate::units::select::PortSel;
use crate::units::{Duration, Size};
use crate::wire::{Ecn, Frame};

/// A threshold: given, or "auto" (ns-2's `thresh_ 0` / `maxthresh_ 0`).
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub enum Threshold {
    /// Computed from the link and the target delay.
    #[default]
    Auto,
    /// Frames or bytes (the unit decides whether the average counts frames or bytes).
    Given(Size),
}

/// The EWMA weight: given, or "auto" (1 − exp(−1/C), C the link in mean-sized packets
/// per second: a one-second time constant).
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub enum Weight {
    /// 1 − exp(−1/C).
    #[default]
    Auto,
    /// Given.
    Given(f64),
}

impl<'de> Deserialize<'de> for Threshold {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V;
        impl serde::de::Visitor<'_> for V {
            type Value = Threshold;
            fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
                write!(f, "\"auto\" or a size such as \"5 frames\" or \"15000B\"")
            }
            fn visit_str<E: serde::de::Error>(self, s: &str) -> Result<Threshold, E> {
                if s == "auto" {
                    return Ok(Threshold::Auto);
                }
                s.parse().map(Threshold::Given).map_err(|e: String| E::custom(format!("{e}, or \"auto\"")))
            }
            fn visit_i64<E: serde::de::Error>(self, v: i64) -> Result<Threshold, E> {
                Err(E::custom(format!("{v} has no unit; expected \"auto\" or a size, e.g. \"{v} frames\"")))
            }
            fn visit_u64<E: serde::de::Error>(self, v: u64) -> Result<Threshold, E> {
                self.visit_i64(v as i64)
            }
        }
        d.deserialize_any(V)
    }
}

impl Serialize for Threshold {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        match self {
            Threshold::Auto => s.serialize_str("auto"),
            Threshold::Given(size) => size.serialize(s),
        }
    }
}

impl<'de> Deserialize<'de> for Weight {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V;
        impl serde::de::Visitor<'_> for V {
            type Value = Weight;
            fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
                write!(f, "\"auto\" or a number in (0, 1]")
            }
            fn visit_str<E: serde::de::Error>(self, s: &str) -> Result<Weight, E> {
                if s == "auto" {
                    Ok(Weight::Auto)
                } else {
                    Err(E::custom(format!(
                        "\"{s}\" is not \"auto\"; expected \"auto\" or a number, e.g. 0.002"
                    )))
                }
            }
            fn visit_f64<E: serde::de::Error>(self, v: f64) -> Result<Weight, E> {
                Ok(Weight::Given(v))
            }
            fn visit_i64<E: serde::de::Error>(self, v: i64) -> Result<Weight, E> {
                Ok(Weight::Given(v as f64))
            }
            fn visit_u64<E: serde::de::Error>(self, v: u64) -> Result<Weight, E> {
                Ok(Weight::Given(v as f64))
            }
        }
        d.deserialize_any(V)
    }
}

impl Serialize for Weight {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        match self {
            Weight::Auto => s.serialize_str("auto"),
            Weight::Given(w) => s.serialize_f64(*w),
        }
    }
}

/// Where the gentle line between max_th and 2·max_th starts.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum GentleLine {
    /// At the initial max_p, as ns-2 and ns-3 compute it once (reference §1.4.1).
    #[default]
    Initial,
    /// At the current max_p (the papers' description).
    Current,
}

/// Adaptive RED (`[protocols.red.adaptive]`): max_p moves every `interval` to keep the
/// average in the middle of [min_th, max_th].
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct AdaptiveParams {
    /// Least time between two changes of max_p (ns-2 `interval_`, 0.5 s).
    #[serde(default = "half_second")]
    pub(crate) interval: Duration,
    /// Additive increase, capped at max_p/4 (ns-2 `alpha_`, 0.01).
    #[serde(default = "alpha")]
    pub(crate) alpha: f64,
    /// Multiplicative decrease (ns-2 `beta_`, 0.9).
    #[serde(default = "beta")]
    pub(crate) beta: f64,
    /// max_p grows only while below this (ns-2 `top_`, 0.5).
    #[serde(default = "top")]
    pub(crate) top: f64,
    /// max_p shrinks only while above this; "auto": min(0.01, 80000 bit/s ÷ link rate)
    /// (ns-2 `bottom_ 0`).
    #[serde(default)]
    pub(crate) bottom: Weight,
}

pub(super) fn half_second() -> Duration {
    Duration(crate::engine::PS_PER_S / 2)
}
fn alpha() -> f64 {
    0.01
}
fn beta() -> f64 {
    0.9
}
pub(super) fn top() -> f64 {
    0.5
}
pub(super) fn yes() -> bool {
    true
}
pub(super) fn max_p() -> f64 {
    0.1
}
pub(super) fn mean_packet_size() -> Size {
    Size::Bytes(500)
}
pub(super) fn target_delay() -> Duration {
    Duration(5 * crate::engine::PS_PER_MS)
}

/// Parameters of RED on egress queues (`[protocols.red]`).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RedParams {
    /// Egress ports whose queues run RED ("all", "switches", or port names).
    #[serde(default = "PortSel::switches")]
    pub(crate) ports: PortSel,
    /// min_th; "auto": max(5, target_delay·C/2) frames.
    #[serde(default)]
    pub(crate) min_th: Threshold,
    /// max_th; "auto": 3·min_th.
    #[serde(default)]
    pub(crate) max_th: Threshold,
    /// Initial max_p (ns-2 1/`linterm_`, 0.1).
    #[serde(default = "max_p")]
    pub(crate) max_p: f64,
    /// w_q.
    #[serde(default)]
    pub(crate) w_q: Weight,
    /// Gentle mode: pb rises from max_p to 1 between max_th and 2·max_th.
    #[serde(default = "yes")]
    pub(crate) gentle: bool,
    /// Where the gentle line starts once Adaptive RED has moved max_p.
    #[serde(default)]
    pub(crate) gentle_line: GentleLine,
    /// ns-2's `wait_`: no early action until count·pb ≥ 1.
    #[serde(default = "yes")]
    pub(crate) wait: bool,
    /// ns-2's `bytes_`: count in mean-sized packets, and pa scaled by frame size.
    #[serde(default)]
    pub(crate) byte_mode: bool,
    /// Packet size that converts the link rate to packets per second (ptc) and bytes to
    /// packets in byte mode (ns-2 `mean_pktsize_`, 500 bytes).
    #[serde(default = "mean_packet_size")]
    pub(crate) mean_packet_size: Size,
    /// Target queueing delay for automatic thresholds (ns-2 `targetdelay_`, 5 ms).
    #[serde(default = "target_delay")]
    pub(crate) target_delay: Duration,
    /// Mark ECN-capable frames instead of dropping them early (ns-2 `setbit_`).
    #[serde(default)]
    pub(crate) ecn: bool,
    /// Mark only while pb < mark_p, drop above (ns-2 ≥ 2005 `use_mark_p_`/`mark_p_`);
    /// absent: every early decision on an ECN-capable frame marks, and above max_th
    /// (2·max_th gentle) every arrival is dropped.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(crate) mark_p: Option<f64>,
    /// Adaptive RED.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(crate) adaptive: Option<AdaptiveParams>,
}

/// The resolved settings of one RED queue.
#[derive(Clone, Debug, PartialEq)]
pub struct RedSettings {
    /// Thresholds, in frames or bytes.
    pub(crate) min_th: f64,
    /// See `min_th`.
    pub(crate) max_th: f64,
    /// Whether the average, thresholds and q count bytes.
    pub(crate) in_bytes: bool,
    /// EWMA weight.
    pub(crate) w_q: f64,
    /// Mean-sized packets per second.
    pub(crate) ptc: f64,
    /// Mean packet size, bytes.
    pub(crate) mean_pktsize: u64,
}

/// Automatic w_q: 1 − exp(−1/C), C in packets per second (reference §2.3, `q_weight_ 0`).
pub fn auto_weight(ptc: f64) -> f64 {
    1.0 - crate::engine::math::exp(-1.0 / ptc)
}

/// Automatic min_th: max(5, target_delay·C/2) packets (reference §2.3).
pub fn auto_min_th(target_delay: Time, ptc: f64) -> f64 {
    (as_secs(target_delay) * ptc / 2.0).max(5.0)
}

/// The mean packet size in bytes and the link in mean-sized packets per second (ns-2's
/// ptc), for a link of `rate_bps`.
pub(super) fn packets_per_second(mean_packet_size: Size, rate_bps: u64) -> (u64, f64) {
    let mean = mean_packet_size.bytes(1).max(1);
    (mean, rate_bps as f64 / (8.0 * mean as f64))
}

/// Whether the given thresholds count bytes (all given ones must agree; "auto" ones
/// follow them, frames if none is given), or (key, message) naming the first that
/// disagrees.
pub(super) fn threshold_unit(thresholds: &[(&str, Threshold)]) -> Result<bool, (String, String)> {
    let mut given = thresholds.iter().filter_map(|&(k, t)| match t {
        Threshold::Given(s) => Some((k, matches!(s, Size::Bytes(_)))),
        Threshold::Auto => None,
    });
    let Some((first, in_bytes)) = given.next() else { return Ok(false) };
    match given.find(|g| g.1 != in_bytes) {
        Some((k, _)) => Err((
            k.to_string(),
            format!(
                "is in other units than {first}; expected every threshold in frames or every one in bytes"
            ),
        )),
        None => Ok(in_bytes),
    }
}

/// A threshold's value in its unit, `auto` when automatic.
pub(super) fn threshold_value(t: Threshold, auto: f64) -> f64 {
    match t {
        Threshold::Given(s) => s.value() as f64,
        Threshold::Auto => auto,
    }
}

/// The EWMA weight on a link of `ptc` packets per second.
pub(super) fn weight(w: Weight, ptc: f64) -> f64 {
    match w {
        Weight::Auto => auto_weight(ptc),
        Weight::Given(w) => w,
    }
}

/// `v` must lie in (0, 1] (or [0, 1] with `zero_allowed`).
pub(super) fn check_fraction(key: &str, v: f64, zero_allowed: bool) -> Result<(), (String, String)> {
    let ok = v.is_finite() && v <= 1.0 && if zero_allowed { v >= 0.0 } else { v > 0.0 };
    if ok {
        return Ok(());
    }
    let low = if zero_allowed { "[" } else { "(" };
    Err((key.into(), format!("{v} is out of range; expected a number in {low}0, 1]")))
}

/// The packet size behind ptc and byte conversions must be bytes above zero.
pub(super) fn check_packet_size(key: &str, size: Size) -> Result<(), (String, String)> {
    if matches!(size, Size::Bytes(b) if b > 0) {
        return Ok(());
    }
    Err((key.into(), format!("\"{size}\" is not a packet size; expected bytes above zero, e.g. \"1000B\"")))
}

/// An adaptation interval must be above zero.
pub(super) fn check_interval(key: &str, interval: Duration) -> Result<(), (String, String)> {
    if interval.0 > 0 {
        return Ok(());
    }
    Err((key.into(), "is 0s; expected a time above zero".into()))
}

impl RedParams {
    /// The settings on a link, or what is wrong (a message for `path`'s key).
    pub fn settings(&self, rate_bps: u64) -> Result<RedSettings, (String, String)> {
        let (mean, ptc) = packets_per_second(self.mean_packet_size, rate_bps);
        let in_bytes = threshold_unit(&[("min_th", self.min_th), ("max_th", self.max_th)])?;
        let scale = if in_bytes { mean as f64 } else { 1.0 };
        let min_th = threshold_value(self.min_th, auto_min_th(self.target_delay.0, ptc) * scale);
        let max_th = threshold_value(self.max_th, 3.0 * min_th);
        if max_th <= min_th {
            return Err((
                "max_th".into(),
                format!("is {max_th}, not above min_th {min_th}; expected max_th > min_th"),
            ));
        }
        Ok(RedSettings { min_th, max_th, in_bytes, w_q: weight(self.w_q, ptc), ptc, mean_pktsize: mean })
    }

    /// The rules across keys; `Err` names the key under the table.
    pub fn check(&self) -> Result<(), (String, String)> {
        check_fraction("max_p", self.max_p, false)?;
        if let Weight::Given(w) = self.w_q {
            check_fraction("w_q", w, false)?;
        }
        if let Some(m) = self.mark_p {
            check_fraction("mark_p", m, false)?;
        }
        check_packet_size("mean_packet_size", self.mean_packet_size)?;
        if let Some(a) = &self.adaptive {
            check_fraction("adaptive.alpha", a.alpha, false)?;
            check_fraction("adaptive.beta", a.beta, false)?;
            check_fraction("adaptive.top", a.top, false)?;
            if let Weight::Given(b) = a.bottom {
                check_fraction("adaptive.bottom", b, true)?;
            }
            check_interval("adaptive.interval", a.interval)?;
        }
        Ok(())
    }
}

/// Adaptive RED's state.
#[derive(Clone, Debug, PartialEq)]
struct Adaptive {
    interval: Time,
    alpha: f64,
    beta: f64,
    top: f64,
    bottom: f64,
    lastset: Time,
}

/// What a RED queue did.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct RedStats {
    /// Early drops (the random test fired on a frame that is not marked).
    pub(crate) early_drops: u64,
    /// Forced drops: the average above max_th (2·max_th gentle), or no room.
    pub(crate) forced_drops: u64,
    /// Frames marked CE.
    pub(crate) marks: u64,
    /// Changes of max_p (Adaptive RED).
    pub(crate) max_p_changes: u64,
}

/// One RED queue.
#[derive(Clone, Debug, PartialEq)]
pub struct Red {
    s: RedSettings,
    max_p0: f64,
    /// Current max_p (moves under Adaptive RED).
    pub(crate) cur_max_p: f64,
    gentle: bool,
    gentle_line: GentleLine,
    wait: bool,
    byte_mode: bool,
    ecn: bool,
    mark_p: Option<f64>,
    adaptive: Option<Adaptive>,
    /// The average queue.
    pub(crate) average: Average,
    count: u64,
    count_bytes: u64,
    old: bool,
    rng: RngStream,
    /// Counters.
    pub(crate) stats: RedStats,
}

impl Red {
    /// Whether it marks ECN-capable frames (else it drops early).
    pub fn marks(&self) -> bool {
        self.ecn
    }

    /// A RED queue with `p`'s options and resolved settings, serving a link of `rate_bps`.
    pub fn new(p: &RedParams, s: RedSettings, rate_bps: u64, rng: RngStream) -> Self {
        let adaptive = p.adaptive.as_ref().map(|a| Adaptive {
            interval: a.interval.0,
            alpha: a.alpha,
            beta: a.beta,
            top: a.top,
            bottom: match a.bottom {
                Weight::Given(b) => b,
                Weight::Auto => (80_000.0 / rate_bps as f64).min(0.01),
            },
            lastset: 0,
        });
        Red {
            average: Average::new(s.w_q, s.ptc, rate_bps),
            s,
            max_p0: p.max_p,
            cur_max_p: p.max_p,
            gentle: p.gentle,
            gentle_line: p.gentle_line,
            wait: p.wait,
            byte_mode: p.byte_mode,
            ecn: p.ecn,
            mark_p: p.mark_p,
            adaptive,
            count: 0,
            count_bytes: 0,
            old: false,
            rng,
            stats: RedStats::default(),
        }
    }

    /// The resolved settings.
    pub fn settings(&self) -> &RedSettings {
        &self.s
    }

    /// Steps 1–2: the idle correction and the EWMA over `q` (the queue before the
    /// arrival), then Adaptive RED's check.
    fn estimate(&mut self, q: f64, now: Time) {
        self.average.update(q, now);
        if let Some(a) = &self.adaptive {
            if now > a.lastset + a.interval {
                self.update_max_p(now);
            }
        }
    }

    /// ns-2 `updateMaxP`: below the band's lower edge max_p ← max_p·β, above its upper
    /// edge max_p ← max_p + min(α, max_p/4); the band is the middle fifth of
    /// [min_th, max_th]. `lastset` moves only when max_p does.
    fn update_max_p(&mut self, now: Time) {
        let Some(a) = &mut self.adaptive else { return };
        let part = 0.4 * (self.s.max_th - self.s.min_th);
        let avg = self.average.avg;
        if avg < self.s.min_th + part && self.cur_max_p > a.bottom {
            self.cur_max_p *= a.beta;
        } else if avg > self.s.max_th - part && a.top > self.cur_max_p {
            self.cur_max_p += a.alpha.min(0.25 * self.cur_max_p);
        } else {
            return;
        }
        a.lastset = now;
        self.stats.max_p_changes += 1;
    }

    /// ns-2 `calculate_p_new`: the base probability pb at the current average.
    pub fn base_probability(&self) -> f64 {
        let (avg, min_th, max_th) = (self.average.avg, self.s.min_th, self.s.max_th);
        let p = if avg >= max_th {
            if self.gentle {
                let p0 = match self.gentle_line {
                    GentleLine::Initial => self.max_p0,
                    GentleLine::Current => self.cur_max_p,
                };
                (1.0 - p0) / max_th * avg + (2.0 * p0 - 1.0)
            } else {
                1.0
            }
        } else {
            self.cur_max_p * (avg - min_th) / (max_th - min_th)
        };
        p.min(1.0)
    }

    /// ns-2 `modify_p`: pb spread by the count since the last mark, and scaled by the
    /// frame's size in byte mode.
    pub fn spread(&self, pb: f64, size: u32) -> f64 {
        spread(pb, self.count, self.count_bytes, self.s.mean_pktsize, self.wait, self.byte_mode, size)
    }

    /// A frame is offered.
    pub fn on_enqueue(&mut self, queue: QueueView, frame: &mut Frame, now: Time) -> Verdict {
        let (q, qlen) = if self.s.in_bytes {
            (queue.bytes as f64, queue.bytes)
        } else {
            (queue.frames as f64, queue.frames)
        };
        self.estimate(q, now);
        self.count += 1;
        self.count_bytes += u64::from(frame.size);
        let mut verdict = Verdict::Enqueue;
        let mut forced = false;
        let avg = self.average.avg;
        if avg >= self.s.min_th && qlen > 1 {
            let above = if self.gentle { 2.0 * self.s.max_th } else { self.s.max_th };
            if self.mark_p.is_none() && avg >= above {
                forced = true;
            } else if !self.old {
                self.count = 1;
                self.count_bytes = u64::from(frame.size);
                self.old = true;
            } else {
                let pb = self.base_probability();
                let pa = self.spread(pb, frame.size);
                if self.rng.uniform() < pa {
                    self.count = 0;
                    self.count_bytes = 0;
                    let may_mark = self.ecn && frame.ecn.capable() && self.mark_p.is_none_or(|m| pb < m);
                    verdict = if may_mark { Verdict::Mark } else { Verdict::Drop };
                }
            }
        } else {
            self.old = false;
        }
        if forced || !queue.admits(frame.size) {
            self.count = 0;
            self.count_bytes = 0;
            self.stats.forced_drops += 1;
            return Verdict::Drop;
        }
        match verdict {
            Verdict::Drop => self.stats.early_drops += 1,
            Verdict::Mark => {
                frame.ecn = Ecn::Ce;
                self.stats.marks += 1;
            }
            Verdict::Enqueue => {}
        }
        if verdict != Verdict::Drop && queue.straight_through {
            self.average.sent_alone(frame.size, now);
        }
        verdict
    }

    /// A frame left for the wire; `queue` is what stays. When nothing stays, the link
    /// asks for the next frame, and finds none, once this one is sent (ns-2 `idle_`).
    pub fn on_dequeue(&mut self, queue: QueueView, frame: &Frame, now: Time) {
        if queue.frames == 0 {
            self.average.sent_alone(frame.size, now);
        }
    }
}

/// The average queue as ns-2's RED estimates it: an EWMA over the queue seen by each
/// arrival, decayed over the time the link stood idle as if mean-sized packets had
/// arrived to an empty queue at the link's rate (reference §1.4 steps 1–2, step 8).
#[derive(Clone, Debug, PartialEq)]
pub struct Average {
    /// The average, frames or bytes.
    pub(crate) avg: f64,
    w_q: f64,
    ptc: f64,
    rate_bps: u64,
    /// Since when the link has stood idle, if it does (idle from the start).
    pub(crate) idle_since: Option<Time>,
}

impl Average {
    /// An average of weight `w_q` over a link of `ptc` mean-sized packets per second
    /// (`rate_bps`).
    pub fn new(w_q: f64, ptc: f64, rate_bps: u64) -> Self {
        Average { avg: 0.0, w_q, ptc, rate_bps, idle_since: Some(0) }
    }

    /// An arrival sees `q`: m = ⌊ptc·idle time⌋ if the link stood idle, then
    /// avg ← avg·(1 − w_q)^(m+1) + w_q·q.
    pub fn update(&mut self, q: f64, now: Time) {
        let m = match self.idle_since.take() {
            Some(since) if now > since => (self.ptc * as_secs(now - since)).floor(),
            _ => 0.0,
        };
        self.avg = self.avg * crate::engine::math::powf(1.0 - self.w_q, m + 1.0) + self.w_q * q;
    }

    /// A frame of `size` went on the wire with nothing behind it: the link asks for the
    /// next frame, and finds none, once it is sent (ns-2's `idle_`).
    pub fn sent_alone(&mut self, size: u32, now: Time) {
        self.idle_since = Some(now + serialization_time(size, self.rate_bps));
    }
}

/// ns-2 `modify_p` (reference §1.5): with `wait`, pa = 0 while c·pb < 1, pb/(2 − c·pb)
/// while c·pb < 2, else 1; without, pb/(1 − c·pb) while c·pb < 1, else 1. In byte mode c
/// = ⌊count_bytes / mean_pktsize⌋ and pa (below 1) is scaled by size/mean_pktsize.
pub fn spread(
    pb: f64,
    count: u64,
    count_bytes: u64,
    mean_pktsize: u64,
    wait: bool,
    bytes: bool,
    size: u32,
) -> f64 {
    let c = if bytes { (count_bytes / mean_pktsize) as f64 } else { count as f64 };
    let cp = c * pb;
    let mut p = if wait {
        if cp < 1.0 {
            0.0
        } else if cp < 2.0 {
            pb / (2.0 - cp)
        } else {
            1.0
        }
    } else if cp < 1.0 {
        pb / (1.0 - cp)
    } else {
        1.0
    };
    if bytes && p < 1.0 {
        p = p * f64::from(size) / mean_pktsize as f64;
    }
    p.min(1.0)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::{StreamKey, PS_PER_S};
    use crate::net::Capacity;

    fn params() -> RedParams {
        toml::from_str("").unwrap()
    }

    fn red(p: &RedParams, rate_bps: u64) -> Red {
        let s = p.settings(rate_bps).unwrap();
        Red::new(p, s, rate_bps, RngStream::new(1, StreamKey { kind: "red", name: "t" }))
    }

    fn view(frames: u64) -> QueueView {
        QueueView { straight_through: false, frames, bytes: frames * 1000, capacity: Capacity::Frames(1000) }
    }

    fn frame() -> Frame {
        Frame { size: 1000, ecn: Ecn::Ect0, ..Frame::default() }
    }

    /// Reference §1.12: count-based spreading with and without `wait`.
    #[test]
    fn count_spreading_vectors() {
        let close = |a: f64, b: f64| (a - b).abs() < 1e-12;
        assert_eq!(spread(0.02, 49, 0, 500, true, false, 1000), 0.0);
        assert!(close(spread(0.02, 75, 0, 500, true, false, 1000), 0.04));
        assert_eq!(spread(0.02, 100, 0, 500, true, false, 1000), 1.0);
        assert!(close(spread(0.02, 25, 0, 500, false, false, 1000), 0.04));
        assert_eq!(spread(0.02, 50, 0, 500, false, false, 1000), 1.0);
        // Byte mode: c = ⌊37600/500⌋ = 75 mean-sized packets, pa scaled by 250/500.
        assert!(close(spread(0.02, 0, 37_600, 500, true, true, 250), 0.02));
    }

    /// Reference §1.12: the gentle line from max_p₀ = 0.1 at max_th = 15.
    #[test]
    fn gentle_line_vectors() {
        let mut p = params();
        p.min_th = Threshold::Given(Size::Frames(5));
        p.max_th = Threshold::Given(Size::Frames(15));
        let mut r = red(&p, 1_500_000);
        r.average.avg = 22.5;
        assert!((r.base_probability() - 0.55).abs() < 1e-12);
        r.average.avg = 30.0;
        assert_eq!(r.base_probability(), 1.0);
        r.average.avg = 10.0;
        assert!((r.base_probability() - 0.05).abs() < 1e-12);
        // ns-2 keeps the line at the initial max_p when Adaptive RED has moved it.
        r.cur_max_p = 0.3;
        r.average.avg = 22.5;
        assert!((r.base_probability() - 0.55).abs() < 1e-12);
        r.gentle_line = GentleLine::Current;
        assert!((r.base_probability() - (0.7 / 15.0 * 22.5 - 0.4)).abs() < 1e-12);
    }

    /// Reference §1.12: idle for 0.1 s at ptc = 1250 packets/s decays avg by 0.998^126.
    #[test]
    fn idle_correction_vector() {
        let mut p = params();
        p.w_q = Weight::Given(0.002);
        p.mean_packet_size = Size::Bytes(1000);
        let mut r = red(&p, 10_000_000);
        assert_eq!(r.settings().ptc, 1250.0);
        r.average.avg = 10.0;
        r.average.idle_since = Some(PS_PER_S);
        r.on_enqueue(view(0), &mut frame().clone(), PS_PER_S + PS_PER_S / 10);
        assert!((r.average.avg - 10.0 * 0.998f64.powi(126)).abs() < 1e-9, "{}", r.average.avg);
        assert!((r.average.avg / 10.0 - 0.777).abs() < 1e-3);
        // Not idle: one EWMA step over q = 20.
        r.average.avg = 10.0;
        r.on_enqueue(view(20), &mut frame().clone(), 2 * PS_PER_S);
        assert!((r.average.avg - (10.0 * 0.998 + 0.002 * 20.0)).abs() < 1e-12);
    }

    /// Reference §2.3: the automatic settings on the seed's 1.5 Mbit/s bottleneck and a
    /// 100 Mbit/s link, with 1000-byte mean packets.
    #[test]
    fn automatic_settings() {
        let mut p = params();
        p.mean_packet_size = Size::Bytes(1000);
        let s = p.settings(1_500_000).unwrap();
        assert_eq!((s.min_th, s.max_th, s.ptc), (5.0, 15.0, 187.5));
        assert!((s.w_q - 5.32e-3).abs() < 1e-5);
        let s = p.settings(100_000_000).unwrap();
        assert_eq!((s.min_th, s.max_th), (31.25, 93.75));
        assert!((s.w_q - 8.0e-5).abs() < 1e-7);
    }

    /// Reference §2.6: Adaptive RED's max_p steps, and lastset only moving with max_p.
    #[test]
    fn adaptive_red_vectors() {
        let mut p = params();
        p.min_th = Threshold::Given(Size::Frames(5));
        p.max_th = Threshold::Given(Size::Frames(15));
        p.adaptive = Some(toml::from_str("").unwrap());
        let mut r = red(&p, 1_500_000);
        let t = PS_PER_S;
        r.average.avg = 12.0;
        r.update_max_p(t);
        assert!((r.cur_max_p - 0.11).abs() < 1e-12);
        r.cur_max_p = 0.1;
        r.average.avg = 8.0;
        r.update_max_p(2 * t);
        assert!((r.cur_max_p - 0.09).abs() < 1e-12);
        r.cur_max_p = 0.1;
        r.average.avg = 10.0;
        r.update_max_p(3 * t);
        assert_eq!(r.cur_max_p, 0.1);
        assert_eq!(r.adaptive.as_ref().unwrap().lastset, 2 * t, "no change, no lastset");
        r.cur_max_p = 0.02;
        r.average.avg = 12.0;
        r.update_max_p(4 * t);
        assert!((r.cur_max_p - 0.025).abs() < 1e-12);
    }

    /// The order of operations: no early action below min_th or with one frame queued;
    /// the first arrival above min_th only starts the count; a forced drop above 2·max_th
    /// (gentle); ECN-capable frames are marked, others dropped.
    #[test]
    fn early_decisions() {
        let mut p = params();
        p.min_th = Threshold::Given(Size::Frames(5));
        p.max_th = Threshold::Given(Size::Frames(15));
        p.w_q = Weight::Given(1.0); // avg = q
        p.ecn = true;
        let mut r = red(&p, 1_500_000);
        assert_eq!(r.on_enqueue(view(3), &mut frame().clone(), 1), Verdict::Enqueue);
        assert!(!r.old);
        assert_eq!(r.on_enqueue(view(10), &mut frame().clone(), 2), Verdict::Enqueue);
        assert!(r.old && r.count == 1, "first above min_th: count 1, no test");
        assert_eq!(r.on_enqueue(view(31), &mut frame().clone(), 3), Verdict::Drop, "forced above 2·max_th");
        assert_eq!(r.stats.forced_drops, 1);
        // At avg = 25 pb = 0.9/15·25 − 0.8 = 0.7; with wait, count 2 → c·pb = 1.4, pa = 1.17 → 1.
        r.count = 1;
        assert_eq!(r.on_enqueue(view(25), &mut frame().clone(), 4), Verdict::Mark);
        assert_eq!(r.count, 0);
        let plain = Frame { ecn: Ecn::NotEct, ..frame() };
        r.count = 1;
        assert_eq!(r.on_enqueue(view(25), &mut plain.clone(), 5), Verdict::Drop);
        assert_eq!((r.stats.marks, r.stats.early_drops), (1, 1));
        // With mark_p = 0.1 (ns-2 ≥ 2005), pb = 0.7 ≥ mark_p: dropped though ECN-capable.
        r.mark_p = Some(0.1);
        r.count = 1;
        assert_eq!(r.on_enqueue(view(25), &mut frame().clone(), 6), Verdict::Drop);
    }

    /// Marks are spread: with pb fixed at 0.02 and `wait`, the gaps between marks lie in
    /// [1/pb, 2/pb] = [50, 100] arrivals.
    #[test]
    fn marks_are_evenly_spread() {
        let mut p = params();
        p.min_th = Threshold::Given(Size::Frames(5));
        p.max_th = Threshold::Given(Size::Frames(15));
        p.max_p = 0.04;
        p.w_q = Weight::Given(1.0);
        p.ecn = true;
        let mut r = red(&p, 1_500_000);
        let mut last = None;
        let mut gaps = Vec::new();
        for i in 0..20_000u64 {
            // avg = 10: pb = 0.04·5/10 = 0.02.
            if r.on_enqueue(view(10), &mut frame().clone(), i) != Verdict::Enqueue {
                if let Some(l) = last {
                    gaps.push(i - l);
                }
                last = Some(i);
            }
        }
        assert!(gaps.len() > 150, "{} marks", gaps.len());
        assert!(gaps.iter().all(|&g| (50..=100).contains(&g)), "{gaps:?}");
        let mean = gaps.iter().sum::<u64>() as f64 / gaps.len() as f64;
        assert!((mean - 75.0).abs() < 5.0, "mean gap {mean}");
    }

    /// The link goes idle only once the last frame has been sent.
    #[test]
    fn idle_starts_when_the_last_frame_is_sent() {
        let mut p = params();
        p.mean_packet_size = Size::Bytes(1000);
        let mut r = red(&p, 8_000_000); // 1000 B take 1 ms
        r.average.idle_since = None;
        r.on_dequeue(view(0), &frame(), PS_PER_S);
        assert_eq!(r.average.idle_since, Some(PS_PER_S + crate::engine::PS_PER_MS));
        // An arrival while that frame is still being sent: no idle decay.
        r.average.avg = 4.0;
        let w = r.settings().w_q;
        r.on_enqueue(view(0), &mut frame().clone(), PS_PER_S + 1);
        assert!((r.average.avg - 4.0 * (1.0 - w)).abs() < 1e-12);
    }
}
