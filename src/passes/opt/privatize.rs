//! The privatize stage: when the plan has no parallel loop, small
//! temporaries that tie every iteration to the next are expanded per
//! iteration ([`crate::rewrite::privatize`], only where that provably
//! computes the same values), and the expanded SCoP replaces the original
//! when its plan has parallel loops.

use crate::deps::{compute, DepOptions};
use crate::rewrite::privatize;

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
                    let alt = plan_scop(&escop, &edeps, cx.options, cx.sched_options, cx.plan_options);
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
