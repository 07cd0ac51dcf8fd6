//! FIFO egress queues and the optional per-switch shared buffer.
//!
//! Queue length counts the frames *waiting*: the frame being serialized has left the
//! queue (as in ns-2, htsim and OMNeT++/INET). A queue of capacity 300 frames therefore
//! holds up to 300 waiting frames plus one on the wire.

use std::collections::VecDeque;

/// Frames a limiter queue reserves room for when created, and the room the memory
/// budget counts for each egress queue. A queue grows by doubling, so a run allocates
/// only while a queue reaches a length it never had, never per frame in steady state; a
/// small reservation keeps thousands of mostly idle host queues cheap (4096 hosts
/// reserved 134 MB at 4096 frames each). Egress queues reserve nothing until a frame
/// first waits: on the 4096-sender dumbbell the ports facing senders never queue, and
/// their 33 slots each came to 1.1 MB.
pub const PREALLOC_FRAMES: u64 = 32;

use super::frame::FrameId;
pub use crate::aqm::Capacity;
use crate::aqm::{AnyDiscipline, QueueView};
use crate::engine::Time;

impl Capacity {
    /// Frames a limiter queue of this capacity reserves room for when created, and the
    /// memory budget counts for an egress queue: at most [`PREALLOC_FRAMES`] (a byte
    /// capacity counted in 1500-byte frames), plus one.
    pub fn prealloc_frames(self) -> u64 {
        match self {
            Capacity::Frames(n) => n.min(PREALLOC_FRAMES) + 1,
            Capacity::Bytes(b) => (b / 1500).min(PREALLOC_FRAMES) + 1,
        }
    }
}

/// Counters of one egress queue. Time integrals are exact (`u128` of frame·ps), so
/// means and deviations are reproducible to the last bit. What every length change
/// writes comes first (`repr(C)`) and fills one cache line: the integrals grow in `u64`
/// and fold into their `u128` totals only when a `u64` would overflow. Arrivals are not
/// counted separately: every frame offered was sent, dropped or still waits (see
/// [`EgressQueue::arrived_frames`]). 96 bytes: the totals are boxed, allocated at a
/// queue's first overflow (2^64 byte·ps is 1.8 MB waiting for ten simulated seconds), so
/// that a port with its counters fits five cache lines.
#[derive(Clone, Debug, Default)]
#[repr(C)]
pub struct QueueStats {
    /// Frames that started transmission on the link.
    pub sent_frames: u64,
    /// Bytes that started transmission.
    pub(crate) sent_bytes: u64,
    /// Time of the last length change.
    pub(crate) last_change: Time,
    /// Largest number of waiting frames seen.
    pub max_frames: u64,
    /// Largest number of waiting bytes seen.
    pub(crate) max_bytes: u64,
    /// ∫ frames dt not yet folded into `area_frames`.
    recent_area_frames: u64,
    /// ∫ frames² dt not yet folded into `area_frames_sq`.
    recent_area_frames_sq: u64,
    /// ∫ bytes dt not yet folded into `area_bytes`.
    recent_area_bytes: u64,
    /// Frames dropped because the queue (or the shared pool) was full, or by the
    /// queue discipline.
    pub dropped_frames: u64,
    /// Bytes dropped.
    pub(crate) dropped_bytes: u64,
    /// Frames queued with their ECN codepoint set to CE by the queue discipline.
    pub(crate) marked_frames: u64,
    /// The integrals' folded parts, or `None` while no `u64` has overflowed.
    folded: Option<Box<Folded>>,
}

/// The parts of a queue's time integrals that no longer fit their `u64`s.
#[derive(Clone, Copy, Debug, Default)]
struct Folded {
    /// ∫ frames dt, in frame·ps.
    frames: u128,
    /// ∫ frames² dt, in frame²·ps.
    frames_sq: u128,
    /// ∫ bytes dt, in byte·ps.
    bytes: u128,
}

impl QueueStats {
    /// ∫ frames dt so far, in frame·ps.
    pub fn area_frames(&self) -> u128 {
        self.folded.as_ref().map_or(0, |f| f.frames) + self.recent_area_frames as u128
    }

    /// ∫ frames² dt so far, in frame²·ps.
    pub fn area_frames_sq(&self) -> u128 {
        self.folded.as_ref().map_or(0, |f| f.frames_sq) + self.recent_area_frames_sq as u128
    }

    /// ∫ bytes dt so far, in byte·ps.
    pub fn area_bytes(&self) -> u128 {
        self.folded.as_ref().map_or(0, |f| f.bytes) + self.recent_area_bytes as u128
    }

    /// Moves the integrals' recent parts, whose sums `frames`, `frames_sq` and `bytes`
    /// (recent part plus the latest step) no longer all fit a `u64`, to the folded
    /// totals, allocated at the first overflow.
    #[cold]
    #[inline(never)]
    fn fold(&mut self, frames: u128, frames_sq: u128, bytes: u128) {
        let folded = self.folded.get_or_insert_with(Box::default);
        folded.frames += frames;
        folded.frames_sq += frames_sq;
        folded.bytes += bytes;
        (self.recent_area_frames, self.recent_area_frames_sq, self.recent_area_bytes) = (0, 0, 0);
    }

    /// Time-weighted mean and standard deviation of the length in frames over `[0, end]`.
    pub fn mean_std_frames(&self, end: Time) -> (f64, f64) {
        if end == 0 {
            return (0.0, 0.0);
        }
        let mean = self.area_frames() as f64 / end as f64;
        let mean_sq = self.area_frames_sq() as f64 / end as f64;
        (mean, (mean_sq - mean * mean).max(0.0).sqrt())
    }

    /// Time-weighted mean length in bytes over `[0, end]`.
    pub fn mean_bytes(&self, end: Time) -> f64 {
        if end == 0 {
            0.0
        } else {
            self.area_bytes() as f64 / end as f64
        }
    }
}

/// A FIFO of frame ids with a capacity and a queue discipline that decides, frame by
/// frame, what is admitted.
#[derive(Clone, Debug)]
#[repr(C)]
pub struct EgressQueue {
    frames: VecDeque<FrameId>,
    bytes: u64,
    /// The queue's own limit.
    pub(crate) capacity: Capacity,
    /// What the queue does with arriving frames (drop-tail unless a protocol says).
    pub(crate) discipline: AnyDiscipline,
    /// Counters.
    pub stats: QueueStats,
}

impl EgressQueue {
    /// An empty queue with the given limit; room for frames is taken when they first
    /// wait (see [`PREALLOC_FRAMES`]).
    pub fn new(capacity: Capacity) -> Self {
        Self {
            frames: VecDeque::new(),
            bytes: 0,
            capacity,
            discipline: AnyDiscipline::DropTail,
            stats: QueueStats::default(),
        }
    }

    /// The queue as its discipline sees it, with `(frames, bytes)` more for the frame
    /// being serialized when the occupancy convention counts it.
    #[inline]
    pub fn view(&self, straight_through: bool, on_wire: (u64, u64)) -> QueueView {
        QueueView {
            straight_through,
            frames: self.len() + on_wire.0,
            bytes: self.bytes + on_wire.1,
            capacity: self.capacity,
        }
    }

    /// Waiting frames.
    #[inline]
    pub fn len(&self) -> u64 {
        self.frames.len() as u64
    }

    /// True when no frame is waiting.
    #[inline]
    pub fn is_empty(&self) -> bool {
        self.frames.is_empty()
    }

    /// Waiting bytes.
    #[inline]
    pub fn bytes(&self) -> u64 {
        self.bytes
    }

    /// Whether a frame of `size` bytes fits under the queue's own limit.
    #[inline]
    pub fn admits(&self, size: u32) -> bool {
        self.capacity.admits(self.len(), self.bytes, size)
    }

    /// Advances the time integrals to `now` (call before every length change). Each
    /// step is summed in 128 bits, where it cannot overflow (a length below 2^32, a time
    /// below 2^64), and the sums stay in the `u64`s while all three fit: a few
    /// multiplications and no branch but that one, inline at every push and pop. The
    /// totals (folded part plus recent part) are exact whenever the folding happens.
    #[inline(always)]
    fn account(&mut self, now: Time) {
        let s = &mut self.stats;
        let dt = u128::from(now - s.last_change);
        let n = self.frames.len() as u64;
        let frames = u128::from(s.recent_area_frames) + u128::from(n) * dt;
        let frames_sq = u128::from(s.recent_area_frames_sq) + u128::from(n * n) * dt;
        let bytes = u128::from(s.recent_area_bytes) + u128::from(self.bytes) * dt;
        s.last_change = now;
        if (frames | frames_sq | bytes) >> 64 == 0 {
            (s.recent_area_frames, s.recent_area_frames_sq, s.recent_area_bytes) =
                (frames as u64, frames_sq as u64, bytes as u64);
        } else {
            s.fold(frames, frames_sq, bytes);
        }
    }

    /// Frames offered to the queue (accepted or dropped): sent, dropped or waiting.
    pub fn arrived_frames(&self) -> u64 {
        self.stats.sent_frames + self.stats.dropped_frames + self.len()
    }

    /// Bytes offered to the queue.
    pub fn arrived_bytes(&self) -> u64 {
        self.stats.sent_bytes + self.stats.dropped_bytes + self.bytes
    }

    /// Appends a frame that has been admitted.
    #[inline]
    pub fn push(&mut self, now: Time, id: FrameId, size: u32) {
        self.account(now);
        self.frames.push_back(id);
        self.bytes += size as u64;
        let s = &mut self.stats;
        s.max_frames = s.max_frames.max(self.frames.len() as u64);
        s.max_bytes = s.max_bytes.max(self.bytes);
    }

    /// Records a frame turned away at the tail.
    #[inline]
    pub fn record_drop(&mut self, size: u32) {
        let s = &mut self.stats;
        s.dropped_frames += 1;
        s.dropped_bytes += size as u64;
    }

    /// Records a frame that bypassed the queue straight onto an idle link.
    #[inline]
    pub fn record_cut_through(&mut self, size: u32) {
        let s = &mut self.stats;
        s.sent_frames += 1;
        s.sent_bytes += size as u64;
    }

    /// Removes the head frame; `size_of` gives its size.
    #[inline]
    pub fn pop(&mut self, now: Time, size_of: impl FnOnce(FrameId) -> u32) -> Option<FrameId> {
        self.account(now);
        let id = self.frames.pop_front()?;
        let size = size_of(id);
        self.bytes -= size as u64;
        self.stats.sent_frames += 1;
        self.stats.sent_bytes += size as u64;
        Some(id)
    }

    /// Closes the time integrals at `end`.
    pub fn finish(&mut self, end: Time) {
        self.account(end);
    }

    /// Iterates over the waiting frame ids, head first.
    pub fn iter(&self) -> impl Iterator<Item = FrameId> + '_ {
        self.frames.iter().copied()
    }
}

/// A switch-wide buffer shared by all egress queues of the switch ("switch frame
/// capacity" in the 802.1au scenarios). A frame is admitted only if both its queue's
/// own limit and the pool have room.
#[derive(Clone, Debug)]
pub struct SharedPool {
    /// The pool limit.
    pub(crate) capacity: Capacity,
    /// Frames held in the pool.
    pub(crate) frames: u64,
    /// Bytes held in the pool.
    pub(crate) bytes: u64,
}

impl SharedPool {
    /// An empty pool.
    pub fn new(capacity: Capacity) -> Self {
        Self { capacity, frames: 0, bytes: 0 }
    }

    /// Whether `size` more bytes fit.
    #[inline]
    pub fn admits(&self, size: u32) -> bool {
        self.capacity.admits(self.frames, self.bytes, size)
    }

    /// Takes room for one frame.
    #[inline]
    pub fn take(&mut self, size: u32) {
        self.frames += 1;
        self.bytes += size as u64;
    }

    /// Gives back room for one frame.
    #[inline]
    pub fn give(&mut self, size: u32) {
        self.frames -= 1;
        self.bytes -= size as u64;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn frame_capacity_counts_waiting_frames() {
        let mut q = EgressQueue::new(Capacity::Frames(2));
        assert!(q.admits(1500));
        q.push(0, 1, 1500);
        q.push(0, 2, 1500);
        assert!(!q.admits(64));
        assert_eq!(q.bytes(), 3000);
        assert_eq!(q.pop(10, |_| 1500), Some(1));
        assert!(q.admits(1500));
    }

    #[test]
    fn byte_capacity_checks_the_new_frame() {
        let q = EgressQueue::new(Capacity::Bytes(3000));
        assert!(q.admits(3000));
        assert!(!q.admits(3001));
    }

    #[test]
    fn integrals_stay_exact_past_u64() {
        // 1000 frames of 9000 B waiting for 10^13 ps (10 s): ∫ bytes dt = 9·10^19 byte·ps,
        // more than a u64 holds (1.8·10^19); ∫ frames² dt = 10^19 twice over overflows too.
        let mut q = EgressQueue::new(Capacity::Frames(2000));
        for id in 0..1000 {
            q.push(0, id, 9000);
        }
        q.finish(10_000_000_000_000);
        q.push(20_000_000_000_000, 1000, 9000);
        let s = &q.stats;
        assert_eq!(s.area_bytes(), 2 * 9_000_000 * 10_000_000_000_000u128);
        assert_eq!(s.area_frames(), 2 * 1000 * 10_000_000_000_000u128);
        assert_eq!(s.area_frames_sq(), 2 * 1_000_000 * 10_000_000_000_000u128);
        assert_eq!(q.arrived_frames(), 1001);
        assert_eq!(q.arrived_bytes(), 1001 * 9000);
    }

    #[test]
    fn arrivals_are_sent_dropped_or_waiting() {
        let mut q = EgressQueue::new(Capacity::Frames(1));
        q.push(0, 1, 100);
        q.record_drop(200);
        q.record_cut_through(300);
        assert_eq!((q.arrived_frames(), q.arrived_bytes()), (3, 600));
        q.pop(5, |_| 100);
        assert_eq!((q.arrived_frames(), q.arrived_bytes()), (3, 600));
    }

    #[test]
    fn time_weighted_mean_and_std() {
        // 0 frames for 10 ps, 2 frames for 10 ps: mean 1, std 1.
        let mut q = EgressQueue::new(Capacity::Frames(10));
        q.push(10, 1, 100);
        q.push(10, 2, 100);
        q.finish(20);
        let (m, s) = q.stats.mean_std_frames(20);
        assert_eq!(m, 1.0);
        assert_eq!(s, 1.0);
        assert_eq!(q.stats.max_frames, 2);
    }
}
