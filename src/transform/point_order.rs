//! The order of a band's point loops inside its tiles (Pluto's
//! `prevector`), per group of statements sharing the band's loops: a
//! parallel loop with stride-1 accesses goes innermost and gets the vector
//! tile; without one, a parallel loop goes innermost across a recurrence,
//! or the points run along wavefronts inside the tiles. Any order of a
//! permutable band's point loops is legal; this only chooses.

use super::analysis::{
    access_deltas, block_dimension, breaks_streams, broadcast_only, coincident_for,
    contiguous_along, deepest, extent_of, reductions_in_band, reductions_only, stride_score, Band,
};
use super::band_plan::{BandPlan, Cx};
use super::sizes::{parallel_vector_tile, UNTILED};
use crate::analysis::carried::carries;
use crate::deps::Dependence;
use crate::scop::form::Form;
use crate::scop::model::AccessKind;

/// Most iterations, in all, of the reduction loops a stride-1 loop is not
/// moved inside of (see `past_small_reductions`): a few small filter loops,
/// which LLVM's full unrolling takes whole (its threshold counts
/// instructions; a body of a few operations 32 times stays under it).
const SMALL_REDUCTION: i64 = 32;

/// The point order chosen for one group of statements.
struct GroupOrder {
    /// The band's point dimensions, outermost first.
    order: Vec<usize>,
    /// Tile sizes per band dimension.
    sizes: Vec<i64>,
    /// A stride-1 loop is innermost (the vector loop).
    vector: bool,
    /// The points of each tile run along wavefronts.
    inner_wave: bool,
    /// The dimension moved innermost across a recurrence, kept scalar
    /// ([`super::Options::scalar_strided`]).
    scalar: Option<usize>,
}

/// The point-order stage: in each tiled band, per group of statements
/// that share the band's loops (statements in different groups never share
/// a tile, so each group gets its own order), the order of the point loops
/// and the tile sizes that go with it.
pub(super) fn run(cx: &Cx, plans: &mut [BandPlan]) {
    for (band, bp) in cx.bands.iter().zip(plans) {
        if !bp.tiled {
            continue;
        }
        for (_, members) in &bp.groups {
            let g = choose(
                cx,
                bp.parallel_before,
                band,
                members,
                &bp.base_sizes,
                &mut bp.notes,
            );
            for &s in members {
                bp.vector[s] = g.vector;
                bp.inner_wave[s] = g.inner_wave;
                bp.scalar_inner[s] = g.scalar;
                bp.orders[s] = g.order.clone();
                bp.sizes[s] = g.sizes.clone();
            }
        }
    }
}

/// The point order of `band`'s loops for the statements `members`, from
/// the tile sizes `base_sizes`; what it did goes into `notes` (once each).
fn choose(
    cx: &Cx,
    parallel_taken: bool,
    band: &Band,
    members: &[usize],
    base_sizes: &[i64],
    notes: &mut Vec<String>,
) -> GroupOrder {
    let Cx {
        scop,
        sched,
        deps,
        opts,
        first_coincident,
        ..
    } = *cx;
    let jam_wanted = opts.unroll_jam.max(0);
    let mut vector = false;
    let mut inner_wave = false;
    let mut scalar = None;
    let mut order: Vec<usize> = (0..band.len).collect();
    let mut sizes = base_sizes.to_vec();
    if opts.prevector {
        // Coincident for this group: no dependence among its
        // statements is carried by the dimension.
        let group_coincident =
            |d: usize| members.iter().all(|&s| coincident_for(sched, band, d, s));
        // Or parallel once innermost: with every other point loop
        // of the (permutable) band outside it, no dependence among
        // the members with the most loops (the bulk of the work) is
        // carried by it. lu's `j` qualifies for `A[i][j] -= A[i][k]
        // * A[k][j]` at fixed `i`, `k`: its division `A[i][k] /=
        // A[k][k]` (two loops) is left out, and code generation puts
        // it at `j = k`, before the loop over `j > k`; cholesky's
        // diagonal update `A[i][i] -= A[i][k]^2` (two loops), which
        // reduces along that hyperplane, is left out too. This only
        // picks the loop order inside tiles, which any order of a
        // permutable band's point loops keeps legal; LLVM's
        // vectorizer checks its own dependences.
        let deepest = deepest(scop, members);
        let among_deepest: Vec<Dependence> = deps
            .iter()
            .filter(|d| deepest.contains(&d.source.0) && deepest.contains(&d.sink.0))
            .cloned()
            .collect();
        let inner_parallel = |d: usize| -> bool {
            let mut trial = sched.schedule.clone();
            for row in trial.dims.iter_mut() {
                let rest = row.split_off(band.first);
                let mut order: Vec<Form> = (0..band.len)
                    .filter(|&e| e != d)
                    .map(|e| rest[e].clone())
                    .collect();
                order.push(rest[d].clone());
                row.extend(order);
            }
            let at = band.first + band.len - 1;
            matches!(carries(scop, &among_deepest, &trial, at), Ok(false))
        };
        // A statement of the group depends on itself along point
        // dimension `d` (seidel's `A[i][j]` on `A[i][j-1]`), not only
        // on another statement sharing the loop (jacobi-2d's two
        // sweeps, which get a loop each later).
        // Its written cell moves along `d` (a recurrence through
        // memory; a reduction into a cell fixed along `d`, trisolv's
        // `x[i]`, is a chain in a register already).
        let moving_write = |st: usize, d: usize| {
            access_deltas(scop, sched, band, d, st).is_some_and(|acc| {
                acc.iter()
                    .any(|(k, deltas)| *k == AccessKind::Write && deltas.iter().any(|&x| x != 0))
            })
        };
        let self_chain = |d: usize| -> bool {
            let own: Vec<Dependence> = among_deepest
                .iter()
                .filter(|x| x.source == x.sink && moving_write(x.source.0, d))
                .cloned()
                .collect();
            let at = band.first + d;
            !own.is_empty() && matches!(carries(scop, &own, &sched.schedule, at), Ok(true))
        };
        // Candidates by decreasing stride score (ties: the later
        // dimension first); the polyhedral test runs only until
        // one qualifies.
        // Not past a window of reduction loops (two or more) of few
        // iterations in all (a 3x3 filter's `kh`, `kw`; a single loop,
        // gemm's `k` however short, stays the register tile's business):
        // left innermost, LLVM unrolls them whole
        // and vectorizes the stride-1 loop just outside them, the written
        // cells in registers across the whole reduction; moved inside
        // them, the stride-1 loop loads and stores its cells at every
        // term (a depthwise convolution, NHWC, 112x112x32: 0.69 ms with
        // its channels innermost, 0.08 ms in the input's order).
        // (Only where the band's loops are the innermost ones: no loop of
        // a later band runs inside them.)
        let innermost_band = members.iter().all(|&s| {
            sched.schedule.dims[s][band.first + band.len..]
                .iter()
                .all(|f| f.iters.iter().all(|&c| c == 0))
        });
        let past_small_reductions = |d: usize| {
            let mut iterations: i64 = 1;
            innermost_band
                && d + 2 < band.len
                && (d + 1..band.len).all(|e| {
                    reductions_only(scop, sched, band, e, members)
                        && extent_of(scop, sched, band.first + e, members).is_some_and(|x| {
                            iterations = iterations.saturating_mul(x);
                            iterations <= SMALL_REDUCTION
                        })
                })
        };
        let mut scored: Vec<(i64, usize)> = (0..band.len)
            .map(|d| (stride_score(scop, sched, band, d, members), d))
            .collect();
        scored.sort_by(|a, b| b.cmp(a));
        let last = band.len - 1;
        let best = scored
            .into_iter()
            .find(|&(score, d)| {
                score <= 0
                    || ((group_coincident(d) || inner_parallel(d))
                        && !breaks_streams(scop, sched, band, d, last, members)
                        && !past_small_reductions(d))
            })
            .filter(|&(score, _)| score > 0);
        if best.is_none() {
            // No stride-1 parallel loop. If the innermost point loop
            // carries a dependence among the group's statements (a
            // recurrence: adi's `p[i][j] = -c / (a*p[i][j-1] + b)`
            // along `j`), a coincident point loop goes innermost
            // instead: one latency-bound chain becomes independent
            // chains, overlapped by the core and vectorizable. Its
            // strided accesses stay inside the tile's footprint, so
            // its tile size is kept.
            let last = band.len - 1;
            // Not when every dependence the innermost loop carries
            // spans long distances (a value broadcast along the
            // loop, not a chain: Floyd-Warshall's `path[i][k]`,
            // written at `j = k` and read by every later `j`):
            // each iteration is independent of the previous one.
            let broadcast = broadcast_only(scop, sched, band.first + last, &among_deepest);
            // Such a loop, with every access contiguous or invariant
            // along it, is a stream: the only reuse its tiles could
            // keep is one row per invariant access, which fits in
            // cache untiled, and cutting it into pieces gives the
            // hardware prefetcher many short streams instead of one
            // (Floyd-Warshall split at `i = k`, rows in parallel:
            // 11.5 s with 32x32 tiles, 12.7 s with 32x256, 7.5 s
            // with 32 x the whole row, at LARGE). It runs whole: its
            // extent as the tile size, or, where the extent is
            // symbolic, no tile loop at all (`UNTILED`).
            // Only beside a parallel point loop: in a band without
            // one, the tiles are what a wavefront runs in parallel.
            let reductions = reductions_in_band(scop, sched, deps, band, last, members);
            if (broadcast || reductions)
                && !group_coincident(last)
                && (0..last).any(&group_coincident)
                && contiguous_along(scop, sched, band, last, members)
            {
                let extent = extent_of(scop, sched, band.first + last, members);
                sizes[last] = sizes[last].max(extent.unwrap_or(UNTILED));
                let note = format!(
                    "point loop φ{} not cut into tiles (a stream {})",
                    band.first + last,
                    if broadcast {
                        "with broadcast dependences"
                    } else {
                        "of reductions"
                    }
                );
                if !notes.contains(&note) {
                    notes.push(note);
                }
            }
            // Nor when it carries reductions only (every written
            // cell invariant along it: gesummv's `tmp[i]` along
            // `j`), which scalar replacement keeps in registers,
            // and whose streams it keeps contiguous (moving `i`
            // innermost there: 2.0 ms against 0.45 ms at LARGE).
            if !group_coincident(last) && !inner_parallel(last) && !broadcast && !reductions {
                // Not a loop over blocks of another (the blocks of a
                // reduction split per thread, `block_dimension`): it
                // has one iteration per row of the loop it blocks, and
                // innermost it would leave a loop of one iteration
                // around each term (bicg's column sums into a block's
                // private copy beside its rows' sums).
                let independent = |d: usize| {
                    group_coincident(d) && !block_dimension(scop, sched, band, d, members)
                };
                if let Some(d) = (0..last).rev().find(|&d| independent(d)) {
                    order.retain(|&x| x != d);
                    order.push(d);
                    // Its accesses strided along it (adi's `p[i][j]`
                    // along `i`), LLVM would vectorize it with gathers
                    // and scatters: where the target runs them slowly,
                    // the independent iterations run scalar, overlapped
                    // by the core.
                    let kept_scalar =
                        opts.scalar_strided && !contiguous_along(scop, sched, band, d, &deepest);
                    if kept_scalar {
                        scalar = Some(d);
                    }
                    // (The remark says how many loops the code keeps
                    // scalar: later stages may change the innermost loops.)
                    let note = format!(
                        "point loop φ{} moved innermost (independent iterations \
                         across a recurrence)",
                        band.first + d
                    );
                    if !notes.contains(&note) {
                        notes.push(note);
                    }
                } else if opts.inner_wavefront
                    && band.len >= 2
                    && jam_wanted == 0
                    && self_chain(last)
                {
                    inner_wave = true;
                    let note = "points of each tile run along wavefronts \
                                (independent iterations across a recurrence)"
                        .to_string();
                    if !notes.contains(&note) {
                        notes.push(note);
                    }
                }
            }
        }
        if let Some((score, d)) = best {
            if score > 0 {
                vector = true;
                if d != band.len - 1 {
                    order.retain(|&x| x != d);
                    order.push(d);
                    let note = format!(
                        "point loop φ{} moved innermost (stride-1 accesses)",
                        band.first + d
                    );
                    if !notes.contains(&note) {
                        notes.push(note);
                    }
                }
                // The vector loop gets a longer tile: short vector
                // loops cost more in overhead than the tile saves in
                // cache (unless its tiles are the parallel ones:
                // fewer tiles, less parallelism).
                // (The parallel dimension: the first with a tile per
                // thread, not always the band's first parallel one.)
                let parallel_tiles = opts.parallel
                    && !parallel_taken
                    && band.tile_parallel(d)
                    && Some(band.first + d) == first_coincident;
                if opts.vector_tile > 0 && !parallel_tiles {
                    sizes[d] = opts.vector_tile;
                }
                // Every access contiguous or invariant along it:
                // a longer tile streams whole rows; a strided access
                // (gesummv's `A[i][j]` along `i`) would only grow
                // the tile's footprint (1.4x slower at 128).
                let contiguous = contiguous_along(scop, sched, band, d, members);
                if opts.vector_tile > 0 && parallel_tiles && contiguous {
                    sizes[d] = parallel_vector_tile(
                        scop,
                        sched,
                        band.first + d,
                        members,
                        sizes[d],
                        opts.vector_tile,
                        opts.min_parallel_tiles,
                    );
                }
            }
        }
    }

    GroupOrder {
        order,
        sizes,
        vector,
        inner_wave,
        scalar,
    }
}
