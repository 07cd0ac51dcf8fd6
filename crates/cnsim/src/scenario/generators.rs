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

/// The size of what a generator will make, known before it makes it, so that a huge
/// count is a located error rather than exhausted memory.
pub struct Size {
    /// Nodes.
    pub nodes: u64,
    /// Of which hosts.
    pub hosts: u64,
    /// The key that sets the size, e.g. "topology.dumbbell.senders".
    pub key: String,
    /// How it is written, e.g. "senders = 4096".
    pub what: String,
}

/// A topology generator: one table under `[topology]`. Registering one is a field in
/// [`super::schema::Topology`] and a line in `Topology::generators`.
pub trait Generate {
    /// The size of what [`Generate::generate`] will make.
    fn size(&self, name: &str) -> Size;
    /// Rules the table's types cannot express: `Err((key, message))`, the key relative
    /// to the table.
    fn check(&self) -> Result<(), (String, String)> {
        Ok(())
    }
    /// The nodes, links and groups.
    fn generate(&self) -> Generated;
}

/// The size set by the larger of two counts.
fn larger(name: &str, nodes: u64, hosts: u64, a: (&str, u32), b: (&str, u32)) -> Size {
    let (k, v) = if a.1 >= b.1 { a } else { b };
    Size { nodes, hosts, key: key(name, k), what: format!("{k} = {v}") }
}

/// The size of a line of `switches.1` switches with `hosts_each.1` hosts on each.
fn line_size(name: &str, switches: (&str, u32), hosts_each: (&str, u32)) -> Size {
    let hosts = u64::from(switches.1) * u64::from(hosts_each.1);
    larger(name, hosts.saturating_add(switches.1.into()), hosts, switches, hosts_each)
}

/// A line needs at least one switch.
fn at_least_one(key: &str, n: u32) -> Result<(), (String, String)> {
    if n == 0 {
        return Err((key.into(), format!("0 {key}; expected at least 1")));
    }
    Ok(())
}

impl Generate for Star {
    fn size(&self, name: &str) -> Size {
        let h = self.hosts.len() as u64;
        Size { nodes: h.saturating_add(1), hosts: h, key: key(name, "hosts"), what: format!("{h} hosts") }
    }
    fn generate(&self) -> Generated {
        star(self)
    }
}

impl Generate for Dumbbell {
    fn size(&self, name: &str) -> Size {
        let hosts = u64::from(self.senders) + u64::from(self.receivers);
        larger(name, hosts + 2, hosts, ("senders", self.senders), ("receivers", self.receivers))
    }
    fn generate(&self) -> Generated {
        dumbbell(self)
    }
}

impl Generate for Chain {
    fn size(&self, name: &str) -> Size {
        line_size(name, ("switches", self.switches), ("hosts_per_switch", self.hosts_per_switch))
    }
    fn check(&self) -> Result<(), (String, String)> {
        at_least_one("switches", self.switches)
    }
    fn generate(&self) -> Generated {
        chain(self)
    }
}

impl Generate for ParkingLot {
    fn size(&self, name: &str) -> Size {
        line_size(name, ("routers", self.routers), ("hosts_per_router", self.hosts_per_router))
    }
    fn check(&self) -> Result<(), (String, String)> {
        at_least_one("routers", self.routers)
    }
    fn generate(&self) -> Generated {
        parking_lot(self)
    }
}

impl Generate for Multilink {
    fn size(&self, name: &str) -> Size {
        let hosts = 3 * u64::from(self.sources_per_group) + 6;
        Size {
            nodes: hosts + 3,
            hosts,
            key: key(name, "sources_per_group"),
            what: format!("sources_per_group = {}", self.sources_per_group),
        }
    }
    fn generate(&self) -> Generated {
        multilink(self)
    }
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
        let mut link = d.sender_link;
        if let Some(spread) = d.sender_delay_spread.filter(|_| d.senders > 1) {
            let step = u128::from(spread.0) * u128::from(i - 1) / u128::from(d.senders - 1);
            link.delay.0 = link.delay.0.saturating_add(step as u64);
        }
        g.link(&name, &d.left, link, &sender_link);
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
