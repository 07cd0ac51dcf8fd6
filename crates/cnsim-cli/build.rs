//! Links the `cnsim` binary so that a run maps little of it.
//!
//! The kernel maps a program's pages in aligned blocks of 16 around each page a run
//! touches, so the resident size of the code follows how widely the executed functions
//! are spread, not how many there are. `link-order.txt` lists the functions the benchmark
//! runs execute, those more runs execute first (`scripts/link-order.py` writes it), and the
//! linker places them together ahead of the rest: the plotting, Parquet and font code
//! that a lean run never calls no longer sits between them. Relative relocations are packed
//! (`DT_RELR`), so the loader reads a few KiB of them instead of hundreds.
//!
//! The C library is linked statically where glibc's static archives are installed (its
//! development package puts them beside the shared ones): of a shared C library a run
//! keeps the blocks around every function it or the loader touches resident (a megabyte
//! of glibc), of a static one only the functions it calls, laid out by the same list with
//! the rest of the program; and the file then runs on any x86-64 Linux, whatever C library
//! it has. `CNSIM_LINK=dynamic` links against the shared C library instead; so does a
//! machine without the archives, with a warning. The tests read which it was from
//! `CNSIM_LINKED`.
//!
//! All of this is layout alone: the code and every output are the same. It applies where
//! the linker is known to take it (rustc's own LLD, the default on x86-64 Linux from rustc
//! 1.90) and the building machine's C library loads packed relocations (glibc 2.36: the
//! binary then needs it where it runs too, when linked dynamically); elsewhere, or with
//! `CNSIM_LINK_ORDER=off`, the binary is linked as cargo links any other. A function
//! missing from the list (new, or renamed by another compiler) goes after the listed ones.

use std::env;
use std::path::{Path, PathBuf};
use std::process::Command;

fn main() {
    println!("cargo:rerun-if-changed=link-order.txt");
    println!("cargo:rerun-if-env-changed=CNSIM_LINK_ORDER");
    println!("cargo:rerun-if-env-changed=CNSIM_LINK");
    if env::var("CNSIM_LINK_ORDER").is_ok_and(|v| v == "off") || !default_lld() {
        println!("cargo:rustc-env=CNSIM_LINKED=dynamic");
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
    let linked = if env::var("CNSIM_LINK").is_ok_and(|v| v == "dynamic") {
        "dynamic"
    } else {
        match env::var_os("OUT_DIR").map(|out| link_c_library_statically(&PathBuf::from(out))) {
            Some(Ok(())) => "static",
            Some(Err(why)) => {
                println!("cargo:warning=cnsim is linked against the shared C library: {why}");
                "dynamic"
            }
            None => "dynamic",
        }
    };
    println!("cargo:rustc-env=CNSIM_LINKED={linked}");
}

/// Links the binary against the C library's static archives, as `-C
/// target-feature=+crt-static` would, which cargo cannot give to one crate alone (given to
/// all, it reaches the procedural macros, which cannot be static): the compiler asks for
/// `-lc`, `-lgcc_s`, `-lm`, ... found first in a directory whose files of those names
/// point at the archives (`libgcc_s` at the unwinder's static half, `libgcc_eh`, and
/// `libgcc`), and the program is linked as a static position-independent executable.
/// Fails, saying why, where glibc's archives are not installed.
fn link_c_library_statically(out: &Path) -> Result<(), String> {
    // A file the compiler driver finds for the link, by name.
    let found = |name: &str| -> Option<PathBuf> {
        let printed = Command::new("cc").arg(format!("-print-file-name={name}")).output().ok()?;
        let path = PathBuf::from(String::from_utf8_lossy(&printed.stdout).trim());
        (path.is_absolute() && path.is_file()).then(|| path.canonicalize().unwrap_or(path))
    };
    let dir = out.join("static-c");
    std::fs::create_dir_all(&dir).map_err(|e| format!("{}: {e}", dir.display()))?;
    let write = |lib: &str, text: String| {
        let path = dir.join(format!("lib{lib}.a"));
        std::fs::write(&path, text).map_err(|e| format!("{}: {e}", path.display()))
    };
    let libc = found("libc.a").ok_or("no libc.a (glibc's static archives) beside the compiler")?;
    // The start-up file of a static position-independent executable (glibc 2.27 on).
    found("rcrt1.o").ok_or("no rcrt1.o (glibc's start-up file for static PIE) beside the compiler")?;
    let gcc_eh = found("libgcc_eh.a").ok_or("no libgcc_eh.a beside the compiler")?;
    let gcc = found("libgcc.a").ok_or("no libgcc.a beside the compiler")?;
    write("c", format!("INPUT ( \"{}\" )\n", libc.display()))?;
    write("gcc_s", format!("GROUP ( \"{}\" \"{}\" )\n", gcc_eh.display(), gcc.display()))?;
    // glibc 2.34 moved these into libc; their archives are empty where they remain.
    for lib in ["util", "rt", "pthread", "m", "dl"] {
        match found(&format!("lib{lib}.a")) {
            Some(path) => write(lib, format!("INPUT ( \"{}\" )\n", path.display()))?,
            None => write(lib, "INPUT ( )\n".into())?,
        }
    }
    println!("cargo:rustc-link-arg-bins=-L{}", dir.display());
    println!("cargo:rustc-link-arg-bins=-static-pie");
    Ok(())
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
