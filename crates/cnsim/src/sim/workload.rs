//! Workload flows (`kind = "flows"`) at run time: a flow's state exists only while it
//! runs. Each arrival is built when its start time comes, in a *slot* (a flow, its
//! queue pair or connection, reaction and notification points, and timers) that a
//! finished flow of the same entry left, or in a new one; a flow is retired when it has
//! finished and no frame of it is still in flight, and its slot waits for the entry's
//! next arrival. Memory thus follows the flows active at once, not the flows a run
//! draws, which only keep their [`FctRecord`].
//!
//! Nothing a flow does depends on its slot: its random streams are keyed by its name,
//! and ECMP hashes its *key*, the number it would have as one of all the scenario's
//! flows built at once ([`Routes::set_hash_key`](crate::net::Routes::set_hash_key)).
//! Each arrival's event takes the sequence number that arming its start timer at the
//! beginning would have given it, so simultaneous events keep their order. A run with
//! recycling gives the same completion times as one that keeps every flow.

use super::Sim;
use crate::engine::time::frame_time;
use crate::engine::{Event, RngStream, StreamKey, Time, PS_PER_S};
use crate::l4::rdma::{Qp, RdmaParams, Window};
use crate::metrics::fct::FctRecord;
use crate::net::{Ecn, Network, PortId, NONE};
use crate::protocol::{AnyNotificationPoint, AnyReactionPoint};
use crate::traffic::{Destination, Flow, Pattern, Shaper};
use crate::wire::int::IntMode;

/// Memory of one active workload flow: its `Flow`, its queue pair or connection, a
/// reaction and a notification point, timers and its slot bookkeeping.
pub const ACTIVE_FLOW_BYTES: u64 = 2048;

/// Memory of one arrival, active or not: its record.
pub const ARRIVAL_BYTES: u64 = std::mem::size_of::<FctRecord>() as u64;

/// How a workload entry's flows are transported.
#[derive(Clone, Copy, Debug)]
pub enum Transport {
    /// An RDMA queue pair.
    Rdma(RdmaParams),
    /// A TCP connection.
    Tcp(crate::l4::tcp::TcpParams),
}

/// The reaction point a protocol gives each flow of an entry.
#[derive(Clone, Debug)]
pub enum RpRecipe {
    /// None: the queue pair sends at its line rate (or the entry's rate limit).
    None,
    /// DCQCN's rate limiter.
    Dcqcn {
        /// Its parameters.
        params: crate::l4::dcqcn::RpParams,
        /// Its rate increase, shared.
        increase: std::sync::Arc<crate::l2::qcn::RpParams>,
    },
    /// An HPCC sender, with the flow's base RTT.
    Hpcc(crate::l4::hpcc::HpccParams),
    /// A TIMELY sender.
    Timely(crate::l4::timely::TimelyParams),
}

/// Which base RTT (and BDP) a flow of an entry takes (see
/// [`crate::scenario::install`]'s window rules).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum BaseRttRecipe {
    /// Its own path's.
    Path,
    /// One for every flow: the largest over the protocol's flows (RTT, BDP bytes).
    Fixed(Time, u64),
}

/// Everything a flow of a workload entry is made from besides its arrival.
#[derive(Clone, Debug)]
pub struct Recipe {
    /// Frame size on the wire, bytes.
    pub frame: u32,
    /// Frame priority.
    pub priority: u8,
    /// Whether the entry asks for ECN-capable frames.
    pub ecn: bool,
    /// The entry's rate limit, bit/s.
    pub rate_limit: Option<u64>,
    /// The end of the run.
    pub stop: Time,
    /// The scenario's seed.
    pub seed: u64,
    /// The transport.
    pub transport: Transport,
    /// The reaction point, if a protocol gives one.
    pub rp: RpRecipe,
    /// The notification point, as a protocol makes it (each flow gets a copy).
    pub np: Option<AnyNotificationPoint>,
    /// What the INT header of each packet carries.
    pub int: IntMode,
    /// The queue pair's window, and the base RTT it and the reaction point use.
    pub window: Option<Window>,
    /// Which base RTT.
    pub base_rtt: BaseRttRecipe,
}

/// One workload entry at run time.
#[derive(Clone, Debug)]
pub struct Entry {
    /// The traffic entry's name (flows are "<name>/<number>").
    pub name: String,
    /// Its index among the scenario's traffic entries.
    pub traffic: u32,
    /// Its arrivals: records `first .. first + count`.
    pub first: u32,
    /// How many.
    pub count: u32,
    /// The flows of other kinds before this entry's, whose first events come before its
    /// arrivals'.
    pub flows_before: u32,
    /// The ECMP key of its first flow, the number it would have among all the
    /// scenario's flows built at once; the next flows' follow.
    pub first_key: u32,
    /// How its flows are made.
    pub recipe: Recipe,
    /// Slots of retired flows, free for the next arrival.
    free: Vec<u32>,
    /// Sequence number of its first arrival's event, once reserved.
    first_seq: Option<u64>,
}

impl Entry {
    /// An entry whose arrivals are records `first .. first + count`, after
    /// `flows_before` flows of other kinds, its first flow's ECMP key `first_key`.
    pub fn new(
        name: String,
        traffic: u32,
        (first, count): (u32, u32),
        (flows_before, first_key): (u32, u32),
        recipe: Recipe,
    ) -> Self {
        Entry {
            name,
            traffic,
            first,
            count,
            flows_before,
            first_key,
            recipe,
            free: Vec::new(),
            first_seq: None,
        }
    }
}

/// The workload flows of a run.
#[derive(Clone, Debug, Default)]
pub struct Workloads {
    /// The entries, in scenario order.
    pub entries: Vec<Entry>,
    /// Every arrival, entry by entry, each entry's in start order.
    pub records: Vec<FctRecord>,
    /// Index of the first slot among the simulator's flows (the flows before are the
    /// other traffic entries').
    first_slot: u32,
    /// The record each slot holds now.
    pub(super) slot_record: Vec<u32>,
    /// Finished flows whose frames are still in flight.
    finishing: Vec<u32>,
    /// Whether finished flows' slots are used again (off: every flow keeps its own, to
    /// inspect or to compare against).
    keep_all: bool,
    /// Flows built and not retired.
    pub(crate) active: u64,
    /// The most at once.
    pub(crate) peak_active: u64,
    /// The most active flows the memory budget allows.
    pub(crate) max_active: u64,
    /// Frames the retired flows dropped at their sources.
    pub(crate) retired_source_drops: u64,
    /// When an arrival found no room within `max_active`.
    pub(crate) refused: Option<Time>,
}

impl Workloads {
    /// Whether the run has workload flows.
    pub fn is_empty(&self) -> bool {
        self.records.is_empty()
    }

    /// The workload entry whose record `r` is.
    fn entry_of(&self, r: u32) -> usize {
        self.entries.partition_point(|e| e.first + e.count <= r)
    }
}

/// Twice `path`'s one-way delay (propagation, and the switches' processing latency)
/// plus one `packet`-byte transmission at every hop, ps, unrounded: what a flow's base
/// RTT and its ideal completion time share.
fn round_trip(net: &Network, path: &[PortId], packet: u64) -> u128 {
    let (mut delay, mut tx) = (0u128, 0u128);
    for &p in path {
        let port = &net.ports[p as usize];
        delay += u128::from(port.to_next_node);
        tx += frame_time(packet, port.rate_bps);
    }
    2 * delay + tx
}

/// The ideal completion time of a flow of `bytes` over `path` (the HPCC ns-3 fork's
/// `standalone_fct`): the path's round trip with one full packet's transmission at
/// every hop ([`round_trip`]), plus the flow's bytes with every packet's headers at the
/// path's slowest link.
pub fn ideal_fct(net: &Network, path: &[PortId], bytes: u64, frame: u32, header: u32) -> Time {
    let payload = u64::from(frame - header);
    let packets = bytes.div_ceil(payload).max(1);
    let slowest = path.iter().map(|&p| net.ports[p as usize].rate_bps).min().unwrap_or(u64::MAX);
    let wire = u64::from(header).saturating_mul(packets).saturating_add(bytes);
    let ideal = round_trip(net, path, u64::from(frame)) + frame_time(wire, slowest);
    Time::try_from(ideal).unwrap_or(Time::MAX)
}

/// A flow's base RTT over `path` (the HPCC fork's `third.cc`): its round trip with one
/// `packet`-byte transmission at every hop ([`round_trip`]); and its BDP at
/// `line_bps`, bytes.
pub fn base_rtt(net: &Network, path: &[PortId], packet: u64, line_bps: u64) -> (Time, u64) {
    let rtt = Time::try_from(round_trip(net, path, packet)).unwrap_or(Time::MAX);
    let bdp = u128::from(line_bps) * u128::from(rtt) / 8 / u128::from(PS_PER_S);
    (rtt, u64::try_from(bdp).unwrap_or(u64::MAX))
}

/// The TCP connection of `flow` (segments of `size` bytes) running `app`, ECN-capable
/// with `ecn` or a mark-answering variant (MECN, DCTCP), whose codepoint the flow's
/// segments then carry.
pub fn tcp_connection(
    seed: u64,
    flow: &mut Flow,
    tcp: &crate::l4::tcp::TcpParams,
    size: u32,
    ecn: bool,
    app: crate::l4::app::App,
) -> crate::l4::tcp::Connection {
    // ns-2 draws each agent's clock phase uniformly within a tick.
    let boot = if tcp.tick.0 > 0 { flow.rng.below(tcp.tick.0) } else { 0 };
    let ecn = ecn || tcp.mecn.is_some() || tcp.dctcp.is_some();
    if tcp.mecn.is_some() {
        flow.ecn = Ecn::Ect1; // MECN's "ECN-capable, no congestion" (01)
    } else if tcp.dctcp.is_some() {
        flow.ecn = Ecn::Ect0;
    }
    // The send delays (`overhead`) come from a stream of their own, so that turning them
    // on leaves the flow's other draws as they were.
    let overhead = RngStream::new(seed, StreamKey { kind: "tcp-overhead", name: &flow.name });
    crate::l4::tcp::Connection::new(tcp, size, ecn, app, boot, overhead)
}

/// The heap buffers of a retired flow, which the next flow of its slot takes over, so
/// that a flow's arrival allocates nothing when a slot is free.
#[derive(Default)]
struct Spare {
    name: String,
    shaper: Option<Box<Shaper>>,
}

impl Spare {
    /// A box holding `shaper`: the spare one, or a new one.
    fn shaper(&mut self, shaper: Shaper) -> Box<Shaper> {
        match self.shaper.take() {
            Some(mut b) => {
                *b = shaper;
                b
            }
            None => Box::new(shaper),
        }
    }
}

/// The state of one workload flow, built from its entry's recipe.
struct Built {
    flow: Flow,
    qp: Option<Qp>,
    connection: Option<crate::l4::tcp::Connection>,
    rp: Option<AnyReactionPoint>,
    np: Option<AnyNotificationPoint>,
}

impl Sim {
    /// Takes the run's workload flows (call before [`Sim::start`]).
    pub(crate) fn set_workloads(&mut self, mut w: Workloads) {
        w.first_slot = self.flows.len() as u32;
        if w.max_active == 0 {
            w.max_active = u64::MAX;
        }
        if w.entries.iter().any(|e| e.recipe.int != IntMode::None) {
            self.frames.enable_int();
        }
        if !w.is_empty() {
            self.frames.count_flows_from(w.first_slot);
        }
        self.workloads = w;
    }

    /// Keeps every workload flow's state to the end of the run instead of recycling
    /// finished flows' slots (to inspect each flow afterwards; the results are the
    /// same). Call before running.
    pub fn keep_finished_flows(&mut self) {
        self.workloads.keep_all = true;
    }

    /// The most workload flows whose state the run held at once so far: running, or
    /// finished with frames still in flight (finished, when finished flows are kept).
    pub fn peak_active_flows(&self) -> u64 {
        self.workloads.peak_active
    }

    /// The simulator's flow (slot) that runs workload record `r` now, if it runs.
    pub fn workload_flow(&self, r: u32) -> Option<u32> {
        let w = &self.workloads;
        w.slot_record.iter().position(|&x| x == r).map(|s| s as u32 + w.first_slot)
    }

    /// The workload entries.
    pub fn workload_entries(&self) -> &[Entry] {
        &self.workloads.entries
    }

    /// Reserves each entry's arrival events' sequence numbers, in scenario order among
    /// the other flows' first events (`flows_before` says where), and schedules each
    /// entry's first arrival. Called by [`Sim::start`] when flow `before` is next.
    pub(super) fn schedule_arrivals(&mut self, before: u32) {
        for e in 0..self.workloads.entries.len() {
            let entry = &mut self.workloads.entries[e];
            if entry.flows_before != before || entry.first_seq.is_some() || entry.count == 0 {
                continue;
            }
            let n = u64::from(entry.count);
            entry.first_seq = Some(self.events.reserve(n));
            let first = entry.first;
            self.schedule_arrival(first);
        }
    }

    /// Schedules the event of arrival `r` under its reserved sequence number.
    fn schedule_arrival(&mut self, r: u32) {
        let e = self.workloads.entry_of(r);
        let entry = &self.workloads.entries[e];
        let seq = entry.first_seq.expect("arrivals scheduled") + u64::from(r - entry.first);
        let at = self.workloads.records[r as usize].start;
        self.events.schedule_reserved(at, seq, Event::FlowArrives { arrival: r });
    }

    /// Arrival `r` is due: its flow is built and starts as its start timer would have
    /// started it; the entry's next arrival is scheduled. What the start schedules next
    /// (a timer's event) takes its place in the queue, as it would have taken the
    /// timer's.
    #[inline(never)] // once per flow: kept out of the run loop
    pub(super) fn flow_arrives(&mut self, r: u32, now: Time) -> Option<(Time, Event)> {
        if let Some((at, next)) = self.start_arrival(r, now) {
            self.events.schedule(at, next);
        }
        None
    }

    /// Builds and starts arrival `r`: what the start would leave its timer to do next.
    fn start_arrival(&mut self, r: u32, now: Time) -> Option<(Time, Event)> {
        let e = self.workloads.entry_of(r);
        let entry = &self.workloads.entries[e];
        if r + 1 < entry.first + entry.count {
            self.schedule_arrival(r + 1);
        }
        let f = match self.materialize(e, r) {
            Some(f) => f,
            None => {
                self.workloads.refused = Some(now);
                self.unbuilt_over_limit = true;
                return None;
            }
        };
        let flow = &self.flows[f as usize];
        if flow.start >= flow.stop || !self.owns(flow.src) {
            // Nothing to send, or another partition's sender (see [`super::partition`]).
            return None;
        }
        if flow.tcp != NONE {
            return self.tcp_timer(f, super::tcp::START, now);
        }
        let egress = self.egress_of(f);
        let flow = &mut self.flows[f as usize];
        flow.egress = egress;
        let shaper = flow.shaper.as_mut().expect("a queue pair has a shaper");
        shaper.pacing(now);
        let timer = shaper.timer;
        self.shaper_release(f, timer, now)
    }

    /// Builds arrival `r` of entry `e` in a free slot of the entry or a new one: its
    /// slot, or `None` when the memory budget allows no more active flows.
    fn materialize(&mut self, e: usize, r: u32) -> Option<u32> {
        self.retire_finished();
        let w = &mut self.workloads;
        if w.active >= w.max_active {
            return None;
        }
        w.active += 1;
        w.peak_active = w.peak_active.max(w.active);
        let entry = &mut w.entries[e];
        let key = entry.first_key + (r - entry.first);
        let f = match entry.free.pop() {
            Some(f) => {
                let old = &mut self.flows[f as usize];
                let shaper = old.shaper.take();
                let timer = shaper.as_ref().map_or(NONE, |s| s.timer);
                let name = std::mem::take(&mut old.name);
                let built = self.build_flow(e, r, key, Spare { name, shaper });
                self.reuse_slot(f, built, timer);
                f
            }
            None => {
                let built = self.build_flow(e, r, key, Spare::default());
                self.new_slot(built)
            }
        };
        let w = &mut self.workloads;
        let s = (f - w.first_slot) as usize;
        if s == w.slot_record.len() {
            w.slot_record.push(r);
        } else {
            w.slot_record[s] = r;
        }
        self.routes.set_hash_key(f, key);
        self.frames.track_flow(f);
        Some(f)
    }

    /// The state of arrival `r` of entry `e`, whose ECMP key is `key`, in the buffers of
    /// `spare`.
    fn build_flow(&self, e: usize, r: u32, key: u32, mut spare: Spare) -> Built {
        use std::fmt::Write;
        let (net, entry) = (&self.net, &self.workloads.entries[e]);
        let rec = &self.workloads.records[r as usize];
        let recipe = &entry.recipe;
        let mut name = std::mem::take(&mut spare.name);
        name.clear();
        let _ = write!(name, "{}/{}", entry.name, r - entry.first + 1);
        let rng = RngStream::new(recipe.seed, StreamKey { kind: "flow", name: &name });
        let pattern = match recipe.transport {
            Transport::Rdma(_) => Pattern::Saturated,
            Transport::Tcp(_) => Pattern::Tcp,
        };
        let (src, dst) = (rec.src, rec.dst);
        let mut flow = Flow::new(
            name,
            src,
            Destination::Host(dst),
            recipe.frame,
            recipe.priority,
            pattern,
            rec.start,
            recipe.stop,
            rng,
        );
        let line = net.first_link_rate(src);
        flow.line_bps = line;
        flow.source_queue = 1;
        flow.workload = true;
        flow.ecn = if recipe.ecn { Ecn::Ect0 } else { Ecn::NotEct };
        let mut built = Built { flow, qp: None, connection: None, rp: None, np: recipe.np.clone() };
        match recipe.transport {
            Transport::Tcp(tcp) => {
                if let Some(r) = recipe.rate_limit {
                    built.flow.shaper = Some(spare.shaper(Shaper::new(r, 100)));
                }
                let app = crate::l4::app::App::Bytes(rec.bytes);
                built.connection =
                    Some(tcp_connection(recipe.seed, &mut built.flow, &tcp, recipe.frame, recipe.ecn, app));
                return built;
            }
            Transport::Rdma(params) => {
                let mut qp = Qp::new(&params, Some(rec.bytes), recipe.frame);
                qp.int = recipe.int;
                built.qp = Some(qp);
            }
        }
        let needs_rtt = recipe.window.is_some() || matches!(recipe.rp, RpRecipe::Hpcc(_));
        let (rtt, bdp) = match recipe.base_rtt {
            BaseRttRecipe::Fixed(rtt, bdp) => (rtt, bdp),
            BaseRttRecipe::Path if needs_rtt => {
                let path = self.routes.path_keyed(net, src, dst, key);
                base_rtt(net, &path, u64::from(recipe.frame + recipe.int.bytes()), line)
            }
            BaseRttRecipe::Path => (0, 0),
        };
        if recipe.window == Some(Window::Bdp) {
            let qp = built.qp.as_mut().expect("a queue pair");
            qp.bdp_bytes = bdp.max(1);
            qp.scale_window(line, line, recipe.frame);
        }
        let rp = match &recipe.rp {
            RpRecipe::None => {
                built.flow.shaper = Some(spare.shaper(Shaper::new(recipe.rate_limit.unwrap_or(line), 1)));
                return built;
            }
            RpRecipe::Dcqcn { params, increase } => {
                built.flow.ecn = Ecn::Ect0;
                let rng = RngStream::new(recipe.seed, StreamKey { kind: "rp", name: &built.flow.name });
                let rp = crate::l4::dcqcn::Rp::new(params, std::sync::Arc::clone(increase), line, rng);
                AnyReactionPoint::Dcqcn(rp)
            }
            RpRecipe::Hpcc(params) => AnyReactionPoint::Hpcc(crate::l4::hpcc::Rp::new(params, line, rtt)),
            RpRecipe::Timely(params) => {
                AnyReactionPoint::Timely(crate::l4::timely::Timely::new(params, line))
            }
        };
        built.flow.shaper = Some(spare.shaper(Shaper::new(rp.current_rate(), built.flow.source_queue)));
        built.flow.rp_stamps = rp.stamps(false);
        built.rp = Some(rp);
        built
    }

    /// Puts `built` in a new slot, with timers of its own.
    fn new_slot(&mut self, built: Built) -> u32 {
        let f = self.flows.len() as u32;
        let Built { mut flow, qp, connection, rp, np } = built;
        if let Some(qp) = qp {
            flow.qp = self.protocols.rdma.len() as u32;
            self.protocols.rdma.push(qp);
        }
        if let Some(c) = connection {
            flow.tcp = self.protocols.tcp.len() as u32;
            self.protocols.tcp.push(c);
        }
        if let Some(rp) = rp {
            flow.rp = self.protocols.reaction_points.len() as u32;
            self.protocols.reaction_points.push(rp);
        }
        self.flows.push(flow);
        super::source::add_flow_timers(&mut self.timers, &mut self.flows[f as usize], &mut self.protocols, f);
        if let Some(np) = np {
            let points = &mut self.protocols.notification_points;
            if points.len() <= f as usize {
                points.resize(f as usize + 1, None);
            }
            points[f as usize] = Some(np);
        }
        f
    }

    /// Puts `built` in slot `f`, which a retired flow of the same entry left: the same
    /// queue pair or connection, reaction point and timers (the shaper's was
    /// `shaper_timer`), made new.
    fn reuse_slot(&mut self, f: u32, built: Built, shaper_timer: crate::engine::TimerId) {
        let Built { mut flow, qp, connection, rp, np } = built;
        let old = &self.flows[f as usize];
        flow.qp = old.qp;
        flow.tcp = old.tcp;
        flow.rp = old.rp;
        flow.rp_timer = old.rp_timer;
        if let Some(new) = flow.shaper.as_mut() {
            new.timer = shaper_timer;
        }
        if let Some(mut qp) = qp {
            let slot = &mut self.protocols.rdma[flow.qp as usize];
            qp.timer = slot.timer;
            *slot = qp;
        }
        if let Some(mut c) = connection {
            let slot = &mut self.protocols.tcp[flow.tcp as usize];
            (c.timer, c.send_timer, c.ack_timer) = (slot.timer, slot.send_timer, slot.ack_timer);
            *slot = c;
        }
        if let Some(rp) = rp {
            let end = self.end;
            let slot = &mut self.protocols.reaction_points[flow.rp as usize];
            self.protocols.retired.fold_rp(slot, end);
            *slot = rp;
        }
        if let Some(np) = np {
            let slot = &mut self.protocols.notification_points[f as usize];
            if let Some(old) = slot.as_ref() {
                self.protocols.retired.fold_np(old);
            }
            *slot = Some(np);
        }
        self.workloads.retired_source_drops += self.flows[f as usize].stats.source_dropped_frames;
        self.flows[f as usize] = flow;
    }

    /// Flow `f` finished (its last byte acknowledged at `now`): its completion goes to
    /// its record, and it is retired once none of its frames is in flight.
    #[inline(never)]
    pub(super) fn flow_finished(&mut self, f: u32, fct_s: f64) {
        let w = &mut self.workloads;
        let Some(s) = f.checked_sub(w.first_slot) else { return };
        let r = w.slot_record[s as usize];
        w.records[r as usize].fct_s = Some(fct_s);
        if w.keep_all {
            w.active -= 1;
            return;
        }
        w.finishing.push(f);
    }

    /// Retires the finished flows none of whose frames is in flight any more.
    #[inline(never)]
    pub(super) fn retire_finished(&mut self) {
        let mut k = 0;
        while k < self.workloads.finishing.len() {
            let f = self.workloads.finishing[k];
            if self.frames.flow_frames(f) > 0 {
                k += 1;
                continue;
            }
            self.workloads.finishing.swap_remove(k);
            self.retire(f);
        }
    }

    /// Flow `f`, finished with no frame in flight, gives its slot back to its entry:
    /// its timers are cancelled, and it waits for no room.
    fn retire(&mut self, f: u32) {
        let flow = &self.flows[f as usize];
        let (shaper, rp, qp, tcp) = (flow.shaper.as_ref().map(|s| s.timer), flow.rp, flow.qp, flow.tcp);
        let rp_timers = match rp {
            NONE => 0..0,
            rp => {
                flow.rp_timer..flow.rp_timer + u32::from(self.protocols.reaction_points[rp as usize].timers())
            }
        };
        let qp_timer = (qp != NONE).then(|| self.protocols.rdma[qp as usize].timer);
        let tcp_timers = (tcp != NONE).then(|| {
            let c = &self.protocols.tcp[tcp as usize];
            [c.timer, c.send_timer, c.ack_timer]
        });
        let timers =
            shaper.into_iter().chain(rp_timers).chain(qp_timer).chain(tcp_timers.into_iter().flatten());
        for t in timers.filter(|&t| t != NONE) {
            self.timers.cancel(t);
        }
        let flow = &self.flows[f as usize];
        if flow.egress != NONE {
            self.forget_waiter(f);
        }
        let w = &mut self.workloads;
        let s = (f - w.first_slot) as usize;
        let e = w.entry_of(w.slot_record[s]);
        w.slot_record[s] = NONE;
        w.entries[e].free.push(f);
        w.active -= 1;
    }
}

#[cfg(test)]
mod tests {
    use super::super::Halt;
    use crate::scenario::{build, bundled, parse};

    fn fabric(sets: &[&str]) -> super::Sim {
        let sets: Vec<String> = sets.iter().map(|s| s.to_string()).collect();
        let s = parse(bundled::get("fattree-websearch").unwrap(), "fw.toml", &sets).unwrap();
        build(&s, "fw.toml").unwrap()
    }

    /// Arrivals are built only when due: none before its start, each in a slot of its
    /// own while it runs; a retired flow's slot goes to its entry's next arrival.
    #[test]
    fn flows_exist_only_while_they_run() {
        let mut sim = fabric(&["duration=\"4ms\"", "traffic[0].stop=\"3ms\""]);
        assert!(sim.flows().is_empty());
        let first = sim.workload()[0].start;
        sim.run_until(first, &mut |_| true).unwrap();
        assert!(sim.flows().is_empty(), "nothing before the first start");
        sim.run_until(first + 1, &mut |_| true).unwrap();
        assert_eq!(sim.flows().len(), 1);
        assert_eq!(sim.workload_flow(0), Some(0));
        assert_eq!(sim.flows()[0].name, "web/1");
        sim.run_to_end();
        let finished = sim.workload().iter().filter(|r| r.fct_s.is_some()).count();
        assert!(finished > sim.flows().len(), "{finished} finished in {} slots", sim.flows().len());
        // A finished flow's record outlives it: its slot holds another flow, or none.
        let r = sim.workload().iter().position(|r| r.fct_s.is_some()).unwrap() as u32;
        assert!(sim.workload_flow(r).is_none_or(|f| sim.flows()[f as usize].name != "web/1"));
    }

    /// More flows active at once than the memory budget allows stop the run, with the
    /// limit and the time.
    #[test]
    fn too_many_active_flows_stop_the_run() {
        let mut sim = fabric(&["duration=\"4ms\"", "traffic[0].stop=\"3ms\""]);
        sim.workloads.max_active = 3;
        match sim.run(&mut |_| true) {
            Err(Halt::TooManyFlows { limit: 3, at }) => assert!(at > 0 && at < 3_000_000_000, "{at}"),
            other => panic!("{other:?}"),
        }
    }
}
