//! A single-threshold ECN marker: the switch configuration DCTCP relies on.
//!
//! Alizadeh et al. 2010 (DCTCP) §3.1: "the switch marks an arriving packet with the CE
//! codepoint if the queue occupancy is greater than K upon its arrival". The queue is
//! otherwise drop-tail: an arrival that does not fit is dropped, marked or not, and a
//! frame that is not ECN-capable is queued unmarked whatever the occupancy.

use serde::{Deserialize, Serialize};

use super::{QueueView, Verdict};
use crate::units::Size;
use crate::wire::Frame;

/// Parameters of the marker (`[protocols.ecn_threshold]`).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct EcnThresholdParams {
    /// Marking threshold K on the instantaneous queue, in frames or bytes.
    pub(crate) k: Size,
    /// Egress ports whose queues mark ("all", "switches", or port names).
    #[serde(default = "crate::units::select::PortSel::switches")]
    pub(crate) ports: crate::units::select::PortSel,
}

/// The marker: its threshold K in one word, so that it sits in its queue rather than
/// behind a pointer (on a fabric, where every switch port marks and hundreds of ports
/// do not stay cached, the pointer's target was a first-level cache miss per hop). The
/// frames it marks are counted by the queue (`marked_frames`).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct EcnThreshold {
    /// K, with [`IN_BYTES`] set when it counts bytes rather than frames.
    k: u64,
}

/// The bit of [`EcnThreshold::k`] that says K counts bytes.
const IN_BYTES: u64 = 1 << 63;

impl EcnThreshold {
    /// A marker with threshold `k` (at most 2^63 − 1 frames or bytes: beyond any queue).
    pub fn new(k: Size) -> Self {
        let k = match k {
            Size::Frames(n) => n.min(IN_BYTES - 1),
            Size::Bytes(b) => b.min(IN_BYTES - 1) | IN_BYTES,
        };
        Self { k }
    }

    /// The threshold K.
    pub fn k(self) -> Size {
        if self.k & IN_BYTES != 0 {
            Size::Bytes(self.k & !IN_BYTES)
        } else {
            Size::Frames(self.k)
        }
    }

    /// An arrival: drop if it does not fit, mark if ECN-capable and the queue holds more
    /// than K, else queue.
    #[inline]
    pub fn on_enqueue(self, queue: QueueView, frame: &mut Frame) -> Verdict {
        if !queue.admits(frame.size) {
            return Verdict::Drop;
        }
        let occupancy = if self.k & IN_BYTES != 0 { queue.bytes } else { queue.frames };
        if occupancy > self.k & !IN_BYTES && frame.ecn.capable() {
            frame.ecn = crate::wire::Ecn::Ce;
            Verdict::Mark
        } else {
            Verdict::Enqueue
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::net::{Capacity, Ecn};

    fn view(frames: u64) -> QueueView {
        QueueView { straight_through: false, frames, bytes: frames * 1500, capacity: Capacity::Frames(10) }
    }

    #[test]
    fn marks_above_k_only_ecn_capable_frames() {
        // K = 4 frames: an arrival finding 4 waiting is not marked, one finding 5 is.
        let m = EcnThreshold::new(Size::Frames(4));
        assert_eq!(m.k(), Size::Frames(4));
        let ect = Frame { size: 1500, ecn: Ecn::Ect0, ..Frame::default() };
        let not_ect = Frame { size: 1500, ..Frame::default() };
        assert_eq!(m.on_enqueue(view(4), &mut ect.clone()), Verdict::Enqueue);
        let mut marked = ect;
        assert_eq!(m.on_enqueue(view(5), &mut marked), Verdict::Mark);
        assert_eq!(marked.ecn, Ecn::Ce);
        assert_eq!(m.on_enqueue(view(5), &mut not_ect.clone()), Verdict::Enqueue);
    }

    #[test]
    fn threshold_in_bytes_and_full_queue_drops() {
        // K = 6000 B: 4 frames of 1500 B (6000 B) do not exceed it, 5 do.
        let m = EcnThreshold::new(Size::Bytes(6000));
        assert_eq!(m.k(), Size::Bytes(6000));
        let ect = Frame { size: 1500, ecn: Ecn::Ce, ..Frame::default() };
        assert_eq!(m.on_enqueue(view(4), &mut ect.clone()), Verdict::Enqueue);
        assert_eq!(m.on_enqueue(view(5), &mut ect.clone()), Verdict::Mark);
        assert_eq!(m.on_enqueue(view(10), &mut ect.clone()), Verdict::Drop);
    }
}
