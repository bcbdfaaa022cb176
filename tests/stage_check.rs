//! Debug and test builds hand the plan after each of its stages to the
//! independent checker (`transform::plan_checked`): a wrong decision is
//! reported as an internal error of the stage that made it, and the SCoP is
//! left unchanged. `POLYRS_BREAK_STAGE` (debug builds only) makes a wrong
//! decision after the named stage: every tiled band's first tile loop
//! parallel, which a Gauss-Seidel stencil's dependences forbid; with
//! `retime`, Gram-Schmidt's column update retimed without its split and
//! without the legality test; with `interleave`, two nests interleaved
//! whatever dependence joins them.
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

/// polyrs-opt's stderr on `text` (written to `name`) with `options`, and
/// `POLYRS_BREAK_STAGE=stage` when given.
fn run_opt(name: &str, text: &str, options: &str, stage: Option<&str>) -> String {
    let dir = std::env::temp_dir().join(format!("polyrs-stage-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("temp dir");
    let input = dir.join(name);
    std::fs::write(&input, text).expect("write input");
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_polyrs-opt"));
    cmd.arg(&input)
        .args(["-o", "/dev/null", &format!("--poly-opt={options}")]);
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

/// polyrs-opt's stderr on the stencil, with `POLYRS_BREAK_STAGE=stage`.
fn remarks(stage: Option<&str>) -> String {
    run_opt(
        "seidel.mlir",
        SEIDEL,
        "cpu=znver4 profitability=false unroll-jam=2",
        stage,
    )
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

/// Modified Gram-Schmidt (test/opt/embed.mlir's kernel, smaller): embedded,
/// its column update retimed by one step and fused with the next step's
/// sums, the update of the next pivot column split off first.
const MGS: &str = r#"
func.func @mgs(%A: memref<20x13xf64>, %R: memref<13x13xf64>, %Q: memref<20x13xf64>, %nrm: memref<1xf64>) {
  %z = arith.constant 0.0 : f64
  affine.for %k = 0 to 13 {
    affine.store %z, %nrm[0] : memref<1xf64>
    affine.for %i = 0 to 20 {
      %n0 = affine.load %nrm[0] : memref<1xf64>
      %a = affine.load %A[%i, %k] : memref<20x13xf64>
      %p = arith.mulf %a, %a : f64
      %n1 = arith.addf %n0, %p : f64
      affine.store %n1, %nrm[0] : memref<1xf64>
    }
    %n = affine.load %nrm[0] : memref<1xf64>
    %s = math.sqrt %n : f64
    affine.store %s, %R[%k, %k] : memref<13x13xf64>
    affine.for %i = 0 to 20 {
      %a = affine.load %A[%i, %k] : memref<20x13xf64>
      %r = affine.load %R[%k, %k] : memref<13x13xf64>
      %q = arith.divf %a, %r : f64
      affine.store %q, %Q[%i, %k] : memref<20x13xf64>
    }
    affine.for %j = affine_map<(d0) -> (d0 + 1)>(%k) to 13 {
      affine.store %z, %R[%k, %j] : memref<13x13xf64>
      affine.for %i = 0 to 20 {
        %r0 = affine.load %R[%k, %j] : memref<13x13xf64>
        %q = affine.load %Q[%i, %k] : memref<20x13xf64>
        %a = affine.load %A[%i, %j] : memref<20x13xf64>
        %p = arith.mulf %q, %a : f64
        %r1 = arith.addf %r0, %p : f64
        affine.store %r1, %R[%k, %j] : memref<13x13xf64>
      }
      affine.for %i = 0 to 20 {
        %a = affine.load %A[%i, %j] : memref<20x13xf64>
        %q = affine.load %Q[%i, %k] : memref<20x13xf64>
        %r = affine.load %R[%k, %j] : memref<13x13xf64>
        %p = arith.mulf %q, %r : f64
        %d = arith.subf %a, %p : f64
        affine.store %d, %A[%i, %j] : memref<20x13xf64>
      }
    }
  }
  return
}
"#;

/// polyrs-opt's stderr on Gram-Schmidt, with `POLYRS_BREAK_STAGE=retime`
/// when `broken`.
fn mgs_remarks(broken: bool) -> String {
    run_opt(
        "mgs.mlir",
        MGS,
        "cpu=znver4 profitability=false tile-sizes=4",
        broken.then_some("retime"),
    )
}

#[test]
fn gram_schmidt_is_retimed_after_the_split() {
    let err = mgs_remarks(false);
    assert!(
        err.contains("S6_gt retimed by one step and fused with S5"),
        "{err}"
    );
    assert!(!err.contains("internal error"), "{err}");
}

/// Retimed without the split (and without asking the analysis), the update
/// of column k + 1 would run after the next step's norm reads that column:
/// the check after the plan's first stage catches it, and the embedded plan
/// without retiming is taken instead.
#[test]
fn a_retime_without_the_split_is_caught() {
    let err = mgs_remarks(true);
    assert!(
        err.contains("internal error in the plan's tile stage: the transformed schedule violates the Raw dependence S6 -> S1"),
        "{err}"
    );
    assert!(!err.contains("retimed"), "{err}");
    assert!(err.contains("embedded"), "{err}");
}

/// bicg's passes with a dependence between them: `q`'s rows read all of
/// `s`, which the column stream before them computes. The two nests have
/// the interleave stage's shape (a column stream with one column tile per
/// thread, then rows with parallel row tiles), and the dependence keeps
/// them apart.
const CHAIN: &str = r#"
func.func @chain(%A: memref<1000x900xf64>, %s: memref<900xf64>, %q: memref<1000xf64>, %r: memref<1000xf64>) {
  affine.for %i = 0 to 1000 {
    affine.for %j = 0 to 900 {
      %sj = affine.load %s[%j] : memref<900xf64>
      %ri = affine.load %r[%i] : memref<1000xf64>
      %a = affine.load %A[%i, %j] : memref<1000x900xf64>
      %m = arith.mulf %ri, %a : f64
      %n = arith.addf %sj, %m : f64
      affine.store %n, %s[%j] : memref<900xf64>
    }
  }
  affine.for %i = 0 to 1000 {
    affine.for %j = 0 to 900 {
      %qi = affine.load %q[%i] : memref<1000xf64>
      %sj = affine.load %s[%j] : memref<900xf64>
      %b = affine.load %A[%i, %j] : memref<1000x900xf64>
      %o = arith.mulf %b, %sj : f64
      %t = arith.addf %qi, %o : f64
      affine.store %t, %q[%i] : memref<1000xf64>
    }
  }
  return
}
"#;

/// Interleaved although `q` reads what the column stream writes (the
/// stage's own legality questions skipped): the check after the stage
/// reports the dependence it violates, and the SCoP is left unchanged.
#[test]
fn an_interleaving_across_a_dependence_is_caught() {
    let options = "cpu=znver4 threads=2";
    let good = run_opt("chain.mlir", CHAIN, options, None);
    assert!(good.contains("legality verified"), "{good}");
    assert!(!good.contains("interleaved"), "{good}");
    let err = run_opt("chain.mlir", CHAIN, options, Some("interleave"));
    assert!(
        err.contains("internal error in the plan's interleave stage: the transformed schedule violates the Raw dependence S0 -> S1"),
        "{err}"
    );
    assert!(err.contains("SCoP left unchanged"), "{err}");
}
