//! Running a declared reproduction: every cell × every seed on the shared pool, the
//! metrics of each run, estimates over seeds, and the results table.

use std::collections::HashMap;
use std::path::Path;
use std::sync::atomic::{AtomicBool, Ordering};

use super::study::{Cell, Measured, Study};
use crate::run::RunError;
use crate::sweep::table::{self, mean_std_ci95, Table};
use crate::units::Duration;

/// One finished run.
#[derive(Clone, Debug)]
pub struct Record {
    /// Its cell.
    pub(crate) cell: Cell,
    /// Its seed.
    pub(crate) seed: u64,
    /// Its metrics; time series are kept for the first seed only (the figures draw
    /// those), to bound memory over many seeds.
    pub(crate) measured: Measured,
    /// The resolved scenario (first seed only).
    pub(crate) scenario_toml: Option<String>,
}

/// A metric's mean over seeds and the 95 % confidence half-width of that mean.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Estimate {
    /// Mean.
    pub(crate) mean: f64,
    /// Half-width (Student's t), with two seeds or more.
    pub(crate) ci95: Option<f64>,
}

/// Every run of a reproduction.
pub struct Results<'s> {
    /// The declaration.
    pub(crate) study: &'s Study,
    /// Runs, cell by cell in grid order, seeds in order.
    pub(crate) records: Vec<Record>,
    /// The seeds of each cell.
    pub(crate) seeds: Vec<u64>,
    /// Simulated time per run: each distinct duration with its number of runs, in grid
    /// order (the cells' scenarios may differ, e.g. 50 s load steps and 100 s sweeps).
    pub(crate) durations: Vec<(Duration, usize)>,
    by_cell: HashMap<Cell, Vec<usize>>,
}

/// Runs every cell of `study` with every seed on `jobs` threads, stopping early once
/// `stop` is set; `progress(done, total)` after each run. Each run's scenario is the
/// cell's with the seed and, if given, the duration set (and a flows workload's
/// arrival window scaled with it).
pub fn run<'s>(
    study: &'s Study,
    seeds: &[u64],
    duration: Option<Duration>,
    jobs: usize,
    progress: &(dyn Fn(usize, usize) + Sync),
    stop: &AtomicBool,
) -> Result<Results<'s>, String> {
    let cells = study.cells();
    let runs: Vec<(&Cell, u64)> = cells.iter().flat_map(|c| seeds.iter().map(move |&s| (c, s))).collect();
    let report = |p: crate::sweep::SweepProgress| progress(p.done, p.to_run);
    let first_seed = seeds.first().copied();
    let records = crate::sweep::pool::map_all(&runs, jobs, stop, &report, |(cell, seed)| {
        let name = study.cell_name(cell);
        let mut s = (study.scenario)(cell);
        s.name = name.clone();
        s.seed = *seed;
        if let Some(d) = duration {
            // A flows workload's arrivals keep their share of the run, so that its flows
            // still have the rest of it to finish.
            for t in &mut s.traffic {
                if let (crate::scenario::schema::Source::Flows { .. }, Some(stop)) = (&t.source, t.stop) {
                    let scaled = u128::from(stop.0) * u128::from(d.0) / u128::from(s.duration.0.max(1));
                    t.stop = Some(Duration(u64::try_from(scaled).unwrap_or(u64::MAX)));
                }
            }
            s.duration = d;
        }
        let done =
            crate::run::simulate(&s, &name, &mut |_| !stop.load(Ordering::Relaxed)).map_err(|e| match e {
                RunError::Interrupted => RunError::Interrupted,
                e => RunError::Output(format!("{name} seed {seed}: {e}")),
            })?;
        let mut measured = (study.measure)(cell, &done.sim);
        let first = Some(*seed) == first_seed;
        if !first {
            measured.series.clear();
        }
        let scenario_toml = if first {
            Some(crate::run::resolved_scenario_text(&s).map_err(RunError::Output)?)
        } else {
            None
        };
        Ok(Record { cell: (*cell).clone(), seed: *seed, measured, scenario_toml })
    })
    .map_err(|e| e.to_string())?;
    let mut durations: Vec<(Duration, usize)> = Vec::new();
    for c in &cells {
        let d = duration.unwrap_or_else(|| (study.scenario)(c).duration);
        match durations.iter_mut().find(|(x, _)| *x == d) {
            Some((_, n)) => *n += seeds.len(),
            None => durations.push((d, seeds.len())),
        }
    }
    Ok(Results::new(study, records, seeds.to_vec(), durations))
}

impl<'s> Results<'s> {
    /// Results of `records` (as [`run`] returns them).
    pub fn new(
        study: &'s Study,
        records: Vec<Record>,
        seeds: Vec<u64>,
        durations: Vec<(Duration, usize)>,
    ) -> Results<'s> {
        let mut by_cell: HashMap<Cell, Vec<usize>> = HashMap::new();
        for (i, r) in records.iter().enumerate() {
            by_cell.entry(r.cell.clone()).or_default().push(i);
        }
        Results { study, records, seeds, durations, by_cell }
    }

    /// The runs of `cell` (or of the cell it is an alias of).
    pub fn runs(&self, cell: &Cell) -> impl Iterator<Item = &Record> {
        let cell = (self.study.alias)(cell).unwrap_or_else(|| cell.clone());
        self.by_cell.get(&cell).into_iter().flatten().map(|&i| &self.records[i])
    }

    /// The first seed's run of `cell`.
    pub fn first(&self, cell: &Cell) -> Option<&Record> {
        self.runs(cell).next()
    }

    /// The finite values of `metric` over the seeds of `cell`.
    pub fn values(&self, cell: &Cell, metric: &str) -> Vec<f64> {
        self.by_seed(cell, metric).into_iter().map(|(_, v)| v).collect()
    }

    /// (seed, value) of every seed of `cell` with a finite value of `metric`.
    pub fn by_seed(&self, cell: &Cell, metric: &str) -> Vec<(u64, f64)> {
        self.runs(cell)
            .filter_map(|r| r.measured.scalars.iter().find(|(m, _)| m == metric).map(|(_, v)| (r.seed, *v)))
            .filter(|(_, v)| v.is_finite())
            .collect()
    }

    /// Mean and confidence interval of `metric` at `cell`; `None` where no seed has it.
    pub fn estimate(&self, cell: &Cell, metric: &str) -> Option<Estimate> {
        let xs = self.values(cell, metric);
        (!xs.is_empty()).then(|| {
            let (mean, _, ci95) = mean_std_ci95(&xs);
            Estimate { mean, ci95 }
        })
    }

    /// The mean of `metric` at `cell`, NaN where no seed has it.
    pub fn mean(&self, cell: &Cell, metric: &str) -> f64 {
        self.estimate(cell, metric).map_or(f64::NAN, |e| e.mean)
    }

    /// The metric names of a family `prefix_*` present at `cell`, in column order.
    pub fn family(&self, cell: &Cell, prefix: &str) -> Vec<String> {
        self.first(cell)
            .map(|r| {
                r.measured
                    .scalars
                    .iter()
                    .filter(|(m, _)| m.starts_with(prefix))
                    .map(|(m, _)| m.clone())
                    .collect()
            })
            .unwrap_or_default()
    }

    /// Writes `results.parquet` and `results.csv`: one row per run, with the cell's
    /// name, a column per axis (an integer where every level is one), the seed and every
    /// metric.
    pub fn write_table(&self, dir: &Path) -> Result<(), String> {
        let integral: Vec<bool> =
            self.study.axes.iter().map(|a| a.levels.iter().all(|l| l.key.parse::<i64>().is_ok())).collect();
        let mut t = Table::default();
        for r in &self.records {
            let mut row = vec![("cell".to_string(), table::Cell::Text(self.study.cell_name(&r.cell)))];
            for ((axis, level), int) in r.cell.0.iter().zip(&integral) {
                let value = match level.parse::<i64>() {
                    Ok(n) if *int => table::Cell::Int(n),
                    _ => table::Cell::Text(level.to_string()),
                };
                row.push((axis.to_string(), value));
            }
            row.push(("seed".to_string(), table::Cell::Int(r.seed as i64)));
            row.extend(r.measured.scalars.iter().map(|(k, x)| (k.clone(), table::Cell::Float(*x))));
            t.push_row(row);
        }
        t.write_files(dir, "results", &[("reproduction", self.study.name.to_string())])
    }
}
