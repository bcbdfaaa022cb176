//! The privatize stage: when the plan has no parallel loop, small
//! temporaries that tie every iteration to the next are expanded per
//! iteration ([`crate::rewrite::privatize`], only where that provably
//! computes the same values), and the expanded SCoP replaces the original
//! when its plan, or its plan with every component in a nest of its own,
//! has parallel loops.

use crate::deps::{compute, DepOptions};
use crate::rewrite::privatize;
use crate::sched::pluto::{Fuse, Options as SchedOptions};

use super::plan::{has_parallel, plan_scop};
use super::{Candidate, Cx};

/// Replaces `c` by the SCoP with its temporaries expanded when `c`'s plan
/// has no parallel loop and the expanded one has.
pub(super) fn retry(c: &mut Candidate, cx: &Cx) {
    if has_parallel(&c.chosen) {
        return;
    }
        let exps = privatize::find(&c.scop);
        if !exps.is_empty() {
            if let Ok(escop) = crate::scop::expansion::expand(&c.scop, &exps) {
                if let Ok(edeps) = compute(&escop, DepOptions::default()) {
                    let mut alt = plan_scop(&escop, &edeps, cx.options, cx.sched_options, cx.plan_options);
                    // Still none: each component in a nest of its own,
                    // as `distribute::retry_transposed` does for the
                    // input. bicg written with its rows' sums carried in
                    // `iter_args` (a scalar cell per row once demoted):
                    // expanded, the cells are `q[i]`'s, whose rows run
                    // in the column sums' loops in transposed orders, one
                    // statement's rows along the other's columns, with
                    // no parallel loop; apart, each has one (2048 x 2048,
                    // 2 threads, Zen 5: the input 2.5 ms, 0.8 ms).
                    if !has_parallel(&alt) && !matches!(cx.sched_options.fuse, Fuse::No) {
                        let apart = SchedOptions {
                            fuse: Fuse::No,
                            ..*cx.sched_options
                        };
                        alt = plan_scop(&escop, &edeps, cx.options, &apart, cx.plan_options);
                    }
                    if has_parallel(&alt) {
                        c.scop = escop;
                        c.deps = edeps;
                        c.scop_notes.push(note(&c.scop, &exps));
                        c.take(alt);
                    }
                }
            }
        }
}

/// The remark's phrase for the temporaries `exps` expands in `scop`.
pub(super) fn note(scop: &crate::scop::model::Scop, exps: &[crate::scop::expansion::Expansion]) -> String {
    let mut names: Vec<&str> = exps
        .iter()
        .map(|e| scop.arrays[e.array.0].name.as_str())
        .collect();
    names.dedup();
    format!(
        "temporar{} {} expanded per iteration (privatized)",
        if names.len() == 1 { "y" } else { "ies" },
        names.join(", ")
    )
}
