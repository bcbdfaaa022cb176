//! Runs the lit + FileCheck suite (test/) against the binaries cargo built for
//! this test run: `polyrs-opt` and the plugin `libpolyrs.so` next to it.

use std::path::{Path, PathBuf};
use std::process::Command;

fn lit_command() -> Command {
    let debian_lit = Path::new("/usr/lib/llvm-22/bin/lit");
    if debian_lit.exists() {
        Command::new(debian_lit)
    } else {
        let mut c = Command::new("python3");
        c.args(["-m", "lit"]);
        c
    }
}

#[test]
fn lit_suite() {
    let root = PathBuf::from(env!("CARGO_MANIFEST_DIR"));
    let opt = PathBuf::from(env!("CARGO_BIN_EXE_polyrs-opt"));
    let bin_dir = opt.parent().expect("binary directory");
    assert!(
        bin_dir.join("libpolyrs.so").exists(),
        "libpolyrs.so missing in {}: build the plugin with `cargo build`",
        bin_dir.display()
    );
    let status = lit_command()
        .arg("-sv")
        .arg(root.join("test"))
        .env("POLYRS_BIN_DIR", bin_dir)
        .status()
        .expect("cannot run lit: run scripts/setup.sh");
    assert!(status.success(), "lit suite failed");
}
