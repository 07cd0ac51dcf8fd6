//! Static forwarding: shortest-path unicast routes and per-source multicast trees.
//!
//! Paths minimise the hop count. Hosts never forward. Ties are broken deterministically
//! by breadth-first order over node ids and, within a node, over port ids in link
//! declaration order — so the same topology always yields the same routes.

use std::collections::{HashMap, VecDeque};

use super::topology::{Network, NodeId, NodeKind, PortId, NONE};

/// Unicast forwarding tables, one row per switch (and per host with several links) with
/// an entry per destination host: the egress port, or a group of equal-cost ports among
/// which a flow is spread by a hash of its id (ECMP). A host with one link sends
/// everything through it and needs no row.
///
/// The tables take `rows × hosts × 4` bytes: a dumbbell of 4096 senders needs two rows,
/// 33 KB, where an all-pairs table of nodes × hosts took 134 MB.
#[derive(Clone, Debug)]
pub struct Routes {
    /// Host node ids; position = host index.
    pub hosts: Vec<NodeId>,
    /// Host index of each node, or [`NONE`] for switches.
    pub(crate) host_index: Vec<u32>,
    /// Table row of each node, or [`NONE`] for a host with at most one link.
    row: Vec<u32>,
    /// The one port of each host with exactly one link ([`NONE`] otherwise).
    only_port: Vec<PortId>,
    /// Number of table rows.
    n_rows: usize,
    /// `entries[host_index * n_rows + row]`: a port, [`ECMP`]` | group`, or [`NONE`]
    /// (unreachable, or the node is the destination).
    entries: Vec<u32>,
    /// ECMP groups: their ports in `ecmp_ports`.
    groups: Vec<Group>,
    /// Ports of the ECMP groups, each group in port order.
    ecmp_ports: Vec<PortId>,
    /// Mixed into ECMP's hash.
    hash_seed: u64,
    /// Under per-packet spraying, the next port of each ECMP group (round robin);
    /// empty otherwise.
    spray_next: Vec<u32>,
    /// The key ECMP hashes for each flow whose key is not its index (a workload flow's
    /// slot holds flows of other keys in turn); empty or shorter: the index.
    hash_keys: Vec<u32>,
}

/// Steps of work (a node searched, an entry written: a few nanoseconds each) between
/// two questions whether to stop.
pub const CHECK_WORK: usize = 1 << 20;

/// Tag of an entry that names an ECMP group rather than a port.
const ECMP: u32 = 1 << 31;

/// Which of a group's equal-cost ports flow `flow` takes at `node`: a fixed hash of
/// both, so that a flow keeps its path and switches choose independently of one
/// another; the hash's remainder by the group's size.
#[inline]
fn ecmp_choice(flow: u32, node: NodeId, group: &Group, seed: u64) -> u32 {
    let key = ((u64::from(flow) << 32 | u64::from(node)) ^ seed).wrapping_mul(0x9E37_79B9_7F4A_7C15);
    let mixed = (key ^ (key >> 29)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    group.remainder((mixed >> 32) as u32)
}

/// An ECMP group: `len` ports from `start` in [`Routes`]' `ecmp_ports`.
#[derive(Clone, Copy, Debug)]
struct Group {
    start: u32,
    len: u32,
    /// `⌈2⁶⁴ / len⌉` (wrapped to 0 for a length of 1), for [`Group::remainder`].
    inverse: u64,
}

impl Group {
    fn new(start: u32, len: u32) -> Self {
        debug_assert!(len > 0);
        Self { start, len, inverse: (u64::MAX / u64::from(len)).wrapping_add(1) }
    }

    /// `x % len` by two multiplications instead of a division, which took tens of
    /// cycles at every ECMP hop: exact for every 32-bit `x` and divisor (Lemire, Kaser
    /// and Kurz, "Faster remainder by direct computation", Software: Practice and
    /// Experience 49(6), 2019).
    #[inline]
    fn remainder(&self, x: u32) -> u32 {
        let low = self.inverse.wrapping_mul(u64::from(x));
        ((u128::from(low) * u128::from(self.len)) >> 64) as u32
    }
}

/// Breadth-first search from `root` that does not expand through hosts other than the
/// root. Returns, for every node, the port through which it reaches its parent (the
/// next hop towards `root`) and its hop distance.
fn bfs_towards(net: &Network, root: NodeId) -> (Vec<PortId>, Vec<u32>) {
    let n = net.nodes.len();
    let mut via = vec![NONE; n];
    let mut dist = vec![u32::MAX; n];
    let mut queue = VecDeque::new();
    dist[root as usize] = 0;
    queue.push_back(root);
    while let Some(u) = queue.pop_front() {
        let node = &net.nodes[u as usize];
        if u != root && node.kind == NodeKind::Host {
            continue;
        }
        for &p in &node.ports {
            let v = net.next_node(p);
            if dist[v as usize] == u32::MAX {
                dist[v as usize] = dist[u as usize] + 1;
                // v reaches u through v's end of this link.
                via[v as usize] = net.ports[p as usize].peer;
                queue.push_back(v);
            }
        }
    }
    (via, dist)
}

/// The hosts reachable from host `src` (itself included), in node order. Hosts do not
/// forward, so a path may pass through switches only.
pub fn reachable_hosts(net: &Network, src: NodeId) -> Vec<NodeId> {
    let (_, dist) = bfs_towards(net, src);
    (0..net.nodes.len() as NodeId)
        .filter(|&n| net.nodes[n as usize].kind == NodeKind::Host && dist[n as usize] != u32::MAX)
        .collect()
}

/// Whether `dst` could be reached from `src` if hosts forwarded: a plain search over
/// every node, for telling a disconnected destination from one cut off by hosts.
pub fn connected_through_hosts(net: &Network, src: NodeId, dst: NodeId) -> bool {
    let mut seen = vec![false; net.nodes.len()];
    let mut stack = vec![src];
    seen[src as usize] = true;
    while let Some(u) = stack.pop() {
        if u == dst {
            return true;
        }
        for &p in &net.nodes[u as usize].ports {
            let v = net.next_node(p);
            if !std::mem::replace(&mut seen[v as usize], true) {
                stack.push(v);
            }
        }
    }
    false
}

/// The links a breadth-first search for the tables needs, packed: for every node, its
/// neighbours that have a table row (switches and hosts with several links), with the
/// port towards each and that neighbour's port back, in port order. Hosts with one link
/// are left out: they are never passed through and need no distance unless they are
/// the search's root (whose own ports are read from the network). A search then reads
/// a few contiguous words per link instead of two port records.
struct RowGraph {
    /// `adj[start[u]..start[u + 1]]`: the links of node `u`.
    start: Vec<u32>,
    /// (neighbour, port of `u` towards it, the neighbour's port back).
    adj: Vec<(NodeId, PortId, PortId)>,
    /// Whether each node is a switch.
    switch: Vec<bool>,
}

impl RowGraph {
    fn new(net: &Network, row: &[u32]) -> Self {
        let mut start = Vec::with_capacity(net.nodes.len() + 1);
        let mut adj = Vec::new();
        for node in &net.nodes {
            start.push(adj.len() as u32);
            for &p in &node.ports {
                let back = net.ports[p as usize].peer;
                let v = net.ports[back as usize].node;
                if row[v as usize] != NONE {
                    adj.push((v, p, back));
                }
            }
        }
        start.push(adj.len() as u32);
        let switch = net.nodes.iter().map(|n| n.kind == NodeKind::Switch).collect();
        RowGraph { start, adj, switch }
    }

    fn links(&self, u: NodeId) -> &[(NodeId, PortId, PortId)] {
        &self.adj[self.start[u as usize] as usize..self.start[u as usize + 1] as usize]
    }
}

/// A reusable breadth-first search towards a root over a [`RowGraph`]: distances are
/// valid where `stamp` equals the current search's, so nothing is cleared between
/// searches.
struct Search {
    stamp: Vec<u32>,
    current: u32,
    dist: Vec<u32>,
    via: Vec<PortId>,
    queue: Vec<NodeId>,
}

impl Search {
    fn new(n: usize) -> Self {
        Search { stamp: vec![0; n], current: 0, dist: vec![0; n], via: vec![NONE; n], queue: Vec::new() }
    }

    /// Hop distance of `v` from the last root, or `u32::MAX` if unreached.
    #[inline]
    fn dist(&self, v: NodeId) -> u32 {
        if self.stamp[v as usize] == self.current {
            self.dist[v as usize]
        } else {
            u32::MAX
        }
    }

    #[inline]
    fn reach(&mut self, v: NodeId, d: u32, via: PortId) -> bool {
        if self.stamp[v as usize] == self.current {
            return false;
        }
        self.stamp[v as usize] = self.current;
        self.dist[v as usize] = d;
        self.via[v as usize] = via;
        self.queue.push(v);
        true
    }

    /// Searches from `root`, expanding the root and switches only (hosts do not
    /// forward), in the order [`bfs_towards`] does; returns the number of nodes reached.
    fn run(&mut self, net: &Network, graph: &RowGraph, root: NodeId) -> usize {
        self.current += 1;
        self.queue.clear();
        self.reach(root, 0, NONE);
        // The root's own ports, from the network: a root with one link is in no packed
        // list of its own.
        for &p in &net.nodes[root as usize].ports {
            let back = net.ports[p as usize].peer;
            let v = net.ports[back as usize].node;
            if v != root {
                self.reach(v, 1, back);
            }
        }
        let mut head = 1;
        while head < self.queue.len() {
            let u = self.queue[head];
            head += 1;
            if !graph.switch[u as usize] {
                continue;
            }
            let d = self.dist[u as usize] + 1;
            for &(v, _, back) in graph.links(u) {
                self.reach(v, d, back);
            }
        }
        self.queue.len()
    }
}

impl Routes {
    /// Computes the unicast tables of `net`; with `ecmp`, a flow is spread over every
    /// equal-cost next hop, else the first found (breadth-first, in port order) is used.
    ///
    /// The work is one search per anchor (below) over the switches and hosts with
    /// several links, plus one write per table entry: the tables' size, rows × hosts,
    /// bounds it wherever every switch has hosts (a parking lot, a chain).
    pub fn compute(net: &Network, ecmp: bool) -> Self {
        match Self::compute_until(net, ecmp, &mut || true) {
            Some(routes) => routes,
            None => unreachable!("a computation that is never asked to stop finishes"),
        }
    }

    /// [`Routes::compute`], asking `keep_going` about every [`CHECK_WORK`] steps of
    /// work (nodes searched, entries written) whether to go on; `None` when told to
    /// stop.
    pub fn compute_until(net: &Network, ecmp: bool, keep_going: &mut dyn FnMut() -> bool) -> Option<Self> {
        let hosts = net.hosts();
        let n = net.nodes.len();
        let mut host_index = vec![NONE; n];
        for (i, &h) in hosts.iter().enumerate() {
            host_index[h as usize] = i as u32;
        }
        let mut row = vec![NONE; n];
        let mut only_port = vec![NONE; n];
        let mut rows: Vec<NodeId> = Vec::new();
        for (v, node) in net.nodes.iter().enumerate() {
            if node.kind == NodeKind::Host && node.ports.len() <= 1 {
                only_port[v] = node.ports.first().copied().unwrap_or(NONE);
            } else {
                row[v] = rows.len() as u32;
                rows.push(v as NodeId);
            }
        }
        let nh = hosts.len();
        let n_rows = rows.len();
        let mut entries = vec![NONE; n_rows * nh];
        let mut groups: Vec<Group> = Vec::new();
        let mut ecmp_ports: Vec<PortId> = Vec::new();
        let mut group_of: HashMap<Vec<PortId>, u32> = HashMap::new();
        // Breadth-first searches are rooted at "anchors": a host with one link to a
        // switch is reached only through that switch, so the routes towards every such
        // host of a switch follow from one search from the switch (a dumbbell of 4096
        // senders needs 2 searches, not 4097). Other hosts are their own anchors.
        let mut anchored: Vec<Vec<NodeId>> = vec![Vec::new(); n];
        for &h in &hosts {
            let p = only_port[h as usize];
            let next = if p == NONE { NONE } else { net.next_node(p) };
            if next != NONE && net.nodes[next as usize].kind == NodeKind::Switch {
                anchored[next as usize].push(h);
            } else {
                anchored[h as usize].push(h);
            }
        }
        let graph = RowGraph::new(net, &row);
        let mut search = Search::new(n);
        let mut equal: Vec<PortId> = Vec::new();
        let mut column: Vec<u32> = vec![NONE; n_rows];
        let mut work = 0usize;
        for (anchor, members) in anchored.iter().enumerate() {
            let anchor = anchor as NodeId;
            if members.is_empty() {
                continue;
            }
            if work >= CHECK_WORK {
                work = 0;
                if !keep_going() {
                    return None;
                }
            }
            work += search.run(net, &graph, anchor) + n_rows * (1 + members.len());
            // The entry of every row towards the anchor (shared by all its hosts).
            for (r, &v) in rows.iter().enumerate() {
                let d = search.dist(v);
                column[r] = NONE;
                if v == anchor || d == u32::MAX {
                    continue;
                }
                equal.clear();
                if ecmp {
                    // Every port one hop closer, through a switch or straight to the
                    // anchor (a host with one link is only ever the anchor, reached
                    // through its one link: no choice to spread over).
                    equal.extend(graph.links(v).iter().filter_map(|&(w, p, _)| {
                        (search.dist(w) == d - 1 && (w == anchor || graph.switch[w as usize])).then_some(p)
                    }));
                }
                column[r] = if equal.len() > 1 {
                    let g = match group_of.get(equal.as_slice()) {
                        Some(&g) => g,
                        None => {
                            let g = groups.len() as u32;
                            groups.push(Group::new(ecmp_ports.len() as u32, equal.len() as u32));
                            ecmp_ports.extend_from_slice(&equal);
                            group_of.insert(equal.clone(), g);
                            g
                        }
                    };
                    ECMP | g
                } else {
                    search.via[v as usize]
                };
            }
            // Column-major: one host's entries are contiguous, so this loop writes
            // memory in order; a table row apart each, every write would miss the
            // cache and the TLB once the tables outgrow them.
            for &h in members {
                let hi = host_index[h as usize] as usize;
                let out = &mut entries[hi * n_rows..(hi + 1) * n_rows];
                out.copy_from_slice(&column);
                if row[h as usize] != NONE {
                    out[row[h as usize] as usize] = NONE;
                }
                if row[anchor as usize] != NONE && anchor != h {
                    // The anchor switch itself: the link down to the host.
                    out[row[anchor as usize] as usize] = net.ports[only_port[h as usize] as usize].peer;
                }
            }
        }
        Some(Routes {
            hosts,
            host_index,
            row,
            only_port,
            n_rows,
            entries,
            groups,
            ecmp_ports,
            hash_seed: 0,
            spray_next: Vec::new(),
            hash_keys: Vec::new(),
        })
    }

    /// Egress port at `node` for a frame of flow `flow` towards host `dst`, or [`NONE`].
    #[inline(always)] // once per frame at every switch; LLVM stopped inlining it when forward grew
    pub fn next_port(&self, node: NodeId, dst: NodeId, flow: u32) -> PortId {
        self.port_towards(node, dst, || self.hash_keys.get(flow as usize).copied().unwrap_or(flow))
    }

    /// Egress port at `node` towards host `dst` for a flow that ECMP hashes as `key()`.
    #[inline(always)]
    fn port_towards(&self, node: NodeId, dst: NodeId, key: impl FnOnce() -> u32) -> PortId {
        if node == dst {
            return NONE;
        }
        let r = self.row[node as usize];
        if r == NONE {
            return self.only_port[node as usize];
        }
        let hi = self.host_index[dst as usize];
        let e = self.entries[hi as usize * self.n_rows + r as usize];
        if e == NONE || e & ECMP == 0 {
            return e;
        }
        let group = &self.groups[(e & !ECMP) as usize];
        self.ecmp_ports[(group.start + ecmp_choice(key(), node, group, self.hash_seed)) as usize]
    }

    /// Flow `flow` is hashed by ECMP as `key` from now on.
    pub fn set_hash_key(&mut self, flow: u32, key: u32) {
        let f = flow as usize;
        if self.hash_keys.len() <= f {
            let from = self.hash_keys.len() as u32;
            self.hash_keys.extend(from..=flow);
        }
        self.hash_keys[f] = key;
    }

    /// How equal-cost paths are chosen: ECMP's hash mixed with `seed`, and with `spray`
    /// each packet in turn rather than each flow by its hash.
    pub fn set_load_balancing(&mut self, seed: u64, spray: bool) {
        self.hash_seed = seed;
        self.spray_next = if spray { vec![0; self.groups.len()] } else { Vec::new() };
    }

    /// Whether packets are sprayed over equal-cost paths (a flow's frames then take
    /// several).
    pub fn sprays(&self) -> bool {
        !self.spray_next.is_empty()
    }

    /// The egress port of a frame of flow `flow` at `node` towards `dst`, as the data
    /// path takes it: [`Routes::next_port`], or under spraying the group's next port.
    #[inline(always)]
    pub fn forward_port(&mut self, node: NodeId, dst: NodeId, flow: u32) -> PortId {
        if self.spray_next.is_empty() {
            return self.next_port(node, dst, flow);
        }
        let r = self.row[node as usize];
        if node == dst || r == NONE {
            return self.next_port(node, dst, flow);
        }
        let e = self.entries[self.host_index[dst as usize] as usize * self.n_rows + r as usize];
        if e == NONE || e & ECMP == 0 {
            return e;
        }
        let g = (e & !ECMP) as usize;
        let Group { start, len, .. } = self.groups[g];
        let k = self.spray_next[g];
        self.spray_next[g] = (k + 1) % len;
        self.ecmp_ports[(start + k) as usize]
    }

    /// The ports a frame of flow `flow` from `src` to host `dst` leaves through, source
    /// first; empty if `dst` is unreachable. Hosts do not forward: a path that would
    /// leave a host other than the source is no path (a host's table row, or its one
    /// port, is where its own frames go, not a route for others').
    pub fn path(&self, net: &Network, src: NodeId, dst: NodeId, flow: u32) -> Vec<PortId> {
        self.path_keyed(net, src, dst, self.hash_keys.get(flow as usize).copied().unwrap_or(flow))
    }

    /// [`Routes::path`] of a flow that ECMP hashes as `key`.
    pub fn path_keyed(&self, net: &Network, src: NodeId, dst: NodeId, key: u32) -> Vec<PortId> {
        let mut out = Vec::new();
        let mut at = src;
        while at != dst {
            if at != src && net.nodes[at as usize].kind == NodeKind::Host {
                return Vec::new();
            }
            let p = self.port_towards(at, dst, || key);
            if p == NONE || out.len() > net.nodes.len() {
                return Vec::new();
            }
            out.push(p);
            at = net.next_node(p);
        }
        out
    }

    /// Whether host `dst` can be reached from `src`.
    pub fn reachable(&self, net: &Network, src: NodeId, dst: NodeId) -> bool {
        src != dst && !self.path(net, src, dst, 0).is_empty()
    }

    /// Bytes the tables take.
    pub fn table_bytes(&self) -> usize {
        self.entries.len() * 4 + self.ecmp_ports.len() * 4 + self.groups.len() * std::mem::size_of::<Group>()
    }
}

/// Index of a multicast tree (one per source host and group).
pub type TreeId = u32;

/// Shortest-path multicast trees, one per (source, group) pair in use.
#[derive(Clone, Debug, Default)]
pub struct MulticastTrees {
    n_nodes: usize,
    /// (source host, group index) of each tree.
    pub(crate) keys: Vec<(NodeId, u32)>,
    /// Tree of each key.
    by_key: HashMap<(NodeId, u32), TreeId>,
    /// Per tree and node: range into `ports`.
    index: Vec<(u32, u32)>,
    /// Egress ports, concatenated.
    ports: Vec<PortId>,
    /// Per tree and node: whether the node is a member that consumes the frame.
    member: Vec<bool>,
}

/// Why a multicast tree could not be built.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct UnreachableMember(pub NodeId);

impl MulticastTrees {
    /// Trees over `net` with no tree yet.
    pub fn new(net: &Network) -> Self {
        Self { n_nodes: net.nodes.len(), ..Self::default() }
    }

    /// Builds (or returns the existing) tree from host `source` to `members` of group
    /// `group`. The tree is the union of the breadth-first shortest paths from the source,
    /// so every switch on it copies a frame once onto each egress port that leads to a
    /// member, and only there.
    pub fn tree(
        &mut self,
        net: &Network,
        source: NodeId,
        group: u32,
        members: &[NodeId],
    ) -> Result<TreeId, UnreachableMember> {
        if let Some(&t) = self.by_key.get(&(source, group)) {
            return Ok(t);
        }
        // BFS rooted at the source; `via[v]` is v's port back towards the source, so the
        // parent's egress port towards v is that port's peer.
        let (via, _) = bfs_towards(net, source);
        let mut out: Vec<Vec<PortId>> = vec![Vec::new(); self.n_nodes];
        let mut member = vec![false; self.n_nodes];
        for &m in members {
            if m == source {
                continue;
            }
            if via[m as usize] == NONE {
                return Err(UnreachableMember(m));
            }
            member[m as usize] = true;
            let mut v = m;
            while v != source {
                let up = via[v as usize];
                let parent_port = net.ports[up as usize].peer;
                let parent = net.ports[parent_port as usize].node;
                let list = &mut out[parent as usize];
                if list.contains(&parent_port) {
                    break; // the rest of the path is already on the tree
                }
                list.push(parent_port);
                v = parent;
            }
        }
        for (node, list) in out.iter_mut().enumerate() {
            list.sort_unstable();
            let start = self.ports.len() as u32;
            self.ports.extend_from_slice(list);
            self.index.push((start, list.len() as u32));
            self.member.push(member[node]);
        }
        self.keys.push((source, group));
        let t = (self.keys.len() - 1) as TreeId;
        self.by_key.insert((source, group), t);
        Ok(t)
    }

    /// Egress ports of tree `t` at `node`.
    #[inline]
    pub fn out_ports(&self, t: TreeId, node: NodeId) -> &[PortId] {
        let (s, l) = self.index[t as usize * self.n_nodes + node as usize];
        &self.ports[s as usize..(s + l) as usize]
    }

    /// Indices (for [`MulticastTrees::port_at`]) of tree `t`'s egress ports at `node`.
    #[inline]
    pub fn out_range(&self, t: TreeId, node: NodeId) -> std::ops::Range<usize> {
        let (s, l) = self.index[t as usize * self.n_nodes + node as usize];
        s as usize..(s + l) as usize
    }

    /// The `i`-th stored egress port.
    #[inline]
    pub fn port_at(&self, i: usize) -> PortId {
        self.ports[i]
    }

    /// Whether `node` is a member of tree `t`'s group.
    #[inline]
    pub fn is_member(&self, t: TreeId, node: NodeId) -> bool {
        self.member[t as usize * self.n_nodes + node as usize]
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::net::queue::Capacity;

    /// h0 - s0 - s1 - h1, plus h2 on s1 and h3 on s0.
    fn line() -> Network {
        let mut n = Network::new();
        let h0 = n.add_node("h0", NodeKind::Host, 0);
        let s0 = n.add_node("s0", NodeKind::Switch, 0);
        let s1 = n.add_node("s1", NodeKind::Switch, 0);
        let h1 = n.add_node("h1", NodeKind::Host, 0);
        let h2 = n.add_node("h2", NodeKind::Host, 0);
        let h3 = n.add_node("h3", NodeKind::Host, 0);
        let c = Capacity::Frames(10);
        n.add_link(h0, s0, 1, 0, c, c);
        n.add_link(s0, s1, 1, 0, c, c);
        n.add_link(s1, h1, 1, 0, c, c);
        n.add_link(s1, h2, 1, 0, c, c);
        n.add_link(s0, h3, 1, 0, c, c);
        n.finalize();
        n
    }

    /// The remainder by multiplication equals `%` for every group size up to 64 and
    /// dividends at both ends of the 32-bit range and between.
    #[test]
    fn ecmp_remainder_is_exact() {
        let mut x = 0x1234_5678u32;
        for len in 1..=64 {
            let group = Group::new(0, len);
            for d in [0, 1, 2, len - 1, len, len + 1, u32::MAX - 1, u32::MAX] {
                assert_eq!(group.remainder(d), d % len, "{d} % {len}");
            }
            for _ in 0..1000 {
                x ^= x << 13;
                x ^= x >> 17;
                x ^= x << 5;
                assert_eq!(group.remainder(x), x % len, "{x} % {len}");
            }
        }
    }

    #[test]
    fn unicast_follows_the_shortest_path() {
        let n = line();
        let r = Routes::compute(&n, true);
        let path: Vec<String> = r.path(&n, 0, 3, 0).iter().map(|&p| n.port_name(p)).collect();
        assert_eq!(path, ["h0->s0", "s0->s1", "s1->h1"]);
        assert_eq!(r.next_port(3, 3, 0), NONE);
        // Only the two switches have table rows.
        assert_eq!(r.table_bytes(), 2 * 4 * 4);
    }

    #[test]
    fn hosts_do_not_forward() {
        // Two switches joined only through a host: no route between them.
        let mut n = Network::new();
        let a = n.add_node("a", NodeKind::Host, 0);
        let s0 = n.add_node("s0", NodeKind::Switch, 0);
        let m = n.add_node("m", NodeKind::Host, 0);
        let s1 = n.add_node("s1", NodeKind::Switch, 0);
        let b = n.add_node("b", NodeKind::Host, 0);
        let c = Capacity::Frames(1);
        n.add_link(a, s0, 1, 0, c, c);
        n.add_link(s0, m, 1, 0, c, c);
        n.add_link(m, s1, 1, 0, c, c);
        n.add_link(s1, b, 1, 0, c, c);
        n.finalize();
        let r = Routes::compute(&n, true);
        assert!(r.path(&n, a, b, 0).is_empty());
        assert!(!r.reachable(&n, a, b));
        assert_eq!(r.path(&n, a, m, 0).len(), 2);
        assert_eq!(reachable_hosts(&n, a), [a, m]);
        assert!(connected_through_hosts(&n, a, b));
    }

    /// Regression: a host whose one link leads to another host sent everything there,
    /// and the path check followed that host's own table row onwards, so a → m → s → b
    /// counted as a route (and m consumed the frames as if it were b).
    #[test]
    fn a_host_is_no_transit_for_a_host_behind_it() {
        let mut n = Network::new();
        let a = n.add_node("a", NodeKind::Host, 0);
        let m = n.add_node("m", NodeKind::Host, 0);
        let s = n.add_node("s", NodeKind::Switch, 0);
        let b = n.add_node("b", NodeKind::Host, 0);
        let c = Capacity::Frames(1);
        n.add_link(a, m, 1, 0, c, c);
        n.add_link(m, s, 1, 0, c, c);
        n.add_link(s, b, 1, 0, c, c);
        n.finalize();
        for ecmp in [true, false] {
            let r = Routes::compute(&n, ecmp);
            assert!(r.path(&n, a, b, 0).is_empty(), "ecmp {ecmp}");
            assert!(!r.reachable(&n, a, b));
            // m's own frames, and frames to m, have their paths.
            assert_eq!(r.path(&n, m, b, 0).len(), 2);
            assert_eq!(r.path(&n, a, m, 0).len(), 1);
            assert_eq!(r.path(&n, b, m, 0).len(), 2);
        }
        assert_eq!(reachable_hosts(&n, a), [a, m]);
        assert!(connected_through_hosts(&n, a, b));
    }

    /// On random small networks (hosts with one link, several links, links between
    /// hosts, parallel links), every path the tables give is a shortest path through
    /// switches only, found exactly where a plain search from the source finds the
    /// destination, and every hop is one a search from the destination allows (without
    /// ECMP, the first it found).
    #[test]
    fn tables_agree_with_a_search_per_destination() {
        let mut seed = 0x2545_F491_4F6C_DD1Du64;
        let mut next = |n: u64| {
            seed ^= seed << 13;
            seed ^= seed >> 7;
            seed ^= seed << 17;
            seed % n
        };
        let c = Capacity::Frames(1);
        for _ in 0..300 {
            let mut n = Network::new();
            let (switches, hosts) = (1 + next(6) as u32, 2 + next(7) as u32);
            for i in 0..switches {
                n.add_node(&format!("s{i}"), NodeKind::Switch, 0);
            }
            for i in 0..hosts {
                n.add_node(&format!("h{i}"), NodeKind::Host, 0);
            }
            let total = u64::from(switches + hosts);
            for _ in 0..next(3 * total) + total / 2 {
                let (a, b) = (next(total) as NodeId, next(total) as NodeId);
                if a != b {
                    n.add_link(a, b, 1, 0, c, c);
                }
            }
            n.finalize();
            for ecmp in [true, false] {
                let r = Routes::compute(&n, ecmp);
                for &dst in &n.hosts() {
                    let (via, dist) = bfs_towards(&n, dst);
                    for &src in &n.hosts() {
                        if src == dst {
                            continue;
                        }
                        let (_, from_src) = bfs_towards(&n, src);
                        let reachable = from_src[dst as usize] != u32::MAX;
                        for flow in 0..4 {
                            let path = r.path(&n, src, dst, flow);
                            assert_eq!(!path.is_empty(), reachable, "{src} -> {dst}");
                            if !reachable {
                                continue;
                            }
                            assert_eq!(path.len() as u32, from_src[dst as usize], "{src} -> {dst}");
                            for &p in &path {
                                let (v, w) = (n.ports[p as usize].node, n.next_node(p));
                                assert!(v == src || n.nodes[v as usize].kind == NodeKind::Switch);
                                assert_eq!(dist[w as usize] + 1, dist[v as usize], "{src} -> {dst}");
                                if !ecmp {
                                    assert_eq!(p, via[v as usize], "{src} -> {dst}");
                                }
                            }
                        }
                    }
                }
            }
        }
    }

    /// The computation asks whether to go on after about [`CHECK_WORK`] steps, and
    /// stops between searches when told to.
    #[test]
    fn computing_stops_when_told() {
        let mut n = Network::new();
        let c = Capacity::Frames(1);
        let switches: Vec<NodeId> =
            (0..3000).map(|i| n.add_node(&format!("s{i}"), NodeKind::Switch, 0)).collect();
        for (i, &s) in switches.iter().enumerate() {
            let h = n.add_node(&format!("h{i}"), NodeKind::Host, 0);
            n.add_link(h, s, 1, 0, c, c);
            if i > 0 {
                n.add_link(switches[i - 1], s, 1, 0, c, c);
            }
        }
        n.finalize();
        let mut asked = 0;
        assert!(Routes::compute_until(&n, true, &mut || {
            asked += 1;
            true
        })
        .is_some());
        // 3000 searches reaching 3001 nodes, and 3000 columns of 3000 rows made and
        // copied: 2.7·10⁷ steps, a question every 117 searches (2^20 steps).
        assert_eq!(asked, 25);
        let mut asked = 0;
        let stopped = Routes::compute_until(&n, true, &mut || {
            asked += 1;
            asked < 3
        });
        assert!(stopped.is_none());
        assert_eq!(asked, 3);
    }

    /// h0 - s0 = (s1 | s2) = s3 - h1: two equal-cost paths. With ECMP, flows spread over
    /// both, each flow keeping one; without, all take the first found.
    /// h0 - s0, two equal-cost ways s0 - s1 - s3 and s0 - s2 - s3, s3 - h1; and the hosts.
    fn diamond() -> (Network, [NodeId; 2]) {
        let mut n = Network::new();
        let h0 = n.add_node("h0", NodeKind::Host, 0);
        let s: Vec<NodeId> = (0..4).map(|i| n.add_node(&format!("s{i}"), NodeKind::Switch, 0)).collect();
        let h1 = n.add_node("h1", NodeKind::Host, 0);
        let c = Capacity::Frames(1);
        n.add_link(h0, s[0], 1, 0, c, c);
        n.add_link(s[0], s[1], 1, 0, c, c);
        n.add_link(s[0], s[2], 1, 0, c, c);
        n.add_link(s[1], s[3], 1, 0, c, c);
        n.add_link(s[2], s[3], 1, 0, c, c);
        n.add_link(s[3], h1, 1, 0, c, c);
        n.finalize();
        (n, [h0, h1])
    }

    #[test]
    fn ecmp_spreads_flows_over_equal_cost_paths() {
        let (n, [h0, h1]) = diamond();
        let via = |r: &Routes, flow| n.port_name(r.path(&n, h0, h1, flow)[1]);
        let r = Routes::compute(&n, true);
        let mut counts = std::collections::BTreeMap::new();
        for flow in 0..1000 {
            assert_eq!(via(&r, flow), via(&r, flow), "a flow keeps its path");
            *counts.entry(via(&r, flow)).or_insert(0) += 1;
        }
        assert_eq!(counts.keys().collect::<Vec<_>>(), ["s0->s1", "s0->s2"]);
        assert!(counts.values().all(|&c| (400..=600).contains(&c)), "{counts:?}");
        // Back from h1: also spread at s3.
        let back: std::collections::BTreeSet<String> =
            (0..100).map(|f| n.port_name(r.path(&n, h1, h0, f)[1])).collect();
        assert_eq!(back.len(), 2);
        let single = Routes::compute(&n, false);
        assert!((0..100).all(|f| via(&single, f) == "s0->s1"));
    }

    /// A flow given a hash key takes the path of the flow whose index is that key, in
    /// the data path and in `path`: a recycled slot's frames follow their flow's key.
    #[test]
    fn a_hash_key_stands_for_the_flow_index() {
        let (n, [h0, h1]) = diamond();
        let s0 = n.node_by_name("s0").unwrap();
        let mut r = Routes::compute(&n, true);
        let via = |r: &Routes, flow| n.port_name(r.path(&n, h0, h1, flow)[1]);
        // Two flows that ECMP sends different ways.
        let other = (1..100).find(|&f| via(&r, f) != via(&r, 0)).unwrap();
        let (zero, away) = (via(&r, 0), via(&r, other));
        r.set_hash_key(0, other);
        assert_eq!(via(&r, 0), away);
        assert_eq!(n.port_name(r.path_keyed(&n, h0, h1, other)[1]), away);
        assert_eq!(n.port_name(r.next_port(s0, h1, 0)), away);
        // Flows below it that have no key of their own keep their index.
        r.set_hash_key(other + 5, 0);
        assert_eq!(via(&r, other), away);
        assert_eq!(via(&r, other + 5), zero);
    }

    #[test]
    fn multicast_tree_branches_only_where_members_diverge() {
        let n = line();
        let mut t = MulticastTrees::new(&n);
        let tree = t.tree(&n, 0, 0, &[3, 4]).unwrap();
        let names =
            |node| -> Vec<String> { t.out_ports(tree, node).iter().map(|&p| n.port_name(p)).collect() };
        assert_eq!(names(0), ["h0->s0"]);
        assert_eq!(names(1), ["s0->s1"]); // not towards h3
        assert_eq!(names(2), ["s1->h1", "s1->h2"]);
        assert!(t.is_member(tree, 3) && t.is_member(tree, 4) && !t.is_member(tree, 5));
        assert_eq!(t.tree(&n, 0, 0, &[3, 4]).unwrap(), tree);
    }
}
