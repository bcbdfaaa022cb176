//! The fuzzer's short campaigns (fuzz/fuzz.py; the long ones are commands of
//! their own, see README.md and docs/fuzzing.md):
//!
//! * 200 random affine programs (fuzz/gen.py, seeds 1-200, the option sets
//!   rotating by seed), each compared bit for bit with its untransformed
//!   self on 2 OpenMP threads: no wrong result, no internal error or panic,
//!   no diagnostic whose severity disagrees with the exit code, no
//!   poly-opt run over 10 s, and at most 5 % of the SCoPs left unchanged
//!   for a reason other than a construct outside the model by design;
//! * 60 programs of the `steps` family (Gram-Schmidt's shape: embedding,
//!   retiming, point-loop sinking), seeds 1-60, the same checks;
//! * 60 programs of the `matvec` family (gesummv's, bicg's and atax's
//!   shapes: row blocks, column streams, forwarding), seeds 1-60, rotating
//!   over option sets that keep whole blocks of lanes, for three vector
//!   widths (AVX-512, AVX2, SSE2), the same checks;
//! * 80 programs of the `around` family (statements, loads and scalar
//!   arithmetic between and around the nests, values used at other depths
//!   than where they were loaded, memref.load/store, 0-d cells), seeds
//!   1-80, the option sets in rotation, the same checks (loads whose cell
//!   may change before the value is used kept in cells of their own,
//!   `split-loads`);
//! * 40 programs of the `factor` family (cholesky's, lu's and ludcmp's
//!   shapes: register blocks with statements on their edges, the gather
//!   stage), seeds 1-40, the option sets in rotation, the same checks;
//! * 60 programs of the `ml` family (convolutions, poolings, contractions,
//!   batched matmuls), seeds 1-60, the option sets in rotation, the same
//!   checks;
//! * 100 programs of the `rows` family (one loop over rows, several steps
//!   along each: softmax's shape), 60 in the default rotation and 40 with
//!   a 1 KiB L2, where a third must be kept in one nest;
//! * 40 programs of the `streams` family (bicg's and mvt's shape: a nest of
//!   rows and a column stream over one matrix), with the host's sizes and
//!   a 1 KiB L1, a tenth at least interleaved;
//! * 60 programs of the `solves` family (triangular solves, several
//!   right-hand sides, column-oriented solves, wavefront recurrences), the
//!   option sets in rotation, a tenth at least cut into steps;
//! * 60 programs of the `carried` family (programs of the other families
//!   with their reductions into cells carried through iter_args), seeds
//!   1-60, the option sets in rotation, the same checks;
//! * with FMA contraction allowed (`contract=true`, three option sets), 60
//!   programs of the mixed family and 30 of the matvec family drawn with
//!   dyadic initial values: those whose arithmetic is exact (then a fused
//!   multiply-add rounds as the multiply and the add apart) compared bit
//!   for bit, at least half of them (68 % and 97 % when written),
//!   the others compiled and run; the same checks otherwise;
//! * the tolerance of results that round under contraction or
//!   reassociation (fuzz/test_tolerance.py: sound against exact rational
//!   arithmetic, a cell off by a millionth of its magnitude caught);
//! * the emitted-code check against deliberate bugs of code generation
//!   (fuzz/mutations.sh: 4 families' first 3 programs, a statement
//!   instance emitted twice or a loop level too high): no crash, panic or
//!   hang, and where the check catches the bug, the program put back as
//!   the input printed;
//! * 300 malformed inputs (a third with loops carrying values, their
//!   iter_args and yields mutated) through poly-opt and the printing passes: each a
//!   clean success (whose output parses again) or a diagnostic with exit
//!   code 1; no panic, signal, internal error or hang.
//!
//! Failures are saved (with a reproducer) in a temporary folder the test
//! names.

use std::path::PathBuf;
use std::process::Command;

/// Runs `fuzz.py args`, its failures saved under a folder named after
/// `label` (the tests run at once, in one process).
fn fuzz(label: &str, args: &[&str]) {
    let root = PathBuf::from(env!("CARGO_MANIFEST_DIR"));
    let bin = PathBuf::from(env!("CARGO_BIN_EXE_polyrs-opt"));
    let bin_dir = bin.parent().expect("binary directory");
    let out = std::env::temp_dir().join(format!("polyrs-fuzz-{label}-{}", std::process::id()));
    let status = Command::new("python3")
        .arg(root.join("fuzz/fuzz.py"))
        .args(args)
        .arg("--bin-dir")
        .arg(bin_dir)
        .arg("--out")
        .arg(&out)
        .status()
        .expect("python3 runs");
    assert!(
        status.success(),
        "fuzz {args:?} failed; the failing cases are in {}",
        out.display()
    );
    let _ = std::fs::remove_dir_all(&out);
}

/// `fuzz.py run` over programs 1 to `count` of `family` (`mixed`: the
/// default family), two jobs, at most 5 % of the SCoPs unchanged; with
/// `sets`, the option sets to rotate over instead of the default rotation.
fn campaign(family: &str, count: &str, sets: &[&str]) {
    campaign_with(family, family, count, sets, &[]);
}

/// [`campaign`] with further arguments of `fuzz.py run`, its failures saved
/// under a folder named after `label`.
fn campaign_with(label: &str, family: &str, count: &str, sets: &[&str], more: &[&str]) {
    let mut args = vec!["run"];
    if family != "mixed" {
        args.extend(["--family", family]);
    }
    args.extend([
        "--count",
        count,
        "--start",
        "1",
        "--jobs",
        "2",
        "--max-unchanged",
        "5",
    ]);
    for set in sets {
        args.extend(["--options-set", set]);
    }
    args.extend(more);
    fuzz(label, &args);
}

#[test]
fn short_differential_campaign() {
    campaign("mixed", "200", &[]);
}

#[test]
fn short_steps_campaign() {
    campaign("steps", "60", &[]);
}

#[test]
fn short_matvec_campaign() {
    campaign(
        "matvec",
        "60",
        &[
            "defaults",
            "avx2",
            "sse-r8",
            "skx-t3",
            "profitable",
            "uj2-t8",
            "fuseno",
            "plain-emit",
            "threads3",
            "nowave",
        ],
    );
}

#[test]
fn short_contract_campaign() {
    let sets = ["contract", "contract-avx2", "contract-rt"];
    let more = ["--min-compared", "50"];
    campaign_with("contract-mixed", "mixed", "60", &sets, &more);
    campaign_with("contract-matvec", "matvec", "30", &sets, &more);
}

/// Loops kept scalar where gathers are slow, whatever the host: programs
/// 2, 15, 38, 48 and 55 of the first 60 get such loops (remark "run
/// scalar"), their annotation carried through the lowering.
#[test]
fn short_slow_gathers_campaign() {
    campaign("mixed", "60", &["slow-gathers"]);
}

/// Zen 4's plans whatever the host (`cpu=znver4`: 16x8 register blocks,
/// one vector wide, where its 512-bit broadcasts are slow).
#[test]
fn short_zen4_campaign() {
    campaign_with("zen4-mixed", "mixed", "40", &["zen4"], &[]);
    campaign_with("zen4-factor", "factor", "20", &["zen4"], &[]);
}

/// Statements, loads and scalar arithmetic between the nests, values used
/// at other depths than where they were loaded, memref.load/store and 0-d
/// cells: the `around` family. Its loads of cells that a later statement
/// may overwrite before the value is used get cells of their own
/// (`split-loads`, on by default).
#[test]
fn short_around_campaign() {
    campaign("around", "80", &[]);
}

/// The nests ML front ends produce: convolutions, depthwise convolutions,
/// poolings (max pooling's `arith.maximumf` among them), contractions with
/// permuted subscripts and batched matmuls (register tiles around the
/// loops after their band, short filter loops left unskewed).
#[test]
fn short_ml_campaign() {
    campaign("ml", "60", &[]);
}

/// Programs of the other families with their reductions into cells
/// carried through `affine.for` iter_args, as C front ends give them (the
/// `carried` family: the values demoted to memory cells for the model, the
/// input given back where the SCoP is not rewritten).
#[test]
fn short_carried_campaign() {
    campaign("carried", "60", &[]);
}

/// Reductions over whole loop nests (the `reductions` family): split into
/// blocks with partial results (`passes/opt/partials.rs`), maxima by
/// default, sums and products under `reassociate=true` (compared bit for
/// bit where the program's arithmetic is exact, cell by cell within the
/// error bound of `gen.tolerance` otherwise); most programs must get the
/// split.
#[test]
fn short_reductions_campaign() {
    let split = ["--min-remark", "split into:25"];
    campaign_with("reductions", "reductions", "60", &[], &split);
    let sets = ["reassoc", "reassoc-contract", "reassoc-fuseno"];
    let more = ["--min-remark", "split into:50", "--min-compared", "50"];
    campaign_with("reductions-reassoc", "reductions", "40", &sets, &more);
}

/// The comparison within a tolerance of results that round under
/// `contract=true` or `reassociate=true` (fuzz/test_tolerance.py): the
/// bound holds against exact rational arithmetic, and catches a cell off
/// by a millionth of its magnitude.
#[test]
fn tolerance_comparison() {
    let root = PathBuf::from(env!("CARGO_MANIFEST_DIR"));
    let status = Command::new("python3")
        .arg(root.join("fuzz/test_tolerance.py"))
        .status()
        .expect("python3 runs");
    assert!(status.success(), "fuzz/test_tolerance.py failed");
}

/// One loop over rows with several steps along each row (the `rows`
/// family: softmax's shape), in the default rotation and with a 1 KiB L2
/// (`rows-l2`), under which a third of the programs at least must be kept
/// in one nest (`distribute::retry_fused`).
#[test]
fn short_rows_campaign() {
    campaign("rows", "60", &[]);
    let kept = ["--min-remark", "kept in one nest:30"];
    campaign_with("rows-l2", "rows", "40", &["rows-l2"], &kept);
}

/// bicg's and mvt's shape (the `streams` family: a nest of rows and a
/// column stream over one matrix), with the host's sizes and with a 1 KiB
/// L1 (`l1-1`: column streams of 128 columns, several per thread), where a
/// tenth at least must be interleaved (`interleave.rs`).
#[test]
fn short_streams_campaign() {
    let more = ["--min-remark", "rows interleaved:10"];
    campaign_with("streams", "streams", "40", &["defaults", "l1-1"], &more);
}

/// Triangular solves and wavefronts (the `solves` family), in the default
/// rotation, where a tenth at least of the programs must be cut into steps
/// (`passes/opt/steps.rs`: the terms of earlier steps in parallel).
#[test]
fn short_solves_campaign() {
    let more = ["--min-remark", "cut into steps of:10"];
    campaign_with("solves", "solves", "60", &[], &more);
}

#[test]
fn short_factor_campaign() {
    campaign("factor", "40", &[]);
}

#[test]
fn short_mutation_campaign() {
    let root = PathBuf::from(env!("CARGO_MANIFEST_DIR"));
    let bin = PathBuf::from(env!("CARGO_BIN_EXE_polyrs-opt"));
    let bin_dir = bin.parent().expect("binary directory");
    let out = Command::new("bash")
        .arg(root.join("fuzz/mutations.sh"))
        .arg(bin_dir)
        .args(["3", "reductions", "carried", "views", "around"])
        .output()
        .expect("bash runs");
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(out.status.success(), "fuzz/mutations.sh failed:\n{text}");
    // The check must have caught some of the bugs (else this tests nothing).
    assert!(!text.contains(" 0 caught by the check"), "{text}");
}

#[test]
fn short_malformed_input_campaign() {
    fuzz(
        "malformed",
        &["malformed", "--count", "300", "--start", "1", "--jobs", "2"],
    );
}
