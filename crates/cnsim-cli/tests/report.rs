//! `report.html` renders in a real browser: headless Chromium loads the page and the
//! page's own check counts the figures laid out with a drawing in them.

use std::path::{Path, PathBuf};
use std::process::Command;

use crate::common::{cnsim, stderr};

const SMALL: &str = r#"
name = "small"
duration = "2ms"
[topology.star]
hosts = ["a", "b", "c"]
link = { rate = "1Gbps", delay = "1us" }
[[traffic]]
name = "ab"
kind = "poisson"
from = "a"
to = "b"
rate = "400Mbps"
[[traffic]]
name = "cb"
kind = "cbr"
from = "c"
to = "b"
rate = "700Mbps"
"#;

/// The first Chromium-like browser on this machine.
fn browser() -> Option<PathBuf> {
    ["chromium", "chromium-browser", "google-chrome", "google-chrome-stable"].iter().find_map(|name| {
        std::env::var_os("PATH")?.to_str()?.split(':').map(|d| Path::new(d).join(name)).find(|p| p.is_file())
    })
}

/// Loads `page` in headless Chromium and returns the DOM after the load event.
fn rendered_dom(browser: &Path, page: &Path) -> String {
    let out = Command::new(browser)
        .args(["--headless", "--no-sandbox", "--disable-gpu", "--virtual-time-budget=5000", "--dump-dom"])
        .arg(format!("file://{}", page.display()))
        .output()
        .expect("start the browser");
    String::from_utf8_lossy(&out.stdout).into_owned()
}

/// Saves a screenshot of the top of `page` (1200 × 2000 pixels) as
/// `target/tmp/report-screenshots/<name>.png`, for a person to look at: the figures
/// and tables as a reader sees them.
fn screenshot(browser: &Path, page: &Path, name: &str) -> PathBuf {
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR")).join("report-screenshots");
    std::fs::create_dir_all(&dir).unwrap();
    let png = dir.join(format!("{name}.png"));
    let _ = std::fs::remove_file(&png);
    let out = Command::new(browser)
        .args(["--headless", "--no-sandbox", "--disable-gpu", "--hide-scrollbars", "--window-size=1200,2000"])
        .arg(format!("--screenshot={}", png.display()))
        .arg(format!("file://{}", page.display()))
        .output()
        .expect("start the browser");
    assert!(png.is_file(), "no screenshot of {}: {}", page.display(), String::from_utf8_lossy(&out.stderr));
    png
}

fn attribute(dom: &str, name: &str) -> Option<usize> {
    let at = dom.find(&format!("{name}=\""))? + name.len() + 2;
    dom[at..].split('"').next()?.parse().ok()
}

/// Checks a report's text, then (where a browser exists) that every figure rendered.
fn check_report(page: &Path, expected_figures: Option<usize>) {
    let html = std::fs::read_to_string(page).unwrap();
    assert!(!html.contains("NaN"), "a NaN in {}", page.display());
    for remote in ["src=\"http", "href=\"http", "url(http", "@import"] {
        assert!(!html.contains(remote), "{} loads {remote}…: it must be self-contained", page.display());
    }
    assert!(html.contains("<h2>Definitions</h2>"));
    let Some(browser) = browser() else {
        assert!(
            std::env::var_os("CNSIM_REQUIRE_BROWSER_TESTS").is_none(),
            "CNSIM_REQUIRE_BROWSER_TESTS is set but no Chromium is installed"
        );
        eprintln!("skipped the browser check: no chromium on PATH (Debian: apt-get install chromium)");
        return;
    };
    let dom = rendered_dom(&browser, page);
    let figures = attribute(&dom, "data-figures");
    let rendered = attribute(&dom, "data-figures-rendered");
    if let Some(n) = expected_figures {
        assert_eq!(figures, Some(n), "figures found by the browser in {}", page.display());
    }
    assert!(figures.is_some_and(|n| n > 0), "no figures in {}", page.display());
    assert_eq!(rendered, figures, "figures laid out with a drawing in {}", page.display());
    let name =
        page.parent().and_then(Path::file_name).map_or("report".into(), |n| n.to_string_lossy().into_owned());
    let png = std::fs::read(screenshot(&browser, page, &name)).unwrap();
    // A page with its tables and figures drawn compresses to far more than a blank one.
    assert!(png.starts_with(b"\x89PNG") && png.len() > 50_000, "{name}.png: {} bytes", png.len());
}

#[test]
fn reports_render_in_a_browser() {
    let root = std::env::temp_dir().join(format!("cnsim-report-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&root);
    std::fs::create_dir_all(&root).unwrap();
    std::fs::write(root.join("s.toml"), SMALL).unwrap();

    // A run: its plots (queue length, link utilisation, throughput, each flow against its
    // fair share) inline.
    let o = cnsim(&root, &["run", "s.toml", "--out", "run", "-q"]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let o = cnsim(&root, &["report", "run"]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    check_report(&root.join("run/report.html"), Some(4));

    // A sweep writes its report itself: 8 key figures against the swept rate (all but
    // the frame counts: throughput, both fairness indices, network loss, frames lost
    // and dropped at sources, delay, queue).
    let o = cnsim(
        &root,
        &["sweep", "s.toml", "--grid", "traffic[0].rate=[200,400]Mbps", "--repeat", "2", "--out", "sw", "-q"],
    );
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    check_report(&root.join("sw/report.html"), Some(8));

    // A reproduction writes report.html beside report.md, and one row per run.
    let o = cnsim(&root, &["reproduce", "mliki2016", "--quick", "--seeds", "1", "--out", "rep", "-q"]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    check_report(&root.join("rep/report.html"), None);
    let rows = std::fs::read_to_string(root.join("rep/results.csv")).unwrap().lines().count() - 1;
    assert_eq!(rows, 84, "84 cells × 1 seed");
    let md = std::fs::read_to_string(root.join("rep/report.md")).unwrap();
    assert!(!md.contains("NaN") && !md.contains("– (–)"), "undefined values are said in words");
    assert!(md.contains("| QCN off | 25 | n/a | n/a |"), "no feedback or CR without QCN");
    // The comparison as a table: 30 paper numbers × 4 configurations, each with the paper's
    // value and ours; a figure also as a vector PDF.
    let cmp = std::fs::read_to_string(root.join("rep/comparison.csv")).unwrap();
    assert_eq!(cmp.lines().count() - 1, 30 * 4);
    assert!(cmp.lines().next().unwrap().starts_with("what,where,unit,paper,configuration,ours"));
    let pdf = std::fs::read(root.join("rep/figures/cbr-per-frame/fig08-loss.pdf")).unwrap();
    assert!(pdf.starts_with(b"%PDF-"));

    // A second reproduction on the same framework: Roeck 2007, 17 cells per test (7
    // protocols under 2 parameter sets, 3 under one), 15 on test 1 with frames to random
    // nodes (no FECN or FECN-B).
    let o = cnsim(&root, &["reproduce", "roeck2007", "--quick", "--seeds", "1", "--out", "roeck", "-q"]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    check_report(&root.join("roeck/report.html"), None);
    let rows = std::fs::read_to_string(root.join("roeck/results.csv")).unwrap().lines().count() - 1;
    assert_eq!(rows, 10 * 17 + 15, "11 tests, 185 cells × 1 seed");
    let cmp = std::fs::read_to_string(root.join("roeck/comparison.csv")).unwrap();
    assert_eq!(cmp.lines().count() - 1, 191 * 2, "191 numbers and claims × 2 parameter sets");
    let md = std::fs::read_to_string(root.join("roeck/report.md")).unwrap();
    assert!(md.contains("| seeds | verdict |") && md.contains("### Verdicts"), "a verdict per row");
    let per_cell = std::fs::read_dir(root.join("roeck/figures/cells")).unwrap().count();
    assert_eq!(per_cell, 185 * 2, "queues and throughput of every cell");

    // Not a cnsim directory: a clear error, nothing written.
    std::fs::create_dir_all(root.join("other")).unwrap();
    let o = cnsim(&root, &["report", "other"]);
    assert_eq!(o.status.code(), Some(crate::common::EXIT_INPUT));
    assert!(stderr(&o).contains("neither a run directory"), "{}", stderr(&o));
    assert!(!root.join("other/report.html").exists());
    let _ = std::fs::remove_dir_all(&root);
}
