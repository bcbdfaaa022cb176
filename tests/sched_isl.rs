//! The scheduler's output, re-verified by isl: for every PolyBench kernel
//! (MINI) that gets a schedule, isl finds no dependence whose sink runs at or
//! before its source (tests/oracle/sched_isl.py). A doctored schedule (an
//! illegal interchange) must be caught.

use std::io::Write;
use std::path::PathBuf;
use std::process::{Command, Stdio};

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

fn schedule_output(file: &std::path::Path) -> String {
    let out = Command::new(env!("CARGO_BIN_EXE_polyrs-opt"))
        .arg(file)
        .args(["--mlir-disable-threading", "-o", "/dev/null"])
        .arg("--pass-pipeline=builtin.module(func.func(poly-print-deps,poly-print-schedule))")
        .output()
        .expect("polyrs-opt runs");
    assert!(
        out.status.success(),
        "polyrs-opt failed on {}",
        file.display()
    );
    String::from_utf8_lossy(&out.stderr).into_owned()
}

fn oracle(text: &str) -> (Option<i32>, String) {
    let mut child = Command::new("python3")
        .arg(root().join("tests/oracle/sched_isl.py"))
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()
        .expect("python3 with islpy");
    child
        .stdin
        .take()
        .expect("stdin")
        .write_all(text.as_bytes())
        .expect("write");
    let out = child.wait_with_output().expect("oracle runs");
    (
        out.status.code(),
        String::from_utf8_lossy(&out.stdout).into_owned(),
    )
}

fn generate(sub: &str, kernels: &[&str]) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("polyrs-sched-isl-{}-{sub}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("temp dir");
    let status = Command::new("python3")
        .arg(root().join("bench/polybench/gen.py"))
        .args(["--size", "MINI", "--out"])
        .arg(&dir)
        .args(kernels)
        .status()
        .expect("gen.py runs");
    assert!(status.success());
    dir
}

#[test]
fn isl_finds_every_emitted_schedule_legal() {
    let dir = generate("all", &[]);
    let mut scheduled = 0;
    let mut failures = Vec::new();
    for entry in std::fs::read_dir(&dir).expect("dir") {
        let path = entry.expect("entry").path();
        let text = schedule_output(&path);
        let kernel_scheduled = text.lines().any(|l| l.starts_with("schedule @kernel_"));
        let (code, report) = oracle(&text);
        match code {
            Some(0) => scheduled += usize::from(kernel_scheduled),
            Some(2) => {} // nothing scheduled (the original schedule stands)
            _ => failures.push(format!("{}:\n{report}", path.display())),
        }
    }
    let _ = std::fs::remove_dir_all(&dir);
    assert!(
        failures.is_empty(),
        "isl finds violations:\n{}",
        failures.join("\n")
    );
    // Every kernel gets a schedule: a kernel falling back to its original
    // schedule is a regression.
    assert_eq!(scheduled, 30, "only {scheduled} kernels scheduled");
}

#[test]
fn isl_catches_an_illegal_interchange() {
    let dir = generate("seidel", &["seidel-2d"]);
    let text = schedule_output(&dir.join("seidel-2d.mlir"));
    let _ = std::fs::remove_dir_all(&dir);
    assert_eq!(oracle(&text).0, Some(0));
    let legal = "{ S0[i0, i1, i2] -> [i0, i0 + i1, 2i0 + i1 + i2] }";
    assert!(text.contains(legal), "{text}");
    let doctored = text.replace(legal, "{ S0[i0, i1, i2] -> [i1, i0, i2] }");
    let (code, report) = oracle(&doctored);
    assert_eq!(code, Some(1), "{report}");
    assert!(report.contains("VIOLATED"));
}
