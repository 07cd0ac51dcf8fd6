//! DCQCN's congestion point: the switch marks CE on the instantaneous egress queue
//! (Zhu et al. 2015 §3.1: RED's marking curve with w_q = 1). With q the bytes queued
//! when a packet arrives, the marking probability is 0 up to Kmin, rises linearly to
//! Pmax at Kmax, and is 1 above Kmax (the HPCC ns-3 fork's `ShouldSendCN`). The queue
//! is otherwise drop-tail; a packet that is not ECN-capable is never marked.

use crate::aqm::{QueueView, Verdict};
use crate::engine::RngStream;
use crate::units::Size;
use crate::wire::{Ecn, Frame};

/// The marking state of one egress queue.
#[derive(Clone, Debug, PartialEq)]
pub struct Marker {
    kmin: Size,
    kmax: Size,
    pmax: f64,
    rng: RngStream,
    /// Packets marked CE.
    pub(crate) marked: u64,
}

impl Marker {
    /// A marker with thresholds `kmin` < `kmax` (one unit) and Pmax `pmax`.
    pub fn new(kmin: Size, kmax: Size, pmax: f64, rng: RngStream) -> Self {
        Marker { kmin, kmax, pmax, rng, marked: 0 }
    }

    /// The marking probability at a queue of `q` (in the thresholds' unit).
    pub fn probability(&self, q: u64) -> f64 {
        let (kmin, kmax) = (self.kmin.value(), self.kmax.value());
        if q <= kmin {
            0.0
        } else if q <= kmax {
            self.pmax * (q - kmin) as f64 / (kmax - kmin) as f64
        } else {
            1.0
        }
    }

    /// An arrival: drop if it does not fit, else mark with the curve's probability.
    #[inline]
    pub fn on_enqueue(&mut self, queue: QueueView, frame: &mut Frame) -> Verdict {
        if !queue.admits(frame.size) {
            return Verdict::Drop;
        }
        if !frame.ecn.capable() {
            return Verdict::Enqueue;
        }
        let q = match self.kmin {
            Size::Frames(_) => queue.frames,
            Size::Bytes(_) => queue.bytes,
        };
        let p = self.probability(q);
        if p > 0.0 && (p >= 1.0 || self.rng.uniform() < p) {
            self.marked += 1;
            frame.ecn = Ecn::Ce;
            Verdict::Mark
        } else {
            Verdict::Enqueue
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::StreamKey;

    fn marker() -> Marker {
        let rng = RngStream::new(1, StreamKey { kind: "cp", name: "t" });
        Marker::new(Size::Bytes(5_000), Size::Bytes(200_000), 0.01, rng)
    }

    /// 0 at and below Kmin = 5 KB, Pmax·(q − Kmin)/(Kmax − Kmin) between (0.5 % halfway,
    /// at 102.5 KB), Pmax at Kmax = 200 KB, 1 above.
    #[test]
    fn the_marking_curve() {
        let m = marker();
        assert_eq!(m.probability(0), 0.0);
        assert_eq!(m.probability(5_000), 0.0);
        assert!((m.probability(102_500) - 0.005).abs() < 1e-15);
        assert_eq!(m.probability(200_000), 0.01);
        assert_eq!(m.probability(200_001), 1.0);
    }

    /// Over many arrivals at 102.5 KB about 0.5 % are marked; above Kmax every capable
    /// one is, and an incapable one never.
    #[test]
    fn marks_with_the_curves_probability() {
        let mut m = marker();
        let view = |bytes| QueueView {
            straight_through: false,
            frames: bytes / 1000,
            bytes,
            capacity: crate::aqm::Capacity::Bytes(1_000_000),
        };
        let mut frame = Frame { ecn: Ecn::Ect0, size: 1000, ..Frame::default() };
        let n = 200_000;
        let marked = (0..n).filter(|_| {
            let mut f = frame;
            m.on_enqueue(view(102_500), &mut f) == Verdict::Mark
        });
        let rate = marked.count() as f64 / n as f64;
        assert!((rate - 0.005).abs() < 0.0005, "{rate}");
        assert_eq!(m.on_enqueue(view(300_000), &mut frame), Verdict::Mark);
        assert_eq!(frame.ecn, Ecn::Ce);
        let mut plain = Frame { ecn: Ecn::NotEct, size: 1000, ..Frame::default() };
        assert_eq!(m.on_enqueue(view(300_000), &mut plain), Verdict::Enqueue);
    }
}
