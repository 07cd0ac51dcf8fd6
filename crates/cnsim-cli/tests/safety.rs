//! The command line cannot lose data, honours signals in every phase, and bounds what
//! it reads and allocates. Each test works in a temporary directory tree with files that
//! cnsim did not write, and proves they survive.

use std::io::{BufRead, BufReader};
use std::path::PathBuf;
use std::process::{Child, Command, Stdio};
use std::sync::atomic::{AtomicUsize, Ordering};

use crate::common::{cnsim, stderr, EXIT_INPUT};

/// A small, fast scenario with every output kind.
const SMALL: &str = r#"
name = "small"
duration = "2ms"
[topology.star]
hosts = ["a", "b", "c"]
link = { rate = "1Gbps", delay = "1us" }
[[traffic]]
name = "t"
kind = "cbr"
from = "a"
to = "b"
rate = "500Mbps"
"#;

/// A temporary tree: `work/` (the working directory of the command) holding
/// `scenario.toml` and `keep.txt`, beside `sibling.txt`.
struct Tree(PathBuf);

impl Tree {
    fn new(tag: &str) -> Self {
        static NEXT: AtomicUsize = AtomicUsize::new(0);
        let n = NEXT.fetch_add(1, Ordering::SeqCst);
        let root = std::env::temp_dir().join(format!("cnsim-safety-{tag}-{}-{n}", std::process::id()));
        let _ = std::fs::remove_dir_all(&root);
        std::fs::create_dir_all(root.join("work")).unwrap();
        std::fs::write(root.join("sibling.txt"), b"sibling").unwrap();
        std::fs::write(root.join("work/keep.txt"), b"keep").unwrap();
        std::fs::write(root.join("work/scenario.toml"), SMALL).unwrap();
        Self(root)
    }

    fn work(&self) -> PathBuf {
        self.0.join("work")
    }

    /// The files cnsim did not write are all there.
    fn intact(&self) -> bool {
        std::fs::read(self.0.join("sibling.txt")).is_ok_and(|b| b == b"sibling")
            && std::fs::read(self.0.join("work/keep.txt")).is_ok_and(|b| b == b"keep")
            && std::fs::read(self.0.join("work/scenario.toml")).is_ok_and(|b| b == SMALL.as_bytes())
    }

    /// Sorted entry names of `dir` relative to the tree.
    fn entries(&self, dir: &str) -> Vec<String> {
        let mut v: Vec<String> = std::fs::read_dir(self.0.join(dir))
            .unwrap()
            .flatten()
            .map(|e| e.file_name().to_string_lossy().into_owned())
            .collect();
        v.sort();
        v
    }
}

impl Drop for Tree {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

/// Regression: `--out . --force` deleted the working directory's contents, `--out ..
/// --force` the parent's. Both are refused with exit 2... or 1; nothing is lost.
#[test]
fn out_dot_and_dotdot_destroy_nothing() {
    let tree = Tree::new("dots");
    for out in [".", "..", "./", "../work", "/"] {
        for force in [false, true] {
            let mut args = vec!["run", "scenario.toml", "--quiet", "--out", out];
            if force {
                args.push("--force");
            }
            let o = cnsim(&tree.work(), &args);
            assert_ne!(o.status.code(), Some(0), "--out {out}: {}", stderr(&o));
            assert!(stderr(&o).contains("expected"), "--out {out}: {}", stderr(&o));
            assert!(tree.intact(), "--out {out} force={force} destroyed files");
            assert_eq!(tree.entries("work"), ["keep.txt", "scenario.toml"], "--out {out}");
            assert_eq!(tree.entries(""), ["sibling.txt", "work"], "--out {out}");
        }
    }
}

/// Regression: the scenario name was an unchecked path: `..` with --force emptied the
/// working directory, `/abs/dir` replaced that directory, `../../x` wrote outside
/// `runs/`, `""` replaced all of `runs/`.
#[test]
fn scenario_names_cannot_reach_outside_runs() {
    let tree = Tree::new("names");
    let abs = tree.0.join("abs");
    std::fs::create_dir_all(&abs).unwrap();
    std::fs::write(abs.join("data.txt"), b"data").unwrap();
    for name in ["..", ".", "", "../../x", abs.to_str().unwrap()] {
        let o = cnsim(
            &tree.work(),
            &["run", "scenario.toml", "--quiet", "--force", "--set", &format!("name={name:?}")],
        );
        assert_eq!(o.status.code(), Some(EXIT_INPUT), "name {name:?}: {}", stderr(&o));
        assert!(stderr(&o).contains("--set: name: "), "{}", stderr(&o));
        assert!(tree.intact());
        assert_eq!(tree.entries("work"), ["keep.txt", "scenario.toml"], "name {name:?}");
        assert!(abs.join("data.txt").exists());
    }
    assert_eq!(tree.entries(""), ["abs", "sibling.txt", "work"]);
}

/// A result is replaced with --force; a directory cnsim did not write never is.
#[test]
fn force_replaces_only_cnsim_results() {
    let tree = Tree::new("force");
    let o = cnsim(&tree.work(), &["run", "scenario.toml", "--quiet", "--out", "r"]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    assert!(tree.work().join("r/.cnsim-run").is_file());
    let o = cnsim(&tree.work(), &["run", "scenario.toml", "--quiet", "--out", "r"]);
    assert_eq!(o.status.code(), Some(1));
    assert!(stderr(&o).contains("already exists"), "{}", stderr(&o));
    let o = cnsim(&tree.work(), &["run", "scenario.toml", "--quiet", "--out", "r", "--force"]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    std::fs::create_dir_all(tree.work().join("mine")).unwrap();
    std::fs::write(tree.work().join("mine/notes.txt"), b"notes").unwrap();
    let o = cnsim(&tree.work(), &["run", "scenario.toml", "--quiet", "--out", "mine", "--force"]);
    assert_eq!(o.status.code(), Some(1));
    assert!(stderr(&o).contains("is not a cnsim result"), "{}", stderr(&o));
    assert!(tree.work().join("mine/notes.txt").exists());
    assert!(tree.intact());
}

/// Regression: a permission error, a file in the way or a dangling symbolic link was
/// found only after the whole run. Now before it: the run fails at once, with the path.
#[test]
fn unwritable_outputs_fail_before_the_run() {
    let tree = Tree::new("unwritable");
    let long = ["--set", "duration=100s"];
    let mut cases: Vec<(String, &str)> =
        vec![("keep.txt".into(), "is a file"), ("keep.txt/run".into(), "keep.txt")];
    #[cfg(unix)]
    {
        std::os::unix::fs::symlink(tree.0.join("nowhere"), tree.work().join("dangling")).unwrap();
        cases.push(("dangling".into(), "symbolic link"));
    }
    for (out, says) in &cases {
        let t0 = std::time::Instant::now();
        let mut args = vec!["run", "scenario.toml", "--quiet", "--out", out];
        args.extend(long);
        let o = cnsim(&tree.work(), &args);
        assert_eq!(o.status.code(), Some(1), "{out}: {}", stderr(&o));
        assert!(stderr(&o).contains(says), "{out}: {}", stderr(&o));
        assert!(t0.elapsed().as_secs() < 10, "{out}: the 100 s run was simulated first");
    }
    assert!(tree.intact());
}

/// Starts `cnsim run` holding at `phase` (see `CNSIM_HOLD_AT`), and waits until it holds.
fn start_holding(tree: &Tree, phase: &str, out: &str, extra: &[&str]) -> Child {
    let mut args = vec!["run", "scenario.toml", "--quiet", "--out", out];
    args.extend(extra);
    let mut child = Command::new(env!("CARGO_BIN_EXE_cnsim"))
        .args(&args)
        .current_dir(tree.work())
        .env("CNSIM_HOLD_AT", phase)
        .stderr(Stdio::piped())
        .stdout(Stdio::null())
        .spawn()
        .expect("start cnsim");
    let mut lines = BufReader::new(child.stderr.take().unwrap()).lines();
    let said = lines.next().and_then(Result::ok).unwrap_or_default();
    assert_eq!(said, format!("cnsim: holding at {phase}"));
    // Keep draining stderr so that the child never blocks on a full pipe.
    std::thread::spawn(move || for _ in lines {});
    child
}

/// Sends signal `sig` ("-INT", "-TERM", "-HUP", "-KILL") to `child`.
#[cfg(unix)]
fn signal(child: &Child, sig: &str) {
    let number = match sig {
        "-INT" => libc::SIGINT,
        "-TERM" => libc::SIGTERM,
        "-HUP" => libc::SIGHUP,
        "-KILL" => libc::SIGKILL,
        other => panic!("unknown signal {other}"),
    };
    // SAFETY: kill(2) with a valid signal number and the pid of our own child process.
    let rc = unsafe { libc::kill(child.id() as libc::pid_t, number) };
    assert_eq!(rc, 0, "kill {sig} failed");
}

/// Regression: Ctrl-C was polled only in the event loop (a run interrupted while writing
/// finished, printed success and exited 130), and SIGTERM was not handled at all. Now
/// SIGINT, SIGTERM and SIGHUP stop every phase with 128 + the signal number, and nothing
/// is at --out, nor beside it.
#[cfg(unix)]
#[test]
fn signals_in_every_phase_leave_nothing() {
    let tree = Tree::new("signals");
    for (phase, sig, code) in [
        ("build", "-INT", 130),
        ("build", "-TERM", 143),
        ("write", "-INT", 130),
        ("write", "-TERM", 143),
        ("write", "-HUP", 129),
    ] {
        // A long run, so that an interruption at "build" must be honoured by the loop.
        let child = start_holding(&tree, phase, "out", &["--set", "duration=100s"]);
        signal(&child, sig);
        let status = child.wait_with_output().unwrap().status;
        assert_eq!(status.code(), Some(code), "{phase} {sig}");
        assert!(tree.intact());
        assert_eq!(tree.entries("work"), ["keep.txt", "scenario.toml"], "{phase} {sig}");
    }
    // Replacing a previous result: interrupted while writing, the old one stays as it was.
    let o = cnsim(&tree.work(), &["run", "scenario.toml", "--quiet", "--out", "out"]);
    assert_eq!(o.status.code(), Some(0));
    std::fs::write(tree.work().join("out/summary.json"), b"old").unwrap();
    let child = start_holding(&tree, "write", "out", &["--force"]);
    signal(&child, "-TERM");
    assert_eq!(child.wait_with_output().unwrap().status.code(), Some(143));
    assert_eq!(std::fs::read(tree.work().join("out/summary.json")).unwrap(), b"old");
    assert_eq!(tree.entries("work"), ["keep.txt", "out", "scenario.toml"]);
}

/// A parking lot of `routers` routers with one host each: its forwarding tables
/// (routers × hosts entries) make it slow to build and fast to run.
fn parking_lot(routers: u32) -> String {
    format!(
        "name = \"lot\"\nduration = \"1ms\"\n[topology.parking_lot]\nrouters = {routers}\nhosts_per_router = 1\n\
         access_link = {{ rate = \"10Gbps\", delay = \"1us\" }}\ntrunk = {{ rate = \"10Gbps\", delay = \"1us\" }}\n"
    )
}

/// Regression: a signal took effect only once the scenario was built (half a minute
/// for 20 000 hosts). The build asks every few milliseconds of work: a SIGTERM in the
/// middle of building the tables of a 12 000-router parking lot (1.4·10⁸ entries, 3 s
/// to build here) ends the process within a fraction of a second, with 143, leaving
/// nothing.
#[cfg(unix)]
#[test]
fn a_signal_while_building_stops_the_build() {
    let tree = Tree::new("build-signal");
    std::fs::write(tree.work().join("lot.toml"), parking_lot(12_000)).unwrap();
    // The whole build, timed on this machine under its present load: a signal must stop
    // the run well before a build would end (a wall-clock bound alone failed on a loaded
    // machine).
    let t0 = std::time::Instant::now();
    let o = cnsim(&tree.work(), &["validate", "lot.toml"]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let build = t0.elapsed();
    let child = Command::new(env!("CARGO_BIN_EXE_cnsim"))
        .args(["run", "lot.toml", "--quiet", "--out", "out"])
        .current_dir(tree.work())
        .stderr(Stdio::piped())
        .stdout(Stdio::null())
        .spawn()
        .expect("start cnsim");
    std::thread::sleep(std::time::Duration::from_millis(300));
    let t0 = std::time::Instant::now();
    signal(&child, "-TERM");
    let o = child.wait_with_output().unwrap();
    let took = t0.elapsed();
    assert_eq!(o.status.code(), Some(143), "{}", stderr(&o));
    assert!(took < build / 2, "stopped {took:?} after the signal; the whole build takes {build:?}");
    assert!(stderr(&o).contains("interrupted"), "{}", stderr(&o));
    assert!(tree.intact());
    assert_eq!(tree.entries("work"), ["keep.txt", "lot.toml", "scenario.toml"]);
}

/// Regression: building took time quadratic or worse in the network: a search per
/// source for `to = "uniform"` (over 150 s for a star of 100 000 hosts) and forwarding
/// tables written a row apart (18 s for a 10 000-router parking lot). Measured here:
/// 0.6 s and 1.7 s.
#[test]
fn building_large_networks_takes_seconds() {
    let tree = Tree::new("build-time");
    let hosts: Vec<String> = (0..100_000).map(|i| format!("\"h{i}\"")).collect();
    let star = format!(
        "name = \"star\"\nduration = \"1ms\"\n[topology.star]\nhosts = [{}]\nlink = {{ rate = \"10Gbps\", delay = \"1us\" }}\n\
         [[traffic]]\nname = \"u\"\nkind = \"poisson\"\nfrom = \"*\"\nto = \"uniform\"\nrate = \"1Mbps\"\n",
        hosts.join(", ")
    );
    std::fs::write(tree.work().join("star.toml"), star).unwrap();
    std::fs::write(tree.work().join("lot.toml"), parking_lot(10_000)).unwrap();
    for (file, limit) in [("star.toml", 10.0), ("lot.toml", 8.0)] {
        let t0 = std::time::Instant::now();
        let o = cnsim(&tree.work(), &["validate", file]);
        assert_eq!(o.status.code(), Some(0), "{file}: {}", stderr(&o));
        let took = t0.elapsed().as_secs_f64();
        assert!(took < limit, "{file}: {took:.1} s");
    }
}

/// Regression: SIGKILL while writing left `.<out>.tmp-<pid>/` forever. The next cnsim
/// that writes beside it removes it.
#[cfg(target_os = "linux")]
#[test]
fn a_killed_run_is_cleaned_up_by_the_next() {
    let tree = Tree::new("kill");
    let child = start_holding(&tree, "write", "out", &[]);
    signal(&child, "-KILL");
    let _ = child.wait_with_output();
    let left: Vec<String> =
        tree.entries("work").into_iter().filter(|n| n.starts_with(".cnsim-tmp-")).collect();
    assert_eq!(left.len(), 1, "{:?}", tree.entries("work"));
    let o = cnsim(&tree.work(), &["run", "scenario.toml", "--quiet", "--out", "other"]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    assert_eq!(tree.entries("work"), ["keep.txt", "other", "scenario.toml"]);
}

/// Regression: a named pipe as the scenario blocked, `/dev/zero` read until memory ran
/// out. Only regular files are read.
#[cfg(unix)]
#[test]
fn special_files_are_refused_at_once() {
    let tree = Tree::new("special");
    let fifo = tree.work().join("pipe.toml");
    if Command::new("mkfifo").arg(&fifo).status().is_ok_and(|s| s.success()) {
        let o = cnsim(&tree.work(), &["validate", "pipe.toml"]);
        assert_eq!(o.status.code(), Some(EXIT_INPUT));
        assert!(stderr(&o).contains("pipe.toml: is not a regular file"), "{}", stderr(&o));
    }
    let o = cnsim(&tree.work(), &["validate", "/dev/zero"]);
    assert_eq!(o.status.code(), Some(EXIT_INPUT));
    assert!(stderr(&o).contains("/dev/zero: is not a regular file"), "{}", stderr(&o));
}

/// Regression: a 100 KB value made a 100 KB error line and terminal escapes reached the
/// terminal.
#[test]
fn errors_are_short_and_escaped() {
    let tree = Tree::new("escape");
    let long = format!("traffic[0].rate={}", "9".repeat(100_000));
    let o = cnsim(&tree.work(), &["validate", "scenario.toml", "--set", &long]);
    assert_eq!(o.status.code(), Some(EXIT_INPUT));
    assert!(stderr(&o).len() < 600, "{} bytes", stderr(&o).len());
    assert!(stderr(&o).contains('…'), "{}", stderr(&o));
    let o = cnsim(&tree.work(), &["validate", "scenario.toml", "--set", "traffic[0].to=\"\u{1b}[2J\u{7}\""]);
    assert_eq!(o.status.code(), Some(EXIT_INPUT));
    assert!(!stderr(&o).trim_end().contains(|c: char| c.is_control() && c != '\n'), "{:?}", stderr(&o));
    assert!(stderr(&o).contains("\\u{1b}[2J\\u{7}"), "{}", stderr(&o));
}

/// Regression: memory had no overall bound (200 multicast groups sent from "h*" on 2000
/// hosts tried to allocate 8 GiB and aborted; `to = "uniform"` from "*" on 16 000 hosts
/// cost 1 GB per traffic entry). With --max-memory a scenario is refused at validation,
/// at the key that costs the memory; uniform destinations now share one host list.
#[test]
fn memory_is_bounded_with_a_located_error() {
    let tree = Tree::new("memory");
    let hosts: Vec<String> = (0..3000).map(|i| format!("\"h{i}\"")).collect();
    let text = format!(
        r#"
name = "many"
duration = "1ms"
[topology.star]
hosts = [{}]
link = {{ rate = "1Gbps", delay = "1us" }}
[groups]
all = [{}]
[[traffic]]
name = "u"
kind = "poisson"
from = "*"
to = "uniform"
rate = "1Mbps"
[[traffic]]
name = "m"
kind = "poisson"
from = "*"
to = "all"
rate = "1Mbps"
"#,
        hosts.join(", "),
        hosts.join(", ")
    );
    std::fs::write(tree.work().join("big.toml"), text).unwrap();
    // The multicast trees take about 90 MiB (a tree over 3001 nodes per source); the
    // uniform destinations, 3000 sources over 3000 hosts, well under 1 MiB.
    let o = cnsim(&tree.work(), &["validate", "big.toml", "--max-memory", "64MiB"]);
    assert_eq!(o.status.code(), Some(EXIT_INPUT), "{}", stderr(&o));
    let err = stderr(&o);
    assert!(
        err.contains("big.toml: traffic[1].to: multicast trees to \"all\" (3000 sources × 3001 nodes)"),
        "{err}"
    );
    assert!(err.contains("expected at most 64.0 MiB"), "{err}");
    let o = cnsim(&tree.work(), &["validate", "big.toml", "--max-memory", "1GiB"]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let o = cnsim(&tree.work(), &["validate", "big.toml", "--max-memory", "12 frames"]);
    assert_eq!(o.status.code(), Some(EXIT_INPUT));
    assert!(stderr(&o).contains("is not a memory size"), "{}", stderr(&o));
}

/// Peak resident memory of `cnsim args…` run in `dir`, in bytes, with its exit code.
#[cfg(target_os = "linux")]
fn peak_memory(dir: &std::path::Path, args: &[&str]) -> (Option<i32>, u64) {
    #[allow(clippy::zombie_processes, reason = "reaped by wait4 below, which also gives its usage")]
    let child = Command::new(env!("CARGO_BIN_EXE_cnsim"))
        .args(args)
        .current_dir(dir)
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .expect("start cnsim");
    let mut status = 0;
    // SAFETY: an all-zero rusage is a valid value to be filled in.
    let mut usage: libc::rusage = unsafe { std::mem::zeroed() };
    // SAFETY: wait4 on our own child, with valid pointers to the status and the usage.
    let pid = unsafe { libc::wait4(child.id() as libc::pid_t, &mut status, 0, &mut usage) };
    assert_eq!(pid, child.id() as libc::pid_t, "wait4 failed");
    let code = libc::WIFEXITED(status).then(|| libc::WEXITSTATUS(status));
    (code, usage.ru_maxrss as u64 * 1024)
}

/// Regression: the memory estimate left out the outputs (a 10^6-router parking lot
/// estimated at 1.9 GiB peaked at 7.5 GB writing its per-port tables). The estimate of
/// a parking lot of 50 000 routers, read from the refusal, bounds the peak resident
/// memory of its run, writing included (measured: 434 MiB estimated, 386 MiB peak).
#[cfg(target_os = "linux")]
#[test]
fn the_estimate_bounds_the_peak_memory_of_a_run() {
    let tree = Tree::new("peak");
    std::fs::write(
        tree.work().join("lot.toml"),
        parking_lot(50_000).replace("hosts_per_router = 1", "hosts_per_router = 0"),
    )
    .unwrap();
    let o = cnsim(&tree.work(), &["validate", "lot.toml", "--max-memory", "200MiB"]);
    assert_eq!(o.status.code(), Some(EXIT_INPUT), "{}", stderr(&o));
    let err = stderr(&o);
    assert!(
        err.contains("lot.toml: metrics.queues: the queue lengths and utilisation of the 99998 ports"),
        "{err}"
    );
    let total: f64 = err
        .split("this scenario about ")
        .nth(1)
        .and_then(|t| t.split(" MiB in all").next())
        .and_then(|t| t.parse().ok())
        .unwrap_or_else(|| panic!("no total in {err}"));
    let limit = format!("{}MiB", total.ceil() as u64 + 1);
    let (code, peak) =
        peak_memory(&tree.work(), &["run", "lot.toml", "-q", "--out", "out", "--max-memory", &limit]);
    assert_eq!(code, Some(0));
    assert!(
        peak as f64 <= total * (1u64 << 20) as f64,
        "peak {} MiB above the estimate {total} MiB",
        peak >> 20
    );
}

/// Regression: the default limit ignored the address-space limit (`ulimit -v`), so under
/// 4 GiB of address space a scenario needing 6 GiB (multicast trees from 25 000 sources
/// over 25 001 nodes) passed the estimate and aborted allocating. The default now stays
/// within the address space: a located refusal, exit 2.
#[cfg(unix)]
#[test]
fn the_default_limit_respects_the_address_space_limit() {
    let tree = Tree::new("ulimit");
    let hosts: Vec<String> = (0..25_000).map(|i| format!("\"h{i}\"")).collect();
    let text = format!(
        "name = \"trees\"\nduration = \"1ms\"\n[topology.star]\nhosts = [{}]\nlink = {{ rate = \"1Gbps\", delay = \"1us\" }}\n\
         [groups]\nall = [{}]\n[[traffic]]\nname = \"m\"\nkind = \"poisson\"\nfrom = \"*\"\nto = \"all\"\nrate = \"1Mbps\"\n",
        hosts.join(", "),
        hosts.join(", ")
    );
    std::fs::write(tree.work().join("trees.toml"), text).unwrap();
    let o = Command::new("sh")
        .args([
            "-c",
            &format!("ulimit -v 4194304 && exec {} validate trees.toml", env!("CARGO_BIN_EXE_cnsim")),
        ])
        .current_dir(tree.work())
        .output()
        .expect("run sh");
    assert_eq!(o.status.code(), Some(EXIT_INPUT), "{}", stderr(&o));
    let err = stderr(&o);
    assert!(
        err.contains("trees.toml: traffic[0].to: multicast trees to \"all\" (25000 sources × 25001 nodes)"),
        "{err}"
    );
    // At most (4096 − 256) × 3/4 MiB, less on a machine with less memory.
    let limit: f64 = err
        .split("expected at most ")
        .nth(1)
        .and_then(|t| t.split(" MiB").next())
        .and_then(|t| t.parse().ok())
        .unwrap_or_else(|| panic!("no limit in {err}"));
    assert!(limit <= 2880.0, "{err}");
}

/// Frames held at run time are bounded too: a queue of unbounded capacity fed faster
/// than it drains stops the run with a clear error, not an abort.
#[test]
fn frames_held_at_run_time_are_bounded() {
    let tree = Tree::new("frames");
    let text = SMALL.replace("rate = \"500Mbps\"", "rate = \"100Gbps\"\nallow_above_line_rate = true\nframe_size = \"64B\"\nsource_queue = \"1000000000 frames\"\nrate_limit = \"1Gbps\"")
        .replace("duration = \"2ms\"", "duration = \"10s\"");
    std::fs::write(tree.work().join("flood.toml"), text).unwrap();
    let o = cnsim(&tree.work(), &["run", "flood.toml", "--quiet", "--out", "o", "--max-memory", "64MiB"]);
    assert_eq!(o.status.code(), Some(1), "{}", stderr(&o));
    assert!(stderr(&o).contains("frames held at once"), "{}", stderr(&o));
    assert!(tree.intact());
    assert_eq!(tree.entries("work"), ["flood.toml", "keep.txt", "scenario.toml"]);
}

/// Regression: `reproduce` interrupted while writing its report exited 0; `--out .
/// --force` deleted the working directory's contents. Now the report is refused before
/// any run, and an interruption at the commit leaves nothing.
#[cfg(unix)]
#[test]
fn reproduce_is_as_safe_as_run() {
    let tree = Tree::new("reproduce");
    let o = cnsim(&tree.work(), &["reproduce", "mliki2016", "--quick", "-q", "--out", ".", "--force"]);
    assert_eq!(o.status.code(), Some(1), "{}", stderr(&o));
    assert!(tree.intact());
    let mut child = Command::new(env!("CARGO_BIN_EXE_cnsim"))
        .args(["reproduce", "mliki2016", "--quick", "-q", "--out", "report"])
        .current_dir(tree.work())
        .env("CNSIM_HOLD_AT", "write")
        .stderr(Stdio::piped())
        .stdout(Stdio::null())
        .spawn()
        .expect("start cnsim");
    let mut lines = BufReader::new(child.stderr.take().unwrap()).lines();
    assert_eq!(lines.next().and_then(Result::ok).unwrap_or_default(), "cnsim: holding at write");
    signal(&child, "-INT");
    assert_eq!(child.wait().unwrap().code(), Some(130));
    assert!(tree.intact());
    assert_eq!(tree.entries("work"), ["keep.txt", "scenario.toml"]);
}

/// Regression: sweep directories carried the run marker, so `cnsim run … --out SWEEP
/// --force` (or `reproduce`) deleted the whole sweep: every run, its record, its table.
#[test]
fn force_never_replaces_a_sweep() {
    let tree = Tree::new("sweep-force");
    let o = cnsim(
        &tree.work(),
        &["sweep", "star-multicast", "--repeat", "2", "--set", "duration=2ms", "--out", "S", "-q"],
    );
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let before = listing(&tree.work().join("S"));
    let o = cnsim(
        &tree.work(),
        &["run", "star-multicast", "--set", "duration=2ms", "--out", "S", "--force", "-q"],
    );
    assert_eq!(o.status.code(), Some(1), "{}", stderr(&o));
    assert!(stderr(&o).contains("S: is a cnsim sweep directory"), "{}", stderr(&o));
    let o = cnsim(&tree.work(), &["reproduce", "mliki2016", "--quick", "--out", "S", "--force", "-q"]);
    assert_eq!(o.status.code(), Some(1), "{}", stderr(&o));
    assert!(stderr(&o).contains("S: is a cnsim sweep directory"), "{}", stderr(&o));
    assert_eq!(listing(&tree.work().join("S")), before);
    assert!(tree.intact());
}

/// Every file under `dir` with its content, sorted.
fn listing(dir: &std::path::Path) -> Vec<(String, Vec<u8>)> {
    let mut out = Vec::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        for e in std::fs::read_dir(&d).unwrap().flatten() {
            let p = e.path();
            if p.is_dir() {
                stack.push(p);
            } else {
                let name = p.strip_prefix(dir).unwrap().to_string_lossy().into_owned();
                out.push((name, std::fs::read(&p).unwrap()));
            }
        }
    }
    out.sort();
    out
}

/// Nothing cnsim did not write is ever deleted, whatever the flags: a user's file is
/// planted in every kind of directory cnsim writes (a run, a sweep, a run of a sweep,
/// `run --repeat`, a reproduction's report), and every command is pointed at each with
/// `--force` where it takes it. The planted files survive, byte for byte.
#[test]
fn user_files_survive_every_command_with_force() {
    let tree = Tree::new("planted");
    let w = tree.work();
    let quick = ["--set", "duration=1ms", "-q"];
    let make = |args: &[&str]| {
        let mut a = args.to_vec();
        a.extend(quick);
        let o = cnsim(&w, &a);
        assert_eq!(o.status.code(), Some(0), "{args:?}: {}", stderr(&o));
    };
    make(&["run", "scenario.toml", "--out", "run"]);
    make(&["sweep", "scenario.toml", "--grid", "traffic[0].rate=[100,200]Mbps", "--out", "sweep"]);
    make(&["run", "scenario.toml", "--repeat", "2", "--out", "repeat"]);
    // A report directory as reproduce leaves one (its marker and a listed file), made by
    // hand to keep the test quick.
    std::fs::create_dir_all(w.join("report")).unwrap();
    std::fs::write(w.join("report/report.md"), b"# report").unwrap();
    std::fs::write(
        w.join("report/.cnsim-run"),
        format!("cnsim {} report directory\nfiles cnsim wrote here (--force replaces this directory only while it holds nothing else):\nreport.md\n", cnsim::VERSION),
    )
    .unwrap();
    let sweep_run = format!(
        "sweep/runs/{}",
        std::fs::read_dir(w.join("sweep/runs"))
            .unwrap()
            .flatten()
            .next()
            .unwrap()
            .file_name()
            .to_string_lossy()
    );
    let mut planted = Vec::new();
    for dir in ["run", "sweep", "repeat", "report", &sweep_run, "run/plots"] {
        for name in ["notes.txt", "report.html.mine"] {
            let p = w.join(dir).join(name);
            std::fs::write(&p, format!("{dir}/{name}")).unwrap();
            planted.push(p);
        }
    }
    // A file of a name cnsim writes, made by the user in a directory cnsim wrote.
    std::fs::write(w.join("run/report.html"), b"my own report").unwrap();
    planted.push(w.join("run/report.html"));
    let targets = ["run", "sweep", "repeat", "report", sweep_run.as_str(), "run/plots"];
    for target in targets {
        let commands: [Vec<&str>; 5] = [
            vec!["run", "scenario.toml", "--out", target, "--force"],
            vec!["run", "scenario.toml", "--repeat", "2", "--out", target],
            vec!["sweep", "scenario.toml", "--grid", "traffic[0].rate=[100,200]Mbps", "--out", target],
            vec!["reproduce", "mliki2016", "--quick", "--seeds", "1", "--out", target, "--force"],
            vec!["report", target],
        ];
        for mut args in commands {
            if args[0] != "report" {
                args.extend(quick);
            }
            let o = cnsim(&w, &args);
            for p in &planted {
                let expected = if p.ends_with("run/report.html") {
                    b"my own report".to_vec()
                } else {
                    let rel = p.strip_prefix(&w).unwrap().to_string_lossy().into_owned();
                    rel.into_bytes()
                };
                assert_eq!(
                    std::fs::read(p).ok(),
                    Some(expected),
                    "{args:?} (exit {:?}: {}) changed {}",
                    o.status.code(),
                    stderr(&o),
                    p.display()
                );
            }
        }
    }
    assert!(tree.intact());
}
