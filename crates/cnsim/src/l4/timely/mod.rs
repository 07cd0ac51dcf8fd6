//! TIMELY's sender (Mittal et al., "TIMELY: RTT-based Congestion Control for the
//! Datacenter", SIGCOMM 2015, Algorithm 1), as the HPCC paper's ns-3 fork runs it
//! (`rdma-hw.cc`, `UpdateRateTimely`): the rate follows the RTT's gradient.
//!
//! Once per RTT (on the first ACK for data sent after the last update), with the new RTT
//! sample r and the previous update's r':
//! - rtt_diff ← (1 − α)·rtt_diff + α·(r − r'); gradient = rtt_diff / minRTT;
//! - r < T_low: increase; r > T_high: R ← R·(1 − β·(1 − T_high/r)); gradient ≤ 0:
//!   increase; otherwise R ← R·max(0, 1 − β·gradient); never below the rate floor;
//! - an increase adds δ, or R_HAI once `hai_after` (5) updates in a row have increased
//!   (hyper-active increase: the paper's N·δ with N = 5; the fork counts every increase,
//!   by T_low or by gradient, and adds its `RateHAI`); at most the line rate.
//!
//! The first ACK only records its RTT. The ACKs between updates change nothing (the
//! fork's `FastReactTimely` is empty).

use serde::{Deserialize, Serialize};

use crate::engine::time::round_u64;
use crate::engine::{Time, PS_PER_US};
use crate::l4::rdma::{BaseRtt, Window};
use crate::protocol::Validate;
use crate::units::select::HostSel;
use crate::units::{Duration, Rate};

/// `[protocols.timely]`: the flows TIMELY runs on and its parameters. The defaults are
/// the paper's (Table 1: α = 0.875, β = 0.8, T_low 50 µs, T_high 500 µs, minRTT 20 µs,
/// δ = 10 Mbit/s, N = 5) and the fork's (`rdma-hw.cc`); the fork's `run.py` runs δ =
/// 10·bw/10 Mbit/s, R_HAI = 50·bw/10 Mbit/s and a 1 Gbit/s floor.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct TimelyConfig {
    /// RDMA flows TIMELY runs on: traffic entry names or patterns ("*" for all).
    pub(crate) flows: HostSel,
    /// α, the EWMA weight of a new RTT difference.
    #[serde(default = "alpha")]
    pub(crate) alpha: f64,
    /// β, the multiplicative decrease factor.
    #[serde(default = "beta")]
    pub(crate) beta: f64,
    /// T_low: below it the rate always increases.
    #[serde(default = "t_low")]
    pub(crate) t_low: Duration,
    /// T_high: above it the rate always decreases.
    #[serde(default = "t_high")]
    pub(crate) t_high: Duration,
    /// The minimum RTT that normalises the gradient.
    #[serde(default = "min_rtt")]
    pub(crate) min_rtt: Duration,
    /// δ, the additive step.
    #[serde(default = "delta")]
    pub(crate) delta: Rate,
    /// The hyper-active step.
    #[serde(default = "r_hai")]
    pub(crate) r_hai: Rate,
    /// Increases in a row before the hyper-active step (N).
    #[serde(default = "hai_after")]
    pub(crate) hai_after: u32,
    /// The rate floor (100 Mbit/s, the fork's `MinRate`).
    #[serde(default = "min_rate")]
    pub(crate) min_rate: Rate,
    /// The queue pairs' window: "bdp" for the fork's variable window, bdp·R/line rate
    /// (TIMELY+win, the HPCC paper's `timely_vwin`); absent, the traffic entry's window
    /// (or none) stays.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(crate) window: Option<Window>,
    /// Which base RTT sizes the window's BDP: "fabric" (the largest over TIMELY's flows,
    /// the fork's) or "path".
    #[serde(default)]
    pub(crate) base_rtt: BaseRtt,
}

fn alpha() -> f64 {
    TimelyParams::default().alpha
}
fn beta() -> f64 {
    TimelyParams::default().beta
}
fn t_low() -> Duration {
    TimelyParams::default().t_low
}
fn t_high() -> Duration {
    TimelyParams::default().t_high
}
fn min_rtt() -> Duration {
    TimelyParams::default().min_rtt
}
fn delta() -> Rate {
    TimelyParams::default().delta
}
fn r_hai() -> Rate {
    TimelyParams::default().r_hai
}
fn hai_after() -> u32 {
    TimelyParams::default().hai_after
}
fn min_rate() -> Rate {
    TimelyParams::default().min_rate
}

impl TimelyConfig {
    /// The sender's parameters.
    pub fn params(&self) -> TimelyParams {
        TimelyParams {
            alpha: self.alpha,
            beta: self.beta,
            t_low: self.t_low,
            t_high: self.t_high,
            min_rtt: self.min_rtt,
            delta: self.delta,
            r_hai: self.r_hai,
            hai_after: self.hai_after,
            min_rate: self.min_rate,
        }
    }
}

impl Validate for TimelyConfig {
    fn validate(&self) -> Result<(), (String, String)> {
        let fraction = |key: &str, v: f64, what: &str, eg: &str| {
            if v > 0.0 && v <= 1.0 {
                Ok(())
            } else {
                Err((key.to_string(), format!("{v} is not {what}; expected (0, 1], e.g. {eg}")))
            }
        };
        fraction("alpha", self.alpha, "an EWMA weight", "0.875")?;
        fraction("beta", self.beta, "a decrease factor", "0.8")?;
        if self.t_high.0 <= self.t_low.0 {
            return Err((
                "t_high".into(),
                format!(
                    "{} is not above t_low ({}); expected T_low < T_high, e.g. 500us",
                    self.t_high, self.t_low
                ),
            ));
        }
        if self.min_rtt.0 == 0 {
            return Err((
                "min_rtt".into(),
                "0s cannot normalise a gradient; expected a time above 0, e.g. 20us".into(),
            ));
        }
        Ok(())
    }
}

/// TIMELY's parameters; defaults are the paper's (Table 1) and the fork's.
#[derive(Clone, Debug, PartialEq)]
pub struct TimelyParams {
    /// α, the EWMA weight of a new RTT difference (0.875).
    pub(crate) alpha: f64,
    /// β, the multiplicative decrease factor (0.8).
    pub(crate) beta: f64,
    /// T_low: below it the rate always increases (50 µs).
    pub(crate) t_low: Duration,
    /// T_high: above it the rate always decreases (500 µs).
    pub(crate) t_high: Duration,
    /// The minimum RTT that normalises the gradient (20 µs).
    pub(crate) min_rtt: Duration,
    /// δ, the additive step (10 Mbit/s).
    pub(crate) delta: Rate,
    /// The hyper-active step (50 Mbit/s: 5·δ).
    pub(crate) r_hai: Rate,
    /// Increases in a row before the hyper-active step (5).
    pub(crate) hai_after: u32,
    /// The rate floor.
    pub(crate) min_rate: Rate,
}

impl Default for TimelyParams {
    fn default() -> Self {
        TimelyParams {
            alpha: 0.875,
            beta: 0.8,
            t_low: Duration(50 * PS_PER_US),
            t_high: Duration(500 * PS_PER_US),
            min_rtt: Duration(20 * PS_PER_US),
            delta: Rate(10_000_000),
            r_hai: Rate(50_000_000),
            hai_after: 5,
            min_rate: Rate(100_000_000),
        }
    }
}

/// One flow's TIMELY state.
#[derive(Clone, Debug)]
pub struct Timely {
    p: TimelyParams,
    line_rate: f64,
    /// R, bit/s.
    rate: f64,
    /// Increases in a row.
    stage: u32,
    /// The smoothed RTT difference, ps.
    rtt_diff: f64,
    /// The RTT at the last update.
    last_rtt: Time,
    /// The next sequence number at the last update (0: no ACK yet).
    last_update_seq: u64,
}

impl Timely {
    /// A flow of a NIC at `line_bps`, starting at line rate.
    pub fn new(p: &TimelyParams, line_bps: u64) -> Self {
        Timely {
            p: p.clone(),
            line_rate: line_bps as f64,
            rate: line_bps as f64,
            stage: 0,
            rtt_diff: 0.0,
            last_rtt: 0,
            last_update_seq: 0,
        }
    }

    /// R, bit/s.
    pub fn rate(&self) -> f64 {
        self.rate
    }

    /// The RTT sample of the last update, ps (0 before the first ACK).
    pub fn last_rtt(&self) -> Time {
        self.last_rtt
    }

    /// An ACK for data up to `ack_seq` measured `rtt` while the next sequence number to
    /// send is `snd_nxt`: the flow's new rate, bit/s, or `None` to keep it.
    pub fn on_ack(&mut self, ack_seq: u64, snd_nxt: u64, rtt: Time) -> Option<u64> {
        if ack_seq <= self.last_update_seq {
            return None;
        }
        let first = self.last_update_seq == 0;
        self.last_update_seq = self.last_update_seq.max(snd_nxt);
        let last_rtt = std::mem::replace(&mut self.last_rtt, rtt);
        if first {
            return None;
        }
        let p = &self.p;
        let new_diff = rtt as f64 - last_rtt as f64;
        self.rtt_diff = (1.0 - p.alpha) * self.rtt_diff + p.alpha * new_diff;
        let gradient = self.rtt_diff / p.min_rtt.0 as f64;
        let factor = if rtt < p.t_low.0 {
            None
        } else if rtt > p.t_high.0 {
            Some(1.0 - p.beta * (1.0 - p.t_high.0 as f64 / rtt as f64))
        } else if gradient <= 0.0 {
            None
        } else {
            Some((1.0 - p.beta * gradient).max(0.0))
        };
        match factor {
            None => {
                let step = if self.stage < p.hai_after { p.delta.0 } else { p.r_hai.0 };
                self.rate = (self.rate + step as f64).min(self.line_rate);
                self.stage += 1;
            }
            Some(c) => {
                self.rate = (self.rate * c).max(p.min_rate.0 as f64);
                self.stage = 0;
            }
        }
        Some(round_u64(self.rate))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const G10: u64 = 10_000_000_000;
    const US: Time = PS_PER_US;

    fn at(rate: f64) -> Timely {
        let mut t = Timely::new(&TimelyParams::default(), G10);
        t.rate = rate;
        t
    }

    /// The first ACK records its RTT; ACKs up to the sequence number then sent change
    /// nothing; below T_low the rate rises by δ five times, then by R_HAI.
    #[test]
    fn below_t_low_additive_then_hyper_active() {
        let mut t = at(5e9);
        assert_eq!(t.on_ack(1, 100, 30 * US), None, "the first ACK");
        assert_eq!(t.on_ack(100, 150, 30 * US), None, "within the RTT");
        let rates: Vec<u64> =
            (1..=7).map(|k| t.on_ack(100 * k + 1, 100 * (k + 1), 30 * US).unwrap()).collect();
        assert_eq!(
            rates,
            [
                5_010_000_000,
                5_020_000_000,
                5_030_000_000,
                5_040_000_000,
                5_050_000_000,
                5_100_000_000,
                5_150_000_000
            ]
        );
    }

    /// Above T_high: R·(1 − β·(1 − T_high/r)); r = 1 ms gives 1 − 0.8·0.5 = 0.6.
    #[test]
    fn above_t_high_the_rate_falls_by_how_far_above() {
        let mut t = at(5e9);
        t.on_ack(1, 10, 1000 * US);
        assert_eq!(t.on_ack(11, 20, 1000 * US), Some(3_000_000_000));
    }

    /// Between the thresholds the gradient decides: RTT 60 → 80 µs, rtt_diff = 0.875·20
    /// = 17.5 µs, gradient 17.5/20 = 0.875, R·(1 − 0.8·0.875) = 0.3·R; then 80 → 70 µs,
    /// rtt_diff = 0.125·17.5 + 0.875·(−10) = −6.5625 µs ≤ 0: + δ.
    #[test]
    fn between_the_thresholds_the_gradient_decides() {
        let mut t = at(5e9);
        t.on_ack(1, 10, 60 * US);
        assert_eq!(t.on_ack(11, 20, 80 * US), Some(1_500_000_000));
        assert_eq!(t.on_ack(21, 30, 70 * US), Some(1_510_000_000));
        assert!((t.rtt_diff - (-6.5625 * US as f64)).abs() < 1e-6);
    }

    /// A steep gradient cannot make the factor negative: the rate floor holds.
    #[test]
    fn the_floor_holds() {
        let mut t = at(5e9);
        t.on_ack(1, 10, 60 * US);
        assert_eq!(t.on_ack(11, 20, 400 * US), Some(100_000_000));
    }
}
