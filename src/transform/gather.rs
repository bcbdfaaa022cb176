//! The gather stage: a group whose vector loop would gather keeps the
//! band's innermost loop where its accesses are contiguous.

use super::analysis::would_gather;
use super::band_plan::{BandPlan, Cx};

/// The gather stage, after the register tiles: a vector loop along which
/// an access is strided (cholesky's `A[j][k]` along `j`), in a group left
/// without a register tile, gathers at every iteration. The band's
/// innermost loop is kept there instead when every access of the
/// statements with the most loops (the bulk of the work) is contiguous or
/// invariant along it: cholesky at LARGE with `register-tile=false`, 0.54 s
/// -> 0.47 s, its `A[i][j]` updated along `k` through memory (with
/// register tiles, its group gets blocks: [`super::register_tile`]).
pub(super) fn run(cx: &Cx, plans: &mut [BandPlan]) {
    let Cx { scop, sched, .. } = *cx;
    for (band, bp) in cx.bands.iter().zip(plans) {
        if !bp.tiled {
            continue;
        }
        let last = band.len - 1;
        for (_, members) in &bp.groups {
            let s0 = members[0];
            let v = bp.orders[s0].last().copied().unwrap_or(last);
            if !bp.vector[s0]
                || bp.reg[s0].is_some()
                || !would_gather(scop, sched, band, v, members)
            {
                continue;
            }
            for &s in members {
                bp.orders[s] = (0..band.len).collect();
                bp.sizes[s] = bp.base_sizes.clone();
                bp.vector[s] = false;
            }
            let moved = format!(
                "point loop φ{} moved innermost (stride-1 accesses)",
                band.first + v
            );
            let ns = bp.orders.len();
            let still = (0..ns).any(|s| bp.vector[s] && bp.orders[s].last() == Some(&v));
            if !still {
                bp.notes.retain(|n| *n != moved);
            }
            bp.notes.push(format!(
                "point loop φ{} kept innermost (contiguous accesses; φ{} would gather)",
                band.first + last,
                band.first + v
            ));
        }
    }
}
