//! Queue disciplines (active queue management): what an egress queue does with a frame
//! offered to it — queue it, queue it marked Congestion Experienced, or drop it — and
//! what it notes when a frame leaves.
//!
//! Every egress queue (every class of every port) has one [`AnyDiscipline`]; the data
//! path calls [`AnyDiscipline::on_enqueue`] for every frame that has to wait and
//! [`AnyDiscipline::on_dequeue`] for every frame that leaves. Each discipline is a
//! module with its own vocabulary:
//! - drop-tail: admit while the queue's capacity allows;
//! - [`ecn_threshold`]: drop-tail plus a single marking threshold K on the instantaneous
//!   queue, as DCTCP switches are configured (Alizadeh et al. 2010 §3.1);
//! - [`red`]: RED and Adaptive RED on the average queue, as ns-2 runs them;
//! - [`mecn`]: multi-level ECN and Adaptive MECN (two ECN bits, three levels);
//! - [`dcqcn`]: DCQCN's marking, RED's curve on the instantaneous queue.

pub mod dcqcn;
pub mod ecn_threshold;
pub mod mecn;
pub mod red;

use serde::Serialize;

use crate::engine::Time;
use crate::wire::Frame;

pub use ecn_threshold::EcnThreshold;
pub use mecn::Mecn;
pub use red::Red;

/// What a discipline decided for an arriving frame.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Verdict {
    /// Queue the frame as it is.
    Enqueue,
    /// Queue the frame, its ECN codepoint raised by the discipline (to CE, or an MECN
    /// level).
    Mark,
    /// Turn the frame away.
    Drop,
}

/// The queue as a discipline sees it when a frame arrives: its length before the frame
/// joins, its capacity, and whether the frame would go straight onto an idle link.
#[derive(Clone, Copy, Debug)]
pub struct QueueView {
    /// Nothing waits and the transmitter is free: an admitted frame is sent at once and
    /// needs no room in the queue.
    pub(crate) straight_through: bool,
    /// Frames held.
    pub(crate) frames: u64,
    /// Bytes held.
    pub(crate) bytes: u64,
    /// The queue's own limit.
    pub(crate) capacity: Capacity,
}

impl QueueView {
    /// Whether the frame fits: it goes straight through, or the capacity leaves room for
    /// `size` more bytes.
    #[inline]
    pub fn admits(&self, size: u32) -> bool {
        self.straight_through || self.capacity.admits(self.frames, self.bytes, size)
    }
}

/// A buffer limit, in frames or in bytes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Capacity {
    /// At most this many frames.
    Frames(u64),
    /// At most this many bytes.
    Bytes(u64),
}

impl Capacity {
    /// Whether a frame of `size` bytes fits on top of `frames`/`bytes` already held.
    #[inline]
    pub fn admits(self, frames: u64, bytes: u64, size: u32) -> bool {
        match self {
            Capacity::Frames(n) => frames < n,
            Capacity::Bytes(b) => bytes + size as u64 <= b,
        }
    }
}

/// A queue discipline: the seam's one enum. Drop-tail keeps no state and the ECN
/// threshold marker one word, both in the queue; every other discipline lives behind
/// one box ([`Aqm`]), so an egress queue stays two words wide.
#[derive(Clone, Debug, Default, PartialEq)]
pub enum AnyDiscipline {
    /// Drop-tail: queue while the capacity allows, drop beyond.
    #[default]
    DropTail,
    /// Drop-tail with CE marking above a threshold (DCTCP's switch).
    EcnThreshold(EcnThreshold),
    /// A discipline with more state.
    Aqm(Box<Aqm>),
}

/// The disciplines with state.
#[derive(Clone, Debug, PartialEq)]
#[allow(clippy::large_enum_variant)] // boxed whole in AnyDiscipline
pub enum Aqm {
    /// RED or Adaptive RED.
    Red(Red),
    /// MECN or Adaptive MECN.
    Mecn(Mecn),
    /// DCQCN's marking on the instantaneous queue.
    Dcqcn(dcqcn::Marker),
}

/// What a queue discipline with state does; the hooks beyond `on_enqueue` have
/// defaults (no average, no moving max_p, nothing at dequeue), so a discipline
/// implements only what it keeps. The data path calls them through [`Aqm`], whose
/// variants are listed once, in `each_discipline!`.
pub trait Discipline {
    /// The discipline's table name, for messages.
    fn name(&self) -> &'static str;

    /// A frame is offered to the queue: queue it, queue it marked, or drop it.
    fn on_enqueue(&mut self, queue: QueueView, frame: &mut Frame, now: Time) -> Verdict;

    /// A frame left for the wire; `queue` is what stays.
    fn on_dequeue(&mut self, _queue: QueueView, _frame: &Frame, _now: Time) {}

    /// Whether it may mark an ECN-capable frame CE (or with an MECN level).
    fn marks(&self) -> bool {
        true
    }

    /// The average queue it keeps, if it keeps one.
    fn average(&self) -> Option<f64> {
        None
    }

    /// The maximum marking probability it applies now, if it has one.
    fn max_p(&self) -> Option<f64> {
        None
    }

    /// Its counters and state at the end of a run, for the queue's entry in
    /// `summary.json`, if it reports any.
    fn summary(&self) -> Option<AqmSummary> {
        None
    }
}

/// What an averaging queue discipline (RED, Adaptive RED, MECN) did: the `aqm` entry of
/// a queue in `summary.json`, from [`Discipline::summary`].
#[derive(Clone, Debug, Serialize)]
pub struct AqmSummary {
    /// Early drops.
    pub early_drops: u64,
    /// Forced drops (average beyond the last threshold, or no room).
    pub forced_drops: u64,
    /// Frames marked.
    pub marks: u64,
    /// Of which marked incipient (MECN's 10).
    #[serde(skip_serializing_if = "crate::units::is_zero")]
    pub(crate) incipient_marks: u64,
    /// Of which marked moderate (MECN's 11).
    #[serde(skip_serializing_if = "crate::units::is_zero")]
    pub(crate) moderate_marks: u64,
    /// Changes of max_p by the adaptation.
    pub max_p_changes: u64,
    /// max_p at the end.
    pub max_p: f64,
    /// The average queue at the end, in the thresholds' unit.
    pub(crate) avg: f64,
}

/// `$body` with `$d` bound to the discipline inside `$aqm`, whatever it is: the one
/// place that lists the variants.
macro_rules! each_discipline {
    ($aqm:expr, $d:ident => $body:expr) => {
        match $aqm {
            Aqm::Red($d) => $body,
            Aqm::Mecn($d) => $body,
            Aqm::Dcqcn($d) => $body,
        }
    };
}

impl AnyDiscipline {
    /// The discipline's table name, for messages.
    pub fn name(&self) -> &'static str {
        match self {
            AnyDiscipline::DropTail => "drop-tail",
            AnyDiscipline::EcnThreshold(d) => Discipline::name(d),
            AnyDiscipline::Aqm(a) => each_discipline!(&**a, d => Discipline::name(d)),
        }
    }

    /// Whether the discipline may mark an ECN-capable frame CE (or with an MECN level).
    pub fn marks(&self) -> bool {
        match self {
            AnyDiscipline::DropTail => false,
            AnyDiscipline::EcnThreshold(d) => Discipline::marks(d),
            AnyDiscipline::Aqm(a) => each_discipline!(&**a, d => Discipline::marks(d)),
        }
    }

    /// The average queue the discipline keeps, if it keeps one.
    pub fn average(&self) -> Option<f64> {
        let AnyDiscipline::Aqm(a) = self else { return None };
        each_discipline!(&**a, d => Discipline::average(d))
    }

    /// The maximum marking probability the discipline applies now (Adaptive RED's and
    /// Adaptive MECN's moving max_p; MECN's P1max), if it has one.
    pub fn max_p(&self) -> Option<f64> {
        let AnyDiscipline::Aqm(a) = self else { return None };
        each_discipline!(&**a, d => Discipline::max_p(d))
    }

    /// The discipline's counters and state for `summary.json`, if it reports any.
    pub fn summary(&self) -> Option<AqmSummary> {
        let AnyDiscipline::Aqm(a) = self else { return None };
        each_discipline!(&**a, d => Discipline::summary(d))
    }

    /// A frame is offered to the queue.
    #[inline]
    pub fn on_enqueue(&mut self, queue: QueueView, frame: &mut Frame, now: Time) -> Verdict {
        match self {
            AnyDiscipline::DropTail => {
                if queue.admits(frame.size) {
                    Verdict::Enqueue
                } else {
                    Verdict::Drop
                }
            }
            AnyDiscipline::EcnThreshold(d) => EcnThreshold::on_enqueue(*d, queue, frame),
            AnyDiscipline::Aqm(a) => a.on_enqueue(queue, frame, now),
        }
    }

    /// A frame left the queue for the wire.
    #[inline]
    pub fn on_dequeue(&mut self, queue: QueueView, frame: &Frame, now: Time) {
        if let AnyDiscipline::Aqm(a) = self {
            a.on_dequeue(queue, frame, now);
        }
    }
}

impl Aqm {
    /// A frame is offered. Out of line: the drop-tail majority's frame path stays a
    /// pointer test (measured: inlining the disciplines here cost drop-tail TCP 6 % in
    /// instructions).
    #[inline(never)]
    pub fn on_enqueue(&mut self, queue: QueueView, frame: &mut Frame, now: Time) -> Verdict {
        each_discipline!(self, d => Discipline::on_enqueue(d, queue, frame, now))
    }

    /// A frame left for the wire; `queue` is what stays.
    #[inline(never)]
    pub fn on_dequeue(&mut self, queue: QueueView, frame: &Frame, now: Time) {
        each_discipline!(self, d => Discipline::on_dequeue(d, queue, frame, now))
    }
}

impl Discipline for EcnThreshold {
    fn name(&self) -> &'static str {
        "protocols.ecn_threshold"
    }

    #[inline]
    fn on_enqueue(&mut self, queue: QueueView, frame: &mut Frame, _now: Time) -> Verdict {
        EcnThreshold::on_enqueue(*self, queue, frame)
    }
}

impl Discipline for Red {
    fn name(&self) -> &'static str {
        "protocols.red"
    }

    #[inline]
    fn on_enqueue(&mut self, queue: QueueView, frame: &mut Frame, now: Time) -> Verdict {
        Red::on_enqueue(self, queue, frame, now)
    }

    #[inline]
    fn on_dequeue(&mut self, queue: QueueView, frame: &Frame, now: Time) {
        Red::on_dequeue(self, queue, frame, now)
    }

    fn marks(&self) -> bool {
        Red::marks(self)
    }

    fn average(&self) -> Option<f64> {
        Some(self.average.avg)
    }

    fn max_p(&self) -> Option<f64> {
        Some(self.cur_max_p)
    }

    fn summary(&self) -> Option<AqmSummary> {
        Some(AqmSummary {
            early_drops: self.stats.early_drops,
            forced_drops: self.stats.forced_drops,
            marks: self.stats.marks,
            incipient_marks: 0,
            moderate_marks: 0,
            max_p_changes: self.stats.max_p_changes,
            max_p: self.cur_max_p,
            avg: self.average.avg,
        })
    }
}

impl Discipline for Mecn {
    fn name(&self) -> &'static str {
        "protocols.mecn"
    }

    #[inline]
    fn on_enqueue(&mut self, queue: QueueView, frame: &mut Frame, now: Time) -> Verdict {
        Mecn::on_enqueue(self, queue, frame, now)
    }

    #[inline]
    fn on_dequeue(&mut self, queue: QueueView, frame: &Frame, now: Time) {
        Mecn::on_dequeue(self, queue, frame, now)
    }

    fn average(&self) -> Option<f64> {
        Some(self.average.avg)
    }

    fn max_p(&self) -> Option<f64> {
        Some(self.max_p)
    }

    /// Every MECN drop counts as forced; its marks are both levels.
    fn summary(&self) -> Option<AqmSummary> {
        Some(AqmSummary {
            early_drops: 0,
            forced_drops: self.stats.drops,
            marks: self.stats.incipient + self.stats.moderate,
            incipient_marks: self.stats.incipient,
            moderate_marks: self.stats.moderate,
            max_p_changes: self.stats.max_p_changes,
            max_p: self.max_p,
            avg: self.average.avg,
        })
    }
}

impl Discipline for dcqcn::Marker {
    fn name(&self) -> &'static str {
        "protocols.dcqcn"
    }

    #[inline]
    fn on_enqueue(&mut self, queue: QueueView, frame: &mut Frame, _now: Time) -> Verdict {
        dcqcn::Marker::on_enqueue(self, queue, frame)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn drop_tail_admits_up_to_capacity() {
        let mut d = AnyDiscipline::DropTail;
        let mut frame = Frame { size: 1500, ..Frame::default() };
        let q = |frames| QueueView {
            straight_through: false,
            frames,
            bytes: frames * 1500,
            capacity: Capacity::Frames(3),
        };
        assert_eq!(d.on_enqueue(q(2), &mut frame, 0), Verdict::Enqueue);
        assert_eq!(d.on_enqueue(q(3), &mut frame, 0), Verdict::Drop);
    }
}
