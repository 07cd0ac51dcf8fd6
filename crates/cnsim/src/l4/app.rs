//! Applications over a transport: what data a connection is given and when, away from
//! the data path, which only asks.
//!
//! - bulk: unlimited data;
//! - bytes: one transfer of a given size;
//! - incast (Devkota & Reddy; Phanishayee et al. 2008): each server sends one server
//!   request unit (SRU) per round; a round ends when every server's SRU has reached the
//!   client, which then requests the next round from all of them (a barrier);
//! - web: objects of Pareto sizes separated by exponential think times.

use serde::{Deserialize, Serialize};

use crate::engine::{RngStream, Time, PS_PER_S};
use crate::units::{Duration, Size};

/// Web traffic (`web = { … }` on a `tcp` entry): each source is a user fetching objects
/// one after another over its connection. An object's size is Pareto distributed
/// (heavy-tailed: shape α, mean `size_mean`, so scale = mean·(α − 1)/α), rounded up to
/// whole segments; once it is acknowledged the user thinks for an exponential time of
/// mean `think_mean`, then the next object starts in slow start from the initial window
/// (RFC 5681's restart after an idle period longer than the RTO), the RTT estimate kept.
/// The model of the web sources in Floyd, Gummadi & Shenker's Adaptive RED simulations
/// and ns-2's web traffic generator, reduced to one connection per user.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct WebParams {
    /// Mean object size.
    pub(crate) size_mean: Size,
    /// Pareto shape α (> 1: a finite mean; 1.2 is the value common in web models).
    pub(crate) size_shape: f64,
    /// Mean think time between objects.
    pub(crate) think_mean: Duration,
}

impl Default for WebParams {
    fn default() -> Self {
        WebParams { size_mean: Size::Bytes(12_000), size_shape: 1.2, think_mean: Duration(PS_PER_S) }
    }
}

impl WebParams {
    /// Checks the values; errors name the key under `prefix`.
    pub fn check(&self, prefix: &str) -> Result<(), (String, String)> {
        if !matches!(self.size_mean, Size::Bytes(b) if b > 0) {
            return Err((
                format!("{prefix}.size_mean"),
                format!(
                    "\"{}\" is not an object size; expected a positive size in bytes, e.g. \"12KB\"",
                    self.size_mean
                ),
            ));
        }
        if !(self.size_shape > 1.0 && self.size_shape <= 10.0) {
            return Err((
                format!("{prefix}.size_shape"),
                format!(
                    "{} is not a Pareto shape with a finite mean; expected a number in (1, 10], e.g. 1.2",
                    self.size_shape
                ),
            ));
        }
        if self.think_mean.0 == 0 {
            return Err((
                format!("{prefix}.think_mean"),
                "is 0s; expected a positive time, e.g. \"1s\"".into(),
            ));
        }
        Ok(())
    }

    /// An object's size in bytes for a uniform draw `u` in [0, 1): the Pareto quantile
    /// scale·(1 − u)^(−1/α).
    pub fn object_bytes(&self, u: f64) -> f64 {
        let mean = self.size_mean.value() as f64;
        let scale = mean * (self.size_shape - 1.0) / self.size_shape;
        scale * crate::engine::math::powf(1.0 - u, -1.0 / self.size_shape)
    }
}

/// What the application gives the connection.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum App {
    /// Unlimited data (a bulk transfer).
    Bulk,
    /// This many bytes, then nothing.
    Bytes(u64),
    /// An incast server: one server request unit of this many bytes per round, each
    /// round when the client's request arrives (the first at the start).
    Incast {
        /// The SRU, bytes.
        sru: u64,
        /// The incast group (index into the simulator's groups).
        group: u32,
    },
    /// Web objects with think times between them.
    Web(WebParams),
}

/// The servers of one incast client: a round ends when every server's SRU has reached
/// the client, which then requests the next from all of them (a barrier).
#[derive(Clone, Debug, Default)]
pub struct IncastGroup {
    /// The servers' flows.
    pub(crate) flows: Vec<u32>,
    /// Servers whose SRU of the current round has not yet arrived.
    pub(crate) waiting: u32,
    /// Rounds completed.
    pub(crate) rounds: u64,
}

impl App {
    /// Application bytes in the first `segments` data segments of `payload` bytes (a
    /// finite transfer's last segment, and each SRU's, carries only what is left).
    pub fn bytes_in(&self, segments: u64, payload: u32) -> u64 {
        let payload = u64::from(payload);
        match *self {
            App::Bulk | App::Web(_) => segments * payload,
            App::Bytes(b) => (segments * payload).min(b),
            App::Incast { sru, .. } => {
                let per_round = sru.div_ceil(payload);
                (segments / per_round) * sru + ((segments % per_round) * payload).min(sru)
            }
        }
    }

    /// Segments the application hands over at the start: all of a transfer or the
    /// first SRU (its last segment may be short but travels full-size, as ns-2's
    /// ⌈N/size⌉ packets do), an unbounded supply, or none (web objects are drawn as
    /// they start).
    pub fn first_segments(&self, payload: u32) -> u64 {
        match *self {
            App::Bulk => 1 << 40,
            App::Web(_) => 0,
            App::Bytes(b) | App::Incast { sru: b, .. } => b.div_ceil(u64::from(payload)),
        }
    }

    /// Incast: SRUs completely delivered in the first `segments` segments.
    pub fn rounds_in(&self, segments: u64, payload: u32) -> u64 {
        match *self {
            App::Incast { sru, .. } => segments / sru.div_ceil(u64::from(payload)),
            _ => 0,
        }
    }
}

impl IncastGroup {
    /// One server's SRU of the round reached the client: when it is the last, the
    /// round ends and the number of the next round is returned (the client requests it
    /// from every server).
    pub fn arrived(&mut self) -> Option<u32> {
        self.waiting -= 1;
        if self.waiting > 0 {
            return None;
        }
        self.rounds += 1;
        self.waiting = self.flows.len() as u32;
        Some(self.rounds as u32)
    }
}

impl WebParams {
    /// The next object, in whole segments of `payload` bytes, drawn from `rng`.
    pub fn next_object(&self, rng: &mut RngStream, payload: u32) -> u64 {
        let bytes = self.object_bytes(rng.uniform());
        (bytes / f64::from(payload)).ceil().max(1.0) as u64
    }

    /// The user's think time after an object, drawn from `rng` (at least 1 ps).
    pub fn think(&self, rng: &mut RngStream) -> Time {
        (rng.exponential(self.think_mean.0 as f64) as Time).max(1)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Pareto quantiles: the scale at u = 0, twice it where (1 − u) = 2^−α, and a sample
    /// mean near the configured mean when the tail is light enough to average (α = 3).
    #[test]
    fn web_object_sizes_are_pareto() {
        let w = WebParams { size_mean: Size::Bytes(12_000), size_shape: 1.2, think_mean: Duration(PS_PER_S) };
        let scale = 12_000.0 * 0.2 / 1.2;
        assert!((w.object_bytes(0.0) - scale).abs() < 1e-9);
        let u = 1.0 - 2f64.powf(-1.2);
        assert!((w.object_bytes(u) - 2.0 * scale).abs() < 1e-6);
        let w3 = WebParams { size_shape: 3.0, ..w };
        let n = 100_000;
        let mean = (0..n).map(|i| w3.object_bytes((i as f64 + 0.5) / n as f64)).sum::<f64>() / n as f64;
        assert!((mean - 12_000.0).abs() < 120.0, "{mean}");
        assert!(WebParams { size_shape: 1.0, ..w }.check("web").is_err());
    }

    /// A transfer's bytes stop at its size; an incast server's count SRU by SRU, each
    /// SRU's last segment short.
    #[test]
    fn applications_count_the_bytes_their_segments_carry() {
        assert_eq!(App::Bytes(2500).first_segments(1000), 3);
        assert_eq!(App::Bytes(2500).bytes_in(3, 1000), 2500);
        assert_eq!(App::Bytes(2500).bytes_in(2, 1000), 2000);
        let incast = App::Incast { sru: 2500, group: 0 };
        assert_eq!(incast.bytes_in(3, 1000), 2500);
        assert_eq!(incast.bytes_in(4, 1000), 3500);
        assert_eq!(incast.rounds_in(5, 1000), 1);
        assert_eq!(incast.rounds_in(6, 1000), 2);
        assert_eq!(App::Bulk.bytes_in(4, 1000), 4000);
    }

    /// The barrier: the round ends with its last SRU, and the next begins.
    #[test]
    fn an_incast_round_ends_with_its_last_server() {
        let mut g = IncastGroup { flows: vec![0, 1, 2], waiting: 3, rounds: 0 };
        assert_eq!(g.arrived(), None);
        assert_eq!(g.arrived(), None);
        assert_eq!(g.arrived(), Some(1));
        assert_eq!(g.waiting, 3);
    }
}
