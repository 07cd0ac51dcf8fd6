//! QCN congestion point (CP): one per monitored egress queue.
//!
//! At each sampling instant the CP computes (reference §1.4, Mliki et al. 2016 eq. 1–3)
//!
//! ```text
//! Qoff   = Q − Qeq
//! Qdelta = Q − Qold
//! Fb     = −(Qoff + w·Qdelta)
//! ```
//!
//! clamps Fb to [−Qeq(2w+1), 0], quantizes |Fb| linearly to 6 bits (reference §1.5,
//! variant A) and, if the quantized value is positive, sends a CNM to the source of the
//! sampled frame. QCN has no positive feedback.
//!
//! Q, Qeq and Qold are in the unit Qeq is given in: frames (Mliki et al. 2016 states Qeq in
//! frames) or bytes (the standard's octets). The quantizer is scale-free, so both give
//! the same Fb for equal-size frames.

use serde::{Deserialize, Serialize};

use super::MulticastScheme;
use super::{Cnm, Representative};
use crate::engine::RngStream;
use crate::units::Size;

/// Largest quantized |Fb| (6 bits).
pub const FB_MAX: u8 = 63;

/// How the CP decides which arriving frames are sampled.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Sampling {
    /// IEEE 802.1Qau: a sample every `sample_table[|Fb|>>3]` bytes of arrivals, randomized
    /// by a factor drawn from `jitter` (reference §1.6).
    #[default]
    Standard,
    /// Mliki et al. 2016 §2.1 and Algorithm 2: every arriving data frame evaluates Fb and may
    /// trigger a CNM.
    PerFrame,
    /// The 2007 QCN proposal as Roeck 2007 ran it: each arriving data frame is sampled
    /// with probability p = base_probability·(1 + 9·|Fb|/63), |Fb| quantized at the last
    /// sample: from the base (1 %) up to ten times it as congestion grows (the proposal's
    /// 1 %–10 % range; the linear form is our reading).
    Probability,
    /// Devkota & Reddy's detailed sampling: the standard table's seven lighter levels,
    /// and its heaviest (|Fb| 56–63) split into eight, one per |Fb|: 15 levels
    /// (`detailed_table`).
    Detailed,
}

/// Which of the 15 levels of Devkota & Reddy's detailed sampling a quantized |Fb| selects
/// (`cp.detailed_levels`). Devkota & Reddy 2010, §VII-A-2: "We expanded the heaviest
/// congestion level into eight more sampling frequency levels", "a sampling lookup
/// table that has 15 levels instead of 8 levels".
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum DetailedLevels {
    /// 15 equal slices of the 6-bit |Fb|: level ⌊15·|Fb|/64⌋ (|Fb| 0–4 → 0, 5–8 → 1, …,
    /// 60–63 → 14). The 8-level table is |Fb| in 8 equal slices; this is the same table
    /// with 15. Sampling at Fb ≥ 0 is unchanged (level 0), sampling at every |Fb| ≥ 5
    /// is stepped up: the paper's Table II has III sending 1.9–5.6 times I's CNMs at
    /// 128 KB from 2 flows up, where |Fb| stays far below 56.
    #[default]
    Even,
    /// The standard level |Fb|>>3 up to 6, then one level per |Fb| from 56 to 63 (the
    /// words "expanded the heaviest congestion level" taken literally). Below |Fb| = 56
    /// it samples as I does, so III ≡ I wherever |Fb| cannot reach 56 (a 32 KB buffer:
    /// |Fb| ≤ 33; 2 flows of window 20: ≤ 48), against Table II's 2.5 times at 2 flows.
    SplitTop,
    /// One level per quantized |Fb| from 0 to 13, |Fb| ≥ 14 the last: level min(|Fb|, 14).
    /// Any negative feedback steps sampling up at once (|Fb| = 1: 75 KB), the 15 levels
    /// spent where the feedback of an incast round lies.
    PerValue,
}

/// When Devkota & Reddy's congestion memory counts down. Devkota & Reddy 2010, §VII-A-1,
/// gives the CP's memory as "a memory variable (simple counter) ... incremented every
/// time a congestion event occurs", its cost as one memory element and right shifts, and
/// no decrement; for the RP's memory (§VII-B) it states one ("decremented by 1 each
/// time the RP timer expires"). Reference l3-tcp.md §7.1 lists the readings.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum MemoryDecay {
    /// Never: the counter the paper describes, only incremented (up to `max_count`).
    #[default]
    Never,
    /// By one at every sample whose Fb ≥ 0 (no congestion seen): the memory lasts
    /// through a silent period, when few frames arrive, and fades once traffic flows
    /// uncongested (our invention: the paper states no decay).
    CalmSample,
    /// To zero when the queue drains below Qeq (our invention).
    BelowQeq,
}

/// Devkota & Reddy's congestion-memory sampling: a counter c raised at each congestion
/// event (the queue rising above `threshold` of the port's buffer), the sampling
/// interval divided by 2^c.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct CongestionMemory {
    /// The congestion event: the queue rises above this fraction of the buffer (0.9).
    pub(crate) threshold: f64,
    /// How the counter counts down.
    pub(crate) decay: MemoryDecay,
    /// Largest count (7: at 150 KB ÷ 128 ≈ one frame, sampling is per frame).
    pub(crate) max_count: u32,
}

impl Default for CongestionMemory {
    fn default() -> Self {
        CongestionMemory { threshold: 0.9, decay: MemoryDecay::Never, max_count: 7 }
    }
}

/// When Qold is updated.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum QoldUpdate {
    /// At every sample, with or without a CNM (the pseudocode; reference §1.6).
    #[default]
    Sample,
    /// Only when a CNM is sent: Mliki et al. 2016 §2 defines Qold as "the queue size when the
    /// last feedback message was generated".
    Feedback,
}

/// The unit the CP measures its queue in.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum QueueUnit {
    /// Waiting frames.
    Frames,
    /// Waiting bytes.
    Bytes,
}

/// CP parameters (scenario table `protocols.qcn.cp`). Defaults are the IEEE 802.1Qau MIB
/// values (reference §1.3, §10).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct CpParams {
    /// Set point Qeq ("26000B" = the MIB default cpQSp; Mliki et al. 2016 uses "25 frames" etc.).
    pub(crate) qeq: Size,
    /// Qeq as this fraction of the port's buffer, in the buffer's unit, replacing `qeq`
    /// (htsim's QCN sets 0.2 × the buffer; 802.1Qau's MIB gives one fixed 26000 octets
    /// whatever the buffer); absent = `qeq`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(crate) qeq_fraction: Option<f64>,
    /// Weight w of the rate-excess term (MIB cpW = 1 → w = 2).
    pub(crate) w: f64,
    /// Sampling rule.
    pub(crate) sampling: Sampling,
    /// Byte intervals between samples for |Fb|>>3 = 0..7 (reference §1.6:
    /// 150, 75, 50, 37.5, 30, 25, 21.5, 18.5 KB).
    pub(crate) sample_table: Vec<Size>,
    /// Each interval is multiplied by U(jitter[0], jitter[1]) (reference §1.6: 0.85–1.15).
    pub(crate) jitter: [f64; 2],
    /// When Qold is updated.
    pub(crate) qold_update: QoldUpdate,
    /// Sampling probability at |Fb| = 0 under `sampling = "probability"` (Roeck 2007's
    /// baseProbability: 1 % in the first parameter set, 2 % in the second).
    pub(crate) base_probability: f64,
    /// Rate guidance in probe replies (QCN-PR); absent = replies carry no rate.
    pub(crate) guidance: Option<crate::l2::probing::GuidanceParams>,
    /// The 15 byte intervals of `sampling = "detailed"`: the standard eight, then eight
    /// more each half the one before (9250 B … 145 B). The paper gives no values; it
    /// says the heavier levels are "stepped up aggressively" and that per-frame sampling
    /// sent "around 5 times" I's CNMs, as III does at 64 flows in its Table II (5.6
    /// times): a table continuing 150 KB/(k + 1) stops at 10 KB, ten frames (Devkota &
    /// Reddy 2010, §VII-A).
    pub(crate) detailed_table: Vec<Size>,
    /// Which level a quantized |Fb| selects under `sampling = "detailed"`.
    pub(crate) detailed_levels: DetailedLevels,
    /// Devkota & Reddy's congestion-memory sampling; absent = off.
    pub(crate) congestion_memory: Option<CongestionMemory>,
}

impl Default for CpParams {
    fn default() -> Self {
        Self {
            qeq: Size::Bytes(26_000),
            qeq_fraction: None,
            w: 2.0,
            sampling: Sampling::Standard,
            sample_table: [150_000, 75_000, 50_000, 37_500, 30_000, 25_000, 21_500, 18_500]
                .into_iter()
                .map(Size::Bytes)
                .collect(),
            jitter: [0.85, 1.15],
            qold_update: QoldUpdate::Sample,
            base_probability: 0.01,
            guidance: None,
            detailed_table: [
                150_000, 75_000, 50_000, 37_500, 30_000, 25_000, 21_500, 18_500, 9_250, 4_625, 2_313, 1_156,
                578, 289, 145,
            ]
            .into_iter()
            .map(Size::Bytes)
            .collect(),
            detailed_levels: DetailedLevels::Even,
            congestion_memory: None,
        }
    }
}

/// What the CP observes of its queue at an arrival (after the frame was queued).
#[derive(Clone, Copy, Debug)]
pub struct QueueView {
    /// Waiting frames.
    pub(crate) frames: u64,
    /// Waiting bytes.
    pub(crate) bytes: u64,
}

/// Outcome of an arrival at the CP.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Decision {
    /// No sample, or a sample with Fb ≥ 0 (quantized |Fb| = 0).
    None,
    /// Send this CNM to the frame's source.
    Send(Cnm),
    /// Fb < 0, but the multicast representative rule keeps this CP silent.
    Suppressed,
}

/// Per-CP counters.
#[derive(Clone, Debug, Default, Serialize)]
pub struct CpStats {
    /// Data frames seen (queued or dropped).
    pub arrivals: u64,
    /// Sampling instants.
    pub(crate) samples: u64,
    /// CNMs sent.
    pub(crate) cnms: u64,
    /// CNMs withheld by the representative rule.
    pub(crate) suppressed: u64,
}

/// The level (0–14) of the detailed (15-level) table for quantized feedback `qfb` under
/// `levels` (see [`DetailedLevels`]).
#[inline]
pub fn detailed_level(qfb: u8, levels: DetailedLevels) -> usize {
    let qfb = qfb.min(FB_MAX);
    match levels {
        DetailedLevels::Even => usize::from(qfb) * 15 / 64,
        DetailedLevels::PerValue => usize::from(qfb.min(14)),
        DetailedLevels::SplitTop => {
            let k = usize::from(qfb >> 3);
            if k < 7 {
                k
            } else {
                7 + usize::from(qfb - 56)
            }
        }
    }
}

/// Fb = −(Qoff + w·Qdelta) with Qoff = Q − Qeq and Qdelta = Q − Qold (Mliki et al. 2016 eq. 1–3).
#[inline]
pub fn feedback(q: f64, q_old: f64, qeq: f64, w: f64) -> f64 {
    -((q - qeq) + w * (q - q_old))
}

/// Quantizes Fb to |Fb| in 0..=63: 0 if Fb ≥ 0; 63 at or beyond the clamp −Qeq(2w+1);
/// otherwise ⌊−Fb·63 / (Qeq(2w+1))⌋ (reference §1.5, variant A).
#[inline]
pub fn quantize(fb: f64, qeq: f64, w: f64) -> u8 {
    if fb >= 0.0 {
        return 0;
    }
    let range = qeq * (2.0 * w + 1.0);
    if -fb >= range {
        return FB_MAX;
    }
    ((-fb * FB_MAX as f64) / range).floor() as u8
}

/// Mliki et al. 2016 Algorithm 2 and its prose reading: may a CP whose quantized feedback is
/// `qfb` (> 0) send, given the representative tag the data frame carries?
#[inline]
pub fn may_send(scheme: MulticastScheme, qfb: u8, cpid: u32, tag: Representative) -> bool {
    match scheme {
        MulticastScheme::Standard => true,
        // |Fb| ≥ F̂b makes the CP representative; on a tie only the CP whose CPID the
        // frame names may send (Mliki et al. 2016 §4, the CPID tie rule).
        MulticastScheme::Enhanced => qfb > tag.fb || (qfb == tag.fb && tag.cpid == cpid),
        // The named representative always reports; others only with a larger |Fb|.
        MulticastScheme::EnhancedRepresentative => tag.cpid == cpid || qfb > tag.fb,
    }
}

/// A congestion point on one egress queue.
#[derive(Clone, Debug)]
pub struct Cp {
    /// CPID carried in CNMs (unique per queue; 0 means "none").
    pub(crate) cpid: u32,
    qeq: f64,
    unit: QueueUnit,
    w: f64,
    sampling: Sampling,
    table: [f64; 8],
    /// The detailed table (boxed: read only at samples, and 15 entries would double
    /// the congestion point's size).
    detailed: Box<[f64; 15]>,
    detailed_levels: DetailedLevels,
    memory: Option<CongestionMemory>,
    /// The congestion memory's count c.
    pub(crate) memory_count: u32,
    /// Whether the queue is above the memory's threshold (an event is a crossing).
    above: bool,
    jitter: [f64; 2],
    qold_update: QoldUpdate,
    /// Queue length at the previous sample (or CNM), in the CP's unit.
    pub(crate) q_old: f64,
    /// Bytes of arrivals left before the next sample.
    pub(crate) time_to_mark: f64,
    /// Bytes the last [`grant_quiet`](Self::grant_quiet) let pass unseen.
    quiet_granted: u32,
    base_probability: f64,
    /// The current sampling probability (`sampling = "probability"`).
    pub(crate) probability: f64,
    rng: RngStream,
    /// Counters.
    pub stats: CpStats,
}

impl Cp {
    /// A CP with `params`, identifier `cpid` and its own random stream.
    pub fn new(params: &CpParams, cpid: u32, rng: RngStream) -> Self {
        let (qeq, unit) = super::size_in_unit(params.qeq);
        let mut table = [0.0; 8];
        for (i, slot) in table.iter_mut().enumerate() {
            let s = params.sample_table.get(i).or(params.sample_table.last());
            // Validation admits only byte intervals: sampling counts arriving bytes
            // (reference §1.2), whatever the frames' sizes.
            *slot = s.map(|s| s.value() as f64).unwrap_or(150_000.0);
        }
        let mut detailed = [0.0; 15];
        for (i, slot) in detailed.iter_mut().enumerate() {
            let s = params.detailed_table.get(i).or(params.detailed_table.last());
            *slot = s.map(|s| s.value() as f64).unwrap_or(150_000.0);
        }
        Self {
            cpid,
            qeq,
            unit,
            w: params.w,
            sampling: params.sampling,
            table,
            jitter: params.jitter,
            qold_update: params.qold_update,
            q_old: 0.0,
            // The first interval is the table's first entry (reference §1.2).
            time_to_mark: table[0],
            quiet_granted: 0,
            detailed: Box::new(detailed),
            detailed_levels: params.detailed_levels,
            memory: params.congestion_memory,
            memory_count: 0,
            above: false,
            base_probability: params.base_probability,
            probability: params.base_probability,
            rng,
            stats: CpStats::default(),
        }
    }

    /// Set point in the CP's unit.
    pub fn qeq(&self) -> f64 {
        self.qeq
    }

    /// Handles one arriving data frame of `size` bytes carrying `tag`: [`sampled`](Self::sampled),
    /// then [`on_sample`](Self::on_sample) if it is.
    pub fn on_arrival(
        &mut self,
        queue: QueueView,
        size: u32,
        tag: Representative,
        scheme: MulticastScheme,
    ) -> Decision {
        if self.sampled(size) {
            self.on_sample(queue, tag, scheme)
        } else {
            Decision::None
        }
    }

    /// Bytes of data frames that may arrive unseen, their count and bytes handed over
    /// later to [`absorb`](Self::absorb): with standard or detailed sampling, the whole
    /// bytes left before the next sample (a frame that would reach it is seen);
    /// otherwise, or when `allowed` is false or the congestion memory watches every
    /// arrival, none.
    pub fn grant_quiet(&mut self, allowed: bool) -> u32 {
        let quiet = match self.sampling {
            Sampling::Standard | Sampling::Detailed if allowed && self.memory.is_none() => {
                // `time_to_mark - b >= 0` for every whole b up to the floor: no sample.
                self.time_to_mark.floor().clamp(0.0, u32::MAX as f64) as u32
            }
            _ => 0,
        };
        self.quiet_granted = quiet;
        quiet
    }

    /// Counts `frames` data frames that arrived unseen, leaving `left` of the bytes
    /// last granted: as [`sampled`](Self::sampled) would have, frame by frame (the
    /// sums are of whole bytes, so exact in any order).
    #[inline]
    pub fn absorb(&mut self, frames: u32, left: u32) {
        self.stats.arrivals += u64::from(frames);
        self.time_to_mark -= f64::from(self.quiet_granted - left);
        self.quiet_granted = left;
    }

    /// Counts an arriving data frame of `size` bytes and tells whether it is sampled: with
    /// standard sampling once `time_to_mark` bytes have arrived (reference §1.2), else
    /// always.
    #[inline]
    pub fn sampled(&mut self, size: u32) -> bool {
        self.stats.arrivals += 1;
        match self.sampling {
            Sampling::Standard | Sampling::Detailed => {
                self.time_to_mark -= size as f64;
                self.time_to_mark < 0.0
            }
            Sampling::PerFrame => true,
            Sampling::Probability => self.rng.uniform() < self.probability,
        }
    }

    /// Congestion memory: a data frame arrived with the queue above the memory's threshold
    /// of the buffer or not, and below Qeq or not. A rise above the threshold is a
    /// congestion event.
    #[inline]
    pub fn observe(&mut self, above: bool, below_qeq: bool) {
        let Some(m) = self.memory else { return };
        if above && !self.above {
            self.memory_count = (self.memory_count + 1).min(m.max_count);
        }
        self.above = above;
        if below_qeq && m.decay == MemoryDecay::BelowQeq {
            self.memory_count = 0;
        }
    }

    /// The congestion memory's threshold, if on.
    pub fn memory_threshold(&self) -> Option<f64> {
        self.memory.map(|m| m.threshold)
    }

    /// The queue state a probe reply carries: Qoff = Q − Qeq and Qdelta = Q − Qold, in
    /// frames or 64-byte pages (Qold is left to sampling).
    pub fn reply_fields(&self, queue: QueueView) -> (i16, i16) {
        let (q, scale) = match self.unit {
            QueueUnit::Frames => (queue.frames as f64, 1.0),
            QueueUnit::Bytes => (queue.bytes as f64, 64.0),
        };
        let field = crate::l2::probing::field;
        (field((q - self.qeq) / scale), field((q - self.q_old) / scale))
    }

    /// The queue in the CP's unit.
    pub fn queue_in_unit(&self, queue: QueueView) -> f64 {
        match self.unit {
            QueueUnit::Frames => queue.frames as f64,
            QueueUnit::Bytes => queue.bytes as f64,
        }
    }

    /// A sampled frame carrying `tag` arrived, with the queue at `queue`: computes Fb,
    /// draws the next sampling interval, and decides whether to send a CNM.
    pub fn on_sample(&mut self, queue: QueueView, tag: Representative, scheme: MulticastScheme) -> Decision {
        self.stats.samples += 1;
        let q = match self.unit {
            QueueUnit::Frames => queue.frames as f64,
            QueueUnit::Bytes => queue.bytes as f64,
        };
        let q_old = self.q_old;
        let fb = feedback(q, q_old, self.qeq, self.w);
        let qfb = quantize(fb, self.qeq, self.w);
        if self.qold_update == QoldUpdate::Sample {
            self.q_old = q;
        }
        if let Some(m) = self.memory {
            if qfb == 0 && m.decay == MemoryDecay::CalmSample {
                self.memory_count = self.memory_count.saturating_sub(1);
            }
        }
        match self.sampling {
            Sampling::Standard | Sampling::Detailed => {
                let interval = if self.sampling == Sampling::Standard {
                    self.table[(qfb >> 3) as usize]
                } else {
                    self.detailed[detailed_level(qfb, self.detailed_levels)]
                };
                let u = self.rng.uniform_range(self.jitter[0], self.jitter[1]);
                // Congestion memory: the interval divided by 2^c.
                self.time_to_mark = interval * u / f64::from(1u32 << self.memory_count.min(31));
            }
            Sampling::Probability => {
                self.probability = self.base_probability * (1.0 + 9.0 * f64::from(qfb) / f64::from(FB_MAX));
            }
            Sampling::PerFrame => {}
        }
        if qfb == 0 {
            return Decision::None;
        }
        if !may_send(scheme, qfb, self.cpid, tag) {
            self.stats.suppressed += 1;
            return Decision::Suppressed;
        }
        if self.qold_update == QoldUpdate::Feedback {
            self.q_old = q;
        }
        self.stats.cnms += 1;
        // The CNM PDU also carries Qoff and Qdelta (reference §1.8); no reaction point
        // reads them, so the simulated CNM holds only what the RP uses.
        Decision::Send(Cnm { fb: qfb, cpid: self.cpid })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::StreamKey;

    fn rng() -> RngStream {
        RngStream::new(1, StreamKey { kind: "cp", name: "test" })
    }

    fn tag(fb: u8, cpid: u32) -> Representative {
        Representative { fb, cpid }
    }

    #[test]
    fn fb_and_quantization_worked_example() {
        // Reference §1.5: Q = 60000, Qold = 50000, Qeq = 26000, w = 2
        // → Qoff = 34000, Qdelta = 10000, Fb = −54000, |Fb|q = ⌊54000·63/130000⌋ = 26.
        let fb = feedback(60_000.0, 50_000.0, 26_000.0, 2.0);
        assert_eq!(fb, -54_000.0);
        assert_eq!(quantize(fb, 26_000.0, 2.0), 26);
    }

    #[test]
    fn quantization_bounds() {
        assert_eq!(quantize(0.0, 26_000.0, 2.0), 0);
        assert_eq!(quantize(5_000.0, 26_000.0, 2.0), 0); // positive Fb: no feedback
        assert_eq!(quantize(-2_000.0, 26_000.0, 2.0), 0); // ⌊2000·63/130000⌋ = 0
        assert_eq!(quantize(-2_064.0, 26_000.0, 2.0), 1); // 2064·63/130000 = 1.0002
        assert_eq!(quantize(-129_999.0, 26_000.0, 2.0), 62);
        assert_eq!(quantize(-130_000.0, 26_000.0, 2.0), 63); // the clamp
        assert_eq!(quantize(-1e9, 26_000.0, 2.0), 63);
        // In frames: Qeq = 25, Q = 40, Qold = 35 → Fb = −(15 + 10) = −25;
        // |Fb|q = ⌊25·63/125⌋ = 12.
        assert_eq!(quantize(feedback(40.0, 35.0, 25.0, 2.0), 25.0, 2.0), 12);
    }

    /// A CP with a fixed (jitter-free) table so intervals are exact.
    fn exact_cp(qeq: Size, sampling: Sampling) -> Cp {
        let params = CpParams { qeq, sampling, jitter: [1.0, 1.0], ..CpParams::default() };
        Cp::new(&params, 7, rng())
    }

    #[test]
    fn quiet_bytes_end_where_the_next_sample_would_be() {
        let mut cp = exact_cp(Size::Bytes(26_000), Sampling::Standard);
        // 150 000 B to the first sample: 100 frames of 1500 B pass unseen, as in
        // `first_sample_after_150kb_of_arrivals`; the 101st must be seen.
        assert_eq!(cp.grant_quiet(true), 150_000);
        cp.absorb(100, 0);
        assert_eq!((cp.stats.arrivals, cp.time_to_mark), (100, 0.0));
        assert!(cp.sampled(1500));
        // Not allowed (rate guidance), per-frame sampling or congestion memory: none.
        assert_eq!(cp.grant_quiet(false), 0);
        assert_eq!(exact_cp(Size::Bytes(26_000), Sampling::PerFrame).grant_quiet(true), 0);
    }

    #[test]
    fn unseen_arrivals_absorbed_at_once_sample_the_same_frames() {
        // Frames of varied sizes through a jittered CP: one sees each, the other only
        // those its quiet bytes do not cover. The same frames are sampled, with the same
        // queue and the same CNMs.
        let params = CpParams { qeq: Size::Bytes(26_000), ..CpParams::default() };
        let make = || Cp::new(&params, 3, RngStream::new(9, StreamKey { kind: "cp", name: "q" }));
        let (mut each, mut quiet) = (make(), make());
        let mut left = quiet.grant_quiet(true);
        let mut unseen = 0u32;
        for i in 0..20_000u32 {
            let size = 64 + (i * 7919) % 1455;
            let queue = QueueView { frames: 40, bytes: u64::from(20_000 + (i * 104_729) % 60_000) };
            let a = each.on_arrival(queue, size, Representative::default(), MulticastScheme::Standard);
            let b = if size <= left {
                left -= size;
                unseen += 1;
                Decision::None
            } else {
                quiet.absorb(unseen, left);
                unseen = 0;
                let b = quiet.on_arrival(queue, size, Representative::default(), MulticastScheme::Standard);
                left = quiet.grant_quiet(true);
                b
            };
            assert_eq!(a, b, "frame {i}");
        }
        quiet.absorb(unseen, left);
        assert_eq!(
            (each.stats.arrivals, each.stats.samples, each.stats.cnms),
            (20_000, quiet.stats.samples, quiet.stats.cnms)
        );
        assert_eq!(quiet.stats.arrivals, 20_000);
        assert_eq!(each.time_to_mark, quiet.time_to_mark);
        assert!(each.stats.samples > 50 && each.stats.cnms > 10, "{:?}", each.stats);
    }

    #[test]
    fn first_sample_after_150kb_of_arrivals() {
        let mut cp = exact_cp(Size::Bytes(26_000), Sampling::Standard);
        let busy = QueueView { frames: 60, bytes: 90_000 };
        // 150 000 B / 1500 B = 100 frames bring time_to_mark to exactly 0 (not < 0);
        // the 101st frame triggers the sample.
        for _ in 0..100 {
            assert_eq!(
                cp.on_arrival(busy, 1500, Representative::default(), MulticastScheme::Standard),
                Decision::None
            );
        }
        let d = cp.on_arrival(busy, 1500, Representative::default(), MulticastScheme::Standard);
        // Q = 90000, Qold = 0 → Fb = −(64000 + 180000) → clamped: 63.
        assert_eq!(d, Decision::Send(Cnm { fb: 63, cpid: 7 }));
        assert_eq!(cp.q_old, 90_000.0);
        // |Fb| = 63 → next interval from table[7] = 18.5 KB.
        assert_eq!(cp.time_to_mark, 18_500.0);
    }

    #[test]
    fn each_sampling_level_uses_its_table_entry() {
        // Drive one sample at each level k by choosing Q with Qold = Q (Qdelta = 0):
        // |Fb| = ⌊(Q − Qeq)·63/(5·Qeq)⌋ with Qeq = 100 frames → Q = 100 + ⌈k·8·500/63⌉.
        let expected = [150_000.0, 75_000.0, 50_000.0, 37_500.0, 30_000.0, 25_000.0, 21_500.0, 18_500.0];
        for (k, &interval) in expected.iter().enumerate() {
            let mut cp = exact_cp(Size::Frames(100), Sampling::Standard);
            let q = 100 + (k as u64 * 8 * 500).div_ceil(63);
            cp.q_old = q as f64;
            cp.time_to_mark = 0.0;
            let d = cp.on_arrival(
                QueueView { frames: q, bytes: 0 },
                1,
                Representative::default(),
                MulticastScheme::Standard,
            );
            let fb = match d {
                Decision::Send(t) => t.fb,
                _ => 0,
            };
            assert_eq!((fb >> 3) as usize, k, "level {k}: |Fb| {fb}");
            assert_eq!(cp.time_to_mark, interval, "level {k}");
        }
    }

    #[test]
    fn jittered_intervals_stay_in_range() {
        let params = CpParams { qeq: Size::Frames(25), ..CpParams::default() };
        let mut cp = Cp::new(&params, 1, rng());
        for _ in 0..1000 {
            cp.time_to_mark = 0.0;
            cp.on_arrival(
                QueueView { frames: 0, bytes: 0 },
                1,
                Representative::default(),
                MulticastScheme::Standard,
            );
            assert!((127_500.0..=172_500.0).contains(&cp.time_to_mark));
        }
    }

    #[test]
    fn per_frame_check_evaluates_every_arrival() {
        let mut cp = exact_cp(Size::Frames(25), Sampling::PerFrame);
        // Below Qeq and stable: Fb > 0, nothing.
        cp.q_old = 10.0;
        assert_eq!(
            cp.on_arrival(
                QueueView { frames: 10, bytes: 0 },
                1500,
                Representative::default(),
                MulticastScheme::Standard
            ),
            Decision::None
        );
        // Q = 30, Qold = 10 → Fb = −(5 + 40) = −45 → ⌊45·63/125⌋ = 22.
        let d = cp.on_arrival(
            QueueView { frames: 30, bytes: 0 },
            1500,
            Representative::default(),
            MulticastScheme::Standard,
        );
        assert_eq!(d, Decision::Send(Cnm { fb: 22, cpid: 7 }));
        assert_eq!(cp.stats.samples, 2);
    }

    #[test]
    fn qold_on_feedback_only_moves_when_a_cnm_is_sent() {
        let params = CpParams {
            qeq: Size::Frames(25),
            sampling: Sampling::PerFrame,
            qold_update: QoldUpdate::Feedback,
            ..CpParams::default()
        };
        let mut cp = Cp::new(&params, 3, rng());
        cp.on_arrival(
            QueueView { frames: 5, bytes: 0 },
            1500,
            Representative::default(),
            MulticastScheme::Standard,
        );
        assert_eq!(cp.q_old, 0.0); // Fb > 0: no CNM, Qold stays
        cp.on_arrival(
            QueueView { frames: 30, bytes: 0 },
            1500,
            Representative::default(),
            MulticastScheme::Standard,
        );
        assert_eq!(cp.q_old, 30.0);
    }

    #[test]
    fn algorithm2_cp_silent_below_the_frames_field() {
        // Literal Algorithm 2: representative iff |Fb| ≥ F̂b.
        assert!(!may_send(MulticastScheme::Enhanced, 20, 5, tag(30, 9)));
        assert!(may_send(MulticastScheme::Enhanced, 31, 5, tag(30, 9)));
        // Even the CP named in the frame is silent below the stamped value: the stall.
        assert!(!may_send(MulticastScheme::Enhanced, 20, 9, tag(30, 9)));
        // No representative yet (F̂b = 0): any positive |Fb| sends.
        assert!(may_send(MulticastScheme::Enhanced, 1, 5, tag(0, 0)));
    }

    #[test]
    fn algorithm2_cpid_tie() {
        // Equal |Fb|: only the CP whose CPID the frame carries sends.
        assert!(may_send(MulticastScheme::Enhanced, 30, 9, tag(30, 9)));
        assert!(!may_send(MulticastScheme::Enhanced, 30, 5, tag(30, 9)));
    }

    #[test]
    fn representative_reading_keeps_the_named_cp_talking() {
        assert!(may_send(MulticastScheme::EnhancedRepresentative, 3, 9, tag(30, 9)));
        assert!(!may_send(MulticastScheme::EnhancedRepresentative, 30, 5, tag(30, 9)));
        assert!(may_send(MulticastScheme::EnhancedRepresentative, 31, 5, tag(30, 9)));
    }

    #[test]
    fn suppressed_sample_is_counted_and_silent() {
        let mut cp = exact_cp(Size::Frames(25), Sampling::PerFrame);
        let d =
            cp.on_arrival(QueueView { frames: 30, bytes: 0 }, 1500, tag(63, 99), MulticastScheme::Enhanced);
        assert_eq!(d, Decision::Suppressed);
        assert_eq!(cp.stats.suppressed, 1);
        assert_eq!(cp.stats.cnms, 0);
    }

    /// Probability sampling: p = base·(1 + 9·|Fb|/63), from 1 % to 10 %; about 1 in 100
    /// frames sampled at the base.
    #[test]
    fn probability_sampling() {
        let params = CpParams {
            qeq: Size::Bytes(24_000),
            sampling: Sampling::Probability,
            base_probability: 0.01,
            ..CpParams::default()
        };
        let mut cp = Cp::new(&params, 7, rng());
        let n = (0..100_000).filter(|_| cp.sampled(1500)).count();
        assert!((800..1200).contains(&n), "{n} of 100000 at 1 %");
        // A sample at the clamp (|Fb| = 63) raises p to 10 %.
        cp.on_sample(
            QueueView { frames: 200, bytes: 300_000 },
            Representative::default(),
            MulticastScheme::Standard,
        );
        assert!((cp.probability - 0.1).abs() < 1e-12);
        cp.q_old = 0.0;
        // Q = Qeq with Qold = Q: Fb = 0, back to the base.
        cp.q_old = 24_000.0;
        cp.on_sample(
            QueueView { frames: 16, bytes: 24_000 },
            Representative::default(),
            MulticastScheme::Standard,
        );
        assert_eq!(cp.probability, 0.01);
    }

    /// A probe reply's fields: Qoff and Qdelta in 64-byte pages, Qold untouched.
    #[test]
    fn reply_fields_in_pages() {
        let mut cp = exact_cp(Size::Bytes(24_000), Sampling::Standard);
        cp.q_old = 12_800.0;
        let (qoff, qdelta) = cp.reply_fields(QueueView { frames: 0, bytes: 32_000 });
        assert_eq!((qoff, qdelta), (125, 300));
        assert_eq!(cp.q_old, 12_800.0);
    }

    /// Devkota & Reddy's detailed sampling, `detailed_levels = "split-top"`: |Fb| up to 55
    /// uses the standard levels, each |Fb| from 56 to 63 its own: at |Fb| = 60 the next
    /// sample comes after level 11's 1156 bytes (18.5 KB halved four times).
    #[test]
    fn detailed_sampling_levels_split_top() {
        let top = DetailedLevels::SplitTop;
        assert_eq!(
            (
                detailed_level(0, top),
                detailed_level(55, top),
                detailed_level(56, top),
                detailed_level(63, top)
            ),
            (0, 6, 7, 14)
        );
        let params = CpParams {
            qeq: Size::Bytes(26_000),
            sampling: Sampling::Detailed,
            detailed_levels: top,
            jitter: [1.0, 1.0],
            ..CpParams::default()
        };
        let mut cp = Cp::new(&params, 7, rng());
        // Q = 120000, Qold = 0: Fb = −(94000 + 240000) → clamp, |Fb| = 63 → level 14, 145 B.
        cp.on_sample(
            QueueView { frames: 80, bytes: 120_000 },
            Representative::default(),
            MulticastScheme::Standard,
        );
        assert_eq!(cp.time_to_mark, 145.0);
        // |Fb| = 60: Fb = −60/63·130000 = −123810: Q − Qeq + 2(Q − Qold) with Qold = Q.
        cp.q_old = 26_000.0 + 123_900.0;
        cp.on_sample(
            QueueView { frames: 100, bytes: 149_900 },
            Representative::default(),
            MulticastScheme::Standard,
        );
        assert_eq!(cp.time_to_mark, 1_156.0);
    }

    /// Devkota & Reddy's detailed sampling, `detailed_levels = "even"` (the default): 15
    /// equal slices of |Fb|, level ⌊15·|Fb|/64⌋. |Fb| = 5 already samples after 75 KB
    /// (the standard table: 150 KB up to |Fb| = 7); |Fb| = 26 after 150/7 KB.
    #[test]
    fn detailed_sampling_levels_even() {
        let even = DetailedLevels::Even;
        let levels: Vec<usize> =
            [0, 4, 5, 8, 9, 26, 55, 59, 60, 63].iter().map(|&f| detailed_level(f, even)).collect();
        assert_eq!(levels, [0, 0, 1, 1, 2, 6, 12, 13, 14, 14]);
        assert_eq!(CpParams::default().detailed_levels, even);
        let mut cp = exact_cp(Size::Bytes(26_000), Sampling::Detailed);
        // Reference §1.5's example: Q = 60000, Qold = 50000 → |Fb| = 26 → level 6 →
        // 21.5 KB (the standard table's 150/7, rounded as 802.1Qau rounds it).
        cp.q_old = 50_000.0;
        cp.on_sample(
            QueueView { frames: 40, bytes: 60_000 },
            Representative::default(),
            MulticastScheme::Standard,
        );
        assert_eq!(cp.time_to_mark, 21_500.0);
        // Q = 30000, Qold = 30000: Fb = −4000 → |Fb| = ⌊4000·63/130000⌋ = 1 → level 0.
        cp.q_old = 30_000.0;
        cp.on_sample(
            QueueView { frames: 20, bytes: 30_000 },
            Representative::default(),
            MulticastScheme::Standard,
        );
        assert_eq!(cp.time_to_mark, 150_000.0);
        // Q = 31000, Qold = 26000: Fb = −(5000 + 2·5000) → |Fb| = ⌊15000·63/130000⌋ = 7
        // → level ⌊105/64⌋ = 1, 75 KB (the standard table: 150 KB up to |Fb| = 7).
        cp.q_old = 26_000.0;
        let d = cp.on_sample(
            QueueView { frames: 21, bytes: 31_000 },
            Representative::default(),
            MulticastScheme::Standard,
        );
        assert_eq!((d, cp.time_to_mark), (Decision::Send(Cnm { fb: 7, cpid: 7 }), 75_000.0));
    }

    /// Devkota & Reddy's detailed sampling, `detailed_levels = "per-value"`: level
    /// min(|Fb|, 14), so |Fb| = 1 samples after 75 KB and |Fb| ≥ 14 after the last level.
    #[test]
    fn detailed_sampling_levels_per_value() {
        let pv = DetailedLevels::PerValue;
        let levels: Vec<usize> = [0, 1, 7, 13, 14, 63].iter().map(|&f| detailed_level(f, pv)).collect();
        assert_eq!(levels, [0, 1, 7, 13, 14, 14]);
        let params = CpParams {
            qeq: Size::Bytes(26_000),
            sampling: Sampling::Detailed,
            detailed_levels: pv,
            jitter: [1.0, 1.0],
            ..CpParams::default()
        };
        let mut cp = Cp::new(&params, 7, rng());
        // Q = 30000 = Qold: Fb = −4000 → |Fb| = 1 → level 1, 75 KB (even: level 0, 150 KB).
        cp.q_old = 30_000.0;
        cp.on_sample(
            QueueView { frames: 20, bytes: 30_000 },
            Representative::default(),
            MulticastScheme::Standard,
        );
        assert_eq!(cp.time_to_mark, 75_000.0);
        // Q = 31000, Qold = 26000: |Fb| = 7 → level 7, 18.5 KB.
        cp.q_old = 26_000.0;
        cp.on_sample(
            QueueView { frames: 21, bytes: 31_000 },
            Representative::default(),
            MulticastScheme::Standard,
        );
        assert_eq!(cp.time_to_mark, 18_500.0);
    }

    /// Congestion memory with `decay = "calm-sample"`: each rise above 90 % of the
    /// buffer counts one event, and the sampling interval is divided by 2^count; a
    /// sample with Fb ≥ 0 counts one down.
    #[test]
    fn congestion_memory_sampling() {
        let params = CpParams {
            qeq: Size::Bytes(26_000),
            jitter: [1.0, 1.0],
            congestion_memory: Some(CongestionMemory {
                decay: MemoryDecay::CalmSample,
                ..CongestionMemory::default()
            }),
            ..CpParams::default()
        };
        let mut cp = Cp::new(&params, 7, rng());
        cp.observe(true, false);
        cp.observe(true, false);
        assert_eq!(cp.memory_count, 1, "one rise, one event");
        cp.observe(false, false);
        cp.observe(true, false);
        assert_eq!(cp.memory_count, 2);
        // A congested sample: |Fb| = 63 → 18.5 KB / 4.
        cp.on_sample(
            QueueView { frames: 80, bytes: 120_000 },
            Representative::default(),
            MulticastScheme::Standard,
        );
        assert_eq!(cp.time_to_mark, 18_500.0 / 4.0);
        // A calm sample (queue empty and falling): count 2 → 1, 150 KB / 2.
        cp.on_sample(QueueView { frames: 0, bytes: 0 }, Representative::default(), MulticastScheme::Standard);
        assert_eq!((cp.memory_count, cp.time_to_mark), (1, 75_000.0));
        for _ in 0..20 {
            cp.observe(false, false);
            cp.observe(true, false);
        }
        assert_eq!(cp.memory_count, 7, "capped");
    }

    /// Congestion memory with `decay = "never"` (the default: the paper's counter is
    /// only incremented): a calm sample leaves the count, a drain below Qeq too.
    #[test]
    fn congestion_memory_never_decays() {
        assert_eq!(CongestionMemory::default().decay, MemoryDecay::Never);
        let params = CpParams {
            qeq: Size::Bytes(26_000),
            jitter: [1.0, 1.0],
            congestion_memory: Some(CongestionMemory::default()),
            ..CpParams::default()
        };
        let mut cp = Cp::new(&params, 7, rng());
        for _ in 0..3 {
            cp.observe(true, false);
            cp.observe(false, true);
        }
        assert_eq!(cp.memory_count, 3);
        // Calm samples (queue empty): 150 KB / 8 each time, the count kept.
        for _ in 0..5 {
            cp.on_sample(
                QueueView { frames: 0, bytes: 0 },
                Representative::default(),
                MulticastScheme::Standard,
            );
        }
        assert_eq!((cp.memory_count, cp.time_to_mark), (3, 150_000.0 / 8.0));
        // Below Qeq: the "below-qeq" reading would reset it; "never" keeps it.
        let mut reset = Cp::new(
            &CpParams {
                congestion_memory: Some(CongestionMemory {
                    decay: MemoryDecay::BelowQeq,
                    ..CongestionMemory::default()
                }),
                ..params.clone()
            },
            7,
            rng(),
        );
        reset.observe(true, false);
        reset.observe(false, true);
        assert_eq!(reset.memory_count, 0);
    }
}
