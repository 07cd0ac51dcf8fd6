//! Packet traces: the frames a set of ports send, as a pcapng file (`trace.pcapng` in
//! the run directory) that Wireshark and tshark open, one interface per port, each
//! frame in its wire format ([`crate::wire::encode`]) and timestamped in simulated time to
//! the picosecond (`if_tsresol` 10⁻¹²).
//!
//! The trace is bounded: past `max_size` bytes it stops, and the run says so (a warning
//! on stderr and in `summary.json`).

use serde::{Deserialize, Serialize};

use crate::engine::Time;
use crate::net::Frame;
use crate::units::{Duration, Size};
use crate::wire::encode::{encode, Context};

/// `metrics.pcap`: which ports to trace, how much of each frame, when.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct PcapSpec {
    /// Ports whose sent frames are traced, by name ("r1->r2").
    pub(crate) ports: Vec<String>,
    /// Bytes kept of each frame (its headers fit in 78).
    #[serde(default = "default_snaplen")]
    pub(crate) snaplen: u32,
    /// Trace frames sent from this time on.
    #[serde(default)]
    pub(crate) start: Duration,
    /// Trace frames sent before this time (default: to the end).
    #[serde(default)]
    pub(crate) stop: Option<Duration>,
    /// Largest trace file; tracing stops there.
    #[serde(default = "default_max_size")]
    pub(crate) max_size: Size,
}

fn default_snaplen() -> u32 {
    128
}

fn default_max_size() -> Size {
    Size::Bytes(64 << 20)
}

/// A trace being recorded, in memory until the run's files are written.
#[derive(Clone, Debug)]
pub struct Trace {
    /// The pcapng file so far.
    bytes: Vec<u8>,
    /// Per port of the network, its interface id in the trace, or `u32::MAX`.
    interface_of: Vec<u32>,
    snaplen: usize,
    start: Time,
    stop: Time,
    max_bytes: usize,
    /// Frames traced, and frames left out once the trace was full.
    pub(crate) frames: u64,
    pub(crate) left_out: u64,
    scratch: Vec<u8>,
}

/// pcapng block types.
const SECTION_HEADER: u32 = 0x0A0D_0D0A;
const INTERFACE_DESCRIPTION: u32 = 1;
const ENHANCED_PACKET: u32 = 6;
/// LINKTYPE_ETHERNET.
const ETHERNET: u16 = 1;

impl Trace {
    /// A trace of `ports` (port id and name, in the order the interfaces get their ids)
    /// of a network of `port_count` ports.
    pub fn new(
        spec: &PcapSpec,
        ports: &[(u32, String)],
        port_count: usize,
        end: Time,
        max_bytes: usize,
    ) -> Self {
        let mut t = Trace {
            bytes: Vec::new(),
            interface_of: vec![u32::MAX; port_count],
            snaplen: spec.snaplen.max(1) as usize,
            start: spec.start.0,
            stop: spec.stop.map_or(end, |d| d.0),
            max_bytes,
            frames: 0,
            left_out: 0,
            scratch: Vec::new(),
        };
        // Section header: byte-order magic, version 1.0, section length unknown.
        let mut body = Vec::new();
        body.extend_from_slice(&0x1A2B_3C4Du32.to_le_bytes());
        body.extend_from_slice(&1u16.to_le_bytes());
        body.extend_from_slice(&0u16.to_le_bytes());
        body.extend_from_slice(&(-1i64).to_le_bytes());
        option(&mut body, 4, format!("cnsim {}", crate::VERSION).as_bytes()); // shb_userappl
        option(&mut body, 0, &[]);
        t.block(SECTION_HEADER, &body);
        for (i, (port, name)) in ports.iter().enumerate() {
            t.interface_of[*port as usize] = i as u32;
            let mut body = Vec::new();
            body.extend_from_slice(&ETHERNET.to_le_bytes());
            body.extend_from_slice(&0u16.to_le_bytes());
            body.extend_from_slice(&(t.snaplen as u32).to_le_bytes());
            option(&mut body, 2, name.as_bytes()); // if_name
            option(&mut body, 9, &[12]); // if_tsresol: 10^-12 s
            option(&mut body, 0, &[]);
            t.block(INTERFACE_DESCRIPTION, &body);
        }
        t
    }

    /// Records `frame`, sent by `port` at `now`, if it falls in the traced window and
    /// the trace has room.
    pub fn record(&mut self, port: u32, frame: &Frame, ctx: &Context, now: Time) {
        let interface = self.interface_of[port as usize];
        if interface == u32::MAX || now < self.start || now >= self.stop {
            return;
        }
        let mut data = std::mem::take(&mut self.scratch);
        let wire = encode(frame, ctx, self.snaplen, &mut data);
        let block_len = 32 + data.len().next_multiple_of(4);
        if self.bytes.len() + block_len > self.max_bytes {
            self.left_out += 1;
            self.scratch = data;
            return;
        }
        let mut body = Vec::with_capacity(block_len);
        body.extend_from_slice(&interface.to_le_bytes());
        body.extend_from_slice(&((now >> 32) as u32).to_le_bytes());
        body.extend_from_slice(&(now as u32).to_le_bytes());
        body.extend_from_slice(&(data.len() as u32).to_le_bytes());
        body.extend_from_slice(&wire.to_le_bytes());
        body.extend_from_slice(&data);
        body.resize(body.len().next_multiple_of(4), 0);
        self.block(ENHANCED_PACKET, &body);
        self.frames += 1;
        self.scratch = data;
    }

    /// What to say when the trace filled up ("key path: message").
    pub fn full_warning(&self) -> Option<String> {
        (self.left_out > 0).then(|| {
            format!(
                "metrics.pcap.max_size: the trace is full: it holds {} frames and left out the {} sent after; \
                 trace fewer ports, a shorter window (start, stop) or raise max_size",
                self.frames, self.left_out
            )
        })
    }

    /// The pcapng file.
    pub fn bytes(&self) -> &[u8] {
        &self.bytes
    }

    /// Appends a block: type, total length, body, total length again.
    fn block(&mut self, kind: u32, body: &[u8]) {
        let len = (12 + body.len()) as u32;
        self.bytes.extend_from_slice(&kind.to_le_bytes());
        self.bytes.extend_from_slice(&len.to_le_bytes());
        self.bytes.extend_from_slice(body);
        self.bytes.extend_from_slice(&len.to_le_bytes());
    }
}

/// Appends a pcapng option: code, length, value padded to four bytes.
fn option(out: &mut Vec<u8>, code: u16, value: &[u8]) {
    out.extend_from_slice(&code.to_le_bytes());
    out.extend_from_slice(&(value.len() as u16).to_le_bytes());
    out.extend_from_slice(value);
    out.resize(out.len().next_multiple_of(4), 0);
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::net::Header;

    fn spec() -> PcapSpec {
        PcapSpec {
            ports: vec!["a->b".into()],
            snaplen: 64,
            start: Duration(0),
            stop: None,
            max_size: Size::Bytes(1 << 20),
        }
    }

    /// Blocks chain by their lengths from the section header to the last packet, each
    /// length a multiple of four and repeated at the block's end.
    #[test]
    fn blocks_chain_and_packets_carry_their_time_and_lengths() {
        let mut t = Trace::new(&spec(), &[(1, "a->b".into())], 2, u64::MAX, 1 << 20);
        let frame = Frame { size: 1500, header: Header::Data(Default::default()), ..Default::default() };
        let ctx = Context { sender: 0, segment_payload: 0, syn: false, rdma: false };
        t.record(1, &frame, &ctx, (7u64 << 32) + 5);
        t.record(0, &frame, &ctx, 9); // not a traced port
        let b = t.bytes();
        let u32_at = |i: usize| u32::from_le_bytes(b[i..i + 4].try_into().unwrap());
        let mut at = 0;
        let mut kinds = Vec::new();
        while at < b.len() {
            let len = u32_at(at + 4) as usize;
            assert_eq!(len % 4, 0);
            assert_eq!(u32_at(at + len - 4) as usize, len);
            kinds.push(u32_at(at));
            if u32_at(at) == ENHANCED_PACKET {
                assert_eq!((u32_at(at + 8), u32_at(at + 12), u32_at(at + 16)), (0, 7, 5), "interface, time");
                assert_eq!((u32_at(at + 20), u32_at(at + 24)), (64, 1500), "captured, original");
            }
            at += len;
        }
        assert_eq!(kinds, [SECTION_HEADER, INTERFACE_DESCRIPTION, ENHANCED_PACKET]);
        assert_eq!(t.frames, 1);
    }

    #[test]
    fn a_full_trace_stops_and_counts_what_it_left_out() {
        let mut t = Trace::new(&spec(), &[(0, "a->b".into())], 1, 1_000_000, 300);
        let frame = Frame { size: 1500, ..Default::default() };
        let ctx = Context { sender: 0, segment_payload: 0, syn: false, rdma: false };
        for now in 0..10 {
            t.record(0, &frame, &ctx, now);
        }
        assert!(t.bytes().len() <= 300);
        assert!(t.frames >= 1 && t.left_out >= 1 && t.frames + t.left_out == 10);
    }

    #[test]
    fn frames_outside_the_window_are_not_traced() {
        let mut s = spec();
        s.start = Duration(100);
        s.stop = Some(Duration(200));
        let mut t = Trace::new(&s, &[(0, "a->b".into())], 1, 1_000, 1 << 20);
        let frame = Frame { size: 100, ..Default::default() };
        let ctx = Context { sender: 0, segment_payload: 0, syn: false, rdma: false };
        for now in [50, 100, 199, 200] {
            t.record(0, &frame, &ctx, now);
        }
        assert_eq!(t.frames, 2);
    }
}
