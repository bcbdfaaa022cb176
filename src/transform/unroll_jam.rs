//! The unroll-and-jam stage (`unroll-jam=U`): point loops of each tiled
//! band run over blocks of `U` iterations whose points come innermost, to
//! be unrolled.

use super::band_plan::{BandPlan, Cx};
use super::MAX_JAM_COPIES;

/// The unroll-and-jam stage: in each tiled band, the point loops just
/// outside the innermost, as many as keep the unrolled body at most
/// [`MAX_JAM_COPIES`] statement copies (the same count for every group:
/// one set of dimensions).
pub(super) fn run(cx: &Cx, plans: &mut [BandPlan]) {
    let factor = cx.opts.unroll_jam;
    if factor <= 1 {
        return;
    }
    for (band, bp) in cx.bands.iter().zip(plans) {
        if !bp.tiled {
            continue;
        }
        let mut c = 0usize;
        let mut copies = factor;
        while c + 1 < band.len && copies <= MAX_JAM_COPIES {
            c += 1;
            copies = copies.saturating_mul(factor);
        }
        bp.jam = c;
    }
}
