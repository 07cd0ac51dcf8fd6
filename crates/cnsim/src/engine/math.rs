//! The logarithm, exponential and power the simulation's own arithmetic uses
//! (exponential draws, Pareto object sizes, RED's average), the same bits on every
//! machine.
//!
//! `f64::ln`, `f64::exp` and `f64::powf` call the C library's `log`, `exp` and `pow`, and
//! glibc on x86-64 picks their code by CPU at load time: where the CPU has FMA, versions
//! that use it, which round some inputs differently. Of a million random inputs (glibc
//! 2.36, the FMA versions against those it uses without FMA) `log` differed on 89, `pow`
//! on 677 and `exp` on 639, so a run's draws could depend on the machine it ran on, and
//! on the C library's version. These call the `libm` crate (Rust, ported from musl and
//! FreeBSD), whose code is part of the program and the same everywhere.

/// The natural logarithm of `x`.
#[inline]
pub fn ln(x: f64) -> f64 {
    libm::log(x)
}

/// e raised to `x`.
#[inline]
pub fn exp(x: f64) -> f64 {
    libm::exp(x)
}

/// `x` raised to `y`.
#[inline]
pub fn powf(x: f64, y: f64) -> f64 {
    libm::pow(x, y)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Values known exactly, and the identities the callers rely on.
    #[test]
    fn exact_values() {
        assert_eq!(ln(1.0), 0.0);
        assert_eq!(exp(0.0), 1.0);
        assert_eq!(powf(2.0, 10.0), 1024.0);
        assert_eq!(powf(0.5, -3.0), 8.0);
        assert_eq!(powf(7.0, 0.0), 1.0);
        assert_eq!(ln(0.0), f64::NEG_INFINITY);
        assert!(ln(-1.0).is_nan());
        assert_eq!(exp(f64::NEG_INFINITY), 0.0);
    }

    /// Within one unit in the last place of the C library's results (on any machine,
    /// whichever versions it picks), over a spread of arguments like the callers'.
    #[test]
    fn within_an_ulp_of_the_c_library() {
        let ulps = |a: f64, b: f64| (a.to_bits() as i64 - b.to_bits() as i64).unsigned_abs();
        let mut x = 0x2545_f491_4f6c_dd1d_u64;
        for _ in 0..200_000 {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            let u = (x >> 11) as f64 / (1u64 << 53) as f64;
            assert!(ulps(ln(1.0 - u), (1.0 - u).ln()) <= 1, "ln(1 - {u})");
            assert!(ulps(exp(-u * 50.0), (-u * 50.0).exp()) <= 1, "exp({})", -u * 50.0);
            let (base, power) = (1.0 - u * 1e-3, u * 1e4);
            assert!(ulps(powf(base, power), base.powf(power)) <= 1, "{base}^{power}");
            let shape = 1.05 + 2.0 * u;
            assert!(ulps(powf(1.0 - u, -1.0 / shape), (1.0 - u).powf(-1.0 / shape)) <= 1, "pareto {u}");
        }
    }
}
