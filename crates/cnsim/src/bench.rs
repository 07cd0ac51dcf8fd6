//! Speed measurements on fixed scenarios: wall time, events/s, frame-hops/s and frames
//! through the bottleneck per wall-second, median of several runs.

use serde::Serialize;

use crate::scenario::{bundled, parse};

/// A benchmark: a bundled scenario and the port whose sent frames count as "bottleneck
/// frames".
pub struct BenchCase {
    /// Bundled scenario name.
    pub scenario: &'static str,
    /// Bottleneck port.
    pub bottleneck: &'static str,
}

/// The fixed benchmark set.
pub const CASES: &[BenchCase] = &[
    BenchCase { scenario: "dumbbell-cbr-64", bottleneck: "r1->r2" },
    BenchCase { scenario: "dumbbell-qcn-64", bottleneck: "r1->r2" },
    BenchCase { scenario: "chain-10x3", bottleneck: "sw9->sw10" },
    BenchCase { scenario: "dumbbell-cbr-4096", bottleneck: "r1->r2" },
];

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
    /// Fastest and slowest run of the bottleneck figure.
    #[serde(skip)]
    pub bottleneck_min_max: (f64, f64),
    /// Runs measured.
    #[serde(skip)]
    pub runs: usize,
}

fn median(mut v: Vec<f64>) -> f64 {
    v.sort_by(f64::total_cmp);
    let n = v.len();
    if n % 2 == 1 {
        v[n / 2]
    } else {
        (v[n / 2 - 1] + v[n / 2]) / 2.0
    }
}

/// Runs `case` `runs` times (plus one untimed warm-up when `warmup`) and reports medians.
/// `overrides` are `--set` assignments (e.g. a shorter duration).
pub fn run_case(
    case: &BenchCase,
    runs: usize,
    warmup: bool,
    overrides: &[String],
) -> Result<BenchResult, String> {
    let text = bundled::get(case.scenario).ok_or_else(|| format!("no bundled scenario {}", case.scenario))?;
    let s = parse(text, case.scenario, overrides).map_err(|e| e.to_string())?;
    let mut walls = Vec::new();
    let mut eps = Vec::new();
    let mut hps = Vec::new();
    let mut bps = Vec::new();
    for i in 0..runs + warmup as usize {
        let done = crate::run::simulate(&s, case.scenario, &mut |_| true).map_err(|e| e.to_string())?;
        if warmup && i == 0 {
            continue;
        }
        let sim = &done.sim;
        let p = sim
            .net()
            .port_by_name(case.bottleneck)
            .ok_or_else(|| format!("{}: no port {}", case.scenario, case.bottleneck))?;
        let frames = sim.queue_stats(p).map(|s| s.sent_frames).sum::<u64>() as f64;
        let t = done.timing();
        walls.push(t.wall_s);
        eps.push(t.events_per_s);
        hps.push(t.frame_hops_per_s);
        bps.push(frames / t.wall_s.max(1e-9));
    }
    let min = bps.iter().copied().fold(f64::MAX, f64::min);
    let max = bps.iter().copied().fold(0.0, f64::max);
    Ok(BenchResult {
        scenario: case.scenario.to_string(),
        wall_s: median(walls),
        events_per_s: median(eps),
        frame_hops_per_s: median(hps),
        bottleneck_frames_per_s: median(bps),
        bottleneck_min_max: (min, max),
        runs,
    })
}
