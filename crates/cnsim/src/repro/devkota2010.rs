//! Devkota & Reddy, "Performance of Quantized Congestion Notification in TCP Incast
//! Scenarios of Data Centers" (MASCOTS 2010): the incast workload (one client, n servers
//! returning a 256 KB SRU each per round, 1 Gbit/s links, one switch) with TCP alone, TCP
//! over QCN, and QCN with the paper's changes (I–VI), over buffer sizes and numbers of
//! servers; Tables I–III next to ours.
//!
//! Every cell is `scenarios/devkota2010/incast.toml` with the number of servers, the
//! buffer and the configuration's tables set (`cell_overrides`).

use super::study::{
    Axis, Cell, Column, Comparison, Figure, Level, Measured, MetricDoc, PaperNumber, Quantity, Rule, Study,
    TableColumn, Tables,
};
use crate::engine::PS_PER_S;
use crate::metrics::summary::Summary;
use crate::report::plot::Step;
use crate::scenario::{bundled, parse, Scenario};
use crate::sim::Sim;
use crate::units::Duration;

/// The registry entry of this reproduction.
pub const REPRODUCTION: super::Reproduction = super::Reproduction { name: "devkota2010", declare: study };

const fn level(key: &'static str, label: &'static str) -> Level {
    Level { key, label }
}

/// The configurations, as (key, label, `--set` assignments). Those ending in `+udp` add
/// the paper's Section VIII flow: 400 Mbit/s of UDP CBR from one more host to the client.
/// Those from `tcp-1ms` on are the paper's other runs (§IV-B's 1 ms, §VII-A's
/// sample-every-packet) and the readings we did not choose, run where [`skip`] keeps them.
const CONFIGS: [(&str, &str, &[&str]); 22] = [
    ("tcp", "NewReno, 200 ms min RTO", &[]),
    ("tcp-10ms", "NewReno, 10 ms min RTO", &[TCP_10MS]),
    ("tcp-10ms-tick", "NewReno, 10 ms min RTO, ns-2's 10 ms tick", &[TCP_10MS_TICK]),
    ("qcn", "I: QCN", &[QCN]),
    ("qcn-10ms", "QCN, 10 ms min RTO", &[QCN, TCP_10MS]),
    ("ii", "II: congestion-memory sampling", &[QCN_II]),
    ("iii", "III: detailed sampling", &[QCN_III]),
    ("iv", "IV: adaptive R_AI", &[QCN_IV]),
    ("v", "V: II + IV", &[QCN_V]),
    ("vi", "VI: III + IV", &[QCN_VI]),
    ("tcp+udp", "NewReno, 200 ms, + 400 Mbit/s UDP", &[]),
    ("tcp-10ms+udp", "NewReno, 10 ms, + 400 Mbit/s UDP", &[TCP_10MS]),
    ("qcn+udp", "I: QCN, + 400 Mbit/s UDP", &[QCN]),
    ("v+udp", "V: II + IV, + 400 Mbit/s UDP", &[QCN_V]),
    ("vi+udp", "VI: III + IV, + 400 Mbit/s UDP", &[QCN_VI]),
    ("tcp-1ms", "NewReno, 1 ms min RTO", &[TCP_1MS]),
    ("qcn-per-frame", "QCN sampling every frame (§VII-A)", &[QCN_PER_FRAME]),
    ("qcn-10ms-tick", "QCN, 10 ms min RTO, ns-2's 10 ms tick", &[QCN, TCP_10MS_TICK]),
    ("qcn-qeq20", "I: QCN, Qeq 20 % of the buffer", &[QCN_QEQ20]),
    ("ii-calm", "II, memory −1 per calm sample", &[QCN_II_CALM]),
    ("iii-split-top", "III, |Fb| 56–63 split, 10 KB floor", &[QCN_III_SPLIT_TOP]),
    ("iii-per-value", "III, one level per |Fb| up to 14", &[QCN_III_PER_VALUE]),
];

/// The cells that do not run: the readings we did not choose and the extra TCP-over-QCN
/// runs only at 128 KB (Tables II and III's buffer), the sample-every-packet run and Qeq
/// as a fraction of the buffer also at 32 KB (where §VII-A says per-frame sampling
/// avoided the collapse, and where a fixed 26 KB Qeq is 81 % of the buffer).
fn skip(cell: &Cell) -> bool {
    match cell.get("config") {
        "qcn-per-frame" | "qcn-qeq20" => !matches!(cell.get("buffer"), "32" | "128"),
        "qcn-10ms-tick" | "ii-calm" | "iii-split-top" | "iii-per-value" => cell.get("buffer") != "128",
        _ => false,
    }
}

/// Every cell's flows start at a uniformly drawn instant in the first millisecond
/// (half an SRU's time at 1 Gbit/s): without it a cell without QCN has no random
/// draw at all and every seed is the same run.
const START_PHASE: &str = r#"traffic[0].start={uniform=["0s","1ms"]}"#;

/// The extra UDP flow of the configurations ending in `+udp` (the paper's Section VIII):
/// CBR, so QCN's reaction point (`flows = "*"`) drives its rate limiter too.
const UDP: &str = r#"
name = "udp"
kind = "cbr"
from = "udp"
to = "client"
frame_size = "1040B"
rate = "400Mbps"
jitter = 0.5
"#;

const TCP_10MS: &str = r#"traffic[0].tcp={min_rto="10ms"}"#;
const TCP_1MS: &str = r#"traffic[0].tcp={min_rto="1ms"}"#;
/// ns-2's default timer granularity (`tcpTick_` 10 ms): the RTO is kept in ticks and
/// never falls below two of them past the smoothed RTT, so a 10 ms minimum acts near 30 ms.
const TCP_10MS_TICK: &str = r#"traffic[0].tcp={min_rto="10ms", tick="10ms"}"#;
const QCN: &str = r#"protocols.qcn={congestion_points=["sw->client"], flows="*"}"#;
const QCN_II: &str =
    r#"protocols.qcn={congestion_points=["sw->client"], flows="*", cp={congestion_memory={}}}"#;
const QCN_III: &str =
    r#"protocols.qcn={congestion_points=["sw->client"], flows="*", cp={sampling="detailed"}}"#;
const QCN_PER_FRAME: &str =
    r#"protocols.qcn={congestion_points=["sw->client"], flows="*", cp={sampling="per-frame"}}"#;
const QCN_QEQ20: &str =
    r#"protocols.qcn={congestion_points=["sw->client"], flows="*", cp={qeq_fraction=0.2}}"#;
const QCN_II_CALM: &str = r#"protocols.qcn={congestion_points=["sw->client"], flows="*", cp={congestion_memory={decay="calm-sample"}}}"#;
/// The detailed-sampling reading of cnsim before this audit: |Fb| 56–63 split, the new
/// levels continuing 150 KB/(k + 1) down to 10 KB.
const QCN_III_SPLIT_TOP: &str = r#"protocols.qcn={congestion_points=["sw->client"], flows="*", cp={sampling="detailed", detailed_levels="split-top", detailed_table=["150000B","75000B","50000B","37500B","30000B","25000B","21500B","18500B","16667B","15000B","13636B","12500B","11538B","10714B","10000B"]}}"#;
const QCN_III_PER_VALUE: &str = r#"protocols.qcn={congestion_points=["sw->client"], flows="*", cp={sampling="detailed", detailed_levels="per-value"}}"#;
const QCN_IV: &str =
    r#"protocols.qcn={congestion_points=["sw->client"], flows="*", rp={adaptive_increase=true}}"#;
const QCN_V: &str = r#"protocols.qcn={congestion_points=["sw->client"], flows="*", cp={congestion_memory={}}, rp={adaptive_increase=true}}"#;
const QCN_VI: &str = r#"protocols.qcn={congestion_points=["sw->client"], flows="*", cp={sampling="detailed"}, rp={adaptive_increase=true}}"#;

/// The configurations without QCN (no CNM or rate columns).
const NO_QCN: &[(&str, &str)] = &[("config", "tcp"), ("config", "tcp-10ms"), ("config", "tcp-10ms-tick")];

const SERVERS: [&str; 6] = ["2", "4", "8", "16", "32", "64"];
const BUFFERS: [&str; 4] = ["32", "64", "128", "256"];

/// The `--set` assignments that make a cell of the bundled incast scenario.
pub fn cell_overrides(buffer_kb: &str, servers: &str, config: &str) -> Vec<String> {
    let n: usize = servers.parse().expect("a number of servers");
    let list: Vec<String> = (1..=n).map(|i| format!("\"s{i}\"")).collect();
    let list = list.join(", ");
    let udp = if config.ends_with("+udp") { ", \"udp\"" } else { "" };
    let mut sets = vec![
        format!("topology.star.hosts=[\"client\"{udp}, {list}]"),
        format!("traffic[0].from=[{list}]"),
        format!("queues.capacity=\"{buffer_kb}000B\""),
        START_PHASE.to_string(),
    ];
    let c = CONFIGS.iter().find(|c| c.0 == config).expect("a configuration");
    sets.extend(c.2.iter().map(|s| s.to_string()));
    sets
}

/// The scenario of a cell: 20 s (the paper's runs).
fn scenario(cell: &Cell) -> Scenario {
    let name = "devkota2010-incast";
    let sets = cell_overrides(cell.get("buffer"), cell.get("servers"), cell.get("config"));
    let mut text = bundled::get(name).expect("bundled").to_string();
    if cell.get("config").ends_with("+udp") {
        text.push_str("\n[[traffic]]");
        text.push_str(UDP);
    }
    let mut s = parse(&text, name, &sets).expect("valid cell overrides");
    s.duration = Duration(20 * PS_PER_S);
    s
}

/// The metrics of a run.
fn measure(cell: &Cell, sim: &Sim) -> Measured {
    let summary = Summary::of(sim, "", 0);
    let tcp = || summary.flows.iter().filter(|f| f.transport.tcp.is_some());
    let flows = tcp().count().max(1) as f64;
    let goodput: f64 = tcp().map(|f| f.throughput_bps).sum();
    let udp: f64 = summary.flows.iter().filter(|f| f.transport.tcp.is_none()).map(|f| f.throughput_bps).sum();
    let timeouts: u64 =
        summary.flows.iter().filter_map(|f| f.transport.tcp.as_ref()).map(|t| t.sender.timeouts).sum();
    let port = summary.queues.iter().find(|q| q.port == "sw->client");
    let mut scalars = vec![
        ("goodput_mbps".to_string(), goodput / 1e6),
        ("timeouts_per_flow".to_string(), timeouts as f64 / flows),
        ("avg_queue_kb".to_string(), port.map_or(0.0, |q| q.mean_bytes / 1000.0)),
    ];
    if cell.get("config").ends_with("+udp") {
        scalars.push(("udp_mbps".to_string(), udp / 1e6));
        scalars.push(("total_mbps".to_string(), (goodput + udp) / 1e6));
    }
    if let Some(q) = &summary.protocols.qcn {
        scalars.push(("cnms".to_string(), q.stats.cnms_sent as f64));
        if let Some(m) = q.avg_minrate_bps {
            scalars.push(("avg_minrate_mbps".to_string(), m / 1e6));
            scalars.push(("minrate_x_flows_mbps".to_string(), m * flows / 1e6));
        }
    }
    Measured { scalars, series: series_of(cell, sim) }
}

/// The cells whose time series the report draws: 8 servers at 128 KB, the paper's
/// Figs. 6 and 7 ("QCN: 8 flows, 128 KB buffer size"), in every configuration.
const SERIES_AT: &[(&str, &str)] = &[("buffer", "128"), ("servers", "8")];

/// The switch queue towards the client and every reaction point's rate, at the cells of
/// [`SERIES_AT`] only (a 20 s run holds 20000 samples per flow).
fn series_of(cell: &Cell, sim: &Sim) -> Vec<(&'static str, crate::metrics::TimeSeries)> {
    if !SERIES_AT.iter().all(|(axis, level)| cell.get(axis) == *level) {
        return Vec::new();
    }
    let recorder = sim.recorder();
    let mut queue = recorder.queues.clone();
    queue.columns.retain(|c| c.name == "sw->client");
    let mut series = vec![("queue", queue)];
    if !recorder.rates.columns.is_empty() {
        series.push(("rates", recorder.rates.clone()));
    }
    series
}

/// The paper's numbers: Tables I, II and III, all at 128 KB.
fn paper_numbers() -> Vec<PaperNumber> {
    let n = |what, at, value, unit, metric| PaperNumber {
        what,
        at,
        value,
        unit,
        quantity: Quantity::Metric(metric),
        rule: Rule::VALUE,
    };
    let beyond = |what, at, value, unit, metric, above| PaperNumber {
        what,
        at,
        value,
        unit,
        quantity: Quantity::Metric(metric),
        rule: Rule::Beyond { above },
    };
    let per_frame_cnms = |what, at| PaperNumber {
        what,
        at,
        value: 400.0,
        unit: "%",
        quantity: Quantity::Change { metric: "cnms", axis: "config", from: "qcn", to: "qcn-per-frame" },
        rule: Rule::VALUE,
    };
    let mut extra = vec![
        beyond(
            "§VII-A text: sampling every packet, \"collapse did not occur even for simulations with 32KB\" (collapse: below 500 Mbit/s, §V), 32 servers",
            &[("buffer", "32"), ("servers", "32"), ("config", "qcn-per-frame")],
            500.0,
            "Mbit/s",
            "goodput_mbps",
            true,
        ),
        beyond(
            "§VII-A text: sampling every packet, no collapse at 32 KB, 64 servers",
            &[("buffer", "32"), ("servers", "64"), ("config", "qcn-per-frame")],
            500.0,
            "Mbit/s",
            "goodput_mbps",
            true,
        ),
        per_frame_cnms(
            "§VII-A text: sampling every packet sends \"around 5 times\" I's CNMs (+400 %), 2 servers",
            &[("buffer", "128"), ("servers", "2")],
        ),
        per_frame_cnms(
            "§VII-A text: sampling every packet sends \"around 5 times\" I's CNMs (+400 %), 32 servers",
            &[("buffer", "128"), ("servers", "32")],
        ),
        beyond(
            "§VII-C text: average queue below 30 KB up to 64 flows at 256 KB, V",
            &[("buffer", "256"), ("servers", "64"), ("config", "v")],
            30.0,
            "KB",
            "avg_queue_kb",
            false,
        ),
        beyond(
            "§VII-C text: average queue below 30 KB up to 64 flows at 256 KB, VI",
            &[("buffer", "256"), ("servers", "64"), ("config", "vi")],
            30.0,
            "KB",
            "avg_queue_kb",
            false,
        ),
        n(
            "§VIII text: NewReno 10 ms without QCN \"yielded 400Mbps to the UDP flow\", 256 KB, 32 servers",
            &[("buffer", "256"), ("servers", "32"), ("config", "tcp-10ms+udp")],
            400.0,
            "Mbit/s",
            "udp_mbps",
        ),
        n(
            "§VIII text: V + UDP, synchronized requests \"around 800Mbps\" at 128 KB past 8 flows, 32 servers",
            &[("buffer", "128"), ("servers", "32"), ("config", "v+udp")],
            800.0,
            "Mbit/s",
            "goodput_mbps",
        ),
        n(
            "§VIII text: VI + UDP, synchronized requests \"around 800Mbps\" at 128 KB past 8 flows, 32 servers",
            &[("buffer", "128"), ("servers", "32"), ("config", "vi+udp")],
            800.0,
            "Mbit/s",
            "goodput_mbps",
        ),
        n(
            "§VIII text: V + UDP, synchronized requests \"around 700Mbps for 32 Kb\" past 8 flows, 32 servers",
            &[("buffer", "32"), ("servers", "32"), ("config", "v+udp")],
            700.0,
            "Mbit/s",
            "goodput_mbps",
        ),
        n(
            "§VIII text: VI + UDP, synchronized requests \"around 700Mbps for 32 Kb\" past 8 flows, 32 servers",
            &[("buffer", "32"), ("servers", "32"), ("config", "vi+udp")],
            700.0,
            "Mbit/s",
            "goodput_mbps",
        ),
    ];
    let mut numbers = vec![
        n(
            "§V text: average queue, NewReno 10 ms, 8 servers, 256 KB",
            &[("buffer", "256"), ("servers", "8"), ("config", "tcp-10ms")],
            140.0,
            "KB",
            "avg_queue_kb",
        ),
        n(
            "§V text: average queue, NewReno 10 ms, 64 servers, 256 KB (\"over 200KB\")",
            &[("buffer", "256"), ("servers", "64"), ("config", "tcp-10ms")],
            200.0,
            "KB",
            "avg_queue_kb",
        ),
        n(
            "§V text: average queue, QCN, 8 servers, 256 KB",
            &[("buffer", "256"), ("servers", "8"), ("config", "qcn")],
            20.0,
            "KB",
            "avg_queue_kb",
        ),
        n(
            "§V text: average queue, QCN, 64 servers, 256 KB",
            &[("buffer", "256"), ("servers", "64"), ("config", "qcn")],
            70.0,
            "KB",
            "avg_queue_kb",
        ),
        n(
            "Table I: average minrate, 2 servers",
            &[("buffer", "128"), ("servers", "2"), ("config", "qcn")],
            512.19,
            "Mbit/s",
            "avg_minrate_mbps",
        ),
        n(
            "Table I: average minrate, 4 servers",
            &[("buffer", "128"), ("servers", "4"), ("config", "qcn")],
            208.74,
            "Mbit/s",
            "avg_minrate_mbps",
        ),
        n(
            "Table I: average minrate, 8 servers",
            &[("buffer", "128"), ("servers", "8"), ("config", "qcn")],
            59.31,
            "Mbit/s",
            "avg_minrate_mbps",
        ),
        n(
            "Table I: average minrate, 16 servers",
            &[("buffer", "128"), ("servers", "16"), ("config", "qcn")],
            36.21,
            "Mbit/s",
            "avg_minrate_mbps",
        ),
        n(
            "Table I: average minrate, 32 servers",
            &[("buffer", "128"), ("servers", "32"), ("config", "qcn")],
            29.4,
            "Mbit/s",
            "avg_minrate_mbps",
        ),
        n(
            "Table I: average minrate, 64 servers",
            &[("buffer", "128"), ("servers", "64"), ("config", "qcn")],
            32.03,
            "Mbit/s",
            "avg_minrate_mbps",
        ),
        n(
            "Table I: average minrate × flows, 2 servers",
            &[("buffer", "128"), ("servers", "2"), ("config", "qcn")],
            1024.37,
            "Mbit/s",
            "minrate_x_flows_mbps",
        ),
        n(
            "Table I: average minrate × flows, 4 servers",
            &[("buffer", "128"), ("servers", "4"), ("config", "qcn")],
            834.94,
            "Mbit/s",
            "minrate_x_flows_mbps",
        ),
        n(
            "Table I: average minrate × flows, 8 servers",
            &[("buffer", "128"), ("servers", "8"), ("config", "qcn")],
            474.46,
            "Mbit/s",
            "minrate_x_flows_mbps",
        ),
        n(
            "Table I: average minrate × flows, 16 servers",
            &[("buffer", "128"), ("servers", "16"), ("config", "qcn")],
            579.312,
            "Mbit/s",
            "minrate_x_flows_mbps",
        ),
        n(
            "Table I: average minrate × flows, 32 servers",
            &[("buffer", "128"), ("servers", "32"), ("config", "qcn")],
            940.77,
            "Mbit/s",
            "minrate_x_flows_mbps",
        ),
        n(
            "Table I: average minrate × flows, 64 servers",
            &[("buffer", "128"), ("servers", "64"), ("config", "qcn")],
            2049.8,
            "Mbit/s",
            "minrate_x_flows_mbps",
        ),
        n(
            "Table I: goodput, 2 servers",
            &[("buffer", "128"), ("servers", "2"), ("config", "qcn")],
            966.61,
            "Mbit/s",
            "goodput_mbps",
        ),
        n(
            "Table I: goodput, 4 servers",
            &[("buffer", "128"), ("servers", "4"), ("config", "qcn")],
            835.29,
            "Mbit/s",
            "goodput_mbps",
        ),
        n(
            "Table I: goodput, 8 servers",
            &[("buffer", "128"), ("servers", "8"), ("config", "qcn")],
            484.77,
            "Mbit/s",
            "goodput_mbps",
        ),
        n(
            "Table I: goodput, 16 servers",
            &[("buffer", "128"), ("servers", "16"), ("config", "qcn")],
            613.37,
            "Mbit/s",
            "goodput_mbps",
        ),
        n(
            "Table I: goodput, 32 servers",
            &[("buffer", "128"), ("servers", "32"), ("config", "qcn")],
            325.01,
            "Mbit/s",
            "goodput_mbps",
        ),
        n(
            "Table I: goodput, 64 servers",
            &[("buffer", "128"), ("servers", "64"), ("config", "qcn")],
            408.4,
            "Mbit/s",
            "goodput_mbps",
        ),
        n(
            "Table I: timeouts per flow, 2 servers",
            &[("buffer", "128"), ("servers", "2"), ("config", "qcn")],
            0.0,
            "per flow",
            "timeouts_per_flow",
        ),
        n(
            "Table I: timeouts per flow, 4 servers",
            &[("buffer", "128"), ("servers", "4"), ("config", "qcn")],
            0.0,
            "per flow",
            "timeouts_per_flow",
        ),
        n(
            "Table I: timeouts per flow, 8 servers",
            &[("buffer", "128"), ("servers", "8"), ("config", "qcn")],
            0.0,
            "per flow",
            "timeouts_per_flow",
        ),
        n(
            "Table I: timeouts per flow, 16 servers",
            &[("buffer", "128"), ("servers", "16"), ("config", "qcn")],
            0.063,
            "per flow",
            "timeouts_per_flow",
        ),
        n(
            "Table I: timeouts per flow, 32 servers",
            &[("buffer", "128"), ("servers", "32"), ("config", "qcn")],
            8.94,
            "per flow",
            "timeouts_per_flow",
        ),
        n(
            "Table I: timeouts per flow, 64 servers",
            &[("buffer", "128"), ("servers", "64"), ("config", "qcn")],
            22.75,
            "per flow",
            "timeouts_per_flow",
        ),
        n(
            "Table II: CNMs, I, 2 servers",
            &[("buffer", "128"), ("servers", "2"), ("config", "qcn")],
            4740.0,
            "CNMs",
            "cnms",
        ),
        n(
            "Table II: CNMs, II, 2 servers",
            &[("buffer", "128"), ("servers", "2"), ("config", "ii")],
            7282.0,
            "CNMs",
            "cnms",
        ),
        n(
            "Table II: CNMs, III, 2 servers",
            &[("buffer", "128"), ("servers", "2"), ("config", "iii")],
            11716.0,
            "CNMs",
            "cnms",
        ),
        n(
            "Table II: CNMs, IV, 2 servers",
            &[("buffer", "128"), ("servers", "2"), ("config", "iv")],
            3357.0,
            "CNMs",
            "cnms",
        ),
        n(
            "Table II: CNMs, V, 2 servers",
            &[("buffer", "128"), ("servers", "2"), ("config", "v")],
            3337.0,
            "CNMs",
            "cnms",
        ),
        n(
            "Table II: CNMs, VI, 2 servers",
            &[("buffer", "128"), ("servers", "2"), ("config", "vi")],
            8905.0,
            "CNMs",
            "cnms",
        ),
        n(
            "Table II: CNMs, I, 4 servers",
            &[("buffer", "128"), ("servers", "4"), ("config", "qcn")],
            5535.0,
            "CNMs",
            "cnms",
        ),
        n(
            "Table II: CNMs, II, 4 servers",
            &[("buffer", "128"), ("servers", "4"), ("config", "ii")],
            10514.0,
            "CNMs",
            "cnms",
        ),
        n(
            "Table II: CNMs, III, 4 servers",
            &[("buffer", "128"), ("servers", "4"), ("config", "iii")],
            10299.0,
            "CNMs",
            "cnms",
        ),
        n(
            "Table II: CNMs, IV, 4 servers",
            &[("buffer", "128"), ("servers", "4"), ("config", "iv")],
            4454.0,
            "CNMs",
            "cnms",
        ),
        n(
            "Table II: CNMs, V, 4 servers",
            &[("buffer", "128"), ("servers", "4"), ("config", "v")],
            5920.0,
            "CNMs",
            "cnms",
        ),
        n(
            "Table II: CNMs, VI, 4 servers",
            &[("buffer", "128"), ("servers", "4"), ("config", "vi")],
            4853.0,
            "CNMs",
            "cnms",
        ),
        n(
            "Table II: CNMs, I, 8 servers",
            &[("buffer", "128"), ("servers", "8"), ("config", "qcn")],
            6530.0,
            "CNMs",
            "cnms",
        ),
        n(
            "Table II: CNMs, II, 8 servers",
            &[("buffer", "128"), ("servers", "8"), ("config", "ii")],
            10613.0,
            "CNMs",
            "cnms",
        ),
        n(
            "Table II: CNMs, III, 8 servers",
            &[("buffer", "128"), ("servers", "8"), ("config", "iii")],
            15386.0,
            "CNMs",
            "cnms",
        ),
        n(
            "Table II: CNMs, IV, 8 servers",
            &[("buffer", "128"), ("servers", "8"), ("config", "iv")],
            7879.0,
            "CNMs",
            "cnms",
        ),
        n(
            "Table II: CNMs, V, 8 servers",
            &[("buffer", "128"), ("servers", "8"), ("config", "v")],
            8762.0,
            "CNMs",
            "cnms",
        ),
        n(
            "Table II: CNMs, VI, 8 servers",
            &[("buffer", "128"), ("servers", "8"), ("config", "vi")],
            8687.0,
            "CNMs",
            "cnms",
        ),
        n(
            "Table II: CNMs, I, 16 servers",
            &[("buffer", "128"), ("servers", "16"), ("config", "qcn")],
            8844.0,
            "CNMs",
            "cnms",
        ),
        n(
            "Table II: CNMs, II, 16 servers",
            &[("buffer", "128"), ("servers", "16"), ("config", "ii")],
            15494.0,
            "CNMs",
            "cnms",
        ),
        n(
            "Table II: CNMs, III, 16 servers",
            &[("buffer", "128"), ("servers", "16"), ("config", "iii")],
            19894.0,
            "CNMs",
            "cnms",
        ),
        n(
            "Table II: CNMs, IV, 16 servers",
            &[("buffer", "128"), ("servers", "16"), ("config", "iv")],
            10840.0,
            "CNMs",
            "cnms",
        ),
        n(
            "Table II: CNMs, V, 16 servers",
            &[("buffer", "128"), ("servers", "16"), ("config", "v")],
            12150.0,
            "CNMs",
            "cnms",
        ),
        n(
            "Table II: CNMs, VI, 16 servers",
            &[("buffer", "128"), ("servers", "16"), ("config", "vi")],
            13444.0,
            "CNMs",
            "cnms",
        ),
        n(
            "Table II: CNMs, I, 32 servers",
            &[("buffer", "128"), ("servers", "32"), ("config", "qcn")],
            14551.0,
            "CNMs",
            "cnms",
        ),
        n(
            "Table II: CNMs, II, 32 servers",
            &[("buffer", "128"), ("servers", "32"), ("config", "ii")],
            30779.0,
            "CNMs",
            "cnms",
        ),
        n(
            "Table II: CNMs, III, 32 servers",
            &[("buffer", "128"), ("servers", "32"), ("config", "iii")],
            42621.0,
            "CNMs",
            "cnms",
        ),
        n(
            "Table II: CNMs, IV, 32 servers",
            &[("buffer", "128"), ("servers", "32"), ("config", "iv")],
            21912.0,
            "CNMs",
            "cnms",
        ),
        n(
            "Table II: CNMs, V, 32 servers",
            &[("buffer", "128"), ("servers", "32"), ("config", "v")],
            20146.0,
            "CNMs",
            "cnms",
        ),
        n(
            "Table II: CNMs, VI, 32 servers",
            &[("buffer", "128"), ("servers", "32"), ("config", "vi")],
            28112.0,
            "CNMs",
            "cnms",
        ),
        n(
            "Table II: CNMs, I, 64 servers",
            &[("buffer", "128"), ("servers", "64"), ("config", "qcn")],
            21846.0,
            "CNMs",
            "cnms",
        ),
        n(
            "Table II: CNMs, II, 64 servers",
            &[("buffer", "128"), ("servers", "64"), ("config", "ii")],
            156161.0,
            "CNMs",
            "cnms",
        ),
        n(
            "Table II: CNMs, III, 64 servers",
            &[("buffer", "128"), ("servers", "64"), ("config", "iii")],
            121382.0,
            "CNMs",
            "cnms",
        ),
        n(
            "Table II: CNMs, IV, 64 servers",
            &[("buffer", "128"), ("servers", "64"), ("config", "iv")],
            54405.0,
            "CNMs",
            "cnms",
        ),
        n(
            "Table II: CNMs, V, 64 servers",
            &[("buffer", "128"), ("servers", "64"), ("config", "v")],
            36076.0,
            "CNMs",
            "cnms",
        ),
        n(
            "Table II: CNMs, VI, 64 servers",
            &[("buffer", "128"), ("servers", "64"), ("config", "vi")],
            62553.0,
            "CNMs",
            "cnms",
        ),
        n(
            "Table III: timeouts per flow, I, 16 servers",
            &[("buffer", "128"), ("servers", "16"), ("config", "qcn-10ms")],
            0.12,
            "per flow",
            "timeouts_per_flow",
        ),
        n(
            "Table III: timeouts per flow, II, 16 servers",
            &[("buffer", "128"), ("servers", "16"), ("config", "ii")],
            0.0,
            "per flow",
            "timeouts_per_flow",
        ),
        n(
            "Table III: timeouts per flow, III, 16 servers",
            &[("buffer", "128"), ("servers", "16"), ("config", "iii")],
            0.0,
            "per flow",
            "timeouts_per_flow",
        ),
        n(
            "Table III: timeouts per flow, IV, 16 servers",
            &[("buffer", "128"), ("servers", "16"), ("config", "iv")],
            0.06,
            "per flow",
            "timeouts_per_flow",
        ),
        n(
            "Table III: timeouts per flow, V, 16 servers",
            &[("buffer", "128"), ("servers", "16"), ("config", "v")],
            0.0,
            "per flow",
            "timeouts_per_flow",
        ),
        n(
            "Table III: timeouts per flow, VI, 16 servers",
            &[("buffer", "128"), ("servers", "16"), ("config", "vi")],
            0.0,
            "per flow",
            "timeouts_per_flow",
        ),
        n(
            "Table III: timeouts per flow, I, 32 servers",
            &[("buffer", "128"), ("servers", "32"), ("config", "qcn-10ms")],
            0.44,
            "per flow",
            "timeouts_per_flow",
        ),
        n(
            "Table III: timeouts per flow, II, 32 servers",
            &[("buffer", "128"), ("servers", "32"), ("config", "ii")],
            0.0,
            "per flow",
            "timeouts_per_flow",
        ),
        n(
            "Table III: timeouts per flow, III, 32 servers",
            &[("buffer", "128"), ("servers", "32"), ("config", "iii")],
            0.0,
            "per flow",
            "timeouts_per_flow",
        ),
        n(
            "Table III: timeouts per flow, IV, 32 servers",
            &[("buffer", "128"), ("servers", "32"), ("config", "iv")],
            0.96,
            "per flow",
            "timeouts_per_flow",
        ),
        n(
            "Table III: timeouts per flow, V, 32 servers",
            &[("buffer", "128"), ("servers", "32"), ("config", "v")],
            0.0,
            "per flow",
            "timeouts_per_flow",
        ),
        n(
            "Table III: timeouts per flow, VI, 32 servers",
            &[("buffer", "128"), ("servers", "32"), ("config", "vi")],
            0.0,
            "per flow",
            "timeouts_per_flow",
        ),
        n(
            "Table III: timeouts per flow, I, 64 servers",
            &[("buffer", "128"), ("servers", "64"), ("config", "qcn-10ms")],
            9.28,
            "per flow",
            "timeouts_per_flow",
        ),
        n(
            "Table III: timeouts per flow, II, 64 servers",
            &[("buffer", "128"), ("servers", "64"), ("config", "ii")],
            0.22,
            "per flow",
            "timeouts_per_flow",
        ),
        n(
            "Table III: timeouts per flow, III, 64 servers",
            &[("buffer", "128"), ("servers", "64"), ("config", "iii")],
            0.28,
            "per flow",
            "timeouts_per_flow",
        ),
        n(
            "Table III: timeouts per flow, IV, 64 servers",
            &[("buffer", "128"), ("servers", "64"), ("config", "iv")],
            4.31,
            "per flow",
            "timeouts_per_flow",
        ),
        n(
            "Table III: timeouts per flow, V, 64 servers",
            &[("buffer", "128"), ("servers", "64"), ("config", "v")],
            0.21,
            "per flow",
            "timeouts_per_flow",
        ),
        n(
            "Table III: timeouts per flow, VI, 64 servers",
            &[("buffer", "128"), ("servers", "64"), ("config", "vi")],
            0.22,
            "per flow",
            "timeouts_per_flow",
        ),
    ];
    numbers.append(&mut extra);
    numbers
}

/// Goodput against servers, one bar per buffer, for each configuration the paper draws
/// (file, configuration, caption).
const GOODPUT_FIGURES: [(&str, &str, &str); 17] = [
    ("goodput-tcp", "tcp", "Goodput vs servers per buffer, NewReno with 200 ms minimum RTO, no QCN (the paper's Fig. 2)"),
    ("goodput-tcp-10ms", "tcp-10ms", "Goodput vs servers per buffer, NewReno with 10 ms minimum RTO, no QCN (the paper's Fig. 3)"),
    ("goodput-tcp-1ms", "tcp-1ms", "Goodput vs servers per buffer, NewReno with 1 ms minimum RTO, no QCN (§IV-B's text; no figure)"),
    (
        "goodput-tcp-10ms-tick",
        "tcp-10ms-tick",
        "Goodput vs servers per buffer, NewReno with 10 ms minimum RTO and ns-2's 10 ms tick, no QCN (no paper figure)",
    ),
    ("goodput-qcn", "qcn", "Goodput vs servers per buffer, NewReno 200 ms over unmodified QCN, I (the paper's Fig. 4)"),
    ("goodput-qcn-10ms", "qcn-10ms", "Goodput vs servers per buffer, NewReno 10 ms over unmodified QCN (the paper's Fig. 5)"),
    ("goodput-ii", "ii", "Goodput vs servers per buffer, II: congestion-memory sampling (the paper's Fig. 9)"),
    ("goodput-iii", "iii", "Goodput vs servers per buffer, III: detailed sampling (the paper's Fig. 10)"),
    ("goodput-iv", "iv", "Goodput vs servers per buffer, IV: adaptive R_AI (the paper's Fig. 11)"),
    ("goodput-v", "v", "Goodput vs servers per buffer, V: congestion-memory sampling + adaptive R_AI (the paper's Fig. 12)"),
    ("goodput-vi", "vi", "Goodput vs servers per buffer, VI: detailed sampling + adaptive R_AI (the paper's Fig. 13)"),
    ("goodput-tcp+udp", "tcp+udp", "TCP goodput vs servers per buffer beside 400 Mbit/s of UDP, NewReno 200 ms, no QCN (the paper's Fig. 14)"),
    (
        "goodput-tcp-10ms+udp",
        "tcp-10ms+udp",
        "TCP goodput vs servers per buffer beside 400 Mbit/s of UDP, NewReno 10 ms, no QCN (the paper's Fig. 15)",
    ),
    ("goodput-qcn+udp", "qcn+udp", "TCP goodput vs servers per buffer beside 400 Mbit/s of UDP, unmodified QCN (the paper's Fig. 16)"),
    ("goodput-v+udp", "v+udp", "TCP goodput vs servers per buffer beside 400 Mbit/s of UDP, V (the paper's Fig. 17)"),
    ("goodput-vi+udp", "vi+udp", "TCP goodput vs servers per buffer beside 400 Mbit/s of UDP, VI (the paper's Fig. 18)"),
    (
        "goodput-qcn-per-frame",
        "qcn-per-frame",
        "Goodput vs servers, 32 and 128 KB, QCN sampling every frame (§VII-A's text; no figure)",
    ),
];

/// The figures: a goodput figure per configuration of [`GOODPUT_FIGURES`], and the queue
/// and rates at 8 servers and 128 KB under I (the paper's Figs. 6 and 7) and VI.
fn figures() -> Vec<Figure> {
    let mut figures: Vec<Figure> = GOODPUT_FIGURES
        .iter()
        .map(|&(file, config, caption)| Figure::Bars {
            file,
            caption,
            y_label: "goodput (Mbit/s)",
            at: match config {
                "tcp" => &[("config", "tcp")],
                _ => GOODPUT_AT.iter().find(|a| a[0].1 == config).expect("a configuration"),
            },
            categories: "servers",
            series: ("buffer", &BUFFERS),
            metric: "goodput_mbps",
            y_max: Some(1000.0),
        })
        .collect();
    for (config, queue_caption, rates_caption) in [
        (
            &[("buffer", "128"), ("servers", "8"), ("config", "qcn")],
            "Switch queue towards the client, I (unmodified QCN), 8 servers, 128 KB, first seed (frames of 1040 bytes, 1 ms samples; the paper's Fig. 6 setting, which it does not draw)",
            "Each server's QCN rate CR, I (unmodified QCN), 8 servers, 128 KB, first seed (the paper's Figs. 6 and 7)",
        ),
        (
            &[("buffer", "128"), ("servers", "8"), ("config", "vi")],
            "Switch queue towards the client, VI (detailed sampling + adaptive R_AI), 8 servers, 128 KB, first seed (no paper figure)",
            "Each server's QCN rate CR, VI (detailed sampling + adaptive R_AI), 8 servers, 128 KB, first seed (no paper figure)",
        ),
    ] {
        let at: &'static [(&'static str, &'static str)] = config;
        let tag = if at[2].1 == "qcn" { "" } else { "-vi" };
        figures.push(Figure::Series {
            file: if tag.is_empty() { "queue" } else { "queue-vi" },
            caption: queue_caption,
            at,
            series: "queue",
            scale: 1.0,
            rebin: 1,
            y_label: "queue (frames)",
            reference: Some(("buffer: 123 frames", 128000.0 / 1040.0)),
            step: Step::After,
            worst_is_lowest: false,
        });
        figures.push(Figure::Series {
            file: if tag.is_empty() { "rates" } else { "rates-vi" },
            caption: rates_caption,
            at,
            series: "rates",
            scale: 1e-6,
            rebin: 1,
            y_label: "CR (Mbit/s)",
            reference: Some(("fair share 125 Mbit/s", 125.0)),
            step: Step::After,
            worst_is_lowest: true,
        });
    }
    figures
}

/// The `at` of each goodput figure (a static slice per configuration).
const GOODPUT_AT: [&[(&str, &str)]; 16] = [
    &[("config", "tcp-10ms")],
    &[("config", "tcp-1ms")],
    &[("config", "tcp-10ms-tick")],
    &[("config", "qcn")],
    &[("config", "qcn-10ms")],
    &[("config", "ii")],
    &[("config", "iii")],
    &[("config", "iv")],
    &[("config", "v")],
    &[("config", "vi")],
    &[("config", "tcp+udp")],
    &[("config", "tcp-10ms+udp")],
    &[("config", "qcn+udp")],
    &[("config", "v+udp")],
    &[("config", "vi+udp")],
    &[("config", "qcn-per-frame")],
];

/// The declaration.
pub fn study() -> Study {
    let axes = vec![
        Axis {
            name: "buffer",
            title: "buffer per port",
            prefix: "",
            levels: vec![
                level("32", "32 KB"),
                level("64", "64 KB"),
                level("128", "128 KB"),
                level("256", "256 KB"),
            ],
        },
        Axis {
            name: "servers",
            title: "servers",
            prefix: "",
            levels: SERVERS.iter().map(|s| level(s, s)).collect(),
        },
        Axis {
            name: "config",
            title: "configuration",
            prefix: "",
            levels: CONFIGS.iter().map(|(k, l, _)| level(k, l)).collect(),
        },
    ];
    let doc = |name, title, unit, doc| MetricDoc { name, title, unit, doc };
    let metrics = vec![
        doc(
            "goodput_mbps",
            "Goodput",
            "Mbit/s",
            "application bytes delivered to the client over the run, all servers together (TCP only).",
        ),
        doc("udp_mbps", "UDP", "Mbit/s", "the extra UDP flow's delivered rate (the + UDP configurations)."),
        doc(
            "total_mbps",
            "TCP + UDP",
            "Mbit/s",
            "everything delivered to the client (the + UDP configurations).",
        ),
        doc(
            "timeouts_per_flow",
            "Timeouts per flow",
            "per flow",
            "TCP retransmission timeouts, all servers together, ÷ servers.",
        ),
        doc(
            "avg_queue_kb",
            "Average queue",
            "KB",
            "time-weighted mean of the switch queue towards the client.",
        ),
        doc("cnms", "CNMs", "frames", "congestion notification messages the congestion point sent."),
        doc(
            "avg_minrate_mbps",
            "Average minrate",
            "Mbit/s",
            "the lowest rate any QCN reaction point allowed at each 1 ms sample, averaged over the run.",
        ),
        doc(
            "minrate_x_flows_mbps",
            "Average minrate × flows",
            "Mbit/s",
            "the paper's check: what the servers could send together if every one ran at the minimum.",
        ),
    ];
    let comparison = Comparison {
        numbers: paper_numbers(),
        where_axes: &["buffer", "servers", "config"],
        columns: &[Column { label: "ours", at: &[] }],
        alternative: None,
        bounds: &[],
        tolerance: 0.25,
        note: "Each row is a number of the paper's Tables I–III (all at 128 KB per port), or of its text (§V's average \
               queues at 256 KB, §VII-A's sample-every-packet run, §VII-C's queues, §VIII's mixed runs), next to ours, \
               the mean over 5 seeds (each seed draws every server's start in the first millisecond) ± the 95 % \
               confidence interval; \"± 0.00\" means every seed gave the same value. Table III's I is QCN with 10 ms \
               minimum RTO (the paper's \"unmodified QCN with modified TCP\"); its II–VI, and Table II, are with \
               ns-2's 200 ms.",
    };
    let tables = Tables {
        sections: "buffer",
        rows: &["servers"],
        columns: &[
            TableColumn { header: "goodput Mbit/s", metric: "goodput_mbps", digits: 1, absent_at: &[] },
            TableColumn { header: "timeouts/flow", metric: "timeouts_per_flow", digits: 2, absent_at: &[] },
            TableColumn { header: "UDP Mbit/s", metric: "udp_mbps", digits: 1, absent_at: &[] },
            TableColumn { header: "avg queue KB", metric: "avg_queue_kb", digits: 1, absent_at: &[] },
            TableColumn { header: "CNMs", metric: "cnms", digits: 0, absent_at: NO_QCN },
            TableColumn {
                header: "avg minrate Mbit/s",
                metric: "avg_minrate_mbps",
                digits: 1,
                absent_at: NO_QCN,
            },
            TableColumn {
                header: "minrate × flows",
                metric: "minrate_x_flows_mbps",
                digits: 1,
                absent_at: NO_QCN,
            },
        ],
    };
    let figures = figures();
    Study {
        name: "devkota2010",
        title: "Devkota & Reddy 2010: QCN in TCP incast",
        seeds: (5, 1),
        quick_duration: Duration(2 * PS_PER_S),
        axes,
        alias: |_| None,
        skip,
        scenario,
        measure,
        metrics,
        comparison,
        tables,
        facets: &[],
        figures,
        every_cell: Vec::new(),
        intro: INTRO,
        gaps: GAPS,
    }
}

const INTRO: &str = r#"
## What was run

- **The workload** (`scenarios/devkota2010/incast.toml`): one client and n servers on one
  switch, 1 Gbit/s links with 10 µs delay; every round each server returns a 256 KB SRU
  (256000 bytes) and the client asks again (a 64-byte request to each) once all have
  arrived; 20 s per run (the paper's §IV: "all simulations have a runtime of 20s"; 2 s
  with `--quick`). The buffer is per switch port, in bytes. Each seed draws every
  server's first start uniformly in the first millisecond (a random start phase: without
  it a run without QCN draws nothing random and every seed is the same run); 5 seeds.
- **TCP**: NewReno with ns-2's defaults, which the paper does not restate (1000-byte
  segments plus 40 header bytes, window 20, initial window 2, a SYN, Limited Transmit,
  ACK per segment), minimum RTO 200 ms, 10 ms or 1 ms (the paper's §IV-B ran both 10 ms
  and 1 ms and draws 10 ms), exact RTO arithmetic; two configurations run the 10 ms
  minimum with ns-2's default 10 ms timer tick instead (`tcp.tick`), which keeps the RTO
  near 30 ms. The paper does not give its tick.
- **QCN**: 802.1Qau's defaults on the port to the client (Qeq 26 KB fixed, W 2, the
  8-level sampling table, Gd 1/128, byte counter 150 KB, timer 15 ms, R_AI 5 Mbit/s,
  R_HAI 50 Mbit/s). The paper states R_AI and R_HAI (§VI, §VII-B) and the 15 ms timer and
  150 KB byte counter (§VI); it implements QCN pseudocode 2.2 and states no Qeq. The
  `qcn-qeq20` configuration sets Qeq to 20 % of each buffer instead (`cp.qeq_fraction`;
  htsim's rule; 802.1Qau's MIB gives one fixed 26000 octets), at 32 and 128 KB.
- **The changes** (each reading a key; the unchosen ones run at 128 KB):
  - II, congestion-memory sampling: a counter raised at each rise of the queue above 90 %
    of the buffer divides the sampling interval by 2^count (up to 7, about one frame).
    The paper's counter is only ever incremented (§VII-A-1 states no decrement; §VII-B
    states one for the RP's memory), so it never decays (`decay = "never"`); `ii-calm` is
    the reading cnsim had before, −1 per sample with Fb ≥ 0 (our invention).
  - III, detailed sampling: 15 levels; |Fb| in 15 equal slices (`detailed_levels =
    "even"`) and the eight added levels halving from 18.5 KB down to 145 B (§VII-A:
    "stepped up aggressively"; sampling every packet sent "around 5 times" I's CNMs, and
    III sends 5.6 times I's at 64 flows in Table II, which intervals ending at 10 KB
    cannot). `iii-split-top` is cnsim's earlier reading (|Fb| 56–63 split, intervals
    150 KB/(k + 1)); `iii-per-value` one level per |Fb| up to 14.
  - IV, adaptive R_AI: a memory adds each CNM's |Fb|, loses 1 per timer expiry, and
    divides R_AI and R_HAI by memory/64 when above 64; V = II + IV; VI = III + IV.
- **Sampling every packet** (§VII-A's test, no figure): `qcn-per-frame`, at 32 and 128 KB.
- **Mixed traffic** (§VIII, Figs. 14–18): the configurations marked "+ 400 Mbit/s UDP" add
  one more host sending 400 Mbit/s of CBR (1040-byte frames) to the client; with QCN its
  rate limiter is driven by QCN too (the paper does not say otherwise). Goodput counts
  the TCP servers only; the UDP flow's rate is its own column.
"#;

const GAPS: &str = r#"
### Reading the comparison

- **Detailed sampling (III).** cnsim's earlier reading split only |Fb| 56–63: at 32 KB |Fb|
  cannot pass 33, so III was bit-identical to I there, and at 128 KB it stays so
  (`iii-split-top`: 17288 CNMs and 290.9 Mbit/s at 32 servers against I's 17238 and
  292.1). §VII-A says III offers "almost the same level of performance as sampling every
  packet", and Table II has III sending 1.9–5.6 times I's CNMs. With the even slices and
  the halving table III sends 1.01, 1.05, 1.09, 1.12, 1.43 and 4.68 times I's CNMs at 2
  to 64 servers (paper: 2.47, 1.86, 2.36, 2.25, 2.93, 5.56) and lifts goodput at 32
  servers from 292.1 to 692.3 Mbit/s (timeouts 24.3 → 0.09 per flow); per-value levels
  send 1.00–12.2 times and reach 741.7. No reading that leaves sampling at Fb ≥ 0 alone
  can raise the count at 2 servers: there each round's queue rises above Qeq once, for
  a few frames (two windows of 20 segments hold at most 41.6 KB), so CNMs count those
  episodes (one per round, 5334 over 20 s), whatever the heavier levels do; sampling
  every frame sends 5.4 times as many there.
- **Congestion-memory sampling (II).** The decay decides the result at 128 KB: with no
  decay (the paper's counter) II reaches 761.0 Mbit/s and 0.29 timeouts per flow at 32
  servers (paper Table III: 0), with the −1 per calm sample reading 304.6 and 13.0. The
  reason is not when sampling acts: sampling every frame (`qcn-per-frame`) reaches 747.4
  Mbit/s and 0.00 timeouts there. What matters is whether fast sampling is still in force
  when the next round's synchronised first windows arrive: a decaying count is gone
  within a few calm samples once the queue drains (at count 7 a sample comes every
  frame), a count that never decays meets the burst sampling every frame. Neither II
  reading changes anything at 2 and 4 servers (5334 and 6064 CNMs, as I): the queue never
  passes 90 % of 128 KB there, against Table II's 1.5 and 1.9 times I.
- **Qeq per buffer.** A fixed 26 KB Qeq is 81 % of a 32 KB buffer. At 32 KB and 4 servers
  QCN gets 111.5 Mbit/s (23.6 timeouts per flow), NewReno alone 142.3 (200 ms) and 663.3
  (10 ms); with Qeq 20 % of the buffer (6.4 KB) QCN gets 791.3 (0.4 timeouts). From 8
  servers on neither Qeq avoids the collapse at 32 KB (80.1 and 69.3 Mbit/s at 8). At 128
  KB 20 % is 25.6 KB and nothing changes. The paper states no Qeq; its §V average queue
  under QCN at 256 KB (20 KB at 8 flows) sits below a 26 KB set point, not near 0.2 ×
  256 KB = 51 KB, so the fixed value stays the default.
- **Small buffers are contradicted.** At 32 KB NewReno alone collapses from 4 servers
  (142.3 Mbit/s; the paper: from 8); sampling every frame collapses from 8 servers (117.4,
  then 49.4, 39.6, 19.7 Mbit/s; the paper: "collapse did not occur even for simulations
  with 32KB"); V and VI with UDP give 19.0 and 19.7 Mbit/s at 32 servers against "around
  700Mbps". Our window 20 (ns-2's default; the paper does not give one) lets 4 servers
  put 83 KB into a 32 KB buffer in a round's first RTT.
- **Timeouts are above the paper's, not below.** Table I at 32 servers: 24.26 ± 0.52
  timeouts per flow against 8.94; at 64, 25.48 against 22.75. Table III's I (QCN, 10 ms) at
  64 servers: 116.8 against 9.28. ns-2's 10 ms tick lowers it to 81.7 (RTO near 30 ms,
  fewer rounds); in single runs (seed 1, no start phase) a window of 1000 segments gave
  126 and 1500-byte frames 129, so neither the window nor the segment size explains it.
  Nearly every server times out in every round there (about 94 rounds in 20 s, 117
  timeouts each; 5.5 % of frames dropped in the seed-1 run): the synchronised first windows of 64 servers
  overflow the buffer each round. The paper's 9.28 needs most rounds without a timeout;
  which of its settings prevents it, the text does not say.
- **Mixed traffic: QCN throttles the UDP flow.** Without QCN the UDP flow keeps its 400
  Mbit/s (the paper's Fig. 15 text: "yielded 400Mbps to the UDP flow"; ours 397.3 at 256
  KB, 32 servers). With QCN its rate limiter cuts it: I to 108–386 Mbit/s at 128 KB, V
  and VI to 16–36 Mbit/s at 32 and 64 servers (128 and 256 KB). The paper's "around
  800Mbps" for the TCP requests beside a 400 Mbit/s flow on a 1 Gbit/s link means its UDP
  flow was cut too (ours: TCP 726.9 and 725.4 Mbit/s for V and VI at 128 KB, 32 servers).
- **ns-2's tick**: the 10 ms minimum RTO with ns-2's default 10 ms tick keeps the RTO
  near 30 ms: NewReno alone falls from 950.1 to 755.2 Mbit/s at 32 servers and 128 KB.
  The paper's text on Fig. 3 ("almost 100 % link utilization for 256KB", "slightly above
  60 % for 32 and 70 % for 64 KB", the number of servers unstated) matches exact
  arithmetic at 256 KB (921–960 Mbit/s at every n, against 856–876 with the tick at 32
  and 64 servers) and at 32 KB (641 at 32 servers; the tick: 413); exact arithmetic is
  the default.
- **Not done**: the paper's §IX baseline simulations (four IEEE 802.1Qau baseline
  scenarios, which it does not describe) are not run.
"#;

#[cfg(test)]
mod tests {
    use super::*;

    /// Every cell's overrides make a valid scenario that builds.
    #[test]
    fn every_cell_builds() {
        for b in BUFFERS {
            for n in ["2", "64"] {
                for (c, _, _) in CONFIGS {
                    let sets = cell_overrides(b, n, c);
                    let s = parse(bundled::get("devkota2010-incast").unwrap(), "d", &sets)
                        .unwrap_or_else(|e| panic!("{b} {n} {c}: {e}"));
                    crate::scenario::build(&s, "d").unwrap_or_else(|e| panic!("{b} {n} {c}: {e}"));
                }
            }
        }
    }

    /// `cp.qeq_fraction`: Qeq is the share of each port's buffer, replacing the fixed
    /// 26000 B (the `qcn-qeq20` configuration: 20 % of 32000 B = 6400 B; 128000 B →
    /// 25600 B), and absent it stays 26000 B whatever the buffer.
    #[test]
    fn qeq_per_buffer_reading() {
        let qeq = |buffer: &str, config: &str| {
            let sets = cell_overrides(buffer, "4", config);
            let s = parse(bundled::get("devkota2010-incast").unwrap(), "d", &sets).unwrap();
            let sim = crate::scenario::build(&s, "d").unwrap();
            match &sim.congestion_points()[0] {
                crate::protocol::AnyCongestionPoint::Qcn(q) => q.cp.qeq(),
                _ => panic!("a QCN congestion point"),
            }
        };
        assert_eq!(qeq("32", "qcn-qeq20"), 6400.0);
        assert_eq!(qeq("128", "qcn-qeq20"), 25600.0);
        assert_eq!(qeq("32", "qcn"), 26000.0);
        assert_eq!(qeq("256", "qcn"), 26000.0);
    }

    /// The readings not chosen run only where [`skip`] keeps them, and every
    /// configuration the paper draws has its own captioned goodput figure.
    #[test]
    fn reading_cells_and_figures() {
        let study = study();
        let cells = study.cells();
        let count = |config: &str| cells.iter().filter(|c| c.get("config") == config).count();
        assert_eq!((count("qcn"), count("tcp-1ms")), (24, 24));
        assert_eq!((count("qcn-per-frame"), count("qcn-qeq20")), (12, 12));
        assert_eq!((count("iii-split-top"), count("ii-calm"), count("qcn-10ms-tick")), (6, 6, 6));
        for (file, config, caption) in GOODPUT_FIGURES {
            assert!(CONFIGS.iter().any(|c| c.0 == config), "{file}");
            assert!(caption.contains("Goodput") || caption.contains("goodput"), "{file}");
        }
    }
}
