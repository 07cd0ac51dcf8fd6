//! Nodes, ports and links.
//!
//! A full-duplex link between nodes A and B is two [`Port`]s: A's port transmits towards
//! B (its `peer` is B's port) and B's port transmits towards A. Each port owns the egress
//! queue and the transmitter for its direction. All tables are flat vectors indexed by
//! `u32` ids.

use std::collections::VecDeque;
use std::hash::{Hash, Hasher};

use super::classes::Classes;
use super::frame::FrameId;
use super::queue::{Capacity, SharedPool};
use crate::engine::time::serialization_time;
use crate::engine::{RngStream, Time};

/// Index of a node.
pub type NodeId = u32;
/// Index of a port.
pub type PortId = u32;
/// "No such id".
pub const NONE: u32 = u32::MAX;

/// Hosts originate and sink traffic; switches forward it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum NodeKind {
    /// An end station.
    Host,
    /// An output-queued switch (or router).
    Switch,
}

/// A host or a switch.
#[derive(Clone, Debug)]
pub struct Node {
    /// Unique name from the scenario ("s1", "r1").
    pub name: String,
    /// Host or switch.
    pub kind: NodeKind,
    /// The node's ports, in the order the links were declared.
    pub ports: Vec<PortId>,
    /// Time between a frame's last bit arriving and the frame being placed in an egress
    /// queue (switch processing latency).
    pub(crate) processing: Time,
    /// The switch's shared buffer, if it has one (index into [`Network::pools`]).
    pub(crate) pool: u32,
    /// Largest random addition to the processing latency, drawn per frame (see
    /// [`Network::set_processing_jitter`]); 0: none.
    pub(crate) processing_jitter: Time,
    /// The stream the jitter is drawn from, boxed: few switches have one, and in place
    /// its 16-byte alignment would make every node 32 bytes larger.
    pub(crate) jitter_rng: Option<Box<RngStream>>,
    /// Whether two of the node's links lead to the same node (then its ports' names
    /// number them); set by [`Network::finalize`].
    pub(crate) parallel_links: bool,
}

/// How the frames a port sends reach the next node.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Flight {
    /// After the link's fixed delay, in the order they were sent.
    Direct,
    /// With the next node's random processing jitter added (see
    /// [`Network::set_processing_jitter`]), never overtaking each other.
    Jittered,
    /// Into another partition of a partitioned run (see [`crate::sim::partition`]).
    Crosses,
    /// After the link's fixed delay, to a switch with a port that this link alone
    /// brings frames to: the frame may pass through at once, without an arrival event
    /// of its own (see `Sim::pass_through`).
    Passes,
    /// After the link's fixed delay, to a host that may take the frame as it is sent,
    /// without an arrival event (see `Sim::deliver_early`).
    Delivers,
}

/// One direction of a link: egress queues (one per class) and a transmitter. Fields are
/// laid out hottest first (`repr(C)`) and each port starts a cache line: a frame going
/// straight through an idle port touches its first three lines, and its arrival at the
/// next node (on a fabric) the first line again.
#[derive(Clone, Debug)]
#[repr(C, align(64))]
pub struct Port {
    /// When the transmitter finishes the frame it is sending (≤ now when idle).
    pub busy_until: Time,
    /// Propagation delay plus the far node's processing latency: the time from the last
    /// bit leaving this port to the frame being ready for forwarding at the next node.
    pub to_next_node: Time,
    /// Serialization time, packed as `tag << 40 | value` (the exact computation needs a
    /// 128-bit division). At a rate that puts a whole number of picoseconds on each
    /// byte (10, 25, 40, 100, 400 Gbit/s …) the tag is [`PER_BYTE`] and the value that
    /// number, exact for every size. Otherwise the tag is the last frame size seen and
    /// the value its time: sizes of 2^24 - 1 bytes and times of 2^40 ps (1.1 s) or more
    /// are not kept.
    ser_cache: u64,
    /// Data frames the congestion point let pass unseen and the bytes of its grant
    /// left, packed as `frames << 32 | bytes` (see `AnyCongestionPoint::grant_quiet`).
    pub(crate) cp_quiet: u64,
    /// Node that owns the port.
    pub node: NodeId,
    /// The port at the far end of the link (the next node's ingress).
    pub peer: PortId,
    /// Shared pool of the owning switch, or [`NONE`].
    pub(crate) pool: u32,
    /// Congestion point attached to this port's queues (index into the simulator's
    /// congestion points), or [`NONE`].
    pub(crate) cp: u32,
    /// This port's link-control state (index into the link control's ports: PAUSE
    /// received, ingress accounting), or [`NONE`] when no link control concerns it.
    pub(crate) link: u32,
    /// Whether a `PortFree` event is pending for this port.
    pub(crate) wake_pending: bool,
    /// Whether saturated sources of this port's host wait for room in its queues.
    pub(crate) sources_wait: bool,
    /// How a frame this port sends reaches the next node.
    pub(crate) flight: Flight,
    /// Whether the frames this port sends are traced (`metrics.pcap`).
    pub(crate) traced: bool,
    /// This port's link loss process (index into [`Network::losses`]), or [`NONE`]: read
    /// at each arrival.
    pub loss: u32,
    /// The node at the far end of the link: read at each arrival, beside `peer` and
    /// `loss`, rather than from the far port. An arrival on a fabric, whose frames name
    /// themselves, reads the first line only: hundreds of ports do not stay cached.
    pub(crate) next: NodeId,
    /// Link-local frames (PAUSE) waiting to be sent ahead of every class; allocated
    /// when the first one is sent (most ports never send one, and the data path only
    /// asks whether any waits, beside the classes' backlog). Boxed so that the port
    /// carries one word for it, not a queue's four.
    #[allow(clippy::box_collection)]
    pub(crate) control: Option<Box<VecDeque<FrameId>>>,
    /// Frames waiting to be sent, one queue per traffic class.
    pub classes: Classes,
    /// Frames on the wire, in sending order, with their arrival times at the next node
    /// (not on a fabric's direct links, whose arrival events name their frames): after
    /// the classes, whose queue and counters a fabric's frames read at every hop.
    pub(crate) in_flight: VecDeque<(Time, FrameId)>,
    /// Link rate in bit/s.
    pub rate_bps: u64,
    /// Propagation delay of the link.
    pub(crate) delay: Time,
}

/// Bits of [`Port`]'s serialization cache that hold its value (below its tag).
const TIME_BITS: u32 = 40;
const TIME_MASK: u64 = (1 << TIME_BITS) - 1;
/// The serialization cache's tag of a rate with a whole number of picoseconds per byte.
const PER_BYTE: u32 = (1 << (64 - TIME_BITS)) - 1;

/// The serialization cache of a port sending at `rate_bps`: tagged [`PER_BYTE`] with the
/// picoseconds per byte when the rate divides 8·10¹² evenly and the product with any
/// `u32` size fits in 64 bits; otherwise empty (tag 0: no frame has size 0).
fn per_byte_cache(rate_bps: u64) -> u64 {
    const PS_BITS_PER_BYTE: u64 = 8 * crate::engine::time::PS_PER_S;
    match rate_bps {
        0 => 0,
        r if PS_BITS_PER_BYTE.is_multiple_of(r) && PS_BITS_PER_BYTE / r <= u64::from(u32::MAX) => {
            (u64::from(PER_BYTE) << TIME_BITS) | (PS_BITS_PER_BYTE / r)
        }
        _ => 0,
    }
}

impl Port {
    /// Whether the frame last started counts as being sent for an arrival at `now`,
    /// before the arrival is queued: while it is on the wire, and, under
    /// [`Finishing::Held`](super::Finishing::Held), at the instant it finishes while
    /// frames wait and the port has not yet started the next (its `PortFree` at `now`
    /// is pending).
    #[inline]
    pub fn sending_at_arrival(&self, now: crate::engine::Time) -> bool {
        self.busy_until > now
            || (self.busy_until == now
                && self.wake_pending
                && self.classes.backlog() > 0
                && self.classes.finishing == super::Finishing::Held)
    }

    /// Whether nothing acts on the port's frames but its queues and transmitter: no
    /// congestion point, link control, packet trace or shared buffer. What the
    /// simulator requires of a port whose frames it handles ahead of their events (see
    /// `Sim::mark_passes` and `Sim::mark_late_sources`).
    pub(crate) fn unobserved(&self) -> bool {
        self.cp == NONE && self.link == NONE && !self.traced && self.pool == NONE
    }

    /// Whether link-local frames wait to be sent.
    #[inline]
    pub fn control_waiting(&self) -> bool {
        self.control.as_deref().is_some_and(|c| !c.is_empty())
    }

    /// Frames waiting in the link-local queue.
    pub fn control_len(&self) -> usize {
        self.control.as_deref().map_or(0, VecDeque::len)
    }

    /// Time to serialize `size` bytes on this port's link.
    #[inline]
    pub fn serialization_time(&mut self, size: u32) -> Time {
        let (tag, value) = ((self.ser_cache >> TIME_BITS) as u32, self.ser_cache & TIME_MASK);
        if tag == PER_BYTE {
            return u64::from(size) * value;
        }
        if tag == size {
            return value;
        }
        self.serialization_time_uncached(size)
    }

    /// [`Port::serialization_time`] of a size the cache does not hold, which it then
    /// holds. Out of line: the common paths above stay a few instructions in the caller.
    #[cold]
    #[inline(never)]
    fn serialization_time_uncached(&mut self, size: u32) -> Time {
        let time = serialization_time(size, self.rate_bps);
        if size < PER_BYTE && time <= TIME_MASK {
            self.ser_cache = u64::from(size) << TIME_BITS | time;
        }
        time
    }
}

/// The static network: nodes, ports and shared buffers.
#[derive(Clone, Debug, Default)]
pub struct Network {
    /// All nodes.
    pub nodes: Vec<Node>,
    /// All ports.
    pub ports: Vec<Port>,
    /// Per-switch shared buffers.
    pub(crate) pools: Vec<SharedPool>,
    /// Loss processes of the lossy links (see [`crate::net::loss`]).
    pub losses: Vec<crate::net::LinkLoss>,
    /// Every node's kind, as [`Node::kind`] (see [`Network::kind`]).
    kinds: Vec<NodeKind>,
    /// Node of every name, kept as nodes are added. Ports' names are made when asked
    /// for, from their nodes': a table of them cost a thousand nodes' worth of memory on
    /// a dumbbell of 4096 senders.
    node_index: NameIndex,
    /// Whether [`Network::finalize`] has run (and so said which nodes have parallel
    /// links).
    finalized: bool,
}

/// Node ids by name, in a table hashed by the names the nodes hold: no copy of a name
/// (a copy and a map entry per node cost about 100 bytes each).
#[derive(Clone, Debug, Default)]
struct NameIndex(hashbrown::HashTable<NodeId>);

impl NameIndex {
    /// Indexes node `id` of `nodes` by its name.
    fn insert(&mut self, nodes: &[Node], id: NodeId) {
        let rehash = |&i: &NodeId| name_hash(&nodes[i as usize].name);
        self.0.insert_unique(name_hash(&nodes[id as usize].name), id, rehash);
    }

    /// Makes room for `more` nodes of `nodes` without growing.
    fn reserve(&mut self, nodes: &[Node], more: usize) {
        self.0.reserve(more, |&i| name_hash(&nodes[i as usize].name));
    }

    /// The node named `name` among `nodes`, the nodes the index was made of.
    fn get(&self, nodes: &[Node], name: &str) -> Option<NodeId> {
        self.0.find(name_hash(name), |&id| nodes.get(id as usize).is_some_and(|n| n.name == name)).copied()
    }
}

/// SipHash with fixed keys: the tables it serves are only looked up, never iterated, so
/// no order depends on it.
pub(crate) fn name_hash(name: &str) -> u64 {
    let mut h = std::collections::hash_map::DefaultHasher::new();
    name.hash(&mut h);
    h.finish()
}

impl Network {
    /// An empty network.
    pub fn new() -> Self {
        Self::default()
    }

    /// Adds a node and returns its id.
    pub fn add_node(&mut self, name: &str, kind: NodeKind, processing: Time) -> NodeId {
        self.kinds.push(kind);
        self.nodes.push(Node {
            name: name.to_string(),
            kind,
            ports: Vec::new(),
            processing,
            pool: NONE,
            processing_jitter: 0,
            jitter_rng: None,
            parallel_links: false,
        });
        let id = (self.nodes.len() - 1) as NodeId;
        self.node_index.insert(&self.nodes, id);
        id
    }

    /// Makes room for `more` nodes, so that adding them grows neither the node list nor
    /// the name index (whose doubling would hold both old and new room at once).
    pub fn reserve_nodes(&mut self, more: usize) {
        self.nodes.reserve_exact(more);
        self.kinds.reserve_exact(more);
        self.node_index.reserve(&self.nodes, more);
    }

    /// Gives port `p` the loss process `loss` (replacing any it had).
    pub fn set_loss(&mut self, p: PortId, loss: crate::net::LinkLoss) {
        let port = &mut self.ports[p as usize];
        if port.loss == NONE {
            self.losses.push(loss);
            port.loss = (self.losses.len() - 1) as u32;
        } else {
            self.losses[port.loss as usize] = loss;
        }
    }

    /// Gives switch `node` a shared buffer of `capacity`.
    pub fn add_pool(&mut self, node: NodeId, capacity: Capacity) {
        self.pools.push(SharedPool::new(capacity));
        let pool = (self.pools.len() - 1) as u32;
        self.nodes[node as usize].pool = pool;
        for &p in &self.nodes[node as usize].ports {
            self.ports[p as usize].pool = pool;
        }
    }

    /// Connects `a` and `b` with a full-duplex link; returns (port at a, port at b).
    pub fn add_link(
        &mut self,
        a: NodeId,
        b: NodeId,
        rate_bps: u64,
        delay: Time,
        capacity_a: Capacity,
        capacity_b: Capacity,
    ) -> (PortId, PortId) {
        let pa = self.ports.len() as PortId;
        let pb = pa + 1;
        for (node, peer, next, cap) in [(a, pb, b, capacity_a), (b, pa, a, capacity_b)] {
            self.ports.push(Port {
                node,
                peer,
                next,
                rate_bps,
                delay,
                to_next_node: 0,
                classes: Classes::new(1, cap),
                control: None,
                busy_until: 0,
                wake_pending: false,
                sources_wait: false,
                flight: Flight::Direct,
                traced: false,
                pool: self.nodes[node as usize].pool,
                cp: NONE,
                link: NONE,
                in_flight: VecDeque::new(),
                loss: NONE,
                ser_cache: per_byte_cache(rate_bps),
                cp_quiet: 0,
            });
        }
        self.nodes[a as usize].ports.push(pa);
        self.nodes[b as usize].ports.push(pb);
        (pa, pb)
    }

    /// Fills in each port's delay to the next node's forwarding decision. Call once after
    /// all nodes and links exist.
    pub fn finalize(&mut self) {
        // Which nodes have parallel links: only their ports' names count the links before.
        for n in 0..self.nodes.len() {
            let mut next: Vec<NodeId> = self.nodes[n].ports.iter().map(|&p| self.next_node(p)).collect();
            next.sort_unstable();
            self.nodes[n].parallel_links = next.windows(2).any(|w| w[0] == w[1]);
        }
        self.finalized = true;
        for i in 0..self.ports.len() {
            let peer_node = self.ports[self.ports[i].peer as usize].node;
            self.ports[i].to_next_node = self.ports[i].delay + self.nodes[peer_node as usize].processing;
            if self.nodes[peer_node as usize].processing_jitter > 0 {
                self.ports[i].flight = Flight::Jittered;
            }
        }
    }

    /// Gives switch `node` a random processing jitter: each frame reaching it takes a
    /// uniform random extra time in [0, `jitter`], drawn from `rng`, between its arrival
    /// and its placement in an egress queue, except that a frame never overtakes the one
    /// that reached the switch before it over the same link (the ingress pipeline is
    /// first-in first-out: it is ready no earlier than that one). Frames of different
    /// links interleave at random at the egress queues, which is what breaks the
    /// deterministic phase effects of drop-tail queues (Floyd & Jacobson 1992); frames of
    /// one link keep their order, which the data path relies on (a link delivers its
    /// frames in the order it sent them). Call before [`Network::finalize`].
    pub fn set_processing_jitter(&mut self, node: NodeId, jitter: Time, rng: RngStream) {
        let n = &mut self.nodes[node as usize];
        n.processing_jitter = jitter;
        n.jitter_rng = (jitter > 0).then(|| Box::new(rng));
    }

    /// The arrival time at the next node of a frame port `p` sends, due at `at` before
    /// the next node's jitter: `at` plus a draw in [0, jitter], no earlier than the
    /// arrival of the frame ahead of it on the link.
    pub fn jittered_arrival(&mut self, p: PortId, at: Time) -> Time {
        let port = &self.ports[p as usize];
        let node = &mut self.nodes[self.ports[port.peer as usize].node as usize];
        let rng =
            node.jitter_rng.as_deref_mut().expect("a jittered port leads to a node with a jitter stream");
        let extra = rng.below(node.processing_jitter + 1);
        let ahead = port.in_flight.back().map_or(0, |&(t, _)| t);
        (at + extra).max(ahead)
    }

    /// The rate of node `n`'s first link, bit/s: a host's line rate (QCN's C, a
    /// workload's load base).
    pub fn first_link_rate(&self, n: NodeId) -> u64 {
        self.ports[self.nodes[n as usize].ports[0] as usize].rate_bps
    }

    /// Node id by name.
    pub fn node_by_name(&self, name: &str) -> Option<NodeId> {
        self.node_index.get(&self.nodes, name)
    }

    /// The node at the far end of port `p`.
    #[inline]
    pub fn next_node(&self, p: PortId) -> NodeId {
        self.ports[p as usize].next
    }

    /// Whether node `n` is a host or a switch (from a table of one byte per node, which
    /// every arrival reads and which stays cached).
    #[inline]
    pub fn kind(&self, n: NodeId) -> NodeKind {
        self.kinds[n as usize]
    }

    /// Human name of port `p`: "owner->next" (e.g. "r1->r2"), with "#k" appended for the
    /// k-th parallel link between the same pair. Made when asked for: in constant time,
    /// or linear in the owner's ports where it has parallel links (or before
    /// [`Network::finalize`] has said which nodes have them).
    pub fn port_name(&self, p: PortId) -> String {
        let port = &self.ports[p as usize];
        let owner = &self.nodes[port.node as usize];
        let next = self.next_node(p);
        let base = format!("{}->{}", owner.name, self.nodes[next as usize].name);
        if !owner.parallel_links && self.finalized {
            return base;
        }
        let parallel = owner.ports.iter().filter(|&&q| q < p && self.next_node(q) == next).count();
        if parallel == 0 {
            base
        } else {
            format!("{base}#{}", parallel + 1)
        }
    }

    /// The port named `name` ("r1->r2"), after [`Network::finalize`]: among the ports of
    /// the node whose name comes before an "->" of `name`, the one of that name.
    pub fn port_by_name(&self, name: &str) -> Option<PortId> {
        name.match_indices("->").find_map(|(at, _)| {
            let owner = self.node_index.get(&self.nodes, &name[..at])?;
            self.nodes[owner as usize].ports.iter().copied().find(|&p| self.port_name(p) == name)
        })
    }

    /// Every port's name, in port order.
    pub fn port_names(&self) -> impl Iterator<Item = String> + '_ {
        (0..self.ports.len() as PortId).map(|p| self.port_name(p))
    }

    /// Ids of all host nodes, in declaration order.
    pub fn hosts(&self) -> Vec<NodeId> {
        (0..self.nodes.len() as NodeId).filter(|&n| self.nodes[n as usize].kind == NodeKind::Host).collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::mem::{align_of, offset_of};

    /// What a frame going straight through an idle port reads sits in the port's first
    /// three cache lines: the transmitter and the link-control test in the first.
    #[test]
    fn an_idle_port_is_read_in_three_cache_lines() {
        assert_eq!(align_of::<Port>(), 64);
        assert_eq!(std::mem::size_of::<Port>(), 320, "five cache lines");
        assert!(offset_of!(Port, link) + 4 <= 64);
        assert!(offset_of!(Port, cp_quiet) + 8 <= 64);
        assert!(offset_of!(Port, flight) < 64, "the flight test is read with busy_until");
        let line = |offset: usize| offset / 64;
        assert_eq!(line(offset_of!(Port, control)), line(offset_of!(Port, classes)), "with the backlog");
        assert!(offset_of!(Port, classes) + 16 <= 128);
        assert!(offset_of!(Port, in_flight) >= 3 * 64, "the queue's counters come before it");
        let arrival = [offset_of!(Port, peer), offset_of!(Port, loss), offset_of!(Port, next)];
        assert!(arrival.iter().all(|&o| o + 4 <= 64), "an arrival on a fabric reads the first line");
    }

    /// 10 Gbit/s puts exactly 800 ps on each byte, and every size is then a product;
    /// 3 Gbit/s does not (2666.6… ps), and each size's time is the rounded-up quotient,
    /// whether computed or cached. Every answer equals the direct computation.
    #[test]
    fn serialization_times_are_exact_per_byte_or_cached() {
        let mut net = Network::new();
        let (a, b) = (net.add_node("a", NodeKind::Host, 0), net.add_node("b", NodeKind::Host, 0));
        let cap = Capacity::Frames(10);
        let (ten, _) = net.add_link(a, b, 10_000_000_000, 0, cap, cap);
        let (three, _) = net.add_link(a, b, 3_000_000_000, 0, cap, cap);
        let (slow, _) = net.add_link(a, b, 1, 0, cap, cap);
        assert_eq!(net.ports[ten as usize].ser_cache, u64::from(PER_BYTE) << TIME_BITS | 800);
        assert_eq!(net.ports[ten as usize].serialization_time(1500), 1_200_000);
        assert_eq!(net.ports[ten as usize].serialization_time(u32::MAX), 800 * u64::from(u32::MAX));
        assert_eq!(net.ports[three as usize].ser_cache, 0, "no whole number per byte");
        assert_eq!(net.ports[three as usize].serialization_time(64), 170_667); // 170 666.6…
        assert_eq!(net.ports[three as usize].ser_cache, 64 << TIME_BITS | 170_667);
        assert_eq!(net.ports[three as usize].serialization_time(64), 170_667);
        assert_eq!(net.ports[slow as usize].ser_cache, 0, "8·10¹² ps per byte overflows a size's product");
        for rate in [1, 3_000_000_000, 10_000_000_000, 25_000_000_000, 40_000_000_000, 100_000_000_000, 7] {
            let (p, _) = net.add_link(a, b, rate, 0, cap, cap);
            for size in [1, 64, 1000, 1048, 1500, 9000, 65_536, (1 << 24) - 1, 1 << 24] {
                let port = &mut net.ports[p as usize];
                for _ in 0..2 {
                    assert_eq!(
                        port.serialization_time(size),
                        serialization_time(size, rate),
                        "{size} B at {rate}"
                    );
                }
            }
        }
    }

    /// A host linked to a switch with a jitter of 1000 ps: a frame due at 100 ps arrives
    /// at 100 + d, d the stream's draw in [0, 1000]; one due at 100 ps behind a frame
    /// arriving at 5000 ps arrives at 5000 (no overtaking). The switch's port back to the
    /// host is not jittered (hosts have none).
    #[test]
    fn jitter_draws_and_keeps_the_order() {
        let mut net = Network::new();
        let h = net.add_node("h", NodeKind::Host, 0);
        let s = net.add_node("s", NodeKind::Switch, 0);
        let (to_switch, to_host) =
            net.add_link(h, s, 1_000_000_000, 0, Capacity::Frames(10), Capacity::Frames(10));
        let key = crate::engine::StreamKey { kind: "switch-jitter", name: "s" };
        net.set_processing_jitter(s, 1000, RngStream::new(1, key));
        net.finalize();
        assert_eq!(net.ports[to_switch as usize].flight, Flight::Jittered);
        assert_eq!(net.ports[to_host as usize].flight, Flight::Direct);
        let mut draws = RngStream::new(1, key);
        let d = draws.below(1001);
        assert_eq!(net.jittered_arrival(to_switch, 100), 100 + d);
        net.ports[to_switch as usize].in_flight.push_back((5000, 0));
        draws.below(1001);
        assert_eq!(net.jittered_arrival(to_switch, 100), 5000);
        let later = draws.below(1001);
        assert_eq!(net.jittered_arrival(to_switch, 6000), 6000 + later);
    }

    /// Ports are named "owner->next", the k-th of parallel links "#k" (k ≥ 2), before
    /// and after `finalize`; every name finds its port, even with "->" in a node's name.
    #[test]
    fn ports_are_named_from_their_nodes_and_found_by_name() {
        let mut net = Network::new();
        let (a, b) = (net.add_node("a", NodeKind::Switch, 0), net.add_node("b", NodeKind::Switch, 0));
        let odd = net.add_node("x->y", NodeKind::Host, 0);
        let cap = Capacity::Frames(10);
        let (ab, ba) = net.add_link(a, b, 1_000_000_000, 0, cap, cap);
        let (odd_a, a_odd) = net.add_link(odd, a, 1_000_000_000, 0, cap, cap);
        let (ab2, ba2) = net.add_link(a, b, 1_000_000_000, 0, cap, cap);
        let names = |net: &Network| net.port_names().collect::<Vec<_>>();
        let expected = ["a->b", "b->a", "x->y->a", "a->x->y", "a->b#2", "b->a#2"];
        assert_eq!(names(&net), expected);
        net.finalize();
        assert_eq!(names(&net), expected);
        assert!(net.nodes[a as usize].parallel_links && !net.nodes[odd as usize].parallel_links);
        for (name, port) in expected.iter().zip([ab, ba, odd_a, a_odd, ab2, ba2]) {
            assert_eq!(net.port_by_name(name), Some(port), "{name}");
        }
        for unknown in ["a->b#3", "b->x->y", "a-b", "", "->"] {
            assert_eq!(net.port_by_name(unknown), None, "{unknown}");
        }
    }

    /// Every node is found by its name, before and after `finalize` (through an index
    /// that holds no copy of the names), and so is one added after it; unknown names are
    /// not.
    #[test]
    fn nodes_are_found_by_name() {
        let mut net = Network::new();
        let ids: Vec<NodeId> = (0..3000).map(|i| net.add_node(&format!("s{i}"), NodeKind::Host, 0)).collect();
        assert_eq!(net.node_by_name("s2999"), Some(ids[2999]));
        net.finalize();
        for (i, &id) in ids.iter().enumerate() {
            assert_eq!(net.node_index.get(&net.nodes, &format!("s{i}")), Some(id));
            assert_eq!(net.node_by_name(&format!("s{i}")), Some(id));
        }
        let late = net.add_node("late", NodeKind::Switch, 0);
        assert_eq!(net.node_by_name("late"), Some(late));
        for unknown in ["s3000", "s", "", "S1", "s01"] {
            assert_eq!(net.node_index.get(&net.nodes, unknown), None, "{unknown}");
            assert_eq!(net.node_by_name(unknown), None, "{unknown}");
        }
    }

    /// An arrival at the instant the frame on the wire finishes, with frames waiting and
    /// the next start pending: "held" counts the finishing frame, "left" does not; with
    /// nothing waiting the port is idle either way, and mid-frame it is sending.
    #[test]
    fn a_frame_finishing_at_an_arrival_counts_when_held() {
        let mut net = Network::new();
        let a = net.add_node("a", NodeKind::Switch, 0);
        let b = net.add_node("b", NodeKind::Host, 0);
        let (p, _) = net.add_link(a, b, 1_000_000_000, 0, Capacity::Frames(10), Capacity::Frames(10));
        let port = &mut net.ports[p as usize];
        port.busy_until = 100;
        assert!(port.sending_at_arrival(99), "mid-frame");
        assert!(!port.sending_at_arrival(100), "finished, nothing waiting: idle");
        port.classes.push(0, 0, 1, 1500);
        port.wake_pending = true;
        assert!(port.sending_at_arrival(100), "held: the handover has not happened");
        port.classes.finishing = super::super::Finishing::Left;
        assert!(!port.sending_at_arrival(100), "left");
        assert!(!port.sending_at_arrival(101));
    }
}
