//! Plots and reports.

pub mod plot;
