//! Quantities written as strings with units: rates ("10Gbps"), times ("500ns"), sizes
//! ("150KB", "100 frames").
//!
//! Parsing is exact: the number is read as a decimal and scaled in integers, so
//! "171.875Mbps" is exactly 171 875 000 bit/s and "1.5us" exactly 1 500 000 ps.
//! Decimal prefixes are powers of ten (K = 1000, as in the IEEE 802.1Qau MIB's octet
//! values); binary prefixes are spelled KiB, MiB, GiB.

use std::fmt;

use serde::de::{self, Deserializer, Visitor};
use serde::{Deserialize, Serialize, Serializer};

use crate::engine::time::format_time;
use crate::engine::Time;

/// Splits "10 Gbps" into ("10", "Gbps").
fn split_number(s: &str) -> (&str, &str) {
    let s = s.trim();
    let end = s
        .find(|c: char| !(c.is_ascii_digit() || c == '.' || c == '_'))
        .unwrap_or(s.len());
    (&s[..end], s[end..].trim())
}

/// `digits × 10^exp10 / div`, exactly when the result is an integer, otherwise `None`.
/// Accepts "12", "12.5", "0.001"; rejects signs, exponents and empty strings.
fn scale_decimal(num: &str, mult: u128, div: u128) -> Option<u128> {
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
                        write!(
                            f,
                            concat!("a ", $what, " as a string, e.g. \"", $example, "\"")
                        )
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
        let bad = || format!("\"{s}\" is not a rate, expected e.g. \"10Gbps\"");
        let (num, unit) = split_number(s);
        let mult: u128 = match unit {
            "bps" | "bit/s" | "b/s" => 1,
            "kbps" | "Kbps" | "kbit/s" | "Kbit/s" => 1_000,
            "Mbps" | "Mbit/s" => 1_000_000,
            "Gbps" | "Gbit/s" => 1_000_000_000,
            "Tbps" | "Tbit/s" => 1_000_000_000_000,
            _ => return Err(bad()),
        };
        let v = scale_decimal(num, mult, 1).ok_or_else(bad)?;
        if v == 0 {
            return Err(format!("\"{s}\": a rate must be positive"));
        }
        u64::try_from(v)
            .map(Rate)
            .map_err(|_| format!("\"{s}\" is too large a rate"))
    }
}

impl fmt::Display for Rate {
    /// The largest unit in which the value has at most three decimals:
    /// "10Gbps", "171.875Mbps", "1.5Mbps", "7bps".
    fn fmt(&self, f: &mut fmt::Formatter) -> fmt::Result {
        const UNITS: [(u64, &str); 4] = [
            (1_000_000_000, "Gbps"),
            (1_000_000, "Mbps"),
            (1_000, "kbps"),
            (1, "bps"),
        ];
        for (scale, unit) in UNITS {
            let step = (scale / 1000).max(1);
            if self.0 >= scale && self.0 % step == 0 {
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
        let bad =
            || format!("\"{s}\" is not a time, expected e.g. \"500ns\", \"1.5us\" or \"10ms\"");
        let (num, unit) = split_number(s);
        let mult: u128 = match unit {
            "ps" => 1,
            "ns" => 1_000,
            "us" | "µs" => 1_000_000,
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
        u64::try_from(v)
            .map(Duration)
            .map_err(|_| format!("\"{s}\" is too long a time"))
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
    pub fn bytes(self, frame_bytes: u64) -> u64 {
        match self {
            Size::Bytes(b) => b,
            Size::Frames(n) => n * frame_bytes,
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
        let bad = || {
            format!("\"{s}\" is not a size, expected e.g. \"150KB\", \"1500B\" or \"100 frames\"")
        };
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
        Ok(if frames {
            Size::Frames(v)
        } else {
            Size::Bytes(v)
        })
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
        assert!("10Gbs"
            .parse::<Rate>()
            .unwrap_err()
            .contains("expected e.g. \"10Gbps\""));
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
        assert_eq!("1.5us".parse::<Duration>(), Ok(Duration(1_500_000)));
        assert_eq!("10s".parse::<Duration>(), Ok(Duration(10_000_000_000_000)));
        assert_eq!("0s".parse::<Duration>(), Ok(Duration(0)));
        assert!("10".parse::<Duration>().is_err());
        assert!("-3ms".parse::<Duration>().is_err());
        assert!("3 fortnights".parse::<Duration>().is_err());
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
