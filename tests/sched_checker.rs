//! The legality checker accepts the original schedule of every PolyBench
//! kernel (MINI): a checker that rejected legal schedules would be as useless
//! as one that accepted illegal ones (test/verify-schedule covers those).

use std::path::PathBuf;
use std::process::Command;

#[test]
fn original_schedules_of_all_polybench_kernels_are_legal() {
    let root = PathBuf::from(env!("CARGO_MANIFEST_DIR"));
    let dir = std::env::temp_dir().join(format!("polyrs-sched-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("temp dir");
    let status = Command::new("python3")
        .arg(root.join("bench/polybench/gen.py"))
        .args(["--size", "MINI", "--out"])
        .arg(&dir)
        .status()
        .expect("gen.py runs");
    assert!(status.success());
    let mut checked = 0;
    for entry in std::fs::read_dir(&dir).expect("dir") {
        let path = entry.expect("entry").path();
        let kernel = path
            .file_stem()
            .unwrap()
            .to_string_lossy()
            .replace('-', "_");
        let out = Command::new(env!("CARGO_BIN_EXE_polyrs-opt"))
            .arg(&path)
            .args(["-o", "/dev/null"])
            .arg(format!(
                "--pass-pipeline=builtin.module(func.func(poly-verify-schedule{{func=kernel_{kernel}}}))"
            ))
            .output()
            .expect("polyrs-opt runs");
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(out.status.success(), "{}: {err}", path.display());
        assert!(
            err.contains("remark: schedule is legal: it respects all"),
            "{}: {err}",
            path.display()
        );
        checked += 1;
    }
    let _ = std::fs::remove_dir_all(&dir);
    assert_eq!(checked, 30);
}
