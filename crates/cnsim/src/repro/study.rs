//! A reproduction declared as data: the grid of cells it runs, the metrics it measures,
//! the paper's numbers with where each sits in the grid, the comparison table's columns
//! and bounds, the summary tables and the figures. The runner ([`super::results`]) and
//! the report ([`super::document`]) are shared; a paper module supplies only this
//! declaration and two functions: the scenario of a cell and the metrics of a run.

use std::fmt;

use crate::metrics::TimeSeries;
use crate::report::plot::Step;
use crate::scenario::Scenario;
use crate::sim::Sim;
use crate::units::Duration;

/// One level of an axis.
#[derive(Clone, Copy, Debug)]
pub struct Level {
    /// The level in cell names and the results table, e.g. "standard" or "25".
    pub(crate) key: &'static str,
    /// The level in the report, e.g. "QCN with multicast".
    pub(crate) label: &'static str,
}

/// One axis of the grid: a column of the results table.
#[derive(Clone, Debug)]
pub struct Axis {
    /// Column name, e.g. "scheme" or "qeq_frames".
    pub(crate) name: &'static str,
    /// Name in the report, e.g. "Qeq".
    pub(crate) title: &'static str,
    /// Put before a level key in cell names ("q" makes "q25").
    pub(crate) prefix: &'static str,
    /// Its levels, in report order.
    pub(crate) levels: Vec<Level>,
}

/// Coordinates: (axis, level key) pairs, as the declaration writes them.
pub type At = &'static [(&'static str, &'static str)];

/// A cell of the grid: one level per axis, in axis order.
#[derive(Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Cell(pub Vec<(&'static str, &'static str)>);

impl Cell {
    /// The level of `axis` ("" if the cell has no such axis).
    pub fn get(&self, axis: &str) -> &'static str {
        self.0.iter().find(|(a, _)| *a == axis).map_or("", |(_, l)| l)
    }

    /// This cell with the coordinates of `at` replaced; `None` if `at` names an axis or
    /// level the cell does not have.
    pub fn with(&self, at: &[(&'static str, &'static str)]) -> Option<Cell> {
        let mut c = self.clone();
        for (axis, level) in at {
            let slot = c.0.iter_mut().find(|(a, _)| a == axis)?;
            slot.1 = level;
        }
        Some(c)
    }

    /// Whether the cell lies at `at`.
    pub fn is_at(&self, at: &[(&'static str, &'static str)]) -> bool {
        at.iter().all(|(a, l)| self.get(a) == *l)
    }
}

/// What a run measured: named scalars (the results table's metric columns) and the time
/// series the figures draw.
#[derive(Clone, Debug, Default)]
pub struct Measured {
    /// (metric, value), in column order.
    pub(crate) scalars: Vec<(String, f64)>,
    /// (name, series), e.g. ("rates", CR per reaction point).
    pub(crate) series: Vec<(&'static str, TimeSeries)>,
}

/// A metric's definition, for the report.
#[derive(Clone, Copy, Debug)]
pub struct MetricDoc {
    /// Column name, or a prefix ending in `*` for a family (`jain_*`).
    pub(crate) name: &'static str,
    /// Name in the report.
    pub(crate) title: &'static str,
    /// Unit.
    pub(crate) unit: &'static str,
    /// Definition.
    pub(crate) doc: &'static str,
}

/// What the paper reports, computed from our runs.
#[derive(Clone, Copy, Debug)]
pub enum Quantity {
    /// A metric's mean over seeds.
    Metric(&'static str),
    /// Relative change of a metric's mean, %, from level `from` to level `to` of `axis`.
    Change {
        /// The metric.
        metric: &'static str,
        /// The axis compared along.
        axis: &'static str,
        /// The base level.
        from: &'static str,
        /// The compared level.
        to: &'static str,
    },
}

impl Quantity {
    /// The metric it reads.
    pub fn metric(&self) -> &'static str {
        match self {
            Quantity::Metric(m) | Quantity::Change { metric: m, .. } => m,
        }
    }
}

/// How our value stands to a paper number (see [`Rule`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Verdict {
    /// Within the rule's tolerance of the paper's value, or on its stated side.
    Reproduced,
    /// Moved the way the paper's value did, by a size outside the tolerance.
    SameTrend,
    /// Beyond the tolerance, or on the other side, by more than our confidence interval.
    Contradicted,
    /// Not settled by our runs: no value, fewer than two seeds, a confidence interval
    /// across the tolerance's edge, or a reason the declaration gives.
    NotComparable,
}

impl Verdict {
    /// Every verdict, in report order.
    pub const ALL: [Verdict; 4] =
        [Verdict::Reproduced, Verdict::SameTrend, Verdict::Contradicted, Verdict::NotComparable];

    /// The verdict in the report.
    pub fn label(self) -> &'static str {
        match self {
            Verdict::Reproduced => "reproduced",
            Verdict::SameTrend => "same trend",
            Verdict::Contradicted => "contradicted",
            Verdict::NotComparable => "not comparable",
        }
    }
}

/// What decides a paper number's verdict, from our value in the comparison's first
/// column (mean m over seeds, 95 % confidence half-width h) and the paper's value p, with
/// the comparison's tolerance τ. The band around p is τ·|p|; against p = 0 it is τ·100
/// percentage points for a [`Quantity::Change`] and 0.05 (in the metric's unit) for a
/// metric.
#[derive(Clone, Copy, Debug)]
pub enum Rule {
    /// A value the paper states. Reproduced where |m − p| and h are both within the
    /// band; same trend where m moved from a reference towards p and the interval
    /// excludes the reference (a change: from no change, with p's sign; a metric: from
    /// its value at `from`, the paper number's coordinates with `from` laid over them,
    /// where given); contradicted where the whole interval lies outside the band; not
    /// comparable otherwise.
    Value {
        /// Coordinates of the reference a metric moves from (e.g. no congestion control).
        from: Option<At>,
    },
    /// A direction the paper states: our value above (`above`) or below p, a threshold
    /// (0: "it increases"; 1: "more than the other"). Reproduced where the whole interval
    /// lies on that side, contradicted where it lies wholly on the other, not comparable
    /// where it contains p (the difference is within noise).
    Beyond {
        /// Whether the paper says above.
        above: bool,
    },
    /// Decided by the declaration, for a claim no number of ours settles (e.g. a cost the
    /// model does not have), with the reason.
    Declared(Verdict, &'static str),
}

impl Rule {
    /// A stated value without a reference.
    pub const VALUE: Rule = Rule::Value { from: None };
}

/// A number the paper states.
#[derive(Clone, Copy, Debug)]
pub struct PaperNumber {
    /// What it is, with where the paper says it, e.g. "feedback rate, QCN with
    /// multicast (§4.2)".
    pub(crate) what: &'static str,
    /// Where it sits in the grid; the comparison columns fill in the other axes.
    pub(crate) at: At,
    /// Its value, in `unit`.
    pub(crate) value: f64,
    /// The paper's unit, which is also ours.
    pub(crate) unit: &'static str,
    /// How we compute it.
    pub(crate) quantity: Quantity,
    /// What decides its verdict.
    pub(crate) rule: Rule,
}

/// A column of the comparison table: our value in one configuration.
#[derive(Clone, Copy, Debug)]
pub struct Column {
    /// Header.
    pub(crate) label: &'static str,
    /// The coordinates it adds to a paper number's.
    pub(crate) at: At,
}

/// A second reading shown in parentheses beside a value: where a paper number's cell
/// (or a change's compared level) is at `level` of `axis`, the value at `with` too.
#[derive(Clone, Copy, Debug)]
pub struct Alternative {
    /// Axis.
    pub(crate) axis: &'static str,
    /// The level that has an alternative.
    pub(crate) level: &'static str,
    /// The alternative level.
    pub(crate) with: &'static str,
}

/// A limit the model's mechanism puts on a metric, measured in a run.
#[derive(Clone, Copy, Debug)]
pub struct Limit {
    /// The metric holding the limit.
    pub(crate) metric: &'static str,
    /// The coordinates that replace the paper number's to read it.
    pub(crate) at: At,
    /// Decimals shown.
    pub(crate) digits: usize,
    /// What the limit assumes, e.g. "with standard sampling (...)".
    pub(crate) text: &'static str,
}

/// The limits on paper numbers of one metric; the first is that of the paper's stated
/// configuration, and a paper value above it is flagged.
#[derive(Clone, Copy, Debug)]
pub struct Bound {
    /// The metric bounded.
    pub(crate) metric: &'static str,
    /// Its limits.
    pub(crate) limits: &'static [Limit],
}

/// The comparison of our values with the paper's.
#[derive(Clone, Debug)]
pub struct Comparison {
    /// The paper's numbers.
    pub(crate) numbers: Vec<PaperNumber>,
    /// Axes whose levels the "where" column shows.
    pub(crate) where_axes: &'static [&'static str],
    /// Our configurations; the first is the paper's own, which the difference uses.
    pub(crate) columns: &'static [Column],
    /// A second reading shown in parentheses.
    pub(crate) alternative: Option<Alternative>,
    /// Limits of the mechanism.
    pub(crate) bounds: &'static [Bound],
    /// Relative difference within which a value is reproduced (0.25 = 25 %; see
    /// [`Rule`]).
    pub(crate) tolerance: f64,
    /// What the table's columns mean, for the report.
    pub(crate) note: &'static str,
}

/// A summary table column.
#[derive(Clone, Copy, Debug)]
pub struct TableColumn {
    /// Header.
    pub(crate) header: &'static str,
    /// Metric, or a family `prefix_*` shown as "suffix value, ...".
    pub(crate) metric: &'static str,
    /// Decimals.
    pub(crate) digits: usize,
    /// Where the metric does not exist ("n/a"), e.g. feedback without QCN.
    pub(crate) absent_at: At,
}

/// Tables of every metric: one section per level of `sections`, one table per facet,
/// one row per combination of `rows`.
#[derive(Clone, Debug)]
pub struct Tables {
    /// Axis of the sections.
    pub(crate) sections: &'static str,
    /// Axes of the rows.
    pub(crate) rows: &'static [&'static str],
    /// Columns.
    pub(crate) columns: &'static [TableColumn],
}

/// A figure, drawn once per facet.
#[derive(Clone, Debug)]
pub enum Figure {
    /// A metric's mean with its 95 % confidence interval: one group of bars per level of
    /// `categories`, one bar per level of `series`.
    Bars {
        /// File name without extension.
        file: &'static str,
        /// Caption (also the title).
        caption: &'static str,
        /// y-axis label (the unit).
        y_label: &'static str,
        /// Fixed coordinates.
        at: At,
        /// Axis along x.
        categories: &'static str,
        /// Axis of the bars, and which of its levels.
        series: (&'static str, &'static [&'static str]),
        /// The metric.
        metric: &'static str,
        /// Upper end of the y axis (an index ≤ 1), else from the data.
        y_max: Option<f64>,
    },
    /// One metric against another (means over seeds), a point per level of `points`
    /// joined in order of x, a line per level of `series`: a throughput–delay curve.
    Curve {
        /// File name without extension.
        file: &'static str,
        /// Caption.
        caption: &'static str,
        /// Fixed coordinates.
        at: At,
        /// The axis whose levels give the points.
        points: &'static str,
        /// Axis of the lines, and which of its levels.
        series: (&'static str, &'static [&'static str]),
        /// (metric, axis label) along x.
        x: (&'static str, &'static str),
        /// (metric, axis label) along y.
        y: (&'static str, &'static str),
    },
    /// A metric family against its members (means over seeds): a line per level of
    /// `series`, a point per x of `xs` at metric `prefix` + x; with `log_y` on a log y
    /// axis from 1 (FCT slowdown by flow size, the HPCC paper's Figs. 10 and 11).
    Family {
        /// File name without extension.
        file: &'static str,
        /// Caption.
        caption: &'static str,
        /// Fixed coordinates.
        at: At,
        /// Axis of the lines, and which of its levels.
        series: (&'static str, &'static [&'static str]),
        /// The family's metrics: this prefix and each x.
        prefix: &'static str,
        /// The x of each member.
        xs: &'static [u32],
        /// x-axis label.
        x_label: &'static str,
        /// y-axis label.
        y_label: &'static str,
        /// A log y axis from 1.
        log_y: bool,
    },
    /// A time series of one cell (its first seed), one line per column.
    Series {
        /// File name without extension.
        file: &'static str,
        /// Caption.
        caption: &'static str,
        /// The cell, with the facet's coordinates.
        at: At,
        /// Which series of [`Measured::series`].
        series: &'static str,
        /// Multiply values by this (1e-6: bit/s to Mbit/s).
        scale: f64,
        /// Sum every `rebin` samples (1: as sampled).
        rebin: usize,
        /// y-axis label.
        y_label: &'static str,
        /// A dashed reference line (label, value).
        reference: Option<(&'static str, f64)>,
        /// How samples join.
        step: Step,
        /// Name the lowest series rather than the highest in a summary view.
        worst_is_lowest: bool,
    },
}

/// A time series drawn for every cell that runs (its first seed), linked from the report.
#[derive(Clone, Copy, Debug)]
pub struct CellSeries {
    /// Which series of [`Measured::series`].
    pub(crate) series: &'static str,
    /// What it shows, for captions and file names ("queues").
    pub(crate) title: &'static str,
    /// Multiply values by this.
    pub(crate) scale: f64,
    /// y-axis label.
    pub(crate) y_label: &'static str,
    /// How samples join.
    pub(crate) step: Step,
    /// Name the lowest series rather than the highest in a summary view.
    pub(crate) worst_is_lowest: bool,
    /// A dashed line per column at the measured scalar named by this prefix and the
    /// column's name, already in the y unit (label, prefix): a flow's fair share.
    pub(crate) share: Option<(&'static str, &'static str)>,
}

/// The whole declaration of a reproduction.
pub struct Study {
    /// Name (`cnsim reproduce NAME`).
    pub(crate) name: &'static str,
    /// Report title.
    pub title: &'static str,
    /// Seeds per cell, full and `--quick`.
    pub seeds: (u64, u64),
    /// Simulated time per run with `--quick` (the scenarios' own otherwise).
    pub(crate) quick_duration: Duration,
    /// The grid: every combination of levels, in axis order.
    pub(crate) axes: Vec<Axis>,
    /// Cells not run because they equal another (e.g. a sampling rule without QCN);
    /// `alias(cell)` names the one that is.
    pub(crate) alias: fn(&Cell) -> Option<Cell>,
    /// Cells that cannot run (a protocol that does not apply to a test's traffic): left
    /// out of the grid, shown as n/a.
    pub(crate) skip: fn(&Cell) -> bool,
    /// The scenario of a cell, before seed and duration.
    pub(crate) scenario: fn(&Cell) -> Scenario,
    /// The metrics of a finished run.
    pub(crate) measure: fn(&Cell, &Sim) -> Measured,
    /// Definitions of the metrics.
    pub(crate) metrics: Vec<MetricDoc>,
    /// The paper's numbers against ours.
    pub(crate) comparison: Comparison,
    /// Tables of every metric.
    pub(crate) tables: Tables,
    /// Axes over which the figure set repeats (its first combination is the paper's and
    /// is shown in the report; the others are linked).
    pub(crate) facets: &'static [&'static str],
    /// The figures.
    pub(crate) figures: Vec<Figure>,
    /// Series drawn for every cell.
    pub(crate) every_cell: Vec<CellSeries>,
    /// Markdown: what was run (after the header).
    pub(crate) intro: &'static str,
    /// Markdown: why the gaps (after the comparison).
    pub(crate) gaps: &'static str,
}

/// A declaration that does not hold together (a test checks every registered one).
#[derive(Debug)]
pub struct DeclarationError(pub String);

impl fmt::Display for DeclarationError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

impl Study {
    /// The axis called `name`.
    pub fn axis(&self, name: &str) -> Option<&Axis> {
        self.axes.iter().find(|a| a.name == name)
    }

    /// The report label of a level.
    pub fn label(&self, axis: &str, level: &str) -> &'static str {
        self.axis(axis).and_then(|a| a.levels.iter().find(|l| l.key == level)).map_or("", |l| l.label)
    }

    /// A level as the report's prose shows it: its label, after the axis title where
    /// the level is a number ("Qeq 25", but "star").
    pub fn shown(&self, axis: &str, level: &str) -> String {
        match (level.parse::<f64>(), self.axis(axis)) {
            (Ok(_), Some(a)) => format!("{} {}", a.title, self.label(axis, level)),
            _ => self.label(axis, level).to_string(),
        }
    }

    /// Every cell of the grid, in axis order (the last axis varies fastest).
    pub fn all_cells(&self) -> Vec<Cell> {
        self.combinations(&self.axes.iter().map(|a| a.name).collect::<Vec<_>>())
    }

    /// The cells that run: every cell but the aliases and the skipped.
    pub fn cells(&self) -> Vec<Cell> {
        self.all_cells().into_iter().filter(|c| (self.alias)(c).is_none() && !(self.skip)(c)).collect()
    }

    /// Every combination of the levels of `axes` (a partial cell), in axis order.
    pub fn combinations(&self, axes: &[&'static str]) -> Vec<Cell> {
        let mut out = vec![Cell(Vec::new())];
        for name in axes {
            let Some(axis) = self.axis(name) else { return Vec::new() };
            out = out
                .into_iter()
                .flat_map(|c| {
                    axis.levels.iter().map(move |l| {
                        let mut c = c.clone();
                        c.0.push((axis.name, l.key));
                        c
                    })
                })
                .collect();
        }
        out
    }

    /// A cell's name, e.g. "star-cbr-per-frame-standard-q25".
    pub fn cell_name(&self, cell: &Cell) -> String {
        let parts: Vec<String> =
            cell.0.iter().map(|(a, l)| format!("{}{l}", self.axis(a).map_or("", |a| a.prefix))).collect();
        parts.join("-")
    }

    /// The cell at `at` (which must name every axis), or an error naming what is off.
    pub fn cell_at(&self, at: &[(&'static str, &'static str)]) -> Result<Cell, DeclarationError> {
        let mut cell = Vec::new();
        for axis in &self.axes {
            let Some((_, level)) = at.iter().rev().find(|(a, _)| *a == axis.name) else {
                return Err(DeclarationError(format!("{at:?} gives no level of axis {}", axis.name)));
            };
            if !axis.levels.iter().any(|l| l.key == *level) {
                return Err(DeclarationError(format!("axis {} has no level {level}", axis.name)));
            }
            cell.push((axis.name, *level));
        }
        if let Some((a, _)) = at.iter().find(|(a, _)| self.axis(a).is_none()) {
            return Err(DeclarationError(format!("no axis {a}")));
        }
        Ok(Cell(cell))
    }

    /// Checks that `at` names only real axes and levels.
    pub fn check_at(&self, at: &[(&'static str, &'static str)]) -> Result<(), DeclarationError> {
        for (axis, level) in at {
            let Some(a) = self.axis(axis) else {
                return Err(DeclarationError(format!("no axis {axis}")));
            };
            if !a.levels.iter().any(|l| l.key == *level) {
                return Err(DeclarationError(format!("axis {axis} has no level {level}")));
            }
        }
        Ok(())
    }

    /// Whether `metric` is defined (by name, or by a family `prefix_*`).
    pub fn defines(&self, metric: &str) -> bool {
        self.metrics.iter().any(|d| match d.name.strip_suffix('*') {
            Some(prefix) => metric.starts_with(prefix),
            None => d.name == metric,
        })
    }

    /// Checks that every coordinate the declaration writes names a real axis and level,
    /// that every paper number resolves to a cell in every comparison column, and that
    /// every metric it reads is defined.
    pub fn check(&self) -> Result<(), DeclarationError> {
        let fail =
            |what: String, e: DeclarationError| DeclarationError(format!("{}: {what}: {e}", self.name));
        let metric = |what: String, m: &str| {
            if self.defines(m) {
                Ok(())
            } else {
                Err(DeclarationError(format!("{}: {what} reads undefined metric {m}", self.name)))
            }
        };
        let c = &self.comparison;
        for p in &c.numbers {
            for col in c.columns {
                let mut at: Vec<_> = col.at.to_vec();
                at.extend_from_slice(p.at);
                if let Quantity::Change { axis, from, to, .. } = p.quantity {
                    self.check_at(&[(axis, to)])
                        .map_err(|e| fail(format!("paper number \"{}\"", p.what), e))?;
                    at.push((axis, from));
                }
                self.cell_at(&at)
                    .map_err(|e| fail(format!("paper number \"{}\" in column {}", p.what, col.label), e))?;
            }
            metric(format!("paper number \"{}\"", p.what), p.quantity.metric())?;
            if let (Rule::Value { from: Some(from) }, Some(first)) = (p.rule, c.columns.first()) {
                let mut at: Vec<_> = first.at.to_vec();
                at.extend_from_slice(p.at);
                at.extend_from_slice(from);
                if let Quantity::Change { .. } = p.quantity {
                    return Err(DeclarationError(format!(
                        "{}: paper number \"{}\": a change moves from no change, not from a reference",
                        self.name, p.what
                    )));
                }
                self.cell_at(&at)
                    .map_err(|e| fail(format!("reference of paper number \"{}\"", p.what), e))?;
            }
        }
        if let Some(a) = c.alternative {
            self.check_at(&[(a.axis, a.level), (a.axis, a.with)])
                .map_err(|e| fail("alternative".into(), e))?;
        }
        for b in c.bounds {
            for l in b.limits {
                metric(format!("bound of {}", b.metric), l.metric)?;
                self.check_at(l.at).map_err(|e| fail(format!("bound of {}", b.metric), e))?;
            }
        }
        self.check_at(&[])
            .and_then(|_| {
                self.axis(self.tables.sections)
                    .map(|_| ())
                    .ok_or_else(|| DeclarationError(format!("no axis {}", self.tables.sections)))
            })
            .map_err(|e| fail("tables".into(), e))?;
        for col in self.tables.columns {
            metric(format!("table column {}", col.header), col.metric)?;
            self.check_at(col.absent_at).map_err(|e| fail(format!("table column {}", col.header), e))?;
        }
        for f in &self.figures {
            match f {
                Figure::Bars { file, at, metric: m, categories, series, .. } => {
                    metric(format!("figure {file}"), m)?;
                    let levels: Vec<_> = series.1.iter().map(|l| (series.0, *l)).collect();
                    self.check_at(at)
                        .and_then(|_| self.check_at(&levels))
                        .and_then(|_| {
                            self.axis(categories)
                                .map(|_| ())
                                .ok_or_else(|| DeclarationError(format!("no axis {categories}")))
                        })
                        .map_err(|e| fail(format!("figure {file}"), e))?;
                }
                Figure::Series { file, at, .. } => {
                    self.check_at(at).map_err(|e| fail(format!("figure {file}"), e))?;
                }
                Figure::Family { file, at, series, prefix, xs, .. } => {
                    for x in *xs {
                        metric(format!("figure {file}"), &format!("{prefix}{x}"))?;
                    }
                    let levels: Vec<_> = series.1.iter().map(|l| (series.0, *l)).collect();
                    self.check_at(at)
                        .and_then(|_| self.check_at(&levels))
                        .map_err(|e| fail(format!("figure {file}"), e))?;
                }
                Figure::Curve { file, at, points, series, x, y, .. } => {
                    metric(format!("figure {file}"), x.0)?;
                    metric(format!("figure {file}"), y.0)?;
                    let levels: Vec<_> = series.1.iter().map(|l| (series.0, *l)).collect();
                    self.check_at(at)
                        .and_then(|_| self.check_at(&levels))
                        .and_then(|_| {
                            self.axis(points)
                                .map(|_| ())
                                .ok_or_else(|| DeclarationError(format!("no axis {points}")))
                        })
                        .map_err(|e| fail(format!("figure {file}"), e))?;
                }
            }
        }
        Ok(())
    }
}
