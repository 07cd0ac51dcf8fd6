//! Binds the module's calls of the C mathematical functions (`cos`, `pow`, …) to the
//! definitions the `cnsim` crate gives it (feature `c-math`), as the `cnsim` binary's are:
//! a shared object's functions are otherwise looked up at load in the whole process, and
//! the interpreter's own libm would answer first. The module's figures are then the
//! binary's, on any processor.

fn main() {
    let os = std::env::var("CARGO_CFG_TARGET_OS").unwrap_or_default();
    let env = std::env::var("CARGO_CFG_TARGET_ENV").unwrap_or_default();
    if os == "linux" && env == "gnu" {
        println!("cargo:rustc-cdylib-link-arg=-Wl,-Bsymbolic-functions");
    }
}
