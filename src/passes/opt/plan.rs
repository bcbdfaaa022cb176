//! The plan stage: schedule, plan ([`crate::transform::plan`]) and loop
//! tree for one SCoP, retried without the transformations that do not pay
//! (unroll-and-jam whose loops do not unroll, register tiles without full
//! blocks or whose partial blocks take too many loops, tiles that leave
//! guards in innermost loops), and the
//! profitability rules ([`super::profitability`]).

use crate::codegen::{generate, Tree};
use crate::deps::Dependence;
use crate::sched::pluto::{schedule, Options as SchedOptions, PlutoSchedule};
use crate::scop::model::Scop;
use crate::analysis::carried::carries;
use crate::transform::{
    original_parallel_plan, plan_checked, Options as PlanOptions, Plan, PlanError,
};

use super::{profitability, OptOptions};

/// A plan, its loop tree, and why it differs from the default options.
pub(super) struct Planned {
    pub(super) plan: Plan,
    pub(super) tree: Tree,
    pub(super) fallback_note: Option<String>,
    pub(super) jam_note: Option<String>,
    /// Made with [`PlanSet::wide`]: the function must ask LLVM for the
    /// target's widest vectors.
    pub(super) wide: bool,
}

/// The planner's options for the target, and for the target's widest
/// vectors where they are wider than the ones LLVM's tuning uses
/// ([`crate::target::CpuTarget::wide`]): a plan with register tiles is
/// made again with `wide`, and that plan is taken when it has register
/// tiles too.
#[derive(Debug, Clone)]
pub(super) struct PlanSet {
    pub(super) narrow: PlanOptions,
    pub(super) wide: Option<Wide>,
}

/// The planner's options for the target's widest vectors, and that
/// target, which the remark of such a plan names.
#[derive(Debug, Clone)]
pub(super) struct Wide {
    pub(super) options: PlanOptions,
    pub(super) target: crate::target::CpuTarget,
}

/// True when the plan has a parallel loop.
pub(super) fn has_parallel(c: &Result<Planned, String>) -> bool {
    c.as_ref().is_ok_and(|p| p.plan.dims.iter().any(|d| d.parallel))
}

/// Schedules `scop` and builds the plan and loop tree the options ask for,
/// with the profitability rules; `Err` says why the SCoP should be left
/// unchanged.
pub(super) fn plan_scop(
    scop: &Scop,
    deps: &[Dependence],
    options: &OptOptions,
    sched_options: &SchedOptions,
    plan_options: &PlanSet,
) -> Result<Planned, String> {
    match schedule(scop, deps, sched_options) {
        Ok(s) => plan_with(scop, deps, s, options, plan_options),
        Err(e) => Err(format!("{}{e}", super::NO_SCHEDULE)),
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
            // The plan is dropped; whether the SCoP stays unchanged is for
            // the caller to say (a retry's candidate gives way to another
            // plan).
            let message = why
                .replacen(
                    "internal error:",
                    &format!("internal error in the plan's {stage} stage:"),
                    1,
                )
                .replacen("; the SCoP is left unchanged", "; this plan is dropped", 1);
            diag(scop.ir.first_op.loc(), Severity::Warning, &message, None);
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
    plans: &PlanSet,
) -> Result<Planned, String> {
    let planned = plan_for(scop, deps, &sched, options, &plans.narrow)?;
    if let (Some(wide), false) = (&plans.wide, planned.plan.register_tiles.is_empty()) {
        if let Ok(w) = plan_for(scop, deps, &sched, options, &wide.options) {
            if !w.plan.register_tiles.is_empty() {
                return Ok(Planned { wide: true, ..w });
            }
        }
    }
    Ok(planned)
}

/// At most this many loops in the code of a SCoP with register tiles; a
/// plan whose register tiles take more is made again without them. Each
/// edge of a block's domain that is not a multiple of its size gets loops
/// of its own (the partial blocks), and on parametric triangles those
/// multiply: one LU-like statement under a parameter took 740 loops with
/// 8x16 blocks, 6 without. LLVM's time on such code grows faster than the
/// loop count (`polyrs-translate --emit=llvm`, lowering and LLVM 22's
/// -O3: 431 loops 8 s, 657 loops 48 s, 740 loops 58 s; cholesky at LARGE,
/// the most among the PolyBench kernels, 416 loops in 14 s, a 7.6x faster
/// kernel than without its blocks; the others at most 120 loops and 1 s). A model parameter, the same for
/// every machine: it bounds the code's compile time, not its speed.
const REGISTER_TILE_MAX_LOOPS: usize = 512;

/// At most this many statement copies ([`Tree::statement_copies`]: the
/// unrolled blocks' and the partial blocks' statements) in the code of a
/// SCoP with register tiles; a plan whose register tiles take more is made
/// again without them. Fewer loops can still carry more code: a
/// cholesky-like statement under a parameter (the fuzzer's carried program
/// 97 with a 1500x1500 array, `n0` rows) took 479 loops but 3,844 copies
/// with 16x8 blocks (2.1 MB of MLIR, 20.6 s in `polyrs-translate
/// --emit=obj`), and its kernel ran 0.61 s against 0.15 s without the
/// blocks (1500 rows, AMD EPYC VM, Zen 4). Cholesky at LARGE, the most
/// among the PolyBench kernels, takes 1,541 copies (842 KB with its
/// initialization's 139, 5.6 s) for a 4x faster kernel, and 2,121 with
/// `contract=true` (1.3 MB with 331, 8.2 s). A model parameter, the same
/// for every machine: it bounds the compile time.
const REGISTER_TILE_MAX_COPIES: usize = 3072;

/// [`plan_with`] for one set of the planner's options.
fn plan_for(
    scop: &Scop,
    deps: &[Dependence],
    sched: &PlutoSchedule,
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
        let mut plan = match staged_plan(scop, sched, deps, &attempt) {
            Ok(p) => p,
            Err(e) => break Err(format!("tiling: {e}")),
        };
        plan.rows_first = super::check::rows_first(scop, deps, &plan);
        let tree = match generate(scop, &plan) {
            Ok(t) => t,
            Err(e) => break Err(format!("code generation: {e}")),
        };
        // Unroll-and-jam pays only when the jammed loops unroll (a
        // constant trip count); otherwise it just buries the vector loop.
        if attempt.unroll_jam > 1 && tree.has_loop_over(|k| plan.dims[k].unroll) {
            // Named by the option: the rows' blocks of a later stage may
            // still unroll and jam loops of their own.
            jam_note = Some(format!(
                "unroll-jam={} not applied: the jammed loops' trip counts are not constant",
                attempt.unroll_jam
            ));
            attempt.unroll_jam = 0;
            continue;
        }
        // Register tiles pay only when their full blocks unroll.
        let reg_dims = |k: usize| plan.in_register_tile(k);
        if !plan.register_tiles.is_empty() {
            // Guards in the partial blocks along a triangular edge are
            // accepted when the plan without register tiles needs none:
            // full blocks, guard-free, do most of the work there.
            let guards_of_own = || -> bool {
                let mut plain = attempt.clone();
                plain.register_tile = (0, 0);
                let own = staged_plan(scop, sched, deps, &plain)
                    .ok()
                    .and_then(|p| generate(scop, &p).ok())
                    .map(|t| t.inner_guards() > 0);
                own != Some(false)
            };
            let loops = tree.counts().0;
            let copies = tree.statement_copies();
            let parametric = tree.used_params(scop.params.len()).contains(&true);
            let why = if !tree.has_let_over(reg_dims) {
                Some("its blocks' trip counts are not constant".to_string())
            } else if loops > REGISTER_TILE_MAX_LOOPS {
                Some(format!(
                    "the code with them would take {loops} loops (more than {REGISTER_TILE_MAX_LOOPS})"
                ))
            } else if copies > REGISTER_TILE_MAX_COPIES {
                Some(format!(
                    "the code with them would take {copies} copies of statements (more than {REGISTER_TILE_MAX_COPIES})"
                ))
            } else if options.profitability && tree.inner_guards() > 0 && parametric {
                // With parameters in the bounds, code generation may not
                // separate the full blocks from the edges: the fuzzer's
                // cholesky-like program 97 under `n0` ran its interior
                // tiles as guarded scans, 3.5-5x slower than without the
                // blocks and at worst slower than the input (AVX2's 4x8
                // blocks; the same kernel with constant bounds gets full
                // blocks and runs 2.5x faster with them).
                Some("it would leave statement guards in innermost loops (bounds with parameters)".to_string())
            } else if options.profitability && tree.inner_guards() > 0 && guards_of_own() {
                Some("it would leave statement guards in innermost loops".to_string())
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
    if options.profitability {
        if let Some((alt, t)) = profitability::stencil_space_loops(scop, deps, sched, &plan) {
            plan = alt;
            tree = t;
        }
        if let Some(note) = profitability::demote_small_parallel(scop, deps, &mut plan) {
            plan.notes.push(note);
            tree = generate(scop, &plan).map_err(|e| format!("code generation: {e}"))?;
        }
        let chain = super::reassociate::chain(scop, options);
        let parametric = profitability::enough_work(scop, chain)?;
        profitability::one_pass_over_shared_reads(scop, sched, &plan, &tree, plan_options.threads)?;
        profitability::more_than_two_loop_tiles(&plan, chain)?;
        profitability::something_gained(&plan, fallback_note.as_deref(), chain)?;
        tree.size_test = profitability::input_when_small(scop, &plan, chain, parametric);
        if let Some(test) = &tree.size_test {
            plan.notes.push(profitability::size_test_note(test));
        }
    }
    Ok(Planned {
        plan,
        tree,
        fallback_note,
        jam_note,
        wide: false,
    })
}

/// When the scheduler found no schedule (`why`: its ILP ran out of time or
/// past its limits): the original loop order with its outermost parallel
/// loop, when the carried-dependence analysis proves one (the checker then
/// verifies the plan like any other), so that the SCoP still gains its
/// parallel loop instead of being left unchanged; with `profitability`,
/// the same rules on the loop's work and the SCoP's as any plan's. `Err`
/// says why the SCoP stays unchanged.
pub(super) fn plan_original(
    scop: &Scop,
    deps: &[Dependence],
    options: &OptOptions,
    why: &str,
) -> Result<Planned, String> {
    let found = original_parallel_plan(scop, |s, k| Ok(!carries(scop, deps, s, k)?))
        .map_err(|e| format!("{why}; the original loop order: {e}"))?;
    let none = || format!("{why}; the original loop order has no parallel loop");
    let mut plan = found.ok_or_else(none)?;
    let k = plan.dims.iter().position(|d| d.parallel).ok_or_else(none)?;
    plan.notes = vec![format!(
        "original loop order kept ({why}), loop at dimension {k} parallel"
    )];
    // (Enough work in all: decided before dependences, in `run`.)
    if options.profitability {
        if let Some(note) = profitability::demote_small_parallel(scop, deps, &mut plan) {
            return Err(format!("{why}; the original loop order: {note}"));
        }
    }
    let mut tree = generate(scop, &plan).map_err(|e| format!("{why}; code generation: {e}"))?;
    if options.profitability {
        let chain = super::reassociate::chain(scop, options);
        let parametric = matches!(profitability::enough_work(scop, chain), Ok(true));
        tree.size_test = profitability::input_when_small(scop, &plan, chain, parametric);
        if let Some(test) = &tree.size_test {
            plan.notes.push(profitability::size_test_note(test));
        }
    }
    Ok(Planned {
        plan,
        tree,
        fallback_note: None,
        jam_note: None,
        wide: false,
    })
}
