//! Topology generators: each expands into plain nodes, links and multicast groups.

use super::schema::{Chain, Dumbbell, LinkParams, Multilink, NodeKindSpec, ParkingLot, Star};

/// A generated node.
#[derive(Clone, Debug, PartialEq)]
pub struct GenNode {
    /// Name.
    pub name: String,
    /// Kind.
    pub kind: NodeKindSpec,
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
    fn host(&mut self, name: String) {
        self.nodes.push(GenNode {
            name,
            kind: NodeKindSpec::Host,
        });
    }
    fn switch(&mut self, name: String) {
        self.nodes.push(GenNode {
            name,
            kind: NodeKindSpec::Switch,
        });
    }
    fn link(&mut self, from: &str, to: &str, params: LinkParams) {
        self.links.push(GenLink {
            from: from.into(),
            to: to.into(),
            params,
        });
    }
}

/// One switch, each host on its own link.
pub fn star(s: &Star) -> Generated {
    let mut g = Generated::default();
    g.switch(s.switch.clone());
    for h in &s.hosts {
        g.host(h.clone());
        g.link(h, &s.switch, s.link);
    }
    g
}

/// Senders → left switch → right switch → receivers.
pub fn dumbbell(d: &Dumbbell) -> Generated {
    let mut g = Generated::default();
    g.switch(d.left.clone());
    g.switch(d.right.clone());
    g.link(&d.left, &d.right, d.bottleneck);
    for i in 1..=d.senders {
        let name = format!("{}{i}", d.sender_prefix);
        g.host(name.clone());
        g.link(&name, &d.left, d.sender_link);
    }
    for i in 1..=d.receivers {
        let name = format!("{}{i}", d.receiver_prefix);
        g.host(name.clone());
        g.link(&d.right, &name, d.receiver_link);
    }
    g
}

/// Switches in a line, with hosts numbered across the whole chain.
pub fn chain(c: &Chain) -> Generated {
    let mut g = Generated::default();
    for s in 1..=c.switches {
        g.switch(format!("{}{s}", c.switch_prefix));
    }
    for s in 1..c.switches {
        let (a, b) = (
            format!("{}{s}", c.switch_prefix),
            format!("{}{}", c.switch_prefix, s + 1),
        );
        g.link(&a, &b, c.trunk);
    }
    for s in 1..=c.switches {
        for j in 1..=c.hosts_per_switch {
            let i = (s - 1) * c.hosts_per_switch + j;
            let name = format!("{}{i}", c.host_prefix);
            g.host(name.clone());
            g.link(&name, &format!("{}{s}", c.switch_prefix), c.host_link);
        }
    }
    g
}

/// Routers R0..R(n−1) in a line with hosts "R{i}h{j}" at each.
pub fn parking_lot(p: &ParkingLot) -> Generated {
    let mut g = Generated::default();
    for r in 0..p.routers {
        g.switch(format!("R{r}"));
    }
    for r in 1..p.routers {
        g.link(&format!("R{}", r - 1), &format!("R{r}"), p.trunk);
    }
    for r in 0..p.routers {
        for j in 1..=p.hosts_per_router {
            let name = format!("R{r}h{j}");
            g.host(name.clone());
            g.link(&name, &format!("R{r}"), p.access_link);
        }
    }
    g
}

/// Seed 000 Fig. 13 as reconstructed (see [`Multilink`]).
pub fn multilink(m: &Multilink) -> Generated {
    let mut g = Generated::default();
    for s in ["sw1", "sw2", "sw3"] {
        g.switch(s.into());
    }
    g.link("sw1", "sw2", m.link);
    g.link("sw2", "sw3", m.link);
    let n = m.sources_per_group;
    for (group, switch) in ["sw1", "sw2", "sw3"].iter().enumerate() {
        for k in 1..=n {
            let name = format!("S{}", group as u32 * n + k);
            g.host(name.clone());
            g.link(&name, switch, m.link);
        }
    }
    for r in 1..=6 {
        let name = format!("R{r}");
        g.host(name.clone());
        g.link("sw3", &name, m.link);
    }
    g.groups = vec![
        ("G1".into(), vec!["R5".into(), "R6".into()]),
        ("G2".into(), vec!["R1".into(), "R2".into()]),
        ("G3".into(), vec!["R3".into(), "R4".into()]),
    ];
    g
}
