//! Frames and the arena that recycles them.
//!
//! A [`Frame`] is a small `Copy` value with room for every protocol's header fields. Frames
//! live in a [`FrameArena`] and are referred to by a `u32` id; a freed slot is reused by
//! the next frame, so the data path never allocates once the arena has grown to the
//! largest number of frames simultaneously in the network.

use crate::engine::Time;

/// Index of a frame in the arena.
pub type FrameId = u32;

/// What a frame is, which decides what a node does when it receives it.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
#[repr(u8)]
pub enum FrameKind {
    /// Application data of a flow.
    #[default]
    Data,
    /// A QCN congestion notification message (IEEE 802.1Qau CNM), from a congestion point
    /// back to the source of a sampled frame.
    Cnm,
}

/// QCN fields carried by a frame.
///
/// On a [`FrameKind::Cnm`] they are the CNM PDU: the quantized feedback `fb` (|Fb|, 0..=63),
/// the congestion point identifier `cpid`, and the queue offset and delta in the CP's
/// queue unit. On a multicast data frame under the enhanced scheme of Mliki et al. 2016 §3 they
/// carry the representative: `fb` is the |Fb| held by the source and `cpid` the CP that
/// produced it.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct QcnTag {
    /// Quantized |Fb| (0..=63).
    pub fb: u8,
    /// Congestion point identifier (the CP's port id + 1; 0 = none).
    pub cpid: u32,
    /// Qoff = Q − Qeq at the sample, in the CP's queue unit (frames or bytes).
    pub qoff: i32,
    /// Qdelta = Q − Qold at the sample, in the CP's queue unit.
    pub qdelta: i32,
}

/// A frame in flight. 48 bytes; copied by value into and out of the arena.
#[derive(Clone, Copy, Debug, Default)]
pub struct Frame {
    /// What kind of frame this is.
    pub kind: FrameKind,
    /// Priority (0 = lowest); selects the egress queue class.
    pub priority: u8,
    /// True when `dst` is a multicast tree id rather than a host.
    pub multicast: bool,
    /// Size on the wire in bytes (what serialization time and queue bytes count).
    pub size: u32,
    /// Node that created the frame (a host for data, a switch for a CNM).
    pub src: u32,
    /// Destination host node id, or multicast tree id when `multicast` is set.
    pub dst: u32,
    /// Flow the frame belongs to (for a CNM: the flow of the sampled frame).
    pub flow: u32,
    /// Creation time, for latency.
    pub born: Time,
    /// QCN fields.
    pub qcn: QcnTag,
}

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
        assert!(std::mem::size_of::<Frame>() <= 56, "{}", std::mem::size_of::<Frame>());
    }
}
