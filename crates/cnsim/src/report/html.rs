//! `report.html`: one self-contained page per run or sweep directory (inline SVG and
//! CSS, no network access), with the scenario, the key figures, the tables and the
//! definition of every metric shown.

use std::fmt::Write as _;
use std::path::{Path, PathBuf};

use serde_json::Value;

use super::plot::{error_bar_svg, ErrorSeries};
use crate::sweep::table::mean_std_ci95;

/// The figures every report leads with, derived from a run's `summary.json`.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct KeyFigures {
    /// Sum of the flows' delivered throughput, bit/s.
    pub(crate) throughput_bps: f64,
    /// Frames created (data, CNM, PAUSE).
    pub(crate) created: f64,
    /// Frames delivered to hosts.
    pub(crate) delivered: f64,
    /// Frames lost after leaving their source: egress queues, no route, host inputs,
    /// lossy links.
    pub(crate) lost_in_network: f64,
    /// Frames their source's rate limiter refused, its queue full: offered beyond what
    /// the source may send, never in the network.
    pub(crate) dropped_at_sources: f64,
    /// Lost in the network over the frames that entered it.
    pub(crate) network_loss_ratio: f64,
    /// Jain's index of the flows' raw throughputs; none without flows.
    pub(crate) jain_index: Option<f64>,
    /// Jain's index of each flow's throughput over its max-min fair rate (the summary's
    /// `maxmin_fairness`); none where the summary has none.
    pub(crate) maxmin_fairness: Option<f64>,
    /// Mean one-way delay over every delivered data frame, s.
    pub(crate) mean_delay_s: f64,
    /// The largest time-weighted mean queue length over all queues, frames.
    pub(crate) max_mean_queue_frames: f64,
}

/// Number of key figures.
pub const KEY_FIGURES: usize = 10;

/// What each key figure means, in the order reports show them: (name, unit, definition).
pub const DEFINITIONS: [(&str, &str, &str); KEY_FIGURES] = [
    ("throughput", "Mbit/s", "delivered bits of every flow over the run's duration, summed (a multicast flow counts each receiver's copy)"),
    ("fairness vs max-min", "", "Jain's index of each flow's throughput over its max-min fair rate: 1 when every flow gets its fair share, whatever the shares are"),
    ("Jain index of throughputs", "", "(Σx)² / (n·Σx²) over the flows' raw throughputs x: 1 when all flows get the same; below 1 also where the fair shares differ (flows over different bottlenecks)"),
    ("network loss", "%", "frames lost in the network over the frames that entered it (created less those dropped at their sources)"),
    ("lost in the network", "frames", "frames lost after leaving their source: full egress queues, no route, full host inputs, lossy links"),
    ("dropped at sources", "frames", "frames their source's rate limiter refused, its queue full (a QCN reaction point holding the source below what it offers): never sent, so not lost in the network"),
    ("mean delay", "µs", "one-way delay from a frame's creation at its source to its delivery, averaged over every delivered data frame"),
    ("max mean queue", "frames", "the largest time-weighted mean length of any egress queue (waiting frames, as configured by queues.occupancy)"),
    ("delivered", "frames", "frames consumed by hosts (data and control)"),
    ("created", "frames", "frames created: by sources, multicast copies, and control frames (CNM, PAUSE)"),
];

fn num(v: &Value, path: &[&str]) -> f64 {
    let mut at = v;
    for p in path {
        match at.get(p) {
            Some(x) => at = x,
            None => return 0.0,
        }
    }
    at.as_f64().unwrap_or(0.0)
}

fn list<'a>(v: &'a Value, key: &str) -> &'a [Value] {
    v.get(key).and_then(Value::as_array).map_or(&[], Vec::as_slice)
}

impl KeyFigures {
    /// The key figures of a run's `summary.json`.
    pub fn of(summary: &Value) -> KeyFigures {
        let flows = list(summary, "flows");
        let tput: Vec<f64> = flows.iter().map(|f| num(f, &["throughput_bps"])).collect();
        let sum: f64 = tput.iter().sum();
        let sum_sq: f64 = tput.iter().map(|x| x * x).sum();
        let jain_index = (!tput.is_empty() && sum_sq > 0.0).then(|| sum * sum / (tput.len() as f64 * sum_sq));
        let (mut delay_weighted, mut delivered_data) = (0.0, 0.0);
        for f in flows {
            let d = num(f, &["delivered_frames"]);
            delay_weighted += num(f, &["mean_delay_s"]) * d;
            delivered_data += d;
        }
        let created = num(summary, &["frames", "created"]);
        let dropped = num(summary, &["frames", "dropped"]);
        let dropped_at_sources = num(summary, &["frames", "dropped_at_sources"]);
        let lost_in_network = dropped - dropped_at_sources;
        let entered = created - dropped_at_sources;
        KeyFigures {
            throughput_bps: sum,
            created,
            delivered: num(summary, &["frames", "delivered"]),
            lost_in_network,
            dropped_at_sources,
            network_loss_ratio: if entered > 0.0 { lost_in_network / entered } else { 0.0 },
            jain_index,
            maxmin_fairness: summary.get("maxmin_fairness").and_then(Value::as_f64),
            mean_delay_s: if delivered_data > 0.0 { delay_weighted / delivered_data } else { 0.0 },
            max_mean_queue_frames: list(summary, "queues")
                .iter()
                .map(|q| num(q, &["mean_frames"]))
                .fold(0.0, f64::max),
        }
    }

    /// The figures in the order of [`DEFINITIONS`], in the units shown there (`None`:
    /// not defined for this run).
    pub fn shown(&self) -> [Option<f64>; KEY_FIGURES] {
        [
            Some(self.throughput_bps / 1e6),
            self.maxmin_fairness,
            self.jain_index,
            Some(self.network_loss_ratio * 100.0),
            Some(self.lost_in_network),
            Some(self.dropped_at_sources),
            Some(self.mean_delay_s * 1e6),
            Some(self.max_mean_queue_frames),
            Some(self.delivered),
            Some(self.created),
        ]
    }
}

/// `text` escaped for HTML.
pub fn escape(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&#39;"),
            c => out.push(c),
        }
    }
    out
}

/// Key figure `i` (an index into [`DEFINITIONS`]) of each run that has it.
pub(super) fn figure_values(figs: &[KeyFigures], i: usize) -> Vec<f64> {
    figs.iter().filter_map(|k| k.shown()[i]).collect()
}

/// The mean of `values` ± the half-width of its 95 % confidence interval, as a report
/// shows it ("–" for no values, the mean alone for one).
pub(super) fn fmt_mean_ci(values: &[f64]) -> String {
    match (!values.is_empty()).then(|| mean_std_ci95(values)) {
        None => "–".to_string(),
        Some((m, _, Some(ci))) => format!("{} ± {}", fmt_num(Some(m)), fmt_num(Some(ci))),
        Some((m, _, None)) => fmt_num(Some(m)),
    }
}

/// A number as a report shows it: 4 significant digits, no exponent for everyday
/// magnitudes, "–" for what is not defined.
pub fn fmt_num(v: Option<f64>) -> String {
    match v {
        None => "–".to_string(),
        Some(v) if !v.is_finite() => "–".to_string(),
        Some(v) if v == v.trunc() && v.abs() < 1e15 => format!("{v:.0}"),
        Some(v) if v.abs() >= 1e-3 && v.abs() < 1e7 => {
            let digits = (3 - v.abs().log10().floor() as i32).clamp(0, 6) as usize;
            format!("{v:.digits$}")
        }
        Some(v) => format!("{v:.3e}"),
    }
}

const STYLE: &str = "body{font-family:system-ui,-apple-system,'Segoe UI',sans-serif;max-width:1100px;\
margin:2em auto;padding:0 1em;color:#1b1b1b;line-height:1.45}h1{font-size:1.6em}h2{margin-top:1.8em;\
border-bottom:1px solid #ddd;padding-bottom:.2em}table{border-collapse:collapse;margin:.6em 0;font-size:.92em}\
th,td{border:1px solid #d4d4d4;padding:.25em .6em;text-align:right}th{background:#f3f3f3}\
td:first-child,th:first-child{text-align:left}figure{margin:1.2em 0}figure svg{max-width:100%;height:auto;\
border:1px solid #eee}figcaption{font-size:.9em;color:#555}pre{background:#f7f7f7;padding:.8em;overflow:auto;\
font-size:.85em}dt{font-weight:600;margin-top:.4em}.meta{color:#555}";

/// Marks, once the page has loaded, how many figures it has and how many were decoded
/// as pictures of a real size (a browser test reads these attributes).
const RENDER_CHECK: &str = "<script>window.addEventListener('load',function(){var f=document.querySelectorAll('figure img'),\
ok=0;f.forEach(function(i){if(i.complete&&i.naturalWidth>100&&i.naturalHeight>100)ok++;});\
document.body.setAttribute('data-figures',f.length);document.body.setAttribute('data-figures-rendered',ok);});</script>";

fn page(title: &str, body: &str) -> String {
    format!(
        "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\"><meta name=\"viewport\" \
         content=\"width=device-width,initial-scale=1\"><title>{}</title><style>{STYLE}</style></head>\n<body>\n{body}\n\
         {RENDER_CHECK}\n</body></html>\n",
        escape(title)
    )
}

/// A figure: the SVG as the data URI of an `<img>`, so that whatever the file holds (a
/// script, a link to a remote resource) never runs as part of the page: an image's SVG
/// is drawn without scripts or external loads.
fn figure(svg: &str, caption: &str) -> String {
    use base64::Engine as _;
    let data = base64::engine::general_purpose::STANDARD.encode(svg.as_bytes());
    format!(
        "<figure><img src=\"data:image/svg+xml;base64,{data}\" alt=\"{}\"><figcaption>{caption}</figcaption></figure>\n",
        escape(&strip_tags(caption))
    )
}

/// `html` without its tags, for an `alt` text.
fn strip_tags(html: &str) -> String {
    let mut out = String::new();
    let mut in_tag = false;
    for c in html.chars() {
        match c {
            '<' => in_tag = true,
            '>' => in_tag = false,
            c if !in_tag => out.push(c),
            _ => {}
        }
    }
    out.replace("&amp;", "&")
        .replace("&lt;", "<")
        .replace("&gt;", ">")
        .replace("&quot;", "\"")
        .replace("&#39;", "'")
}

/// A figure's name with its unit in parentheses, if it has one.
pub(super) fn labelled(name: &str, unit: &str) -> String {
    if unit.is_empty() {
        name.to_string()
    } else {
        format!("{name} ({unit})")
    }
}

fn definitions() -> String {
    let mut s = String::from("<h2>Definitions</h2>\n<dl>\n");
    for (name, unit, def) in DEFINITIONS {
        let _ = writeln!(s, "<dt>{}</dt><dd>{}</dd>", escape(&labelled(name, unit)), escape(def));
    }
    s.push_str(
        "<dt>queue length</dt><dd>frames waiting in an egress queue, sampled every \
         metrics.interval; the frame being serialized is counted or not as queues.occupancy says</dd>\n\
         <dt>throughput over time</dt><dd>bits delivered to a flow's receivers in each sampling interval, \
         over the interval's length (a multicast flow sums its receivers)</dd>\n\
         <dt>rate CR</dt><dd>a QCN reaction point's current rate, sampled at the end of each interval</dd>\n\
         <dt>95 % CI</dt><dd>the half-width of the 95 % confidence interval of the mean over seeds \
         (Student's t with seeds − 1 degrees of freedom)</dd>\n</dl>\n",
    );
    s
}

/// Largest `summary.json` or `sweep.json` a report reads: 256 MiB.
const MAX_JSON: u64 = 256 << 20;
/// Largest figure or scenario file a report reads: 16 MiB.
const MAX_TEXT: u64 = 16 << 20;

/// Reads a file of a directory being reported on, as text: only a regular file (never a
/// symbolic link, which could lead out of the directory, nor a FIFO, which could block),
/// of at most `max` bytes.
fn read(path: &Path, max: u64) -> Result<String, String> {
    let refuse = |why: String| format!("{}: {why}", path.display());
    let meta = std::fs::symlink_metadata(path).map_err(|e| refuse(e.to_string()))?;
    if meta.file_type().is_symlink() {
        return Err(refuse("is a symbolic link; expected a regular file cnsim wrote".into()));
    }
    if !meta.is_file() {
        return Err(refuse("is not a regular file; expected a file cnsim wrote".into()));
    }
    if meta.len() > max {
        return Err(refuse(format!("is {} bytes; expected at most {max}", meta.len())));
    }
    let mut options = std::fs::OpenOptions::new();
    options.read(true);
    #[cfg(unix)]
    {
        use std::os::unix::fs::OpenOptionsExt;
        // Not followed, not waited on, should the file have been swapped since.
        options.custom_flags(libc::O_NOFOLLOW | libc::O_NONBLOCK);
    }
    let file = options.open(path).map_err(|e| refuse(e.to_string()))?;
    if !file.metadata().is_ok_and(|m| m.is_file()) {
        return Err(refuse("is not a regular file; expected a file cnsim wrote".into()));
    }
    let mut text = String::new();
    std::io::Read::read_to_string(&mut std::io::Read::take(file, max + 1), &mut text)
        .map_err(|e| refuse(e.to_string()))?;
    if text.len() as u64 > max {
        return Err(refuse(format!("is more than {max} bytes")));
    }
    Ok(text)
}

pub(super) fn read_json(path: &Path) -> Result<Value, String> {
    serde_json::from_str(&read(path, MAX_JSON)?).map_err(|e| format!("{}: {e}", path.display()))
}

/// Whether `path` is a directory itself, not a link to one.
fn is_real_dir(path: &Path) -> bool {
    std::fs::symlink_metadata(path).is_ok_and(|m| m.is_dir())
}

/// Writes `report.html` into the run or sweep directory `dir`; returns its path.
pub fn write_report(dir: &Path) -> Result<PathBuf, String> {
    let present = |name: &str| std::fs::symlink_metadata(dir.join(name)).is_ok();
    let html = if present("sweep.json") {
        sweep_report(dir)?
    } else if present("summary.json") {
        run_report(dir)?
    } else {
        return Err(format!(
            "{}: is neither a run directory (summary.json) nor a sweep directory (sweep.json); \
             expected a directory written by cnsim run or cnsim sweep",
            dir.display()
        ));
    };
    crate::run::outdir::write_listed(dir, "report.html", html.as_bytes())?;
    Ok(dir.join("report.html"))
}

fn key_figure_table(rows: &[(String, [Option<f64>; KEY_FIGURES])]) -> String {
    let mut s = String::from("<table><tr><th></th>");
    for (name, unit, _) in DEFINITIONS {
        let _ = write!(s, "<th>{}</th>", escape(&labelled(name, unit)));
    }
    s.push_str("</tr>\n");
    for (label, values) in rows {
        let _ = write!(s, "<tr><td>{}</td>", escape(label));
        for v in values {
            let _ = write!(s, "<td>{}</td>", fmt_num(*v));
        }
        s.push_str("</tr>\n");
    }
    s.push_str("</table>\n");
    s
}

/// The report of one run directory.
fn run_report(dir: &Path) -> Result<String, String> {
    let summary = read_json(&dir.join("summary.json"))?;
    let scenario = match std::fs::symlink_metadata(dir.join("scenario.toml")) {
        Ok(_) => read(&dir.join("scenario.toml"), MAX_TEXT)?,
        Err(_) => String::new(),
    };
    let name = summary.get("scenario").and_then(Value::as_str).unwrap_or("run");
    let seed = num(&summary, &["seed"]);
    let k = KeyFigures::of(&summary);
    let mut b = String::new();
    let _ = writeln!(
        b,
        "<h1>{} — seed {}</h1>\n<p class=\"meta\">cnsim {}; {} s simulated; {} events</p>",
        escape(name),
        fmt_num(Some(seed)),
        escape(summary.get("cnsim_version").and_then(Value::as_str).unwrap_or("?")),
        fmt_num(Some(num(&summary, &["duration_s"]))),
        fmt_num(Some(num(&summary, &["events"])))
    );
    b.push_str("<h2>Key figures</h2>\n");
    b.push_str(&key_figure_table(&[("this run".to_string(), k.shown())]));
    // Figures: the run's own plots.
    let plots_dir = dir.join("plots");
    if std::fs::symlink_metadata(&plots_dir).is_ok() && !is_real_dir(&plots_dir) {
        return Err(format!("{}: is not a directory; expected the run's plots", plots_dir.display()));
    }
    let mut plots: Vec<PathBuf> = std::fs::read_dir(&plots_dir)
        .map(|d| {
            d.flatten().map(|e| e.path()).filter(|p| p.extension().is_some_and(|x| x == "svg")).collect()
        })
        .unwrap_or_default();
    plots.sort();
    if !plots.is_empty() {
        b.push_str("<h2>Figures</h2>\n");
        for p in &plots {
            let stem = p.file_stem().map(|s| s.to_string_lossy().replace('_', " ")).unwrap_or_default();
            b.push_str(&figure(&read(p, MAX_TEXT)?, &escape(&stem)));
        }
    }
    // Flows: all of them up to 64, else the 10 with the least throughput.
    let mut flows: Vec<&Value> = list(&summary, "flows").iter().collect();
    if !flows.is_empty() {
        let total = flows.len();
        let note = if total > 64 {
            flows.sort_by(|a, b| num(a, &["throughput_bps"]).total_cmp(&num(b, &["throughput_bps"])));
            flows.truncate(10);
            format!(" (the 10 with the least throughput of {total})")
        } else {
            String::new()
        };
        let _ = writeln!(b, "<h2>Flows{}</h2>", escape(&note));
        b.push_str(
            "<table><tr><th>flow</th><th>from</th><th>to</th><th>throughput (Mbit/s)</th>\
             <th>mean delay (µs)</th><th>delivered</th><th>lost in the network</th><th>dropped at the source</th></tr>\n",
        );
        for f in flows {
            let s = |k: &str| escape(f.get(k).and_then(Value::as_str).unwrap_or(""));
            let _ = writeln!(
                b,
                "<tr><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td></tr>",
                s("name"),
                s("src"),
                s("dst"),
                fmt_num(Some(num(f, &["throughput_bps"]) / 1e6)),
                fmt_num(Some(num(f, &["mean_delay_s"]) * 1e6)),
                fmt_num(Some(num(f, &["delivered_frames"]))),
                fmt_num(Some(num(f, &["dropped_frames"]))),
                fmt_num(Some(num(f, &["source_dropped_frames"]))),
            );
        }
        b.push_str("</table>\n");
    }
    let queues: Vec<&Value> =
        list(&summary, "queues").iter().filter(|q| num(q, &["arrived_frames"]) > 0.0).collect();
    if !queues.is_empty() {
        b.push_str("<h2>Queues that carried traffic</h2>\n<table><tr><th>port</th><th>capacity</th>\
                    <th>arrived</th><th>dropped</th><th>mean (frames)</th><th>std (frames)</th><th>max (frames)</th></tr>\n");
        for q in queues {
            let port = q.get("port").and_then(Value::as_str).unwrap_or("");
            let port = match q.get("class").and_then(Value::as_u64) {
                Some(c) => format!("{port} class {c}"),
                None => port.to_string(),
            };
            let _ = writeln!(
                b,
                "<tr><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td></tr>",
                escape(&port),
                escape(q.get("capacity").and_then(Value::as_str).unwrap_or("")),
                fmt_num(Some(num(q, &["arrived_frames"]))),
                fmt_num(Some(num(q, &["dropped_frames"]))),
                fmt_num(Some(num(q, &["mean_frames"]))),
                fmt_num(Some(num(q, &["std_frames"]))),
                fmt_num(Some(num(q, &["max_frames"]))),
            );
        }
        b.push_str("</table>\n");
    }
    let _ = writeln!(
        b,
        "<h2>Scenario</h2>\n<details open><summary>scenario.toml (resolved: every default filled in)</summary>\
         <pre>{}</pre></details>",
        escape(&scenario)
    );
    b.push_str(&definitions());
    Ok(page(&format!("{name} — cnsim run"), &b))
}

/// The report of a sweep directory: per point, the key figures' mean and 95 % CI over
/// seeds, and a figure of each against the first swept key.
/// A sweep's axes (key, values) and its runs' key figures grouped by point (in point
/// order, each with its swept values), read from `dir`'s `sweep.json` and run summaries.
pub(super) type Points = (Vec<(String, Vec<String>)>, Vec<(Vec<String>, Vec<KeyFigures>)>);

/// Reads what [`Points`] holds from the sweep directory `dir` (its `sweep.json` parsed).
pub(super) fn sweep_points(dir: &Path, sweep: &Value) -> Result<Points, String> {
    let axes: Vec<(String, Vec<String>)> = ["grid", "zip"]
        .iter()
        .flat_map(|k| list(sweep, k))
        .map(|a| {
            let key = a.get("key").and_then(Value::as_str).unwrap_or("").to_string();
            let values = list(a, "values").iter().map(|v| v.as_str().unwrap_or("").to_string()).collect();
            (key, values)
        })
        .collect();
    // Key figures of every run, grouped by point (in point order).
    let runs = list(sweep, "runs");
    let mut points: Vec<(Vec<String>, Vec<KeyFigures>)> = Vec::new();
    let bad = |what: String| format!("{}: {what}", dir.join("sweep.json").display());
    for (i, r) in runs.iter().enumerate() {
        // Records from before runs had readable names name the directory by the id.
        let (field, name) = match r.get("dir") {
            Some(d) => ("dir", d.as_str().unwrap_or("")),
            None => ("id", r.get("id").and_then(Value::as_str).unwrap_or("")),
        };
        if !crate::sweep::is_run_dir_name(name) {
            return Err(bad(format!(
                "runs[{i}].{field}: \"{}\" is not a run directory name; expected one plain name \
                 of letters, digits and ._=,+-",
                crate::scenario::error::shown_limited(name, 40)
            )));
        }
        // A point is an index below the number of runs (each point has a run).
        let point = match r.get("point").and_then(Value::as_u64) {
            Some(p) if (p as usize) < runs.len() => p as usize,
            _ => {
                return Err(bad(format!(
                    "runs[{i}].point: {} is not a point of this sweep; expected 0 to {}",
                    crate::scenario::error::shown_limited(
                        &r.get("point").map_or("nothing".into(), Value::to_string),
                        40
                    ),
                    runs.len().saturating_sub(1)
                )))
            }
        };
        let values: Vec<String> =
            list(r, "values").iter().map(|v| v.as_str().unwrap_or("").to_string()).collect();
        let run_dir = dir.join("runs").join(name);
        if !is_real_dir(&run_dir) {
            return Err(format!(
                "{}: is not a run directory; expected the run cnsim wrote there",
                run_dir.display()
            ));
        }
        let summary = read_json(&run_dir.join("summary.json"))?;
        if points.len() <= point {
            points.resize(point + 1, (Vec::new(), Vec::new()));
        }
        points[point].0 = values;
        points[point].1.push(KeyFigures::of(&summary));
    }
    Ok((axes, points))
}

fn sweep_report(dir: &Path) -> Result<String, String> {
    let sweep = read_json(&dir.join("sweep.json"))?;
    let scenario = sweep.get("scenario").and_then(Value::as_str).unwrap_or("sweep");
    let (axes, points) = sweep_points(dir, &sweep)?;
    let seeds = list(&sweep, "seeds").len();
    let mut b = String::new();
    let _ = writeln!(
        b,
        "<h1>Sweep of {}</h1>\n<p class=\"meta\">cnsim {}; {} point(s) × {} seed(s); overrides: {}</p>",
        escape(scenario),
        escape(sweep.get("cnsim_version").and_then(Value::as_str).unwrap_or("?")),
        points.len(),
        seeds,
        escape(&list(&sweep, "overrides").iter().filter_map(Value::as_str).collect::<Vec<_>>().join(", "))
    );
    if !axes.is_empty() {
        b.push_str("<h2>Grid</h2>\n<table><tr><th>key</th><th>values</th></tr>\n");
        for (k, v) in &axes {
            let _ = writeln!(b, "<tr><td>{}</td><td>{}</td></tr>", escape(k), escape(&v.join(", ")));
        }
        b.push_str("</table>\n");
    }
    let stats = |figs: &[KeyFigures], i: usize| {
        let v = figure_values(figs, i);
        (!v.is_empty()).then(|| mean_std_ci95(&v))
    };
    b.push_str("<h2>Key figures (mean ± 95 % CI over seeds)</h2>\n<table><tr>");
    for (k, _) in &axes {
        let _ = write!(b, "<th>{}</th>", escape(k));
    }
    for (name, unit, _) in DEFINITIONS {
        let _ = write!(b, "<th>{}</th>", escape(&labelled(name, unit)));
    }
    b.push_str("</tr>\n");
    for (values, figs) in &points {
        b.push_str("<tr>");
        for v in values {
            let _ = write!(b, "<td>{}</td>", escape(v));
        }
        for i in 0..DEFINITIONS.len() {
            let _ = write!(b, "<td>{}</td>", fmt_mean_ci(&figure_values(figs, i)));
        }
        b.push_str("</tr>\n");
    }
    b.push_str("</table>\n");
    // Figures: each key figure against the first axis, one line per value of the rest.
    if let Some((first_key, first_values)) = axes.first() {
        let numeric: Option<Vec<f64>> = first_values.iter().map(|v| leading_number(v)).collect();
        b.push_str("<h2>Figures</h2>\n");
        // Every figure but the two frame counts at the end.
        for (i, (name, unit, def)) in DEFINITIONS.iter().enumerate().take(KEY_FIGURES - 2) {
            let mut series: Vec<ErrorSeries> = Vec::new();
            for (values, figs) in &points {
                let label = if values.len() > 1 {
                    let rest = axes[1..].iter().zip(&values[1..]).map(|((k, _), v)| format!("{k} = {v}"));
                    rest.collect::<Vec<_>>().join(", ")
                } else {
                    name.to_string()
                };
                let Some(xi) = first_values.iter().position(|v| Some(v) == values.first()) else {
                    continue;
                };
                let x = numeric.as_ref().map_or(xi as f64, |n| n[xi]);
                let Some((m, _, ci)) = stats(figs, i) else {
                    continue;
                };
                let ci = ci.unwrap_or(0.0);
                match series.iter_mut().find(|s| s.label == label) {
                    Some(s) => s.points.push((x, m, m - ci, m + ci)),
                    None => series.push(ErrorSeries { label, points: vec![(x, m, m - ci, m + ci)] }),
                }
            }
            if series.is_empty() {
                continue;
            }
            series.truncate(12);
            let y = labelled(name, unit);
            let title = format!("{name} vs {first_key} — {scenario}, {seeds} seed(s)");
            let names = numeric.is_none().then_some(first_values.as_slice());
            let svg = error_bar_svg(&title, first_key, &y, &series, names)?;
            let caption = format!(
                "{}: {}. Points: mean over {seeds} seed(s); bars: 95 % confidence interval{}.",
                escape(name),
                escape(def),
                if axes.len() > 1 { "; one line per value of the other keys" } else { "" }
            );
            b.push_str(&figure(&svg, &caption));
        }
    }
    let _ = writeln!(
        b,
        "<h2>Files</h2>\n<p><code>results.parquet</code> / <code>results.csv</code>: one row per run, every figure of \
         every run's summary.json; <code>runs/&lt;id&gt;/</code>: each run's own files. See docs/sweeps.md for the columns.</p>"
    );
    b.push_str(&definitions());
    Ok(page(&format!("Sweep of {scenario} — cnsim"), &b))
}

/// Inline Markdown: `code`, **bold**, *emphasis* and [links](target), on escaped text.
fn inline_md(text: &str) -> String {
    let mut out = String::new();
    let mut rest = text;
    while !rest.is_empty() {
        if let Some(r) = rest.strip_prefix('`') {
            if let Some(end) = r.find('`') {
                let _ = write!(out, "<code>{}</code>", escape(&r[..end]));
                rest = &r[end + 1..];
                continue;
            }
        }
        if let Some(r) = rest.strip_prefix("**") {
            if let Some(end) = r.find("**") {
                let _ = write!(out, "<strong>{}</strong>", inline_md(&r[..end]));
                rest = &r[end + 2..];
                continue;
            }
        }
        if let Some(r) = rest.strip_prefix('[') {
            if let Some((label, tail)) = r.split_once("](") {
                if let Some(end) = tail.find(')') {
                    let _ = write!(out, "<a href=\"{}\">{}</a>", escape(&tail[..end]), inline_md(label));
                    rest = &tail[end + 1..];
                    continue;
                }
            }
        }
        let c = rest.chars().next().expect("not empty");
        out.push_str(&escape(&c.to_string()));
        rest = &rest[c.len_utf8()..];
    }
    out
}

/// Renders a report written in Markdown (headings, paragraphs, lists, pipe tables,
/// code, bold, links, and images of SVG files under `base`, which are inlined) as a
/// self-contained page.
pub fn markdown_page(md: &str, base: &Path, title: &str) -> Result<String, String> {
    let mut b = String::new();
    let mut paragraph: Vec<&str> = Vec::new();
    let mut list = false;
    let mut table: Vec<Vec<String>> = Vec::new();
    let flush_paragraph = |b: &mut String, p: &mut Vec<&str>| {
        if !p.is_empty() {
            let _ = writeln!(b, "<p>{}</p>", inline_md(&p.join(" ")));
            p.clear();
        }
    };
    let flush_table = |b: &mut String, t: &mut Vec<Vec<String>>| {
        if t.is_empty() {
            return;
        }
        b.push_str("<table>\n");
        for (i, row) in t.iter().enumerate() {
            let cell = if i == 0 { "th" } else { "td" };
            b.push_str("<tr>");
            for c in row {
                let _ = write!(b, "<{cell}>{}</{cell}>", inline_md(c));
            }
            b.push_str("</tr>\n");
        }
        b.push_str("</table>\n");
        t.clear();
    };
    // The list item being read (items may continue on indented lines).
    let mut item: Option<String> = None;
    let flush_item = |b: &mut String, item: &mut Option<String>| {
        if let Some(text) = item.take() {
            let _ = writeln!(b, "<li>{}</li>", inline_md(&text));
        }
    };
    for line in md.lines() {
        let t = line.trim_end();
        let is_item = t.starts_with("- ");
        let continues_item = item.is_some() && line.starts_with("  ") && !t.trim().is_empty();
        if !is_item && !continues_item && list {
            flush_item(&mut b, &mut item);
            b.push_str("</ul>\n");
            list = false;
        }
        if t.starts_with('|') {
            flush_paragraph(&mut b, &mut paragraph);
            let cells: Vec<String> = t.trim_matches('|').split('|').map(|c| c.trim().to_string()).collect();
            if !cells.iter().all(|c| !c.is_empty() && c.chars().all(|ch| ch == '-' || ch == ':')) {
                table.push(cells);
            }
            continue;
        }
        flush_table(&mut b, &mut table);
        if t.is_empty() {
            flush_paragraph(&mut b, &mut paragraph);
        } else if let Some(h) = t.strip_prefix('#') {
            flush_paragraph(&mut b, &mut paragraph);
            let level = 1 + h.chars().take_while(|&c| c == '#').count();
            let _ = writeln!(b, "<h{level}>{}</h{level}>", inline_md(h.trim_start_matches('#').trim()));
        } else if let Some(img) = t.strip_prefix("![") {
            flush_paragraph(&mut b, &mut paragraph);
            let (caption, target) = img.split_once("](").unwrap_or((img, ""));
            let target = target.trim_end_matches(')');
            let inside = Path::new(target).components().all(|c| matches!(c, std::path::Component::Normal(_)));
            if !inside {
                return Err(format!("{target}: is not a figure inside {}", base.display()));
            }
            let svg = read(&base.join(target), MAX_TEXT)?;
            b.push_str(&figure(&svg, &escape(caption)));
        } else if is_item {
            flush_paragraph(&mut b, &mut paragraph);
            flush_item(&mut b, &mut item);
            if !list {
                b.push_str("<ul>\n");
                list = true;
            }
            item = Some(t[2..].to_string());
        } else if continues_item {
            if let Some(text) = item.as_mut() {
                text.push(' ');
                text.push_str(t.trim());
            }
        } else {
            paragraph.push(t);
        }
    }
    flush_table(&mut b, &mut table);
    flush_paragraph(&mut b, &mut paragraph);
    if list {
        flush_item(&mut b, &mut item);
        b.push_str("</ul>\n");
    }
    Ok(page(title, &b))
}

/// The number a value starts with ("25 frames" → 25, "2Gbps" → 2), if any.
fn leading_number(v: &str) -> Option<f64> {
    let end = v
        .char_indices()
        .find(|&(i, c)| !(c.is_ascii_digit() || c == '.' || (i == 0 && c == '-')))
        .map_or(v.len(), |(i, _)| i);
    v[..end].parse().ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn key_figures_by_hand() {
        // Two flows at 1 and 3 Gbit/s: Jain = 16 / (2 · 10) = 0.8; delay weighted by frames.
        // 50 dropped, 30 of them by their sources: 20 lost of the 170 that entered.
        let v: Value = serde_json::from_str(
            r#"{"frames": {"created": 200, "delivered": 150, "dropped": 50, "dropped_at_sources": 30},
                "maxmin_fairness": 0.97,
                "flows": [{"throughput_bps": 1e9, "delivered_frames": 50, "mean_delay_s": 1e-5},
                          {"throughput_bps": 3e9, "delivered_frames": 100, "mean_delay_s": 4e-5}],
                "queues": [{"mean_frames": 2.5}, {"mean_frames": 7.0}]}"#,
        )
        .unwrap();
        let k = KeyFigures::of(&v);
        assert_eq!(k.throughput_bps, 4e9);
        assert_eq!(k.jain_index, Some(0.8));
        assert_eq!(k.maxmin_fairness, Some(0.97), "both indices, each labelled");
        assert_eq!((k.lost_in_network, k.dropped_at_sources), (20.0, 30.0));
        assert_eq!(k.network_loss_ratio, 20.0 / 170.0);
        assert!((k.mean_delay_s - 3e-5).abs() < 1e-15);
        assert_eq!(k.max_mean_queue_frames, 7.0);
        let none = KeyFigures::of(&serde_json::json!({}));
        assert_eq!((none.jain_index, none.maxmin_fairness), (None, None));
        assert_eq!(
            DEFINITIONS.map(|d| d.0)[..3],
            ["throughput", "fairness vs max-min", "Jain index of throughputs"]
        );
    }

    #[test]
    fn markdown_reports_become_html() {
        let dir = std::env::temp_dir().join(format!("cnsim-md-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        std::fs::write(dir.join("f.svg"), "<?xml version=\"1.0\"?>\n<svg width=\"10\"></svg>").unwrap();
        let md = "# Title\n\nSome **bold** and `code` <x>.\n\n- one\n  more\n- two\n\n| a | b |\n|---|---|\n| 1 | 2 |\n\n![Fig. 1](f.svg)\n";
        let html = markdown_page(md, &dir, "t").unwrap();
        assert!(html.contains("<h1>Title</h1>"));
        assert!(html.contains("<p>Some <strong>bold</strong> and <code>code</code> &lt;x&gt;.</p>"));
        assert!(html.contains("<ul>\n<li>one more</li>\n<li>two</li>\n</ul>"), "{html}");
        assert!(html.contains("<tr><th>a</th><th>b</th></tr>\n<tr><td>1</td><td>2</td></tr>"));
        assert!(html.contains("<figure><img src=\"data:image/svg+xml;base64,"), "{html}");
        assert!(html.contains("alt=\"Fig. 1\"><figcaption>Fig. 1</figcaption></figure>"), "{html}");
        assert!(markdown_page("![x](missing.svg)", &dir, "t").is_err());
        let _ = std::fs::remove_dir_all(&dir);
    }

    #[test]
    fn numbers_and_text_are_shown_safely() {
        assert_eq!(fmt_num(Some(f64::NAN)), "–");
        assert_eq!(fmt_num(None), "–");
        assert_eq!(fmt_num(Some(1234.5678)), "1235");
        assert_eq!(fmt_num(Some(0.8)), "0.8000");
        assert_eq!(fmt_num(Some(42.0)), "42");
        assert_eq!(escape("<a & \"b\">"), "&lt;a &amp; &quot;b&quot;&gt;");
        assert_eq!(leading_number("25 frames"), Some(25.0));
        assert_eq!(leading_number("2.5Gbps"), Some(2.5));
        assert_eq!(leading_number("star"), None);
    }
}
