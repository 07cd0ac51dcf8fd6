//! Plots and reports.

pub mod html;
pub mod plot;
pub mod text;
