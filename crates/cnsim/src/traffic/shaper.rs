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

/// A per-flow shaper. Every field is read for every frame it releases: aligned to a
/// cache line, its 128 bytes take two lines, not three (hence the split tuples).
#[derive(Clone, Debug)]
#[repr(align(64))]
pub struct Shaper {
    /// Current release rate, bit/s.
    pub rate_bps: u64,
    /// Frames waiting for release.
    pub queue: VecDeque<FrameId>,
    /// Frames a deferring source made after those of `queue` but that are not built yet:
    /// their birth times and destinations. A frame is built when it is released, so a
    /// long source queue holds 12 bytes a frame and its release reads no cold frame.
    pub unbuilt: VecDeque<(Time, NodeId)>,
    /// Most frames the queue holds; beyond that the source loses frames.
    capacity: u32,
    /// When the last frame was released and its size (the next may leave at
    /// `last_release + 8·last_size/rate`); 0 and 0 before the first.
    last_release: Time,
    last_size: u32,
    /// The release timer (set by the simulator).
    pub timer: TimerId,
    /// Idle or Pacing.
    pub state: ShaperState,
    /// The gap 8·size/rate for the last size and rate seen: most frames of a flow share a
    /// size, and the exact computation needs a 128-bit division.
    gap_size: u32,
    gap_rate: u64,
    gap: Time,
}

impl Shaper {
    /// An idle shaper at `rate_bps` holding up to `capacity` frames.
    pub fn new(rate_bps: u64, capacity: usize) -> Self {
        Self {
            rate_bps,
            queue: VecDeque::with_capacity(capacity.min(crate::net::queue::PREALLOC_FRAMES as usize)),
            unbuilt: VecDeque::new(),
            capacity: u32::try_from(capacity).unwrap_or(u32::MAX),
            last_release: 0,
            last_size: 0,
            timer: crate::net::NONE,
            state: ShaperState::Idle,
            gap_size: 0,
            gap_rate: 0,
            gap: 0,
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
        self.waiting() >= self.capacity as usize
    }

    /// Frames waiting, built or not.
    #[inline]
    pub fn waiting(&self) -> usize {
        self.queue.len() + self.unbuilt.len()
    }

    /// A source offers frame `id` at `now`. A frame that waits is queued here.
    #[inline]
    pub fn offer(&mut self, id: FrameId, now: Time) -> Offer {
        let idle = self.state == ShaperState::Idle;
        if self.waiting() == 0 && idle && self.next_allowed(now) <= now {
            Offer::SendNow
        } else if self.is_full() {
            Offer::Full
        } else {
            self.queue.push_back(id);
            if idle {
                let at = self.next_allowed(now);
                self.state = ShaperState::Pacing { until: at };
                Offer::Wait(Some(at))
            } else {
                Offer::Wait(None)
            }
        }
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
        match self.state {
            ShaperState::Pacing { until } => {
                let at = self.next_allowed(now);
                (at < until).then(|| {
                    self.state = ShaperState::Pacing { until: at };
                    at
                })
            }
            ShaperState::Idle => None,
        }
    }

    /// Marks a release scheduled for `at`.
    #[inline]
    pub fn pacing(&mut self, at: Time) {
        self.state = ShaperState::Pacing { until: at };
    }

    /// Marks that no release is scheduled.
    #[inline]
    pub fn idle(&mut self) {
        self.state = ShaperState::Idle;
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
        assert_eq!(s.state, ShaperState::Pacing { until: 12_000_000 });
        assert_eq!(s.offer(3, 2_000_000), Offer::Wait(None));
        // A higher rate brings the release forward: 10 Gbit/s → 1.2 µs after the last.
        assert_eq!(s.set_rate(10_000_000_000, 1_000_000), Some(1_200_000));
        // A lower one leaves it: the release waits again when it fires.
        assert_eq!(s.set_rate(100_000_000, 1_100_000), None);
        assert_eq!(s.state, ShaperState::Pacing { until: 1_200_000 });
    }

    #[test]
    fn frames_not_built_yet_take_their_places_in_the_queue() {
        let mut s = Shaper::new(1_000_000, 2);
        s.released(1500, 0);
        assert_eq!(s.offer(1, 0), Offer::Wait(Some(12_000_000_000)));
        s.unbuilt.push_back((5, 3));
        assert_eq!(s.waiting(), 2);
        assert_eq!(s.offer(2, 6), Offer::Full);
    }

    #[test]
    fn it_takes_two_cache_lines() {
        assert_eq!(std::mem::size_of::<Shaper>(), 128);
    }

    #[test]
    fn full_queue_loses_frames() {
        let mut s = Shaper::new(1_000_000, 1);
        s.released(1500, 0);
        assert_eq!(s.offer(1, 0), Offer::Wait(Some(12_000_000_000)));
        assert_eq!(s.offer(2, 0), Offer::Full);
    }
}
