//! The differential harness over all 30 PolyBench kernels at SMALL
//! (bench/difftest.py): the baseline lowering and the upstream
//! `affine-loop-tile` + `affine-parallelize` pipeline must reproduce
//! PolyBench's C results bit for bit, and with perturbed inputs the upstream
//! pipeline must match the baseline except for its two known miscompiles
//! (which the harness must still detect). `poly-opt` must reproduce them too,
//! with its defaults, tile sizes 1, 7 and 64 (partial tiles), the other
//! fusion heuristics, two-level tiles, unroll-and-jam, and register tiles
//! of other sizes (with partial blocks) or none, the sizes of the AVX2 and
//! Intel AVX-512 presets; with FMA contraction
//! (`contract=true`) and reductions reassociated (`reassociate=true`) within
//! the harness's documented tolerance. Parallel
//! loops run on 2 threads. The GPU target's programs run in the CPU
//! emulation, and mutants of them (a wrong bound, a missing copy) must be
//! caught.

use std::path::PathBuf;
use std::process::Command;

fn difftest(args: &[&str]) {
    let root = PathBuf::from(env!("CARGO_MANIFEST_DIR"));
    let bin_dir = PathBuf::from(env!("CARGO_BIN_EXE_polyrs-runner"));
    let bin_dir = bin_dir.parent().expect("binary directory");
    let status = Command::new("python3")
        .arg(root.join("bench/difftest.py"))
        .arg("--bin-dir")
        .arg(bin_dir)
        .args(args)
        .status()
        .expect("python3 runs");
    assert!(status.success(), "difftest {args:?} failed");
}

#[test]
fn baseline_and_upstream_match_polybench_c() {
    difftest(&["--size", "SMALL", "--pipelines", "baseline,upstream"]);
}

#[test]
fn upstream_with_perturbed_inputs_shows_exactly_the_known_miscompiles() {
    difftest(&[
        "--size",
        "SMALL",
        "--init",
        "perturbed",
        "--pipelines",
        "upstream",
    ]);
}

#[test]
fn poly_opt_matches_polybench_c() {
    difftest(&["--size", "SMALL", "--pipelines", "polyrs,polyrs-t7"]);
}

#[test]
fn poly_opt_with_perturbed_inputs_matches_the_baseline() {
    difftest(&[
        "--size",
        "SMALL",
        "--init",
        "perturbed",
        "--pipelines",
        "polyrs,polyrs-t1,polyrs-t7,polyrs-t32,polyrs-t64,polyrs-fusemax,polyrs-fuseno,polyrs-l2,polyrs-uj4,polyrs-uj2,polyrs-rt35,polyrs-rt-t48,polyrs-nort,polyrs-auto,polyrs-auto-th3,polyrs-fma,polyrs-avx2,polyrs-skx,polyrs-reassoc,polyrs-reassoc-fma",
    ]);
}

/// The GPU target's programs, run whole in the CPU emulation (host code
/// with its device buffers, copies and launches; kernels compiled for the
/// host; threads in the reverse of the loops' order), reproduce PolyBench's
/// C results bit for bit: the default block shape, odd blocks with partial
/// tiles, one thread per block, another fusion heuristic, host-registered
/// memory instead of device buffers.
#[test]
fn gpu_programs_match_polybench_c_in_emulation() {
    difftest(&["--size", "SMALL", "--pipelines", "gpu,gpu-b73,gpu-hostreg"]);
    difftest(&[
        "--size",
        "SMALL",
        "--init",
        "perturbed",
        "--pipelines",
        "gpu,gpu-b73,gpu-b1,gpu-fuseno,gpu-hostreg",
    ]);
}

/// The harness is live for GPU programs: a launch with one block or one
/// thread too few (a wrong bound) and a copy left out, in or back, each
/// change the results of kernels that need them.
#[test]
fn gpu_mutants_are_caught() {
    for (mutation, kernels) in [
        (
            "grid",
            &["gemm", "atax", "mvt", "covariance", "doitgen", "jacobi-2d"][..],
        ),
        (
            "block",
            &["gemm", "2mm", "3mm", "syrk", "jacobi-2d", "fdtd-2d"][..],
        ),
        (
            "copy",
            &["gemm", "2mm", "bicg", "mvt", "doitgen", "jacobi-1d"][..],
        ),
        (
            "copy-back",
            &["gemm", "atax", "syrk", "gemver", "fdtd-2d"][..],
        ),
    ] {
        let mut args = vec![
            "--size",
            "SMALL",
            "--pipelines",
            "gpu",
            "--mutate",
            mutation,
        ];
        args.extend_from_slice(kernels);
        difftest(&args);
    }
}
