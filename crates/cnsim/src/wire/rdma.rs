//! RoCEv2's reliable-connection packets: a data packet's PSN, and the acknowledgement
//! (AETH ACK or NAK).

/// Bytes of headers in a RoCEv2 data packet on the wire: Ethernet with an 802.1Q tag and
/// FCS (18), IPv4 (20), UDP (8), BTH (12), ICRC (4). A packet of `frame_size` carries
/// `frame_size − HEADER_BYTES` bytes of the message.
pub const HEADER_BYTES: u32 = 18 + 20 + 8 + 12 + 4;

/// Bytes of an acknowledgement on the wire: the data headers and an AETH (4).
pub const ACK_BYTES: u32 = HEADER_BYTES + 4;

/// A data packet's transport header: its PSN (the packet's index in the message, modulo
/// 2^32) and whether it is the message's last.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Packet {
    /// Packet sequence number.
    pub(crate) psn: u32,
    /// The last packet of the message (BTH opcode SEND Last or SEND Only).
    pub(crate) last: bool,
}

/// An acknowledgement (AETH syndrome ACK) or a NAK (PSN sequence error): the PSN the
/// receiver expects next.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Ack {
    /// The next PSN the receiver expects: every packet before it has arrived.
    pub(crate) psn: u32,
    /// A NAK: the packet at `psn` is missing.
    pub(crate) nak: bool,
}
