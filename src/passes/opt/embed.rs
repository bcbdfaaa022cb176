//! The embed stage: statements with loops of their own beside a sibling
//! loop get that loop's dimension ([`crate::rewrite::embed`]), and the
//! embedded SCoP replaces the original when its schedule's outermost band
//! grows to take the sibling loop and its plan tiles that band, keeping
//! parallel loops where the original plan had them. Inside that band, a
//! statement that needs all of another's work at the same step and feeds
//! that statement at the next step is retimed by one step and fused with
//! it ([`crate::sched::retime`]; Gram-Schmidt's update of the columns with
//! the next step's sums over them: one sweep of the rows per step instead
//! of two), its instances that the next step's other statements read first
//! split off ([`crate::rewrite::split::next_step_sources`]), when the
//! relational analysis finds the result legal.

use crate::analysis::carried::reverses;
use crate::deps::{compute, DepKind, DepOptions, Dependence};
use crate::sched::pluto::{schedule, DimKind, PlutoSchedule};
use crate::sched::retime::retime;
use crate::scop::model::Scop;
use crate::rewrite::{embed, split};
use crate::transform::Tiling;

use super::plan::{has_parallel, plan_with, Planned};
use super::{Candidate, Cx};

/// The number of loops of the schedule's first band (0 when it has none).
fn first_band_loops(s: &PlutoSchedule) -> usize {
    let mut band = None;
    let mut n = 0;
    for d in &s.dims {
        match (d, band) {
            (&DimKind::Loop { band: b, .. }, None) => {
                band = Some(b);
                n = 1;
            }
            (&DimKind::Loop { band: b, .. }, Some(f)) if b == f => n += 1,
            (DimKind::Loop { .. }, Some(_)) => break,
            (DimKind::Scalar, Some(_)) => break,
            (DimKind::Scalar, None) => {}
        }
    }
    n
}

/// Replaces `c` by the embedded SCoP when the outermost band of its first
/// schedule is a single loop, the embedded schedule's
/// outermost band has more, and its plan tiles it, with parallel loops
/// (a wavefront of tiles included) if `c`'s plan had some.
pub(super) fn retry(c: &mut Candidate, cx: &Cx) {
    let Some(s) = &c.sched else { return };
    if first_band_loops(s) != 1 || !cx.plan_options.narrow.tile {
        return;
    }
    let embs = embed::find(&c.scop);
    if embs.is_empty() {
        return;
    }
    let Ok(escop) = embed::apply(&c.scop, &embs) else {
        return;
    };
    let Ok(edeps) = compute(&escop, DepOptions::default()) else {
        return;
    };
    let Ok(esched) = schedule(&escop, &edeps, cx.sched_options) else {
        return;
    };
    if first_band_loops(&esched) < 2 {
        return;
    }
    // The plan must tile the outermost band, and not at the price of the
    // parallel loops the plan had.
    let had_parallel = has_parallel(&c.chosen);
    let acceptable = |p: &Planned| {
        p.plan.dims.iter().find(|d| !d.scalar).is_some_and(|d| d.tiling == Tiling::Tile)
            && (!had_parallel || p.plan.dims.iter().any(|d| d.parallel))
    };
    let what: Vec<String> = embs.iter().map(|e| e.describe(&c.scop)).collect();
    let embedded = format!("{} embedded (the loops around them tiled together)", what.join(", "));
    if let Some((fscop, fdeps, fsched, fused)) = fuse_next_step(&escop, &edeps, &esched, cx) {
        if acceptable(&fused) {
            c.scop = fscop;
            c.deps = fdeps;
            c.scop_notes.push(embedded);
            c.take(Ok(fused));
            c.sched = Some(fsched);
            return;
        }
    }
    let Ok(alt) = plan_with(&escop, &edeps, esched.clone(), cx.options, cx.plan_options) else {
        return;
    };
    if !acceptable(&alt) {
        return;
    }
    c.scop = escop;
    c.deps = edeps;
    c.scop_notes.push(embedded);
    c.take(Ok(alt));
    c.sched = Some(esched);
}

/// The first band's first dimension and the scalar dimension right after
/// the band.
fn band_and_slot(s: &PlutoSchedule) -> Option<(usize, usize)> {
    let first = s.dims.iter().position(|d| matches!(d, DimKind::Loop { .. }))?;
    let DimKind::Loop { band, .. } = s.dims[first] else {
        return None;
    };
    let end = (first..s.dims.len())
        .find(|&k| !matches!(s.dims[k], DimKind::Loop { band: b, .. } if b == band))?;
    matches!(s.dims[end], DimKind::Scalar).then_some((first, end))
}

/// The pair `(a, b)` of statements that retiming fuses: both with loops of
/// their own after the slot (the band's dimensions `band` before it), `b`
/// after `a` in it, `b` reading what `a` writes at the same point of the
/// band (a RAW dependence: `b` needs all of `a`'s loop) and `a` reading
/// what `b` writes at a later step.
fn retime_pair(
    scop: &Scop,
    deps: &[Dependence],
    s: &PlutoSchedule,
    band: std::ops::Range<usize>,
) -> Option<(usize, usize)> {
    let slot = band.end;
    let rows = &s.schedule.dims;
    let own_loops = |x: usize| rows[x][slot + 1..].iter().any(|f| f.as_constant().is_none());
    let at = |x: usize| rows[x][slot].as_constant();
    let raw = |from: usize, to: usize, same_point: bool| {
        deps.iter().any(|d| {
            d.kind == DepKind::Raw
                && d.source.0 == from
                && d.sink.0 == to
                && (!same_point || matches!(split::meets_at(scop, d, rows, band.clone()), Ok(true)))
        })
    };
    let n = scop.statements.len();
    (0..n)
        .flat_map(|a| (0..n).map(move |b| (a, b)))
        .find(|&(a, b)| {
            a != b
                && own_loops(a)
                && own_loops(b)
                && matches!((at(a), at(b)), (Some(x), Some(y)) if x < y)
                && raw(a, b, true)
                && raw(b, a, false)
        })
}

/// The embedded SCoP with Gram-Schmidt's fusion across steps (see the
/// module text): the SCoP (the retimed statement split where needed), its
/// dependences, schedule and plan; `None` when no pair qualifies, the split is not
/// one hyperplane, or the retimed schedule is not legal.
fn fuse_next_step(
    scop: &Scop,
    deps: &[Dependence],
    sched: &PlutoSchedule,
    cx: &Cx,
) -> Option<(Scop, Vec<Dependence>, PlutoSchedule, Planned)> {
    let (step, slot) = band_and_slot(sched)?;
    let (a, b) = retime_pair(scop, deps, sched, step..slot)?;
    let rows = &sched.schedule.dims;
    let sa = rows[a][slot].as_constant()?;
    // Debug and test builds: with `POLYRS_BREAK_STAGE=retime`, a wrong
    // decision (no split, no legality test), for the test that shows the
    // checker catching it.
    let broken = cfg!(debug_assertions) && std::env::var("POLYRS_BREAK_STAGE").is_ok_and(|v| v == "retime");
    // Instances of `b` read at the next step by statements that run before
    // `a`'s slot: kept at their step, split off along one hyperplane.
    let mut forms = Vec::new();
    let feeding = deps.iter().filter(|d| !broken && d.source.0 == b && d.sink.0 != a && d.sink.0 != b);
    for d in feeding {
        if rows[d.sink.0][slot].as_constant().is_some_and(|t| t < sa) {
            for f in split::next_step_sources(scop, d, rows, step).ok()? {
                if !forms.contains(&f) {
                    forms.push(f);
                }
            }
        }
    }
    let (fscop, retimed, a2) = match forms.as_slice() {
        [] => (scop.clone(), b, a),
        [form] => {
            let cut = split::Split {
                stmt: b,
                form: form.clone(),
            };
            let (fscop, sides) = split::apply_sides(scop, &cut).ok()?;
            // The pieces replace `b` in order (below, on and above the
            // hyperplane, the empty ones left out): all but the one on the
            // hyperplane move.
            let pieces = sides.len();
            let moved: Vec<usize> = (b..b + pieces)
                .zip(&sides)
                .filter(|&(_, &side)| side != split::Side::On)
                .map(|(k, _)| k)
                .collect();
            let [one] = moved[..] else { return None };
            if pieces < 2 {
                return None;
            }
            let a2 = if a > b { a + pieces - 1 } else { a };
            (fscop, one, a2)
        }
        _ => return None,
    };
    let fdeps = compute(&fscop, DepOptions::default()).ok()?;
    let fsched = schedule(&fscop, &fdeps, cx.sched_options).ok()?;
    let (fstep, fslot) = band_and_slot(&fsched)?;
    if first_band_loops(&fsched) < 2 {
        return None;
    }
    let rsched = retime(&fsched, a2, retimed, fstep, fslot)?;
    let n = rsched.dims.len();
    let legal = broken || matches!(reverses(&fscop, &fdeps, &rsched.schedule, 0..n), Ok(false));
    if !legal {
        return None;
    }
    let mut planned = plan_with(&fscop, &fdeps, rsched.clone(), cx.options, cx.plan_options).ok()?;
    planned.plan.notes.insert(
        0,
        format!(
            "{} retimed by one step and fused with {} (one sweep per step)",
            fscop.statements[retimed].name, fscop.statements[a2].name
        ),
    );
    Some((fscop, fdeps, rsched, planned))
}
