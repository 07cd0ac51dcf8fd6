//! The scenario file format (TOML). Every table rejects unknown keys, every quantity
//! carries its unit, and every default is written back into the resolved scenario that a
//! run stores next to its results.

use std::collections::BTreeMap;
use std::fmt;

use serde::de::{self, Deserializer, MapAccess, Visitor};
use serde::{Deserialize, Serialize, Serializer};

use super::install::Install;
use super::units::{Duration, Rate, Size};
pub use crate::units::select::{HostSel, PortSel};

fn default_seed() -> u64 {
    1
}
fn default_true() -> bool {
    true
}

/// A whole scenario.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Scenario {
    /// Short name, used for run directories and reports.
    pub name: String,
    /// What the scenario reproduces and the choices it makes.
    #[serde(default)]
    pub description: String,
    /// Simulated time to run.
    pub duration: Duration,
    /// Seed of every random stream.
    #[serde(default = "default_seed")]
    pub seed: u64,
    /// Nodes and links.
    pub(crate) topology: Topology,
    /// Egress queue sizes.
    #[serde(default)]
    pub(crate) queues: Queues,
    /// Switch behaviour.
    #[serde(default)]
    pub(crate) switches: Switches,
    /// Multicast groups: name → member hosts.
    #[serde(default)]
    pub(crate) groups: BTreeMap<String, Vec<String>>,
    /// Traffic sources.
    #[serde(default)]
    pub(crate) traffic: Vec<Traffic>,
    /// Congestion management protocols.
    #[serde(default)]
    pub(crate) protocols: Protocols,
    /// What to measure and write.
    #[serde(default)]
    pub metrics: Metrics,
}

/// A link's rate and propagation delay.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct LinkParams {
    /// Rate.
    pub(crate) rate: Rate,
    /// One-way propagation delay.
    pub(crate) delay: Duration,
}

/// Topology: at most one generator, plus any explicit nodes and links.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Topology {
    /// One switch with hosts around it (Mliki et al. 2016 Fig. 1).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(crate) star: Option<Star>,
    /// Senders → r1 → r2 → receivers.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(crate) dumbbell: Option<Dumbbell>,
    /// A chain of switches with k hosts each (802.1au congestion chains).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(crate) chain: Option<Chain>,
    /// A chain of routers with hosts at each (ns-2 parking lot).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(crate) parking_lot: Option<ParkingLot>,
    /// The multi-link topology of Mliki et al. 2016 Fig. 13.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(crate) multilink: Option<Multilink>,
    /// The k-ary fat-tree (Al-Fares et al. 2008).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(crate) fat_tree: Option<FatTree>,
    /// A three-tier Clos fabric with explicit counts (ToR, aggregation, core).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(crate) clos: Option<Clos>,
    /// A topology file of the HPCC ns-3 fork (see [`super::hpcc`]).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(crate) hpcc: Option<HpccTopology>,
    /// Explicit nodes.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub(crate) nodes: Vec<NodeSpec>,
    /// Explicit full-duplex links.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub(crate) links: Vec<LinkSpec>,
}

impl Topology {
    /// Every generator table present, with its name (the registry of generators).
    pub fn generators(&self) -> Vec<(&'static str, &dyn super::generators::Generate)> {
        use super::generators::Generate;
        fn entry<'a, T: Generate>(
            name: &'static str,
            table: &'a Option<T>,
        ) -> Option<(&'static str, &'a dyn Generate)> {
            table.as_ref().map(|t| (name, t as &dyn Generate))
        }
        [
            entry("star", &self.star),
            entry("dumbbell", &self.dumbbell),
            entry("chain", &self.chain),
            entry("parking_lot", &self.parking_lot),
            entry("multilink", &self.multilink),
            entry("fat_tree", &self.fat_tree),
            entry("clos", &self.clos),
        ]
        .into_iter()
        .flatten()
        .collect()
    }
}

/// Host or switch.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum NodeKindSpec {
    /// End station.
    Host,
    /// Switch or router.
    Switch,
}

/// An explicit node.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct NodeSpec {
    /// Unique name.
    pub(crate) name: String,
    /// Host or switch.
    pub(crate) kind: NodeKindSpec,
}

/// An explicit full-duplex link.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct LinkSpec {
    /// One end (node name).
    pub(crate) from: String,
    /// The other end (node name).
    pub(crate) to: String,
    /// Rate (both directions).
    pub(crate) rate: Rate,
    /// Propagation delay (both directions).
    pub(crate) delay: Duration,
}

fn default_switch_name() -> String {
    "sw".into()
}

/// Star: one switch, the listed hosts each on their own link.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Star {
    /// Name of the switch.
    #[serde(default = "default_switch_name")]
    pub(crate) switch: String,
    /// Host names.
    pub(crate) hosts: Vec<String>,
    /// Every host link.
    pub(crate) link: LinkParams,
}

fn default_s() -> String {
    "s".into()
}
fn default_d() -> String {
    "d".into()
}
fn default_r1() -> String {
    "r1".into()
}
fn default_r2() -> String {
    "r2".into()
}
fn default_one() -> u32 {
    1
}

/// Dumbbell: `senders` hosts → switch `left` → switch `right` → `receivers` hosts.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Dumbbell {
    /// Number of senders (named prefix1..prefixN).
    pub(crate) senders: u32,
    /// Number of receivers.
    #[serde(default = "default_one")]
    pub(crate) receivers: u32,
    /// Sender name prefix.
    #[serde(default = "default_s")]
    pub(crate) sender_prefix: String,
    /// Receiver name prefix.
    #[serde(default = "default_d")]
    pub(crate) receiver_prefix: String,
    /// Left switch.
    #[serde(default = "default_r1")]
    pub(crate) left: String,
    /// Right switch.
    #[serde(default = "default_r2")]
    pub(crate) right: String,
    /// Sender links.
    pub(crate) sender_link: LinkParams,
    /// Sender link delays rise evenly from `sender_link.delay` (the first sender) to
    /// `sender_link.delay` + this (the last), for a spread of round-trip times.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(crate) sender_delay_spread: Option<Duration>,
    /// The link between the two switches.
    pub(crate) bottleneck: LinkParams,
    /// Receiver links.
    pub(crate) receiver_link: LinkParams,
}

fn default_sw() -> String {
    "sw".into()
}
fn default_h() -> String {
    "h".into()
}

/// Chain of `switches` switches (sw1–sw2–…), `hosts_per_switch` hosts on each, numbered
/// globally: host i is on switch ⌈i/k⌉ (the 802.1au congestion-chain numbering).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Chain {
    /// Number of switches.
    pub(crate) switches: u32,
    /// Hosts per switch.
    pub(crate) hosts_per_switch: u32,
    /// Switch name prefix.
    #[serde(default = "default_sw")]
    pub(crate) switch_prefix: String,
    /// Host name prefix.
    #[serde(default = "default_h")]
    pub(crate) host_prefix: String,
    /// Host links.
    pub(crate) host_link: LinkParams,
    /// Switch-to-switch links.
    pub(crate) trunk: LinkParams,
}

/// Parking lot: routers R0–R1–…–R(n−1), `hosts_per_router` hosts at each, named
/// "R{i}h{j}" (i from 0, j from 1).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ParkingLot {
    /// Number of routers.
    pub(crate) routers: u32,
    /// Hosts per router.
    pub(crate) hosts_per_router: u32,
    /// Access links.
    pub(crate) access_link: LinkParams,
    /// Router-to-router links.
    pub(crate) trunk: LinkParams,
}

fn default_six() -> u32 {
    6
}

/// Mliki et al. 2016 Fig. 13, reconstructed from its text (the figure is not in the seed): three
/// switches in a chain sw1–sw2–sw3; group G1's sources S1..S6 on sw1, G2's S7..S12 on sw2,
/// G3's S13..S18 on sw3 (`sources_per_group` each); receivers R5, R6 (G1), R1, R2 (G2) and
/// R3, R4 (G3) on sw3. G1 then crosses congested queues at sw1, sw2 and sw3, G2 at sw2 and
/// sw3, G3 at sw3 only, as the text states. Defines groups G1, G2, G3.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Multilink {
    /// Sources per group.
    #[serde(default = "default_six")]
    pub(crate) sources_per_group: u32,
    /// Every link.
    pub(crate) link: LinkParams,
}

/// A three-tier Clos fabric: `pods` pods of `tors_per_pod` ToR switches and
/// `aggs_per_pod` aggregation switches, every ToR linked to every aggregation switch of
/// its pod; `cores` core switches in `aggs_per_pod` groups of `cores / aggs_per_pod`,
/// the j-th aggregation switch of every pod linked to every core of group j;
/// `hosts_per_tor` hosts on each ToR. Nodes are numbered in the HPCC ns-3 fork's order
/// (hosts, ToRs, aggregation, cores) and named h1…, tor1…, agg1…, core1…; host i is on
/// ToR ⌈i / hosts_per_tor⌉, ToR t in pod ⌈t / tors_per_pod⌉. The HPCC paper's fabric is
/// pods = 5, tors_per_pod = 4, aggs_per_pod = 4, hosts_per_tor = 16, cores = 16. The
/// oversubscription at the ToRs is hosts_per_tor × host rate ÷ (aggs_per_pod × ToR
/// uplink rate), and at the aggregation layer tors_per_pod × tor_link rate ÷ (cores /
/// aggs_per_pod × core_link rate): both follow from the counts and rates.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Clos {
    /// Pods.
    pub(crate) pods: u32,
    /// ToR switches per pod.
    pub(crate) tors_per_pod: u32,
    /// Aggregation switches per pod.
    pub(crate) aggs_per_pod: u32,
    /// Hosts per ToR switch.
    pub(crate) hosts_per_tor: u32,
    /// Core switches (a multiple of `aggs_per_pod`).
    pub(crate) cores: u32,
    /// Host–ToR links.
    pub(crate) host_link: LinkParams,
    /// ToR–aggregation links.
    pub(crate) tor_link: LinkParams,
    /// Aggregation–core links.
    pub(crate) core_link: LinkParams,
    /// Egress buffer of every ToR port; absent = `queues.capacity`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(crate) tor_buffer: Option<Size>,
    /// Egress buffer of every aggregation switch port; absent = `queues.capacity`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(crate) agg_buffer: Option<Size>,
    /// Egress buffer of every core port; absent = `queues.capacity`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(crate) core_buffer: Option<Size>,
}

/// `[topology.hpcc]`: the network of an HPCC ns-3 fork topology file (its
/// `TOPOLOGY_FILE`, e.g. `mix/fat.txt`), node i named h{i} or sw{i}.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct HpccTopology {
    /// The file, relative to the scenario file's folder.
    pub(crate) file: String,
}

/// The k-ary fat-tree of Al-Fares, Loukissas & Vahdat (SIGCOMM 2008): k pods of k/2 ToR
/// (edge) and k/2 aggregation switches, (k/2)² cores, k/2 hosts per ToR, k³/4 hosts in
/// all; the Clos fabric with pods = k, tors_per_pod = aggs_per_pod = hosts_per_tor = k/2
/// and cores = (k/2)² (see [`Clos`] for names and wiring). k is even.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct FatTree {
    /// k: ports per switch (even, at least 2).
    pub(crate) k: u32,
    /// Host–ToR links.
    pub(crate) host_link: LinkParams,
    /// Switch–switch links (ToR–aggregation and aggregation–core).
    pub(crate) fabric_link: LinkParams,
    /// Egress buffer of every ToR port; absent = `queues.capacity`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(crate) tor_buffer: Option<Size>,
    /// Egress buffer of every aggregation switch port; absent = `queues.capacity`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(crate) agg_buffer: Option<Size>,
    /// Egress buffer of every core port; absent = `queues.capacity`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(crate) core_buffer: Option<Size>,
}

impl FatTree {
    /// The Clos fabric this fat-tree is.
    pub fn as_clos(&self) -> Clos {
        let half = self.k / 2;
        Clos {
            pods: self.k,
            tors_per_pod: half,
            aggs_per_pod: half,
            hosts_per_tor: half,
            cores: half.saturating_mul(half),
            host_link: self.host_link,
            tor_link: self.fabric_link,
            core_link: self.fabric_link,
            tor_buffer: self.tor_buffer,
            agg_buffer: self.agg_buffer,
            core_buffer: self.core_buffer,
        }
    }
}

fn default_capacity() -> Size {
    Size::Frames(1000)
}

/// Egress queue limits.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Queues {
    /// Limit of every egress queue unless overridden.
    #[serde(default = "default_capacity")]
    pub(crate) capacity: Size,
    /// Limit of host egress queues; absent = `capacity`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(crate) host_capacity: Option<Size>,
    /// Per-port overrides.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub(crate) ports: Vec<PortQueue>,
    /// Traffic classes per port (1 to 8), each its own queue of the port's capacity; a
    /// frame's priority selects its class (see [`crate::net::classes`]).
    #[serde(default = "one_class")]
    pub(crate) classes: u8,
    /// How a port with several classes picks the next: strict priority, or deficit
    /// weighted round robin.
    #[serde(default)]
    pub(crate) scheduler: SchedulerKind,
    /// DWRR weight per class, lowest class first (default: all 1).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub(crate) weights: Vec<u32>,
    /// What a queue's length counts for congestion points, queue disciplines and the
    /// capacity: "buffer" (waiting frames plus the one being serialized, until its last
    /// bit leaves) or "waiting" (waiting frames only). Reported queue statistics and
    /// series always count waiting frames.
    #[serde(default)]
    pub(crate) occupancy: crate::net::Occupancy,
    /// Random loss on every link (each port's sending direction), unless a port's own
    /// entry in `ports` says otherwise: a probability, or a Gilbert–Elliott table (see
    /// [`crate::net::loss`]); absent = none.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(crate) loss: Option<crate::net::LossSpec>,
    /// Under "buffer": whether an arrival at the instant the frame being sent finishes,
    /// with frames waiting, still counts that frame ("held") or not ("left").
    #[serde(default)]
    pub(crate) finishing: crate::net::Finishing,
}

fn one_class() -> u8 {
    1
}

/// The class scheduler of `[queues] scheduler`.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum SchedulerKind {
    /// The highest class with a frame that may be sent.
    #[default]
    Strict,
    /// Deficit weighted round robin.
    Dwrr,
}

impl Default for Queues {
    fn default() -> Self {
        Self {
            capacity: default_capacity(),
            host_capacity: None,
            ports: Vec::new(),
            classes: 1,
            scheduler: SchedulerKind::Strict,
            weights: Vec::new(),
            occupancy: Default::default(),
            loss: None,
            finishing: Default::default(),
        }
    }
}

/// One port's own queue limit or link loss.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct PortQueue {
    /// Port as "node->next" (e.g. "r1->r2").
    pub(crate) port: String,
    /// Its limit; absent = the default of its node's kind.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(crate) capacity: Option<Size>,
    /// Random loss on its link, instead of `queues.loss`; `0` = none.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(crate) loss: Option<crate::net::LossSpec>,
}

fn is_zero_u64(v: &u64) -> bool {
    *v == 0
}

/// Switch behaviour.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Switches {
    /// Spread flows over equal-cost next hops (ECMP), each flow by a fixed hash of its id;
    /// false = every flow takes the first shortest path found.
    #[serde(default = "default_true")]
    pub(crate) ecmp: bool,
    /// A seed mixed into ECMP's hash: another seed, another assignment of flows to paths
    /// (0: the hash of the flow and the switch alone).
    #[serde(default, skip_serializing_if = "is_zero_u64")]
    pub(crate) ecmp_seed: u64,
    /// Per-packet spraying: each packet takes the next of the equal-cost ports in turn
    /// (round robin per switch and destination), whatever its flow; deterministic.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub(crate) spray: bool,
    /// Time from a frame's arrival to its placement in an egress queue.
    #[serde(default)]
    pub(crate) processing_latency: Duration,
    /// Largest random addition to `processing_latency`, drawn per frame and switch (see
    /// [`crate::net::Network::set_processing_jitter`]); "0s" = none.
    #[serde(default, skip_serializing_if = "Duration::is_zero")]
    pub(crate) processing_jitter: Duration,
    /// A buffer shared by all egress queues of each switch, on top of each queue's own
    /// limit; absent = none.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(crate) shared_buffer: Option<Size>,
}

impl Default for Switches {
    fn default() -> Self {
        Self {
            ecmp: true,
            ecmp_seed: 0,
            spray: false,
            processing_latency: Duration::default(),
            processing_jitter: Duration::default(),
            shared_buffer: None,
        }
    }
}

/// Traffic source kinds.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum TrafficKind {
    /// Constant bit rate.
    Cbr,
    /// On/off CBR.
    Onoff,
    /// Poisson arrivals.
    Poisson,
    /// Always backlogged: sends as fast as its rate limiter (or link) allows, never
    /// more than its host's port can take (see `sim::backpressure`).
    Saturated,
    /// A TCP connection (Reno or NewReno).
    Tcp,
    /// A RoCEv2 queue pair sending one message (or an unlimited one), paced by its rate
    /// limiter, acknowledged by its receiver, with go-back-N on loss.
    Rdma,
    /// A workload: flows arriving as a Poisson process at each source host, sizes drawn
    /// from a distribution, each over its own RDMA queue pair or TCP connection.
    Flows,
}

/// How a workload's flows arrive.
#[derive(Clone, Debug, PartialEq)]
pub enum Arrivals {
    /// Poisson arrivals at each source.
    Poisson {
        /// `sizes`: a bundled distribution's name or a distribution file.
        sizes: String,
        /// `load`: the offered load of each source host, a fraction of its link (of
        /// incast events: of all the entry's hosts' links together).
        load: f64,
        /// `fan_in`: senders per incast event (`to = "incast"`).
        fan_in: Option<u32>,
    },
    /// `file`: the flows of an HPCC ns-3 fork flow file (see [`super::hpcc`]).
    File(String),
}

/// The transport each flow of a workload uses.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Transport {
    /// A RoCEv2 queue pair (`rdma = { … }`).
    #[default]
    Rdma,
    /// A TCP connection (`tcp = { … }`; DCTCP with `tcp.dctcp`).
    Tcp,
}

/// On/off period distribution.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum PeriodDistribution {
    /// Fixed lengths.
    #[default]
    Deterministic,
    /// Exponential lengths with the given means.
    Exponential,
}

/// When a source starts: a time, `{ uniform = ["0us", "100us"] }` drawn per flow, or
/// `{ first = "25s", every = "100ms" }`, one flow after another in source order.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Start {
    /// A fixed time.
    At(Duration),
    /// Uniform in [lo, hi), drawn from each flow's own stream.
    Uniform(Duration, Duration),
    /// The entry's k-th source (from 0) at first + k·every.
    Staggered {
        /// The first source's start.
        first: Duration,
        /// The gap between consecutive sources' starts.
        every: Duration,
    },
}

impl Default for Start {
    fn default() -> Self {
        Start::At(Duration(0))
    }
}

impl Serialize for Start {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        match self {
            Start::At(t) => t.serialize(s),
            Start::Uniform(lo, hi) => {
                let mut m = BTreeMap::new();
                m.insert("uniform", [lo.to_string(), hi.to_string()]);
                m.serialize(s)
            }
            Start::Staggered { first, every } => {
                let mut m = BTreeMap::new();
                m.insert("first", first.to_string());
                m.insert("every", every.to_string());
                m.serialize(s)
            }
        }
    }
}

impl<'de> Deserialize<'de> for Start {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V;
        impl<'de> Visitor<'de> for V {
            type Value = Start;
            fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                write!(
                    f,
                    "a time such as \"0s\", {{ uniform = [\"0us\", \"100us\"] }} or {{ first = \"25s\", every = \"100ms\" }}"
                )
            }
            fn visit_str<E: de::Error>(self, s: &str) -> Result<Start, E> {
                s.parse().map(Start::At).map_err(E::custom)
            }
            fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Start, A::Error> {
                let (mut out, mut first, mut every) = (None, None, None);
                while let Some(key) = map.next_key::<String>()? {
                    match key.as_str() {
                        "uniform" => {
                            let [lo, hi]: [Duration; 2] = map.next_value()?;
                            if hi < lo {
                                return Err(de::Error::custom(format!(
                                    "uniform range [\"{lo}\", \"{hi}\"] is reversed; expected [low, high]"
                                )));
                            }
                            out = Some(Start::Uniform(lo, hi));
                        }
                        "first" => first = Some(map.next_value::<Duration>()?),
                        "every" => every = Some(map.next_value::<Duration>()?),
                        _ => {
                            return Err(de::Error::custom(format!(
                                "unknown key \"{key}\" (expected \"uniform\", or \"first\" and \"every\")"
                            )))
                        }
                    }
                }
                match (out, first, every) {
                    (Some(u), None, None) => Ok(u),
                    (None, Some(first), Some(every)) => Ok(Start::Staggered { first, every }),
                    _ => Err(de::Error::custom(
                        "expected { uniform = [low, high] } or { first = time, every = time }",
                    )),
                }
            }
        }
        d.deserialize_any(V)
    }
}

fn default_frame_size() -> Size {
    Size::Bytes(1500)
}
fn default_source_queue() -> Size {
    Size::Frames(100)
}

/// A traffic entry; one flow per source host it names.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(try_from = "TrafficEntry", into = "TrafficEntry")]
pub struct Traffic {
    /// Name; flows are named "{name}/{source host}".
    pub(crate) name: String,
    /// What each source sends: the kind and its own keys.
    pub(crate) source: Source,
    /// Source host(s).
    pub(crate) from: HostSel,
    /// Destination: a host, a multicast group, or "uniform".
    pub(crate) to: String,
    /// Frame size on the wire.
    pub(crate) frame_size: Size,
    /// Start time.
    pub(crate) start: Start,
    /// Stop time; absent = the scenario's duration.
    pub(crate) stop: Option<Duration>,
    /// Frame priority (0..=7).
    pub(crate) priority: u8,
    /// The flow's frames are ECN-capable (ECT(0)).
    pub(crate) ecn: bool,
    /// A fixed per-flow rate limit at the host's egress.
    pub(crate) rate_limit: Option<Rate>,
    /// Capacity of the flow's limiter queue.
    pub(crate) source_queue: Size,
    /// Accept a `rate` above the source host's line rate.
    pub(crate) allow_above_line_rate: bool,
    /// Accept a frame size outside Ethernet's 64–9216 bytes.
    pub(crate) allow_any_frame_size: bool,
}

/// What a traffic source sends: one variant per `kind`, with that kind's keys. A key of
/// another kind is refused where the entry is read, with its key path.
#[derive(Clone, Debug, PartialEq)]
#[allow(clippy::large_enum_variant)] // one per traffic entry, read once at build
pub enum Source {
    /// `kind = "cbr"`: one frame every 8·L/rate.
    Cbr {
        /// `rate`.
        rate: Rate,
        /// `jitter`: each frame leaves up to this fraction of the frame gap after its
        /// nominal instant (uniformly at random; 0: strictly periodic).
        jitter: f64,
    },
    /// `kind = "poisson"`: exponential gaps with mean 8·L/rate.
    Poisson {
        /// `rate` (the mean).
        rate: Rate,
    },
    /// `kind = "onoff"`: CBR at `rate` during on-periods, silent during off-periods.
    OnOff {
        /// `rate` while on.
        rate: Rate,
        /// `on`: on-period length (or mean).
        on: Duration,
        /// `off`: off-period length (or mean).
        off: Duration,
        /// `periods`: fixed or exponential lengths.
        periods: PeriodDistribution,
    },
    /// `kind = "saturated"`: always backlogged, as fast as its rate limiter allows.
    Saturated,
    /// `kind = "tcp"`: a TCP connection to one host.
    Tcp {
        /// `bytes`: application data to send; absent = unlimited (a bulk transfer).
        bytes: Option<Size>,
        /// `sru`: incast: every source of the entry is a server that sends one server
        /// request unit per round to the client (`to`), which asks for the next round
        /// when all have arrived.
        sru: Option<Size>,
        /// `web`: objects of heavy-tailed sizes separated by think times.
        web: Option<crate::l4::app::WebParams>,
        /// `tcp`: the connection's parameters.
        tcp: crate::l4::tcp::TcpParams,
    },
    /// `kind = "flows"`: a workload of finite flows.
    Flows {
        /// How the flows arrive.
        arrivals: Arrivals,
        /// `transport`: what each flow runs over.
        transport: Transport,
        /// `rdma`: the queue pairs' parameters (transport = "rdma").
        rdma: crate::l4::rdma::RdmaParams,
        /// `tcp`: the connections' parameters (transport = "tcp").
        tcp: crate::l4::tcp::TcpParams,
    },
    /// `kind = "rdma"`: a RoCEv2 queue pair to one host.
    Rdma {
        /// `bytes`: the message; absent = unlimited.
        bytes: Option<Size>,
        /// `rdma`: the queue pair's transport parameters.
        rdma: crate::l4::rdma::RdmaParams,
    },
}

impl Source {
    /// The `kind` that selects this variant.
    pub fn kind(&self) -> TrafficKind {
        match self {
            Source::Cbr { .. } => TrafficKind::Cbr,
            Source::Poisson { .. } => TrafficKind::Poisson,
            Source::OnOff { .. } => TrafficKind::Onoff,
            Source::Saturated => TrafficKind::Saturated,
            Source::Tcp { .. } => TrafficKind::Tcp,
            Source::Rdma { .. } => TrafficKind::Rdma,
            Source::Flows { .. } => TrafficKind::Flows,
        }
    }

    /// The source's own rate, if its kind has one.
    pub fn rate(&self) -> Option<Rate> {
        match *self {
            Source::Cbr { rate, .. } | Source::Poisson { rate } | Source::OnOff { rate, .. } => Some(rate),
            Source::Saturated | Source::Tcp { .. } | Source::Rdma { .. } | Source::Flows { .. } => None,
        }
    }
}

/// A RoCEv2 packet of `frame_size` must carry data after its headers.
fn check_roce_frame(frame_size: Size) -> Result<(), String> {
    if matches!(frame_size, Size::Bytes(b) if b <= u64::from(crate::l4::rdma::HEADER_BYTES)) {
        return Err(at_key(
            "frame_size",
            format!(
                "\"{frame_size}\" leaves no room for data after a RoCEv2 packet's {} bytes of headers; expected e.g. \"1000B\"",
                crate::l4::rdma::HEADER_BYTES
            ),
        ));
    }
    Ok(())
}

/// A rule of one kind broken at one key: `key \`KEY\`: MESSAGE`, which
/// [`locate_serde_error`](super::error::locate_serde_error) turns into a located error.
fn at_key(key: &str, message: impl std::fmt::Display) -> String {
    format!("key `{key}`: {message}")
}

impl TryFrom<TrafficEntry> for Traffic {
    type Error = String;

    fn try_from(t: TrafficEntry) -> Result<Self, String> {
        let kind = kind_name(t.kind);
        let rate = || {
            t.rate.ok_or_else(|| {
                at_key(
                    "rate",
                    format!(
                        "missing required key \"rate\"; a {kind} source needs a rate, e.g. rate = \"1Gbps\""
                    ),
                )
            })
        };
        // A key of kind `owner` given to a source of another kind.
        let foreign = |key: &str, given: bool, owner: &str| {
            if given {
                Err(at_key(
                    key,
                    format!("\"{key}\" is not a key of a {kind} source; it belongs to kind = \"{owner}\""),
                ))
            } else {
                Ok(())
            }
        };
        let refuse = |key: &str, given: bool| foreign(key, given, "onoff");
        if t.kind != TrafficKind::Tcp && t.kind != TrafficKind::Rdma {
            foreign("bytes", t.bytes.is_some(), "tcp\" or kind = \"rdma")?;
        }
        if t.kind != TrafficKind::Rdma && t.kind != TrafficKind::Flows {
            foreign("rdma", t.rdma.is_some(), "rdma")?;
        }
        if t.kind != TrafficKind::Flows {
            foreign("file", t.file.is_some(), "flows")?;
            foreign("fan_in", t.fan_in.is_some(), "flows")?;
            foreign("sizes", t.sizes.is_some(), "flows")?;
            foreign("load", t.load.is_some(), "flows")?;
            foreign("transport", t.transport.is_some(), "flows")?;
        }
        if t.kind != TrafficKind::Tcp && t.kind != TrafficKind::Flows {
            foreign("tcp", t.tcp.is_some(), "tcp")?;
        }
        if t.kind != TrafficKind::Tcp {
            foreign("sru", t.sru.is_some(), "tcp")?;
            foreign("web", t.web.is_some(), "tcp")?;
        }
        if t.kind != TrafficKind::Cbr {
            foreign("jitter", t.jitter.is_some(), "cbr")?;
        }
        let source = match t.kind {
            TrafficKind::Cbr | TrafficKind::Poisson => {
                refuse("on", t.on.is_some())?;
                refuse("off", t.off.is_some())?;
                refuse("periods", t.periods.is_some())?;
                if t.kind == TrafficKind::Cbr {
                    let jitter = t.jitter.unwrap_or(0.0);
                    if !(0.0..=1.0).contains(&jitter) {
                        return Err(at_key(
                            "jitter",
                            format!("{jitter} is not a jitter; expected a fraction of the frame gap from 0 to 1, e.g. jitter = 0.5"),
                        ));
                    }
                    Source::Cbr { rate: rate()?, jitter }
                } else {
                    Source::Poisson { rate: rate()? }
                }
            }
            TrafficKind::Onoff => {
                let on = t.on.ok_or_else(|| {
                    at_key(
                        "on",
                        "missing required key \"on\"; an onoff source needs an on-period, e.g. on = \"20ms\"",
                    )
                })?;
                let off = t.off.ok_or_else(|| {
                    at_key(
                        "off",
                        "missing required key \"off\"; an onoff source needs an off-period, e.g. off = \"20ms\"",
                    )
                })?;
                if on.0 == 0 {
                    return Err(at_key(
                        "on",
                        "\"0s\" is not an on-period; expected a positive time, e.g. \"20ms\"",
                    ));
                }
                Source::OnOff { rate: rate()?, on, off, periods: t.periods.unwrap_or_default() }
            }
            TrafficKind::Saturated => {
                if let Some(r) = t.rate {
                    return Err(at_key(
                        "rate",
                        format!(
                            "rate = \"{r}\" given, but a saturated source has no rate of its own; \
                             expected no rate (use rate_limit to cap it)"
                        ),
                    ));
                }
                refuse("on", t.on.is_some())?;
                refuse("off", t.off.is_some())?;
                refuse("periods", t.periods.is_some())?;
                Source::Saturated
            }
            TrafficKind::Tcp => {
                if let Some(r) = t.rate {
                    return Err(at_key(
                        "rate",
                        format!(
                            "rate = \"{r}\" given, but a tcp source has no rate of its own (its window and \
                             the network set it); expected no rate (use rate_limit to cap it)"
                        ),
                    ));
                }
                refuse("on", t.on.is_some())?;
                refuse("off", t.off.is_some())?;
                refuse("periods", t.periods.is_some())?;
                if let Some(b) = t.bytes {
                    if !matches!(b, Size::Bytes(n) if n > 0) {
                        return Err(at_key(
                            "bytes",
                            format!("\"{b}\" is not an amount of data; expected a positive size in bytes, e.g. \"256KB\""),
                        ));
                    }
                }
                if let Some(b) = t.sru {
                    if !matches!(b, Size::Bytes(n) if n > 0) {
                        return Err(at_key(
                            "sru",
                            format!("\"{b}\" is not a server request unit; expected a positive size in bytes, e.g. \"256KB\""),
                        ));
                    }
                    if t.bytes.is_some() {
                        return Err(at_key(
                            "sru",
                            "\"sru\" given with \"bytes\"; expected one of them: an incast server sends an SRU per round, a transfer its bytes once",
                        ));
                    }
                }
                if let Some(web) = t.web {
                    if t.bytes.is_some() || t.sru.is_some() {
                        return Err(at_key(
                            "web",
                            "\"web\" given with \"bytes\" or \"sru\"; expected one of them: web objects come one after another, a transfer sends its bytes once, an incast server an SRU per round",
                        ));
                    }
                    if let Err((key, message)) = web.check("web") {
                        return Err(at_key(&key, message));
                    }
                }
                let tcp = t.tcp.unwrap_or_default();
                if let Err((key, message)) = tcp.check("tcp", t.frame_size.value()) {
                    return Err(at_key(&key, message));
                }
                Source::Tcp { bytes: t.bytes, sru: t.sru, web: t.web, tcp }
            }
            TrafficKind::Rdma => {
                if let Some(r) = t.rate {
                    return Err(at_key(
                        "rate",
                        format!(
                            "rate = \"{r}\" given, but an rdma source has no rate of its own (its rate \
                             limiter and the network set it); expected no rate (use rate_limit to cap it)"
                        ),
                    ));
                }
                refuse("on", t.on.is_some())?;
                refuse("off", t.off.is_some())?;
                refuse("periods", t.periods.is_some())?;
                if let Some(b) = t.bytes {
                    if !matches!(b, Size::Bytes(n) if n > 0) {
                        return Err(at_key(
                            "bytes",
                            format!("\"{b}\" is not a message size; expected a positive size in bytes, e.g. \"1MB\""),
                        ));
                    }
                }
                let frame = t.frame_size.value();
                check_roce_frame(t.frame_size)?;
                let rdma = t.rdma.unwrap_or_default();
                if let Err((key, message)) = rdma.check("rdma", frame) {
                    return Err(at_key(&key, message));
                }
                Source::Rdma { bytes: t.bytes, rdma }
            }
            TrafficKind::Flows => {
                if let Some(r) = t.rate {
                    return Err(at_key(
                        "rate",
                        format!(
                            "rate = \"{r}\" given, but a flows workload has no rate of its own (its load \
                             sets the arrivals); expected no rate, and load = 0.3 for 30 % of each source's link"
                        ),
                    ));
                }
                refuse("on", t.on.is_some())?;
                refuse("off", t.off.is_some())?;
                refuse("periods", t.periods.is_some())?;
                foreign("bytes", t.bytes.is_some(), "tcp\" or kind = \"rdma")?;
                let arrivals = if let Some(file) = t.file {
                    for (key, given) in [("sizes", t.sizes.is_some()), ("load", t.load.is_some())] {
                        if given {
                            return Err(at_key(
                                key,
                                format!("\"{key}\" given with \"file\"; expected one of them: the file lists every flow"),
                            ));
                        }
                    }
                    if t.to != "file" {
                        return Err(at_key(
                            "to",
                            format!(
                                "\"{}\" given with \"file\"; expected to = \"file\" (each flow's destination is in the file)",
                                t.to
                            ),
                        ));
                    }
                    Arrivals::File(file)
                } else {
                    let sizes = t.sizes.ok_or_else(|| {
                        at_key(
                            "sizes",
                            "missing required key \"sizes\"; a flows workload needs a size distribution: \
                             \"websearch\", \"hadoop\", \"datamining\" or a file, e.g. sizes = \"websearch\" \
                             (or file = \"flow.txt\", an HPCC ns-3 fork flow file)",
                        )
                    })?;
                    let load = t.load.ok_or_else(|| {
                        at_key("load", "missing required key \"load\"; expected a fraction of each source's link, e.g. load = 0.3")
                    })?;
                    if !(load > 0.0 && load < 1.0) {
                        return Err(at_key(
                            "load",
                            format!("{load} is not a load; expected a fraction of each source's link above 0 and below 1, e.g. 0.3"),
                        ));
                    }
                    let fan_in = match (t.to.as_str(), t.fan_in) {
                        ("incast", Some(n)) if n >= 1 => Some(n),
                        ("incast", Some(n)) => {
                            return Err(at_key("fan_in", format!("{n} senders; expected at least 1, e.g. fan_in = 60")))
                        }
                        ("incast", None) => {
                            return Err(at_key(
                                "fan_in",
                                "missing required key \"fan_in\"; to = \"incast\" needs the senders of each event, \
                                 e.g. fan_in = 60",
                            ))
                        }
                        (to, Some(_)) => {
                            return Err(at_key(
                                "fan_in",
                                format!("fan_in given with to = \"{to}\"; expected it only with to = \"incast\""),
                            ))
                        }
                        (_, None) => None,
                    };
                    Arrivals::Poisson { sizes, load, fan_in }
                };
                let transport = t.transport.unwrap_or_default();
                let frame = t.frame_size.value();
                match transport {
                    Transport::Rdma => {
                        foreign("tcp", t.tcp.is_some(), "tcp\" (or transport = \"tcp")?;
                        check_roce_frame(t.frame_size)?;
                    }
                    Transport::Tcp => {
                        foreign("rdma", t.rdma.is_some(), "rdma\" (or transport = \"rdma")?;
                    }
                }
                let rdma = t.rdma.unwrap_or_default();
                if let Err((key, message)) = rdma.check("rdma", frame) {
                    return Err(at_key(&key, message));
                }
                let tcp = t.tcp.unwrap_or_default();
                if let Err((key, message)) = tcp.check("tcp", frame) {
                    return Err(at_key(&key, message));
                }
                Source::Flows { arrivals, transport, rdma, tcp }
            }
        };
        Ok(Traffic {
            name: t.name,
            source,
            from: t.from,
            to: t.to,
            frame_size: t.frame_size,
            start: t.start,
            stop: t.stop,
            priority: t.priority,
            ecn: t.ecn,
            rate_limit: t.rate_limit,
            source_queue: t.source_queue,
            allow_above_line_rate: t.allow_above_line_rate,
            allow_any_frame_size: t.allow_any_frame_size,
        })
    }
}

impl From<Traffic> for TrafficEntry {
    fn from(t: Traffic) -> Self {
        let (on, off, periods) = match t.source {
            Source::OnOff { on, off, periods, .. } => (Some(on), Some(off), Some(periods)),
            _ => (None, None, None),
        };
        let jitter = match t.source {
            Source::Cbr { jitter, .. } if jitter > 0.0 => Some(jitter),
            _ => None,
        };
        let (bytes, sru, web, tcp) = match &t.source {
            Source::Tcp { bytes, sru, web, tcp } => (*bytes, *sru, *web, Some(*tcp)),
            Source::Rdma { bytes, .. } => (*bytes, None, None, None),
            _ => (None, None, None, None),
        };
        let rdma = match t.source {
            Source::Rdma { rdma, .. } => Some(rdma),
            Source::Flows { rdma, transport: Transport::Rdma, .. } => Some(rdma),
            _ => None,
        };
        let (sizes, load, file, fan_in, transport, tcp) = match &t.source {
            Source::Flows { arrivals, transport, tcp: flows_tcp, .. } => {
                let (sizes, load, file, fan_in) = match arrivals {
                    Arrivals::Poisson { sizes, load, fan_in } => {
                        (Some(sizes.clone()), Some(*load), None, *fan_in)
                    }
                    Arrivals::File(f) => (None, None, Some(f.clone()), None),
                };
                (
                    sizes,
                    load,
                    file,
                    fan_in,
                    Some(*transport),
                    if *transport == Transport::Tcp { Some(*flows_tcp) } else { None },
                )
            }
            _ => (None, None, None, None, None, tcp),
        };
        TrafficEntry {
            name: t.name,
            kind: t.source.kind(),
            from: t.from,
            to: t.to,
            frame_size: t.frame_size,
            rate: t.source.rate(),
            jitter,
            on,
            off,
            periods,
            bytes,
            sru,
            web,
            tcp,
            rdma,
            sizes,
            load,
            file,
            fan_in,
            transport,
            start: t.start,
            stop: t.stop,
            priority: t.priority,
            ecn: t.ecn,
            rate_limit: t.rate_limit,
            source_queue: t.source_queue,
            allow_above_line_rate: t.allow_above_line_rate,
            allow_any_frame_size: t.allow_any_frame_size,
        }
    }
}

/// The name `kind` is written with.
pub fn kind_name(k: TrafficKind) -> &'static str {
    match k {
        TrafficKind::Cbr => "cbr",
        TrafficKind::Onoff => "onoff",
        TrafficKind::Poisson => "poisson",
        TrafficKind::Saturated => "saturated",
        TrafficKind::Tcp => "tcp",
        TrafficKind::Rdma => "rdma",
        TrafficKind::Flows => "flows",
    }
}

/// A `[[traffic]]` table as written: every key any kind may have. It is read into a
/// [`Traffic`], whose [`Source`] holds exactly the keys of its kind.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct TrafficEntry {
    /// Name; flows are named "{name}/{source host}".
    pub(crate) name: String,
    /// Source kind.
    pub(crate) kind: TrafficKind,
    /// Source host(s).
    pub(crate) from: HostSel,
    /// Destination: a host, a multicast group, or "uniform" (each frame to a uniformly
    /// random other host).
    pub(crate) to: String,
    /// Frame size on the wire.
    #[serde(default = "default_frame_size")]
    pub(crate) frame_size: Size,
    /// Rate (CBR; on/off while on; Poisson mean).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(crate) rate: Option<Rate>,
    /// CBR only: each frame leaves up to this fraction of the frame gap (0 to 1) after
    /// its nominal instant, uniformly at random; the long-run rate is unchanged. Strictly
    /// periodic sources (0, the default) keep their phase relative to each other, so at a
    /// full drop-tail queue the same few flows lose every time.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(crate) jitter: Option<f64>,
    /// On-period length (on/off).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(crate) on: Option<Duration>,
    /// Off-period length (on/off).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(crate) off: Option<Duration>,
    /// On/off period distribution (onoff only; default fixed lengths).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(crate) periods: Option<PeriodDistribution>,
    /// Application data a TCP source sends, or an RDMA source's message (absent:
    /// unlimited).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(crate) bytes: Option<Size>,
    /// Incast: each TCP source sends this server request unit per round.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(crate) sru: Option<Size>,
    /// Web traffic: each TCP source sends objects of Pareto sizes after exponential
    /// think times.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(crate) web: Option<crate::l4::app::WebParams>,
    /// A TCP source's parameters.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(crate) tcp: Option<crate::l4::tcp::TcpParams>,
    /// An RDMA source's queue-pair parameters.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(crate) rdma: Option<crate::l4::rdma::RdmaParams>,
    /// A workload's size distribution: a bundled name or a file.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(crate) sizes: Option<String>,
    /// A workload's offered load, a fraction of each source's link.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(crate) load: Option<f64>,
    /// A workload's flows from an HPCC ns-3 fork flow file.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(crate) file: Option<String>,
    /// Senders per incast event of a workload with to = "incast".
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(crate) fan_in: Option<u32>,
    /// A workload's transport.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(crate) transport: Option<Transport>,
    /// Start time.
    #[serde(default)]
    pub(crate) start: Start,
    /// Stop time; absent = the scenario's duration.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(crate) stop: Option<Duration>,
    /// Frame priority (0..=7, the IEEE 802.1Q PCP): selects the egress class.
    #[serde(default)]
    pub(crate) priority: u8,
    /// The flow's frames are ECN-capable (ECT(0)), so marking queues mark them instead
    /// of leaving them unmarked.
    #[serde(default)]
    pub(crate) ecn: bool,
    /// A fixed per-flow rate limit at the host's egress (a reaction point, when the flow
    /// has one, drives this shaper instead).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(crate) rate_limit: Option<Rate>,
    /// Capacity of the flow's limiter queue; frames beyond it are lost at the source.
    #[serde(default = "default_source_queue")]
    pub(crate) source_queue: Size,
    /// Accept a `rate` above the source host's line rate (up to 1000 times it). Such a
    /// source only fills its own host's queue, so it is refused unless asked for.
    #[serde(default)]
    pub(crate) allow_above_line_rate: bool,
    /// Accept a `frame_size` outside 64–9216 bytes (the Ethernet minimum and a common
    /// jumbo-frame maximum), e.g. for a model of another link layer.
    #[serde(default)]
    pub(crate) allow_any_frame_size: bool,
}

/// Protocol tables: one per protocol, each a parameter struct in the protocol's own
/// module. Registering a protocol is a field here and a line in [`Protocols::all`].
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Protocols {
    /// IEEE 802.1Qau QCN.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(crate) qcn: Option<crate::l2::qcn::QcnConfig>,
    /// ECM (BCN), Bergamasco et al. as simulated by Roeck 2007.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(crate) ecm: Option<crate::l2::ecm::EcmConfig>,
    /// E2CM-P and E2CM-PR: ECM with probes to the congestion point, as Roeck 2007 ran them.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(crate) e2cm: Option<crate::l2::e2cm::E2cmConfig>,
    /// FECN with probes, as simulated by Roeck 2007.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(crate) fecn: Option<crate::l2::fecn::FecnConfig>,
    /// A single-threshold ECN marker on egress queues (DCTCP-style).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(crate) ecn_threshold: Option<crate::aqm::ecn_threshold::EcnThresholdParams>,
    /// RED and Adaptive RED on egress queues.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(crate) red: Option<crate::aqm::red::RedParams>,
    /// Multi-level ECN and Adaptive MECN on egress queues.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(crate) mecn: Option<crate::aqm::mecn::MecnParams>,
    /// DCQCN (RoCEv2): ECN marking at switches, CNPs from receivers, rate limiters at
    /// senders.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(crate) dcqcn: Option<crate::l4::dcqcn::DcqcnConfig>,
    /// HPCC (Li et al. 2019): in-band telemetry from switches, echoed in RDMA ACKs, sets
    /// the senders' rates.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(crate) hpcc: Option<crate::l4::hpcc::HpccConfig>,
    /// TIMELY (Mittal et al. 2015): RTTs measured with the timestamps RDMA ACKs echo set
    /// the senders' rates.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(crate) timely: Option<crate::l4::timely::TimelyConfig>,
    /// IEEE 802.3x PAUSE / 802.1Qbb PFC, and hosts with an input service rate.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(crate) pause: Option<crate::l2::pause::PauseParams>,
}

impl Protocols {
    /// Every configured protocol with its table's key, in installation order.
    pub fn all(&self) -> Vec<(&'static str, &dyn Install)> {
        fn entry<'a, T: Install>(
            key: &'static str,
            table: &'a Option<T>,
        ) -> Option<(&'static str, &'a dyn Install)> {
            table.as_ref().map(|t| (key, t as &dyn Install))
        }
        [
            entry("protocols.ecn_threshold", &self.ecn_threshold),
            entry("protocols.red", &self.red),
            entry("protocols.mecn", &self.mecn),
            entry("protocols.qcn", &self.qcn),
            entry("protocols.ecm", &self.ecm),
            entry("protocols.e2cm", &self.e2cm),
            entry("protocols.fecn", &self.fecn),
            entry("protocols.dcqcn", &self.dcqcn),
            entry("protocols.hpcc", &self.hpcc),
            entry("protocols.timely", &self.timely),
            entry("protocols.pause", &self.pause),
        ]
        .into_iter()
        .flatten()
        .collect()
    }
}

/// Whether per-flow series are recorded.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum FlowSeries {
    /// Recorded when the scenario has at most [`FlowSeries::AUTO_MAX_FLOWS`] flows (a
    /// column per flow is readable and cheap for tens of flows, not for thousands).
    #[default]
    Auto,
    /// Always recorded.
    On,
    /// Never recorded.
    Off,
}

impl FlowSeries {
    /// Most flows for which "auto" records per-flow series.
    pub const AUTO_MAX_FLOWS: usize = 256;

    /// Whether a scenario with `flows` flows records per-flow series.
    pub fn records(self, flows: usize) -> bool {
        match self {
            FlowSeries::Auto => flows <= Self::AUTO_MAX_FLOWS,
            FlowSeries::On => true,
            FlowSeries::Off => false,
        }
    }
}

impl Serialize for FlowSeries {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        match self {
            FlowSeries::Auto => s.serialize_str("auto"),
            FlowSeries::On => s.serialize_bool(true),
            FlowSeries::Off => s.serialize_bool(false),
        }
    }
}

impl<'de> Deserialize<'de> for FlowSeries {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V;
        impl Visitor<'_> for V {
            type Value = FlowSeries;
            fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                write!(f, "true, false or \"auto\"")
            }
            fn visit_bool<E: de::Error>(self, b: bool) -> Result<FlowSeries, E> {
                Ok(if b { FlowSeries::On } else { FlowSeries::Off })
            }
            fn visit_str<E: de::Error>(self, s: &str) -> Result<FlowSeries, E> {
                match s {
                    "auto" => Ok(FlowSeries::Auto),
                    _ => Err(E::custom(format!("\"{s}\" is not a choice; expected true, false or \"auto\""))),
                }
            }
        }
        d.deserialize_any(V)
    }
}

fn default_switches() -> PortSel {
    PortSel::Switches
}

fn default_interval() -> Duration {
    Duration(crate::engine::PS_PER_MS)
}

/// What to record and write.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Metrics {
    /// Sampling period of the time series.
    #[serde(default = "default_interval")]
    pub(crate) interval: Duration,
    /// Queues whose length is sampled.
    #[serde(default = "default_switches")]
    pub(crate) queues: PortSel,
    /// Sample per-flow throughput: true, false, or "auto" (only when the scenario has at
    /// most [`FlowSeries::AUTO_MAX_FLOWS`] flows).
    #[serde(default)]
    pub(crate) flows: FlowSeries,
    /// Sample the rate of every QCN reaction point.
    #[serde(default = "default_true")]
    pub(crate) rates: bool,
    /// Write time series as Parquet.
    #[serde(default = "default_true")]
    pub(crate) parquet: bool,
    /// Also write time series as CSV.
    #[serde(default)]
    pub csv: bool,
    /// Draw SVG plots of the time series.
    #[serde(default = "default_true")]
    pub(crate) plots: bool,
    /// Also render each plot as PNG (1800 × 1000 pixels).
    #[serde(default)]
    pub(crate) png: bool,
    /// Keep a histogram of each flow's one-way delays, for `p50_delay_s` and
    /// `p99_delay_s` in `summary.json` (one more cache line per delivered frame).
    #[serde(default)]
    pub(crate) delay_percentiles: bool,
    /// A packet trace of some ports' frames (`trace.pcapng`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(crate) pcap: Option<crate::metrics::pcap::PcapSpec>,
}

impl Default for Metrics {
    fn default() -> Self {
        Self {
            interval: default_interval(),
            queues: PortSel::Switches,
            flows: FlowSeries::Auto,
            rates: true,
            parquet: true,
            csv: false,
            plots: true,
            png: false,
            delay_percentiles: false,
            pcap: None,
        }
    }
}
