//! Wire formats: the bytes a simulated frame would have on an Ethernet link, for packet
//! traces that Wireshark and tshark read.
//!
//! - Every frame but PAUSE carries an IEEE 802.1Q tag whose PCP is the frame's priority
//!   (VLAN 1). Hosts have the MAC address 02:00:00 followed by their node id (24 bits)
//!   and the IPv4 address 10.x.y.z of the same id; a multicast frame goes to
//!   03:00:00 followed by its tree id.
//! - A CNM is an IEEE 802.1Qau-2010 §33.4 congestion notification message: EtherType
//!   0x22E9, then the CNM PDU (version 0, quantized feedback |Fb| in the low six bits of
//!   the first two octets, the 8-octet CPID, cnmQOffset and cnmQDelta, the encapsulated
//!   priority, destination MAC and MSDU length, and up to 64 octets of the sampled
//!   frame). cnsim's CNM carries |Fb| and the CPID; the other fields are zero.
//! - PAUSE is IEEE 802.3x (MAC Control, EtherType 0x8808, opcode 0x0001, one pause
//!   time); PFC is IEEE 802.1Qbb (opcode 0x0101, the class-enable vector, eight pause
//!   times), both to 01:80:C2:00:00:01, untagged.
//! - A TCP segment or ACK is IPv4 (with the frame's ECN bits; header checksum computed)
//!   and TCP, in an Ethernet frame 18 bytes longer than the IP packet (cnsim's TCP frame
//!   sizes are IP sizes, the 40 header bytes and the payload). Sequence numbers count
//!   bytes (cnsim counts segments): segment n starts at byte n × payload, or, where
//!   segment 0 is a SYN (which takes byte 0), at 1 + (n − 1) × payload. CWR on a
//!   segment that carries it, ECE on an ACK that echoes congestion; ports 10000 + flow
//!   at the sender and 5001 at the receiver.
//! - A DCQCN flow's data frame, an RDMA queue pair's packets and acknowledgements, and a
//!   CNP are RoCEv2 (InfiniBand Architecture Annex A17): IPv4 with the frame's ECN bits,
//!   UDP to port 4791 (from 49152 + flow), and a Base Transport Header to queue pair
//!   1 + flow. A saturated DCQCN flow's data frame is an RC SEND Only (opcode 0x04) with
//!   PSN 0; a queue pair's packet is SEND First, Middle, Last or Only (0x00, 0x01, 0x02,
//!   0x04) with its PSN, AckReq on the last; an acknowledgement is RC Acknowledge
//!   (0x11) naming the last PSN received, or for a NAK the expected one, with an AETH
//!   (syndrome 0x1F ACK, 0x60 NAK PSN sequence error); a CNP is opcode 0x81 with its 16
//!   reserved octets. The 4-octet ICRC ends the packet (not computed).
//! - A flow's data frame under QCN and the other layer-2 schemes' messages (BCN, FECN
//!   and path probes, probe replies) have no standard format: they are sent as the IEEE
//!   local experimental EtherType 0x88B5 with a kind octet (0 data, 1 BCN, 2 FECN probe,
//!   3 probe, 4 probe reply, 5 path probe), the flow id, and the frame's |Fb| and CPID
//!   where it has them.
//!
//! Bytes beyond the headers are zero.

use super::{Frame, Header};

/// The 802.1Q Tag Protocol Identifier.
pub const ETHERTYPE_VLAN: u16 = 0x8100;
/// IEEE 802.1Qau congestion notification (CN-TAG and CNM).
pub const ETHERTYPE_CN: u16 = 0x22E9;
/// MAC Control (PAUSE, PFC).
pub const ETHERTYPE_MAC_CONTROL: u16 = 0x8808;
/// IPv4.
pub const ETHERTYPE_IPV4: u16 = 0x0800;
/// IEEE 802 local experimental EtherType 1.
pub const ETHERTYPE_EXPERIMENTAL: u16 = 0x88B5;

/// The MAC address of node `node`.
pub fn mac(node: u32) -> [u8; 6] {
    let n = node.to_be_bytes();
    [0x02, 0, 0, n[1], n[2], n[3]]
}

/// The IPv4 address of node `node`.
pub fn ipv4(node: u32) -> [u8; 4] {
    let n = node.to_be_bytes();
    [10, n[1], n[2], n[3]]
}

/// What [`encode`] needs to know beyond the frame.
#[derive(Clone, Copy, Debug)]
pub struct Context {
    /// The node sending the frame on this link (the source of a PAUSE).
    pub(crate) sender: u32,
    /// For TCP: the payload bytes of a full segment of the frame's flow.
    pub(crate) segment_payload: u32,
    /// For TCP: whether segment 0 is a SYN (ns-2's `syn_`): it takes sequence number 0
    /// and data starts at byte 1.
    pub(crate) syn: bool,
    /// The frame's flow is RDMA (RoCEv2): its data frames are InfiniBand over UDP.
    pub(crate) rdma: bool,
}

impl Context {
    /// The byte sequence number of segment `n`.
    fn byte_of(&self, n: i64) -> u32 {
        let n = n.max(0) as u32;
        match (self.syn, n) {
            (true, 0) => 0,
            (true, n) => 1u32.wrapping_add((n - 1).wrapping_mul(self.segment_payload)),
            (false, n) => n.wrapping_mul(self.segment_payload),
        }
    }
}

/// Header bytes of Ethernet with an 802.1Q tag.
const TAGGED: usize = 18;
/// IPv4 and TCP headers without options.
const IP_TCP: usize = 40;

/// Writes the bytes of `frame` on the wire into `out` (cleared first), at most `snaplen`
/// of them; returns the frame's length on the wire (the pcap "original length").
pub fn encode(frame: &Frame, ctx: &Context, snaplen: usize, out: &mut Vec<u8>) -> u32 {
    out.clear();
    let dst = if frame.multicast {
        let t = frame.dst.to_be_bytes();
        [0x03, 0, 0, t[1], t[2], t[3]]
    } else {
        mac(frame.dst)
    };
    match frame.header {
        Header::Pause(p) => {
            out.extend_from_slice(&[0x01, 0x80, 0xC2, 0x00, 0x00, 0x01]);
            out.extend_from_slice(&mac(ctx.sender));
            out.extend_from_slice(&ETHERTYPE_MAC_CONTROL.to_be_bytes());
            if p.priorities == 0xFF {
                out.extend_from_slice(&0x0001u16.to_be_bytes());
                out.extend_from_slice(&p.quanta.to_be_bytes());
            } else {
                out.extend_from_slice(&0x0101u16.to_be_bytes());
                out.extend_from_slice(&u16::from(p.priorities).to_be_bytes());
                for class in 0..8 {
                    let q = if p.priorities & (1 << class) != 0 { p.quanta } else { 0 };
                    out.extend_from_slice(&q.to_be_bytes());
                }
            }
        }
        Header::Cnm(c) => {
            ethernet(out, dst, mac(frame.src), frame.priority, ETHERTYPE_CN);
            out.extend_from_slice(&u16::from(c.fb & 0x3F).to_be_bytes());
            out.extend_from_slice(&u64::from(c.cpid).to_be_bytes());
            out.extend_from_slice(&[0; 4]); // cnmQOffset, cnmQDelta
            out.extend_from_slice(&[0; 2]); // encapsulated priority
            out.extend_from_slice(&[0; 6]); // encapsulated destination MAC
            out.extend_from_slice(&[0; 2]); // encapsulated MSDU length
        }
        Header::TcpSegment(s) => {
            let seq = ctx.byte_of(i64::from(s.seq));
            let flags = if ctx.syn && s.seq == 0 { 0x02 } else { 0x18 | if s.cwr { 0x80 } else { 0 } }; // SYN; or PSH, ACK (and CWR)
                                                                                                        // A SYN carries no data: the rest of its frame is padding.
            let data = !(ctx.syn && s.seq == 0);
            tcp(out, frame, dst, (10_000 + frame.flow % 50_000) as u16, 5001, seq, 0, flags, data);
        }
        Header::TcpAck(a) => {
            let ack = ctx.byte_of(i64::from(a.ack) + 1);
            let syn = if ctx.syn && a.ack == 0 { 0x02 } else { 0 };
            let flags = 0x10 | syn | if a.echo > 0 { 0x40 } else { 0 }; // ACK (SYN, ECE)
            tcp(out, frame, dst, 5001, (10_000 + frame.flow % 50_000) as u16, 0, ack, flags, false);
        }
        Header::TcpRequest(_) => {
            tcp(out, frame, dst, 5001, (10_000 + frame.flow % 50_000) as u16, 0, 0, 0x18, true);
        }
        Header::Data(_) if ctx.rdma => roce(out, frame, dst, BTH_SEND_ONLY, 0, None),
        Header::Cnp(_) => roce(out, frame, dst, BTH_CNP, 0, None),
        Header::RdmaData(p) => {
            let opcode = match (p.psn == 0, p.last) {
                (true, true) => BTH_SEND_ONLY,
                (true, false) => BTH_SEND_FIRST,
                (false, false) => BTH_SEND_MIDDLE,
                (false, true) => BTH_SEND_LAST,
            };
            // The last packet asks for an acknowledgement (AckReq).
            roce(out, frame, dst, opcode, p.psn | (u32::from(p.last) << 31), None)
        }
        Header::RdmaAck(a) => {
            // An ACK names the last PSN received; a NAK the one expected.
            let (psn, syndrome) =
                if a.nak { (a.psn, AETH_NAK_PSN_ERROR) } else { (a.psn.wrapping_sub(1), AETH_ACK) };
            roce(out, frame, dst, BTH_ACKNOWLEDGE, psn, Some(syndrome))
        }
        Header::Data(r) => experimental(out, frame, dst, 0, r.fb, r.cpid),
        Header::Bcn(_) => experimental(out, frame, dst, 1, 0, 0),
        Header::Fecn(_) => experimental(out, frame, dst, 2, 0, 0),
        Header::Probe(_) => experimental(out, frame, dst, 3, 0, 0),
        Header::ProbeReply(_) => experimental(out, frame, dst, 4, 0, 0),
        Header::PathProbe(_) => experimental(out, frame, dst, 5, 0, 0),
    }
    // cnsim's TCP frame sizes are IP sizes; every other frame's is its Ethernet size.
    let ip = matches!(frame.header, Header::TcpSegment(_) | Header::TcpAck(_) | Header::TcpRequest(_));
    let wire = (frame.size as usize + if ip { TAGGED } else { 0 }).max(out.len());
    out.resize(wire.min(snaplen), 0);
    wire as u32
}

/// Ethernet with an 802.1Q tag of priority `pcp`, VLAN 1.
fn ethernet(out: &mut Vec<u8>, dst: [u8; 6], src: [u8; 6], pcp: u8, ethertype: u16) {
    out.extend_from_slice(&dst);
    out.extend_from_slice(&src);
    out.extend_from_slice(&ETHERTYPE_VLAN.to_be_bytes());
    out.extend_from_slice(&((u16::from(pcp & 7) << 13) | 1).to_be_bytes());
    out.extend_from_slice(&ethertype.to_be_bytes());
}

/// A frame of the local experimental EtherType: kind, flow, |Fb|, CPID.
fn experimental(out: &mut Vec<u8>, frame: &Frame, dst: [u8; 6], kind: u8, fb: u8, cpid: u32) {
    ethernet(out, dst, mac(frame.src), frame.priority, ETHERTYPE_EXPERIMENTAL);
    out.push(kind);
    out.extend_from_slice(&frame.flow.to_be_bytes());
    out.push(fb);
    out.extend_from_slice(&cpid.to_be_bytes());
}

/// RoCEv2's UDP destination port.
pub const ROCEV2_PORT: u16 = 4791;
/// BTH opcodes of RC SEND First, Middle, Last and Only (IBA vol. 1 Table 38).
const BTH_SEND_FIRST: u8 = 0x00;
const BTH_SEND_MIDDLE: u8 = 0x01;
const BTH_SEND_LAST: u8 = 0x02;
const BTH_SEND_ONLY: u8 = 0x04;
/// BTH opcode of an RC Acknowledge, which an AETH follows.
const BTH_ACKNOWLEDGE: u8 = 0x11;
/// AETH syndromes: ACK (credit field 0x1F, "invalid"), and NAK with a PSN sequence error
/// (IBA vol. 1 §9.7.5.1.4).
const AETH_ACK: u8 = 0x1F;
const AETH_NAK_PSN_ERROR: u8 = 0x60;
/// BTH opcode of a congestion notification packet.
const BTH_CNP: u8 = 0x81;

/// IPv4, UDP and the InfiniBand Base Transport Header of a RoCEv2 packet with BTH
/// `opcode` and `psn` (its top bit: AckReq), and an AETH with `aeth`'s syndrome; the IP
/// packet is the frame less its Ethernet header, at least the headers (a CNP's 16
/// reserved octets and the ICRC included).
fn roce(out: &mut Vec<u8>, frame: &Frame, dst: [u8; 6], opcode: u8, psn: u32, aeth: Option<u8>) {
    const HEADERS: usize = 20 + 8 + 12 + 4; // IPv4, UDP, BTH, ICRC
    let extra = if opcode == BTH_CNP {
        16
    } else if aeth.is_some() {
        4
    } else {
        0
    };
    let total = (frame.size as usize).saturating_sub(TAGGED).clamp(HEADERS + extra, usize::from(u16::MAX));
    ethernet(out, dst, mac(frame.src), frame.priority, ETHERTYPE_IPV4);
    ipv4_header(out, frame, 17, total as u16);
    out.extend_from_slice(&(0xC000u16 | (frame.flow as u16 & 0x3FFF)).to_be_bytes());
    out.extend_from_slice(&ROCEV2_PORT.to_be_bytes());
    out.extend_from_slice(&((total - 20) as u16).to_be_bytes());
    out.extend_from_slice(&[0, 0]); // UDP checksum: none
    out.push(opcode);
    out.push(0); // SE, M, pad count, transport version
    out.extend_from_slice(&u16::MAX.to_be_bytes()); // default P_Key
    let qp = (frame.flow + 1) & 0xFF_FFFF;
    out.push(0);
    out.extend_from_slice(&qp.to_be_bytes()[1..]);
    out.push(if psn >> 31 == 1 { 0x80 } else { 0 }); // AckReq
    out.extend_from_slice(&(psn & 0xFF_FFFF).to_be_bytes()[1..]);
    if let Some(syndrome) = aeth {
        out.push(syndrome);
        out.extend_from_slice(&[0; 3]); // MSN
    }
}

/// An IPv4 header (no options) of `frame` carrying `protocol`, `total` bytes long, with
/// the frame's ECN bits and its checksum.
fn ipv4_header(out: &mut Vec<u8>, frame: &Frame, protocol: u8, total: u16) {
    let ip_start = out.len();
    out.push(0x45);
    out.push(frame.ecn as u8);
    out.extend_from_slice(&total.to_be_bytes());
    out.extend_from_slice(&[0, 0, 0x40, 0]); // identification; don't fragment
    out.push(64); // TTL
    out.push(protocol);
    out.extend_from_slice(&[0, 0]); // checksum, below
    out.extend_from_slice(&ipv4(frame.src));
    out.extend_from_slice(&ipv4(if frame.multicast { 0 } else { frame.dst }));
    let checksum = internet_checksum(&out[ip_start..]);
    out[ip_start + 10..ip_start + 12].copy_from_slice(&checksum.to_be_bytes());
}

/// IPv4 and TCP headers (no options) of `frame`: the IP packet is the whole frame where
/// it carries `data`, else the 40 header bytes (the rest of the frame is padding).
#[allow(clippy::too_many_arguments)]
fn tcp(
    out: &mut Vec<u8>,
    frame: &Frame,
    dst: [u8; 6],
    sport: u16,
    dport: u16,
    seq: u32,
    ack: u32,
    flags: u8,
    data: bool,
) {
    ethernet(out, dst, mac(frame.src), frame.priority, ETHERTYPE_IPV4);
    let total =
        if data { (frame.size as usize).clamp(IP_TCP, usize::from(u16::MAX)) as u16 } else { IP_TCP as u16 };
    ipv4_header(out, frame, 6, total);
    out.extend_from_slice(&sport.to_be_bytes());
    out.extend_from_slice(&dport.to_be_bytes());
    out.extend_from_slice(&seq.to_be_bytes());
    out.extend_from_slice(&ack.to_be_bytes());
    out.push(5 << 4); // data offset: 5 words
    out.push(flags);
    out.extend_from_slice(&u16::MAX.to_be_bytes()); // window
    out.extend_from_slice(&[0, 0, 0, 0]); // checksum (not computed), urgent pointer
}

/// The Internet checksum (RFC 1071) of `bytes`.
pub fn internet_checksum(bytes: &[u8]) -> u16 {
    let mut sum: u32 =
        bytes.chunks(2).map(|c| u32::from(u16::from_be_bytes([c[0], *c.get(1).unwrap_or(&0)]))).sum();
    while sum > 0xFFFF {
        sum = (sum & 0xFFFF) + (sum >> 16);
    }
    !(sum as u16)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::wire::pause::PauseFrame;
    use crate::wire::qcn::Cnm;

    fn ctx() -> Context {
        Context { sender: 5, segment_payload: 1000, syn: false, rdma: false }
    }

    /// An 802.3x PAUSE of 0xFFFF quanta from node 5: 01:80:C2:00:00:01, 02:00:00:00:00:05,
    /// 0x8808, opcode 1, the quanta; padded with zeros to the frame's 64 bytes.
    #[test]
    fn pause_is_mac_control_opcode_one() {
        let frame = Frame {
            size: 64,
            header: Header::Pause(PauseFrame { priorities: 0xFF, quanta: 0xFFFF }),
            ..Default::default()
        };
        let mut out = Vec::new();
        assert_eq!(encode(&frame, &ctx(), 1500, &mut out), 64);
        assert_eq!(out.len(), 64);
        assert_eq!(
            out[..18],
            [0x01, 0x80, 0xC2, 0, 0, 1, 0x02, 0, 0, 0, 0, 5, 0x88, 0x08, 0x00, 0x01, 0xFF, 0xFF]
        );
        assert!(out[18..].iter().all(|&b| b == 0));
    }

    /// PFC pausing priorities 3 and 5 for 100 quanta: opcode 0x0101, vector 0x0028, a
    /// time for each of the eight classes (100 at 3 and 5).
    #[test]
    fn pfc_is_opcode_0101_with_its_vector_and_eight_times() {
        let frame = Frame {
            size: 64,
            header: Header::Pause(PauseFrame { priorities: 0b0010_1000, quanta: 100 }),
            ..Default::default()
        };
        let mut out = Vec::new();
        encode(&frame, &ctx(), 64, &mut out);
        assert_eq!(out[14..18], [0x01, 0x01, 0x00, 0x28]);
        let times: Vec<u16> = out[18..34].chunks(2).map(|c| u16::from_be_bytes([c[0], c[1]])).collect();
        assert_eq!(times, [0, 0, 0, 100, 0, 100, 0, 0]);
    }

    /// A CNM from switch 7 to host 2 at priority 6, |Fb| 37, CPID 12: tagged PCP 6,
    /// EtherType 0x22E9, then 0x0025 and the CPID in eight octets.
    #[test]
    fn cnm_carries_fb_and_cpid_after_the_cn_ethertype() {
        let frame = Frame {
            size: 64,
            priority: 6,
            src: 7,
            dst: 2,
            header: Header::Cnm(Cnm { fb: 37, cpid: 12 }),
            ..Default::default()
        };
        let mut out = Vec::new();
        encode(&frame, &ctx(), 64, &mut out);
        assert_eq!(out[..12], [0x02, 0, 0, 0, 0, 2, 0x02, 0, 0, 0, 0, 7]);
        assert_eq!(out[12..18], [0x81, 0x00, 0xC0, 0x01, 0x22, 0xE9]);
        assert_eq!(out[18..28], [0x00, 37, 0, 0, 0, 0, 0, 0, 0, 12]);
    }

    /// Segment 3 of 1000-byte payloads (1040-byte packets, 1058 on the wire) starts at
    /// byte 3000; the IPv4 header's checksum verifies (the sum over the header is
    /// 0xFFFF); ECT(0) shows in the ECN bits.
    #[test]
    fn tcp_segments_count_bytes_and_check_their_ip_header() {
        let frame = Frame {
            size: 1040,
            src: 1,
            dst: 4,
            flow: 2,
            ecn: crate::wire::Ecn::Ect0,
            header: Header::TcpSegment(crate::wire::tcp::Segment { seq: 3, cwr: true }),
            ..Default::default()
        };
        let mut out = Vec::new();
        assert_eq!(encode(&frame, &ctx(), 128, &mut out), 1058);
        assert_eq!(out.len(), 128, "cut at the snap length");
        let ip = &out[18..38];
        assert_eq!(internet_checksum(ip), 0, "a header with its checksum sums to all ones");
        assert_eq!(ip[1] & 3, 0b10);
        assert_eq!(u16::from_be_bytes([ip[2], ip[3]]), 1040);
        let tcp = &out[38..58];
        assert_eq!(u16::from_be_bytes([tcp[0], tcp[1]]), 10_002);
        assert_eq!(u32::from_be_bytes([tcp[4], tcp[5], tcp[6], tcp[7]]), 3000);
        assert_eq!(tcp[13], 0x98, "CWR, PSH, ACK");
    }

    #[test]
    fn the_internet_checksum_of_rfc_1071s_example() {
        // RFC 1071 §3: 0001 f203 f4f5 f6f7 sums to 0xddf2, so the checksum is 0x220d.
        assert_eq!(internet_checksum(&[0x00, 0x01, 0xf2, 0x03, 0xf4, 0xf5, 0xf6, 0xf7]), 0x220d);
    }
}
