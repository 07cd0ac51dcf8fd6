//! The command line on bad input: exit code 2, the located error on stderr, and nothing
//! left behind.

use std::path::Path;
use std::process::Command;

use crate::common::{cnsim, stderr, TempDir, EXIT_INPUT};

/// A dumbbell with a misspelt rate unit on its second explicit link.
const BAD_RATE: &str = r#"
name = "bad-rate"
duration = "1ms"

[[topology.nodes]]
name = "a"
kind = "host"

[[topology.nodes]]
name = "sw"
kind = "switch"

[[topology.nodes]]
name = "b"
kind = "host"

[[topology.links]]
from = "a"
to = "sw"
rate = "10Gbps"
delay = "1us"

[[topology.links]]
from = "sw"
to = "b"
rate = "10Gbs"
delay = "1us"
"#;

/// Parses, but cannot be built: the destination is in another component.
const DISCONNECTED: &str = r#"
name = "disconnected"
duration = "1ms"

[[topology.nodes]]
name = "a"
kind = "host"

[[topology.nodes]]
name = "sw1"
kind = "switch"

[[topology.nodes]]
name = "sw2"
kind = "switch"

[[topology.nodes]]
name = "b"
kind = "host"

[[topology.links]]
from = "a"
to = "sw1"
rate = "10Gbps"
delay = "1us"

[[topology.links]]
from = "sw2"
to = "b"
rate = "10Gbps"
delay = "1us"

[[traffic]]
name = "t"
kind = "cbr"
from = "a"
to = "b"
rate = "1Gbps"
"#;

#[test]
fn validate_reports_a_parse_error_with_exit_code_2() {
    let dir = TempDir::new("validate-parse");
    let file = dir.write("bad-rate.toml", BAD_RATE);
    let file = file.to_str().expect("utf-8 path");
    let o = cnsim(dir.path(), &["validate", file]);
    assert_eq!(o.status.code(), Some(EXIT_INPUT), "stderr: {}", stderr(&o));
    let expected =
        format!("error: {file}: topology.links[1].rate: \"10Gbs\" is not a rate, expected e.g. \"10Gbps\"");
    assert!(stderr(&o).contains(&expected), "stderr: {}", stderr(&o));
    assert!(o.stdout.is_empty(), "stdout: {}", String::from_utf8_lossy(&o.stdout));
}

#[test]
fn validate_reports_a_build_error_with_exit_code_2() {
    let dir = TempDir::new("validate-build");
    dir.write("disconnected.toml", DISCONNECTED);
    let o = cnsim(dir.path(), &["validate", "disconnected.toml"]);
    assert_eq!(o.status.code(), Some(EXIT_INPUT), "stderr: {}", stderr(&o));
    let err = stderr(&o);
    assert!(
        err.contains("error: disconnected.toml: traffic[0].to: \"b\" is not reachable from \"a\""),
        "stderr: {err}"
    );
    assert!(err.contains("disconnected"), "stderr: {err}");
}

#[test]
fn validate_reports_a_bad_override_with_exit_code_2() {
    let dir = TempDir::new("validate-set");
    let o = cnsim(dir.path(), &["validate", "dumbbell-cbr-64", "--set", "traffic[5].rate=1Gbps"]);
    assert_eq!(o.status.code(), Some(EXIT_INPUT), "stderr: {}", stderr(&o));
    assert!(
        stderr(&o)
            .contains("error: --set: traffic[5].rate: traffic[5].rate=1Gbps: index [5] is out of range"),
        "stderr: {}",
        stderr(&o)
    );
}

/// With HTSIM naming a driver, each dumbbell with an htsim twin is followed by a run of
/// the driver and the CPU ratio is reported (here a stand-in driver that burns a little
/// CPU); a driver that fails stops the bench with its status; with --set the driver is
/// not run, and the bench says so.
#[test]
fn bench_times_the_htsim_driver_beside_the_dumbbells() {
    use std::os::unix::fs::PermissionsExt;
    let dir = TempDir::new("bench-htsim");
    let script = |name: &str, body: &str| {
        let path = dir.path().join(name);
        std::fs::write(&path, format!("#!/bin/sh\n{body}\n")).unwrap();
        std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o755)).unwrap();
        path.to_str().unwrap().to_string()
    };
    let busy = script("busy.sh", "i=0; while [ $i -lt 20000 ]; do i=$((i+1)); done");
    let failing = script("failing.sh", "exit 3");
    let bench = |driver: &str, extra: &[&str]| {
        let mut args = vec!["bench", "--runs", "1", "--scenario", "dumbbell-cbr-4096"];
        args.extend_from_slice(extra);
        Command::new(env!("CARGO_BIN_EXE_cnsim"))
            .args(&args)
            .env("HTSIM", driver)
            .current_dir(dir.path())
            .output()
            .unwrap()
    };
    let o = bench(&busy, &[]);
    assert_eq!(o.status.code(), Some(0), "stderr: {}", stderr(&o));
    let out = String::from_utf8_lossy(&o.stdout);
    let line = out
        .lines()
        .find(|l| l.starts_with("cnsim vs htsim, CPU s, dumbbell-cbr-4096"))
        .unwrap_or_else(|| panic!("{out}"));
    let name_len = "cnsim vs htsim, CPU s, dumbbell-cbr-4096".len();
    let median: f64 = line[name_len..].split_whitespace().next().unwrap().parse().unwrap();
    assert!(median.is_finite() && median > 0.0, "{line}");
    let o = bench(&failing, &[]);
    assert_ne!(o.status.code(), Some(0));
    assert!(stderr(&o).contains("ended with"), "stderr: {}", stderr(&o));
    let o = bench(&failing, &["--set", "duration=1ms"]);
    assert_eq!(o.status.code(), Some(0), "stderr: {}", stderr(&o));
    assert!(stderr(&o).contains("HTSIM is not timed with --set"), "stderr: {}", stderr(&o));
    assert!(!String::from_utf8_lossy(&o.stdout).contains("htsim"));
}

/// `parallelism` prints the model of each thread count asked for (as a table, or as
/// JSON), and refuses a thread count of 0 before running anything.
#[test]
fn parallelism_models_the_thread_counts_asked_for() {
    let dir = TempDir::new("parallelism");
    let run = ["parallelism", "fattree-websearch", "--set", "duration=1ms", "--threads", "1,2,8"];
    let o = cnsim(dir.path(), &run);
    assert_eq!(o.status.code(), Some(0), "stderr: {}", stderr(&o));
    let out = String::from_utf8_lossy(&o.stdout);
    assert!(out.contains("lookahead") && out.contains("1.000 µs"), "stdout: {out}");
    let o = cnsim(dir.path(), &[&run[..], &["--json"]].concat());
    assert_eq!(o.status.code(), Some(0), "stderr: {}", stderr(&o));
    let model: serde_json::Value = serde_json::from_slice(&o.stdout).expect("JSON");
    let rows = model["rows"].as_array().expect("rows");
    assert_eq!(rows.iter().map(|r| r["threads"].as_u64().unwrap()).collect::<Vec<_>>(), [1, 2, 8]);
    assert_eq!(rows[2]["partitions"].as_u64(), Some(8));
    let o = cnsim(dir.path(), &["parallelism", "fattree-websearch", "--threads", "0"]);
    assert_eq!(o.status.code(), Some(EXIT_INPUT), "stderr: {}", stderr(&o));
    assert!(stderr(&o).contains("--threads: 0 is not a thread count"), "stderr: {}", stderr(&o));
}

#[test]
fn validate_accepts_a_bundled_scenario() {
    let dir = TempDir::new("validate-ok");
    let o = cnsim(dir.path(), &["validate", "dumbbell-cbr-64"]);
    assert_eq!(o.status.code(), Some(0), "stderr: {}", stderr(&o));
    let out = String::from_utf8_lossy(&o.stdout);
    assert!(out.contains("dumbbell-cbr-64: ok"), "stdout: {out}");
}

/// `bench --scenario` repeats: two short cases run side by side and their ratio is
/// reported; an unknown name is refused before anything runs.
#[test]
fn bench_runs_the_cases_it_is_given_and_their_ratio() {
    let dir = TempDir::new("bench-two");
    let args = [
        "bench",
        "--runs",
        "1",
        "--scenario",
        "dumbbell-cbr-64",
        "--scenario",
        "dumbbell-qcn-64",
        "--set",
        "duration=2ms",
    ];
    let o = cnsim(dir.path(), &args);
    assert_eq!(o.status.code(), Some(0), "stderr: {}", stderr(&o));
    let out = String::from_utf8_lossy(&o.stdout);
    assert!(out.contains("dumbbell-cbr-64") && out.contains("dumbbell-qcn-64"), "stdout: {out}");
    assert!(out.contains("QCN vs CBR, bottleneck frames/s"), "stdout: {out}");
    let o = cnsim(dir.path(), &["bench", "--scenario", "dumbbell-cbr-64", "--scenario", "no-such-case"]);
    assert_eq!(o.status.code(), Some(EXIT_INPUT), "stderr: {}", stderr(&o));
    assert!(stderr(&o).contains("no benchmark named \"no-such-case\""), "stderr: {}", stderr(&o));
}

/// The profile-guided build (`scripts/build-pgo.sh`) trains on every benchmark case and
/// names no case that does not exist, so the build follows the benchmark set as it
/// changes.
#[test]
fn the_profile_guided_build_trains_on_every_benchmark_case() {
    let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../scripts/build-pgo.sh");
    let text = std::fs::read_to_string(&script).expect("read scripts/build-pgo.sh");
    let words: Vec<&str> = text.split_whitespace().collect();
    let trained: Vec<&str> = words.windows(2).filter(|w| w[0] == "--scenario").map(|w| w[1]).collect();
    let cases: Vec<&str> = cnsim::bench::CASES.iter().map(|c| c.name).collect();
    for name in &trained {
        assert!(cases.contains(name), "the script trains on {name}, which is no benchmark case");
    }
    for name in &cases {
        assert!(trained.contains(name), "the script does not train on the benchmark case {name}");
    }
}

/// The link order (`scripts/link-order.py`) is made from runs of every benchmark case, so
/// that each case's code is among the functions linked together.
#[test]
fn the_link_order_runs_every_benchmark_case() {
    let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../scripts/link-order.py");
    let text = std::fs::read_to_string(&script).expect("read scripts/link-order.py");
    for case in cnsim::bench::CASES {
        let quoted = format!("\"{}\"", case.name);
        assert!(text.contains(&quoted), "the link order does not run the benchmark case {}", case.name);
    }
}

/// `run --threads` writes the same files on 1, 2 and `auto` threads; `bench --threads 1,2`
/// times both and reports the speed-up; a thread count of 0 and a scenario that does
/// not partition are refused.
#[test]
fn threads_give_the_same_files_and_bench_reports_their_speed_up() {
    let dir = TempDir::new("threads");
    let short = ["--set", "duration=1ms", "--set", "metrics.plots=false"];
    for n in ["1", "2", "auto"] {
        let mut args = vec!["run", "fattree-k8-poisson", "--quiet", "--threads", n, "--out", n];
        args.extend(short);
        let o = cnsim(dir.path(), &args);
        assert_eq!(o.status.code(), Some(0), "stderr: {}", stderr(&o));
    }
    let read = |n: &str| std::fs::read(dir.path().join(n).join("summary.json")).expect("summary.json");
    assert_eq!(read("1"), read("2"));
    assert_eq!(read("1"), read("auto"));
    let mut args = vec!["bench", "--runs", "1", "--scenario", "fattree-k8-poisson", "--threads", "1,2"];
    args.extend(short);
    let o = cnsim(dir.path(), &args);
    assert_eq!(o.status.code(), Some(0), "stderr: {}", stderr(&o));
    let out = String::from_utf8_lossy(&o.stdout);
    assert!(out.contains("fattree-k8-poisson on 2 threads"), "stdout: {out}");
    assert!(out.contains("fattree-k8-poisson: speed-up on 2 threads over 1"), "stdout: {out}");
    let o = cnsim(dir.path(), &["run", "fattree-k8-poisson", "--threads", "0"]);
    assert_eq!(o.status.code(), Some(2), "stderr: {}", stderr(&o));
    let o = cnsim(dir.path(), &["run", "devkota2010-incast", "--quiet", "--threads", "2", "--out", "x"]);
    assert_eq!(o.status.code(), Some(EXIT_INPUT), "stderr: {}", stderr(&o));
    assert!(stderr(&o).contains("--threads: 2: an incast application"), "stderr: {}", stderr(&o));
    assert!(!dir.path().join("x").exists(), "a refused run leaves no directory");
}

#[test]
fn validate_names_a_missing_file() {
    let dir = TempDir::new("validate-missing");
    let o = cnsim(dir.path(), &["validate", "no-such-scenario.toml"]);
    assert_eq!(o.status.code(), Some(EXIT_INPUT), "stderr: {}", stderr(&o));
    assert!(
        stderr(&o).contains("error: no-such-scenario.toml: no such file or bundled scenario"),
        "stderr: {}",
        stderr(&o)
    );
}

#[test]
fn run_on_a_file_that_does_not_parse_leaves_no_run_directory() {
    let dir = TempDir::new("run-parse");
    dir.write("bad-rate.toml", BAD_RATE);
    let out = dir.path().join("out");
    let o = cnsim(dir.path(), &["run", "bad-rate.toml", "--quiet", "--out", out.to_str().expect("utf-8")]);
    assert_eq!(o.status.code(), Some(EXIT_INPUT), "stderr: {}", stderr(&o));
    assert!(stderr(&o).contains("bad-rate.toml: topology.links[1].rate"));
    assert!(!out.exists(), "{} was created", out.display());
    assert_eq!(dir.entries(), ["bad-rate.toml"]);
}

#[test]
fn run_on_a_file_that_does_not_build_leaves_no_run_directory() {
    let dir = TempDir::new("run-build");
    dir.write("disconnected.toml", DISCONNECTED);
    // The default run directory, runs/disconnected, is relative to the working directory.
    let o = cnsim(dir.path(), &["run", "disconnected.toml", "--quiet"]);
    assert_eq!(o.status.code(), Some(EXIT_INPUT), "stderr: {}", stderr(&o));
    assert!(stderr(&o).contains("disconnected.toml: traffic[0].to"));
    assert!(!dir.path().join("runs").exists(), "runs/ was created");
    assert_eq!(dir.entries(), ["disconnected.toml"]);
}

#[test]
fn show_prints_a_bundled_scenario_that_validates_as_a_file() {
    let dir = TempDir::new("show");
    let o = cnsim(dir.path(), &["show", "dumbbell-qcn-64"]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let text = String::from_utf8(o.stdout).expect("utf-8");
    assert!(text.contains("[protocols.qcn]"), "{text}");
    dir.write("copy.toml", &text);
    let o = cnsim(dir.path(), &["validate", "copy.toml"]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let o = cnsim(dir.path(), &["show", "no-such"]);
    assert_eq!(o.status.code(), Some(2));
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(err.contains("no bundled scenario named \"no-such\"; expected one of dumbbell-cbr-64"), "{err}");
}

/// A setting that does nothing is said by `validate` and by `run` (even with -q), and
/// kept in summary.json; the exit code stays 0.
#[test]
fn settings_without_effect_are_warned_about() {
    let dir = TempDir::new("warn");
    let text = "name = \"w\"\nduration = \"1ms\"\n[topology.dumbbell]\nsenders = 2\n\
                sender_link = { rate = \"10Gbps\", delay = \"1us\" }\nbottleneck = { rate = \"10Gbps\", delay = \"1us\" }\n\
                receiver_link = { rate = \"10Gbps\", delay = \"1us\" }\n[[traffic]]\nname = \"a\"\nkind = \"cbr\"\n\
                from = \"s1\"\nto = \"d1\"\nrate = \"1Gbps\"\npriority = 7\n";
    dir.write("w.toml", text);
    let o = cnsim(dir.path(), &["validate", "w.toml"]);
    assert_eq!(o.status.code(), Some(0));
    let warning = "warning: w.toml: traffic[0].priority: 7 has no effect";
    assert!(stderr(&o).contains(warning), "{}", stderr(&o));
    let o = cnsim(dir.path(), &["run", "w.toml", "--out", "r", "-q"]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    assert!(stderr(&o).contains(warning), "{}", stderr(&o));
    let summary = std::fs::read_to_string(dir.path().join("r/summary.json")).unwrap();
    assert!(summary.contains("\"warnings\"") && summary.contains("traffic[0].priority: 7 has no effect"));
}

/// `cnsim keys` is text to read (no Markdown table rows); a filter keeps the matching
/// keys; `--markdown` gives the page as written.
#[test]
fn keys_read_as_text_and_filter() {
    let dir = TempDir::new("keys");
    let out = |args: &[&str]| String::from_utf8(cnsim(dir.path(), args).stdout).unwrap();
    let text = out(&["keys"]);
    assert!(!text.lines().any(|l| l.starts_with('|')), "no table rows");
    assert!(text.contains("duration    default: required    time\n    Simulated time to run (positive)."));
    let one = out(&["keys", "traffic[].rate"]);
    assert!(one.contains("traffic[].rate    default:") && !one.contains("duration    default"), "{one}");
    let md = out(&["keys", "--markdown"]);
    assert_eq!(md, include_str!("../../../docs/scenario-keys.md"));
}

/// `run` prints its key figures, `sweep --summarize` a row per point with mean ± CI,
/// and `run --report` writes report.html beside the results.
#[test]
fn runs_and_sweeps_print_their_key_figures() {
    let dir = TempDir::new("figures");
    let stdout = |o: &std::process::Output| String::from_utf8_lossy(&o.stdout).into_owned();
    let o = cnsim(dir.path(), &["run", "star-multicast", "--set", "duration=2ms", "--out", "r", "--report"]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let text = stdout(&o);
    assert!(text.contains("  throughput (Mbit/s)") && text.contains("  fairness vs max-min"), "{text}");
    assert!(dir.path().join("r/report.html").is_file());
    let o = cnsim(
        dir.path(),
        &[
            "sweep",
            "star-multicast",
            "--set",
            "duration=2ms",
            "--grid",
            "seed=[1,2]",
            "--repeat",
            "2",
            "--summarize",
            "--out",
            "s",
        ],
    );
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let table = stdout(&o);
    let lines: Vec<&str> = table.lines().collect();
    assert!(lines[0].starts_with("seed  ") && lines[0].contains("throughput (Mbit/s)"), "{table}");
    assert!(lines[1].starts_with("1 ") && lines[2].starts_with("2 ") && lines[1].contains(" ± "), "{table}");
    let quiet = cnsim(dir.path(), &["run", "star-multicast", "--set", "duration=2ms", "--out", "q", "-q"]);
    assert!(quiet.stdout.is_empty(), "-q prints nothing");
}

/// A workload run writes every flow's completion time (fct.csv, fct.parquet), the
/// slowdown summary, and the slowdown-by-size figure; its flows stay out of the summary's
/// flow list.
#[test]
fn a_workload_run_writes_its_completion_times() {
    let d = std::env::temp_dir().join(format!("cnsim-fct-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(&d).unwrap();
    let o = cnsim(
        &d,
        &[
            "run",
            "fattree-websearch",
            "--set",
            "duration=4ms",
            "--set",
            "traffic[0].stop=2ms",
            "--out",
            "r",
            "-q",
        ],
    );
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let csv = std::fs::read_to_string(d.join("r/fct.csv")).unwrap();
    let mut lines = csv.lines();
    assert_eq!(lines.next(), Some("flow,src,dst,bytes,start_s,fct_s,ideal_fct_s,slowdown"));
    let rows = lines.count();
    let s: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(d.join("r/summary.json")).unwrap()).unwrap();
    assert_eq!(s["fct"]["flows"].as_u64(), Some(rows as u64));
    assert!(rows > 10, "{rows}");
    assert_eq!(s["flows"].as_array().map(Vec::len), Some(0));
    assert!(std::fs::metadata(d.join("r/fct.parquet")).unwrap().len() > 0);
    let svg = std::fs::read_to_string(d.join("r/plots/fct_slowdown.svg")).unwrap();
    assert!(svg.contains("slowdown") && svg.contains("p99"));
    std::fs::remove_dir_all(&d).unwrap();
}

/// The binary defines the C library's mathematical functions itself (the feature `c-math`):
/// it names no shared libm among the libraries it needs, so every machine draws the same
/// figures and no libm is loaded.
#[cfg(all(target_os = "linux", target_env = "gnu"))]
#[test]
fn the_binary_needs_no_shared_libm() {
    let (_, needed) = elf_loading(Path::new(env!("CARGO_BIN_EXE_cnsim")));
    assert!(!needed.iter().any(|n| n.starts_with("libm.so")), "the binary needs libm: {needed:?}");
}

/// The mathematical functions the binary calls are its own (`c_math.rs`), linked either
/// way: each C name of them in its symbol table is a function defined in the binary,
/// neither left to a shared libm (undefined) nor one of a static libm's functions whose
/// version the loader picks by processor (`STT_GNU_IFUNC`). `cos`, which the plots call,
/// must be there.
#[cfg(all(target_os = "linux", target_env = "gnu"))]
#[test]
fn the_binarys_math_functions_are_its_own() {
    const MATH: [&str; 10] =
        ["cos", "sin", "atan2", "log10", "pow", "exp", "log", "hypot", "sincos", "sincosf"];
    let symbols = elf_symbols(Path::new(env!("CARGO_BIN_EXE_cnsim")));
    assert!(symbols.iter().any(|s| s.0 == "cos"), "no cos in the symbol table: the reader is wrong");
    for (name, kind, defined) in symbols.iter().filter(|s| MATH.contains(&s.0.as_str())) {
        const STT_FUNC: u8 = 2;
        assert!(
            *defined && *kind == STT_FUNC,
            "{name}: type {kind}, defined {defined}: not the program's own"
        );
    }
}

/// A 64-bit little-endian ELF file's bytes, read by the two readers below.
#[cfg(all(target_os = "linux", target_env = "gnu"))]
struct Elf(Vec<u8>);

#[cfg(all(target_os = "linux", target_env = "gnu"))]
impl Elf {
    fn read(path: &Path) -> Elf {
        let b = std::fs::read(path).expect("read the binary");
        assert_eq!(&b[..4], b"\x7fELF", "not an ELF file");
        assert_eq!((b[4], b[5]), (2, 1), "not 64-bit little-endian");
        Elf(b)
    }

    fn u16_at(&self, o: usize) -> usize {
        u16::from_le_bytes(self.0[o..o + 2].try_into().unwrap()) as usize
    }

    fn u32_at(&self, o: usize) -> usize {
        u32::from_le_bytes(self.0[o..o + 4].try_into().unwrap()) as usize
    }

    fn u64_at(&self, o: usize) -> usize {
        u64::from_le_bytes(self.0[o..o + 8].try_into().unwrap()) as usize
    }

    /// The NUL-terminated string at `o`.
    fn string_at(&self, o: usize) -> String {
        let s = &self.0[o..];
        String::from_utf8_lossy(&s[..s.iter().position(|&c| c == 0).unwrap()]).into_owned()
    }
}

/// The name (without a version), type (`STT_*`) and whether it is defined, of each entry
/// of a 64-bit little-endian ELF file's symbol table (`.symtab`).
#[cfg(all(target_os = "linux", target_env = "gnu"))]
fn elf_symbols(path: &Path) -> Vec<(String, u8, bool)> {
    let elf = Elf::read(path);
    let (shoff, shentsize, shnum) = (elf.u64_at(0x28), elf.u16_at(0x3a), elf.u16_at(0x3c));
    // (type, file offset, size, linked section) of each section header.
    let section = |i: usize| {
        let h = shoff + i * shentsize;
        (elf.u32_at(h + 4), elf.u64_at(h + 24), elf.u64_at(h + 32), elf.u32_at(h + 40))
    };
    const SHT_SYMTAB: usize = 2;
    let Some((_, offset, size, link)) = (0..shnum).map(section).find(|s| s.0 == SHT_SYMTAB) else {
        return Vec::new();
    };
    let strings = section(link).1;
    (0..size / 24)
        .map(|i| {
            let entry = offset + 24 * i;
            let name = elf.string_at(strings + elf.u32_at(entry));
            // A versioned name (`cos@GLIBC_2.2.5`) without its version.
            let name = name.split('@').next().unwrap_or_default().to_string();
            let defined = elf.u16_at(entry + 6) != 0;
            (name, elf.0[entry + 4] & 0xf, defined)
        })
        .collect()
}

/// Where the build found glibc's static archives (`crates/cnsim-cli/build.rs` says so in
/// `CNSIM_LINKED`), the binary loads no shared library: it names no loader and needs no
/// library. Otherwise it needs the shared C library, which the reader must find.
#[cfg(all(target_os = "linux", target_env = "gnu"))]
#[test]
fn the_binary_is_linked_as_the_build_says() {
    let (interpreter, needed) = elf_loading(Path::new(env!("CARGO_BIN_EXE_cnsim")));
    if env!("CNSIM_LINKED") == "static" {
        assert!(
            !interpreter && needed.is_empty(),
            "linked dynamically: a loader {interpreter}, needs {needed:?}"
        );
    } else {
        assert!(interpreter, "no loader named");
        assert!(
            needed.iter().any(|n| n.starts_with("libc.so")),
            "no libc among {needed:?}: the reader is wrong"
        );
    }
}

/// Whether a 64-bit little-endian ELF file names a loader (a `PT_INTERP` header), and the
/// `DT_NEEDED` names of its dynamic section.
#[cfg(all(target_os = "linux", target_env = "gnu"))]
fn elf_loading(path: &Path) -> (bool, Vec<String>) {
    let elf = Elf::read(path);
    let (phoff, phentsize, phnum) = (elf.u64_at(0x20), elf.u16_at(0x36), elf.u16_at(0x38));
    // (type, file offset, virtual address, file size) of each program header.
    let headers: Vec<(usize, usize, usize, usize)> = (0..phnum)
        .map(|i| {
            let h = phoff + i * phentsize;
            (elf.u32_at(h), elf.u64_at(h + 8), elf.u64_at(h + 16), elf.u64_at(h + 32))
        })
        .collect();
    const PT_LOAD: usize = 1;
    const PT_DYNAMIC: usize = 2;
    const PT_INTERP: usize = 3;
    let interpreter = headers.iter().any(|h| h.0 == PT_INTERP);
    let to_offset = |vaddr: usize| {
        headers
            .iter()
            .find(|&&(t, _, va, size)| t == PT_LOAD && (va..va + size).contains(&vaddr))
            .map(|&(_, off, va, _)| off + (vaddr - va))
            .expect("an address in a loaded segment")
    };
    let Some(&(_, dynamic, _, size)) = headers.iter().find(|h| h.0 == PT_DYNAMIC) else {
        return (interpreter, Vec::new());
    };
    let entries: Vec<(usize, usize)> =
        (0..size / 16).map(|i| (elf.u64_at(dynamic + 16 * i), elf.u64_at(dynamic + 16 * i + 8))).collect();
    const DT_NEEDED: usize = 1;
    const DT_STRTAB: usize = 5;
    let strtab = to_offset(entries.iter().find(|e| e.0 == DT_STRTAB).expect("a string table").1);
    let needed = entries.iter().filter(|e| e.0 == DT_NEEDED).map(|e| elf.string_at(strtab + e.1)).collect();
    (interpreter, needed)
}
