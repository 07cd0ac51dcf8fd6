//! Same scenario and seed ⇒ byte-identical output files; another seed ⇒ different results.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use cnsim::scenario::{bundled, parse};

fn temp_dir(tag: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!("cnsim-det-{}-{tag}", std::process::id()));
    let _ = std::fs::remove_dir_all(&d);
    d
}

/// Runs bundled scenario `name` with overrides into `dir`; returns every output file
/// except `timing.json` (wall-clock figures), keyed by relative path.
fn run_into(name: &str, overrides: &[&str], dir: &Path) -> BTreeMap<String, Vec<u8>> {
    let overrides: Vec<String> = overrides.iter().map(|s| s.to_string()).collect();
    let mut s = parse(bundled::get(name).unwrap(), name, &overrides).unwrap();
    s.metrics.csv = true;
    let done = cnsim::run::simulate(&s, name, &mut |_| true).unwrap();
    cnsim::run::write_run_dir(&s, &done, dir, false).unwrap();
    let mut files = BTreeMap::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        for e in std::fs::read_dir(&d).unwrap() {
            let p = e.unwrap().path();
            if p.is_dir() {
                stack.push(p);
            } else if p.file_name().unwrap() != "timing.json" {
                let rel = p.strip_prefix(dir).unwrap().to_string_lossy().into_owned();
                files.insert(rel, std::fs::read(&p).unwrap());
            }
        }
    }
    files
}

#[test]
fn same_seed_gives_identical_files_and_another_seed_differs() {
    for name in ["uniform-onoff", "star-multicast"] {
        let (a, b, c) =
            (temp_dir(&format!("{name}-a")), temp_dir(&format!("{name}-b")), temp_dir(&format!("{name}-c")));
        let fa = run_into(name, &["duration=40ms"], &a);
        let fb = run_into(name, &["duration=40ms"], &b);
        let fc = run_into(name, &["duration=40ms", "seed=99"], &c);
        for expected in [
            "scenario.toml",
            "summary.json",
            "queue_length.parquet",
            "queue_length.csv",
            "throughput.parquet",
            "plots/queue_length.svg",
        ] {
            assert!(fa.contains_key(expected), "{name}: {expected} missing; have {:?}", fa.keys());
        }
        assert_eq!(fa.keys().collect::<Vec<_>>(), fb.keys().collect::<Vec<_>>());
        for (k, v) in &fa {
            assert!(v == &fb[k], "{name}: {k} differs between identical runs");
        }
        assert_ne!(fa["summary.json"], fc["summary.json"], "{name}: seed 99 gave the same summary");
        for d in [a, b, c] {
            std::fs::remove_dir_all(d).unwrap();
        }
    }
}

#[test]
fn resolved_scenario_reproduces_the_run() {
    // The scenario.toml written into a run directory is itself a valid scenario that
    // yields the same summary.
    let dir = temp_dir("resolved");
    let first = run_into("uniform-onoff", &["duration=20ms"], &dir);
    let resolved = String::from_utf8(first["scenario.toml"].clone()).unwrap();
    let s = parse(&resolved, "scenario.toml", &[]).unwrap();
    let original = parse(bundled::get("uniform-onoff").unwrap(), "x", &["duration=20ms".into()]).unwrap();
    let mut original = original;
    original.metrics.csv = true;
    assert_eq!(s, original);
    std::fs::remove_dir_all(dir).unwrap();
}

#[test]
fn every_shipped_scenario_reads_back_from_its_resolved_form() {
    // A run directory's scenario.toml, and what a sweep hands a remote worker, is the
    // resolved scenario: it must read back as the same scenario (the same run id), for
    // every bundled scenario and every file in scenarios/.
    let mut sources: Vec<(String, String)> =
        bundled::BUNDLED.iter().map(|(n, t)| (n.to_string(), t.to_string())).collect();
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../scenarios");
    let mut dirs = vec![root];
    while let Some(d) = dirs.pop() {
        for e in std::fs::read_dir(d).unwrap().flatten() {
            let p = e.path();
            if p.is_dir() {
                dirs.push(p);
            } else if p.extension().is_some_and(|x| x == "toml") {
                sources.push((p.display().to_string(), std::fs::read_to_string(&p).unwrap()));
            }
        }
    }
    assert!(sources.len() > 40, "found only {} scenarios", sources.len());
    for (name, text) in sources {
        let s = parse(&text, &name, &[]).unwrap();
        let resolved = cnsim::run::resolved_scenario_text(&s).unwrap();
        let again = parse(&resolved, "scenario.toml", &[])
            .unwrap_or_else(|e| panic!("{name}: its resolved form does not read back: {e}"));
        assert_eq!(again, s, "{name}");
        assert_eq!(cnsim::sweep::run_id(&again).unwrap(), cnsim::sweep::run_id(&s).unwrap(), "{name}");
    }
}

#[test]
fn interrupted_run_writes_nothing() {
    let s = parse(bundled::get("dumbbell-cbr-64").unwrap(), "x", &["duration=1s".into()]).unwrap();
    let mut calls = 0;
    let r = cnsim::run::simulate(&s, "x", &mut |_| {
        calls += 1;
        calls < 3
    });
    assert!(matches!(r, Err(cnsim::run::RunError::Interrupted)));
}
