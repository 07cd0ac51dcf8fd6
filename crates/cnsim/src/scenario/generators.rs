//! Topology generators: each expands into plain nodes, links and multicast groups.

use super::schema::{Chain, Clos, Dumbbell, FatTree, LinkParams, Multilink, NodeKindSpec, ParkingLot, Star};

/// A generated node.
#[derive(Clone, Debug, PartialEq)]
pub struct GenNode {
    /// Name.
    pub(crate) name: String,
    /// Kind.
    pub(crate) kind: NodeKindSpec,
    /// The scenario key that defines it, for messages (e.g. "topology.star.hosts[2]").
    pub(crate) path: String,
    /// The egress buffer of each of its ports, where the generator sets one (a tier's
    /// buffer); `None`: `queues.capacity`.
    pub(crate) buffer: Option<crate::units::Size>,
}

/// A generated link.
#[derive(Clone, Debug, PartialEq)]
pub struct GenLink {
    /// One end.
    pub(crate) from: String,
    /// Other end.
    pub(crate) to: String,
    /// Rate and delay.
    pub(crate) params: LinkParams,
    /// The scenario key that defines it, for messages (e.g. "topology.dumbbell.trunk").
    pub(crate) path: String,
}

/// The expansion of a generator.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Generated {
    /// Nodes in declaration order.
    pub(crate) nodes: Vec<GenNode>,
    /// Links in declaration order.
    pub(crate) links: Vec<GenLink>,
    /// Multicast groups the generator defines.
    pub(crate) groups: Vec<(String, Vec<String>)>,
}

impl Generated {
    fn host(&mut self, name: String, path: String) {
        self.nodes.push(GenNode { name, kind: NodeKindSpec::Host, path, buffer: None });
    }
    fn switch(&mut self, name: String, path: String) {
        self.nodes.push(GenNode { name, kind: NodeKindSpec::Switch, path, buffer: None });
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
    pub(crate) nodes: u64,
    /// Of which hosts.
    pub(crate) hosts: u64,
    /// Links.
    pub(crate) links: u64,
    /// The key that sets the size, e.g. "topology.dumbbell.senders".
    pub(crate) key: String,
    /// How it is written, e.g. "senders = 4096".
    pub(crate) what: String,
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

/// The size set by the larger of two counts; a tree's links (one fewer than its nodes).
fn larger(name: &str, nodes: u64, hosts: u64, a: (&str, u32), b: (&str, u32)) -> Size {
    let (k, v) = if a.1 >= b.1 { a } else { b };
    Size { nodes, hosts, links: nodes.saturating_sub(1), key: key(name, k), what: format!("{k} = {v}") }
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
        Size {
            nodes: h.saturating_add(1),
            hosts: h,
            links: h,
            key: key(name, "hosts"),
            what: format!("{h} hosts"),
        }
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
            links: hosts + 2,
            key: key(name, "sources_per_group"),
            what: format!("sources_per_group = {}", self.sources_per_group),
        }
    }
    fn generate(&self) -> Generated {
        multilink(self)
    }
}

impl Generate for Clos {
    fn size(&self, name: &str) -> Size {
        let n = |v: u32| u64::from(v);
        let tors = n(self.pods).saturating_mul(n(self.tors_per_pod));
        let aggs = n(self.pods).saturating_mul(n(self.aggs_per_pod));
        let hosts = tors.saturating_mul(n(self.hosts_per_tor));
        let nodes = hosts.saturating_add(tors).saturating_add(aggs).saturating_add(n(self.cores));
        let per_group = n(self.cores) / n(self.aggs_per_pod.max(1));
        let links = hosts
            .saturating_add(tors.saturating_mul(n(self.aggs_per_pod)))
            .saturating_add(aggs.saturating_mul(per_group));
        let counts = [
            ("pods", self.pods),
            ("tors_per_pod", self.tors_per_pod),
            ("aggs_per_pod", self.aggs_per_pod),
            ("hosts_per_tor", self.hosts_per_tor),
            ("cores", self.cores),
        ];
        let (k, v) = counts.into_iter().max_by_key(|c| c.1).expect("five counts");
        Size { nodes, hosts, links, key: key(name, k), what: format!("{k} = {v}") }
    }
    fn check(&self) -> Result<(), (String, String)> {
        for (k, v) in [
            ("pods", self.pods),
            ("tors_per_pod", self.tors_per_pod),
            ("aggs_per_pod", self.aggs_per_pod),
            ("hosts_per_tor", self.hosts_per_tor),
            ("cores", self.cores),
        ] {
            at_least_one(k, v)?;
        }
        if !self.cores.is_multiple_of(self.aggs_per_pod) {
            return Err((
                "cores".into(),
                format!(
                    "{} is not a multiple of aggs_per_pod ({}); expected cores in aggs_per_pod equal groups, \
                     the j-th aggregation switch of each pod linked to group j, e.g. cores = {}",
                    self.cores,
                    self.aggs_per_pod,
                    self.aggs_per_pod * self.cores.div_ceil(self.aggs_per_pod)
                ),
            ));
        }
        Ok(())
    }
    fn generate(&self) -> Generated {
        clos(self, "clos")
    }
}

impl Generate for FatTree {
    fn size(&self, name: &str) -> Size {
        let Size { nodes, hosts, links, .. } = self.as_clos().size(name);
        Size { nodes, hosts, links, key: key(name, "k"), what: format!("k = {}", self.k) }
    }
    fn check(&self) -> Result<(), (String, String)> {
        if self.k < 2 || !self.k.is_multiple_of(2) {
            return Err((
                "k".into(),
                format!(
                    "{} is not a fat-tree's k; expected an even number of ports per switch, at least 2 \
                     (k/2 ToR and k/2 aggregation switches per pod), e.g. k = 8",
                    self.k
                ),
            ));
        }
        Ok(())
    }
    fn generate(&self) -> Generated {
        clos(&self.as_clos(), "fat_tree")
    }
}

/// A three-tier Clos fabric (see [`Clos`]), its keys under `topology.{table}`.
pub fn clos(c: &Clos, table: &str) -> Generated {
    let mut g = Generated::default();
    let k = |k| key(table, k);
    let n = |v: u32| u64::from(v);
    let tors = n(c.pods) * n(c.tors_per_pod);
    let aggs = n(c.pods) * n(c.aggs_per_pod);
    let hosts = tors * n(c.hosts_per_tor);
    for h in 1..=hosts {
        g.host(format!("h{h}"), k("hosts_per_tor"));
    }
    let tier = |g: &mut Generated, prefix: &str, count: u64, key: String, buffer| {
        for i in 1..=count {
            g.switch(format!("{prefix}{i}"), key.clone());
            g.nodes.last_mut().expect("just added").buffer = buffer;
        }
    };
    tier(&mut g, "tor", tors, k("tors_per_pod"), c.tor_buffer);
    tier(&mut g, "agg", aggs, k("aggs_per_pod"), c.agg_buffer);
    tier(&mut g, "core", n(c.cores), k("cores"), c.core_buffer);
    let (host_link, tor_link, core_link) = (k("host_link"), k("tor_link"), k("core_link"));
    for h in 1..=hosts {
        let tor = (h - 1) / n(c.hosts_per_tor) + 1;
        g.link(&format!("h{h}"), &format!("tor{tor}"), c.host_link, &host_link);
    }
    for t in 1..=tors {
        let pod = (t - 1) / n(c.tors_per_pod);
        for j in 1..=n(c.aggs_per_pod) {
            let agg = pod * n(c.aggs_per_pod) + j;
            g.link(&format!("tor{t}"), &format!("agg{agg}"), c.tor_link, &tor_link);
        }
    }
    let per_group = n(c.cores) / n(c.aggs_per_pod);
    for a in 1..=aggs {
        let group = (a - 1) % n(c.aggs_per_pod);
        for m in 1..=per_group {
            let core = group * per_group + m;
            g.link(&format!("agg{a}"), &format!("core{core}"), c.core_link, &core_link);
        }
    }
    g
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::units::{Duration, Rate};

    fn link(gbps: u64) -> LinkParams {
        LinkParams { rate: Rate(gbps * 1_000_000_000), delay: Duration(1_000_000) }
    }

    /// Each node's neighbours, by name.
    fn neighbours(g: &Generated, node: &str) -> Vec<String> {
        let mut out: Vec<String> = g
            .links
            .iter()
            .filter_map(|l| match (l.from == node, l.to == node) {
                (true, _) => Some(l.to.clone()),
                (_, true) => Some(l.from.clone()),
                _ => None,
            })
            .collect();
        out.sort();
        out
    }

    fn fat_tree(k: u32) -> FatTree {
        FatTree {
            k,
            host_link: link(10),
            fabric_link: link(40),
            tor_buffer: None,
            agg_buffer: None,
            core_buffer: None,
        }
    }

    /// k = 4: 16 hosts, 8 ToRs, 8 aggregation switches, 4 cores, 48 links; a ToR has 2
    /// hosts and its pod's 2 aggregation switches, an aggregation switch its pod's 2 ToRs
    /// and 2 cores, a core one aggregation switch in each of the 4 pods.
    #[test]
    fn a_k4_fat_tree_is_wired_as_al_fares() {
        let t = fat_tree(4);
        let g = t.generate();
        let size = t.size("fat_tree");
        assert_eq!((size.nodes, size.hosts, size.links), (36, 16, 48));
        assert_eq!((g.nodes.len() as u64, g.links.len() as u64), (36, 48));
        let hosts = g.nodes.iter().filter(|n| n.kind == NodeKindSpec::Host).count();
        assert_eq!(hosts, 16);
        assert_eq!(g.nodes[16].name, "tor1", "hosts first, then the tiers, as the HPCC fork numbers nodes");
        assert_eq!(neighbours(&g, "tor1"), ["agg1", "agg2", "h1", "h2"]);
        assert_eq!(neighbours(&g, "tor4"), ["agg3", "agg4", "h7", "h8"]);
        assert_eq!(neighbours(&g, "agg2"), ["core3", "core4", "tor1", "tor2"]);
        assert_eq!(neighbours(&g, "core1"), ["agg1", "agg3", "agg5", "agg7"]);
        assert!(t.check().is_ok());
        assert_eq!(fat_tree(5).check().unwrap_err().0, "k");
        assert_eq!(fat_tree(0).check().unwrap_err().0, "k");
    }

    /// The HPCC paper's fabric (its ns-3 fork's fat.txt): 320 hosts, 20 ToRs, 20
    /// aggregation switches, 16 cores, 480 links; ToR 1 reaches aggregation switches 1–4,
    /// aggregation switch 1 cores 1–4, and core 1 the first aggregation switch of each
    /// of the 5 pods.
    #[test]
    fn the_hpcc_fabric_is_a_clos() {
        let c = Clos {
            pods: 5,
            tors_per_pod: 4,
            aggs_per_pod: 4,
            hosts_per_tor: 16,
            cores: 16,
            host_link: link(100),
            tor_link: link(400),
            core_link: link(400),
            tor_buffer: Some(crate::units::Size::Bytes(32_000_000)),
            agg_buffer: None,
            core_buffer: None,
        };
        let g = c.generate();
        let size = c.size("clos");
        assert_eq!((size.nodes, size.hosts, size.links), (376, 320, 480));
        assert_eq!(g.links.len(), 480);
        assert_eq!(neighbours(&g, "tor1").iter().filter(|n| n.starts_with("agg")).count(), 4);
        assert_eq!(neighbours(&g, "tor5")[..4], ["agg5", "agg6", "agg7", "agg8"]);
        assert_eq!(neighbours(&g, "agg1")[..4], ["core1", "core2", "core3", "core4"]);
        assert_eq!(neighbours(&g, "core1"), ["agg1", "agg13", "agg17", "agg5", "agg9"]);
        let tor = g.nodes.iter().find(|n| n.name == "tor1").unwrap();
        assert_eq!(tor.buffer, c.tor_buffer);
        assert_eq!(g.nodes.iter().find(|n| n.name == "agg1").unwrap().buffer, None);
        assert!(c.check().is_ok());
        let (key, message) = Clos { cores: 15, ..c.clone() }.check().unwrap_err();
        assert_eq!(key, "cores");
        assert!(
            message.contains("not a multiple of aggs_per_pod (4)") && message.contains("cores = 16"),
            "{message}"
        );
        assert_eq!(Clos { pods: 0, ..c }.check().unwrap_err().0, "pods");
    }
}
