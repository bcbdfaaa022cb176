//! Dependence analysis against isl: for all 30 PolyBench kernels (MINI) and
//! the parametric / guarded / strided inputs of test/print-scop, isl
//! recomputes RAW, WAR and WAW from the printed domains, accesses and
//! schedules (tests/oracle/deps_isl.py) and must find exactly polyrs'
//! relations. A doctored output (one dependence dropped) must be caught.

use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

fn analyze(file: &Path, split: bool) -> String {
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_polyrs-opt"));
    cmd.arg(file)
        .args(["--mlir-disable-threading", "-o", "/dev/null"])
        .arg("--pass-pipeline=builtin.module(func.func(poly-print-scop,poly-print-deps))");
    if split {
        cmd.arg("--split-input-file");
    }
    let out = cmd.output().expect("polyrs-opt runs");
    assert!(
        out.status.success(),
        "polyrs-opt failed on {}",
        file.display()
    );
    String::from_utf8_lossy(&out.stderr).into_owned()
}

/// Runs the oracle; returns (success, its report).
fn oracle(text: &str) -> (bool, String) {
    let mut child = Command::new("python3")
        .arg(root().join("tests/oracle/deps_isl.py"))
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()
        .expect("python3 with islpy (scripts/setup.sh)");
    child
        .stdin
        .take()
        .expect("stdin")
        .write_all(text.as_bytes())
        .expect("write");
    let out = child.wait_with_output().expect("oracle runs");
    (
        out.status.success(),
        String::from_utf8_lossy(&out.stdout).into_owned(),
    )
}

fn polybench_mini() -> tempdir::Dir {
    let dir = tempdir::Dir::new("polyrs-deps-isl");
    let status = Command::new("python3")
        .arg(root().join("bench/polybench/gen.py"))
        .args(["--size", "MINI", "--out"])
        .arg(&dir.0)
        .status()
        .expect("gen.py runs");
    assert!(status.success());
    dir
}

mod tempdir {
    /// A temporary directory removed on drop.
    pub struct Dir(pub std::path::PathBuf);
    impl Dir {
        pub fn new(prefix: &str) -> Dir {
            static NEXT: std::sync::atomic::AtomicUsize = std::sync::atomic::AtomicUsize::new(0);
            let n = NEXT.fetch_add(1, std::sync::atomic::Ordering::SeqCst);
            let p = std::env::temp_dir().join(format!("{prefix}-{}-{n}", std::process::id()));
            std::fs::create_dir_all(&p).expect("temp dir");
            Dir(p)
        }
    }
    impl Drop for Dir {
        fn drop(&mut self) {
            let _ = std::fs::remove_dir_all(&self.0);
        }
    }
}

#[test]
fn polybench_dependences_equal_isl() {
    let dir = polybench_mini();
    let mut failures = Vec::new();
    let mut kernels = 0;
    for entry in std::fs::read_dir(&dir.0).expect("read dir") {
        let path = entry.expect("entry").path();
        let text = analyze(&path, false);
        let (ok, report) = oracle(&text);
        kernels += 1;
        if !ok {
            failures.push(format!("{}:\n{report}", path.display()));
        }
    }
    assert_eq!(kernels, 30, "expected the 30 PolyBench kernels");
    assert!(
        failures.is_empty(),
        "isl disagrees:\n{}",
        failures.join("\n")
    );
}

#[test]
fn guarded_strided_parametric_dependences_equal_isl() {
    let text = analyze(&root().join("test/print-scop/constructs.mlir"), true);
    let (ok, report) = oracle(&text);
    assert!(ok, "{report}");
    assert!(
        report.contains("parametric")
            && report.contains("steps_maxmin")
            && report.contains("guards"),
        "{report}"
    );
}

#[test]
fn oracle_catches_a_missing_dependence() {
    let dir = polybench_mini();
    let text = analyze(&dir.0.join("seidel-2d.mlir"), false);
    let (ok, _) = oracle(&text);
    assert!(ok);
    // Drop the first RAW relation of the kernel.
    let mut dropped = false;
    let doctored: String = text
        .lines()
        .filter(|l| {
            if !dropped && l.trim_start().starts_with("RAW S0 -> S0") {
                dropped = true;
                return false;
            }
            true
        })
        .map(|l| format!("{l}\n"))
        .collect();
    assert!(dropped);
    let (ok, report) = oracle(&doctored);
    assert!(!ok, "the oracle accepted a dropped dependence:\n{report}");
    assert!(report.contains("MISMATCH"));
}
