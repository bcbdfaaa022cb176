//! The plan stage: schedule, plan ([`crate::transform::plan`]) and loop
//! tree for one SCoP, retried without the transformations that do not pay
//! (unroll-and-jam whose loops do not unroll, register tiles without full
//! blocks, tiles that leave guards in innermost loops), and the
//! profitability rules that leave a SCoP unchanged.

use crate::codegen::{generate, work_per_loop, Tree};
use crate::deps::Dependence;
use crate::sched::pluto::{schedule, DimKind, Options as SchedOptions, PlutoSchedule};
use crate::sched::verify_parallel;
use crate::scop::model::Scop;
use crate::transform::{
    is_skewed, original_parallel_plan, plan_checked, Options as PlanOptions, Plan, PlanError,
};

use super::OptOptions;

/// Smallest number of statement instances per execution of a parallel loop
/// (below it, OpenMP's fork and join cost more than two threads gain).
const PARALLEL_MIN_WORK: f64 = 50_000.0;

/// How many times fewer instances a parallel loop needs when its innermost
/// loop carries a dependence (see `plan_with`).
const LATENCY_FACTOR: f64 = 5.0;

/// Smallest estimated number of statement instances of a SCoP worth
/// transforming: gemm at SMALL (340,000) runs in 12 µs untouched and in
/// 20 µs tiled and forked; gesummv at LARGE (3.4 million, 0.9 ms) twice as
/// fast with its rows in parallel.
const SCOP_MIN_WORK: f64 = 1_000_000.0;

/// A plan, its loop tree, and why it differs from the default options.
pub(super) struct Planned {
    pub(super) plan: Plan,
    pub(super) tree: Tree,
    pub(super) fallback_note: Option<String>,
    pub(super) jam_note: Option<String>,
}

/// True when the plan has a parallel loop.
pub(super) fn has_parallel(c: &Result<Planned, String>) -> bool {
    c.as_ref().is_ok_and(|p| p.plan.dims.iter().any(|d| d.parallel))
}

/// Two statements of the same innermost input loop (same enclosing loops)
/// that read one array at the same subscripts, which the schedule takes
/// apart: their rows first differ at a sequence dimension before any loop
/// (separate nests), or some loop dimension gives them different
/// hyperplanes (the same cell read at distant times). The statements and
/// the array.
pub(super) fn split_shared_reads(scop: &Scop, sched: &PlutoSchedule) -> Option<(usize, usize, usize)> {
    let sts = &scop.statements;
    for a in 0..sts.len() {
        for b in a + 1..sts.len() {
            if sts[a].loops != sts[b].loops || sts[a].loops.is_empty() {
                continue;
            }
            let Some(shared) = sts[a].shared_read(&sts[b]) else {
                continue;
            };
            let (da, db) = (&sched.schedule.dims[a], &sched.schedule.dims[b]);
            let scalar = |k: usize| matches!(sched.dims[k], DimKind::Scalar);
            let first_diff = (0..sched.dims.len()).find(|&k| da.get(k) != db.get(k));
            let separate_nests =
                first_diff.is_some_and(|k| scalar(k) && (0..k).all(scalar));
            let transposed = (0..sched.dims.len())
                .any(|k| !scalar(k) && da.get(k).map(|f| &f.iters) != db.get(k).map(|f| &f.iters));
            if separate_nests || transposed {
                return Some((a, b, shared.array.0));
            }
        }
    }
    None
}

/// Schedules `scop` and builds the plan and loop tree the options ask for,
/// with the profitability rules; `Err` says why the SCoP should be left
/// unchanged.
pub(super) fn plan_scop(
    scop: &Scop,
    deps: &[Dependence],
    options: &OptOptions,
    sched_options: &SchedOptions,
    plan_options: &PlanOptions,
) -> Result<Planned, String> {
    match schedule(scop, deps, sched_options) {
        Ok(s) => plan_with(scop, deps, s, options, plan_options),
        Err(e) => Err(format!("no schedule: {e}")),
    }
}

/// The plan of `sched` ([`crate::transform::plan`]). Debug and test
/// builds hand the plan after each of its stages to the checker
/// ([`super::check::run`]): a violation is an internal error of that stage,
/// reported as a warning, and the SCoP is left unchanged.
fn staged_plan(
    scop: &Scop,
    sched: &PlutoSchedule,
    deps: &[Dependence],
    opts: &PlanOptions,
) -> Result<Plan, PlanError> {
    #[cfg(debug_assertions)]
    {
        use super::check::{run, Rejected};
        use crate::ffi::shim::{emit as diag, Severity};
        let mut check = |_: &str, p: &Plan| match run(scop, deps, p) {
            // A limit: the final plan's check reports it.
            Ok(()) | Err(Rejected::Failed(_)) => Ok(()),
            Err(Rejected::Violation(message)) => Err(message),
        };
        let planned = plan_checked(scop, sched, deps, opts, Some(&mut check));
        if let Err(PlanError::Rejected { stage, why }) = &planned {
            let message = why.replacen(
                "internal error:",
                &format!("internal error in the plan's {stage} stage:"),
                1,
            );
            diag(scop.first_op.loc(), Severity::Warning, &message, None);
        }
        planned
    }
    #[cfg(not(debug_assertions))]
    plan_checked(scop, sched, deps, opts, None)
}

/// [`plan_scop`] for a schedule already computed.
pub(super) fn plan_with(
    scop: &Scop,
    deps: &[Dependence],
    sched: PlutoSchedule,
    options: &OptOptions,
    plan_options: &PlanOptions,
) -> Result<Planned, String> {
    // The plan and its code; with `profitability`, a plan whose
    // innermost loops need guards is retried without tiling, and a
    // plan without tiles or parallel loops is not applied.
    let mut attempt = plan_options.clone();
    let mut fallback_note = None;
    let mut jam_note: Option<String> = None;
    let built: Result<(Plan, Tree), String> = loop {
        let plan = match staged_plan(scop, &sched, deps, &attempt) {
            Ok(p) => p,
            Err(e) => break Err(format!("tiling: {e}")),
        };
        let tree = match generate(scop, &plan) {
            Ok(t) => t,
            Err(e) => break Err(format!("code generation: {e}")),
        };
        // Unroll-and-jam pays only when the jammed loops unroll (a
        // constant trip count); otherwise it just buries the vector loop.
        if attempt.unroll_jam > 1 && tree.has_loop_over(|k| plan.dims[k].unroll) {
            attempt.unroll_jam = 0;
            jam_note = Some(
                "not unrolled and jammed: the jammed loops' trip counts are not constant".to_string(),
            );
            continue;
        }
        // Register tiles pay only when their full blocks unroll.
        let reg_dims = |k: usize| {
            plan.register_tiles
                .iter()
                .any(|&(u, _, _)| k == u || k == u + 1)
        };
        if !plan.register_tiles.is_empty() {
            // Guards in the partial blocks along a triangular edge are
            // accepted when the plan without register tiles needs none:
            // full blocks, guard-free, do most of the work there.
            let guards_of_own = || -> bool {
                let mut plain = attempt.clone();
                plain.register_tile = (0, 0);
                let own = staged_plan(scop, &sched, deps, &plain)
                    .ok()
                    .and_then(|p| generate(scop, &p).ok())
                    .map(|t| t.inner_guards() > 0);
                own != Some(false)
            };
            let why = if !tree.has_let_over(reg_dims) {
                Some("its blocks' trip counts are not constant")
            } else if options.profitability && tree.inner_guards() > 0 && guards_of_own() {
                Some("it would leave statement guards in innermost loops")
            } else {
                None
            };
            if why.is_none() && tree.inner_guards() > 0 {
                break Ok((plan, tree));
            }
            if let Some(why) = why {
                attempt.register_tile = (0, 0);
                jam_note = Some(format!("no register tile: {why}"));
                continue;
            }
        }
        if options.profitability && attempt.tile && tree.inner_guards() > 0 {
            attempt.tile = false;
            fallback_note = Some(format!(
                "not tiled: with tiles, {} statement guard{} would sit in innermost loops",
                tree.inner_guards(),
                if tree.inner_guards() == 1 { "" } else { "s" }
            ));
            continue;
        }
        break Ok((plan, tree));
    };
    let (mut plan, mut tree) = match built {
        Ok(pt) => pt,
        Err(e) => {
            return Err(match &fallback_note {
                Some(n) => format!("{e} ({n})"),
                None => e,
            });
        }
    };
    // Time-skewed stencils: on few cores, the space loops of each time
    // step in parallel beat a wavefront of skewed tiles whose innermost
    // loop runs two statements that depend on each other a few iterations
    // apart (it does not vectorize), and beat a skewed schedule left
    // without parallel loops (its tiles dropped for guards) by far. With a
    // loop per statement inside the tiles, the wavefront wins (jacobi-2d
    // and heat-3d at LARGE: 2.3x and 2.6x the baseline, the parallel space
    // loops 1.3-2.2x and 2.0x).
    if options.profitability
        && is_skewed(&sched)
        && !plan.inner_distributed
        && (plan.notes.iter().any(|n| n.contains("wavefront"))
            || !plan.dims.iter().any(|d| d.parallel))
    {
        let alt = original_parallel_plan(scop, |s, k| {
            Ok(verify_parallel(scop, deps, s, k)
                .map(|v| v.is_empty())
                .unwrap_or(false))
        });
        if let Ok(Some(alt)) = alt {
            if let Ok(t) = generate(scop, &alt) {
                if t.inner_guards() == 0 {
                    plan = alt;
                    tree = t;
                }
            }
        }
    }
    // Parallel loops whose executions run little work cost more in
    // OpenMP forks than they gain: they run sequentially. Instances of an
    // innermost loop that carries a dependence (a reduction or a
    // recurrence: each waits for the previous one) cost several times
    // those of one that vectorizes, so such loops need less work per
    // execution (trisolv's wavefront: about 34,000 instances per
    // execution, 0.45 ms in parallel against 1.0 ms sequential; jacobi-1d's
    // vectorized one, 36,000: 0.50 ms against 0.14 ms).
    if options.profitability {
        let mut demoted = Vec::new();
        let innermost = (0..plan.dims.len()).rev().find(|&k| !plan.dims[k].scalar);
        let latency_bound = innermost.is_some_and(|k| {
            verify_parallel(scop, deps, &plan.schedule, k).is_ok_and(|v| !v.is_empty())
        });
        let min_work = if latency_bound {
            PARALLEL_MIN_WORK / LATENCY_FACTOR
        } else {
            PARALLEL_MIN_WORK
        };
        for k in 0..plan.dims.len() {
            if !plan.dims[k].parallel {
                continue;
            }
            if let Ok(Some(w)) = work_per_loop(scop, &plan, k) {
                if w < min_work {
                    plan.dims[k].parallel = false;
                    demoted.push(format!("{w:.0}"));
                }
            }
        }
        if !demoted.is_empty() {
            plan.notes.push(format!(
                "parallel loop kept sequential: about {} statement instances per execution",
                demoted.join(", ")
            ));
            tree = match generate(scop, &plan) {
                Ok(t) => t,
                Err(e) => return Err(format!("code generation: {e}")),
            };
        }
    }
    // A SCoP with little work in all gains nothing from tiles or forks
    // (its instances counted on its original loops: the widths of tiled
    // loops over-estimate).
    if options.profitability {
        let original = crate::transform::original_plan(scop);
        if let Ok(Some(w)) = work_per_loop(scop, &original, 0) {
            if w < SCOP_MIN_WORK {
                return Err(format!(
                    "no profitable transformation: about {w:.0} statement instances in all, too few for tiles or parallel loops to pay"
                ));
            }
        }
    }
    // Matrix-vector shapes (no band of three loops) whose schedule takes
    // apart two statements of one innermost input loop that read the same
    // cells (bicg's `A[i][j]`, read by both updates: separate nests, or one
    // nest whose hyperplanes run them in transposed orders): the array is
    // streamed twice, and such kernels are bound by memory traffic, so the
    // parallel loops gained do not pay for the second pass.
    if options.profitability && plan.max_tiled_band <= 2 {
        if let Some((a, b, array)) = split_shared_reads(scop, &sched) {
            return Err(format!(
                "no profitable transformation: {} and {} share their innermost loop and read {} at the same cells, which the schedule would read at distant times (a second pass over {} in a memory-bound nest)",
                scop.statements[a].name,
                scop.statements[b].name,
                scop.arrays[array].name,
                scop.arrays[array].name
            ));
        }
    }
    // Tiles of two-loop bands alone (matrix-vector shapes: reuse along one
    // dimension only, which the untiled loops already have) cost more in
    // loop overhead than they save.
    if options.profitability
        && !plan.dims.iter().any(|d| d.parallel)
        && (1..=2).contains(&plan.max_tiled_band)
    {
        return Err(
            "no profitable transformation: no parallel loop, and tiles of two-loop bands alone do not pay".to_string(),
        );
    }
    if options.profitability
        && !plan.dims.iter().any(|d| d.parallel)
        && plan.max_tiled_band == 0
    {
        return Err(format!(
            "no profitable transformation: no tilable band of two or more loops and no parallel loop{}",
            fallback_note.as_ref().map(|n| format!(" ({n})")).unwrap_or_default()
        ));
    }
    Ok(Planned {
        plan,
        tree,
        fallback_note,
        jam_note,
    })
}
