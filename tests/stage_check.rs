//! Debug and test builds hand the plan after each of its stages to the
//! independent checker (`transform::plan_checked`): a wrong decision is
//! reported as an internal error of the stage that made it, and the SCoP is
//! left unchanged. `POLYRS_BREAK_STAGE` (debug builds only) makes a wrong
//! decision after the named stage: every tiled band's first tile loop
//! parallel, which a Gauss-Seidel stencil's dependences forbid.
#![cfg(debug_assertions)]

use std::process::Command;

const SEIDEL: &str = r#"
func.func @seidel(%A: memref<256x256xf64>) {
  affine.for %t = 0 to 100 {
    affine.for %i = 1 to 255 {
      affine.for %j = 1 to 255 {
        %a = affine.load %A[%i - 1, %j] : memref<256x256xf64>
        %b = affine.load %A[%i, %j - 1] : memref<256x256xf64>
        %c = affine.load %A[%i, %j + 1] : memref<256x256xf64>
        %d = affine.load %A[%i + 1, %j] : memref<256x256xf64>
        %s0 = arith.addf %a, %b : f64
        %s1 = arith.addf %s0, %c : f64
        %s2 = arith.addf %s1, %d : f64
        affine.store %s2, %A[%i, %j] : memref<256x256xf64>
      }
    }
  }
  return
}
"#;

/// polyrs-opt's stderr on the stencil, with `POLYRS_BREAK_STAGE=stage`.
fn remarks(stage: Option<&str>) -> String {
    let dir = std::env::temp_dir().join(format!("polyrs-stage-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("temp dir");
    let input = dir.join("seidel.mlir");
    std::fs::write(&input, SEIDEL).expect("write input");
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_polyrs-opt"));
    cmd.arg(&input).args([
        "-o",
        "/dev/null",
        "--poly-opt=cpu=znver4 profitability=false unroll-jam=2",
    ]);
    cmd.env_remove("POLYRS_BREAK_STAGE");
    if let Some(s) = stage {
        cmd.env("POLYRS_BREAK_STAGE", s);
    }
    let out = cmd.output().expect("polyrs-opt runs");
    // A bug caught in time leaves valid output: the exit code stays 0.
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8_lossy(&out.stderr).into_owned()
}

#[test]
fn the_stencil_is_transformed_without_a_broken_stage() {
    let err = remarks(None);
    assert!(err.contains("legality verified"), "{err}");
    assert!(!err.contains("internal error"), "{err}");
}

#[test]
fn a_wrong_decision_is_caught_after_the_stage_that_made_it() {
    for stage in [
        "parallel",
        "point order",
        "unroll-and-jam",
        "register tile",
        "gather",
    ] {
        let err = remarks(Some(stage));
        let want = format!("warning: poly-opt: internal error in the plan's {stage} stage:");
        assert!(err.contains(&want), "{stage}: {err}");
        assert!(
            err.contains("carries it on parallel dimension 0"),
            "{stage}: {err}"
        );
        assert!(err.contains("SCoP left unchanged"), "{stage}: {err}");
        assert!(!err.contains("legality verified"), "{stage}: {err}");
    }
}
