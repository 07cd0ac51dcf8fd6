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

/// The marker's state: its threshold and counters.
#[derive(Clone, Debug, PartialEq)]
pub struct EcnThreshold {
    /// Threshold K.
    pub(crate) k: Size,
    /// Frames marked CE.
    pub(crate) marked: u64,
}

impl EcnThreshold {
    /// A marker with threshold `k`.
    pub fn new(k: Size) -> Self {
        Self { k, marked: 0 }
    }

    /// An arrival: drop if it does not fit, mark if ECN-capable and the queue holds more
    /// than K, else queue.
    #[inline]
    pub fn on_enqueue(&mut self, queue: QueueView, frame: &mut Frame) -> Verdict {
        if !queue.admits(frame.size) {
            return Verdict::Drop;
        }
        let occupancy = match self.k {
            Size::Frames(_) => queue.frames,
            Size::Bytes(_) => queue.bytes,
        };
        if occupancy > self.k.value() && frame.ecn.capable() {
            self.marked += 1;
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
        let mut m = EcnThreshold::new(Size::Frames(4));
        let ect = Frame { size: 1500, ecn: Ecn::Ect0, ..Frame::default() };
        let not_ect = Frame { size: 1500, ..Frame::default() };
        assert_eq!(m.on_enqueue(view(4), &mut ect.clone()), Verdict::Enqueue);
        assert_eq!(m.on_enqueue(view(5), &mut ect.clone()), Verdict::Mark);
        assert_eq!(m.on_enqueue(view(5), &mut not_ect.clone()), Verdict::Enqueue);
        assert_eq!(m.marked, 1);
    }

    #[test]
    fn threshold_in_bytes_and_full_queue_drops() {
        // K = 6000 B: 4 frames of 1500 B (6000 B) do not exceed it, 5 do.
        let mut m = EcnThreshold::new(Size::Bytes(6000));
        let ect = Frame { size: 1500, ecn: Ecn::Ce, ..Frame::default() };
        assert_eq!(m.on_enqueue(view(4), &mut ect.clone()), Verdict::Enqueue);
        assert_eq!(m.on_enqueue(view(5), &mut ect.clone()), Verdict::Mark);
        assert_eq!(m.on_enqueue(view(10), &mut ect.clone()), Verdict::Drop);
    }
}
