//! Running a scenario into a run directory.
//!
//! A run directory holds: `scenario.toml` (the fully resolved scenario, every default
//! filled in), `summary.json` (deterministic counters), `timing.json` (wall-clock
//! figures, the one file that differs between identical runs), the time series as
//! Parquet (and CSV on request), and `plots/*.svg`. It is written into a temporary
//! sibling directory and renamed into place only when complete, so an interrupted or
//! failed run never leaves a directory that looks finished.

use std::fmt;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use serde::Serialize;

use crate::metrics::output::{write_csv, write_json, write_parquet};
use crate::metrics::summary::Summary;
use crate::metrics::TimeSeries;
use crate::report::plot::plot_time_series;
use crate::scenario::{build, Scenario, ScenarioError};
use crate::sim::{Progress, Sim};

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
}

impl fmt::Display for RunError {
    fn fmt(&self, f: &mut fmt::Formatter) -> fmt::Result {
        match self {
            RunError::Scenario(e) => write!(f, "{e}"),
            RunError::Interrupted => write!(f, "interrupted; no results were written"),
            RunError::Conservation(m) => write!(f, "internal error: {m}"),
            RunError::Output(m) => write!(f, "cannot write results: {m}"),
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
    pub frame_hops_per_s: f64,
}

/// A finished simulation.
pub struct Finished {
    /// The simulator in its final state.
    pub sim: Sim,
    /// Wall time of build + run.
    pub wall: Duration,
}

impl Finished {
    /// Wall-clock figures.
    pub fn timing(&self) -> Timing {
        let s = self.wall.as_secs_f64().max(1e-9);
        Timing {
            wall_s: self.wall.as_secs_f64(),
            events_per_s: self.sim.counters.events as f64 / s,
            frame_hops_per_s: self.sim.counters.frame_hops as f64 / s,
        }
    }
}

/// Builds and runs scenario `s`, then checks frame conservation.
pub fn simulate(
    s: &Scenario,
    file: &str,
    on_progress: &mut dyn FnMut(&Progress) -> bool,
) -> Result<Finished, RunError> {
    let t0 = Instant::now();
    let mut sim = build(s, file)?;
    sim.run(on_progress).map_err(|_| RunError::Interrupted)?;
    let wall = t0.elapsed();
    sim.check_conservation().map_err(RunError::Conservation)?;
    Ok(Finished { sim, wall })
}

/// Removes a temporary directory unless disarmed.
struct TempDir(Option<PathBuf>);

impl Drop for TempDir {
    fn drop(&mut self) {
        if let Some(p) = self.0.take() {
            let _ = std::fs::remove_dir_all(p);
        }
    }
}

/// Checks that `dir` can be written (absent, or `force`), before any work is done.
pub fn check_output_dir(dir: &Path, force: bool) -> Result<(), RunError> {
    if dir.exists() && !force {
        return Err(RunError::Output(format!(
            "{} already exists; choose another --out or pass --force to replace it",
            dir.display()
        )));
    }
    Ok(())
}

/// Writes the files of `table` (Parquet/CSV/SVG as the scenario asks) into `dir`.
fn write_table(s: &Scenario, table: &TimeSeries, dir: &Path, scale: f64, unit: &str) -> Result<(), String> {
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
        plot_time_series(table, &dir.join("plots").join(format!("{}.svg", table.name)), scale, unit)?;
    }
    Ok(())
}

/// Creates directory `dir` atomically: `fill` writes into a temporary sibling, which is
/// renamed to `dir` only if `fill` succeeds (an existing `dir` is replaced only with
/// `force`). On failure nothing is left behind.
pub fn write_dir_atomically(
    dir: &Path,
    force: bool,
    fill: impl FnOnce(&Path) -> Result<(), String>,
) -> Result<(), RunError> {
    check_output_dir(dir, force)?;
    let out = RunError::Output;
    let parent = dir.parent().filter(|p| !p.as_os_str().is_empty()).unwrap_or(Path::new("."));
    std::fs::create_dir_all(parent).map_err(|e| out(format!("{}: {e}", parent.display())))?;
    let leaf = dir.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_else(|| "run".into());
    let tmp_path = parent.join(format!(".{leaf}.tmp-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&tmp_path);
    std::fs::create_dir_all(&tmp_path).map_err(|e| out(format!("{}: {e}", tmp_path.display())))?;
    let mut tmp = TempDir(Some(tmp_path.clone()));
    fill(&tmp_path).map_err(out)?;
    if dir.exists() {
        std::fs::remove_dir_all(dir).map_err(|e| out(format!("{}: {e}", dir.display())))?;
    }
    std::fs::rename(&tmp_path, dir).map_err(|e| out(format!("{}: {e}", dir.display())))?;
    tmp.0 = None;
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

/// Writes every output of a finished run into `dir`, atomically.
pub fn write_run_dir(s: &Scenario, done: &Finished, dir: &Path, force: bool) -> Result<(), RunError> {
    write_dir_atomically(dir, force, |tmp| {
        std::fs::create_dir_all(tmp.join("plots")).map_err(|e| format!("{}: {e}", tmp.display()))?;
        std::fs::write(tmp.join("scenario.toml"), resolved_scenario_text(s)?)
            .map_err(|e| format!("scenario.toml: {e}"))?;
        let summary = Summary::of(&done.sim, &s.name, s.seed);
        write_json(&summary, &tmp.join("summary.json"))?;
        write_json(&done.timing(), &tmp.join("timing.json"))?;
        let r = &done.sim.recorder;
        write_table(s, &r.queues, tmp, 1.0, "frames")?;
        write_table(s, &r.throughput, tmp, 1e6, "Mbit/s")?;
        write_table(s, &r.rates, tmp, 1e6, "Mbit/s")?;
        write_table(s, &r.cnms, tmp, 1.0, "CNMs per interval")?;
        Ok(())
    })
}
