//! SVG line and bar charts (plotters, SVG backend; no fonts needed).

use std::path::Path;

use plotters::coord::types::RangedCoordf64;
use plotters::prelude::*;
use plotters::style::text_anchor::{HPos, Pos, VPos};

use crate::metrics::TimeSeries;

/// Ten colours that most readers, colour-blind ones included, tell apart on white:
/// Okabe–Ito's seven (yellow left out: unreadable on white) and three of Tol's muted
/// scheme, cycled; ordered so that the two series sharing a [`marker`] differ most.
const PALETTE: [RGBColor; 10] = [
    RGBColor(0, 114, 178),
    RGBColor(213, 94, 0),
    RGBColor(0, 158, 115),
    RGBColor(204, 121, 167),
    RGBColor(230, 159, 0),
    RGBColor(0, 0, 0),
    RGBColor(86, 180, 233),
    RGBColor(136, 34, 85),
    RGBColor(153, 153, 51),
    RGBColor(51, 34, 136),
];

/// Colour of series `i`.
pub fn color(i: usize) -> RGBColor {
    PALETTE[i % PALETTE.len()]
}

/// The shape marking a series' points, so that series stay apart in grey print and for
/// readers who confuse two colours.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Marker {
    Circle,
    Square,
    Triangle,
    Diamond,
    Cross,
}

const MARKERS: [Marker; 5] =
    [Marker::Circle, Marker::Square, Marker::Triangle, Marker::Diamond, Marker::Cross];

/// Marker of series `i`: with [`color`], no two of the first 50 series share both.
pub fn marker(i: usize) -> Marker {
    MARKERS[(i + i / PALETTE.len()) % MARKERS.len()]
}

/// Font sizes (pixels on the 900-pixel-wide chart), large enough to read when the
/// chart is shrunk to a column's width.
const TITLE_FONT: u32 = 22;
const LABEL_FONT: u32 = 17;
const AXIS_FONT: u32 = 18;
const LEGEND_FONT: u32 = 16;
const VALUE_FONT: u32 = 13;

/// Characters of text in a font of `size` that fit in `px` pixels: plotters writes a
/// size-`s` font as `s / 1.24` pixels in SVG, and a sans-serif character averages
/// 0.58 of that (digits, capitals and spaces together).
fn fitting(px: f64, size: u32) -> usize {
    (px.max(0.0) / (size as f64 / 1.24 * 0.58)) as usize
}

/// Draws `m` centred at backend pixel `at`, `r` pixels from centre to edge, filled with
/// `fill` and outlined with `edge` (a cross is drawn in `edge` alone).
fn draw_marker(
    area: &DrawingArea<SVGBackend, plotters::coord::Shift>,
    at: (i32, i32),
    m: Marker,
    r: i32,
    fill: RGBColor,
    edge: RGBColor,
) -> Result<(), String> {
    let e = |e: &dyn std::fmt::Display| e.to_string();
    let (x, y) = at;
    let outline: Vec<(i32, i32)> = match m {
        Marker::Circle => {
            area.draw(&Circle::new(at, r, fill.filled())).map_err(|x| e(&x))?;
            return area.draw(&Circle::new(at, r, edge.stroke_width(1))).map_err(|x| e(&x));
        }
        Marker::Cross => {
            let s = edge.stroke_width(3);
            area.draw(&PathElement::new(vec![(x - r, y - r), (x + r, y + r)], s)).map_err(|x| e(&x))?;
            return area.draw(&PathElement::new(vec![(x - r, y + r), (x + r, y - r)], s)).map_err(|x| e(&x));
        }
        Marker::Square => vec![
            (x - r + 1, y - r + 1),
            (x + r - 1, y - r + 1),
            (x + r - 1, y + r - 1),
            (x - r + 1, y + r - 1),
        ],
        Marker::Triangle => vec![(x, y - r - 1), (x + r + 1, y + r - 1), (x - r - 1, y + r - 1)],
        Marker::Diamond => vec![(x, y - r - 1), (x + r + 1, y), (x, y + r + 1), (x - r - 1, y)],
    };
    area.draw(&Polygon::new(outline.clone(), fill.filled())).map_err(|x| e(&x))?;
    let mut closed = outline.clone();
    closed.push(outline[0]);
    area.draw(&PathElement::new(closed, edge.stroke_width(1))).map_err(|x| e(&x))
}

/// Draws the mark of a value a paper states, centred at backend pixel `at`: a hollow
/// black ring with a white halo, so it stands apart from every series' filled markers
/// and shows on a bar of any colour.
fn draw_paper_mark(
    area: &DrawingArea<SVGBackend, plotters::coord::Shift>,
    at: (i32, i32),
) -> Result<(), String> {
    let e = |e: &dyn std::fmt::Display| e.to_string();
    area.draw(&Circle::new(at, 8, WHITE.stroke_width(2))).map_err(|x| e(&x))?;
    area.draw(&Circle::new(at, 7, BLACK.stroke_width(2))).map_err(|x| e(&x))
}

/// Legend label of the paper's values on a figure.
pub const PAPER: &str = "paper";

/// Error text for `path`.
fn at(path: &Path) -> impl Fn(&dyn std::fmt::Display) -> String + '_ {
    move |e| format!("{}: {e}", path.display())
}

/// Draws a chart of `size` pixels with `draw` on a white background, rendered in
/// memory and written to `path` in one go (so a full disk is reported as such).
fn write_svg(
    path: &Path,
    size: (u32, u32),
    draw: impl FnOnce(&DrawingArea<SVGBackend, plotters::coord::Shift>) -> Result<(), String>,
) -> Result<(), String> {
    let svg = render_svg_sized(size, draw)?;
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

/// The size of a chart, pixels: wide enough for a page's width, in proportion for a
/// column's.
pub const CHART: (u32, u32) = (900, 500);

/// Draws a [`CHART`]-sized chart with `draw` on a white background into an SVG string.
pub fn render_svg(
    draw: impl FnOnce(&DrawingArea<SVGBackend, plotters::coord::Shift>) -> Result<(), String>,
) -> Result<String, String> {
    render_svg_sized(CHART, draw)
}

/// Draws a chart of `size` pixels with `draw` on a white background into an SVG string.
fn render_svg_sized(
    size: (u32, u32),
    draw: impl FnOnce(&DrawingArea<SVGBackend, plotters::coord::Shift>) -> Result<(), String>,
) -> Result<String, String> {
    let mut svg = String::new();
    {
        let root = SVGBackend::with_string(&mut svg, size).into_drawing_area();
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
    if !(1e-4..1e7).contains(&v.abs()) {
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

/// A y axis in decades (see [`log_axis`]): values are drawn at their `log10`, values
/// below `floor` (zeros: an empty queue) at the floor.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct LogAxis {
    /// The bottom of the axis, a power of ten.
    pub(crate) floor: f64,
    /// The top of the axis, a power of ten at or above every value.
    pub(crate) top: f64,
    /// Whether some value lies below the floor (the chart then says where it is drawn).
    pub(crate) clamped: bool,
}

/// Ratio between series' typical values (medians) above which a chart uses a log y axis: two
/// orders of magnitude.
pub const DOMINANCE: f64 = 100.0;

/// Decades a log axis spans at most below the largest typical value, so that a series
/// that is zero but for rounding does not stretch the axis.
const MAX_DECADES: i32 = 6;

/// Whether to draw `series` (the y values of each series on one axis) on a log y axis,
/// and which.
///
/// The rule: a series' typical value is the median of its finite values. When no value
/// is negative and, among the series whose typical value is positive (at least two),
/// the largest is more than [`DOMINANCE`] times the smallest, one series dominates: on a
/// linear axis the others would lie flat on zero, so the axis is logarithmic. A series
/// zero most of the time (an idle queue, a starved flow) is not compared: zero is what
/// it says, and a linear axis says it best. The log axis's floor is one decade below the
/// decade of the smallest typical value (at most [`MAX_DECADES`] below the largest);
/// values under it, zeros included, are drawn at the floor, and the chart's legend says
/// so. Comparable series, a single series, all zeros, or any negative value: linear
/// (`None`).
pub fn log_axis(series: &[&[f64]]) -> Option<LogAxis> {
    let finite = || series.iter().flat_map(|s| s.iter().copied().filter(|v| v.is_finite()));
    if finite().any(|v| v < 0.0) {
        return None;
    }
    let median = |s: &[f64]| {
        let mut v: Vec<f64> = s.iter().copied().filter(|v| v.is_finite()).collect();
        v.sort_by(f64::total_cmp);
        quantile(&v, 0.5)
    };
    let typical: Vec<f64> = series.iter().map(|s| median(s)).filter(|m| *m > 0.0).collect();
    let (lo, hi) = typical.iter().fold((f64::MAX, 0.0f64), |(a, b), &m| (a.min(m), b.max(m)));
    if typical.len() < 2 || hi <= lo * DOMINANCE {
        return None;
    }
    let decade = |v: f64| v.log10().floor() as i32;
    let floor = 10f64.powi((decade(lo) - 1).max(decade(hi) - MAX_DECADES));
    let max = finite().fold(0.0f64, f64::max);
    let top = 10f64.powi(max.log10().ceil() as i32).max(floor * 10.0);
    Some(LogAxis { floor, top, clamped: finite().any(|v| v < floor) })
}

impl LogAxis {
    /// Where `y` is drawn: its `log10`, at least the floor's; NaN stays NaN (a gap).
    fn at(&self, y: f64) -> f64 {
        if y.is_nan() {
            y
        } else {
            y.max(self.floor).log10()
        }
    }

    /// The axis range, in decades.
    fn range(&self) -> std::ops::Range<f64> {
        self.floor.log10().round()..self.top.log10().round()
    }

    /// Labels a position of the axis: its power of ten at whole decades, nothing between.
    fn label(y: f64) -> String {
        if (y - y.round()).abs() > 1e-6 {
            return String::new();
        }
        let k = y.round() as i32;
        if (-4..=6).contains(&k) {
            tick(10f64.powi(k))
        } else {
            format!("1e{k}")
        }
    }

    /// The legend's note on this axis.
    fn note(&self) -> String {
        let below = if self.clamped {
            format!("; values below {0}, zeros included, drawn at {0}", Self::label(self.floor.log10()))
        } else {
            String::new()
        };
        format!("log y axis: one series is over {DOMINANCE}× the others{below}")
    }
}

/// How a legend entry's key is drawn.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Key {
    /// A short line with the series' marker, as the series is drawn.
    Line(Option<Marker>),
    /// A dashed line (a reference line).
    Dashed,
    /// A light patch (a band).
    Band,
    /// A filled square (a bar) with the series' marker.
    Square(Marker),
    /// The hollow ring of a paper's value.
    Paper,
    /// No key: a note on how the chart is drawn.
    Note,
}

/// One entry of a legend.
struct Entry {
    label: String,
    color: RGBColor,
    key: Key,
}

/// Height of a legend row, pixels; rows hold three entries, or one note.
const LEGEND_ROW: u32 = 26;

/// Rows a legend takes: three keyed entries a row, then a row per note (at most six).
fn legend_rows(keyed: usize, notes: usize) -> u32 {
    (keyed.div_ceil(3) + notes).clamp(1, 6) as u32
}

/// Splits a chart into the plot area and, below it, room for a legend of `keyed`
/// entries and `notes` notes.
fn split_for_legend<'a>(
    root: &DrawingArea<SVGBackend<'a>, plotters::coord::Shift>,
    keyed: usize,
    notes: usize,
) -> (DrawingArea<SVGBackend<'a>, plotters::coord::Shift>, DrawingArea<SVGBackend<'a>, plotters::coord::Shift>)
{
    let height = root.dim_in_pixel().1;
    root.split_vertically(height - LEGEND_ROW * legend_rows(keyed, notes) - 10)
}

/// Draws a legend below the plot: the keyed entries three to a row, labels cut to the
/// column's width, then each note on a row of its own, as many rows as
/// [`legend_rows`] allows.
fn draw_legend(
    area: &DrawingArea<SVGBackend, plotters::coord::Shift>,
    entries: &[Entry],
) -> Result<(), String> {
    let e = |e: &dyn std::fmt::Display| e.to_string();
    let keyed: Vec<&Entry> = entries.iter().filter(|e| e.key != Key::Note).collect();
    let notes: Vec<&Entry> = entries.iter().filter(|e| e.key == Key::Note).collect();
    let rows = legend_rows(keyed.len(), notes.len()) as usize;
    let width = area.dim_in_pixel().0 as i32;
    let column = (width - 70) / 3;
    let chars = |px: i32| fitting(px as f64, LEGEND_FONT);
    let cut = |label: &str, room: usize| {
        let mut shown: String = label.chars().take(room).collect();
        if label.chars().count() > room {
            shown.pop();
            shown.push('…');
        }
        shown
    };
    let keyed_rows = keyed.len().div_ceil(3).min(rows);
    for (i, entry) in keyed.iter().enumerate().take(3 * keyed_rows) {
        let (row, col) = ((i / 3) as i32, (i % 3) as i32);
        let (x, y) = (60 + col * column, 6 + row * LEGEND_ROW as i32);
        let c = entry.color;
        match entry.key {
            Key::Line(m) => {
                area.draw(&PathElement::new(vec![(x, y + 9), (x + 26, y + 9)], c.stroke_width(3)))
                    .map_err(|x| e(&x))?;
                if let Some(m) = m {
                    draw_marker(area, (x + 13, y + 9), m, 5, c, c)?;
                }
            }
            Key::Dashed => {
                for (a, b) in [(x, x + 8), (x + 13, x + 21), (x + 26, x + 28)] {
                    area.draw(&PathElement::new(vec![(a, y + 9), (b, y + 9)], c.stroke_width(2)))
                        .map_err(|x| e(&x))?;
                }
            }
            Key::Band => area
                .draw(&Rectangle::new([(x, y + 2), (x + 26, y + 16)], c.mix(0.45).filled()))
                .map_err(|x| e(&x))?,
            Key::Square(m) => {
                area.draw(&Rectangle::new([(x + 4, y), (x + 22, y + 18)], c.filled())).map_err(|x| e(&x))?;
                draw_marker(area, (x + 13, y + 9), m, 4, WHITE, BLACK)?;
            }
            Key::Paper => draw_paper_mark(area, (x + 13, y + 9))?,
            Key::Note => {}
        }
        let shown = cut(&entry.label, chars(column - 34));
        area.draw(&Text::new(shown, (x + 34, y), ("sans-serif", LEGEND_FONT))).map_err(|x| e(&x))?;
    }
    for (k, note) in notes.iter().enumerate().take(rows - keyed_rows) {
        let y = 6 + (keyed_rows + k) as i32 * LEGEND_ROW as i32;
        let shown = cut(&note.label, chars(width - 80));
        area.draw(&Text::new(shown, (60, y), ("sans-serif", LEGEND_FONT))).map_err(|x| e(&x))?;
    }
    Ok(())
}

/// One series of an error-bar chart: points `(x, mean, low, high)`.
pub struct ErrorSeries {
    /// Legend label.
    pub(crate) label: String,
    /// Points in x order: x, mean, and the ends of the error bar.
    pub(crate) points: Vec<(f64, f64, f64, f64)>,
}

/// A chart of means with error bars against x, one line per series; `x_names` labels
/// the x positions 0, 1, ... when x is categorical. Legends sit below the plot area. Where
/// one series' means dominate the others' ([`log_axis`]), the y axis is logarithmic.
pub fn error_bar_svg(
    title: &str,
    x_label: &str,
    y_label: &str,
    series: &[ErrorSeries],
    x_names: Option<&[String]>,
) -> Result<String, String> {
    let means: Vec<Vec<f64>> = series.iter().map(|s| s.points.iter().map(|p| p.1).collect()).collect();
    let log = log_axis(&means.iter().map(Vec::as_slice).collect::<Vec<_>>()).map(|a| {
        // An error bar's ends count too: the top holds the highest, the floor says if
        // one is below it.
        let ends = series.iter().flat_map(|s| s.points.iter().flat_map(|p| [p.2, p.3]));
        let ends: Vec<f64> = ends.filter(|v| v.is_finite()).collect();
        let max = ends.iter().copied().fold(a.top, f64::max);
        LogAxis {
            top: 10f64.powi(max.log10().ceil() as i32),
            clamped: a.clamped || ends.iter().any(|&v| v < a.floor),
            ..a
        }
    });
    let logged: Vec<ErrorSeries>;
    let series = match log {
        Some(a) => {
            logged = series
                .iter()
                .map(|s| ErrorSeries {
                    label: s.label.clone(),
                    points: s.points.iter().map(|&(x, m, lo, hi)| (x, a.at(m), a.at(lo), a.at(hi))).collect(),
                })
                .collect();
            &logged[..]
        }
        None => series,
    };
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
    let (y_range, y_desc) = match log {
        Some(a) => (a.range(), format!("{y_label}, log")),
        None => (y0..y1, y_label.to_string()),
    };
    render_svg(|root| {
        let e = |e: &dyn std::fmt::Display| e.to_string();
        let (plot, legend) = split_for_legend(root, series.len(), usize::from(log.is_some()));
        let mut chart = ChartBuilder::on(&plot)
            .caption(title, ("sans-serif", TITLE_FONT))
            .margin(14)
            .x_label_area_size(54)
            .y_label_area_size(96)
            .build_cartesian_2d(x0..x1, y_range.clone())
            .map_err(|x| e(&x))?;
        let names = x_names.map(<[String]>::to_vec);
        let mut mesh = chart.configure_mesh();
        mesh.x_desc(x_label)
            .y_desc(&y_desc)
            .label_style(("sans-serif", LABEL_FONT))
            .axis_desc_style(("sans-serif", AXIS_FONT))
            .light_line_style(WHITE);
        let formatter = move |x: &f64| match &names {
            Some(n) if (x - x.round()).abs() < 1e-9 && x.round() >= 0.0 => {
                n.get(x.round() as usize).cloned().unwrap_or_default()
            }
            Some(_) => String::new(),
            None => tick(*x),
        };
        if let Some(n) = x_names {
            mesh.x_labels(n.len() * 4 + 1);
        }
        if log.is_some() {
            mesh.y_labels((y_range.end - y_range.start) as usize + 1)
                .y_label_formatter(&|y| LogAxis::label(*y));
        } else {
            mesh.y_label_formatter(&|y| tick(*y));
        }
        mesh.x_label_formatter(&formatter).draw().map_err(|x| e(&x))?;
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
            for p in &s.points {
                if p.0.is_finite() && p.1.is_finite() {
                    draw_marker(root, chart.backend_coord(&(p.0, p.1)), marker(i), 5, c, c)?;
                }
            }
        }
        let mut entries: Vec<Entry> = series
            .iter()
            .enumerate()
            .map(|(i, s)| Entry { label: s.label.clone(), color: color(i), key: Key::Line(Some(marker(i))) })
            .collect();
        if let Some(a) = log {
            entries.push(Entry { label: a.note(), color: WHITE, key: Key::Note });
        }
        draw_legend(&legend, &entries)
    })
}

/// What a line of a line chart is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Role {
    /// A data series: its own colour and marker, its own legend entry.
    Data,
    /// A reference level (a threshold): dashed grey, its own legend entry.
    Reference,
    /// The reference for data series `i` (the i-th [`Role::Data`] line), e.g. its fair
    /// share: dashed in that series' colour; all such lines share one legend entry.
    ReferenceOf(usize),
    /// Values a paper states: a hollow ring at each point, no line; all such lines
    /// share one legend entry, [`PAPER`].
    Paper,
}

/// One line of a line chart.
pub struct Line<'a> {
    /// Legend label.
    pub(crate) label: &'a str,
    /// x values.
    pub(crate) xs: &'a [f64],
    /// y values.
    pub(crate) ys: &'a [f64],
    /// Data or reference.
    pub(crate) role: Role,
}

/// A series reduced for drawing: at most one point per bucket, each the bucket's mean,
/// with the bucket's minimum and maximum.
#[derive(Debug, PartialEq)]
pub struct Reduced {
    pub(crate) xs: Vec<f64>,
    pub(crate) means: Vec<f64>,
    pub(crate) lows: Vec<f64>,
    pub(crate) highs: Vec<f64>,
    /// Samples per bucket, where the series was reduced.
    pub(crate) per_bucket: Option<usize>,
}

/// Reduces a series longer than `buckets` to `buckets` points, the mean of each run of
/// samples (at the run's last x), keeping the run's extremes for a band: a long, noisy
/// series drawn sample by sample is a solid block, its extremes joined in time order a
/// zigzag that looks like one; the means show the level, the band the spread.
pub fn reduce(xs: &[f64], ys: &[f64], buckets: usize) -> Reduced {
    let n = xs.len().min(ys.len());
    let buckets = buckets.max(1);
    if n <= buckets {
        let (xs, ys) = (xs[..n].to_vec(), ys[..n].to_vec());
        return Reduced { xs, means: ys.clone(), lows: ys.clone(), highs: ys, per_bucket: None };
    }
    let mut out = Reduced {
        xs: Vec::with_capacity(buckets),
        means: Vec::with_capacity(buckets),
        lows: Vec::with_capacity(buckets),
        highs: Vec::with_capacity(buckets),
        per_bucket: Some(n.div_ceil(buckets)),
    };
    for b in 0..buckets {
        let (lo, hi) = (b * n / buckets, ((b + 1) * n / buckets).max(b * n / buckets + 1));
        let run = ys[lo..hi].iter().copied().filter(|v| v.is_finite());
        let (mut sum, mut count, mut mn, mut mx) = (0.0, 0usize, f64::INFINITY, f64::NEG_INFINITY);
        for v in run {
            sum += v;
            count += 1;
            mn = mn.min(v);
            mx = mx.max(v);
        }
        out.xs.push(xs[hi - 1]);
        if count == 0 {
            out.means.push(f64::NAN);
            out.lows.push(f64::NAN);
            out.highs.push(f64::NAN);
        } else {
            out.means.push(sum / count as f64);
            out.lows.push(mn);
            out.highs.push(mx);
        }
    }
    out
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
    pub(crate) step: Step,
    /// With many series, the worst are those with the lowest mean (throughput, rates)
    /// rather than the highest (queue lengths). A series that is zero throughout is then
    /// the worst (a starved flow); otherwise it is idle (a queue never used) and left out.
    pub(crate) worst_is_lowest: bool,
}

/// Series above which a chart shows a summary (the band of the middle 80 % of series,
/// their median, the worst three named) instead of one line each.
pub const MAX_LINES: usize = 12;

/// Points a long series is reduced to (see [`reduce`]).
const BUCKETS: usize = 400;

/// Series up to which a reduced series also shows its min–max band.
const MAX_BANDS: usize = 3;

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

/// The points of a line that carry its marker: every point of a short line, else eight
/// spread over it, shifted by the series' place among `of` so markers of lines lying on
/// one another do not hide each other.
fn marker_points(xs: &[f64], ys: &[f64], series: usize, of: usize) -> Vec<(f64, f64)> {
    let n = xs.len().min(ys.len());
    let finite = |&(x, y): &(f64, f64)| x.is_finite() && y.is_finite();
    if n <= 30 {
        return xs.iter().copied().zip(ys.iter().copied()).take(n).filter(finite).collect();
    }
    let (marks, of) = (8usize, of.max(1));
    (0..marks)
        .map(|k| ((2 * k + 1) * of + 2 * (series % of)) * n / (2 * marks * of + 1))
        .map(|i| (xs[i.min(n - 1)], ys[i.min(n - 1)]))
        .filter(finite)
        .collect()
}

/// Whether every finite value of a series is zero.
fn all_zero(ys: &[f64]) -> bool {
    ys.iter().filter(|v| v.is_finite()).all(|&v| v == 0.0)
}

/// The mean of a series' finite values.
fn mean(ys: &[f64]) -> f64 {
    let (sum, count) = ys.iter().filter(|v| v.is_finite()).fold((0.0, 0usize), |(s, c), v| (s + v, c + 1));
    if count == 0 {
        f64::NAN
    } else {
        sum / count as f64
    }
}

/// The `q` quantile (0 to 1) of sorted values, linearly interpolated.
fn quantile(sorted: &[f64], q: f64) -> f64 {
    if sorted.is_empty() {
        return f64::NAN;
    }
    let pos = q * (sorted.len() - 1) as f64;
    let (i, f) = (pos.floor() as usize, pos - pos.floor());
    let next = sorted[(i + 1).min(sorted.len() - 1)];
    sorted[i] + f * (next - sorted[i])
}

/// A time span in words: "2.5 ms".
fn span(seconds: f64) -> String {
    if seconds >= 1.0 {
        format!("{} s", tick(seconds))
    } else if seconds >= 1e-3 {
        format!("{} ms", tick(seconds * 1e3))
    } else {
        format!("{} µs", tick(seconds * 1e6))
    }
}

/// Draws a line chart to `path`: one line per data series, each with its colour and
/// marker (legend below the plot), up to [`MAX_LINES`] series; beyond, the band of the
/// middle 80 % of the series, their median and the three worst series by name. A long
/// series is drawn as the means of [`BUCKETS`] runs of samples, with the runs' min–max
/// band where there are at most [`MAX_BANDS`] series; the legend says so.
pub fn line_chart(
    path: &Path,
    title: &str,
    x_label: &str,
    y_label: &str,
    lines: &[Line],
    style: ChartStyle,
) -> Result<(), String> {
    chart(path, title, (x_label, y_label), lines, style, false)
}

/// A line chart as [`line_chart`] draws one, on a log y axis in decades from 1 (for
/// ratios at least 1, such as FCT slowdowns), whatever the spread of the series.
pub fn line_chart_log(
    path: &Path,
    title: &str,
    x_label: &str,
    y_label: &str,
    lines: &[Line],
    style: ChartStyle,
) -> Result<(), String> {
    chart(path, title, (x_label, y_label), lines, style, true)
}

/// [`line_chart`], on a log y axis from 1 with `log_from_one`.
fn chart(
    path: &Path,
    title: &str,
    (x_label, y_label): (&str, &str),
    lines: &[Line],
    style: ChartStyle,
    log_from_one: bool,
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
    let data: Vec<(usize, &Line)> = lines.iter().filter(|l| l.role == Role::Data).enumerate().collect();
    // Queues never used are left out; starved flows are kept (see ChartStyle).
    let idle = |l: &Line| !style.worst_is_lowest && data.len() > 1 && all_zero(l.ys);
    let shown: Vec<(usize, &Line)> = data.iter().copied().filter(|(_, l)| !idle(l)).collect();
    let idle_count = data.len() - shown.len();
    let summary = shown.len() > MAX_LINES;
    let mut reduced: Vec<Reduced> = shown.iter().map(|(_, l)| reduce(l.xs, l.ys, BUCKETS)).collect();
    let per_bucket = reduced.iter().filter_map(|r| r.per_bucket).max();
    let forced = log_from_one.then(|| {
        let max = shown
            .iter()
            .flat_map(|(_, l)| l.ys.iter().copied())
            .filter(|v| v.is_finite())
            .fold(1.0, f64::max);
        let clamped = shown.iter().flat_map(|(_, l)| l.ys.iter()).any(|&v| v < 1.0);
        LogAxis { floor: 1.0, top: 10f64.powi(max.log10().ceil().max(1.0) as i32), clamped }
    });
    let log = forced.or_else(|| log_axis(&shown.iter().map(|(_, l)| l.ys).collect::<Vec<_>>())).map(|a| {
        // Reference levels above the data stay on the chart.
        let above = lines.iter().filter(|l| l.role != Role::Data).flat_map(|l| l.ys.iter().copied());
        let max = above.filter(|v| v.is_finite()).fold(a.top, f64::max);
        LogAxis { top: 10f64.powi(max.log10().ceil() as i32), ..a }
    });
    // Reduced first, then drawn in decades: a bucket's mean is of the values themselves.
    let drawn_at = |ys: &mut Vec<f64>| {
        if let Some(a) = log {
            ys.iter_mut().for_each(|y| *y = a.at(*y));
        }
    };
    for r in &mut reduced {
        drawn_at(&mut r.means);
        drawn_at(&mut r.lows);
        drawn_at(&mut r.highs);
    }
    let draw = |chart: &mut ChartContext<SVGBackend, Cartesian2d<RangedCoordf64, RangedCoordf64>>,
                root: &DrawingArea<SVGBackend, plotters::coord::Shift>|
     -> Result<Vec<Entry>, String> {
        let mut legend: Vec<Entry> = Vec::new();
        // The data series drawn, by their index among the data series, with the index
        // of their colour and marker.
        let mut drawn: Vec<(usize, usize)> = Vec::new();
        let bands = !summary && shown.len() <= MAX_BANDS && per_bucket.is_some();
        if summary {
            let n = reduced.iter().map(|r| r.xs.len()).min().unwrap_or(0);
            let xs = &reduced[0].xs;
            let (mut band_hi, mut band_lo, mut median) = (Vec::new(), Vec::new(), Vec::new());
            for (b, &x) in xs.iter().enumerate().take(n) {
                let mut at: Vec<f64> = reduced.iter().map(|r| r.means[b]).filter(|v| v.is_finite()).collect();
                at.sort_by(f64::total_cmp);
                band_hi.push((x, quantile(&at, 0.9)));
                band_lo.push((x, quantile(&at, 0.1)));
                median.push((x, quantile(&at, 0.5)));
            }
            let band: Vec<(f64, f64)> = stepped_pairs(&band_hi, style.step)
                .into_iter()
                .chain(stepped_pairs(&band_lo, style.step).into_iter().rev())
                .collect();
            let grey = RGBColor(150, 175, 205);
            chart
                .draw_series(std::iter::once(Polygon::new(band, grey.mix(0.45).filled())))
                .map_err(|e| err(&e))?;
            legend.push(Entry {
                label: format!("middle 80 % of {} series", shown.len()),
                color: grey,
                key: Key::Band,
            });
            chart
                .draw_series(LineSeries::new(stepped_pairs(&median, style.step), BLACK.stroke_width(2)))
                .map_err(|e| err(&e))?;
            legend.push(Entry { label: "median".to_string(), color: BLACK, key: Key::Line(None) });
            let mut by_mean: Vec<(f64, usize)> =
                shown.iter().enumerate().map(|(k, (_, l))| (mean(l.ys), k)).collect();
            by_mean.sort_by(
                |a, b| if style.worst_is_lowest { a.0.total_cmp(&b.0) } else { b.0.total_cmp(&a.0) },
            );
            for (rank, &(_, k)) in by_mean.iter().take(3).enumerate() {
                let (c, m) = (color(rank + 1), marker(rank + 1));
                let r = &reduced[k];
                chart
                    .draw_series(LineSeries::new(stepped(&r.xs, &r.means, style.step), c.stroke_width(2)))
                    .map_err(|e| err(&e))?;
                for p in marker_points(&r.xs, &r.means, rank, 3) {
                    draw_marker(root, chart.backend_coord(&p), m, 5, c, c)?;
                }
                let which = if style.worst_is_lowest { "lowest" } else { "highest" };
                legend.push(Entry {
                    label: format!("{} ({which} mean #{})", shown[k].1.label, rank + 1),
                    color: c,
                    key: Key::Line(Some(m)),
                });
                drawn.push((shown[k].0, rank + 1));
            }
        } else {
            for (k, ((i, l), r)) in shown.iter().zip(&reduced).enumerate() {
                let c = color(k);
                if bands && r.per_bucket.is_some() {
                    let hi: Vec<(f64, f64)> = r.xs.iter().copied().zip(r.highs.iter().copied()).collect();
                    let lo: Vec<(f64, f64)> = r.xs.iter().copied().zip(r.lows.iter().copied()).collect();
                    let band: Vec<(f64, f64)> = stepped_pairs(&hi, style.step)
                        .into_iter()
                        .chain(stepped_pairs(&lo, style.step).into_iter().rev())
                        .filter(|p| p.1.is_finite())
                        .collect();
                    chart
                        .draw_series(std::iter::once(Polygon::new(band, c.mix(0.18).filled())))
                        .map_err(|e| err(&e))?;
                }
                chart
                    .draw_series(LineSeries::new(stepped(&r.xs, &r.means, style.step), c.stroke_width(2)))
                    .map_err(|e| err(&e))?;
                for p in marker_points(&r.xs, &r.means, k, shown.len()) {
                    draw_marker(root, chart.backend_coord(&p), marker(k), 5, c, c)?;
                }
                legend.push(Entry { label: l.label.to_string(), color: c, key: Key::Line(Some(marker(k))) });
                drawn.push((*i, k));
            }
        }
        let mut share_label = None;
        for l in lines.iter().filter(|l| !matches!(l.role, Role::Data | Role::Paper)) {
            let c = match l.role {
                Role::ReferenceOf(i) => match drawn.iter().find(|(d, _)| *d == i) {
                    Some(&(_, k)) => color(k),
                    None => continue,
                },
                _ => RGBColor(90, 90, 90),
            };
            let mut r = reduce(l.xs, l.ys, BUCKETS);
            drawn_at(&mut r.means);
            chart
                .draw_series(DashedLineSeries::new(
                    stepped(&r.xs, &r.means, style.step),
                    8,
                    5,
                    c.stroke_width(2),
                ))
                .map_err(|e| err(&e))?;
            match l.role {
                Role::ReferenceOf(_) => share_label = share_label.or(Some(l.label)),
                _ => legend.push(Entry { label: l.label.to_string(), color: c, key: Key::Dashed }),
            }
        }
        if let Some(label) = share_label {
            legend.push(Entry { label: label.to_string(), color: RGBColor(90, 90, 90), key: Key::Dashed });
        }
        let mut paper = lines.iter().filter(|l| l.role == Role::Paper).peekable();
        if paper.peek().is_some() {
            for l in paper {
                for (&x, &y) in l.xs.iter().zip(l.ys) {
                    let y = log.map_or(y, |a| a.at(y));
                    if x.is_finite() && y.is_finite() {
                        draw_paper_mark(root, chart.backend_coord(&(x, y)))?;
                    }
                }
            }
            legend.push(Entry { label: PAPER.to_string(), color: BLACK, key: Key::Paper });
        }
        if idle_count > 0 {
            legend.push(Entry {
                label: format!("{idle_count} series zero throughout, not drawn"),
                color: WHITE,
                key: Key::Note,
            });
        }
        match log {
            // A chosen log axis needs no explanation beyond its label.
            Some(a) if log_from_one && a.clamped => {
                legend.push(Entry { label: "values below 1 drawn at 1".into(), color: WHITE, key: Key::Note })
            }
            Some(_) if log_from_one => {}
            Some(a) => legend.push(Entry { label: a.note(), color: WHITE, key: Key::Note }),
            None => {}
        }
        if let (Some(k), Some(r)) = (per_bucket, reduced.first()) {
            let width =
                if r.xs.len() > 1 { (r.xs[r.xs.len() - 1] - r.xs[0]) / (r.xs.len() - 1) as f64 } else { 0.0 };
            let what = if x_label.starts_with("time") {
                format!("{} ({k} samples)", span(width))
            } else {
                format!("{k} samples")
            };
            let band = if bands { "; shaded: their min–max" } else { "" };
            legend.push(Entry {
                label: format!("lines: means over {what}{band}"),
                color: WHITE,
                key: Key::Note,
            });
        }
        Ok(legend)
    };
    let references = lines.iter().filter(|l| l.role == Role::Reference).count();
    let shares = lines.iter().any(|l| matches!(l.role, Role::ReferenceOf(_)));
    let papers = lines.iter().any(|l| l.role == Role::Paper);
    let keyed =
        if summary { 5 } else { shown.len() } + references + usize::from(shares) + usize::from(papers);
    let notes = usize::from(idle_count > 0) + usize::from(per_bucket.is_some()) + usize::from(log.is_some());
    let (y_range, y_desc) = match log {
        Some(a) => (a.range(), format!("{y_label}, log")),
        None => (y0..y1, y_label.to_string()),
    };
    write_svg(path, CHART, |root| {
        let (plot, legend_area) = split_for_legend(root, keyed, notes);
        let mut chart = ChartBuilder::on(&plot)
            .caption(title, ("sans-serif", TITLE_FONT))
            .margin(14)
            .x_label_area_size(54)
            .y_label_area_size(90)
            .build_cartesian_2d(x0..x1, y_range.clone())
            .map_err(|e| err(&e))?;
        let mut mesh = chart.configure_mesh();
        mesh.x_desc(x_label)
            .y_desc(&y_desc)
            .label_style(("sans-serif", LABEL_FONT))
            .axis_desc_style(("sans-serif", AXIS_FONT))
            .x_label_formatter(&|x| tick(*x))
            .light_line_style(WHITE);
        if log.is_some() {
            // One label per decade: whole numbers of the range in decades.
            mesh.y_labels((y_range.end - y_range.start) as usize + 1)
                .y_label_formatter(&|y| LogAxis::label(*y));
        } else {
            mesh.y_label_formatter(&|y| tick(*y));
        }
        mesh.draw().map_err(|e| err(&e))?;
        let legend = draw(&mut chart, root)?;
        draw_legend(&legend_area, &legend)
    })
}

/// `stepped` for (x, y) pairs.
fn stepped_pairs(points: &[(f64, f64)], step: Step) -> Vec<(f64, f64)> {
    let (xs, ys): (Vec<f64>, Vec<f64>) = points.iter().copied().unzip();
    stepped(&xs, &ys, step)
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
        .map(|(c, ys)| Line { label: &c.name, xs: &ts.times_s, ys, role: Role::Data })
        .collect();
    let what = ts.name.replace('_', " ");
    let title = if context.is_empty() { what } else { format!("{what} — {context}") };
    line_chart(path, &title, "time (s)", unit, &lines, style)
}

/// One series of a bar chart: a value per category and, from replications, the
/// half-width of its error bar (none: no bar).
pub struct Bars {
    /// Legend label.
    pub(crate) label: String,
    /// One value per category (NaN: no bar).
    pub(crate) values: Vec<f64>,
    /// One error half-width per category.
    pub(crate) errors: Option<Vec<f64>>,
    /// The paper's value per category (NaN: none stated), drawn as a hollow ring over
    /// the bar.
    pub(crate) paper: Option<Vec<f64>>,
}

/// Wraps `text` into at most `lines` lines of at most `width` characters, breaking at
/// spaces (a word longer than a line is cut, and an overlong last line ends in "…").
fn wrap(text: &str, width: usize, lines: usize) -> Vec<String> {
    let width = width.max(3);
    let mut out: Vec<String> = Vec::new();
    let mut current = String::new();
    for word in text.split_whitespace() {
        let word: String = if word.chars().count() > width {
            word.chars().take(width - 1).chain(std::iter::once('…')).collect()
        } else {
            word.to_string()
        };
        if current.is_empty() {
            current = word;
        } else if current.chars().count() + 1 + word.chars().count() <= width {
            current.push(' ');
            current.push_str(&word);
        } else {
            out.push(std::mem::replace(&mut current, word));
        }
    }
    if !current.is_empty() {
        out.push(current);
    }
    if out.len() > lines {
        out.truncate(lines);
        let last = out.last_mut().expect("at least one line");
        let kept: String = last.chars().take(width - 1).collect();
        *last = format!("{kept}…");
    }
    out
}

/// A bar's value as written over it: three significant digits ("912", "0.934", "12.5").
fn value_label(v: f64) -> String {
    if v == 0.0 || !v.is_finite() {
        return tick(v);
    }
    let digits = (2 - v.abs().log10().floor() as i32).clamp(0, 6) as usize;
    let s = format!("{v:.digits$}");
    if s.contains('.') {
        s.trim_end_matches('0').trim_end_matches('.').to_string()
    } else {
        s
    }
}

/// Pixels per bar below which a grouped bar chart widens (up to [`MAX_WIDTH`]).
const MIN_BAR: f64 = 11.0;

/// The widest a bar chart grows, pixels.
const MAX_WIDTH: u32 = 1800;

/// A grouped bar chart: one group per category, one bar per series, each in its colour
/// with its marker on the bar's top (so bars stay apart in grey print), an error bar
/// where given, and its value written above where the bar is wide enough for it. The
/// chart widens with the number of bars; category names wrap onto up to four lines
/// under their group. The legend sits below the plot area; `y_max` caps the axis where
/// the quantity has a natural maximum (Jain's index: 1).
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
    let papers = series.iter().flat_map(|s| s.paper.iter().flatten().copied());
    let tops: Vec<f64> = tops.chain(papers).filter(|v| v.is_finite()).collect();
    let ymin =
        series.iter().flat_map(|s| s.values.iter().copied()).filter(|v| v.is_finite()).fold(0.0f64, f64::min);
    let mut ymax = tops.iter().copied().fold(0.0f64, f64::max);
    if ymax <= ymin {
        ymax = ymin + 1.0;
    }
    let mut ymax = ymax + (ymax - ymin) * 0.12; // room for the value labels
    if let Some(cap) = y_max {
        // Room above the cap for the values written over the bars.
        ymax = ymax.min(cap * 1.14).max(cap.min(ymax));
    }
    // Error bars and value labels stop at the cap: an index above 1 is not a value.
    let capped = |v: f64| y_max.map_or(v, |cap| v.min(cap));
    let n = categories.len().max(1);
    let k = series.len().max(1);
    // The plot area is the chart less the y labels (about 110 pixels) and margins.
    let wanted = 130.0 + (n * k) as f64 * MIN_BAR / 0.8;
    let width = (wanted.ceil() as u32).clamp(CHART.0, MAX_WIDTH);
    let group_px = (width as f64 - 130.0) / n as f64;
    let bar_px = group_px * 0.8 / k as f64;
    let per_line = fitting(group_px * 0.95, LABEL_FONT);
    let names: Vec<Vec<String>> = categories.iter().map(|c| wrap(c, per_line, 4)).collect();
    let name_lines = names.iter().map(Vec::len).max().unwrap_or(1).max(1) as u32;
    let size = (width, CHART.1 + (name_lines - 1) * (LABEL_FONT + 3));
    let any_paper = series.iter().any(|s| s.paper.iter().flatten().any(|v| v.is_finite()));
    write_svg(path, size, |root| {
        let (plot, legend) = split_for_legend(root, series.len() + usize::from(any_paper), 0);
        let mut chart = ChartBuilder::on(&plot)
            .caption(title, ("sans-serif", TITLE_FONT))
            .margin(14)
            .x_label_area_size(12 + name_lines * (LABEL_FONT + 3))
            .y_label_area_size(96)
            .build_cartesian_2d(0f64..n as f64, ymin..ymax)
            .map_err(|e| err(&e))?;
        chart
            .configure_mesh()
            .disable_x_mesh()
            .x_labels(n + 1)
            .x_label_formatter(&|_| String::new())
            .y_label_formatter(&|y| tick(*y))
            .label_style(("sans-serif", LABEL_FONT))
            .axis_desc_style(("sans-serif", AXIS_FONT))
            .light_line_style(WHITE)
            .y_desc(y_label)
            .draw()
            .map_err(|e| err(&e))?;
        for (ci, lines) in names.iter().enumerate() {
            let (x, y) = chart.backend_coord(&(ci as f64 + 0.5, ymin));
            for (li, line) in lines.iter().enumerate() {
                let style = TextStyle::from(("sans-serif", LABEL_FONT).into_font())
                    .pos(Pos::new(HPos::Center, VPos::Top));
                root.draw(&Text::new(line.clone(), (x, y + 8 + li as i32 * (LABEL_FONT as i32 + 3)), style))
                    .map_err(|e| err(&e))?;
            }
        }
        let width = 0.8 / k as f64;
        // Values are written on every bar or on none: where the longest fits.
        let longest = series
            .iter()
            .flat_map(|s| s.values.iter().filter(|v| v.is_finite()).map(|&v| value_label(v).chars().count()))
            .max()
            .unwrap_or(0);
        let labelled = fitting(bar_px - 2.0, VALUE_FONT) >= longest;
        for (si, s) in series.iter().enumerate() {
            let c = color(si);
            let x_of = |ci: usize| ci as f64 + 0.1 + si as f64 * width;
            let finite = |&(_, v): &(usize, &f64)| v.is_finite();
            chart
                .draw_series(s.values.iter().enumerate().filter(finite).map(|(ci, &v)| {
                    Rectangle::new([(x_of(ci), 0.0), (x_of(ci) + width * 0.92, v)], c.filled())
                }))
                .map_err(|e| err(&e))?;
            let error =
                |ci: usize| s.errors.as_ref().and_then(|e| e.get(ci)).copied().filter(|e| e.is_finite());
            if s.errors.is_some() {
                chart
                    .draw_series(s.values.iter().enumerate().filter(finite).filter_map(|(ci, &v)| {
                        let e = error(ci)?;
                        let mid = x_of(ci) + width * 0.46;
                        Some(ErrorBar::new_vertical(mid, v - e, v, capped(v + e), BLACK.stroke_width(1), 6))
                    }))
                    .map_err(|e| err(&e))?;
            }
            // The marker sits inside the bar's top where the bar is tall enough, else
            // just above it.
            let r = ((bar_px * 0.92 / 2.0 - 1.5) as i32).min(5);
            for (ci, &v) in s.values.iter().enumerate().filter(finite) {
                let mid = x_of(ci) + width * 0.46;
                if r >= 2 {
                    let (x, top) = chart.backend_coord(&(mid, v.max(0.0)));
                    let (_, base) = chart.backend_coord(&(mid, 0.0f64.max(ymin)));
                    let y = if base - top >= 2 * r + 6 { top + r + 3 } else { top - r - 3 };
                    draw_marker(root, (x, y), marker(si), r, WHITE, BLACK)?;
                }
                if labelled {
                    let top = capped(v + error(ci).unwrap_or(0.0));
                    let style = TextStyle::from(("sans-serif", VALUE_FONT).into_font())
                        .pos(Pos::new(HPos::Center, VPos::Bottom));
                    chart
                        .draw_series(std::iter::once(Text::new(value_label(v), (mid, top), style)))
                        .map_err(|e| err(&e))?;
                }
            }
        }
        // The paper's values last, over every bar and label.
        for (si, s) in series.iter().enumerate() {
            for (ci, &v) in s.paper.iter().flatten().enumerate().filter(|(_, v)| v.is_finite()) {
                let mid = ci as f64 + 0.1 + si as f64 * width + width * 0.46;
                draw_paper_mark(root, chart.backend_coord(&(mid, capped(v))))?;
            }
        }
        let mut entries: Vec<Entry> = series
            .iter()
            .enumerate()
            .map(|(i, s)| Entry { label: s.label.clone(), color: color(i), key: Key::Square(marker(i)) })
            .collect();
        if any_paper {
            entries.push(Entry { label: PAPER.to_string(), color: BLACK, key: Key::Paper });
        }
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
        assert!(svg.contains("middle 80 % of 64 series") && svg.contains("median"));
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
        assert_eq!(tick(5e-4), "0.0005", "half a millisecond, as an axis of seconds has it");
        assert_eq!(tick(0.0), "0");
    }

    #[test]
    fn reduction_draws_means_and_keeps_extremes_for_the_band() {
        let xs: Vec<f64> = (0..100).map(f64::from).collect();
        let mut ys = vec![1.0; 100];
        ys[37] = 9.0;
        ys[38] = -4.0;
        let r = reduce(&xs, &ys, 10);
        assert_eq!(r.xs.len(), 10);
        assert_eq!(r.per_bucket, Some(10));
        // Samples 30..40 hold 8 ones, a 9 and a −4: mean 1.3.
        assert!((r.means[3] - 1.3).abs() < 1e-12, "{}", r.means[3]);
        assert_eq!((r.lows[3], r.highs[3]), (-4.0, 9.0));
        assert_eq!(r.means[0], 1.0);
        assert_eq!(r.xs[0], 9.0, "at the run's last x");
        let short = reduce(&xs[..5], &ys[..5], 10);
        assert_eq!((short.xs.len(), short.per_bucket), (5, None), "a short series is drawn as it is");
    }

    #[test]
    fn no_two_of_fifty_series_share_colour_and_marker() {
        let mut seen = std::collections::HashSet::new();
        for i in 0..50 {
            let c = color(i);
            assert!(seen.insert((c.0, c.1, c.2, marker(i) as u8)), "series {i}");
        }
        let colours: std::collections::HashSet<_> =
            (0..10).map(|i| (color(i).0, color(i).1, color(i).2)).collect();
        assert_eq!(colours.len(), 10, "ten series, ten colours");
    }

    fn write_chart(name: &str, lines: &[Line], style: ChartStyle) -> String {
        let path = std::env::temp_dir().join(format!("cnsim-plot-{name}-{}.svg", std::process::id()));
        line_chart(&path, "t", "time (s)", "y", lines, style).unwrap();
        let svg = std::fs::read_to_string(&path).unwrap();
        let _ = std::fs::remove_file(&path);
        svg
    }

    /// A queue that is never used is left out and counted; a flow that never sends is
    /// the starved one and stays.
    #[test]
    fn idle_queues_are_left_out_and_starved_flows_kept() {
        let xs: Vec<f64> = (0..50).map(|i| f64::from(i) * 1e-3).collect();
        let busy: Vec<f64> = (0..50).map(|i| f64::from(i % 7)).collect();
        let zero = vec![0.0; 50];
        let lines = [
            Line { label: "busy-port", xs: &xs, ys: &busy, role: Role::Data },
            Line { label: "idle-port", xs: &xs, ys: &zero, role: Role::Data },
        ];
        let queues = write_chart("idle", &lines, ChartStyle { step: Step::None, worst_is_lowest: false });
        assert!(queues.contains("busy-port") && !queues.contains("idle-port"));
        assert!(queues.contains("1 series zero throughout, not drawn"));
        let flows = write_chart("starved", &lines, ChartStyle { step: Step::Before, worst_is_lowest: true });
        assert!(flows.contains("idle-port") && !flows.contains("zero throughout"));
    }

    /// The log-axis rule on hand-made series: one queue 300× the others → decades from
    /// one below the small queues' decade to above the big one; comparable queues, a
    /// lone series, all zeros or a negative value → linear.
    #[test]
    fn one_dominant_series_gets_a_log_axis_and_comparable_ones_do_not() {
        let big = [0.0, 300.0, 600.0, 300.0]; // mean 300
        let small = [0.0, 1.0, 2.0, 1.0]; // mean 1
        let smaller = [0.0, 2.0, 4.0, 2.0]; // mean 2
        let a = log_axis(&[&big, &small, &smaller]).expect("300× is dominated");
        assert_eq!(a, LogAxis { floor: 0.1, top: 1000.0, clamped: true });
        assert_eq!((a.at(0.0), a.at(100.0), a.at(f64::NAN).is_nan()), (-1.0, 2.0, true));
        assert_eq!(a.range(), -1.0..3.0);
        assert_eq!(LogAxis::label(2.0), "100");
        assert_eq!(LogAxis::label(-1.0), "0.1");
        assert_eq!(LogAxis::label(1.5), "");
        assert_eq!(LogAxis::label(9.0), "1e9");
        assert!(a.note().contains("values below 0.1, zeros included, drawn at 0.1"), "{}", a.note());
        // Without zeros nothing is clamped.
        let a = log_axis(&[&[500.0, 700.0], &[2.0, 4.0]]).unwrap();
        assert_eq!(a, LogAxis { floor: 0.1, top: 1000.0, clamped: false });
        // 50× is comparable.
        assert_eq!(log_axis(&[&[50.0, 50.0], &[1.0, 1.0]]), None);
        assert_eq!(log_axis(&[&big]), None);
        assert_eq!(log_axis(&[&[0.0, 0.0], &[0.0]]), None);
        // An idle series is no series: the one busy queue alone is drawn linearly; so is
        // one zero most of the time (a flow starved after a burst).
        assert_eq!(log_axis(&[&big, &[0.0, 0.0]]), None);
        assert_eq!(log_axis(&[&big, &[0.5, 0.0, 0.0]]), None);
        assert_eq!(log_axis(&[&big, &[-1.0, 1.0, 0.5]]), None);
        // A series zero but for rounding does not stretch the axis past six decades.
        let a = log_axis(&[&[1e3], &[1e-12]]).unwrap();
        assert_eq!(a.floor, 1e-3);
    }

    /// A queue chart where one port holds 100× the others is drawn on decades and says
    /// so; with comparable ports it stays linear.
    #[test]
    fn a_dominated_chart_is_drawn_in_decades() {
        let xs: Vec<f64> = (0..50).map(|i| f64::from(i) * 1e-3).collect();
        let big: Vec<f64> = (0..50).map(|i| 200.0 + f64::from(i % 7)).collect();
        let small: Vec<f64> = (0..50).map(|i| f64::from(i % 3) * 1.5).collect();
        let style = ChartStyle { step: Step::None, worst_is_lowest: false };
        let lines = [
            Line { label: "hot", xs: &xs, ys: &big, role: Role::Data },
            Line { label: "cold", xs: &xs, ys: &small, role: Role::Data },
        ];
        let svg = write_chart("log", &lines, style);
        assert!(svg.contains("log y axis") && svg.contains("y, log"), "no log axis");
        assert!(svg.contains("\n0.1\n") && svg.contains("\n1000\n"), "decades are labelled");
        assert!(svg.contains("values below 0.1, zeros included, drawn at 0.1"));
        let lines = [
            Line { label: "hot", xs: &xs, ys: &big, role: Role::Data },
            Line { label: "warm", xs: &xs, ys: &big, role: Role::Data },
        ];
        let svg = write_chart("linear", &lines, style);
        assert!(!svg.contains("log y axis") && !svg.contains("y, log"));
    }

    /// 20 000 samples are drawn as 400 means (a line, not a block) and the legend says so.
    #[test]
    fn a_long_series_is_drawn_as_means_and_says_so() {
        let xs: Vec<f64> = (0..20_000).map(|i| f64::from(i) * 1e-3).collect();
        let ys: Vec<f64> = (0..20_000).map(|i| if i % 2 == 0 { 0.0 } else { 100.0 }).collect();
        let lines = [Line { label: "q", xs: &xs, ys: &ys, role: Role::Data }];
        let svg = write_chart("long", &lines, ChartStyle { step: Step::None, worst_is_lowest: false });
        assert!(svg.contains("lines: means over 50 ms (50 samples); shaded: their min–max"), "{svg}");
        assert!(svg.len() < 120_000, "{} bytes", svg.len());
    }

    /// A fair share per flow is drawn in the flow's colour under one legend entry.
    #[test]
    fn shares_take_their_series_colour_and_one_legend_entry() {
        let xs = [1.0, 2.0, 3.0];
        let (a, b, fa, fb) = ([1.0, 2.0, 3.0], [3.0, 2.0, 1.0], [2.0; 3], [1.5; 3]);
        let lines = [
            Line { label: "a", xs: &xs, ys: &a, role: Role::Data },
            Line { label: "b", xs: &xs, ys: &b, role: Role::Data },
            Line { label: "fair share", xs: &xs, ys: &fa, role: Role::ReferenceOf(0) },
            Line { label: "fair share", xs: &xs, ys: &fb, role: Role::ReferenceOf(1) },
        ];
        let svg = write_chart("share", &lines, ChartStyle { step: Step::Before, worst_is_lowest: true });
        assert_eq!(svg.matches(">\nfair share\n<").count(), 1);
        let dashed_in = |c: RGBColor| {
            let hex = format!("#{:02X}{:02X}{:02X}", c.0, c.1, c.2);
            svg.lines().filter(|l| l.contains("<polyline") && l.contains(&hex)).count()
        };
        // Each colour: the series' line, its legend key and its dashed share.
        assert!(dashed_in(color(0)) >= 3 && dashed_in(color(1)) >= 3);
    }

    #[test]
    fn names_wrap_at_spaces_within_their_lines() {
        assert_eq!(wrap("test 1: output-generated hotspot", 12, 4), ["test 1:", "output-gene…", "hotspot"]);
        assert_eq!(wrap("a b c d e f", 3, 2), ["a b", "c …"]);
        assert_eq!(wrap("short", 20, 3), ["short"]);
    }

    #[test]
    fn bar_values_are_written_on_every_bar_or_none() {
        let dir = std::env::temp_dir();
        let draw = |name: &str, series: usize, categories: usize| {
            let path = dir.join(format!("cnsim-bars-{name}-{}.svg", std::process::id()));
            let cats: Vec<String> =
                (0..categories).map(|i| format!("test {i}: a long category name")).collect();
            let bars: Vec<Bars> = (0..series)
                .map(|s| Bars {
                    paper: None,
                    label: format!("s{s}"),
                    values: (0..categories).map(|c| 100.0 + (s * 7 + c) as f64 + 0.25).collect(),
                    errors: None,
                })
                .collect();
            bar_chart(&path, "t", &cats, "y", &bars, None).unwrap();
            let svg = std::fs::read_to_string(&path).unwrap();
            let _ = std::fs::remove_file(&path);
            svg
        };
        let few = draw("few", 2, 3);
        let written = |svg: &str, v: &str| svg.matches(&format!(">\n{v}\n<")).count();
        // The second series: 107.25, 108.25, 109.25 (no axis tick there).
        assert_eq!(written(&few, "107") + written(&few, "108") + written(&few, "109"), 3);
        assert!(few.starts_with("<svg width=\"900\""));
        let many = draw("many", 10, 11);
        assert_eq!(written(&many, "107") + written(&many, "108"), 0, "110 bars: no room for values");
        let width: u32 = many[12..].split('"').next().unwrap().parse().unwrap();
        assert!(width > 900 && width <= MAX_WIDTH, "a crowded chart widens: {width}");
        assert!(written(&many, "test 0: a long") + written(&many, "test 0: a") == 1, "names wrap");
    }

    #[test]
    fn bar_values_have_three_significant_digits() {
        assert_eq!(value_label(912.43), "912");
        assert_eq!(value_label(0.93412), "0.934");
        assert_eq!(value_label(12.5), "12.5");
        assert_eq!(value_label(1.0), "1");
    }
}
