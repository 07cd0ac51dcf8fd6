//! Sweeps: resumable after a kill, one results table readable by pandas and polars.

use std::io::{BufRead, BufReader};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

use crate::common::{cnsim, stderr, EXIT_INPUT};

/// A small scenario: two senders into one receiver, Poisson traffic (so seeds matter).
const SMALL: &str = r#"
name = "small"
duration = "2ms"
seed = 1
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
kind = "poisson"
from = "c"
to = "b"
rate = "400Mbps"
[metrics]
delay_percentiles = true
"#;

fn tree(tag: &str) -> PathBuf {
    let root = std::env::temp_dir().join(format!("cnsim-sweep-{tag}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&root);
    std::fs::create_dir_all(&root).unwrap();
    std::fs::write(root.join("s.toml"), SMALL).unwrap();
    root
}

/// The sweep of these tests: 3 rates × 2 seeds = 6 runs.
const SWEEP: [&str; 6] = ["sweep", "s.toml", "--grid", "traffic[0].rate=[200,400,600]Mbps", "--repeat", "2"];

fn run_dirs(sweep: &Path) -> Vec<String> {
    let mut v: Vec<String> = std::fs::read_dir(sweep.join("runs"))
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .filter(|n| !n.starts_with('.'))
        .collect();
    v.sort();
    v
}

/// The modification time of each finished run's summary.
fn stamps(sweep: &Path) -> Vec<std::time::SystemTime> {
    run_dirs(sweep)
        .iter()
        .map(|r| {
            std::fs::metadata(sweep.join("runs").join(r).join("summary.json")).unwrap().modified().unwrap()
        })
        .collect()
}

/// Kill a sweep half-way (SIGKILL after its third run), resume it: only the three
/// missing runs run, the first three are untouched, and the results table is byte for
/// byte that of an uninterrupted sweep. A third call runs nothing.
#[cfg(unix)]
#[test]
fn a_killed_sweep_resumes_with_only_the_missing_runs() {
    let root = tree("resume");
    let mut args: Vec<&str> = SWEEP.to_vec();
    args.extend(["--jobs", "1", "--out", "killed", "--summarize"]);
    let mut child = Command::new(env!("CARGO_BIN_EXE_cnsim"))
        .args(&args)
        .current_dir(&root)
        .env("CNSIM_HOLD_AT", "sweep:3")
        .stderr(Stdio::piped())
        .stdout(Stdio::null())
        .spawn()
        .unwrap();
    let mut lines = BufReader::new(child.stderr.take().unwrap()).lines();
    assert_eq!(lines.next().and_then(Result::ok).unwrap_or_default(), "cnsim: holding at sweep:3");
    // SAFETY: kill(2) with SIGKILL and the pid of our own child process.
    assert_eq!(unsafe { libc::kill(child.id() as libc::pid_t, libc::SIGKILL) }, 0);
    let _ = child.wait();
    let killed = root.join("killed");
    assert_eq!(run_dirs(&killed).len(), 3, "three runs finished before the kill");
    assert!(!killed.join("results.parquet").exists(), "no table before the sweep is complete");
    let before = stamps(&killed);

    let o = cnsim(&root, &args);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    assert!(stderr(&o).contains("6 runs (3 already done, 3 run now)"), "{}", stderr(&o));
    assert_eq!(run_dirs(&killed).len(), 6);
    let after = stamps(&killed);
    for (i, t) in before.iter().enumerate() {
        assert!(after.contains(t), "run {i} was rerun");
    }

    let mut whole: Vec<&str> = SWEEP.to_vec();
    whole.extend(["--jobs", "2", "--out", "whole", "--summarize"]);
    let o = cnsim(&root, &whole);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    for file in ["results.parquet", "results.csv", "results_summary.parquet", "results_summary.csv"] {
        let a = std::fs::read(killed.join(file)).unwrap();
        let b = std::fs::read(root.join("whole").join(file)).unwrap();
        assert!(a == b, "{file} differs between the resumed and the uninterrupted sweep");
    }
    assert_eq!(run_dirs(&killed), run_dirs(&root.join("whole")), "runs are named by what they simulate");

    let o = cnsim(&root, &args);
    assert!(stderr(&o).contains("6 runs (6 already done, 0 run now)"), "{}", stderr(&o));
    let _ = std::fs::remove_dir_all(&root);
}

/// The table has one row per run with the swept key, the seed and the summary's scalars;
/// the seeds change the Poisson results, the rate changes the offered load.
#[test]
fn the_results_table_has_a_row_per_run() {
    let root = tree("table");
    let mut args: Vec<&str> = SWEEP.to_vec();
    args.extend(["--out", "out", "--quiet"]);
    let o = cnsim(&root, &args);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let csv = std::fs::read_to_string(root.join("out/results.csv")).unwrap();
    let mut lines = csv.lines();
    let header: Vec<&str> = lines.next().unwrap().split(',').collect();
    // The first cell, the run's directory name, is quoted: it holds commas.
    let rows: Vec<Vec<&str>> = lines
        .map(|l| {
            let (run, rest) = l.strip_prefix('"').and_then(|l| l.split_once("\",")).unwrap();
            std::iter::once(run).chain(rest.split(',')).collect()
        })
        .collect();
    assert_eq!(rows.len(), 6);
    let col =
        |name: &str| header.iter().position(|h| *h == name).unwrap_or_else(|| panic!("no column {name}"));
    let (rate, seed, offered) = (col("traffic[0].rate"), col("seed"), col("flows[ab/a].offered_bytes"));
    // Per-flow delay percentiles and jitter are figures of every run.
    for figure in ["p50_delay_s", "p99_delay_s", "max_delay_s", "delay_variation_s"] {
        col(&format!("flows[ab/a].{figure}"));
    }
    let got: Vec<(&str, &str)> = rows.iter().map(|r| (r[rate], r[seed])).collect();
    assert_eq!(
        got,
        [
            ("200Mbps", "1"),
            ("200Mbps", "2"),
            ("400Mbps", "1"),
            ("400Mbps", "2"),
            ("600Mbps", "1"),
            ("600Mbps", "2")
        ]
    );
    let offered: Vec<f64> = rows.iter().map(|r| r[offered].parse().unwrap()).collect();
    assert_ne!(offered[0], offered[1], "seeds give different Poisson arrivals");
    // 2 ms at 200 and 600 Mbit/s: about 50 kB and 150 kB offered.
    assert!(offered[4] > 2.5 * offered[0] && offered[4] < 3.5 * offered[0], "{offered:?}");
    let _ = std::fs::remove_dir_all(&root);
}

/// pandas and polars read `results.parquet` (skipped with a message where Python lacks
/// them, unless `CNSIM_REQUIRE_PYTHON_TESTS` is set, as CI does).
#[test]
fn pandas_and_polars_read_the_results_table() {
    let root = tree("python");
    let mut args: Vec<&str> = SWEEP.to_vec();
    args.extend(["--out", "out", "--quiet", "--summarize"]);
    let o = cnsim(&root, &args);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let script = r#"
import sys
try:
    import pandas as pd, polars as pl
except ImportError as e:
    print("missing:", e)
    sys.exit(3)
a = pd.read_parquet("out/results.parquet")
b = pl.read_parquet("out/results.parquet")
assert len(a) == 6 and b.height == 6, (len(a), b.height)
assert list(a.columns) == b.columns
assert a["seed"].tolist() == [1, 2, 1, 2, 1, 2], a["seed"].tolist()
assert a["traffic[0].rate"].tolist()[0] == "200Mbps"
assert (a["frames.delivered"] > 0).all()
assert b["flows[ab/a].throughput_bps"].dtype == pl.Float64
s = pd.read_parquet("out/results_summary.parquet")
assert len(s) == 3 and (s["runs"] == 2).all(), s
assert (s["flows[ab/a].throughput_bps.ci95"] > 0).all()
c = pd.read_csv("out/results.csv")
assert len(c) == 6
print("ok")
"#;
    let python = Command::new("python3").arg("-c").arg(script).current_dir(&root).output();
    let required = std::env::var_os("CNSIM_REQUIRE_PYTHON_TESTS").is_some();
    match python {
        Ok(out) if out.status.code() == Some(3) && !required => {
            eprintln!("skipped: {}", String::from_utf8_lossy(&out.stdout).trim());
        }
        Ok(out) => assert!(
            out.status.success(),
            "{}{}",
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr)
        ),
        Err(e) if !required => eprintln!("skipped: no python3 ({e})"),
        Err(e) => panic!("python3: {e}"),
    }
    let _ = std::fs::remove_dir_all(&root);
}

/// Bad axes are located errors; a sweep never writes into a directory it did not make;
/// runs of another version are refused unless allowed.
#[test]
fn sweep_errors_are_located() {
    let root = tree("errors");
    for (args, says) in [
        (vec!["sweep", "s.toml", "--grid", "traffic[0].rate"], "--grid"),
        (vec!["sweep", "s.toml", "--grid", "traffic[0].rate=[1,2]Gbsp"], "traffic[0].rate"),
        (vec!["sweep", "s.toml", "--zip", "seed=[1,2]", "--zip", "duration=[1ms]"], "equal length"),
        (vec!["sweep", "s.toml", "--repeat", "0"], "--repeat"),
    ] {
        let o = cnsim(&root, &args);
        assert_eq!(o.status.code(), Some(EXIT_INPUT), "{args:?}: {}", stderr(&o));
        assert!(stderr(&o).contains(says), "{args:?}: {}", stderr(&o));
    }
    std::fs::create_dir_all(root.join("mine")).unwrap();
    std::fs::write(root.join("mine/notes.txt"), b"mine").unwrap();
    let o = cnsim(&root, &["sweep", "s.toml", "--repeat", "2", "--out", "mine", "-q"]);
    assert_ne!(o.status.code(), Some(0));
    assert!(stderr(&o).contains("not a cnsim sweep"), "{}", stderr(&o));
    assert_eq!(std::fs::read_dir(root.join("mine")).unwrap().count(), 1);

    let o = cnsim(&root, &["sweep", "s.toml", "--repeat", "2", "--out", "v", "-q"]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let runs = root.join("v/runs");
    let first = std::fs::read_dir(&runs).unwrap().next().unwrap().unwrap().path();
    let summary = std::fs::read_to_string(first.join("summary.json")).unwrap();
    std::fs::write(first.join("summary.json"), summary.replace(cnsim::VERSION, "0.0.1-old")).unwrap();
    let o = cnsim(&root, &["sweep", "s.toml", "--repeat", "2", "--out", "v", "-q"]);
    assert_ne!(o.status.code(), Some(0));
    assert!(stderr(&o).contains("another cnsim version"), "{}", stderr(&o));
    let o = cnsim(&root, &["sweep", "s.toml", "--repeat", "2", "--out", "v", "-q", "--allow-mixed-versions"]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    assert!(std::fs::read_to_string(root.join("v/results.csv")).unwrap().contains("0.0.1-old"));
    let _ = std::fs::remove_dir_all(&root);
}

/// `cnsim run --repeat K` runs K seeds into one directory with the table and its
/// summary over seeds; `--seed` picks the seed of a single run.
#[test]
fn run_repeat_and_seed() {
    let root = tree("repeat");
    let o = cnsim(&root, &["run", "s.toml", "--repeat", "3", "--seed", "5", "--out", "r", "-q"]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    assert_eq!(run_dirs(&root.join("r")), ["seed=5", "seed=6", "seed=7"]);
    let summary = std::fs::read_to_string(root.join("r/results_summary.csv")).unwrap();
    assert!(summary.lines().next().unwrap().contains("frames.delivered.ci95"));
    let o = cnsim(&root, &["run", "s.toml", "--seed", "9", "--out", "one", "-q"]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    assert!(std::fs::read_to_string(root.join("one/summary.json")).unwrap().contains("\"seed\": 9"));
    let _ = std::fs::remove_dir_all(&root);
}

/// Run directories are named by their swept values and seed, and `sweep.json` and the
/// results table keep each run's id beside its name. A sweep recorded when runs were
/// named by their id (`runs/<16 hex digits>`) resumes and grows in place, its old runs
/// keeping their names; a run directory that holds another run than its name says is
/// refused, not taken for it.
#[test]
fn runs_are_named_readably_and_hash_named_sweeps_still_resume() {
    let root = tree("names");
    let mut args: Vec<&str> = SWEEP.to_vec();
    args.extend(["--out", "s", "-q"]);
    let o = cnsim(&root, &args);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let s = root.join("s");
    let names: Vec<String> = ["200", "400", "600"]
        .iter()
        .flat_map(|r| (1..=2).map(move |seed| format!("rate={r}Mbps,seed={seed}")))
        .collect();
    assert_eq!(run_dirs(&s), names);
    let record: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(s.join("sweep.json")).unwrap()).unwrap();
    let runs = record["runs"].as_array().unwrap();
    assert_eq!(runs[0]["dir"], "rate=200Mbps,seed=1");
    let id = runs[0]["id"].as_str().unwrap().to_string();
    assert_eq!(id.len(), 16);
    let csv = std::fs::read_to_string(s.join("results.csv")).unwrap();
    assert!(csv.starts_with("run,run_id,"), "{csv}");
    assert!(csv.contains(&format!("\"rate=200Mbps,seed=1\",{id},")), "{csv}");

    // The same sweep as an older cnsim left it: directories named by id, no "dir".
    let mut old = record.clone();
    for r in old["runs"].as_array_mut().unwrap() {
        let (id, dir) = (r["id"].as_str().unwrap().to_string(), r["dir"].as_str().unwrap().to_string());
        std::fs::rename(s.join("runs").join(dir), s.join("runs").join(&id)).unwrap();
        r.as_object_mut().unwrap().remove("dir");
    }
    std::fs::write(s.join("sweep.json"), serde_json::to_vec_pretty(&old).unwrap()).unwrap();
    let hashed = run_dirs(&s);
    let before = stamps(&s);
    let o = cnsim(&root, &SWEEP.iter().copied().chain(["--out", "s"]).collect::<Vec<_>>());
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    assert!(stderr(&o).contains("6 runs (6 already done, 0 run now)"), "{}", stderr(&o));
    assert_eq!(run_dirs(&s), hashed);
    assert_eq!(stamps(&s), before);
    assert!(std::fs::read_to_string(s.join("report.html")).unwrap().contains("Sweep of s.toml"));
    // Grown by a seed: the new runs get readable names beside the old ones.
    let o = cnsim(
        &root,
        &["sweep", "s.toml", "--grid", "traffic[0].rate=[200,400,600]Mbps", "--repeat", "3", "--out", "s"],
    );
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    assert!(stderr(&o).contains("9 runs (6 already done, 3 run now)"), "{}", stderr(&o));
    let mut expected = hashed.clone();
    expected.extend(["rate=200Mbps,seed=3", "rate=400Mbps,seed=3", "rate=600Mbps,seed=3"].map(String::from));
    expected.sort();
    assert_eq!(run_dirs(&s), expected);

    // Another run in a run's directory: refused, both left as they are.
    let fresh = root.join("t");
    let o = cnsim(&root, &["sweep", "s.toml", "--repeat", "2", "--out", "t", "-q"]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let runs = fresh.join("runs");
    std::fs::remove_dir_all(runs.join("seed=2")).unwrap();
    let copied = Command::new("cp").arg("-r").arg(runs.join("seed=1")).arg(runs.join("seed=2")).status();
    assert!(copied.unwrap().success());
    let o = cnsim(&root, &["sweep", "s.toml", "--repeat", "2", "--out", "t", "-q"]);
    assert_eq!(o.status.code(), Some(1), "{}", stderr(&o));
    assert!(stderr(&o).contains("holds run") && stderr(&o).contains("seed=2"), "{}", stderr(&o));
    assert_eq!(run_dirs(&fresh), ["seed=1", "seed=2"]);
    let _ = std::fs::remove_dir_all(&root);
}

/// Regression: any directory with a `sweep.json` was resumed, even for another scenario
/// or grid: the record and the results were replaced and the old runs orphaned, and a
/// user's own `sweep.json` was overwritten. A sweep directory holds one sweep, which may
/// grow (more seeds or values on the same keys) but not lose runs: another one is
/// refused with both described, and nothing there changes.
#[test]
fn a_sweep_directory_holds_one_sweep() {
    let root = tree("one-plan");
    let o = cnsim(&root, &["sweep", "s.toml", "--repeat", "2", "--out", "a", "-q"]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let record = std::fs::read(root.join("a/sweep.json")).unwrap();
    let table = std::fs::read(root.join("a/results.parquet")).unwrap();
    for (other, why) in [
        (vec!["sweep", "s.toml", "--repeat", "1", "--out", "a", "-q"], "lacks 1 of its runs"),
        (
            vec!["sweep", "s.toml", "--grid", "traffic[0].rate=[1,2]Mbps", "--out", "a", "-q"],
            "sweeps other keys",
        ),
        (vec!["sweep", "star-multicast", "--set", "duration=1ms", "--out", "a", "-q"], "lacks 2 of its runs"),
        (vec!["run", "s.toml", "--repeat", "2", "--seed", "7", "--out", "a", "-q"], "lacks 2 of its runs"),
    ] {
        let o = cnsim(&root, &other);
        assert_eq!(o.status.code(), Some(1), "{other:?}: {}", stderr(&o));
        assert!(stderr(&o).contains("holds another sweep (2 runs of s.toml, seeds only)"), "{}", stderr(&o));
        assert!(stderr(&o).contains(why), "{}", stderr(&o));
        assert_eq!(std::fs::read(root.join("a/sweep.json")).unwrap(), record);
        assert_eq!(std::fs::read(root.join("a/results.parquet")).unwrap(), table);
        assert_eq!(run_dirs(&root.join("a")).len(), 2);
    }
    // The same sweep named another way (the same scenario, resolved the same) resumes.
    let o = cnsim(&root, &["sweep", &root.join("s.toml").to_string_lossy(), "--repeat", "2", "--out", "a"]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    assert!(stderr(&o).contains("2 runs (2 already done, 0 run now)"), "{}", stderr(&o));
    // Grown by a seed: only the new run runs.
    let o = cnsim(&root, &["sweep", "s.toml", "--repeat", "3", "--out", "a"]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    assert!(stderr(&o).contains("3 runs (2 already done, 1 run now)"), "{}", stderr(&o));
    // A user's own sweep.json, in a directory cnsim did not make: refused, untouched.
    std::fs::create_dir_all(root.join("mine")).unwrap();
    std::fs::write(root.join("mine/sweep.json"), b"{\"mine\": true}").unwrap();
    let o = cnsim(&root, &["sweep", "s.toml", "--repeat", "2", "--out", "mine", "-q"]);
    assert_eq!(o.status.code(), Some(1), "{}", stderr(&o));
    assert!(stderr(&o).contains("not a cnsim sweep"), "{}", stderr(&o));
    assert_eq!(std::fs::read(root.join("mine/sweep.json")).unwrap(), b"{\"mine\": true}");
    assert_eq!(std::fs::read_dir(root.join("mine")).unwrap().count(), 1);
    // A run directory is not a sweep.
    let o = cnsim(&root, &["run", "s.toml", "--out", "r", "-q"]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let o = cnsim(&root, &["sweep", "s.toml", "--repeat", "2", "--out", "r", "-q"]);
    assert_eq!(o.status.code(), Some(1), "{}", stderr(&o));
    assert!(stderr(&o).contains("is a cnsim run directory, not a sweep"), "{}", stderr(&o));
    let _ = std::fs::remove_dir_all(&root);
}

/// Regression: two sweeps writing one directory at once left the record of one and the
/// table of the other. The writer holds a lock; a second writer is refused at once with
/// the holder named, and once the first has stopped (here by a signal) the directory
/// resumes normally.
#[cfg(unix)]
#[test]
fn one_writer_at_a_time() {
    let root = tree("lock");
    let mut args: Vec<&str> = SWEEP.to_vec();
    args.extend(["--jobs", "1", "--out", "locked"]);
    let mut child = Command::new(env!("CARGO_BIN_EXE_cnsim"))
        .args(&args)
        .current_dir(&root)
        .env("CNSIM_HOLD_AT", "sweep:1")
        .stderr(Stdio::piped())
        .stdout(Stdio::null())
        .spawn()
        .unwrap();
    let mut lines = BufReader::new(child.stderr.take().unwrap()).lines();
    assert_eq!(lines.next().and_then(Result::ok).unwrap_or_default(), "cnsim: holding at sweep:1");
    std::thread::spawn(move || for _ in lines {});
    let holder = format!("another cnsim is writing this sweep (pid {} on ", child.id());
    for other in
        [args.clone(), vec!["sweep", "s.toml", "--repeat", "4", "--out", "locked"], vec!["report", "locked"]]
    {
        let o = cnsim(&root, &other);
        assert_eq!(o.status.code(), Some(if other[0] == "report" { 2 } else { 1 }), "{}", stderr(&o));
        assert!(stderr(&o).contains(&holder), "{other:?}: {}", stderr(&o));
    }
    // SAFETY: kill(2) with SIGINT and the pid of our own child process.
    assert_eq!(unsafe { libc::kill(child.id() as libc::pid_t, libc::SIGINT) }, 0);
    assert_eq!(child.wait().unwrap().code(), Some(130));
    let o = cnsim(&root, &args);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    assert!(stderr(&o).contains("6 runs (1 already done, 5 run now)"), "{}", stderr(&o));
    let _ = std::fs::remove_dir_all(&root);
}

/// Regression: a damaged `summary.json` in a sweep was reported as a run of "another
/// cnsim version", and `--allow-mixed-versions` then failed on the parse error. A
/// damaged run is run again on resume, saying so, and the table is as before.
#[test]
fn a_damaged_run_is_run_again() {
    let root = tree("damaged");
    let o = cnsim(&root, &["sweep", "s.toml", "--repeat", "2", "--out", "d", "-q"]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let table = std::fs::read(root.join("d/results.csv")).unwrap();
    let damaged = run_dirs(&root.join("d"))[0].clone();
    let summary = root.join("d/runs").join(&damaged).join("summary.json");
    let text = std::fs::read_to_string(&summary).unwrap();
    std::fs::write(&summary, &text[..text.len() / 2]).unwrap();
    let o = cnsim(&root, &["sweep", "s.toml", "--repeat", "2", "--out", "d"]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let err = stderr(&o);
    assert!(err.contains(&format!("note: run {damaged}: its summary.json ")), "{err}");
    assert!(err.contains("running it again"), "{err}");
    assert!(err.contains("2 runs (1 already done, 1 run now)"), "{err}");
    assert_eq!(std::fs::read(root.join("d/results.csv")).unwrap(), table);
    // A damaged run holding a file cnsim did not write is not deleted: the sweep stops.
    std::fs::write(&summary, b"{").unwrap();
    std::fs::write(summary.with_file_name("notes.txt"), b"mine").unwrap();
    let o = cnsim(&root, &["sweep", "s.toml", "--repeat", "2", "--out", "d", "-q"]);
    assert_eq!(o.status.code(), Some(1), "{}", stderr(&o));
    assert!(stderr(&o).contains("holds files cnsim did not write (notes.txt)"), "{}", stderr(&o));
    assert_eq!(std::fs::read(summary.with_file_name("notes.txt")).unwrap(), b"mine");
    let _ = std::fs::remove_dir_all(&root);
}
