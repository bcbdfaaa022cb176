//! The steps stage: a band of two loops without a parallel one, outermost
//! (the plan runs it as a wavefront of tiles), cut into steps along its
//! first hyperplane ([`crate::rewrite::steps`]), the steps run in order
//! and each step's instances scheduled inside it with distribution for
//! parallelism; the result replaces the plan when each step has parallel
//! loops and no wavefront. A triangular solve: in each step the block's
//! rows take the terms of the columns before it in parallel, whole rows
//! streamed, then the block's own triangle in order.

use crate::deps::{compute, DepOptions};
use crate::rewrite::steps;
use crate::sched::pluto::{components, schedule_after, DimKind, Fuse, Options as SchedOptions, PlutoSchedule};
use crate::scop::form::Form;
use crate::scop::model::Scop;

use super::plan::{plan_with, Planned};
use super::{Candidate, Cx};

/// Replaces `c` by its SCoP cut into steps when its first schedule's
/// outermost loops are a band of two without a coincident one, and the
/// steps' plan has parallel loops and runs no wavefront.
pub(super) fn retry(c: &mut Candidate, cx: &Cx) {
    let Some(s) = &c.sched else { return };
    let Some((first, second)) = outer_sequential_pair(s) else {
        return;
    };
    // A step balances its synchronization against its own triangle, run
    // in order (the target's model, `target::cpu::solve_step`), or, with
    // `tile-sizes` given, is one tile of the band (the work of one tile of
    // the wavefront it replaces); at least one vector's lanes of rows per
    // thread; its rows are dealt to the threads in tiles of whole blocks
    // of lanes.
    let narrow = &cx.plan_options.narrow;
    let tile = narrow.sizes.first().copied().unwrap_or(0);
    let (threads, lanes) = (narrow.threads.max(1), narrow.row_lanes.max(1));
    let size = if narrow.auto_sizes {
        crate::target::cpu::solve_step(threads, lanes)
    } else {
        tile.max(threads * lanes)
    };
    let rows = (size / threads + lanes - 1) / lanes * lanes;
    if tile < 2 {
        return;
    }
    let dims = &s.schedule.dims;
    let firsts: Vec<Form> = dims.iter().map(|d| d[first].clone()).collect();
    let seconds: Vec<Form> = dims.iter().map(|d| d[second].clone()).collect();
    // Only statements with dependences along the band's first hyperplane
    // are split (the others' instances need no order inside a step).
    let ordered: Vec<bool> = (0..dims.len())
        .map(|st| !s.stmt_coincident.get(first).and_then(|f| f.get(st)).copied().unwrap_or(false))
        .collect();
    // Nests that no dependence joins to those statements are not cut
    // (they run at step 0 with their own loops and parallelism).
    let stepped = joined(dims.len(), &c.deps, &ordered);
    let how = steps::Steps {
        first: &firsts,
        second: &seconds,
        stepped: &stepped,
        split: &ordered,
        size,
    };
    let Ok((sscop, prefix)) = steps::apply(&c.scop, &how) else {
        return;
    };
    let Ok(sdeps) = compute(&sscop, DepOptions::default()) else {
        return;
    };
    // Inside a step, the statements of its rows stay together but where
    // distribution for parallelism cuts them (not apart by loop depth:
    // `x[i] = b[i]` shares its rows' tiles with their terms), unless the
    // user asked for no fusion.
    let cut = SchedOptions {
        coincidence_cut: true,
        fuse: match cx.sched_options.fuse {
            Fuse::Smart => Fuse::Max,
            f => f,
        },
        ..*cx.sched_options
    };
    let Ok(ssched) = schedule_after(&sscop, &sdeps, &cut, &prefix) else {
        return;
    };
    let mut plans = cx.plan_options.clone();
    for o in std::iter::once(&mut plans.narrow).chain(plans.wide.as_mut().map(|w| &mut w.options)) {
        o.steps = true;
        let rest = o.sizes.get(1).or(o.sizes.last()).copied().unwrap_or(tile);
        o.sizes = vec![rows, rest];
    }
    let Ok(alt) = plan_with(&sscop, &sdeps, ssched, cx.options, &plans) else {
        return;
    };
    if acceptable(&alt, &sscop, &prefix, size) {
        let mut split: Vec<String> = Vec::new();
        for st in &sscop.statements {
            let piece = ["_lt", "_eq", "_gt"].iter().find_map(|p| st.name.strip_suffix(p));
            if let Some(n) = piece.filter(|n| !split.iter().any(|m| m == n)) {
                split.push(n.to_string());
            }
        }
        let apart: Vec<&str> = (0..sscop.statements.len())
            .filter(|&s| prefix[s].as_constant().is_some())
            .map(|s| sscop.statements[s].name.as_str())
            .collect();
        let mut note = format!(
            "the outer band's first loop cut into steps of {size}, run in order (φ0); {} split at the step's start along the second loop (its part before the step in parallel, the step's own part in order)",
            if split.is_empty() { "no statement".to_string() } else { split.join(", ") }
        );
        if !apart.is_empty() {
            note.push_str(&format!(
                "; {} not in steps (no dependence joins {} to them: at step 0)",
                apart.join(", "),
                if apart.len() == 1 { "it" } else { "them" }
            ));
        }
        c.scop = sscop;
        c.deps = sdeps;
        c.scop_notes.push(note);
        c.take(Ok(alt));
        c.sched = None;
    }
}

/// The steps' plan pays when a statement in steps has a parallel loop (in
/// the loop tree too), nothing runs as a wavefront (which the steps
/// replace), and every statement in steps without a parallel loop does a
/// tile's work at most per step: each of its iterators stays within
/// `size` values of `size·q` in step `q` (the step's own triangle; not
/// the bulk of the work in order beside a few parallel statements).
fn acceptable(p: &Planned, scop: &Scop, steps: &[Form], size: i64) -> bool {
    let plan = &p.plan;
    // Parallel loops in the loop tree, not only in the plan (a parallel
    // dimension of one iteration per step has none).
    if plan.wavefront || plan.restarted_wavefront.is_some() || p.tree.counts().1 == 0 {
        return false;
    }
    let parallel = |s: usize| {
        plan.dims.iter().enumerate().any(|(k, d)| {
            d.parallel_for(std::iter::once(s)) && plan.schedule.dims[s][k].as_constant().is_none()
        })
    };
    let stepped = |s: usize| steps[s].as_constant().is_none();
    let n = scop.statements.len();
    (0..n).any(|s| stepped(s) && parallel(s))
        && (0..n).all(|s| !stepped(s) || parallel(s) || within_step(scop, s, size))
}

/// The statements that dependences join, directly or through others, to
/// one marked in `marked` (those marked included).
fn joined(n: usize, deps: &[crate::deps::Dependence], marked: &[bool]) -> Vec<bool> {
    let comp = components(n, deps, &vec![true; deps.len()]);
    (0..n)
        .map(|s| (0..n).any(|t| marked[t] && comp[t] == comp[s]))
        .collect()
}

/// Every iterator `x` of statement `s` but its last (the step `q`) keeps
/// `x - size·q` within `size` values.
fn within_step(scop: &Scop, s: usize, size: i64) -> bool {
    let m = scop.statements[s].iters.len();
    let Ok(rq) = Form::iter(m - 1).scale(size) else {
        return false;
    };
    (0..m - 1).all(|x| {
        Form::iter(x)
            .minus(&rq)
            .ok()
            .and_then(|f| scop.range_of(s, &f))
            .is_some_and(|(lo, hi)| hi - lo < size)
    })
}

/// The first two schedule dimensions of the outermost band when it is the
/// schedule's first loop dimension (only scalar dimensions before it),
/// has exactly two loops and neither is coincident.
fn outer_sequential_pair(sched: &PlutoSchedule) -> Option<(usize, usize)> {
    let start = sched.dims.iter().position(|d| matches!(d, DimKind::Loop { .. }))?;
    let DimKind::Loop { band, .. } = sched.dims[start] else {
        return None;
    };
    let in_band: Vec<usize> = (start..sched.dims.len())
        .take_while(|&k| matches!(sched.dims[k], DimKind::Loop { band: b, .. } if b == band))
        .collect();
    let coincident = in_band
        .iter()
        .any(|&k| matches!(sched.dims[k], DimKind::Loop { coincident: true, .. }));
    (in_band.len() == 2 && !coincident).then(|| (in_band[0], in_band[1]))
}
