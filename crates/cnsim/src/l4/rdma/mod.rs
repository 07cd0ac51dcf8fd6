//! RoCEv2 reliable-connection message transfer, as the sending and receiving NICs run
//! it: one message per queue pair (QP), cut into packets numbered by PSN and paced by
//! the flow's rate limiter (DCQCN's, or the line rate).
//!
//! The rules are those of the HPCC ns-3 fork's `rdma-hw.cc` (`ReceiverCheckSeq`,
//! `ReceiveAck`, `RecoverQueue`), which follows the InfiniBand Architecture
//! Specification vol. 1 (§9.7.5, §9.9):
//! - the receiver acknowledges in-order packets: every `ack_every` packets and the last
//!   packet of the message (the fork's shipped configuration acknowledges every packet);
//! - a packet beyond the expected PSN (one was lost) is answered by a NAK carrying the
//!   expected PSN, at most once per `nack_interval` for the same expected PSN;
//! - the sender goes back to its first unacknowledged packet on a NAK (go-back-N) and,
//!   where `timeout` is set, when no acknowledgement has advanced for that long;
//! - the message is complete when every packet is acknowledged.
//!
//! Two choices the fork leaves open: a duplicate packet is acknowledged again (IBA
//! §9.9.2.2: the responder answers a duplicate request; the fork drops it silently, which
//! only matters when an acknowledgement is lost), and the retransmission timer exists at
//! all (the fork has none: over PFC nothing is lost; IBA's local ACK timeout is
//! 4.096 µs·2^n).

use serde::{Deserialize, Serialize};

use crate::engine::{Time, TimerId, PS_PER_US};
use crate::units::{Duration, Size};
use crate::wire::int::IntMode;

pub use crate::wire::rdma::{Ack, Packet, ACK_BYTES, HEADER_BYTES};

/// The window of a rate-controlled queue pair (`window` of DCQCN's, TIMELY's and HPCC's
/// tables; the HPCC fork's `HAS_WIN 1` with `VAR_WIN 1`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Window {
    /// bdp·R/line rate, at least one packet (see [`Qp::scale_window`]).
    Bdp,
}

/// Which base RTT (and so BDP) a rate-controlled flow uses (`base_rtt`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum BaseRtt {
    /// The largest base RTT among the protocol's flows, for every flow (the default:
    /// the fork's shipped `GLOBAL_T 1`, its `maxRtt` and `maxBdp`).
    #[default]
    Fabric,
    /// Each flow's own path.
    Path,
}

impl BaseRtt {
    /// Whether this is the default, [`BaseRtt::Fabric`].
    pub fn is_fabric(&self) -> bool {
        *self == BaseRtt::Fabric
    }
}

/// A traffic entry's `rdma = { … }`: the queue pair's transport parameters.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RdmaParams {
    /// The receiver acknowledges every this many in-order packets, and the last (1).
    #[serde(default = "ack_every")]
    pub(crate) ack_every: u32,
    /// The least time between two NAKs for the same expected PSN (500 µs, the fork's
    /// "NACK Generation Interval").
    #[serde(default = "nack_interval")]
    pub(crate) nack_interval: Duration,
    /// Go back to the first unacknowledged packet when no acknowledgement has advanced
    /// for this long; absent: no retransmission timer (as in the fork), so a lost last
    /// packet leaves the message incomplete.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(crate) timeout: Option<Duration>,
    /// At most this many bytes of packets sent and not yet acknowledged (the fork's
    /// window, `HAS_WIN`); absent: no window, the rate limiter alone paces.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(crate) window: Option<Size>,
}

fn ack_every() -> u32 {
    1
}
fn nack_interval() -> Duration {
    Duration(500 * PS_PER_US)
}

impl Default for RdmaParams {
    fn default() -> Self {
        Self { ack_every: ack_every(), nack_interval: nack_interval(), timeout: None, window: None }
    }
}

impl RdmaParams {
    /// The rules across keys for packets of `frame_size` bytes; `Err` names the key under
    /// `prefix`.
    pub fn check(&self, prefix: &str, frame_size: u64) -> Result<(), (String, String)> {
        let key = |k: &str| format!("{prefix}.{k}");
        if self.ack_every == 0 || self.ack_every > 1_000_000 {
            return Err((
                key("ack_every"),
                format!(
                    "{} is not an acknowledgement interval; expected 1 to 1000000 packets, e.g. 1",
                    self.ack_every
                ),
            ));
        }
        if self.nack_interval.0 == 0 {
            return Err((
                key("nack_interval"),
                "\"0s\" is not an interval; expected a positive time, e.g. \"500us\"".into(),
            ));
        }
        if let Some(t) = self.timeout {
            if t.0 == 0 {
                return Err((
                    key("timeout"),
                    "\"0s\" is not a timeout; expected a positive time, e.g. \"1ms\", or no timeout key"
                        .into(),
                ));
            }
        }
        if let Some(w) = self.window {
            let ok = match w {
                Size::Bytes(b) => b >= frame_size,
                Size::Frames(n) => n >= 1,
            };
            if !ok {
                return Err((
                    key("window"),
                    format!("\"{w}\" is not a window; expected at least one packet ({frame_size} bytes), e.g. \"64KB\""),
                ));
            }
        }
        Ok(())
    }
}

/// A queue pair's counters.
#[derive(Clone, Debug, Default, PartialEq, serde::Serialize)]
pub struct QpStats {
    /// Bytes of the message (absent: unlimited).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(crate) message_bytes: Option<u64>,
    /// Packets of the message acknowledged.
    pub acked_packets: u64,
    /// Packets sent again (go-back-N).
    pub retransmitted_packets: u64,
    /// ACKs the receiver sent.
    pub acks_sent: u64,
    /// NAKs the receiver sent.
    pub naks_sent: u64,
    /// Times the sender went back on a NAK.
    pub(crate) go_backs: u64,
    /// Retransmission timeouts.
    pub timeouts: u64,
    /// When the last packet was acknowledged, s from the start of the run.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(crate) completed_s: Option<f64>,
    /// Completion time: from the flow's start to the last acknowledgement, s.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub fct_s: Option<f64>,
}

impl QpStats {
    /// The section of flow `flow` of a finished run in `summary.json`, if the flow is an
    /// RDMA queue pair.
    pub fn of(run: &crate::protocol::Finished, flow: u32) -> Option<Self> {
        let qp = run.protocols.rdma.get(run.flows.get(flow as usize)?.qp as usize)?;
        Some(qp.stats.clone())
    }
}

/// What the receiver does with a data packet.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Received {
    /// The expected packet: delivered, and acknowledged with `Some`.
    InOrder(Option<Ack>),
    /// A packet beyond the expected one: discarded, and a NAK with `Some`.
    Gap(Option<Ack>),
    /// A packet already delivered: acknowledged again.
    Duplicate(Ack),
}

/// The receiving half of a queue pair.
#[derive(Clone, Debug, Default)]
pub struct Responder {
    /// The next PSN expected.
    pub(crate) expected: u32,
    /// In-order packets since the last acknowledgement.
    since_ack: u32,
    /// The expected PSN of the last NAK, and until when no other NAK for it goes out.
    last_nak: Option<(u32, Time)>,
}

impl Responder {
    /// Packet `packet` arrived at `now`; acknowledgements every `ack_every` packets, NAKs
    /// at most once per `nack_interval` for the same expected PSN.
    pub fn on_packet(&mut self, packet: Packet, ack_every: u32, nack_interval: Time, now: Time) -> Received {
        let ahead = packet.psn.wrapping_sub(self.expected) as i32;
        if ahead == 0 {
            self.expected = self.expected.wrapping_add(1);
            self.since_ack += 1;
            if self.since_ack >= ack_every || packet.last {
                self.since_ack = 0;
                return Received::InOrder(Some(Ack { psn: self.expected, nak: false }));
            }
            Received::InOrder(None)
        } else if ahead > 0 {
            let quiet = matches!(self.last_nak, Some((psn, until)) if psn == self.expected && now < until);
            if quiet {
                return Received::Gap(None);
            }
            self.last_nak = Some((self.expected, now.saturating_add(nack_interval)));
            Received::Gap(Some(Ack { psn: self.expected, nak: true }))
        } else {
            Received::Duplicate(Ack { psn: self.expected, nak: false })
        }
    }
}

/// The sending half of a queue pair: which packet goes next, and what is acknowledged.
#[derive(Clone, Debug)]
pub struct Requester {
    /// Packets in the message (`u64::MAX`: unlimited).
    pub packets: u64,
    /// Next packet to send.
    pub(crate) snd_nxt: u64,
    /// First packet not yet acknowledged.
    pub(crate) snd_una: u64,
    /// One past the highest packet ever sent (what is beyond `snd_nxt` below it is a
    /// retransmission when sent again).
    pub(crate) snd_max: u64,
    /// Largest number of packets unacknowledged (`u64::MAX`: no window).
    pub(crate) window: u64,
}

impl Requester {
    /// A requester of `packets` packets with a window of `window` packets.
    pub fn new(packets: u64, window: u64) -> Self {
        Self { packets, snd_nxt: 0, snd_una: 0, snd_max: 0, window }
    }

    /// The window, packets (`u64::MAX`: none).
    pub fn window(&self) -> u64 {
        self.window
    }

    /// Whether a packet may go now: one is left to send and the window has room.
    #[inline]
    pub fn can_send(&self) -> bool {
        self.snd_nxt < self.packets && self.snd_nxt - self.snd_una < self.window
    }

    /// Takes the next packet: its header, and whether it was sent before.
    pub fn next_packet(&mut self) -> (Packet, bool) {
        let index = self.snd_nxt;
        self.snd_nxt += 1;
        let again = index < self.snd_max;
        self.snd_max = self.snd_max.max(self.snd_nxt);
        (Packet { psn: index as u32, last: index + 1 == self.packets }, again)
    }

    /// Whether every packet is acknowledged.
    pub fn complete(&self) -> bool {
        self.snd_una >= self.packets
    }

    /// An acknowledgement arrived: packets before its PSN are acknowledged (one that
    /// acknowledges nothing sent, or goes backwards, is ignored). Returns the packets
    /// newly acknowledged. A NAK then sends again from the first unacknowledged packet.
    pub fn on_ack(&mut self, ack: Ack) -> u64 {
        let advance = u64::from(ack.psn.wrapping_sub(self.snd_una as u32));
        let acked = if advance <= self.snd_max - self.snd_una { advance } else { 0 };
        self.snd_una += acked;
        self.snd_nxt = self.snd_nxt.max(self.snd_una);
        if ack.nak {
            self.go_back();
        }
        acked
    }

    /// Go-back-N: the next packet is the first unacknowledged one.
    pub fn go_back(&mut self) {
        self.snd_nxt = self.snd_una;
    }

    /// Packets sent and not yet acknowledged.
    pub fn outstanding(&self) -> u64 {
        self.snd_max.min(self.packets) - self.snd_una
    }
}

/// A queue pair: both halves of one flow's RDMA transfer, and their counters.
#[derive(Clone, Debug)]
pub struct Qp {
    /// The sending half, at the flow's source.
    pub requester: Requester,
    /// The receiving half, at the flow's destination.
    pub(crate) responder: Responder,
    /// Acknowledge every this many packets.
    pub(crate) ack_every: u32,
    /// Least time between NAKs for the same PSN, ps.
    pub(crate) nack_interval: Time,
    /// Retransmission timeout, ps (0: none).
    pub(crate) timeout: Time,
    /// Message bytes per full packet.
    pub(crate) payload: u32,
    /// Wire bytes of the last packet.
    pub(crate) last_size: u32,
    /// The retransmission timer (set by the simulator), or `NONE`.
    pub(crate) timer: TimerId,
    /// The source stopped because it could not send (window full, or all sent): an
    /// acknowledgement or a timeout wakes it.
    pub(crate) blocked: bool,
    /// What the INT header of each data packet and ACK carries (hop records for an
    /// HPCC flow, a timestamp for a TIMELY one), which makes them its bytes longer.
    pub(crate) int: IntMode,
    /// The bandwidth-delay product the window scales from, bytes (0: the window is
    /// fixed); see [`Qp::scale_window`].
    pub(crate) bdp_bytes: u64,
    /// Counters.
    pub stats: QpStats,
}

impl Qp {
    /// A queue pair sending `bytes` (`None`: unlimited) in packets of `frame_size` bytes
    /// on the wire, with `params` (checked).
    pub fn new(params: &RdmaParams, bytes: Option<u64>, frame_size: u32) -> Self {
        let payload = frame_size - HEADER_BYTES;
        let (packets, last_size) = match bytes {
            Some(b) => {
                let packets = b.div_ceil(u64::from(payload)).max(1);
                let last = b - (packets - 1) * u64::from(payload);
                (packets, last as u32 + HEADER_BYTES)
            }
            None => (u64::MAX, frame_size),
        };
        let window = match params.window {
            None => u64::MAX,
            Some(Size::Frames(n)) => n,
            Some(Size::Bytes(b)) => (b / u64::from(frame_size)).max(1),
        };
        Self {
            requester: Requester::new(packets, window),
            responder: Responder::default(),
            ack_every: params.ack_every,
            nack_interval: params.nack_interval.0,
            timeout: params.timeout.map_or(0, |t| t.0),
            payload,
            last_size,
            timer: crate::net::NONE,
            blocked: false,
            int: IntMode::None,
            bdp_bytes: 0,
            stats: QpStats { message_bytes: bytes, ..QpStats::default() },
        }
    }

    /// Wire bytes of packet `packet`.
    #[inline]
    pub fn size_of(&self, packet: Packet, frame_size: u32) -> u32 {
        let size = if packet.last { self.last_size } else { frame_size };
        size + self.int.bytes()
    }

    /// Wire bytes of an ACK or NAK.
    #[inline]
    pub fn ack_size(&self) -> u32 {
        ACK_BYTES + self.int.bytes()
    }

    /// The window of a queue pair sending at `rate_bps` of its line's `line_bps`, with
    /// packets of `frame_size` bytes: the HPCC fork's variable window (`VAR_WIN`,
    /// `rdma-queue-pair.cc` `GetWin`), bdp·rate/line bytes, as whole packets rounded up
    /// (the fork stops at bytes in flight ≥ window), at least one. A queue pair without
    /// a BDP keeps its window.
    pub fn scale_window(&mut self, rate_bps: u64, line_bps: u64, frame_size: u32) {
        if self.bdp_bytes == 0 || line_bps == 0 {
            return;
        }
        let bytes = u128::from(self.bdp_bytes) * u128::from(rate_bps) / u128::from(line_bps);
        let packet = u128::from(frame_size + self.int.bytes()).max(1);
        self.requester.window = u64::try_from(bytes.div_ceil(packet)).unwrap_or(u64::MAX).max(1);
    }

    /// The message bytes packet `packet` carries.
    #[inline]
    pub fn payload_of(&self, packet: Packet) -> u32 {
        if packet.last {
            self.last_size - HEADER_BYTES
        } else {
            self.payload
        }
    }

    /// The message is complete: its completion time, from `start`, is recorded.
    pub fn completed(&mut self, start: Time, now: Time) {
        self.stats.completed_s = Some(now as f64 / 1e12);
        self.stats.fct_s = Some(now.saturating_sub(start) as f64 / 1e12);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const NACK: Time = 500 * PS_PER_US;

    fn packet(psn: u32) -> Packet {
        Packet { psn, last: false }
    }

    #[test]
    fn the_receiver_acknowledges_every_nth_packet_and_the_last() {
        let mut r = Responder::default();
        assert_eq!(r.on_packet(packet(0), 3, NACK, 0), Received::InOrder(None));
        assert_eq!(r.on_packet(packet(1), 3, NACK, 0), Received::InOrder(None));
        assert_eq!(r.on_packet(packet(2), 3, NACK, 0), Received::InOrder(Some(Ack { psn: 3, nak: false })));
        assert_eq!(r.on_packet(packet(3), 3, NACK, 0), Received::InOrder(None));
        let last = Packet { psn: 4, last: true };
        assert_eq!(r.on_packet(last, 3, NACK, 0), Received::InOrder(Some(Ack { psn: 5, nak: false })));
    }

    #[test]
    fn a_gap_is_nakked_once_per_interval_for_the_same_psn() {
        let mut r = Responder::default();
        r.on_packet(packet(0), 1, NACK, 0);
        // Packet 1 lost: 2 and 3 arrive.
        assert_eq!(r.on_packet(packet(2), 1, NACK, 10), Received::Gap(Some(Ack { psn: 1, nak: true })));
        assert_eq!(r.on_packet(packet(3), 1, NACK, 20), Received::Gap(None));
        // The interval over: the same gap is NAKed again.
        assert_eq!(
            r.on_packet(packet(4), 1, NACK, 10 + NACK),
            Received::Gap(Some(Ack { psn: 1, nak: true }))
        );
        // The retransmission arrives in order; a duplicate of 0 is acknowledged again.
        assert_eq!(
            r.on_packet(packet(1), 1, NACK, NACK * 2),
            Received::InOrder(Some(Ack { psn: 2, nak: false }))
        );
        assert_eq!(
            r.on_packet(packet(0), 1, NACK, NACK * 2),
            Received::Duplicate(Ack { psn: 2, nak: false })
        );
        // A new gap (at 2, after 2 was lost again) is NAKed at once.
        assert_eq!(r.on_packet(packet(3), 1, NACK, NACK * 2), Received::Gap(Some(Ack { psn: 2, nak: true })));
    }

    #[test]
    fn a_nak_sends_again_from_the_first_unacknowledged_packet() {
        let mut s = Requester::new(10, u64::MAX);
        for k in 0..6 {
            assert_eq!(s.next_packet(), (packet(k), false));
        }
        assert_eq!(s.on_ack(Ack { psn: 2, nak: true }), 2);
        assert_eq!((s.snd_una, s.snd_nxt), (2, 2));
        // 2..6 go again, then 6 is new.
        for k in 2..6 {
            assert_eq!(s.next_packet(), (packet(k), true));
        }
        assert_eq!(s.next_packet(), (packet(6), false));
        // A stale acknowledgement moves nothing; one beyond what was sent is ignored.
        assert_eq!(s.on_ack(Ack { psn: 1, nak: false }), 0);
        assert_eq!(s.on_ack(Ack { psn: 9, nak: false }), 0);
        assert_eq!(s.on_ack(Ack { psn: 7, nak: false }), 5);
        assert_eq!(s.outstanding(), 0);
    }

    #[test]
    fn a_window_holds_the_sender_until_acknowledged() {
        let mut s = Requester::new(10, 2);
        s.next_packet();
        s.next_packet();
        assert!(!s.can_send());
        s.on_ack(Ack { psn: 1, nak: false });
        assert!(s.can_send());
    }

    #[test]
    fn a_message_is_whole_packets_and_a_shorter_last_one() {
        // 1000-byte frames carry 938 bytes: 10 000 bytes are 10 full packets and 620.
        let qp = Qp::new(&RdmaParams::default(), Some(10_000), 1000);
        assert_eq!(qp.payload, 938);
        assert_eq!(qp.requester.packets, 11);
        assert_eq!(qp.last_size, 10_000 - 10 * 938 + HEADER_BYTES);
        let exact = Qp::new(&RdmaParams::default(), Some(938 * 2), 1000);
        assert_eq!((exact.requester.packets, exact.last_size), (2, 1000));
        let last = Packet { psn: 1, last: true };
        assert_eq!(exact.payload_of(last), 938);
        let mut s = exact.requester;
        assert!(!s.next_packet().0.last);
        assert!(s.next_packet().0.last);
        assert!(!s.can_send());
        s.on_ack(Ack { psn: 2, nak: false });
        assert!(s.complete());
    }

    /// A BDP of 100 000 bytes in 1042-byte packets (1000 and an INT header): 96 packets
    /// at line rate (95.97, rounded up), 48 at half (47.98), one at the least rate; a
    /// queue pair without a BDP keeps its window.
    #[test]
    fn a_bdp_window_follows_the_rate() {
        let mut qp = Qp::new(&RdmaParams::default(), None, 1000);
        qp.int = IntMode::Hops;
        qp.scale_window(50, 100, 1000);
        assert_eq!(qp.requester.window, u64::MAX, "no BDP: no window");
        qp.bdp_bytes = 100_000;
        let windows: Vec<u64> = [100, 50, 1]
            .iter()
            .map(|&r| {
                qp.scale_window(r * 1_000_000_000, 100_000_000_000, 1000);
                qp.requester.window
            })
            .collect();
        assert_eq!(windows, [96, 48, 1]);
        assert_eq!((qp.size_of(Packet { psn: 0, last: false }, 1000), qp.ack_size()), (1042, ACK_BYTES + 42));
    }

    #[test]
    fn bad_parameters_name_their_key() {
        let p = RdmaParams { ack_every: 0, ..RdmaParams::default() };
        assert_eq!(p.check("traffic[0].rdma", 1000).unwrap_err().0, "traffic[0].rdma.ack_every");
        let p = RdmaParams { window: Some(Size::Bytes(500)), ..RdmaParams::default() };
        assert_eq!(p.check("r", 1000).unwrap_err().0, "r.window");
        let p = RdmaParams { timeout: Some(Duration(0)), ..RdmaParams::default() };
        assert_eq!(p.check("r", 1000).unwrap_err().0, "r.timeout");
        assert!(RdmaParams::default().check("r", 1000).is_ok());
    }
}
