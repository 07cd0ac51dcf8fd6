//! Queue disciplines (active queue management): what an egress queue does with a frame
//! offered to it — queue it, queue it marked Congestion Experienced, or drop it — and
//! what it notes when a frame leaves.
//!
//! Every egress queue (every class of every port) has one [`AnyDiscipline`]; the data
//! path calls [`AnyDiscipline::on_enqueue`] for every frame that has to wait and
//! [`AnyDiscipline::on_dequeue`] for every frame that leaves. Each discipline is a
//! module with its own vocabulary:
//! - drop-tail: admit while the queue's capacity allows;
//! - [`ecn_threshold`]: drop-tail plus a single marking threshold K on the instantaneous
//!   queue, as DCTCP switches are configured (Alizadeh et al. 2010 §3.1).

pub mod ecn_threshold;

use crate::engine::Time;
use crate::net::{Capacity, Frame};

pub use ecn_threshold::EcnThreshold;

/// What a discipline decided for an arriving frame.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Verdict {
    /// Queue the frame as it is.
    Enqueue,
    /// Queue the frame with its ECN codepoint set to CE.
    Mark,
    /// Turn the frame away.
    Drop,
}

/// The queue as a discipline sees it when a frame arrives: its length before the frame
/// joins, its capacity, and whether the frame would go straight onto an idle link.
#[derive(Clone, Copy, Debug)]
pub struct QueueView {
    /// Nothing waits and the transmitter is free: an admitted frame is sent at once and
    /// needs no room in the queue.
    pub straight_through: bool,
    /// Frames held.
    pub frames: u64,
    /// Bytes held.
    pub bytes: u64,
    /// The queue's own limit.
    pub capacity: Capacity,
}

impl QueueView {
    /// Whether the frame fits: it goes straight through, or the capacity leaves room for
    /// `size` more bytes.
    #[inline]
    pub fn admits(&self, size: u32) -> bool {
        self.straight_through || self.capacity.admits(self.frames, self.bytes, size)
    }
}

/// A queue discipline: the seam's one enum.
#[derive(Clone, Debug, Default, PartialEq)]
pub enum AnyDiscipline {
    /// Drop-tail: queue while the capacity allows, drop beyond.
    #[default]
    DropTail,
    /// Drop-tail with CE marking above a threshold (boxed: egress queues stay small for
    /// the drop-tail majority).
    EcnThreshold(Box<EcnThreshold>),
}

impl AnyDiscipline {
    /// A frame is offered to the queue.
    #[inline]
    pub fn on_enqueue(&mut self, queue: QueueView, frame: &Frame, _now: Time) -> Verdict {
        match self {
            AnyDiscipline::DropTail => {
                if queue.admits(frame.size) {
                    Verdict::Enqueue
                } else {
                    Verdict::Drop
                }
            }
            AnyDiscipline::EcnThreshold(d) => d.on_enqueue(queue, frame),
        }
    }

    /// A frame left the queue for the wire.
    #[inline]
    pub fn on_dequeue(&mut self, _queue: QueueView, _frame: &Frame, _now: Time) {
        match self {
            AnyDiscipline::DropTail | AnyDiscipline::EcnThreshold(_) => {}
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn drop_tail_admits_up_to_capacity() {
        let mut d = AnyDiscipline::DropTail;
        let frame = Frame { size: 1500, ..Frame::default() };
        let q = |frames| QueueView {
            straight_through: false,
            frames,
            bytes: frames * 1500,
            capacity: Capacity::Frames(3),
        };
        assert_eq!(d.on_enqueue(q(2), &frame, 0), Verdict::Enqueue);
        assert_eq!(d.on_enqueue(q(3), &frame, 0), Verdict::Drop);
    }
}
