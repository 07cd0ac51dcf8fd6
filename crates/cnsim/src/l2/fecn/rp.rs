//! The FECN source: a probe towards the destination with the flow's first frame and
//! every `t` after, and the rate set to what each returning probe carries (reference
//! §6.1). Until the first probe returns the source sends at `min_rate`, or at its line
//! rate with FECN-B's fast start (Roeck 2007 lists "fast start" among FECN-B's
//! modifications; reference §6.1: without it a new flow waits "a full round trip at a
//! low rate").

use serde::{Deserialize, Serialize};

use super::{Probe, DEFAULT_T};
use crate::net::{Frame, Header, NONE};
use crate::protocol::RateChange;
use crate::protocol::{Ctx, FlowView, Send};
use crate::units::{Duration, Rate};

/// Source parameters (`[protocols.fecn.source]`).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct RpParams {
    /// Lowest rate the source goes down to.
    pub(crate) min_rate: Rate,
    /// The factor a BCN(0,0) multiplies the rate by (FECN-B).
    pub(crate) severe_decrease: f64,
    /// FECN-B's fast start: send at line rate until the first probe returns, instead of
    /// at `min_rate`.
    pub(crate) fast_start: bool,
}

impl Default for RpParams {
    fn default() -> Self {
        RpParams { min_rate: Rate(10_000_000), severe_decrease: 0.5, fast_start: false }
    }
}

/// Per-source counters.
#[derive(Clone, Debug, Default, Serialize)]
pub struct RpStats {
    /// Probes sent.
    pub(crate) probes_sent: u64,
    /// Probes back with a rate.
    pub(crate) probes_returned: u64,
    /// BCN(0,0) received (FECN-B).
    pub(crate) severe: u64,
}

/// What probes look like.
#[derive(Clone, Copy, Debug)]
pub struct ProbeFormat {
    /// Size on the wire, bytes.
    pub(crate) size: u32,
    /// Priority.
    pub(crate) priority: u8,
    /// The probe period.
    pub(crate) period: Duration,
}

/// The FECN source of one flow.
#[derive(Clone, Debug)]
pub struct Rp {
    format: ProbeFormat,
    min_rate: u64,
    severe_decrease: f64,
    line_bps: u64,
    rate_bps: u64,
    probing: bool,
    /// Returning probes since the last sample of the feedback series.
    pub(crate) probes_since_sample: u64,
    /// Counters.
    pub(crate) stats: RpStats,
}

impl Rp {
    /// A source on a link of `line_bps`; until a probe returns it sends at `min_rate`,
    /// or at line rate with fast start.
    pub fn new(params: &RpParams, format: ProbeFormat, line_bps: u64) -> Self {
        Rp {
            format,
            min_rate: params.min_rate.0,
            severe_decrease: params.severe_decrease,
            line_bps,
            rate_bps: if params.fast_start { line_bps } else { params.min_rate.0.min(line_bps) },
            probing: false,
            probes_since_sample: 0,
            stats: RpStats::default(),
        }
    }

    /// The rate the source sends at, bit/s.
    pub fn rate(&self) -> u64 {
        self.rate_bps
    }

    /// Bytes the source may send unseen: all while a probe period runs (a release then
    /// changes nothing), none before the first frame starts probing.
    pub fn quiet_bytes(&self) -> u32 {
        if self.probing {
            u32::MAX
        } else {
            0
        }
    }

    /// The flow sent a frame: the first one sends the first probe at once (the timer
    /// fires now), and every `t` after.
    pub fn on_transmit(&mut self) -> RateChange {
        if self.probing {
            return RateChange::default();
        }
        self.probing = true;
        RateChange { rate_bps: None, arm_timer: Some((0, 0)) }
    }

    /// The probe timer: a probe towards the flow's destination, rate field at line rate.
    pub fn on_timer(&mut self, ctx: &mut Ctx, flow: &FlowView) -> RateChange {
        if flow.dst != NONE {
            let header = Header::Fecn(Probe { rate_kbps: (self.line_bps / 1000) as u32, returning: false });
            let f = &self.format;
            let probe = Frame::message(f.size, f.priority, flow.src, flow.dst, flow.id, ctx.now, header);
            ctx.send(Send::Forward { node: flow.src }, probe);
            self.stats.probes_sent += 1;
        }
        RateChange { rate_bps: None, arm_timer: Some((self.format.period.0, 0)) }
    }

    /// A probe came back: the source takes its rate (within [min_rate, line rate]).
    pub fn on_probe(&mut self, probe: Probe) -> RateChange {
        self.stats.probes_returned += 1;
        self.probes_since_sample += 1;
        let rate = (u64::from(probe.rate_kbps) * 1000).clamp(self.min_rate, self.line_bps);
        self.rate_bps = rate;
        RateChange { rate_bps: Some(rate), arm_timer: None }
    }
}

impl Rp {
    /// FECN-B: a BCN(0,0) from a severely congested port cuts the rate at once.
    pub fn on_severe(&mut self) -> RateChange {
        self.stats.severe += 1;
        self.probes_since_sample += 1;
        let rate = ((self.rate_bps as f64 * self.severe_decrease) as u64).max(self.min_rate);
        self.rate_bps = rate;
        RateChange { rate_bps: Some(rate), arm_timer: None }
    }
}

impl Default for ProbeFormat {
    fn default() -> Self {
        ProbeFormat { size: 64, priority: 7, period: DEFAULT_T }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::PS_PER_MS;

    /// Plain FECN: 10 Mbit/s (min_rate) until the first probe returns; the first frame
    /// sends a probe at once (timer due now), then one every t = 1 ms. With fast start
    /// (FECN-B): line rate, 10 Gbit/s, until then. Either way the first returning probe
    /// sets the rate: 2.5 Gbit/s here.
    #[test]
    fn start_rate_and_first_probe() {
        let mut rp = Rp::new(&RpParams::default(), ProbeFormat::default(), 10_000_000_000);
        assert_eq!(rp.rate(), 10_000_000, "min_rate until a probe returns");
        assert_eq!(rp.on_transmit().arm_timer, Some((0, 0)), "the first probe with the first frame");
        assert_eq!(
            rp.on_probe(Probe { rate_kbps: 2_500_000, returning: true }).rate_bps,
            Some(2_500_000_000)
        );
        let fast = RpParams { fast_start: true, ..RpParams::default() };
        let mut rp = Rp::new(&fast, ProbeFormat::default(), 10_000_000_000);
        assert_eq!(rp.rate(), 10_000_000_000, "fast start: line rate");
        assert_eq!(
            rp.on_probe(Probe { rate_kbps: 2_500_000, returning: true }).rate_bps,
            Some(2_500_000_000)
        );
        // min_rate above a slow line: the line rate.
        let slow = Rp::new(&RpParams::default(), ProbeFormat::default(), 5_000_000);
        assert_eq!(slow.rate(), 5_000_000);
    }

    #[test]
    fn the_first_frame_starts_probing_every_t() {
        let mut rp = Rp::new(&RpParams::default(), ProbeFormat::default(), 10_000_000_000);
        assert_eq!(rp.on_transmit().arm_timer, Some((0, 0)));
        assert_eq!(rp.on_transmit(), RateChange::default(), "armed once");
        let mut timers = crate::engine::Timers::default();
        let mut events = crate::engine::EventQueue::new();
        let mut outbox = crate::protocol::Outbox::default();
        let mut ctx = Ctx { now: 7, timers: &mut timers, events: &mut events, outbox: &mut outbox };
        let flow = FlowView { id: 3, src: 1, dst: 9, timers: 0 };
        assert_eq!(rp.on_timer(&mut ctx, &flow).arm_timer, Some((PS_PER_MS, 0)));
        let (how, probe) = outbox.pop().unwrap();
        assert_eq!(how, Send::Forward { node: 1 });
        assert_eq!((probe.src, probe.dst, probe.flow, probe.size, probe.born), (1, 9, 3, 64, 7));
        assert_eq!(probe.priority, 7, "high priority by default");
        assert_eq!(probe.header, Header::Fecn(Probe { rate_kbps: 10_000_000, returning: false }));
    }

    #[test]
    fn a_returning_probe_sets_the_rate_within_bounds() {
        let mut rp = Rp::new(&RpParams::default(), ProbeFormat::default(), 10_000_000_000);
        let back = |kbps| Probe { rate_kbps: kbps, returning: true };
        assert_eq!(rp.on_probe(back(2_500_000)).rate_bps, Some(2_500_000_000));
        assert_eq!(rp.on_probe(back(1)).rate_bps, Some(10_000_000), "min_rate 10 Mbit/s");
        assert_eq!(rp.stats.probes_returned, 2);
    }
}
