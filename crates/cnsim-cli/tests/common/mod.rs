//! Helpers shared by the command-line tests.

use std::path::Path;
use std::process::{Command, Output};

/// Exit code for invalid input.
pub const EXIT_INPUT: i32 = 2;

/// Runs `cnsim args...` in `dir`.
pub fn cnsim(dir: &Path, args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_cnsim")).args(args).current_dir(dir).output().expect("run cnsim")
}

/// What the command said on stderr.
pub fn stderr(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}
