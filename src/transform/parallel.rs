//! The parallel stage: which loops of the plan run in parallel, and which
//! tiled bands run their tiles as wavefronts.

use super::analysis::Band;
use super::band_plan::{BandPlan, Cx};

/// The parallel stage: the first coincident dimension of the schedule
/// gets the parallel loop (its tile loop when its band is tiled), or every
/// coincident one with `nested`; a tiled band without a parallel tile loop,
/// when no loop before it is parallel, runs its tiles as a wavefront.
pub(super) fn run(cx: &Cx, plans: &mut [BandPlan]) {
    let opts = cx.opts;
    if !opts.parallel {
        return;
    }
    let mut taken = false;
    let first = |band: &Band, d: usize, taken: bool| {
        opts.nested || (!taken && Some(band.first + d) == cx.first_coincident)
    };
    for (band, bp) in cx.bands.iter().zip(plans) {
        bp.parallel_before = taken;
        if !bp.tiled {
            for d in 0..band.len {
                bp.parallel[d] = band.coincident[d] && first(band, d, taken);
                taken |= bp.parallel[d];
            }
            continue;
        }
        bp.par_dim = (0..band.len).find(|&d| band.tile_parallel(d) && first(band, d, taken));
        bp.wavefront = opts.wavefront
            && !taken
            && !(0..band.len).any(|d| band.tile_parallel(d))
            && band.len >= 2;
        taken |= bp.par_dim.is_some() || bp.wavefront;
    }
}
