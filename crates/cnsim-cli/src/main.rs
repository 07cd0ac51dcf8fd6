//! `cnsim`: run, validate, list and benchmark scenarios; reproduce published experiments.

use std::io::IsTerminal;
use std::path::PathBuf;
use std::process::ExitCode;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

use clap::{Parser, Subcommand};
use cnsim::run::outdir::Kind;
use cnsim::run::{RunError, StagedDir};
use cnsim::scenario::{self, bundled};
use cnsim::sim::Progress;
use indicatif::{ProgressBar, ProgressStyle};

/// A packet-level simulator for congestion notification in data-center networks.
#[derive(Parser)]
#[command(name = "cnsim", version, about, long_about = None)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// Run a scenario and write its results into a run directory.
    Run {
        /// Scenario file, or the name of a bundled scenario (see `cnsim list`).
        scenario: String,
        /// Run directory to create [default: runs/<scenario name>].
        #[arg(long)]
        out: Option<PathBuf>,
        /// Override a scenario key, e.g. --set duration=1s --set traffic[0].rate=2Gbps.
        #[arg(long = "set", value_name = "KEY=VALUE")]
        set: Vec<String>,
        /// Replace the run directory if it exists.
        #[arg(long)]
        force: bool,
        /// Also write time series as CSV.
        #[arg(long)]
        csv: bool,
        /// No progress bar or summary line.
        #[arg(long, short)]
        quiet: bool,
        /// Most memory the scenario may need, e.g. 4GiB [default: half the machine's].
        #[arg(long, value_name = "SIZE", value_parser = parse_memory)]
        max_memory: Option<u64>,
        /// Run on N threads, one partition of the network each: the results are the same
        /// for every N, 1 included, and may differ from the default single-threaded
        /// engine's only in the order of simultaneous events [default: that engine].
        /// `auto`: one per core, at most 8, on a fabric; 1 elsewhere.
        #[arg(long, value_name = "N|auto", value_parser = parse_threads)]
        threads: Option<u32>,
        /// Seed of the run (the first seed with --repeat) [default: the scenario's].
        #[arg(long)]
        seed: Option<u64>,
        /// Run K seeds (seed, seed + 1, ...) in parallel, as a sweep: the directory then
        /// holds one run per seed, results.parquet and the mean, std and 95 % CI over seeds.
        #[arg(long, value_name = "K")]
        repeat: Option<u64>,
        /// Runs at once with --repeat [default: number of cores].
        #[arg(long)]
        jobs: Option<usize>,
        /// Also write report.html into the run directory, as `cnsim report DIR` does (a
        /// sweep, and so --repeat, always writes one).
        #[arg(long)]
        report: bool,
    },
    /// Run a scenario over a grid of key values and seeds, resumably, into one results table.
    ///
    /// Each run's directory is named by a hash of its resolved scenario, so running the
    /// same sweep again runs only what is missing (an interrupted sweep resumes) and a
    /// finished sweep runs nothing. The grid may also live in the scenario file, as a
    /// [sweep] table (see docs/sweeps.md).
    Sweep {
        /// Scenario file, or the name of a bundled scenario.
        scenario: String,
        /// An axis crossed with the others: KEY=[v1,v2,...] with an optional unit after
        /// the list, e.g. --grid 'protocols.qcn.cp.qeq=[25,50,75] frames'.
        #[arg(long, value_name = "KEY=[VALUES]")]
        grid: Vec<String>,
        /// An axis varied together with the other --zip axes (equal lengths), crossed with
        /// the --grid axes, e.g. --zip 'traffic[0].rate=[1,2]Gbps' --zip 'traffic[1].rate=[2,1]Gbps'.
        #[arg(long, value_name = "KEY=[VALUES]")]
        zip: Vec<String>,
        /// Seeds per grid point (seed, seed + 1, ...).
        #[arg(long, value_name = "K")]
        repeat: Option<u64>,
        /// First seed [default: the scenario's].
        #[arg(long)]
        seed: Option<u64>,
        /// Override a scenario key in every run.
        #[arg(long = "set", value_name = "KEY=VALUE")]
        set: Vec<String>,
        /// Sweep directory [default: sweeps/<scenario name>].
        #[arg(long)]
        out: Option<PathBuf>,
        /// Runs at once [default: number of cores].
        #[arg(long)]
        jobs: Option<usize>,
        /// Run each run on N threads, one partition of the network each (as `cnsim run
        /// --threads`, `auto` too); give --jobs too, as each run then takes N cores.
        #[arg(long, value_name = "N|auto", value_parser = parse_threads)]
        threads: Option<u32>,
        /// Also write results_summary.parquet/.csv: mean, std and 95 % CI over seeds per point.
        #[arg(long)]
        summarize: bool,
        /// Use runs made by another cnsim version instead of refusing.
        #[arg(long)]
        allow_mixed_versions: bool,
        /// Also write each run's time series as CSV.
        #[arg(long)]
        csv: bool,
        /// Print the planned runs and exit.
        #[arg(long)]
        dry_run: bool,
        /// No progress bar or summary line.
        #[arg(long, short)]
        quiet: bool,
        /// Most memory all runs together may need [default: half the machine's]; with
        /// --dask, each run.
        #[arg(long, value_name = "SIZE", value_parser = parse_memory)]
        max_memory: Option<u64>,
        /// Run each run as a task on this Dask scheduler (e.g. tcp://head-node:8786),
        /// through the Python package (`python -m cnsim sweep`; pip install
        /// ./crates/cnsim-py[dask]). The interpreter is $CNSIM_PYTHON, else python3.
        #[arg(long, value_name = "ADDRESS")]
        dask: Option<String>,
        /// Retries of a failed run on Dask.
        #[arg(long, default_value_t = 2, requires = "dask")]
        retries: u32,
    },
    /// Write report.html (self-contained: figures inline, no network needed) into a run
    /// or sweep directory.
    Report {
        /// A directory written by cnsim run, run --repeat or sweep.
        dir: PathBuf,
    },
    /// Check a scenario without running it.
    Validate {
        /// Scenario file or bundled scenario name.
        scenario: String,
        /// Override a scenario key.
        #[arg(long = "set", value_name = "KEY=VALUE")]
        set: Vec<String>,
        /// Most memory the scenario may need, e.g. 4GiB [default: half the machine's].
        #[arg(long, value_name = "SIZE", value_parser = parse_memory)]
        max_memory: Option<u64>,
    },
    /// List the bundled scenarios and the reproductions.
    List,
    /// Print the reference of every scenario key: default, unit, meaning (docs/scenario-keys.md).
    Keys {
        /// Print the Markdown source (tables as Markdown) instead of text for reading.
        #[arg(long)]
        markdown: bool,
        /// Only the keys whose path contains this, e.g. `cnsim keys qcn.cp`.
        filter: Option<String>,
    },
    /// Print a bundled scenario's file, to copy and edit (cnsim show NAME > mine.toml).
    Show {
        /// Bundled scenario name (see `cnsim list`).
        name: String,
    },
    /// Measure simulator speed on the fixed benchmark scenarios.
    ///
    /// With HTSIM set to the htsim dumbbell driver (peers/htsim's htsim_dumbbell), the
    /// dumbbells are each followed in every round by the driver on the same scenario,
    /// and cnsim's CPU time over htsim's is reported with the ratios.
    Bench {
        /// Print a JSON array instead of a table.
        #[arg(long)]
        json: bool,
        /// Timed runs per scenario (the median is reported).
        #[arg(long, default_value_t = 5)]
        runs: usize,
        /// Only this benchmark scenario; repeat it for several (the ratios between them
        /// are reported).
        #[arg(long)]
        scenario: Vec<String>,
        /// Override a scenario key in every benchmark (e.g. --set duration=1s).
        #[arg(long = "set", value_name = "KEY=VALUE")]
        set: Vec<String>,
        /// Time each case on the partitioned engine on these thread counts
        /// (comma-separated), instead of the sequential engine; with 1 among them, the
        /// speed-up of each other count over it is reported (only cases that partition,
        /// e.g. --scenario fattree-k8-poisson --threads 1,2).
        #[arg(long, value_delimiter = ',', value_parser = clap::value_parser!(u32).range(1..=1024))]
        threads: Vec<u32>,
    },
    /// Run a scenario and report how far a partitioned, window-synchronised parallel run
    /// of it could go: per thread count, the lookahead, events per window and
    /// partition, the critical path, the available parallelism and a predicted
    /// speed-up (docs/parallelism.md). Writes nothing.
    Parallelism {
        /// Scenario file or bundled scenario name.
        scenario: String,
        /// Override a scenario key.
        #[arg(long = "set", value_name = "KEY=VALUE")]
        set: Vec<String>,
        /// Thread counts to model, comma-separated.
        #[arg(long, value_delimiter = ',', default_values_t = [2u32, 4, 8, 16, 24, 64])]
        threads: Vec<u32>,
        /// Print JSON instead of a table.
        #[arg(long)]
        json: bool,
        /// Most memory the scenario may need, e.g. 4GiB [default: half the machine's].
        #[arg(long, value_name = "SIZE", value_parser = parse_memory)]
        max_memory: Option<u64>,
    },
    /// Reproduce a published experiment and write a report.
    Reproduce {
        /// Experiment name (see `cnsim reproduce --list`).
        #[arg(required_unless_present = "list")]
        name: Option<String>,
        /// List the reproductions: name, cells, seeds per cell (full and --quick), runs
        /// (cells × seeds) and the paper.
        #[arg(long)]
        list: bool,
        /// Seeds per cell [default: the reproduction's own, fewer with --quick].
        #[arg(long)]
        seeds: Option<u64>,
        /// Report directory [default: reports/<name>].
        #[arg(long)]
        out: Option<PathBuf>,
        /// Worker threads [default: number of cores].
        #[arg(long)]
        jobs: Option<usize>,
        /// Shorter runs and fewer seeds, for a quick look (the report says so).
        #[arg(long)]
        quick: bool,
        /// Replace the report directory if it exists.
        #[arg(long)]
        force: bool,
        /// No progress bar.
        #[arg(long, short)]
        quiet: bool,
    },
}

/// Exit code for invalid input.
const EXIT_INPUT: u8 = 2;
/// Exit code after Ctrl-C.
const EXIT_INTERRUPTED: u8 = 130;

/// SIGINT (Ctrl-C), SIGTERM and SIGHUP while building, running or writing results: the
/// first one stops the work at the next check (the build every few milliseconds of
/// work, the event loop every 2^16 events, the writers between files, the commit before
/// and after its rename), removes what was
/// half-written and exits with 128 + the signal number; a second one ends the process at
/// once (its temporary directory is removed by the next cnsim that writes beside it).
struct Signals {
    /// Set by the first signal.
    stop: Arc<AtomicBool>,
    /// The number of the first signal received.
    which: Arc<AtomicUsize>,
}

impl Signals {
    /// Installs the handlers. Commands that write nothing (validate, list, bench) do not
    /// call this and keep the default action: a signal ends them at once.
    fn install() -> Self {
        let stop = Arc::new(AtomicBool::new(false));
        let which = Arc::new(AtomicUsize::new(0));
        #[cfg(unix)]
        for sig in [signal_hook::consts::SIGINT, signal_hook::consts::SIGTERM, signal_hook::consts::SIGHUP] {
            // The order matters: the conditional shutdown sees the flag the first signal set.
            let _ = signal_hook::flag::register_conditional_shutdown(sig, 128 + sig, stop.clone());
            let _ = signal_hook::flag::register_usize(sig, which.clone(), sig as usize);
            let _ = signal_hook::flag::register(sig, stop.clone());
        }
        Self { stop, which }
    }

    fn stopped(&self) -> bool {
        self.stop.load(Ordering::SeqCst)
    }

    /// Exit code after a signal: 128 + its number (130 for SIGINT, 143 for SIGTERM).
    fn exit_code(&self) -> ExitCode {
        match self.which.load(Ordering::SeqCst) {
            0 => ExitCode::from(EXIT_INTERRUPTED),
            n => ExitCode::from((128 + n).min(255) as u8),
        }
    }
}

/// A testing aid: with `CNSIM_HOLD_AT=<phase>` in the environment, cnsim says so on
/// stderr at that phase ("build": before the simulation; "write": results written, not
/// yet committed) and waits there (up to 30 s, or
/// until a signal), so that tests can interrupt each phase deterministically.
fn hold(phase: &str, signals: &Signals) {
    if std::env::var("CNSIM_HOLD_AT").is_ok_and(|p| p == phase) {
        eprintln!("cnsim: holding at {phase}");
        let t0 = Instant::now();
        while !signals.stopped() && t0.elapsed() < Duration::from_secs(30) {
            std::thread::sleep(Duration::from_millis(5));
        }
    }
}

// Each command runs out of line: inlined, their locals (scenarios, simulators, sweeps) all
// sat in `main`'s frame, about 75 KB of stack below every command, the argument parser's
// included.
fn main() -> ExitCode {
    let cli = Cli::parse();
    match cli.command {
        Command::Run {
            scenario,
            out,
            mut set,
            force,
            csv,
            quiet,
            max_memory,
            threads,
            seed,
            repeat,
            jobs,
            report,
        } => {
            if let Some(k) = repeat.filter(|&k| k != 1) {
                let args = cnsim::sweep::SweepArgs { repeat: Some(k), seed, ..Default::default() };
                let options = SweepCli {
                    out,
                    jobs,
                    threads,
                    summarize: true,
                    allow_mixed: false,
                    csv,
                    dry_run: false,
                    quiet,
                };
                return cmd_sweep(&scenario, &set, &args, options, max_memory, &Signals::install());
            }
            if let Some(seed) = seed {
                set.push(format!("seed={seed}"));
            }
            let limits = memory_limits(max_memory);
            let run = RunCli { out, force, csv, quiet, report, threads };
            cmd_run(&scenario, run, &set, &limits, &Signals::install())
        }
        Command::Sweep {
            scenario,
            grid,
            zip,
            repeat,
            seed,
            set,
            out,
            jobs,
            threads,
            summarize,
            allow_mixed_versions,
            csv,
            dry_run,
            quiet,
            max_memory,
            dask,
            retries,
        } => {
            if let (Some(_), Some(_)) = (&dask, threads) {
                eprintln!("error: --threads: the Dask workers run each run on one thread; expected --threads without --dask");
                return ExitCode::from(EXIT_INPUT);
            }
            if let Some(address) = dask.filter(|_| !dry_run) {
                let mut argv: Vec<String> = vec![scenario, "--dask".into(), address, "--retries".into()];
                argv.push(retries.to_string());
                for (flag, values) in [("--grid", &grid), ("--zip", &zip), ("--set", &set)] {
                    for v in values {
                        argv.extend([flag.to_string(), v.clone()]);
                    }
                }
                let numbers = [("--repeat", repeat), ("--seed", seed), ("--max-memory", max_memory)];
                for (flag, n) in numbers {
                    if let Some(n) = n {
                        argv.extend([flag.to_string(), n.to_string()]);
                    }
                }
                if let Some(out) = out {
                    argv.extend(["--out".to_string(), out.display().to_string()]);
                }
                for (flag, on) in [
                    ("--summarize", summarize),
                    ("--allow-mixed-versions", allow_mixed_versions),
                    ("--csv", csv),
                    ("--quiet", quiet),
                ] {
                    if on {
                        argv.push(flag.to_string());
                    }
                }
                return sweep_on_dask(&argv);
            }
            let args = cnsim::sweep::SweepArgs { grid, zip, repeat, seed, ..Default::default() };
            let options = SweepCli {
                out,
                jobs,
                threads,
                summarize,
                allow_mixed: allow_mixed_versions,
                csv,
                dry_run,
                quiet,
            };
            cmd_sweep(&scenario, &set, &args, options, max_memory, &Signals::install())
        }
        Command::Report { dir } => match report(&dir) {
            Ok(path) => {
                eprintln!("{}", path.display());
                ExitCode::SUCCESS
            }
            Err(e) => {
                eprintln!("error: {e}");
                ExitCode::from(EXIT_INPUT)
            }
        },
        Command::Validate { scenario, set, max_memory } => {
            cmd_validate(&scenario, &set, &memory_limits(max_memory))
        }
        Command::List => {
            let width = bundled::names().chain(cnsim::repro::names()).map(str::len).max().unwrap_or(0);
            println!("bundled scenarios (cnsim run NAME; cnsim show NAME prints one):");
            for (name, text) in bundled::BUNDLED {
                let desc = scenario::parse(text, name, &[])
                    .map(|s| s.description.split_whitespace().collect::<Vec<_>>().join(" "))
                    .unwrap_or_default();
                print_wrapped(name, &desc, width);
            }
            println!("reproductions (cnsim reproduce NAME):");
            for r in cnsim::repro::REGISTRY {
                print_wrapped(r.name, (r.declare)().title, width);
            }
            ExitCode::SUCCESS
        }
        Command::Keys { markdown, filter } => {
            let page = include_str!("../../../docs/scenario-keys.md");
            if markdown && filter.is_none() {
                print!("{page}");
            } else {
                print!("{}", keys_as_text(page, filter.as_deref(), markdown));
            }
            ExitCode::SUCCESS
        }
        Command::Show { name } => match bundled::get(&name) {
            Some(text) => {
                print!("{text}");
                ExitCode::SUCCESS
            }
            None => {
                let names: Vec<&str> = bundled::names().collect();
                eprintln!(
                    "error: no bundled scenario named \"{}\"; expected one of {}",
                    scenario::error::shown(&name),
                    names.join(", ")
                );
                ExitCode::from(EXIT_INPUT)
            }
        },
        Command::Bench { json, runs, scenario, set, threads } => {
            cmd_bench(json, runs.max(1), scenario, &set, &threads)
        }
        Command::Parallelism { scenario, set, threads, json, max_memory } => {
            cmd_parallelism(&scenario, &set, &threads, json, &memory_limits(max_memory))
        }
        Command::Reproduce { list: true, .. } => {
            println!("{:<14} {:>6} {:>6} {:>6} {:>7}  title", "name", "cells", "seeds", "quick", "runs");
            for r in cnsim::repro::REGISTRY {
                let study = (r.declare)();
                let cells = study.cells().len() as u64;
                println!(
                    "{:<14} {:>6} {:>6} {:>6} {:>7}  {}",
                    r.name,
                    cells,
                    study.seeds.0,
                    study.seeds.1,
                    cells * study.seeds.0,
                    study.title
                );
            }
            ExitCode::SUCCESS
        }
        Command::Reproduce { name, out, jobs, quick, force, quiet, seeds, .. } => {
            let name = name.unwrap_or_default();
            cmd_reproduce(&name, out, jobs, quick, seeds, force, quiet, &Signals::install())
        }
    }
}

/// Parses `--max-memory`: a size in bytes, e.g. "512MiB", "4GiB", "2GB".
fn parse_memory(text: &str) -> Result<u64, String> {
    match text.parse::<cnsim::units::Size>() {
        Ok(cnsim::units::Size::Bytes(b)) if b >= 1 << 20 => Ok(b),
        _ => {
            Err(format!("{text:?} is not a memory size; expected at least 1MiB, e.g. \"512MiB\" or \"4GiB\""))
        }
    }
}

fn memory_limits(max_memory: Option<u64>) -> scenario::Limits {
    max_memory.map_or_else(scenario::Limits::machine_default, |max_memory| scenario::Limits { max_memory })
}

fn fail(e: &RunError) -> ExitCode {
    eprintln!("error: {e}");
    match e {
        RunError::Scenario(_) => ExitCode::from(EXIT_INPUT),
        RunError::Interrupted => ExitCode::from(EXIT_INTERRUPTED),
        _ => ExitCode::FAILURE,
    }
}

/// Like [`fail`], but an interruption exits with the code of the signal that caused it.
fn fail_after(e: &RunError, signals: &Signals) -> ExitCode {
    if matches!(e, RunError::Interrupted) || signals.stopped() {
        eprintln!("error: {}", RunError::Interrupted);
        return signals.exit_code();
    }
    fail(e)
}

/// Prints `  NAME  text`, the text wrapped at 100 columns under itself.
fn print_wrapped(name: &str, text: &str, width: usize) {
    let indent = width + 4;
    let mut line = format!("  {name:<width$}  ");
    let mut fresh = true;
    for word in text.split_whitespace() {
        if !fresh && line.chars().count() + 1 + word.chars().count() > 100 {
            println!("{line}");
            line = " ".repeat(indent);
            fresh = true;
        }
        if !fresh {
            line.push(' ');
        }
        line.push_str(word);
        fresh = false;
    }
    println!("{line}");
}

/// Shows `done` of `total` runs on a bar made at the first call (for sweeps and
/// reproductions: one bar for all their runs).
fn show_runs(bar: &std::sync::OnceLock<ProgressBar>, done: usize, total: usize) {
    let b = bar.get_or_init(|| {
        let b = ProgressBar::new(total as u64);
        b.set_style(
            ProgressStyle::with_template("{bar:40} {pos}/{len} runs [{elapsed_precise}, ETA {eta}]")
                .expect("valid template"),
        );
        b
    });
    b.set_position(done as u64);
}

/// Seconds as h:mm:ss ("–" when unknown).
fn clock(secs: f64) -> String {
    if !secs.is_finite() || secs < 0.0 {
        return "–".to_string();
    }
    let s = secs.round() as u64;
    format!("{}:{:02}:{:02}", s / 3600, s / 60 % 60, s % 60)
}

/// A progress callback that shows a bar on a terminal once a run has taken a second.
/// Seconds between two status lines when stderr is not a terminal (a log, a batch job).
const STATUS_EVERY_S: f64 = 10.0;

fn progress_reporter(quiet: bool, interrupted: Arc<AtomicBool>) -> impl FnMut(&Progress) -> bool {
    let show = !quiet && std::io::stderr().is_terminal();
    // Where no bar can be drawn, a status line every STATUS_EVERY_S seconds, as
    // OMNeT++'s Cmdenv writes them: a long run in a log says how far it is.
    let status = !quiet && !show;
    let mut next_status = STATUS_EVERY_S;
    let t0 = Instant::now();
    let mut bar: Option<ProgressBar> = None;
    move |p: &Progress| {
        if status && p.now < p.end && t0.elapsed().as_secs_f64() >= next_status {
            let elapsed = t0.elapsed().as_secs_f64();
            let done = p.now as f64 / (p.end as f64).max(1.0);
            let eta = if done > 0.0 { elapsed * (1.0 - done) / done } else { f64::NAN };
            eprintln!(
                "status: sim {:.3}/{:.3} s ({:.0} %), {:.1} M events/s, {} elapsed, ETA {}",
                p.now as f64 / 1e12,
                p.end as f64 / 1e12,
                100.0 * done,
                p.events as f64 / elapsed.max(1e-9) / 1e6,
                clock(elapsed),
                clock(eta)
            );
            next_status = elapsed + STATUS_EVERY_S;
        }
        if interrupted.load(Ordering::SeqCst) {
            if let Some(b) = &bar {
                b.abandon();
            }
            return false;
        }
        if show && bar.is_none() && t0.elapsed().as_secs_f64() > 1.0 {
            let b = ProgressBar::new(p.end / 1_000_000);
            b.set_style(ProgressStyle::with_template("{bar:40} {msg}").expect("valid template"));
            bar = Some(b);
        }
        if let Some(b) = &bar {
            b.set_position(p.now / 1_000_000);
            // Elapsed from the start of the run (the bar appears after a second), and the
            // ETA from the average pace so far (the bar's own estimate starts late and
            // runs ~2× too low).
            let elapsed = t0.elapsed().as_secs_f64();
            let eps = p.events as f64 / elapsed.max(1e-9);
            let done = p.now as f64 / (p.end as f64).max(1.0);
            let eta = if done > 0.0 { elapsed * (1.0 - done) / done } else { f64::NAN };
            b.set_message(format!(
                "sim {:.3}/{:.3} s, {:.1} M events/s [{}, ETA {}]",
                p.now as f64 / 1e12,
                p.end as f64 / 1e12,
                eps / 1e6,
                clock(elapsed),
                clock(eta)
            ));
            if p.now >= p.end {
                b.finish_and_clear();
            }
        }
        true
    }
}

#[allow(clippy::too_many_arguments)]
/// Command-line options of a single run.
struct RunCli {
    out: Option<PathBuf>,
    force: bool,
    csv: bool,
    quiet: bool,
    report: bool,
    threads: Option<u32>,
}

#[inline(never)] // see `main`
fn cmd_run(
    path: &str,
    cli: RunCli,
    set: &[String],
    limits: &scenario::Limits,
    signals: &Signals,
) -> ExitCode {
    let RunCli { out, force, csv, quiet, report, threads } = cli;
    let mut s = match scenario::load(path, set) {
        Ok(s) => s,
        Err(e) => return fail(&RunError::Scenario(e)),
    };
    if csv {
        s.metrics.csv = true;
    }
    let dir = match out {
        Some(d) => d,
        None if force => PathBuf::from("runs").join(&s.name),
        None => cnsim::run::outdir::fresh_default(&PathBuf::from("runs").join(&s.name)),
    };
    // The output location is checked (and its temporary directory made) before any work.
    let staged = match StagedDir::create(&dir, force, Kind::Run) {
        Ok(st) => st,
        Err(e) => return fail(&e),
    };
    let interrupted = || signals.stopped();
    hold("build", signals);
    let mut progress = progress_reporter(quiet, signals.stop.clone());
    let done =
        match cnsim::run::simulate_on(&s, &scenario::display_name(path), limits, threads, &mut progress) {
            Ok(d) => d,
            Err(e) => return fail_after(&e, signals),
        };
    // Said even with -q: a setting that did nothing makes the results mean something else.
    for w in scenario::warnings(&s, &done.sim, &scenario::display_name(path)) {
        eprintln!("warning: {w}");
    }
    if let Some(full) = done.sim.recorder().trace.as_deref().and_then(|t| t.full_warning()) {
        eprintln!("warning: {}: {full}", scenario::display_name(path));
    }
    if !quiet && std::io::stderr().is_terminal() && done.wall.as_secs_f64() > 1.0 {
        eprintln!("writing results to {}…", dir.display());
    }
    if let Err(e) = cnsim::run::write_run_files(&s, &done, staged.path(), &interrupted) {
        return fail_after(&e, signals);
    }
    hold("write", signals);
    if let Err(e) = staged.commit(&interrupted) {
        return fail_after(&e, signals);
    }
    if !quiet {
        let t = done.timing();
        let c = &done.sim.counters();
        // Frames a source's own queue refused never entered the network: said apart.
        let at_sources = if c.dropped_at_sources > 0 {
            format!(", {} dropped at their sources", c.dropped_at_sources)
        } else {
            String::new()
        };
        eprintln!(
            "{}: {:.3} s simulated in {:.2} s wall ({:.1} M events/s); {} frames delivered, {} lost in the network{at_sources} -> {}",
            s.name,
            s.duration.0 as f64 / 1e12,
            t.wall_s,
            t.events_per_s / 1e6,
            c.delivered,
            c.dropped - c.dropped_at_sources,
            dir.display()
        );
        match std::fs::read_to_string(dir.join("summary.json")).map(|t| serde_json::from_str(&t)) {
            Ok(Ok(summary)) => print!("{}", cnsim::report::text::run_text(&summary)),
            _ => eprintln!("warning: {}: no summary to show", dir.join("summary.json").display()),
        }
    }
    if report {
        match cnsim::report::html::write_report(&dir) {
            Ok(page) if !quiet => eprintln!("report: {}", page.display()),
            Ok(_) => {}
            Err(e) => return fail(&RunError::Output(e)),
        }
    }
    ExitCode::SUCCESS
}

#[inline(never)] // see `main`
fn cmd_validate(path: &str, set: &[String], limits: &scenario::Limits) -> ExitCode {
    let result = scenario::load(path, set)
        .and_then(|s| scenario::build_with(&s, &scenario::display_name(path), limits).map(|sim| (s, sim)));
    match result {
        Ok((s, sim)) => {
            println!(
                "{}: ok — \"{}\": {} nodes, {} links, {} flows, {} s simulated",
                scenario::error::shown_limited(path, 200),
                s.name,
                sim.net().nodes.len(),
                sim.net().ports.len() / 2,
                sim.flows().len() + sim.workload().len(),
                s.duration.0 as f64 / 1e12
            );
            for w in scenario::warnings(&s, &sim, &scenario::display_name(path)) {
                eprintln!("warning: {w}");
            }
            ExitCode::SUCCESS
        }
        Err(e) => fail(&RunError::Scenario(e)),
    }
}

#[inline(never)] // see `main`
fn cmd_parallelism(
    path: &str,
    set: &[String],
    threads: &[u32],
    json: bool,
    limits: &scenario::Limits,
) -> ExitCode {
    if let Some(&t) = threads.iter().find(|&&t| t == 0 || t > 4096) {
        eprintln!("error: --threads: {t} is not a thread count; expected 1 to 4096, e.g. --threads 2,8,24");
        return ExitCode::from(EXIT_INPUT);
    }
    let mut sim = match scenario::load(path, set)
        .and_then(|s| scenario::build_with(&s, &scenario::display_name(path), limits))
    {
        Ok(sim) => sim,
        Err(e) => return fail(&RunError::Scenario(e)),
    };
    sim.probe_parallelism(threads);
    sim.run_to_end();
    let model = sim.parallelism().expect("the probe was asked for");
    if json {
        match serde_json::to_string_pretty(&model) {
            Ok(text) => println!("{text}"),
            Err(e) => return fail(&RunError::Output(e.to_string())),
        }
        return ExitCode::SUCCESS;
    }
    println!(
        "{:>7} {:>10} {:>12} {:>9} {:>14} {:>13} {:>14} {:>11} {:>10}",
        "threads",
        "partitions",
        "lookahead",
        "windows",
        "events/window",
        "critical",
        "crossing",
        "parallelism",
        "predicted"
    );
    println!(
        "{:>7} {:>10} {:>12} {:>9} {:>14} {:>13} {:>14} {:>11} {:>10}",
        "", "", "", "", "/partition", "path", "frames", "(bound)", "speed-up"
    );
    for r in &model.rows {
        let lookahead = r.lookahead_s.map_or("none".to_string(), |l| format!("{:.3} µs", l * 1e6));
        println!(
            "{:>7} {:>10} {:>12} {:>9} {:>14.1} {:>13} {:>14} {:>11.2} {:>10.2}",
            r.threads,
            r.partitions,
            lookahead,
            r.windows,
            r.events_per_window_per_partition,
            r.critical_path_events,
            r.crossing_frames,
            r.available_parallelism,
            r.predicted_speedup
        );
    }
    println!(
        "{} events; a barrier is taken to cost {} events (predicted = events / (critical path + barriers × that))",
        model.rows.first().map_or(0, |r| r.events),
        model.barrier_events
    );
    ExitCode::SUCCESS
}

/// `--threads`: a count from 1 to 1024, or `auto` (0 to the library).
fn parse_threads(s: &str) -> Result<u32, String> {
    if s == "auto" {
        return Ok(0);
    }
    match s.parse::<u32>() {
        Ok(n) if (1..=1024).contains(&n) => Ok(n),
        _ => Err(format!("\"{s}\" is not a thread count; expected 1 to 1024 or auto")),
    }
}

#[inline(never)] // see `main`
fn cmd_bench(json: bool, runs: usize, only: Vec<String>, set: &[String], threads: &[u32]) -> ExitCode {
    if let Some(unknown) = only.iter().find(|o| !cnsim::bench::CASES.iter().any(|c| c.name == o.as_str())) {
        let names: Vec<_> = cnsim::bench::CASES.iter().map(|c| c.name).collect();
        eprintln!("error: no benchmark named {unknown:?}; expected one of {}", names.join(", "));
        return ExitCode::from(EXIT_INPUT);
    }
    let cases: Vec<_> =
        cnsim::bench::CASES.iter().filter(|c| only.is_empty() || only.iter().any(|o| o == c.name)).collect();
    if !json {
        eprintln!("running {} scenario(s), {runs} interleaved round(s) after a warm-up…", cases.len());
    }
    let engines: Vec<Option<u32>> = threads.iter().map(|&n| Some(n)).collect();
    let suffix = if threads.is_empty() { 0 } else { " on 1024 threads".len() };
    let width = cases.iter().map(|c| c.name.len() + suffix).max().unwrap_or(0).max("scenario".len());
    let mut progress = |p: &cnsim::bench::BenchProgress| {
        if !json {
            eprintln!(
                "  round {}/{}{}: {:<width$} {:.3} s",
                p.round + 1,
                p.rounds,
                if p.warmup { " (warm-up)" } else { "" },
                p.scenario,
                p.wall_s
            );
        }
    };
    // The htsim dumbbell driver to time beside the dumbbells, if HTSIM names it.
    let htsim = std::env::var_os("HTSIM").map(PathBuf::from);
    if htsim.is_some() && !set.is_empty() && !json {
        eprintln!("note: HTSIM is not timed with --set: the driver's scenarios are fixed");
    }
    let report =
        match cnsim::bench::run_cases(&cases, &engines, runs, true, set, htsim.as_deref(), &mut progress) {
            Ok(r) => r,
            Err(e) => {
                eprintln!("error: {e}");
                return ExitCode::from(EXIT_INPUT);
            }
        };
    if json {
        println!("{}", serde_json::to_string_pretty(&report).expect("serializable"));
        return ExitCode::SUCCESS;
    }
    println!(
        "{:<width$} {:>9} {:>14} {:>16} {:>22} {:>9} {:>8}   (median of {runs}; bottleneck min–max)",
        "scenario", "wall s", "events/s", "frame-hops/s", "bottleneck frames/s", "ns/frame", "noise"
    );
    for r in &report.cases {
        // The rounds' spread, (max − min) ÷ median: what a difference must exceed to mean anything.
        let (lo, hi) = r.bottleneck_min_max;
        let noise =
            if r.bottleneck_frames_per_s > 0.0 { 100.0 * (hi - lo) / r.bottleneck_frames_per_s } else { 0.0 };
        println!(
            "{:<width$} {:>9.3} {:>14} {:>16} {:>22} {:>9} {:>7.1}%   ({:.2}–{:.2} M)",
            r.scenario,
            r.wall_s,
            grouped(r.events_per_s),
            grouped(r.frame_hops_per_s),
            grouped(r.bottleneck_frames_per_s),
            grouped(r.ns_per_delivered_frame),
            noise,
            lo / 1e6,
            hi / 1e6
        );
    }
    if !report.ratios.is_empty() {
        println!();
        println!(
            "{:<58} {:>8} {:>17} {:>9}",
            "ratio (median of per-round ratios)", "median", "min–max", "target"
        );
        for r in &report.ratios {
            println!(
                "{:<58} {:>8.3} {:>17} {:>9}",
                r.name,
                r.median,
                format!("{:.3}–{:.3}", r.min, r.max),
                r.target
            );
        }
    }
    ExitCode::SUCCESS
}

#[allow(clippy::too_many_arguments)]
#[inline(never)] // see `main`
fn cmd_reproduce(
    name: &str,
    out: Option<PathBuf>,
    jobs: Option<usize>,
    quick: bool,
    seeds: Option<u64>,
    force: bool,
    quiet: bool,
    signals: &Signals,
) -> ExitCode {
    let Some(repro) = cnsim::repro::find(name) else {
        let names: Vec<&str> = cnsim::repro::names().collect();
        eprintln!(
            "error: no reproduction named \"{}\"; expected one of {}",
            scenario::error::shown(name),
            names.join(", ")
        );
        return ExitCode::from(EXIT_INPUT);
    };
    let dir = out.unwrap_or_else(|| PathBuf::from("reports").join(repro.name));
    let staged = match StagedDir::create(&dir, force, Kind::Report) {
        Ok(st) => st,
        Err(e) => return fail(&e),
    };
    let interrupted = || signals.stopped();
    let jobs = jobs.unwrap_or_else(|| std::thread::available_parallelism().map(|n| n.get()).unwrap_or(1));
    let show = !quiet && std::io::stderr().is_terminal();
    let bar = std::sync::OnceLock::<ProgressBar>::new();
    let progress = |done: usize, total: usize| {
        if show {
            show_runs(&bar, done, total);
        }
    };
    let t0 = Instant::now();
    let options = cnsim::repro::Options { jobs, quick, seeds };
    let outcome = cnsim::repro::run(repro, staged.path(), &options, &progress, &signals.stop);
    if let Some(b) = bar.get() {
        b.finish_and_clear();
    }
    let outcome = match outcome {
        Ok(o) => o,
        Err(e) => {
            if signals.stopped() {
                eprintln!("error: interrupted; no report was written");
                return signals.exit_code();
            }
            eprintln!("error: {e}");
            return ExitCode::FAILURE;
        }
    };
    hold("write", signals);
    if let Err(e) = staged.commit(&interrupted) {
        return fail_after(&e, signals);
    }
    if !quiet {
        eprintln!(
            "{}: {} runs in {:.1} s on {jobs} threads -> {}",
            (repro.declare)().title,
            outcome.runs,
            t0.elapsed().as_secs_f64(),
            dir.join(outcome.report).display()
        );
    }
    ExitCode::SUCCESS
}

/// Runs `python -m cnsim sweep ARGV`: a sweep on Dask goes through the Python package.
/// Ctrl-C reaches the interpreter too (it is in the same process group), which stops
/// the sweep keeping the finished runs; this process waits for it and passes on its
/// exit code.
#[inline(never)] // see `main`
fn sweep_on_dask(argv: &[String]) -> ExitCode {
    // Installed so that Ctrl-C does not end this process before the one it waits for.
    let _wait_for_the_interpreter = Signals::install();
    let python = std::env::var("CNSIM_PYTHON").unwrap_or_else(|_| "python3".to_string());
    let check = std::process::Command::new(&python)
        .args(["-c", "import cnsim._native, distributed"])
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .status();
    if !check.is_ok_and(|s| s.success()) {
        eprintln!(
            "error: --dask: {python} cannot import the cnsim Python package with dask.distributed; \
             expected it installed (pip install './crates/cnsim-py[dask]'), or CNSIM_PYTHON naming \
             an interpreter that has it"
        );
        return ExitCode::from(EXIT_INPUT);
    }
    match std::process::Command::new(&python).args(["-m", "cnsim", "sweep"]).args(argv).status() {
        Ok(status) => ExitCode::from(status.code().map_or(1, |c| c.clamp(0, 255) as u8)),
        Err(e) => {
            eprintln!("error: --dask: cannot start {python}: {e}");
            ExitCode::FAILURE
        }
    }
}

/// Writes `report.html` into a run or sweep directory; a sweep's only while no sweep
/// is writing it (holding its lock).
fn report(dir: &std::path::Path) -> Result<PathBuf, String> {
    let marker = cnsim::run::outdir::Marker::of(dir);
    let _lock = match marker {
        Some(m) if m.kind == Some(Kind::Sweep) => {
            Some(cnsim::sweep::SweepLock::take(dir).map_err(|e| e.to_string())?)
        }
        _ => None,
    };
    cnsim::report::html::write_report(dir)
}

/// Command-line options of a sweep (or of `run --repeat`).
struct SweepCli {
    out: Option<PathBuf>,
    jobs: Option<usize>,
    threads: Option<u32>,
    summarize: bool,
    allow_mixed: bool,
    csv: bool,
    dry_run: bool,
    quiet: bool,
}

#[inline(never)] // see `main`
fn cmd_sweep(
    path: &str,
    set: &[String],
    args: &cnsim::sweep::SweepArgs,
    cli: SweepCli,
    max_memory: Option<u64>,
    signals: &Signals,
) -> ExitCode {
    let mut plan = match cnsim::sweep::plan(path, set, args) {
        Ok(p) => p,
        Err(e) => return fail(&RunError::Scenario(e)),
    };
    let name = plan.runs.first().map(|r| r.scenario.name.clone()).unwrap_or_default();
    let dir = cli.out.unwrap_or_else(|| {
        let parent = if args.grid.is_empty()
            && args.zip.is_empty()
            && plan.grid.cross.is_empty()
            && plan.grid.zip.is_empty()
        {
            "runs"
        } else {
            "sweeps"
        };
        PathBuf::from(parent).join(&name)
    });
    plan.settle_in(&dir);
    if cli.dry_run {
        let keys: Vec<&str> = plan.grid.axes().map(|a| a.key.as_str()).collect();
        println!(
            "{} runs of {}: {}",
            plan.runs.len(),
            plan.file,
            if keys.is_empty() { "seeds only".to_string() } else { keys.join(", ") }
        );
        for r in &plan.runs {
            let values: Vec<String> = r.values.iter().map(cnsim::sweep::grid::shown_value).collect();
            println!("  {}  {}  point {:<4} seed {:<6} {}", r.id, r.dir, r.point, r.seed, values.join("  "));
        }
        return ExitCode::SUCCESS;
    }
    let jobs =
        cli.jobs.unwrap_or_else(|| std::thread::available_parallelism().map(|n| n.get()).unwrap_or(1)).max(1);
    let total = memory_limits(max_memory).max_memory;
    let options = cnsim::sweep::Options {
        jobs,
        allow_mixed_versions: cli.allow_mixed,
        summarize: cli.summarize,
        limits: scenario::Limits { max_memory: (total / jobs as u64).max(1 << 20) },
        csv: cli.csv,
        threads: cli.threads,
    };
    let show = !cli.quiet && std::io::stderr().is_terminal();
    let bar = std::sync::OnceLock::<ProgressBar>::new();
    let progress = |p: cnsim::sweep::SweepProgress| {
        if show {
            show_runs(&bar, p.done, p.to_run);
        }
        if p.done > 0 {
            hold(&format!("sweep:{}", p.done), signals);
        }
    };
    let t0 = Instant::now();
    let outcome = cnsim::sweep::execute(&plan, &dir, &options, &progress, &signals.stop);
    if let Some(b) = bar.get() {
        b.finish_and_clear();
    }
    match outcome {
        Ok(o) => {
            for note in &o.redone {
                eprintln!("note: {note}");
            }
            if !cli.quiet {
                eprintln!(
                    "{name}: {} runs ({} already done, {} run now) in {:.1} s on {jobs} thread(s) -> {}",
                    o.runs,
                    o.already_done,
                    o.ran,
                    t0.elapsed().as_secs_f64(),
                    dir.join("results.parquet").display()
                );
            }
            // The key figures per point where people look: mean ± 95 % CI over seeds.
            if cli.summarize && !cli.quiet {
                match cnsim::report::text::sweep_text(&dir) {
                    Ok(table) => print!("{table}"),
                    Err(e) => eprintln!("warning: the summary table: {e}"),
                }
            }
            ExitCode::SUCCESS
        }
        Err(e) => {
            if signals.stopped() {
                eprintln!(
                    "error: interrupted; the finished runs are kept, run the same command again to resume"
                );
                return signals.exit_code();
            }
            fail(&e)
        }
    }
}

/// The scenario-key reference for reading in a terminal: each table row as the key with
/// its default and unit on one line and its meaning wrapped beneath, backticks dropped.
/// With `filter`, only the rows whose key contains it (and their section headings); with
/// `markdown`, those rows as Markdown.
fn keys_as_text(page: &str, filter: Option<&str>, markdown: bool) -> String {
    let mut out = String::new();
    let mut heading = String::new();
    let plain = |cell: &str| cell.trim().replace('`', "");
    for line in page.lines() {
        let is_row = line.starts_with('|');
        if !is_row {
            if line.starts_with('#') {
                heading = line.to_string();
            }
            if filter.is_none() {
                out.push_str(line);
                out.push('\n');
            }
            continue;
        }
        let cells: Vec<&str> = line.trim_matches('|').split(" | ").collect();
        if cells.len() < 4 || cells[0].trim() == "key" || cells[0].starts_with("---") {
            continue;
        }
        let key = plain(cells[0]);
        if filter.is_some_and(|f| !key.contains(f)) {
            continue;
        }
        if filter.is_some() && !heading.is_empty() {
            out.push_str(&heading);
            out.push_str("\n\n");
            heading.clear();
        }
        if markdown {
            out.push_str(line);
            out.push('\n');
            continue;
        }
        out.push_str(&format!("{key}    default: {}    {}\n", plain(cells[1]), plain(cells[2])));
        let mut row = String::from("    ");
        for word in plain(&cells[3..].join(" | ")).split_whitespace() {
            if row.len() + word.len() > 88 && !row.trim().is_empty() {
                out.push_str(row.trim_end());
                out.push('\n');
                row = String::from("    ");
            }
            row.push_str(word);
            row.push(' ');
        }
        out.push_str(row.trim_end());
        out.push_str("\n\n");
    }
    out
}

/// A whole number with its thousands grouped by commas: 5,803,214.
fn grouped(v: f64) -> String {
    if !v.is_finite() {
        return format!("{v}");
    }
    let digits = format!("{:.0}", v.abs());
    let mut out = String::new();
    for (i, c) in digits.chars().enumerate() {
        if i > 0 && (digits.len() - i) % 3 == 0 {
            out.push(',');
        }
        out.push(c);
    }
    if v < 0.0 && digits != "0" {
        out.insert(0, '-');
    }
    out
}

#[cfg(test)]
mod tests {
    use super::grouped;

    #[test]
    fn thousands_are_grouped() {
        assert_eq!(grouped(5_803_214.4), "5,803,214");
        assert_eq!(grouped(999.0), "999");
        assert_eq!(grouped(1000.0), "1,000");
        assert_eq!(grouped(-1234.0), "-1,234");
        assert_eq!(grouped(0.2), "0");
    }
}
