//! Reproductions of published experiments (`cnsim reproduce <name>`), one module per
//! paper, each registered in [`REGISTRY`] so that the command line names none of them.

use std::path::Path;
use std::sync::atomic::AtomicBool;

pub mod mliki2016;

/// How to run a reproduction.
#[derive(Clone, Copy, Debug)]
pub struct Options {
    /// Worker threads.
    pub jobs: usize,
    /// Shorter runs, for a quick look (the report says so).
    pub quick: bool,
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

/// A registered reproduction.
pub struct Reproduction {
    /// The name `cnsim reproduce` takes, e.g. "mliki2016".
    pub name: &'static str,
    /// What it reproduces, in a line.
    pub title: &'static str,
    /// Runs every simulation (stopping early once `stop` is set) and writes the report
    /// into `dir`, an empty directory.
    pub reproduce:
        fn(dir: &Path, options: &Options, progress: ProgressFn, stop: &AtomicBool) -> Result<Outcome, String>,
}

/// Every reproduction, in the order `cnsim reproduce` lists them.
pub const REGISTRY: &[Reproduction] = &[mliki2016::REPRODUCTION];

/// The reproduction called `name`.
pub fn find(name: &str) -> Option<&'static Reproduction> {
    REGISTRY.iter().find(|r| r.name == name)
}

/// Names of the reproductions.
pub fn names() -> impl Iterator<Item = &'static str> {
    REGISTRY.iter().map(|r| r.name)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_are_unique_and_found() {
        for r in REGISTRY {
            assert_eq!(find(r.name).map(|f| f.name), Some(r.name));
            assert_eq!(names().filter(|n| *n == r.name).count(), 1);
        }
        assert!(find("nope").is_none());
    }
}
