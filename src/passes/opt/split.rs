//! The split stage: index-set splitting ([`crate::rewrite::split`]) for a
//! plan whose band runs as a wavefront restarted inside sequential loops;
//! the split SCoP replaces the original when its plan has parallel loops.

use crate::deps::{compute, DepOptions, Dependence};
use crate::sched::pluto::{DimKind, Options as SchedOptions, PlutoSchedule};
use crate::scop::model::Scop;
use crate::rewrite::split;

use super::plan::{plan_scop, PlanSet, Planned};
use super::{Candidate, Cx, OptOptions};

/// Replaces `c` by the SCoP with a statement split, when its first
/// schedule has a band without parallel loop inside sequential
/// loops (run as a wavefront restarted at every iteration of them, or not
/// in parallel at all) and a statement split at a hyperplane that its
/// dependences come from or go to gives parallel loops instead
/// (Floyd-Warshall's rows at step `k`).
pub(super) fn retry(c: &mut Candidate, cx: &Cx) {
    let Some(s) = &c.sched else { return };
    let Some(outer) = sequential_band_inside_loops(s) else {
        return;
    };
    if let Some((sscop, sdeps, alt, note)) =
        try_split(&c.scop, &c.deps, s, outer, cx.options, cx.sched_options, cx.plan_options)
    {
        c.scop = sscop;
        c.deps = sdeps;
        c.scop_notes.push(note);
        c.take(Ok(alt));
        c.sched = None;
    }
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

/// Index-set splitting ([`crate::rewrite::split`]) for a plan whose band at
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
    plan_options: &PlanSet,
) -> Option<(Scop, Vec<Dependence>, Planned, String)> {
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
        let Ok(alt) = plan_scop(&sscop, &sdeps, options, &cut, plan_options) else {
            continue;
        };
        if alt.plan.restarted_wavefront.is_none() && alt.plan.dims.iter().any(|d| d.parallel) {
            let note = format!(
                "{} split at {} (index-set splitting)",
                scop.statements[c.stmt].name,
                c.describe(scop)
            );
            return Some((sscop, sdeps, alt, note));
        }
    }
    None
}
