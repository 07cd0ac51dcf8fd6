//! Topology generators: each expands into plain nodes, links and multicast groups.

use super::schema::{Chain, Dumbbell, LinkParams, Multilink, NodeKindSpec, ParkingLot, Star};

/// A generated node.
#[derive(Clone, Debug, PartialEq)]
pub struct GenNode {
    /// Name.
    pub name: String,
    /// Kind.
    pub kind: NodeKindSpec,
    /// The scenario key that defines it, for messages (e.g. "topology.star.hosts[2]").
    pub path: String,
}

/// A generated link.
#[derive(Clone, Debug, PartialEq)]
pub struct GenLink {
    /// One end.
    pub from: String,
    /// Other end.
    pub to: String,
    /// Rate and delay.
    pub params: LinkParams,
    /// The scenario key that defines it, for messages (e.g. "topology.dumbbell.trunk").
    pub path: String,
}

/// The expansion of a generator.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Generated {
    /// Nodes in declaration order.
    pub nodes: Vec<GenNode>,
    /// Links in declaration order.
    pub links: Vec<GenLink>,
    /// Multicast groups the generator defines.
    pub groups: Vec<(String, Vec<String>)>,
}

impl Generated {
    fn host(&mut self, name: String, path: String) {
        self.nodes.push(GenNode { name, kind: NodeKindSpec::Host, path });
    }
    fn switch(&mut self, name: String, path: String) {
        self.nodes.push(GenNode { name, kind: NodeKindSpec::Switch, path });
    }
    fn link(&mut self, from: &str, to: &str, params: LinkParams, path: &str) {
        self.links.push(GenLink { from: from.into(), to: to.into(), params, path: path.into() });
    }
}

/// "topology.{generator}.{key}".
fn key(generator: &str, key: &str) -> String {
    format!("topology.{generator}.{key}")
}

/// One switch, each host on its own link.
pub fn star(s: &Star) -> Generated {
    let mut g = Generated::default();
    g.switch(s.switch.clone(), key("star", "switch"));
    let link = key("star", "link");
    for (i, h) in s.hosts.iter().enumerate() {
        g.host(h.clone(), format!("topology.star.hosts[{i}]"));
        g.link(h, &s.switch, s.link, &link);
    }
    g
}

/// Senders → left switch → right switch → receivers.
pub fn dumbbell(d: &Dumbbell) -> Generated {
    let mut g = Generated::default();
    let k = |k| key("dumbbell", k);
    g.switch(d.left.clone(), k("left"));
    g.switch(d.right.clone(), k("right"));
    g.link(&d.left, &d.right, d.bottleneck, &k("bottleneck"));
    let (sender_link, receiver_link) = (k("sender_link"), k("receiver_link"));
    for i in 1..=d.senders {
        let name = format!("{}{i}", d.sender_prefix);
        g.host(name.clone(), k("sender_prefix"));
        g.link(&name, &d.left, d.sender_link, &sender_link);
    }
    for i in 1..=d.receivers {
        let name = format!("{}{i}", d.receiver_prefix);
        g.host(name.clone(), k("receiver_prefix"));
        g.link(&d.right, &name, d.receiver_link, &receiver_link);
    }
    g
}

/// Switches in a line, with hosts numbered across the whole chain.
pub fn chain(c: &Chain) -> Generated {
    let mut g = Generated::default();
    let k = |k| key("chain", k);
    for s in 1..=c.switches {
        g.switch(format!("{}{s}", c.switch_prefix), k("switch_prefix"));
    }
    let trunk = k("trunk");
    for s in 1..c.switches {
        let (a, b) = (format!("{}{s}", c.switch_prefix), format!("{}{}", c.switch_prefix, s + 1));
        g.link(&a, &b, c.trunk, &trunk);
    }
    let host_link = k("host_link");
    // Counted in u64: the caller bounds the size, but the product must not wrap first.
    let per_switch = u64::from(c.hosts_per_switch);
    for s in 1..=c.switches {
        for j in 1..=c.hosts_per_switch {
            let i = u64::from(s - 1) * per_switch + u64::from(j);
            let name = format!("{}{i}", c.host_prefix);
            g.host(name.clone(), k("host_prefix"));
            g.link(&name, &format!("{}{s}", c.switch_prefix), c.host_link, &host_link);
        }
    }
    g
}

/// Routers R0..R(n−1) in a line with hosts "R{i}h{j}" at each.
pub fn parking_lot(p: &ParkingLot) -> Generated {
    let mut g = Generated::default();
    let k = |k| key("parking_lot", k);
    for r in 0..p.routers {
        g.switch(format!("R{r}"), k("routers"));
    }
    let trunk = k("trunk");
    for r in 1..p.routers {
        g.link(&format!("R{}", r - 1), &format!("R{r}"), p.trunk, &trunk);
    }
    let access = k("access_link");
    for r in 0..p.routers {
        for j in 1..=p.hosts_per_router {
            let name = format!("R{r}h{j}");
            g.host(name.clone(), k("hosts_per_router"));
            g.link(&name, &format!("R{r}"), p.access_link, &access);
        }
    }
    g
}

/// Mliki et al. 2016 Fig. 13 as reconstructed (see [`Multilink`]).
pub fn multilink(m: &Multilink) -> Generated {
    let mut g = Generated::default();
    let at = || "topology.multilink".to_string();
    let link = key("multilink", "link");
    for s in ["sw1", "sw2", "sw3"] {
        g.switch(s.into(), at());
    }
    g.link("sw1", "sw2", m.link, &link);
    g.link("sw2", "sw3", m.link, &link);
    // Counted in u64: the caller bounds the size, but the product must not wrap first.
    let n = u64::from(m.sources_per_group);
    for (group, switch) in (0u64..).zip(["sw1", "sw2", "sw3"]) {
        for k in 1..=n {
            let name = format!("S{}", group * n + k);
            g.host(name.clone(), key("multilink", "sources_per_group"));
            g.link(&name, switch, m.link, &link);
        }
    }
    for r in 1..=6 {
        let name = format!("R{r}");
        g.host(name.clone(), at());
        g.link("sw3", &name, m.link, &link);
    }
    g.groups = vec![
        ("G1".into(), vec!["R5".into(), "R6".into()]),
        ("G2".into(), vec!["R1".into(), "R2".into()]),
        ("G3".into(), vec!["R3".into(), "R4".into()]),
    ];
    g
}
