//! Probes from a reaction point to its congestion point, and the rate guidance a
//! congestion point puts in its reply: the "-P" and "-PR" variants of Roeck 2007
//! (QCN-P, QCN-PR, E2CM-P, E2CM-PR), which replace ECM's rate-regulator tags as the way
//! a rate-limited source learns that it may speed up.
//!
//! The seed's rules (slides "QCN-P, E2CM-P Operation" and "QCN-PR, E2CM-PR Operation"):
//! probes are sent for rate-limited flows only, at regular intervals, as high-priority
//! frames, to the most recent CP that asked for a rate decrease; under "-PR" the CP's
//! replies (and E2CM's BCNs) carry a suggested and a maximum rate besides Qoff and
//! Qdelta.
//!
//! Readings (shared/reference/l2-protocols.md §5, §7 found no source; each is a named
//! parameter or stated here):
//! - **Route.** A probe follows the flow's own path (its destination address is the
//!   flow's), carrying the CPID it is for; the CP with that CPID answers when the probe
//!   reaches its queue. The probe then goes on to the destination, which discards it:
//!   64 bytes per probe interval on the links past the CP, ≤ 0.05 % of a 10 Gbit/s link
//!   at the seed's intervals.
//! - **Reply.** The CP's Qoff = Q − Qeq and Qdelta = Q − Qold at the probe, in the CP's
//!   unit (pages of 64 bytes, or frames), without updating Qold (sampling owns it); the
//!   source recombines Fb = −(Qoff + W·Qdelta) as from a BCN.
//! - **Rate guidance** ([`FairShare`]): the seed names `rateTimer`/`rateT` (1 ms) and
//!   `switchRateWeight`, nothing more. The CP measures its data arrival rate A over each
//!   window of `rate_t` and the fair share it implies, m = r·f·C/A, the FECN/ERICA form
//!   (the rate r it advertises times the ratio of target to arrivals; f = Qeq/Q above the
//!   set point drains the queue, 1 below it), then moves r towards m by
//!   `switch_rate_weight` at each arriving data frame (a per-frame weight: 0.002 is a
//!   time constant of 500 frames, 0.6 ms at 10 Gbit/s; per window it would be 500 ms,
//!   longer than the seed's runs). The suggested and the maximum rate are one value:
//!   every rule that reads them reads only the maximum.

use serde::{Deserialize, Serialize};

use crate::engine::{Time, PS_PER_S};
use crate::net::{Frame, Header, NodeId};
use crate::protocol::{Ctx, FlowView, Send};
use crate::units::{Duration, Size};

pub use crate::wire::probing::{Probe, Reply};

impl Reply {
    /// Fb = −(Qoff + W·Qdelta): ≥ 0 when the queue is at or below its set point and not
    /// growing faster than W allows.
    pub fn fb(&self, w: f64) -> f64 {
        -(f64::from(self.qoff) + w * f64::from(self.qdelta))
    }

    /// The guided rate in bit/s, if the CP gave one.
    pub fn rate_bps(&self) -> Option<f64> {
        (self.rate_kbps > 0).then(|| f64::from(self.rate_kbps) * 1000.0)
    }
}

/// A 16-bit field from a queue measure: rounded, saturating.
pub fn field(units: f64) -> i16 {
    units.round().clamp(f64::from(i16::MIN), f64::from(i16::MAX)) as i16
}

/// Probe parameters of a reaction point (`probes` in `[protocols.qcn]` and
/// `[protocols.e2cm]`).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct ProbeParams {
    /// Bytes a rate-limited flow sends between probes (E2CM-P's probeInterval, 100000 in
    /// the first parameter set, 50000 in the second).
    pub(crate) interval: Size,
    /// Probe size on the wire.
    pub(crate) size: Size,
    /// Probe (and reply) priority: high, as the seed asks.
    pub(crate) priority: u8,
}

impl Default for ProbeParams {
    fn default() -> Self {
        ProbeParams { interval: Size::Bytes(100_000), size: Size::Bytes(64), priority: 7 }
    }
}

/// The probing side of a reaction point: counts a rate-limited flow's bytes and sends a
/// probe to the most recent CP every `interval` of them.
#[derive(Clone, Debug)]
pub struct Prober {
    interval: f64,
    size: u32,
    priority: u8,
    /// Bytes left before the next probe.
    left: f64,
    /// The most recent CP that asked for a decrease (0: none).
    pub(crate) target: u32,
    /// Probes sent.
    pub(crate) sent: u64,
    /// Replies received.
    pub replies: u64,
}

impl Prober {
    /// A prober with `params` (sizes already validated as bytes).
    pub fn new(params: &ProbeParams) -> Self {
        let interval = params.interval.value() as f64;
        Prober {
            interval,
            size: params.size.value() as u32,
            priority: params.priority,
            left: interval,
            target: 0,
            sent: 0,
            replies: 0,
        }
    }

    /// CP `cpid` asked for a decrease: probes go to it from now on.
    pub fn heard_from(&mut self, cpid: u32) {
        self.target = cpid;
    }

    /// The flow's rate limiter was released: no probes until the next decrease.
    pub fn stop(&mut self) {
        self.target = 0;
        self.left = self.interval;
    }

    /// A flow with a target sent `bytes`: whether a probe is due (an interval is
    /// complete). A flow without one destination (spread over many) has no path to
    /// probe.
    #[inline]
    pub fn due(&mut self, flow: &FlowView, bytes: u32) -> bool {
        if self.target == 0 || flow.dst == crate::net::NONE {
            return false;
        }
        self.left -= f64::from(bytes);
        if self.left > 0.0 {
            return false;
        }
        self.left += self.interval;
        self.sent += 1;
        true
    }

    /// A probe frame with `header`, from the flow's source to its destination.
    pub fn frame(&self, ctx: &Ctx, flow: &FlowView, header: Header) -> Frame {
        Frame::message(self.size, self.priority, flow.src, flow.dst, flow.id, ctx.now, header)
    }

    /// A rate-limited flow sent `bytes`: a probe to the target CP when an interval is
    /// complete.
    #[inline]
    pub fn on_transmit(&mut self, ctx: &mut Ctx, flow: &FlowView, bytes: u32) {
        if !self.due(flow, bytes) {
            return;
        }
        let probe = self.frame(ctx, flow, Header::Probe(Probe { cpid: self.target }));
        ctx.send(Send::Forward { node: flow.src }, probe);
    }
}

/// Rate-guidance parameters of a congestion point ("-PR").
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct GuidanceParams {
    /// The window over which the arrival rate is measured (rateTimer, rateT).
    pub(crate) rate_t: Duration,
    /// Weight of each arriving data frame's step towards the measured fair share
    /// (switchRateWeight: 0.02 for E2CM-PR, 0.002 for QCN-PR).
    pub(crate) switch_rate_weight: f64,
}

impl Default for GuidanceParams {
    fn default() -> Self {
        GuidanceParams { rate_t: Duration(crate::engine::PS_PER_MS), switch_rate_weight: 0.02 }
    }
}

/// A congestion point's fair-share estimate (see the module's "Rate guidance").
#[derive(Clone, Debug)]
pub struct FairShare {
    capacity_bps: f64,
    window: Time,
    weight: f64,
    /// The advertised rate r, bit/s (starts at the capacity).
    pub(crate) rate_bps: f64,
    /// The latest measured fair share m.
    pub(crate) target_bps: f64,
    bytes: u64,
    window_start: Time,
}

impl FairShare {
    /// An estimate for a port of `capacity_bps`.
    pub fn new(params: &GuidanceParams, capacity_bps: u64) -> Self {
        FairShare {
            capacity_bps: capacity_bps as f64,
            window: params.rate_t.0,
            weight: params.switch_rate_weight,
            rate_bps: capacity_bps as f64,
            target_bps: capacity_bps as f64,
            bytes: 0,
            window_start: 0,
        }
    }

    /// A data frame of `size` bytes arrived at `now`, with `q` the queue over its set
    /// point `qeq` (same unit): closes the window if it is over, then takes one step.
    #[inline]
    pub fn on_data(&mut self, now: Time, size: u32, q: f64, qeq: f64) {
        if now >= self.window_start + self.window {
            let secs = (now - self.window_start) as f64 / PS_PER_S as f64;
            let arrivals_bps = self.bytes as f64 * 8.0 / secs;
            let f = if q > qeq { qeq / q } else { 1.0 };
            let m = if arrivals_bps > 0.0 {
                self.rate_bps * f * self.capacity_bps / arrivals_bps
            } else {
                self.capacity_bps
            };
            self.target_bps = m.clamp(1.0, self.capacity_bps);
            self.bytes = 0;
            self.window_start = now;
        }
        self.bytes += u64::from(size);
        self.rate_bps += self.weight * (self.target_bps - self.rate_bps);
    }

    /// The rate to put in a reply, kbit/s.
    pub fn rate_kbps(&self) -> u32 {
        (self.rate_bps / 1000.0) as u32
    }
}

/// Congestion point `cpid` at node `node` answers `probe`: a reply of the probe's size
/// and priority with the CP's Qoff and Qdelta and, under "-PR", its fair rate goes back
/// to the probe's source; the probe, marked answered, goes on to its destination.
pub fn answer(
    ctx: &mut Ctx,
    node: NodeId,
    probe: &mut Frame,
    cpid: u32,
    (qoff, qdelta): (i16, i16),
    guidance: Option<&FairShare>,
) {
    let rate_kbps = guidance.map_or(0, |g| g.rate_kbps());
    let reply = Reply { cpid, qoff, qdelta, rate_kbps };
    ctx.send_to_source(node, probe, probe.size, probe.priority, Header::ProbeReply(reply));
    probe.header = Header::Probe(Probe { cpid: 0 });
}

impl ProbeParams {
    /// Checks the values; errors name the key under `prefix`.
    pub fn check(&self, prefix: &str) -> Result<(), (String, String)> {
        if !matches!(self.interval, Size::Bytes(b) if b > 0) {
            return Err((
                format!("{prefix}.interval"),
                format!(
                    "\"{}\" is not a probe interval; expected a positive size in bytes, e.g. \"100000B\"",
                    self.interval
                ),
            ));
        }
        if !matches!(self.size, Size::Bytes(b) if (64..=9216).contains(&b)) {
            return Err((
                format!("{prefix}.size"),
                format!("\"{}\" is not a probe size; expected 64 to 9216 bytes, e.g. \"64B\"", self.size),
            ));
        }
        if self.priority > 7 {
            return Err((
                format!("{prefix}.priority"),
                format!("{} is not a priority; expected 0 to 7", self.priority),
            ));
        }
        Ok(())
    }
}

impl GuidanceParams {
    /// Checks the values; errors name the key under `prefix`.
    pub fn check(&self, prefix: &str) -> Result<(), (String, String)> {
        if self.rate_t.0 == 0 {
            return Err((
                format!("{prefix}.rate_t"),
                "\"0s\" is not a measurement window; expected a positive time, e.g. \"1ms\"".into(),
            ));
        }
        if !(self.switch_rate_weight > 0.0 && self.switch_rate_weight <= 1.0) {
            return Err((
                format!("{prefix}.switch_rate_weight"),
                format!(
                    "{:?} is not a weight; expected a number in (0, 1], e.g. 0.02",
                    self.switch_rate_weight
                ),
            ));
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::PS_PER_MS;

    fn with_ctx(f: impl FnOnce(&mut Ctx)) -> crate::protocol::Outbox {
        let mut timers = crate::engine::Timers::default();
        let mut events = crate::engine::EventQueue::new();
        let mut outbox = crate::protocol::Outbox::default();
        let mut ctx = Ctx { now: 5, timers: &mut timers, events: &mut events, outbox: &mut outbox };
        f(&mut ctx);
        outbox
    }

    #[test]
    fn probes_only_rate_limited_flows_every_interval_bytes_to_the_latest_cp() {
        let mut p = Prober::new(&ProbeParams::default());
        let flow = FlowView { id: 2, src: 1, dst: 9, timers: 0 };
        let mut out = with_ctx(|ctx| {
            for _ in 0..200 {
                p.on_transmit(ctx, &flow, 1500);
            }
        });
        assert!(out.is_empty(), "not rate limited: no probes");
        p.heard_from(4);
        out = with_ctx(|ctx| {
            // 100000 B: the 67th 1500-byte frame completes the first interval.
            for _ in 0..66 {
                p.on_transmit(ctx, &flow, 1500);
            }
            assert_eq!(p.sent, 0);
            p.on_transmit(ctx, &flow, 1500);
            assert_eq!(p.sent, 1);
            p.heard_from(6);
            // 500 B carried over: the next after 99500 more bytes, i.e. 67 frames again.
            for _ in 0..67 {
                p.on_transmit(ctx, &flow, 1500);
            }
        });
        let (how, first) = out.pop().unwrap();
        assert_eq!(how, Send::Forward { node: 1 });
        assert_eq!((first.src, first.dst, first.flow, first.size, first.priority), (1, 9, 2, 64, 7));
        assert_eq!(first.header, Header::Probe(Probe { cpid: 4 }));
        assert_eq!(out.pop().unwrap().1.header, Header::Probe(Probe { cpid: 6 }));
        p.stop();
        assert_eq!(p.target, 0);
    }

    /// r = 10 Gbit/s, 12.5 Gbit/s arriving for a window, queue at 2·Qeq:
    /// m = 10 · 0.5 · 10/12.5 = 4 Gbit/s; each frame then moves r by 2 % of the gap.
    #[test]
    fn fair_share_hand_example() {
        let params = GuidanceParams { rate_t: Duration(PS_PER_MS), switch_rate_weight: 0.02 };
        let mut fs = FairShare::new(&params, 10_000_000_000);
        // 12.5 Gbit/s over 1 ms = 1 562 500 bytes, in the first window; no step moves r
        // while m = C.
        fs.on_data(0, 1_562_500, 0.0, 1.0);
        assert_eq!(fs.rate_bps, 1e10);
        fs.on_data(PS_PER_MS, 1500, 2.0, 1.0);
        assert!((fs.target_bps - 4e9).abs() < 1.0, "{}", fs.target_bps);
        assert!((fs.rate_bps - (1e10 - 0.02 * 6e9)).abs() < 1.0, "{}", fs.rate_bps);
        fs.on_data(PS_PER_MS + 1, 1500, 2.0, 1.0);
        assert!((fs.rate_bps - (9.88e9 - 0.02 * 5.88e9)).abs() < 1.0);
        assert_eq!(fs.rate_kbps(), (fs.rate_bps / 1000.0) as u32);
    }

    #[test]
    fn reply_feedback_and_rate() {
        let r = Reply { cpid: 1, qoff: -100, qdelta: 20, rate_kbps: 2_500_000 };
        assert_eq!(r.fb(2.0), 60.0);
        assert_eq!(r.rate_bps(), Some(2.5e9));
        assert_eq!(Reply { rate_kbps: 0, ..r }.rate_bps(), None);
        assert_eq!(field(40_000.4), i16::MAX);
        assert_eq!(field(-3.6), -4);
    }
}
