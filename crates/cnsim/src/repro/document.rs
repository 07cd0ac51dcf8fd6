//! The report of a declared reproduction: `report.md` with the paper's numbers next to
//! ours (and `comparison.parquet`/`.csv`), tables of every metric, the figures (SVG for
//! the report and slides, vector PDF for papers), and every cell's resolved scenario.

use std::fmt::Write as _;
use std::path::Path;

use super::results::{Estimate, Results};
use super::study::{Cell, Figure, PaperNumber, Quantity, Study};
use crate::metrics::TimeSeries;
use crate::report::plot::{bar_chart, line_chart, write_pdf, Bars, ChartStyle, Line, Step};
use crate::sweep::table::{self, Table};

/// Relative change from `a` to `b`, %; undefined (NaN) against a base near zero (below
/// 0.05 in the metric's unit: %, Mbit/s), where a ratio says nothing.
pub fn change(a: f64, b: f64) -> f64 {
    if a.abs() < 0.05 {
        f64::NAN
    } else {
        100.0 * (b - a) / a
    }
}

/// Whether `ours` is within `tolerance` (relative) of `paper`; against a published 0,
/// whether it is below 0.05.
pub fn close(ours: f64, paper: f64, tolerance: f64) -> bool {
    if ours.is_nan() {
        return false;
    }
    if paper == 0.0 {
        return ours.abs() < 0.05;
    }
    ((ours - paper) / paper).abs() <= tolerance
}

/// One row of the comparison: a paper number and our values.
#[derive(Clone, Debug)]
pub struct ComparisonRow {
    /// The paper's number.
    pub paper: PaperNumber,
    /// Where it sits ("star, Qeq 25").
    pub place: String,
    /// Per column: our value, its alternative reading, and (first column, directly
    /// measured metrics) the confidence half-width.
    pub ours: Vec<(f64, Option<f64>, Option<f64>)>,
    /// The limits of the mechanism: (first limit's value, text of all).
    pub bound: Option<(f64, String)>,
}

impl ComparisonRow {
    /// Our value in the paper's configuration.
    pub fn primary(&self) -> f64 {
        self.ours.first().map_or(f64::NAN, |o| o.0)
    }

    /// Whether the published value lies above the limit of the paper's configuration.
    pub fn outside_bound(&self) -> bool {
        self.bound.as_ref().is_some_and(|(b, _)| self.paper.value > *b + 1e-9)
    }
}

/// Computes the comparison table.
pub fn comparison(results: &Results) -> Vec<ComparisonRow> {
    let study = results.study;
    let c = &study.comparison;
    let cell = |parts: &[&[(&'static str, &'static str)]]| -> Option<Cell> {
        let at: Vec<_> = parts.iter().flat_map(|p| p.iter().copied()).collect();
        study.cell_at(&at).ok()
    };
    let mean = |cell: Option<Cell>, metric: &str| cell.map_or(f64::NAN, |c| results.mean(&c, metric));
    c.numbers
        .iter()
        .map(|p| {
            let place: Vec<String> = c
                .where_axes
                .iter()
                .filter_map(|a| p.at.iter().find(|(x, _)| x == a).map(|(_, l)| study.shown(a, l)))
                .collect();
            let ours = c
                .columns
                .iter()
                .enumerate()
                .map(|(i, col)| match p.quantity {
                    Quantity::Metric(m) => {
                        let here = cell(&[col.at, p.at]);
                        let alt = c.alternative.and_then(|a| {
                            let h = here.as_ref()?;
                            (h.get(a.axis) == a.level).then(|| mean(h.with(&[(a.axis, a.with)]), m))
                        });
                        let ci = if i == 0 {
                            here.as_ref().and_then(|h| results.estimate(h, m)?.ci95)
                        } else {
                            None
                        };
                        (mean(here, m), alt, ci)
                    }
                    Quantity::Change { metric, axis, from, to } => {
                        let base = mean(cell(&[col.at, p.at, &[(axis, from)]]), metric);
                        let at_level =
                            |level| change(base, mean(cell(&[col.at, p.at, &[(axis, level)]]), metric));
                        let alt = c
                            .alternative
                            .filter(|a| a.axis == axis && a.level == to)
                            .map(|a| at_level(a.with));
                        (at_level(to), alt, None)
                    }
                })
                .collect();
            let bound = match p.quantity {
                Quantity::Metric(m) => c.bounds.iter().find(|b| b.metric == m).and_then(|b| {
                    let first = c.columns.first()?.at;
                    let limits: Vec<(f64, String)> = b
                        .limits
                        .iter()
                        .map(|l| {
                            let v = mean(cell(&[first, p.at, l.at]), l.metric);
                            (v, format!("≤ {v:.d$} {} {}", p.unit, l.text, d = l.digits))
                        })
                        .collect();
                    let value = limits.first()?.0;
                    Some((value, limits.into_iter().map(|l| l.1).collect::<Vec<_>>().join("; ")))
                }),
                Quantity::Change { .. } => None,
            };
            ComparisonRow { paper: *p, place: place.join(", "), ours, bound }
        })
        .collect()
}

fn fmt_value(v: f64, quantity: Quantity) -> String {
    match (v.is_nan(), quantity) {
        (false, _) => format!("{v:.2}"),
        (true, Quantity::Change { .. }) => "n/a (base ≈ 0)".to_string(),
        (true, Quantity::Metric(_)) => "n/a".to_string(),
    }
}

fn fmt_cell((v, alt, ci): (f64, Option<f64>, Option<f64>), quantity: Quantity) -> String {
    let mut s = fmt_value(v, quantity);
    if let Some(ci) = ci {
        let _ = write!(s, " ± {ci:.2}");
    }
    if let Some(a) = alt {
        if !(v.is_nan() && a.is_nan()) {
            let _ = write!(s, " ({})", fmt_value(a, quantity));
        }
    }
    s
}

/// Writes the comparison as Markdown: the table, the flagged bounds, the gaps.
fn write_comparison(w: &mut String, study: &Study, rows: &[ComparisonRow]) {
    let c = &study.comparison;
    let tolerance_pct = (c.tolerance * 100.0).round();
    let _ = writeln!(w, "\n## The paper's numbers next to ours\n");
    let _ = writeln!(w, "{}\n", c.note);
    let mut header = String::from("| paper figure | where | paper |");
    let mut rule = String::from("|---|---|---|");
    for col in c.columns {
        let _ = write!(header, " {} |", col.label);
        rule.push_str("---|");
    }
    let _ = writeln!(w, "{header} difference | bound the model imposes |\n{rule}---|---|");
    for r in rows {
        let p = &r.paper;
        let _ = write!(w, "| {} | {} | {} {} |", p.what, r.place, p.value, p.unit);
        for o in &r.ours {
            let _ = write!(w, " {} |", fmt_cell(*o, p.quantity));
        }
        let diff = r.primary() - p.value;
        let _ = writeln!(
            w,
            " {}{} | {} |",
            if diff.is_nan() { "n/a".into() } else { format!("{diff:+.2}") },
            if r.outside_bound() { " ⚠" } else { "" },
            r.bound.as_ref().map_or("–", |b| b.1.as_str())
        );
    }
    if rows.iter().any(ComparisonRow::outside_bound) {
        let _ = writeln!(
            w,
            "\n⚠ marks a published value above the bound for the paper's stated configuration (the first \
             limit of the bound column; the others are those of other configurations).\n"
        );
    }
    let _ = writeln!(w, "\n### Where we differ by more than {tolerance_pct} %\n");
    let gaps: Vec<&ComparisonRow> =
        rows.iter().filter(|r| !close(r.primary(), r.paper.value, c.tolerance)).collect();
    if gaps.is_empty() {
        let _ = writeln!(w, "Nowhere.\n");
    }
    for r in gaps {
        let p = &r.paper;
        let elsewhere = r.ours.iter().skip(1).any(|o| close(o.0, p.value, c.tolerance))
            || r.ours.iter().any(|o| o.1.is_some_and(|a| close(a, p.value, c.tolerance)));
        let ours = match (r.primary().is_nan(), p.quantity) {
            (false, _) => format!("{:.2}", r.primary()),
            (true, Quantity::Change { .. }) => "n/a: the base of the change is ≈ 0".to_string(),
            (true, Quantity::Metric(_)) => "n/a".to_string(),
        };
        let _ = writeln!(
            w,
            "- {} ({}): paper {} {}, ours {ours}.{}{}",
            p.what,
            r.place,
            p.value,
            p.unit,
            if r.outside_bound() {
                " The published value lies outside what the described mechanism can produce in the paper's \
                 configuration (see the bound)."
            } else {
                ""
            },
            if elsewhere {
                format!(" Another configuration comes within {tolerance_pct} %.")
            } else {
                String::new()
            }
        );
    }
}

/// Writes `comparison.parquet` and `comparison.csv`: one row per paper number and column.
fn write_comparison_table(dir: &Path, study: &Study, rows: &[ComparisonRow]) -> Result<(), String> {
    let mut t = Table::default();
    for r in rows {
        for (col, (v, alt, ci)) in study.comparison.columns.iter().zip(&r.ours) {
            let mut row = vec![
                ("what".to_string(), table::Cell::Text(r.paper.what.into())),
                ("where".to_string(), table::Cell::Text(r.place.clone())),
                ("unit".to_string(), table::Cell::Text(r.paper.unit.into())),
                ("paper".to_string(), table::Cell::Float(r.paper.value)),
                ("configuration".to_string(), table::Cell::Text(col.label.into())),
            ];
            // Undefined values are left out of the row: null in the table.
            let numbers = [
                ("ours", Some(*v)),
                ("ours_ci95", *ci),
                ("ours_alternative", *alt),
                ("bound", r.bound.as_ref().map(|b| b.0)),
            ];
            for (name, x) in numbers {
                if let Some(x) = x.filter(|x| !x.is_nan()) {
                    row.push((name.to_string(), table::Cell::Float(x)));
                }
            }
            t.push_row(row);
        }
    }
    t.write_files(dir, "comparison", &[("reproduction", study.name.to_string())])
}

/// Writes the tables of every metric.
fn write_tables(w: &mut String, results: &Results) {
    let study = results.study;
    let t = &study.tables;
    let Some(sections) = study.axis(t.sections) else { return };
    for section in &sections.levels {
        let _ = writeln!(w, "\n## All metrics: {}\n", section.label);
        for facet in study.combinations(study.facets) {
            let labels: Vec<&str> = facet.0.iter().map(|(a, l)| study.label(a, l)).collect();
            if !labels.is_empty() {
                let _ = writeln!(w, "\n### {}\n", labels.join(", "));
            }
            let titles: Vec<&str> = t.rows.iter().map(|a| study.axis(a).map_or(*a, |a| a.title)).collect();
            let headers: Vec<&str> = t.columns.iter().map(|c| c.header).collect();
            let _ = writeln!(w, "| {} | {} |", titles.join(" | "), headers.join(" | "));
            let _ = writeln!(w, "|{}", "---|".repeat(titles.len() + headers.len()));
            for row in study.combinations(t.rows) {
                let mut at = vec![(sections.name, section.key)];
                at.extend(facet.0.iter().copied());
                at.extend(row.0.iter().copied());
                let Ok(cell) = study.cell_at(&at) else { continue };
                if results.first(&cell).is_none() {
                    continue;
                }
                let mut line: Vec<String> =
                    row.0.iter().map(|(a, l)| study.label(a, l).to_string()).collect();
                for col in t.columns {
                    if !col.absent_at.is_empty() && cell.is_at(col.absent_at) {
                        line.push("n/a".into());
                    } else if let Some(prefix) = col.metric.strip_suffix('*') {
                        let parts: Vec<String> = results
                            .family(&cell, prefix)
                            .iter()
                            .map(|m| {
                                format!(
                                    "{} {:.d$}",
                                    &m[prefix.len()..],
                                    results.mean(&cell, m),
                                    d = col.digits
                                )
                            })
                            .collect();
                        line.push(parts.join(", "));
                    } else {
                        let v = results.mean(&cell, col.metric);
                        line.push(if v.is_nan() { "n/a".into() } else { format!("{v:.d$}", d = col.digits) });
                    }
                }
                let _ = writeln!(w, "| {} |", line.join(" | "));
            }
        }
    }
}

/// Sums every `k` samples of every column.
fn rebin(ts: &TimeSeries, k: usize) -> (Vec<f64>, Vec<Vec<f64>>) {
    let k = k.max(1);
    let xs: Vec<f64> = ts.times_s.chunks(k).map(|c| *c.last().unwrap_or(&0.0)).collect();
    let ys = ts.columns.iter().map(|c| c.values.chunks(k).map(|v| v.iter().sum()).collect()).collect();
    (xs, ys)
}

/// How a time series is drawn: its unit, scaling, binning, reference line and style.
struct SeriesDrawing<'a> {
    y_label: &'a str,
    /// Multiply values by this.
    scale: f64,
    /// Sum every `rebin` samples.
    rebin: usize,
    /// A dashed reference line (label, value).
    reference: Option<(&'a str, f64)>,
    style: ChartStyle,
}

/// Draws every column of `ts` as a line over time into the SVG file `path`.
fn draw_series(path: &Path, caption: &str, ts: &TimeSeries, how: &SeriesDrawing) -> Result<(), String> {
    let (xs, ys) = rebin(ts, how.rebin);
    let ys: Vec<Vec<f64>> = ys.into_iter().map(|c| c.into_iter().map(|v| v * how.scale).collect()).collect();
    let reference_ys = how.reference.map(|(_, v)| vec![v; xs.len()]);
    let mut lines: Vec<Line> = ts
        .columns
        .iter()
        .zip(&ys)
        .map(|(c, ys)| Line { label: &c.name, xs: &xs, ys, reference: false })
        .collect();
    if let (Some((label, _)), Some(ys)) = (how.reference, &reference_ys) {
        lines.push(Line { label, xs: &xs, ys, reference: true });
    }
    line_chart(path, caption, "time (s)", how.y_label, &lines, how.style)
}

/// Draws the figures of one facet into `dir`; returns (file, caption) pairs.
fn draw_figures(dir: &Path, results: &Results, facet: &Cell) -> Result<Vec<(String, String)>, String> {
    let study = results.study;
    let mut out = Vec::new();
    let locate = |parts: &[&[(&'static str, &'static str)]]| -> Option<Cell> {
        let at: Vec<_> = parts.iter().flat_map(|p| p.iter().copied()).collect();
        study.cell_at(&at).ok()
    };
    for figure in &study.figures {
        match figure {
            Figure::Bars { file, caption, y_label, at, categories, series, metric, y_max } => {
                let Some(axis) = study.axis(categories) else { continue };
                let bars: Vec<Bars> = series
                    .1
                    .iter()
                    .map(|s| {
                        let cells: Vec<Option<Estimate>> = axis
                            .levels
                            .iter()
                            .map(|c| {
                                locate(&[&facet.0, at, &[(series.0, s), (axis.name, c.key)]])
                                    .and_then(|cell| results.estimate(&cell, metric))
                            })
                            .collect();
                        let errors = cells.iter().any(|e| e.is_some_and(|e| e.ci95.is_some())).then(|| {
                            cells.iter().map(|e| e.and_then(|e| e.ci95).unwrap_or(f64::NAN)).collect()
                        });
                        Bars {
                            label: study.label(series.0, s).to_string(),
                            values: cells.iter().map(|e| e.map_or(f64::NAN, |e| e.mean)).collect(),
                            errors,
                        }
                    })
                    .collect();
                let cats: Vec<String> =
                    axis.levels.iter().map(|l| format!("{} {}", axis.title, l.label)).collect();
                let file = format!("{file}.svg");
                bar_chart(&dir.join(&file), caption, &cats, y_label, &bars, *y_max)?;
                write_pdf(&dir.join(&file))?;
                out.push((file, caption.to_string()));
            }
            Figure::Curve { file, caption, at, points, series, x, y } => {
                let Some(axis) = study.axis(points) else { continue };
                let curves: Vec<(String, Vec<f64>, Vec<f64>)> = series
                    .1
                    .iter()
                    .map(|s| {
                        let mut pts: Vec<(f64, f64)> = axis
                            .levels
                            .iter()
                            .filter_map(|l| {
                                let cell = locate(&[&facet.0, at, &[(series.0, s), (axis.name, l.key)]])?;
                                let px = results.estimate(&cell, x.0)?.mean;
                                let py = results.estimate(&cell, y.0)?.mean;
                                Some((px, py))
                            })
                            .collect();
                        pts.sort_by(|a, b| a.0.total_cmp(&b.0));
                        let (xs, ys) = pts.into_iter().unzip();
                        (study.label(series.0, s).to_string(), xs, ys)
                    })
                    .collect();
                let lines: Vec<Line> =
                    curves.iter().map(|(label, xs, ys)| Line { label, xs, ys, reference: false }).collect();
                let file = format!("{file}.svg");
                let style = ChartStyle { step: Step::None, worst_is_lowest: false };
                line_chart(&dir.join(&file), caption, x.1, y.1, &lines, style)?;
                write_pdf(&dir.join(&file))?;
                out.push((file, caption.to_string()));
            }
            Figure::Series {
                file,
                caption,
                at,
                series,
                scale,
                rebin: k,
                y_label,
                reference,
                step,
                worst_is_lowest,
            } => {
                let Some(record) = locate(&[&facet.0, at]).and_then(|c| results.first(&c)) else { continue };
                let Some((_, ts)) = record.measured.series.iter().find(|(n, _)| n == series) else {
                    continue;
                };
                let file = format!("{file}.svg");
                let how = SeriesDrawing {
                    y_label,
                    scale: *scale,
                    rebin: *k,
                    reference: *reference,
                    style: ChartStyle { step: *step, worst_is_lowest: *worst_is_lowest },
                };
                draw_series(&dir.join(&file), caption, ts, &how)?;
                write_pdf(&dir.join(&file))?;
                out.push((file, caption.to_string()));
            }
        }
    }
    Ok(out)
}

/// Writes `report.md`, its figures, `comparison.*` and `scenarios/` into `dir` (which
/// exists).
pub fn write_report(dir: &Path, results: &Results, quick: bool) -> Result<(), String> {
    let study = results.study;
    let io = |e: std::io::Error| format!("{}: {e}", dir.display());
    std::fs::create_dir_all(dir.join("figures")).map_err(io)?;
    std::fs::create_dir_all(dir.join("scenarios")).map_err(io)?;
    let mut cells = 0;
    for r in &results.records {
        if let Some(toml) = &r.scenario_toml {
            cells += 1;
            std::fs::write(dir.join("scenarios").join(format!("{}.toml", study.cell_name(&r.cell))), toml)
                .map_err(io)?;
        }
    }
    let mut md = String::new();
    let w = &mut md;
    let _ = writeln!(w, "# Reproduction of {}\n", study.title);
    let _ = writeln!(
        w,
        "Produced by `cnsim reproduce {}` (cnsim {}): {cells} cells × {} seeds ({}) = {} runs of {} simulated{}. \
         Every figure below is the mean over the seeds; where a ± or an error bar is shown it is the 95 % \
         confidence interval of that mean (Student's t). `results.parquet` has every run and \
         `comparison.parquet` the comparison with the paper; every cell's resolved scenario (first seed) is \
         in `scenarios/`.\n",
        study.name,
        crate::VERSION,
        results.seeds.len(),
        results.seeds.iter().map(u64::to_string).collect::<Vec<_>>().join(", "),
        results.records.len(),
        results.duration,
        if quick { " (`--quick`: shorter than the full reproduction)" } else { "" }
    );
    w.push_str(study.intro);
    let _ = writeln!(w, "\n## Definitions\n");
    for m in &study.metrics {
        let unit = if m.unit.is_empty() { String::new() } else { format!(" ({})", m.unit) };
        let _ = writeln!(w, "- **{}**{unit}, `{}`: {}", m.title, m.name, m.doc);
    }
    let rows = comparison(results);
    write_comparison(w, study, &rows);
    write_comparison_table(dir, study, &rows)?;
    w.push_str(study.gaps);
    write_tables(w, results);

    let _ = writeln!(w, "\n## Figures\n");
    if !study.facets.is_empty() {
        let _ = writeln!(
            w,
            "Each configuration's figures are in `figures/<configuration>/`; the paper's own configuration's are \
             shown here.\n"
        );
    }
    for (i, facet) in study.combinations(study.facets).iter().enumerate() {
        let sub = study.cell_name(facet);
        let fdir = dir.join("figures").join(&sub);
        std::fs::create_dir_all(&fdir).map_err(io)?;
        let figs = draw_figures(&fdir, results, facet)?;
        let sub = if sub.is_empty() { String::new() } else { format!("{sub}/") };
        if i == 0 {
            for (file, caption) in &figs {
                let _ = writeln!(w, "**{caption}**\n\n![{caption}](figures/{sub}{file})\n");
            }
        } else {
            let labels: Vec<&str> = facet.0.iter().map(|(a, l)| study.label(a, l)).collect();
            let list: Vec<String> = figs.iter().map(|(f, c)| format!("[{c}](figures/{sub}{f})")).collect();
            let _ = writeln!(w, "- {}: {}\n", labels.join(", "), list.join(" · "));
        }
    }
    write_every_cell(w, dir, results)?;
    std::fs::write(dir.join("report.md"), md).map_err(io)
}

/// Draws the declared series of every cell's first seed into `figures/cells/` and lists
/// them, a row per cell.
fn write_every_cell(w: &mut String, dir: &Path, results: &Results) -> Result<(), String> {
    let study = results.study;
    if study.every_cell.is_empty() {
        return Ok(());
    }
    let cells_dir = dir.join("figures").join("cells");
    std::fs::create_dir_all(&cells_dir).map_err(|e| format!("{}: {e}", cells_dir.display()))?;
    let _ = writeln!(w, "\n## Every cell\n");
    let _ = writeln!(w, "Each cell's series over time (first seed), in `figures/cells/`.\n");
    for cell in study.cells() {
        let Some(record) = results.first(&cell) else { continue };
        let name = study.cell_name(&cell);
        let mut links = Vec::new();
        for spec in &study.every_cell {
            let Some((_, ts)) = record.measured.series.iter().find(|(n, _)| *n == spec.series) else {
                continue;
            };
            let file = format!("{name}-{}.svg", spec.title);
            let caption = format!("{}, {name}, seed {}", spec.title, record.seed);
            let how = SeriesDrawing {
                y_label: spec.y_label,
                scale: spec.scale,
                rebin: 1,
                reference: None,
                style: ChartStyle { step: spec.step, worst_is_lowest: spec.worst_is_lowest },
            };
            draw_series(&cells_dir.join(&file), &caption, ts, &how)?;
            links.push(format!("[{}](figures/cells/{file})", spec.title));
        }
        let labels: Vec<String> = cell.0.iter().map(|(a, l)| study.shown(a, l)).collect();
        let _ = writeln!(w, "- {}: {}", labels.join(", "), links.join(" · "));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::repro::results::Record;
    use crate::repro::study::{
        Alternative, Axis, Bound, Column, Comparison, Level, Limit, Measured, MetricDoc, Study, TableColumn,
        Tables,
    };
    use crate::scenario::units::Duration;

    /// A two-axis toy: scheme {off, a, b} × load {1, 2}; "off" has no second sampling
    /// level, so (off, fine) is an alias of (off, coarse).
    fn toy() -> Study {
        let level = |key, label| Level { key, label };
        Study {
            name: "toy",
            title: "Toy",
            seeds: (2, 1),
            quick_duration: Duration(1),
            axes: vec![
                Axis {
                    name: "scheme",
                    title: "scheme",
                    prefix: "",
                    levels: vec![level("off", "off"), level("a", "A"), level("b", "B")],
                },
                Axis {
                    name: "sampling",
                    title: "sampling",
                    prefix: "",
                    levels: vec![level("coarse", "coarse"), level("fine", "fine")],
                },
                Axis {
                    name: "load",
                    title: "load",
                    prefix: "x",
                    levels: vec![level("1", "1"), level("2", "2")],
                },
            ],
            alias: |c| {
                (c.get("scheme") == "off" && c.get("sampling") == "fine")
                    .then(|| c.with(&[("sampling", "coarse")]))
                    .flatten()
            },
            skip: |_| false,
            scenario: |_| panic!("the toy is not simulated"),
            measure: |_, _| Measured::default(),
            metrics: vec![
                MetricDoc { name: "loss", title: "Loss", unit: "%", doc: "lost share" },
                MetricDoc { name: "limit", title: "Limit", unit: "%", doc: "most loss possible" },
            ],
            comparison: Comparison {
                numbers: vec![
                    PaperNumber {
                        what: "loss of A",
                        at: &[("scheme", "a"), ("load", "2")],
                        value: 12.0,
                        unit: "%",
                        quantity: Quantity::Metric("loss"),
                    },
                    PaperNumber {
                        what: "loss change A→B",
                        at: &[("load", "2")],
                        value: -50.0,
                        unit: "%",
                        quantity: Quantity::Change { metric: "loss", axis: "scheme", from: "a", to: "b" },
                    },
                    PaperNumber {
                        what: "loss change A→B at load 1",
                        at: &[("load", "1")],
                        value: -50.0,
                        unit: "%",
                        quantity: Quantity::Change { metric: "loss", axis: "scheme", from: "a", to: "b" },
                    },
                ],
                where_axes: &["scheme", "load"],
                columns: &[
                    Column { label: "coarse", at: &[("sampling", "coarse")] },
                    Column { label: "fine", at: &[("sampling", "fine")] },
                ],
                alternative: Some(Alternative { axis: "scheme", level: "b", with: "a" }),
                bounds: &[Bound {
                    metric: "loss",
                    limits: &[Limit {
                        metric: "limit",
                        at: &[("scheme", "off")],
                        digits: 1,
                        text: "without control",
                    }],
                }],
                tolerance: 0.25,
                note: "",
            },
            tables: Tables {
                sections: "load",
                rows: &["scheme"],
                columns: &[TableColumn {
                    header: "loss",
                    metric: "loss",
                    digits: 1,
                    absent_at: &[("scheme", "off")],
                }],
            },
            facets: &["sampling"],
            figures: Vec::new(),
            every_cell: Vec::new(),
            intro: "",
            gaps: "",
        }
    }

    /// Loss per seed: A at load 2 is 8 and 12 (coarse) or 11 (fine); B at load 2 is 4
    /// and 6; A at load 1 is 0.01 (a base near zero); the limit without control is 10.
    fn toy_results(study: &Study) -> Results<'_> {
        let mut records = Vec::new();
        for cell in study.cells() {
            for seed in [1, 2] {
                let loss = match (cell.get("scheme"), cell.get("sampling"), cell.get("load"), seed) {
                    ("a", "coarse", "2", 1) => 8.0,
                    ("a", "coarse", "2", _) => 12.0,
                    ("a", "fine", "2", _) => 11.0,
                    ("b", _, "2", 1) => 4.0,
                    ("b", _, "2", _) => 6.0,
                    ("a", _, "1", _) => 0.01,
                    _ => 1.0,
                };
                let measured = Measured {
                    scalars: vec![("loss".into(), loss), ("limit".into(), 10.0)],
                    series: Vec::new(),
                };
                records.push(Record { cell: cell.clone(), seed, measured, scenario_toml: None });
            }
        }
        Results::new(study, records, vec![1, 2], Duration(1))
    }

    #[test]
    fn the_grid_skips_aliases_and_names_cells() {
        let study = toy();
        assert!(study.check().is_ok(), "{:?}", study.check());
        assert_eq!(study.all_cells().len(), 12);
        assert_eq!(study.cells().len(), 10, "(off, fine) × 2 loads are aliases");
        let cell = study.cell_at(&[("scheme", "a"), ("sampling", "fine"), ("load", "2")]).unwrap();
        assert_eq!(study.cell_name(&cell), "a-fine-x2");
        assert!(study.cell_at(&[("scheme", "a"), ("load", "2")]).is_err(), "sampling missing");
        assert!(study.cell_at(&[("scheme", "z"), ("sampling", "fine"), ("load", "2")]).is_err());
        assert_eq!(study.shown("load", "2"), "load 2");
        assert_eq!(study.shown("scheme", "a"), "A");
    }

    #[test]
    fn a_declaration_naming_a_missing_level_or_metric_is_caught() {
        let mut study = toy();
        study.comparison.numbers[0].at = &[("scheme", "c"), ("load", "2")];
        assert!(study.check().unwrap_err().0.contains("no level c"));
        let mut study = toy();
        study.comparison.numbers[0].quantity = Quantity::Metric("delay");
        assert!(study.check().unwrap_err().0.contains("undefined metric delay"));
    }

    #[test]
    fn estimates_follow_aliases() {
        let study = toy();
        let r = toy_results(&study);
        let off_fine = study.cell_at(&[("scheme", "off"), ("sampling", "fine"), ("load", "1")]).unwrap();
        assert_eq!(r.runs(&off_fine).count(), 2, "read from (off, coarse)");
        let a = study.cell_at(&[("scheme", "a"), ("sampling", "coarse"), ("load", "2")]).unwrap();
        let e = r.estimate(&a, "loss").unwrap();
        assert_eq!(e.mean, 10.0);
        // Two seeds 8 and 12: s = 2√2, t(0.975, 1) = 12.706, half-width = 12.706 · 2.
        assert!((e.ci95.unwrap() - 25.41).abs() < 0.01, "{e:?}");
    }

    #[test]
    fn the_comparison_computes_changes_alternatives_and_bounds() {
        let study = toy();
        let r = toy_results(&study);
        let rows = comparison(&r);
        // Loss of A at load 2: coarse 10 (± 25.41), fine 11; the limit is 10 < 12: flagged.
        assert_eq!(rows[0].place, "A, load 2");
        assert_eq!(rows[0].ours[0].0, 10.0);
        assert_eq!(rows[0].ours[1], (11.0, None, None));
        assert_eq!(rows[0].bound.as_ref().unwrap().0, 10.0);
        assert_eq!(rows[0].bound.as_ref().unwrap().1, "≤ 10.0 % without control");
        assert!(rows[0].outside_bound());
        // Change A→B at load 2: coarse 10 → 5 = −50 %; fine 11 → 5 = −54.5 %. The
        // alternative reads B as A: 0 %.
        assert_eq!(rows[1].ours[0], (-50.0, Some(0.0), None));
        assert!((rows[1].ours[1].0 + 54.545).abs() < 0.01);
        assert!(rows[1].bound.is_none());
        // At load 1 the base (0.01) is ≈ 0: no ratio.
        assert!(rows[2].ours[0].0.is_nan());
        assert_eq!(fmt_cell(rows[2].ours[0], rows[2].paper.quantity), "n/a (base ≈ 0)");

        let mut md = String::new();
        write_comparison(&mut md, &study, &rows);
        assert!(md.contains("| loss of A | A, load 2 | 12 % | 10.00 ± 25.41 | 11.00 | -2.00 ⚠ | ≤ 10.0 % without control |"), "{md}");
        assert!(
            md.contains(
                "- loss change A→B at load 1 (load 1): paper -50 %, ours n/a: the base of the change is ≈ 0."
            ),
            "{md}"
        );
        assert!(!md.contains("- loss change A→B (load 2)"), "−50 % matches: no gap");
    }

    #[test]
    fn tables_show_each_facet_and_say_absent_metrics() {
        let study = toy();
        let r = toy_results(&study);
        let mut md = String::new();
        write_tables(&mut md, &r);
        assert!(md.contains("## All metrics: 2"), "{md}");
        assert!(md.contains("| off | n/a |"), "{md}");
        assert!(md.contains("| A | 10.0 |") && md.contains("| A | 11.0 |"), "{md}");
    }

    #[test]
    fn change_and_closeness() {
        assert_eq!(change(10.0, 5.0), -50.0);
        assert!(change(0.04, 5.0).is_nan());
        assert!(close(12.0, 10.0, 0.25) && !close(13.0, 10.0, 0.25));
        assert!(close(0.01, 0.0, 0.25) && !close(0.1, 0.0, 0.25));
        assert!(!close(f64::NAN, 1.0, 0.25));
    }
}
