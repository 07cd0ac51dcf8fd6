//! SVG line and bar charts (plotters, SVG backend; no fonts needed).

use std::path::Path;

use plotters::prelude::*;
use plotters::style::text_anchor::{HPos, Pos, VPos};

use crate::metrics::TimeSeries;

/// A colour-blind-safe palette (Okabe–Ito), cycled.
const PALETTE: [RGBColor; 8] = [
    RGBColor(0, 114, 178),
    RGBColor(213, 94, 0),
    RGBColor(0, 158, 115),
    RGBColor(204, 121, 167),
    RGBColor(230, 159, 0),
    RGBColor(86, 180, 233),
    RGBColor(0, 0, 0),
    RGBColor(240, 228, 66),
];

/// Colour of series `i`.
pub fn color(i: usize) -> RGBColor {
    PALETTE[i % PALETTE.len()]
}

/// Error text for `path`.
fn at(path: &Path) -> impl Fn(&dyn std::fmt::Display) -> String + '_ {
    move |e| format!("{}: {e}", path.display())
}

/// Draws a 900 × 500 chart with `draw` on a white background, rendered in memory and
/// written to `path` in one go (so a full disk is reported as such).
fn write_svg(
    path: &Path,
    draw: impl FnOnce(&DrawingArea<SVGBackend, plotters::coord::Shift>) -> Result<(), String>,
) -> Result<(), String> {
    let svg = render_svg(draw)?;
    std::fs::write(path, svg).map_err(|e| at(path)(&e))
}

/// Renders an SVG (one of these charts) as a PNG at twice its size (1800 × 1000 for a
/// chart), for slides and documents that take no SVG. Text uses the system's sans-serif
/// font; on a machine without fonts the PNG (and the PDF) has the drawing but no text.
pub fn svg_to_png(svg: &str) -> Result<Vec<u8>, String> {
    use resvg::tiny_skia;
    let tree = parse_svg(svg)?;
    let size = tree.size().to_int_size();
    let mut pixmap = tiny_skia::Pixmap::new(size.width() * 2, size.height() * 2)
        .ok_or_else(|| "an empty drawing".to_string())?;
    pixmap.fill(tiny_skia::Color::WHITE);
    resvg::render(&tree, tiny_skia::Transform::from_scale(2.0, 2.0), &mut pixmap.as_mut());
    pixmap.encode_png().map_err(|e| format!("PNG: {e}"))
}

/// Converts an SVG (one of these charts) to a one-page vector PDF, for a figure in a
/// paper: text stays text, in an embedded subset of the system's sans-serif font.
pub fn svg_to_pdf(svg: &str) -> Result<Vec<u8>, String> {
    let tree = parse_svg(svg)?;
    let pdf = svg2pdf::to_pdf(&tree, svg2pdf::ConversionOptions::default(), svg2pdf::PageOptions::default())
        .map_err(|e| format!("PDF: {e}"))?;
    Ok(sort_resource_entries(pdf))
}

/// svg2pdf writes the entries of a resource dictionary (`/xo3 12 0 R`, one per line) in
/// hash-map order, so one chart would give different bytes on every run. Sorting each
/// run of such lines outside streams fixes the order without moving anything else: the
/// run keeps its length, so the cross-reference offsets stay right.
fn sort_resource_entries(pdf: Vec<u8>) -> Vec<u8> {
    fn is_entry(line: &[u8]) -> bool {
        let Ok(line) = std::str::from_utf8(line) else { return false };
        let Some(rest) = line.trim_start().strip_prefix('/') else { return false };
        let mut words = rest.split(' ');
        let name_ok =
            words.next().is_some_and(|n| !n.is_empty() && n.bytes().all(|b| b.is_ascii_alphanumeric()));
        let id_ok = words.next().is_some_and(|n| !n.is_empty() && n.bytes().all(|b| b.is_ascii_digit()));
        name_ok && id_ok && words.next() == Some("0") && words.next() == Some("R") && words.next().is_none()
    }
    let mut lines: Vec<&[u8]> = pdf.split(|&b| b == b'\n').collect();
    let mut in_stream = false;
    let mut i = 0;
    while i < lines.len() {
        if in_stream {
            in_stream = !lines[i].starts_with(b"endstream");
            i += 1;
            continue;
        }
        if lines[i] == b"stream" {
            in_stream = true;
            i += 1;
            continue;
        }
        let start = i;
        while i < lines.len() && is_entry(lines[i]) {
            i += 1;
        }
        if i > start {
            lines[start..i].sort_unstable();
        } else {
            i += 1;
        }
    }
    lines.join(&b'\n')
}

/// Writes the chart in the SVG file `path` again as a PDF beside it.
pub fn write_pdf(path: &Path) -> Result<(), String> {
    let err = at(path);
    let svg = std::fs::read_to_string(path).map_err(|e| err(&e))?;
    let pdf = svg_to_pdf(&svg).map_err(|e| err(&e))?;
    std::fs::write(path.with_extension("pdf"), pdf).map_err(|e| err(&e))
}

/// Parses an SVG with the system's sans-serif font (DejaVu Sans, Liberation Sans, Arial
/// or Helvetica, the first installed).
fn parse_svg(svg: &str) -> Result<resvg::usvg::Tree, String> {
    use resvg::usvg;
    use std::sync::OnceLock;
    // Loading the system fonts takes a while: once per process.
    static FONTS: OnceLock<std::sync::Arc<usvg::fontdb::Database>> = OnceLock::new();
    let fonts = FONTS.get_or_init(|| {
        let mut db = usvg::fontdb::Database::new();
        db.load_system_fonts();
        for family in ["DejaVu Sans", "Liberation Sans", "Arial", "Helvetica"] {
            if db.faces().any(|f| f.families.iter().any(|(name, _)| name == family)) {
                db.set_sans_serif_family(family);
                break;
            }
        }
        std::sync::Arc::new(db)
    });
    let options =
        usvg::Options { font_family: "sans-serif".into(), fontdb: fonts.clone(), ..Default::default() };
    usvg::Tree::from_str(svg, &options).map_err(|e| format!("SVG: {e}"))
}

/// Draws a 900 × 500 chart with `draw` on a white background into an SVG string.
pub fn render_svg(
    draw: impl FnOnce(&DrawingArea<SVGBackend, plotters::coord::Shift>) -> Result<(), String>,
) -> Result<String, String> {
    let mut svg = String::new();
    {
        let root = SVGBackend::with_string(&mut svg, (900, 500)).into_drawing_area();
        root.fill(&WHITE).map_err(|e| e.to_string())?;
        draw(&root)?;
        root.present().map_err(|e| e.to_string())?;
    }
    Ok(svg)
}

/// An axis tick label: at most 4 significant digits, no trailing zeros, no exponent for
/// everyday magnitudes.
pub fn tick(v: f64) -> String {
    if v == 0.0 {
        return "0".into();
    }
    if !(1e-3..1e7).contains(&v.abs()) {
        return format!("{v:.2e}");
    }
    let digits = (3 - v.abs().log10().floor() as i32).clamp(0, 6) as usize;
    let s = format!("{v:.digits$}");
    if s.contains('.') {
        s.trim_end_matches('0').trim_end_matches('.').to_string()
    } else {
        s
    }
}

/// How a legend entry's key is drawn.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Key {
    /// A short line, as the series is drawn.
    Line,
    /// A dashed line (a reference line).
    Dashed,
    /// A light patch (a band).
    Band,
    /// A filled square (a bar).
    Square,
}

/// One entry of a legend.
struct Entry {
    label: String,
    color: RGBColor,
    key: Key,
}

/// Height of a legend row, pixels; rows hold three entries, at most five rows.
const LEGEND_ROW: u32 = 24;

/// Rows a legend of `entries` entries takes (1 to 5).
fn legend_rows(entries: usize) -> u32 {
    entries.div_ceil(3).clamp(1, 5) as u32
}

/// Splits a chart into the plot area and, below it, room for a legend of `entries`.
fn split_for_legend<'a>(
    root: &DrawingArea<SVGBackend<'a>, plotters::coord::Shift>,
    entries: usize,
) -> (DrawingArea<SVGBackend<'a>, plotters::coord::Shift>, DrawingArea<SVGBackend<'a>, plotters::coord::Shift>)
{
    root.split_vertically(500 - LEGEND_ROW * legend_rows(entries) - 10)
}

/// Draws a legend below the plot: three entries per row, as many rows as
/// [`legend_rows`] allows, labels cut at 34 characters.
fn draw_legend(
    area: &DrawingArea<SVGBackend, plotters::coord::Shift>,
    entries: &[Entry],
) -> Result<(), String> {
    let e = |e: &dyn std::fmt::Display| e.to_string();
    let rows = legend_rows(entries.len()) as usize;
    for (i, entry) in entries.iter().enumerate().take(3 * rows) {
        let (row, col) = ((i / 3) as i32, (i % 3) as i32);
        let (x, y) = (90 + col * 270, 6 + row * LEGEND_ROW as i32);
        let c = entry.color;
        match entry.key {
            Key::Line => area.draw(&PathElement::new(vec![(x, y + 8), (x + 22, y + 8)], c.stroke_width(3))),
            Key::Dashed => area
                .draw(&PathElement::new(vec![(x, y + 8), (x + 8, y + 8)], c.stroke_width(2)))
                .and_then(|_| {
                    area.draw(&PathElement::new(vec![(x + 14, y + 8), (x + 22, y + 8)], c.stroke_width(2)))
                }),
            Key::Band => area.draw(&Rectangle::new([(x, y + 2), (x + 22, y + 14)], c.mix(0.6).filled())),
            Key::Square => area.draw(&Rectangle::new([(x + 4, y + 2), (x + 16, y + 14)], c.filled())),
        }
        .map_err(|x| e(&x))?;
        let shown: String = entry.label.chars().take(34).collect();
        area.draw(&Text::new(shown, (x + 30, y), ("sans-serif", 14))).map_err(|x| e(&x))?;
    }
    Ok(())
}

/// One series of an error-bar chart: points `(x, mean, low, high)`.
pub struct ErrorSeries {
    /// Legend label.
    pub label: String,
    /// Points in x order: x, mean, and the ends of the error bar.
    pub points: Vec<(f64, f64, f64, f64)>,
}

/// A chart of means with error bars against x, one line per series; `x_names` labels
/// the x positions 0, 1, ... when x is categorical. Legends sit below the plot area.
pub fn error_bar_svg(
    title: &str,
    x_label: &str,
    y_label: &str,
    series: &[ErrorSeries],
    x_names: Option<&[String]>,
) -> Result<String, String> {
    let finite = |v: &f64| v.is_finite();
    let xs: Vec<f64> = series.iter().flat_map(|s| s.points.iter().map(|p| p.0)).filter(finite).collect();
    let ys: Vec<f64> =
        series.iter().flat_map(|s| s.points.iter().flat_map(|p| [p.1, p.2, p.3])).filter(finite).collect();
    let (mut x0, mut x1) = xs.iter().fold((f64::MAX, f64::MIN), |(a, b), &x| (a.min(x), b.max(x)));
    if x0 > x1 {
        (x0, x1) = (0.0, 1.0);
    }
    let pad = if x1 > x0 { (x1 - x0) * 0.06 } else { 0.5 };
    let (x0, x1) = (x0 - pad, x1 + pad);
    let y0 = ys.iter().copied().fold(0.0f64, f64::min);
    let mut y1 = ys.iter().copied().fold(f64::MIN, f64::max);
    if y1 <= y0 {
        y1 = y0 + 1.0;
    }
    let y1 = y1 + (y1 - y0) * 0.08;
    render_svg(|root| {
        let e = |e: &dyn std::fmt::Display| e.to_string();
        let (plot, legend) = split_for_legend(root, series.len());
        let mut chart = ChartBuilder::on(&plot)
            .caption(title, ("sans-serif", 22))
            .margin(14)
            .x_label_area_size(50)
            .y_label_area_size(90)
            .build_cartesian_2d(x0..x1, y0..y1)
            .map_err(|x| e(&x))?;
        let names = x_names.map(<[String]>::to_vec);
        let mut mesh = chart.configure_mesh();
        mesh.x_desc(x_label)
            .y_desc(y_label)
            .label_style(("sans-serif", 15))
            .axis_desc_style(("sans-serif", 17))
            .light_line_style(RGBColor(235, 235, 235));
        let formatter = move |x: &f64| match &names {
            Some(n) if (x - x.round()).abs() < 1e-9 && x.round() >= 0.0 => {
                n.get(x.round() as usize).cloned().unwrap_or_default()
            }
            Some(_) => String::new(),
            None => format!("{x}"),
        };
        if let Some(n) = x_names {
            mesh.x_labels(n.len() * 4 + 1);
        }
        mesh.x_label_formatter(&formatter).y_label_formatter(&|y| tick(*y)).draw().map_err(|x| e(&x))?;
        for (i, s) in series.iter().enumerate() {
            let c = color(i);
            chart
                .draw_series(LineSeries::new(s.points.iter().map(|p| (p.0, p.1)), c.stroke_width(2)))
                .map_err(|x| e(&x))?;
            chart
                .draw_series(s.points.iter().map(|&(x, m, lo, hi)| {
                    ErrorBar::new_vertical(x, lo, m, hi, c.filled().stroke_width(2), 10)
                }))
                .map_err(|x| e(&x))?;
        }
        let entries: Vec<Entry> = series
            .iter()
            .enumerate()
            .map(|(i, s)| Entry { label: s.label.clone(), color: color(i), key: Key::Line })
            .collect();
        draw_legend(&legend, &entries)
    })
}

/// One line of a line chart.
pub struct Line<'a> {
    /// Legend label.
    pub label: &'a str,
    /// x values.
    pub xs: &'a [f64],
    /// y values.
    pub ys: &'a [f64],
    /// Dashed reference line instead of a data series.
    pub reference: bool,
}

/// Reduces a series to at most `2·buckets` points, keeping each bucket's minimum and
/// maximum (in time order) so spikes survive; plots stay small and look the same.
pub fn decimate(xs: &[f64], ys: &[f64], buckets: usize) -> (Vec<f64>, Vec<f64>) {
    let n = xs.len().min(ys.len());
    if n <= 2 * buckets {
        return (xs[..n].to_vec(), ys[..n].to_vec());
    }
    let mut ox = Vec::with_capacity(2 * buckets);
    let mut oy = Vec::with_capacity(2 * buckets);
    for b in 0..buckets {
        let (lo, hi) = (b * n / buckets, ((b + 1) * n / buckets).max(b * n / buckets + 1));
        let (mut imin, mut imax) = (lo, lo);
        for i in lo..hi {
            if ys[i] < ys[imin] {
                imin = i;
            }
            if ys[i] > ys[imax] {
                imax = i;
            }
        }
        for i in if imin <= imax { [imin, imax] } else { [imax, imin] } {
            ox.push(xs[i]);
            oy.push(ys[i]);
        }
    }
    (ox, oy)
}

/// How a series is drawn between its samples.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Step {
    /// Straight lines between samples (an instantaneous quantity, e.g. a queue length).
    None,
    /// Each value holds over the interval that ends at its sample (an average over the
    /// interval, e.g. throughput).
    Before,
    /// Each value holds until the next sample (a piecewise-constant state, e.g. a rate).
    After,
}

/// How a line chart is drawn.
#[derive(Clone, Copy, Debug)]
pub struct ChartStyle {
    /// Steps for piecewise-constant series.
    pub step: Step,
    /// With many series, the worst are those with the lowest mean (throughput, rates)
    /// rather than the highest (queue lengths).
    pub worst_is_lowest: bool,
}

/// Series above which a chart shows a summary (min–max band, median, the worst three
/// named) instead of one line each.
pub const MAX_LINES: usize = 12;

/// The points of a series drawn with `step`.
fn stepped(xs: &[f64], ys: &[f64], step: Step) -> Vec<(f64, f64)> {
    let n = xs.len().min(ys.len());
    let mut out = Vec::with_capacity(2 * n);
    for i in 0..n {
        match step {
            Step::None => out.push((xs[i], ys[i])),
            Step::Before => {
                let from = if i == 0 { 0.0f64.min(xs[0]) } else { xs[i - 1] };
                out.push((from, ys[i]));
                out.push((xs[i], ys[i]));
            }
            Step::After => {
                out.push((xs[i], ys[i]));
                if let Some(&next) = xs.get(i + 1) {
                    out.push((next, ys[i]));
                }
            }
        }
    }
    out
}

/// Draws a line chart to `path`: one line per series (legend below the plot) up to
/// [`MAX_LINES`] series; beyond, the min–max band over the series, their median and the
/// three worst series by name. Long series are decimated to 600 min/max buckets.
pub fn line_chart(
    path: &Path,
    title: &str,
    x_label: &str,
    y_label: &str,
    lines: &[Line],
    style: ChartStyle,
) -> Result<(), String> {
    let err = at(path);
    let (mut x0, mut x1, mut y0, mut y1) = (f64::MAX, f64::MIN, 0.0f64, f64::MIN);
    for l in lines {
        for (&x, &y) in l.xs.iter().zip(l.ys) {
            if x.is_finite() && y.is_finite() {
                x0 = x0.min(x);
                x1 = x1.max(x);
                y0 = y0.min(y);
                y1 = y1.max(y);
            }
        }
    }
    if x0 > x1 {
        (x0, x1) = (0.0, 1.0);
    }
    if style.step == Step::Before {
        x0 = x0.min(0.0);
    }
    if x1 <= x0 {
        x1 = x0 + 1.0;
    }
    if y1 <= y0 {
        y1 = y0 + 1.0;
    }
    let y1 = y1 + (y1 - y0) * 0.05;
    let data: Vec<&Line> = lines.iter().filter(|l| !l.reference).collect();
    let summary = data.len() > MAX_LINES;
    let references = lines.len() - data.len();
    // A summary lists the band, the median and the three worst series.
    let entries = if summary { 5 } else { data.len() } + references;
    let mut legend: Vec<Entry> = Vec::new();
    write_svg(path, |root| {
        let (plot, legend_area) = split_for_legend(root, entries);
        let mut chart = ChartBuilder::on(&plot)
            .caption(title, ("sans-serif", 21))
            .margin(14)
            .x_label_area_size(48)
            .y_label_area_size(84)
            .build_cartesian_2d(x0..x1, y0..y1)
            .map_err(|e| err(&e))?;
        chart
            .configure_mesh()
            .x_desc(x_label)
            .y_desc(y_label)
            .label_style(("sans-serif", 15))
            .axis_desc_style(("sans-serif", 16))
            .x_label_formatter(&|x| tick(*x))
            .y_label_formatter(&|y| tick(*y))
            .light_line_style(RGBColor(235, 235, 235))
            .draw()
            .map_err(|e| err(&e))?;
        if summary {
            let n = data.iter().map(|l| l.xs.len().min(l.ys.len())).min().unwrap_or(0);
            let buckets = 600.min(n.max(1));
            let xs = data[0].xs;
            let (mut band_hi, mut band_lo, mut median) = (Vec::new(), Vec::new(), Vec::new());
            for b in 0..buckets {
                let (lo, hi) = (b * n / buckets, ((b + 1) * n / buckets).max(b * n / buckets + 1).min(n));
                if lo >= n {
                    break;
                }
                let x = xs[hi - 1];
                let mut means: Vec<f64> = data
                    .iter()
                    .map(|l| l.ys[lo..hi].iter().sum::<f64>() / (hi - lo) as f64)
                    .filter(|v| v.is_finite())
                    .collect();
                means.sort_by(f64::total_cmp);
                let all = data.iter().flat_map(|l| l.ys[lo..hi].iter().copied()).filter(|v| v.is_finite());
                let (mn, mx) = all.fold((f64::MAX, f64::MIN), |(a, b), v| (a.min(v), b.max(v)));
                band_hi.push((x, mx));
                band_lo.push((x, mn));
                median.push((x, means.get(means.len() / 2).copied().unwrap_or(f64::NAN)));
            }
            let band: Vec<(f64, f64)> =
                band_hi.iter().copied().chain(band_lo.iter().rev().copied()).collect();
            let grey = RGBColor(170, 190, 215);
            chart
                .draw_series(std::iter::once(Polygon::new(band, grey.mix(0.6).filled())))
                .map_err(|e| err(&e))?;
            legend.push(Entry {
                label: format!("min–max of {} series", data.len()),
                color: grey,
                key: Key::Band,
            });
            chart
                .draw_series(LineSeries::new(median, RGBColor(0, 0, 0).stroke_width(2)))
                .map_err(|e| err(&e))?;
            legend.push(Entry { label: "median".to_string(), color: RGBColor(0, 0, 0), key: Key::Line });
            let mut by_mean: Vec<(f64, &Line)> = data
                .iter()
                .map(|l| (l.ys.iter().filter(|v| v.is_finite()).sum::<f64>() / l.ys.len().max(1) as f64, *l))
                .collect();
            by_mean.sort_by(
                |a, b| if style.worst_is_lowest { a.0.total_cmp(&b.0) } else { b.0.total_cmp(&a.0) },
            );
            for (i, (_, l)) in by_mean.iter().take(3).enumerate() {
                let c = color(i + 1);
                let (dx, dy) = decimate(l.xs, l.ys, 600);
                chart
                    .draw_series(LineSeries::new(stepped(&dx, &dy, style.step), c.stroke_width(1)))
                    .map_err(|e| err(&e))?;
                let which = if style.worst_is_lowest { "lowest" } else { "highest" };
                legend.push(Entry {
                    label: format!("{} ({which} mean #{})", l.label, i + 1),
                    color: c,
                    key: Key::Line,
                });
            }
        } else {
            for (i, l) in data.iter().enumerate() {
                let c = color(i);
                let (dx, dy) = decimate(l.xs, l.ys, 600);
                chart
                    .draw_series(LineSeries::new(stepped(&dx, &dy, style.step), c.stroke_width(2)))
                    .map_err(|e| err(&e))?;
                legend.push(Entry { label: l.label.to_string(), color: c, key: Key::Line });
            }
        }
        for l in lines.iter().filter(|l| l.reference) {
            let c = RGBColor(90, 90, 90);
            let (dx, dy) = decimate(l.xs, l.ys, 600);
            chart
                .draw_series(DashedLineSeries::new(dx.into_iter().zip(dy), 8, 5, c.stroke_width(2)))
                .map_err(|e| err(&e))?;
            legend.push(Entry { label: l.label.to_string(), color: c, key: Key::Dashed });
        }
        draw_legend(&legend_area, &legend)
    })
}

/// Plots every column of a time series against time, as a figure for a report: the
/// title names the series and `context` (scenario and seed), the y label the unit and,
/// for per-interval values, the interval.
pub fn plot_time_series(
    ts: &TimeSeries,
    path: &Path,
    scale: f64,
    unit: &str,
    context: &str,
    style: ChartStyle,
) -> Result<(), String> {
    let scaled: Vec<Vec<f64>> =
        ts.columns.iter().map(|c| c.values.iter().map(|v| v / scale).collect()).collect();
    let lines: Vec<Line> = ts
        .columns
        .iter()
        .zip(&scaled)
        .map(|(c, ys)| Line { label: &c.name, xs: &ts.times_s, ys, reference: false })
        .collect();
    let what = ts.name.replace('_', " ");
    let title = if context.is_empty() { what } else { format!("{what} — {context}") };
    line_chart(path, &title, "time (s)", unit, &lines, style)
}

/// One series of a bar chart: a value per category and, from replications, the
/// half-width of its error bar (none: no bar).
pub struct Bars {
    /// Legend label.
    pub label: String,
    /// One value per category (NaN: no bar).
    pub values: Vec<f64>,
    /// One error half-width per category.
    pub errors: Option<Vec<f64>>,
}

/// A grouped bar chart: one group per category, one bar per series, each bar labelled
/// with its value and, where given, an error bar. The legend sits below the plot area;
/// `y_max` caps the axis where the quantity has a natural maximum (Jain's index: 1).
pub fn bar_chart(
    path: &Path,
    title: &str,
    categories: &[String],
    y_label: &str,
    series: &[Bars],
    y_max: Option<f64>,
) -> Result<(), String> {
    let err = at(path);
    let tops = series.iter().flat_map(|s| {
        s.values
            .iter()
            .enumerate()
            .map(|(i, v)| v + s.errors.as_ref().and_then(|e| e.get(i)).copied().unwrap_or(0.0))
    });
    let tops: Vec<f64> = tops.filter(|v| v.is_finite()).collect();
    let ymin =
        series.iter().flat_map(|s| s.values.iter().copied()).filter(|v| v.is_finite()).fold(0.0f64, f64::min);
    let mut ymax = tops.iter().copied().fold(0.0f64, f64::max);
    if ymax <= ymin {
        ymax = ymin + 1.0;
    }
    let mut ymax = ymax + (ymax - ymin) * 0.12; // room for the value labels
    if let Some(cap) = y_max {
        ymax = ymax.min(cap * 1.08).max(cap.min(ymax));
    }
    let n = categories.len().max(1);
    write_svg(path, |root| {
        let (plot, legend) = split_for_legend(root, series.len());
        let mut chart = ChartBuilder::on(&plot)
            .caption(title, ("sans-serif", 22))
            .margin(14)
            .x_label_area_size(40)
            .y_label_area_size(80)
            .build_cartesian_2d(0f64..n as f64, ymin..ymax)
            .map_err(|e| err(&e))?;
        let cats = categories.to_vec();
        chart
            .configure_mesh()
            .disable_x_mesh()
            .x_labels(n * 2 + 1)
            .x_label_formatter(&move |x| {
                let i = x.floor() as usize;
                if (x - x.floor() - 0.5).abs() < 1e-6 && i < cats.len() {
                    cats[i].clone()
                } else {
                    String::new()
                }
            })
            .y_label_formatter(&|y| tick(*y))
            .label_style(("sans-serif", 15))
            .axis_desc_style(("sans-serif", 17))
            .y_desc(y_label)
            .draw()
            .map_err(|e| err(&e))?;
        let k = series.len().max(1) as f64;
        let width = 0.8 / k;
        for (si, s) in series.iter().enumerate() {
            let c = color(si);
            let x_of = |ci: usize| ci as f64 + 0.1 + si as f64 * width;
            let finite = |&(_, v): &(usize, &f64)| v.is_finite();
            chart
                .draw_series(s.values.iter().enumerate().filter(finite).map(|(ci, &v)| {
                    Rectangle::new([(x_of(ci), 0.0), (x_of(ci) + width * 0.92, v)], c.filled())
                }))
                .map_err(|e| err(&e))?;
            if let Some(errors) = &s.errors {
                chart
                    .draw_series(s.values.iter().enumerate().filter(finite).filter_map(|(ci, &v)| {
                        let e = *errors.get(ci)?;
                        let mid = x_of(ci) + width * 0.46;
                        e.is_finite()
                            .then(|| ErrorBar::new_vertical(mid, v - e, v, v + e, BLACK.stroke_width(1), 6))
                    }))
                    .map_err(|e| err(&e))?;
            }
            chart
                .draw_series(s.values.iter().enumerate().filter(finite).map(|(ci, &v)| {
                    let e = s
                        .errors
                        .as_ref()
                        .and_then(|e| e.get(ci))
                        .copied()
                        .filter(|e| e.is_finite())
                        .unwrap_or(0.0);
                    let mid = x_of(ci) + width * 0.46;
                    Text::new(
                        tick(v),
                        (mid, v + e),
                        TextStyle::from(("sans-serif", 12).into_font())
                            .pos(Pos::new(HPos::Center, VPos::Bottom)),
                    )
                }))
                .map_err(|e| err(&e))?;
        }
        let entries: Vec<Entry> = series
            .iter()
            .enumerate()
            .map(|(i, s)| Entry { label: s.label.clone(), color: color(i), key: Key::Square })
            .collect();
        draw_legend(&legend, &entries)
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn steps_hold_values_over_their_interval() {
        let (xs, ys) = ([1.0, 2.0], [5.0, 7.0]);
        assert_eq!(stepped(&xs, &ys, Step::None), [(1.0, 5.0), (2.0, 7.0)]);
        assert_eq!(stepped(&xs, &ys, Step::Before), [(0.0, 5.0), (1.0, 5.0), (1.0, 7.0), (2.0, 7.0)]);
        assert_eq!(stepped(&xs, &ys, Step::After), [(1.0, 5.0), (2.0, 5.0), (2.0, 7.0)]);
    }

    /// 64 flows over 10 000 samples: a band, the median and the three worst by name,
    /// not 64 lines; the file stays small.
    #[test]
    fn many_series_are_summarised_in_a_small_file() {
        let mut ts = TimeSeries::new("throughput", "bit/s", (0..64).map(|i| format!("flow{i}")));
        for k in 0..10_000 {
            ts.times_s.push(k as f64 * 1e-3);
            for (i, c) in ts.columns.iter_mut().enumerate() {
                c.values.push(1e8 + (i as f64) * 1e6 + ((k * (i + 3)) % 17) as f64 * 1e5);
            }
        }
        let path = std::env::temp_dir().join(format!("cnsim-plot-{}.svg", std::process::id()));
        let style = ChartStyle { step: Step::Before, worst_is_lowest: true };
        plot_time_series(&ts, &path, 1e6, "Mbit/s", "test, seed 1", style).unwrap();
        let svg = std::fs::read_to_string(&path).unwrap();
        let _ = std::fs::remove_file(&path);
        assert!(svg.contains("throughput — test, seed 1"));
        assert!(svg.contains("min–max of 64 series") && svg.contains("median"));
        assert!(svg.contains("flow0 (lowest mean #1)") && svg.contains("flow2 (lowest mean #3)"));
        assert!(!svg.contains("flow63"), "the other flows are not drawn one by one");
        assert!(svg.len() < 400_000, "{} bytes", svg.len());
    }

    #[test]
    fn charts_render_as_png() {
        let svg = error_bar_svg(
            "t",
            "x",
            "y",
            &[ErrorSeries { label: "a".into(), points: vec![(0.0, 1.0, 0.5, 1.5), (1.0, 2.0, 1.5, 2.5)] }],
            None,
        )
        .unwrap();
        let png = svg_to_png(&svg).unwrap();
        assert!(png.starts_with(b"\x89PNG"));
        // 1800 × 1000 pixels: the IHDR chunk holds width and height big-endian.
        assert_eq!(&png[16..24], &[0, 0, 7, 8, 0, 0, 3, 232]);
    }

    #[test]
    fn resource_entries_are_sorted_in_place_and_streams_left_alone() {
        let pdf = b"<<\n  /XObject <<\n    /xo13 34 0 R\n    /xo2 12 0 R\n  >>\n>>\nstream\n/b 2 0 R\n/a 1 0 R\nendstream\n";
        let sorted = sort_resource_entries(pdf.to_vec());
        assert_eq!(sorted.len(), pdf.len(), "offsets stay right");
        assert_eq!(
            std::str::from_utf8(&sorted).unwrap(),
            "<<\n  /XObject <<\n    /xo13 34 0 R\n    /xo2 12 0 R\n  >>\n>>\nstream\n/b 2 0 R\n/a 1 0 R\nendstream\n",
            "already in byte order; the stream's lines are not entries to sort"
        );
        let swapped = b"  /xo2 12 0 R\n  /xo13 34 0 R\n  /Font 5 0 R\n";
        assert_eq!(
            std::str::from_utf8(&sort_resource_entries(swapped.to_vec())).unwrap(),
            "  /Font 5 0 R\n  /xo13 34 0 R\n  /xo2 12 0 R\n"
        );
    }

    #[test]
    fn charts_convert_to_a_one_page_vector_pdf_the_same_each_time() {
        let svg = error_bar_svg(
            "a title",
            "x",
            "y",
            &[ErrorSeries { label: "a".into(), points: vec![(0.0, 1.0, 0.5, 1.5), (1.0, 2.0, 1.5, 2.5)] }],
            None,
        )
        .unwrap();
        let pdf = svg_to_pdf(&svg).unwrap();
        assert!(pdf.starts_with(b"%PDF-"), "{:?}", &pdf[..8]);
        let text = String::from_utf8_lossy(&pdf);
        assert_eq!(text.matches("/Type /Page\n").count(), 1, "one page");
        // One SVG pixel is one PDF point.
        assert!(text.contains("/MediaBox [0 0 900 500]"));
        for _ in 0..5 {
            assert!(svg_to_pdf(&svg).unwrap() == pdf, "no date, id or hash order: the same bytes each time");
        }
    }

    #[test]
    fn ticks_are_short() {
        assert_eq!(tick(10000.0), "10000");
        assert_eq!(tick(0.25), "0.25");
        assert_eq!(tick(2.5e-5), "2.50e-5");
        assert_eq!(tick(0.0), "0");
    }

    #[test]
    fn decimation_keeps_extremes_in_order() {
        let xs: Vec<f64> = (0..100).map(f64::from).collect();
        let mut ys = vec![0.0; 100];
        ys[37] = 9.0;
        ys[38] = -4.0;
        let (dx, dy) = decimate(&xs, &ys, 10);
        assert_eq!(dx.len(), 20);
        assert!(dy.contains(&9.0) && dy.contains(&-4.0));
        assert!(dx.windows(2).all(|w| w[0] <= w[1]));
    }
}
