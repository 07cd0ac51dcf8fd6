//! The report of a declared reproduction: `report.md` with the paper's numbers next to
//! ours (and `comparison.parquet`/`.csv`), tables of every metric, the figures (SVG for
//! the report and slides, vector PDF for papers), and every cell's resolved scenario.

use std::fmt::Write as _;
use std::path::Path;

use super::results::{Estimate, Results};
use super::study::{Cell, Figure, PaperNumber, Quantity, Rule, Study, Verdict};
use crate::metrics::TimeSeries;
use crate::report::plot::{
    bar_chart, line_chart, line_chart_log, write_pdf, Bars, ChartStyle, Line, Role, Step, PAPER,
};
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

/// Our value of a paper number in one configuration.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Ours {
    /// The mean over seeds (a change: between the two levels' means); NaN where undefined.
    pub(crate) value: f64,
    /// The alternative reading, where the comparison declares one.
    pub(crate) alternative: Option<f64>,
    /// The 95 % confidence half-width of the mean (Student's t over seeds; a change: of
    /// the seeds' paired differences, in % of the base's mean); with two seeds or more.
    pub(crate) ci95: Option<f64>,
    /// Seeds behind it (a change: seeds with both levels).
    pub(crate) seeds: usize,
}

/// One row of the comparison: a paper number, our values and the verdict.
#[derive(Clone, Debug)]
pub struct ComparisonRow {
    /// The paper's number.
    pub(crate) paper: PaperNumber,
    /// Where it sits ("star, Qeq 25").
    pub(crate) place: String,
    /// Per column.
    pub(crate) ours: Vec<Ours>,
    /// The limits of the mechanism: (first limit's value, text of all).
    pub(crate) bound: Option<(f64, String)>,
    /// The value the rule's `from` names, in the first column.
    pub(crate) reference: Option<f64>,
    /// The verdict on the first column (the paper's configuration).
    pub(crate) verdict: Verdict,
}

impl ComparisonRow {
    /// Our value in the paper's configuration.
    pub fn primary(&self) -> f64 {
        self.ours.first().map_or(f64::NAN, |o| o.value)
    }

    /// Whether the published value lies above the limit of the paper's configuration.
    pub fn outside_bound(&self) -> bool {
        self.bound.as_ref().is_some_and(|(b, _)| self.paper.value > *b + 1e-9)
    }
}

/// The verdict of `rule` on our value `o` against the paper's `paper`, with the
/// reference value `reference` (a metric's at the rule's `from`) and the relative
/// `tolerance` (see [`Rule`]).
pub fn verdict(
    rule: Rule,
    quantity: Quantity,
    paper: f64,
    o: &Ours,
    reference: Option<f64>,
    tolerance: f64,
) -> Verdict {
    if let Rule::Declared(v, _) = rule {
        return v;
    }
    let (m, p) = (o.value, paper);
    let Some(h) = o.ci95.filter(|h| h.is_finite() && m.is_finite() && p.is_finite()) else {
        return Verdict::NotComparable;
    };
    match rule {
        Rule::Beyond { above } => {
            let (lo, hi) = (m - h, m + h);
            if (above && lo > p) || (!above && hi < p) {
                Verdict::Reproduced
            } else if (above && hi < p) || (!above && lo > p) {
                Verdict::Contradicted
            } else {
                Verdict::NotComparable
            }
        }
        _ => {
            let change = matches!(quantity, Quantity::Change { .. });
            let band = match (p == 0.0, change) {
                (false, _) => tolerance * p.abs(),
                (true, true) => tolerance * 100.0,
                (true, false) => 0.05,
            };
            if (m - p).abs() <= band && h <= band {
                return Verdict::Reproduced;
            }
            let from = if change { Some(0.0) } else { reference.filter(|r| r.is_finite()) };
            if let Some(r) = from {
                if p != r && (m - r) * (p - r) > 0.0 && (m - r).abs() > h {
                    return Verdict::SameTrend;
                }
            }
            if (m - p).abs() - h > band {
                Verdict::Contradicted
            } else {
                Verdict::NotComparable
            }
        }
    }
}

/// The value the paper states for `metric` at `cell`, to draw beside ours: a paper
/// number of that metric whose rule takes a value (not a direction or a declared claim),
/// placed at `cell` in the paper's configuration (the comparison's first column).
pub fn paper_value(study: &Study, cell: &Cell, metric: &str) -> Option<f64> {
    let first = study.comparison.columns.first().map_or(&[][..], |c| c.at);
    study
        .comparison
        .numbers
        .iter()
        .filter(|p| matches!(p.quantity, Quantity::Metric(m) if m == metric))
        .filter(|p| matches!(p.rule, Rule::Value { .. }))
        .find(|p| {
            let at: Vec<_> = first.iter().chain(p.at).copied().collect();
            study.cell_at(&at).is_ok_and(|c| c == *cell)
        })
        .map(|p| p.value)
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
            let ours: Vec<Ours> = c
                .columns
                .iter()
                .map(|col| match p.quantity {
                    Quantity::Metric(m) => {
                        let here = cell(&[col.at, p.at]);
                        let alternative = c.alternative.and_then(|a| {
                            let h = here.as_ref()?;
                            (h.get(a.axis) == a.level).then(|| mean(h.with(&[(a.axis, a.with)]), m))
                        });
                        let estimate = here.as_ref().and_then(|h| results.estimate(h, m));
                        let seeds = here.as_ref().map_or(0, |h| results.values(h, m).len());
                        Ours {
                            value: estimate.map_or(f64::NAN, |e| e.mean),
                            alternative,
                            ci95: estimate.and_then(|e| e.ci95),
                            seeds,
                        }
                    }
                    Quantity::Change { metric, axis, from, to } => {
                        let base_cell = cell(&[col.at, p.at, &[(axis, from)]]);
                        let to_cell = cell(&[col.at, p.at, &[(axis, to)]]);
                        let base = mean(base_cell.clone(), metric);
                        let at_level =
                            |level| change(base, mean(cell(&[col.at, p.at, &[(axis, level)]]), metric));
                        let alternative = c
                            .alternative
                            .filter(|a| a.axis == axis && a.level == to)
                            .map(|a| at_level(a.with));
                        // Paired by seed: the same seed's run at both levels.
                        let (diffs, seeds) = match (&base_cell, &to_cell) {
                            (Some(a), Some(b)) => {
                                let a = results.by_seed(a, metric);
                                let b = results.by_seed(b, metric);
                                let d: Vec<f64> = a
                                    .iter()
                                    .filter_map(|(s, x)| b.iter().find(|(t, _)| t == s).map(|(_, y)| y - x))
                                    .collect();
                                let n = d.len();
                                (d, n)
                            }
                            _ => (Vec::new(), 0),
                        };
                        let value = at_level(to);
                        let ci95 = (!diffs.is_empty() && value.is_finite())
                            .then(|| crate::sweep::table::mean_std_ci95(&diffs).2)
                            .flatten()
                            .map(|h| 100.0 * h / base.abs());
                        Ours { value, alternative, ci95, seeds }
                    }
                })
                .collect();
            let first = c.columns.first().map_or(&[][..], |col| col.at);
            let bound = match p.quantity {
                Quantity::Metric(m) => c.bounds.iter().find(|b| b.metric == m).and_then(|b| {
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
            let reference = match (p.rule, p.quantity) {
                (Rule::Value { from: Some(from) }, Quantity::Metric(m)) => {
                    Some(mean(cell(&[first, p.at, from]), m))
                }
                _ => None,
            };
            let primary = ours.first().copied().unwrap_or(Ours {
                value: f64::NAN,
                alternative: None,
                ci95: None,
                seeds: 0,
            });
            let verdict = verdict(p.rule, p.quantity, p.value, &primary, reference, c.tolerance);
            ComparisonRow { paper: *p, place: place.join(", "), ours, bound, reference, verdict }
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

fn fmt_cell(o: &Ours, quantity: Quantity) -> String {
    let mut s = fmt_value(o.value, quantity);
    if let Some(ci) = o.ci95.filter(|_| !o.value.is_nan()) {
        let _ = write!(s, " ± {ci:.2}");
    }
    if let Some(a) = o.alternative {
        if !(o.value.is_nan() && a.is_nan()) {
            let _ = write!(s, " ({})", fmt_value(a, quantity));
        }
    }
    s
}

/// The paper's value as the comparison shows it: a threshold with its side, a claim
/// without a number in words.
fn fmt_paper(p: &PaperNumber) -> String {
    let unit = if p.unit.is_empty() { String::new() } else { format!(" {}", p.unit) };
    match p.rule {
        _ if p.value.is_nan() => "(claim)".to_string(),
        Rule::Beyond { above } => format!("{} {}{unit}", if above { ">" } else { "<" }, p.value),
        _ => format!("{}{unit}", p.value),
    }
}

/// The seed counts of a row's columns: one number where they agree.
fn fmt_seeds(r: &ComparisonRow) -> String {
    let mut n: Vec<usize> = r.ours.iter().map(|o| o.seeds).collect();
    n.dedup();
    n.iter().map(usize::to_string).collect::<Vec<_>>().join(" / ")
}

/// Writes the comparison as Markdown: the table with each row's verdict, the counts,
/// every row not reproduced, the flagged bounds.
fn write_comparison(w: &mut String, study: &Study, rows: &[ComparisonRow]) {
    let c = &study.comparison;
    let tolerance_pct = (c.tolerance * 100.0).round();
    let _ = writeln!(w, "\n## The paper's numbers next to ours\n");
    let _ = writeln!(w, "{}\n", c.note);
    let _ = writeln!(
        w,
        "Each value is our mean over seeds ± the 95 % confidence half-width of that mean (Student's t; for a \
         change, of the seeds' paired differences, in % of the base). The verdict judges the first column \
         (the paper's configuration) by the row's rule, with a tolerance of {tolerance_pct} %: a stated value is \
         *reproduced* where our mean and the half-width both lie within {tolerance_pct} % of it, *same trend* \
         where our value moved from its reference (no change, or the configuration the row names) towards the \
         paper's and the interval excludes the reference, *contradicted* where the whole interval lies outside \
         the {tolerance_pct} %; a stated direction (> or <) is reproduced where the whole interval lies on its \
         side and contradicted where it lies wholly on the other; anything else is *not comparable* (within \
         noise, too few seeds, or a reason given below).\n"
    );
    let with_bounds = rows.iter().any(|r| r.bound.is_some());
    let mut header = String::from("| paper figure | where | paper |");
    let mut rule = String::from("|---|---|---|");
    for col in c.columns {
        let _ = write!(header, " {} |", col.label);
        rule.push_str("---|");
    }
    header.push_str(" seeds | verdict |");
    rule.push_str("---|---|");
    if with_bounds {
        header.push_str(" bound the model imposes |");
        rule.push_str("---|");
    }
    let _ = writeln!(w, "{header}\n{rule}");
    for r in rows {
        let p = &r.paper;
        let _ = write!(w, "| {} | {} | {} |", p.what, r.place, fmt_paper(p));
        for o in &r.ours {
            let _ = write!(w, " {} |", fmt_cell(o, p.quantity));
        }
        let _ = write!(
            w,
            " {} | {}{} |",
            fmt_seeds(r),
            r.verdict.label(),
            if r.outside_bound() { " ⚠" } else { "" }
        );
        if with_bounds {
            let _ = write!(w, " {} |", r.bound.as_ref().map_or("none", |b| b.1.as_str()));
        }
        w.push('\n');
    }
    if rows.iter().any(ComparisonRow::outside_bound) {
        let _ = writeln!(
            w,
            "\n⚠ marks a published value above the bound for the paper's stated configuration (the first \
             limit of the bound column; the others are those of other configurations).\n"
        );
    }
    let _ = writeln!(w, "\n### Verdicts\n");
    let counts: Vec<String> = Verdict::ALL
        .iter()
        .map(|v| format!("{} {}", rows.iter().filter(|r| r.verdict == *v).count(), v.label()))
        .collect();
    let _ = writeln!(w, "Of {} rows: {}.\n", rows.len(), counts.join(", "));
    let others: Vec<&ComparisonRow> = rows.iter().filter(|r| r.verdict != Verdict::Reproduced).collect();
    if !others.is_empty() {
        let _ = writeln!(w, "Every row not reproduced, with every column:\n");
    }
    for r in others {
        let p = &r.paper;
        let values: Vec<String> = c
            .columns
            .iter()
            .zip(&r.ours)
            .map(|(col, o)| format!("{} {} ({} seeds)", col.label, fmt_cell(o, p.quantity), o.seeds))
            .collect();
        let reference = r.reference.map_or(String::new(), |v| format!("; reference {v:.2}"));
        let why = match p.rule {
            Rule::Declared(_, why) => format!(": {why}"),
            _ => String::new(),
        };
        let bound = if r.outside_bound() {
            " The published value lies outside what the described mechanism can produce in the paper's \
             configuration (see the bound)."
        } else {
            ""
        };
        let _ = writeln!(
            w,
            "- {} ({}): paper {}; {}{reference}. **{}**{why}.{bound}",
            p.what,
            r.place,
            fmt_paper(p),
            values.join(", "),
            r.verdict.label()
        );
    }
}

/// Writes `comparison.parquet` and `comparison.csv`: one row per paper number and column.
fn write_comparison_table(dir: &Path, study: &Study, rows: &[ComparisonRow]) -> Result<(), String> {
    let mut t = Table::default();
    for r in rows {
        for (col, o) in study.comparison.columns.iter().zip(&r.ours) {
            let mut row = vec![
                ("what".to_string(), table::Cell::Text(r.paper.what.into())),
                ("where".to_string(), table::Cell::Text(r.place.clone())),
                ("unit".to_string(), table::Cell::Text(r.paper.unit.into())),
                ("paper".to_string(), table::Cell::Float(r.paper.value)),
                ("configuration".to_string(), table::Cell::Text(col.label.into())),
            ];
            // Undefined values are left out of the row: null in the table.
            let numbers = [
                ("ours", Some(o.value)),
                ("ours_ci95", o.ci95),
                ("ours_alternative", o.alternative),
                ("bound", r.bound.as_ref().map(|b| b.0)),
            ];
            for (name, x) in numbers {
                if let Some(x) = x.filter(|x| !x.is_nan()) {
                    row.push((name.to_string(), table::Cell::Float(x)));
                }
            }
            row.push(("seeds".to_string(), table::Cell::Int(o.seeds as i64)));
            row.push(("verdict".to_string(), table::Cell::Text(r.verdict.label().into())));
            t.push_row(row);
        }
    }
    t.write_files(dir, "comparison", &[("reproduction", study.name.to_string())])
}

/// A mean with its 95 % confidence half-width where there is one ("n/a" where no seed
/// has a value).
fn fmt_estimate(e: Option<Estimate>, digits: usize) -> String {
    match e {
        None => "n/a".into(),
        Some(Estimate { mean, ci95: Some(h) }) => format!("{mean:.digits$} ± {h:.digits$}"),
        Some(Estimate { mean, ci95: None }) => format!("{mean:.digits$}"),
    }
}

/// Writes the tables of every metric: each mean ± its 95 % confidence half-width, and
/// no column that is n/a in every row of its table.
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
            let mut lines: Vec<(Vec<String>, Vec<String>)> = Vec::new();
            for row in study.combinations(t.rows) {
                let mut at = vec![(sections.name, section.key)];
                at.extend(facet.0.iter().copied());
                at.extend(row.0.iter().copied());
                let Ok(cell) = study.cell_at(&at) else { continue };
                if results.first(&cell).is_none() {
                    continue;
                }
                let keys: Vec<String> = row.0.iter().map(|(a, l)| study.label(a, l).to_string()).collect();
                let mut values = Vec::new();
                for col in t.columns {
                    if !col.absent_at.is_empty() && cell.is_at(col.absent_at) {
                        values.push("n/a".into());
                    } else if let Some(prefix) = col.metric.strip_suffix('*') {
                        let parts: Vec<String> = results
                            .family(&cell, prefix)
                            .iter()
                            .map(|m| {
                                format!(
                                    "{} {}",
                                    &m[prefix.len()..],
                                    fmt_estimate(results.estimate(&cell, m), col.digits)
                                )
                            })
                            .collect();
                        values.push(if parts.is_empty() { "n/a".into() } else { parts.join(", ") });
                    } else {
                        values.push(fmt_estimate(results.estimate(&cell, col.metric), col.digits));
                    }
                }
                lines.push((keys, values));
            }
            let shown: Vec<usize> =
                (0..t.columns.len()).filter(|&i| lines.iter().any(|(_, v)| v[i] != "n/a")).collect();
            let headers: Vec<&str> = shown.iter().map(|&i| t.columns[i].header).collect();
            let _ = writeln!(w, "| {} | {} |", titles.join(" | "), headers.join(" | "));
            let _ = writeln!(w, "|{}", "---|".repeat(titles.len() + headers.len()));
            for (keys, values) in lines {
                let values: Vec<&str> = shown.iter().map(|&i| values[i].as_str()).collect();
                let _ = writeln!(w, "| {} | {} |", keys.join(" | "), values.join(" | "));
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
    /// Per column, a dashed line in its colour (label, one value or none per column).
    shares: Option<(&'a str, Vec<Option<f64>>)>,
    style: ChartStyle,
}

/// Draws every column of `ts` as a line over time into the SVG file `path`.
fn draw_series(path: &Path, caption: &str, ts: &TimeSeries, how: &SeriesDrawing) -> Result<(), String> {
    let (xs, ys) = rebin(ts, how.rebin);
    let ys: Vec<Vec<f64>> = ys.into_iter().map(|c| c.into_iter().map(|v| v * how.scale).collect()).collect();
    let reference_ys = how.reference.map(|(_, v)| vec![v; xs.len()]);
    let share_ys: Vec<(usize, Vec<f64>)> = how
        .shares
        .iter()
        .flat_map(|(_, values)| values.iter().enumerate())
        .filter_map(|(i, v)| v.map(|v| (i, vec![v; xs.len()])))
        .collect();
    let mut lines: Vec<Line> = ts
        .columns
        .iter()
        .zip(&ys)
        .map(|(c, ys)| Line { label: &c.name, xs: &xs, ys, role: Role::Data })
        .collect();
    if let (Some((label, _)), Some(ys)) = (how.reference, &reference_ys) {
        lines.push(Line { label, xs: &xs, ys, role: Role::Reference });
    }
    if let Some((label, _)) = how.shares {
        for (i, ys) in &share_ys {
            lines.push(Line { label, xs: &xs, ys, role: Role::ReferenceOf(*i) });
        }
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
                        let located: Vec<Option<Cell>> = axis
                            .levels
                            .iter()
                            .map(|c| locate(&[&facet.0, at, &[(series.0, s), (axis.name, c.key)]]))
                            .collect();
                        let cells: Vec<Option<Estimate>> = located
                            .iter()
                            .map(|cell| cell.as_ref().and_then(|cell| results.estimate(cell, metric)))
                            .collect();
                        let paper: Vec<f64> = located
                            .iter()
                            .map(|cell| {
                                cell.as_ref().and_then(|c| paper_value(study, c, metric)).unwrap_or(f64::NAN)
                            })
                            .collect();
                        let errors = cells.iter().any(|e| e.is_some_and(|e| e.ci95.is_some())).then(|| {
                            cells.iter().map(|e| e.and_then(|e| e.ci95).unwrap_or(f64::NAN)).collect()
                        });
                        Bars {
                            label: study.label(series.0, s).to_string(),
                            values: cells.iter().map(|e| e.map_or(f64::NAN, |e| e.mean)).collect(),
                            errors,
                            paper: paper.iter().any(|v| v.is_finite()).then_some(paper),
                        }
                    })
                    .collect();
                let cats: Vec<String> = axis
                    .levels
                    .iter()
                    .map(|l| {
                        // "test 1: ..." needs no "test" before it.
                        let named = l.label.to_lowercase().starts_with(&axis.title.to_lowercase());
                        if named {
                            l.label.to_string()
                        } else {
                            format!("{} {}", axis.title, l.label)
                        }
                    })
                    .collect();
                let file = format!("{file}.svg");
                bar_chart(&dir.join(&file), caption, &cats, y_label, &bars, *y_max)?;
                write_pdf(&dir.join(&file))?;
                out.push((file, caption.to_string()));
            }
            Figure::Curve { file, caption, at, points, series, x, y } => {
                let Some(axis) = study.axis(points) else { continue };
                // The paper's points: its y where it states one, at its x where it states
                // that too, else at ours (the same configuration, read along y).
                let mut paper: Vec<(f64, f64)> = Vec::new();
                let curves: Vec<(String, Vec<f64>, Vec<f64>)> = series
                    .1
                    .iter()
                    .map(|s| {
                        let mut pts: Vec<(f64, f64)> = axis
                            .levels
                            .iter()
                            .filter_map(|l| {
                                let cell = locate(&[&facet.0, at, &[(series.0, s), (axis.name, l.key)]])?;
                                let px = results.estimate(&cell, x.0).map(|e| e.mean);
                                if let Some(py) = paper_value(study, &cell, y.0) {
                                    let px = paper_value(study, &cell, x.0).or(px).unwrap_or(f64::NAN);
                                    paper.push((px, py));
                                }
                                let py = results.estimate(&cell, y.0)?.mean;
                                Some((px?, py))
                            })
                            .collect();
                        pts.sort_by(|a, b| a.0.total_cmp(&b.0));
                        let (xs, ys) = pts.into_iter().unzip();
                        (study.label(series.0, s).to_string(), xs, ys)
                    })
                    .collect();
                let mut lines: Vec<Line> =
                    curves.iter().map(|(label, xs, ys)| Line { label, xs, ys, role: Role::Data }).collect();
                let (paper_xs, paper_ys): (Vec<f64>, Vec<f64>) = paper.into_iter().unzip();
                if !paper_xs.is_empty() {
                    lines.push(Line { label: PAPER, xs: &paper_xs, ys: &paper_ys, role: Role::Paper });
                }
                let file = format!("{file}.svg");
                let style = ChartStyle { step: Step::None, worst_is_lowest: false };
                line_chart(&dir.join(&file), caption, x.1, y.1, &lines, style)?;
                write_pdf(&dir.join(&file))?;
                out.push((file, caption.to_string()));
            }
            Figure::Family { file, caption, at, series, prefix, xs, x_label, y_label, log_y } => {
                let curves: Vec<(String, Vec<f64>, Vec<f64>)> = series
                    .1
                    .iter()
                    .filter_map(|s| {
                        let cell = locate(&[&facet.0, at, &[(series.0, s)]])?;
                        let (px, py): (Vec<f64>, Vec<f64>) = xs
                            .iter()
                            .filter_map(|x| {
                                let e = results.estimate(&cell, &format!("{prefix}{x}"))?;
                                e.mean.is_finite().then_some((f64::from(*x), e.mean))
                            })
                            .unzip();
                        (!px.is_empty()).then(|| (study.label(series.0, s).to_string(), px, py))
                    })
                    .collect();
                if curves.is_empty() {
                    // No cell of this facet lies at the figure's coordinates.
                    continue;
                }
                let lines: Vec<Line> =
                    curves.iter().map(|(label, xs, ys)| Line { label, xs, ys, role: Role::Data }).collect();
                let file = format!("{file}.svg");
                let style = ChartStyle { step: Step::None, worst_is_lowest: false };
                let draw = if *log_y { line_chart_log } else { line_chart };
                draw(&dir.join(&file), caption, x_label, y_label, &lines, style)?;
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
                    shares: None,
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

/// The simulated time of the runs: "of 50s simulated" where all agree, else "simulating
/// 50s (24 runs) and 100s (36 runs)".
fn durations(d: &[(crate::units::Duration, usize)]) -> String {
    match d {
        [(one, _)] => format!("of {one} simulated"),
        _ => {
            let parts: Vec<String> = d.iter().map(|(x, n)| format!("{x} ({n} runs)")).collect();
            format!("simulating {}", parts.join(" and "))
        }
    }
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
        "Produced by `cnsim reproduce {}` (cnsim {}): {cells} cells × {} seeds ({}) = {} runs {}{}. \
         Every figure below is the mean over the seeds; where a ± or an error bar is shown it is the 95 % \
         confidence interval of that mean (Student's t). `results.parquet` has every run and \
         `comparison.parquet` the comparison with the paper; every cell's resolved scenario (first seed) is \
         in `scenarios/`.\n",
        study.name,
        crate::VERSION,
        results.seeds.len(),
        results.seeds.iter().map(u64::to_string).collect::<Vec<_>>().join(", "),
        results.records.len(),
        durations(&results.durations),
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
            let shares = spec.share.map(|(label, prefix)| {
                let of = |column: &str| {
                    let name = format!("{prefix}{column}");
                    record.measured.scalars.iter().find(|(n, _)| *n == name).map(|(_, v)| *v)
                };
                (label, ts.columns.iter().map(|c| of(&c.name)).collect())
            });
            let how = SeriesDrawing {
                y_label: spec.y_label,
                scale: spec.scale,
                rebin: 1,
                reference: None,
                shares,
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
        Alternative, Axis, Bound, Column, Comparison, Level, Limit, Measured, MetricDoc, Rule, Study,
        TableColumn, Tables, Verdict,
    };
    use crate::units::Duration;

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
                        rule: Rule::VALUE,
                    },
                    PaperNumber {
                        what: "loss change A→B",
                        at: &[("load", "2")],
                        value: -50.0,
                        unit: "%",
                        quantity: Quantity::Change { metric: "loss", axis: "scheme", from: "a", to: "b" },
                        rule: Rule::VALUE,
                    },
                    PaperNumber {
                        what: "loss change A→B at load 1",
                        at: &[("load", "1")],
                        value: -50.0,
                        unit: "%",
                        quantity: Quantity::Change { metric: "loss", axis: "scheme", from: "a", to: "b" },
                        rule: Rule::VALUE,
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
        let runs = records.len();
        Results::new(study, records, vec![1, 2], vec![(Duration(1), runs)])
    }

    /// The header names every run length with its run count where they differ.
    #[test]
    fn the_header_lists_each_run_length() {
        let s = |secs| Duration(secs * crate::engine::PS_PER_S);
        assert_eq!(durations(&[(s(50), 60)]), "of 50s simulated");
        assert_eq!(durations(&[(s(50), 24), (s(100), 36)]), "simulating 50s (24 runs) and 100s (36 runs)");
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
        // Loss of A at load 2: coarse 10 (± 25.41), fine 11 (± 0); the limit is 10 < 12:
        // flagged. Within 25 % of 12, but the interval is wider than that: not comparable.
        assert_eq!(rows[0].place, "A, load 2");
        assert_eq!(rows[0].ours[0].value, 10.0);
        assert_eq!(rows[0].ours[1], Ours { value: 11.0, alternative: None, ci95: Some(0.0), seeds: 2 });
        assert_eq!(rows[0].bound.as_ref().unwrap().0, 10.0);
        assert_eq!(rows[0].bound.as_ref().unwrap().1, "≤ 10.0 % without control");
        assert!(rows[0].outside_bound());
        assert_eq!(rows[0].verdict, Verdict::NotComparable);
        // Change A→B at load 2: coarse 10 → 5 = −50 %; fine 11 → 5 = −54.5 %. The
        // alternative reads B as A: 0 %. Paired by seed: −4 and −6, mean −5, half-width
        // 12.706 · 1 = 12.706, or 127 % of the base 10.
        assert_eq!(rows[1].ours[0].value, -50.0);
        assert_eq!(rows[1].ours[0].alternative, Some(0.0));
        assert!((rows[1].ours[0].ci95.unwrap() - 127.06).abs() < 0.01, "{:?}", rows[1].ours[0]);
        assert_eq!(rows[1].ours[0].seeds, 2);
        assert!((rows[1].ours[1].value + 54.545).abs() < 0.01);
        assert!(rows[1].bound.is_none());
        // At load 1 the base (0.01) is ≈ 0: no ratio.
        assert!(rows[2].ours[0].value.is_nan());
        assert_eq!(fmt_cell(&rows[2].ours[0], rows[2].paper.quantity), "n/a (base ≈ 0)");
        assert_eq!(rows[2].verdict, Verdict::NotComparable);

        let mut md = String::new();
        write_comparison(&mut md, &study, &rows);
        assert!(
            md.contains(
                "| loss of A | A, load 2 | 12 % | 10.00 ± 25.41 | 11.00 ± 0.00 | 2 | not comparable ⚠ | ≤ 10.0 % without control |"
            ),
            "{md}"
        );
        assert!(
            md.contains("Of 3 rows: 0 reproduced, 0 same trend, 0 contradicted, 3 not comparable."),
            "{md}"
        );
        assert!(
            md.contains("- loss change A→B at load 1 (load 1): paper -50 %; coarse n/a (base ≈ 0) (2 seeds)"),
            "{md}"
        );
    }

    /// Every branch of the verdict, worked by hand (tolerance 25 %).
    #[test]
    fn verdicts_follow_their_rules() {
        let o = |value, h| Ours { value, alternative: None, ci95: Some(h), seeds: 5 };
        let m = Quantity::Metric("x");
        let ch = Quantity::Change { metric: "x", axis: "a", from: "p", to: "q" };
        let v = |rule, q, p, ours: Ours, r| verdict(rule, q, p, &ours, r, 0.25);
        let toward = Rule::Value { from: Some(&[("a", "p")]) };
        // A value: 2.4 ± 0.1 against 2.5 (band 0.625): reproduced; ± 1 is too wide.
        assert_eq!(v(Rule::VALUE, m, 2.5, o(2.4, 0.1), None), Verdict::Reproduced);
        assert_eq!(v(Rule::VALUE, m, 2.5, o(2.4, 1.0), None), Verdict::NotComparable);
        // 5.0 ± 0.3 against 7.5 (band 1.875): from a reference of 4, towards 7.5: same
        // trend; from 6, away: contradicted (2.5 − 0.3 > 1.875); without one, too.
        assert_eq!(v(toward, m, 7.5, o(5.0, 0.3), Some(4.0)), Verdict::SameTrend);
        assert_eq!(v(toward, m, 7.5, o(5.0, 0.3), Some(6.0)), Verdict::Contradicted);
        assert_eq!(v(Rule::VALUE, m, 7.5, o(5.0, 0.3), None), Verdict::Contradicted);
        // 5.5 ± 0.5: the interval reaches within 1.875 of 7.5: not comparable.
        assert_eq!(v(Rule::VALUE, m, 7.5, o(5.5, 0.5), None), Verdict::NotComparable);
        // A change of −20 ± 5 % against −50 %: same sign, off by more than 12.5: same
        // trend; +10 ± 5: contradicted; against 0 %, ±25 points: +10 ± 5 reproduced.
        assert_eq!(v(Rule::VALUE, ch, -50.0, o(-20.0, 5.0), None), Verdict::SameTrend);
        assert_eq!(v(Rule::VALUE, ch, -50.0, o(10.0, 5.0), None), Verdict::Contradicted);
        assert_eq!(v(Rule::VALUE, ch, 0.0, o(10.0, 5.0), None), Verdict::Reproduced);
        // A direction: above 0.
        let above = Rule::Beyond { above: true };
        assert_eq!(v(above, m, 0.0, o(2.0, 1.0), None), Verdict::Reproduced);
        assert_eq!(v(above, m, 0.0, o(2.0, 3.0), None), Verdict::NotComparable);
        assert_eq!(v(above, m, 0.0, o(-2.0, 1.0), None), Verdict::Contradicted);
        assert_eq!(v(Rule::Beyond { above: false }, m, 1.0, o(0.5, 0.2), None), Verdict::Reproduced);
        // Declared, and no interval (one seed).
        let declared = Rule::Declared(Verdict::NotComparable, "the model has no such cost");
        assert_eq!(v(declared, m, f64::NAN, o(1.0, 0.1), None), Verdict::NotComparable);
        let one = Ours { value: 2.5, alternative: None, ci95: None, seeds: 1 };
        assert_eq!(verdict(Rule::VALUE, m, 2.5, &one, None, 0.25), Verdict::NotComparable);
    }

    /// A declaration may name a reference only where its cell exists.
    #[test]
    fn a_reference_must_name_a_cell() {
        let mut study = toy();
        study.comparison.numbers[0].rule = Rule::Value { from: Some(&[("scheme", "off")]) };
        assert!(study.check().is_ok(), "{:?}", study.check());
        study.comparison.numbers[0].rule = Rule::Value { from: Some(&[("scheme", "z")]) };
        assert!(study.check().unwrap_err().0.contains("no level z"));
        study.comparison.numbers[1].rule = Rule::Value { from: Some(&[("scheme", "off")]) };
        study.comparison.numbers[0].rule = Rule::VALUE;
        assert!(study.check().unwrap_err().0.contains("a change moves from no change"));
    }

    #[test]
    fn tables_show_each_facet_and_say_absent_metrics() {
        let study = toy();
        let r = toy_results(&study);
        let mut md = String::new();
        write_tables(&mut md, &r);
        assert!(md.contains("## All metrics: 2"), "{md}");
        // Off has no loss column: n/a where A and B have one; means ± half-widths.
        assert!(md.contains("| off | n/a |"), "{md}");
        assert!(md.contains("| A | 10.0 ± 25.4 |") && md.contains("| A | 11.0 ± 0.0 |"), "{md}");
    }

    #[test]
    fn change_and_closeness() {
        assert_eq!(change(10.0, 5.0), -50.0);
        assert!(change(0.04, 5.0).is_nan());
        assert!(close(12.0, 10.0, 0.25) && !close(13.0, 10.0, 0.25));
        assert!(close(0.01, 0.0, 0.25) && !close(0.1, 0.0, 0.25));
        assert!(!close(f64::NAN, 1.0, 0.25));
    }

    /// A figure of a metric the paper states a value of draws that value as the "paper"
    /// series, at the paper's configuration only: the bar of A at load 2 (coarse, the
    /// first column) and the point of A at load 2 on a curve; changes and other facets
    /// draw none.
    #[test]
    fn figures_draw_the_papers_values_where_it_states_them() {
        let mut study = toy();
        let cell =
            |scheme, sampling, load| Cell(vec![("scheme", scheme), ("sampling", sampling), ("load", load)]);
        assert_eq!(paper_value(&study, &cell("a", "coarse", "2"), "loss"), Some(12.0));
        assert_eq!(paper_value(&study, &cell("a", "fine", "2"), "loss"), None, "not the paper's column");
        assert_eq!(paper_value(&study, &cell("b", "coarse", "2"), "loss"), None, "a change is no value");
        assert_eq!(paper_value(&study, &cell("a", "coarse", "2"), "limit"), None);
        study.figures = vec![
            Figure::Bars {
                file: "bars",
                caption: "loss",
                y_label: "%",
                at: &[],
                categories: "load",
                series: ("scheme", &["a", "b"]),
                metric: "loss",
                y_max: None,
            },
            Figure::Curve {
                file: "curve",
                caption: "loss against its limit",
                at: &[],
                points: "load",
                series: ("scheme", &["a", "b"]),
                x: ("limit", "limit (%)"),
                y: ("loss", "loss (%)"),
            },
        ];
        let r = toy_results(&study);
        let dir = std::env::temp_dir().join(format!("cnsim-paper-figures-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).unwrap();
        let legend = format!("\n{PAPER}\n");
        for (sampling, drawn) in [("coarse", true), ("fine", false)] {
            let files = draw_figures(&dir, &r, &Cell(vec![("sampling", sampling)])).unwrap();
            assert_eq!(files.len(), 2);
            for (file, _) in files {
                let svg = std::fs::read_to_string(dir.join(&file)).unwrap();
                assert_eq!(svg.contains(&legend), drawn, "{sampling}: {file}");
                // The ring: a black circle of radius 7 besides the series' markers.
                assert_eq!(svg.contains("r=\"7\""), drawn, "{sampling}: {file}");
            }
        }
        std::fs::remove_dir_all(&dir).unwrap();
    }

    /// A family figure: a line per scheme through the means of its members, on a log
    /// axis; a facet whose cells lack the members draws none.
    #[test]
    fn a_family_figure_draws_a_line_per_level() {
        let mut study = toy();
        study.metrics.push(MetricDoc { name: "slow*", title: "Slowdown", unit: "×", doc: "by size" });
        study.figures = vec![Figure::Family {
            file: "family",
            caption: "slowdown by size",
            at: &[("load", "2")],
            series: ("scheme", &["a", "b"]),
            prefix: "slow",
            xs: &[5, 10],
            x_label: "size",
            y_label: "slowdown",
            log_y: true,
        }];
        assert!(study.check().is_ok(), "{:?}", study.check());
        let mut records = Vec::new();
        for cell in study.cells().into_iter().filter(|c| c.get("sampling") == "coarse") {
            for seed in [1, 2] {
                let scalars = vec![("slow5".into(), 2.0 * seed as f64), ("slow10".into(), 30.0)];
                let measured = Measured { scalars, series: Vec::new() };
                records.push(Record { cell: cell.clone(), seed, measured, scenario_toml: None });
            }
        }
        let runs = records.len();
        let r = Results::new(&study, records, vec![1, 2], vec![(Duration(1), runs)]);
        let dir = std::env::temp_dir().join(format!("cnsim-family-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).unwrap();
        let files = draw_figures(&dir, &r, &Cell(vec![("sampling", "coarse")])).unwrap();
        assert_eq!(files.len(), 1);
        let svg = std::fs::read_to_string(dir.join(&files[0].0)).unwrap();
        assert!(
            svg.contains("\nslowdown by size\n") && svg.contains("\nA\n") && svg.contains("\nB\n"),
            "{svg}"
        );
        assert!(draw_figures(&dir, &r, &Cell(vec![("sampling", "fine")])).unwrap().is_empty());
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
