//! Traffic classes of a port: one egress queue per class and the scheduler that picks
//! which class sends next (IEEE 802.1Q §8.6.6–8.6.8).
//!
//! A port has 1 to 8 classes. A frame's priority (0..=7, the PCP) selects its class: with
//! 8 classes class = priority; with fewer, the priorities are split into equal contiguous
//! bands, so the highest priorities always share the highest class (with 2 classes,
//! priorities 0–3 → class 0 and 4–7 → class 1, as in IEEE 802.1Q Table 8-5). Higher
//! classes are more urgent.
//!
//! Scheduling is strict priority by default: the highest non-empty class that may send
//! (is not paused) goes first. Deficit weighted round robin (Shreedhar & Varghese 1995)
//! is the option: each visit adds the class's quantum to its deficit, and the class sends
//! while its head frame fits in the deficit.

use super::frame::FrameId;
use super::queue::{Capacity, EgressQueue};
use crate::engine::Time;

/// Most classes a port has.
pub const MAX_CLASSES: usize = 8;

/// Bytes of quantum per unit of DWRR weight: at least one maximum-size Ethernet frame,
/// so that every visit to a backlogged class of weight ≥ 1 sends something.
pub const DWRR_QUANTUM_UNIT: u64 = 1536;

/// How a port picks the class that sends next.
#[derive(Clone, Debug, PartialEq)]
pub enum Scheduler {
    /// The highest class with a frame that may be sent.
    StrictPriority,
    /// Deficit weighted round robin (its state boxed: ports are hot, DWRR is rare).
    Dwrr(Box<Dwrr>),
}

/// The state of deficit weighted round robin.
#[derive(Clone, Debug, PartialEq)]
pub struct Dwrr {
    /// Quantum per class, bytes.
    quantum: [u64; MAX_CLASSES],
    /// Deficit counter per class, bytes.
    deficit: [u64; MAX_CLASSES],
    /// The class being visited.
    cursor: u8,
    /// Whether the current visit has already added its quantum.
    visited: bool,
}

impl Scheduler {
    /// DWRR with one weight per class.
    pub fn dwrr(weights: &[u32]) -> Self {
        let mut quantum = [0; MAX_CLASSES];
        for (q, &w) in quantum.iter_mut().zip(weights) {
            *q = u64::from(w) * DWRR_QUANTUM_UNIT;
        }
        Scheduler::Dwrr(Box::new(Dwrr { quantum, deficit: [0; MAX_CLASSES], cursor: 0, visited: false }))
    }
}

/// What a queue's length counts, as protocols (congestion points, queue disciplines)
/// and the capacity see it.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Occupancy {
    /// The buffer's occupancy: the waiting frames plus the frame being serialized,
    /// which a store-and-forward switch holds until its last bit has left (as htsim
    /// counts). A queue of capacity N holds N − 1 waiting frames while it sends.
    #[default]
    Buffer,
    /// Only the waiting frames: the frame being serialized has left the queue (as ns-2
    /// and OMNeT++/INET count). A queue of capacity N holds N waiting frames plus one
    /// on the wire.
    Waiting,
}

/// Under [`Occupancy::Buffer`], what an arrival sees of the frame being sent when that
/// frame finishes at the very instant of the arrival, with frames waiting behind it
/// (the port starts the next one at that instant too). The CP's procedure (reference
/// §1.6: sample on arrival, after enqueue) and IEEE 802.1Qau order nothing between an
/// arrival and a simultaneous end of transmission, so both readings are offered.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Finishing {
    /// The finishing frame still counts: the arrival is handled before the port hands
    /// over to the next frame, which still counts as waiting, as under
    /// [`Occupancy::Waiting`]. "buffer" then counts exactly one frame more than
    /// "waiting" at every arrival to a working port.
    #[default]
    Held,
    /// The finishing frame has left, while the next one still counts as waiting: at
    /// that instant "buffer" counts the same as "waiting".
    Left,
}

/// The class queues of one port.
#[derive(Clone, Debug)]
#[repr(C)]
pub struct Classes {
    /// Frames waiting over all classes.
    backlog: u64,
    /// Number of classes.
    count: u8,
    /// What the length seen by protocols and the capacity counts.
    pub(crate) occupancy: Occupancy,
    /// Whether a frame finishing at an arrival's instant still counts (under
    /// [`Occupancy::Buffer`]).
    pub(crate) finishing: Finishing,
    /// Class of the frame being serialized (`u8::MAX` for a link-local frame).
    on_wire_class: u8,
    /// Its size.
    on_wire_size: u32,
    /// Class 0's queue (a port with one class has only this one, inline).
    first: EgressQueue,
    /// Classes 1.. and the scheduler, for a port with more than one class (boxed: most
    /// ports have one, and one class needs no scheduler).
    more: Option<Box<MoreClasses>>,
}

/// Classes 1.. of `more` (none for a single-class port), mutably: apart from class 0,
/// so that both may be borrowed at once.
#[inline]
fn higher_of(more: &mut Option<Box<MoreClasses>>) -> &mut [EgressQueue] {
    more.as_deref_mut().map_or(&mut [], |m| &mut m.queues)
}

/// What a port with more than one class holds beside class 0.
#[derive(Clone, Debug)]
struct MoreClasses {
    /// Classes 1..
    queues: Box<[EgressQueue]>,
    /// The scheduler.
    scheduler: Scheduler,
}

impl Classes {
    /// `count` classes of the same capacity, strict priority.
    pub fn new(count: u8, capacity: Capacity) -> Self {
        let count = count.clamp(1, MAX_CLASSES as u8);
        Self {
            first: EgressQueue::new(capacity),
            more: (count > 1).then(|| {
                Box::new(MoreClasses {
                    queues: (1..count).map(|_| EgressQueue::new(capacity)).collect(),
                    scheduler: Scheduler::StrictPriority,
                })
            }),
            backlog: 0,
            count,
            occupancy: Occupancy::Buffer,
            finishing: Finishing::Held,
            on_wire_class: u8::MAX,
            on_wire_size: 0,
        }
    }

    /// Sets the scheduler (a port with one class has none: it always sends class 0).
    pub fn set_scheduler(&mut self, scheduler: &Scheduler) {
        if let Some(more) = &mut self.more {
            more.scheduler = scheduler.clone();
        }
    }

    /// Classes 1.. (none for a single-class port).
    #[inline]
    fn higher(&self) -> &[EgressQueue] {
        self.more.as_deref().map_or(&[], |m| &m.queues)
    }

    /// Classes 1.., mutably.
    #[inline]
    fn higher_mut(&mut self) -> &mut [EgressQueue] {
        higher_of(&mut self.more)
    }

    /// Number of classes.
    #[inline]
    pub fn count(&self) -> u8 {
        self.count
    }

    /// The class of a frame of priority `priority`.
    #[inline]
    pub fn class_of(&self, priority: u8) -> u8 {
        if self.count == 1 {
            0
        } else {
            ((priority.min(7) as u16 * self.count as u16) / MAX_CLASSES as u16) as u8
        }
    }

    /// Class `class`'s queue.
    #[inline]
    pub fn queue(&self, class: u8) -> &EgressQueue {
        if class == 0 {
            &self.first
        } else {
            &self.higher()[class as usize - 1]
        }
    }

    /// Class `class`'s queue, mutably.
    #[inline(always)] // at every enqueue; LLVM left it out of line in some callers
    pub fn queue_mut(&mut self, class: u8) -> &mut EgressQueue {
        if class == 0 {
            &mut self.first
        } else {
            &mut self.higher_mut()[class as usize - 1]
        }
    }

    /// Every class queue, lowest class first.
    pub fn queues(&self) -> impl Iterator<Item = &EgressQueue> {
        std::iter::once(&self.first).chain(self.higher())
    }

    /// Every class queue, mutably.
    pub fn queues_mut(&mut self) -> impl Iterator<Item = &mut EgressQueue> {
        std::iter::once(&mut self.first).chain(higher_of(&mut self.more))
    }

    /// Frames waiting in all classes.
    #[inline]
    pub fn backlog(&self) -> u64 {
        self.backlog
    }

    /// Notes the frame the port starts serializing: its class (`u8::MAX` for none) and
    /// size.
    #[inline]
    pub fn serializing(&mut self, class: u8, size: u32) {
        self.on_wire_class = class;
        self.on_wire_size = size;
    }

    /// The size of the frame of a class the port last started serializing (none after a
    /// link-local frame such as PAUSE); it is on the wire while the transmitter is busy.
    #[inline]
    pub fn serializing_size(&self) -> Option<u32> {
        (self.on_wire_class != u8::MAX).then_some(self.on_wire_size)
    }

    /// What class `class` holds beyond its waiting frames under the occupancy
    /// convention, as (frames, bytes): the frame being serialized, while the transmitter
    /// is busy (`busy`), if it is of this class and the convention counts it.
    #[inline]
    pub fn on_wire(&self, class: u8, busy: bool) -> (u64, u64) {
        if busy && self.occupancy == Occupancy::Buffer && self.on_wire_class == class {
            (1, u64::from(self.on_wire_size))
        } else {
            (0, 0)
        }
    }

    /// Appends an admitted frame to class `class`.
    #[inline(always)]
    pub fn push(&mut self, class: u8, now: Time, id: FrameId, size: u32) {
        self.backlog += 1;
        self.queue_mut(class).push(now, id, size);
    }

    /// Removes the head frame of the class the scheduler picks among those `may_send`
    /// allows; returns it with its class. `size_of` gives a frame's size.
    #[inline]
    pub fn pop(
        &mut self,
        now: Time,
        size_of: impl Fn(FrameId) -> u32,
        may_send: impl Fn(u8) -> bool,
    ) -> Option<(FrameId, u8)> {
        if self.backlog == 0 {
            return None;
        }
        let class = if self.count == 1 {
            if !may_send(0) {
                return None;
            }
            0
        } else {
            self.pick(&size_of, &may_send)?
        };
        let id = self.queue_mut(class).pop(now, &size_of)?;
        self.backlog -= 1;
        Some((id, class))
    }

    /// The class that sends next.
    fn pick(&mut self, size_of: &impl Fn(FrameId) -> u32, may_send: &impl Fn(u8) -> bool) -> Option<u8> {
        let count = self.count;
        let MoreClasses { queues, scheduler } = self.more.as_deref_mut()?;
        let first = &self.first;
        let queue = |c: u8| if c == 0 { first } else { &queues[c as usize - 1] };
        match scheduler {
            Scheduler::StrictPriority => (0..count).rev().find(|&c| !queue(c).is_empty() && may_send(c)),
            Scheduler::Dwrr(dwrr) => {
                let Dwrr { quantum, deficit, cursor, visited } = &mut **dwrr;
                if !(0..count).any(|c| !queue(c).is_empty() && may_send(c)) {
                    return None;
                }
                loop {
                    let c = *cursor;
                    let queue = queue(c);
                    let head = queue.iter().next();
                    match head {
                        Some(id) if may_send(c) => {
                            if !*visited {
                                deficit[c as usize] += quantum[c as usize];
                                *visited = true;
                            }
                            let size = u64::from(size_of(id));
                            if size <= deficit[c as usize] {
                                deficit[c as usize] -= size;
                                if queue.len() == 1 {
                                    // The class empties: it keeps no credit (DRR rule).
                                    deficit[c as usize] = 0;
                                    *cursor = (c + 1) % count;
                                    *visited = false;
                                }
                                return Some(c);
                            }
                        }
                        Some(_) => {}
                        None => deficit[c as usize] = 0,
                    }
                    *cursor = (c + 1) % count;
                    *visited = false;
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn priorities_map_to_bands() {
        let c = Classes::new(2, Capacity::Frames(10));
        let map: Vec<u8> = (0..8).map(|p| c.class_of(p)).collect();
        assert_eq!(map, [0, 0, 0, 0, 1, 1, 1, 1]);
        let c = Classes::new(8, Capacity::Frames(10));
        assert_eq!((0..8).map(|p| c.class_of(p)).collect::<Vec<_>>(), (0..8).collect::<Vec<_>>());
        let c = Classes::new(1, Capacity::Frames(10));
        assert!((0..8).all(|p| c.class_of(p) == 0));
    }

    #[test]
    fn strict_priority_lets_high_overtake_queued_low() {
        let mut c = Classes::new(8, Capacity::Frames(10));
        c.push(0, 0, 1, 1500);
        c.push(0, 0, 2, 1500);
        c.push(7, 1, 3, 1500);
        let all = |_| true;
        assert_eq!(c.pop(2, |_| 1500, all), Some((3, 7)));
        assert_eq!(c.pop(3, |_| 1500, all), Some((1, 0)));
        // A paused class is skipped, and nothing is sent when only paused classes wait.
        c.push(7, 4, 5, 1500);
        assert_eq!(c.pop(5, |_| 1500, |class| class != 7), Some((2, 0)));
        assert_eq!(c.pop(6, |_| 1500, |class| class != 7), None);
        assert_eq!(c.backlog(), 1);
    }

    #[test]
    fn dwrr_shares_by_weight() {
        // Weights 1 and 3, 1500-byte frames, quantum unit 1536 B: per round class 0 sends
        // one frame (1536 ≥ 1500) and class 1 three (4608 ≥ 4500).
        let mut c = Classes::new(2, Capacity::Frames(100));
        c.set_scheduler(&Scheduler::dwrr(&[1, 3]));
        for i in 0..40 {
            c.push(0, 0, i, 1500);
            c.push(1, 0, 100 + i, 1500);
        }
        let mut sent = [0u32; 2];
        for _ in 0..40 {
            let (_, class) = c.pop(0, |_| 1500, |_| true).expect("backlogged");
            sent[class as usize] += 1;
        }
        assert_eq!(sent, [10, 30]);
    }
}
