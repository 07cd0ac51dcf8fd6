//! TCP's segment and ACK, as cnsim's segment-level TCP reads them.

/// What a data segment's header carries here: its sequence number (in segments) and
/// the CWR flag.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Segment {
    /// Sequence number, in segments.
    pub(crate) seq: i32,
    /// Congestion Window Reduced (RFC 3168; MECN's "window reduced" combination).
    pub(crate) cwr: bool,
}

/// What an ACK carries: the highest in-order segment received and the congestion level
/// echoed (0 none; 1 ECE or MECN's incipient; 2 MECN's moderate).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Ack {
    /// Highest in-order segment received.
    pub(crate) ack: i32,
    /// Congestion level echoed.
    pub(crate) echo: u8,
}
