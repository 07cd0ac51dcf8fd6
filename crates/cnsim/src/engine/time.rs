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

/// `x.round() as u64` (half away from zero, saturating, NaN to 0) for every `f64`,
/// without libm's `round`, which x86-64's baseline instruction set makes a call: for the
/// times and rates the data path computes in `f64` at every ACK (TCP's timeout, HPCC's
/// and TIMELY's rates). The cast truncates, and the fraction it dropped, exact below 2⁵³
/// and zero above, decides.
#[inline]
pub fn round_u64(x: f64) -> u64 {
    let t = x as u64;
    if x - t as f64 >= 0.5 {
        t.saturating_add(1)
    } else {
        t
    }
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
    fn rounding_to_u64_matches_round_for_every_kind_of_value() {
        let two53 = 9_007_199_254_740_992.0;
        let edges = [
            0.0,
            -0.0,
            0.49999999999999994,
            0.5,
            1.5,
            2.5,
            2.4999999999999996,
            -0.4,
            -0.5,
            -1.5,
            1e6 + 0.5,
            two53 - 0.5,
            two53 - 1.5,
            two53,
            two53 + 2.0,
            1.8446744073709552e19,
            1e20,
            f64::MAX,
            f64::INFINITY,
            f64::NEG_INFINITY,
            f64::NAN,
            f64::MIN_POSITIVE,
        ];
        for x in edges {
            assert_eq!(round_u64(x), x.round() as u64, "{x:e}");
        }
        let mut bits = 0x9E37_79B9_7F4A_7C15u64;
        for _ in 0..100_000 {
            bits ^= bits << 13;
            bits ^= bits >> 7;
            bits ^= bits << 17;
            let x = f64::from_bits(bits);
            let y = (bits >> 11) as f64 / 1024.0;
            for v in [x, y, y + 0.5] {
                assert_eq!(round_u64(v), v.round() as u64, "{v:e}");
            }
        }
    }

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
