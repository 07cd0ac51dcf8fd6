//! The C library's mathematical functions, defined in the program from the `libm` crate
//! (Rust, ported from musl and FreeBSD), for the `cnsim` binary and the Python module
//! (feature `c-math`; on Linux with glibc).
//!
//! The simulation's own logarithm, exponential and power already come from that crate
//! ([`crate::engine::math`]); the plots' arithmetic and the drawing, font and PDF crates
//! call the C names (`cos`, `atan2`, `log10`, `pow`, `sincosf`, …), which a program
//! otherwise takes from glibc's libm. There two things follow from them: their results
//! depend on the processor (glibc picks, by CPU, versions that use FMA and round some
//! inputs differently: a figure's bytes could differ between machines), and the shared
//! libm joins every process, with the 64 KiB blocks around the resolvers that make that
//! choice resident from the start (the program binds every symbol at load): about
//! 0.3 MiB of a run that calls none of them. Defined here, the linker binds the program's
//! calls to these, libm is not loaded at all, and every machine draws the same figures.
//!
//! Each function is the crate's function of the same name: the crate follows the C
//! standard's special values (NaN, infinities, signed zeros), as the callers expect of
//! the C library. Tests check that the binary asks for no shared libm and that each of these
//! names in it is its own plain function, not a static libm's chosen by processor
//! (`crates/cnsim-cli/tests/cli.rs`): a function called by new code and missing here
//! brings libm back.

/// Defines each `name(arguments) -> type` as the C function of that name, which returns
/// the `libm` crate's function of the same name.
macro_rules! from_libm {
    ($($name:ident($($arg:ident: $ty:ty),+) -> $ret:ty;)+) => {$(
        #[doc = concat!("`", stringify!($name), "`, computed by `libm::", stringify!($name), "`.")]
        #[no_mangle]
        pub extern "C" fn $name($($arg: $ty),+) -> $ret {
            libm::$name($($arg),+)
        }
    )+};
}

from_libm! {
    acos(x: f64) -> f64;
    acosf(x: f32) -> f32;
    asin(x: f64) -> f64;
    asinf(x: f32) -> f32;
    atan(x: f64) -> f64;
    atanf(x: f32) -> f32;
    atan2(y: f64, x: f64) -> f64;
    atan2f(y: f32, x: f32) -> f32;
    sin(x: f64) -> f64;
    sinf(x: f32) -> f32;
    cos(x: f64) -> f64;
    cosf(x: f32) -> f32;
    tan(x: f64) -> f64;
    tanf(x: f32) -> f32;
    exp(x: f64) -> f64;
    expf(x: f32) -> f32;
    log(x: f64) -> f64;
    logf(x: f32) -> f32;
    log2(x: f64) -> f64;
    log2f(x: f32) -> f32;
    log10(x: f64) -> f64;
    log10f(x: f32) -> f32;
    pow(x: f64, y: f64) -> f64;
    powf(x: f32, y: f32) -> f32;
    hypot(x: f64, y: f64) -> f64;
    hypotf(x: f32, y: f32) -> f32;
}

/// `sincos(x, &sin, &cos)`: the compiler joins a `sin` and a `cos` of one argument into it.
///
/// # Safety
/// `s` and `c` point to writable `f64`s, as in C.
#[no_mangle]
pub unsafe extern "C" fn sincos(x: f64, s: *mut f64, c: *mut f64) {
    let (sin, cos) = libm::sincos(x);
    // SAFETY: the caller's pointers, as C's `sincos` takes them.
    unsafe {
        *s = sin;
        *c = cos;
    }
}

/// `sincosf(x, &sin, &cos)`.
///
/// # Safety
/// `s` and `c` point to writable `f32`s, as in C.
#[no_mangle]
pub unsafe extern "C" fn sincosf(x: f32, s: *mut f32, c: *mut f32) {
    let (sin, cos) = libm::sincosf(x);
    // SAFETY: as for `sincos`.
    unsafe {
        *s = sin;
        *c = cos;
    }
}

#[cfg(test)]
mod tests {
    /// The C names give the crate's results, special values included (a definition that
    /// called itself, or the wrong function, would not).
    #[test]
    fn c_names_are_the_crates_functions() {
        let xs = [0.0, -0.0, 0.3, -1.7, 2.5, 100.0, f64::INFINITY, f64::NAN];
        let same = |a: f64, b: f64| a.to_bits() == b.to_bits() || (a.is_nan() && b.is_nan());
        for &x in &xs {
            assert!(same(super::cos(x), libm::cos(x)));
            assert!(same(super::atan2(x, 0.5), libm::atan2(x, 0.5)));
            assert!(same(super::log10(x), libm::log10(x)));
            assert!(same(super::pow(x, 1.5), libm::pow(x, 1.5)));
            assert!(same(super::hypotf(x as f32, 3.0) as f64, libm::hypotf(x as f32, 3.0) as f64));
            let (mut s, mut c) = (0.0, 0.0);
            // SAFETY: pointers to two locals.
            unsafe { super::sincos(x, &mut s, &mut c) };
            assert!(same(s, libm::sin(x)) && same(c, libm::cos(x)));
        }
        assert_eq!(super::log2(8.0), 3.0);
        assert_eq!(super::acos(1.0), 0.0);
        assert_eq!(super::powf(2.0, 10.0), 1024.0);
    }
}
