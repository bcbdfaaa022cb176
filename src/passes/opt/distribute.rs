//! The distribute stage: when the plan has no parallel loop, the SCoP is
//! rescheduled with distribution for parallelism
//! ([`crate::sched::pluto::Options::coincidence_cut`]), kept when that
//! gives parallel loops; and when the schedule ran two statements that read
//! the same cells in transposed orders, the SCoP is rescheduled with every
//! component in a nest of its own.

use crate::sched::pluto::{Fuse, Options as SchedOptions};

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
            c.chosen = alt.map(|mut p| {
                p.plan
                    .notes
                    .insert(0, "statements distributed for parallel loops".to_string());
                p
            });
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
        c.chosen = alt.map(|mut p| {
            p.plan.notes.insert(
                0,
                "statements that read the same cells in transposed orders distributed, one parallel pass each"
                    .to_string(),
            );
            p
        });
    }
}
