//! Time bounds of periodic processes. A timer that fires every period for as long as the
//! run lasts costs duration / period events for each of its instances whatever the
//! traffic does, so a tiny period ("1ps") would run practically forever, or fill memory
//! with samples. Each such period is refused where it is set when its firings over the
//! run exceed a limit, saying the count and the shortest period that fits.
//!
//! Processes whose events follow traffic (a probe or a sample every so many bytes, a
//! PAUSE refresh while a queue is above its threshold, a retransmission timeout) are
//! bounded by what the traffic costs and are not counted here.

use super::error::ScenarioError;
use super::units::Duration;
use crate::engine::Time;

/// Most samples of the time series over a run: 10^7, e.g. one every 100 ns for a
/// second (the bundled scenarios take at most 10^5). The memory the samples need is
/// bounded separately, with the rest of the run's (see `budget`).
pub const MAX_SAMPLES: u64 = 10_000_000;

/// Most firings of one protocol's periodic timers over a run, all its instances
/// together: 10^8, as for random on/off cycles (a few seconds of events), e.g. FECN
/// probes every 10 µs from 100 flows for 10 s. The bundled scenarios and reproductions
/// need at most about 10^6 (4096 flows probing every millisecond for a quarter second).
pub const MAX_TIMER_FIRINGS: u64 = 100_000_000;

/// A periodic timer as a scenario sets it.
pub struct Periodic<'a> {
    /// The key that sets the period, e.g. "protocols.fecn.t".
    pub(crate) key: &'a str,
    /// The period as given.
    pub(crate) period: Duration,
    /// The shortest time between two firings, as a fraction of the period (below 1
    /// where a jitter or a faster phase shortens it).
    pub(crate) shortest: f64,
    /// How many run at once, e.g. one per flow.
    pub(crate) instances: u64,
    /// What one instance is, e.g. "flow".
    pub(crate) instance: &'a str,
    /// What a firing is, in the plural, e.g. "probes".
    pub(crate) firings: &'a str,
    /// Most firings over the run, all instances together.
    pub(crate) limit: u64,
}

/// Refuses `p` (in `file`) if it fires more than its limit over `duration`.
pub fn check(p: &Periodic, duration: Duration, file: &str) -> Result<(), ScenarioError> {
    let shortest = ((p.period.0 as f64 * p.shortest).floor() as Time).max(1);
    let each = duration.0 / shortest;
    let count = u128::from(each) * u128::from(p.instances);
    if count <= u128::from(p.limit) {
        return Ok(());
    }
    // The shortest period that fits: instances × duration / (period × shortest) ≤ limit.
    let fits = (duration.0 as f64 * p.instances as f64 / p.limit as f64 / p.shortest).ceil();
    let fits = Duration(if fits >= u64::MAX as f64 { u64::MAX } else { fits as u64 });
    let how = if p.instances == 1 && p.shortest == 1.0 {
        String::new()
    } else {
        let s = if p.instances == 1 { "" } else { "s" };
        format!(
            " ({} {}{s} × {each}, one every {} at the shortest)",
            p.instances,
            p.instance,
            Duration(shortest)
        )
    };
    Err(ScenarioError::new(
        file,
        p.key,
        format!(
            "\"{}\" gives {count} {} over the duration \"{duration}\"{how}; expected at most {} {}, i.e. a \
             period of at least \"{fits}\"",
            p.period, p.firings, p.limit, p.firings
        ),
    ))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::{PS_PER_MS, PS_PER_S};

    fn fecn(period: u64, instances: u64) -> Periodic<'static> {
        Periodic {
            key: "protocols.fecn.t",
            period: Duration(period),
            shortest: 1.0,
            instances,
            instance: "flow",
            firings: "probes",
            limit: MAX_TIMER_FIRINGS,
        }
    }

    /// Hand-worked: 100 flows probing every 10 µs for 10 s fire 100 × 10^6 = 10^8
    /// times, the limit; every 9 µs, 100 × 1 111 111 times, over it, and the period
    /// that fits is 10 µs.
    #[test]
    fn firings_are_counted_over_the_run_and_all_instances() {
        let ten_s = Duration(10 * PS_PER_S);
        check(&fecn(10_000_000, 100), ten_s, "f.toml").unwrap();
        let e = check(&fecn(9_000_000, 100), ten_s, "f.toml").unwrap_err();
        assert_eq!(e.path, "protocols.fecn.t");
        assert_eq!(
            e.message,
            "\"9us\" gives 111111100 probes over the duration \"10s\" (100 flows × 1111111, one every \
             9us at the shortest); expected at most 100000000 probes, i.e. a period of at least \"10us\""
        );
        // 1 ps for a second: 10^12.
        let e = check(&fecn(1, 1), Duration(PS_PER_S), "f.toml").unwrap_err();
        assert!(
            e.message.starts_with("\"1ps\" gives 1000000000000 probes over the duration \"1s\"; "),
            "{e}"
        );
        assert!(e.message.ends_with("at least \"10ns\""), "{e}");
    }

    /// A jitter or a faster phase counts at its shortest: a 15 ms timer halved and
    /// jittered down to 0.5 fires every 3.75 ms at the shortest.
    #[test]
    fn the_shortest_gap_counts() {
        let qcn = |instances| Periodic {
            key: "protocols.qcn.rp.timer",
            period: Duration(15 * PS_PER_MS),
            shortest: 0.25,
            instances,
            instance: "reaction point",
            firings: "timer expiries",
            limit: 1000,
        };
        // 3.75 ms in 1 s: 266 each.
        check(&qcn(3), Duration(PS_PER_S), "f.toml").unwrap();
        let e = check(&qcn(4), Duration(PS_PER_S), "f.toml").unwrap_err();
        assert!(e.message.contains("gives 1064 timer expiries"), "{e}");
        assert!(e.message.contains("(4 reaction points × 266, one every 3750us at the shortest)"), "{e}");
        // 4 × 1 s / 1000 / 0.25 = 16 ms.
        assert!(e.message.ends_with("at least \"16ms\""), "{e}");
    }

    /// Samples: one series, no jitter; the message says just the count.
    #[test]
    fn samples_are_bounded() {
        let samples = |ps| Periodic {
            key: "metrics.interval",
            period: Duration(ps),
            shortest: 1.0,
            instances: 1,
            instance: "series",
            firings: "samples",
            limit: MAX_SAMPLES,
        };
        check(&samples(100_000), Duration(PS_PER_S), "f.toml").unwrap();
        let e = check(&samples(2_000), Duration(PS_PER_S), "f.toml").unwrap_err();
        assert_eq!(
            e.message,
            "\"2ns\" gives 500000000 samples over the duration \"1s\"; expected at most 10000000 \
             samples, i.e. a period of at least \"100ns\""
        );
    }
}
