//! HPCC's sender (Li et al., "HPCC: High Precision Congestion Control", SIGCOMM 2019,
//! Algorithm 1), in the rate form of the paper's ns-3 fork (`rdma-hw.cc`,
//! `UpdateRateHp`, one rate for the whole path).
//!
//! Each ACK echoes the [`IntHop`] records its data packet collected. For every hop, from
//! this ACK's record and the last one kept for that hop:
//! - its normalised inflight u = txRate/B + min(qlen, qlen')·8/(B·T), where txRate is
//!   the bytes the port sent between the two records over their time apart, qlen and
//!   qlen' the queue in the two records and T the base RTT (the fork's
//!   `qlen·maxRate/(B·win)` with the window one line-rate BDP);
//! - the path's u is the largest hop's, and τ that hop's time apart (at most T);
//! - U ← ((T − τ)·U + τ·u)/T, an EWMA over one RTT.
//!
//! Then, with the reference rate R_c and stage s: if U/η ≥ 1 or s ≥ maxStage,
//! R = R_c·η/U + R_AI and s' = 0 (multiplicative); else R = R_c + R_AI and s' = s + 1
//! (additive); R within [minRate, line rate]. The flow sends at R at once. R_c and s
//! take R and s' only on the first ACK of each RTT (an ACK for data beyond the last
//! update's next sequence number, after which that number moves to the current next
//! one): the paper's "update W^c once per RTT"; the ACKs between react fast, from R_c.
//!
//! The first ACK only keeps its records. A hop whose record did not advance in time
//! (τ = 0) tells nothing new and is skipped (the fork divides by it).
//!
//! `[protocols.hpcc]` runs it on RDMA queue pairs ([`HpccConfig`]): every data packet of
//! those flows carries an INT header ([`crate::wire::int`], 42 bytes on the wire), each
//! switch egress appends its record when it starts sending the packet, the receiver's
//! ACK (42 bytes longer too) echoes the records, and each ACK sets the flow's rate
//! limiter (the fork's `HandleAckHp`). With `window = "bdp"` the queue pair's window
//! follows the rate, bdp·R/line rate (the fork's `VAR_WIN`). Run it over PFC
//! (`[protocols.pause]`) for the lossless fabric RoCEv2 expects.

use serde::{Deserialize, Serialize};

use crate::engine::time::round_u64;
use crate::engine::{Time, PS_PER_NS};
pub use crate::l4::rdma::{BaseRtt, Window};
use crate::protocol::Validate;
use crate::units::select::HostSel;
use crate::units::Rate;
pub use crate::wire::int::{IntHop, IntStack, MAX_HOPS};

/// The largest `max_stage` accepted: additive steps beyond it would take longer than
/// any run to reach a multiplicative one.
pub const MAX_STAGE: u32 = 1_000;

/// The largest `int_multi` accepted (the fork's INT byte units times it must fit).
pub const MAX_INT_MULTI: u32 = 1 << 16;

/// `[protocols.hpcc]`: the flows HPCC runs on and its parameters. The defaults are the
/// paper's (§5.1: η = 95 %, maxStage = 5) with the additive step of the fork's `run.py`
/// at 100 Gbit/s (W_AI/T = 10·bw/25 Mbit/s = 40 Mbit/s).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct HpccConfig {
    /// RDMA flows HPCC runs on: traffic entry names or patterns ("*" for all).
    pub(crate) flows: HostSel,
    /// η, the target utilisation (0.95).
    #[serde(default = "eta")]
    pub(crate) eta: f64,
    /// maxStage (5, the paper; the fork's `run.py` uses 0, always multiplicative).
    #[serde(default = "max_stage")]
    pub(crate) max_stage: u32,
    /// R_AI, the additive step as a rate (40 Mbit/s).
    #[serde(default = "r_ai")]
    pub(crate) r_ai: Rate,
    /// The rate floor (100 Mbit/s, the fork's `MinRate`).
    #[serde(default = "min_rate")]
    pub(crate) min_rate: Rate,
    /// Whether every ACK sets the rate, not only the first of each RTT (the fork's
    /// `FAST_REACT`, true).
    #[serde(default = "fast_react")]
    pub(crate) fast_react: bool,
    /// The unit multiplier of the INT records' byte fields (the fork's `INT_MULTI`, 1).
    #[serde(default = "int_multi")]
    pub(crate) int_multi: u32,
    /// The queue pairs' window: "bdp" for the fork's variable window, bdp·R/line rate,
    /// in place of the traffic entry's `rdma.window`; absent, the entry's window (or
    /// none) stays.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(crate) window: Option<Window>,
    /// Which base RTT T (and BDP) a flow uses: "fabric", the largest of the base RTTs of
    /// the flows HPCC runs on (the fork's `GLOBAL_T 1`, and the paper's T, "the base
    /// propagation RTT" of the network), or "path", the flow's own.
    #[serde(default)]
    pub(crate) base_rtt: BaseRtt,
}

fn eta() -> f64 {
    0.95
}
fn max_stage() -> u32 {
    5
}
fn r_ai() -> Rate {
    Rate(40_000_000)
}
fn min_rate() -> Rate {
    Rate(100_000_000)
}
fn fast_react() -> bool {
    true
}
fn int_multi() -> u32 {
    1
}

impl HpccConfig {
    /// The sender's parameters.
    pub fn params(&self) -> HpccParams {
        HpccParams {
            eta: self.eta,
            max_stage: self.max_stage,
            r_ai: self.r_ai,
            min_rate: self.min_rate,
            fast_react: self.fast_react,
            int_multi: self.int_multi,
        }
    }
}

impl Validate for HpccConfig {
    fn validate(&self) -> Result<(), (String, String)> {
        if !(self.eta > 0.0 && self.eta <= 1.0) {
            return Err((
                "eta".into(),
                format!("{} is not a target utilisation; expected (0, 1], e.g. 0.95", self.eta),
            ));
        }
        if self.max_stage > MAX_STAGE {
            return Err((
                "max_stage".into(),
                format!("{} is too many additive steps; expected 0 to {MAX_STAGE}, e.g. 5", self.max_stage),
            ));
        }
        if self.int_multi == 0 || self.int_multi > MAX_INT_MULTI {
            return Err((
                "int_multi".into(),
                format!("{} is not a unit multiplier; expected 1 to {MAX_INT_MULTI}, e.g. 1", self.int_multi),
            ));
        }
        Ok(())
    }
}

/// HPCC's parameters.
#[derive(Clone, Debug, PartialEq)]
pub struct HpccParams {
    /// η, the target utilisation (95 %).
    pub(crate) eta: f64,
    /// maxStage: additive steps before a multiplicative one while U < η (5, the paper's
    /// §5.1; the fork's `run.py` runs with 0, always multiplicative).
    pub(crate) max_stage: u32,
    /// R_AI, the additive step as a rate (W_AI/T).
    pub(crate) r_ai: Rate,
    /// The rate floor.
    pub(crate) min_rate: Rate,
    /// Whether the ACKs between per-RTT updates set the rate too (the fork's `FAST_REACT`).
    pub(crate) fast_react: bool,
    /// The unit multiplier of the INT byte fields (the fork's `INT_MULTI`).
    pub(crate) int_multi: u32,
}

impl Default for HpccParams {
    fn default() -> Self {
        HpccParams {
            eta: 0.95,
            max_stage: 5,
            r_ai: Rate(40_000_000),
            min_rate: Rate(100_000_000),
            fast_react: true,
            int_multi: 1,
        }
    }
}

/// One flow's HPCC state.
#[derive(Clone, Debug)]
pub struct Hpcc {
    eta: f64,
    max_stage: u32,
    r_ai: f64,
    min_rate: f64,
    line_rate: f64,
    fast_react: bool,
    multi: u32,
    /// T, the base RTT, ns.
    base_rtt_ns: u64,
    /// R_c, the reference rate, bit/s.
    reference: f64,
    /// s, additive steps since the last multiplicative one.
    stage: u32,
    /// U, the path's normalised inflight (EWMA).
    u: f64,
    /// The next sequence number when the reference last moved (0: no ACK yet).
    last_update_seq: u64,
    /// The last record of each hop.
    hops: IntStack,
    /// ACKs that moved R_c (once per RTT).
    per_rtt_updates: u64,
    /// ACKs that set the rate between those (fast reaction).
    fast_reactions: u64,
}

impl Hpcc {
    /// A flow of a NIC at `line_bps` whose base RTT is `base_rtt`; it starts at line rate.
    pub fn new(p: &HpccParams, line_bps: u64, base_rtt: Time) -> Self {
        Hpcc {
            eta: p.eta,
            max_stage: p.max_stage,
            r_ai: p.r_ai.0 as f64,
            min_rate: p.min_rate.0 as f64,
            line_rate: line_bps as f64,
            fast_react: p.fast_react,
            multi: p.int_multi,
            base_rtt_ns: (base_rtt / PS_PER_NS).max(1),
            reference: line_bps as f64,
            stage: 0,
            u: 0.0,
            last_update_seq: 0,
            hops: IntStack::default(),
            per_rtt_updates: 0,
            fast_reactions: 0,
        }
    }

    /// U, the path's normalised inflight.
    pub fn utilisation(&self) -> f64 {
        self.u
    }

    /// R_c, bit/s.
    pub fn reference_rate(&self) -> f64 {
        self.reference
    }

    /// The last record of each hop of the path, as the last ACK echoed them.
    pub fn last_hops(&self) -> &IntStack {
        &self.hops
    }

    /// An ACK for data up to `ack_seq` arrived with `int` while the next sequence number
    /// to send is `snd_nxt`: the flow's new rate, bit/s, or `None` to keep it.
    pub fn on_ack(&mut self, ack_seq: u64, snd_nxt: u64, int: &IntStack) -> Option<u64> {
        if self.last_update_seq == 0 {
            self.last_update_seq = snd_nxt;
            self.hops = *int;
            return None;
        }
        let per_rtt = ack_seq > self.last_update_seq;
        if !per_rtt && !self.fast_react {
            return None;
        }
        let t = self.base_rtt_ns as f64;
        let (mut path_u, mut tau, mut any) = (0.0f64, 0u64, false);
        for (i, hop) in int.hops().iter().enumerate() {
            let Some(last) = self.hops.hops().get(i).copied() else { continue };
            let dt = hop.ns_since(&last);
            if dt == 0 {
                continue;
            }
            any = true;
            let b = hop.line_rate() as f64;
            let tx_rate = hop.bytes_since(&last, self.multi) as f64 * 8.0 / (dt as f64 * 1e-9);
            let qlen = hop.qlen(self.multi).min(last.qlen(self.multi)) as f64;
            let u = tx_rate / b + qlen * 8.0 / (b * t * 1e-9);
            if u > path_u {
                path_u = u;
                tau = dt;
            }
        }
        self.hops = *int;
        if !any {
            return None;
        }
        let tau = tau.min(self.base_rtt_ns) as f64;
        self.u = (self.u * (t - tau) + path_u * tau) / t;
        let c = self.u / self.eta;
        let (rate, stage) = if c >= 1.0 || self.stage >= self.max_stage {
            let rate = if c > 0.0 { self.reference / c + self.r_ai } else { self.line_rate };
            (rate, 0)
        } else {
            (self.reference + self.r_ai, self.stage + 1)
        };
        let rate = rate.clamp(self.min_rate, self.line_rate);
        if per_rtt {
            self.reference = rate;
            self.stage = stage;
            self.last_update_seq = self.last_update_seq.max(snd_nxt);
            self.per_rtt_updates += 1;
        } else {
            self.fast_reactions += 1;
        }
        Some(round_u64(rate))
    }
}

/// An HPCC flow's reaction point: the sender and the rate it last set.
#[derive(Clone, Debug)]
pub struct Rp {
    hpcc: Hpcc,
    rate: u64,
    /// ACKs heard.
    acks: u64,
}

impl Rp {
    /// The reaction point of a flow at `line_bps` whose base RTT is `base_rtt`: it starts
    /// at line rate.
    pub fn new(p: &HpccParams, line_bps: u64, base_rtt: Time) -> Self {
        Rp { hpcc: Hpcc::new(p, line_bps, base_rtt), rate: line_bps, acks: 0 }
    }

    /// An ACK (see [`Hpcc::on_ack`]): the new rate, if it changes.
    pub fn on_ack(&mut self, ack_seq: u64, snd_nxt: u64, int: &IntStack) -> Option<u64> {
        self.acks += 1;
        let rate = self.hpcc.on_ack(ack_seq, snd_nxt, int)?;
        self.rate = rate;
        Some(rate)
    }

    /// The rate, bit/s.
    pub fn rate(&self) -> u64 {
        self.rate
    }

    /// The sender's state.
    pub fn hpcc(&self) -> &Hpcc {
        &self.hpcc
    }
}

/// HPCC's counters over its flows (`hpcc` in summary.json).
#[derive(Clone, Debug, Default, serde::Serialize)]
pub struct HpccStats {
    /// Flows under HPCC.
    pub flows: u64,
    /// ACKs their senders heard.
    pub acks: u64,
    /// Rate updates that moved the reference rate R_c (once per RTT).
    pub per_rtt_updates: u64,
    /// Rate updates between those, from R_c (fast reaction).
    pub fast_reactions: u64,
    /// The mean over flows of U, the path's normalised inflight, at the end.
    pub mean_utilisation: f64,
    /// The mean over flows of the rate at the end, bit/s.
    pub mean_rate_bps: f64,
}

/// What retired workload flows add to [`HpccStats`].
#[derive(Clone, Debug, Default)]
pub struct Retired {
    flows: u64,
    acks: u64,
    per_rtt_updates: u64,
    fast_reactions: u64,
    u_sum: f64,
    rate_sum: f64,
}

impl Retired {
    /// Adds `rp`.
    pub(crate) fn fold(&mut self, rp: &Rp) {
        self.flows += 1;
        self.acks += rp.acks;
        self.per_rtt_updates += rp.hpcc.per_rtt_updates;
        self.fast_reactions += rp.hpcc.fast_reactions;
        self.u_sum += rp.hpcc.u;
        self.rate_sum += rp.rate as f64;
    }
}

impl HpccStats {
    /// The counters of a finished run; `None` when no flow runs HPCC.
    pub fn of(run: &crate::protocol::Finished) -> Option<Self> {
        let rps: Vec<&Rp> = run
            .protocols
            .reaction_points
            .iter()
            .filter_map(|rp| match rp {
                crate::protocol::AnyReactionPoint::Hpcc(rp) => Some(rp),
                _ => None,
            })
            .collect();
        let r = &run.protocols.retired.hpcc;
        if rps.is_empty() && r.flows == 0 {
            return None;
        }
        let flows = rps.len() as u64 + r.flows;
        let n = flows as f64;
        Some(HpccStats {
            flows,
            acks: r.acks + rps.iter().map(|rp| rp.acks).sum::<u64>(),
            per_rtt_updates: r.per_rtt_updates + rps.iter().map(|rp| rp.hpcc.per_rtt_updates).sum::<u64>(),
            fast_reactions: r.fast_reactions + rps.iter().map(|rp| rp.hpcc.fast_reactions).sum::<u64>(),
            mean_utilisation: (rps.iter().map(|rp| rp.hpcc.u).sum::<f64>() + r.u_sum) / n,
            mean_rate_bps: (rps.iter().map(|rp| rp.rate as f64).sum::<f64>() + r.rate_sum) / n,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::PS_PER_US;

    const G100: u64 = 100_000_000_000;

    /// A one-hop path's records: the port at `t_ns` having sent `bytes`, `qlen` queued.
    fn int(t_ns: u64, bytes: u64, qlen: u64) -> IntStack {
        let mut s = IntStack::default();
        s.push(IntHop::new(t_ns, bytes, qlen, G100, 1).unwrap());
        s
    }

    /// T = 10 µs. The bottleneck sent 128 000 bytes in 10 µs (102.4 Gbit/s: u_tx =
    /// 1.024) with 40 000 bytes queued in both records (u_q = 320 000 bits/(100 Gbit/s ·
    /// 10 µs) = 0.32): u = 1.344, τ = T, so U = 1.344; U/η = 1.4147…, R = 100/1.4147 +
    /// 0.04 = 70.724 Gbit/s, taken as R_c (the ACK is past the first update's sequence).
    #[test]
    fn a_full_update_divides_by_u_over_eta() {
        let mut h = Hpcc::new(&HpccParams::default(), G100, 10 * PS_PER_US);
        assert_eq!(h.on_ack(1_000, 50_000, &int(0, 0, 40_000)), None, "the first ACK keeps its records");
        let r = h.on_ack(60_000, 90_000, &int(10_000, 128_000, 40_000)).unwrap();
        assert!((h.utilisation() - 1.344).abs() < 1e-12, "{}", h.utilisation());
        let expected: f64 = 100e9 / (1.344 / 0.95) + 40e6;
        assert!((r as f64 - expected).abs() <= 1.0, "{r}");
        assert!((h.reference_rate() - expected).abs() < 1e-3);
    }

    /// Below η the rate steps up by R_AI per RTT from R_c, maxStage = 5 times, then a
    /// multiplicative step: half the port's capacity sent (u = 0.5, τ = T, U = 0.5)
    /// gives R_c + R_AI five times; the sixth is R_c·η/U + R_AI, capped at line rate.
    /// An ACK within the next RTT (fast react) sets the rate from R_c (stage 0 again:
    /// additive) without moving R_c.
    #[test]
    fn additive_steps_then_a_multiplicative_one() {
        let p = HpccParams { min_rate: Rate(1_000_000_000), ..HpccParams::default() };
        let mut h = Hpcc::new(&p, G100, 10 * PS_PER_US);
        h.reference = 10e9;
        h.on_ack(0, 1, &int(0, 0, 0));
        let mut rates = Vec::new();
        for k in 1..=6u64 {
            // 62 500 bytes per 10 µs: 50 Gbit/s.
            // Each ACK is past the sequence number sent at the last update: once per RTT.
            let r =
                h.on_ack(k * 1_000_000 + 1, (k + 1) * 1_000_000, &int(k * 10_000, k * 62_500, 0)).unwrap();
            rates.push(r);
        }
        assert_eq!(
            rates[..5],
            [10_040_000_000, 10_080_000_000, 10_120_000_000, 10_160_000_000, 10_200_000_000]
        );
        let u = 62_464.0 * 8.0 / 10e-6 / 100e9; // the 128-byte units truncate
        assert!((h.utilisation() - u).abs() < 1e-12);
        assert!((rates[5] as f64 - (10.2e9 / (u / 0.95) + 40e6)).abs() <= 1.0, "{rates:?}");
        let reference = h.reference_rate();
        let fast = h.on_ack(6_000_000, 8_000_000, &int(70_000, 7 * 62_500, 0)).unwrap();
        assert_eq!(h.reference_rate(), reference, "a fast reaction leaves R_c");
        assert!((fast as f64 - (reference + 40e6)).abs() <= 1.0, "additive again from R_c, stage 0");
    }

    /// A record that did not advance in time is skipped; an empty port with nothing sent
    /// drives U to 0 and the multiplicative step to line rate.
    #[test]
    fn stale_records_are_skipped_and_an_idle_path_allows_line_rate() {
        let p = HpccParams { max_stage: 0, ..HpccParams::default() };
        let mut h = Hpcc::new(&p, G100, 10 * PS_PER_US);
        h.reference = 20e9;
        h.on_ack(0, 1, &int(5_000, 0, 0));
        assert_eq!(h.on_ack(10, 20, &int(5_000, 0, 0)), None, "τ = 0");
        assert_eq!(h.on_ack(10, 20, &int(15_000, 0, 0)), Some(G100));
    }
}
