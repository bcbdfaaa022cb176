//! `poly-opt`: the full transformation — schedule, tile, parallelize,
//! re-check, generate code — on every SCoP of a function.
//!
//! The stages run in order per SCoP and each can stop the rewrite with a
//! remark, leaving the SCoP exactly as it was:
//!
//! 1. model ([`crate::scop::model`]) and dependences ([`crate::deps`]);
//! 2. Pluto-style schedule ([`crate::sched::pluto`]);
//! 3. tiling, intra-tile order, parallel loops, wavefronts ([`crate::transform`]);
//! 4. the independent legality checker on the final schedule, and on every
//!    loop that will run in parallel ([`crate::sched::verify`],
//!    [`crate::sched::verify_parallel`]);
//! 5. polyhedra scanning ([`crate::codegen`]) and the checks that the new
//!    code can replace the old ([`crate::codegen::emit::check`]);
//! 6. the rewrite ([`crate::codegen::emit::emit`]).

use crate::codegen::contract::allow_contraction;
use crate::codegen::{emit, generate, work_per_loop, Tree};

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
use std::time::Duration;

use crate::deps::{compute, DepOptions, Dependence};
use crate::math::budget::Budget;
use crate::math::MathError;
use crate::ffi::ir::Op;
use crate::ffi::shim::{emit as diag, Severity};
use crate::sched::pluto::{schedule, DimKind, Options as SchedOptions, PlutoSchedule};
use crate::sched::{describe_sample, verify, verify_parallel};
use crate::transform::{is_skewed, original_parallel_plan, plan, Options as PlanOptions, Plan};

use crate::scop::detect::detect;
use crate::target::cpu::Sizes;
use crate::target::{CpuTarget, Overrides, TargetError};
use crate::scop::model::{build, Scop};
use crate::scop::privatize;
use crate::scop::split;

use super::{check_value, OptOptions, PassError};

/// The modeled SCoPs of `func`; rejected loop nests and SCoPs the model
/// cannot represent get a remark saying why they are not optimized.
fn scops(func: Op) -> Vec<Scop> {
    let found = detect(func, 1);
    for r in &found.rejections {
        let note = format!("'{}' breaks the static control part here", r.culprit.name());
        let note = (r.culprit.key() != r.nest.key()).then(|| (r.culprit.loc(), note.as_str()));
        diag(
            r.nest.loc(),
            Severity::Remark,
            &format!("poly-opt: loop nest not optimized: it is not a static control part: {}", r.reason),
            note,
        );
    }
    let mut out = Vec::new();
    for s in &found.scops {
        match build(func, s) {
            Ok(m) => out.push(m),
            Err(u) => diag(
                u.op.loc(),
                Severity::Remark,
                &format!("poly-opt: SCoP left unchanged: not modeled exactly: {}", u.reason),
                None,
            ),
        }
    }
    out
}

/// The CPU the plan is made for: `cpu` (the host by default) with the
/// fields the options give in its place.
fn cpu_target(options: &OptOptions) -> Result<CpuTarget, PassError> {
    // Zero: the target's own; past u32, the largest (refused below where
    // out of range).
    let given = |v: u64| (v > 0).then(|| u32::try_from(v).unwrap_or(u32::MAX));
    let overrides = Overrides {
        vector_bits: given(options.vector_bits),
        vector_registers: given(options.vector_registers),
        l1d_kib: (options.l1_cache > 0).then_some(options.l1_cache),
        l2_kib: (options.l2_cache > 0).then_some(options.l2_cache),
        cores: given(options.threads),
    };
    let invalid = |option: &str, value: String, reason: String| {
        PassError::Options(super::OptionError::Invalid { option: option.into(), value, reason })
    };
    let target = CpuTarget::named(&options.cpu)
        .map_err(|e| invalid("cpu", options.cpu.clone(), e.to_string()))?;
    target.with(&overrides).map_err(|e| match e {
        TargetError::Field { field, value, reason } => {
            invalid(field, value.to_string(), reason.to_string())
        }
        other => invalid("cpu", options.cpu.clone(), other.to_string()),
    })
}

/// Runs the pass on one function.
pub fn run(func: Op, options: &OptOptions) -> Result<(), PassError> {
    check_value("fuse", &options.fuse)?;
    let sched_options = SchedOptions {
        fuse: options.fuse.parse().unwrap_or_default(),
        max_coef: options.max_coef.clamp(1, 64) as i64,
        coincidence_cut: false,
    };
    if let Some(bad) = options
        .register_tile_sizes
        .iter()
        .find(|&&t| !(1..=16).contains(&t))
    {
        return Err(PassError::Options(super::OptionError::Invalid {
            option: "register-tile-sizes".into(),
            value: bad.to_string(),
            reason: "register tile sizes must be between 1 and 16".into(),
        }));
    }
    if let Some(bad) = options.tile_sizes.iter().find(|&&t| t < 1) {
        return Err(PassError::Options(super::OptionError::Invalid {
            option: "tile-sizes".into(),
            value: bad.to_string(),
            reason: "tile sizes must be positive".into(),
        }));
    }
    let target = cpu_target(options)?;
    let derived = Sizes::of(&target);
    let plan_options = PlanOptions {
        tile: options.tile,
        sizes: if options.tile_sizes.is_empty() {
            vec![32]
        } else {
            options.tile_sizes.clone()
        },
        l2_factor: options.l2_tile as i64,
        parallel: options.parallel,
        nested: options.nested_parallel,
        prevector: options.prevector,
        vector_tile: match (options.tile_sizes.is_empty(), options.vector_tile_size) {
            (false, _) => 0,
            (true, 0) => derived.vector_tile,
            (true, t) => i64::try_from(t).unwrap_or(i64::MAX),
        },
        auto_sizes: options.tile_sizes.is_empty(),
        threads: derived.threads,
        min_parallel_tiles: derived.min_parallel_tiles,
        reduction_tile: derived.reduction_tile,
        panel_tile: derived.panel_tile,
        wavefront: options.wavefront,
        inner_wavefront: options.inner_wavefront,
        unroll_jam: options.unroll_jam.min(16) as i64,
        register_tile: if options.register_tile {
            match options.register_tile_sizes[..] {
                [] => derived.register_block,
                [v] => (v, v),
                [u, v, ..] => (u, v),
            }
        } else {
            (0, 0)
        },
        // Wider blocks only by default: explicit sizes are taken as given.
        register_tile_wide: if options.register_tile_sizes.is_empty() {
            derived.register_block_wide
        } else {
            0
        },
    };
    // The rewritten loop nests and the memrefs they access, for `noalias`.
    let mut rewritten: Vec<Op> = Vec::new();
    let mut roots: Vec<usize> = Vec::new();
    let budget = (options.time_budget > 0).then(|| Duration::from_secs(options.time_budget));
    for scop in scops(func) {
        let at = scop.first_op.loc();
        // Every stage up to the rewrite runs within the SCoP's budget.
        let deadline = Budget::start(budget);
        let skip = |why: String| {
            let why = if why.contains(&MathError::Deadline.to_string()) {
                format!("{why} (time-budget={} s)", options.time_budget)
            } else {
                why
            };
            diag(at, Severity::Remark, &format!("poly-opt: SCoP left unchanged: {why}"), None)
        };
        let deps = match compute(&scop, DepOptions::default()) {
            Ok(d) => d,
            Err(e) => {
                skip(e.to_string());
                continue;
            }
        };
        let sched = schedule(&scop, &deps, &sched_options);
        let mut chosen = match &sched {
            Ok(s) => plan_with(&scop, &deps, s.clone(), options, &plan_options),
            Err(e) => Err(format!("no schedule: {e}")),
        };
        // Temporaries that tie every iteration to the next: with them
        // expanded (when that provably computes the same values), the plan
        // may find parallel loops the original cannot have.
        let parallel = |c: &Result<Planned, String>| {
            c.as_ref()
                .is_ok_and(|p| p.plan.dims.iter().any(|d| d.parallel))
        };
        let mut scop = scop;
        let mut deps = deps;
        // A band without parallel loop inside sequential loops (run as a
        // wavefront restarted at every iteration of them, or not in
        // parallel at all): a statement split at a hyperplane that its
        // dependences come from or go to may give parallel loops instead
        // (Floyd-Warshall's rows at step `k`).
        if options.split {
            let outer = sched.as_ref().ok().and_then(sequential_band_inside_loops);
            if let (Some(outer), Ok(s)) = (outer, &sched) {
                let tried = try_split(&scop, &deps, s, outer, options, &sched_options, &plan_options);
                if let Some((sscop, sdeps, alt)) = tried {
                    scop = sscop;
                    deps = sdeps;
                    chosen = Ok(alt);
                }
            }
        }
        if options.privatize && !parallel(&chosen) {
            let exps = privatize::find(&scop);
            if !exps.is_empty() {
                if let Ok(escop) = privatize::expand(&scop, &exps) {
                    if let Ok(edeps) = compute(&escop, DepOptions::default()) {
                        let alt = plan_scop(&escop, &edeps, options, &sched_options, &plan_options);
                        if parallel(&alt) {
                            scop = escop;
                            deps = edeps;
                            chosen = alt.map(|mut p| {
                                let mut names: Vec<&str> = exps
                                    .iter()
                                    .map(|e| scop.arrays[e.array.0].name.as_str())
                                    .collect();
                                names.dedup();
                                p.plan.notes.insert(
                                    0,
                                    format!(
                                        "temporar{} {} expanded per iteration (privatized)",
                                        if names.len() == 1 { "y" } else { "ies" },
                                        names.join(", ")
                                    ),
                                );
                                p
                            });
                        }
                    }
                }
            }
        }
        // Still no parallel loop: the statements whose dependences keep a
        // band from being parallel, distributed apart, may each have one
        // (atax's `y[j] += A[i][j] * tmp[i]`, a reduction over `i`, fused
        // with the rows' products `tmp[i]` at `i`).
        if !parallel(&chosen) {
            let cut = SchedOptions {
                coincidence_cut: true,
                ..sched_options
            };
            let alt = plan_scop(&scop, &deps, options, &cut, &plan_options);
            if parallel(&alt) {
                chosen = alt.map(|mut p| {
                    p.plan
                        .notes
                        .insert(0, "statements distributed for parallel loops".to_string());
                    p
                });
            }
        }
        let Planned {
            plan,
            tree,
            fallback_note,
            jam_note,
        } = match chosen {
            Ok(p) => p,
            Err(e) => {
                skip(e);
                continue;
            }
        };
        if options.verify {
            let mut bad = match verify(&scop, &deps, &plan.schedule) {
                Ok(v) => v,
                Err(e) => {
                    skip(format!("the legality check failed: {e}"));
                    continue;
                }
            };
            let mut check_failed = None;
            for (k, d) in plan.dims.iter().enumerate() {
                if d.parallel && bad.is_empty() {
                    match verify_parallel(&scop, &deps, &plan.schedule, k) {
                        Ok(v) => bad.extend(v),
                        Err(e) => check_failed = Some(e),
                    }
                }
            }
            if let Some(e) = check_failed {
                skip(format!("the legality check failed: {e}"));
                continue;
            }
            if let Some(v) = bad.first() {
                let d = &deps[v.dep];
                let sample = v
                    .sample
                    .as_ref()
                    .map(|p| format!(" (e.g. {})", describe_sample(&scop, d, p)))
                    .unwrap_or_default();
                let what = match v.level {
                    Some(k) if plan.dims[k].parallel => format!("carries it on parallel dimension {k}"),
                    Some(k) => format!("breaks it at dimension {k}"),
                    None => "runs source and sink at the same time".into(),
                };
                // A bug caught in time: the SCoP is left as it was and
                // the output is valid, so a warning (the exit code stays 0).
                diag(
                    at,
                    Severity::Warning,
                    &format!(
                        "poly-opt: internal error: the transformed schedule violates the {:?} dependence {} -> {} on {}{sample}: it {what}; the SCoP is left unchanged",
                        d.kind,
                        scop.statements[d.source.0].name,
                        scop.statements[d.sink.0].name,
                        scop.arrays[d.array.0].name
                    ),
                    None,
                );
                continue;
            }
        }
        // The rewrite itself is never stopped half-way.
        drop(deadline);
        if let Err(e) = emit::check(&scop, &tree) {
            skip(e);
            continue;
        }
        let (loops, parallel, guards) = tree.counts();
        let carry_dims: Vec<usize> = plan
            .register_tiles
            .iter()
            .map(|&(u, _, _)| u - 1)
            .collect();
        // The blocks of the vector loop, and the loop inside the tile.
        let hoist_dims: Vec<(usize, usize)> = if options.hoist {
            plan.register_tiles
                .iter()
                .filter(|&&(u, _, _)| u >= 2)
                .map(|&(u, _, _)| (u - 2, u - 1))
                .collect()
        } else {
            Vec::new()
        };
        // Contraction flags on the SCoP's own operations, which every
        // statement instance of the new nests is cloned from.
        if options.contract {
            if let Err(e) = allow_contraction(&scop.ops) {
                diag(at, Severity::Error, &format!("poly-opt: internal error while rewriting: {e}"), None);
                return Err(PassError::InvalidInput);
            }
        }
        let hoisted = match emit::emit(
            &scop,
            &tree,
            plan.dims.len(),
            &carry_dims,
            &hoist_dims,
            &plan.register_r_size,
            options.scalar_replace,
        ) {
            Ok(done) => {
                rewritten.extend(done.created);
                roots.extend(scop.arrays.iter().map(|a| a.root().key()));
                done.hoisted_loops
            }
            Err(e) => {
                diag(at, Severity::Error, &format!("poly-opt: internal error while rewriting: {e}"), None);
                return Err(PassError::InvalidInput);
            }
        };
        let mut what = vec![format!(
            "{} statement{}, {} loop{} ({} parallel), {} guard{}",
            scop.statements.len(),
            if scop.statements.len() == 1 { "" } else { "s" },
            loops,
            if loops == 1 { "" } else { "s" },
            parallel,
            guards,
            if guards == 1 { "" } else { "s" }
        )];
        what.extend(plan.notes.iter().cloned());
        if hoisted > 0 {
            what.push(format!(
                "block-invariant operands computed once per block row ({hoisted} loop{})",
                if hoisted == 1 { "" } else { "s" }
            ));
        }
        what.extend(fallback_note);
        what.extend(jam_note);
        if options.verify {
            what.push("legality verified".into());
        }
        if options.contract {
            what.push("multiply-adds may be fused (contract)".into());
        }
        what.push(format!("target {target}"));
        diag(at, Severity::Remark, &format!("poly-opt: {}", what.join("; ")), None);
    }
    if options.noalias && !rewritten.is_empty() {
        mark_noalias(func, &rewritten, &roots);
    }
    Ok(())
}

/// Marks the memref arguments of `func` `llvm.noalias` when the rewritten
/// SCoPs already relied on it: every memref argument is used only inside
/// `rewritten` (so no code the pass did not model can observe an alias),
/// the SCoPs accessed at least one of them, the function reads no global
/// memref (a global could be passed as an argument), and the function has
/// no argument attributes yet. Distinct roots not aliasing is the
/// dependence model's assumption; the attribute hands it to LLVM, which
/// then keeps loop-invariant loads in registers and forwards stores to
/// loads across the statement copies of unroll-and-jam.
fn mark_noalias(func: Op, rewritten: &[Op], roots: &[usize]) {
    if func.attr(c"arg_attrs").is_some() {
        return;
    }
    let Some(entry) = func
        .regions()
        .first()
        .and_then(|r| r.blocks().first().copied())
    else {
        return;
    };
    let args: Vec<_> = (0..entry.num_args()).filter_map(|k| entry.arg(k)).collect();
    let memrefs: Vec<usize> = args
        .iter()
        .filter(|a| a.is_memref())
        .map(|a| a.key())
        .collect();
    if !memrefs.iter().any(|m| roots.contains(m)) {
        return;
    }
    let inside = |op: Op| rewritten.iter().any(|&r| op.key() == r.key() || op.is_within(r));
    let mut stack: Vec<Op> = func
        .regions()
        .iter()
        .flat_map(|r| r.blocks())
        .flat_map(|b| b.ops())
        .collect();
    while let Some(op) = stack.pop() {
        if op.name() == "memref.get_global" {
            return;
        }
        if !inside(op) && op.operands().iter().any(|v| memrefs.contains(&v.key())) {
            return;
        }
        stack.extend(op.regions().iter().flat_map(|r| r.blocks()).flat_map(|b| b.ops()));
    }
    let text: Vec<&str> = args
        .iter()
        .map(|a| if a.is_memref() { "{llvm.noalias}" } else { "{}" })
        .collect();
    if let Ok(a) = crate::ffi::build::Builder::new(func).attr(&format!("[{}]", text.join(", "))) {
        crate::ffi::build::set_attr(func, "arg_attrs", a);
    }
}

/// Two statements of the same innermost input loop (same enclosing loops)
/// that read one array at the same subscripts, which the schedule takes
/// apart: their rows first differ at a sequence dimension before any loop
/// (separate nests), or some loop dimension gives them different
/// hyperplanes (the same cell read at distant times). The statements and
/// the array.
fn split_shared_reads(scop: &Scop, sched: &PlutoSchedule) -> Option<(usize, usize, usize)> {
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

/// A plan, its loop tree, and why it differs from the default options.
struct Planned {
    plan: Plan,
    tree: Tree,
    fallback_note: Option<String>,
    jam_note: Option<String>,
}

/// The first schedule dimension of a band of two or more loops of which
/// none is coincident, nested inside at least one loop dimension: what the
/// plan runs as a wavefront restarted at every iteration of the loops
/// around it.
fn sequential_band_inside_loops(sched: &PlutoSchedule) -> Option<usize> {
    let mut start = 0;
    while start < sched.dims.len() {
        let DimKind::Loop { band, .. } = sched.dims[start] else {
            start += 1;
            continue;
        };
        let mut end = start;
        let mut any_coincident = false;
        while let Some(DimKind::Loop { band: b, coincident }) = sched.dims.get(end) {
            if *b != band {
                break;
            }
            any_coincident |= *coincident;
            end += 1;
        }
        let outer_loop = sched.dims[..start]
            .iter()
            .any(|d| matches!(d, DimKind::Loop { .. }));
        if end - start >= 2 && !any_coincident && outer_loop {
            return Some(start);
        }
        start = end;
    }
    None
}

/// Most splits tried per SCoP (each is a scheduling and planning run).
const MAX_SPLITS_TRIED: usize = 4;

/// Index-set splitting ([`crate::scop::split`]) for a plan whose band at
/// schedule dimension `outer` runs as a wavefront inside the sequential
/// loops before it: the candidates from the dependences those loops leave
/// unordered are tried in turn, each scheduled with distribution for
/// parallelism, and the first whose plan has a parallel loop and no
/// restarted wavefront is returned, with a note saying what was split.
fn try_split(
    scop: &Scop,
    deps: &[Dependence],
    sched: &PlutoSchedule,
    outer: usize,
    options: &OptOptions,
    sched_options: &SchedOptions,
    plan_options: &PlanOptions,
) -> Option<(Scop, Vec<Dependence>, Planned)> {
    let cands = split::candidates(scop, deps, &sched.schedule.dims, outer).ok()?;
    let cut = SchedOptions {
        coincidence_cut: true,
        ..*sched_options
    };
    for c in cands.iter().take(MAX_SPLITS_TRIED) {
        let Ok(sscop) = split::apply(scop, c) else {
            continue;
        };
        let Ok(sdeps) = compute(&sscop, DepOptions::default()) else {
            continue;
        };
        let Ok(mut alt) = plan_scop(&sscop, &sdeps, options, &cut, plan_options) else {
            continue;
        };
        if alt.plan.restarted_wavefront.is_none() && alt.plan.dims.iter().any(|d| d.parallel) {
            alt.plan.notes.insert(
                0,
                format!(
                    "{} split at {} (index-set splitting)",
                    scop.statements[c.stmt].name,
                    c.describe(scop)
                ),
            );
            return Some((sscop, sdeps, alt));
        }
    }
    None
}

/// Schedules `scop` and builds the plan and loop tree the options ask for,
/// with the profitability rules; `Err` says why the SCoP should be left
/// unchanged.
fn plan_scop(
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

/// [`plan_scop`] for a schedule already computed.
fn plan_with(
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
        let plan = match plan(scop, &sched, deps, &attempt) {
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
                let own = crate::transform::plan(scop, &sched, deps, &plain)
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
