//! cnsim: a packet-level discrete-event simulator for congestion notification in
//! data-center Ethernet and IP networks.
//!
//! The layout follows the architecture:
//! - [`engine`]: picosecond time, the event queue, seeded random streams;
//! - [`units`]: rates, sizes and durations as scenarios write them;
//! - [`net`]: frames, egress queues, ports and links, nodes, forwarding;
//! - [`traffic`]: sources and the per-flow rate limiter;
//! - [`protocol`]: the seams protocols plug into (queue discipline, congestion point,
//!   reaction point, notification point, link control, host endpoint);
//! - [`aqm`]: queue disciplines (drop-tail, ECN threshold marking, RED, MECN);
//! - [`l2`]: layer-2 protocols (QCN, ECM, E2CM, FECN; PAUSE and PFC);
//! - [`l4`]: transports (TCP with its ECN, MECN and DCTCP answers; DCQCN);
//! - [`sim`]: the run loop and the data path that ties them together;
//! - [`scenario`]: the TOML format, validation and building;
//! - [`metrics`]: counters, time series and writers;
//! - [`report`]: plots; [`run`]: run directories; [`bench`]: speed measurements;
//! - [`sweep`]: grids of runs over keys and seeds, resumable, with a results table;
//! - [`repro`]: reproductions of published experiments.
//!
//! The feature `outputs` (on by default) brings the result files, plots, run
//! directories, reproductions and benchmarks, and their dependencies (Parquet, CSV,
//! plotting); without it the crate is the simulation core alone. The feature `c-math`
//! (the `cnsim` binary's and the Python module's) defines the C library's mathematical
//! functions in the program, from the `libm` crate (see `c_math`).

pub mod aqm;
#[cfg(feature = "outputs")]
pub mod bench;
#[cfg(all(feature = "c-math", target_os = "linux", target_env = "gnu"))]
mod c_math;
pub mod engine;
pub mod l2;
pub mod l4;
pub mod metrics;
pub mod net;
pub mod protocol;
#[cfg(feature = "outputs")]
pub mod report;
#[cfg(feature = "outputs")]
pub mod repro;
#[cfg(feature = "outputs")]
pub mod run;
pub mod scenario;
pub mod sim;
#[cfg(feature = "outputs")]
pub mod sweep;
pub mod traffic;
pub mod units;
pub mod wire;

/// The crate version, recorded in every output.
pub const VERSION: &str = env!("CARGO_PKG_VERSION");
