//! Per-flow one-way delay distribution: a log-linear histogram (as in HdrHistogram) for
//! percentiles, the exact maximum, and the mean delay variation between consecutive
//! frames.

use crate::engine::Time;

/// Sub-buckets per octave: a bucket spans at most 1/16 of its lower edge, so a
/// percentile (reported at the bucket's middle) is within 3.2 % of the true value.
const SUB: u64 = 16;
/// Octaves above the exact range: delays up to 2^(4 + 32) ns ≈ 19 hours.
const OCTAVES: u64 = 32;
/// Buckets: 16 exact ones (0–15 ns), then 16 per octave.
const BUCKETS: usize = (SUB + OCTAVES * SUB) as usize;

/// Memory of one flow's histogram, bytes.
pub const HISTOGRAM_BYTES: u64 = BUCKETS as u64 * 4;

/// The bucket of a delay of `ns` nanoseconds.
fn bucket(ns: u64) -> usize {
    if ns < SUB {
        return ns as usize;
    }
    let octave = 63 - u64::from(ns.leading_zeros()); // ≥ 4
    let sub = (ns >> (octave - 4)) & (SUB - 1);
    ((SUB + (octave - 4) * SUB + sub) as usize).min(BUCKETS - 1)
}

/// The lower edge and width of bucket `i`, ns.
fn bucket_range(i: usize) -> (u64, u64) {
    let i = i as u64;
    if i < SUB {
        return (i, 1);
    }
    let octave = (i - SUB) / SUB + 4;
    let sub = (i - SUB) % SUB;
    let width = 1u64 << (octave - 4);
    ((SUB + sub) << (octave - 4), width)
}

/// Delay statistics of one flow. The maximum and the variation cost nothing extra; the
/// histogram (for percentiles) is kept only when asked for (`metrics.delay_percentiles`):
/// it touches one more cache line per delivered frame, which with thousands of flows
/// is a cache miss per frame (twice the run time on `dumbbell-cbr-4096`).
/// `repr(C)`, 48 bytes: with the flow's delay sum, it fills the second cache line of the
/// flow's counters.
#[derive(Clone, Debug, Default)]
#[repr(C)]
pub struct DelayStats {
    /// Σ |d_k − d_{k−1}| over consecutive delivered frames, ps.
    variation_sum: u128,
    /// Frames per bucket, when percentiles are asked for (a thin pointer: the size is
    /// fixed).
    histogram: Option<Box<[u32; BUCKETS]>>,
    /// Largest delay, ps.
    pub(crate) max: Time,
    /// The previous frame's delay, ps (meaningless before the first).
    last: Time,
    /// Frames recorded (the variation has one term fewer).
    recorded: u64,
}

impl DelayStats {
    /// Statistics that keep a histogram, for percentiles.
    pub fn with_percentiles() -> Self {
        Self { histogram: Some(Box::new([0; BUCKETS])), ..Self::default() }
    }

    /// Records the delay of one delivered frame, ps.
    #[inline]
    pub fn record(&mut self, delay: Time) {
        if let Some(h) = &mut self.histogram {
            let b = &mut h[bucket(delay / 1000)];
            *b = b.saturating_add(1);
        }
        self.max = self.max.max(delay);
        if self.recorded > 0 {
            self.variation_sum += u128::from(delay.abs_diff(self.last));
        }
        self.last = delay;
        self.recorded += 1;
    }

    /// Frames recorded.
    pub fn count(&self) -> u64 {
        self.histogram.as_ref().map_or(0, |h| h.iter().map(|&c| u64::from(c)).sum())
    }

    /// The `q`-quantile (0 < q ≤ 1) of the delays, s: the middle of the bucket holding
    /// it (exact below 16 ns, within 3.2 % above), never above the maximum; 0 without
    /// frames; `None` without a histogram.
    pub fn quantile_s(&self, q: f64) -> Option<f64> {
        let h = self.histogram.as_ref()?;
        Some(self.quantile_in(&h[..], q))
    }

    fn quantile_in(&self, h: &[u32], q: f64) -> f64 {
        let n = self.count();
        let rank = ((q * n as f64).ceil() as u64).clamp(1, n.max(1));
        let mut seen = 0u64;
        for (i, &c) in h.iter().enumerate() {
            seen += u64::from(c);
            if seen >= rank {
                let (lo, width) = bucket_range(i);
                let mid_ps = (lo as f64 + (width as f64 - 1.0) / 2.0) * 1000.0;
                return mid_ps.min(self.max as f64) / 1e12;
            }
        }
        self.max as f64 / 1e12
    }

    /// Mean |d_k − d_{k−1}| over consecutive delivered frames (the mean IP delay
    /// variation of RFC 3393 with consecutive pairs), s.
    pub fn variation_s(&self) -> f64 {
        let terms = self.recorded.saturating_sub(1);
        if terms == 0 {
            0.0
        } else {
            self.variation_sum as f64 / terms as f64 / 1e12
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn buckets_cover_values_once() {
        for ns in [0u64, 1, 15, 16, 17, 31, 32, 33, 1000, 1_000_000, 123_456_789] {
            let (lo, width) = bucket_range(bucket(ns));
            assert!(lo <= ns && ns < lo + width, "{ns} in [{lo}, {})", lo + width);
            assert!(width as f64 <= (lo as f64 / 16.0).max(1.0), "{ns}: width {width}");
        }
        assert_eq!(bucket_range(bucket(1000)), (992, 32));
    }

    #[test]
    fn percentiles_and_variation_by_hand() {
        // 99 frames at 10 µs and one at 1 ms: p50 = 10 µs (within 3 %), p99 = 10 µs,
        // max 1 ms exactly; the 1 ms frame is last, so one step of 990 µs in 99 pairs.
        let mut d = DelayStats::with_percentiles();
        for _ in 0..99 {
            d.record(10_000_000);
        }
        d.record(1_000_000_000);
        assert_eq!(d.count(), 100);
        let q = |x| d.quantile_s(x).unwrap();
        assert!((q(0.5) - 10e-6).abs() < 0.032 * 10e-6, "{}", q(0.5));
        assert!((q(0.99) - 10e-6).abs() < 0.032 * 10e-6);
        assert!((q(1.0) - 1e-3).abs() < 0.032 * 1e-3);
        assert_eq!(d.max, 1_000_000_000);
        assert!((d.variation_s() - 990e-6 / 99.0).abs() < 1e-15);
        assert_eq!(DelayStats::with_percentiles().quantile_s(0.5), Some(0.0));
        // Without a histogram: the maximum and the variation, no percentiles.
        let mut d = DelayStats::default();
        d.record(5_000_000);
        d.record(7_000_000);
        assert_eq!((d.quantile_s(0.5), d.max), (None, 7_000_000));
        assert!((d.variation_s() - 2e-6).abs() < 1e-15);
    }
}
