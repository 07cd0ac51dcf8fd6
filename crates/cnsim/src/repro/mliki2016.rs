//! Mliki, Chaari, Kamoun, Cousin, "Enhanced Ethernet congestion management
//! scheme for multicast traffic", Trans. Emerging Telecommunications Technologies 27
//! (2016) 1563–1579 — standard QCN with multicast traffic versus the enhanced,
//! representative-CP QCN, on the star (Fig. 1) and multi-link (Fig. 13) topologies.
//!
//! The grid: topology × Qeq ∈ {25, 50, 75} frames × scheme (QCN off, standard, enhanced
//! as printed, enhanced as the prose reads) × source model (200 Mbit/s CBR, saturated) ×
//! sampling (standard, per-frame). Each variant is the bundled base scenario
//! (`scenarios/mliki2016/*.toml`) with a few keys changed; the report stores every
//! variant's resolved scenario.

use super::study::{
    Alternative, Axis, Bound, Cell, Column, Comparison, Figure, Level, Limit, Measured, MetricDoc,
    PaperNumber, Quantity, Rule, Study, TableColumn, Tables,
};
use crate::l2::qcn::cp::{QoldUpdate, Sampling};
use crate::l2::qcn::MulticastScheme;
use crate::metrics::{jain_index, mean_std};
use crate::net::NodeKind;
use crate::report::plot::Step;
use crate::scenario::schema::Source;
use crate::scenario::{bundled, parse, Scenario};
use crate::sim::Sim;
use crate::units::{Duration, Size};

/// Which topology.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Topology {
    /// Fig. 1.
    Star,
    /// Fig. 13.
    Multilink,
}

/// Congestion management scheme.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Scheme {
    /// No QCN: the loss is the arithmetic overload share.
    Off,
    /// Standard QCN with multicast.
    Standard,
    /// Mliki et al. 2016 Algorithms 1–2 as printed.
    Enhanced,
    /// Mliki et al. 2016 §3's prose reading (the named representative keeps reporting).
    EnhancedRepresentative,
}

/// How sources produce frames.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SourceModel {
    /// 200 Mbit/s CBR into a bounded source queue in front of the rate limiter.
    Cbr,
    /// Always a frame ready: the source sends at exactly CR.
    Saturated,
}

/// One point of the grid.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Variant {
    /// Topology.
    pub topology: Topology,
    /// Qeq in frames.
    pub qeq: u64,
    /// Scheme.
    pub scheme: Scheme,
    /// Source model.
    pub source: SourceModel,
    /// CP sampling rule.
    pub sampling: Sampling,
}

/// Qeq values of the paper (25 %, 50 %, 75 % of a 100-frame queue).
pub const QEQS: [u64; 3] = [25, 50, 75];
impl Topology {
    fn key(self) -> &'static str {
        match self {
            Topology::Star => "star",
            Topology::Multilink => "multilink",
        }
    }
}

impl Scheme {
    /// Short name.
    pub fn key(self) -> &'static str {
        match self {
            Scheme::Off => "off",
            Scheme::Standard => "standard",
            Scheme::Enhanced => "enhanced",
            Scheme::EnhancedRepresentative => "enhanced-rep",
        }
    }
}

impl Variant {
    /// A file-friendly name, e.g. "star-cbr-per-frame-standard-q25" (the cell's name in
    /// the reproduction).
    pub fn name(&self) -> String {
        let source = match self.source {
            SourceModel::Cbr => "cbr",
            SourceModel::Saturated => "saturated",
        };
        let sampling = match self.sampling {
            Sampling::PerFrame => "per-frame",
            Sampling::Standard => "sampled",
            Sampling::Probability => "probability",
            Sampling::Detailed => "detailed",
        };
        format!("{}-{source}-{sampling}-{}-q{}", self.topology.key(), self.scheme.key(), self.qeq)
    }

    /// The variant of a cell of [`study`]'s grid.
    pub fn of(cell: &Cell) -> Variant {
        Variant {
            topology: if cell.get("topology") == "multilink" { Topology::Multilink } else { Topology::Star },
            qeq: cell.get("qeq_frames").parse().unwrap_or(25),
            scheme: match cell.get("scheme") {
                "off" => Scheme::Off,
                "enhanced" => Scheme::Enhanced,
                "enhanced-rep" => Scheme::EnhancedRepresentative,
                _ => Scheme::Standard,
            },
            source: if cell.get("sources") == "saturated" {
                SourceModel::Saturated
            } else {
                SourceModel::Cbr
            },
            sampling: if cell.get("sampling") == "sampled" { Sampling::Standard } else { Sampling::PerFrame },
        }
    }

    /// The scenario of this variant, from the bundled base file.
    pub fn scenario(&self, duration: Option<Duration>) -> Scenario {
        let base = match self.topology {
            Topology::Star => "mliki2016-star",
            Topology::Multilink => "mliki2016-multilink",
        };
        let mut s =
            parse(bundled::get(base).expect("bundled"), base, &[]).expect("bundled scenarios are valid");
        s.name = self.name();
        if let Some(d) = duration {
            s.duration = d;
        }
        if self.source == SourceModel::Saturated {
            for t in &mut s.traffic {
                t.source = Source::Saturated;
            }
        }
        let q = s.protocols.qcn.as_mut().expect("base scenarios configure QCN");
        q.enabled = self.scheme != Scheme::Off;
        q.multicast = match self.scheme {
            Scheme::Off | Scheme::Standard => MulticastScheme::Standard,
            Scheme::Enhanced => MulticastScheme::Enhanced,
            Scheme::EnhancedRepresentative => MulticastScheme::EnhancedRepresentative,
        };
        q.cp.qeq = Size::Frames(self.qeq);
        q.cp.sampling = self.sampling;
        // Qold per the rule in force: the standard's every-sample update with standard
        // sampling; Mliki et al. 2016 §2.1's "queue size when the last feedback was generated"
        // with the paper's per-frame check.
        q.cp.qold_update = match self.sampling {
            Sampling::Standard | Sampling::Probability | Sampling::Detailed => QoldUpdate::Sample,
            Sampling::PerFrame => QoldUpdate::Feedback,
        };
        if self.scheme == Scheme::Off && self.source == SourceModel::Saturated {
            // Without a reaction point a saturated source sends at its line rate.
            for t in &mut s.traffic {
                t.rate_limit = None;
            }
        }
        s
    }
}

/// One queue's statistics.
#[derive(Clone, Debug)]
pub struct QueueMeasure {
    /// Port name.
    pub port: String,
    /// Owning switch.
    pub(crate) switch: String,
    /// Time-weighted mean length, frames.
    pub(crate) mean: f64,
    /// Time-weighted standard deviation, frames.
    pub(crate) std: f64,
}

/// The paper's metrics for one run, with the model's bounds.
#[derive(Clone, Debug)]
pub struct Measures {
    /// Data frames the sources put into the network (a multicast frame once).
    pub(crate) source_frames: u64,
    /// Data frames the sources produced.
    pub(crate) offered_frames: u64,
    /// Data frames lost in full source queues.
    pub(crate) source_dropped: u64,
    /// CNMs generated by all CPs.
    pub cnms: u64,
    /// Feedback rate: CNMs as a share of the total frame stream, i.e.
    /// 100 · CNMs / (source data frames + CNMs).
    pub(crate) feedback_pct: f64,
    /// The other reading of "feedback rate": 100 · CNMs / source data frames.
    pub(crate) cnms_per_frame_pct: f64,
    /// Data frames (every copy, at every switch queue) arriving at switch egress queues.
    pub(crate) queue_arrivals: u64,
    /// Data frames dropped at switch egress queues.
    pub(crate) switch_drops: u64,
    /// Loss rate: 100 · switch drops / queue arrivals ("frames dropped by the CP").
    pub loss_pct: f64,
    /// 100 · source-queue drops / frames produced (CBR sources only).
    pub(crate) source_loss_pct: f64,
    /// Time-average of CR over all reaction points and samples, Mbit/s.
    pub mean_cr_mbps: f64,
    /// Mean over reaction points of the standard deviation of CR over time, Mbit/s.
    pub(crate) cr_std_mbps: f64,
    /// Receiver-side / bottleneck queues.
    pub(crate) queues: Vec<QueueMeasure>,
    /// Jain's index over per-source goodput, per group ("all" for the star).
    pub(crate) fairness: Vec<(String, f64)>,
    /// Most CNMs standard sampling allows: one sample per 18.5 KB × 0.85 of arrivals at
    /// every CP, as a feedback rate.
    pub(crate) feedback_bound_sampled_pct: f64,
    /// Most CNMs a per-frame check allows (one per arriving data frame), as a feedback rate.
    pub(crate) feedback_bound_per_frame_pct: f64,
    /// Per source: CNMs received in each 100 ms window after the first 500 ms.
    pub cnm_windows: Vec<Vec<u64>>,
}

impl Measures {
    /// Mean queue length over the measured queues of a switch (all if `switch` is None).
    pub fn queue_mean(&self, switch: Option<&str>) -> f64 {
        let q: Vec<f64> =
            self.queues.iter().filter(|q| switch.is_none_or(|s| q.switch == s)).map(|q| q.mean).collect();
        mean_std(&q).0
    }

    /// Mean queue standard deviation over the measured queues of a switch.
    pub fn queue_std(&self, switch: &str) -> f64 {
        let q: Vec<f64> = self.queues.iter().filter(|q| q.switch == switch).map(|q| q.std).collect();
        mean_std(&q).0
    }

    /// Fairness of a group.
    pub fn fairness_of(&self, group: &str) -> f64 {
        self.fairness.iter().find(|(g, _)| g == group).map(|(_, j)| *j).unwrap_or(f64::NAN)
    }

    /// Share of (source, window) pairs after 500 ms in which a source received no CNM.
    pub fn silent_window_share(&self) -> f64 {
        let all: Vec<u64> = self.cnm_windows.iter().flatten().copied().collect();
        if all.is_empty() {
            return 0.0;
        }
        all.iter().filter(|&&c| c == 0).count() as f64 / all.len() as f64
    }
}

/// Bytes of arrivals per sample at the densest standard sampling level, with the
/// smallest jitter factor: 18.5 KB × 0.85.
const MIN_SAMPLE_INTERVAL_BYTES: f64 = 18_500.0 * 0.85;

/// Computes the paper's metrics from a finished run.
pub fn measure(sim: &Sim) -> Measures {
    let mut m = Measures {
        source_frames: 0,
        offered_frames: 0,
        source_dropped: 0,
        cnms: crate::l2::qcn::QcnStats::of(&sim.finished()).cnms_sent,
        feedback_pct: 0.0,
        cnms_per_frame_pct: 0.0,
        queue_arrivals: 0,
        switch_drops: 0,
        loss_pct: 0.0,
        source_loss_pct: 0.0,
        mean_cr_mbps: 0.0,
        cr_std_mbps: 0.0,
        queues: Vec::new(),
        fairness: Vec::new(),
        feedback_bound_sampled_pct: 0.0,
        feedback_bound_per_frame_pct: 0.0,
        cnm_windows: Vec::new(),
    };
    for f in sim.flows() {
        m.source_frames += f.stats.sent_frames;
        m.offered_frames += f.stats.offered_frames;
        m.source_dropped += f.stats.source_dropped_frames;
    }
    let mut sampled_bound = 0.0;
    for (p, port) in sim.net().ports.iter().enumerate() {
        let node = &sim.net().nodes[port.node as usize];
        if node.kind != NodeKind::Switch {
            continue;
        }
        let q = port.classes.queue(0);
        let s = &q.stats;
        // Only data frames count: CNMs travel on the ports towards the sources, which carry
        // no data in these topologies.
        let next = sim.net().next_node(p as u32);
        if sim.net().nodes[next as usize].name.starts_with('S') {
            continue;
        }
        m.queue_arrivals += q.arrived_frames();
        m.switch_drops += s.dropped_frames;
        sampled_bound += q.arrived_bytes() as f64 / MIN_SAMPLE_INTERVAL_BYTES;
        if q.arrived_frames() > 0 {
            let (mean, std) = s.mean_std_frames(sim.end());
            m.queues.push(QueueMeasure {
                port: sim.net().port_name(p as u32),
                switch: node.name.clone(),
                mean,
                std,
            });
        }
    }
    let pct = |a: f64, b: f64| if b > 0.0 { 100.0 * a / b } else { 0.0 };
    m.feedback_pct = pct(m.cnms as f64, (m.source_frames + m.cnms) as f64);
    m.cnms_per_frame_pct = pct(m.cnms as f64, m.source_frames as f64);
    m.loss_pct = pct(m.switch_drops as f64, m.queue_arrivals as f64);
    m.source_loss_pct = pct(m.source_dropped as f64, m.offered_frames as f64);
    let sf = m.source_frames as f64;
    m.feedback_bound_sampled_pct = pct(sampled_bound, sf + sampled_bound);
    m.feedback_bound_per_frame_pct = pct(m.queue_arrivals as f64, sf + m.queue_arrivals as f64);

    // CR statistics from the sampled series.
    let rates = &sim.recorder().rates;
    if !rates.columns.is_empty() {
        let per_rp: Vec<(f64, f64)> = rates.columns.iter().map(|c| mean_std(&c.values)).collect();
        m.mean_cr_mbps = per_rp.iter().map(|x| x.0).sum::<f64>() / per_rp.len() as f64 / 1e6;
        m.cr_std_mbps = per_rp.iter().map(|x| x.1).sum::<f64>() / per_rp.len() as f64 / 1e6;
    }
    // CNM counts per 100 ms window after 500 ms.
    let cnms = &sim.recorder().cnms;
    for c in &cnms.columns {
        let mut windows = Vec::new();
        let mut acc = 0u64;
        let mut in_window = 0;
        for (t, v) in cnms.times_s.iter().zip(&c.values) {
            if *t <= 0.5 {
                continue;
            }
            acc += *v as u64;
            in_window += 1;
            if in_window == 100 {
                windows.push(acc);
                acc = 0;
                in_window = 0;
            }
        }
        m.cnm_windows.push(windows);
    }
    // Fairness per traffic group (the traffic entry name is the group in both topologies).
    let mut groups: Vec<String> = Vec::new();
    for f in sim.flows() {
        let g = f.name.split('/').next().unwrap_or("").to_string();
        if !groups.contains(&g) {
            groups.push(g);
        }
    }
    for g in groups {
        let xs: Vec<f64> = sim
            .flows()
            .iter()
            .filter(|f| f.name.starts_with(&format!("{g}/")))
            .map(|f| f.stats.delivered_bytes as f64)
            .collect();
        let label = if g == "mc" { "all".to_string() } else { g };
        m.fairness.push((label, jain_index(&xs)));
    }
    m
}

impl Measures {
    /// The scalar metrics of a run, named as the results table's columns.
    pub fn scalars(&self) -> Vec<(String, f64)> {
        let mut v = vec![
            ("feedback_pct".to_string(), self.feedback_pct),
            ("cnms_per_frame_pct".to_string(), self.cnms_per_frame_pct),
            ("loss_pct".to_string(), self.loss_pct),
            ("source_loss_pct".to_string(), self.source_loss_pct),
            ("mean_cr_mbps".to_string(), self.mean_cr_mbps),
            ("cr_std_mbps".to_string(), self.cr_std_mbps),
            ("queue_mean_frames".to_string(), self.queue_mean(None)),
            (
                "queue_std_frames".to_string(),
                mean_std(&self.queues.iter().map(|q| q.std).collect::<Vec<_>>()).0,
            ),
            ("silent_cnm_windows_pct".to_string(), 100.0 * self.silent_window_share()),
            ("cnms".to_string(), self.cnms as f64),
            ("source_frames".to_string(), self.source_frames as f64),
            ("switch_drops".to_string(), self.switch_drops as f64),
            ("feedback_bound_sampled_pct".to_string(), self.feedback_bound_sampled_pct),
            ("feedback_bound_per_frame_pct".to_string(), self.feedback_bound_per_frame_pct),
        ];
        for (g, j) in &self.fairness {
            v.push((format!("jain_{g}"), *j));
        }
        let mut switches: Vec<&str> = self.queues.iter().map(|q| q.switch.as_str()).collect();
        switches.dedup();
        for sw in switches {
            v.push((format!("queue_std_frames_{sw}"), self.queue_std(sw)));
        }
        v
    }
}

// ---- the declaration ---------------------------------------------------------------------

/// The registry entry of this reproduction.
pub const REPRODUCTION: super::Reproduction = super::Reproduction { name: "mliki2016", declare: study };

const fn level(key: &'static str, label: &'static str) -> Level {
    Level { key, label }
}

/// The metrics of a run of `cell`.
fn measure_cell(cell: &Cell, sim: &Sim) -> Measured {
    let m = measure(sim);
    let mut scalars = m.scalars();
    let qeq = Variant::of(cell).qeq as f64;
    scalars.push(("queue_excess_frames".to_string(), m.queue_mean(None) - qeq));
    Measured {
        scalars,
        series: vec![("rates", sim.recorder().rates.clone()), ("cnms", sim.recorder().cnms.clone())],
    }
}

const STAR: (&str, &str) = ("topology", "star");
const MULTILINK: (&str, &str) = ("topology", "multilink");
const QCN_SCHEMES: &[&str] = &["standard", "enhanced", "enhanced-rep"];
const ALL_SCHEMES: &[&str] = &["off", "standard", "enhanced", "enhanced-rep"];
const NO_QCN: &[(&str, &str)] = &[("scheme", "off")];

/// A bar figure over Qeq.
fn bars(
    file: &'static str,
    caption: &'static str,
    y_label: &'static str,
    at: &'static [(&'static str, &'static str)],
    schemes: &'static [&'static str],
    metric: &'static str,
) -> Figure {
    let y_max = (y_label == "index").then_some(1.0);
    Figure::Bars {
        file,
        caption,
        y_label,
        at,
        categories: "qeq_frames",
        series: ("scheme", schemes),
        metric,
        y_max,
    }
}

/// CR of each source over time, one star cell.
fn cr_figure(
    file: &'static str,
    caption: &'static str,
    at: &'static [(&'static str, &'static str)],
) -> Figure {
    Figure::Series {
        file,
        caption,
        at,
        series: "rates",
        scale: 1e-6,
        rebin: 1,
        y_label: "CR (Mbit/s)",
        reference: Some(("CRmean = 1 Gbit/s / 6", 1000.0 / 6.0)),
        step: Step::After,
        worst_is_lowest: true,
    }
}

/// CNMs each source received per 10 ms, one star cell.
fn cnm_figure(
    file: &'static str,
    caption: &'static str,
    at: &'static [(&'static str, &'static str)],
) -> Figure {
    Figure::Series {
        file,
        caption,
        at,
        series: "cnms",
        scale: 1.0,
        rebin: 10,
        y_label: "CNMs per 10 ms",
        reference: None,
        step: Step::Before,
        worst_is_lowest: false,
    }
}

/// The paper's numbers (Mliki et al. 2016 §4).
fn paper_numbers() -> Vec<PaperNumber> {
    type At = &'static [(&'static str, &'static str)];
    let metric = |what, at: At, value, unit, m| PaperNumber {
        what,
        at,
        value,
        unit,
        quantity: Quantity::Metric(m),
        rule: Rule::VALUE,
    };
    let change = |what, at: At, value, m| PaperNumber {
        what,
        at,
        value,
        unit: "%",
        quantity: Quantity::Change { metric: m, axis: "scheme", from: "standard", to: "enhanced" },
        rule: Rule::VALUE,
    };
    macro_rules! at {
        ($topology:expr, $qeq:literal) => {
            &[$topology, ("qeq_frames", $qeq)]
        };
        ($topology:expr, $qeq:literal, $scheme:literal) => {
            &[$topology, ("qeq_frames", $qeq), ("scheme", $scheme)]
        };
    }
    vec![
        metric(
            "feedback rate, QCN with multicast (§4.2)",
            at!(STAR, "75", "standard"),
            3.8,
            "%",
            "feedback_pct",
        ),
        metric(
            "feedback rate, QCN with multicast (§4.2)",
            at!(STAR, "50", "standard"),
            11.98,
            "%",
            "feedback_pct",
        ),
        metric(
            "feedback rate, QCN with multicast (§4.2)",
            at!(STAR, "25", "standard"),
            13.16,
            "%",
            "feedback_pct",
        ),
        metric("feedback rate, enhanced (§4.2)", at!(STAR, "75", "enhanced"), 2.27, "%", "feedback_pct"),
        metric("feedback rate, enhanced (§4.2)", at!(STAR, "50", "enhanced"), 5.63, "%", "feedback_pct"),
        metric("feedback rate, enhanced (§4.2)", at!(STAR, "25", "enhanced"), 8.04, "%", "feedback_pct"),
        change("feedback change, enhanced vs standard (§4.2)", at!(STAR, "75"), -40.26, "feedback_pct"),
        change("feedback change, enhanced vs standard (§4.2)", at!(STAR, "50"), -53.0, "feedback_pct"),
        change("feedback change, enhanced vs standard (§4.2)", at!(STAR, "25"), -38.9, "feedback_pct"),
        metric("loss rate, QCN with multicast (§4.3)", at!(STAR, "25", "standard"), 0.0, "%", "loss_pct"),
        metric("loss rate, QCN with multicast (§4.3)", at!(STAR, "50", "standard"), 3.15, "%", "loss_pct"),
        metric("loss rate, QCN with multicast (§4.3)", at!(STAR, "75", "standard"), 26.59, "%", "loss_pct"),
        metric("loss rate, enhanced (§4.3)", at!(STAR, "25", "enhanced"), 0.0, "%", "loss_pct"),
        metric("loss rate, enhanced (§4.3)", at!(STAR, "50", "enhanced"), 2.17, "%", "loss_pct"),
        metric("loss rate, enhanced (§4.3)", at!(STAR, "75", "enhanced"), 29.98, "%", "loss_pct"),
        change("loss change, enhanced vs standard (§4.3)", at!(STAR, "50"), -31.11, "loss_pct"),
        change("loss change, enhanced vs standard (§4.3)", at!(STAR, "75"), 12.74, "loss_pct"),
        metric(
            "CR std dev, QCN with multicast (§4.4)",
            at!(STAR, "75", "standard"),
            43.61,
            "Mbit/s",
            "cr_std_mbps",
        ),
        metric(
            "CR std dev, QCN with multicast (§4.4)",
            at!(STAR, "50", "standard"),
            69.48,
            "Mbit/s",
            "cr_std_mbps",
        ),
        metric(
            "CR std dev, QCN with multicast (§4.4)",
            at!(STAR, "25", "standard"),
            67.65,
            "Mbit/s",
            "cr_std_mbps",
        ),
        metric("CR std dev, enhanced (§4.4)", at!(STAR, "75", "enhanced"), 58.56, "Mbit/s", "cr_std_mbps"),
        metric("CR std dev, enhanced (§4.4)", at!(STAR, "50", "enhanced"), 65.19, "Mbit/s", "cr_std_mbps"),
        metric("CR std dev, enhanced (§4.4)", at!(STAR, "25", "enhanced"), 65.32, "Mbit/s", "cr_std_mbps"),
        change("mean CR gain, enhanced vs standard (§4.1)", at!(STAR, "25"), 12.48, "mean_cr_mbps"),
        metric(
            "feedback rate, QCN with multicast (§4.6.1)",
            at!(MULTILINK, "25", "standard"),
            87.92,
            "%",
            "feedback_pct",
        ),
        metric(
            "feedback rate, QCN with multicast (§4.6.1)",
            at!(MULTILINK, "50", "standard"),
            89.02,
            "%",
            "feedback_pct",
        ),
        metric(
            "feedback rate, QCN with multicast (§4.6.1)",
            at!(MULTILINK, "75", "standard"),
            4.24,
            "%",
            "feedback_pct",
        ),
        change("feedback change, enhanced vs standard (§4.6.1)", at!(MULTILINK, "25"), -41.0, "feedback_pct"),
        change(
            "feedback change, enhanced vs standard (§4.6.1)",
            at!(MULTILINK, "50"),
            -41.23,
            "feedback_pct",
        ),
        change(
            "feedback change, enhanced vs standard (§4.6.1)",
            at!(MULTILINK, "75"),
            -60.14,
            "feedback_pct",
        ),
    ]
}

/// The declaration: grid, metrics, paper numbers, tables and figures.
pub fn study() -> Study {
    let axes = vec![
        Axis {
            name: "topology",
            title: "topology",
            prefix: "",
            levels: vec![level("star", "star (Fig. 1)"), level("multilink", "multi-link (Fig. 13)")],
        },
        Axis {
            name: "sources",
            title: "sources",
            prefix: "",
            levels: vec![level("cbr", "200 Mbit/s CBR sources"), level("saturated", "saturated sources")],
        },
        Axis {
            name: "sampling",
            title: "sampling",
            prefix: "",
            levels: vec![level("per-frame", "per-frame check"), level("sampled", "standard sampling")],
        },
        Axis {
            name: "scheme",
            title: "scheme",
            prefix: "",
            levels: vec![
                level("off", "QCN off"),
                level("standard", "QCN with multicast"),
                level("enhanced", "enhanced (as printed)"),
                level("enhanced-rep", "enhanced (prose reading)"),
            ],
        },
        Axis {
            name: "qeq_frames",
            title: "Qeq",
            prefix: "q",
            levels: vec![level("25", "25"), level("50", "50"), level("75", "75")],
        },
    ];
    let doc = |name, title, unit, doc| MetricDoc { name, title, unit, doc };
    let metrics = vec![
        doc("feedback_pct", "Feedback rate", "%", "CNMs ÷ (data frames the sources sent + CNMs): the CNMs' share of the total frame stream; a multicast frame counts once, at its source."),
        doc("cnms_per_frame_pct", "CNMs per frame", "%", "CNMs ÷ data frames the sources sent, the other reading of \"feedback rate\"."),
        doc("loss_pct", "Loss rate", "%", "data frames dropped at switch egress queues ÷ data frames arriving at them (each copy at each queue): \"the rate of dropped frames by the CP\"."),
        doc("source_loss_pct", "Source loss", "%", "frames lost in full source queues ÷ frames produced (CBR sources only)."),
        doc("mean_cr_mbps", "Mean CR", "Mbit/s", "time average of CR over all sources (1 ms samples, whole run)."),
        doc("cr_std_mbps", "CR std dev", "Mbit/s", "standard deviation over time of each source's CR, averaged over sources."),
        doc("queue_mean_frames", "Queue mean", "frames", "time-weighted mean length of the receiver-side queues (star: sw→R1, sw→R2; multi-link: every switch queue carrying data), averaged; the frame in transmission is not counted."),
        doc("queue_std_frames", "Queue std", "frames", "time-weighted standard deviation of the same queues, averaged."),
        doc("queue_std_frames_*", "Queue std per switch", "frames", "the same for the queues of one switch (multi-link: sw1, sw2, sw3)."),
        doc("queue_excess_frames", "Queue excess", "frames", "queue mean − Qeq."),
        doc("jain_*", "Fairness", "index", "Jain's index over the sources' delivered bytes, per group (`all` on the star, G1–G3 on the multi-link topology)."),
        doc("silent_cnm_windows_pct", "Silent CNM windows", "%", "share of (source, 100 ms window after 0.5 s) pairs in which a source received no CNM: near 100 % means feedback stalled."),
        doc("cnms", "CNMs", "frames", "CNMs generated by all CPs."),
        doc("source_frames", "Source frames", "frames", "data frames the sources put into the network."),
        doc("switch_drops", "Switch drops", "frames", "data frames dropped at switch egress queues."),
        doc("feedback_bound_sampled_pct", "Feedback bound, sampled", "%", "most CNMs standard sampling allows (one sample per 18.5 KB × 0.85 of arrivals at every CP), as a feedback rate."),
        doc("feedback_bound_per_frame_pct", "Feedback bound, per frame", "%", "most CNMs a per-frame check allows (one per arriving data frame), as a feedback rate."),
    ];
    let comparison = Comparison {
        numbers: paper_numbers(),
        where_axes: &["topology", "qeq_frames"],
        columns: &[
            Column { label: "cbr-per-frame", at: &[("sources", "cbr"), ("sampling", "per-frame")] },
            Column { label: "cbr-sampled", at: &[("sources", "cbr"), ("sampling", "sampled")] },
            Column {
                label: "saturated-per-frame",
                at: &[("sources", "saturated"), ("sampling", "per-frame")],
            },
            Column { label: "saturated-sampled", at: &[("sources", "saturated"), ("sampling", "sampled")] },
        ],
        alternative: Some(Alternative { axis: "scheme", level: "enhanced", with: "enhanced-rep" }),
        bounds: &[
            Bound {
                metric: "feedback_pct",
                limits: &[
                    Limit {
                        metric: "feedback_bound_sampled_pct",
                        at: &[("sources", "cbr"), ("sampling", "sampled")],
                        digits: 1,
                        text:
                            "with standard sampling (one sample per 18.5 KB × 0.85 of arrivals at every CP)",
                    },
                    Limit {
                        metric: "feedback_bound_per_frame_pct",
                        at: &[("sources", "cbr"), ("sampling", "per-frame")],
                        digits: 1,
                        text: "with a per-frame check (a CNM for every arriving copy)",
                    },
                ],
            },
            Bound {
                metric: "loss_pct",
                limits: &[
                    Limit {
                        metric: "loss_pct",
                        at: &[("scheme", "off"), ("sources", "cbr")],
                        digits: 2,
                        text: "with 200 Mbit/s CBR sources (QCN off: the overload share)",
                    },
                    Limit {
                        metric: "loss_pct",
                        at: &[("scheme", "off"), ("sources", "saturated")],
                        digits: 1,
                        text: "with sources at line rate",
                    },
                ],
            },
        ],
        tolerance: 0.25,
        note: "Values for the enhanced scheme are the algorithm as printed, with the prose reading in \
               parentheses. The four columns are the source model and sampling combinations; the difference \
               is against the first (the paper's text: 200 Mbit/s CBR sources, every frame checked), whose ± \
               is the 95 % confidence interval over seeds.",
    };
    let tables = Tables {
        sections: "topology",
        rows: &["scheme", "qeq_frames"],
        columns: &[
            TableColumn { header: "feedback %", metric: "feedback_pct", digits: 2, absent_at: NO_QCN },
            TableColumn {
                header: "CNMs per frame %",
                metric: "cnms_per_frame_pct",
                digits: 2,
                absent_at: NO_QCN,
            },
            TableColumn { header: "loss %", metric: "loss_pct", digits: 2, absent_at: &[] },
            TableColumn { header: "source loss %", metric: "source_loss_pct", digits: 2, absent_at: &[] },
            TableColumn { header: "mean CR Mbit/s", metric: "mean_cr_mbps", digits: 1, absent_at: NO_QCN },
            TableColumn { header: "CR std Mbit/s", metric: "cr_std_mbps", digits: 1, absent_at: NO_QCN },
            TableColumn { header: "queue mean", metric: "queue_mean_frames", digits: 1, absent_at: &[] },
            TableColumn { header: "queue std", metric: "queue_std_frames", digits: 1, absent_at: &[] },
            TableColumn { header: "Jain", metric: "jain_*", digits: 3, absent_at: &[] },
            TableColumn {
                header: "silent CNM windows %",
                metric: "silent_cnm_windows_pct",
                digits: 0,
                absent_at: NO_QCN,
            },
        ],
    };
    let figures = vec![
        cr_figure(
            "fig02-cr-standard-q25",
            "Fig. 2: CR, Qeq = 25 frames, QCN with multicast",
            &[STAR, ("qeq_frames", "25"), ("scheme", "standard")],
        ),
        cr_figure(
            "fig03-cr-standard-q75",
            "Fig. 3: CR, Qeq = 75 frames, QCN with multicast",
            &[STAR, ("qeq_frames", "75"), ("scheme", "standard")],
        ),
        cr_figure(
            "fig04-cr-enhanced-q25",
            "Fig. 4: CR, Qeq = 25 frames, enhanced (as printed)",
            &[STAR, ("qeq_frames", "25"), ("scheme", "enhanced")],
        ),
        cr_figure(
            "fig05-cr-enhanced-q75",
            "Fig. 5: CR, Qeq = 75 frames, enhanced (as printed)",
            &[STAR, ("qeq_frames", "75"), ("scheme", "enhanced")],
        ),
        bars("fig06-mean-cr", "Fig. 6: average CR, star", "Mbit/s", &[STAR], QCN_SCHEMES, "mean_cr_mbps"),
        bars(
            "fig07-feedback",
            "Fig. 7: feedback rate, star",
            "% of the frame stream",
            &[STAR],
            QCN_SCHEMES,
            "feedback_pct",
        ),
        bars(
            "fig08-loss",
            "Fig. 8: loss rate, star",
            "% of queue arrivals",
            &[STAR],
            ALL_SCHEMES,
            "loss_pct",
        ),
        bars(
            "fig09-cr-std",
            "Fig. 9: standard deviation of CR, star",
            "Mbit/s",
            &[STAR],
            QCN_SCHEMES,
            "cr_std_mbps",
        ),
        bars(
            "fig10-queue-mean",
            "Fig. 10: mean queue length, star",
            "frames",
            &[STAR],
            ALL_SCHEMES,
            "queue_mean_frames",
        ),
        bars(
            "fig11-queue-deviation",
            "Fig. 11: mean queue length minus Qeq, star",
            "frames",
            &[STAR],
            QCN_SCHEMES,
            "queue_excess_frames",
        ),
        bars(
            "fig12-fairness",
            "Fig. 12: Jain's fairness index, star",
            "index",
            &[STAR],
            ALL_SCHEMES,
            "jain_all",
        ),
        bars(
            "fig14-feedback-multilink",
            "Fig. 14: feedback rate, multi-link",
            "% of the frame stream",
            &[MULTILINK],
            QCN_SCHEMES,
            "feedback_pct",
        ),
        bars(
            "fig15-loss-multilink",
            "Fig. 15: loss rate, multi-link",
            "% of queue arrivals",
            &[MULTILINK],
            ALL_SCHEMES,
            "loss_pct",
        ),
        bars(
            "fig16-queue-std-sw1",
            "Fig. 16: queue length std dev at switch 1, multi-link",
            "frames",
            &[MULTILINK],
            ALL_SCHEMES,
            "queue_std_frames_sw1",
        ),
        bars(
            "fig17-queue-std-sw2",
            "Fig. 17: queue length std dev at switch 2, multi-link",
            "frames",
            &[MULTILINK],
            ALL_SCHEMES,
            "queue_std_frames_sw2",
        ),
        bars(
            "fig18-queue-std-sw3",
            "Fig. 18: queue length std dev at switch 3, multi-link",
            "frames",
            &[MULTILINK],
            ALL_SCHEMES,
            "queue_std_frames_sw3",
        ),
        bars(
            "fig19-fairness-G1",
            "Fig. 19: Jain's fairness index of G1, multi-link",
            "index",
            &[MULTILINK],
            ALL_SCHEMES,
            "jain_G1",
        ),
        bars(
            "fig20-fairness-G2",
            "Fig. 20: Jain's fairness index of G2, multi-link",
            "index",
            &[MULTILINK],
            ALL_SCHEMES,
            "jain_G2",
        ),
        bars(
            "fig21-fairness-G3",
            "Fig. 21: Jain's fairness index of G3, multi-link",
            "index",
            &[MULTILINK],
            ALL_SCHEMES,
            "jain_G3",
        ),
        cnm_figure(
            "cnms-over-time-enhanced-q25",
            "CNMs received per 10 ms by each source, star, Qeq 25, enhanced (as printed)",
            &[STAR, ("qeq_frames", "25"), ("scheme", "enhanced")],
        ),
        cnm_figure(
            "cnms-over-time-enhanced-rep-q25",
            "CNMs received per 10 ms by each source, star, Qeq 25, enhanced (prose reading)",
            &[STAR, ("qeq_frames", "25"), ("scheme", "enhanced-rep")],
        ),
        cnm_figure(
            "cnms-over-time-standard-q25",
            "CNMs received per 10 ms by each source, star, Qeq 25, QCN with multicast",
            &[STAR, ("qeq_frames", "25"), ("scheme", "standard")],
        ),
    ];
    Study {
        name: "mliki2016",
        title: "Mliki et al. 2016: QCN with multicast and the enhanced, representative-CP QCN",
        seeds: (10, 2),
        quick_duration: Duration(crate::engine::PS_PER_S),
        axes,
        // Sampling is meaningless without QCN: one QCN-off run per source model.
        alias: |c| {
            (c.get("scheme") == "off" && c.get("sampling") == "sampled")
                .then(|| c.with(&[("sampling", "per-frame")]))
                .flatten()
        },
        skip: |_| false,
        scenario: |c| Variant::of(c).scenario(None),
        measure: measure_cell,
        metrics,
        comparison,
        tables,
        facets: &["sources", "sampling"],
        figures,
        every_cell: Vec::new(),
        intro: REPORT_INTRO,
        gaps: REPORT_GAPS,
    }
}

const REPORT_INTRO: &str = r#"
## What was run

- **Topologies.** The star of Fig. 1 (six sources, one switch, two receivers R1 and R2 in
  one multicast group; the two switch output queues are the potential CPs) and the
  multi-link topology of Fig. 13, reconstructed from the text: sw1 – sw2 – sw3, group G1's
  sources on sw1, G2's on sw2, G3's on sw3, all receivers on sw3, so G1 crosses congested
  queues at three switches, G2 at two, G3 at one. 1 Gbit/s links, 100-frame drop-tail
  queues, 1500-byte frames, CR and TR start at 1 Gbit/s.
- **Schemes.** QCN off; standard QCN with multicast (every CP on every branch notifies the
  source); the enhanced scheme exactly as Algorithms 1 and 2 print it (the source keeps the
  largest |Fb| received, resets it at 63, and stamps it on its frames; a CP sends only if
  its |Fb| ≥ the stamp, ties going to the stamped CPID); and the prose reading of §3 (the
  stamped representative keeps reporting whenever Fb < 0, another CP takes over only with
  a larger |Fb|, and the source follows its representative's value).
- **Sources.** `cbr`: 200 Mbit/s CBR (the paper's text), frames waiting for the rate limiter
  in a 100-frame source queue whose overflow is source-side loss; `saturated`: a frame is
  always ready, so a source sends at exactly CR.
- **Sampling.** `per-frame`: every arriving data frame evaluates Fb (§2.1, Algorithm 2), with
  Qold the queue at the last CNM (§2's definition); `sampled`: the standard's byte-based
  sampling (150 KB/(1 + |Fb|>>3), randomized 0.85–1.15) with Qold updated at every sample.
- **QCN parameters** (Mliki et al. 2016 §2): w = 2, Fb quantized to 6 bits, Gd = 1/128, 150 KB / 10 ms
  byte-counter and timer cycles for five Fast Recovery cycles, then 75 KB / 5 ms,
  R_AI = 5 Mbit/s, R_HAI = 50 Mbit/s with i = min(SI, TS) − 5 (the pseudocode; the paper's
  "i … equal to one" is the `hai_multiplier = "one"` option). CNMs are 64-byte frames sent
  back through the network.
- **Queue length.** Q, as the CP reads it, and the 100-frame capacity count the frame being
  sent, which a switch buffer holds until its last bit leaves (`queues.occupancy =
  "buffer"`); the reported queue means count the frames waiting behind it.

The base scenarios are `scenarios/mliki2016/star.toml` and
`scenarios/mliki2016/multilink.toml` in the cnsim repository; each cell changes a few
keys of one of them.
"#;

const REPORT_GAPS: &str = r#"
### Why the gaps

- **Feedback rates.** With the standard's sampling a CP samples at most one frame per
  18.5 KB × 0.85 of arrivals (≈ 9.5 % of 1500-byte frames), so the paper's 87–89 %
  multi-link feedback rates cannot come from standard sampling; they need a CP that can
  answer nearly every frame, as the per-frame check of §2.1 and Algorithm 2 does. As a
  share of the total frame stream even a per-frame check stays below the bound shown (a
  CNM for every copy arriving at a CP); read as CNMs per data frame sent (the
  "CNMs per frame" column), 88 % is within the per-frame bound but far above the sampled
  one. In our runs QCN holds the queues near Qeq, where Fb < 0 only part of the time, so
  the per-frame check answers a few percent of frames; the rate depends strongly on how
  Qold is updated, a detail the paper does not give (we use its §2 definition).
- **Loss at high Qeq.** 200 Mbit/s CBR sources offer at most 1.2 Gbit/s to each 1 Gbit/s
  receiver queue, so no mechanism can lose more than 1/6 ≈ 16.7 % of the arrivals there;
  the published 26.59 % and 29.98 % at Qeq = 75 exceed that bound. Sources that start (or
  burst) at the 1 Gbit/s line rate can lose more, which is what the saturated source
  model shows.
- **The literal enhanced algorithm.** The source's stamp only rises and is reset only at
  exactly 63, and a CP may speak only at or above the stamp. Once a start-up surge has set a
  high stamp, steady-state CPs (whose |Fb| stays lower) go silent until the queue grows
  enough to reach it: see the silent-window column and the `cnms-over-time` figures.
"#;
