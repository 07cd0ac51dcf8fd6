//! Which hosts each host reaches, for random ("uniform") destinations.
//!
//! Hosts do not forward, so a host reaches itself, the hosts it is linked to directly,
//! and every host linked to a connected group of switches ("component") that it is
//! linked to. The components are found once, in time linear in the links, and hosts
//! linked to the same components (in a switched network: every host of a component)
//! share one list, so the lists of all hosts take time linear in the network rather
//! than a search per host.

use super::topology::{Network, NodeId, NodeKind, NONE};

/// The switch components of a network and the hosts linked to each.
#[derive(Clone, Debug)]
pub struct Reach {
    /// Component of each switch ([`NONE`] for hosts).
    component: Vec<u32>,
    /// The hosts linked to each component, in node order.
    hosts_of: Vec<Vec<NodeId>>,
}

/// What decides the hosts a host reaches: the components it is linked to and, where it
/// is linked to hosts (or to no switch), the hosts it reaches besides them, itself
/// included. Hosts with equal keys reach the same hosts.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct ReachKey {
    components: Vec<u32>,
    hosts: Vec<NodeId>,
}

impl Reach {
    /// The components of `net`.
    pub fn new(net: &Network) -> Self {
        let n = net.nodes.len();
        let mut component = vec![NONE; n];
        let mut hosts_of: Vec<Vec<NodeId>> = Vec::new();
        let mut stack: Vec<NodeId> = Vec::new();
        for s in 0..n {
            if net.nodes[s].kind != NodeKind::Switch || component[s] != NONE {
                continue;
            }
            let c = hosts_of.len() as u32;
            hosts_of.push(Vec::new());
            component[s] = c;
            stack.push(s as NodeId);
            while let Some(u) = stack.pop() {
                for &p in &net.nodes[u as usize].ports {
                    let v = net.next_node(p) as usize;
                    if net.nodes[v].kind == NodeKind::Switch && component[v] == NONE {
                        component[v] = c;
                        stack.push(v as NodeId);
                    }
                }
            }
        }
        // Hosts in node order, so each list comes out sorted; a host with several links
        // to one component is listed once (its entries are consecutive).
        for h in 0..n {
            if net.nodes[h].kind != NodeKind::Host {
                continue;
            }
            for &p in &net.nodes[h].ports {
                let c = component[net.next_node(p) as usize];
                if c != NONE && hosts_of[c as usize].last() != Some(&(h as NodeId)) {
                    hosts_of[c as usize].push(h as NodeId);
                }
            }
        }
        Reach { component, hosts_of }
    }

    /// The key of host `src`.
    pub fn key(&self, net: &Network, src: NodeId) -> ReachKey {
        let mut components = Vec::new();
        let mut hosts = Vec::new();
        for &p in &net.nodes[src as usize].ports {
            let v = net.next_node(p);
            match self.component[v as usize] {
                NONE => hosts.push(v),
                c => components.push(c),
            }
        }
        if !hosts.is_empty() || components.is_empty() {
            hosts.push(src);
        }
        for v in [&mut components, &mut hosts] {
            v.sort_unstable();
            v.dedup();
        }
        ReachKey { components, hosts }
    }

    /// At most how many hosts a host with `key` reaches (for the memory estimate).
    pub fn count_bound(&self, key: &ReachKey) -> usize {
        key.components.iter().map(|&c| self.hosts_of[c as usize].len()).sum::<usize>() + key.hosts.len()
    }

    /// The hosts a host with `key` reaches (itself included), in node order.
    pub fn hosts(&self, key: &ReachKey) -> Vec<NodeId> {
        if let ([c], []) = (key.components.as_slice(), key.hosts.as_slice()) {
            return self.hosts_of[*c as usize].clone();
        }
        let mut out = Vec::with_capacity(self.count_bound(key));
        for &c in &key.components {
            out.extend_from_slice(&self.hosts_of[c as usize]);
        }
        out.extend_from_slice(&key.hosts);
        out.sort_unstable();
        out.dedup();
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::net::queue::Capacity;
    use crate::net::routing::reachable_hosts;

    /// Hand-worked: s0 - s1 and s2 are two components; a, b on s0, c on s1, d on s2;
    /// m links s1 and s2; e is linked to m only; f to nothing.
    #[test]
    fn hosts_reach_their_components_and_their_neighbours() {
        let mut n = Network::new();
        let s: Vec<NodeId> = (0..3).map(|i| n.add_node(&format!("s{i}"), NodeKind::Switch, 0)).collect();
        let h: Vec<NodeId> =
            ["a", "b", "c", "d", "m", "e", "f"].iter().map(|x| n.add_node(x, NodeKind::Host, 0)).collect();
        let [a, b, c, d, m, e, f] = h[..] else { unreachable!() };
        let cap = Capacity::Frames(1);
        for (x, y) in [(s[0], s[1]), (a, s[0]), (b, s[0]), (c, s[1]), (d, s[2]), (m, s[1]), (m, s[2]), (e, m)]
        {
            n.add_link(x, y, 1, 0, cap, cap);
        }
        n.finalize();
        let r = Reach::new(&n);
        let reach = |x| r.hosts(&r.key(&n, x));
        assert_eq!(reach(a), [a, b, c, m]);
        assert_eq!(reach(c), [a, b, c, m]);
        assert_eq!(reach(d), [d, m]);
        assert_eq!(reach(m), [a, b, c, d, m, e]);
        assert_eq!(reach(e), [m, e]);
        assert_eq!(reach(f), [f]);
        // a, b and c share a key (one list); m's differs.
        assert_eq!(r.key(&n, a), r.key(&n, c));
        assert_ne!(r.key(&n, a), r.key(&n, m));
        assert_eq!(r.count_bound(&r.key(&n, m)), 4 + 2 + 2);
    }

    /// On random small networks the lists equal a search from each host.
    #[test]
    fn lists_equal_a_search_from_each_host() {
        let mut seed = 0x9E37_79B9_7F4A_7C15u64;
        let mut next = |k: u64| {
            seed ^= seed << 13;
            seed ^= seed >> 7;
            seed ^= seed << 17;
            seed % k
        };
        let cap = Capacity::Frames(1);
        for _ in 0..300 {
            let mut n = Network::new();
            let (switches, hosts) = (next(6) as u32, 1 + next(8) as u32);
            for i in 0..switches {
                n.add_node(&format!("s{i}"), NodeKind::Switch, 0);
            }
            for i in 0..hosts {
                n.add_node(&format!("h{i}"), NodeKind::Host, 0);
            }
            let total = u64::from(switches + hosts);
            for _ in 0..next(2 * total + 1) {
                let (x, y) = (next(total) as NodeId, next(total) as NodeId);
                if x != y {
                    n.add_link(x, y, 1, 0, cap, cap);
                }
            }
            n.finalize();
            let r = Reach::new(&n);
            for h in n.hosts() {
                let key = r.key(&n, h);
                let list = r.hosts(&key);
                assert_eq!(list, reachable_hosts(&n, h));
                assert!(list.len() <= r.count_bound(&key));
            }
        }
    }
}
