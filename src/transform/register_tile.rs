//! Register tiles of a band (BLIS's micro-kernel, Low et al., TOMS 2016):
//! for each group of statements whose point order ends with a stride-1
//! loop, the point loop along which the written cells stay put goes inside
//! blocks of two other point loops (the vector loop among them), which are
//! unrolled; the block's shape comes from the target's vector registers
//! ([`crate::target::cpu`]) and the tile sizes around it from its caches.

use super::analysis::{
    access_deltas, blocks_rectangular, contiguous_along, extent_of, reductions_only, register_dims,
    rows_apart, tail_of, tail_register_dims, would_gather, written_arrays, Band, Tail,
};
use super::band_plan::{BandPlan, Cx};
use super::sizes::{register_tile_sizes, triangle_tile_sizes};
use super::Options;
use crate::sched::pluto::PlutoSchedule;
use crate::scop::model::{AccessKind, Scop};

/// The register tiles of one band.
struct RegisterTiles {
    /// Per statement: its point dimensions `(u, v, r)` (the blocks' two
    /// unrolled loops, `v` the vector loop, and the loop inside the
    /// blocks), or `None` without a register tile.
    reg: Vec<Option<(usize, usize, usize)>>,
    /// Iterations of `u` per block.
    ru: i64,
    /// Iterations of `v` per block.
    rv: i64,
}

/// The register-tile stage: the register tiles of each tiled band, after
/// its point order and unroll-and-jam.
pub(super) fn run(cx: &Cx, plans: &mut [BandPlan]) {
    for (band, bp) in cx.bands.iter().zip(plans) {
        if !bp.tiled {
            continue;
        }
        let tail = tail_of(cx.scop, cx.sched, band);
        if tail == Tail::Other {
            continue;
        }
        let RegisterTiles { reg, ru, rv } = choose(
            cx.scop,
            cx.sched,
            cx.opts,
            band,
            &bp.groups,
            &bp.vector,
            &bp.orders,
            &mut bp.sizes,
            bp.jam,
            bp.par_dim,
            &tail,
        );
        bp.tail = match &tail {
            Tail::Loops(t) if reg.iter().any(Option::is_some) => t.len(),
            _ => 0,
        };
        // The band's reductions run inside the blocks, before the tail.
        bp.reg_inside = match reg.iter().flatten().next() {
            Some(&(u, v, _)) if bp.tail > 0 => {
                let members: Vec<usize> = (0..cx.scop.statements.len())
                    .filter(|&s| reg[s].is_some())
                    .collect();
                bp.orders[0]
                    .iter()
                    .copied()
                    .filter(|&d| {
                        d != u && d != v && reductions_only(cx.scop, cx.sched, band, d, &members)
                    })
                    .collect()
            }
            _ => Vec::new(),
        };
        bp.reg = reg;
        bp.ru = ru;
        bp.rv = rv;
    }
}

/// The register tiles of `band` for its `groups` of statements (their
/// point `orders`, whether they got a vector loop), with `jam_count` loops
/// unrolled and jammed (none then) and the band's parallel tile dimension
/// `par_dim`; with the default sizes, the tile sizes of the register-tiled
/// statements in `sizes_of` become the target's. With loops after the band
/// (`tail`), the blocks take them inside ([`tail_register_dims`]).
#[allow(clippy::too_many_arguments)]
fn choose(
    scop: &Scop,
    sched: &PlutoSchedule,
    opts: &Options,
    band: &Band,
    groups: &[(Vec<i64>, Vec<usize>)],
    vector_group: &[bool],
    orders: &[Vec<usize>],
    sizes_of: &mut [Vec<i64>],
    jam_count: usize,
    par_dim: Option<usize>,
    tail: &Tail,
) -> RegisterTiles {
    // Register tiles, per group of statements; groups without one keep
    // their point order (and constant dimensions in the tile's place).
    let (nu, narrow) = opts.register_tile;
    let mut reg: Vec<Option<(usize, usize, usize)>> = vec![None; vector_group.len()];
    // The other shape where the blocks allow it (see `register_tile_wide`:
    // wider, or one vector wide with more rows): one shape per band.
    let mut candidates = Vec::new();
    if let (Tail::Loops(tail), true) = (tail, narrow > 1 && nu >= 1 && jam_count == 0) {
        for (_, members) in groups {
            if !members.iter().all(|&s| vector_group[s]) {
                continue;
            }
            let order = &orders[members[0]];
            if let Some((u, v, r)) = tail_register_dims(scop, sched, band, order, members, tail) {
                candidates.push((members.clone(), u, v, r));
            }
        }
    } else if narrow > 1 && nu >= 1 && jam_count == 0 && band.len >= 3 {
        for (_, members) in groups {
            if !members.iter().all(|&s| vector_group[s]) {
                continue;
            }
            let order = &orders[members[0]];
            let dims = register_dims(scop, sched, band, order, members, false).or_else(|| {
                // Statements on the blocks' edges (cholesky's division and
                // square root beside its dot products) are taken only where
                // the group would otherwise gather along its vector loop
                // and so run its dot products one scalar chain at a time
                // (the gather stage). Elsewhere they made the blocks
                // slower than the plain vector loop (ludcmp at LARGE, 2
                // threads, AMD EPYC, LLVM znver5: 0.22 s -> 0.65 s).
                let v = *order.last()?;
                if !would_gather(scop, sched, band, v, members) {
                    return None;
                }
                register_dims(scop, sched, band, order, members, true)
            });
            if let Some((Some(u), v, r)) = dims {
                candidates.push((members.clone(), u, v, r));
            }
        }
    }
    let (wu, wide) = opts.register_tile_wide;
    let rectangular = !candidates.is_empty()
        && candidates
            .iter()
            .all(|(members, u, v, _)| blocks_rectangular(scop, sched, band, *u, *v, members));
    // Triangles take the other shape where one operand streams along the
    // vector loop: syr2k's two (`A[j][k]`, `B[j][k]`) with 4 x 8 blocks
    // on AVX2 spill in the blocks' loops (16 ymm registers), and with 16
    // x 8 blocks where 512-bit broadcasts are slow ran 9 % slower than
    // with 8 x 8.
    let one_stream = candidates
        .iter()
        .all(|(members, _, v, _)| streams(scop, sched, band, *v, members) <= 1);
    // Around loops after the band (a convolution's, a contraction's: see
    // `tail_register_dims`), blocks that divide the loops they block: the
    // default columns where the other shape's leave a partial block and
    // theirs do not, and the most rows, down to half the shape's, that
    // divide the rows' extent. An NCHW convolution's 64 channels x 56
    // columns with contract=true on AVX-512: 12 x 16 blocks 1.94 ms, 8 x 8
    // 1.36 ms (Zen 4, 2 threads).
    let tail_extents: Vec<(Option<i64>, Option<i64>)> = if matches!(tail, Tail::Loops(_)) {
        candidates
            .iter()
            .map(|(members, u, v, _)| {
                let e = |d: usize| extent_of(scop, sched, band.first + d, members);
                (e(*u), e(*v))
            })
            .collect()
    } else {
        Vec::new()
    };
    let ragged_columns = tail_extents
        .iter()
        .any(|&(_, ev)| ev.is_some_and(|e| e % wide.max(1) != 0 && e % narrow.max(1) == 0));
    let fit_rows = |ru: i64| -> i64 {
        let Some(d) = (((ru + 1) / 2).max(1)..=ru).rev().find(|&d| {
            tail_extents
                .iter()
                .all(|&(eu, _)| eu.is_none_or(|e| e % d == 0))
        }) else {
            return ru;
        };
        d
    };
    // Around loops after the band, no buffer holds the operands the
    // blocks read by row (the hoisting needs the blocks' reductions in
    // the band): the rows those operands keep apart in the L1 bound the
    // blocks' (`rows_apart`), and the other shape goes where its rows pass
    // that bound and the default shape's do not.
    let apart = match (opts.l1, tail) {
        (Some(l1), Tail::Loops(_)) => candidates
            .iter()
            .map(|(members, u, v, _)| {
                rows_apart(scop, sched, band, (*u, *v), members, nu.max(wu), l1)
            })
            .min()
            .unwrap_or(i64::MAX),
        _ => i64::MAX,
    };
    let other = wide > 0
        && (wu, wide) != (nu, narrow)
        && (rectangular || one_stream)
        && !ragged_columns
        && (wu <= apart || nu > apart);
    // The blocks' rows, in the shape the band's blocks will take (the
    // other one falls back to `narrow` below only where its columns do
    // not divide the tiles: its rows then divide them too, as many or
    // fewer).
    let ru = fit_rows(if other { wu } else { nu }.min(apart));
    // Triangular blocks (syrk's `j <= i`) keep the default sizes: with
    // these, syrk, syr2k and covariance ran 10-20% slower. Those that read
    // their vector operand from rows of an array (syrk's `A[j][k]` along
    // `j`, packed by the emitter) take a longer loop inside the blocks and
    // more rows of blocks, which read each copy (`triangle_tile_sizes`);
    // the others (covariance's `data[k][j]`, contiguous) were no faster
    // with them.
    if opts.auto_sizes && !rectangular {
        for (members, u, v, r) in &candidates {
            if contiguous_along(scop, sched, band, *v, members) {
                continue;
            }
            // The rows of the blocks that the default tiles get (below):
            // the new tiles keep them (12-row blocks, contract=true on
            // AVX-512, made syrk 1.4x and cholesky 28x slower).
            let su = block_rows(ru, opts, &[sizes_of[members[0]][*u]]);
            let sizes = triangle_tile_sizes(
                scop,
                sched,
                band,
                members,
                (*u, *r),
                su,
                opts,
                &sizes_of[members[0]],
            );
            for &s in members {
                sizes_of[s] = sizes.clone();
            }
        }
    }
    if opts.auto_sizes && rectangular {
        let step = if other { wide } else { narrow };
        for (members, u, v, r) in &candidates {
            let sizes = register_tile_sizes(
                scop,
                sched,
                band,
                members,
                (*u, *v, *r),
                (ru, step),
                par_dim,
                opts,
                &sizes_of[members[0]],
            );
            for &s in members {
                sizes_of[s] = sizes.clone();
            }
        }
    }
    let (ru, rv) = if other
        && candidates
            .iter()
            .all(|(members, _, v, _)| sizes_of[members[0]][*v] % wide == 0)
    {
        (ru, wide)
    } else {
        (fit_rows(nu.min(apart)), narrow)
    };
    // Blocks inside tiles only: a block straddling two tiles is never
    // full, and would leave the loop over `r` innermost without its cells
    // in registers. Where the tiles were not sized for the blocks (a
    // triangle's, explicit tile sizes), blocks of the target's default
    // shape take the most rows that divide every tile: with contract=true
    // on AVX2 (6 x 8 blocks), syrk's, trmm's and symm's tiles of 32 rows
    // get 4 (without any register tile: 4-7x slower); explicit block
    // sizes are taken as given.
    let tiles: Vec<i64> = candidates
        .iter()
        .map(|(members, u, _, _)| sizes_of[members[0]][*u])
        .collect();
    let ru = block_rows(ru, opts, &tiles);
    for (members, u, v, r) in candidates {
        let sizes = &sizes_of[members[0]];
        if sizes[u] % ru != 0 || sizes[v] % rv != 0 {
            continue;
        }
        for &s in &members {
            reg[s] = Some((u, v, r));
        }
    }
    RegisterTiles { reg, ru, rv }
}

/// The rows of blocks of the target's shape (`ru` rows) in tiles of
/// `tiles` rows: the most that divide every tile; explicit block sizes
/// (`register-tile-sizes`) are taken as given.
fn block_rows(ru: i64, opts: &Options, tiles: &[i64]) -> i64 {
    if opts.register_tile_wide.1 <= 0 {
        return ru;
    }
    (1..=ru)
        .rev()
        .find(|&d| tiles.iter().all(|t| t % d == 0))
        .unwrap_or(ru)
}

/// The reads of `members` that move along point dimension `v` (the
/// vector loop's streamed operands), counted once per array and subscripts,
/// other than reads of the arrays they write (the accumulators, kept in
/// registers); `usize::MAX` when a statement's accesses cannot be followed
/// along `v`.
fn streams(scop: &Scop, sched: &PlutoSchedule, band: &Band, v: usize, members: &[usize]) -> usize {
    let written = written_arrays(scop, members);
    let mut seen = Vec::new();
    for &s in members {
        let Some(deltas) = access_deltas(scop, sched, band, v, s) else {
            return usize::MAX;
        };
        for ((kind, d), a) in deltas.iter().zip(&scop.statements[s].accesses) {
            if *kind == AccessKind::Read
                && !written.contains(&a.array.0)
                && d.iter().any(|&x| x != 0)
            {
                let key = (a.array, a.index.clone());
                if !seen.contains(&key) {
                    seen.push(key);
                }
            }
        }
    }
    seen.len()
}
