//! Reproductions of published experiments (`cnsim reproduce <name>`). A paper module
//! declares its experiment as data ([`study::Study`]: grid, metrics, paper numbers,
//! figures) and registers it in [`REGISTRY`]; the runner ([`results`]), the pool, the
//! comparison table and the report ([`document`]) are shared.

use std::path::Path;
use std::sync::atomic::AtomicBool;

pub mod devkota2010;
pub mod document;
pub mod hpcc2019;
pub mod mliki2016;
pub mod results;
pub mod roeck2007;
pub mod sridharan2004;
pub mod study;

/// How to run a reproduction.
#[derive(Clone, Copy, Debug)]
pub struct Options {
    /// Worker threads.
    pub jobs: usize,
    /// Shorter runs and fewer seeds, for a quick look (the report says so).
    pub quick: bool,
    /// Seeds per cell instead of the reproduction's own number.
    pub seeds: Option<u64>,
}

impl Options {
    /// The seeds of each cell: 1, 2, ..., n, where n is `--seeds` or the reproduction's
    /// number for a full or a quick run.
    pub fn seeds(&self, full: u64, quick: u64) -> Vec<u64> {
        let n = self.seeds.unwrap_or(if self.quick { quick } else { full }).max(1);
        (1..=n).collect()
    }
}

/// What a finished reproduction did.
#[derive(Clone, Debug)]
pub struct Outcome {
    /// Simulations run.
    pub runs: usize,
    /// The report's main file, relative to the report directory.
    pub report: &'static str,
}

/// Progress callback: (runs done, runs in all).
pub type ProgressFn<'a> = &'a (dyn Fn(usize, usize) + Sync);

/// A registered reproduction: its name and its declaration.
pub struct Reproduction {
    /// The name `cnsim reproduce` takes, e.g. "mliki2016" (the declaration's own).
    pub name: &'static str,
    /// The declaration.
    pub declare: fn() -> study::Study,
}

/// Every reproduction, in the order `cnsim reproduce` lists them.
pub const REGISTRY: &[Reproduction] = &[
    mliki2016::REPRODUCTION,
    roeck2007::REPRODUCTION,
    devkota2010::REPRODUCTION,
    sridharan2004::REPRODUCTION,
    hpcc2019::REPRODUCTION,
];

/// The reproduction called `name`.
pub fn find(name: &str) -> Option<&'static Reproduction> {
    // "amecn": the name the adaptive multi-level ECN study is also known by.
    let name = if name == "amecn" { "sridharan2004" } else { name };
    REGISTRY.iter().find(|r| r.name == name)
}

/// Names of the reproductions.
pub fn names() -> impl Iterator<Item = &'static str> {
    REGISTRY.iter().map(|r| r.name)
}

/// Runs `repro` into `dir` (an empty directory): every cell with every seed, then
/// `results.parquet`/`.csv`, `comparison.parquet`/`.csv`, `report.md` with its figures
/// and `report.html`.
pub fn run(
    repro: &Reproduction,
    dir: &Path,
    options: &Options,
    progress: ProgressFn,
    stop: &AtomicBool,
) -> Result<Outcome, String> {
    let study = (repro.declare)();
    let seeds = options.seeds(study.seeds.0, study.seeds.1);
    let duration = options.quick.then_some(study.quick_duration);
    let results = results::run(&study, &seeds, duration, options.jobs, progress, stop)?;
    results.write_table(dir)?;
    document::write_report(dir, &results, options.quick)?;
    let md_path = dir.join("report.md");
    let md = std::fs::read_to_string(&md_path).map_err(|e| format!("{}: {e}", md_path.display()))?;
    let html = crate::report::html::markdown_page(&md, dir, study.title)?;
    std::fs::write(dir.join("report.html"), html).map_err(|e| format!("{}: {e}", dir.display()))?;
    Ok(Outcome { runs: results.records.len(), report: "report.md" })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn seeds_count_from_one() {
        let o = Options { jobs: 1, quick: false, seeds: None };
        assert_eq!(o.seeds(10, 2), (1..=10).collect::<Vec<u64>>());
        assert_eq!(Options { quick: true, ..o }.seeds(10, 2), [1, 2]);
        assert_eq!(Options { seeds: Some(3), ..o }.seeds(10, 2), [1, 2, 3]);
    }

    #[test]
    fn names_are_unique_and_found() {
        for r in REGISTRY {
            assert_eq!((r.declare)().name, r.name, "the registry names the declaration");
            assert_eq!(find(r.name).map(|f| f.name), Some(r.name));
            assert_eq!(names().filter(|n| *n == r.name).count(), 1);
        }
        assert!(find("nope").is_none());
    }

    /// Every cell of every reproduction builds: none comes near a bound (memory, the
    /// firings of periodic timers, samples).
    #[test]
    fn every_cell_of_every_reproduction_builds() {
        for r in REGISTRY {
            let study = (r.declare)();
            for cell in study.cells() {
                let s = (study.scenario)(&cell);
                if let Err(e) = crate::scenario::build(&s, r.name) {
                    panic!("{} {cell:?}: {e}", r.name);
                }
            }
        }
    }

    #[test]
    fn every_declaration_holds_together() {
        for r in REGISTRY {
            let study = (r.declare)();
            if let Err(e) = study.check() {
                panic!("{e}");
            }
            assert!(!study.cells().is_empty());
        }
    }
}
