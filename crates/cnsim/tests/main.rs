//! The integration tests: one binary with a module per area, linked once rather than
//! once per file (a test binary links the whole simulator). A test below checks that
//! every file here is a module.

mod aqm;
#[path = "core.rs"]
mod core_engine;
mod dcqcn;
mod dctcp;
mod determinism;
mod fabric;
mod hpcc;
mod hpcc_files;
mod maxmin;
mod output_safety;
mod partition;
mod pause;
mod qcn;
mod rdma;
mod roeck2007;
mod scenario_errors;
mod scenario_keys;
mod tcp;
mod timely;
mod workload;

/// Every `.rs` file beside this one is declared above: a file that is not would
/// silently never run.
#[test]
fn every_test_file_is_a_module() {
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests");
    let main = std::fs::read_to_string(dir.join("main.rs")).unwrap();
    for entry in std::fs::read_dir(&dir).unwrap() {
        let name = entry.unwrap().file_name().into_string().unwrap();
        let Some(stem) = name.strip_suffix(".rs") else { continue };
        if stem == "main" {
            continue;
        }
        assert!(
            main.contains(&format!("mod {stem};")) || main.contains(&format!("#[path = \"{name}\"]")),
            "tests/{name} is not a module of tests/main.rs, so it never runs"
        );
    }
}
