//! Output directories cannot destroy data: each test builds a small directory tree, points
//! a run at part of it, and proves that everything cnsim did not write survives.

use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicUsize, Ordering};

use cnsim::run::outdir::Kind;
use cnsim::run::{write_run_dir, write_run_files, Finished, RunError, StagedDir};
use cnsim::scenario::{bundled, parse};

/// A fresh directory tree under the system temporary directory, removed when dropped.
struct Tree(PathBuf);

impl Tree {
    fn new(tag: &str) -> Self {
        static NEXT: AtomicUsize = AtomicUsize::new(0);
        let n = NEXT.fetch_add(1, Ordering::SeqCst);
        let dir = std::env::temp_dir().join(format!("cnsim-out-{tag}-{}-{n}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(dir.join("sub")).unwrap();
        std::fs::write(dir.join("keep.txt"), b"precious").unwrap();
        std::fs::write(dir.join("sub/keep.txt"), b"precious too").unwrap();
        Self(dir)
    }

    fn intact(&self) -> bool {
        std::fs::read(self.0.join("keep.txt")).is_ok_and(|b| b == b"precious")
            && std::fs::read(self.0.join("sub/keep.txt")).is_ok_and(|b| b == b"precious too")
    }

    /// Entries of `dir` whose names start with `.cnsim-` (staging leftovers).
    fn leftovers(dir: &Path) -> Vec<String> {
        std::fs::read_dir(dir)
            .unwrap()
            .flatten()
            .map(|e| e.file_name().to_string_lossy().into_owned())
            .filter(|n| n.starts_with(".cnsim-tmp-") || n.starts_with(".cnsim-old-"))
            .collect()
    }
}

impl Drop for Tree {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

fn finished() -> (cnsim::scenario::Scenario, Finished) {
    let s = parse(bundled::get("star-multicast").unwrap(), "x", &["duration=1ms".into()]).unwrap();
    let done = cnsim::run::simulate(&s, "x", &mut |_| true).unwrap();
    (s, done)
}

fn refused(r: Result<(), RunError>) -> String {
    match r {
        Err(RunError::Output(m)) => m,
        other => panic!("expected a refusal, got {other:?}"),
    }
}

/// Regression: `--out . --force` deleted the working directory's contents and `--out ..
/// --force` the parent's. Paths that are not a new name, and the working directory and
/// its ancestors, are refused whatever `force` says. (The working directory of a test
/// process is the crate; it is only read here.)
#[test]
fn dot_dotdot_root_and_ancestors_of_the_working_directory_are_refused() {
    let (s, done) = finished();
    let cwd = std::env::current_dir().unwrap();
    let before: Vec<_> = std::fs::read_dir(&cwd).unwrap().flatten().map(|e| e.file_name()).collect();
    for path in [".", "..", "/", "", "src/..", "../..", "./."] {
        for force in [false, true] {
            let m = refused(write_run_dir(&s, &done, Path::new(path), force));
            assert!(m.contains("expected"), "{path:?}: {m}");
        }
    }
    // The working directory and its ancestors by absolute path (they exist, and are not
    // cnsim results).
    let mut ancestor = Some(cwd.as_path());
    while let Some(a) = ancestor {
        let m = refused(write_run_dir(&s, &done, a, true));
        assert!(
            m.contains("working directory") || m.contains("not a directory name"),
            "{}: {m}",
            a.display()
        );
        ancestor = a.parent();
    }
    let after: Vec<_> = std::fs::read_dir(&cwd).unwrap().flatten().map(|e| e.file_name()).collect();
    assert_eq!(before, after);
    assert!(Tree::leftovers(&cwd).is_empty());
}

/// An existing directory that is not a cnsim result is never replaced, even with force;
/// nor is a file, or a symbolic link.
#[test]
fn only_cnsim_results_are_replaced() {
    let (s, done) = finished();
    let tree = Tree::new("foreign");
    for force in [false, true] {
        let m = refused(write_run_dir(&s, &done, &tree.0, force));
        assert!(m.contains("is not a cnsim result"), "{m}");
        let m = refused(write_run_dir(&s, &done, &tree.0.join("sub"), force));
        assert!(m.contains("is not a cnsim result"), "{m}");
        let m = refused(write_run_dir(&s, &done, &tree.0.join("keep.txt"), force));
        assert!(m.contains("is a file"), "{m}");
    }
    #[cfg(unix)]
    {
        std::os::unix::fs::symlink(tree.0.join("sub"), tree.0.join("link")).unwrap();
        std::os::unix::fs::symlink(tree.0.join("nowhere"), tree.0.join("dangling")).unwrap();
        for link in ["link", "dangling"] {
            let m = refused(write_run_dir(&s, &done, &tree.0.join(link), true));
            assert!(m.contains("symbolic link"), "{m}");
        }
    }
    assert!(tree.intact());
    assert!(Tree::leftovers(&tree.0).is_empty());
}

/// A cnsim result is replaced only with force, and then completely: the marker file
/// identifies it and lists what cnsim wrote; the old result is gone and the new one in
/// place, with nothing left beside it.
#[test]
fn a_previous_result_is_replaced_only_with_force() {
    let (s, done) = finished();
    let tree = Tree::new("replace");
    let run = tree.0.join("run");
    write_run_dir(&s, &done, &run, false).unwrap();
    assert!(run.join(".cnsim-run").is_file() && run.join("summary.json").is_file());
    let marker = std::fs::read_to_string(run.join(".cnsim-run")).unwrap();
    assert!(marker.starts_with("cnsim ") && marker.lines().next().unwrap().ends_with(" run directory"));
    assert!(marker.lines().any(|l| l == "summary.json") && marker.lines().any(|l| l == "plots/"), "{marker}");
    let m = refused(write_run_dir(&s, &done, &run, false));
    assert!(m.contains("already exists"), "{m}");
    std::fs::write(run.join("summary.json"), b"the old one").unwrap();
    write_run_dir(&s, &done, &run, true).unwrap();
    assert_ne!(std::fs::read(run.join("summary.json")).unwrap(), b"the old one");
    assert!(tree.intact());
    assert!(Tree::leftovers(&tree.0).is_empty());
}

/// Regression: `--force` replaced a marked directory wholesale, deleting the files a user
/// had added inside. Now a directory holding anything cnsim did not write is refused,
/// naming what, and left exactly as it was; so is one from a cnsim that did not list its
/// files (it cannot tell them apart).
#[test]
fn force_never_deletes_files_cnsim_did_not_write() {
    let (s, done) = finished();
    let tree = Tree::new("foreign-inside");
    let run = tree.0.join("run");
    write_run_dir(&s, &done, &run, false).unwrap();
    for planted in ["notes.txt", "plots/mine.svg", "extra/deep/file"] {
        let path = run.join(planted);
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(&path, b"mine").unwrap();
        let m = refused(write_run_dir(&s, &done, &run, true));
        assert!(
            m.contains("holds files cnsim did not write") && m.contains(planted.split('/').next().unwrap()),
            "{m}"
        );
        assert_eq!(std::fs::read(&path).unwrap(), b"mine");
        std::fs::remove_file(&path).unwrap();
        let _ = std::fs::remove_dir_all(run.join("extra"));
    }
    write_run_dir(&s, &done, &run, true).unwrap();
    // A marker without a list (an older cnsim), or the pair of a run from before the
    // marker: refused, kept.
    for legacy in [Some(&b"cnsim 0.0.9 result directory\n"[..]), None] {
        match legacy {
            Some(text) => std::fs::write(run.join(".cnsim-run"), text).unwrap(),
            None => std::fs::remove_file(run.join(".cnsim-run")).unwrap(),
        }
        let m = refused(write_run_dir(&s, &done, &run, true));
        assert!(m.contains("did not list its files"), "{m}");
        assert!(run.join("summary.json").is_file());
    }
    assert!(tree.intact());
    assert!(Tree::leftovers(&tree.0).is_empty());
}

/// A directory of another kind is never replaced by a run, even with force: a sweep (or
/// a reproduction's report) is not a run.
#[test]
fn a_run_never_replaces_a_sweep_or_a_report() {
    let (s, done) = finished();
    let tree = Tree::new("kinds");
    for (kind, name) in [("sweep", "s"), ("report", "r")] {
        let dir = tree.0.join(name);
        std::fs::create_dir_all(&dir).unwrap();
        std::fs::write(dir.join(".cnsim-run"), format!("cnsim 0.1.0 {kind} directory\n")).unwrap();
        std::fs::write(dir.join("sweep.json"), b"{}").unwrap();
        let m = refused(write_run_dir(&s, &done, &dir, true));
        assert!(m.contains(&format!("is a cnsim {kind} directory")), "{m}");
        assert!(dir.join("sweep.json").is_file());
    }
    assert!(Tree::leftovers(&tree.0).is_empty());
}

/// An existing empty directory is written into without force (it holds nothing to
/// lose), as a sweep writes into one.
#[test]
fn an_empty_directory_is_written_into() {
    let (s, done) = finished();
    let tree = Tree::new("empty");
    let run = tree.0.join("made-by-hand");
    std::fs::create_dir(&run).unwrap();
    write_run_dir(&s, &done, &run, false).unwrap();
    assert!(run.join("summary.json").is_file());
    assert!(Tree::leftovers(&tree.0).is_empty());
}

/// An interruption before the commit, or a failure while writing, leaves the previous
/// result exactly as it was and no temporary directory.
#[test]
fn interrupted_or_failed_writes_leave_the_old_result() {
    let (s, done) = finished();
    let tree = Tree::new("interrupt");
    let run = tree.0.join("run");
    write_run_dir(&s, &done, &run, false).unwrap();
    std::fs::write(run.join("summary.json"), b"old").unwrap();
    // Interrupted while writing files.
    let staged = StagedDir::create(&run, true, Kind::Run).unwrap();
    let r = write_run_files(&s, &done, staged.path(), &|| true);
    assert!(matches!(r, Err(RunError::Interrupted)), "{r:?}");
    drop(staged);
    // Interrupted at the commit.
    let staged = StagedDir::create(&run, true, Kind::Run).unwrap();
    write_run_files(&s, &done, staged.path(), &|| false).unwrap();
    assert!(matches!(staged.commit(&|| true), Err(RunError::Interrupted)));
    // Interrupted right after the swap: undone.
    let staged = StagedDir::create(&run, true, Kind::Run).unwrap();
    write_run_files(&s, &done, staged.path(), &|| false).unwrap();
    let calls = AtomicUsize::new(0);
    let second_call = || calls.fetch_add(1, Ordering::SeqCst) >= 1;
    assert!(matches!(staged.commit(&second_call), Err(RunError::Interrupted)));
    assert_eq!(std::fs::read(run.join("summary.json")).unwrap(), b"old");
    assert!(tree.intact());
    assert!(Tree::leftovers(&tree.0).is_empty(), "{:?}", Tree::leftovers(&tree.0));
}

/// Regression: the output location was checked only after the whole run. Now an
/// unwritable parent (a file in the way) is found when the directory is staged.
#[test]
fn unwritable_locations_are_found_before_the_run() {
    let tree = Tree::new("unwritable");
    let e = StagedDir::create(&tree.0.join("keep.txt/run"), false, Kind::Run).unwrap_err();
    assert!(matches!(&e, RunError::Output(m) if m.contains("keep.txt")), "{e:?}");
    assert!(tree.intact());
}

/// Regression: a process killed while writing left `.<out>.tmp-<pid>/` forever. Staging
/// directories of dead processes are removed by the next write beside them, and a
/// previous result renamed aside but never replaced is put back.
#[cfg(target_os = "linux")]
#[test]
fn leftovers_of_dead_processes_are_cleaned() {
    let (s, done) = finished();
    let tree = Tree::new("stale");
    // A pid that is not running: a child that has exited and been reaped.
    let dead = {
        let mut c = std::process::Command::new("true").spawn().unwrap();
        let pid = c.id();
        c.wait().unwrap();
        pid
    };
    let stale_tmp = tree.0.join(format!(".cnsim-tmp-{dead}-0-run"));
    std::fs::create_dir_all(&stale_tmp).unwrap();
    std::fs::write(stale_tmp.join(".cnsim-run"), b"").unwrap();
    std::fs::write(stale_tmp.join("summary.json"), b"{}").unwrap();
    let stale_old = tree.0.join(format!(".cnsim-old-{dead}-0-earlier"));
    std::fs::create_dir_all(&stale_old).unwrap();
    std::fs::write(stale_old.join(".cnsim-run"), b"").unwrap();
    // Not ours (no marker, not empty): left alone.
    let foreign = tree.0.join(format!(".cnsim-tmp-{dead}-1-x"));
    std::fs::create_dir_all(&foreign).unwrap();
    std::fs::write(foreign.join("data"), b"x").unwrap();
    write_run_dir(&s, &done, &tree.0.join("run"), false).unwrap();
    assert!(!stale_tmp.exists());
    assert!(!stale_old.exists() && tree.0.join("earlier/.cnsim-run").is_file());
    assert!(foreign.join("data").exists());
    assert!(tree.intact());
}

/// Regression: `cnsim report` trusted the directory it reports on. A planted
/// `plots/*.svg` with a `<script>` landed in report.html as live markup; a symbolic link
/// as `scenario.toml` embedded `/etc/passwd`; run ids in `sweep.json` were used as paths
/// (`/etc`, `../..`); a FIFO blocked it; a huge `summary.json` was read whole; a point of
/// 1e300 panicked and 1e10 aborted on its allocation. Now figures are images (their
/// scripts never run), links and special files are refused, sizes are bounded, and the
/// record is checked before it is used.
#[cfg(unix)]
#[test]
fn a_hostile_directory_cannot_turn_a_report_against_its_reader() {
    use cnsim::report::html::write_report;
    let (s, done) = finished();
    let tree = Tree::new("hostile");
    let fresh_run = |name: &str| {
        let run = tree.0.join(name);
        write_run_dir(&s, &done, &run, false).unwrap();
        run
    };
    // A script in a figure: the page holds it only inside an image's data.
    let run = fresh_run("script");
    std::fs::write(
        run.join("plots/evil.svg"),
        "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"200\" height=\"200\"><script>alert(1)</script></svg>",
    )
    .unwrap();
    let page = std::fs::read_to_string(write_report(&run).unwrap()).unwrap();
    assert!(!page.contains("alert(1)") && !page.contains("<svg"), "a figure's markup is in the page");
    assert_eq!(page.matches("<script>").count(), 1, "only the page's own check runs");
    // Links out of the directory, and special files: refused, nothing written.
    type Plant = dyn Fn(&Path);
    let cases: [(&str, &Plant); 4] = [
        ("scenario.toml", &|run: &Path| {
            std::fs::remove_file(run.join("scenario.toml")).unwrap();
            std::os::unix::fs::symlink("/etc/passwd", run.join("scenario.toml")).unwrap();
        }),
        ("plots", &|run: &Path| {
            std::fs::remove_dir_all(run.join("plots")).unwrap();
            std::os::unix::fs::symlink("/etc", run.join("plots")).unwrap();
        }),
        ("summary.json", &|run: &Path| {
            std::fs::remove_file(run.join("summary.json")).unwrap();
            let made = std::process::Command::new("mkfifo").arg(run.join("summary.json")).status();
            assert!(made.is_ok_and(|s| s.success()));
        }),
        ("summary.json", &|run: &Path| {
            // 300 MiB (sparse): refused by its size, not read.
            std::fs::File::create(run.join("summary.json")).unwrap().set_len(300 << 20).unwrap();
        }),
    ];
    for (i, (what, plant)) in cases.iter().enumerate() {
        let run = fresh_run(&format!("case{i}"));
        plant(&run);
        let t0 = std::time::Instant::now();
        let e = write_report(&run).unwrap_err();
        assert!(e.contains(what), "{e}");
        assert!(t0.elapsed().as_secs() < 5, "{what}: took {:?}", t0.elapsed());
        assert!(!run.join("report.html").exists());
    }
    // A sweep record whose run ids are paths, or whose points are absurd.
    for (runs, says) in [
        (r#"[{"id": "../..", "point": 0}]"#, "is not a run directory name"),
        (r#"[{"id": "/etc", "point": 0}]"#, "is not a run directory name"),
        (r#"[{"id": "0123456789abcdef", "dir": "../..", "point": 0}]"#, "is not a run directory name"),
        (r#"[{"id": "0123456789abcdef", "dir": 7, "point": 0}]"#, "is not a run directory name"),
        (r#"[{"id": "0123456789abcdef", "point": 1e300}]"#, "is not a point of this sweep"),
        (r#"[{"id": "0123456789abcdef", "point": 10000000000}]"#, "is not a point of this sweep"),
        (r#"[{"id": "0123456789abcdef", "point": 0}]"#, "is not a run directory"),
    ] {
        let dir = tree.0.join("sweep");
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).unwrap();
        std::fs::write(dir.join("sweep.json"), format!(r#"{{"scenario": "x", "runs": {runs}}}"#)).unwrap();
        let e = write_report(&dir).unwrap_err();
        assert!(e.contains(says), "{e}");
        assert!(!dir.join("report.html").exists());
    }
    assert!(tree.intact());
}
