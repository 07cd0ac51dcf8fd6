//! `docs/scenario-keys.md` lists every key a scenario file may contain; these tests keep
//! it from drifting from the schema (the serde structs of `cnsim::scenario::schema` and
//! the protocols' parameter tables).
//!
//! The schema's keys are read off resolved scenarios: a parsed scenario serialized back
//! has every default filled in, so flattening it gives the key paths serde knows. The
//! bundled scenarios and the synthetic ones below between them show every generator,
//! optional table, traffic kind and protocol at least once.

use std::collections::{BTreeMap, BTreeSet};
use std::fmt::Write as _;

use cnsim::scenario::{self, bundled::BUNDLED};
use cnsim::units::{Duration, Rate, Size};
use toml::Value;

/// The reference, as `cnsim keys` prints it.
const REFERENCE: &str = include_str!("../../../docs/scenario-keys.md");

/// The table a scenario file may have that is not part of the scenario: `cnsim sweep`
/// takes it out before the rest is deserialized, so the schema never shows its keys.
const SWEEP_PREFIX: &str = "sweep.";

/// Every optional key given a value (mostly not its default), so that each appears in the
/// resolved scenario even where a default would leave it out, and so that removing it
/// shows the default it falls back to.
const EVERY_KEY: &str = r#"
name = "every-key"
description = "Every optional table and key."
duration = "10ms"
seed = 3

[topology.star]
switch = "hub"
hosts = ["a", "b", "c", "d"]
link = { rate = "10Gbps", delay = "1us" }

[[topology.nodes]]
name = "edge"
kind = "switch"

[[topology.nodes]]
name = "e"
kind = "host"

[[topology.links]]
from = "hub"
to = "edge"
rate = "10Gbps"
delay = "2us"

[[topology.links]]
from = "edge"
to = "e"
rate = "1Gbps"
delay = "1us"

[queues]
capacity = "100 frames"
host_capacity = "1MB"
classes = 2
scheduler = "dwrr"
weights = [3, 1]
occupancy = "waiting"
ports = [{ port = "hub->edge", capacity = "50 frames", loss = 0.0001 }]
loss = { good_to_bad = 0.0001, bad_to_good = 0.5, loss_in_good = 0.0, loss_in_bad = 0.5 }
finishing = "left"

[switches]
ecmp = false
ecmp_seed = 3
spray = true
processing_latency = "500ns"
processing_jitter = "100ns"
shared_buffer = "200KB"

[groups]
pair = ["c", "d"]

[[traffic]]
name = "steady"
kind = "cbr"
from = "a"
to = "e"
frame_size = "1000B"
rate = "1Gbps"
jitter = 0.5
start = { uniform = ["0us", "10us"] }
stop = "8ms"
priority = 1
ecn = true
rate_limit = "800Mbps"
source_queue = "50 frames"

[[traffic]]
name = "random"
kind = "poisson"
from = ["b", "c"]
to = "pair"
rate = "20Gbps"
allow_above_line_rate = true

[[traffic]]
name = "bursts"
kind = "onoff"
from = "d"
to = "uniform"
rate = "2Gbps"
on = "1ms"
off = "1ms"
periods = "exponential"
start = "1ms"

[[traffic]]
name = "greedy"
kind = "saturated"
from = "e"
to = "a"
frame_size = "10000B"
allow_any_frame_size = true

[[traffic]]
name = "conn"
kind = "tcp"
from = "e"
to = "a"
frame_size = "1040B"
bytes = "1MB"
tcp = { variant = "reno", window = 40, initial_window = 1, syn = false, limited_transmit = false, min_rto = "10ms", max_rto = "10s", initial_rto = "1s", tick = "1us", header = "40B", ack_size = "40B", mecn = { beta1 = 0.1, beta2 = 0.3 }, rules = "rfc", ssthresh_from = "cwnd", ecn_floor = 2, overhead = "1us", delayed_ack = { every = 3, timeout = "40ms" } }

[[traffic]]
name = "servers"
kind = "tcp"
from = ["b", "c"]
to = "a"
sru = "256KB"

[[traffic]]
name = "users"
kind = "tcp"
from = ["d"]
to = "a"
web = { size_mean = "20KB", size_shape = 1.5, think_mean = "500ms" }

[[traffic]]
name = "qp"
kind = "rdma"
from = ["d"]
to = "a"
bytes = "64KB"
frame_size = "1000B"
rdma = { ack_every = 2, nack_interval = "100us", timeout = "1ms", window = "16KB" }

[[traffic]]
name = "burst"
kind = "flows"
from = ["b", "c", "d"]
to = "incast"
fan_in = 2
sizes = "20KB"
load = 0.05

[[traffic]]
name = "qt"
kind = "rdma"
from = ["c"]
to = "a"
bytes = "64KB"
frame_size = "1000B"

[[traffic]]
name = "work"
kind = "flows"
from = ["b", "c", "d"]
to = "uniform"
sizes = "hadoop"
load = 0.1
transport = "tcp"
frame_size = "1000B"
stop = "1ms"

[protocols.qcn]
enabled = false
congestion_points = ["hub->edge"]
flows = ["steady", "bursts"]
multicast = "enhanced-representative"
cnm_size = "128B"
cnm_priority = 7

[protocols.qcn.cp]
qeq = "20 frames"
w = 1.5
sampling = "per-frame"
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
rate_t = "2ms"
switch_rate_weight = 0.002

[protocols.qcn.rp]
gd = 0.01
min_dec_factor = 0.25
min_rate = "10Mbps"
byte_counter = "100KB"
timer = "10ms"
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

[protocols.ecm]
enabled = false
congestion_points = ["hub->edge"]
flows = ["steady"]
bcn_size = "128B"
bcn_priority = 6

[protocols.ecm.cp]
qeq = 300.0
qsc = 1200.0
w = 1.0
page = "128B"
sampling_interval = "75000B"
jitter = [1.0, 1.0]

[protocols.ecm.rp]
gi = 0.5
gd = 0.0002
ru = "2Mbps"
rd = "2Mbps"
td = "2ms"
rmin = "2Mbps"
drift = false

[protocols.e2cm]
enabled = false
congestion_points = ["hub->edge"]
flows = ["steady"]
bcn_size = "128B"
bcn_priority = 6
probe_to = "destination"
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
td = "2ms"
rmin = "2Mbps"
drift = false

[protocols.e2cm.probes]
interval = "50000B"
size = "128B"
priority = 6

[protocols.e2cm.guidance]
rate_t = "2ms"
switch_rate_weight = 0.01


[protocols.fecn]
enabled = false
congestion_points = ["hub->edge"]
flows = ["steady"]
t = "2ms"
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

[protocols.ecn_threshold]
k = "20 frames"
ports = ["hub->a", "hub->b"]

[protocols.red]
ports = ["hub->c"]
min_th = "5 frames"
max_th = "15 frames"
max_p = 0.02
w_q = 0.002
gentle = false
gentle_line = "current"
wait = false
byte_mode = true
mean_packet_size = "1000B"
target_delay = "10ms"
ecn = true
mark_p = 0.1

[protocols.mecn]
ports = ["hub->d"]
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
target_delay = "10ms"

[protocols.mecn.adaptive]
interval = "1s"
target = "6 frames"
bottom = 0.02
top = 0.4

[protocols.red.adaptive]
interval = "1s"
alpha = 0.005
beta = 0.8
top = 0.4
bottom = 0.02

[protocols.dcqcn]
congestion_points = ["hub->b"]
flows = ["qp"]
window = "bdp"
base_rtt = "path"
kmin = "10KB"
kmax = "100KB"
pmax = 0.05
cnp_interval = "20us"
cnp_size = "128B"
cnp_priority = 6

[protocols.dcqcn.rp]
g = 0.0625
alpha_init = 0.5
alpha_timer = "50us"
timer = "300us"
byte_counter = "1MB"
fast_recovery = 4
r_ai = "5Mbps"
r_hai = "50Mbps"
min_rate = "10Mbps"
target_on_cut = "after-increase"
rate_on_first_cnp = 1.0
clocks = "fork"
rate_decrease_interval = "8us"

[protocols.timely]
flows = ["qt"]
alpha = 0.5
beta = 0.5
t_low = "20us"
t_high = "200us"
min_rtt = "10us"
delta = "20Mbps"
r_hai = "100Mbps"
hai_after = 3
min_rate = "10Mbps"
window = "bdp"
base_rtt = "path"

[protocols.pause]
mode = "pfc"
quanta = 1000

[protocols.pause.switches]
xoff = "80 frames"
xon = "40 frames"

[[protocols.pause.hosts]]
hosts = "e"
service_rate = "500Mbps"
input_buffer = "64KB"
send_pause = false
xoff = "48KB"
xon = "32KB"

[metrics]
interval = "100us"
queues = "all"
flows = true
rates = false
parquet = false
csv = true
plots = false
pcap = { ports = ["hub->edge"], snaplen = 96, start = "10us", stop = "1ms", max_size = "1MiB" }
"#;

/// Only what each generator requires, so that everything else resolves to its default;
/// one scenario per generator, as a topology has at most one. The protocol tables are
/// as bare as they may be, for the same reason.
const BARE: &[(&str, &str)] = &[
    (
        "bare-dumbbell",
        r#"
name = "bare-dumbbell"
duration = "1ms"

[topology.dumbbell]
senders = 2
sender_link = { rate = "10Gbps", delay = "1us" }
bottleneck = { rate = "10Gbps", delay = "1us" }
receiver_link = { rate = "10Gbps", delay = "1us" }

[[traffic]]
name = "cbr"
kind = "cbr"
from = "s*"
to = "d1"
rate = "1Gbps"

[protocols.qcn]
congestion_points = "switches"
flows = "*"

[protocols.ecn_threshold]
k = "30KB"
ports = ["s1->sw1"]

[protocols.red]
ports = ["sw1->sw2"]

[protocols.red.adaptive]

[protocols.mecn]
ports = ["sw2->sw1"]

[protocols.mecn.adaptive]

[protocols.pause]

[[protocols.pause.hosts]]
hosts = "d1"
service_rate = "1Gbps"
input_buffer = "100 frames"
"#,
    ),
    (
        "bare-chain",
        r#"
name = "bare-chain"
duration = "1ms"

[topology.chain]
switches = 2
hosts_per_switch = 2
host_link = { rate = "10Gbps", delay = "1us" }
trunk = { rate = "10Gbps", delay = "1us" }

[queues]
loss = 0.001

[[traffic]]
name = "greedy"
kind = "saturated"
from = "h1"
to = "h4"
"#,
    ),
    (
        "bare-parking-lot",
        r#"
name = "bare-parking-lot"
duration = "1ms"

[topology.parking_lot]
routers = 3
hosts_per_router = 2
access_link = { rate = "10Gbps", delay = "1us" }
trunk = { rate = "10Gbps", delay = "1us" }

[[traffic]]
name = "bursts"
kind = "onoff"
from = "R0h1"
to = "R2h1"
rate = "5Gbps"
on = "100us"
off = "100us"
"#,
    ),
    (
        "bare-clos",
        r#"
name = "bare-clos"
duration = "1ms"

[topology.clos]
pods = 2
tors_per_pod = 2
aggs_per_pod = 2
hosts_per_tor = 2
cores = 2
host_link = { rate = "10Gbps", delay = "1us" }
tor_link = { rate = "40Gbps", delay = "1us" }
core_link = { rate = "40Gbps", delay = "1us" }
tor_buffer = "100KB"
agg_buffer = "200KB"
core_buffer = "300KB"

[[traffic]]
name = "greedy"
kind = "saturated"
from = "h1"
to = "h8"
"#,
    ),
    (
        "bare-fat-tree",
        r#"
name = "bare-fat-tree"
duration = "1ms"

[topology.fat_tree]
k = 4
host_link = { rate = "10Gbps", delay = "1us" }
fabric_link = { rate = "40Gbps", delay = "1us" }
tor_buffer = "100KB"
agg_buffer = "200KB"
core_buffer = "300KB"

[[traffic]]
name = "greedy"
kind = "saturated"
from = "h1"
to = "h16"
"#,
    ),
    (
        "bare-hpcc",
        r#"
name = "bare-hpcc"
duration = "1ms"

[topology.hpcc]
file = "tests/data/hpcc-fat.txt"

[[traffic]]
name = "listed"
kind = "flows"
from = "h*"
to = "file"
file = "flow.txt"
"#,
    ),
    (
        "bare-multilink",
        r#"
name = "bare-multilink"
duration = "1ms"

[topology.multilink]
link = { rate = "10Gbps", delay = "1us" }

[[traffic]]
name = "random"
kind = "poisson"
from = "S1"
to = "G1"
rate = "1Gbps"
"#,
    ),
];

/// The bundled scenarios, then the synthetic ones: (name, TOML text).
fn scenarios() -> Vec<(&'static str, &'static str)> {
    BUNDLED.iter().copied().chain([("every-key", EVERY_KEY)]).chain(BARE.iter().copied()).collect()
}

/// One row of a key table of the reference.
#[derive(Debug)]
struct Row {
    /// The key path, e.g. `traffic[].rate`.
    key: String,
    /// The default column as written.
    default: String,
}

impl Row {
    /// A key of the `[sweep]` table, which the scenario schema does not hold.
    fn is_sweep(&self) -> bool {
        self.key.starts_with(SWEEP_PREFIX)
    }

    /// A key standing for user-chosen names, like `groups.<name>`.
    fn is_placeholder(&self) -> bool {
        self.key.contains('<')
    }

    /// A row describing a concrete key of the scenario schema.
    fn is_schema_key(&self) -> bool {
        !self.is_sweep() && !self.is_placeholder()
    }

    fn is_required(&self) -> bool {
        self.default.starts_with("required")
    }

    /// The documented default when it is written as a TOML value in backticks
    /// (`"1500B"`, `true`, `[0.85, 1.15]`); `None` for "required" and for prose such as
    /// "none (= `duration`)".
    fn default_value(&self) -> Option<Value> {
        let quoted = self.default.strip_prefix('`')?;
        let literal = &quoted[..quoted.find('`')?];
        let table: toml::Table = toml::from_str(&format!("v = {literal}")).unwrap_or_else(|e| {
            panic!("the default of `{}` is not a TOML value: `{literal}`: {e}", self.key)
        });
        table.get("v").cloned()
    }
}

/// The rows of every table of the reference whose first column is headed "key".
fn documented_rows() -> Vec<Row> {
    let cells = |line: &str| -> Vec<String> {
        line.trim().trim_matches('|').split('|').map(|c| c.trim().to_string()).collect()
    };
    let mut rows: Vec<Row> = Vec::new();
    let mut in_key_table = false;
    let mut previous_was_table = false;
    for line in REFERENCE.lines() {
        let is_table = line.trim_start().starts_with('|');
        if is_table && !previous_was_table {
            in_key_table = cells(line).first().is_some_and(|c| c == "key");
        } else if is_table && in_key_table {
            let row = cells(line);
            let is_separator = row.iter().all(|c| c.chars().all(|ch| ch == '-' || ch == ':'));
            if !is_separator {
                assert_eq!(row.len(), 4, "a key row has key, default, unit or type, meaning: {line}");
                let key = row[0]
                    .strip_prefix('`')
                    .and_then(|k| k.strip_suffix('`'))
                    .filter(|k| !k.contains('`'))
                    .unwrap_or_else(|| panic!("the key of a row is not one `key.path`: {line}"));
                assert!(!rows.iter().any(|r| r.key == key), "`{key}` is documented twice");
                rows.push(Row { key: key.to_string(), default: row[1].clone() });
            }
        }
        previous_was_table = is_table;
    }
    assert!(
        rows.len() > 50,
        "only {} keys read from the reference; is its table format changed?",
        rows.len()
    );
    rows
}

/// A parsed scenario serialized back: every default filled in.
fn resolved(name: &str, doc: Value) -> Result<Value, scenario::ScenarioError> {
    let s = scenario::from_document(doc, name, &[])?;
    Ok(Value::try_from(&s).unwrap_or_else(|e| panic!("{name}: cannot serialize the scenario: {e}")))
}

/// A scenario's TOML as written, before serde reads it.
fn document(name: &str, text: &str) -> Value {
    scenario::document(text, name).unwrap_or_else(|e| panic!("{e}"))
}

/// The key paths of a value: tables join with '.', an array of tables is `name[]` for
/// each of its entries, anything else (strings, numbers, plain arrays) is a leaf. An
/// empty array or table says nothing about what it would hold, so it gives no key.
fn key_paths(value: &Value, path: &str, out: &mut BTreeSet<String>) {
    let child = |key: &str| if path.is_empty() { key.to_string() } else { format!("{path}.{key}") };
    match value {
        Value::Table(table) => {
            for (key, v) in table {
                key_paths(v, &child(key), out);
            }
        }
        Value::Array(items) if items.iter().all(Value::is_table) => {
            for item in items {
                key_paths(item, &format!("{path}[]"), out);
            }
        }
        _ => {
            out.insert(path.to_string());
        }
    }
}

/// Every key path the schema produces for the scenarios.
fn schema_keys() -> BTreeSet<String> {
    let mut keys = BTreeSet::new();
    for (name, text) in scenarios() {
        let value = resolved(name, document(name, text)).unwrap_or_else(|e| panic!("{e}"));
        key_paths(&value, "", &mut keys);
    }
    keys
}

/// Whether `key` is one of the keys a placeholder row such as `groups.<name>` stands for:
/// as many segments, each equal or a `<...>` placeholder.
fn matches_placeholder(pattern: &str, key: &str) -> bool {
    let (pattern, key): (Vec<&str>, Vec<&str>) = (pattern.split('.').collect(), key.split('.').collect());
    pattern.len() == key.len() && pattern.iter().zip(&key).all(|(p, k)| p == k || p.starts_with('<'))
}

/// One step into a scenario document.
#[derive(Clone, Debug)]
enum Step {
    Key(String),
    Index(usize),
}

/// A concrete place in a document, such as `traffic[2].rate`.
type Place = Vec<Step>;

/// A place written as error messages write key paths, e.g. `traffic[2].rate`.
fn show(place: &Place) -> String {
    let mut out = String::new();
    for step in place {
        match step {
            Step::Key(k) if out.is_empty() => out.push_str(k),
            Step::Key(k) => write!(out, ".{k}").unwrap(),
            Step::Index(i) => write!(out, "[{i}]").unwrap(),
        }
    }
    out
}

/// Every place in `value` that documented key path `key` (e.g. `traffic[].rate`) names:
/// one for each entry of each array of tables on the way.
fn places(value: &Value, key: &str) -> Vec<Place> {
    fn walk(value: &Value, segments: &[&str]) -> Vec<Place> {
        let Some((first, rest)) = segments.split_first() else { return vec![Vec::new()] };
        let (name, each_entry) = match first.strip_suffix("[]") {
            Some(name) => (name, true),
            None => (*first, false),
        };
        let Some(child) = value.get(name) else { return Vec::new() };
        let within = |v: &Value, head: Place| -> Vec<Place> {
            walk(v, rest).into_iter().map(|tail| head.iter().cloned().chain(tail).collect()).collect()
        };
        if each_entry {
            let entries = child.as_array().map(Vec::as_slice).unwrap_or_default();
            entries
                .iter()
                .enumerate()
                .flat_map(|(i, entry)| within(entry, vec![Step::Key(name.into()), Step::Index(i)]))
                .collect()
        } else {
            within(child, vec![Step::Key(name.into())])
        }
    }
    walk(value, &key.split('.').collect::<Vec<_>>())
}

/// The value at `place`, if there is one.
fn value_at<'a>(value: &'a Value, place: &Place) -> Option<&'a Value> {
    place.iter().try_fold(value, |v, step| match step {
        Step::Key(k) => v.get(k.as_str()),
        Step::Index(i) => v.get(*i),
    })
}

/// Removes the key at `place` (whose last step is a key) from `doc`.
fn remove(doc: &mut Value, place: &Place) {
    let (Some(Step::Key(last)), parent) = (place.last(), &place[..place.len() - 1]) else {
        panic!("{} does not end in a key", show(place))
    };
    let mut at = doc;
    for step in parent {
        at = match step {
            Step::Key(k) => at.get_mut(k.as_str()),
            Step::Index(i) => at.get_mut(*i),
        }
        .unwrap_or_else(|| panic!("{} is not in the document", show(place)));
    }
    at.as_table_mut().and_then(|t| t.remove(last)).unwrap_or_else(|| panic!("{} is not there", show(place)));
}

/// Whether a resolved value is the documented default. Quantities compare by what they
/// mean, not how they are spelled: the reference may write "26000B" where the resolved
/// scenario writes "26KB", and `2` where it writes `2.0`.
fn same_value(documented: &Value, resolved: &Value) -> bool {
    fn same_quantity<T: std::str::FromStr + PartialEq>(a: &str, b: &str) -> bool {
        matches!((a.parse::<T>(), b.parse::<T>()), (Ok(x), Ok(y)) if x == y)
    }
    match (documented, resolved) {
        (Value::String(a), Value::String(b)) => {
            a == b
                || same_quantity::<Size>(a, b)
                || same_quantity::<Rate>(a, b)
                || same_quantity::<Duration>(a, b)
        }
        (Value::Integer(a), Value::Float(b)) | (Value::Float(b), Value::Integer(a)) => *a as f64 == *b,
        (Value::Array(a), Value::Array(b)) => {
            a.len() == b.len() && a.iter().zip(b).all(|(x, y)| same_value(x, y))
        }
        (a, b) => a == b,
    }
}

/// What is wrong, one line per documented key (the first scenario that shows it: the
/// same mistake in every scenario would only repeat itself).
#[derive(Default)]
struct Problems(BTreeMap<String, String>);

impl Problems {
    fn note(&mut self, key: &str, message: String) {
        self.0.entry(key.to_string()).or_insert(message);
    }

    fn lines(&self) -> Vec<String> {
        self.0.iter().map(|(key, message)| format!("`{key}`: {message}")).collect()
    }
}

fn fail_if_any(problems: &[String], what: &str) {
    assert!(problems.is_empty(), "{what} (docs/scenario-keys.md):\n  {}", problems.join("\n  "));
}

/// The essential agreement: no key the schema has is missing from the reference, and no
/// key the reference lists is unknown to the schema.
#[test]
fn the_reference_lists_exactly_the_schema_keys() {
    let rows = documented_rows();
    let schema = schema_keys();
    let documented: BTreeSet<&str> =
        rows.iter().filter(|r| r.is_schema_key()).map(|r| r.key.as_str()).collect();
    let placeholders: Vec<&str> =
        rows.iter().filter(|r| r.is_placeholder()).map(|r| r.key.as_str()).collect();

    let missing = schema
        .iter()
        .filter(|k| !documented.contains(k.as_str()))
        .filter(|k| !placeholders.iter().any(|p| matches_placeholder(p, k)))
        .map(|k| format!("`{k}` is in the schema but not documented"));
    let unknown = documented
        .iter()
        .filter(|k| !schema.contains(**k))
        .map(|k| format!("`{k}` is documented but not in the schema"));
    let unmatched = placeholders
        .iter()
        .filter(|p| !schema.iter().any(|k| matches_placeholder(p, k)))
        .map(|p| format!("`{p}` is documented but no scenario has such a key"));
    let problems: Vec<String> = missing.chain(unknown).chain(unmatched).collect();
    fail_if_any(&problems, "the reference and the schema disagree");
}

/// A key documented as required is refused when left out, at that very key.
#[test]
fn required_keys_are_required() {
    let rows = documented_rows();
    let mut problems = Problems::default();
    for (name, text) in scenarios() {
        let doc = document(name, text);
        for row in rows.iter().filter(|r| r.is_schema_key() && r.is_required()) {
            for place in places(&doc, &row.key) {
                let mut without = doc.clone();
                remove(&mut without, &place);
                let at = show(&place);
                match scenario::from_document(without, name, &[]) {
                    Ok(_) => problems.note(&row.key, format!("{name} without {at} is accepted")),
                    Err(e) if e.path != at => problems.note(
                        &row.key,
                        format!("{name} without {at} is refused at {} instead: {}", e.path, e.message),
                    ),
                    Err(_) => {}
                }
            }
        }
    }
    fail_if_any(&problems.lines(), "keys documented as required that are not");
}

/// A key documented with a default may be left out, and then resolves to that default.
/// (A default the resolved scenario leaves out, such as a CBR source's `jitter` of 0,
/// cannot be compared and is not.)
#[test]
fn documented_defaults_are_the_defaults() {
    // (scenario, key) whose removal makes another key of the scenario invalid: DCTCP's
    // `tcp` table needs transport = "tcp", and its first window of 160 segments a
    // largest window at least as large.
    const NEEDED_BY_ANOTHER_KEY: &[(&str, &str)] =
        &[("hpcc2019-dctcp", "traffic[].transport"), ("hpcc2019-dctcp", "traffic[].tcp.window")];
    let rows = documented_rows();
    let mut problems = Problems::default();
    let mut compared = BTreeSet::new();
    for (name, text) in scenarios() {
        let doc = document(name, text);
        for row in rows.iter().filter(|r| r.is_schema_key()) {
            let Some(default) = row.default_value() else { continue };
            let mut without = doc.clone();
            for place in places(&doc, &row.key) {
                remove(&mut without, &place);
            }
            let value = match resolved(name, without) {
                Ok(value) => value,
                Err(_) if NEEDED_BY_ANOTHER_KEY.contains(&(name, row.key.as_str())) => continue,
                Err(e) => {
                    problems.note(
                        &row.key,
                        format!("documented with a default, but {name} without it is refused: {e}"),
                    );
                    continue;
                }
            };
            for place in places(&value, &row.key) {
                let got = value_at(&value, &place).expect("a place found in the value");
                compared.insert(row.key.as_str());
                if !same_value(&default, got) {
                    problems.note(
                        &row.key,
                        format!("{name} without it resolves {} to {got}, not {default}", show(&place)),
                    );
                }
            }
        }
    }
    fail_if_any(&problems.lines(), "documented defaults that are not the defaults");
    // The check above passes vacuously for a key no scenario resolves; these must not.
    for key in ["seed", "traffic[].frame_size", "queues.capacity", "protocols.qcn.cp.qeq", "metrics.interval"]
    {
        assert!(compared.contains(key), "the default of `{key}` was never compared");
    }
}

/// The `[sweep]` table is read apart from the scenario: each key the reference lists
/// must be one `cnsim sweep` accepts.
#[cfg(feature = "outputs")]
#[test]
fn documented_sweep_keys_are_sweep_keys() {
    use cnsim::sweep::grid::Grid;

    let samples = [r#"2"#, r#"{ "seed" = [1, 2] }"#];
    let rows = documented_rows();
    let sweep_rows: Vec<&Row> = rows.iter().filter(|r| r.is_sweep()).collect();
    assert!(!sweep_rows.is_empty(), "the reference lists no [sweep] keys");
    let refused: Vec<String> = sweep_rows
        .iter()
        .map(|r| r.key.strip_prefix(SWEEP_PREFIX).expect("a sweep key"))
        .filter(|key| {
            !samples.iter().any(|sample| {
                let table: Value = toml::from_str(&format!("{key} = {sample}")).expect("a sweep table");
                Grid::from_table(&table, "scenario-keys.md").is_ok()
            })
        })
        .map(|key| format!("`sweep.{key}`"))
        .collect();
    fail_if_any(&refused, "[sweep] keys the sweep table refuses");
}
