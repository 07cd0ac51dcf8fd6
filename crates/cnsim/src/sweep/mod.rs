//! Sweeps: one scenario run over a grid of key values and seeds, in parallel, resumable.
//!
//! A sweep directory holds:
//! - `sweep.json`: the cnsim version, the scenario, the grid and every planned run;
//! - `runs/<name>/`: one run directory per run (the files of `cnsim run`), named by its
//!   swept values and seed (`runs/qeq=26_frames,seed=1`; see [`run_dir_names`]). A run
//!   is identified by a hash of its resolved scenario (every default filled in, the seed
//!   included), its id, which `sweep.json` records beside its directory's name: rerunning
//!   a sweep runs only the runs whose directory is missing, a finished sweep runs
//!   nothing, and a sweep grown by more values or seeds keeps its runs' names;
//! - `results.parquet`, `results.csv`: one row per run (see [`table`]);
//! - with `summarize`, `results_summary.parquet` and `.csv`: mean, standard deviation and
//!   95 % confidence interval over seeds, per grid point;
//! - `report.html`: the key figures per point with their confidence intervals, and figures.
//!
//! Each run directory is written as `cnsim run` writes one (staged, renamed into place
//! when complete), so an interruption, even a kill, leaves only complete runs. The
//! results table is written last, from the run directories on disk, so a resumed sweep
//! gives the same table as an uninterrupted one.
//!
//! Runs made by another cnsim version are not mixed in: the sweep refuses unless told
//! to allow it (then the table's `cnsim_version` column tells them apart).

pub mod grid;
pub mod pool;
pub mod table;

use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};

use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};

use crate::run::outdir::{is_cnsim_result, write_listed, Kind, Marker, MARKER};
use crate::run::{RunError, StagedDir};
use crate::scenario::{self, Limits, Scenario, ScenarioError};
pub use grid::{Axis, Grid};
use table::{Cell, Table};

/// One run of a sweep.
#[derive(Clone, Debug)]
pub struct PlannedRun {
    /// Identity: the first 16 hex digits of the SHA-256 of the resolved scenario.
    pub id: String,
    /// Directory name under `runs/`, e.g. `qeq=26_frames,seed=1` (see [`run_dir_names`]).
    pub dir: String,
    /// Index of the grid point.
    pub point: usize,
    /// Seed.
    pub seed: u64,
    /// One value per axis (in [`Grid::axes`] order).
    pub values: Vec<toml::Value>,
    /// The resolved scenario.
    pub scenario: Scenario,
}

/// A planned sweep: every run resolved and checked before any is run.
#[derive(Clone, Debug)]
pub struct Plan {
    /// The scenario as named on the command line (errors and records show this).
    pub file: String,
    /// Overrides applied to every run.
    pub overrides: Vec<String>,
    /// The grid.
    pub grid: Grid,
    /// Seeds, in order.
    pub(crate) seeds: Vec<u64>,
    /// Runs, point by point, seeds within a point.
    pub runs: Vec<PlannedRun>,
}

/// What the command line adds to (or replaces in) the scenario file's `[sweep]` table.
#[derive(Clone, Debug, Default)]
pub struct SweepArgs {
    /// Axes given as values (from the Python API), crossed with the rest.
    pub grid_values: Vec<Axis>,
    /// Axes given as values, zipped with the `--zip` ones.
    pub zip_values: Vec<Axis>,
    /// `--grid` axes.
    pub grid: Vec<String>,
    /// `--zip` axes.
    pub zip: Vec<String>,
    /// `--repeat`.
    pub repeat: Option<u64>,
    /// `--seed`: the first seed.
    pub seed: Option<u64>,
}

/// The identity of a resolved scenario: the first 16 hex digits of the SHA-256 of its
/// TOML text.
pub fn run_id(s: &Scenario) -> Result<String, String> {
    let text = toml::to_string_pretty(s).map_err(|e| format!("resolved scenario: {e}"))?;
    let digest = Sha256::digest(text.as_bytes());
    Ok(digest.iter().take(8).map(|b| format!("{b:02x}")).collect())
}

/// Resolves every run of the sweep of `path` (a scenario file or bundled name) under
/// `overrides` and the command-line `args`, checking every one.
pub fn plan(path: &str, overrides: &[String], args: &SweepArgs) -> Result<Plan, ScenarioError> {
    let (doc, file) = scenario::load_document(path)?;
    plan_document(doc, file, overrides, args)
}

/// [`plan`] for a scenario document already read (`file` names it in errors): the
/// document's `[sweep]` table, then `args`, give the grid.
pub fn plan_document(
    mut doc: toml::Value,
    file: String,
    overrides: &[String],
    args: &SweepArgs,
) -> Result<Plan, ScenarioError> {
    let table = doc.as_table_mut().and_then(|t| t.remove(scenario::SWEEP_KEY));
    let mut grid = match &table {
        Some(t) => Grid::from_table(t, &file)?,
        None => Grid { repeat: 1, ..Grid::default() },
    };
    for (texts, flag, zipped) in [(&args.grid, "--grid", false), (&args.zip, "--zip", true)] {
        for text in texts {
            grid.set_axis(grid::parse_axis(text, flag)?, zipped);
        }
    }
    for (axes, zipped) in [(&args.grid_values, false), (&args.zip_values, true)] {
        for axis in axes {
            grid.set_axis(axis.clone(), zipped);
        }
    }
    if let Some(n) = args.repeat {
        if n == 0 || n > grid::MAX_RUNS {
            return Err(ScenarioError::new(
                "--repeat",
                "",
                format!("{n} is not a number of seeds; expected 1 to {}", grid::MAX_RUNS),
            ));
        }
        grid.repeat = n;
    }
    if args.seed.is_some() {
        grid.first_seed = args.seed;
    }
    let zip_source = match (args.zip.first(), args.zip_values.first()) {
        (Some(_), _) => "--zip",
        (None, Some(axis)) => axis.source.as_str(),
        (None, None) => &file,
    };
    grid.check(zip_source)?;
    // The overrides are the same for every run: applied once, to the base document.
    for o in overrides {
        scenario::apply_override(&mut doc, o)?;
    }
    let base =
        scenario::deserialize(doc.clone(), &file).map_err(|e| scenario::blame_override(e, overrides))?;
    let first = grid.first_seed.unwrap_or(base.seed);
    let seeds: Vec<u64> = (0..grid.repeat)
        .map(|i| {
            first.checked_add(i).ok_or_else(|| {
                ScenarioError::new(
                    "--seed",
                    "",
                    format!("seeds from {first} overflow; expected a smaller first seed"),
                )
            })
        })
        .collect::<Result<_, _>>()?;
    let axes: Vec<&Axis> = grid.axes().collect();
    let mut runs = Vec::new();
    for (point, values) in grid.points().into_iter().enumerate() {
        for &seed in &seeds {
            let mut d = doc.clone();
            for (axis, v) in axes.iter().zip(&values) {
                let shown = format!("{}={}", axis.key, grid::shown_value(v));
                scenario::set_key(&mut d, &axis.key, v.clone(), &shown)?;
            }
            scenario::set_key(&mut d, "seed", toml::Value::Integer(seed as i64), "seed")?;
            let s = scenario::deserialize(d, &file)
                .map_err(|e| at_point(scenario::blame_override(e, overrides), &axes, &values))?;
            let id = run_id(&s).map_err(|m| ScenarioError::new(&file, "", m))?;
            runs.push(PlannedRun {
                id,
                dir: String::new(),
                point,
                seed,
                values: values.clone(),
                scenario: s,
            });
        }
    }
    let mut plan = Plan { file, overrides: overrides.to_vec(), grid, seeds, runs };
    plan.name_runs(&std::collections::HashMap::new());
    Ok(plan)
}

/// Longest run directory name: well within any file system's 255 bytes, and short
/// enough to read in a listing.
pub const MAX_DIR_NAME: usize = 96;

/// Whether `name` can be a run directory's name: one plain path component of the
/// characters [`run_dir_names`] writes, not hidden (staging directories are), at most
/// 255 bytes. Sweeps recorded before runs had readable names used the run id, which is
/// such a name too.
pub fn is_run_dir_name(name: &str) -> bool {
    !name.is_empty()
        && name.len() <= 255
        && !name.starts_with(['.', '-'])
        && name.bytes().all(|b| b.is_ascii_alphanumeric() || b"._=,+-".contains(&b))
}

/// `text` in the characters a run directory name allows: anything else (spaces, `/`,
/// quotes, non-ASCII) becomes one `_` per run of them, none at either end, and the
/// brackets of an index are dropped (`traffic[0]` → `traffic0`).
fn sanitized(text: &str) -> String {
    let mut out = String::new();
    for c in text.chars().filter(|&c| c != '[' && c != ']') {
        if c.is_ascii_alphanumeric() || "._+-".contains(c) {
            out.push(c);
        } else if !out.is_empty() && !out.ends_with('_') {
            out.push('_');
        }
    }
    out.trim_end_matches('_').to_string()
}

/// The shortest tail of each key path (whole dot-separated segments) that no other key
/// ends with: `protocols.qcn.cp.qeq` alone → `qeq`; with `traffic[0].rate` and
/// `traffic[1].rate` → `traffic0.rate` and `traffic1.rate`.
fn short_keys(keys: &[&str]) -> Vec<String> {
    let tail = |k: &str, n: usize| {
        let parts: Vec<&str> = k.split('.').collect();
        parts[parts.len().saturating_sub(n)..].join(".")
    };
    keys.iter()
        .map(|k| {
            let segments = k.split('.').count();
            let n = (1..segments)
                .find(|&n| keys.iter().filter(|o| tail(o, n) == tail(k, n)).count() == 1)
                .unwrap_or(segments);
            tail(k, n)
        })
        .collect()
}

/// The directory names of a sweep's runs, one per run in order: the swept values and the
/// seed, `key=value` joined by commas (`qeq=26_frames,seed=1`; a sweep of seeds only:
/// `seed=1`), each key shortened to the tail that tells the axes apart and everything
/// sanitized to letters, digits and `._=,+-`.
///
/// A run `recorded` in the sweep directory keeps its recorded name, so a grown sweep's
/// runs stay where they are (and those of a sweep recorded with hash names are found).
/// A name that two runs would share (values that sanitize alike, or names that differ
/// only in case), that a recorded run already holds, or that is longer than
/// [`MAX_DIR_NAME`] is cut to fit and gets `-` and the first 8 digits of the run's id
/// (all 16 if even that is taken). Runs with one id (two points that resolve to the same
/// scenario) share one directory.
pub fn run_dir_names(
    keys: &[&str],
    runs: &[(&str, &[toml::Value], u64)],
    recorded: &std::collections::HashMap<String, String>,
) -> Vec<String> {
    use std::collections::{HashMap, HashSet};
    let short = short_keys(keys);
    let base = |values: &[toml::Value], seed: u64| {
        let mut parts: Vec<String> = short
            .iter()
            .zip(values)
            .map(|(k, v)| format!("{}={}", sanitized(k), sanitized(&grid::shown_value(v))))
            .collect();
        parts.push(format!("seed={seed}"));
        let name = parts.join(",");
        if name.starts_with(['.', '-']) {
            format!("_{name}")
        } else {
            name
        }
    };
    let fresh: Vec<(&str, String)> = {
        let mut seen = HashSet::new();
        runs.iter()
            .filter(|(id, _, _)| !recorded.contains_key(*id) && seen.insert(*id))
            .map(|&(id, values, seed)| (id, base(values, seed)))
            .collect()
    };
    let mut wanted: HashMap<String, usize> = HashMap::new();
    for (_, name) in &fresh {
        *wanted.entry(name.to_lowercase()).or_default() += 1;
    }
    let mut taken: HashSet<String> = recorded.values().map(|n| n.to_lowercase()).collect();
    let mut named: HashMap<&str, String> = recorded.iter().map(|(id, n)| (id.as_str(), n.clone())).collect();
    for (id, name) in fresh {
        let alone = wanted[&name.to_lowercase()] == 1 && !taken.contains(&name.to_lowercase());
        let name = if alone && name.len() <= MAX_DIR_NAME {
            name
        } else {
            let with = |digits: usize| {
                let hash = &id[..digits.min(id.len())];
                let mut cut = MAX_DIR_NAME.saturating_sub(hash.len() + 1).min(name.len());
                while !name.is_char_boundary(cut) {
                    cut -= 1;
                }
                format!("{}-{hash}", &name[..cut])
            };
            let short = with(8);
            if taken.contains(&short.to_lowercase()) {
                with(16)
            } else {
                short
            }
        };
        taken.insert(name.to_lowercase());
        named.insert(id, name);
    }
    runs.iter().map(|(id, _, _)| named[id].clone()).collect()
}

impl Plan {
    /// Names the runs' directories ([`run_dir_names`]), keeping the `recorded` names.
    fn name_runs(&mut self, recorded: &std::collections::HashMap<String, String>) {
        let keys: Vec<&str> = self.grid.axes().map(|a| a.key.as_str()).collect();
        let runs: Vec<(&str, &[toml::Value], u64)> =
            self.runs.iter().map(|r| (r.id.as_str(), r.values.as_slice(), r.seed)).collect();
        let names = run_dir_names(&keys, &runs, recorded);
        for (r, name) in self.runs.iter_mut().zip(names) {
            r.dir = name;
        }
    }

    /// Names the runs' directories as the sweep directory `dir` already names them (its
    /// `sweep.json`), so that a sweep resumed or grown there finds its runs; runs new to
    /// it get fresh names. A directory without a readable record changes nothing
    /// ([`prepare`] says what is wrong with it). [`prepare`] refuses a plan not settled
    /// in its directory.
    pub fn settle_in(&mut self, dir: &Path) {
        if let Ok(Some(old)) = existing_record(dir) {
            let recorded = recorded_dirs(&old).into_iter().filter(|(_, n)| is_run_dir_name(n)).collect();
            self.name_runs(&recorded);
        }
    }
}

/// The sweep directory `dir`'s record, if it has one: `Err` says why it cannot be read.
fn existing_record(dir: &Path) -> Result<Option<ExistingRecord>, String> {
    let path = dir.join("sweep.json");
    if std::fs::symlink_metadata(&path).is_err() {
        return Ok(None);
    }
    let text = read_own_file(&path, MAX_SUMMARY)?;
    serde_json::from_str(&text).map(Some).map_err(|e| e.to_string())
}

/// Run id → directory name of each run an existing record holds (a record from before
/// runs had readable names: the id itself).
fn recorded_dirs(old: &ExistingRecord) -> std::collections::HashMap<String, String> {
    old.runs.iter().map(|r| (r.id.clone(), r.dir.clone().unwrap_or_else(|| r.id.clone()))).collect()
}

/// Names the sweep point in an error found while resolving it: an error at a swept key
/// is the swept value's.
fn at_point(e: ScenarioError, axes: &[&Axis], values: &[toml::Value]) -> ScenarioError {
    let point: Vec<String> =
        axes.iter().zip(values).map(|(a, v)| format!("{}={}", a.key, grid::shown_value(v))).collect();
    if let Some(axis) = axes.iter().find(|a| a.key == e.path) {
        ScenarioError::new(&axis.source, e.path.clone(), e.message)
    } else if point.is_empty() {
        e
    } else {
        let message = format!("{} (at the sweep point {})", e.message, point.join(", "));
        ScenarioError::new(&e.file, e.path.clone(), message)
    }
}

/// How to run a sweep.
#[derive(Clone, Debug)]
pub struct Options {
    /// Runs at once.
    pub jobs: usize,
    /// Use runs made by another cnsim version instead of refusing.
    pub allow_mixed_versions: bool,
    /// Also write the per-point summary over seeds.
    pub summarize: bool,
    /// Memory limit of each run (the machine's share divided among the jobs).
    pub limits: Limits,
    /// Also write each run's time series as CSV.
    pub csv: bool,
    /// Run each run on the partitioned engine on this many threads (see
    /// [`crate::sim::partition`]); `None`: the sequential engine.
    pub threads: Option<u32>,
}

/// What a sweep did.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Outcome {
    /// Distinct runs in the sweep.
    pub runs: usize,
    /// Runs found complete and not rerun.
    pub already_done: usize,
    /// Runs run now.
    pub ran: usize,
    /// Runs found damaged and run again: a line each saying which and why.
    pub redone: Vec<String>,
}

/// The record of a sweep, `sweep.json`.
#[derive(Serialize)]
struct Record<'a> {
    cnsim_version: &'a str,
    scenario: &'a str,
    overrides: &'a [String],
    grid: Vec<AxisRecord>,
    zip: Vec<AxisRecord>,
    seeds: &'a [u64],
    runs: Vec<RunRecord<'a>>,
}

/// The fields of an existing `sweep.json` that identify its sweep.
#[derive(Deserialize)]
struct ExistingRecord {
    #[serde(default)]
    scenario: String,
    #[serde(default)]
    grid: Vec<AxisRecord>,
    #[serde(default)]
    zip: Vec<AxisRecord>,
    #[serde(default)]
    runs: Vec<ExistingRun>,
}

#[derive(Deserialize)]
struct ExistingRun {
    id: String,
    /// Absent in records written when the id named the directory.
    #[serde(default)]
    dir: Option<String>,
}

#[derive(Clone, Debug, Serialize, Deserialize, PartialEq, Eq)]
struct AxisRecord {
    key: String,
    values: Vec<String>,
}

#[derive(Serialize)]
struct RunRecord<'a> {
    id: &'a str,
    dir: &'a str,
    point: usize,
    seed: u64,
    values: Vec<String>,
}

fn axis_records(axes: &[Axis]) -> Vec<AxisRecord> {
    axes.iter()
        .map(|a| AxisRecord { key: a.key.clone(), values: a.values.iter().map(grid::shown_value).collect() })
        .collect()
}

/// Why `plan` is not the sweep recorded in `old`, nor that sweep grown (the same swept
/// keys, every recorded run still in it); `None` when it is.
fn not_grown_from(
    old: &ExistingRecord,
    plan: &Plan,
    grid: &[AxisRecord],
    zip: &[AxisRecord],
) -> Option<String> {
    let keys = |axes: &[AxisRecord]| axes.iter().map(|a| a.key.clone()).collect::<Vec<_>>();
    if keys(&old.grid) != keys(grid) || keys(&old.zip) != keys(zip) {
        return Some("sweeps other keys".into());
    }
    let ids: std::collections::HashSet<&str> = plan.runs.iter().map(|r| r.id.as_str()).collect();
    let lost = old.runs.iter().filter(|r| !ids.contains(r.id.as_str())).count();
    (lost > 0).then(|| format!("lacks {lost} of its runs"))
}

/// A sweep's plan in a sentence, for messages: its scenario, runs and axes.
fn described(scenario: &str, runs: usize, grid: &[AxisRecord], zip: &[AxisRecord]) -> String {
    let axes: Vec<String> =
        grid.iter().chain(zip).map(|a| format!("{}=[{}]", a.key, a.values.join(","))).collect();
    let axes = if axes.is_empty() { "seeds only".to_string() } else { axes.join(" ") };
    format!(
        "{} runs of {}, {}",
        runs,
        scenario::error::shown_limited(scenario, 80),
        scenario::error::shown_limited(&axes, 160)
    )
}

fn output(path: &Path) -> impl Fn(String) -> RunError + '_ {
    move |m| RunError::Output(format!("{}: {m}", path.display()))
}

/// The file a sweep's writer holds locked.
pub const LOCK: &str = ".cnsim-lock";

/// The lock held by the one process writing a sweep directory: an advisory lock
/// (`flock`) on its `.cnsim-lock` file, which names the holder. The system releases it
/// when the process ends, however it ends, so a killed sweep never leaves a stale lock.
#[derive(Debug)]
pub struct SweepLock {
    _file: std::fs::File,
}

impl SweepLock {
    /// Takes the lock of the sweep directory `dir`, or says who holds it.
    pub fn take(dir: &Path) -> Result<SweepLock, RunError> {
        use std::io::Write as _;
        let path = dir.join(LOCK);
        let refuse = output(dir);
        let mut options = std::fs::OpenOptions::new();
        options.read(true).write(true).create(true).truncate(false);
        #[cfg(unix)]
        {
            use std::os::unix::fs::OpenOptionsExt;
            options.custom_flags(libc::O_NOFOLLOW);
        }
        let mut file = options.open(&path).map_err(|e| {
            refuse(format!("{LOCK}: {e}; expected a lock file cnsim can create (not a link)"))
        })?;
        match file.try_lock() {
            Ok(()) => {}
            Err(std::fs::TryLockError::WouldBlock) => {
                let holder = std::fs::read_to_string(&path).unwrap_or_default();
                let holder = holder.trim();
                let holder = if holder.is_empty() { "a process that has not said which" } else { holder };
                return Err(refuse(format!(
                    "another cnsim is writing this sweep ({}; lock {LOCK}); expected it to finish \
                     first, or another --out",
                    scenario::error::shown_limited(holder, 200)
                )));
            }
            Err(std::fs::TryLockError::Error(e)) => return Err(refuse(format!("{LOCK}: {e}"))),
        }
        let host = std::fs::read_to_string("/proc/sys/kernel/hostname").unwrap_or_default();
        let holder = format!(
            "pid {} on {}, since {} UTC",
            std::process::id(),
            if host.trim().is_empty() { "this host" } else { host.trim() },
            crate::run::outdir::utc_stamp()
        );
        let _ = file.set_len(0).and_then(|()| file.write_all(holder.as_bytes()));
        Ok(SweepLock { _file: file })
    }
}

/// Makes (or reopens) the sweep directory and takes its lock: absent, empty, or a cnsim
/// sweep directory.
fn open_dir(dir: &Path) -> Result<SweepLock, RunError> {
    let refuse = |why: &str| RunError::Output(format!("{}: {why}", dir.display()));
    match std::fs::symlink_metadata(dir) {
        Err(_) => std::fs::create_dir_all(dir).map_err(|e| refuse(&e.to_string()))?,
        Ok(m) if m.file_type().is_symlink() => {
            return Err(refuse("is a symbolic link; expected a new directory or a cnsim sweep directory"))
        }
        Ok(m) if !m.is_dir() => {
            return Err(refuse("is a file; expected a new directory or a cnsim sweep directory"))
        }
        Ok(_) => {
            // Empty, or holding only the lock file of a sweep that stopped before its marker.
            let empty = std::fs::read_dir(dir)
                .map_err(|e| refuse(&e.to_string()))?
                .all(|e| e.is_ok_and(|e| e.file_name() == LOCK));
            match Marker::of(dir) {
                _ if empty => {}
                Some(Marker { kind: Some(Kind::Sweep), .. }) => {}
                Some(m) => {
                    let kind = m.kind.map_or("result", Kind::word);
                    return Err(refuse(&format!(
                        "is a cnsim {kind} directory, not a sweep; a sweep writes only into a new \
                         or empty directory or resumes its own; choose another --out"
                    )));
                }
                None => {
                    return Err(refuse(&format!(
                        "exists and is not a cnsim sweep (it has no {MARKER} file); cnsim writes a \
                         sweep only into a new or empty directory or resumes its own; choose \
                         another --out"
                    )))
                }
            }
        }
    }
    let lock = SweepLock::take(dir)?;
    if Marker::of(dir).is_none() {
        crate::run::outdir::write_marker(dir, Kind::Sweep, &[LOCK, "runs/"]).map_err(|e| refuse(&e))?;
    }
    Ok(lock)
}

/// Reads a small file cnsim wrote, refusing a link, a special file or one above `max`
/// bytes.
pub fn read_own_file(path: &Path, max: u64) -> Result<String, String> {
    let meta = std::fs::symlink_metadata(path).map_err(|e| e.to_string())?;
    if !meta.is_file() {
        return Err("is not a regular file".into());
    }
    if meta.len() > max {
        return Err(format!("is {} bytes, more than the {max} expected", meta.len()));
    }
    std::fs::read_to_string(path).map_err(|e| e.to_string())
}

/// Largest `summary.json` a sweep reads: 256 MiB (a run of a million flows).
const MAX_SUMMARY: u64 = 256 << 20;

/// The id of the finished run in `dir`, from its resolved `scenario.toml`, or why that
/// cannot be read.
fn id_of(dir: &Path) -> Result<String, String> {
    let text = read_own_file(&dir.join("scenario.toml"), MAX_SUMMARY)?;
    let s = scenario::parse(&text, "scenario.toml", &[]).map_err(|e| format!("does not read back: {e}"))?;
    run_id(&s)
}

/// The cnsim version that made the finished run in `dir`, or why its summary cannot be
/// read.
fn version_of(dir: &Path) -> Result<Option<String>, String> {
    let text = read_own_file(&dir.join("summary.json"), MAX_SUMMARY)?;
    let v: serde_json::Value = serde_json::from_str(&text).map_err(|e| e.to_string())?;
    Ok(v.get("cnsim_version").and_then(|v| v.as_str()).map(str::to_string))
}

/// Progress of a sweep, for a progress bar.
#[derive(Clone, Copy, Debug)]
pub struct SweepProgress {
    /// Runs finished now.
    pub done: usize,
    /// Runs to run now (the sweep's runs minus those already complete).
    pub to_run: usize,
    /// The run that has just finished: its index in [`Plan::runs`] (from
    /// [`pool::map_all`], its index in the items).
    pub finished: Option<usize>,
}

/// A sweep directory made ready: its record written, the runs still to run found, its
/// lock held (until this is dropped).
#[derive(Debug)]
pub struct Prepared {
    /// Distinct runs of the plan (two points may resolve to the same scenario).
    pub(crate) distinct: usize,
    /// The runs whose directory is missing: their indices in [`Plan::runs`], in order.
    pub todo: Vec<usize>,
    /// Runs found damaged (their summary unreadable), removed to be run again: a line
    /// each saying which and why.
    pub redone: Vec<String>,
    /// The directory's lock.
    pub lock: SweepLock,
}

/// Makes (or reopens) the sweep directory `dir` for `plan`, taking its lock: refuses a
/// directory of another plan, writes `sweep.json` and finds the runs still to run,
/// removing damaged runs so they run again, and refusing runs made by another cnsim
/// version unless `allow_mixed_versions`.
pub fn prepare(plan: &Plan, dir: &Path, allow_mixed_versions: bool) -> Result<Prepared, RunError> {
    let lock = open_dir(dir)?;
    let grid = axis_records(&plan.grid.cross);
    let zip = axis_records(&plan.grid.zip);
    let record_path = dir.join("sweep.json");
    if std::fs::symlink_metadata(&record_path).is_ok() {
        let refuse = output(&record_path);
        let text = read_own_file(&record_path, MAX_SUMMARY).map_err(&refuse)?;
        let old: ExistingRecord = serde_json::from_str(&text).map_err(|e| {
            refuse(format!(
                "is damaged ({e}), so the sweep it records is unknown; cnsim never replaces it; \
                 remove it yourself if this directory holds the same sweep, or choose another --out"
            ))
        })?;
        if let Some(why) = not_grown_from(&old, plan, &grid, &zip) {
            return Err(RunError::Output(format!(
                "{}: holds another sweep ({}); this sweep is {} and {why}; a sweep directory holds \
                 one sweep, which may only grow (more values or seeds on the same keys); expected \
                 the same command to resume it, or another --out",
                dir.display(),
                described(&old.scenario, old.runs.len(), &old.grid, &old.zip),
                described(&plan.file, plan.runs.len(), &grid, &zip),
            )));
        }
        if let Some((i, r)) =
            old.runs.iter().enumerate().find(|(_, r)| !is_run_dir_name(r.dir.as_ref().unwrap_or(&r.id)))
        {
            return Err(refuse(format!(
                "runs[{i}] names its directory \"{}\", which is not a run directory name; cnsim \
                 never replaces the record; remove it yourself if this directory holds the same \
                 sweep, or choose another --out",
                scenario::error::shown_limited(r.dir.as_ref().unwrap_or(&r.id), 40)
            )));
        }
        let mut settled = plan.clone();
        settled.name_runs(&recorded_dirs(&old));
        if settled.runs.iter().zip(&plan.runs).any(|(a, b)| a.dir != b.dir) {
            return Err(refuse(
                "names some runs' directories otherwise than this plan does; expected the plan \
                 settled in its directory first (Plan::settle_in)"
                    .into(),
            ));
        }
    }
    let record = Record {
        cnsim_version: crate::VERSION,
        scenario: &plan.file,
        overrides: &plan.overrides,
        grid,
        zip,
        seeds: &plan.seeds,
        runs: plan
            .runs
            .iter()
            .map(|r| RunRecord {
                id: &r.id,
                dir: &r.dir,
                point: r.point,
                seed: r.seed,
                values: r.values.iter().map(grid::shown_value).collect(),
            })
            .collect(),
    };
    let json = serde_json::to_vec_pretty(&record).map_err(|e| RunError::Output(e.to_string()))?;
    write_listed(dir, "sweep.json", &json).map_err(RunError::Output)?;
    let runs_dir = dir.join("runs");
    std::fs::create_dir_all(&runs_dir).map_err(|e| output(&runs_dir)(e.to_string()))?;
    // Distinct runs (two points may resolve to the same scenario), in plan order.
    let mut seen = std::collections::HashSet::new();
    let distinct: Vec<(usize, &PlannedRun)> =
        plan.runs.iter().enumerate().filter(|(_, r)| seen.insert(r.id.as_str())).collect();
    let mut todo = Vec::new();
    let mut redone = Vec::new();
    let mut other_versions = Vec::new();
    for &(i, r) in &distinct {
        let run_dir = runs_dir.join(&r.dir);
        if !is_cnsim_result(&run_dir) {
            todo.push(i);
            continue;
        }
        let damaged = match (version_of(&run_dir), id_of(&run_dir)) {
            (Err(why), _) => Some(format!("its summary.json {why}")),
            (_, Err(why)) => Some(format!("its scenario.toml {why}")),
            (Ok(_), Ok(id)) if id != r.id => {
                return Err(output(&run_dir)(format!(
                    "holds run {id}, not run {} of this sweep (its scenario.toml resolves to \
                     another scenario); cnsim never replaces it; expected it removed, or another \
                     --out",
                    r.id
                )))
            }
            (Ok(Some(v)), Ok(_)) if v == crate::VERSION => None,
            (Ok(v), Ok(_)) => {
                other_versions.push(format!("{} ({})", r.dir, v.unwrap_or_else(|| "unknown version".into())));
                None
            }
        };
        if let Some(why) = damaged {
            crate::run::outdir::remove_result(&run_dir)
                .map_err(|e| output(&run_dir)(format!("{why}, so the run must be run again, but {e}")))?;
            redone.push(format!("run {}: {why}; running it again", r.dir));
            todo.push(i);
        }
    }
    if !other_versions.is_empty() && !allow_mixed_versions {
        return Err(RunError::Output(format!(
            "{}: {} run(s) were made by another cnsim version than {} (e.g. {}); their results \
             would not be comparable; expected a new --out, or --allow-mixed-versions to use them",
            dir.display(),
            other_versions.len(),
            crate::VERSION,
            other_versions[0]
        )));
    }
    Ok(Prepared { distinct: distinct.len(), todo, redone, lock })
}

/// Runs the sweep `plan` into `dir`: only the runs whose directory is missing, `jobs` at
/// a time, stopping early once `stop` is set; then writes the results table.
pub fn execute(
    plan: &Plan,
    dir: &Path,
    options: &Options,
    progress: &(dyn Fn(SweepProgress) + Sync),
    stop: &AtomicBool,
) -> Result<Outcome, RunError> {
    let prepared = prepare(plan, dir, options.allow_mixed_versions)?;
    let to_run = prepared.todo.len();
    progress(SweepProgress { done: 0, to_run, finished: None });
    let runs_dir = dir.join("runs");
    // The pool names a finished item by its place in `todo`: the plan's index is there.
    let in_plan =
        |p: SweepProgress| progress(SweepProgress { finished: p.finished.map(|i| prepared.todo[i]), ..p });
    pool::run_all(&prepared.todo, options.jobs, stop, &in_plan, |&i| {
        let r = &plan.runs[i];
        run_one(&r.scenario, &r.dir, &runs_dir, options.csv, &options.limits, options.threads, stop)
            .map(|_| ())
    })?;
    finish(plan, dir, options.summarize)?;
    Ok(Outcome {
        runs: prepared.distinct,
        already_done: prepared.distinct - to_run,
        ran: to_run,
        redone: prepared.redone,
    })
}

/// Writes the results table (and the per-point summary when asked) and the report of a
/// sweep whose runs are all complete.
pub fn finish(plan: &Plan, dir: &Path, summarize: bool) -> Result<Table, RunError> {
    let table = write_results(plan, dir, summarize)?;
    crate::report::html::write_report(dir).map_err(RunError::Output)?;
    Ok(table)
}

/// Runs the resolved scenario `s` into `runs_dir/<name>` as `cnsim run` writes a run
/// (staged, renamed into place when complete). A run already complete there is not run
/// again: `Ok(false)`. Two workers given the same run (a task retried after its worker
/// was presumed lost) both succeed, and one directory remains.
pub fn run_one(
    s: &Scenario,
    name: &str,
    runs_dir: &Path,
    csv: bool,
    limits: &Limits,
    threads: Option<u32>,
    stop: &AtomicBool,
) -> Result<bool, RunError> {
    let target = runs_dir.join(name);
    if is_cnsim_result(&target) {
        return Ok(false);
    }
    let staged = StagedDir::create(&target, false, Kind::Run)?;
    let mut s = s.clone();
    if csv {
        s.metrics.csv = true;
    }
    let mut keep_going = |_: &crate::sim::Progress| !stop.load(Ordering::SeqCst);
    let done = crate::run::simulate_on(&s, name, limits, threads, &mut keep_going)?;
    let interrupted = || stop.load(Ordering::SeqCst);
    crate::run::write_run_files(&s, &done, staged.path(), &interrupted)?;
    match staged.commit(&interrupted) {
        Ok(()) => Ok(true),
        // Another worker finished the same run meanwhile: its result stands.
        Err(RunError::Output(_)) if is_cnsim_result(&target) => Ok(false),
        Err(e) => Err(e),
    }
}

/// [`run_one`] for a run described by its resolved scenario text (as a remote worker
/// receives it), into `runs_dir/<name>`: the text must resolve to the run `id` names.
pub fn run_resolved(
    resolved: &str,
    id: &str,
    name: &str,
    runs_dir: &Path,
    csv: bool,
    limits: &Limits,
    stop: &AtomicBool,
) -> Result<bool, RunError> {
    if !is_run_dir_name(name) {
        return Err(RunError::Output(format!(
            "run {id}: \"{}\" is not a run directory name; expected letters, digits and ._=,+- only",
            scenario::error::shown_limited(name, 40)
        )));
    }
    let s = scenario::parse(resolved, id, &[])?;
    let actual = run_id(&s).map_err(RunError::Output)?;
    if actual != id {
        return Err(RunError::Output(format!(
            "run {id}: its resolved scenario resolves to run {actual}; expected the same run \
             (do the workers run cnsim {}?)",
            crate::VERSION
        )));
    }
    run_one(&s, name, runs_dir, csv, limits, None, stop)
}

/// Builds the results table from the run directories on disk and writes it (and the
/// per-point summary when asked).
pub fn write_results(plan: &Plan, dir: &Path, summarize: bool) -> Result<Table, RunError> {
    let results = results_table(plan, dir, false)?;
    let meta = table_metadata(plan);
    results.write_files(dir, "results", &meta).map_err(RunError::Output)?;
    if summarize {
        // The swept keys and their numeric columns ("key [unit]") name the point.
        let axes: Vec<String> = plan.grid.axes().map(|a| a.key.clone()).collect();
        let keys: Vec<String> = results
            .names
            .iter()
            .filter(|n| {
                axes.iter()
                    .any(|a| *n == a || n.strip_prefix(a.as_str()).is_some_and(|r| r.starts_with(" [")))
            })
            .cloned()
            .collect();
        table::summarize(&results, &keys)
            .write_files(dir, "results_summary", &meta)
            .map_err(RunError::Output)?;
    }
    Ok(results)
}

/// A swept value with a unit as a number in a fixed unit, for a numeric column beside
/// the text one: a rate in bit/s, a time in s, a size in bytes or frames.
pub fn quantity(text: &str) -> Option<(&'static str, f64)> {
    use crate::units::{Duration, Rate, Size};
    if let Ok(Rate(bps)) = text.parse::<Rate>() {
        return Some(("bit/s", bps as f64));
    }
    if let Ok(Duration(ps)) = text.parse::<Duration>() {
        return Some(("s", ps as f64 / crate::engine::PS_PER_S as f64));
    }
    match text.parse::<Size>() {
        Ok(Size::Bytes(b)) => Some(("B", b as f64)),
        Ok(Size::Frames(f)) => Some(("frames", f as f64)),
        Err(_) => None,
    }
}

/// The metadata a results table carries.
pub fn table_metadata(plan: &Plan) -> [(&'static str, String); 2] {
    [("cnsim_version", crate::VERSION.to_string()), ("scenario", plan.file.clone())]
}

/// The results table of `plan` from the run directories in `dir`: a row per planned run,
/// or, with `complete_only`, per run whose directory is complete (what a sweep with
/// failed runs has to show).
pub fn results_table(plan: &Plan, dir: &Path, complete_only: bool) -> Result<Table, RunError> {
    let axes: Vec<String> = plan.grid.axes().map(|a| a.key.clone()).collect();
    let mut results = Table::default();
    for r in &plan.runs {
        let run_dir = dir.join("runs").join(&r.dir);
        if complete_only && !is_cnsim_result(&run_dir) {
            continue;
        }
        let path: PathBuf = run_dir.join("summary.json");
        let text = std::fs::read_to_string(&path).map_err(|e| output(&path)(e.to_string()))?;
        let summary: serde_json::Value =
            serde_json::from_str(&text).map_err(|e| output(&path)(e.to_string()))?;
        let mut cells = vec![
            ("run".to_string(), Cell::Text(r.dir.clone())),
            ("run_id".to_string(), Cell::Text(r.id.clone())),
            ("point".to_string(), Cell::Int(r.point as i64)),
        ];
        for (k, v) in axes.iter().zip(&r.values) {
            cells.push((k.clone(), Cell::of_toml(v)));
            if let Some((unit, x)) = v.as_str().and_then(quantity) {
                cells.push((format!("{k} [{unit}]"), Cell::Float(x)));
            }
        }
        cells.push(("seed".to_string(), Cell::Int(r.seed as i64)));
        cells.extend(table::flatten(&summary));
        results.push_row(cells);
    }
    Ok(results)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn swept_quantities_get_numeric_columns() {
        assert_eq!(quantity("25 frames"), Some(("frames", 25.0)));
        assert_eq!(quantity("1Gbps"), Some(("bit/s", 1e9)));
        assert_eq!(quantity("10us"), Some(("s", 1e-5)));
        assert_eq!(quantity("150KB"), Some(("B", 150_000.0)));
        assert_eq!(quantity("pfc"), None);
    }

    const SMALL: &str = r#"
name = "small"
duration = "1ms"
[topology.star]
hosts = ["a", "b"]
link = { rate = "1Gbps", delay = "1us" }
[[traffic]]
name = "ab"
kind = "cbr"
from = "a"
to = "b"
rate = "100Mbps"
[metrics]
plots = false
"#;

    fn scratch(tag: &str) -> PathBuf {
        let d = std::env::temp_dir().join(format!("cnsim-sweep-unit-{tag}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&d);
        std::fs::create_dir_all(&d).unwrap();
        d
    }

    #[test]
    fn a_run_already_complete_is_not_run_again() {
        let runs = scratch("once");
        let s = scenario::parse(SMALL, "small.toml", &[]).unwrap();
        let id = run_id(&s).unwrap();
        let (limits, stop) = (Limits::machine_default(), AtomicBool::new(false));
        assert!(run_one(&s, &id, &runs, false, &limits, None, &stop).unwrap(), "the first time it runs");
        let stamp = std::fs::metadata(runs.join(&id).join("summary.json")).unwrap().modified().unwrap();
        assert!(
            !run_one(&s, &id, &runs, false, &limits, None, &stop).unwrap(),
            "the second time it does not"
        );
        let again = std::fs::metadata(runs.join(&id).join("summary.json")).unwrap().modified().unwrap();
        assert_eq!(stamp, again);
        std::fs::remove_dir_all(runs).unwrap();
    }

    #[test]
    fn a_worker_runs_a_run_from_its_resolved_text_and_refuses_another() {
        let runs = scratch("resolved");
        let s = scenario::parse(SMALL, "small.toml", &[]).unwrap();
        let id = run_id(&s).unwrap();
        let text = toml::to_string_pretty(&s).unwrap();
        let (limits, stop) = (Limits::machine_default(), AtomicBool::new(false));
        assert!(run_resolved(&text, &id, "seed=1", &runs, false, &limits, &stop).unwrap());
        assert!(is_cnsim_result(&runs.join("seed=1")));
        // Text that resolves to another run (another seed) is not taken for this one.
        let other = text.replace("seed = 1", "seed = 2");
        assert_ne!(other, text);
        let e = run_resolved(&other, "0123456789abcdef", "seed=2", &runs, false, &limits, &stop).unwrap_err();
        assert!(e.to_string().contains("resolves to run"), "{e}");
        assert!(!runs.join("seed=2").exists());
        // A name that is a path is refused before anything is read.
        let e = run_resolved(&text, &id, "../x", &runs, false, &limits, &stop).unwrap_err();
        assert!(e.to_string().contains("is not a run directory name"), "{e}");
        std::fs::remove_dir_all(runs).unwrap();
    }

    fn names(
        keys: &[&str],
        runs: &[(&str, Vec<toml::Value>, u64)],
        recorded: &[(&str, &str)],
    ) -> Vec<String> {
        let runs: Vec<(&str, &[toml::Value], u64)> =
            runs.iter().map(|(id, v, seed)| (*id, v.as_slice(), *seed)).collect();
        let recorded = recorded.iter().map(|(i, n)| (i.to_string(), n.to_string())).collect();
        run_dir_names(keys, &runs, &recorded)
    }

    fn text(v: &str) -> toml::Value {
        toml::Value::String(v.into())
    }

    #[test]
    fn runs_are_named_by_their_swept_values_and_seed() {
        let keys = ["protocols.qcn.cp.qeq", "traffic[0].rate"];
        let runs = [
            ("00000000000000a1", vec![text("25 frames"), text("1Gbps")], 1),
            ("00000000000000a2", vec![text("25 frames"), text("1Gbps")], 2),
            ("00000000000000b1", vec![toml::Value::Integer(50), text("1Gbps")], 1),
        ];
        assert_eq!(
            names(&keys, &runs, &[]),
            [
                "qeq=25_frames,rate=1Gbps,seed=1",
                "qeq=25_frames,rate=1Gbps,seed=2",
                "qeq=50,rate=1Gbps,seed=1"
            ]
        );
        // Keys that end alike keep as much of their path as tells them apart.
        let keys = ["traffic[0].rate", "traffic[1].rate"];
        let runs = [("00000000000000a1", vec![text("1Gbps"), text("2Gbps")], 7)];
        assert_eq!(names(&keys, &runs, &[]), ["traffic0.rate=1Gbps,traffic1.rate=2Gbps,seed=7"]);
    }

    #[test]
    fn a_repeat_names_runs_by_seed() {
        let runs: Vec<_> = (["00000000000000a1", "00000000000000a2", "00000000000000a3"].into_iter())
            .zip(5..)
            .map(|(id, seed)| (id, vec![], seed))
            .collect();
        assert_eq!(names(&[], &runs, &[]), ["seed=5", "seed=6", "seed=7"]);
        // The plan of `cnsim run --repeat 3` names them so too.
        let args = SweepArgs { repeat: Some(3), ..SweepArgs::default() };
        let plan = plan_document(toml::from_str(SMALL).unwrap(), "small.toml".into(), &[], &args).unwrap();
        let dirs: Vec<&str> = plan.runs.iter().map(|r| r.dir.as_str()).collect();
        assert_eq!(dirs, ["seed=1", "seed=2", "seed=3"]);
        assert!(plan.runs.iter().all(|r| r.id.len() == 16 && r.id != r.dir));
    }

    #[test]
    fn names_that_would_collide_or_run_long_get_a_short_hash() {
        // "a b" and "a/b" both sanitize to "a_b"; "A_B" differs only in case.
        let runs = [
            ("1111111111111111", vec![text("a b")], 1),
            ("2222222222222222", vec![text("a/b")], 1),
            ("3333333333333333", vec![text("A_B")], 1),
            ("4444444444444444", vec![text("c")], 1),
        ];
        assert_eq!(
            names(&["x"], &runs, &[]),
            ["x=a_b,seed=1-11111111", "x=a_b,seed=1-22222222", "x=A_B,seed=1-33333333", "x=c,seed=1"]
        );
        let long = "v".repeat(200);
        let got = names(&["x"], &[("5555555555555555", vec![text(&long)], 1)], &[]);
        assert_eq!(got[0].len(), MAX_DIR_NAME);
        assert!(got[0].starts_with("x=vvv") && got[0].ends_with("-55555555"), "{}", got[0]);
        // Two points resolving to one scenario share its directory; nothing is hidden or
        // starts like an option; every name is one a sweep accepts.
        let runs = [("6666666666666666", vec![text("..")], 1), ("6666666666666666", vec![text("x")], 1)];
        let got = names(&["-k"], &runs, &[]);
        assert_eq!(got, ["_-k=..,seed=1", "_-k=..,seed=1"]);
        assert!(got.iter().all(|n| is_run_dir_name(n)));
        for bad in ["", ".", "..", ".cnsim-tmp-1", "a/b", "/etc", "a\\b", "a\0b", "-rf", "a b"] {
            assert!(!is_run_dir_name(bad), "{bad:?}");
        }
    }

    #[test]
    fn a_grown_sweep_keeps_its_runs_names() {
        let first = [("1111111111111111", vec![text("a")], 1), ("2222222222222222", vec![text("b")], 1)];
        let before = names(&["x"], &first, &[]);
        let recorded: Vec<(&str, &str)> =
            first.iter().zip(&before).map(|((id, _, _), n)| (*id, n.as_str())).collect();
        // More values and seeds; one new value sanitizes as an old one: the old run keeps
        // its name and the new one gets the hash.
        let grown = [
            ("1111111111111111", vec![text("a")], 1),
            ("3333333333333333", vec![text("a")], 2),
            ("2222222222222222", vec![text("b")], 1),
            ("4444444444444444", vec![text("b ")], 1),
        ];
        assert_eq!(
            names(&["x"], &grown, &recorded),
            ["x=a,seed=1", "x=a,seed=2", "x=b,seed=1", "x=b,seed=1-44444444"]
        );
        // A sweep recorded when runs were named by their id keeps those names.
        let legacy = [("1111111111111111", "1111111111111111")];
        assert_eq!(names(&["x"], &grown[..2], &legacy), ["1111111111111111", "x=a,seed=2"]);
    }
}
