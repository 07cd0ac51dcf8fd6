//! ECM congestion point (reference §4.2): one per monitored egress queue.
//!
//! Every `sampling_interval` bytes of arriving data (randomized by `jitter`), the CP
//! reads the queue Q in pages and computes
//!
//! ```text
//! Qoff   = Q − Qeq
//! Qdelta = Q − Qold ;  Qold = Q
//! Fb     = −(Qoff + W·Qdelta), clamped to ±Qeq(2W+1)
//! ```
//!
//! then sends the sampled frame's source: BCN(0,0) if Q ≥ Qsc (severe congestion);
//! BCN(Qoff, Qdelta, CPID) if Fb < 0; the same if Fb > 0 and the frame carries this CP's
//! rate-regulator tag (positive feedback goes only to sources this CP regulates);
//! nothing otherwise.

use serde::{Deserialize, Serialize};

use super::{feedback, Bcn};
use crate::engine::RngStream;
use crate::units::Size;

/// Congestion point parameters (`[protocols.ecm.cp]`): Roeck 2007's ECM parameter set
/// ("Run 1"; Run 2 samples every 75000 bytes).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct CpParams {
    /// Equilibrium queue, pages (375 × 64 B = 24000 B, the target QCN and FECN use too).
    pub(crate) qeq: f64,
    /// Severe-congestion threshold, pages (1600 × 64 B = 102400 B).
    pub(crate) qsc: f64,
    /// Weight of the queue change.
    pub(crate) w: f64,
    /// The page, the unit of Qeq, Qsc and the BCN fields.
    pub(crate) page: Size,
    /// Bytes of arriving data between samples.
    pub(crate) sampling_interval: Size,
    /// Each interval is multiplied by U(jitter[0], jitter[1]) ([1, 1]: exact intervals).
    pub(crate) jitter: [f64; 2],
}

impl Default for CpParams {
    fn default() -> Self {
        CpParams {
            qeq: 375.0,
            qsc: 1600.0,
            w: 2.0,
            page: Size::Bytes(64),
            sampling_interval: Size::Bytes(150_000),
            jitter: [0.85, 1.15],
        }
    }
}

/// Per-CP counters.
#[derive(Clone, Debug, Default, Serialize)]
pub struct CpStats {
    /// Samples taken.
    pub(crate) samples: u64,
    /// Negative BCNs sent.
    pub(crate) negative: u64,
    /// Positive BCNs sent.
    pub(crate) positive: u64,
    /// BCN(0,0) sent.
    pub(crate) severe: u64,
}

/// An ECM congestion point.
#[derive(Clone, Debug)]
pub struct Cp {
    qeq: f64,
    qsc: f64,
    w: f64,
    page_bytes: f64,
    interval: f64,
    jitter: [f64; 2],
    /// This CP's identifier (port id + 1).
    pub(crate) cpid: u32,
    q_old: f64,
    /// Bytes of arrivals until the next sample.
    to_sample: f64,
    rng: RngStream,
    /// Positive feedback to frames tagged with this CP (ECM); E2CM's CPs send none:
    /// positive feedback comes from probe replies.
    pub(crate) positive_to_tagged: bool,
    /// Counters.
    pub(crate) stats: CpStats,
}

/// A 16-bit BCN field from a page count: rounded, saturating.
fn field(pages: f64) -> i16 {
    pages.round().clamp(f64::from(i16::MIN), f64::from(i16::MAX)) as i16
}

impl Cp {
    /// A CP with identifier `cpid`; its first sample comes after one (randomized)
    /// interval.
    pub fn new(params: &CpParams, cpid: u32, rng: RngStream) -> Self {
        let mut cp = Cp {
            qeq: params.qeq,
            qsc: params.qsc,
            w: params.w,
            page_bytes: params.page.value() as f64,
            interval: params.sampling_interval.value() as f64,
            jitter: params.jitter,
            cpid,
            q_old: 0.0,
            to_sample: 0.0,
            rng,
            positive_to_tagged: true,
            stats: CpStats::default(),
        };
        cp.to_sample = cp.next_interval();
        cp
    }

    fn next_interval(&mut self) -> f64 {
        self.interval * self.rng.uniform_range(self.jitter[0], self.jitter[1])
    }

    /// Counts an arriving data frame of `size` bytes; true when it is to be sampled.
    #[inline]
    pub fn sampled(&mut self, size: u32) -> bool {
        self.to_sample -= f64::from(size);
        self.to_sample <= 0.0
    }

    /// The queue state a probe reply carries, in pages: Qoff = Q − Qeq, Qdelta = Q − Qold
    /// (Qold is left to sampling).
    pub fn reply_fields(&self, bytes: u64) -> (i16, i16) {
        let q = bytes as f64 / self.page_bytes;
        (field(q - self.qeq), field(q - self.q_old))
    }

    /// The set point in bytes.
    pub fn qeq_bytes(&self) -> f64 {
        self.qeq * self.page_bytes
    }

    /// The sample: the queue holds `bytes`; the sampled frame is tagged with `tag` (0:
    /// untagged). Returns the message to send its source, if any.
    pub fn on_sample(&mut self, bytes: u64, tag: u32) -> Option<Bcn> {
        self.to_sample += self.next_interval();
        self.stats.samples += 1;
        let q = bytes as f64 / self.page_bytes;
        let (qoff, qdelta) = (q - self.qeq, q - self.q_old);
        self.q_old = q;
        if q >= self.qsc {
            self.stats.severe += 1;
            return Some(Bcn { qoff: 0, qdelta: 0, cpid: self.cpid, severe: true });
        }
        let fb = feedback(qoff, qdelta, self.w, self.qeq);
        let bcn = Bcn { qoff: field(qoff), qdelta: field(qdelta), cpid: self.cpid, severe: false };
        if fb < 0.0 {
            self.stats.negative += 1;
            Some(bcn)
        } else if fb > 0.0 && self.positive_to_tagged && tag == self.cpid {
            self.stats.positive += 1;
            Some(bcn)
        } else {
            None
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::StreamKey;

    fn exact_cp() -> Cp {
        let params = CpParams { jitter: [1.0, 1.0], ..CpParams::default() };
        Cp::new(&params, 7, RngStream::new(1, StreamKey { kind: "cp", name: "test" }))
    }

    const PAGE: u64 = 64;

    #[test]
    fn samples_every_150000_bytes_of_arrivals() {
        let mut cp = exact_cp();
        // 1500-byte frames: the 100th arrival completes 150000 bytes.
        let first = (1..=200).find(|_| cp.sampled(1500)).unwrap();
        assert_eq!(first, 100);
        cp.on_sample(0, 0);
        let second = (1..=200).find(|_| cp.sampled(1500)).unwrap();
        assert_eq!(second, 100);
    }

    /// Reference §4.4: Q = 600 pages after Qold = 550 gives Fb = −325: a negative BCN
    /// carrying Qoff = 225 and Qdelta = 50, tagged or not.
    #[test]
    fn negative_feedback_goes_to_any_source() {
        let mut cp = exact_cp();
        cp.on_sample(550 * PAGE, 0);
        let bcn = cp.on_sample(600 * PAGE, 0).unwrap();
        assert_eq!(bcn, Bcn { qoff: 225, qdelta: 50, cpid: 7, severe: false });
        assert_eq!(cp.stats.negative, 2, "550 pages > Qeq: the first sample was negative too");
    }

    /// Q = 200 after 250 gives Fb = +275: sent only to a frame tagged with this CP.
    #[test]
    fn positive_feedback_only_to_frames_this_cp_regulates() {
        let mut cp = exact_cp();
        cp.on_sample(250 * PAGE, 0);
        assert_eq!(cp.on_sample(200 * PAGE, 0), None, "untagged");
        cp.on_sample(250 * PAGE, 0);
        assert_eq!(cp.on_sample(200 * PAGE, 3), None, "tagged by another CP");
        cp.on_sample(250 * PAGE, 0);
        let bcn = cp.on_sample(200 * PAGE, 7).unwrap();
        assert_eq!(bcn, Bcn { qoff: -175, qdelta: -50, cpid: 7, severe: false });
        assert_eq!(cp.stats.positive, 1);
    }

    /// Q ≥ Qsc = 1600 pages (102400 B): BCN(0,0), whatever Fb says.
    #[test]
    fn severe_congestion_sends_bcn_0_0() {
        let mut cp = exact_cp();
        cp.on_sample(1700 * PAGE, 0);
        // Falling but still above Qsc: Fb = −(100 + 2·(−100)) = +100, yet severe.
        let bcn = cp.on_sample(1600 * PAGE, 0).unwrap();
        assert_eq!(bcn, Bcn { qoff: 0, qdelta: 0, cpid: 7, severe: true });
        assert_eq!(cp.stats.severe, 2);
        // Just below Qsc: an ordinary negative BCN, Fb = −(1224 + 2·(−1)) = −1222.
        let bcn = cp.on_sample(1599 * PAGE, 0).unwrap();
        assert_eq!(bcn, Bcn { qoff: 1224, qdelta: -1, cpid: 7, severe: false });
    }
}
