//! Traffic sources at hosts and the per-flow shaper.
//!
//! A flow is one source at one host with one destination rule (a host, a multicast
//! group, or a uniformly random other host per frame). Its [`Pattern`] decides when
//! frames are produced. Frames go from the source, through the flow's optional
//! [`Shaper`] (whose rate a reaction point sets), to the host's egress
//! port.

use crate::engine::time::periodic_instant;
use crate::engine::{RngStream, Time, PS_PER_S};
use crate::net::{NodeId, TreeId};

pub mod shaper;
pub mod workload;
pub use shaper::{Shaper, ShaperState};

/// When a source produces frames.
#[derive(Clone, Debug, PartialEq)]
pub enum Pattern {
    /// Constant bit rate: the k-th frame at `start + k·size·8/rate`, plus, with
    /// `jitter` > 0, a uniformly random delay of up to `jitter` frame gaps (never before
    /// the previous frame).
    Cbr {
        /// Rate in bit/s.
        rate_bps: u64,
        /// Largest delay after the nominal instant, in frame gaps (0 to 1).
        jitter: f64,
    },
    /// Alternating on and off periods; CBR at `rate_bps` while on. The sending phase
    /// carries over from one on-period to the next: the k-th frame leaves when the source
    /// has been on for k·size·8/rate in all, so the long-run offered load is
    /// rate × on/(on + off) for any period length, shorter or longer than a frame time.
    OnOff {
        /// Rate while on, bit/s.
        rate_bps: u64,
        /// On-period length (mean if exponential).
        on: Time,
        /// Off-period length (mean if exponential).
        off: Time,
        /// Draw period lengths from an exponential distribution instead of fixed.
        exponential: bool,
    },
    /// Poisson arrivals: exponential gaps with mean `size·8/rate`.
    Poisson {
        /// Mean rate, bit/s.
        rate_bps: u64,
    },
    /// Always has a frame ready: sends as fast as its shaper (or link) allows.
    Saturated,
    /// A TCP connection: its sender decides when segments leave ([`crate::l4::tcp`]).
    Tcp,
}

/// Where a flow's frames go.
#[derive(Clone, Debug, PartialEq)]
pub enum Destination {
    /// One host.
    Host(NodeId),
    /// A multicast group, through the source's tree.
    Tree {
        /// The tree from this source to the group.
        tree: TreeId,
        /// Group index (into the scenario's groups).
        group: u32,
    },
    /// Each frame to a uniformly random other host among those the source reaches.
    Uniform {
        /// The hosts the source reaches, itself included, in node order; shared by every
        /// source that reaches the same hosts.
        among: std::sync::Arc<[NodeId]>,
        /// The source's own position in `among` (never drawn).
        own: u32,
    },
}

/// Per-flow counters. `repr(C)`, 128 bytes: the emission's counters and the delivery's
/// share the first cache line, the delays fill the second.
#[derive(Clone, Debug, Default, serde::Serialize)]
#[repr(C)]
pub struct FlowStats {
    /// Frames produced by the source (offered load). TCP: segments the sender put out,
    /// the SYN and retransmissions included.
    pub offered_frames: u64,
    /// Bytes produced by the source.
    pub(crate) offered_bytes: u64,
    /// Frames lost at the source because the shaper queue was full.
    pub source_dropped_frames: u64,
    /// Frames handed to the host's egress port. TCP: segments, the SYN and
    /// retransmissions included (ACKs go the other way and are counted in the flow's
    /// `tcp` record).
    pub sent_frames: u64,
    /// Bytes handed to the host's egress port.
    pub sent_bytes: u64,
    /// Frames (multicast: copies) delivered to a destination host. TCP: data segments
    /// delivered in order to the receiving application, each once (not the SYN, not
    /// duplicates). RDMA: packets delivered in order, each once.
    pub delivered_frames: u64,
    /// Bytes delivered. TCP and RDMA: application (message) bytes delivered in order.
    pub delivered_bytes: u64,
    /// Frames (or copies) dropped in the network. TCP: segments.
    pub dropped_frames: u64,
    /// Sum of one-way delays of delivered frames, ps.
    #[serde(skip)]
    pub delay_sum: u128,
    /// Distribution of the one-way delays of delivered frames.
    #[serde(skip)]
    pub(crate) delay: crate::metrics::delay::DelayStats,
}

/// A traffic source and its counters. The fields a frame's emission and release read
/// (for a shaped flow, its reaction point's too) come first and fill the first two cache
/// lines, the counters fill the next two (`repr(C)` keeps them so, and each flow starts a
/// cache line); what only on/off sources read, and names, last. A CBR frame's life
/// touches four lines of its flow.
#[derive(Clone, Debug)]
#[repr(C, align(64))]
pub struct Flow {
    /// Emission pattern.
    pub pattern: Pattern,
    /// No frame is produced at or after this time.
    pub stop: Time,
    /// Start of the CBR run (for on/off: of the current on-period), and frames emitted
    /// since the flow started.
    run_start: Time,
    run_count: u64,
    /// Rate of the source host's link, bit/s (QCN's line rate C).
    pub line_bps: u64,
    /// Source host.
    pub src: NodeId,
    /// The reaction point's timer (set by the simulator), or `NONE`.
    pub(crate) rp_timer: crate::engine::TimerId,
    /// Destination rule.
    pub dst: Destination,
    /// Frame size on the wire, bytes.
    pub frame_size: u32,
    /// Frame priority.
    pub(crate) priority: u8,
    /// ECN codepoint of the flow's data frames (ECT(0) for an ECN-capable transport).
    pub(crate) ecn: crate::net::Ecn,
    /// Whether the reaction point writes something into the flow's data frames (so the
    /// source asks it for every frame, and only then).
    pub(crate) rp_stamps: bool,
    /// Whether the source's frames may be made late, at its shaper's releases, while the
    /// shaper holds a backlog (set by the simulator; see [`Flow::deferred`]).
    pub(crate) defers: bool,
    /// Reaction point driving the shaper (index into the simulator's reaction points),
    /// or `NONE`.
    pub rp: u32,
    /// Bytes the flow may still release without telling its reaction point (see
    /// `AnyReactionPoint::grant_quiet`).
    pub(crate) rp_quiet_left: u32,
    /// TCP connection of a `Pattern::Tcp` flow (index into the simulator's TCP
    /// connections), or `NONE`.
    pub(crate) tcp: u32,
    /// RDMA queue pair of the flow (index into the simulator's queue pairs), or `NONE`.
    pub(crate) qp: u32,
    /// Optional shaper (rate limiter) at the host's egress, boxed: most flows have none.
    pub shaper: Option<Box<Shaper>>,
    /// Counters.
    pub stats: FlowStats,
    /// While the shaper of a deferring source holds a backlog, the source has no event
    /// of its own: its next emission waits here, and the frames due are made, with the
    /// times they were due, at the shaper's next release, in order (a CBR source without
    /// jitter draws nothing from its random stream but destinations, so the frames are
    /// those one event per frame would make). A frame due at the very instant of a
    /// release is made just after it, as one event per frame mostly orders them (the
    /// source's event was scheduled a source period before, the release a longer shaper
    /// gap before). When the backlog clears, the next emission is scheduled again. Queries
    /// see every frame due before the time a run reached.
    pub(crate) deferred: Option<Time>,
    /// The event lane of the source's emissions, or `NONE`.
    pub(crate) emission_lane: u32,
    /// The host port a saturated source's frames leave by, whose room back-pressures
    /// the source (set by the simulator), or `NONE`.
    pub(crate) egress: u32,
    /// A flow of a workload (`kind = "flows"`): finite, one of many, reported by its
    /// completion time rather than among the summary's flows. It sits in the padding
    /// before `rng`: at the end it would add a cache line to every flow.
    pub(crate) workload: bool,
    /// The flow's own random stream.
    pub(crate) rng: RngStream,
    /// Frames the shaper queue holds (the source-side buffer).
    pub(crate) source_queue: usize,
    /// First emission time.
    pub start: Time,
    /// End of the current on-period (on/off only).
    on_until: Time,
    /// Time spent on before the current on-period (on/off only).
    on_before: Time,
    /// Stable name, e.g. "cbr/s12".
    pub name: String,
    /// The destination as the scenario names it (host, group or "uniform"), shared by
    /// the flows of one traffic entry; none for a workload's flows, which the summary
    /// does not list.
    pub dst_name: Option<std::sync::Arc<str>>,
}

impl Flow {
    /// A flow that has not started.
    #[allow(clippy::too_many_arguments)]
    pub fn new(
        name: String,
        src: NodeId,
        dst: Destination,
        frame_size: u32,
        priority: u8,
        pattern: Pattern,
        start: Time,
        stop: Time,
        rng: RngStream,
    ) -> Self {
        Self {
            name,
            src,
            dst,
            frame_size,
            priority,
            ecn: crate::net::Ecn::NotEct,
            pattern,
            start,
            stop,
            rng,
            shaper: None,
            rp: crate::net::NONE,
            rp_quiet_left: 0,
            rp_timer: crate::net::NONE,
            rp_stamps: false,
            defers: false,
            deferred: None,
            emission_lane: crate::net::NONE,
            egress: crate::net::NONE,
            tcp: crate::net::NONE,
            qp: crate::net::NONE,
            source_queue: 100,
            dst_name: None,
            workload: false,
            line_bps: 0,
            stats: FlowStats::default(),
            run_start: start,
            run_count: 0,
            on_until: 0,
            on_before: 0,
        }
    }

    /// Whether the flow's reaction point is drawn as a series (`rp_rate`, `rp_cnms`): it
    /// has one and is not a workload flow (too many and too short-lived to draw).
    pub fn rp_recorded(&self) -> bool {
        self.rp != crate::net::NONE && !self.workload
    }

    /// Draws a period length: fixed, or exponential with that mean.
    fn period(&mut self, mean: Time, exponential: bool) -> Time {
        if exponential {
            self.rng.exponential(mean as f64).round() as Time
        } else {
            mean
        }
    }

    /// Time of the first emission, or `None` if the flow never emits (saturated flows are
    /// driven by their shaper instead). Draws the first on-period of an on/off source.
    pub fn first_emission(&mut self) -> Option<Time> {
        match self.pattern.clone() {
            Pattern::Saturated | Pattern::Tcp => None,
            Pattern::OnOff { on, exponential, .. } => {
                self.run_start = self.start;
                self.on_before = 0;
                self.on_until = self.start.saturating_add(self.period(on, exponential));
                (self.start < self.stop).then_some(self.start)
            }
            _ => (self.start < self.stop).then_some(self.start),
        }
    }

    /// Having emitted at `now`, the time of the next emission (or `None` past `stop`).
    pub fn next_emission(&mut self, now: Time) -> Option<Time> {
        let size = self.frame_size;
        let next = match self.pattern.clone() {
            Pattern::Cbr { rate_bps, jitter } => {
                self.run_count += 1;
                let nominal = periodic_instant(self.run_start, self.run_count, size, rate_bps);
                if jitter > 0.0 {
                    let gap = size as f64 * 8.0 * PS_PER_S as f64 / rate_bps as f64;
                    (nominal + (self.rng.uniform() * jitter * gap) as Time).max(now)
                } else {
                    nominal
                }
            }
            Pattern::OnOff { rate_bps, on, off, exponential } => {
                self.run_count += 1;
                // The on-time at which this frame is due.
                let due = periodic_instant(0, self.run_count, size, rate_bps);
                if exponential {
                    self.on_off_random(due, on, off)?
                } else {
                    // Fixed periods: the frame falls in on-period due / on, at due % on.
                    let t = u128::from(self.start)
                        + u128::from(due / on) * (u128::from(on) + u128::from(off))
                        + u128::from(due % on);
                    Time::try_from(t).unwrap_or(Time::MAX)
                }
            }
            Pattern::Poisson { rate_bps } => {
                let mean = size as f64 * 8.0 * PS_PER_S as f64 / rate_bps as f64;
                // At least 1 ps so that time always advances.
                now + (self.rng.exponential(mean).round() as Time).max(1)
            }
            Pattern::Saturated | Pattern::Tcp => return None,
        };
        (next < self.stop).then_some(next)
    }

    /// The real time at which an on/off source with random periods has been on for `due`
    /// in all, drawing periods as it goes; `None` if that is past `stop`. Each drawn period
    /// is used once, in the order on, off, on, …
    fn on_off_random(&mut self, due: Time, on: Time, off: Time) -> Option<Time> {
        while due >= self.on_before + (self.on_until - self.run_start) {
            self.on_before += self.on_until - self.run_start;
            self.run_start = self.on_until.saturating_add(self.period(off, true));
            self.on_until = self.run_start.saturating_add(self.period(on, true));
            if self.run_start >= self.stop {
                return None;
            }
        }
        Some(self.run_start + (due - self.on_before))
    }

    /// The destination host for the next frame of a unicast flow (drawing one for
    /// uniform flows).
    #[inline(always)] // once per frame; a fixed destination is one load
    pub fn pick_host(&mut self) -> Option<NodeId> {
        match &self.dst {
            Destination::Host(h) => Some(*h),
            Destination::Tree { .. } => None,
            Destination::Uniform { among, own } => Some(pick_uniform(&mut self.rng, among, *own)),
        }
    }
}

/// [`Flow::pick_host`] for a uniform flow from `own`'s place in `among`: one of the
/// others, drawn among n − 1, skipping the source's own place.
#[inline(never)]
fn pick_uniform(rng: &mut RngStream, among: &[NodeId], own: u32) -> NodeId {
    let k = rng.below(among.len() as u64 - 1) as usize;
    among[if k >= own as usize { k + 1 } else { k }]
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::{StreamKey, PS_PER_MS, PS_PER_US};

    #[test]
    fn a_frame_touches_four_cache_lines_of_its_flow() {
        use std::mem::{align_of, offset_of, size_of};
        assert_eq!(align_of::<Flow>(), 64);
        // What an emission reads: the first two lines.
        assert!(offset_of!(Flow, shaper) + size_of::<Option<Box<Shaper>>>() <= 128);
        assert!(offset_of!(Flow, line_bps) + 8 <= 128);
        assert!(offset_of!(Flow, rp_timer) + 4 <= 128);
        assert!(offset_of!(Flow, rp_quiet_left) + 4 <= 128);
        // The counters: the next two.
        assert_eq!(offset_of!(Flow, stats), 128);
        assert_eq!(size_of::<FlowStats>(), 128);
        assert_eq!(offset_of!(FlowStats, delay_sum), 64);
        // The rest, names included, in two more: six in all.
        assert_eq!(size_of::<Flow>(), 384);
    }

    fn flow(pattern: Pattern) -> Flow {
        Flow::new(
            "f".into(),
            0,
            Destination::Host(1),
            1500,
            0,
            pattern,
            0,
            PS_PER_S,
            RngStream::new(1, StreamKey { kind: "flow", name: "f" }),
        )
    }

    #[test]
    fn cbr_emits_on_an_exact_grid() {
        let mut f = flow(Pattern::Cbr { rate_bps: 1_000_000_000, jitter: 0.0 });
        assert_eq!(f.first_emission(), Some(0));
        assert_eq!(f.next_emission(0), Some(12 * PS_PER_US));
        assert_eq!(f.next_emission(12 * PS_PER_US), Some(24 * PS_PER_US));
    }

    #[test]
    fn jittered_cbr_stays_within_one_gap_and_keeps_its_rate() {
        // 1 Gbit/s, 1500 B: a 12 µs gap; with jitter 1 the k-th frame leaves in
        // [12k µs, 12(k+1) µs), in order; over 1 s exactly as many frames as without.
        let mut f = flow(Pattern::Cbr { rate_bps: 1_000_000_000, jitter: 1.0 });
        let (mut t, mut k, mut shifted) = (f.first_emission(), 0u64, 0u64);
        let mut last = 0;
        while let Some(now) = t {
            let nominal = k * 12 * PS_PER_US;
            assert!(now >= nominal.max(last) && now < nominal + 12 * PS_PER_US, "frame {k} at {now}");
            shifted += u64::from(now > nominal);
            last = now;
            k += 1;
            t = f.next_emission(now);
        }
        let periodic = PS_PER_S.div_ceil(12 * PS_PER_US);
        assert!(k.abs_diff(periodic) <= 1, "{k} frames, {periodic} without jitter");
        assert!(shifted > k * 9 / 10, "most frames leave after their nominal instant");
    }

    /// Offered load of an on/off source over `periods` cycles, bit/s.
    fn offered_rate(on: Time, off: Time, exponential: bool, cycles: u64) -> f64 {
        let mut f = flow(Pattern::OnOff { rate_bps: 200_000_000, on, off, exponential });
        f.stop = cycles * (on + off);
        let mut n = 0u64;
        let mut t = f.first_emission();
        while let Some(now) = t {
            n += 1;
            t = f.next_emission(now);
        }
        n as f64 * 1500.0 * 8.0 / (f.stop as f64 / PS_PER_S as f64)
    }

    /// Regression: every on-period began with a frame, so 200 Mbit/s with on = off =
    /// 10 us offered 600 Mbit/s (1 us periods: 6 Gbit/s). The phase now carries across
    /// periods: the load is rate × on/(on + off) = 100 Mbit/s whatever the period, here
    /// shorter than (1 us), equal to (60 us) and longer than (1 ms) the 60 us frame time.
    #[test]
    fn on_off_offers_its_rate_for_any_period() {
        for (period, cycles) in
            [(PS_PER_US, 600_000), (10 * PS_PER_US, 60_000), (60 * PS_PER_US, 10_000), (PS_PER_MS, 600)]
        {
            let r = offered_rate(period, period, false, cycles);
            assert!((r / 100e6 - 1.0).abs() < 0.01, "period {period} ps: {r} bit/s");
        }
        // Random periods: the same on average (600 ms of simulated time).
        for period in [PS_PER_US, 60 * PS_PER_US, PS_PER_MS] {
            let r = offered_rate(period, period, true, 600 * PS_PER_MS / (2 * period));
            assert!((r / 100e6 - 1.0).abs() < 0.05, "exponential period {period} ps: {r} bit/s");
        }
        // Unequal periods: on 1 us, off 3 us gives a quarter of the rate.
        let r = offered_rate(PS_PER_US, 3 * PS_PER_US, false, 300_000);
        assert!((r / 50e6 - 1.0).abs() < 0.01, "{r}");
    }

    /// With on-periods shorter than a frame time, the k-th frame leaves once the source
    /// has been on for k frame times: 1 Gbit/s (12 us per frame), on 5 us, off 15 us.
    #[test]
    fn short_on_periods_carry_the_phase() {
        let mut f = flow(Pattern::OnOff {
            rate_bps: 1_000_000_000,
            on: 5 * PS_PER_US,
            off: 15 * PS_PER_US,
            exponential: false,
        });
        let mut t = f.first_emission().unwrap();
        let mut times = vec![t];
        for _ in 0..3 {
            t = f.next_emission(t).unwrap();
            times.push(t);
        }
        // On-time 12 us is on-period 2 (starting at 40 us) + 2 us; 24 us is period 4
        // (80 us) + 4 us; 36 us is period 7 (140 us) + 1 us.
        let us: Vec<u64> = times.iter().map(|t| t / PS_PER_US).collect();
        assert_eq!(us, [0, 42, 84, 141]);
    }

    #[test]
    fn on_off_pauses_between_bursts() {
        // 1 Gbit/s, on 30 us (frames at 0, 12, 24), off 100 us; the next frame is due at
        // on-time 36 us, i.e. 6 us into the second burst: 136 us, then 148 us.
        let mut f = flow(Pattern::OnOff {
            rate_bps: 1_000_000_000,
            on: 30 * PS_PER_US,
            off: 100 * PS_PER_US,
            exponential: false,
        });
        let mut t = f.first_emission().unwrap();
        let mut times = vec![t];
        for _ in 0..4 {
            t = f.next_emission(t).unwrap();
            times.push(t);
        }
        let us: Vec<u64> = times.iter().map(|t| t / PS_PER_US).collect();
        assert_eq!(us, [0, 12, 24, 136, 148]);
    }

    #[test]
    fn poisson_rate_is_right_on_average() {
        let mut f = flow(Pattern::Poisson { rate_bps: 1_000_000_000 });
        f.stop = Time::MAX;
        let mut t = f.first_emission().unwrap();
        let n = 50_000;
        for _ in 0..n {
            t = f.next_emission(t).unwrap();
        }
        // Mean gap 12 us.
        let mean_gap = t as f64 / n as f64 / PS_PER_US as f64;
        assert!((mean_gap - 12.0).abs() < 0.2, "{mean_gap}");
    }

    #[test]
    fn emission_stops_at_stop_time() {
        let mut f = flow(Pattern::Cbr { rate_bps: 1_000_000_000, jitter: 0.0 });
        f.stop = PS_PER_MS / 100; // 10 us: frames at 0 only
        assert_eq!(f.first_emission(), Some(0));
        assert_eq!(f.next_emission(0), None);
    }
}
