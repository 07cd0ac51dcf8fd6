//! Memory bounds. A scenario's memory is estimated while it is built, before each large
//! allocation (forwarding tables, flows, uniform destination lists, multicast trees, time
//! series), with what its outputs will hold once it has run (the writing of the time
//! series, the summary), and refused with a located error above a limit; the frames a
//! run holds at once are bounded by what is left, checked as it runs. No input may end
//! in an allocation failure (an abort).
//!
//! The estimates are upper bounds of the structures as they are laid out today, measured
//! against peak resident memory (the command line's tests check one run's peak against
//! its estimate); they are meant to catch scenarios that would need gigabytes, not to
//! account for every byte.

use std::sync::OnceLock;

use super::error::ScenarioError;
use crate::net::{Frame, Node, Port};
use crate::traffic::Flow;

/// Resource limits of a build and run.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Limits {
    /// Most memory a scenario may need, bytes.
    pub max_memory: u64,
}

/// The limit where the machine's memory cannot be read: 4 GiB.
const FALLBACK_MEMORY: u64 = 4 << 30;

/// Address space a process holds besides the data the estimate counts: the binary and
/// its libraries, thread stacks, the allocator's reserved arenas.
pub const ADDRESS_SPACE_RESERVE: u64 = 256 << 20;

impl Limits {
    /// The default limit (see [`default_memory`]) from the machine's memory, the control
    /// group's limit and the address-space limit (`ulimit -v`), read once.
    pub fn machine_default() -> Self {
        static DEFAULT: OnceLock<Limits> = OnceLock::new();
        *DEFAULT.get_or_init(|| Limits {
            max_memory: default_memory(physical_memory(), cgroup_memory(), address_space()),
        })
    }

    /// These limits shared among `n` runs at once (each gets an equal part).
    pub fn shared_by(self, n: usize) -> Self {
        Limits { max_memory: self.max_memory / n.max(1) as u64 }
    }
}

impl Default for Limits {
    fn default() -> Self {
        Self::machine_default()
    }
}

/// The default memory limit from what the system allows (`None`: unknown or
/// unlimited): half of the lower of the physical memory and the control group's limit
/// (the other half is left to the system and other processes), and at most three
/// quarters of the address-space limit less [`ADDRESS_SPACE_RESERVE`]. A process's
/// address space exceeds its resident memory by its binary, stacks and the freed memory
/// its allocator keeps mapped (measured: a run peaking at 778 MiB resident needed
/// between 781 and 879 MiB of address space), and the estimate is of data only, so the
/// quarter is kept for that, and a scenario the estimate admits does not exhaust the
/// address space and abort.
pub fn default_memory(physical: Option<u64>, cgroup: Option<u64>, address_space: Option<u64>) -> u64 {
    let memory = match (physical, cgroup) {
        (Some(p), Some(c)) => p.min(c),
        (p, c) => p.or(c).unwrap_or(2 * FALLBACK_MEMORY),
    };
    let from_address_space =
        address_space.map_or(u64::MAX, |a| a.saturating_sub(ADDRESS_SPACE_RESERVE) / 4 * 3);
    (memory / 2).min(from_address_space)
}

/// Physical memory (Linux); `None` elsewhere.
fn physical_memory() -> Option<u64> {
    let meminfo = std::fs::read_to_string("/proc/meminfo").ok()?;
    let total_kib: u64 = meminfo
        .lines()
        .find_map(|l| l.strip_prefix("MemTotal:"))?
        .trim()
        .trim_end_matches("kB")
        .trim()
        .parse()
        .ok()?;
    Some(total_kib.saturating_mul(1024))
}

/// The cgroup v2 memory limit (Linux); `None` where there is none ("max") or elsewhere.
fn cgroup_memory() -> Option<u64> {
    std::fs::read_to_string("/sys/fs/cgroup/memory.max").ok().and_then(|s| s.trim().parse::<u64>().ok())
}

/// The address-space limit (`ulimit -v`, RLIMIT_AS); `None` where unlimited.
#[cfg(unix)]
#[allow(clippy::unnecessary_cast, reason = "rlim_t is u64 on Linux, not on every Unix")]
fn address_space() -> Option<u64> {
    let mut limit = libc::rlimit { rlim_cur: 0, rlim_max: 0 };
    // SAFETY: getrlimit only writes the limit into the struct it is given.
    if unsafe { libc::getrlimit(libc::RLIMIT_AS, &mut limit) } != 0 || limit.rlim_cur == libc::RLIM_INFINITY {
        return None;
    }
    Some(limit.rlim_cur as u64)
}

/// The address-space limit; none known off Unix.
#[cfg(not(unix))]
fn address_space() -> Option<u64> {
    None
}

/// Bytes as "12.3 MiB", or "40.0 KiB" below a tenth of a MiB (where one decimal of MiB
/// would read "0.0 MiB").
pub fn mib(bytes: u64) -> String {
    if bytes < (1 << 20) / 10 {
        format!("{:.1} KiB", bytes as f64 / 1024.0)
    } else {
        format!("{:.1} MiB", bytes as f64 / (1u64 << 20) as f64)
    }
}

/// Estimated bytes of one node (its record, its name, generator and lookup entries).
pub const NODE_BYTES: u64 = std::mem::size_of::<Node>() as u64 + 300;
/// Estimated bytes of one link without its queues' preallocated slots: two ports and
/// the generator's record.
pub const LINK_BYTES: u64 = 2 * std::mem::size_of::<Port>() as u64 + 600;
/// Bytes per forwarding-table entry (switch × host): the egress port.
pub const ROUTE_ENTRY_BYTES: u64 = 4;
/// Estimated bytes of one flow without its limiter's preallocated slots.
pub const FLOW_BYTES: u64 = std::mem::size_of::<Flow>() as u64 + 160;
/// Bytes per frame held at run time: the arena slot, its free-list entry and a queue or
/// link slot, times two for vectors that grow by doubling.
pub const LIVE_FRAME_BYTES: u64 = 2 * (std::mem::size_of::<Frame>() as u64 + 4 + 16);
/// Estimated bytes of one flow's part of `summary.json` while it is written: its record
/// and its text, twice for a buffer that grows by doubling (measured: 1.4 KB), and its
/// max-min fair-share demand besides its route's hops.
pub const SUMMARY_FLOW_BYTES: u64 = 2048;
/// Bytes per hop of a unicast flow's route, held while its max-min fair share is computed
/// for `summary.json`.
pub const FAIR_SHARE_HOP_BYTES: u64 = 8;

/// Bytes of one recorded series besides its values and its name: its record, the value
/// vector's and the name's allocations, the recorder's last reading.
pub const COLUMN_BYTES: u64 = 128;
/// Bytes per recorded value: the value, twice for a vector that grows by doubling.
pub const SAMPLE_BYTES: u64 = 16;
/// Bytes the Parquet writer holds per column of the table it writes: the schema, the
/// column's metadata and page indexes (measured: 2.9 KB for 14-character names, 3.2 KB
/// for 95), plus 4 per byte of the column's name.
pub const PARQUET_COLUMN_BYTES: u64 = 3072;
/// Bytes per value of the table being written as Parquet: the value in the file held in
/// memory (plain encoding), twice for its doubling.
pub const PARQUET_VALUE_BYTES: u64 = 16;
/// Bytes per value of the table being written as CSV: its text (up to 24 characters and
/// a comma), twice for the buffer's doubling.
pub const CSV_VALUE_BYTES: u64 = 50;
/// Bytes per column of the table being written as CSV: the header, a row's fields.
pub const CSV_COLUMN_BYTES: u64 = 64;
/// Bytes per value of the table being plotted: the scaled copy.
pub const PLOT_VALUE_BYTES: u64 = 8;
/// Bytes per column of the table being plotted: the copy's vector, the line's record,
/// the sorting by mean.
pub const PLOT_COLUMN_BYTES: u64 = 128;

/// The outputs a run writes its tables to.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Writers {
    /// Parquet files.
    pub(crate) parquet: bool,
    /// CSV files.
    pub(crate) csv: bool,
    /// SVG (and PNG) plots.
    pub(crate) plots: bool,
}

/// Estimated bytes of recording a table of `columns` series whose names take
/// `name_bytes`, over `samples` samples.
pub fn recorded_bytes(columns: u64, name_bytes: u64, samples: u64) -> u64 {
    columns
        .saturating_mul(COLUMN_BYTES.saturating_add(samples.saturating_mul(SAMPLE_BYTES)))
        .saturating_add(name_bytes)
}

/// Estimated bytes the writers hold at once while writing such a table: they write one
/// table at a time, one output after the other, so the most any one of them needs.
pub fn writing_bytes(columns: u64, name_bytes: u64, samples: u64, writers: Writers) -> u64 {
    let per = |column: u64, value: u64| {
        columns.saturating_mul(column.saturating_add(samples.saturating_mul(value)))
    };
    let parquet = per(PARQUET_COLUMN_BYTES, PARQUET_VALUE_BYTES).saturating_add(name_bytes.saturating_mul(4));
    let csv = per(CSV_COLUMN_BYTES, CSV_VALUE_BYTES).saturating_add(name_bytes);
    let plots = per(PLOT_COLUMN_BYTES, PLOT_VALUE_BYTES);
    [(writers.parquet, parquet), (writers.csv, csv), (writers.plots, plots)]
        .into_iter()
        .filter_map(|(on, bytes)| on.then_some(bytes))
        .max()
        .unwrap_or(0)
}

/// A running estimate checked against the limit at every charge.
#[derive(Debug)]
pub struct Budget<'a> {
    limit: u64,
    used: u64,
    file: &'a str,
}

impl<'a> Budget<'a> {
    /// An empty budget with `limits`, for errors in `file`.
    pub fn new(limits: &Limits, file: &'a str) -> Self {
        Self { limit: limits.max_memory, used: 0, file }
    }

    /// Adds `bytes` for `what` (set at key `path`), or refuses with a located error that
    /// says what to change (`advice`).
    pub fn charge(&mut self, bytes: u64, path: &str, what: &str, advice: &str) -> Result<(), ScenarioError> {
        let total = self.used.saturating_add(bytes);
        if total > self.limit {
            return Err(ScenarioError::new(
                self.file,
                path,
                format!(
                    "{what} would need about {} (this scenario about {} in all); expected at most \
                     {} (the memory limit: half the machine's memory, less under a control group's \
                     or an address-space limit, unless --max-memory says otherwise); {advice}",
                    mib(bytes),
                    mib(total),
                    mib(self.limit)
                ),
            ));
        }
        self.used = total;
        Ok(())
    }

    /// Bytes left under the limit.
    pub fn remaining(&self) -> u64 {
        self.limit - self.used
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn charges_add_up_and_refuse_past_the_limit() {
        let mut b = Budget::new(&Limits { max_memory: 100 << 20 }, "f.toml");
        b.charge(60 << 20, "a", "tables", "use fewer").unwrap();
        assert_eq!(b.remaining(), 40 << 20);
        let e = b.charge(50 << 20, "traffic[0].from", "flows", "to fit, use fewer sources").unwrap_err();
        assert_eq!(e.path, "traffic[0].from");
        assert!(e.message.starts_with("flows would need about 50.0 MiB (this scenario about 110.0 MiB in all); expected at most 100.0 MiB"), "{e}");
        assert!(e.message.ends_with("otherwise); to fit, use fewer sources"), "{e}");
        // A refused charge is not counted.
        assert_eq!(b.remaining(), 40 << 20);
        b.charge(u64::MAX, "x", "x", "x").unwrap_err();
    }

    /// Hand-worked: 1000 series named in 14 bytes each, over 3 samples: recorded,
    /// 1000 × (128 + 3 × 16) + 14 000 = 190 000 bytes; written as Parquet, 1000 × (3072 +
    /// 3 × 16) + 4 × 14 000 = 3 176 000; as CSV, 1000 × (64 + 3 × 50) + 14 000 = 228 000;
    /// plotted, 1000 × (128 + 3 × 8) = 152 000. The writers take turns: the most of them.
    #[test]
    fn recorded_and_written_tables_hand_example() {
        assert_eq!(recorded_bytes(1000, 14_000, 3), 190_000);
        let w = |parquet, csv, plots| writing_bytes(1000, 14_000, 3, Writers { parquet, csv, plots });
        assert_eq!(w(true, true, true), 3_176_000);
        assert_eq!(w(false, true, true), 228_000);
        assert_eq!(w(false, false, true), 152_000);
        assert_eq!(w(false, false, false), 0);
        // Long runs: the values dominate, CSV's text most.
        assert_eq!(
            writing_bytes(2, 0, 1_000_000, Writers { parquet: true, csv: true, plots: true }),
            100_000_128
        );
        assert_eq!(recorded_bytes(u64::MAX, 1, 2), u64::MAX, "saturates");
    }

    #[test]
    fn sizes_read_in_a_unit_that_shows_them() {
        assert_eq!(mib(64 << 20), "64.0 MiB");
        assert_eq!(mib(1 << 20), "1.0 MiB");
        assert_eq!(mib(16 << 10), "16.0 KiB", "not 0.0 MiB");
    }

    #[test]
    fn the_default_is_half_the_machine() {
        let d = Limits::machine_default();
        assert!(d.max_memory >= 1 << 28, "{d:?}");
        assert_eq!(d.shared_by(4).max_memory, d.max_memory / 4);
    }

    /// Hand-worked: 16 GiB of memory gives 8 GiB; a control group of 6 GiB, 3 GiB; an
    /// address-space limit of 4 GiB, (4096 − 256) × 3/4 = 2880 MiB, whichever is lowest.
    #[test]
    fn the_default_is_the_lowest_the_system_allows() {
        const GIB: u64 = 1 << 30;
        assert_eq!(default_memory(Some(16 * GIB), None, None), 8 * GIB);
        assert_eq!(default_memory(Some(16 * GIB), Some(6 * GIB), None), 3 * GIB);
        assert_eq!(default_memory(Some(16 * GIB), Some(6 * GIB), Some(4 * GIB)), 2880 << 20);
        assert_eq!(default_memory(None, None, Some(100 * GIB)), FALLBACK_MEMORY);
        assert_eq!(default_memory(None, Some(2 * GIB), None), GIB);
        assert_eq!(default_memory(Some(16 * GIB), None, Some(100 << 20)), 0, "below the reserve");
    }
}
