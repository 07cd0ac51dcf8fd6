//! The TCP receiver: ns-2's TCPSink (reference l3-tcp.md §5.8). A cumulative ACK
//! carries the highest in-order segment received; segments beyond a hole are kept (a
//! resequencing buffer) and produce duplicate ACKs until it fills. No SACK, no window
//! advertisement.
//!
//! Without delayed ACKs every arriving segment is acknowledged at once. With them
//! (`tcp.delayed_ack`; RFC 1122 §4.2.3.2, RFC 5681 §4.2, ns-2's `DelAckSink`), an
//! in-order segment that leaves no hole behind it is held: its ACK goes with the
//! `every`-th such segment (ns-2: the second), or when the timer started by the first
//! held one expires (ns-2 `interval_`, 100 ms), whichever comes first. ACKed at once,
//! whatever is held: a segment out of order (a duplicate ACK), a duplicate, one that fills
//! all or part of a hole (RFC 5681 §4.2; ns-2 `RFC2581_immediate_ack_`), and the SYN
//! (ns-2 `SYN_immediate_ack_`). An ACK covering several segments echoes the highest
//! congestion level any of them carried (RFC 3168 §6.1.3), on top of the latch that holds
//! it until CWR.
//!
//! DCTCP's receiver ([`Echo::PerSegment`]; Alizadeh et al. 2010 §3.1, RFC 8257 §3.2)
//! echoes each segment's own CE, with no latch and no CWR, so the sender sees how much
//! of its data was marked. With delayed ACKs it is the paper's two-state machine: a
//! segment whose CE differs from the held segments' first sends their ACK at once, with
//! their state (the `early` ACK), then is considered as usual.

use std::collections::VecDeque;

use crate::engine::Time;

/// Delayed-ACK parameters.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct DelayedAck {
    /// ACK at the latest every this many in-order segments.
    pub(crate) every: u32,
    /// ACK at the latest this long after the first held segment arrived, ps.
    pub(crate) timeout: Time,
}

/// What an ACK echoes.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Echo {
    /// RFC 3168 (and MECN): the highest level seen, latched until a CWR arrives.
    #[default]
    Latch,
    /// DCTCP: the CE of the segments the ACK covers.
    PerSegment,
}

/// What the receiver did with a segment.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Receipt {
    /// The ACK to send now (cumulative ACK, congestion level echoed), if any.
    pub(crate) ack: Option<(i64, u8)>,
    /// Segments that became in-order with this one (delivered to the application).
    pub(crate) in_order: u64,
}

/// A TCP sink.
#[derive(Clone, Debug, Default)]
pub struct Receiver {
    /// Highest in-order segment received (−1 before any).
    pub(crate) next_ack: i64,
    /// Segments received beyond a hole, in increasing order (they mostly arrive so: a
    /// push at the back).
    above: VecDeque<i64>,
    /// Segments received, duplicates included.
    pub(crate) received: u64,
    /// Of which already held (retransmissions of delivered segments).
    pub(crate) duplicates: u64,
    /// The congestion level to echo (ns-2's ECN latch, holding MECN's highest level).
    pub(crate) latch: u8,
    /// Delayed ACKs, if on.
    delayed: Option<DelayedAck>,
    /// In-order segments received since the last ACK.
    pub(crate) held: u32,
    /// The highest congestion level among the segments since the last ACK.
    held_level: u8,
    /// When the held ACK is due (the delayed-ACK timer), if one is held.
    pub(crate) deadline: Option<Time>,
    /// What ACKs echo.
    echo: Echo,
    /// DCTCP: the ACK of the held segments, sent before the segment whose CE differs
    /// from theirs.
    pub(crate) early: Option<(i64, u8)>,
}

impl Receiver {
    /// A sink that has received nothing and acknowledges every segment.
    pub fn new() -> Self {
        Receiver { next_ack: -1, ..Receiver::default() }
    }

    /// A sink with delayed ACKs, if `delayed` is given.
    pub fn with_delayed_ack(delayed: Option<DelayedAck>) -> Self {
        Receiver { delayed, ..Receiver::new() }
    }

    /// The receiver echoing as `echo` says.
    pub fn echoing(mut self, echo: Echo) -> Self {
        self.echo = echo;
        self
    }

    /// Whether ACKs may be held.
    pub fn delays_acks(&self) -> bool {
        self.delayed.is_some()
    }

    /// An ECN-capable data segment arrived with CWR `cwr` and signalling congestion
    /// `level` (0 none): the level every ACK echoes until a CWR comes (ns-2 TCPSink: CWR
    /// clears the latch, then this segment's mark sets it). Echoing per segment, the
    /// level is this segment's, and a change of CE with segments held puts their ACK in
    /// `early`.
    pub fn echo(&mut self, cwr: bool, level: u8) -> u8 {
        if self.echo == Echo::PerSegment {
            if self.held > 0 && (level > 0) != (self.held_level > 0) {
                self.early = Some(self.ack());
            }
            self.held_level = level;
            return level;
        }
        if cwr {
            self.latch = 0;
        }
        self.latch = self.latch.max(level);
        self.held_level = self.held_level.max(level);
        self.latch
    }

    /// Segment `seq` arrived: returns the cumulative ACK and how many segments became
    /// in-order (delivered to the application) with it.
    pub fn on_segment(&mut self, seq: i64) -> (i64, u64) {
        self.received += 1;
        let place = if seq <= self.next_ack { Ok(0) } else { self.above.binary_search(&seq) };
        let Err(place) = place else {
            self.duplicates += 1;
            return (self.next_ack, 0);
        };
        if seq != self.next_ack + 1 {
            self.above.insert(place, seq);
            return (self.next_ack, 0);
        }
        let before = self.next_ack;
        self.next_ack = seq;
        while self.above.front() == Some(&(self.next_ack + 1)) {
            self.above.pop_front();
            self.next_ack += 1;
        }
        (self.next_ack, (self.next_ack - before) as u64)
    }

    /// Segment `seq` arrived at `now` (`syn`: it is the SYN; its marks, if ECN-capable,
    /// already given to [`Receiver::echo`]): the sink takes it, and its ACK goes now or
    /// is held.
    #[inline]
    pub fn receive(&mut self, seq: i64, syn: bool, now: Time) -> Receipt {
        let Some(d) = self.delayed else {
            let (ack, in_order) = self.on_segment(seq);
            let echo = self.latch.max(std::mem::take(&mut self.held_level));
            return Receipt { ack: Some((ack, echo)), in_order };
        };
        let in_order_alone = seq == self.next_ack + 1 && self.above.is_empty();
        let (_, in_order) = self.on_segment(seq);
        let now_ = if !in_order_alone || syn {
            true
        } else {
            self.held += 1;
            if self.held == 1 {
                self.deadline = Some(now + d.timeout);
            }
            self.held >= d.every
        };
        Receipt { ack: now_.then(|| self.ack()), in_order }
    }

    /// The delayed-ACK timer expired: the held ACK, if one is held.
    pub fn on_timer(&mut self) -> Option<(i64, u8)> {
        (self.held > 0).then(|| self.ack())
    }

    /// The ACK sent now: the cumulative ACK and the level echoed; nothing is held after it.
    fn ack(&mut self) -> (i64, u8) {
        let echo = self.latch.max(self.held_level);
        self.held = 0;
        self.held_level = 0;
        self.deadline = None;
        (self.next_ack, echo)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cumulative_acks_with_a_hole() {
        let mut r = Receiver::new();
        assert_eq!(r.on_segment(0), (0, 1));
        assert_eq!(r.on_segment(1), (1, 1));
        // 2 is lost: 3 and 4 bring duplicate ACKs for 1.
        assert_eq!(r.on_segment(3), (1, 0));
        assert_eq!(r.on_segment(4), (1, 0));
        // The retransmitted 2 fills the hole: the ACK jumps to 4, three delivered.
        assert_eq!(r.on_segment(2), (4, 3));
        // A needless retransmission: a duplicate ACK.
        assert_eq!(r.on_segment(3), (4, 0));
        assert_eq!((r.received, r.duplicates), (6, 1));
    }

    /// Segments beyond a hole in any order, one of them twice: each is held once, and
    /// the segment filling the hole delivers every one held in sequence behind it, not
    /// those past a second hole.
    #[test]
    fn segments_held_out_of_order_are_delivered_in_order() {
        let mut r = Receiver::new();
        assert_eq!(r.on_segment(0), (0, 1));
        for seq in [5, 3, 4, 8, 3, 2] {
            assert_eq!(r.on_segment(seq), (0, 0), "segment {seq} is held");
        }
        assert_eq!(r.duplicates, 1, "the second 3");
        assert_eq!(r.on_segment(1), (5, 5), "1 fills the hole: 1 to 5");
        assert_eq!(r.on_segment(7), (5, 0));
        assert_eq!(r.on_segment(6), (8, 3), "6 fills the second: 6 to 8");
        assert_eq!(r.on_segment(8), (8, 0));
        assert_eq!((r.received, r.duplicates), (11, 2));
    }

    /// The echo holds the highest level until CWR, then starts over from that segment's.
    #[test]
    fn echo_latches_until_cwr() {
        let mut r = Receiver::new();
        assert_eq!(r.echo(false, 0), 0);
        assert_eq!(r.echo(false, 1), 1);
        assert_eq!(r.echo(false, 0), 1, "held");
        assert_eq!(r.echo(false, 2), 2, "raised");
        assert_eq!(r.echo(false, 1), 2, "never lowered");
        assert_eq!(r.echo(true, 0), 0, "CWR clears");
        assert_eq!(r.echo(true, 1), 1, "CWR clears, then this mark sets");
    }

    const MS: Time = crate::engine::PS_PER_MS;

    /// ns-2's DelAckSink: every second segment, 100 ms.
    fn delayed() -> Receiver {
        Receiver::with_delayed_ack(Some(DelayedAck { every: 2, timeout: 100 * MS }))
    }

    /// RFC 5681 §4.2: two in-order segments, one ACK, sent with the second; the first
    /// starts the timer, the ACK stops it.
    #[test]
    fn an_in_order_pair_gets_one_ack() {
        let mut r = delayed();
        assert_eq!(r.receive(0, false, 0), Receipt { ack: None, in_order: 1 });
        assert_eq!((r.held, r.deadline), (1, Some(100 * MS)));
        assert_eq!(r.receive(1, false, MS), Receipt { ack: Some((1, 0)), in_order: 1 });
        assert_eq!((r.held, r.deadline), (0, None));
    }

    /// A lone segment is acknowledged when the timer expires, 100 ms after it arrived;
    /// an expiry with nothing held sends nothing.
    #[test]
    fn a_lone_segment_is_acked_at_the_timeout() {
        let mut r = delayed();
        assert_eq!(r.receive(0, false, 5 * MS).ack, None);
        assert_eq!(r.deadline, Some(105 * MS));
        assert_eq!(r.on_timer(), Some((0, 0)));
        assert_eq!((r.held, r.deadline, r.on_timer()), (0, None, None));
    }

    /// Out of order: an immediate duplicate ACK, which also covers what was held; a
    /// duplicate segment: an immediate ACK; the segment filling the hole: an immediate
    /// ACK for everything (RFC 5681 §4.2), and so is one filling only part of a hole.
    #[test]
    fn out_of_order_and_hole_filling_are_acked_at_once() {
        let mut r = delayed();
        r.receive(0, false, 0);
        assert_eq!(r.receive(1, false, 0).ack, Some((1, 0)));
        assert_eq!(r.receive(2, false, 0).ack, None, "held");
        // 3 and 4 are lost; 5 and 6 arrive out of order.
        assert_eq!(r.receive(5, false, MS), Receipt { ack: Some((2, 0)), in_order: 0 });
        assert_eq!((r.held, r.deadline), (0, None), "the duplicate ACK covered 2");
        assert_eq!(r.receive(6, false, MS).ack, Some((2, 0)));
        assert_eq!(r.receive(1, false, MS).ack, Some((2, 0)), "a duplicate segment");
        // 3 fills part of the hole (4 is still missing): at once.
        assert_eq!(r.receive(3, false, 2 * MS), Receipt { ack: Some((3, 0)), in_order: 1 });
        // 4 fills the rest: at once, for everything up to 6.
        assert_eq!(r.receive(4, false, 3 * MS), Receipt { ack: Some((6, 0)), in_order: 3 });
        // In order again: held.
        assert_eq!(r.receive(7, false, 4 * MS).ack, None);
    }

    /// The SYN is acknowledged at once (ns-2 `SYN_immediate_ack_`).
    #[test]
    fn the_syn_is_acked_at_once() {
        let mut r = delayed();
        assert_eq!(r.receive(0, true, 0).ack, Some((0, 0)));
        assert_eq!(r.receive(1, false, MS).ack, None);
    }

    /// `every = 3`: the third in-order segment sends the ACK.
    #[test]
    fn every_third() {
        let mut r = Receiver::with_delayed_ack(Some(DelayedAck { every: 3, timeout: 40 * MS }));
        assert_eq!(r.receive(0, false, 0).ack, None);
        assert_eq!(r.receive(1, false, MS).ack, None);
        assert_eq!(r.deadline, Some(40 * MS), "from the first held segment");
        assert_eq!(r.receive(2, false, 2 * MS).ack, Some((2, 0)));
    }

    /// RFC 3168 §6.1.3: an ACK for several segments echoes CE if any of them carried it.
    /// A marked segment held, then the CWR segment: the latch is cleared by the CWR, but
    /// the ACK covering both still echoes. The next pair, unmarked, echoes nothing.
    #[test]
    fn a_delayed_ack_echoes_any_mark_it_covers() {
        let mut r = delayed();
        r.echo(false, 1);
        assert_eq!(r.receive(0, false, 0).ack, None);
        assert_eq!(r.echo(true, 0), 0, "CWR clears the latch");
        assert_eq!(r.receive(1, false, MS).ack, Some((1, 1)));
        r.echo(false, 0);
        r.receive(2, false, 2 * MS);
        r.echo(false, 0);
        assert_eq!(r.receive(3, false, 3 * MS).ack, Some((3, 0)));
    }

    /// Without delayed ACKs every segment is acknowledged at once, echoing the latch.
    #[test]
    fn without_delay_every_segment_is_acked() {
        let mut r = Receiver::new();
        r.echo(false, 1);
        assert_eq!(r.receive(0, false, 0), Receipt { ack: Some((0, 1)), in_order: 1 });
        r.echo(true, 0);
        assert_eq!(r.receive(1, false, 0).ack, Some((1, 0)));
        assert_eq!(r.deadline, None);
    }

    /// DCTCP without delayed ACKs: each ACK echoes its own segment's CE; no latch, and
    /// CWR changes nothing.
    #[test]
    fn per_segment_echo_has_no_latch() {
        let mut r = Receiver::new().echoing(Echo::PerSegment);
        let mut ack = |seq, ce: u8| {
            r.echo(false, ce);
            r.receive(seq, false, 0).ack
        };
        assert_eq!(ack(0, 1), Some((0, 1)));
        assert_eq!(ack(1, 0), Some((1, 0)), "not latched");
        assert_eq!(ack(2, 1), Some((2, 1)));
        assert_eq!(ack(3, 0), Some((3, 0)));
    }

    /// DCTCP's two-state machine with m = 2: 0 unmarked is held; 1 marked differs, so
    /// the ACK for 0 goes at once echoing no CE, and 1 is held; 2 marked completes the
    /// pair, ACK 2 with CE; 3 unmarked is held until its timer, ACK 3 without CE.
    #[test]
    fn two_state_machine_acks_at_each_change_of_ce() {
        let mut r = delayed().echoing(Echo::PerSegment);
        r.echo(false, 0);
        assert_eq!(r.receive(0, false, 0).ack, None);
        r.echo(false, 1);
        assert_eq!(r.early.take(), Some((0, 0)), "the held segment's ACK, with its state");
        assert_eq!(r.receive(1, false, MS).ack, None, "the marked one is held anew");
        assert_eq!(r.deadline, Some(101 * MS), "its timer starts from it");
        r.echo(false, 1);
        assert_eq!(r.early, None, "same state: no early ACK");
        assert_eq!(r.receive(2, false, 2 * MS).ack, Some((2, 1)));
        r.echo(false, 0);
        assert_eq!(r.early, None, "nothing held: nothing to send early");
        assert_eq!(r.receive(3, false, 3 * MS).ack, None);
        assert_eq!(r.on_timer(), Some((3, 0)));
    }
}
