//! The tile-alignment stage: in a tiled band with a parallel tile loop,
//! the nests of one loop (a scalar dimension before the band sets them
//! apart from the others, and only one of the band's hyperplanes moves
//! with their iterations) take the tile size of the band's deeper nests
//! along the parallel dimension, so that tile fusion (`tile_fusion.rs`)
//! can run them in the same tiles.
//!
//! gesummv's `tmp[i] = 0; y[i] = 0` and `y[i] = alpha * tmp[i] + beta *
//! y[i]` sit before and after the rows' sums, each its own nest, with `i`
//! their vector loop: the point-order stage gives them a long vector tile
//! (128 and 256 elements) where the rows' nest has tiles of 32 rows. With
//! the tiles of all three alike, tile fusion runs each tile's
//! initialization, rows and final sum in one parallel loop: one fork
//! instead of three, and `tmp` and `y` still in L1 from one nest to the
//! next. Only nests that access some cell at the same subscripts as a
//! deeper nest change (tile fusion asks the same). A one-loop nest does
//! linear work, so its shorter vector loop costs little where fusion then
//! turns out illegal and the nests stay apart.

use super::band_plan::{BandPlan, Cx};
use super::tile_fusion::share_cells;
use crate::sched::pluto::DimKind;

/// The stage: see the module's documentation.
pub(super) fn run(cx: &Cx, plans: &mut [BandPlan]) {
    if !cx.opts.fuse_tiles || cx.opts.vector_tile == 0 {
        return;
    }
    let rows = &cx.sched.schedule.dims;
    for (band, bp) in cx.bands.iter().zip(plans.iter_mut()) {
        let Some(d) = bp.par_dim else { continue };
        if !bp.tiled || bp.wavefront || bp.groups.len() < 2 || bp.reg.iter().any(Option::is_some) {
            continue;
        }
        // The band's hyperplanes that move with statement `s`.
        let moving = |s: usize| {
            (band.first..band.first + band.len)
                .filter(|&k| {
                    !matches!(cx.sched.dims[k], DimKind::Scalar)
                        && rows[s][k].as_constant().is_none()
                })
                .count()
        };
        let shallow = |members: &[usize]| members.iter().all(|&s| moving(s) <= 1);
        let deep_members: Vec<usize> = bp
            .groups
            .iter()
            .filter(|(_, members)| !shallow(members))
            .flat_map(|(_, members)| members.iter().copied())
            .collect();
        // One size along `d` among the deeper nests' statements.
        let mut anchors = deep_members.iter().map(|&s| bp.sizes[s][d]);
        let Some(anchor) = anchors.next() else {
            continue;
        };
        if anchors.any(|z| z != anchor) {
            continue;
        }
        let aligned: Vec<usize> = bp
            .groups
            .iter()
            .filter(|(_, members)| shallow(members) && share_cells(cx.scop, members, &deep_members))
            .flat_map(|(_, members)| members.iter().copied())
            .collect();
        for s in aligned {
            bp.sizes[s][d] = anchor;
        }
    }
}
