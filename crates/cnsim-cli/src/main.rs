//! `cnsim`: run, validate, list and benchmark scenarios; reproduce published experiments.

use std::io::IsTerminal;
use std::path::PathBuf;
use std::process::ExitCode;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::Instant;

use clap::{Parser, Subcommand};
use cnsim::run::RunError;
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
    },
    /// Check a scenario without running it.
    Validate {
        /// Scenario file or bundled scenario name.
        scenario: String,
        /// Override a scenario key.
        #[arg(long = "set", value_name = "KEY=VALUE")]
        set: Vec<String>,
    },
    /// List the bundled scenarios.
    List,
    /// Measure simulator speed on the fixed benchmark scenarios.
    Bench {
        /// Print a JSON array instead of a table.
        #[arg(long)]
        json: bool,
        /// Timed runs per scenario (the median is reported).
        #[arg(long, default_value_t = 5)]
        runs: usize,
        /// Only this benchmark scenario.
        #[arg(long)]
        scenario: Option<String>,
        /// Override a scenario key in every benchmark (e.g. --set duration=1s).
        #[arg(long = "set", value_name = "KEY=VALUE")]
        set: Vec<String>,
    },
    /// Reproduce a published experiment and write a report.
    Reproduce {
        /// Experiment name (mliki2016).
        name: String,
        /// Report directory [default: reports/<name>].
        #[arg(long)]
        out: Option<PathBuf>,
        /// Worker threads [default: number of cores].
        #[arg(long)]
        jobs: Option<usize>,
        /// Shorter runs, for a quick look (the report says so).
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

fn main() -> ExitCode {
    let cli = Cli::parse();
    let interrupted = Arc::new(AtomicBool::new(false));
    {
        let flag = interrupted.clone();
        let _ = ctrlc::set_handler(move || flag.store(true, Ordering::SeqCst));
    }
    match cli.command {
        Command::Run { scenario, out, set, force, csv, quiet } => {
            cmd_run(&scenario, out, &set, force, csv, quiet, &interrupted)
        }
        Command::Validate { scenario, set } => cmd_validate(&scenario, &set),
        Command::List => {
            for (name, text) in bundled::BUNDLED {
                let desc = scenario::parse(text, name, &[])
                    .map(|s| s.description.split_whitespace().collect::<Vec<_>>().join(" "))
                    .unwrap_or_default();
                let short: String = desc.chars().take(100).collect();
                println!("{name:<18} {short}{}", if desc.len() > 100 { "…" } else { "" });
            }
            ExitCode::SUCCESS
        }
        Command::Bench { json, runs, scenario, set } => cmd_bench(json, runs.max(1), scenario, &set),
        Command::Reproduce { name, out, jobs, quick, force, quiet } => {
            cmd_reproduce(&name, out, jobs, quick, force, quiet, &interrupted)
        }
    }
}

fn fail(e: &RunError) -> ExitCode {
    eprintln!("error: {e}");
    match e {
        RunError::Scenario(_) => ExitCode::from(EXIT_INPUT),
        RunError::Interrupted => ExitCode::from(EXIT_INTERRUPTED),
        _ => ExitCode::FAILURE,
    }
}

/// A progress callback that shows a bar on a terminal once a run has taken a second.
fn progress_reporter(quiet: bool, interrupted: Arc<AtomicBool>) -> impl FnMut(&Progress) -> bool {
    let show = !quiet && std::io::stderr().is_terminal();
    let t0 = Instant::now();
    let mut bar: Option<ProgressBar> = None;
    move |p: &Progress| {
        if interrupted.load(Ordering::SeqCst) {
            if let Some(b) = &bar {
                b.abandon();
            }
            return false;
        }
        if show && bar.is_none() && t0.elapsed().as_secs_f64() > 1.0 {
            let b = ProgressBar::new(p.end / 1_000_000);
            b.set_style(
                ProgressStyle::with_template("{bar:40} {msg} [{elapsed_precise}, ETA {eta}]")
                    .expect("valid template"),
            );
            bar = Some(b);
        }
        if let Some(b) = &bar {
            b.set_position(p.now / 1_000_000);
            let eps = p.events as f64 / t0.elapsed().as_secs_f64().max(1e-9);
            b.set_message(format!(
                "sim {:.3}/{:.3} s, {:.1} M events/s",
                p.now as f64 / 1e12,
                p.end as f64 / 1e12,
                eps / 1e6
            ));
            if p.now >= p.end {
                b.finish_and_clear();
            }
        }
        true
    }
}

fn cmd_run(
    path: &str,
    out: Option<PathBuf>,
    set: &[String],
    force: bool,
    csv: bool,
    quiet: bool,
    interrupted: &Arc<AtomicBool>,
) -> ExitCode {
    let mut s = match scenario::load(path, set) {
        Ok(s) => s,
        Err(e) => return fail(&RunError::Scenario(e)),
    };
    if csv {
        s.metrics.csv = true;
    }
    let dir = out.unwrap_or_else(|| PathBuf::from("runs").join(&s.name));
    if let Err(e) = cnsim::run::check_output_dir(&dir, force) {
        return fail(&e);
    }
    let mut progress = progress_reporter(quiet, interrupted.clone());
    let done = match cnsim::run::simulate(&s, &scenario::display_name(path), &mut progress) {
        Ok(d) => d,
        Err(e) => return fail(&e),
    };
    if let Err(e) = cnsim::run::write_run_dir(&s, &done, &dir, force) {
        return fail(&e);
    }
    if !quiet {
        let t = done.timing();
        let c = &done.sim.counters;
        eprintln!(
            "{}: {:.3} s simulated in {:.2} s wall ({:.1} M events/s); {} frames delivered, {} dropped -> {}",
            s.name,
            s.duration.0 as f64 / 1e12,
            t.wall_s,
            t.events_per_s / 1e6,
            c.delivered,
            c.dropped,
            dir.display()
        );
    }
    if interrupted.load(Ordering::SeqCst) {
        return ExitCode::from(EXIT_INTERRUPTED);
    }
    ExitCode::SUCCESS
}

fn cmd_validate(path: &str, set: &[String]) -> ExitCode {
    let result = scenario::load(path, set)
        .and_then(|s| scenario::build(&s, &scenario::display_name(path)).map(|sim| (s, sim)));
    match result {
        Ok((s, sim)) => {
            println!(
                "{path}: ok — \"{}\": {} nodes, {} links, {} flows, {} s simulated",
                s.name,
                sim.net.nodes.len(),
                sim.net.ports.len() / 2,
                sim.flows.len(),
                s.duration.0 as f64 / 1e12
            );
            ExitCode::SUCCESS
        }
        Err(e) => fail(&RunError::Scenario(e)),
    }
}

fn cmd_bench(json: bool, runs: usize, only: Option<String>, set: &[String]) -> ExitCode {
    let cases: Vec<_> =
        cnsim::bench::CASES.iter().filter(|c| only.as_deref().is_none_or(|o| o == c.scenario)).collect();
    if cases.is_empty() {
        let names: Vec<_> = cnsim::bench::CASES.iter().map(|c| c.scenario).collect();
        eprintln!(
            "error: no benchmark named {:?}; expected one of {}",
            only.unwrap_or_default(),
            names.join(", ")
        );
        return ExitCode::from(EXIT_INPUT);
    }
    let mut results = Vec::new();
    if !json {
        println!(
            "{:<18} {:>9} {:>14} {:>16} {:>22}   (median of {runs}; bottleneck min–max)",
            "scenario", "wall s", "events/s", "frame-hops/s", "bottleneck frames/s"
        );
    }
    for case in cases {
        match cnsim::bench::run_case(case, runs, true, set) {
            Ok(r) => {
                if !json {
                    println!(
                        "{:<18} {:>9.3} {:>14.0} {:>16.0} {:>22.0}   ({:.2}–{:.2} M)",
                        r.scenario,
                        r.wall_s,
                        r.events_per_s,
                        r.frame_hops_per_s,
                        r.bottleneck_frames_per_s,
                        r.bottleneck_min_max.0 / 1e6,
                        r.bottleneck_min_max.1 / 1e6
                    );
                }
                results.push(r);
            }
            Err(e) => {
                eprintln!("error: {e}");
                return ExitCode::from(EXIT_INPUT);
            }
        }
    }
    if json {
        println!("{}", serde_json::to_string_pretty(&results).expect("serializable"));
    }
    ExitCode::SUCCESS
}

fn cmd_reproduce(
    name: &str,
    out: Option<PathBuf>,
    jobs: Option<usize>,
    quick: bool,
    force: bool,
    quiet: bool,
    interrupted: &Arc<AtomicBool>,
) -> ExitCode {
    use cnsim::repro::mliki2016;
    if name != "mliki2016" {
        eprintln!(
            "error: no reproduction named \"{name}\"; expected one of {}",
            cnsim::repro::NAMES.join(", ")
        );
        return ExitCode::from(EXIT_INPUT);
    }
    let dir = out.unwrap_or_else(|| PathBuf::from("reports").join(name));
    if let Err(e) = cnsim::run::check_output_dir(&dir, force) {
        return fail(&e);
    }
    let jobs = jobs.unwrap_or_else(|| std::thread::available_parallelism().map(|n| n.get()).unwrap_or(1));
    let duration = if quick {
        cnsim::scenario::units::Duration(cnsim::engine::PS_PER_S)
    } else {
        mliki2016::Variant {
            topology: mliki2016::Topology::Star,
            qeq: 25,
            scheme: mliki2016::Scheme::Standard,
            source: mliki2016::SourceModel::Cbr,
            sampling: cnsim::l2::qcn::Sampling::PerFrame,
        }
        .scenario(None)
        .duration
    };
    let variants = mliki2016::grid();
    let bar = (!quiet && std::io::stderr().is_terminal()).then(|| {
        let b = ProgressBar::new(variants.len() as u64);
        b.set_style(
            ProgressStyle::with_template("{bar:40} {pos}/{len} runs [{elapsed_precise}, ETA {eta}]")
                .expect("valid template"),
        );
        b
    });
    let t0 = Instant::now();
    let progress = |done: usize, _total: usize| {
        if let Some(b) = &bar {
            b.set_position(done as u64);
        }
    };
    let records = match mliki2016::run_all(&variants, jobs, Some(duration), &progress, interrupted) {
        Ok(r) => r,
        Err(e) => {
            if let Some(b) = &bar {
                b.abandon();
            }
            if interrupted.load(Ordering::SeqCst) {
                eprintln!("error: interrupted; no report was written");
                return ExitCode::from(EXIT_INTERRUPTED);
            }
            eprintln!("error: {e}");
            return ExitCode::FAILURE;
        }
    };
    if let Some(b) = &bar {
        b.finish_and_clear();
    }
    let written = cnsim::run::write_dir_atomically(&dir, force, |tmp| {
        mliki2016::write_report(tmp, &records, duration, quick)
    });
    if let Err(e) = written {
        return fail(&e);
    }
    if !quiet {
        eprintln!(
            "{} runs in {:.1} s on {jobs} threads -> {}",
            records.len(),
            t0.elapsed().as_secs_f64(),
            dir.join("report.md").display()
        );
    }
    ExitCode::SUCCESS
}
