//! The per-flow shaper: a bounded FIFO at the source host released at a rate, one frame
//! of L bytes per 8L/rate (the rate limiter of IEEE 802.1Qau §32.13, whose rate a
//! reaction point sets).
//!
//! Its state machine has two states. **Idle**: no release is scheduled; a frame offered
//! when the rate allows leaves at once, otherwise it waits and a release is scheduled.
//! **Pacing**: the release timer is armed for `until`; offered frames wait (or are lost
//! when the queue is full). When the timer fires, one frame leaves and the shaper stays
//! Pacing for the next one while frames wait (or the source is saturated), else goes
//! Idle. [`Shaper::set_rate`] changes the rate in either state; a lower rate makes a
//! scheduled release early (it waits again when it fires), a higher one may bring it
//! forward.

use std::collections::VecDeque;

use crate::engine::time::serialization_time;
use crate::engine::{Time, TimerId};
use crate::net::{FrameId, NodeId};

/// Whether a release is scheduled.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ShaperState {
    /// No release scheduled.
    Idle,
    /// The release timer is armed.
    Pacing {
        /// When it fires.
        until: Time,
    },
}

/// What becomes of a frame offered to the shaper.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Offer {
    /// It leaves now.
    SendNow,
    /// It waits; schedule a release at this time if `Some` (the shaper was Idle).
    Wait(Option<Time>),
    /// The queue is full: the frame is lost.
    Full,
}

/// A per-flow shaper. Its first cache line holds everything an offered frame that leaves
/// at once reads and writes (the rate, the last release, the gap, the state and the
/// number of frames waiting); the queues take the second line and are read only while
/// frames wait. A shaper is read once per frame of its flow, and with many flows its
/// lines are seldom still in the first-level cache: one line instead of two is one cache
/// miss fewer per frame. `repr(C)` keeps the fields where they are put.
#[derive(Clone, Debug)]
#[repr(C, align(64))]
pub struct Shaper {
    /// Current release rate, bit/s.
    pub rate_bps: u64,
    /// When the last frame was released and its size (the next may leave at
    /// `last_release + 8·last_size/rate`); 0 and 0 before the first.
    last_release: Time,
    /// The gap 8·size/rate for the last size and rate seen: most frames of a flow share a
    /// size, and the exact computation needs a 128-bit division.
    gap: Time,
    gap_rate: u64,
    /// When the armed release fires, while `pacing`.
    until: Time,
    last_size: u32,
    gap_size: u32,
    /// Most frames the queue holds; beyond that the source loses frames.
    capacity: u32,
    /// The release timer (set by the simulator).
    pub(crate) timer: TimerId,
    /// Frames waiting, built or not: `queue.len() + unbuilt.len()`.
    waiting: u32,
    /// Whether the release timer is armed (Pacing) or not (Idle).
    pacing: bool,
    /// Frames waiting for release.
    queue: VecDeque<FrameId>,
    /// Frames a deferring source made after those of `queue` but that are not built yet:
    /// their birth times and destinations. A frame is built when it is released, so a
    /// long source queue holds 16 bytes a frame and its release reads no cold frame.
    unbuilt: VecDeque<(Time, NodeId)>,
}

impl Shaper {
    /// An idle shaper at `rate_bps` holding up to `capacity` frames.
    pub fn new(rate_bps: u64, capacity: usize) -> Self {
        Self {
            rate_bps,
            last_release: 0,
            gap: 0,
            gap_rate: 0,
            until: 0,
            last_size: 0,
            gap_size: 0,
            capacity: u32::try_from(capacity).unwrap_or(u32::MAX),
            timer: crate::net::NONE,
            waiting: 0,
            pacing: false,
            queue: VecDeque::with_capacity(capacity.min(crate::net::queue::PREALLOC_FRAMES as usize)),
            unbuilt: VecDeque::new(),
        }
    }

    /// Idle or Pacing.
    #[inline]
    pub fn state(&self) -> ShaperState {
        if self.pacing {
            ShaperState::Pacing { until: self.until }
        } else {
            ShaperState::Idle
        }
    }

    /// Earliest time the next frame may leave under the current rate (a zero-size
    /// release at 0 stands for none: its gap is 0).
    #[inline]
    pub fn next_allowed(&mut self, now: Time) -> Time {
        if (self.gap_size, self.gap_rate) != (self.last_size, self.rate_bps) {
            self.gap_size = self.last_size;
            self.gap_rate = self.rate_bps;
            self.gap = serialization_time(self.last_size, self.rate_bps);
        }
        (self.last_release + self.gap).max(now)
    }

    /// The shaper's waiting frames will be unbuilt (its source defers), but for the one
    /// that starts each backlog: the preallocated room moves to `unbuilt`.
    pub fn holds_unbuilt(&mut self) {
        self.unbuilt = VecDeque::with_capacity(self.queue.capacity());
        self.queue = VecDeque::with_capacity(1);
    }

    /// Whether the queue holds as many frames as it may.
    #[inline]
    pub fn is_full(&self) -> bool {
        self.waiting >= self.capacity
    }

    /// Frames waiting, built or not.
    #[inline]
    pub fn waiting(&self) -> usize {
        self.waiting as usize
    }

    /// Frames waiting that are not built yet.
    #[inline]
    pub fn unbuilt(&self) -> usize {
        self.unbuilt.len()
    }

    /// A source offers frame `id` at `now`. A frame that waits is queued here.
    #[inline]
    pub fn offer(&mut self, id: FrameId, now: Time) -> Offer {
        if self.waiting == 0 && !self.pacing && self.next_allowed(now) <= now {
            Offer::SendNow
        } else if self.is_full() {
            Offer::Full
        } else {
            self.queue.push_back(id);
            self.waiting += 1;
            if !self.pacing {
                let at = self.next_allowed(now);
                self.pacing(at);
                Offer::Wait(Some(at))
            } else {
                Offer::Wait(None)
            }
        }
    }

    /// A deferring source's frame, born at `born` for `dst`, waits unbuilt behind the
    /// others (the caller has checked that the queue is not full).
    #[inline]
    pub fn push_unbuilt(&mut self, born: Time, dst: NodeId) {
        debug_assert!(!self.is_full());
        self.unbuilt.push_back((born, dst));
        self.waiting += 1;
    }

    /// The first waiting frame, if it is built.
    #[inline]
    pub fn pop_built(&mut self) -> Option<FrameId> {
        let id = self.queue.pop_front()?;
        self.waiting -= 1;
        Some(id)
    }

    /// The first waiting frame, if it is unbuilt (all built ones have left): its birth
    /// time and destination.
    #[inline]
    pub fn pop_unbuilt(&mut self) -> Option<(Time, NodeId)> {
        debug_assert!(self.queue.is_empty());
        let frame = self.unbuilt.pop_front()?;
        self.waiting -= 1;
        Some(frame)
    }

    /// Notes that a frame of `size` bytes left at `now`.
    #[inline]
    pub fn released(&mut self, size: u32, now: Time) {
        self.last_release = now;
        self.last_size = size;
    }

    /// Sets the rate; returns the new release time when a scheduled release should come
    /// earlier.
    pub fn set_rate(&mut self, rate_bps: u64, now: Time) -> Option<Time> {
        self.rate_bps = rate_bps.max(1);
        if !self.pacing {
            return None;
        }
        let at = self.next_allowed(now);
        (at < self.until).then(|| {
            self.until = at;
            at
        })
    }

    /// Marks a release scheduled for `at`.
    #[inline]
    pub fn pacing(&mut self, at: Time) {
        self.pacing = true;
        self.until = at;
    }

    /// Marks that no release is scheduled.
    #[inline]
    pub fn idle(&mut self) {
        self.pacing = false;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn idle_sends_then_paces_at_the_rate() {
        // 1 Gbit/s, 1500-byte frames: one per 12 µs.
        let mut s = Shaper::new(1_000_000_000, 4);
        assert_eq!(s.offer(1, 0), Offer::SendNow);
        s.released(1500, 0);
        assert_eq!(s.offer(2, 1_000_000), Offer::Wait(Some(12_000_000)));
        assert_eq!(s.state(), ShaperState::Pacing { until: 12_000_000 });
        assert_eq!(s.offer(3, 2_000_000), Offer::Wait(None));
        // A higher rate brings the release forward: 10 Gbit/s → 1.2 µs after the last.
        assert_eq!(s.set_rate(10_000_000_000, 1_000_000), Some(1_200_000));
        // A lower one leaves it: the release waits again when it fires.
        assert_eq!(s.set_rate(100_000_000, 1_100_000), None);
        assert_eq!(s.state(), ShaperState::Pacing { until: 1_200_000 });
    }

    #[test]
    fn frames_not_built_yet_take_their_places_in_the_queue() {
        let mut s = Shaper::new(1_000_000, 2);
        s.released(1500, 0);
        assert_eq!(s.offer(1, 0), Offer::Wait(Some(12_000_000_000)));
        s.push_unbuilt(5, 3);
        assert_eq!(s.waiting(), 2);
        assert_eq!(s.offer(2, 6), Offer::Full);
    }

    #[test]
    fn an_offer_that_leaves_at_once_reads_one_cache_line() {
        use std::mem::{offset_of, size_of};
        assert_eq!(size_of::<Shaper>(), 128);
        assert!(offset_of!(Shaper, pacing) < 64 && offset_of!(Shaper, waiting) < 64);
        assert_eq!(offset_of!(Shaper, queue), 64);
    }

    #[test]
    fn full_queue_loses_frames() {
        let mut s = Shaper::new(1_000_000, 1);
        s.released(1500, 0);
        assert_eq!(s.offer(1, 0), Offer::Wait(Some(12_000_000_000)));
        assert_eq!(s.offer(2, 0), Offer::Full);
    }
}
