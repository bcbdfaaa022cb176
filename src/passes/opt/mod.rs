//! `poly-opt`: the full transformation — schedule, tile, parallelize,
//! re-check, generate code — on every SCoP of a function.
//!
//! The options are checked and translated first (`options.rs`); then the
//! stages run in order per SCoP (the loop in [`run`]); each can stop the
//! rewrite with a remark, leaving the SCoP exactly as it was:
//!
//! 1. model ([`crate::scop::model`]) and dependences ([`crate::deps`]),
//!    after `transposed` (two nests over one matrix in transposed orders
//!    fused where `partials` then splits the fused one) and `partials`
//!    (reductions over whole loop nests split into blocks with partial
//!    results, which then run in parallel);
//! 2. `plan`: the Pluto-style schedule ([`crate::sched::pluto`]), tiles,
//!    intra-tile order, register tiles, parallel loops and wavefronts
//!    ([`crate::transform`]), the loop tree ([`crate::codegen`]), and the
//!    profitability rules;
//! 3. retries: `embed` (lower-dimensional statements embedded into a
//!    sibling loop), kept when the outermost band grows and is tiled; then,
//!    for parallel loops, each kept only when it gives some: `split`
//!    (index-set splitting), `privatize` (expanded temporaries),
//!    `distribute` (distribution for parallelism);
//! 4. `check`: the independent legality checker on the final schedule and
//!    on every loop that will run in parallel ([`crate::sched::verify`],
//!    [`crate::sched::verify_parallel`]);
//! 5. the checks that the new code can replace the old
//!    ([`crate::codegen::refuse::rewrite`]; in debug and test builds, that the
//!    loop tree runs each statement instance exactly once, `check::tree`)
//!    and the rewrite
//!    ([`crate::codegen::emit::emit`]).

mod check;
mod demote;
mod distribute;
mod embed;
mod gpu;
mod layout;
mod machine;
mod options;
mod plan;
mod partials;
mod privatize;
mod remark;
mod profitability;
mod reassociate;
mod split;
mod steps;
mod transposed;
mod verify_emit;
mod views;

use std::collections::HashSet;
use std::time::{Duration, Instant};

use crate::codegen::contract::{allow_contraction, arithmetic_of, multiplies};
use crate::codegen::{forward, instances, kernels, refuse};
use crate::codegen::tree::TreeCx;
use crate::deps::{compute, DepOptions, Dependence};
use crate::ffi::ir::Op;
use crate::ffi::shim::{emit as diag, Severity};
use crate::math::budget::Budget;
use crate::sched::pluto::{schedule, Options as SchedOptions};
use crate::scop::detect::{detect, Rejection};
use crate::scop::model::{build, Scop};
use crate::target::gpu::GpuTarget;
use crate::target::CpuTarget;

use check::Rejected;
use machine::{GpuSide, Machine};
use options::Translated;
use plan::{plan_with, PlanSet, Planned};

use super::{OptOptions, PassError};

/// What every stage reads: the options, as the pass and as the scheduler
/// and the planner take them.
struct Cx<'a> {
    options: &'a OptOptions,
    sched_options: &'a SchedOptions,
    plan_options: &'a PlanSet,
}

/// The SCoP as the stages leave it: the model (a stage may replace it by
/// one with split statements or expanded temporaries), its dependences,
/// and the chosen plan or why there is none.
struct Candidate {
    scop: Scop,
    deps: Vec<Dependence>,
    chosen: Result<Planned, String>,
    /// The schedule the later retries inspect: `scop`'s first one (`None`
    /// when there is none, or when a retry replaced `scop` without one).
    sched: Option<crate::sched::pluto::PlutoSchedule>,
    /// The remark's phrases for what the retries did to `scop` itself
    /// (operands transposed, statements embedded or split, temporaries
    /// expanded), in order: every plan taken after them leads with them
    /// ([`Candidate::take`]).
    scop_notes: Vec<String>,
}

impl Candidate {
    /// Takes `alt` as the chosen plan (when it is one), its remark led by
    /// what the retries did to `scop` itself ([`Candidate::scop_notes`]):
    /// a retry that plans the same `scop` again keeps them.
    fn take(&mut self, alt: Result<Planned, String>) {
        let notes = &self.scop_notes;
        self.chosen = alt.map(|mut p| {
            for n in notes.iter().rev() {
                p.plan.notes.insert(0, n.clone());
            }
            p
        });
    }
}

/// The modeled SCoPs of `func`; rejected loop nests and SCoPs the model
/// cannot represent get a remark saying why they are not optimized.
/// The nests in `restored` (demoted ones given back, [`demote`]) got
/// their remark already, saying what breaks them once demoted.
/// Each SCoP comes with the loaded values kept in cells of their own for
/// it ([`demote::split_load`]) and, with `blocks`, two nests over one
/// matrix in transposed orders fused into one where its column sums are
/// then split ([`transposed`]), and its reductions over whole loop nests
/// split into blocks ([`partials`]): what to take back if it is not
/// rewritten.
fn scops(func: Op, restored: &HashSet<usize>, split_loads: bool, blocks: Option<partials::Blocks>) -> Vec<(Scop, Prepared)> {
    let found = detect(func, 1);
    for r in &found.rejections {
        if !restored.contains(&r.nest.key()) {
            not_a_scop(r);
        }
    }
    let mut out = Vec::new();
    for s in &found.scops {
        let mut s = s.clone();
        // Values read before a store that may change their cell and used
        // after it: each kept in a cell of its own, and the SCoP (grown
        // by those operations) detected and modeled again.
        let mut splits: Vec<demote::Split> = Vec::new();
        let modeled = loop {
            let u = match build(func, &s) {
                Ok(m) => break Some(m),
                Err(u) => u,
            };
            let again = (split_loads && u.stale_load && splits.len() < MAX_SPLITS)
                .then(|| demote::split_load(func, u.op, &s.ops))
                .flatten()
                .and_then(|split| {
                    splits.push(split);
                    let first = s.ops.first()?.key();
                    detect(func, 1)
                        .scops
                        .into_iter()
                        .find(|x| x.ops.iter().any(|o| o.key() == first))
                });
            match again {
                Some(grown) => s = grown,
                None => {
                    splits.drain(..).rev().for_each(demote::Split::undo);
                    diag(
                        u.op.loc(),
                        Severity::Remark,
                        &format!("poly-opt: SCoP left unchanged: not modeled exactly: {}", u.reason),
                        None,
                    );
                    break None;
                }
            }
        };
        if let Some(mut m) = modeled {
            let mut partials = Vec::new();
            let mut fused = Vec::new();
            if let Some(blocks) = blocks {
                // Two nests over one matrix in transposed orders, fused
                // into one where the fused nest's column sums are then
                // split into blocks (mvt as bicg); the input's nests back
                // otherwise.
                if let Some(f) = transposed::fuse(&m) {
                    let first = f.first().key();
                    let split = modeled_around(func, first).and_then(|g| partials::split(func, &g, blocks, &[]));
                    match split {
                        Some(p) if p.original_key() == first => {
                            match modeled_around(func, p.root().key()) {
                                Some(grown) => {
                                    m = grown;
                                    partials.push(p);
                                    fused.push(f);
                                }
                                None => {
                                    p.undo();
                                    f.undo();
                                }
                            }
                        }
                        other => {
                            if let Some(p) = other {
                                p.undo();
                            }
                            f.undo();
                        }
                    }
                }
                while partials.len() < MAX_PARTIALS {
                    let made: Vec<usize> = partials.iter().flat_map(partials::Partials::loops).collect();
                    let Some(p) = partials::split(func, &m, blocks, &made) else {
                        break;
                    };
                    // The SCoP of the block loop, modeled again; the
                    // input's loop back where that fails.
                    match modeled_around(func, p.root().key()) {
                        Some(grown) => {
                            m = grown;
                            partials.push(p);
                        }
                        None => {
                            p.undo();
                            break;
                        }
                    }
                }
            }
            out.push((
                m,
                Prepared {
                    splits,
                    fused,
                    partials,
                },
            ));
        }
    }
    out
}

/// The model of the SCoP of `func` that holds the top-level operation
/// with key `key`, detected again (after a change of its IR).
fn modeled_around(func: Op, key: usize) -> Option<Scop> {
    detect(func, 1)
        .scops
        .into_iter()
        .find(|x| x.ops.iter().any(|o| o.key() == key))
        .and_then(|grown| build(func, &grown).ok())
}

/// What a SCoP's IR was given before its model, to take back when it is
/// not rewritten: loaded values kept in cells ([`demote::split_load`]),
/// reductions split into blocks ([`partials`]).
struct Prepared {
    splits: Vec<demote::Split>,
    /// Nests fused before the partial results' splits (at most one).
    fused: Vec<transposed::Fused>,
    partials: Vec<partials::Partials>,
}

impl Prepared {
    /// The remark's phrases of what was prepared.
    fn notes(&self) -> Vec<String> {
        self.fused
            .iter()
            .map(|f| f.note().to_string())
            .chain(self.partials.iter().map(|p| p.note().to_string()))
            .collect()
    }

    /// The scheduler's options for the SCoP: with a loop split into
    /// blocks with private copies of an array, statements that read the
    /// same cells in one loop keep the same hyperplanes (each block's rows
    /// then stream once, read by both: bicg's column sums into the copies
    /// and its rows' sums), see
    /// [`crate::sched::pluto::Options::align_shared_reads`].
    fn sched_options(&self, given: &SchedOptions) -> SchedOptions {
        SchedOptions {
            align_shared_reads: given.align_shared_reads || self.partials.iter().any(partials::Partials::arrays),
            ..*given
        }
    }

    /// Takes the IR back, the last change first.
    fn undo(self) {
        self.partials.into_iter().rev().for_each(partials::Partials::undo);
        self.fused.into_iter().rev().for_each(transposed::Fused::undo);
        self.splits.into_iter().rev().for_each(demote::Split::undo);
    }

    /// Keeps the changes (the SCoP was rewritten).
    fn keep(self) {
        self.partials.into_iter().for_each(partials::Partials::keep);
        self.fused.into_iter().for_each(transposed::Fused::keep);
    }
}

/// The most reductions of one SCoP split into blocks.
const MAX_PARTIALS: usize = 8;

/// The most loaded values a SCoP keeps in cells of their own (each costs
/// a detection and a model of the SCoP).
const MAX_SPLITS: usize = 16;

/// The remark of a loop nest that is not a SCoP, with a note at the
/// operation that breaks it.
fn not_a_scop(r: &Rejection) {
    let note = format!("'{}' breaks the static control part here", r.culprit.name());
    let note = (r.culprit.key() != r.nest.key()).then(|| (r.culprit.loc(), note.as_str()));
    diag(
        r.nest.loc(),
        Severity::Remark,
        &format!("poly-opt: loop nest not optimized: it is not a static control part: {}", r.reason),
        note,
    );
}

/// The share of a SCoP's time budget the scheduler may take: the rest is
/// left for the plan of the original loop order when its ILP runs out.
const SCHEDULE_SHARE: f64 = 0.75;

/// The share of a SCoP's time budget, counted from its start, past which
/// the retries stop when the plan so far is one to keep (an improvement
/// that runs long must not cost the plan it would improve): the rest is
/// left for that plan's legality check and code generation.
const RETRY_SHARE: f64 = 0.6;

/// How the reason of a SCoP without a schedule starts.
pub(super) const NO_SCHEDULE: &str = "no schedule: ";

/// Runs the pass on one function.
pub fn run(func: Op, options: &OptOptions) -> Result<(), PassError> {
    let Translated {
        sched_options,
        plan_options,
        target,
        gpu_target,
    } = options::translate(options)?;
    // A function that names its vector width keeps it: its plans are for
    // the target's own vectors.
    let plan_options = if names_vector_width(func) {
        PlanSet { wide: None, ..plan_options }
    } else {
        plan_options
    };
    let cx = Cx {
        options,
        sched_options: &sched_options,
        plan_options: &plan_options,
    };
    let mut out = Rewritten::default();
    let budget = (options.time_budget > 0).then(|| Duration::from_secs(options.time_budget));
    // Loop-carried values in memory cells; the nests that are not at the
    // top of a SCoP come back at once, the others once their SCoP is done.
    let mut demoted = if options.iter_args || options.local_buffers || options.views {
        demote::demote(func, options.iter_args, options.local_buffers, options.views)
    } else {
        Vec::new()
    };
    let mut restored = HashSet::new();
    if !demoted.is_empty() {
        let found = detect(func, 1);
        let tops: HashSet<usize> = found.scops.iter().flat_map(|s| s.ops.iter().map(|o| o.key())).collect();
        let (kept, back): (Vec<_>, Vec<_>) = demoted.into_iter().partition(|n| tops.contains(&n.root().key()));
        for nest in back {
            // What breaks the nest besides its carried values.
            if let Some(r) = found.rejections.iter().find(|r| r.nest.key() == nest.root().key()) {
                not_a_scop(r);
            }
            restored.insert(nest.undo());
        }
        demoted = kept;
    }
    // The top-level operations of the SCoPs rewritten.
    let mut rewritten: HashSet<usize> = HashSet::new();
    let mut failed = Ok(());
    // Reductions over whole loop nests split into blocks, one per thread
    // (CPU plans with parallel loops only).
    let blocks = (gpu_target.is_none() && options.parallel && plan_options.narrow.threads >= 2).then_some(partials::Blocks {
        count: plan_options.narrow.threads,
        reassociate: options.reassociate,
        min_terms: if options.profitability { partials::MIN_TERMS_PER_BLOCK } else { 1 },
        array_bytes: i64::try_from(target.l2_bytes / 2).unwrap_or(i64::MAX),
        align: plan_options.narrow.row_lanes.max(1),
    });
    let mut prepared_scops = scops(func, &restored, options.split_loads, blocks).into_iter();
    for (scop, prepared) in prepared_scops.by_ref() {
        let keys: Vec<usize> = scop.ir.ops.iter().map(|o| o.key()).collect();
        let before = out.replaced;
        // A demoted nest's root may be a loop split into blocks since.
        let split: Vec<usize> = prepared
            .partials
            .iter()
            .map(partials::Partials::original_key)
            .chain(prepared.fused.iter().map(transposed::Fused::second_key))
            .collect();
        let mut notes: Vec<String> = demoted
            .iter()
            .filter(|n| keys.contains(&n.root().key()) || split.contains(&n.root().key()))
            .flat_map(|n| n.notes().iter().cloned())
            .collect();
        notes.extend(prepared.notes());
        let sched_options = prepared.sched_options(cx.sched_options);
        let cx = Cx {
            sched_options: &sched_options,
            ..cx
        };
        let done = optimize(func, scop, (&target, gpu_target.as_ref()), budget, &cx, &notes, &mut out);
        if out.replaced > before {
            rewritten.extend(keys);
            // The loops split into blocks were top-level loops too (a
            // demoted nest's root among them).
            rewritten.extend(prepared.partials.iter().map(partials::Partials::original_key));
            // And so was a nest fused into another (a demoted one too).
            rewritten.extend(prepared.fused.iter().map(transposed::Fused::second_key));
            prepared.keep();
        } else {
            prepared.undo();
        }
        if done.is_err() {
            failed = done;
            break;
        }
    }
    // After an error, the SCoPs not reached take back what was prepared
    // for them (a loop split into blocks holds a demoted nest's root).
    for (_, prepared) in prepared_scops {
        prepared.undo();
    }
    // Also after an error: the nests of the SCoPs not replaced are intact.
    for nest in demoted {
        if rewritten.contains(&nest.root().key()) {
            nest.keep();
        } else {
            nest.undo();
        }
    }
    failed?;
    if options.noalias && !out.ops.is_empty() {
        mark_noalias(func, &out.ops, &out.roots);
    }
    Ok(())
}

/// The stages of one SCoP of `func`, for the CPU `target` or the GPU
/// (`gpu`), up to the rewrite into `out` or a remark saying why the SCoP
/// is left unchanged.
fn optimize(
    func: Op,
    scop: Scop,
    (target, gpu_target): (&CpuTarget, Option<&GpuTarget>),
    budget: Option<Duration>,
    cx: &Cx,
    notes: &[String],
    out: &mut Rewritten,
) -> Result<(), PassError> {
    let (options, sched_options, plan_options) = (cx.options, cx.sched_options, cx.plan_options);
    let at = scop.ir.first_op.loc();
    // Every stage up to the rewrite runs within the SCoP's budget.
    let started = Instant::now();
    let deadline = Budget::start(budget);
    let skip = |why: String| left_unchanged(at, options, why, deadline.ran_out());
    // Too little work for any plan to pay (every CPU plan is held to
    // this): decided on the model, before dependences and schedules.
    if gpu_target.is_none() && options.profitability {
        if let Err(why) = profitability::enough_work(&scop, reassociate::chain(&scop, options)) {
            skip(why);
            return Ok(());
        }
    }
    let deps = match compute(&scop, DepOptions::default()) {
        Ok(d) => d,
        Err(e) => {
            skip(e.to_string());
            return Ok(());
        }
    };
    // The scheduler gets a share of the budget: if its ILP runs out,
    // the rest serves the original order's plan (`plan::plan_original`).
    let sched = {
        let _share = Budget::start(budget.map(|b| b.mul_f64(SCHEDULE_SHARE)));
        schedule(&scop, &deps, sched_options)
    };
    if let Some(gpu) = &gpu_target {
        let sched = sched.as_ref().map_err(|e| e.to_string());
        let shape = crate::transform::gpu::Shape {
            block: &options.gpu_block,
            thread_rows: i64::from(options.gpu_thread_tile.min(64) as u32),
            shared_tile: if options.gpu_shared {
                crate::transform::gpu::shared_tile(gpu)
            } else {
                0
            },
        };
        let mut mapped = gpu::plan(&scop, &deps, sched, sched_options, gpu, shape);
        let (mut scop, mut deps) = (scop, deps);
        // Expanded temporaries, when the SCoP has no parallel loop to
        // map or its launches run inside loops on the host (doitgen's
        // `sum` ties each (r, q) to the next: a launch of one block per
        // (r, q) pair); taken when they leave fewer loops on the host.
        let host_loops = mapped.as_ref().map_or(usize::MAX, gpu::host_loops);
        if host_loops > 0 && options.privatize {
            if let Some((escop, edeps, emapped)) = gpu::privatized(&scop, sched_options, gpu, shape) {
                if gpu::host_loops(&emapped) < host_loops {
                    (scop, deps, mapped) = (escop, edeps, Ok(emapped));
                }
            }
        }
        match mapped {
            Ok(gpu::Mapped {
                planned,
                roles,
                mut shared,
            }) => {
                // The mutation test of the checker: a box one cell short.
                if options.gpu_test_mutation == "short-footprint" {
                    if let Some(e) = shared.promotions.first_mut().and_then(|p| p.extent.last_mut()) {
                        *e -= 1;
                    }
                }
                let on = Machine::Gpu(GpuSide {
                    roles: &roles,
                    shared: &shared,
                    shared_limit: i64::from(gpu.shared_per_block),
                });
                rewrite((&scop, &deps), (planned, on), deadline, cx, out)?
            }
            Err(why) => skip(why),
        }
        return Ok(());
    }
    let chosen = match &sched {
        Ok(s) => plan_with(&scop, &deps, s.clone(), options, plan_options),
        // Without a schedule, the original loop order's parallel loop
        // (the retries below rescheduling only when it has none).
        Err(e) => plan::plan_original(&scop, &deps, options, &format!("{NO_SCHEDULE}{e}")),
    };
    // The retries, in order: each replaces the candidate only when it
    // gives the parallel loops the plan so far lacks.
    let retry_until = match (&chosen, budget) {
        (Ok(_), Some(b)) => Some((started + b.mul_f64(RETRY_SHARE)).saturating_duration_since(Instant::now())),
        _ => None,
    };
    let mut c = Candidate {
        scop,
        deps,
        chosen,
        sched: sched.ok(),
        scop_notes: Vec::new(),
    };
    let mut transposed = None;
    {
        let _retries = Budget::start(retry_until);
        if options.layout {
            transposed = layout::retry(func, &mut c, cx);
        }
        if options.embed {
            embed::retry(&mut c, cx);
        }
        if options.split {
            split::retry(&mut c, cx);
        }
        if options.steps {
            steps::retry(&mut c, cx);
        }
        if options.privatize {
            privatize::retry(&mut c, cx);
        }
        distribute::retry(&mut c, cx);
        distribute::retry_transposed(&mut c, cx);
        distribute::retry_fused(&mut c, cx);
    }
    let Candidate {
        scop, deps, mut chosen, ..
    } = c;
    // What was done to the SCoP before its model, first in the remark.
    if let Ok(p) = &mut chosen {
        for n in notes.iter().rev() {
            p.plan.notes.insert(0, n.clone());
        }
    }
    match chosen {
        Ok(planned) => {
            let wide = plan_options.wide.as_ref().filter(|_| planned.wide).map(|w| &w.target);
            let before = out.replaced;
            let on = Machine::Cpu(wide.unwrap_or(target));
            let rewritten = rewrite((&scop, &deps), (planned, on), deadline, cx, out);
            let done = out.replaced > before;
            // Operands transposed for a plan that was not printed
            // after all: the input comes back.
            if let (Some(t), false) = (transposed.take(), done) {
                t.undo();
            }
            rewritten?;
            if let (Some(w), true) = (wide, done) {
                prefer_vector_width(func, w.vector_bits);
            }
        }
        Err(e) => {
            if let Some(t) = transposed.take() {
                t.undo();
            }
            skip(e)
        }
    }
    Ok(())
}

/// The function's rewritten loop nests and the memrefs they access (array
/// roots' keys), for `noalias`.
#[derive(Default)]
struct Rewritten {
    ops: Vec<Op>,
    roots: Vec<usize>,
    /// How many SCoPs' operations were replaced (by new code, which may be
    /// empty, or by the emitted-code check's copy of them).
    replaced: usize,
}

/// The remark of a SCoP left unchanged, and why, naming the time budget
/// when it ran out on the way (`ran_out`, [`Budget::ran_out`]: the stage
/// that failed, or one before it whose result it needed, such as the
/// scheduler's ILP or a retry, was stopped by the deadline).
fn left_unchanged(at: crate::ffi::ir::Loc, options: &OptOptions, why: String, ran_out: bool) {
    let why = if ran_out {
        format!("{why} (time-budget={} s)", options.time_budget)
    } else {
        why
    };
    diag(at, Severity::Remark, &format!("poly-opt: SCoP left unchanged: {why}"), None)
}

/// The stages after the plan: the checker's verdict, the code generator's
/// checks, the tree stages, the printing and the remark, for one SCoP and
/// its dependences, on `machine` (`out` gathers the new loop nests and
/// their memrefs). A remark says what was done or why the SCoP is left
/// unchanged.
fn rewrite(
    (scop, deps): (&Scop, &[Dependence]),
    (planned, machine): (Planned, Machine),
    deadline: Budget,
    cx: &Cx,
    out: &mut Rewritten,
) -> Result<(), PassError> {
    let options = cx.options;
    let at = scop.ir.first_op.loc();
    // After the checker, nothing runs under the deadline: whether it ran
    // out is known from there on.
    let skip = |why: String| left_unchanged(at, options, why, false);
    let Planned {
        mut plan,
        mut tree,
        fallback_note,
        jam_note,
        wide,
    } = planned;
    {
        if options.verify {
            let checking = Budget::start(None);
            let checked = check::run(scop, deps, &plan).and_then(|()| machine.check(scop, &plan));
            match checked {
                Ok(()) => {}
                Err(Rejected::Failed(why)) => {
                    left_unchanged(at, options, why, checking.ran_out());
                    return Ok(());
                }
                // A bug caught in time: the SCoP is left as it was and
                // the output is valid, so a warning (the exit code stays 0).
                Err(Rejected::Violation(message)) => {
                    diag(at, Severity::Warning, &message, None);
                    return Ok(());
                }
            }
        }
        // The rewrite itself is never stopped half-way.
        drop(deadline);
        if let Err(e) = refuse::rewrite(scop, &tree) {
            skip(e.to_string());
            return Ok(());
        }
        // Debug and test builds re-check code generation too.
        #[cfg(debug_assertions)]
        if let Err(e) = check::tree(scop, &plan, &tree) {
            diag(
                at,
                Severity::Warning,
                &format!("poly-opt: internal error: {e}; the SCoP is left unchanged"),
                None,
            );
            return Ok(());
        }
        let (loops, parallel, guards) = tree.counts();
        // Contraction flags on the SCoP's own operations, which every
        // statement instance of the new nests is cloned from, but for the
        // statements bound by a latency chain (`Machine::keeps_chains_apart`).
        let chains: Vec<usize> = if options.contract && machine.keeps_chains_apart() {
            profitability::latency_chains(scop, deps, &plan)
                .into_iter()
                .filter(|&s| multiplies(scop.store_of(&scop.statements[s])))
                .collect()
        } else {
            Vec::new()
        };
        // The emitted-code check's limit, and the attributes that the
        // marks for contraction and reassociation change, to put back if
        // it catches a bug.
        let verify_limit = machine.verify_limit(options);
        let flags = (verify_limit > 0).then(|| verify_emit::Flags::record(&scop.ir.ops));
        if options.contract {
            let stores: Vec<Op> = chains.iter().map(|&s| scop.store_of(&scop.statements[s])).collect();
            if let Err(e) = allow_contraction(&scop.ir.ops, &arithmetic_of(&stores)) {
                diag(at, Severity::Error, &format!("poly-opt: internal error while rewriting: {e}"), None);
                return Err(PassError::InvalidInput);
            }
        }
        if let Err(e) = machine.refuse(scop) {
            skip(e.to_string());
            return Ok(());
        }
        // The emitted-code check's run of the input.
        let mut verify_note = None;
        let pending = match flags {
            None => None,
            Some(flags) => verify_emit::before(scop, verify_limit, flags).map_err(|n| verify_note = n).ok(),
        };
        // With reassociate=true, the reductions' combining operations
        // may combine their terms in another order (flags set after the
        // emitted-code check's run of the input, on the operations the new
        // nests clone).
        let reassociated = if options.reassociate {
            reassociate::along_innermost(&plan, reassociate::chosen(scop))
        } else {
            Vec::new()
        };
        if !reassociated.is_empty() {
            if let Err(e) = reassociate::allow(scop, &reassociated) {
                diag(at, Severity::Error, &format!("poly-opt: internal error while rewriting: {e}"), None);
                return Err(PassError::InvalidInput);
            }
            plan.notes.push(reassociate::note(scop, &reassociated));
        }
        // The tree as scanned, for print-plan.
        let scanned = options
            .print_plan
            .then(|| tree.to_text(scop.params.len()));
        let vias = instances::vias(scop);
        let lane_wise: Vec<bool> = (0..scop.statements.len())
            .map(|s| crate::analysis::lanes::lane_wise(scop, s))
            .collect();
        let tree_cx = TreeCx {
            scalar_replace: options.scalar_replace,
            hoist: options.hoist,
            pack: options.pack,
            l1: machine.l1_sets(),
            prefetch: machine.prefetch(options.prefetch),
            gpu: machine.gpu_cx(),
            ..TreeCx::of(&plan, (scop, &vias, &lane_wise), machine.fill())
        };
        let mut tree_stages = Vec::new();
        for (name, stage) in machine.stages() {
            let note = stage(&mut tree, &tree_cx);
            #[cfg(debug_assertions)]
            if let Err(e) = check::tree(scop, &plan, &tree) {
                diag(
                    at,
                    Severity::Warning,
                    &format!("poly-opt: internal error after the {name} tree stage: {e}; the SCoP is left unchanged"),
                    None,
                );
                return Ok(());
            }
            if options.print_stages {
                tree_stages.push((*name, note, tree.to_text(scop.params.len())));
            }
        }
        if !options.emit_test_mutation.is_empty() {
            crate::codegen::mutate::apply(&mut tree, &options.emit_test_mutation);
        }
        // The arrays of the SCoP's memrefs, taken before the rewrite erases
        // its operations, for the forwarding after it.
        let forward_roots = tree.forward.then(|| forward::roots(scop));
        // The SCoP's operations leave the IR: erased at once, or after the
        // emitted-code check, which puts them back if it catches a bug.
        let checked = pending.is_some();
        let emitted = match machine
            .emit(scop, &tree, options)
            .map(|mut done| {
                if !checked {
                    done.retire_replaced();
                }
                done
            })
            .and_then(|done| kernels::lower(&done.kernels).map(|()| done))
        {
            Ok(mut done) => {
                if let Some(memrefs) = &forward_roots {
                    forward::run(&done.created, memrefs);
                }
                if let Some(p) = pending {
                    match verify_emit::after(p, &mut done) {
                        Ok(note) => verify_note = note,
                        Err(why) => {
                            diag(
                                at,
                                Severity::Warning,
                                &format!(
                                    "poly-opt: internal error: the rewritten code does not compute what the SCoP computed: {why}; the SCoP is left unchanged"
                                ),
                                None,
                            );
                            return Ok(());
                        }
                    }
                }
                if let Some(why) = &done.size_test_error {
                    diag(
                        at,
                        Severity::Warning,
                        &format!("poly-opt: internal error: the input could not be kept beside the new code ({why}); the new code runs at every size"),
                        None,
                    );
                }
                out.replaced += 1;
                out.ops.extend(done.created.iter().copied());
                if machine.noalias() {
                    out.roots.extend(scop.arrays.iter().map(|a| scop.root_of(a).key()));
                }
                done
            }
            Err(e) => {
                diag(at, Severity::Error, &format!("poly-opt: internal error while rewriting: {e}"), None);
                return Err(PassError::InvalidInput);
            }
        };
        let done = remark::Done {
            statements: scop.statements.len(),
            counts: (loops, parallel, guards),
            plan_notes: &plan.notes,
            emitted: &emitted,
            fallback_note: fallback_note.as_deref(),
            jam_note: jam_note.as_deref(),
            machine,
            chains: chains
                .iter()
                .map(|&s| scop.statements[s].name.as_str())
                .collect(),
            wide,
            verify_note: verify_note.as_deref(),
        };
        let what = remark::phrases(&done, options);
        diag(at, Severity::Remark, &format!("poly-opt: {}", what.join("; ")), None);
        if options.print_stages {
            for (stage, text) in &plan.stages {
                let text = format!("poly-opt plan after the {stage} stage:\n{text}");
                diag(at, Severity::Remark, &text, None);
            }
            for (stage, note, text) in &tree_stages {
                let text = format!(
                    "poly-opt loop tree after the {stage} stage ({} loop{} marked):\n{text}",
                    note.loops,
                    if note.loops == 1 { "" } else { "s" }
                );
                diag(at, Severity::Remark, &text, None);
            }
        }
        if let Some(scanned) = scanned {
            let text = format!(
                "poly-opt plan:\n{}loop tree (p: parameters, t: schedule dimensions, d: divisions):\n{scanned}",
                plan.to_text(scop),
            );
            diag(at, Severity::Remark, &text, None);
        }
    }
    Ok(())
}

/// Asks LLVM to vectorize `func` with `bits`-bit vectors (the
/// `prefer-vector-width` function attribute, through the `passthrough`
/// attribute that `convert-func-to-llvm` keeps on the `llvm.func`), for the
/// register tiles of a plan made for the target's widest vectors
/// ([`crate::target::CpuTarget::wide`]); LLVM's tuning for the CPU would
/// split their vectors in two. A width the function already asks for is
/// kept.
fn prefer_vector_width(func: Op, bits: u32) {
    let entry = format!("[{VECTOR_WIDTH_KEY}, \"{bits}\"]");
    let text = match func.attr(c"passthrough").map(|a| a.text()) {
        Some(t) if t.contains(VECTOR_WIDTH_KEY) => return,
        Some(t) => match t.trim().strip_suffix(']') {
            Some(head) if head.trim_end().ends_with('[') => format!("{head}{entry}]"),
            Some(head) => format!("{head}, {entry}]"),
            None => return,
        },
        None => format!("[{entry}]"),
    };
    if let Ok(a) = crate::ffi::build::Builder::new(func).attr(&text) {
        crate::ffi::build::set_attr(func, "passthrough", a);
    }
}

/// True when `func`'s `passthrough` attribute names a
/// `prefer-vector-width`.
fn names_vector_width(func: Op) -> bool {
    func.attr(c"passthrough")
        .is_some_and(|a| a.text().contains(VECTOR_WIDTH_KEY))
}

/// The key of LLVM's vector width attribute in a `passthrough` list.
const VECTOR_WIDTH_KEY: &str = "\"prefer-vector-width\"";

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
