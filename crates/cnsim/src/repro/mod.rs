//! Reproductions of published experiments (`cnsim reproduce <name>`).

pub mod mliki2016;

/// Names of the reproductions.
pub const NAMES: &[&str] = &["mliki2016"];
