//! Seeded random streams, one per component.
//!
//! Every component that draws random numbers (a traffic source, a QCN congestion point,
//! a reaction point) owns an independent PCG stream whose seed is derived from the
//! scenario seed and a *stable name* of the component (its flow name or port name),
//! not from its position in a list. Adding a flow therefore leaves every other
//! component's draws unchanged.

use rand::{Rng, SeedableRng};
use rand_pcg::Pcg64Mcg;

/// Identifies a random stream: the kind of component and its stable name.
#[derive(Clone, Copy, Debug)]
pub struct StreamKey<'a> {
    /// Component kind, e.g. "flow", "cp", "rp".
    pub(crate) kind: &'a str,
    /// Stable component name, e.g. the flow name "cbr/s12" or the port "r1->r2".
    pub(crate) name: &'a str,
}

/// A deterministic random stream.
#[derive(Clone, Debug, PartialEq)]
pub struct RngStream(Pcg64Mcg);

/// 64-bit FNV-1a, used only to turn stream names into seeds (stable across platforms
/// and Rust versions, unlike `std`'s hasher).
fn fnv1a(bytes: &[u8], mut h: u64) -> u64 {
    for &b in bytes {
        h ^= b as u64;
        h = h.wrapping_mul(0x0000_0100_0000_01b3);
    }
    h
}

/// SplitMix64 finaliser: spreads nearby seeds far apart.
fn splitmix(mut z: u64) -> u64 {
    z = z.wrapping_add(0x9e37_79b9_7f4a_7c15);
    z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    z ^ (z >> 31)
}

impl RngStream {
    /// The stream for component `key` under scenario seed `seed`.
    pub fn new(seed: u64, key: StreamKey<'_>) -> Self {
        let mut h = fnv1a(key.kind.as_bytes(), 0xcbf2_9ce4_8422_2325);
        h = fnv1a(b"\0", h);
        h = fnv1a(key.name.as_bytes(), h);
        let hi = splitmix(seed ^ h);
        let lo = splitmix(hi ^ 0x5851_f42d_4c95_7f2d);
        let state = (hi as u128) << 64 | lo as u128;
        RngStream(Pcg64Mcg::new(state | 1))
    }

    /// Uniform in [0, 1).
    #[inline]
    pub fn uniform(&mut self) -> f64 {
        self.0.random::<f64>()
    }

    /// Uniform in [lo, hi).
    #[inline]
    pub fn uniform_range(&mut self, lo: f64, hi: f64) -> f64 {
        lo + (hi - lo) * self.uniform()
    }

    /// Uniform integer in [0, n). `n` must be positive.
    #[inline]
    pub fn below(&mut self, n: u64) -> u64 {
        self.0.random_range(0..n)
    }

    /// Exponential with the given mean (inverse-CDF method).
    #[inline]
    pub fn exponential(&mut self, mean: f64) -> f64 {
        // 1 - U is in (0, 1], so the logarithm is finite.
        -mean * super::math::ln(1.0 - self.uniform())
    }
}

impl SeedableRng for RngStream {
    type Seed = [u8; 16];
    fn from_seed(seed: Self::Seed) -> Self {
        RngStream(Pcg64Mcg::from_seed(seed))
    }
}

impl rand::RngCore for RngStream {
    fn next_u32(&mut self) -> u32 {
        self.0.next_u32()
    }
    fn next_u64(&mut self) -> u64 {
        self.0.next_u64()
    }
    fn fill_bytes(&mut self, dst: &mut [u8]) {
        self.0.fill_bytes(dst)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn key(name: &str) -> StreamKey<'_> {
        StreamKey { kind: "flow", name }
    }

    #[test]
    fn same_seed_and_name_give_the_same_stream() {
        let mut a = RngStream::new(7, key("cbr/s1"));
        let mut b = RngStream::new(7, key("cbr/s1"));
        for _ in 0..100 {
            assert_eq!(a.uniform().to_bits(), b.uniform().to_bits());
        }
    }

    #[test]
    fn names_and_seeds_separate_streams() {
        let x = RngStream::new(7, key("cbr/s1")).uniform();
        assert_ne!(x, RngStream::new(7, key("cbr/s2")).uniform());
        assert_ne!(x, RngStream::new(8, key("cbr/s1")).uniform());
        let cp = RngStream::new(7, StreamKey { kind: "cp", name: "cbr/s1" }).uniform();
        assert_ne!(x, cp);
    }

    #[test]
    fn exponential_has_the_right_mean() {
        let mut r = RngStream::new(1, key("x"));
        let n = 200_000;
        let mean = (0..n).map(|_| r.exponential(3.0)).sum::<f64>() / n as f64;
        assert!((mean - 3.0).abs() < 0.05, "mean {mean}");
    }
}
