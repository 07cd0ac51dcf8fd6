//! Wire formats, the bottom of the layering: the header every kind of frame carries, in
//! its protocol's vocabulary ([`Header`], one module per protocol), the ECN bits of an
//! IP header ([`Ecn`]), and the bytes a frame would have on an Ethernet link, for
//! packet traces ([`encode`]). Nothing here depends on the simulator or the protocols'
//! machines; the protocols re-export their headers.

use crate::engine::Time;

pub mod dcqcn;
pub mod e2cm;
pub mod ecm;
pub mod encode;
pub mod fecn;
pub mod int;
pub mod pause;
pub mod probing;
pub mod qcn;
pub mod rdma;
pub mod tcp;

/// The ECN codepoint of a frame's IP header (RFC 3168 §5), or `NotEct` for frames that
/// carry none (layer-2 frames, non-ECN transports).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
#[repr(u8)]
pub enum Ecn {
    /// Not ECN-capable transport (00).
    #[default]
    NotEct = 0b00,
    /// ECN-capable transport, ECT(1) (01).
    Ect1 = 0b01,
    /// ECN-capable transport, ECT(0) (10).
    Ect0 = 0b10,
    /// Congestion experienced (11), set by a marking queue.
    Ce = 0b11,
}

impl Ecn {
    /// Whether a queue may mark this frame instead of dropping it.
    #[inline]
    pub fn capable(self) -> bool {
        self != Ecn::NotEct
    }
}

/// The protocol header a frame carries beyond the common fields: what a node does with
/// the frame when it receives it. One variant per protocol that has frames of its own;
/// each protocol's header type lives in the protocol's module.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Header {
    /// Application data of a flow. Under the enhanced multicast schemes of Mliki et al.
    /// 2016 §3 a multicast data frame carries its source's representative (|Fb|, CPID);
    /// under ECM a data frame carries its rate-regulator tag in the CPID (|Fb| 0).
    Data(qcn::Representative),
    /// An IEEE 802.1Qau congestion notification message, from a congestion point back to
    /// the source of a sampled frame.
    Cnm(qcn::Cnm),
    /// An IEEE 802.3x PAUSE or 802.1Qbb PFC frame: link-local, consumed by the receiving
    /// port.
    Pause(pause::PauseFrame),
    /// An ECM (BCN) message, from a congestion point back to the source of a sampled
    /// frame.
    Bcn(ecm::Bcn),
    /// A FECN rate-discovery probe, from a source to its destination and back.
    Fecn(fecn::Probe),
    /// A probe from a rate-limited source to the congestion point that last slowed it
    /// (Roeck 2007's "-P" variants).
    Probe(probing::Probe),
    /// A congestion point's reply to a probe, back to the probe's source.
    ProbeReply(probing::Reply),
    /// An E2CM path probe: to the flow's destination, gathering the queueing delay of
    /// the path, and back.
    PathProbe(e2cm::PathProbe),
    /// A TCP segment of the frame's flow: its sequence number, in segments, and CWR.
    TcpSegment(tcp::Segment),
    /// A TCP acknowledgement for the frame's flow, from its destination back to its
    /// source: the highest in-order segment received and the congestion echo.
    TcpAck(tcp::Ack),
    /// An incast client's request for the next round, to one server of the frame's flow.
    TcpRequest(u32),
    /// A DCQCN congestion notification packet, from the flow's receiver to its source.
    Cnp(dcqcn::Cnp),
    /// A RoCEv2 data packet of the frame's flow: its PSN.
    RdmaData(rdma::Packet),
    /// A RoCEv2 acknowledgement or NAK, from the flow's receiver to its source.
    RdmaAck(rdma::Ack),
}

impl Default for Header {
    fn default() -> Self {
        Header::Data(Default::default())
    }
}

/// The kinds of [`Header`], for counters kept per kind.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, serde::Serialize)]
#[serde(rename_all = "snake_case")]
pub enum HeaderKind {
    /// [`Header::Data`].
    Data,
    /// [`Header::Cnm`].
    Cnm,
    /// [`Header::Pause`].
    Pause,
    /// [`Header::Bcn`].
    Bcn,
    /// [`Header::Fecn`].
    Fecn,
    /// [`Header::Probe`].
    Probe,
    /// [`Header::ProbeReply`].
    ProbeReply,
    /// [`Header::PathProbe`].
    PathProbe,
    /// [`Header::TcpSegment`].
    TcpSegment,
    /// [`Header::TcpAck`].
    TcpAck,
    /// [`Header::TcpRequest`].
    TcpRequest,
    /// [`Header::Cnp`].
    Cnp,
    /// [`Header::RdmaData`].
    RdmaData,
    /// [`Header::RdmaAck`].
    RdmaAck,
}

impl HeaderKind {
    /// Every kind, in counter order.
    pub const ALL: [HeaderKind; 14] = [
        HeaderKind::Data,
        HeaderKind::Cnm,
        HeaderKind::Pause,
        HeaderKind::Bcn,
        HeaderKind::Fecn,
        HeaderKind::Probe,
        HeaderKind::ProbeReply,
        HeaderKind::PathProbe,
        HeaderKind::TcpSegment,
        HeaderKind::TcpAck,
        HeaderKind::TcpRequest,
        HeaderKind::Cnp,
        HeaderKind::RdmaData,
        HeaderKind::RdmaAck,
    ];
}

impl Header {
    /// The kind of this header.
    #[inline]
    pub fn kind(&self) -> HeaderKind {
        match self {
            Header::Data(_) => HeaderKind::Data,
            Header::Cnm(_) => HeaderKind::Cnm,
            Header::Pause(_) => HeaderKind::Pause,
            Header::Bcn(_) => HeaderKind::Bcn,
            Header::Fecn(_) => HeaderKind::Fecn,
            Header::Probe(_) => HeaderKind::Probe,
            Header::ProbeReply(_) => HeaderKind::ProbeReply,
            Header::PathProbe(_) => HeaderKind::PathProbe,
            Header::TcpSegment(_) => HeaderKind::TcpSegment,
            Header::TcpAck(_) => HeaderKind::TcpAck,
            Header::TcpRequest(_) => HeaderKind::TcpRequest,
            Header::Cnp(_) => HeaderKind::Cnp,
            Header::RdmaData(_) => HeaderKind::RdmaData,
            Header::RdmaAck(_) => HeaderKind::RdmaAck,
        }
    }

    /// What a data-carrying frame tells congestion points: the representative tag of an
    /// application data frame, none for a TCP segment or an RDMA packet; `None` for frames that carry no
    /// data (feedback, probes, ACKs, PAUSE).
    #[inline]
    pub fn data_tag(&self) -> Option<qcn::Representative> {
        match *self {
            Header::Data(tag) => Some(tag),
            Header::TcpSegment(_) | Header::RdmaData(_) => Some(Default::default()),
            _ => None,
        }
    }

    /// Whether the frame is link-local: consumed by the port that receives it, never
    /// forwarded and never queued behind data (IEEE 802.3 Annex 31B MAC control frames).
    #[inline]
    pub fn link_local(&self) -> bool {
        matches!(self, Header::Pause(_))
    }
}

/// A frame in flight: the fields every frame has, and its protocol [`Header`]. 48 bytes;
/// copied by value into and out of the arena.
#[derive(Clone, Copy, Debug, Default)]
pub struct Frame {
    /// Size on the wire in bytes (what serialization time and queue bytes count).
    pub size: u32,
    /// Priority (0 = lowest, 7 = highest; IEEE 802.1Q PCP); selects the egress class.
    pub priority: u8,
    /// ECN codepoint.
    pub ecn: Ecn,
    /// True when `dst` is a multicast tree id rather than a host.
    pub multicast: bool,
    /// Node that created the frame (a host for data, a switch for a CNM).
    pub src: u32,
    /// Destination host node id, or multicast tree id when `multicast` is set.
    pub dst: u32,
    /// Flow the frame belongs to (for a CNM: the flow of the sampled frame).
    pub flow: u32,
    /// Port through which the frame entered the node that holds it (`u32::MAX`, `net::NONE`, at the node
    /// that created it). Kept only while a link control counts frames by ingress port.
    pub ingress: u32,
    /// Creation time, for latency.
    pub born: Time,
    /// Protocol header.
    pub header: Header,
}

impl Frame {
    /// A unicast protocol message (a CNM, a BCN, a probe) that node `src` creates for host
    /// `dst` about flow `flow`: not ECN-capable, entering no port yet.
    pub fn message(
        size: u32,
        priority: u8,
        src: u32,
        dst: u32,
        flow: u32,
        born: Time,
        header: Header,
    ) -> Frame {
        Frame {
            size,
            priority,
            ecn: Ecn::NotEct,
            multicast: false,
            src,
            dst,
            flow,
            ingress: u32::MAX,
            born,
            header,
        }
    }

    /// The kind of the frame's header.
    #[inline]
    pub fn kind(&self) -> HeaderKind {
        self.header.kind()
    }
}
