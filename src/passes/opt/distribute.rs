//! The distribute stage: when the plan has no parallel loop, the SCoP is
//! rescheduled with distribution for parallelism
//! ([`crate::sched::pluto::Options::coincidence_cut`]), kept when that
//! gives parallel loops.

use crate::sched::pluto::Options as SchedOptions;

use super::plan::{has_parallel, plan_scop};
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
