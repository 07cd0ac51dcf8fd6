//! Quantities written as strings with units: rates ("10Gbps"), times ("500ns"), sizes
//! ("150KB", "100 frames").
//!
//! Parsing is exact: the number is read as a decimal and scaled in integers, so
//! "171.875Mbps" is exactly 171 875 000 bit/s and "1.5us" exactly 1 500 000 ps.
//! Decimal prefixes are powers of ten (K = 1000, as in the IEEE 802.1Qau MIB's octet
//! values); binary prefixes are spelled KiB, MiB, GiB.

pub mod select;

use std::fmt;

use serde::de::{self, Deserializer, Visitor};
use serde::{Deserialize, Serialize, Serializer};

use crate::engine::time::format_time;
use crate::engine::{Time, PS_PER_S};

/// The longest time a scenario may state (one day of simulated time, far beyond any
/// experiment here). Keeping every time this small keeps every sum of times the
/// simulator forms (start + period, now + delay + serialization, ...) far from `u64`
/// overflow.
pub const MAX_TIME: Time = 86_400 * PS_PER_S;

/// Whether a count is zero: a serde `skip_serializing_if` for counters that outputs
/// leave out while nothing was counted.
pub(crate) fn is_zero(n: &u64) -> bool {
    *n == 0
}

/// Whether `s` is written with a leading minus sign.
fn is_negative(s: &str) -> bool {
    s.trim_start().starts_with('-')
}

/// Splits "10 Gbps" into ("10", "Gbps") and "1e9bps" into ("1e9", "bps"): the number
/// may have a decimal exponent (`e` followed by an optional sign and digits).
fn split_number(s: &str) -> (&str, &str) {
    let s = s.trim();
    let mut end = s.find(|c: char| !(c.is_ascii_digit() || c == '.' || c == '_')).unwrap_or(s.len());
    let rest = &s.as_bytes()[end..];
    if matches!(rest.first(), Some(b'e' | b'E')) {
        let sign = usize::from(matches!(rest.get(1), Some(b'+' | b'-')));
        let digits = rest[1 + sign..].iter().take_while(|b| b.is_ascii_digit()).count();
        if digits > 0 {
            end += 1 + sign + digits;
        }
    }
    (&s[..end], s[end..].trim())
}

/// `number × mult / div`, exactly when the result is an integer, otherwise `None`.
/// Accepts "12", "12.5", "0.001", "1e9", "2.5E-3"; rejects signs and empty strings.
fn scale_decimal(num: &str, mult: u128, div: u128) -> Option<u128> {
    let (num, exp) = match num.split_once(['e', 'E']) {
        Some((m, e)) => (m, e.parse::<i32>().ok()?),
        None => (num, 0),
    };
    if exp.unsigned_abs() > 30 {
        return None;
    }
    let (mult, div) = if exp >= 0 {
        (mult.checked_mul(10u128.pow(exp as u32))?, div)
    } else {
        (mult, div.checked_mul(10u128.pow(exp.unsigned_abs()))?)
    };
    let num = num.replace('_', "");
    if num.is_empty() || num.matches('.').count() > 1 || num == "." {
        return None;
    }
    let (int, frac) = num.split_once('.').unwrap_or((&num, ""));
    if frac.len() > 18 || int.len() > 24 {
        return None;
    }
    let digits: u128 = format!("{int}{frac}").parse().ok()?;
    let denom = 10u128.checked_pow(frac.len() as u32)?.checked_mul(div)?;
    let scaled = digits.checked_mul(mult)?;
    (scaled % denom == 0).then(|| scaled / denom)
}

macro_rules! string_quantity {
    ($ty:ident, $what:literal, $example:literal) => {
        impl<'de> Deserialize<'de> for $ty {
            fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
                struct V;
                impl Visitor<'_> for V {
                    type Value = $ty;
                    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                        write!(f, concat!("a ", $what, " as a string, e.g. \"", $example, "\""))
                    }
                    fn visit_str<E: de::Error>(self, s: &str) -> Result<$ty, E> {
                        s.parse().map_err(E::custom)
                    }
                    fn visit_i64<E: de::Error>(self, v: i64) -> Result<$ty, E> {
                        Err(E::custom(format!(
                            concat!(
                                "{} has no unit; expected a ",
                                $what,
                                " with a unit, e.g. \"",
                                $example,
                                "\""
                            ),
                            v
                        )))
                    }
                    fn visit_u64<E: de::Error>(self, v: u64) -> Result<$ty, E> {
                        self.visit_i64(v as i64)
                    }
                    fn visit_f64<E: de::Error>(self, v: f64) -> Result<$ty, E> {
                        Err(E::custom(format!(
                            concat!(
                                "{} has no unit; expected a ",
                                $what,
                                " with a unit, e.g. \"",
                                $example,
                                "\""
                            ),
                            v
                        )))
                    }
                }
                d.deserialize_any(V)
            }
        }
        impl Serialize for $ty {
            fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
                s.serialize_str(&self.to_string())
            }
        }
    };
}

/// A bit rate in bit/s (> 0).
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub struct Rate(pub u64);

impl std::str::FromStr for Rate {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, String> {
        let rate = Rate::parse_allowing_zero(s)?;
        if rate.0 == 0 {
            return Err(format!("\"{s}\" is zero; expected a positive rate, e.g. \"10Gbps\""));
        }
        Ok(rate)
    }
}

impl Rate {
    /// Parses a rate, zero included.
    fn parse_allowing_zero(s: &str) -> Result<Self, String> {
        let bad = || format!("\"{s}\" is not a rate, expected e.g. \"10Gbps\"");
        if is_negative(s) {
            return Err(format!("\"{s}\" is negative; expected a positive rate, e.g. \"10Gbps\""));
        }
        let (num, unit) = split_number(s);
        let mult: u128 = match unit {
            "bps" | "bit/s" | "b/s" => 1,
            "kbps" | "Kbps" | "kbit/s" | "Kbit/s" | "kb/s" | "Kb/s" => 1_000,
            "Mbps" | "Mbit/s" | "Mb/s" => 1_000_000,
            "Gbps" | "Gbit/s" | "Gb/s" => 1_000_000_000,
            "Tbps" | "Tbit/s" | "Tb/s" => 1_000_000_000_000,
            _ => return Err(bad()),
        };
        let v = match scale_decimal(num, mult, 1) {
            Some(v) => v,
            None if scale_decimal(num, mult * 1_000_000, 1).is_some()
                || num.parse::<f64>().is_ok_and(|x| x.is_finite()) =>
            {
                return Err(format!(
                    "\"{s}\" is not a whole number of bit/s; rates are exact integers of bit/s \
                     (so that frame times are exact), expected e.g. \"1.5Mbps\" or \"1500001bps\""
                ))
            }
            None => return Err(bad()),
        };
        u64::try_from(v).map(Rate).map_err(|_| format!("\"{s}\" is too large a rate"))
    }
}

/// Deserializes a rate that may be zero, for keys where `"0bps"` means none
/// (`#[serde(deserialize_with = "rate_or_zero")]`): a resolved scenario writes such a
/// key's default as `"0bps"`, and must read back.
pub fn rate_or_zero<'de, D: Deserializer<'de>>(d: D) -> Result<Rate, D::Error> {
    struct V;
    impl Visitor<'_> for V {
        type Value = Rate;
        fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
            write!(f, "a rate as a string, e.g. \"1Mbps\", or \"0bps\" for none")
        }
        fn visit_str<E: de::Error>(self, s: &str) -> Result<Rate, E> {
            Rate::parse_allowing_zero(s).map_err(E::custom)
        }
    }
    d.deserialize_str(V)
}

impl fmt::Display for Rate {
    /// The largest unit in which the value has at most three decimals:
    /// "10Gbps", "171.875Mbps", "1.5Mbps", "7bps".
    fn fmt(&self, f: &mut fmt::Formatter) -> fmt::Result {
        const UNITS: [(u64, &str); 4] =
            [(1_000_000_000, "Gbps"), (1_000_000, "Mbps"), (1_000, "kbps"), (1, "bps")];
        for (scale, unit) in UNITS {
            let step = (scale / 1000).max(1);
            if self.0 >= scale && self.0.is_multiple_of(step) {
                let whole = self.0 / scale;
                let frac = (self.0 % scale) / step;
                if frac == 0 {
                    return write!(f, "{whole}{unit}");
                }
                let digits = format!("{frac:03}");
                return write!(f, "{whole}.{}{unit}", digits.trim_end_matches('0'));
            }
        }
        write!(f, "{}bps", self.0)
    }
}
string_quantity!(Rate, "rate", "10Gbps");

/// A time or duration in picoseconds (≥ 0).
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Default)]
pub struct Duration(pub Time);

impl std::str::FromStr for Duration {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, String> {
        let bad = || format!("\"{s}\" is not a time, expected e.g. \"500ns\", \"1.5us\" or \"10ms\"");
        if is_negative(s) {
            return Err(format!("\"{s}\" is negative; expected a time of zero or more, e.g. \"500ns\""));
        }
        let (num, unit) = split_number(s);
        let mult: u128 = match unit {
            "ps" => 1,
            "ns" => 1_000,
            // The micro sign (U+00B5) and the Greek mu (U+03BC) look alike.
            "us" | "µs" | "μs" => 1_000_000,
            "ms" => 1_000_000_000,
            "s" => 1_000_000_000_000,
            _ => return Err(bad()),
        };
        // Rounds to the nearest picosecond when finer than that.
        let num_clean = num.replace('_', "");
        let v = match scale_decimal(&num_clean, mult, 1) {
            Some(v) => v,
            None => {
                let x: f64 = num_clean.parse().map_err(|_| bad())?;
                if !x.is_finite() || x < 0.0 {
                    return Err(bad());
                }
                (x * mult as f64).round() as u128
            }
        };
        u64::try_from(v).ok().filter(|&t| t <= MAX_TIME).map(Duration).ok_or_else(|| {
            format!("\"{s}\" is too long a time; expected at most {} (one day)", format_time(MAX_TIME))
        })
    }
}

impl Duration {
    /// Whether the time is zero (serde: a key left out of a resolved scenario at its
    /// default of "0s").
    pub fn is_zero(&self) -> bool {
        self.0 == 0
    }
}

impl fmt::Display for Duration {
    fn fmt(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str(&format_time(self.0))
    }
}
string_quantity!(Duration, "time", "500ns");

/// An amount of buffer or data: bytes or frames.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Size {
    /// Bytes.
    Bytes(u64),
    /// Frames.
    Frames(u64),
}

impl Size {
    /// Bytes, converting frames at `frame_bytes` each.
    /// Saturates at `u64::MAX` rather than overflowing.
    pub fn bytes(self, frame_bytes: u64) -> u64 {
        match self {
            Size::Bytes(b) => b,
            Size::Frames(n) => n.saturating_mul(frame_bytes),
        }
    }

    /// The numeric value in its own unit.
    pub fn value(self) -> u64 {
        match self {
            Size::Bytes(v) | Size::Frames(v) => v,
        }
    }
}

impl std::str::FromStr for Size {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, String> {
        let bad = || format!("\"{s}\" is not a size, expected e.g. \"150KB\", \"1500B\" or \"100 frames\"");
        if is_negative(s) {
            return Err(format!(
                "\"{s}\" is negative; expected a size of zero or more, e.g. \"150KB\" or \"100 frames\""
            ));
        }
        let (num, unit) = split_number(s);
        let (mult, frames): (u128, bool) = match unit {
            "frame" | "frames" | "pkt" | "pkts" | "packets" | "p" => (1, true),
            "B" | "bytes" | "byte" => (1, false),
            "KB" | "kB" => (1_000, false),
            "MB" => (1_000_000, false),
            "GB" => (1_000_000_000, false),
            "KiB" => (1 << 10, false),
            "MiB" => (1 << 20, false),
            "GiB" => (1 << 30, false),
            _ => return Err(bad()),
        };
        let v = scale_decimal(num, mult, 1).ok_or_else(bad)?;
        let v = u64::try_from(v).map_err(|_| bad())?;
        Ok(if frames { Size::Frames(v) } else { Size::Bytes(v) })
    }
}

impl fmt::Display for Size {
    fn fmt(&self, f: &mut fmt::Formatter) -> fmt::Result {
        match *self {
            Size::Frames(n) => write!(f, "{n} frames"),
            Size::Bytes(b) if b > 0 && b % 1_000_000 == 0 => write!(f, "{}MB", b / 1_000_000),
            Size::Bytes(b) if b > 0 && b % 1_000 == 0 => write!(f, "{}KB", b / 1_000),
            Size::Bytes(b) => write!(f, "{b}B"),
        }
    }
}

impl<'de> Deserialize<'de> for Size {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V;
        impl Visitor<'_> for V {
            type Value = Size;
            fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                write!(f, "a size such as \"150KB\", \"1500B\" or \"100 frames\"")
            }
            fn visit_str<E: de::Error>(self, s: &str) -> Result<Size, E> {
                s.parse().map_err(E::custom)
            }
            fn visit_i64<E: de::Error>(self, v: i64) -> Result<Size, E> {
                Err(E::custom(format!(
                    "{v} has no unit; expected a size with a unit, e.g. \"{v}B\" or \"{v} frames\""
                )))
            }
            fn visit_u64<E: de::Error>(self, v: u64) -> Result<Size, E> {
                self.visit_i64(v as i64)
            }
        }
        d.deserialize_any(V)
    }
}

impl Serialize for Size {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(&self.to_string())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rates_parse_exactly() {
        assert_eq!("10Gbps".parse::<Rate>(), Ok(Rate(10_000_000_000)));
        assert_eq!("1.5Mbps".parse::<Rate>(), Ok(Rate(1_500_000)));
        assert_eq!("171.875Mbps".parse::<Rate>(), Ok(Rate(171_875_000)));
        assert_eq!("200 Mbit/s".parse::<Rate>(), Ok(Rate(200_000_000)));
        assert!("10Gbs".parse::<Rate>().unwrap_err().contains("expected e.g. \"10Gbps\""));
        assert_eq!("200Mb/s".parse::<Rate>(), Ok(Rate(200_000_000)));
        assert_eq!("1e9bps".parse::<Rate>(), Ok(Rate(1_000_000_000)));
        assert_eq!("2.5E3kbps".parse::<Rate>(), Ok(Rate(2_500_000)));
        let e = "0.5bps".parse::<Rate>().unwrap_err();
        assert!(e.contains("not a whole number of bit/s"), "{e}");
        let e = "1e-3bps".parse::<Rate>().unwrap_err();
        assert!(e.contains("not a whole number of bit/s"), "{e}");
        assert!("0Gbps".parse::<Rate>().unwrap_err().contains("positive"));
        assert!("-1Gbps".parse::<Rate>().is_err());
        assert!("0.1bps".parse::<Rate>().is_err());
    }

    #[test]
    fn rates_display_round_trips() {
        for s in ["10Gbps", "1500kbps", "171.875Mbps", "5Mbps", "7bps"] {
            let r: Rate = s.parse().unwrap();
            assert_eq!(r.to_string().parse::<Rate>().unwrap(), r, "{s}");
        }
        assert_eq!(Rate(171_875_000).to_string(), "171.875Mbps");
    }

    #[test]
    fn times_parse_exactly() {
        assert_eq!("500ns".parse::<Duration>(), Ok(Duration(500_000)));
        assert_eq!("1us".parse::<Duration>(), Ok(Duration(1_000_000)));
        assert_eq!("10μs".parse::<Duration>(), Ok(Duration(10_000_000)), "Greek mu");
        assert_eq!("10µs".parse::<Duration>(), Ok(Duration(10_000_000)), "micro sign");
        assert_eq!("2e-6s".parse::<Duration>(), Ok(Duration(2_000_000)));
        assert_eq!("1.5us".parse::<Duration>(), Ok(Duration(1_500_000)));
        assert_eq!("10s".parse::<Duration>(), Ok(Duration(10_000_000_000_000)));
        assert_eq!("0s".parse::<Duration>(), Ok(Duration(0)));
        assert!("10".parse::<Duration>().is_err());
        assert!("-3ms".parse::<Duration>().is_err());
        assert!("3 fortnights".parse::<Duration>().is_err());
    }

    #[test]
    fn negative_and_zero_quantities_say_so() {
        assert_eq!(
            "-1Gbps".parse::<Rate>(),
            Err("\"-1Gbps\" is negative; expected a positive rate, e.g. \"10Gbps\"".into())
        );
        assert_eq!(
            "0Gbps".parse::<Rate>(),
            Err("\"0Gbps\" is zero; expected a positive rate, e.g. \"10Gbps\"".into())
        );
        assert!("-1ms".parse::<Duration>().unwrap_err().contains("is negative"));
        assert!("-1B".parse::<Size>().unwrap_err().contains("is negative"));
    }

    #[test]
    fn times_are_at_most_a_day() {
        assert_eq!("86400s".parse::<Duration>(), Ok(Duration(MAX_TIME)));
        assert_eq!("1440ms".parse::<Duration>(), Ok(Duration(1_440_000_000_000)));
        for s in ["86400.000000000001s", "86401s", "18446744s", "1e400s", "99999999999999999999999s"] {
            let e = s.parse::<Duration>().unwrap_err();
            assert!(e.contains("is too long a time") || e.contains("is not a time"), "{s}: {e}");
        }
    }

    /// Regression: converting a huge frame count to bytes overflowed.
    #[test]
    fn frames_to_bytes_saturates() {
        assert_eq!(Size::Frames(u64::MAX).bytes(1500), u64::MAX);
        assert_eq!(Size::Frames(10).bytes(1500), 15_000);
    }

    #[test]
    fn sizes_parse_bytes_and_frames() {
        assert_eq!("150KB".parse::<Size>(), Ok(Size::Bytes(150_000)));
        assert_eq!("150KiB".parse::<Size>(), Ok(Size::Bytes(153_600)));
        assert_eq!("100 frames".parse::<Size>(), Ok(Size::Frames(100)));
        assert_eq!("1500B".parse::<Size>(), Ok(Size::Bytes(1500)));
        assert_eq!("37.5KB".parse::<Size>(), Ok(Size::Bytes(37_500)));
        assert!("12 parsecs".parse::<Size>().is_err());
        assert!("1.5B".parse::<Size>().is_err());
    }
}
