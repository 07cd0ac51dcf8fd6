//! Frames and the arena that recycles them.
//!
//! A [`Frame`] is a small `Copy` value: the fields every frame has and one protocol
//! [`Header`] (from [`crate::wire`]). Frames
//! live in a [`FrameArena`] and are referred to by a `u32` id; a freed slot is reused by
//! the next frame, so the data path never allocates once the arena has grown to the
//! largest number of frames simultaneously in the network.

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
}

impl FrameArena {
    /// An empty arena with room for `capacity` frames before it first grows.
    pub fn with_capacity(capacity: usize) -> Self {
        Self { slots: Vec::with_capacity(capacity), free: Vec::with_capacity(capacity), live: 0 }
    }

    /// Stores `frame` and returns its id, reusing a freed slot when there is one.
    #[inline]
    pub fn alloc(&mut self, frame: Frame) -> FrameId {
        self.live += 1;
        if let Some(id) = self.free.pop() {
            self.slots[id as usize] = frame;
            id
        } else {
            self.slots.push(frame);
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

    #[test]
    fn frame_stays_compact() {
        assert!(std::mem::size_of::<Frame>() <= 48, "{}", std::mem::size_of::<Frame>());
    }
}
