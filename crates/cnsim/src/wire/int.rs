//! In-band network telemetry (INT) as HPCC uses it (Li et al. 2019, §3.2 and §4.1): each
//! switch egress a data packet leaves through appends one hop record — the link's rate
//! B, a timestamp, the bytes the port has sent and its queue length — and the receiver
//! echoes the records in its ACK.
//!
//! The record is the HPCC ns-3 fork's (`int-header.h`, `IntHop`): 8 bytes, a 3-bit code
//! for the line rate (25, 50, 100, 200 or 400 Gbit/s), a 24-bit timestamp in ns, the
//! port's transmitted bytes in units of 128·`multi` bytes in 20 bits, and its queue in
//! units of 80·`multi` bytes in 17 bits. Timestamps and byte counts wrap (deltas are taken
//! modulo the field); a queue beyond the field saturates (the fork's bit field would
//! wrap it, reporting a 10.5 MB queue as nearly empty). A header holds at most
//! [`MAX_HOPS`] records and a 2-byte hop count: [`HEADER_BYTES`] = 42 on the wire, the
//! paper's overhead for 5 hops.
//!
//! TIMELY runs the same header in the fork's timestamp mode (`IntHeader::TS`): it carries
//! the packet's send time instead, [`TS_BYTES`] = 8 on the wire, and the ACK echoes it.

/// Hop records a header holds (the fork's `IntHeader::maxHop`).
pub const MAX_HOPS: usize = 5;

/// The header's bytes on the wire: five 8-byte records and a 2-byte hop count.
pub const HEADER_BYTES: u32 = 8 * MAX_HOPS as u32 + 2;

/// The header's bytes on the wire in timestamp mode: one 8-byte time.
pub const TS_BYTES: u32 = 8;

/// What a queue pair's packets carry in their INT header.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum IntMode {
    /// No INT header.
    #[default]
    None,
    /// Hop records, which every switch egress appends (HPCC).
    Hops,
    /// The packet's send time (TIMELY).
    Timestamp,
}

impl IntMode {
    /// The header's bytes on the wire, on every data packet and ACK.
    pub fn bytes(self) -> u32 {
        match self {
            IntMode::None => 0,
            IntMode::Hops => HEADER_BYTES,
            IntMode::Timestamp => TS_BYTES,
        }
    }
}

const TIME_BITS: u32 = 24;
const BYTES_BITS: u32 = 20;
const QLEN_BITS: u32 = 17;
const BYTE_UNIT: u64 = 128;
const QLEN_UNIT: u64 = 80;

/// The line rates a record can name, by code.
pub const LINE_RATES: [u64; 5] =
    [25_000_000_000, 50_000_000_000, 100_000_000_000, 200_000_000_000, 400_000_000_000];

/// One switch egress's record.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct IntHop {
    rate_code: u8,
    time: u32,
    bytes: u32,
    qlen: u32,
}

impl IntHop {
    /// The record of a port of `rate_bps` at `time_ns`, having sent `tx_bytes` in all,
    /// with `qlen_bytes` queued; `multi` scales the byte units (the fork's `INT_MULTI`).
    /// `None` for a rate the record cannot name.
    pub fn new(time_ns: u64, tx_bytes: u64, qlen_bytes: u64, rate_bps: u64, multi: u32) -> Option<Self> {
        let rate_code = LINE_RATES.iter().position(|&r| r == rate_bps)? as u8;
        let multi = u64::from(multi.max(1));
        Some(IntHop {
            rate_code,
            time: (time_ns & mask(TIME_BITS)) as u32,
            bytes: ((tx_bytes / (BYTE_UNIT * multi)) & mask(BYTES_BITS)) as u32,
            qlen: (qlen_bytes / (QLEN_UNIT * multi)).min(mask(QLEN_BITS)) as u32,
        })
    }

    /// The link's rate B, bit/s.
    pub fn line_rate(&self) -> u64 {
        LINE_RATES[self.rate_code as usize]
    }

    /// The queue, bytes (in the record's units).
    pub fn qlen(&self, multi: u32) -> u64 {
        u64::from(self.qlen) * QLEN_UNIT * u64::from(multi.max(1))
    }

    /// Bytes the port sent between `earlier` and this record (in the record's units).
    pub fn bytes_since(&self, earlier: &IntHop, multi: u32) -> u64 {
        let units = u64::from(self.bytes.wrapping_sub(earlier.bytes)) & mask(BYTES_BITS);
        units * BYTE_UNIT * u64::from(multi.max(1))
    }

    /// Nanoseconds between `earlier` and this record.
    pub fn ns_since(&self, earlier: &IntHop) -> u64 {
        u64::from(self.time.wrapping_sub(earlier.time)) & mask(TIME_BITS)
    }
}

fn mask(bits: u32) -> u64 {
    (1u64 << bits) - 1
}

/// One packet's INT header: the records of its path, in hop order, or in timestamp
/// mode its send time.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct IntStack {
    hops: [IntHop; MAX_HOPS],
    len: u8,
    /// The send time (timestamp mode), ps.
    pub(crate) sent: crate::engine::Time,
}

impl IntStack {
    /// Appends a hop's record; false (and nothing appended) when the header is full.
    pub fn push(&mut self, hop: IntHop) -> bool {
        let Some(slot) = self.hops.get_mut(self.len as usize) else { return false };
        *slot = hop;
        self.len += 1;
        true
    }

    /// The records.
    pub fn hops(&self) -> &[IntHop] {
        &self.hops[..self.len as usize]
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// 100 Gbit/s, t = 5 µs, 1 280 000 bytes sent (10 000 units of 128), 8 000 bytes
    /// queued (100 units of 80); a record 2 µs later after 25 000 more bytes: 195 units,
    /// 24 960 bytes (the unit truncates).
    #[test]
    fn a_record_in_the_forks_units() {
        let a = IntHop::new(5_000, 1_280_000, 8_000, 100_000_000_000, 1).unwrap();
        assert_eq!((a.line_rate(), a.qlen(1)), (100_000_000_000, 8_000));
        let b = IntHop::new(7_000, 1_305_000, 0, 100_000_000_000, 1).unwrap();
        assert_eq!((b.ns_since(&a), b.bytes_since(&a, 1)), (2_000, 24_960));
        assert_eq!(IntHop::new(0, 0, 0, 40_000_000_000, 1), None, "no code for 40 Gbit/s");
    }

    /// Timestamps wrap at 2²⁴ ns and byte counts at 2²⁰ units; deltas across the wrap
    /// are still right. A queue beyond 17 bits of units saturates.
    #[test]
    fn fields_wrap_and_the_queue_saturates() {
        let a = IntHop::new((1 << 24) - 100, ((1 << 20) - 1) * 128, 0, 25_000_000_000, 1).unwrap();
        let b = IntHop::new((1 << 24) + 400, ((1 << 20) + 9) * 128, 0, 25_000_000_000, 1).unwrap();
        assert_eq!((b.ns_since(&a), b.bytes_since(&a, 1)), (500, 10 * 128));
        let full = IntHop::new(0, 0, 32_000_000, 400_000_000_000, 1).unwrap();
        assert_eq!(full.qlen(1), ((1 << 17) - 1) * 80);
    }

    #[test]
    fn a_header_holds_five_hops_in_42_bytes() {
        let mut s = IntStack::default();
        let hop = IntHop::new(1, 2, 3, 100_000_000_000, 1).unwrap();
        assert!((0..5).all(|_| s.push(hop)));
        assert!(!s.push(hop), "full");
        assert_eq!((s.hops().len(), HEADER_BYTES), (5, 42));
    }
}
