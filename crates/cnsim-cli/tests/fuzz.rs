//! Mutation fuzzing: every bundled scenario, mutated at random (byte edits and structural
//! edits), must either load, build and run briefly with frames conserved, or fail with a
//! located error. In-process, nothing may panic; as a `cnsim run` process under a memory
//! limit and a time limit, nothing may panic, abort, hang or break conservation.
//!
//! The runners are seeded deterministically, so a failure reproduces on every run.

use std::cell::Cell;
use std::collections::BTreeMap;
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::path::Path;
use std::process::{Command, Stdio};
use std::time::{Duration as Wall, Instant};

use cnsim::scenario::{self, bundled::BUNDLED, units::Duration, ScenarioError};
use cnsim::sim::Sim;
use cnsim::traffic::Pattern;
use proptest::prelude::*;
use proptest::strategy::ValueTree;
use proptest::test_runner::{Config, RngAlgorithm, TestCaseError, TestRng, TestRunner};

/// The scale references are not fuzzed: the 64-sender dumbbell with 4096 senders (slow to
/// build thousands of times over, and its mutations are those of the 64-sender one), and
/// the HPCC paper's 320-host fabric (millions of packets in any run; its keys and code
/// paths are those of `fattree-websearch`).
const NOT_FUZZED: &[&str] = &[
    "dumbbell-cbr-4096",
    "hpcc320-websearch",
    "hpcc2019-dcqcn",
    "hpcc2019-dcqcn-win",
    "hpcc2019-timely",
    "hpcc2019-timely-win",
    "hpcc2019-dctcp",
    "hpcc2019-hpcc",
];

/// A small congested dumbbell every protocol seed starts from.
macro_rules! seed_base {
    () => {
        r#"
name = "fuzz-protocol"
duration = "2ms"
[topology.dumbbell]
senders = 2
sender_link = { rate = "1Gbps", delay = "1us" }
bottleneck = { rate = "1Gbps", delay = "5us" }
receiver_link = { rate = "1Gbps", delay = "1us" }
[queues]
capacity = "100 frames"
loss = { good_to_bad = 0.001, bad_to_good = 0.5, loss_in_good = 0.0001, loss_in_bad = 0.5 }
ports = [{ port = "r2->d1", loss = 0.0001 }]
classes = 2
[[traffic]]
name = "load"
kind = "cbr"
from = "s*"
to = "d1"
rate = "800Mbps"
ecn = true
jitter = 0.2
[metrics]
interval = "100us"
plots = false
"#
    };
}

/// One seed per protocol table, every key of the table written out (most not at their
/// default), so that mutations reach every protocol's every key (the bundled scenarios
/// use only some protocols, and few of their keys).
const PROTOCOL_SEEDS: &[(&str, &str)] = &[
    (
        "fuzz-qcn",
        concat!(
            seed_base!(),
            r#"
[protocols.qcn]
enabled = true
congestion_points = ["r1->r2"]
flows = "*"
multicast = "enhanced"
cnm_size = "64B"
cnm_priority = 7
[protocols.qcn.cp]
qeq = "20 frames"
w = 1.5
sampling = "standard"
sample_table = ["100KB", "50KB"]
jitter = [0.9, 1.1]
qold_update = "feedback"
base_probability = 0.02
detailed_table = ["100KB", "10KB"]
detailed_levels = "per-value"
qeq_fraction = 0.25
[protocols.qcn.cp.congestion_memory]
threshold = 0.8
decay = "below-qeq"
max_count = 5
[protocols.qcn.cp.guidance]
rate_t = "200us"
switch_rate_weight = 0.002
[protocols.qcn.rp]
gd = 0.01
min_dec_factor = 0.25
min_rate = "10Mbps"
byte_counter = "100KB"
timer = "1ms"
fast_recovery_threshold = 4
r_ai = "10Mbps"
r_hai = "100Mbps"
hai_multiplier = "one"
halve_after_fast_recovery = false
jitter = [1.0, 1.0]
target_guard = false
initial_rate = "1Gbps"
extra_fast_recovery = true
efr_max = "500000B"
drift_factor = 1.0005
self_increase = "1Mbps"
self_increase_factor = 0.001
adaptive_increase = true
[protocols.qcn.rp.probes]
interval = "50000B"
size = "128B"
priority = 6
"#
        ),
    ),
    (
        "fuzz-ecm",
        concat!(
            seed_base!(),
            r#"
[protocols.ecm]
enabled = true
congestion_points = ["r1->r2"]
flows = "*"
bcn_size = "128B"
bcn_priority = 6
[protocols.ecm.cp]
qeq = 300.0
qsc = 1200.0
w = 1.0
page = "128B"
sampling_interval = "75000B"
jitter = [0.9, 1.1]
[protocols.ecm.rp]
gi = 0.5
gd = 0.0002
ru = "2Mbps"
rd = "2Mbps"
td = "200us"
rmin = "2Mbps"
drift = true
"#
        ),
    ),
    (
        "fuzz-e2cm",
        concat!(
            seed_base!(),
            r#"
[protocols.e2cm]
enabled = true
congestion_points = ["r1->r2"]
flows = "*"
bcn_size = "128B"
bcn_priority = 6
probe_to = "cp"
flow_qeq = "20000B"
[protocols.e2cm.cp]
qeq = 300.0
qsc = 1200.0
w = 1.0
page = "128B"
sampling_interval = "75000B"
jitter = [1.0, 1.0]
[protocols.e2cm.rp]
gi = 0.5
gd = 0.0002
ru = "2Mbps"
rd = "2Mbps"
td = "200us"
rmin = "2Mbps"
drift = false
[protocols.e2cm.probes]
interval = "50000B"
size = "128B"
priority = 6
[protocols.e2cm.guidance]
rate_t = "200us"
switch_rate_weight = 0.01
"#
        ),
    ),
    (
        "fuzz-fecn",
        concat!(
            seed_base!(),
            r#"
[protocols.fecn]
enabled = true
congestion_points = ["r1->r2"]
flows = "*"
t = "200us"
probe_size = "128B"
probe_class = "high"
probe_priority = 5
[protocols.fecn.switch]
n0 = 20.0
a = 1.2
b = 1.01
c = 0.2
alpha = 0.25
min_rate = "20Mbps"
qeq = "30000B"
[protocols.fecn.source]
min_rate = "20Mbps"
severe_decrease = 0.25
fast_start = true
[protocols.fecn.severe]
qsc = "100000B"
sampling_interval = "75000B"
bcn_size = "128B"
"#
        ),
    ),
    (
        "fuzz-aqm",
        concat!(
            seed_base!(),
            r#"
[protocols.ecn_threshold]
k = "20 frames"
ports = ["s1->r1"]
[protocols.red]
ports = ["r1->r2"]
min_th = "5 frames"
max_th = "15 frames"
max_p = 0.02
w_q = 0.002
gentle = false
gentle_line = "current"
wait = false
byte_mode = true
mean_packet_size = "1000B"
target_delay = "1ms"
ecn = true
mark_p = 0.1
[protocols.red.adaptive]
interval = "500us"
alpha = 0.005
beta = 0.8
top = 0.4
bottom = 0.02
[protocols.mecn]
ports = ["r2->d1"]
min_th = "4 frames"
mid_th = "8 frames"
max_th = "12 frames"
max_p = 0.2
max_p2 = 0.3
p1_span = "mid"
incipient_above_mid = false
gentle = true
spread = false
wait = false
w_q = 0.003
mean_packet_size = "1000B"
target_delay = "1ms"
[protocols.mecn.adaptive]
interval = "500us"
target = "6 frames"
range = [0.2, 0.6]
error_from = "edges"
bottom = 0.02
top = 0.4
"#
        ),
    ),
    (
        "fuzz-pause",
        concat!(
            seed_base!(),
            r#"
[protocols.pause]
mode = "pfc"
quanta = 1000
[protocols.pause.switches]
xoff = "80 frames"
xon = "40 frames"
[[protocols.pause.hosts]]
hosts = "d1"
service_rate = "500Mbps"
input_buffer = "64KB"
send_pause = true
xoff = "48KB"
xon = "32KB"
"#
        ),
    ),
    (
        "fuzz-tcp",
        concat!(
            seed_base!(),
            r#"
[[traffic]]
name = "conn"
kind = "tcp"
from = "s1"
to = "d1"
frame_size = "1040B"
bytes = "100KB"
tcp = { variant = "reno", window = 40, initial_window = 1, syn = true, limited_transmit = true, min_rto = "1ms", max_rto = "10s", initial_rto = "3ms", tick = "1us", header = "40B", ack_size = "40B", mecn = { beta1 = 0.1, beta2 = 0.3 }, rules = "ns3", ssthresh_from = "flight", ecn_floor = 1, overhead = "20us", delayed_ack = { every = 2, timeout = "1ms" } }
[[traffic]]
name = "users"
kind = "tcp"
from = "s2"
to = "d1"
web = { size_mean = "20KB", size_shape = 1.5, think_mean = "500us" }
[switches]
processing_jitter = "500ns"
[protocols.mecn]
ports = ["r1->r2"]
min_th = "4 frames"
mid_th = "8 frames"
max_th = "12 frames"
above_max = "mark"
"#
        ),
    ),
    (
        "fuzz-dctcp",
        concat!(
            seed_base!(),
            r#"
[[traffic]]
name = "dctcp"
kind = "tcp"
from = "s1"
to = "d1"
frame_size = "1500B"
tcp = { window = 1000, min_rto = "1ms", dctcp = { g = 0.125, alpha_init = 0.5 }, delayed_ack = { every = 2, timeout = "1ms" } }
[protocols.ecn_threshold]
k = "20 frames"
ports = ["r1->r2"]
"#
        ),
    ),
    (
        "fuzz-dcqcn",
        concat!(
            seed_base!(),
            r#"
[protocols.dcqcn]
congestion_points = ["r1->r2"]
flows = "*"
kmin = "10KB"
kmax = "100KB"
pmax = 0.05
cnp_interval = "20us"
cnp_size = "128B"
cnp_priority = 1
[protocols.dcqcn.rp]
g = 0.0625
alpha_init = 0.5
alpha_timer = "50us"
timer = "100us"
byte_counter = "1MB"
fast_recovery = 4
r_ai = "5Mbps"
r_hai = "50Mbps"
min_rate = "10Mbps"
target_on_cut = "after-increase"
rate_on_first_cnp = 0.5
clocks = "fork"
rate_decrease_interval = "4us"
[protocols.pause]
mode = "pfc"
[protocols.pause.switches]
xoff = "80 frames"
xon = "40 frames"
"#
        ),
    ),
    (
        "fuzz-hpcc",
        r#"
name = "fuzz-hpcc"
duration = "1ms"
[topology.dumbbell]
senders = 2
sender_link = { rate = "25Gbps", delay = "1us" }
bottleneck = { rate = "25Gbps", delay = "2us" }
receiver_link = { rate = "25Gbps", delay = "1us" }
[queues]
capacity = "200 frames"
[[traffic]]
name = "qp"
kind = "rdma"
from = "s*"
to = "d1"
bytes = "500KB"
frame_size = "1000B"
rdma = { ack_every = 2, timeout = "200us", window = "20KB" }
[protocols.hpcc]
flows = "*"
eta = 0.9
max_stage = 3
r_ai = "20Mbps"
min_rate = "50Mbps"
fast_react = false
int_multi = 2
window = "bdp"
base_rtt = "path"
[protocols.pause]
mode = "pfc"
[protocols.pause.switches]
xoff = "80 frames"
xon = "40 frames"
[metrics]
interval = "100us"
plots = false
"#,
    ),
    (
        "fuzz-timely",
        r#"
name = "fuzz-timely"
duration = "1ms"
[topology.dumbbell]
senders = 2
sender_link = { rate = "25Gbps", delay = "1us" }
bottleneck = { rate = "25Gbps", delay = "2us" }
receiver_link = { rate = "25Gbps", delay = "1us" }
[queues]
capacity = "200 frames"
[[traffic]]
name = "qp"
kind = "rdma"
from = "s1"
to = "d1"
bytes = "500KB"
frame_size = "1000B"
rdma = { ack_every = 2, timeout = "200us" }
[[traffic]]
name = "qd"
kind = "rdma"
from = "s2"
to = "d1"
bytes = "500KB"
frame_size = "1000B"
[protocols.timely]
flows = "qp"
alpha = 0.5
beta = 0.6
t_low = "10us"
t_high = "100us"
min_rtt = "5us"
delta = "50Mbps"
r_hai = "200Mbps"
hai_after = 3
min_rate = "50Mbps"
window = "bdp"
base_rtt = "path"
[protocols.dcqcn]
congestion_points = "switches"
flows = "qd"
window = "bdp"
base_rtt = "path"
[protocols.pause]
mode = "pfc"
[protocols.pause.switches]
xoff = "80 frames"
xon = "40 frames"
[metrics]
interval = "100us"
plots = false
"#,
    ),
    (
        "fuzz-rdma",
        concat!(
            seed_base!(),
            r#"
[[traffic]]
name = "qp"
kind = "rdma"
from = "s1"
to = "d1"
bytes = "200KB"
frame_size = "1000B"
priority = 1
rdma = { ack_every = 2, nack_interval = "50us", timeout = "200us", window = "20KB" }
"#
        ),
    ),
];

/// The scenarios that are fuzzed: the bundled ones but the scale reference, and the
/// protocol seeds.
fn fuzzed() -> Vec<(&'static str, &'static str)> {
    BUNDLED
        .iter()
        .copied()
        .filter(|(n, _)| !NOT_FUZZED.contains(n))
        .chain(PROTOCOL_SEEDS.iter().copied())
        .collect()
}

#[test]
fn every_bundled_scenario_but_the_scale_reference_is_fuzzed() {
    assert_eq!(fuzzed().len(), BUNDLED.len() - NOT_FUZZED.len() + PROTOCOL_SEEDS.len());
}

/// Every key path of a TOML document: tables and their keys, an array of tables as
/// `key[]`.
fn key_paths(v: &toml::Value, path: &str, out: &mut std::collections::BTreeSet<String>) {
    match v {
        toml::Value::Table(t) => {
            for (k, v) in t {
                let p = if path.is_empty() { k.clone() } else { format!("{path}.{k}") };
                out.insert(p.clone());
                key_paths(v, &p, out);
            }
        }
        toml::Value::Array(items) if items.iter().any(toml::Value::is_table) => {
            let p = format!("{path}[]");
            out.insert(p.clone());
            for item in items {
                key_paths(item, &p, out);
            }
        }
        _ => {}
    }
}

/// The fuzzed scenarios between them write every key of every protocol table and of
/// TCP's parameters that `docs/scenario-keys.md` lists, so mutations reach them all.
#[test]
fn the_fuzzed_scenarios_cover_every_protocol_key() {
    let reference = include_str!("../../../docs/scenario-keys.md");
    let documented: Vec<&str> = reference
        .lines()
        .filter_map(|l| l.strip_prefix("| `"))
        .filter_map(|l| l.split('`').next())
        .filter(|k| k.starts_with("protocols.") || k.starts_with("traffic[].tcp."))
        .collect();
    assert!(documented.len() > 100, "{} protocol keys documented", documented.len());
    let mut written = std::collections::BTreeSet::new();
    for (name, text) in fuzzed() {
        let doc: toml::Value = toml::from_str(text).unwrap_or_else(|e| panic!("{name}: {e}"));
        key_paths(&doc, "", &mut written);
    }
    let missing: Vec<&&str> = documented.iter().filter(|k| !written.contains(**k)).collect();
    assert!(missing.is_empty(), "keys no fuzzed scenario writes: {missing:?}");
}

/// Simulated time of each run: 2 ms.
const RUN_PS: u64 = 2_000_000_000;
/// Runs whose estimated work exceeds this many frames are built but not run, to keep the
/// test fast (a mutated rate or frame size can ask for billions of frames legitimately).
const MAX_FRAMES: f64 = 400_000.0;

/// A value written into the scenario text.
#[derive(Clone, Debug)]
enum Value {
    /// A quoted random string.
    Str(String),
    /// A small or a large non-negative integer.
    Int(u64),
    /// A negative integer.
    Negative(i64),
    /// `""`.
    Empty,
    /// An extreme literal: out-of-range integers, huge quantities, inf, nan.
    Huge(&'static str),
    /// A number written as a string without a unit, e.g. `"10"`.
    Unitless(u32),
    /// A quantity with a random unit, e.g. `"7ps"`, `"300Tbps"`, `"0 frames"`.
    Quantity(u64, &'static str),
    /// Another kind of TOML value: a bool, a float, an array, a table.
    Other(&'static str),
}

impl Value {
    fn toml(&self) -> String {
        match self {
            Value::Str(s) => format!("\"{s}\""),
            Value::Int(n) => n.to_string(),
            Value::Negative(n) => n.to_string(),
            Value::Empty => "\"\"".into(),
            Value::Huge(s) | Value::Other(s) => s.to_string(),
            Value::Unitless(n) => format!("\"{n}\""),
            Value::Quantity(n, u) => format!("\"{n}{u}\""),
        }
    }
}

/// One edit of the scenario text. Positions are taken modulo the number of candidates.
#[derive(Clone, Debug)]
enum Mutation {
    /// Delete `len` characters at `at`.
    Delete { at: usize, len: usize },
    /// Insert a character at `at`.
    Insert { at: usize, c: char },
    /// Replace the character at `at`.
    Replace { at: usize, c: char },
    /// Cut the text at `at`.
    Truncate { at: usize },
    /// Replace the right-hand side of the `at`-th `key = value` line.
    SetValue { at: usize, value: Value },
    /// Replace the `at`-th quoted string or number anywhere (also inside inline tables
    /// and arrays).
    SetToken { at: usize, value: Value },
    /// Delete the `at`-th line.
    DeleteLine { at: usize },
    /// Duplicate the `at`-th line.
    DuplicateLine { at: usize },
    /// Rename the `at`-th key (or table header) by one character.
    RenameKey { at: usize, edit: CharEdit },
    /// Replace the `at`-th node name in a from/to/hosts/ports/group line.
    SetName { at: usize, name: String },
}

/// A one-character edit of a key.
#[derive(Clone, Debug)]
enum CharEdit {
    Insert(usize, char),
    Delete(usize),
    Replace(usize, char),
}

fn any_char() -> impl Strategy<Value = char> {
    prop_oneof![
        // TOML's structural characters and the characters quantities are made of.
        prop::sample::select(vec![
            '"', '\'', '=', '[', ']', '{', '}', ',', '.', '#', '\n', ' ', '-', '_', '0', '1', '9', 'G', 'M',
            'b', 'p', 's', 'n', 'u', 'm', 'B', 'K', '*', '?', '>', 'µ', 'é',
        ]),
        any::<char>(),
    ]
}

fn value() -> impl Strategy<Value = Value> {
    prop_oneof![
        1 => "[a-zA-Z0-9 _*?>-]{0,12}".prop_map(Value::Str),
        // Small and large counts, avoiding the mid-size topologies (thousands of nodes)
        // that are valid but slow to route; large ones mostly within u32.
        2 => (0u64..=100).prop_map(Value::Int),
        1 => (10_000_000u64..=u64::from(u32::MAX)).prop_map(Value::Int),
        1 => (10_000_000u64..=1_000_000_000_000).prop_map(Value::Int),
        1 => (i64::MIN..0).prop_map(Value::Negative),
        1 => Just(Value::Empty),
        1 => prop::sample::select(vec![
            "99999999999999999999",
            "9223372036854775807",
            "4294967295",
            "4294967296",
            "1e308",
            "-1e308",
            "inf",
            "nan",
            "\"99999999999999999999Tbps\"",
            "\"18446744073709551615 frames\"",
            "\"18446744073709551615B\"",
            "\"18446744073s\"",
            "\"1e400s\"",
            "\"0.0000000000000000001ps\"",
            "\"4294967295B\"",
        ])
        .prop_map(Value::Huge),
        1 => any::<u32>().prop_map(Value::Unitless),
        3 => (
            prop_oneof![0u64..=3, 0u64..=100_000, any::<u64>()],
            prop::sample::select(vec![
                "bps", "kbps", "Mbps", "Gbps", "Tbps", "ps", "ns", "us", "ms", "s", "B",
                "KB", "MB", "GB", "KiB", " frames",
            ]),
        )
            .prop_map(|(n, u)| Value::Quantity(n, u)),
        1 => prop::sample::select(vec![
            "true", "false", "1.5", "-0.0", "[]", "[1, 2]", "{}", "{ uniform = [] }",
            "[\"a\", 3]", "1979-05-27",
        ])
        .prop_map(Value::Other),
    ]
}

fn node_name() -> impl Strategy<Value = String> {
    prop_oneof![
        prop::sample::select(vec![
            "s1",
            "s64",
            "d1",
            "r1",
            "r2",
            "h1",
            "h28",
            "h30",
            "sw",
            "sw1",
            "sw10",
            "S1",
            "R1",
            "R2",
            "G",
            "uniform",
            "",
            " ",
            "*",
            "?",
            "s*",
            "S*",
            "x*",
            "h?",
            "r1->r2",
            "a*b*c*d*e*f*g*h*i*j*k*l*m*n*o*p*q*r*s*t*u*v*w*x*y*z",
        ])
        .prop_map(String::from),
        "[a-zA-Z0-9*?_-]{0,8}",
    ]
}

fn char_edit() -> impl Strategy<Value = CharEdit> {
    let letter = prop::sample::select(vec!['a', 'e', 's', 'r', '_', 'x', '-', '.']);
    prop_oneof![
        (any::<usize>(), letter.clone()).prop_map(|(i, c)| CharEdit::Insert(i, c)),
        any::<usize>().prop_map(CharEdit::Delete),
        (any::<usize>(), letter).prop_map(|(i, c)| CharEdit::Replace(i, c)),
    ]
}

fn mutation() -> impl Strategy<Value = Mutation> {
    let at = any::<usize>();
    prop_oneof![
        1 => (at, 1usize..8).prop_map(|(at, len)| Mutation::Delete { at, len }),
        1 => (at, any_char()).prop_map(|(at, c)| Mutation::Insert { at, c }),
        1 => (at, any_char()).prop_map(|(at, c)| Mutation::Replace { at, c }),
        1 => at.prop_map(|at| Mutation::Truncate { at }),
        3 => (at, value()).prop_map(|(at, value)| Mutation::SetValue { at, value }),
        3 => (at, value()).prop_map(|(at, value)| Mutation::SetToken { at, value }),
        1 => at.prop_map(|at| Mutation::DeleteLine { at }),
        1 => at.prop_map(|at| Mutation::DuplicateLine { at }),
        1 => (at, char_edit()).prop_map(|(at, edit)| Mutation::RenameKey { at, edit }),
        3 => (at, node_name()).prop_map(|(at, name)| Mutation::SetName { at, name }),
    ]
}

/// The `key = value` lines: (line index, byte offset of the value).
fn value_lines(lines: &[String]) -> Vec<(usize, usize)> {
    lines
        .iter()
        .enumerate()
        .filter(|(_, l)| l.trim_start().starts_with(|c: char| c.is_ascii_alphabetic() || c == '_'))
        .filter_map(|(i, l)| l.find('=').map(|eq| (i, eq + 1)))
        .collect()
}

/// Character spans of quoted strings and bare numbers, in `text`.
fn token_spans(text: &[char]) -> Vec<(usize, usize)> {
    let mut out = Vec::new();
    let mut i = 0;
    while i < text.len() {
        match text[i] {
            '"' => {
                let start = i;
                i += 1;
                while i < text.len() && text[i] != '"' && text[i] != '\n' {
                    i += 1;
                }
                if i < text.len() && text[i] == '"' {
                    out.push((start, i + 1));
                }
            }
            '#' => {
                while i < text.len() && text[i] != '\n' {
                    i += 1;
                }
            }
            c if c.is_ascii_digit() && i > 0 && matches!(text[i - 1], ' ' | '=' | '[' | ',') => {
                let start = i;
                while i < text.len() && (text[i].is_ascii_alphanumeric() || text[i] == '.') {
                    i += 1;
                }
                out.push((start, i));
                continue;
            }
            _ => {}
        }
        i += 1;
    }
    out
}

/// Lines that hold node names.
fn is_name_line(l: &str) -> bool {
    let t = l.trim_start();
    ["from", "to", "hosts", "ports", "port", "congestion_points", "queues", "switch", "G ", "G="]
        .iter()
        .any(|k| t.starts_with(k))
}

fn apply(text: &str, m: &Mutation) -> String {
    let chars: Vec<char> = text.chars().collect();
    let n = chars.len().max(1);
    let mut lines: Vec<String> = text.split('\n').map(String::from).collect();
    let join = |lines: &[String]| lines.join("\n");
    match m {
        Mutation::Delete { at, len } => {
            let at = at % n;
            let end = (at + len).min(chars.len());
            chars[..at].iter().chain(&chars[end..]).collect()
        }
        Mutation::Insert { at, c } => {
            let at = at % (chars.len() + 1);
            let mut v = chars;
            v.insert(at, *c);
            v.into_iter().collect()
        }
        Mutation::Replace { at, c } => {
            let mut v = chars;
            if !v.is_empty() {
                let at = at % v.len();
                v[at] = *c;
            }
            v.into_iter().collect()
        }
        Mutation::Truncate { at } => chars[..at % n.min(chars.len() + 1)].iter().collect(),
        Mutation::SetValue { at, value } => {
            let cands = value_lines(&lines);
            if let Some(&(li, off)) = cands.get(at % cands.len().max(1)) {
                let l = &lines[li];
                lines[li] = format!("{} {}", &l[..off], value.toml());
            }
            join(&lines)
        }
        Mutation::SetToken { at, value } => {
            let spans = token_spans(&chars);
            match spans.get(at % spans.len().max(1)) {
                Some(&(s, e)) => chars[..s]
                    .iter()
                    .copied()
                    .chain(value.toml().chars())
                    .chain(chars[e..].iter().copied())
                    .collect(),
                None => text.to_string(),
            }
        }
        Mutation::DeleteLine { at } => {
            let i = at % lines.len();
            lines.remove(i);
            join(&lines)
        }
        Mutation::DuplicateLine { at } => {
            let i = at % lines.len();
            let l = lines[i].clone();
            lines.insert(i, l);
            join(&lines)
        }
        Mutation::RenameKey { at, edit } => {
            // Keys of `key = value` lines and the last component of table headers.
            let cands: Vec<(usize, usize, usize)> = lines
                .iter()
                .enumerate()
                .filter_map(|(i, l)| {
                    let t = l.trim_start();
                    let indent = l.len() - t.len();
                    if t.starts_with('[') {
                        let last = l.rfind(|c| c != ']' && c != ' ')?;
                        let end = last + l[last..].chars().next()?.len_utf8();
                        let start = l[..end].rfind(['[', '.'])? + 1;
                        (start < end).then_some((i, start, end))
                    } else {
                        let eq = l.find('=')?;
                        let end = indent + l[indent..eq].trim_end().len();
                        (indent < end).then_some((i, indent, end))
                    }
                })
                .collect();
            if let Some(&(li, s, e)) = cands.get(at % cands.len().max(1)) {
                let l = &lines[li];
                let mut key: Vec<char> = l[s..e].chars().collect();
                let k = key.len();
                match *edit {
                    CharEdit::Insert(i, c) => key.insert(i % (k + 1), c),
                    CharEdit::Delete(i) => {
                        key.remove(i % k);
                    }
                    CharEdit::Replace(i, c) => key[i % k] = c,
                }
                let key: String = key.into_iter().collect();
                lines[li] = format!("{}{key}{}", &l[..s], &l[e..]);
            }
            join(&lines)
        }
        Mutation::SetName { at, name } => {
            // Quoted strings on lines that hold node names.
            let mut cands: Vec<(usize, usize, usize)> = Vec::new();
            for (li, l) in lines.iter().enumerate().filter(|(_, l)| is_name_line(l)) {
                let lc: Vec<char> = l.chars().collect();
                for (s, e) in token_spans(&lc) {
                    if lc[s] == '"' {
                        cands.push((li, s, e));
                    }
                }
            }
            if let Some(&(li, s, e)) = cands.get(at % cands.len().max(1)) {
                let lc: Vec<char> = lines[li].chars().collect();
                let before: String = lc[..s].iter().collect();
                let after: String = lc[e..].iter().collect();
                lines[li] = format!("{before}\"{name}\"{after}");
            }
            join(&lines)
        }
    }
}

/// A rough count of the frames a 2 ms run of `sim` creates, and of sampled values.
fn estimated_work(sim: &Sim) -> f64 {
    let secs = sim.end() as f64 / 1e12;
    let mut frames = 0.0;
    let mut tcp_into: std::collections::BTreeMap<u32, f64> = std::collections::BTreeMap::new();
    for (i, f) in sim.flows().iter().enumerate() {
        let live = f.stop.min(sim.end()).saturating_sub(f.start) as f64 / 1e12;
        let bits = f.frame_size as f64 * 8.0;
        let rate = match &f.pattern {
            Pattern::Cbr { rate_bps, .. } | Pattern::Poisson { rate_bps } => *rate_bps as f64,
            Pattern::OnOff { rate_bps, on, off, .. } => {
                *rate_bps as f64 * *on as f64 / (on + off).max(1) as f64
            }
            Pattern::Saturated => {
                let rate = f.shaper.as_ref().map_or(0.0, |l| l.rate_bps as f64);
                // A queue pair sends its message's packets, and no more but to go back.
                match sim.rdma_qp(i as u32) {
                    Some(qp) if qp.requester.packets != u64::MAX => {
                        rate.min(qp.requester.packets as f64 * bits / live.max(1e-12))
                    }
                    _ => rate,
                }
            }
            // Counted below, by destination.
            Pattern::Tcp => {
                if let cnsim::traffic::Destination::Host(d) = f.dst {
                    *tcp_into.entry(d).or_insert(0.0) += live * f.line_bps as f64 / bits;
                }
                0.0
            }
        };
        frames += live * rate / bits;
    }
    // TCP connections into one host get at most that host's link between them (and an
    // ACK, a small frame, per segment).
    for (d, offered) in tcp_into {
        let port = sim.net().nodes[d as usize].ports[0];
        let link = secs * sim.net().ports[port as usize].rate_bps as f64 / (64.0 * 8.0);
        frames += 2.0 * offered.min(link);
    }
    // Multicast copies and hops multiply the frames; a sample costs about a frame.
    let samples =
        if sim.recorder().interval > 0 { secs * 1e12 / sim.recorder().interval as f64 } else { 0.0 };
    let timers: f64 = sim
        .reaction_points()
        .iter()
        .filter_map(|rp| rp.as_qcn())
        .map(|rp| secs * 1e12 / rp.params().timer.0.max(1) as f64)
        .sum();
    frames * 4.0 + samples + timers
}

/// What happened to one mutated scenario.
#[derive(Default, Debug)]
struct Tally {
    parse_errors: Cell<usize>,
    build_errors: Cell<usize>,
    ran: Cell<usize>,
    too_heavy: Cell<usize>,
}

fn check_error(e: &ScenarioError, stage: &str) -> Result<(), TestCaseError> {
    prop_assert!(!e.file.is_empty(), "{stage} error without a file: {e:?}");
    prop_assert!(!e.message.trim().is_empty(), "{stage} error without a message: {e:?}");
    Ok(())
}

fn panic_text(p: &Box<dyn std::any::Any + Send>) -> String {
    p.downcast_ref::<String>()
        .cloned()
        .or_else(|| p.downcast_ref::<&str>().map(|s| s.to_string()))
        .unwrap_or_else(|| "(non-string panic)".into())
}

fn check_one(name: &str, text: &str, tally: &Tally) -> Result<(), TestCaseError> {
    let parsed = catch_unwind(|| scenario::parse(text, name, &[]))
        .map_err(|p| TestCaseError::fail(format!("parse panicked: {}", panic_text(&p))))?;
    let mut s = match parsed {
        Ok(s) => s,
        Err(e) => {
            tally.parse_errors.set(tally.parse_errors.get() + 1);
            return check_error(&e, "parse");
        }
    };
    s.duration = Duration(s.duration.0.min(RUN_PS));
    let built = catch_unwind(AssertUnwindSafe(|| scenario::build(&s, name)))
        .map_err(|p| TestCaseError::fail(format!("build panicked: {}", panic_text(&p))))?;
    let mut sim = match built {
        Ok(sim) => sim,
        Err(e) => {
            tally.build_errors.set(tally.build_errors.get() + 1);
            return check_error(&e, "build");
        }
    };
    if estimated_work(&sim) > MAX_FRAMES {
        tally.too_heavy.set(tally.too_heavy.get() + 1);
        return Ok(());
    }
    let conserved = catch_unwind(AssertUnwindSafe(|| {
        sim.run_to_end();
        sim.check_conservation()
    }))
    .map_err(|p| TestCaseError::fail(format!("run panicked: {}", panic_text(&p))))?;
    prop_assert!(conserved.is_ok(), "{}", conserved.unwrap_err());
    tally.ran.set(tally.ran.get() + 1);
    Ok(())
}

/// The fuzzing random stream: fixed, or `CNSIM_FUZZ_SEED=<n>` to explore other cases.
fn fuzz_rng() -> TestRng {
    match std::env::var("CNSIM_FUZZ_SEED").ok().and_then(|v| v.parse::<u64>().ok()) {
        Some(seed) => {
            let mut bytes = [0u8; 32];
            bytes[..8].copy_from_slice(&seed.to_le_bytes());
            TestRng::from_seed(RngAlgorithm::ChaCha, &bytes)
        }
        None => TestRng::deterministic_rng(RngAlgorithm::ChaCha),
    }
}

fn env_count(key: &str, default: u32) -> u32 {
    std::env::var(key).ok().and_then(|v| v.parse().ok()).unwrap_or(default)
}

#[test]
fn mutated_bundled_scenarios_never_panic() {
    // CNSIM_FUZZ_CASES=20000 explores further; the default keeps the test quick.
    let cases = env_count("CNSIM_FUZZ_CASES", 1000);
    let config = Config { cases, failure_persistence: None, max_shrink_iters: 2_000, ..Config::default() };
    let mut runner = TestRunner::new_with_rng(config, fuzz_rng());
    let strategy = (0..fuzzed().len(), prop::collection::vec(mutation(), 1..4));
    let tally = Tally::default();
    let result = runner.run(&strategy, |(which, mutations)| {
        let (name, original) = fuzzed()[which];
        let mut text = original.to_string();
        for m in &mutations {
            text = apply(&text, m);
        }
        check_one(name, &text, &tally)
            .map_err(|e| TestCaseError::fail(format!("{e}\n--- mutated {name} ---\n{text}\n---")))
    });
    if let Err(e) = result {
        panic!("{e}");
    }
    eprintln!(
        "mutated scenarios: {} parse errors, {} build errors, {} ran, {} built but too heavy to run",
        tally.parse_errors.get(),
        tally.build_errors.get(),
        tally.ran.get(),
        tally.too_heavy.get()
    );
}

/// Memory a mutated scenario may need (`--max-memory`), and the address-space limit the
/// process runs under: an estimate that misses badly ends in an allocation failure, an
/// abort, which the test reports.
const PROCESS_MAX_MEMORY: &str = "256MiB";
const PROCESS_ADDRESS_SPACE: u64 = 3 << 30;
/// Wall time a mutated scenario may take before it counts as a hang.
const PROCESS_TIME_LIMIT: Wall = Wall::from_secs(60);

/// Runs `cnsim <command> FILE …` under the test's memory, address-space and time limits:
/// its exit code (`None`: killed by a signal) and what it said on stderr, or why that is
/// a failure (a hang, a panic).
fn cnsim_process(
    command: &str,
    file: &Path,
    out: &Path,
    duration_ps: Option<u64>,
) -> Result<(Option<i32>, String), String> {
    let mut cmd = if Path::new("/usr/bin/prlimit").exists() {
        let mut c = Command::new("/usr/bin/prlimit");
        c.arg(format!("--as={PROCESS_ADDRESS_SPACE}")).arg("--").arg(env!("CARGO_BIN_EXE_cnsim"));
        c
    } else {
        Command::new(env!("CARGO_BIN_EXE_cnsim"))
    };
    cmd.arg(command).arg(file);
    if command == "run" {
        cmd.arg("--quiet").arg("--out").arg(out);
    }
    cmd.args(["--max-memory", PROCESS_MAX_MEMORY]);
    if let Some(d) = duration_ps {
        cmd.args(["--set", &format!("duration=\"{d}ps\"")]);
    }
    let stderr_path = out.with_extension("stderr");
    cmd.stdout(Stdio::null()).stderr(std::fs::File::create(&stderr_path).map_err(|e| e.to_string())?);
    let mut child = cmd.spawn().map_err(|e| format!("cannot start cnsim: {e}"))?;
    let t0 = Instant::now();
    let status = loop {
        if let Some(status) = child.try_wait().map_err(|e| e.to_string())? {
            break status;
        }
        if t0.elapsed() > PROCESS_TIME_LIMIT {
            let _ = child.kill();
            let _ = child.wait();
            return Err(format!("{command}: hang: still running after {PROCESS_TIME_LIMIT:?}"));
        }
        std::thread::sleep(Wall::from_millis(2));
    };
    let err = std::fs::read_to_string(&stderr_path).unwrap_or_default();
    let _ = std::fs::remove_file(&stderr_path);
    if err.contains("panicked") {
        return Err(format!("{command}: panic: {err}"));
    }
    Ok((status.code(), err))
}

/// How `cnsim validate` and then `cnsim run` of one mutated scenario ended, or why that
/// is a failure: a panic, an abort, a hang, or verdicts that disagree (`validate` must
/// refuse exactly what `run` refuses as input, with the same error; a valid scenario
/// may only stop at run time on the frame bound, which depends on the dynamics).
fn run_process(file: &Path, out: &Path, duration_ps: Option<u64>) -> Result<&'static str, String> {
    let (checked, verdict) = cnsim_process("validate", file, out, duration_ps)?;
    let (status, err) = cnsim_process("run", file, out, duration_ps)?;
    let outcome = match status {
        Some(0) if out.join("summary.json").is_file() => "ran",
        Some(2) if err.starts_with("error: ") => "input error",
        Some(1) if err.contains("frames held at once") => "frame limit",
        Some(code) => return Err(format!("run: exit code {code}: {err}")),
        None => return Err(format!("run: killed by a signal (an abort?): {err}")),
    };
    match (checked, outcome) {
        (Some(0), "ran" | "frame limit") => Ok(outcome),
        (Some(2), "input error") if verdict == err => Ok(outcome),
        _ => Err(format!(
            "validate and run disagree: validate exit {checked:?} ({}), run {outcome} ({})",
            verdict.trim(),
            err.trim()
        )),
    }
}

/// Mutated scenarios as `cnsim run` processes, each for at most 2 ms simulated, under a
/// memory limit and a time limit: zero panics, zero aborts, zero hangs, and frame
/// conservation (checked by every run before it writes its results).
#[test]
fn mutated_scenarios_run_as_processes_within_limits() {
    // CNSIM_FUZZ_PROCESS_CASES=5000 explores further; the default keeps the test quick.
    let cases = env_count("CNSIM_FUZZ_PROCESS_CASES", 400);
    let dir = std::env::temp_dir().join(format!("cnsim-fuzz-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    let mut runner = TestRunner::new_with_rng(Config::default(), fuzz_rng());
    let strategy = (0..fuzzed().len(), prop::collection::vec(mutation(), 1..4));
    let limits = scenario::Limits { max_memory: 256 << 20 };
    let mut outcomes: BTreeMap<&str, u32> = BTreeMap::new();
    let mut failures = Vec::new();
    for i in 0..cases {
        let (which, mutations) = strategy.new_tree(&mut runner).unwrap().current();
        let (name, original) = fuzzed()[which];
        let mut text = original.to_string();
        for m in &mutations {
            text = apply(&text, m);
        }
        // At most 2 ms simulated; skip scenarios that are valid but too heavy for a test.
        let parsed = scenario::parse(&text, name, &[]).ok();
        let duration = parsed.as_ref().map(|s| s.duration.0.min(RUN_PS));
        if let Some(mut s) = parsed {
            s.duration = Duration(s.duration.0.min(RUN_PS));
            if scenario::build_with(&s, name, &limits).is_ok_and(|sim| estimated_work(&sim) > MAX_FRAMES) {
                *outcomes.entry("too heavy to run").or_default() += 1;
                continue;
            }
        }
        let file = dir.join(format!("case-{i}.toml"));
        std::fs::write(&file, &text).unwrap();
        match run_process(&file, &dir.join(format!("out-{i}")), duration) {
            Ok(outcome) => *outcomes.entry(outcome).or_default() += 1,
            Err(why) => {
                failures.push(format!("case {i} (mutated {name}): {why}\n--- scenario ---\n{text}\n---"))
            }
        }
        let _ = std::fs::remove_dir_all(dir.join(format!("out-{i}")));
        let _ = std::fs::remove_file(&file);
    }
    let _ = std::fs::remove_dir_all(&dir);
    eprintln!("mutated scenarios as processes: {outcomes:?}, {} failures", failures.len());
    assert!(failures.is_empty(), "{}", failures.join("\n\n"));
    // Most mutations make a scenario invalid (an input error is the expected outcome);
    // at least one case in twenty must still run, or the harness tests nothing.
    assert!(outcomes.get("ran").copied().unwrap_or(0) > cases / 20, "too few cases ran: {outcomes:?}");
}

/// The unmutated bundled scenarios all run (briefly) with frames conserved: the harness
/// itself works.
#[test]
fn bundled_scenarios_run_briefly() {
    let tally = Tally::default();
    for (name, text) in fuzzed() {
        check_one(name, text, &tally).unwrap_or_else(|e| panic!("{name}: {e}"));
        assert_eq!(tally.build_errors.get() + tally.parse_errors.get(), 0, "{name} does not build");
    }
    assert_eq!(tally.ran.get(), fuzzed().len(), "{tally:?}");
}

#[test]
fn mutations_do_what_they_say() {
    let text = "a = \"x\"\n[t]\nfrom = \"s1\"\nrate = 5\n";
    assert_eq!(
        apply(text, &Mutation::SetValue { at: 1, value: Value::Negative(-3) }),
        "a = \"x\"\n[t]\nfrom = -3\nrate = 5\n"
    );
    assert_eq!(
        apply(text, &Mutation::SetToken { at: 2, value: Value::Empty }),
        "a = \"x\"\n[t]\nfrom = \"s1\"\nrate = \"\"\n"
    );
    assert_eq!(
        apply(text, &Mutation::SetName { at: 0, name: "zz".into() }),
        "a = \"x\"\n[t]\nfrom = \"zz\"\nrate = 5\n"
    );
    assert_eq!(
        apply(text, &Mutation::RenameKey { at: 1, edit: CharEdit::Replace(0, 'e') }),
        "a = \"x\"\n[e]\nfrom = \"s1\"\nrate = 5\n"
    );
    assert_eq!(
        apply(text, &Mutation::RenameKey { at: 3, edit: CharEdit::Delete(1) }),
        "a = \"x\"\n[t]\nfrom = \"s1\"\nrte = 5\n"
    );
    assert_eq!(apply(text, &Mutation::Truncate { at: 3 }), "a =");
    assert_eq!(
        apply(text, &Mutation::DuplicateLine { at: 3 }),
        "a = \"x\"\n[t]\nfrom = \"s1\"\nrate = 5\nrate = 5\n"
    );
}
