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
//! the C library. A test checks that the binary asks for no libm (`crates/cnsim-cli/tests/cli.rs`):
//! a function called by new code and missing here brings it back.

/// `acos(x)`.
#[no_mangle]
pub extern "C" fn acos(x: f64) -> f64 {
    libm::acos(x)
}

/// `acosf(x)`.
#[no_mangle]
pub extern "C" fn acosf(x: f32) -> f32 {
    libm::acosf(x)
}

/// `asin(x)`.
#[no_mangle]
pub extern "C" fn asin(x: f64) -> f64 {
    libm::asin(x)
}

/// `asinf(x)`.
#[no_mangle]
pub extern "C" fn asinf(x: f32) -> f32 {
    libm::asinf(x)
}

/// `atan(x)`.
#[no_mangle]
pub extern "C" fn atan(x: f64) -> f64 {
    libm::atan(x)
}

/// `atanf(x)`.
#[no_mangle]
pub extern "C" fn atanf(x: f32) -> f32 {
    libm::atanf(x)
}

/// `atan2(y, x)`.
#[no_mangle]
pub extern "C" fn atan2(y: f64, x: f64) -> f64 {
    libm::atan2(y, x)
}

/// `atan2f(y, x)`.
#[no_mangle]
pub extern "C" fn atan2f(y: f32, x: f32) -> f32 {
    libm::atan2f(y, x)
}

/// `sin(x)`.
#[no_mangle]
pub extern "C" fn sin(x: f64) -> f64 {
    libm::sin(x)
}

/// `sinf(x)`.
#[no_mangle]
pub extern "C" fn sinf(x: f32) -> f32 {
    libm::sinf(x)
}

/// `cos(x)`.
#[no_mangle]
pub extern "C" fn cos(x: f64) -> f64 {
    libm::cos(x)
}

/// `cosf(x)`.
#[no_mangle]
pub extern "C" fn cosf(x: f32) -> f32 {
    libm::cosf(x)
}

/// `tan(x)`.
#[no_mangle]
pub extern "C" fn tan(x: f64) -> f64 {
    libm::tan(x)
}

/// `tanf(x)`.
#[no_mangle]
pub extern "C" fn tanf(x: f32) -> f32 {
    libm::tanf(x)
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

/// `exp(x)`.
#[no_mangle]
pub extern "C" fn exp(x: f64) -> f64 {
    libm::exp(x)
}

/// `expf(x)`.
#[no_mangle]
pub extern "C" fn expf(x: f32) -> f32 {
    libm::expf(x)
}

/// `log(x)`.
#[no_mangle]
pub extern "C" fn log(x: f64) -> f64 {
    libm::log(x)
}

/// `logf(x)`.
#[no_mangle]
pub extern "C" fn logf(x: f32) -> f32 {
    libm::logf(x)
}

/// `log2(x)`.
#[no_mangle]
pub extern "C" fn log2(x: f64) -> f64 {
    libm::log2(x)
}

/// `log2f(x)`.
#[no_mangle]
pub extern "C" fn log2f(x: f32) -> f32 {
    libm::log2f(x)
}

/// `log10(x)`.
#[no_mangle]
pub extern "C" fn log10(x: f64) -> f64 {
    libm::log10(x)
}

/// `log10f(x)`.
#[no_mangle]
pub extern "C" fn log10f(x: f32) -> f32 {
    libm::log10f(x)
}

/// `pow(x, y)`.
#[no_mangle]
pub extern "C" fn pow(x: f64, y: f64) -> f64 {
    libm::pow(x, y)
}

/// `powf(x, y)`.
#[no_mangle]
pub extern "C" fn powf(x: f32, y: f32) -> f32 {
    libm::powf(x, y)
}

/// `hypot(x, y)`.
#[no_mangle]
pub extern "C" fn hypot(x: f64, y: f64) -> f64 {
    libm::hypot(x, y)
}

/// `hypotf(x, y)`.
#[no_mangle]
pub extern "C" fn hypotf(x: f32, y: f32) -> f32 {
    libm::hypotf(x, y)
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
