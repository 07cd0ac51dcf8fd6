//! The event queue.
//!
//! Events are plain data ([`Event`], 12 bytes, `Copy`): no boxed closure per event. The
//! queue orders them by time and, for equal times, by the order in which they were
//! scheduled, so a run is a pure function of the scenario and seed.
//!
//! Choice of structure: a binary heap over a 128-bit key `time << 64 | sequence`. The
//! data path keeps the pending set small — one event per traffic source, one per busy
//! port and one per frame in flight on a link — so the heap is a few hundred entries
//! deep at most in our scenarios and fits in L1/L2 cache; a single integer comparison
//! per level beats the bucket bookkeeping of a radix heap at that size (measured in
//! the bench notes of the README). The sequence number makes ties first-in first-out.

use std::cmp::Ordering;
use std::collections::BinaryHeap;

use super::time::Time;

/// Something that happens at an instant. Variants carry indices into the simulator's
/// flat tables (flows, ports, frames), never pointers.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Event {
    /// Traffic source `flow` produces its next frame.
    SourceEmit { flow: u32 },
    /// Port `port` has finished serializing a frame and may start the next one.
    PortFree { port: u32 },
    /// Frame `frame` has crossed the link into ingress port `port` and (after the
    /// node's processing latency) is handed to that port's node.
    Arrive { port: u32, frame: u32 },
    /// The rate limiter of `flow` may release its next frame. `epoch` invalidates a
    /// release that a rate change has superseded.
    LimiterRelease { flow: u32, epoch: u32 },
    /// The QCN reaction-point timer of `flow` expires. `epoch` invalidates timers that
    /// a congestion notification has restarted.
    RpTimer { flow: u32, epoch: u32 },
    /// Take a sample of every recorded time series.
    Sample,
}

#[derive(Clone, Copy)]
struct Entry {
    key: u128,
    event: Event,
}

impl PartialEq for Entry {
    fn eq(&self, other: &Self) -> bool {
        self.key == other.key
    }
}
impl Eq for Entry {}
impl PartialOrd for Entry {
    fn partial_cmp(&self, other: &Self) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}
impl Ord for Entry {
    // Reversed: `BinaryHeap` is a max-heap and we want the earliest event first.
    fn cmp(&self, other: &Self) -> Ordering {
        other.key.cmp(&self.key)
    }
}

/// A priority queue of events keyed by (time, scheduling order).
pub struct EventQueue {
    heap: BinaryHeap<Entry>,
    next_seq: u64,
    now: Time,
}

impl Default for EventQueue {
    fn default() -> Self {
        Self::new()
    }
}

impl EventQueue {
    /// An empty queue at time 0.
    pub fn new() -> Self {
        Self {
            heap: BinaryHeap::with_capacity(1024),
            next_seq: 0,
            now: 0,
        }
    }

    /// The time of the event most recently popped (the simulation clock).
    #[inline]
    pub fn now(&self) -> Time {
        self.now
    }

    /// Schedules `event` at absolute time `at`. Scheduling in the past is a logic error;
    /// it is clamped to now in release builds so the clock never runs backwards.
    #[inline]
    pub fn schedule(&mut self, at: Time, event: Event) {
        debug_assert!(
            at >= self.now,
            "event scheduled in the past: {at} < {}",
            self.now
        );
        let at = at.max(self.now);
        let key = (at as u128) << 64 | self.next_seq as u128;
        self.next_seq += 1;
        self.heap.push(Entry { key, event });
    }

    /// Time of the next event, if any.
    #[inline]
    pub fn peek_time(&self) -> Option<Time> {
        self.heap.peek().map(|e| (e.key >> 64) as Time)
    }

    /// Removes the next event and advances the clock to its time.
    #[inline]
    pub fn pop(&mut self) -> Option<(Time, Event)> {
        let e = self.heap.pop()?;
        self.now = (e.key >> 64) as Time;
        Some((self.now, e.event))
    }

    /// Number of pending events.
    pub fn len(&self) -> usize {
        self.heap.len()
    }

    /// True when nothing is pending.
    pub fn is_empty(&self) -> bool {
        self.heap.is_empty()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pops_in_time_order_and_fifo_on_ties() {
        let mut q = EventQueue::new();
        q.schedule(30, Event::Sample);
        q.schedule(10, Event::PortFree { port: 1 });
        q.schedule(10, Event::PortFree { port: 2 });
        q.schedule(20, Event::SourceEmit { flow: 7 });
        q.schedule(10, Event::PortFree { port: 3 });
        let order: Vec<_> = std::iter::from_fn(|| q.pop()).collect();
        assert_eq!(
            order,
            vec![
                (10, Event::PortFree { port: 1 }),
                (10, Event::PortFree { port: 2 }),
                (10, Event::PortFree { port: 3 }),
                (20, Event::SourceEmit { flow: 7 }),
                (30, Event::Sample),
            ]
        );
        assert_eq!(q.now(), 30);
    }

    #[test]
    fn event_is_small() {
        assert!(std::mem::size_of::<Event>() <= 12);
    }
}
