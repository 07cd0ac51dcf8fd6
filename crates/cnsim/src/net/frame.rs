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
    /// The first flow whose frames are counted (see [`FrameArena::count_flows_from`]).
    counted_from: u32,
    /// Frames held of each counted flow, from `counted_from`.
    per_flow: Vec<u32>,
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
            counted_from: u32::MAX,
            per_flow: Vec::new(),
        }
    }

    /// Counts the frames held of each flow from `first` on (workload flows, whose state
    /// is recycled only once none of their frames is left).
    pub fn count_flows_from(&mut self, first: u32) {
        self.counted_from = first;
    }

    /// Makes room to count the frames of flow `flow` (one counted, see
    /// [`FrameArena::count_flows_from`]).
    pub fn track_flow(&mut self, flow: u32) {
        let k = (flow - self.counted_from) as usize;
        if k >= self.per_flow.len() {
            self.per_flow.resize(k + 1, 0);
        }
    }

    /// Frames held of counted flow `flow`.
    pub fn flow_frames(&self, flow: u32) -> u32 {
        self.per_flow.get(flow.wrapping_sub(self.counted_from) as usize).copied().unwrap_or(0)
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
    #[inline(always)] // the frame is then written in place, not passed and copied
    pub fn alloc(&mut self, frame: Frame) -> FrameId {
        self.live += 1;
        if let Some(n) = self.per_flow.get_mut(frame.flow.wrapping_sub(self.counted_from) as usize) {
            *n += 1;
        }
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
    #[inline(always)]
    pub fn free(&mut self, id: FrameId) {
        debug_assert!(!self.free.contains(&id), "double free of frame {id}");
        self.live -= 1;
        if !self.per_flow.is_empty() {
            let k = self.slots[id as usize].flow.wrapping_sub(self.counted_from) as usize;
            if let Some(n) = self.per_flow.get_mut(k) {
                *n -= 1;
            }
        }
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

    /// From the first counted flow on, the arena counts each flow's frames as they are
    /// stored and freed; other flows' and flowless frames are not counted.
    #[test]
    fn frames_are_counted_per_counted_flow() {
        let mut a = FrameArena::with_capacity(4);
        a.count_flows_from(10);
        a.track_flow(12);
        let of = |flow| Frame { flow, ..Frame::default() };
        let x = a.alloc(of(12));
        let y = a.alloc(of(12));
        a.alloc(of(3));
        a.alloc(of(crate::net::NONE));
        a.alloc(of(11));
        assert_eq!((a.flow_frames(12), a.flow_frames(11), a.flow_frames(3)), (2, 1, 0));
        a.free(x);
        assert_eq!(a.flow_frames(12), 1);
        a.free(y);
        assert_eq!(a.flow_frames(12), 0);
        assert_eq!(a.flow_frames(40), 0);
    }

    #[test]
    fn frame_stays_compact() {
        assert!(std::mem::size_of::<Frame>() <= 48, "{}", std::mem::size_of::<Frame>());
    }
}
