//! The binaries link MLIR and LLVM as shared libraries: they are small and
//! share one libMLIR.so with the stock mlir-opt (which the plugin needs).

use std::path::PathBuf;
use std::process::Command;

const LIMIT: u64 = 10 * 1024 * 1024;

fn check(path: &PathBuf) {
    let size = std::fs::metadata(path).expect("binary exists").len();
    assert!(
        size < LIMIT,
        "{} is {size} bytes (limit {LIMIT})",
        path.display()
    );
    let ldd = Command::new("ldd").arg(path).output().expect("ldd runs");
    let deps = String::from_utf8_lossy(&ldd.stdout);
    for lib in ["libMLIR.so", "libLLVM.so", "libMLIR-C.so"] {
        assert!(
            deps.contains(lib),
            "{} does not link {lib} dynamically:\n{deps}",
            path.display()
        );
    }
    assert!(
        !deps.contains("not found"),
        "{} has unresolved libraries:\n{deps}",
        path.display()
    );
}

#[test]
fn driver_and_plugin_link_dynamically_and_are_small() {
    let opt = PathBuf::from(env!("CARGO_BIN_EXE_polyrs-opt"));
    check(&opt);
    check(&PathBuf::from(env!("CARGO_BIN_EXE_polyrs-translate")));
    check(&PathBuf::from(env!("CARGO_BIN_EXE_polyrs-runner")));
    check(&opt.parent().expect("dir").join("libpolyrs.so"));
}
