//! FECN, Forward Explicit Congestion Notification (Jain, Jiang, So-In, 2007), with probes
//! rather than tags, as Roeck 2007 simulated it.
//!
//! - Each source sends a rate-discovery probe towards its destination with its first
//!   frame and every `t` after, its rate field set to the source's line rate; every
//!   congestion point on the way lowers the field to its advertised rate; the destination
//!   returns the probe, and the source sets its rate to the field ([`rp`]). Probes (and
//!   FECN-B's BCN(0,0)) travel at a high priority in a class above the data's
//!   (`probe_class = "high"`: Roeck 2007 sends its probes "as high priority frames"), or
//!   in the data's class (`"data"`: Jain's rate-discovery tag rides in data frames).
//! - Each switch port advertises a rate recomputed every `t` from the arrival rate A and
//!   the queue q (reference §6.1):
//!
//! ```text
//! N_eff  = max(A / r_old, 1)
//! r_calc = f(q) · C / N_eff
//! r_new  = (1 − α)·r_old + α·r_calc,  at most r_old + C/N0,  within [minRate, C]
//! f(q)   = B·Qeq / ((B − 1)·q + Qeq)              q ≤ Qeq   (f(0) = B, f(Qeq) = 1)
//!        = max(C_f, A_f·Qeq / ((A_f − 1)·q + Qeq)) q > Qeq   (floor C_f)
//! ```
//!
//! FECN-B (Roeck 2007: "modifications as proposed in Geneva (BCN-00, fast start)";
//! E-FECN in reference §6.1) adds [`Severe`]: while a port's queue is at or above Qsc
//! (960000 bits = 120000 bytes), it sends a BCN(0,0) back to the source of an arriving
//! data frame, once per `sampling_interval` bytes of arrivals (our reading: ECM's
//! sampling, the seed names no rate limit); the source cuts its rate by
//! `source.severe_decrease` (½, what ECM's BCN(0,0) does with Roeck's Gd) at once, without waiting
//! for the next probe. FECN-B's fast start (`source.fast_start`) starts a source at its
//! line rate; plain FECN's source waits its first probe's round trip at `min_rate` (the
//! reference §6.1 contrasts fast start with waiting "a full round trip at a low rate").
//!
//! Reference: shared/reference/l2-protocols.md §6 (the formulas reconstructed; the
//! parameter values are Roeck 2007's).

pub mod config;
pub mod rp;

pub use config::FecnConfig;
pub use rp::{Rp, RpParams};

use serde::{Deserialize, Serialize};

use crate::engine::{Time, PS_PER_MS, PS_PER_S};
use crate::net::{Frame, Header};
use crate::protocol::{Ctx, PortView};
use crate::units::{Duration, Rate, Size};

pub use crate::wire::fecn::Probe;

/// The switch side's parameters (`[protocols.fecn.switch]`), Roeck 2007's values.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct SwitchParams {
    /// Limited increase: at most C/N0 more per interval.
    pub(crate) n0: f64,
    /// Overload curvature A of f(q).
    pub(crate) a: f64,
    /// Underload curvature B of f(q) (f(0) = B).
    pub(crate) b: f64,
    /// Floor C of f(q).
    pub(crate) c: f64,
    /// Smoothing weight α of the new rate.
    pub(crate) alpha: f64,
    /// Lowest advertised rate.
    pub(crate) min_rate: Rate,
    /// Equilibrium queue (192000 bits).
    pub(crate) qeq: Size,
}

impl Default for SwitchParams {
    fn default() -> Self {
        SwitchParams {
            n0: 10.0,
            a: 1.1,
            b: 1.002,
            c: 0.1,
            alpha: 0.5,
            min_rate: Rate(10_000_000),
            qeq: Size::Bytes(24_000),
        }
    }
}

/// FECN-B's severe-congestion notification (`[protocols.fecn.severe]`).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct Severe {
    /// The severe-congestion threshold Qsc (960000 bits).
    pub(crate) qsc: Size,
    /// Bytes of arriving data between checks of the queue against Qsc.
    pub(crate) sampling_interval: Size,
    /// BCN size on the wire.
    pub(crate) bcn_size: Size,
}

impl Default for Severe {
    fn default() -> Self {
        Severe {
            qsc: Size::Bytes(120_000),
            sampling_interval: Size::Bytes(150_000),
            bcn_size: Size::Bytes(64),
        }
    }
}

/// A port's FECN-B state: bytes until the next check.
#[derive(Clone, Debug)]
pub struct SevereState {
    qsc: u64,
    interval: u64,
    size: u32,
    /// BCN priority; `None`: the sampled frame's own.
    priority: Option<u8>,
    left: i64,
    /// BCN(0,0) sent.
    pub(crate) sent: u64,
}

impl SevereState {
    /// The state for `severe`, its BCNs at `priority` (`None`: at the priority of the
    /// frame that triggers them).
    pub fn new(severe: &Severe, priority: Option<u8>) -> Self {
        let interval = severe.sampling_interval.value();
        SevereState {
            qsc: severe.qsc.value(),
            interval,
            size: severe.bcn_size.value() as u32,
            priority,
            left: interval as i64,
            sent: 0,
        }
    }
}

/// The queue-control function f(q), q and Qeq in bytes.
pub fn queue_control(q: f64, qeq: f64, p: &SwitchParams) -> f64 {
    if q <= qeq {
        p.b * qeq / ((p.b - 1.0) * q + qeq)
    } else {
        (p.a * qeq / ((p.a - 1.0) * q + qeq)).max(p.c)
    }
}

/// The advertised rate of one switch port.
#[derive(Clone, Debug)]
pub struct Switch {
    params: SwitchParams,
    qeq: f64,
    capacity_bps: f64,
    interval: Time,
    /// The advertised rate, bit/s.
    pub(crate) rate_bps: f64,
    bytes: u64,
    last_update: Time,
    /// Updates made.
    pub(crate) updates: u64,
}

impl Switch {
    /// A port of `capacity_bps` recomputing its rate every `interval`; it advertises its
    /// capacity until the first update.
    pub fn new(params: &SwitchParams, capacity_bps: u64, interval: Duration) -> Self {
        Switch {
            qeq: params.qeq.value() as f64,
            params: params.clone(),
            capacity_bps: capacity_bps as f64,
            interval: interval.0,
            rate_bps: capacity_bps as f64,
            bytes: 0,
            last_update: 0,
            updates: 0,
        }
    }

    /// Data bytes arrived (queued or dropped).
    #[inline]
    pub fn count(&mut self, bytes: u32) {
        self.bytes += u64::from(bytes);
    }

    /// Recomputes the rate at `now` if an interval has passed, with the queue at
    /// `q_bytes` (time-based sampling, evaluated at the first arrival after the interval
    /// ends).
    #[inline]
    pub fn maybe_update(&mut self, now: Time, q_bytes: u64) {
        if now >= self.last_update + self.interval {
            self.update(now, q_bytes);
        }
    }

    fn update(&mut self, now: Time, q_bytes: u64) {
        let secs = (now - self.last_update) as f64 / PS_PER_S as f64;
        let arrival_bps = self.bytes as f64 * 8.0 / secs;
        let c = self.capacity_bps;
        let n_eff = (arrival_bps / self.rate_bps).max(1.0);
        let calc = queue_control(q_bytes as f64, self.qeq, &self.params) * c / n_eff;
        let smoothed = (1.0 - self.params.alpha) * self.rate_bps + self.params.alpha * calc;
        let limited = smoothed.min(self.rate_bps + c / self.params.n0);
        self.rate_bps = limited.clamp(self.params.min_rate.0 as f64, c);
        self.bytes = 0;
        self.last_update = now;
        self.updates += 1;
    }
}

/// A FECN switch port plugged into the congestion-point seam.
#[derive(Clone, Debug)]
pub struct CongestionPoint {
    /// Its rate computation.
    pub(crate) switch: Switch,
    /// FECN-B's BCN(0,0), if on.
    pub(crate) severe: Option<SevereState>,
}

impl CongestionPoint {
    /// A frame was offered to the port: data counts towards the arrival rate; a probe on
    /// its way to the destination takes the smaller of its rate and this port's.
    #[inline]
    pub fn on_arrival(&mut self, ctx: &mut Ctx, queue: &PortView, frame: &mut Frame) {
        match &mut frame.header {
            Header::Data(_) | Header::TcpSegment(_) | Header::RdmaData(_) => {
                self.switch.maybe_update(ctx.now, queue.bytes());
                self.switch.count(frame.size);
                if let Some(s) = &mut self.severe {
                    s.left -= i64::from(frame.size);
                    if s.left <= 0 {
                        s.left += s.interval as i64;
                        if queue.bytes() >= s.qsc {
                            s.sent += 1;
                            let bcn = crate::l2::ecm::Bcn {
                                qoff: 0,
                                qdelta: 0,
                                cpid: queue.port + 1,
                                severe: true,
                            };
                            let priority = s.priority.unwrap_or(frame.priority);
                            ctx.send_to_source(queue.node, frame, s.size, priority, Header::Bcn(bcn));
                        }
                    }
                }
            }
            Header::Fecn(probe) if !probe.returning => {
                self.switch.maybe_update(ctx.now, queue.bytes());
                let kbps = (self.switch.rate_bps / 1000.0) as u32;
                probe.rate_kbps = probe.rate_kbps.min(kbps);
            }
            _ => {}
        }
    }
}

/// The default probe and measurement period.
pub const DEFAULT_T: Duration = Duration(PS_PER_MS);

#[cfg(test)]
mod tests {
    use super::*;
    use crate::net::Frame;
    use crate::protocol::{reflect_probe, Send};

    #[test]
    fn queue_control_hand_values() {
        let p = SwitchParams::default();
        assert!((queue_control(0.0, 24000.0, &p) - 1.002).abs() < 1e-12, "f(0) = B");
        assert!((queue_control(24000.0, 24000.0, &p) - 1.0).abs() < 1e-12, "f(Qeq) = 1");
        // f(5·Qeq) = 1.1/1.5.
        assert!((queue_control(120000.0, 24000.0, &p) - 1.1 / 1.5).abs() < 1e-12);
        // Far above, the floor 0.1.
        assert_eq!(queue_control(1e9, 24000.0, &p), 0.1);
    }

    /// Reference §6.1's worked example: C = 10 Gbit/s, q = 48 KB, A = 12 Gbit/s over the
    /// interval, r_old = 3 Gbit/s → N_eff = 4, f = 1.1·24/(0.1·48 + 24) = 0.9167,
    /// r_calc = 2.29 Gbit/s, r_new = (3 + 2.29)/2 = 2.65 Gbit/s.
    #[test]
    fn rate_update_worked_example() {
        let mut s = Switch::new(&SwitchParams::default(), 10_000_000_000, DEFAULT_T);
        s.rate_bps = 3e9;
        // 12 Gbit/s for 1 ms = 1.5 MB.
        s.count(1_500_000);
        s.maybe_update(PS_PER_MS, 48_000);
        let f = 1.1 * 24.0 / (0.1 * 48.0 + 24.0);
        let want = 0.5 * 3e9 + 0.5 * f * 10e9 / 4.0;
        assert!((s.rate_bps - want).abs() < 1.0, "{} vs {want}", s.rate_bps);
        assert!((s.rate_bps / 1e9 - 2.65).abs() < 0.01);
    }

    /// An idle port's rate rises by at most C/N0 = 1 Gbit/s per interval, never above C;
    /// no update before the interval ends.
    #[test]
    fn limited_increase_and_interval() {
        let mut s = Switch::new(&SwitchParams::default(), 10_000_000_000, DEFAULT_T);
        s.rate_bps = 1e9;
        s.maybe_update(PS_PER_MS - 1, 0);
        assert_eq!((s.rate_bps, s.updates), (1e9, 0));
        s.maybe_update(PS_PER_MS, 0);
        assert_eq!(s.rate_bps, 2e9, "r_calc = 1.002·C, but +C/N0 at most");
        for k in 2..20 {
            s.maybe_update(k * PS_PER_MS, 0);
        }
        assert_eq!(s.rate_bps, 10e9);
    }

    #[test]
    fn probes_take_the_smallest_rate_and_come_back() {
        let mut frame = Frame {
            src: 1,
            dst: 9,
            header: Header::Fecn(Probe { rate_kbps: 10_000_000, returning: false }),
            ..Frame::default()
        };
        let mut s = Switch::new(&SwitchParams::default(), 10_000_000_000, DEFAULT_T);
        s.rate_bps = 2.5e9;
        let mut cp = CongestionPoint { switch: s, severe: None };
        let mut timers = crate::engine::Timers::default();
        let mut events = crate::engine::EventQueue::new();
        let mut outbox = crate::protocol::Outbox::default();
        let mut ctx = Ctx { now: 0, timers: &mut timers, events: &mut events, outbox: &mut outbox };
        let classes = crate::net::Classes::new(1, crate::net::Capacity::Frames(10));
        let view = PortView { port: 0, node: 5, classes: &classes, class: 0, serializing: false };
        cp.on_arrival(&mut ctx, &view, &mut frame);
        assert_eq!(frame.header, Header::Fecn(Probe { rate_kbps: 2_500_000, returning: false }));
        assert!(reflect_probe(&mut ctx, 9, &frame), "reflected at the destination");
        let (how, back) = outbox.pop().unwrap();
        assert_eq!(how, Send::Forward { node: 9 });
        assert_eq!((back.src, back.dst), (9, 1));
        assert_eq!(back.header, Header::Fecn(Probe { rate_kbps: 2_500_000, returning: true }));
        // On the way back switches leave it alone, and at the source it is feedback.
        let mut back_again = back;
        cp.switch.rate_bps = 1e9;
        let mut ctx = Ctx { now: 0, timers: &mut timers, events: &mut events, outbox: &mut outbox };
        cp.on_arrival(&mut ctx, &view, &mut back_again);
        assert_eq!(back_again.header, back.header);
        assert!(!reflect_probe(&mut ctx, 1, &back));
    }

    /// FECN-B: with the queue at or above Qsc, the check every sampling interval of
    /// arrivals sends BCN(0,0) to the arriving frame's source; below Qsc, nothing.
    #[test]
    fn severe_congestion_sends_bcn_0_0_once_per_interval() {
        let severe =
            Severe { qsc: Size::Bytes(3000), sampling_interval: Size::Bytes(3000), ..Severe::default() };
        let s = Switch::new(&SwitchParams::default(), 10_000_000_000, DEFAULT_T);
        let mut cp = CongestionPoint { switch: s, severe: Some(SevereState::new(&severe, Some(7))) };
        let mut timers = crate::engine::Timers::default();
        let mut events = crate::engine::EventQueue::new();
        let mut outbox = crate::protocol::Outbox::default();
        let mut classes = crate::net::Classes::new(1, crate::net::Capacity::Frames(10));
        let mut data = Frame { src: 2, dst: 9, flow: 4, size: 1500, ..Frame::default() };
        {
            let view = PortView { port: 6, node: 5, classes: &classes, class: 0, serializing: false };
            let mut ctx = Ctx { now: 0, timers: &mut timers, events: &mut events, outbox: &mut outbox };
            for _ in 0..4 {
                cp.on_arrival(&mut ctx, &view, &mut data);
            }
        }
        assert!(outbox.is_empty(), "queue empty: below Qsc");
        for id in 0..2 {
            classes.push(0, 0, id, 1500);
        }
        let view = PortView { port: 6, node: 5, classes: &classes, class: 0, serializing: false };
        let mut ctx = Ctx { now: 0, timers: &mut timers, events: &mut events, outbox: &mut outbox };
        for _ in 0..4 {
            cp.on_arrival(&mut ctx, &view, &mut data);
        }
        assert_eq!(cp.severe.as_ref().unwrap().sent, 2, "4 × 1500 B = two 3000-byte intervals");
        let (_, bcn) = outbox.pop().unwrap();
        assert_eq!((bcn.src, bcn.dst, bcn.flow, bcn.priority), (5, 2, 4, 7), "at the probes' priority");
        assert_eq!(
            bcn.header,
            Header::Bcn(crate::l2::ecm::Bcn { qoff: 0, qdelta: 0, cpid: 7, severe: true })
        );
    }

    /// The source halves its rate on a BCN(0,0), down to min_rate.
    #[test]
    fn a_source_halves_on_bcn_0_0() {
        let fast = RpParams { fast_start: true, ..RpParams::default() };
        let mut rp = Rp::new(&fast, rp::ProbeFormat::default(), 10_000_000_000);
        assert_eq!(rp.on_severe().rate_bps, Some(5_000_000_000));
        for _ in 0..20 {
            rp.on_severe();
        }
        assert_eq!(rp.rate(), 10_000_000);
    }
}
