//! Speed measurements on fixed scenarios: wall time, events/s, frame-hops/s, frames
//! through the bottleneck per wall-second and wall time per delivered frame, median of
//! several runs; and the ratios between scenarios that the speed targets are stated in.
//!
//! The runs of all scenarios are interleaved (one round runs each scenario once), and a
//! ratio is the median of the ratios within each round: on a shared machine whose speed
//! drifts over seconds, that pairs runs made under the same conditions.

use serde::Serialize;

use crate::scenario::{bundled, parse};

/// A benchmark: a bundled scenario and the port whose sent frames count as "bottleneck
/// frames".
pub struct BenchCase {
    /// The case's name.
    pub name: &'static str,
    /// Bundled scenario it runs.
    pub scenario: &'static str,
    /// Keys it sets on the scenario (`--set` assignments), before the user's.
    pub(crate) settings: &'static [&'static str],
    /// Bottleneck port.
    pub(crate) bottleneck: &'static str,
}

/// The fixed benchmark set.
pub const CASES: &[BenchCase] = &[
    BenchCase { name: "dumbbell-cbr-64", scenario: "dumbbell-cbr-64", settings: &[], bottleneck: "r1->r2" },
    BenchCase { name: "dumbbell-qcn-64", scenario: "dumbbell-qcn-64", settings: &[], bottleneck: "r1->r2" },
    BenchCase { name: "dumbbell-tcp-64", scenario: "dumbbell-tcp-64", settings: &[], bottleneck: "r1->r2" },
    // The same with RED (classic w_q, thresholds at a sixth and half of the buffer).
    BenchCase {
        name: "dumbbell-tcp-red-64",
        scenario: "dumbbell-tcp-64",
        settings: &[
            r#"protocols.red={ports=["r1->r2"], min_th="50 frames", max_th="150 frames", w_q=0.002, mean_packet_size="1500B"}"#,
        ],
        bottleneck: "r1->r2",
    },
    // The same with DCTCP (K = 65 frames, the paper's value at 10 Gbit/s).
    BenchCase {
        name: "dumbbell-dctcp-64",
        scenario: "dumbbell-tcp-64",
        settings: &[
            "traffic[0].tcp={dctcp={}}",
            r#"protocols.ecn_threshold={k="65 frames", ports=["r1->r2"]}"#,
        ],
        bottleneck: "r1->r2",
    },
    // 32 servers, 128 KB buffers, with QCN (802.1Qau defaults) on the port to the client.
    BenchCase {
        name: "incast-32",
        scenario: "devkota2010-incast",
        settings: &[r#"protocols.qcn={congestion_points=["sw->client"], flows="*"}"#],
        bottleneck: "sw->client",
    },
    // An 8:1 incast at 40 Gbit/s under DCQCN over PFC.
    BenchCase {
        name: "incast-dcqcn-8",
        scenario: "dcqcn-incast",
        settings: &["topology.dumbbell.senders=8", "duration=1s"],
        bottleneck: "r1->r2",
    },
    BenchCase { name: "chain-10x3", scenario: "chain-10x3", settings: &[], bottleneck: "sw9->sw10" },
    // Web search at 30 % on a k = 8 fat-tree (128 hosts, 10 and 40 Gbit/s), every flow a
    // DCTCP connection (K = 65 frames on every switch port), 10 ms of arrivals and run.
    BenchCase {
        name: "fattree-k8-websearch",
        scenario: "fattree-websearch",
        settings: &[
            "duration=10ms",
            "traffic[0].stop=10ms",
            r#"traffic[0].transport="tcp""#,
            "traffic[0].tcp={dctcp={}}",
            "protocols.dcqcn.flows=[]",
            r#"protocols.dcqcn.congestion_points="none""#,
            r#"protocols.ecn_threshold={k="65 frames", ports="switches"}"#,
        ],
        bottleneck: "tor1->h1",
    },
    // The HPCC paper's 320-host fabric, web search at 30 %, 10 ms of arrivals and run,
    // DCQCN over PFC.
    BenchCase {
        name: "fattree-hpcc320",
        scenario: "hpcc320-websearch",
        settings: &["duration=10ms", "traffic[0].stop=10ms"],
        bottleneck: "tor1->h1",
    },
    // The same with HPCC (the paper's η, the fork's run.py maxStage 0 and INT_MULTI, the
    // variable window) in place of DCQCN: INT must not make the data path slow.
    BenchCase {
        name: "fattree-hpcc320-hpcc",
        scenario: "hpcc320-websearch",
        settings: &[
            "duration=10ms",
            "traffic[0].stop=10ms",
            "protocols.dcqcn.flows=[]",
            r#"protocols.dcqcn.congestion_points="none""#,
            r#"protocols.hpcc={flows="*", max_stage=0, int_multi=4, window="bdp"}"#,
        ],
        bottleneck: "tor1->h1",
    },
    // Open-loop Poisson traffic across the cores of a k = 8 fat-tree: the case the
    // partitioned engine runs (bench --threads).
    BenchCase {
        name: "fattree-k8-poisson",
        scenario: "fattree-k8-poisson",
        settings: &["duration=10ms"],
        bottleneck: "tor17->h65",
    },
    BenchCase {
        name: "dumbbell-cbr-4096",
        scenario: "dumbbell-cbr-4096",
        settings: &[],
        bottleneck: "r1->r2",
    },
    BenchCase {
        name: "8021au-baseline",
        scenario: "roeck2007-baseline",
        settings: &["duration=1s"],
        bottleneck: "sw->n5",
    },
    BenchCase {
        name: "8021au-baseline-ecm",
        scenario: "roeck2007-baseline",
        settings: &["duration=1s", r#"protocols.ecm={congestion_points="switches", flows="*"}"#],
        bottleneck: "sw->n5",
    },
    BenchCase {
        name: "8021au-baseline-fecn",
        scenario: "roeck2007-baseline",
        settings: &["duration=1s", r#"protocols.fecn={congestion_points="switches", flows="*"}"#],
        bottleneck: "sw->n5",
    },
    BenchCase {
        name: "8021au-baseline-fecn-b",
        scenario: "roeck2007-baseline",
        settings: &["duration=1s", r#"protocols.fecn={congestion_points="switches", flows="*", severe={}}"#],
        bottleneck: "sw->n5",
    },
    BenchCase {
        name: "8021au-baseline-e2cm-pr",
        scenario: "roeck2007-baseline",
        settings: &[
            "duration=1s",
            r#"protocols.e2cm={congestion_points="switches", flows="*", guidance={}}"#,
        ],
        bottleneck: "sw->n5",
    },
    // QCN as Roeck 2007 ran it (the first parameter set; `cnsim reproduce roeck2007`).
    BenchCase {
        name: "8021au-baseline-qcn",
        scenario: "roeck2007-baseline",
        settings: &[
            "duration=1s",
            r#"protocols.qcn={congestion_points="switches", flows="*", cp={qeq="24000B", sampling="probability"}, rp={timer="200us", min_rate="10Mbps", r_ai="12Mbps", extra_fast_recovery=true, drift_factor=1.0005}}"#,
        ],
        bottleneck: "sw->n5",
    },
    BenchCase {
        name: "8021au-baseline-qcn-pr",
        scenario: "roeck2007-baseline",
        settings: &[
            "duration=1s",
            r#"protocols.qcn={congestion_points="switches", flows="*", cp={qeq="24000B", sampling="probability", guidance={switch_rate_weight=0.002}}, rp={timer="200us", min_rate="10Mbps", r_ai="12Mbps", extra_fast_recovery=true, byte_counter="100000B", self_increase_factor=0.001, probes={}}}"#,
        ],
        bottleneck: "sw->n5",
    },
];

/// A ratio between two benchmarks that a speed target is stated in.
pub struct BenchRatio {
    /// What it compares, as printed.
    pub(crate) name: &'static str,
    /// Numerator and denominator scenarios.
    pub(crate) cases: (&'static str, &'static str),
    /// Which figure is compared.
    pub(crate) figure: Figure,
    /// The target, as printed.
    pub(crate) target: &'static str,
}

/// A per-run figure a ratio compares.
#[derive(Clone, Copy)]
pub enum Figure {
    /// Frames sent on the bottleneck port per wall-second.
    BottleneckFramesPerS,
    /// Wall nanoseconds per frame delivered to a host.
    NsPerDeliveredFrame,
    /// Frames sent on any link per wall-second.
    FrameHopsPerS,
}

/// The ratios reported when both of their scenarios are run.
pub const RATIOS: &[BenchRatio] = &[
    BenchRatio {
        name: "QCN vs CBR, bottleneck frames/s",
        cases: ("dumbbell-qcn-64", "dumbbell-cbr-64"),
        figure: Figure::BottleneckFramesPerS,
        target: ">= 0.80",
    },
    BenchRatio {
        name: "TCP vs CBR, bottleneck frames/s",
        cases: ("dumbbell-tcp-64", "dumbbell-cbr-64"),
        figure: Figure::BottleneckFramesPerS,
        target: ">= 0.60",
    },
    BenchRatio {
        name: "TCP with RED vs drop-tail, bottleneck frames/s",
        cases: ("dumbbell-tcp-red-64", "dumbbell-tcp-64"),
        figure: Figure::BottleneckFramesPerS,
        target: ">= 0.90",
    },
    BenchRatio {
        name: "DCTCP vs NewReno, bottleneck frames/s",
        cases: ("dumbbell-dctcp-64", "dumbbell-tcp-64"),
        figure: Figure::BottleneckFramesPerS,
        target: ">= 0.95",
    },
    BenchRatio {
        name: "DCQCN incast vs CBR, bottleneck frames/s",
        cases: ("incast-dcqcn-8", "dumbbell-cbr-64"),
        figure: Figure::BottleneckFramesPerS,
        target: ">= 0.80",
    },
    BenchRatio {
        name: "fat-tree workload vs CBR dumbbell, wall ns per delivered frame",
        cases: ("fattree-k8-websearch", "dumbbell-cbr-64"),
        figure: Figure::NsPerDeliveredFrame,
        target: "<= 2",
    },
    BenchRatio {
        name: "HPCC vs DCQCN on the HPCC paper's fabric, frame-hops/s",
        cases: ("fattree-hpcc320-hpcc", "fattree-hpcc320"),
        figure: Figure::FrameHopsPerS,
        target: ">= 0.80",
    },
    BenchRatio {
        name: "4096 vs 64 senders, wall ns per delivered frame",
        cases: ("dumbbell-cbr-4096", "dumbbell-cbr-64"),
        figure: Figure::NsPerDeliveredFrame,
        target: "<= 2",
    },
    BenchRatio {
        name: "ECM vs none on the 802.1au baseline, bottleneck frames/s",
        cases: ("8021au-baseline-ecm", "8021au-baseline"),
        figure: Figure::BottleneckFramesPerS,
        target: ">= 0.75",
    },
    BenchRatio {
        name: "FECN vs none on the 802.1au baseline, bottleneck frames/s",
        cases: ("8021au-baseline-fecn", "8021au-baseline"),
        figure: Figure::BottleneckFramesPerS,
        target: ">= 0.75",
    },
    BenchRatio {
        name: "FECN-B vs none on the 802.1au baseline, bottleneck frames/s",
        cases: ("8021au-baseline-fecn-b", "8021au-baseline"),
        figure: Figure::BottleneckFramesPerS,
        target: ">= 0.75",
    },
    BenchRatio {
        name: "E2CM-PR vs none on the 802.1au baseline, bottleneck frames/s",
        cases: ("8021au-baseline-e2cm-pr", "8021au-baseline"),
        figure: Figure::BottleneckFramesPerS,
        target: ">= 0.75",
    },
    BenchRatio {
        name: "QCN (Roeck 2007) vs none on the 802.1au baseline, bottleneck frames/s",
        cases: ("8021au-baseline-qcn", "8021au-baseline"),
        figure: Figure::BottleneckFramesPerS,
        target: ">= 0.75",
    },
    BenchRatio {
        name: "QCN-PR vs none on the 802.1au baseline, bottleneck frames/s",
        cases: ("8021au-baseline-qcn-pr", "8021au-baseline"),
        figure: Figure::BottleneckFramesPerS,
        target: ">= 0.75",
    },
];

/// A case the htsim dumbbell driver runs too (`htsim_dumbbell`, beside the project in
/// `peers/htsim`: Broadcom's csg-htsim on the same dumbbell): its arguments for the same
/// scenario, and the goal for cnsim's CPU time over htsim's.
pub struct HtsimPeer {
    /// The case.
    pub case: &'static str,
    /// The driver's arguments.
    pub args: &'static [&'static str],
    /// The goal, as a ratio cnsim / htsim.
    pub target: &'static str,
}

/// The cases with an htsim twin.
pub const HTSIM_PEERS: &[HtsimPeer] = &[
    HtsimPeer { case: "dumbbell-cbr-64", args: &[], target: "<= 0.333" },
    HtsimPeer { case: "dumbbell-qcn-64", args: &["-qcn"], target: "<= 0.333" },
    HtsimPeer { case: "dumbbell-tcp-64", args: &["-tcp"], target: "<= 0.400" },
    HtsimPeer {
        case: "dumbbell-cbr-4096",
        args: &["-senders", "4096", "-rate", "2685547", "-start_window_us", "4468", "-duration", "1"],
        target: "<= 0.333",
    },
];

/// CPU seconds (user and system) this process, or its finished children, have used.
fn cpu_seconds(who: libc::c_int) -> f64 {
    let mut u: libc::rusage = unsafe { std::mem::zeroed() };
    // SAFETY: getrusage writes only into the struct it is given.
    if unsafe { libc::getrusage(who, &mut u) } != 0 {
        return f64::NAN;
    }
    let s = |t: libc::timeval| t.tv_sec as f64 + t.tv_usec as f64 / 1e6;
    s(u.ru_utime) + s(u.ru_stime)
}

/// CPU seconds of one run of the htsim driver at `driver` with `args`.
fn htsim_cpu_s(driver: &std::path::Path, args: &[&str]) -> Result<f64, String> {
    let before = cpu_seconds(libc::RUSAGE_CHILDREN);
    let status = std::process::Command::new(driver)
        .args(args)
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .status()
        .map_err(|e| format!("HTSIM={}: cannot start it ({e})", driver.display()))?;
    if !status.success() {
        return Err(format!(
            "HTSIM={}: {} {} ended with {status}",
            driver.display(),
            driver.display(),
            args.join(" ")
        ));
    }
    Ok(cpu_seconds(libc::RUSAGE_CHILDREN) - before)
}

/// Median figures of one benchmark.
#[derive(Clone, Debug, Serialize)]
pub struct BenchResult {
    /// Scenario name.
    pub scenario: String,
    /// Median wall time, s.
    pub wall_s: f64,
    /// Median events per wall-second.
    pub events_per_s: f64,
    /// Median frame-hops per wall-second.
    pub frame_hops_per_s: f64,
    /// Median frames sent on the bottleneck port per wall-second.
    pub bottleneck_frames_per_s: f64,
    /// Median wall nanoseconds per frame delivered to a host.
    pub ns_per_delivered_frame: f64,
    /// Fastest and slowest run of the bottleneck figure.
    #[serde(skip)]
    pub bottleneck_min_max: (f64, f64),
    /// Runs measured.
    #[serde(skip)]
    pub runs: usize,
}

/// The median, over rounds, of a ratio between two benchmarks.
#[derive(Clone, Debug, Serialize)]
pub struct RatioResult {
    /// What it compares.
    pub name: String,
    /// Median of the per-round ratios.
    pub median: f64,
    /// Smallest per-round ratio.
    pub min: f64,
    /// Largest per-round ratio.
    pub max: f64,
    /// The target.
    pub target: String,
}

/// Everything one `cnsim bench` measured.
#[derive(Clone, Debug, Serialize)]
pub struct BenchReport {
    /// One entry per scenario, in the order run.
    pub cases: Vec<BenchResult>,
    /// The ratios whose two scenarios were both run.
    pub ratios: Vec<RatioResult>,
}

/// One finished benchmark run, for progress reports.
#[derive(Clone, Debug)]
pub struct BenchProgress<'a> {
    /// Round, from 0 (the warm-up, when there is one).
    pub round: usize,
    /// Rounds in all, the warm-up included.
    pub rounds: usize,
    /// Whether this round is the uncounted warm-up.
    pub warmup: bool,
    /// The case (and the engine, when not the sequential one).
    pub scenario: &'a str,
    /// Its wall time, s.
    pub wall_s: f64,
}

/// The figures of one timed run.
#[derive(Clone, Copy)]
struct Run {
    wall_s: f64,
    events_per_s: f64,
    frame_hops_per_s: f64,
    bottleneck_frames_per_s: f64,
    ns_per_delivered_frame: f64,
}

impl Run {
    fn figure(&self, f: Figure) -> f64 {
        match f {
            Figure::BottleneckFramesPerS => self.bottleneck_frames_per_s,
            Figure::NsPerDeliveredFrame => self.ns_per_delivered_frame,
            Figure::FrameHopsPerS => self.frame_hops_per_s,
        }
    }
}

fn median(mut v: Vec<f64>) -> f64 {
    v.sort_by(f64::total_cmp);
    let n = v.len();
    if n == 0 {
        return f64::NAN;
    }
    if n % 2 == 1 {
        v[n / 2]
    } else {
        (v[n / 2 - 1] + v[n / 2]) / 2.0
    }
}

/// Runs `cases` in `runs` interleaved rounds (after one untimed warm-up round when
/// `warmup`) and reports medians and the ratios of [`RATIOS`] whose scenarios were run.
/// `overrides` are `--set` assignments (e.g. a shorter duration). With `htsim`, the
/// path of the htsim dumbbell driver, and no overrides, each case of [`HTSIM_PEERS`] is
/// followed in every round by a run of the driver on the same scenario, and the median
/// of the rounds' ratios of CPU seconds (the simulation in this process against the
/// driver's whole process) is reported with the ratios.
///
/// Every case is timed on each engine of `engines` in turn: the sequential one
/// (`None`, also when `engines` is empty) or the partitioned one on that many threads.
/// Each case and engine is a row ("case" or "case on N threads"); with 1 thread among
/// the engines, each other thread count's speed-up over it is a ratio. The htsim
/// driver runs beside the sequential rows only.
pub fn run_cases(
    cases: &[&BenchCase],
    engines: &[Option<u32>],
    runs: usize,
    warmup: bool,
    overrides: &[String],
    htsim: Option<&std::path::Path>,
    progress: &mut dyn FnMut(&BenchProgress),
) -> Result<BenchReport, String> {
    let engines = if engines.is_empty() { &[None][..] } else { engines };
    let rows: Vec<(&BenchCase, Option<u32>)> =
        cases.iter().flat_map(|&c| engines.iter().map(move |&e| (c, e))).collect();
    let row_name = |(case, engine): &(&BenchCase, Option<u32>)| match engine {
        None => case.name.to_string(),
        Some(n) => format!("{} on {n} thread{}", case.name, if *n == 1 { "" } else { "s" }),
    };
    let htsim = htsim.filter(|_| overrides.is_empty());
    if let Some(d) = htsim.filter(|d| !d.is_file()) {
        return Err(format!(
            "HTSIM={}: no such file; expected the htsim dumbbell driver (htsim_dumbbell)",
            d.display()
        ));
    }
    let peer = |case: &BenchCase| HTSIM_PEERS.iter().find(|p| p.case == case.name);
    let mut against_htsim: Vec<Vec<f64>> = vec![Vec::new(); rows.len()];
    let scenarios = rows
        .iter()
        .map(|(case, _)| {
            let text = bundled::get(case.scenario)
                .ok_or_else(|| format!("no bundled scenario {}", case.scenario))?;
            let mut all: Vec<String> = case.settings.iter().map(|s| s.to_string()).collect();
            all.extend(overrides.iter().cloned());
            parse(text, case.scenario, &all).map_err(|e| e.to_string())
        })
        .collect::<Result<Vec<_>, _>>()?;
    let names: Vec<String> = rows.iter().map(row_name).collect();
    let mut timed: Vec<Vec<Run>> = vec![Vec::new(); rows.len()];
    for round in 0..runs + warmup as usize {
        for (i, ((case, engine), s)) in rows.iter().zip(&scenarios).enumerate() {
            let cpu = cpu_seconds(libc::RUSAGE_SELF);
            let run = run_once(case, *engine, s)?;
            let cpu = cpu_seconds(libc::RUSAGE_SELF) - cpu;
            if let (Some(driver), Some(p), None) = (htsim, peer(case), engine) {
                let theirs = htsim_cpu_s(driver, p.args)?;
                if !(warmup && round == 0) {
                    against_htsim[i].push(cpu / theirs);
                }
            }
            progress(&BenchProgress {
                round,
                rounds: runs + warmup as usize,
                warmup: warmup && round == 0,
                scenario: &names[i],
                wall_s: run.wall_s,
            });
            if !(warmup && round == 0) {
                timed[i].push(run);
            }
        }
    }
    let results = names.iter().zip(&timed).map(|(name, runs)| summarize(name, runs)).collect();
    let ratios = RATIOS
        .iter()
        .filter_map(|r| {
            let at = |name| rows.iter().position(|(c, e)| c.name == name && e.is_none());
            let (a, b) = (at(r.cases.0)?, at(r.cases.1)?);
            let per_round: Vec<f64> = timed[a]
                .iter()
                .zip(&timed[b])
                .map(|(x, y)| x.figure(r.figure) / y.figure(r.figure))
                .collect();
            Some(RatioResult {
                name: r.name.to_string(),
                min: per_round.iter().copied().fold(f64::INFINITY, f64::min),
                max: per_round.iter().copied().fold(f64::NEG_INFINITY, f64::max),
                median: median(per_round),
                target: r.target.to_string(),
            })
        })
        .collect::<Vec<_>>();
    let mut ratios = ratios;
    // Speed-ups of the partitioned engine over its own single thread, round by round.
    for (i, (case, engine)) in rows.iter().enumerate() {
        let one = rows.iter().position(|(c, e)| c.name == case.name && *e == Some(1));
        if let (Some(n), Some(one)) = (engine.filter(|&n| n > 1), one) {
            let per_round: Vec<f64> =
                timed[one].iter().zip(&timed[i]).map(|(a, b)| a.wall_s / b.wall_s).collect();
            ratios.push(RatioResult {
                name: format!("{}: speed-up on {n} threads over 1, wall s", case.name),
                min: per_round.iter().copied().fold(f64::INFINITY, f64::min),
                max: per_round.iter().copied().fold(f64::NEG_INFINITY, f64::max),
                median: median(per_round),
                target: "see cnsim parallelism".to_string(),
            });
        }
    }
    for ((case, _), per_round) in rows.iter().zip(against_htsim) {
        if let (false, Some(p)) = (per_round.is_empty(), peer(case)) {
            ratios.push(RatioResult {
                name: format!("cnsim vs htsim, CPU s, {}", case.name),
                min: per_round.iter().copied().fold(f64::INFINITY, f64::min),
                max: per_round.iter().copied().fold(f64::NEG_INFINITY, f64::max),
                median: median(per_round),
                target: p.target.to_string(),
            });
        }
    }
    Ok(BenchReport { cases: results, ratios })
}

/// One timed run of `case` on `engine` (see [`run_cases`]).
fn run_once(case: &BenchCase, engine: Option<u32>, s: &crate::scenario::Scenario) -> Result<Run, String> {
    let limits = crate::scenario::Limits::machine_default();
    let done =
        crate::run::simulate_on(s, case.name, &limits, engine, &mut |_| true).map_err(|e| e.to_string())?;
    let sim = &done.sim;
    let p = sim
        .net()
        .port_by_name(case.bottleneck)
        .ok_or_else(|| format!("{}: no port {}", case.name, case.bottleneck))?;
    let frames = sim.queue_stats(p).map(|s| s.sent_frames).sum::<u64>() as f64;
    let t = done.timing();
    let wall = t.wall_s.max(1e-9);
    Ok(Run {
        wall_s: t.wall_s,
        events_per_s: t.events_per_s,
        frame_hops_per_s: t.frame_hops_per_s,
        bottleneck_frames_per_s: frames / wall,
        ns_per_delivered_frame: wall * 1e9 / (sim.counters().delivered.max(1) as f64),
    })
}

fn summarize(name: &str, runs: &[Run]) -> BenchResult {
    let of = |f: fn(&Run) -> f64| runs.iter().map(f).collect::<Vec<_>>();
    let bps = of(|r| r.bottleneck_frames_per_s);
    BenchResult {
        scenario: name.to_string(),
        wall_s: median(of(|r| r.wall_s)),
        events_per_s: median(of(|r| r.events_per_s)),
        frame_hops_per_s: median(of(|r| r.frame_hops_per_s)),
        ns_per_delivered_frame: median(of(|r| r.ns_per_delivered_frame)),
        bottleneck_min_max: (
            bps.iter().copied().fold(f64::MAX, f64::min),
            bps.iter().copied().fold(0.0, f64::max),
        ),
        bottleneck_frames_per_s: median(bps),
        runs: runs.len(),
    }
}
