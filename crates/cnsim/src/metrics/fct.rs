//! Flow completion times of workload flows (`kind = "flows"`): one record per flow
//! with its ideal time, the table written as `fct.csv`/`fct.parquet`, and the slowdown
//! percentiles `summary.json` gives, overall and by flow size, as the HPCC ns-3 fork's
//! `fct_analysis.py` computes them.

use serde::Serialize;

use crate::engine::Time;
use crate::net::NodeId;
use crate::sim::Sim;

/// A workload flow: what it is, known when the scenario is built, and its completion
/// time once it has one. It outlives the flow's state (see [`crate::sim::Workloads`]).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct FctRecord {
    /// Its traffic entry.
    pub entry: u32,
    /// Source host.
    pub src: NodeId,
    /// Destination host.
    pub dst: NodeId,
    /// Its size, bytes.
    pub bytes: u64,
    /// When it starts.
    pub start: Time,
    /// Its ideal completion time (see [`crate::sim::ideal_fct`]).
    pub(crate) ideal: Time,
    /// Its completion time, s: from its start to its last byte acknowledged; `None`
    /// while it runs or waits to start.
    pub fct_s: Option<f64>,
}

/// One workload flow's outcome.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct FctRow {
    /// Flow name.
    pub flow: String,
    /// Source host.
    pub src: String,
    /// Destination host.
    pub dst: String,
    /// Size, bytes.
    pub bytes: u64,
    /// Start, s.
    pub start_s: f64,
    /// Completion time (start to the last byte acknowledged), s; `None` if unfinished.
    pub fct_s: Option<f64>,
    /// Ideal completion time, s.
    pub ideal_fct_s: f64,
    /// fct / ideal, at least 1 (as the fork's analysis clamps it); `None` if unfinished.
    pub slowdown: Option<f64>,
}

/// Every workload flow's outcome, entry by entry, each in start order.
pub fn rows(sim: &Sim) -> Vec<FctRow> {
    let net = sim.net();
    let entries = sim.workload_entries();
    let mut entry = 0;
    sim.workload()
        .iter()
        .enumerate()
        .map(|(i, r)| {
            let i = i as u32;
            while i >= entries[entry].first + entries[entry].count {
                entry += 1;
            }
            let e = &entries[entry];
            let finished = r.fct_s;
            let ideal = r.ideal as f64 / 1e12;
            FctRow {
                flow: format!("{}/{}", e.name, i - e.first + 1),
                src: net.nodes[r.src as usize].name.clone(),
                dst: net.nodes[r.dst as usize].name.clone(),
                bytes: r.bytes,
                start_s: r.start as f64 / 1e12,
                fct_s: finished,
                ideal_fct_s: ideal,
                slowdown: finished.map(|fct| (fct / ideal).max(1.0)),
            }
        })
        .collect()
}

/// The p-th percentile of `sorted` (increasing) as the fork's `fct_analysis.py` takes
/// it: the value at index ⌊n·p⌋, the last for p = 1; NaN when `sorted` is empty.
pub fn percentile(sorted: &[f64], p: f64) -> f64 {
    if sorted.is_empty() {
        return f64::NAN;
    }
    sorted[((sorted.len() as f64 * p) as usize).min(sorted.len() - 1)]
}

/// Percentiles of slowdowns, as the fork takes them ([`percentile`]).
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Slowdowns {
    /// Mean.
    pub(crate) mean: f64,
    /// Median.
    pub p50: f64,
    /// 95th percentile.
    pub(crate) p95: f64,
    /// 99th percentile.
    pub p99: f64,
}

impl Slowdowns {
    /// Of `sorted`, non-empty and in increasing order.
    fn of(sorted: &[f64]) -> Self {
        Slowdowns {
            mean: sorted.iter().sum::<f64>() / sorted.len() as f64,
            p50: percentile(sorted, 0.5),
            p95: percentile(sorted, 0.95),
            p99: percentile(sorted, 0.99),
        }
    }
}

/// The slowdowns of one size bucket: the completed flows between two size percentiles.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Bucket {
    /// The bucket's upper size percentile (0.05 for the smallest 5 % of flows).
    pub(crate) size_percentile: f64,
    /// Its largest flow, bytes.
    pub(crate) max_bytes: u64,
    /// Flows in it.
    pub(crate) flows: u64,
    /// Their slowdowns.
    #[serde(flatten)]
    pub slowdown: Slowdowns,
}

/// The `fct` section of `summary.json`.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct FctSummary {
    /// Workload flows.
    pub(crate) flows: u64,
    /// Of which completed by the end of the run.
    pub completed: u64,
    /// Of which not (left out of the slowdowns).
    pub unfinished: u64,
    /// The most flows whose state the run held at once (running, or finished with
    /// frames still in flight): what the workload's memory follows.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub peak_active_flows: Option<u64>,
    /// The completed flows' slowdowns.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(crate) slowdown: Option<Slowdowns>,
    /// By size: the completed flows sorted by size, cut into 20 groups of equal count
    /// (the fork's `fct_analysis.py -s 5`).
    pub by_size: Vec<Bucket>,
}

/// Groups of [`FctSummary::by_size`].
pub const BUCKETS: usize = 20;

impl FctSummary {
    /// The summary of `rows`, if there are any.
    pub fn of(rows: &[FctRow]) -> Option<FctSummary> {
        if rows.is_empty() {
            return None;
        }
        let mut done: Vec<(u64, f64)> =
            rows.iter().filter_map(|r| r.slowdown.map(|s| (r.bytes, s))).collect();
        let mut all: Vec<f64> = done.iter().map(|d| d.1).collect();
        all.sort_by(f64::total_cmp);
        done.sort_by(|a, b| a.0.cmp(&b.0).then(a.1.total_cmp(&b.1)));
        let n = done.len();
        let by_size = (0..BUCKETS)
            .filter_map(|i| {
                let (l, r) = (i * n / BUCKETS, (i + 1) * n / BUCKETS);
                let group = &done[l..r];
                let mut s: Vec<f64> = group.iter().map(|d| d.1).collect();
                s.sort_by(f64::total_cmp);
                (!group.is_empty()).then(|| Bucket {
                    size_percentile: (i + 1) as f64 / BUCKETS as f64,
                    max_bytes: group.last().expect("non-empty").0,
                    flows: group.len() as u64,
                    slowdown: Slowdowns::of(&s),
                })
            })
            .collect();
        Some(FctSummary {
            flows: rows.len() as u64,
            completed: n as u64,
            unfinished: (rows.len() - n) as u64,
            peak_active_flows: None,
            slowdown: (!all.is_empty()).then(|| Slowdowns::of(&all)),
            by_size,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn row(bytes: u64, slowdown: Option<f64>) -> FctRow {
        FctRow {
            flow: String::new(),
            src: String::new(),
            dst: String::new(),
            bytes,
            start_s: 0.0,
            fct_s: slowdown,
            ideal_fct_s: 1.0,
            slowdown,
        }
    }

    /// 100 completed flows of sizes 1..=100 with slowdown = size, and 3 unfinished: the
    /// fork's percentiles are the values at ⌊n·p⌋ (51, 96, 100), each of the 20 groups
    /// holds 5 flows (sizes 1–5 first: p50 at index 2, 3), and the unfinished are
    /// counted but not ranked.
    #[test]
    fn slowdown_percentiles_overall_and_by_size() {
        let mut rows: Vec<FctRow> = (1..=100).map(|b| row(b, Some(b as f64))).collect();
        rows.extend((0..3).map(|_| row(7, None)));
        let s = FctSummary::of(&rows).unwrap();
        assert_eq!((s.flows, s.completed, s.unfinished), (103, 100, 3));
        let all = s.slowdown.unwrap();
        assert_eq!((all.p50, all.p95, all.p99), (51.0, 96.0, 100.0));
        assert!((all.mean - 50.5).abs() < 1e-12);
        assert_eq!(s.by_size.len(), 20);
        assert_eq!((s.by_size[0].max_bytes, s.by_size[0].flows, s.by_size[0].slowdown.p50), (5, 5, 3.0));
        assert_eq!(s.by_size[19].max_bytes, 100);
        assert!(FctSummary::of(&[]).is_none());
        let none = FctSummary::of(&[row(1, None)]).unwrap();
        assert!(none.slowdown.is_none() && none.by_size.is_empty());
    }
}
