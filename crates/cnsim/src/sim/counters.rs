//! Global counters of a run, where drops happen, and how far a run has got.

use crate::engine::Time;
use crate::net::HeaderKind;
pub use crate::net::KindCounters;

/// Global counters of a run.
#[derive(Clone, Debug, Default, serde::Serialize)]
pub struct Counters {
    /// Events processed.
    pub events: u64,
    /// Frames put on a link (a frame crossing one link = one hop).
    pub frame_hops: u64,
    /// Frames created: by sources, by multicast replication, and control frames.
    pub created: u64,
    /// Frames consumed at their destination.
    pub delivered: u64,
    /// Frames dropped anywhere: the sum of the five counters below.
    pub dropped: u64,
    /// Frames dropped at egress queues (full, or by the queue discipline, or by the
    /// switch's shared buffer).
    pub dropped_at_queues: u64,
    /// Frames lost at a source because its shaper queue was full.
    pub dropped_at_sources: u64,
    /// Frames with nowhere to go: no route to the destination, or a multicast tree with
    /// no branch where the frame is.
    pub(crate) dropped_unroutable: u64,
    /// Frames lost at a host whose input buffer was full.
    pub(crate) dropped_at_hosts: u64,
    /// Frames lost on a link by its loss process (`queues.loss`), after being sent.
    pub dropped_on_links: u64,
    /// Frames currently serializing or propagating on a link.
    pub(crate) on_wire: u64,
    /// The same counts per kind of frame, in [`HeaderKind::ALL`] order, except that data
    /// frames (nearly all frames) are counted only in the totals: read them with
    /// [`Counters::kind`].
    by_kind: [KindCounters; HeaderKind::ALL.len()],
}

/// Where a frame was dropped.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum DropSite {
    /// An egress queue (or shared buffer).
    Queue,
    /// A full shaper queue at the source.
    Source,
    /// No route, or no multicast branch, where the frame was.
    Unroutable,
    /// A full host input buffer.
    Host,
    /// Lost on a link by its loss process.
    Link,
}

impl Counters {
    /// Adds another partition's counts by kind of frame.
    pub(crate) fn absorb_kinds(&mut self, other: &Counters) {
        for (mine, theirs) in self.by_kind.iter_mut().zip(&other.by_kind) {
            mine.created += theirs.created;
            mine.delivered += theirs.delivered;
            mine.dropped += theirs.dropped;
            mine.unhandled += theirs.unhandled;
        }
    }
}

impl Counters {
    /// Counts one drop, in the total, at its site and for its kind: the one place drops
    /// are counted.
    #[inline]
    pub fn count_drop(&mut self, site: DropSite, kind: HeaderKind) {
        self.dropped += 1;
        if kind != HeaderKind::Data {
            self.by_kind[kind as usize].dropped += 1;
        }
        match site {
            DropSite::Queue => self.dropped_at_queues += 1,
            DropSite::Source => self.dropped_at_sources += 1,
            DropSite::Unroutable => self.dropped_unroutable += 1,
            DropSite::Host => self.dropped_at_hosts += 1,
            DropSite::Link => self.dropped_on_links += 1,
        }
    }

    /// Counts one frame created.
    #[inline]
    pub fn count_created(&mut self, kind: HeaderKind) {
        self.created += 1;
        if kind != HeaderKind::Data {
            self.by_kind[kind as usize].created += 1;
        }
    }

    /// Counts one frame delivered.
    #[inline]
    pub fn count_delivered(&mut self, kind: HeaderKind) {
        self.delivered += 1;
        if kind != HeaderKind::Data {
            self.by_kind[kind as usize].delivered += 1;
        }
    }

    /// Counts a delivered frame that no protocol at its host handled.
    #[inline]
    pub fn count_unhandled(&mut self, kind: HeaderKind) {
        self.by_kind[kind as usize].unhandled += 1;
    }

    /// The counters of one kind.
    pub fn kind(&self, kind: HeaderKind) -> KindCounters {
        if kind != HeaderKind::Data {
            return self.by_kind[kind as usize];
        }
        let others = |f: fn(&KindCounters) -> u64| -> u64 { self.by_kind.iter().map(f).sum() };
        KindCounters {
            created: self.created - others(|k| k.created),
            delivered: self.delivered - others(|k| k.delivered),
            dropped: self.dropped - others(|k| k.dropped),
            unhandled: self.by_kind[HeaderKind::Data as usize].unhandled,
        }
    }
}

/// Where the simulation is, for progress reporting.
#[derive(Clone, Copy, Debug)]
pub struct Progress {
    /// Simulated time reached.
    pub now: Time,
    /// Simulated end time.
    pub end: Time,
    /// Events processed so far.
    pub events: u64,
}

/// Why a run stopped before its end time.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Halt {
    /// The progress callback said stop (e.g. Ctrl-C).
    Interrupted,
    /// More frames were held at once (queued, in shapers, on wires) than the memory
    /// limit allows.
    TooManyFrames {
        /// Frames held when the run stopped.
        live: u64,
        /// The most the limit allows.
        limit: u64,
        /// Simulated time reached.
        at: Time,
    },
    /// More workload flows were active at once than the memory limit allows.
    TooManyFlows {
        /// The most the limit allows.
        limit: u64,
        /// Simulated time reached.
        at: Time,
    },
}
