//! Simulated time: an integer number of picoseconds.
//!
//! A `u64` of picoseconds spans 213 simulated days, far beyond any experiment here,
//! and keeps every serialization time of a whole number of bits at the usual
//! Ethernet rates exact (1500 B at 10 Gbit/s is exactly 1 200 000 ps).

/// Simulated time or duration in picoseconds.
pub type Time = u64;

/// Picoseconds per nanosecond.
pub const PS_PER_NS: Time = 1_000;
/// Picoseconds per microsecond.
pub const PS_PER_US: Time = 1_000_000;
/// Picoseconds per millisecond.
pub const PS_PER_MS: Time = 1_000_000_000;
/// Picoseconds per second.
pub const PS_PER_S: Time = 1_000_000_000_000;

/// Time to send a frame of `bytes` at `rate_bps`, in picoseconds, rounded up, without
/// overflow (for sizes and rates a scenario gives, which may be far from a frame's).
pub fn frame_time(bytes: u64, rate_bps: u64) -> u128 {
    (u128::from(bytes) * 8 * u128::from(PS_PER_S)).div_ceil(u128::from(rate_bps.max(1)))
}

/// Time to put `bytes` on a wire of `rate_bps`, rounded up to the next picosecond so that
/// a link never carries more than its rate.
///
/// Example: 1500 B at 10 Gbit/s → 12 000 bits / 1e10 bit/s = 1 200 000 ps.
#[inline]
pub fn serialization_time(bytes: u32, rate_bps: u64) -> Time {
    let num = bytes as u128 * 8 * PS_PER_S as u128;
    let rate = rate_bps as u128;
    num.div_ceil(rate) as Time
}

/// The instant of the `k`-th event of a periodic process that starts at `start` and emits
/// one `bytes`-sized frame every `bytes·8/rate_bps` seconds, computed from `k` directly so
/// that rounding never accumulates (171.875 Mbit/s has a non-integer period in ps).
#[inline]
pub fn periodic_instant(start: Time, k: u64, bytes: u32, rate_bps: u64) -> Time {
    let num = k as u128 * bytes as u128 * 8 * PS_PER_S as u128;
    start + (num / rate_bps as u128) as Time
}

/// Seconds as `f64`, for reports.
#[inline]
pub fn as_secs(t: Time) -> f64 {
    t as f64 / PS_PER_S as f64
}

/// Formats a time with the largest unit that keeps it an integer where possible
/// ("10s", "2us", "1500ps"), the inverse of the scenario parser.
pub fn format_time(t: Time) -> String {
    const UNITS: [(Time, &str); 5] =
        [(PS_PER_S, "s"), (PS_PER_MS, "ms"), (PS_PER_US, "us"), (PS_PER_NS, "ns"), (1, "ps")];
    if t == 0 {
        return "0s".to_string();
    }
    for (scale, unit) in UNITS {
        if t.is_multiple_of(scale) {
            return format!("{}{}", t / scale, unit);
        }
    }
    unreachable!("every integer is a multiple of 1 ps")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn serialization_is_exact_at_ethernet_rates() {
        assert_eq!(serialization_time(1500, 10_000_000_000), 1_200_000);
        assert_eq!(serialization_time(1500, 1_000_000_000), 12_000_000);
        assert_eq!(serialization_time(64, 10_000_000_000), 51_200);
    }

    #[test]
    fn serialization_rounds_up() {
        // 1 byte at 3 bit/s = 8/3 s = 2.666.. s → rounds up by a fraction of a ps.
        assert_eq!(serialization_time(1, 3), 2_666_666_666_667);
    }

    #[test]
    fn periodic_instants_do_not_drift() {
        // 171.875 Mbit/s: period 12000/171.875e6 s = 69 818 181.818.. ps.
        let r = 171_875_000;
        assert_eq!(periodic_instant(0, 1, 1500, r), 69_818_181);
        assert_eq!(periodic_instant(0, 11, 1500, r), 768_000_000); // 11 periods = exactly 768 us
        assert_eq!(periodic_instant(5, 11, 1500, r), 768_000_005);
    }

    #[test]
    fn formats_round_trip_units() {
        assert_eq!(format_time(10 * PS_PER_S), "10s");
        assert_eq!(format_time(2 * PS_PER_US), "2us");
        assert_eq!(format_time(1500), "1500ps");
        assert_eq!(format_time(0), "0s");
    }
}
