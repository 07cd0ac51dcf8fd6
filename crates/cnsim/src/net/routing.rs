//! Static forwarding: shortest-path unicast routes and per-source multicast trees.
//!
//! Paths minimise the hop count. Hosts never forward. Ties are broken deterministically
//! by breadth-first order over node ids and, within a node, over port ids in link
//! declaration order — so the same topology always yields the same routes.

use std::collections::VecDeque;

use super::topology::{Network, NodeId, NodeKind, PortId, NONE};

/// Unicast forwarding tables: for every node and destination host, the egress port.
#[derive(Clone, Debug)]
pub struct Routes {
    /// Host node ids; position = host index.
    pub hosts: Vec<NodeId>,
    /// Host index of each node, or [`NONE`] for switches.
    pub host_index: Vec<u32>,
    /// `next_port[node * hosts.len() + host_index]`, or [`NONE`] if unreachable or self.
    next_port: Vec<PortId>,
    /// Hop count from each node to each host (`u32::MAX` if unreachable).
    hops: Vec<u32>,
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

impl Routes {
    /// Computes the unicast tables of `net`.
    pub fn compute(net: &Network) -> Self {
        let hosts = net.hosts();
        let mut host_index = vec![NONE; net.nodes.len()];
        for (i, &h) in hosts.iter().enumerate() {
            host_index[h as usize] = i as u32;
        }
        let nh = hosts.len();
        let mut next_port = vec![NONE; net.nodes.len() * nh];
        let mut hops = vec![u32::MAX; net.nodes.len() * nh];
        for (hi, &h) in hosts.iter().enumerate() {
            let (via, dist) = bfs_towards(net, h);
            for node in 0..net.nodes.len() {
                next_port[node * nh + hi] = via[node];
                hops[node * nh + hi] = dist[node];
            }
        }
        Routes { hosts, host_index, next_port, hops }
    }

    /// Egress port at `node` towards host `dst`, or [`NONE`].
    #[inline]
    pub fn next_port(&self, node: NodeId, dst: NodeId) -> PortId {
        let hi = self.host_index[dst as usize];
        self.next_port[node as usize * self.hosts.len() + hi as usize]
    }

    /// Hop count from `node` to host `dst` (`u32::MAX` if unreachable).
    pub fn hops(&self, node: NodeId, dst: NodeId) -> u32 {
        let hi = self.host_index[dst as usize];
        self.hops[node as usize * self.hosts.len() + hi as usize]
    }

    /// The ports a frame from `src` to host `dst` leaves through, source first.
    pub fn path(&self, net: &Network, src: NodeId, dst: NodeId) -> Vec<PortId> {
        let mut out = Vec::new();
        let mut at = src;
        while at != dst {
            let p = self.next_port(at, dst);
            if p == NONE || out.len() > net.nodes.len() {
                return Vec::new();
            }
            out.push(p);
            at = net.next_node(p);
        }
        out
    }
}

/// Index of a multicast tree (one per source host and group).
pub type TreeId = u32;

/// Shortest-path multicast trees, one per (source, group) pair in use.
#[derive(Clone, Debug, Default)]
pub struct MulticastTrees {
    n_nodes: usize,
    /// (source host, group index) of each tree.
    pub keys: Vec<(NodeId, u32)>,
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
        if let Some(t) = self.keys.iter().position(|&k| k == (source, group)) {
            return Ok(t as TreeId);
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
        Ok((self.keys.len() - 1) as TreeId)
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

    #[test]
    fn unicast_follows_the_shortest_path() {
        let n = line();
        let r = Routes::compute(&n);
        let path: Vec<String> = r.path(&n, 0, 3).iter().map(|&p| n.port_name(p)).collect();
        assert_eq!(path, ["h0->s0", "s0->s1", "s1->h1"]);
        assert_eq!(r.hops(0, 3), 3);
        assert_eq!(r.next_port(3, 3), NONE);
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
        let r = Routes::compute(&n);
        assert!(r.path(&n, a, b).is_empty());
        assert_eq!(r.hops(a, m), 2);
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
