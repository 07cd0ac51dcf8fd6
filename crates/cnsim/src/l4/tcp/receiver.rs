//! The TCP receiver: ns-2's TCPSink (reference l3-tcp.md §5.8). One cumulative ACK per
//! arriving segment, carrying the highest in-order segment received; segments beyond a
//! hole are kept (a resequencing buffer) and produce duplicate ACKs until it fills. No
//! delayed ACK, no SACK, no window advertisement.

use std::collections::BTreeSet;

/// A TCP sink.
#[derive(Clone, Debug, Default)]
pub struct Receiver {
    /// Highest in-order segment received (−1 before any).
    pub next_ack: i64,
    /// Segments received beyond a hole.
    above: BTreeSet<i64>,
    /// Segments received, duplicates included.
    pub received: u64,
    /// Of which already held (retransmissions of delivered segments).
    pub duplicates: u64,
    /// The congestion level to echo (ns-2's ECN latch, holding MECN's highest level).
    pub latch: u8,
}

impl Receiver {
    /// A sink that has received nothing.
    pub fn new() -> Self {
        Receiver { next_ack: -1, ..Receiver::default() }
    }

    /// A data segment arrived with CWR `cwr` and signalling congestion `level` (0 none):
    /// the level every ACK echoes until a CWR comes (ns-2 TCPSink: CWR clears the latch,
    /// then this segment's mark sets it).
    pub fn echo(&mut self, cwr: bool, level: u8) -> u8 {
        if cwr {
            self.latch = 0;
        }
        self.latch = self.latch.max(level);
        self.latch
    }

    /// Segment `seq` arrived: returns the ACK to send and how many segments became
    /// in-order (delivered to the application) with it.
    pub fn on_segment(&mut self, seq: i64) -> (i64, u64) {
        self.received += 1;
        if seq <= self.next_ack || self.above.contains(&seq) {
            self.duplicates += 1;
            return (self.next_ack, 0);
        }
        if seq != self.next_ack + 1 {
            self.above.insert(seq);
            return (self.next_ack, 0);
        }
        let before = self.next_ack;
        self.next_ack = seq;
        while self.above.remove(&(self.next_ack + 1)) {
            self.next_ack += 1;
        }
        (self.next_ack, (self.next_ack - before) as u64)
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
}
