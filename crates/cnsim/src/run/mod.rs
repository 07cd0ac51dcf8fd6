//! Running a scenario into a run directory.
//!
//! A run directory holds: `scenario.toml` (the fully resolved scenario, every default
//! filled in), `summary.json` (deterministic counters), `timing.json` (wall-clock
//! figures, the one file that differs between identical runs), the time series as
//! Parquet (and CSV on request), and `plots/*.svg`. It is written into a temporary
//! sibling directory and renamed into place only when complete, so an interrupted or
//! failed run never leaves a directory that looks finished; [`outdir`] says what may be
//! replaced.

pub mod outdir;

use std::fmt;
use std::path::Path;
use std::time::{Duration, Instant};

use serde::Serialize;

use crate::metrics::output::{write_csv, write_json, write_parquet};
use crate::metrics::summary::{FlowRecords, Summary};
use crate::metrics::TimeSeries;
use crate::report::plot::{line_chart, plot_time_series, ChartStyle, Line, Role, Step};
use crate::scenario::{build_partitioned, build_unstarted, BuildError, Limits, Scenario, ScenarioError};
use crate::sim::{Halt, Progress, Sim};
pub use outdir::StagedDir;

/// Why a run did not produce results.
#[derive(Debug)]
pub enum RunError {
    /// The scenario is invalid.
    Scenario(ScenarioError),
    /// Stopped by the user.
    Interrupted,
    /// Frame conservation failed: a simulator bug.
    Conservation(String),
    /// Results could not be written.
    Output(String),
    /// The run needed more memory than allowed.
    Resources(String),
}

impl fmt::Display for RunError {
    fn fmt(&self, f: &mut fmt::Formatter) -> fmt::Result {
        match self {
            RunError::Scenario(e) => write!(f, "{e}"),
            RunError::Interrupted => write!(f, "interrupted; no results were written"),
            RunError::Conservation(m) => write!(f, "internal error: {m}"),
            RunError::Output(m) => write!(f, "cannot write results: {m}"),
            RunError::Resources(m) => write!(f, "{m}"),
        }
    }
}

impl std::error::Error for RunError {}

impl From<ScenarioError> for RunError {
    fn from(e: ScenarioError) -> Self {
        RunError::Scenario(e)
    }
}

/// Wall-clock figures of a run.
#[derive(Clone, Debug, Serialize)]
pub struct Timing {
    /// Wall time of the simulation (building and running, not writing), s.
    pub wall_s: f64,
    /// Events per wall-second.
    pub events_per_s: f64,
    /// Frame-hops per wall-second.
    pub(crate) frame_hops_per_s: f64,
}

/// A finished simulation.
pub struct Finished {
    /// The simulator in its final state, for the reports: its event queue is released
    /// (see `Sim::release_events`), so it cannot run on. Boxed: a simulator is about
    /// 19 KB, and each move of it by value took that much more stack.
    pub sim: Box<Sim>,
    /// Wall time of build + run.
    pub wall: Duration,
    /// Each flow's max-min fair rate ([`crate::metrics::maxmin::of_sim`]), indexed like
    /// the simulator's flows.
    pub fair: Vec<Option<f64>>,
}

impl Finished {
    /// Wall-clock figures.
    pub fn timing(&self) -> Timing {
        let s = self.wall.as_secs_f64().max(1e-9);
        Timing {
            wall_s: self.wall.as_secs_f64(),
            events_per_s: self.sim.counters().events as f64 / s,
            frame_hops_per_s: self.sim.counters().frame_hops as f64 / s,
        }
    }
}

/// Builds and runs scenario `s` within the default [`Limits`], then checks frame
/// conservation.
pub fn simulate(
    s: &Scenario,
    file: &str,
    on_progress: &mut dyn FnMut(&Progress) -> bool,
) -> Result<Finished, RunError> {
    simulate_with(s, file, &Limits::machine_default(), on_progress)
}

/// Builds and runs scenario `s` within `limits`, then checks frame conservation.
/// `on_progress` is called while building too (at simulated time 0), so that returning
/// false stops either phase.
pub fn simulate_with(
    s: &Scenario,
    file: &str,
    limits: &Limits,
    on_progress: &mut dyn FnMut(&Progress) -> bool,
) -> Result<Finished, RunError> {
    simulate_on(s, file, limits, None, on_progress)
}

/// [`simulate_with`] on the sequential engine (`threads` `None`) or partitioned on
/// `threads` threads (see [`crate::sim::partition`]; 0: as many as pay on this
/// machine), whose results are the same for any number of threads, 1 included.
pub fn simulate_on(
    s: &Scenario,
    file: &str,
    limits: &Limits,
    threads: Option<u32>,
    on_progress: &mut dyn FnMut(&Progress) -> bool,
) -> Result<Finished, RunError> {
    let t0 = Instant::now();
    let building = Progress { now: 0, end: s.duration.0, events: 0 };
    let invalid = |e| match e {
        BuildError::Invalid(e) => RunError::Scenario(e),
        BuildError::Interrupted => RunError::Interrupted,
    };
    // The fair shares depend on the flows present from the start (workload flows, which
    // arrive later, have none), their routes, their offered loads and the end time, none
    // of which a run changes. On one thread they are worked out before the run, in
    // memory that the run then reuses, rather than on top of all that a finished run
    // holds (at 4096 flows the computation takes about 0.4 MB). Their time is left
    // out of `wall`.
    let mut fair_time = Duration::ZERO;
    let (ran, fair) = match threads {
        None => {
            let mut sim = build_boxed(s, file, limits, &mut || on_progress(&building)).map_err(invalid)?;
            let t = Instant::now();
            let fair = crate::metrics::maxmin::of_sim(&sim);
            fair_time = t.elapsed();
            (sim.run(on_progress).map(|()| sim), Some(fair))
        }
        Some(n) => {
            let (replicas, lookahead) =
                build_partitioned(s, file, limits, n, &mut || on_progress(&building)).map_err(invalid)?;
            (run_partitioned_boxed(replicas, lookahead, on_progress), None)
        }
    };
    let mut sim = ran.map_err(|h| match h {
        Halt::Interrupted => RunError::Interrupted,
        Halt::TooManyFrames { live, limit, at } => RunError::Resources(format!(
            "{file}: stopped at {} s simulated: {live} frames held at once (in queues, limiters \
             and on links), more than the {limit} the memory limit leaves room for; expected \
             smaller queue capacities (queues.capacity, source_queue), lower offered load, or \
             a higher --max-memory",
            crate::engine::time::as_secs(at)
        )),
        Halt::TooManyFlows { limit, at } => RunError::Resources(format!(
            "{file}: stopped at {} s simulated: a workload flow arrived while {limit} were active, \
             the most the memory limit leaves room for; expected a lower load, fewer hosts or a \
             higher --max-memory",
            crate::engine::time::as_secs(at)
        )),
    })?;
    let wall = t0.elapsed().saturating_sub(fair_time);
    sim.check_conservation().map_err(RunError::Conservation)?;
    sim.release_events();
    let fair = match fair {
        Some(mut fair) => {
            fair.resize(sim.flows().len(), None);
            fair
        }
        None => crate::metrics::maxmin::of_sim(&sim),
    };
    Ok(Finished { sim, wall, fair })
}

/// [`build_until`], boxed. Out of line, as is the partitioned run below, so that the
/// simulators they hold by value on their way (about 19 KB each) take stack only while
/// they are made, not under the whole run. The simulator is boxed as soon as it is made
/// and started in its box: started by value first, as `build_until` does, it passed
/// through more copies of itself on the stack (the frame took 76 KB).
#[inline(never)]
fn build_boxed(
    s: &Scenario,
    file: &str,
    limits: &Limits,
    keep_going: &mut dyn FnMut() -> bool,
) -> Result<Box<Sim>, BuildError> {
    let mut sim = build_unstarted(s, file, limits, keep_going)?;
    sim.start();
    Ok(sim)
}

/// [`crate::sim::partition::run_partitioned`], boxed (see [`build_boxed`]).
#[inline(never)]
fn run_partitioned_boxed(
    replicas: Vec<Sim>,
    lookahead: crate::engine::Time,
    on_progress: &mut dyn FnMut(&Progress) -> bool,
) -> Result<Box<Sim>, Halt> {
    crate::sim::partition::run_partitioned(replicas, lookahead, on_progress).map(Box::new)
}

/// Writes the files of `table` (Parquet/CSV/SVG as the scenario asks) into `dir`.
fn write_table(
    s: &Scenario,
    table: &TimeSeries,
    dir: &Path,
    scale: f64,
    unit: &str,
    style: ChartStyle,
) -> Result<(), String> {
    if table.is_empty() {
        return Ok(());
    }
    if s.metrics.parquet {
        write_parquet(table, &dir.join(format!("{}.parquet", table.name)))?;
    }
    if s.metrics.csv {
        write_csv(table, &dir.join(format!("{}.csv", table.name)))?;
    }
    if s.metrics.plots {
        let context = format!("{}, seed {}", s.name, s.seed);
        let path = dir.join("plots").join(format!("{}.svg", table.name));
        plot_time_series(table, &path, scale, unit, &context, style)?;
        if s.metrics.png {
            write_png_beside(&path)?;
        }
    }
    Ok(())
}

/// The resolved scenario as TOML, with a header saying what it is.
pub fn resolved_scenario_text(s: &Scenario) -> Result<String, String> {
    let resolved = toml::to_string_pretty(s).map_err(|e| format!("resolved scenario: {e}"))?;
    Ok(format!(
        "# The fully resolved scenario this run used: every default filled in.\n# cnsim {}\n{resolved}",
        crate::VERSION
    ))
}

/// Writes every output of a finished run into the (empty, staged) directory `dir`,
/// checking `interrupted()` between files.
pub fn write_run_files(
    s: &Scenario,
    done: &Finished,
    dir: &Path,
    interrupted: &dyn Fn() -> bool,
) -> Result<(), RunError> {
    let check = || if interrupted() { Err(RunError::Interrupted) } else { Ok(()) };
    let out = RunError::Output;
    std::fs::create_dir_all(dir.join("plots")).map_err(|e| out(format!("{}: {e}", dir.display())))?;
    std::fs::write(dir.join("scenario.toml"), resolved_scenario_text(s).map_err(out)?)
        .map_err(|e| out(format!("scenario.toml: {e}")))?;
    let summary = Summary::of_run(&done.sim, &done.fair, s);
    write_json(&summary, &dir.join("summary.json")).map_err(out)?;
    write_json(&done.timing(), &dir.join("timing.json")).map_err(out)?;
    if let Some(trace) = done.sim.recorder().trace.as_deref() {
        std::fs::write(dir.join("trace.pcapng"), trace.bytes())
            .map_err(|e| out(format!("trace.pcapng: {e}")))?;
    }
    let r = done.sim.recorder();
    let bin = s.metrics.interval;
    let per_bin = |what: &str| format!("{what} per {bin} interval");
    let lowest = |step| ChartStyle { step, worst_is_lowest: true };
    for (table, scale, unit, style) in [
        (
            &r.queues,
            1.0,
            "frames waiting".to_string(),
            ChartStyle { step: Step::None, worst_is_lowest: false },
        ),
        (
            &r.avg_queues,
            1.0,
            "average queue (the discipline's unit)".to_string(),
            ChartStyle { step: Step::None, worst_is_lowest: false },
        ),
        (&r.max_ps, 1.0, "max_p".to_string(), ChartStyle { step: Step::None, worst_is_lowest: false }),
        (
            &r.utilisation,
            1.0,
            format!("fraction of the link (each {bin} interval)"),
            ChartStyle { step: Step::Before, worst_is_lowest: false },
        ),
        (&r.throughput, 1e6, format!("Mbit/s (mean over each {bin} interval)"), lowest(Step::Before)),
        (&r.rates, 1e6, "rate CR (Mbit/s)".to_string(), lowest(Step::After)),
        (&r.cnms, 1.0, per_bin("CNMs"), ChartStyle { step: Step::Before, worst_is_lowest: false }),
    ] {
        check()?;
        write_table(s, table, dir, scale, &unit, style).map_err(out)?;
    }
    if s.metrics.plots {
        write_fair_share_plot(s, summary.flows, dir).map_err(out)?;
    }
    let fct = crate::metrics::fct::rows(&done.sim);
    if let (true, Some(f)) = (s.metrics.plots, &summary.fct) {
        check()?;
        write_slowdown_plot(s, f, dir).map_err(out)?;
    }
    if !fct.is_empty() {
        check()?;
        crate::metrics::output::write_fct_csv(&fct, &dir.join("fct.csv")).map_err(out)?;
        if s.metrics.parquet {
            crate::metrics::output::write_fct_parquet(&fct, &dir.join("fct.parquet")).map_err(out)?;
        }
    }
    check()
}

/// The workload flows' slowdowns against flow size: p50, p95 and p99 of each size group
/// (x: the group's upper size percentile), on a log axis, as the HPCC paper draws them.
fn write_slowdown_plot(s: &Scenario, f: &crate::metrics::fct::FctSummary, dir: &Path) -> Result<(), String> {
    if f.by_size.is_empty() {
        return Ok(());
    }
    let xs: Vec<f64> = f.by_size.iter().map(|b| b.size_percentile * 100.0).collect();
    let p50: Vec<f64> = f.by_size.iter().map(|b| b.slowdown.p50).collect();
    let p95: Vec<f64> = f.by_size.iter().map(|b| b.slowdown.p95).collect();
    let p99: Vec<f64> = f.by_size.iter().map(|b| b.slowdown.p99).collect();
    let lines = [
        Line { label: "p50", xs: &xs, ys: &p50, role: Role::Data },
        Line { label: "p95", xs: &xs, ys: &p95, role: Role::Data },
        Line { label: "p99", xs: &xs, ys: &p99, role: Role::Data },
    ];
    let largest = f.by_size.last().map_or(0, |b| b.max_bytes);
    let path = dir.join("plots").join("fct_slowdown.svg");
    let title = format!(
        "FCT slowdown by flow size — {}, seed {} ({} flows, largest {largest} B)",
        s.name, s.seed, f.completed
    );
    crate::report::plot::line_chart_log(
        &path,
        &title,
        "flow size percentile (%)",
        "slowdown (FCT / ideal)",
        &lines,
        ChartStyle { step: Step::None, worst_is_lowest: false },
    )?;
    if s.metrics.png {
        write_png_beside(&path)?;
    }
    Ok(())
}

/// Renders the plot in the SVG file `path` as a PNG beside it (`metrics.png`).
fn write_png_beside(path: &Path) -> Result<(), String> {
    let svg = std::fs::read_to_string(path).map_err(|e| format!("{}: {e}", path.display()))?;
    let png = crate::report::plot::svg_to_png(&svg).map_err(|e| format!("{}: {e}", path.display()))?;
    let png_path = path.with_extension("png");
    std::fs::write(&png_path, png).map_err(|e| format!("{}: {e}", png_path.display()))
}

/// `plots/fair_share.svg`: each unicast flow's throughput over its max-min fair rate,
/// the flows sorted from the worst served, against the line at 1 where every flow gets
/// its fair share: who is starved and by how much, at a glance, whatever the number of
/// flows. Nothing where no flow has a fair rate.
fn write_fair_share_plot(s: &Scenario, flows: FlowRecords, dir: &Path) -> Result<(), String> {
    let mut shares: Vec<f64> = flows.shares().collect();
    if shares.is_empty() {
        return Ok(());
    }
    shares.sort_by(f64::total_cmp);
    let ranks: Vec<f64> = (1..=shares.len()).map(|i| i as f64).collect();
    let fair = vec![1.0; shares.len()];
    let lines = [
        Line { label: "flows, worst served first", xs: &ranks, ys: &shares, role: Role::Data },
        Line { label: "max-min fair share", xs: &ranks, ys: &fair, role: Role::Reference },
    ];
    let title = format!("throughput ÷ max-min fair share, flows sorted — {}, seed {}", s.name, s.seed);
    let path = dir.join("plots").join("fair_share.svg");
    let style = ChartStyle { step: Step::None, worst_is_lowest: true };
    line_chart(&path, &title, "flow (rank)", "throughput ÷ fair share", &lines, style)?;
    if s.metrics.png {
        write_png_beside(&path)?;
    }
    Ok(())
}

/// Writes every output of a finished run into the run directory `dir`, safely (see
/// [`outdir`]): an existing `dir` is replaced only if it is a cnsim result and `force`
/// is given.
pub fn write_run_dir(s: &Scenario, done: &Finished, dir: &Path, force: bool) -> Result<(), RunError> {
    let staged = StagedDir::create(dir, force, outdir::Kind::Run)?;
    write_run_files(s, done, staged.path(), &|| false)?;
    staged.commit(&|| false)
}
