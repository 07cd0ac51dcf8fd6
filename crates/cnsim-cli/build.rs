//! Lays out the `cnsim` binary so that a run maps little of it.
//!
//! The kernel maps a program's pages in aligned blocks of 16 around each page a run
//! touches, so the resident size of the code follows how widely the executed functions
//! are spread, not how many there are. `link-order.txt` lists the functions the benchmark
//! runs execute, those more runs execute first (`scripts/link-order.py` writes it), and the
//! linker places them together ahead of the rest: the plotting, Parquet and font code
//! that a lean run never calls no longer sits between them. Relative relocations are packed
//! (`DT_RELR`), so the loader reads a few KiB of them instead of hundreds.
//!
//! Both are layout alone: the code and every output are the same. They apply where the
//! linker is known to take them (rustc's own LLD, the default on x86-64 Linux from rustc
//! 1.90) and the building machine's C library loads packed relocations (glibc 2.36: the
//! binary then needs it where it runs too); elsewhere, or with `CNSIM_LINK_ORDER=off`,
//! the binary is linked as before. A function missing from the list (new, or renamed by
//! another compiler) goes after the listed ones.

use std::env;
use std::path::Path;
use std::process::Command;

fn main() {
    println!("cargo:rerun-if-changed=link-order.txt");
    println!("cargo:rerun-if-env-changed=CNSIM_LINK_ORDER");
    if env::var("CNSIM_LINK_ORDER").is_ok_and(|v| v == "off") || !default_lld() {
        return;
    }
    let order = Path::new(&env::var("CARGO_MANIFEST_DIR").unwrap_or_default()).join("link-order.txt");
    if order.is_file() {
        println!("cargo:rustc-link-arg-bins=-Wl,--symbol-ordering-file={}", order.display());
        println!("cargo:rustc-link-arg-bins=-Wl,--no-warn-symbol-ordering");
    }
    if glibc_at_least(2, 36) {
        println!("cargo:rustc-link-arg-bins=-Wl,-z,pack-relative-relocs");
    }
}

/// Whether the binary is linked by rustc's own LLD: the target's default from rustc 1.90,
/// with no linker chosen in cargo's configuration or the flags.
fn default_lld() -> bool {
    if env::var("TARGET").ok().as_deref() != Some("x86_64-unknown-linux-gnu")
        || env::var_os("RUSTC_LINKER").is_some()
    {
        return false;
    }
    let flags = env::var("CARGO_ENCODED_RUSTFLAGS").unwrap_or_default();
    if flags.contains("linker") || flags.contains("fuse-ld") || flags.contains("link-self-contained") {
        return false;
    }
    let rustc = env::var("RUSTC").unwrap_or_else(|_| "rustc".into());
    let version = Command::new(rustc)
        .arg("--version")
        .output()
        .ok()
        .map(|o| String::from_utf8_lossy(&o.stdout).into_owned());
    version
        .as_deref()
        .and_then(|v| v.split_whitespace().nth(1))
        .and_then(major_minor)
        .is_some_and(|v| v >= (1, 90))
}

/// Whether the C library is glibc `major.minor` or later (`getconf GNU_LIBC_VERSION`).
fn glibc_at_least(major: u32, minor: u32) -> bool {
    let out = Command::new("getconf").arg("GNU_LIBC_VERSION").output().ok();
    let text = out.map(|o| String::from_utf8_lossy(&o.stdout).into_owned()).unwrap_or_default();
    text.strip_prefix("glibc ").and_then(|v| major_minor(v.trim())).is_some_and(|v| v >= (major, minor))
}

/// `1.90.0` or `2.36` as `(1, 90)` or `(2, 36)`.
fn major_minor(version: &str) -> Option<(u32, u32)> {
    let mut parts = version.split(['.', '-']);
    Some((parts.next()?.parse().ok()?, parts.next()?.parse().ok()?))
}
