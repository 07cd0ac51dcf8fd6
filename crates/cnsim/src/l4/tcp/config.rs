//! A TCP traffic entry's parameters (`tcp = { … }` in `[[traffic]]` with `kind = "tcp"`)
//! and the connection they build: sender, receiver and the sizes of their frames.

use serde::{Deserialize, Serialize};

use super::dctcp::DctcpParams;
use super::receiver::{DelayedAck, Echo};
use super::sender::{CutBase, CutRules, EcnResponse};
use super::{Receiver, RtoParams, Sender, SenderParams, Variant};
use crate::engine::{RngStream, Time, TimerId, PS_PER_MS, PS_PER_S};
use crate::units::{Duration, Size};

/// TCP parameters; the defaults are ns-2's (reference l3-tcp.md §5.2) except where a
/// note says otherwise.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct TcpParams {
    /// "newreno" or "reno".
    pub(crate) variant: Variant,
    /// Largest window, segments (ns-2 `window_`: 20).
    pub(crate) window: u32,
    /// Window once the SYN is acknowledged (ns-2 `windowInit_`: 2).
    pub(crate) initial_window: u32,
    /// Model the SYN (segment 0, a header-only frame) before the data (ns-2 `syn_`).
    pub(crate) syn: bool,
    /// Limited Transmit on the first two duplicate ACKs (ns-2 `singledup_`).
    pub(crate) limited_transmit: bool,
    /// Lowest RTO (ns-2 `minrto_`: 200 ms).
    pub(crate) min_rto: Duration,
    /// Highest RTO (60 s).
    pub(crate) max_rto: Duration,
    /// RTO before the first RTT sample (ns-2 `rtxcur_init_`: 3 s).
    pub(crate) initial_rto: Duration,
    /// RTT clock granularity (ns-2 `tcpTick_`: 10 ms); "0s" = exact arithmetic (our
    /// default: a 10 ms tick makes a 1 ms or 10 ms minimum RTO impossible).
    pub(crate) tick: Duration,
    /// TCP/IP header bytes in every segment: a segment of `frame_size` carries
    /// `frame_size − header` bytes of application data.
    pub(crate) header: Size,
    /// Size on the wire of an ACK and of the SYN (ns-2: 40 bytes; here the 40 bytes of
    /// TCP/IP header in a minimum Ethernet frame).
    pub(crate) ack_size: Size,
    /// Multi-level ECN: data leave with codepoint 01, the receiver echoes the highest
    /// level seen (10 incipient, 11 moderate) until CWR, and the sender cuts by β1 or β2.
    /// Absent: RFC 3168 ECN when the entry's `ecn` is true.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(crate) mecn: Option<MecnParams>,
    /// DCTCP: data leave ECN-capable, the receiver echoes each segment's CE, and the
    /// sender cuts by α/2 ([`super::dctcp`]); `{}` takes the paper's g = 1/16.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(crate) dctcp: Option<DctcpParams>,
    /// The rule set of the window cuts: a preset of `ssthresh_from` and `ecn_floor`.
    #[serde(skip_serializing_if = "Rules::is_ns2")]
    pub(crate) rules: Rules,
    /// What a window cut halves; absent: as `rules` says.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(crate) ssthresh_from: Option<CutBase>,
    /// The least cwnd, in segments, an answer to echoed congestion leaves (1 or 2);
    /// absent: as `rules` says.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(crate) ecn_floor: Option<u32>,
    /// ns-2 `overhead_`: each time the sender could send new segments it waits a uniform
    /// random time in [0, overhead) first, then sends all the window allows (see
    /// [`super::sender`]); "0s" = at once.
    #[serde(skip_serializing_if = "Duration::is_zero")]
    pub(crate) overhead: Duration,
    /// Delayed ACKs at the receiver; absent: every segment is acknowledged at once.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(crate) delayed_ack: Option<DelayedAckParams>,
}

/// A preset of the rules that differ between ns-2, the RFCs and ns-3 (`tcp.rules`).
///
/// | preset | `ssthresh_from` | `ecn_floor` | source |
/// |---|---|---|---|
/// | `ns2` | `cwnd` | 1 | ns-2 `slowdown(CLOSE_SSTHRESH_HALF \| CLOSE_CWND_HALF)`: halves min(cwnd, wnd), cwnd at least 1 |
/// | `rfc` | `flight` | 1 | RFC 5681 eq. (4), ssthresh = max(FlightSize/2, 2·SMSS); RFC 3168 §6.1.2: an echo is "treated just as a congestion loss", cwnd "bounded below by a value of one MSS" |
/// | `ns3` | `flight` | 2 | ns-3 `TcpNewReno::GetSsThresh` = max(2·SMSS, BytesInFlight/2), and cwnd = ssthresh on entering CWR or recovery (`TcpClassicRecovery`) |
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Rules {
    /// ns-2's agents.
    #[default]
    Ns2,
    /// RFC 5681 and RFC 3168 as written.
    Rfc,
    /// ns-3's TcpNewReno with classic recovery.
    Ns3,
}

impl Rules {
    fn is_ns2(&self) -> bool {
        *self == Rules::Ns2
    }

    /// The preset's `ssthresh_from` and `ecn_floor`.
    pub fn preset(self) -> CutRules {
        match self {
            Rules::Ns2 => CutRules { base: CutBase::Cwnd, ecn_floor: 1 },
            Rules::Rfc => CutRules { base: CutBase::Flight, ecn_floor: 1 },
            Rules::Ns3 => CutRules { base: CutBase::Flight, ecn_floor: 2 },
        }
    }
}

/// Delayed ACKs (`tcp.delayed_ack`): RFC 1122 §4.2.3.2 and RFC 5681 §4.2, as ns-2's
/// `Agent/TCPSink/DelAck` does them (see [`super::receiver`]).
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct DelayedAckParams {
    /// Acknowledge at the latest every this many in-order segments (RFC 5681: at least
    /// every second full-sized segment; ns-2: 2).
    pub(crate) every: u32,
    /// Acknowledge at the latest this long after the first unacknowledged segment
    /// arrived (RFC 1122: under 0.5 s; ns-2 `interval_`: 100 ms).
    pub(crate) timeout: Duration,
}

impl Default for DelayedAckParams {
    fn default() -> Self {
        DelayedAckParams { every: 2, timeout: Duration(100 * PS_PER_MS) }
    }
}

/// The longest `overhead` accepted: ns-2 users set it to about a packet's time at the
/// bottleneck, far below this.
const MAX_OVERHEAD: Time = PS_PER_S;
/// RFC 1122 §4.2.3.2: an ACK's delay "MUST be less than 0.5 seconds".
const MAX_ACK_DELAY: Time = 500 * PS_PER_MS;

/// The MECN sender's decrease factors (`tcp.mecn`): the seed of Sridharan et al. gives
/// β3 = 50 % for loss and only 0 < β1 < β2 < 50 %; the values are ours.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct MecnParams {
    /// Fraction of cwnd removed on incipient congestion.
    pub(crate) beta1: f64,
    /// Fraction of cwnd removed on moderate congestion.
    pub(crate) beta2: f64,
}

impl Default for MecnParams {
    fn default() -> Self {
        MecnParams { beta1: 0.2, beta2: 0.4 }
    }
}

impl Default for TcpParams {
    fn default() -> Self {
        TcpParams {
            variant: Variant::NewReno,
            window: 20,
            initial_window: 2,
            syn: true,
            limited_transmit: true,
            min_rto: Duration(200 * PS_PER_MS),
            max_rto: Duration(60 * PS_PER_S),
            initial_rto: Duration(3 * PS_PER_S),
            tick: Duration(0),
            header: Size::Bytes(40),
            ack_size: Size::Bytes(64),
            mecn: None,
            dctcp: None,
            rules: Rules::Ns2,
            ssthresh_from: None,
            ecn_floor: None,
            overhead: Duration(0),
            delayed_ack: None,
        }
    }
}

impl TcpParams {
    /// Checks the values against a segment of `frame_size` bytes; errors name the key
    /// under `prefix`.
    pub fn check(&self, prefix: &str, frame_size: u64) -> Result<(), (String, String)> {
        let key = |k: &str| format!("{prefix}.{k}");
        if self.window == 0 || self.window > 1_000_000 {
            return Err((
                key("window"),
                format!("{} is not a window; expected 1 to 1000000 segments, e.g. 20", self.window),
            ));
        }
        if self.initial_window == 0 || self.initial_window > self.window {
            return Err((
                key("initial_window"),
                format!(
                    "{} is not an initial window; expected 1 to window ({}) segments, e.g. 2",
                    self.initial_window, self.window
                ),
            ));
        }
        if self.max_rto.0 == 0 || self.min_rto.0 > self.max_rto.0 {
            return Err((
                key("max_rto"),
                format!("\"{}\" is below min_rto (\"{}\"); expected a maximum at or above the minimum, e.g. \"60s\"", self.max_rto, self.min_rto),
            ));
        }
        if self.initial_rto.0 == 0 {
            return Err((
                key("initial_rto"),
                "\"0s\" is not a timeout; expected a positive time, e.g. \"3s\"".into(),
            ));
        }
        let header = match self.header {
            Size::Bytes(b) => b,
            other => {
                return Err((
                    key("header"),
                    format!("\"{other}\" is not a header size; expected bytes, e.g. \"40B\""),
                ))
            }
        };
        if header == 0 || header >= frame_size {
            return Err((
                key("header"),
                format!("\"{}\" leaves no data in a {frame_size}-byte segment; expected a header smaller than frame_size, e.g. \"40B\"", self.header),
            ));
        }
        if let Some(m) = self.mecn {
            if !(m.beta1 > 0.0 && m.beta1 < 1.0) {
                return Err((
                    key("mecn.beta1"),
                    format!("{} is out of range; expected a fraction in (0, 1), e.g. 0.2", m.beta1),
                ));
            }
            if !(m.beta2 >= m.beta1 && m.beta2 < 1.0) {
                return Err((
                    key("mecn.beta2"),
                    format!(
                        "{} is out of range; expected a fraction in [beta1 ({}), 1), e.g. 0.4",
                        m.beta2, m.beta1
                    ),
                ));
            }
        }
        if let Some(d) = self.dctcp {
            if self.mecn.is_some() {
                return Err((
                    key("dctcp"),
                    "given with \"mecn\"; expected one response to marks: DCTCP's or MECN's".into(),
                ));
            }
            d.check(&key("dctcp"))?;
        }
        if !matches!(self.ack_size, Size::Bytes(b) if (1..=9216).contains(&b)) {
            return Err((
                key("ack_size"),
                format!("\"{}\" is not an ACK size; expected 1 to 9216 bytes, e.g. \"64B\"", self.ack_size),
            ));
        }
        if let Some(floor) = self.ecn_floor {
            if !(1..=2).contains(&floor) {
                return Err((
                    key("ecn_floor"),
                    format!("{floor} is not a floor; expected 1 (ns-2, RFC 3168) or 2 (ns-3) segments"),
                ));
            }
        }
        if self.overhead.0 > MAX_OVERHEAD {
            return Err((
                key("overhead"),
                format!(
                    "\"{}\" is above {}; expected a delay of at most a second, e.g. \"1ms\" (about a segment's time at the bottleneck)",
                    self.overhead,
                    Duration(MAX_OVERHEAD)
                ),
            ));
        }
        if let Some(d) = self.delayed_ack {
            if !(1..=64).contains(&d.every) {
                return Err((
                    key("delayed_ack.every"),
                    format!(
                        "{} is not a count of segments; expected 1 to 64, e.g. 2 (RFC 5681, ns-2)",
                        d.every
                    ),
                ));
            }
            if d.timeout.0 == 0 || d.timeout.0 >= MAX_ACK_DELAY {
                return Err((
                    key("delayed_ack.timeout"),
                    format!(
                        "\"{}\" is not a delayed-ACK timeout; expected a positive time below {} (RFC 1122 §4.2.3.2), e.g. \"100ms\" (ns-2) or \"40ms\"",
                        d.timeout,
                        Duration(MAX_ACK_DELAY)
                    ),
                ));
            }
        }
        Ok(())
    }

    /// The rules of the window cuts: the preset, with the finer keys given beside it.
    pub fn cut_rules(&self) -> CutRules {
        let preset = self.rules.preset();
        CutRules {
            base: self.ssthresh_from.unwrap_or(preset.base),
            ecn_floor: self.ecn_floor.unwrap_or(preset.ecn_floor),
        }
    }

    /// The sender's parameters; `ecn`: the traffic entry's frames are ECN-capable.
    pub fn sender(&self, ecn: bool) -> SenderParams {
        SenderParams {
            cut: self.cut_rules(),
            overhead: self.overhead.0,
            variant: self.variant,
            window: self.window,
            window_init: self.initial_window,
            syn: self.syn,
            limited_transmit: self.limited_transmit,
            rto: RtoParams {
                tick: self.tick.0,
                min_rto: self.min_rto.0,
                max_rto: self.max_rto.0,
                initial_rto: self.initial_rto.0,
            },
            ecn: match (self.mecn, self.dctcp) {
                (Some(m), _) => EcnResponse::Mecn { beta1: m.beta1, beta2: m.beta2 },
                (None, Some(d)) => EcnResponse::Dctcp(d),
                (None, None) if ecn => EcnResponse::Ecn,
                (None, None) => EcnResponse::Off,
            },
        }
    }
}

/// One TCP connection: the sender at the flow's source, the receiver at its destination.
#[derive(Clone, Debug)]
pub struct Connection {
    /// The sender.
    pub sender: Sender,
    /// The receiver.
    pub(crate) receiver: Receiver,
    /// Application bytes per data segment.
    pub(crate) payload: u32,
    /// Wire size of a data segment.
    pub(crate) segment_size: u32,
    /// Wire size of an ACK and of the SYN.
    pub(crate) ack_size: u32,
    /// What the application sends.
    pub(crate) app: crate::l4::app::App,
    /// The retransmission timer.
    pub(crate) timer: TimerId,
    /// When the timer is armed to expire, as last synchronised with the sender.
    pub(crate) armed: Option<Time>,
    /// Data segments delivered in order to the receiving application.
    pub(crate) delivered: u64,
    /// Multi-level ECN (codepoints carry levels).
    pub(crate) mecn: bool,
    /// Web traffic: the timer runs a think time (the next object's start).
    pub(crate) thinking: bool,
    /// The sender's delayed-send timer (`overhead`), or `NONE` without one.
    pub(crate) send_timer: TimerId,
    /// When the delayed-send timer is armed to expire.
    pub(crate) send_armed: Option<Time>,
    /// The receiver's delayed-ACK timer, or `NONE` without delayed ACKs.
    pub(crate) ack_timer: TimerId,
    /// When the delayed-ACK timer is armed to expire.
    pub(crate) ack_armed: Option<Time>,
    /// ACKs the receiver sent.
    pub(crate) acks_sent: u64,
    /// Of which dropped in the network.
    pub(crate) acks_dropped: u64,
    /// When every byte of a finite transfer was acknowledged.
    pub(crate) completed: Option<Time>,
}

impl Connection {
    /// A connection for segments of `frame_size` bytes; `ecn`: ECN-capable; `boot` is
    /// the sender's RTO clock phase; `overhead` is the stream the sender draws its send
    /// delays from (kept only with an `overhead`).
    pub fn new(
        params: &TcpParams,
        frame_size: u32,
        ecn: bool,
        app: crate::l4::app::App,
        boot: Time,
        overhead: RngStream,
    ) -> Self {
        let header = params.header.value() as u32;
        let sender = params.sender(ecn);
        let delayed = params.delayed_ack.map(|d| DelayedAck { every: d.every, timeout: d.timeout.0 });
        Connection {
            mecn: matches!(sender.ecn, EcnResponse::Mecn { .. }),
            thinking: false,
            sender: Sender::new(sender, boot).with_overhead(overhead),
            receiver: Receiver::with_delayed_ack(delayed).echoing(match sender.ecn {
                EcnResponse::Dctcp(_) => Echo::PerSegment,
                _ => Echo::Latch,
            }),
            payload: frame_size - header,
            segment_size: frame_size,
            ack_size: params.ack_size.value() as u32,
            app,
            timer: crate::net::NONE,
            armed: None,
            delivered: 0,
            send_timer: crate::net::NONE,
            send_armed: None,
            ack_timer: crate::net::NONE,
            ack_armed: None,
            acks_sent: 0,
            acks_dropped: 0,
            completed: None,
        }
    }

    /// `segments` more data segments reached the receiving application in order: the
    /// application bytes they carry.
    pub fn deliver(&mut self, segments: u64) -> u64 {
        let before = self.app.bytes_in(self.delivered, self.payload);
        self.delivered += segments;
        self.app.bytes_in(self.delivered, self.payload) - before
    }

    /// Segments the application hands over at the start.
    pub fn app_segments(&self) -> u64 {
        self.app.first_segments(self.payload)
    }

    /// Incast: SRUs completely delivered so far.
    pub fn srus_delivered(&self) -> u64 {
        self.app.rounds_in(self.delivered, self.payload)
    }

    /// The congestion level a data segment's codepoint signals: RFC 3168's CE is 1;
    /// under MECN 10 (incipient) is 1 and 11 (moderate) is 2.
    pub fn level(&self, codepoint: crate::net::Ecn) -> u8 {
        use crate::net::Ecn;
        match (codepoint, self.mecn) {
            (Ecn::Ce, false) => 1,
            (Ecn::Ect0, true) => 1,
            (Ecn::Ce, true) => 2,
            _ => 0,
        }
    }

    /// Whether segment `seq` is the SYN.
    pub fn is_syn(&self, seq: i64) -> bool {
        seq < self.sender.first_data()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Each preset sets both rules; a finer key beside it overrides its part.
    #[test]
    fn rules_presets_and_overrides() {
        let p = |rules, ssthresh_from, ecn_floor| {
            TcpParams { rules, ssthresh_from, ecn_floor, ..TcpParams::default() }.cut_rules()
        };
        assert_eq!(p(Rules::Ns2, None, None), CutRules { base: CutBase::Cwnd, ecn_floor: 1 });
        assert_eq!(p(Rules::Rfc, None, None), CutRules { base: CutBase::Flight, ecn_floor: 1 });
        assert_eq!(p(Rules::Ns3, None, None), CutRules { base: CutBase::Flight, ecn_floor: 2 });
        assert_eq!(p(Rules::Rfc, None, Some(2)), CutRules { base: CutBase::Flight, ecn_floor: 2 });
        assert_eq!(
            p(Rules::Ns2, Some(CutBase::Flight), None),
            CutRules { base: CutBase::Flight, ecn_floor: 1 }
        );
        assert_eq!(TcpParams::default().cut_rules(), Rules::Ns2.preset(), "ns-2 by default");
    }

    /// Out-of-range values are refused at their key.
    #[test]
    fn new_keys_are_checked() {
        let check = |t: TcpParams| t.check("tcp", 1040).err();
        let base = TcpParams::default();
        let (k, m) = check(TcpParams { ecn_floor: Some(3), ..base }).unwrap();
        assert_eq!(k, "tcp.ecn_floor");
        assert!(m.starts_with("3 is not a floor"), "{m}");
        let (k, m) = check(TcpParams { overhead: Duration(2 * PS_PER_S), ..base }).unwrap();
        assert_eq!(k, "tcp.overhead");
        assert!(m.contains("\"2s\" is above 1s"), "{m}");
        let d = DelayedAckParams::default();
        let (k, _) =
            check(TcpParams { delayed_ack: Some(DelayedAckParams { every: 0, ..d }), ..base }).unwrap();
        assert_eq!(k, "tcp.delayed_ack.every");
        let late = DelayedAckParams { timeout: Duration(500 * PS_PER_MS), ..d };
        let (k, m) = check(TcpParams { delayed_ack: Some(late), ..base }).unwrap();
        assert_eq!(k, "tcp.delayed_ack.timeout");
        assert!(m.contains("below 500ms"), "{m}");
        let ok = DelayedAckParams { timeout: Duration(499 * PS_PER_MS), ..d };
        assert_eq!(
            check(TcpParams {
                delayed_ack: Some(ok),
                ecn_floor: Some(2),
                overhead: Duration(PS_PER_MS),
                ..base
            }),
            None
        );
    }
}
