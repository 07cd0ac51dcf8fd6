//! IEEE 802.3x PAUSE and IEEE 802.1Qbb Priority-based Flow Control (PFC), and hosts
//! that drain their input at a service rate.
//!
//! - A PAUSE frame (IEEE 802.3 Annex 31B) is a 64-byte MAC control frame, link-local: the
//!   port that receives it consumes it and stops its own transmitter for
//!   `quanta × 512` bit times at its link rate, counted from the reception; the frame
//!   already being sent is finished. PAUSE(0) resumes at once; a new PAUSE replaces the
//!   time left. 802.3x stops the whole port; PFC (802.1Qbb §36.1.3) carries a priority
//!   enable vector and stops only the classes those priorities map to.
//! - A switch with ingress thresholds counts, per ingress port (and per priority under
//!   PFC), the frames that came in through it and are still waiting in its egress
//!   queues. Crossing XOFF sends PAUSE (max quanta unless configured) back through that
//!   port; falling to XON sends PAUSE(0). While above XON the PAUSE is re-sent after half
//!   its pause time, so the upstream port never resumes early.
//! - A host with an input service rate R drains its input buffer at R (one frame per
//!   8·size/R), like the "output-generated hotspot" of the IEEE 802.1au tests. Frames
//!   beyond its input buffer are lost; with `send_pause` the host sends PAUSE when the
//!   buffer passes XOFF and PAUSE(0) when it falls to XON.
//!
//! Frames held in a host's input buffer count as queued for frame conservation.

pub mod report;

use std::collections::VecDeque;

use serde::{Deserialize, Serialize};

use crate::engine::time::serialization_time;
use crate::engine::{Time, TimerId, Timers};
use crate::net::{Ecn, Frame, FrameId, Header, NodeId, PortId, MAX_CLASSES, NONE};
use crate::protocol::Validate;
use crate::protocol::{Ctx, HostArrival, LinkTimer, Send, TimerAction, TimerOwner};
use crate::units::select::HostSel;
use crate::units::{Rate, Size};

pub use report::{HostInputSummary, PausePortSummary, PauseSummary};

/// Size of a PAUSE / PFC frame on the wire (a minimum Ethernet frame), bytes.
pub const PAUSE_FRAME_BYTES: u32 = 64;
/// Bit times per pause quantum (IEEE 802.3 §31B.2).
pub const BITS_PER_QUANTUM: u64 = 512;

pub use crate::wire::pause::PauseFrame;

/// Which flow control the network uses.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub enum Mode {
    /// IEEE 802.3x PAUSE: a whole port stops.
    #[default]
    #[serde(rename = "802.3x")]
    Pause,
    /// IEEE 802.1Qbb PFC: only the paused priorities' classes stop.
    #[serde(rename = "pfc")]
    Pfc,
}

/// A pause threshold pair, in frames or bytes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Thresholds {
    /// Send PAUSE when the count reaches this.
    pub(crate) xoff: Size,
    /// Send PAUSE(0) when it falls to this.
    pub(crate) xon: Size,
}

impl Thresholds {
    #[inline]
    fn measure(unit: Size, frames: u64, bytes: u64) -> u64 {
        match unit {
            Size::Frames(_) => frames,
            Size::Bytes(_) => bytes,
        }
    }

    /// Whether `frames`/`bytes` reach XOFF.
    #[inline]
    pub fn above_xoff(&self, frames: u64, bytes: u64) -> bool {
        Self::measure(self.xoff, frames, bytes) >= self.xoff.value()
    }

    /// Whether `frames`/`bytes` are down to XON.
    #[inline]
    pub fn down_to_xon(&self, frames: u64, bytes: u64) -> bool {
        Self::measure(self.xon, frames, bytes) <= self.xon.value()
    }
}

/// Switch ingress thresholds (`[protocols.pause.switches]`).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SwitchParams {
    /// Send PAUSE when the frames held for one ingress port (and priority, under PFC)
    /// reach this.
    pub(crate) xoff: Size,
    /// Send PAUSE(0) when they fall to this.
    pub(crate) xon: Size,
}

/// A group of hosts with an input service rate (`[[protocols.pause.hosts]]`).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct HostParams {
    /// Host names (or patterns like "r*").
    pub(crate) hosts: HostSel,
    /// The rate at which the host drains its input.
    pub(crate) service_rate: Rate,
    /// The input buffer; frames beyond it are lost.
    pub(crate) input_buffer: Size,
    /// Send PAUSE at XOFF and PAUSE(0) at XON.
    #[serde(default = "yes")]
    pub(crate) send_pause: bool,
    /// XOFF threshold on the input buffer.
    #[serde(default)]
    pub(crate) xoff: Option<Size>,
    /// XON threshold on the input buffer.
    #[serde(default)]
    pub(crate) xon: Option<Size>,
}

fn yes() -> bool {
    true
}

fn default_quanta() -> u16 {
    u16::MAX
}

/// `[protocols.pause]`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct PauseParams {
    /// "802.3x" (whole port) or "pfc" (per priority).
    #[serde(default)]
    pub(crate) mode: Mode,
    /// Pause time carried by an XOFF frame, in quanta of 512 bit times.
    #[serde(default = "default_quanta")]
    pub(crate) quanta: u16,
    /// Switch ingress thresholds; without this table switches never send PAUSE.
    #[serde(default)]
    pub(crate) switches: Option<SwitchParams>,
    /// Hosts with an input service rate.
    #[serde(default)]
    pub(crate) hosts: Vec<HostParams>,
}

/// The timer owner a PAUSE timer is registered under.
fn owner(role: TimerRole) -> TimerOwner {
    TimerOwner::LinkControl { owner: LinkTimer::Pause(role) }
}

/// What a link-control timer is for.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum TimerRole {
    /// A paused class of a port may send again.
    Unpause {
        /// Index of the port's state.
        slot: u32,
    },
    /// Re-send the XOFF of an ingress counter that is still above XON.
    Refresh {
        /// Index of the port's state.
        slot: u32,
        /// The counter (priority under PFC, 0 under 802.3x).
        counter: u8,
    },
    /// A host finishes serving the frame at the head of its input buffer.
    Service {
        /// Index of the host input.
        host: u32,
    },
    /// Re-send a host's XOFF.
    HostRefresh {
        /// Index of the host input.
        host: u32,
    },
}

/// Counters of one port.
#[derive(Clone, Debug, Default, Serialize)]
pub struct PortPauseStats {
    /// PAUSE frames (non-zero quanta) sent through this port.
    pub pause_sent: u64,
    /// PAUSE(0) frames sent through this port.
    pub resume_sent: u64,
    /// PAUSE frames (non-zero quanta) received, stopping this port's transmitter.
    pub pause_received: u64,
    /// PAUSE(0) frames received.
    pub(crate) resume_received: u64,
}

/// The link-control state of one port: pause received (its egress) and ingress counters.
#[derive(Clone, Debug)]
struct PortState {
    port: PortId,
    rate_bps: u64,
    /// Per class of this port's egress: no transmission before this time.
    paused_until: [Time; MAX_CLASSES],
    unpause: TimerId,
    /// Whether frames entering through this port are counted (a switch port with
    /// thresholds).
    counted: bool,
    held_frames: [u64; MAX_CLASSES],
    held_bytes: [u64; MAX_CLASSES],
    /// Counters that have sent XOFF and not yet XON, one bit per counter.
    xoff_sent: u8,
    refresh: [TimerId; MAX_CLASSES],
    stats: PortPauseStats,
}

/// Counters of one host input.
#[derive(Clone, Debug, Default, Serialize)]
pub struct HostInputStats {
    /// Frames that reached the host.
    pub(crate) arrived_frames: u64,
    /// Frames lost because the input buffer was full.
    pub dropped_frames: u64,
    /// Frames served (handed to the host's endpoint).
    pub(crate) served_frames: u64,
    /// Largest input buffer occupancy, frames.
    pub max_frames: u64,
    /// Largest input buffer occupancy, bytes.
    pub(crate) max_bytes: u64,
}

/// A host that drains its input at a service rate.
#[derive(Clone, Debug)]
struct HostInput {
    host: NodeId,
    /// The link state of the host's port, through which its PAUSE frames go.
    slot: u32,
    rate_bps: u64,
    capacity: Size,
    thresholds: Option<Thresholds>,
    queue: VecDeque<(FrameId, u32)>,
    bytes: u64,
    timer: TimerId,
    refresh: TimerId,
    xoff_sent: bool,
    stats: HostInputStats,
}

/// All PAUSE / PFC state of a run.
#[derive(Clone, Debug)]
pub struct Pause {
    mode: Mode,
    quanta: u16,
    switch: Option<Thresholds>,
    ports: Vec<PortState>,
    /// Per port state, the end of its latest pause over all classes: the test a frame
    /// makes at every transmission reads this dense array, and a port's full state
    /// (hundreds of bytes, rarely cached on a fabric) only while a pause lasts.
    paused_through: Vec<Time>,
    /// The latest end of any pause ever received, at least every entry of
    /// `paused_through`: until a link is paused, and once every pause has ended, the
    /// test reads this one word instead of a port's entry (a cache miss per frame on a
    /// fabric's hundreds of ports).
    paused_through_all: Time,
    hosts: Vec<HostInput>,
    /// Host input index per node, or `NONE`.
    input_of: Vec<u32>,
}

/// Per-port and per-host counters, by id.
#[derive(Clone, Debug, Serialize)]
pub struct PauseCounters {
    /// Per port that sent or received PAUSE frames.
    pub ports: Vec<(PortId, PortPauseStats)>,
    /// Per host with an input service rate.
    pub(crate) hosts: Vec<(NodeId, HostInputStats)>,
}

/// One port to watch: its id, link rate, and whether it is a counted switch ingress.
pub struct PortSpec {
    /// The port.
    pub(crate) port: PortId,
    /// Its link rate.
    pub(crate) rate_bps: u64,
    /// Whether frames entering through it are counted against the switch thresholds.
    pub(crate) counted: bool,
}

/// One host input to model.
pub struct HostSpec {
    /// The host.
    pub(crate) host: NodeId,
    /// The index, among the ports given with it, of its (only) port.
    pub(crate) slot: u32,
    /// The service rate.
    pub(crate) rate_bps: u64,
    /// Input buffer.
    pub(crate) capacity: Size,
    /// XOFF/XON, when the host sends PAUSE.
    pub(crate) thresholds: Option<Thresholds>,
}

impl Pause {
    /// The node a timer of `role` acts at, given each port's node: a port's for its
    /// pause and refresh timers, a host's for its input's.
    pub(crate) fn timer_node(&self, role: TimerRole, node_of_port: impl Fn(PortId) -> NodeId) -> NodeId {
        match role {
            TimerRole::Unpause { slot } | TimerRole::Refresh { slot, .. } => {
                node_of_port(self.ports[slot as usize].port)
            }
            TimerRole::Service { host } | TimerRole::HostRefresh { host } => self.hosts[host as usize].host,
        }
    }

    /// Takes from `other` (another partition's replica of the same state) the ports and
    /// host inputs at the nodes `theirs` says are its.
    pub(crate) fn take_from(
        &mut self,
        other: &mut Pause,
        node_of_port: impl Fn(PortId) -> NodeId,
        theirs: impl Fn(NodeId) -> bool,
    ) {
        for (slot, (mine, theirs_state)) in self.ports.iter_mut().zip(&mut other.ports).enumerate() {
            if theirs(node_of_port(mine.port)) {
                std::mem::swap(mine, theirs_state);
                self.paused_through[slot] = other.paused_through[slot];
            }
        }
        self.paused_through_all = self.paused_through_all.max(other.paused_through_all);
        for (mine, other) in self.hosts.iter_mut().zip(&mut other.hosts) {
            if theirs(mine.host) {
                std::mem::swap(mine, other);
            }
        }
    }

    /// PAUSE state for `ports` (their `link` index is their position) and `hosts`, in a
    /// network of `nodes` nodes. Their timers are added to `timers`.
    pub fn new(
        params: &PauseParams,
        ports: Vec<PortSpec>,
        hosts: Vec<HostSpec>,
        nodes: usize,
        timers: &mut Timers<TimerOwner>,
    ) -> Self {
        let switch = params.switches.as_ref().map(|s| Thresholds { xoff: s.xoff, xon: s.xon });
        let ports = (0u32..)
            .zip(ports)
            .map(|(slot, spec)| PortState {
                port: spec.port,
                rate_bps: spec.rate_bps,
                paused_until: [0; MAX_CLASSES],
                unpause: timers.add(owner(TimerRole::Unpause { slot })),
                counted: spec.counted && switch.is_some(),
                held_frames: [0; MAX_CLASSES],
                held_bytes: [0; MAX_CLASSES],
                xoff_sent: 0,
                refresh: std::array::from_fn(|c| {
                    let counter = c as u8;
                    timers.add(owner(TimerRole::Refresh { slot, counter }))
                }),
                stats: PortPauseStats::default(),
            })
            .collect::<Vec<_>>();
        let paused_through = vec![0; ports.len()];
        let mut input_of = vec![NONE; nodes];
        let hosts = (0u32..)
            .zip(hosts)
            .map(|(i, spec)| {
                input_of[spec.host as usize] = i;
                HostInput {
                    host: spec.host,
                    slot: spec.slot,
                    rate_bps: spec.rate_bps,
                    capacity: spec.capacity,
                    thresholds: spec.thresholds,
                    queue: VecDeque::new(),
                    bytes: 0,
                    timer: timers.add(owner(TimerRole::Service { host: i })),
                    refresh: timers.add(owner(TimerRole::HostRefresh { host: i })),
                    xoff_sent: false,
                    stats: HostInputStats::default(),
                }
            })
            .collect();
        Self {
            mode: params.mode,
            quanta: params.quanta,
            switch,
            ports,
            paused_through,
            paused_through_all: 0,
            hosts,
            input_of,
        }
    }

    /// The pause time of `quanta` at `rate_bps`: quanta × 512 bit times.
    pub fn pause_time(quanta: u16, rate_bps: u64) -> Time {
        serialization_time((u64::from(quanta) * BITS_PER_QUANTUM / 8) as u32, rate_bps)
    }

    /// The counter a frame of `priority` is held under.
    #[inline]
    fn counter(&self, priority: u8) -> usize {
        match self.mode {
            Mode::Pause => 0,
            Mode::Pfc => priority.min(7) as usize,
        }
    }

    /// The priorities a counter pauses.
    fn priorities(&self, counter: usize) -> u8 {
        match self.mode {
            Mode::Pause => 0xFF,
            Mode::Pfc => 1 << counter,
        }
    }

    /// Whether class `class` of the port with state `slot` may send at `now`.
    #[inline(always)] // asked at every enqueue on a port under PFC
    pub fn may_send(&self, slot: u32, class: u8, now: Time) -> bool {
        self.paused_through_all <= now
            || self.paused_through[slot as usize] <= now
            || self.ports[slot as usize].paused_until[class as usize] <= now
    }

    /// A PAUSE frame for `priorities` with `quanta`, sent by `node`.
    fn frame(node: NodeId, priorities: u8, quanta: u16, now: Time) -> Frame {
        Frame {
            size: PAUSE_FRAME_BYTES,
            priority: 7,
            ecn: Ecn::NotEct,
            multicast: false,
            src: node,
            dst: NONE,
            flow: NONE,
            ingress: NONE,
            born: now,
            header: Header::Pause(PauseFrame { priorities, quanta }),
        }
    }

    /// Sends PAUSE(`quanta`) for `priorities`, from `src`, through the port with state
    /// `slot`. A PAUSE with a time arms `refresh` to re-send it after half that time (at
    /// the port's rate); PAUSE(0) cancels it.
    fn emit(
        &mut self,
        ctx: &mut Ctx,
        slot: usize,
        refresh: TimerId,
        src: NodeId,
        priorities: u8,
        quanta: u16,
    ) {
        let state = &mut self.ports[slot];
        if quanta == 0 {
            state.stats.resume_sent += 1;
            ctx.cancel(refresh);
        } else {
            state.stats.pause_sent += 1;
            let half = Self::pause_time(quanta, state.rate_bps) / 2;
            ctx.arm(refresh, ctx.now + half.max(1), 0);
        }
        let port = state.port;
        ctx.send(Send::OnPort { port }, Self::frame(src, priorities, quanta, ctx.now));
    }

    /// Sends the PAUSE(`quanta`) of ingress counter `counter` of the port with state
    /// `slot`, from `node`.
    fn send_pause(&mut self, ctx: &mut Ctx, slot: usize, counter: usize, node: NodeId, quanta: u16) {
        let (priorities, refresh) = (self.priorities(counter), self.ports[slot].refresh[counter]);
        self.emit(ctx, slot, refresh, node, priorities, quanta);
    }

    /// The switch thresholds, if frames entering through the port with state `slot` are
    /// counted against them.
    #[inline]
    fn counted(&self, slot: u32) -> Option<Thresholds> {
        self.switch.filter(|_| self.ports[slot as usize].counted)
    }

    /// A frame that entered through the port with state `slot` was queued at node `node`.
    #[inline]
    pub fn on_admitted(&mut self, ctx: &mut Ctx, slot: u32, node: NodeId, priority: u8, size: u32) {
        let Some(th) = self.counted(slot) else {
            return;
        };
        let c = self.counter(priority);
        let state = &mut self.ports[slot as usize];
        state.held_frames[c] += 1;
        state.held_bytes[c] += u64::from(size);
        if state.xoff_sent & (1 << c) == 0 && th.above_xoff(state.held_frames[c], state.held_bytes[c]) {
            state.xoff_sent |= 1 << c;
            let quanta = self.quanta;
            self.send_pause(ctx, slot as usize, c, node, quanta);
        }
    }

    /// A frame that entered through the port with state `slot` left node `node`'s queues.
    #[inline]
    pub fn on_left(&mut self, ctx: &mut Ctx, slot: u32, node: NodeId, priority: u8, size: u32) {
        let Some(th) = self.counted(slot) else {
            return;
        };
        let c = self.counter(priority);
        let state = &mut self.ports[slot as usize];
        state.held_frames[c] -= 1;
        state.held_bytes[c] -= u64::from(size);
        if state.xoff_sent & (1 << c) != 0 && th.down_to_xon(state.held_frames[c], state.held_bytes[c]) {
            state.xoff_sent &= !(1 << c);
            self.send_pause(ctx, slot as usize, c, node, 0);
        }
    }

    /// The port with state `slot` received `frame`; `class_of` maps a priority to the
    /// port's class. Returns whether the port should try to send now (a class resumed).
    pub fn on_receive(
        &mut self,
        ctx: &mut Ctx,
        slot: u32,
        frame: &PauseFrame,
        class_of: impl Fn(u8) -> u8,
    ) -> bool {
        let now = ctx.now;
        let state = &mut self.ports[slot as usize];
        if frame.quanta == 0 {
            state.stats.resume_received += 1;
        } else {
            state.stats.pause_received += 1;
        }
        let until = now + Self::pause_time(frame.quanta, state.rate_bps);
        let mut resumed = false;
        for p in 0..MAX_CLASSES as u8 {
            if frame.priorities & (1 << p) != 0 {
                let c = class_of(p) as usize;
                resumed |= state.paused_until[c] > now && until <= now;
                state.paused_until[c] = until;
            }
        }
        let through = state.paused_until.iter().copied().max().unwrap_or(0);
        self.paused_through[slot as usize] = through;
        self.paused_through_all = self.paused_through_all.max(through);
        match state.paused_until.iter().copied().filter(|&t| t > now).min() {
            Some(next) => ctx.arm(state.unpause, next, 0),
            None => ctx.cancel(state.unpause),
        }
        resumed
    }

    /// A frame reached host `host`. Hosts without an input model deliver at once.
    #[inline]
    pub fn on_host_arrival(&mut self, ctx: &mut Ctx, host: NodeId, id: FrameId, size: u32) -> HostArrival {
        let i = match self.input_of.get(host as usize) {
            Some(&i) if i != NONE => i as usize,
            _ => return HostArrival::Deliver,
        };
        let input = &mut self.hosts[i];
        input.stats.arrived_frames += 1;
        let frames = input.queue.len() as u64;
        if !input.capacity_admits(frames, size) {
            input.stats.dropped_frames += 1;
            return HostArrival::Dropped;
        }
        input.queue.push_back((id, size));
        input.bytes += u64::from(size);
        let frames = frames + 1;
        input.stats.max_frames = input.stats.max_frames.max(frames);
        input.stats.max_bytes = input.stats.max_bytes.max(input.bytes);
        if frames == 1 {
            let at = ctx.now + serialization_time(size, input.rate_bps);
            ctx.arm(input.timer, at, 0);
        }
        if let Some(th) = input.thresholds {
            if !input.xoff_sent && th.above_xoff(frames, input.bytes) {
                input.xoff_sent = true;
                self.host_pause(ctx, i, self.quanta);
            }
        }
        HostArrival::Held
    }

    /// Host input `i` sends PAUSE(`quanta`) for every priority through its port.
    fn host_pause(&mut self, ctx: &mut Ctx, i: usize, quanta: u16) {
        let input = &self.hosts[i];
        let (slot, refresh, host) = (input.slot as usize, input.refresh, input.host);
        self.emit(ctx, slot, refresh, host, 0xFF, quanta);
    }

    /// A link-control timer expired.
    pub fn on_timer(&mut self, ctx: &mut Ctx, role: TimerRole) -> TimerAction {
        let now = ctx.now;
        match role {
            TimerRole::Unpause { slot } => {
                let state = &mut self.ports[slot as usize];
                if let Some(next) = state.paused_until.iter().copied().filter(|&t| t > now).min() {
                    ctx.arm(state.unpause, next, 0);
                }
                TimerAction::Kick(state.port)
            }
            TimerRole::Refresh { slot, counter } => {
                let state = &self.ports[slot as usize];
                if state.xoff_sent & (1 << counter) != 0 {
                    let node = NONE; // the sender's identity is not read by the receiver
                    let quanta = self.quanta;
                    self.send_pause(ctx, slot as usize, counter as usize, node, quanta);
                }
                TimerAction::None
            }
            TimerRole::Service { host } => {
                let i = host as usize;
                let input = &mut self.hosts[i];
                let Some((id, size)) = input.queue.pop_front() else {
                    return TimerAction::None;
                };
                input.bytes -= u64::from(size);
                input.stats.served_frames += 1;
                if let Some(&(_, next)) = input.queue.front() {
                    let at = now + serialization_time(next, input.rate_bps);
                    ctx.arm(input.timer, at, 0);
                }
                let frames = input.queue.len() as u64;
                if let Some(th) = input.thresholds {
                    if input.xoff_sent && th.down_to_xon(frames, input.bytes) {
                        input.xoff_sent = false;
                        self.host_pause(ctx, i, 0);
                    }
                }
                TimerAction::Deliver(self.hosts[i].host, id)
            }
            TimerRole::HostRefresh { host } => {
                if self.hosts[host as usize].xoff_sent {
                    self.host_pause(ctx, host as usize, self.quanta);
                }
                TimerAction::None
            }
        }
    }

    /// Each host with an input service rate, and the rate in bit/s.
    pub fn service_rates(&self) -> impl Iterator<Item = (NodeId, u64)> + '_ {
        self.hosts.iter().map(|h| (h.host, h.rate_bps))
    }

    /// Frames held in host input buffers.
    pub fn frames_held(&self) -> u64 {
        self.hosts.iter().map(|h| h.queue.len() as u64).sum()
    }

    /// Counters per port and per host input.
    pub fn counters(&self) -> PauseCounters {
        PauseCounters {
            ports: self.ports.iter().map(|s| (s.port, s.stats.clone())).collect(),
            hosts: self.hosts.iter().map(|h| (h.host, h.stats.clone())).collect(),
        }
    }
}

impl HostInput {
    #[inline]
    fn capacity_admits(&self, frames: u64, size: u32) -> bool {
        match self.capacity {
            Size::Frames(n) => frames < n,
            Size::Bytes(b) => self.bytes + u64::from(size) <= b,
        }
    }
}

fn default_share(buffer: Size, percent: u64) -> Size {
    match buffer {
        Size::Frames(n) => Size::Frames(n * percent / 100),
        Size::Bytes(b) => Size::Bytes(b * percent / 100),
    }
}

fn same_unit(a: Size, b: Size) -> bool {
    matches!((a, b), (Size::Frames(_), Size::Frames(_)) | (Size::Bytes(_), Size::Bytes(_)))
}

/// XOFF above XON, in one unit.
fn check_thresholds(xoff: Size, xon: Size) -> Result<(), (String, String)> {
    if !same_unit(xoff, xon) {
        return Err((
            "xon".into(),
            format!(
                "\"{xon}\" is not in the unit of xoff \"{xoff}\"; expected both in frames or both in bytes"
            ),
        ));
    }
    if xoff.value() == 0 || xon.value() >= xoff.value() {
        return Err((
            "xon".into(),
            format!("\"{xon}\" is not below xoff \"{xoff}\"; expected 0 ≤ xon < xoff with xoff > 0"),
        ));
    }
    Ok(())
}

impl Validate for PauseParams {
    fn validate(&self) -> Result<(), (String, String)> {
        if self.quanta == 0 {
            return Err(("quanta".into(), "0 quanta would never pause; expected 1 to 65535".into()));
        }
        if let Some(sw) = &self.switches {
            check_thresholds(sw.xoff, sw.xon).map_err(|(k, m)| (format!("switches.{k}"), m))?;
        }
        for (i, h) in self.hosts.iter().enumerate() {
            let at = |k: &str| format!("hosts[{i}].{k}");
            if h.service_rate.0 == 0 {
                return Err((
                    at("service_rate"),
                    "\"0bps\" serves nothing; expected a positive rate, e.g. \"1Gbps\"".into(),
                ));
            }
            if h.input_buffer.value() == 0 {
                return Err((
                    at("input_buffer"),
                    "the input buffer is empty; expected a positive size, e.g. \"64KB\"".into(),
                ));
            }
            if let Some((xoff, xon)) = h.thresholds() {
                check_thresholds(xoff, xon).map_err(|(k, m)| (at(&k), m))?;
                if !same_unit(xoff, h.input_buffer) || xoff.value() > h.input_buffer.value() {
                    return Err((
                        at("xoff"),
                        format!("\"{xoff}\" does not fit the input buffer \"{}\"; expected at most the buffer, in its unit", h.input_buffer),
                    ));
                }
            }
        }
        Ok(())
    }
}

impl HostParams {
    /// XOFF and XON when the host sends PAUSE: as given, or 3/4 and 1/2 of the input
    /// buffer.
    pub fn thresholds(&self) -> Option<(Size, Size)> {
        self.send_pause.then(|| {
            (
                self.xoff.unwrap_or(default_share(self.input_buffer, 75)),
                self.xon.unwrap_or(default_share(self.input_buffer, 50)),
            )
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pause_time_is_quanta_times_512_bit_times() {
        // 100 quanta = 51 200 bit times: 5.12 µs at 10 Gbit/s, 51.2 µs at 1 Gbit/s.
        assert_eq!(Pause::pause_time(100, 10_000_000_000), 5_120_000);
        assert_eq!(Pause::pause_time(100, 1_000_000_000), 51_200_000);
        // The largest: 65 535 × 512 bit = 3.355 ms at 10 Gbit/s.
        assert_eq!(Pause::pause_time(u16::MAX, 10_000_000_000), 3_355_392_000);
        assert_eq!(Pause::pause_time(0, 10_000_000_000), 0);
    }

    /// PFC at 10 Gbit/s: PAUSE(100 quanta, priority 3) at 1 µs stops class 3 until
    /// 1 + 5.12 = 6.12 µs and no other class; PAUSE(50, priority 5) at 2 µs stops class 5
    /// until 4.56 µs; PAUSE(0, priority 3) at 3 µs frees class 3 at once, class 5 still
    /// waits. (One class per priority: class_of is the identity.)
    #[test]
    fn pfc_pauses_only_the_priorities_named_for_their_time() {
        let params = PauseParams { mode: Mode::Pfc, quanta: 100, switches: None, hosts: Vec::new() };
        let spec = PortSpec { port: 0, rate_bps: 10_000_000_000, counted: false };
        let mut timers = crate::engine::Timers::default();
        let mut pause = Pause::new(&params, vec![spec], Vec::new(), 1, &mut timers);
        let mut events = crate::engine::EventQueue::new();
        let mut outbox = crate::protocol::Outbox::default();
        let mut at = |pause: &mut Pause, now: Time, priorities: u8, quanta: u16| {
            let mut ctx = Ctx { now, timers: &mut timers, events: &mut events, outbox: &mut outbox };
            pause.on_receive(&mut ctx, 0, &PauseFrame { priorities, quanta }, |p| p);
        };
        assert!((0..8).all(|c| pause.may_send(0, c, 0)));
        at(&mut pause, 1_000_000, 1 << 3, 100);
        assert!(!pause.may_send(0, 3, 6_119_999));
        assert!(pause.may_send(0, 3, 6_120_000));
        assert!([0, 1, 2, 4, 5, 6, 7].iter().all(|&c| pause.may_send(0, c, 1_000_000)));
        at(&mut pause, 2_000_000, 1 << 5, 50);
        assert!(!pause.may_send(0, 5, 4_559_999) && pause.may_send(0, 5, 4_560_000));
        assert!(!pause.may_send(0, 3, 2_000_000) && !pause.may_send(0, 3, 5_000_000));
        at(&mut pause, 3_000_000, 1 << 3, 0);
        assert!(pause.may_send(0, 3, 3_000_000));
        assert!(!pause.may_send(0, 5, 3_000_000));
        assert!(pause.may_send(0, 0, 3_000_000));
    }

    /// Merging partitions: the port another partition ran (port 1, paused there for
    /// 5.12 µs from 1 µs) comes with its pause; the port this one ran stays as it was.
    #[test]
    fn a_merged_port_keeps_its_pause() {
        let params = PauseParams { mode: Mode::Pfc, quanta: 100, switches: None, hosts: Vec::new() };
        let specs =
            || (0..2).map(|port| PortSpec { port, rate_bps: 10_000_000_000, counted: false }).collect();
        let mut timers = crate::engine::Timers::default();
        let mut mine = Pause::new(&params, specs(), Vec::new(), 2, &mut timers);
        let mut theirs = Pause::new(&params, specs(), Vec::new(), 2, &mut timers);
        let mut events = crate::engine::EventQueue::new();
        let mut outbox = crate::protocol::Outbox::default();
        let mut ctx = Ctx { now: 1_000_000, timers: &mut timers, events: &mut events, outbox: &mut outbox };
        theirs.on_receive(&mut ctx, 1, &PauseFrame { priorities: 1, quanta: 100 }, |p| p);
        mine.take_from(&mut theirs, |port| port, |node| node == 1);
        assert!(!mine.may_send(1, 0, 6_119_999) && mine.may_send(1, 0, 6_120_000));
        assert!(mine.may_send(0, 0, 1_000_000));
    }

    #[test]
    fn xoff_xon_hysteresis() {
        let th = Thresholds { xoff: Size::Frames(10), xon: Size::Frames(5) };
        assert!(!th.above_xoff(9, 0));
        assert!(th.above_xoff(10, 0));
        assert!(!th.down_to_xon(6, 0));
        assert!(th.down_to_xon(5, 0));
        let th = Thresholds { xoff: Size::Bytes(15_000), xon: Size::Bytes(3_000) };
        assert!(th.above_xoff(0, 15_000));
        assert!(!th.down_to_xon(0, 3_001));
    }
}
