//! Frames and the arena that recycles them.
//!
//! A [`Frame`] is a small `Copy` value: the fields every frame has and one protocol
//! [`Header`] (from [`crate::wire`]). Frames
//! live in a [`FrameArena`] and are referred to by a `u32` id; a freed slot is reused by
//! the next frame, so the data path never allocates once the arena has grown to the
//! largest number of frames simultaneously in the network.
//!
//! When some flow runs HPCC or TIMELY the arena also keeps an [`IntStack`] per slot: the
//! in-band telemetry (or send time) a data packet carries and its ACK echoes, beside
//! the frame rather than in it, so that [`Frame`] stays 48 bytes and a run without them
//! keeps no stacks. A slot's stack is emptied whenever the slot is allocated, so a stack
//! never outlives its frame.

pub use crate::wire::int::IntStack;
pub use crate::wire::{Ecn, Frame, Header, HeaderKind};

/// Counters of one kind of frame.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, serde::Serialize)]
pub struct KindCounters {
    /// Frames created.
    pub created: u64,
    /// Frames consumed at their destination (a host's endpoint, or for link-local frames
    /// the receiving port).
    pub delivered: u64,
    /// Frames dropped.
    pub dropped: u64,
    /// Delivered frames that no protocol at the host handled (e.g. a CNM for a flow
    /// without a reaction point).
    pub unhandled: u64,
}

/// Index of a frame in the arena.
pub type FrameId = u32;

/// A pool of frames indexed by [`FrameId`], with a free list.
#[derive(Default)]
pub struct FrameArena {
    slots: Vec<Frame>,
    free: Vec<FrameId>,
    live: u64,
    /// Whether each slot has a telemetry stack.
    int_on: bool,
    /// The telemetry stack of each slot (empty unless `int_on`).
    int: Vec<IntStack>,
}

impl FrameArena {
    /// An empty arena with room for `capacity` frames before it first grows.
    pub fn with_capacity(capacity: usize) -> Self {
        Self {
            slots: Vec::with_capacity(capacity),
            free: Vec::with_capacity(capacity),
            live: 0,
            int_on: false,
            int: Vec::new(),
        }
    }

    /// Gives every slot a telemetry stack, from now on.
    pub fn enable_int(&mut self) {
        self.int_on = true;
        self.int.resize(self.slots.len(), IntStack::default());
    }

    /// The telemetry stack of frame `id`; `None` when slots have none.
    #[inline]
    pub fn int(&self, id: FrameId) -> Option<&IntStack> {
        self.int.get(id as usize)
    }

    /// The telemetry stack of frame `id`, mutably; `None` when slots have none.
    #[inline]
    pub fn int_mut(&mut self, id: FrameId) -> Option<&mut IntStack> {
        self.int.get_mut(id as usize)
    }

    /// Stores `frame` and returns its id, reusing a freed slot when there is one.
    #[inline]
    pub fn alloc(&mut self, frame: Frame) -> FrameId {
        self.live += 1;
        if let Some(id) = self.free.pop() {
            self.slots[id as usize] = frame;
            if self.int_on {
                self.int[id as usize] = IntStack::default();
            }
            id
        } else {
            self.slots.push(frame);
            if self.int_on {
                self.int.push(IntStack::default());
            }
            (self.slots.len() - 1) as FrameId
        }
    }

    /// Returns slot `id` to the free list.
    #[inline]
    pub fn free(&mut self, id: FrameId) {
        debug_assert!(!self.free.contains(&id), "double free of frame {id}");
        self.live -= 1;
        self.free.push(id);
    }

    /// The frame with id `id`.
    #[inline]
    pub fn get(&self, id: FrameId) -> &Frame {
        &self.slots[id as usize]
    }

    /// The frame with id `id`, mutably.
    #[inline]
    pub fn get_mut(&mut self, id: FrameId) -> &mut Frame {
        &mut self.slots[id as usize]
    }

    /// Number of frames currently allocated (in queues, on links or held by hosts).
    pub fn live(&self) -> u64 {
        self.live
    }

    /// Largest number of slots ever in use.
    pub fn high_water(&self) -> usize {
        self.slots.len()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn freed_slots_are_reused() {
        let mut a = FrameArena::with_capacity(4);
        let x = a.alloc(Frame { size: 100, ..Frame::default() });
        let y = a.alloc(Frame { size: 200, ..Frame::default() });
        assert_eq!(a.live(), 2);
        a.free(x);
        let z = a.alloc(Frame { size: 300, ..Frame::default() });
        assert_eq!(z, x);
        assert_eq!(a.get(z).size, 300);
        assert_eq!(a.get(y).size, 200);
        assert_eq!(a.high_water(), 2);
        assert_eq!(a.live(), 2);
    }

    /// A reused slot's stack starts empty: the stack of the frame freed there is gone.
    #[test]
    fn a_reused_slot_has_an_empty_stack() {
        use crate::wire::int::IntHop;
        let mut a = FrameArena::with_capacity(2);
        assert_eq!(a.int(0), None);
        a.enable_int();
        let x = a.alloc(Frame::default());
        a.int_mut(x).unwrap().push(IntHop::new(1, 2, 3, 100_000_000_000, 1).unwrap());
        assert_eq!(a.int(x).unwrap().hops().len(), 1);
        a.free(x);
        let y = a.alloc(Frame::default());
        assert_eq!((y, a.int(y).unwrap().hops().len()), (x, 0));
    }

    #[test]
    fn frame_stays_compact() {
        assert!(std::mem::size_of::<Frame>() <= 48, "{}", std::mem::size_of::<Frame>());
    }
}
