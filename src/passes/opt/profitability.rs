//! The profitability rules (`profitability=true`, the default), applied in
//! order by [`super::plan::plan_with`] to a plan and its loop tree: one may
//! replace the plan (time-skewed stencils), one may run parallel loops
//! sequentially, and the others leave the SCoP unchanged (`Err` says why).
//! Each rule is a function; none decides legality (a replaced plan goes to
//! the checker like any other).

use crate::codegen::ast::SizeTest;
use crate::codegen::{generate, work_per_loop, Node, Tree};
use crate::deps::{DepKind, Dependence};
use crate::sched::pluto::{DimKind, PlutoSchedule};
use crate::analysis::carried::carries;
use crate::scop::form::Form;
use crate::scop::model::Scop;
use crate::transform::{is_skewed, original_parallel_plan, original_plan, Plan};

/// Smallest number of statement instances per execution of a parallel loop
/// (below it, OpenMP's fork and join cost more than two threads gain).
const PARALLEL_MIN_WORK: f64 = 50_000.0;

/// How many times fewer instances a parallel loop needs when its innermost
/// loop carries a dependence (see [`demote_small_parallel`]).
const LATENCY_FACTOR: f64 = 5.0;

/// Smallest estimated number of statement instances of a SCoP worth
/// transforming: gemm at SMALL (340,000) runs in 12 µs untouched and in
/// 20 µs tiled and forked; gesummv at LARGE (3.4 million, 0.9 ms) twice as
/// fast with its rows in parallel.
const SCOP_MIN_WORK: f64 = 1_000_000.0;

/// Time-skewed stencils: on few cores, the space loops of each time step in
/// parallel beat a wavefront of skewed tiles whose innermost loop runs two
/// statements that depend on each other a few iterations apart (it does not
/// vectorize), and beat a skewed schedule left without parallel loops (its
/// tiles dropped for guards) by far. With a loop per statement inside the
/// tiles, the wavefront wins (jacobi-2d and heat-3d at LARGE: 2.3x and 2.6x
/// the baseline, the parallel space loops 1.3-2.2x and 2.0x). The plan of
/// the original loops with their outermost parallel loop, and its tree, in
/// place of `plan` when that applies and the tree needs no guards inside
/// innermost loops.
pub(super) fn stencil_space_loops(
    scop: &Scop,
    deps: &[Dependence],
    sched: &PlutoSchedule,
    plan: &Plan,
) -> Option<(Plan, Tree)> {
    let applies = is_skewed(sched)
        && !plan.inner_distributed
        && (plan.wavefront || !plan.dims.iter().any(|d| d.parallel));
    if !applies {
        return None;
    }
    let alt = original_parallel_plan(scop, |s, k| {
        Ok(matches!(carries(scop, deps, s, k), Ok(false)))
    });
    let alt = alt.ok()??;
    let t = generate(scop, &alt).ok()?;
    (t.inner_guards() == 0).then_some((alt, t))
}

/// Parallel loops whose executions run little work cost more in OpenMP
/// forks than they gain: they run sequentially. Instances of an innermost
/// loop that carries a dependence (a reduction or a recurrence: each waits
/// for the previous one) cost several times those of one that vectorizes,
/// so such loops need less work per execution (trisolv's wavefront: about
/// 34,000 instances per execution, 0.45 ms in parallel against 1.0 ms
/// sequential; jacobi-1d's vectorized one, 36,000: 0.50 ms against
/// 0.14 ms). The note for the remark when a loop of `plan` was made
/// sequential (its tree must then be generated again).
pub(super) fn demote_small_parallel(
    scop: &Scop,
    deps: &[Dependence],
    plan: &mut Plan,
) -> Option<String> {
    let mut demoted = Vec::new();
    // The innermost loop: unrolled copies of a jam sit inside it (bicg's
    // rows, jammed around the vector loop), a register tile's unrolled
    // dimensions stand for it.
    let innermost = (0..plan.dims.len())
        .rev()
        .find(|&k| !plan.dims[k].scalar && (!plan.dims[k].unroll || plan.in_register_tile(k)));
    let latency_bound = innermost.is_some_and(|k| {
        matches!(carries(scop, deps, &plan.schedule, k), Ok(true))
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


        if let Ok(Some(w)) = work_per_loop(scop, plan, k) {
            if w < min_work {
                plan.dims[k].parallel = false;
                demoted.push(format!("{w:.0}"));
            }
        }
    }
    (!demoted.is_empty()).then(|| {
        format!(
            "parallel loop kept sequential: about {} statement instances per execution",
            demoted.join(", ")
        )
    })
}

/// Smallest estimated number of statement instances of a SCoP whose gain
/// is a reduction chain run in vector lanes (`chain`, see
/// [`enough_work`]): no fork to pay for, and each link of the input's
/// chain waits for the one before (an add's latency, or a store's and a
/// load's where the cell stays in memory), so a few thousand links
/// already take microseconds.
const CHAIN_MIN_WORK: f64 = 10_000.0;

/// A SCoP with little work in all gains nothing from tiles or forks (its
/// instances counted on its original loops: the widths of tiled loops
/// over-estimate). With `chain` (a reduction chain along an innermost loop
/// that `reassociate=true` lets run in vector lanes), less work pays.
/// `Ok(true)` when the work depends on the parameters (unbounded without
/// their values: see [`input_when_small`]).
pub(super) fn enough_work(scop: &Scop, chain: bool) -> Result<bool, String> {
    let original = original_plan(scop);
    let least = least_work(chain);
    match work_per_loop(scop, &original, 0) {
        Ok(Some(w)) if w < least => Err(format!(
            "no profitable transformation: about {w:.0} statement instances in all, too few for tiles or parallel loops to pay"
        )),
        Ok(None) => Ok(true),
        _ => Ok(false),
    }
}

/// The least number of statement instances of a SCoP worth transforming
/// (see [`enough_work`]).
fn least_work(chain: bool) -> f64 {
    if chain {
        CHAIN_MIN_WORK
    } else {
        SCOP_MIN_WORK
    }
}

/// A SCoP whose work depends on its parameters may be small at run time,
/// where [`enough_work`] would have left it unchanged had the sizes been
/// constants; where `plan` forks a parallel loop inside a sequential loop
/// (once per iteration of that loop: doitgen's `p` loops inside `r` and
/// `q`, a stencil's space loops inside its time loop, a wavefront's steps),
/// its forks then cost more than the work they share (PolyBench's SMALL
/// sizes with symbolic bounds, 2 threads, AMD EPYC Zen 5, the kernels not
/// inlined into their callers, µs, input -> transformed: doitgen 119 ->
/// 2367, trisolv 2 -> 19, jacobi-1d 1 -> 9, fdtd-2d 71 -> 181, adi 1411 ->
/// 2015). The input then stays beside the new code, and a test at run time
/// runs it when the statement instances, counted over boxes around the
/// statements' domains ([`crate::analysis::work::instance_boxes`]; a
/// triangle's box counts it twice), are fewer than [`enough_work`]'s
/// least. Plans whose parallel loops are all outermost fork once per run
/// and gain even on such small sizes against an input whose sizes LLVM
/// does not know (gemm 33 -> 20, 2mm 87 -> 14, gesummv 19 -> 2): no test.
/// `None` when the work is known without the run (`parametric`: as
/// [`enough_work`] found it), no parallel loop sits inside a sequential
/// one, or some loop has no bound over the parameters.
pub(super) fn input_when_small(
    scop: &Scop,
    plan: &Plan,
    chain: bool,
    parametric: bool,
) -> Option<SizeTest> {
    if !parametric || !forks_inside_sequential_loops(plan) {
        return None;
    }
    let boxes = crate::analysis::work::instance_boxes(scop)?;
    Some(SizeTest {
        boxes,
        least: least_work(chain) as i64,
    })
}

/// Some statement runs inside a parallel loop of `plan` that is itself
/// inside a sequential loop.
fn forks_inside_sequential_loops(plan: &Plan) -> bool {
    plan.schedule.dims.iter().any(|row| {
        let inside = |k: usize| !plan.dims[k].scalar && row.get(k).is_some_and(varies);
        (0..plan.dims.len())
            .filter(|&k| plan.dims[k].parallel && inside(k))
            .any(|k| (0..k).any(|j| !plan.dims[j].parallel && inside(j)))
    })
}

/// The remark's note of a size test.
pub(super) fn size_test_note(test: &SizeTest) -> String {
    format!(
        "input kept for small sizes: it runs when the statement instances, counted from the parameters at run time, are fewer than {}",
        test.least
    )
}

/// Matrix-vector shapes (no band of three loops) whose schedule takes apart
/// two statements of one innermost input loop that read the same cells
/// (bicg's `A[i][j]`, read by both updates: separate nests, or one nest
/// whose hyperplanes run them in transposed orders): the array is streamed
/// twice, and such kernels are bound by memory traffic, so the parallel
/// loops gained do not pay for the second pass, unless every pass is
/// spread over the threads: separate nests, each statement inside a
/// parallel loop, and `threads` of two or more. Each pass then streams its
/// share of the array at each core's bandwidth, while the input's one pass
/// runs on one core, and its fused loop does not even vectorize (bicg at
/// LARGE, 2 threads on an AMD EPYC, LLVM znver5, same run: 0.0029 s left
/// unchanged, 0.0018 s in two parallel passes).
pub(super) fn one_pass_over_shared_reads(
    scop: &Scop,
    sched: &PlutoSchedule,
    plan: &Plan,
    tree: &Tree,
    threads: i64,
) -> Result<(), String> {
    if plan.max_tiled_band > 2 {
        return Ok(());
    }
    let Some(split) = split_shared_reads(scop, sched) else {
        return Ok(());
    };
    let (a, b, array) = (split.a, split.b, split.array);
    if split.separate_nests && threads >= 2 {
        let parallel = in_parallel_loop(tree, scop.statements.len());
        if parallel[a] && parallel[b] {
            return Ok(());
        }
    }
    Err(format!(
        "no profitable transformation: {} and {} share their innermost loop and read {} at the same cells, which the schedule would read at distant times (a second pass over {} in a memory-bound nest{})",
        scop.statements[a].name,
        scop.statements[b].name,
        scop.arrays[array].name,
        scop.arrays[array].name,
        if split.separate_nests && threads >= 2 {
            " whose passes are not all parallel"
        } else {
            ""
        }
    ))
}

/// Per statement of a SCoP with `n` statements: some instance of it runs
/// inside a parallel loop of `tree`.
fn in_parallel_loop(tree: &Tree, n: usize) -> Vec<bool> {
    fn walk(node: &Node, inside: bool, out: &mut [bool]) {
        match node {
            Node::Seq(v) => v.iter().for_each(|c| walk(c, inside, out)),
            Node::Loop { role, body, .. } => walk(body, inside || role.is_parallel(), out),
            Node::If { body, .. } | Node::Let { body, .. } => walk(body, inside, out),
            Node::Stmt { stmt, .. } => {
                if let Some(o) = out.get_mut(*stmt) {
                    *o |= inside;
                }
            }
        }
    }
    let mut out = vec![false; n];
    walk(&tree.root, false, &mut out);
    out
}

/// Tiles of two-loop bands alone (matrix-vector shapes: reuse along one
/// dimension only, which the untiled loops already have) cost more in loop
/// overhead than they save, unless the plan has a reduction chain to run
/// in vector lanes (`chain`, see [`enough_work`]).
pub(super) fn more_than_two_loop_tiles(plan: &Plan, chain: bool) -> Result<(), String> {
    if !chain && !plan.dims.iter().any(|d| d.parallel) && (1..=2).contains(&plan.max_tiled_band) {
        return Err(
            "no profitable transformation: no parallel loop, and tiles of two-loop bands alone do not pay".to_string(),
        );
    }
    Ok(())
}

/// A plan with neither a tiled band nor a parallel loop gains nothing
/// (`fallback_note`: why it lost its tiles, if it did), unless it has a
/// reduction chain to run in vector lanes (`chain`, see [`enough_work`]).
pub(super) fn something_gained(plan: &Plan, fallback_note: Option<&str>, chain: bool) -> Result<(), String> {
    if !chain && !plan.dims.iter().any(|d| d.parallel) && plan.max_tiled_band == 0 {
        return Err(format!(
            "no profitable transformation: no tilable band of two or more loops and no parallel loop{}",
            fallback_note.map(|n| format!(" ({n})")).unwrap_or_default()
        ));
    }
    Ok(())
}

/// `sched` runs two statements of one input loop that read the same cells
/// in one nest, in transposed orders (see [`one_pass_over_shared_reads`]).
pub(super) fn transposed_shared_reads(scop: &Scop, sched: &PlutoSchedule) -> bool {
    split_shared_reads(scop, sched).is_some_and(|s| !s.separate_nests)
}

/// Two statements that read one array at the same cells, taken apart by a
/// schedule.
struct SharedSplit {
    /// The statements.
    a: usize,
    b: usize,
    /// The array.
    array: usize,
    /// In nests of their own (otherwise one nest runs them in transposed
    /// orders).
    separate_nests: bool,
}

/// Two statements of the same innermost input loop (same enclosing loops)
/// that read one array at the same subscripts, which the schedule takes
/// apart: their rows first differ at a sequence dimension before any loop
/// (separate nests), or some loop dimension gives them different
/// hyperplanes (the same cell read at distant times).
fn split_shared_reads(scop: &Scop, sched: &PlutoSchedule) -> Option<SharedSplit> {
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
                return Some(SharedSplit {
                    a,
                    b,
                    array: shared.array.0,
                    separate_nests,
                });
            }
        }
    }
    None
}

/// The statements whose innermost loop waits on their own previous
/// instance: a flow dependence of the statement on itself carried by the
/// innermost loop around it (cholesky's `A[i][j] -= A[i][k] * A[j][k]`
/// along `k`, trisolv's `x[i]` along `j`). A register tile's unrolled
/// copies stand for its innermost loop: they are independent chains. Not a
/// row's sum run in vector lanes (`Plan::lane_dims`): its chains are
/// vectors amid the transposes' shuffles, no slower fused (atax, mvt,
/// gemver, LARGE, same run: within the noise, 0-7 % faster fused). The
/// arithmetic of these statements is a chain of dependent operations,
/// bound by latency (see `codegen::contract`).
pub(super) fn latency_chains(scop: &Scop, deps: &[Dependence], plan: &Plan) -> Vec<usize> {
    let mut chains = Vec::new();
    for s in 0..scop.statements.len() {
        let Some(row) = plan.schedule.dims.get(s) else {
            continue;
        };
        let innermost = (0..plan.dims.len()).rev().find(|&k| {
            let d = &plan.dims[k];
            !d.scalar
                && (!d.unroll || plan.in_register_tile(k))
                && row.get(k).is_some_and(varies)
        });
        let Some(k) = innermost.filter(|&k| !plan.in_register_tile(k)) else {
            continue;
        };
        if plan.lane_dims.iter().any(|&l| row.get(l).is_some_and(varies)) {
            continue;
        }
        let own: Vec<Dependence> = deps
            .iter()
            .filter(|d| d.kind == DepKind::Raw && d.source.0 == s && d.sink.0 == s)
            .cloned()
            .collect();
        if !own.is_empty() && matches!(carries(scop, &own, &plan.schedule, k), Ok(true)) {
            chains.push(s);
        }
    }
    chains
}

/// A statement's schedule row that moves with its iterations (the
/// statement runs inside that dimension's loop).
fn varies(f: &Form) -> bool {
    f.iters.iter().chain(&f.locals).any(|&c| c != 0)
}
