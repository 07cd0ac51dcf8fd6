//! Plots and reports.

pub mod html;
pub mod plot;
