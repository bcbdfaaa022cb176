//! The embed stage: statements with loops of their own beside a sibling
//! loop get that loop's dimension ([`crate::scop::embed`]), and the
//! embedded SCoP replaces the original when its schedule's outermost band
//! grows to take the sibling loop and its plan tiles that band, keeping
//! parallel loops where the original plan had them.

use crate::deps::{compute, DepOptions};
use crate::sched::pluto::{schedule, DimKind, PlutoSchedule};
use crate::scop::embed;
use crate::transform::Tiling;

use super::plan::{has_parallel, plan_with};
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

/// Replaces `c` by the embedded SCoP when the outermost band of the
/// original schedule `sched` is a single loop, the embedded schedule's
/// outermost band has more, and its plan tiles it, with parallel loops
/// (a wavefront of tiles included) if `c`'s plan had some.
pub(super) fn retry(c: &mut Candidate, sched: Option<&PlutoSchedule>, cx: &Cx) {
    let Some(s) = sched else { return };
    if first_band_loops(s) != 1 || !cx.plan_options.tile {
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
    let Ok(mut alt) = plan_with(&escop, &edeps, esched, cx.options, cx.plan_options) else {
        return;
    };
    if !alt.plan.dims.iter().find(|d| !d.scalar).is_some_and(|d| d.tiling == Tiling::Tile) {
        return;
    }
    // Not at the price of the parallel loops the plan had.
    if has_parallel(&c.chosen) && !alt.plan.dims.iter().any(|d| d.parallel) {
        return;
    }
    let what: Vec<String> = embs.iter().map(|e| e.describe(&c.scop)).collect();
    alt.plan.notes.insert(
        0,
        format!("{} embedded (the loops around them tiled together)", what.join(", ")),
    );
    c.scop = escop;
    c.deps = edeps;
    c.chosen = Ok(alt);
}
