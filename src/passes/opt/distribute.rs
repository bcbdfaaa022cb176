//! The distribute stage: when the plan has no parallel loop, the SCoP is
//! rescheduled with distribution for parallelism
//! ([`crate::sched::pluto::Options::coincidence_cut`]), kept when that
//! gives parallel loops; and when the schedule ran two statements that read
//! the same cells in transposed orders, the SCoP is rescheduled with every
//! component in a nest of its own; and when one input loop nest became
//! several nests that each stream the same large arrays, with `fuse=max`
//! ([`retry_fused`]).

use crate::sched::pluto::{Fuse, Options as SchedOptions};
use crate::scop::expansion::static_bytes;
use crate::scop::model::Scop;
use crate::transform::Plan;

use super::plan::{has_parallel, plan_scop};
use super::profitability::transposed_shared_reads;
use super::{Candidate, Cx};

/// Replaces `c`'s plan by the distributed one when it has no parallel
/// loop and that one has.
pub(super) fn retry(c: &mut Candidate, cx: &Cx) {
    // Still no parallel loop: the statements whose dependences keep a
    // band from being parallel, distributed apart, may each have one
    // (atax's `y[j] += A[i][j] * tmp[i]`, a reduction over `i`, fused
    // with the rows' products `tmp[i]` at `i`).
    if !has_parallel(&c.chosen) {
        let cut = SchedOptions {
            coincidence_cut: true,
            ..*cx.sched_options
        };
        let alt = plan_scop(&c.scop, &c.deps, cx.options, &cut, cx.plan_options);
        if has_parallel(&alt) {
            c.take(alt.map(|mut p| {
                p.plan
                    .notes
                    .insert(0, "statements distributed for parallel loops".to_string());
                p
            }));
        }
    }
}

/// Replaces `c`'s plan by the one of nests of their own (`fuse=no`) when it
/// has no parallel loop because its first schedule ran two statements of one input
/// loop that read the same cells in transposed orders (bicg's two updates
/// of `A[i][j]`: one nest, `s[j]` along `j` and `q[i]` along `i`), and the
/// distributed plan has parallel loops: then each statement streams the
/// array in its own parallel pass, which the profitability rule
/// [`super::profitability::one_pass_over_shared_reads`] weighs.
pub(super) fn retry_transposed(c: &mut Candidate, cx: &Cx) {
    if has_parallel(&c.chosen) || matches!(cx.sched_options.fuse, Fuse::No) {
        return;
    }
    if !c.sched.as_ref().is_some_and(|s| transposed_shared_reads(&c.scop, s)) {
        return;
    }
    let apart = SchedOptions {
        fuse: Fuse::No,
        ..*cx.sched_options
    };
    let alt = plan_scop(&c.scop, &c.deps, cx.options, &apart, cx.plan_options);
    if has_parallel(&alt) {
        c.take(alt.map(|mut p| {
            p.plan.notes.insert(
                0,
                "statements that read the same cells in transposed orders distributed, one parallel pass each"
                    .to_string(),
            );
            p
        }));
    }
}

/// Replaces `c`'s plan by the one of `fuse=max` when the SCoP is one input
/// loop nest of statements of at most two loops that the plan runs as
/// several nests, each streaming arrays
/// larger than the L2 again, while the fused plan, its outer loop parallel,
/// streams fewer bytes ([`streamed_bytes`]). Row-wise kernels read each
/// row once in the input and keep it in the L1 for their next step
/// (softmax: a row's maximum, its exponentials and their sum, the
/// division; layer normalization's mean, variance and scaling), where the
/// default fusion's cuts between statements of different depths make a
/// pass over the whole matrix of each step (softmax, 2048x2048 f32 on 2
/// threads: 16 ms in four passes, the input's 15 ms in one pass on one
/// thread, 8 ms fused with the rows in parallel).
pub(super) fn retry_fused(c: &mut Candidate, cx: &Cx) {
    if cx.sched_options.fuse != Fuse::Smart {
        return;
    }
    let Ok(planned) = &c.chosen else {
        return;
    };
    let sts = &c.scop.statements;
    let Some(outer) = sts.first().and_then(|s| s.loops.first()) else {
        return;
    };
    // Memory-bound shapes only: statements of at most two loops (rows and
    // their elements). Deeper nests (gemm's beta scaling beside its
    // product) reuse each cell across a third loop, which their tiles
    // exploit whatever the passes.
    if !sts.iter().all(|s| s.loops.first() == Some(outer) && s.iters.len() <= 2) {
        return;
    }
    let l2 = cx.plan_options.narrow.l2_bytes;
    let now = streamed_bytes(&c.scop, &planned.plan, l2);
    if now == 0 {
        return;
    }
    let fused = SchedOptions {
        fuse: Fuse::Max,
        ..*cx.sched_options
    };
    let alt = plan_scop(&c.scop, &c.deps, cx.options, &fused, cx.plan_options);
    let Ok(a) = &alt else {
        return;
    };
    if !a.plan.dims.first().is_some_and(|d| d.parallel && !d.scalar) {
        return;
    }
    let then = streamed_bytes(&c.scop, &a.plan, l2);
    if then >= now {
        return;
    }
    let mb = |b: i64| b as f64 / 1e6;
    c.take(alt.map(|mut p| {
        p.plan.notes.insert(
            0,
            format!(
                "statements of one input loop kept in one nest (fuse=max): {:.1} MB streamed instead of {:.1} MB",
                mb(then),
                mb(now)
            ),
        );
        p
    }));
}

/// The bytes the nests of `plan` stream from memory, counting each array
/// larger than `l2` bytes (static shapes only) once per outermost nest
/// that touches it: the nests are the statements' groups at the plan's
/// first dimension when it is a sequence, otherwise one.
fn streamed_bytes(scop: &Scop, plan: &Plan, l2: i64) -> i64 {
    let sequence = plan.dims.first().is_some_and(|d| d.scalar);
    let nests = plan
        .nests(usize::from(sequence))
        .unwrap_or_else(|| vec![(0..scop.statements.len()).collect()]);
    let bytes = |a: usize| {
        static_bytes(&scop.root_of(&scop.arrays[a]).type_text())
            .filter(|&b| b > l2)
            .unwrap_or(0)
    };
    nests
        .iter()
        .map(|members| {
            let mut arrays: Vec<usize> = members
                .iter()
                .flat_map(|&s| scop.statements[s].accesses.iter().map(|a| a.array.0))
                .collect();
            arrays.sort_unstable();
            arrays.dedup();
            arrays.into_iter().map(bytes).sum::<i64>()
        })
        .sum()
}
