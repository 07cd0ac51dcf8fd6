//! Key figures as text for a terminal: what `cnsim run` prints after a run, and
//! `--repeat` and `sweep --summarize` after a sweep (mean ± 95 % CI over the seeds).

use std::path::Path;

use serde_json::Value;

use super::html::{
    figure_values, fmt_mean_ci, fmt_num, labelled, read_json, sweep_points, KeyFigures, DEFINITIONS,
};

/// The key figures printed, as indices into [`DEFINITIONS`]: all but the frame counts
/// delivered and created.
const SHOWN: [usize; 8] = [0, 1, 2, 3, 4, 5, 6, 7];

/// A figure's column heading: its name and unit.
fn heading(i: usize) -> String {
    let (name, unit, _) = DEFINITIONS[i];
    labelled(name, unit)
}

/// The key figures of one run's `summary.json`, one per line.
pub fn run_text(summary: &Value) -> String {
    let shown = KeyFigures::of(summary).shown();
    let width = SHOWN.iter().map(|&i| heading(i).chars().count()).max().unwrap_or(0);
    let mut out = String::new();
    for &i in &SHOWN {
        let h = heading(i);
        let pad = width - h.chars().count();
        out.push_str(&format!("  {h}{}  {}\n", " ".repeat(pad), fmt_num(shown[i])));
    }
    out
}

/// The key figures of the sweep in `dir`: a row per point (its swept values), each
/// figure's mean over the point's seeds ± the half-width of its 95 % confidence interval.
pub fn sweep_text(dir: &Path) -> Result<String, String> {
    let sweep = read_json(&dir.join("sweep.json"))?;
    let (axes, points) = sweep_points(dir, &sweep)?;
    let mut rows: Vec<Vec<String>> = Vec::new();
    let mut header: Vec<String> = axes.iter().map(|(k, _)| k.clone()).collect();
    if header.is_empty() {
        header.push("seeds".into());
    }
    header.extend(SHOWN.iter().map(|&i| heading(i)));
    rows.push(header);
    for (values, figs) in &points {
        let mut row: Vec<String> =
            if axes.is_empty() { vec![figs.len().to_string()] } else { values.clone() };
        for &i in &SHOWN {
            row.push(fmt_mean_ci(&figure_values(figs, i)));
        }
        rows.push(row);
    }
    let columns = rows[0].len();
    let widths: Vec<usize> = (0..columns)
        .map(|c| rows.iter().map(|r| r.get(c).map_or(0, |s| s.chars().count())).max().unwrap_or(0))
        .collect();
    let mut out = String::new();
    for row in &rows {
        let cells: Vec<String> = row
            .iter()
            .zip(&widths)
            .map(|(cell, &w)| format!("{cell}{}", " ".repeat(w - cell.chars().count())))
            .collect();
        out.push_str(cells.join("  ").trim_end());
        out.push('\n');
    }
    out.push_str("(mean ± half-width of the 95 % confidence interval over the seeds)\n");
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_run_prints_its_key_figures_by_name() {
        let v: Value = serde_json::from_str(
            r#"{"frames": {"created": 200, "delivered": 150, "dropped": 50, "dropped_at_sources": 30},
                "maxmin_fairness": 0.97,
                "flows": [{"throughput_bps": 1e9, "delivered_frames": 50, "mean_delay_s": 1e-5},
                          {"throughput_bps": 3e9, "delivered_frames": 100, "mean_delay_s": 4e-5}]}"#,
        )
        .unwrap();
        let text = run_text(&v);
        assert!(text.contains("  throughput (Mbit/s)"), "{text}");
        assert!(
            text.lines().any(|l| l.starts_with("  fairness vs max-min") && l.ends_with(" 0.9700")),
            "{text}"
        );
        assert!(text.lines().any(|l| l.starts_with("  dropped at sources") && l.ends_with(" 30")), "{text}");
        assert!(!text.contains("created"));
    }
}
