//! Tile sizes derived from the target's caches and the band's extents
//! (the register-tiled bands' BLIS-style sizes, the vector loop's tile
//! when its tiles are the parallel ones).

use super::analysis::{extent_of, uniform_along, Band};
use super::Options;
use crate::sched::pluto::PlutoSchedule;
use crate::scop::model::Scop;

/// A tile size that means "not cut": the band's loop keeps its whole
/// range inside one tile, whose coordinate is the constant 0 (no tile
/// loop, no `min` in the point loop's bounds). Given to streams whose
/// extent is symbolic (`point_order`), where a constant extent would be
/// their tile size. Any tile sizes of a permutable band are legal, and
/// so is an infinite one.
pub(super) const UNTILED: i64 = 1 << 40;

/// The tile size of a vector loop whose tiles are also the parallel ones:
/// the largest power of two from `base` up to `vector_tile` that leaves at
/// least `min_tiles` tiles over the loop's extent (the range of
/// hyperplane `k` over the members' domains), or `base` when the extent is
/// parametric. A 32-wide vector loop runs a short vector body per point of
/// the outer loops (trmm: 2.4x slower than with 128); 256-wide tiles would
/// leave too few tiles to share (doitgen's 150 iterations: 6x slower).
pub(super) fn parallel_vector_tile(
    scop: &Scop,
    sched: &PlutoSchedule,
    k: usize,
    members: &[usize],
    base: i64,
    vector_tile: i64,
    min_tiles: i64,
) -> i64 {
    let Some(extent) = extent_of(scop, sched, k, members) else {
        return base;
    };
    let mut size = base.max(1);
    while size < vector_tile {
        let next = size.saturating_mul(2).min(vector_tile);
        // Tiles of `next` over `extent >= 1` iterations, rounded up.
        if (extent - 1) / next + 1 < min_tiles {
            break;
        }
        size = next;
    }
    size
}

/// `extent` iterations in tiles of at most `max`, all of one size (the
/// last one shorter by less than a tile), rounded up to a multiple of
/// `step`: 1100 in tiles of at most 1024 by 16 gives 560, not 1024 + 76.
pub(super) fn balanced_tile(extent: i64, max: i64, step: i64) -> i64 {
    let (extent, max, step) = (extent.max(1), max.max(1), step.max(1));
    let tiles = (extent - 1) / max + 1;
    let size = (extent - 1) / tiles + 1;
    ((size - 1) / step + 1).saturating_mul(step)
}

/// Default tile sizes of a band whose `members` get register blocks over
/// point dimensions `(u, v, r)` (`v` the vector loop, `r` the loop inside
/// the blocks) with blocks of `(su, sv)` iterations, from `sizes` (the other
/// dimensions keep theirs), after BLIS's analytical model (Low et al.,
/// TOMS 2016) for the target's caches ([`crate::target::cpu`]):
///
/// * `r`: `opts.reduction_tile`, whatever its extent: a block's slice of
///   the vector operand over one tile of it stays in L1 while the block
///   runs;
/// * `v`: its whole extent, in equal tiles of at most `opts.panel_tile`
///   (the panel of the vector operand that one tile of `r` reads stays in
///   L2 while every block row of the tile sweeps it),
///   a multiple of `sv`, unless its tiles are the parallel ones;
/// * `u`, when its tiles are the parallel loop and every iteration does the
///   same work: one tile per thread, a multiple of `su`. Every block row of
///   a tile sweeps the panel that one tile of `r` reads from the vector
///   operand, so the more rows a tile has, the more often that panel is
///   reused from L2 (gemm at LARGE, 2 threads: 128 rows 0.0155 s, 256
///   0.0147 s, 504 0.0135 s, side by side); unequal work (a triangle) would
///   leave one thread idle.
///
/// Where an extent is symbolic (its size an argument) and the work is the
/// same along it, `v` takes tiles of `opts.panel_tile` and `u`
/// [`crate::target::cpu::TRIANGLE_BLOCK_ROWS`] rows of blocks (as a
/// triangle's: the packed operand's copy is read by that many block rows),
/// at least its size; gemm with its three sizes as arguments at LARGE (2
/// threads, Zen 4): 32x256 tiles 0.068 s, these 0.038 s, the constant
/// sizes' 0.032 s.
#[allow(clippy::too_many_arguments)]
pub(super) fn register_tile_sizes(
    scop: &Scop,
    sched: &PlutoSchedule,
    band: &Band,
    members: &[usize],
    (u, v, r): (usize, usize, usize),
    (su, sv): (i64, i64),
    par_dim: Option<usize>,
    opts: &Options,
    sizes: &[i64],
) -> Vec<i64> {
    let mut sizes = sizes.to_vec();
    let extent = |d: usize| extent_of(scop, sched, band.first + d, members);
    // A power of two: the block-invariant operands' buffer is indexed by
    // `k mod T` in the innermost loop (3mm with tiles of 60-63: 10% slower).
    // A loop after the band (`r` past its end) is not tiled.
    if let Some(t) = sizes.get_mut(r) {
        *t = opts.reduction_tile;
    }
    if par_dim != Some(v) {
        sizes[v] = match extent(v) {
            Some(e) => balanced_tile(e, opts.panel_tile, sv),
            // Rectangles only: a triangle's partial blocks along the
            // diagonal multiply with the tile (the fuzzer's LU-like
            // program 2465: 431 loops with 32, 544 with 512).
            None if uniform_along(scop, sched, band, v, members) => {
                opts.panel_tile.max(sv) / sv.max(1) * sv.max(1)
            }
            None => sizes[v],
        };
    }
    if par_dim == Some(u) && uniform_along(scop, sched, band, u, members) {
        sizes[u] = match extent(u) {
            Some(e) => balanced_tile(e, (e - 1) / opts.threads.max(1) + 1, su),
            None => sizes[u].max(su.saturating_mul(crate::target::cpu::TRIANGLE_BLOCK_ROWS)),
        };
    }
    sizes
}

/// Tile sizes of a triangle (syrk's `j <= i`) whose `members` get register
/// blocks over point dimensions `(u, v, r)` with `su` rows per block and
/// read their vector operand from rows of an array, which the emitter packs
/// (see [`crate::target::cpu::TRIANGLE_BLOCK_ROWS`]): `r` takes
/// `opts.reduction_tile`, as for rectangles, and `u` `TRIANGLE_BLOCK_ROWS`
/// rows of blocks where that leaves `opts.min_parallel_tiles` tiles of rows
/// and is more than `sizes` gives; `su`: the rows of the blocks the
/// default tiles get, which the new ones keep. syrk and syr2k at LARGE,
/// 2 threads, Zen 4 VM, side by side: 0.0308 -> 0.0275 s and
/// 0.0524-0.0538 -> 0.0429-0.0437 s.
#[allow(clippy::too_many_arguments)]
pub(super) fn triangle_tile_sizes(
    scop: &Scop,
    sched: &PlutoSchedule,
    band: &Band,
    members: &[usize],
    (u, r): (usize, usize),
    su: i64,
    opts: &Options,
    sizes: &[i64],
) -> Vec<i64> {
    let mut sizes = sizes.to_vec();
    sizes[r] = opts.reduction_tile;
    let rows = su.saturating_mul(crate::target::cpu::TRIANGLE_BLOCK_ROWS);
    let fits = extent_of(scop, sched, band.first + u, members)
        .is_none_or(|e| e / rows.max(1) >= opts.min_parallel_tiles);
    if fits {
        sizes[u] = sizes[u].max(rows);
    }
    sizes
}
