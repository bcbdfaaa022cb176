//! The row-blocks stage: in a two-loop band whose innermost point loop is
//! a stream of reductions into cells fixed along it (gesummv's `tmp[i] +=
//! A[i][j] * x[j]` along `j`), the rows' point loop is unrolled and jammed
//! by the lanes of a vector, and code generation runs the copies as the
//! lanes: the rows' accumulators in one vector, each lane adding its own
//! row's products in the input's order (bit-exact), the rows' elements
//! loaded as vectors and transposed in registers (`codegen::emit::lanes`).
//! Each row's reduction alone is a chain of dependent adds, one every few
//! cycles; a vector's lanes of them run at once.
//!
//! The transposed shape, a stream of reductions across the rows into cells
//! along the vector loop (bicg's `s[j] += r[i] * A[i][j]`, `j` innermost),
//! gets the same block of rows: the rows' loop is jammed by the lanes, so
//! that each cell `s[j]` takes the block's `V` terms in the input's order
//! within one iteration of `j` (loaded and stored once per block instead of
//! once per row: `codegen::emit::forward`) while `V` rows stream from
//! memory at once.
//!
//! A reduction split into blocks per thread with private copies
//! (`passes/opt/partials.rs`: bicg's column sums into the block's copy
//! beside its rows' sums, in a band of three loops, the blocks, the rows
//! and the columns) gets its rows jammed the same way inside each block,
//! as scalar copies, along whole rows ([`blocks_rows`]).

use super::analysis::{
    access_deltas, block_dimension, coincident_for, contiguous_along, extent_of, fixed_along,
    reductions_in_band, reductions_only, uniform_along, Band,
};
use super::band_plan::{BandPlan, Cx};
use super::sizes::{balanced_tile, UNTILED};

use crate::analysis::lanes::{lane_wise, MAX_LANE_VECTORS};
use crate::analysis::reductions;
use crate::scop::model::AccessKind;

/// The row-blocks stage, after the register tiles and the gather stage,
/// in bands of two tiled loops without unroll-and-jam or register tiles
/// (and in bands of three over the blocks of a split reduction, the rows
/// and a stream: [`blocks_rows`]).
/// Row blocks: under a first hyperplane whose iterations are independent
/// (coincident: the lanes run the rows at once), the groups (nests of
/// their own) that keep the band's order with a sequential innermost loop
/// (not the vector loop) carrying reductions only, along which every
/// access is contiguous or invariant, with tiles of whole blocks of lanes,
/// whose statements run lane-wise ([`lane_wise`]: doubles, element-wise
/// arithmetic); so do the rows of a triangular solve, in any tiled band,
/// a wavefront's too ([`solve_rows`]). Column streams (not in a
/// wavefront's band): groups whose innermost point loop is the
/// vector loop, along which every access is contiguous or invariant, and
/// whose other point loop carries reductions only, with tiles of whole
/// blocks of lanes along it (bicg's `s[j]` nest beside its `q[i]` one,
/// gramschmidt's `R[k][j]` beside a norm that makes the band's first
/// hyperplane sequential), are jammed by the same factor, as scalar copies
/// that run in order ([`is_column_stream`]): a jam inside a tiled band,
/// which is permutable, is legal. The band's other groups are left as
/// they are.
pub(super) fn run(cx: &Cx, plans: &mut [BandPlan]) {
    let lanes = cx.opts.row_lanes;
    if lanes <= 1 || cx.opts.unroll_jam > 1 {
        return;
    }
    let Cx { scop, sched, .. } = *cx;
    // Reassociated chains run in vector lanes along their own loop.
    // (With the option, or where the input allows any order.)
    let found = reductions::find(scop);
    let reassociated: Vec<usize> = found
        .iter()
        .filter(|r| r.combine.rounds() && r.reorderable(cx.opts.reassociate))
        .map(|r| r.stmt)
        .collect();
    let reorderable: Vec<usize> = found
        .iter()
        .filter(|r| r.reorderable(cx.opts.reassociate))
        .map(|r| r.stmt)
        .collect();
    for (band, bp) in cx.bands.iter().zip(plans) {
        if bp.tiled
            && band.len == 3
            && bp.jam == 0
            && !bp.wavefront
            && bp.reg.iter().all(Option::is_none)
        {
            if let Some(members) = blocks_rows(cx, bp, band, &reorderable, lanes) {
                let stream = extent_of(scop, sched, band.first + 2, &members).unwrap_or(UNTILED);
                for &s in &members {
                    bp.sizes[s][2] = bp.sizes[s][2].max(stream);
                }
                jam_as_copies(bp, scop.statements.len(), members, lanes);
                bp.notes.push(format!(
                    "rows of each block along φ{} taken {lanes} at a time, each step of φ{} (not cut into tiles) reading their {lanes} cells once for every statement",
                    band.first + 1,
                    band.first + 2
                ));
            }
            continue;
        }
        if !bp.tiled
            || band.len != 2
            || bp.jam > 0
            || bp.reg.iter().any(Option::is_some)
            || bp.groups.is_empty()
        {
            continue;
        }
        // Groups with one loop in the band (a hyperplane of it constant:
        // gesummv's initializations) are left out.
        let flat = |members: &[usize]| {
            members.iter().all(|&s| {
                (0..band.len).any(|d| {
                    sched.schedule.dims[s][band.first + d]
                        .as_constant()
                        .is_some()
                })
            })
        };
        // Groups whose rows' loop runs over blocks of another with fewer
        // blocks than a block's lanes (the blocks of a reduction split per
        // thread, `partials`: two rows of blocks for two threads) are left
        // out too.
        let enough_rows = |members: &[usize]| {
            !block_dimension(scop, sched, band, 0, members)
                || extent_of(scop, sched, band.first, members).is_none_or(|n| n >= lanes)
        };
        let rows: Vec<&Vec<usize>> = bp
            .groups
            .iter()
            .map(|(_, m)| m)
            .filter(|m| !flat(m) && enough_rows(m))
            .collect();
        let independent = |members: &[usize]| {
            band.coincident[0]
                && !bp.wavefront
                && reductions_only(scop, sched, band, 1, members)
                && contiguous_along(scop, sched, band, 1, members)
        };
        let mut fitting: Vec<&Vec<usize>> = rows
            .iter()
            .copied()
            .filter(|members| {
                members.iter().all(|&s| {
                    bp.orders[s] == [0, 1]
                        && !bp.vector[s]
                        && !bp.inner_wave[s]
                        && bp.sizes[s][0] % lanes == 0
                }) && (independent(members) || solve_rows(cx, band, members))
                    && members.iter().all(|&s| lane_wise(scop, s))
            })
            .collect();
        let streams: Vec<&Vec<usize>> = rows
            .iter()
            .copied()
            .filter(|members| !bp.wavefront && is_column_stream(cx, bp, band, members, lanes))
            .collect();
        // A reassociated chain runs in vector lanes along its own loop,
        // unless a column stream shares the band: then the row blocks keep
        // the two in one pass over their matrix (atax and bicg at LARGE,
        // 2 threads, Zen 4: 1.85 and 1.36 ms without row blocks, 1.29 and
        // 0.91 with them; gemv alone: 12.0 ms with, 3.7 without).
        if streams.is_empty() {
            fitting.retain(|members| !members.iter().any(|s| reassociated.contains(s)));
        }
        let solves = fitting.iter().any(|members| !independent(members));
        if fitting.is_empty() && streams.is_empty() {
            if let Some(rows) = chain_rows(cx, bp, band, &rows, &reorderable, lanes) {
                let members: Vec<usize> = rows.iter().copied().flatten().copied().collect();
                jam_as_copies(bp, scop.statements.len(), members, lanes);
                bp.notes.push(format!(
                    "rows' chains along φ{} (run in vector lanes along it) taken {lanes} rows at a time",
                    band.first + 1
                ));
            }
            continue;
        }
        // With the band's groups all jammed (no plain nest whose tiles a
        // later stage could fuse with a stream's), each stream's vector
        // loop, when its tiles are the parallel ones, takes a tile per
        // thread, up to the target's stream tile.
        if fitting.len() + streams.len() == rows.len() {
            for members in &streams {
                let tiles = (&bp.orders[..], bp.par_dim, &mut bp.sizes[..]);
                widen_stream(cx, tiles, band, members, lanes);
            }
        }
        let mut jammed = vec![false; scop.statements.len()];
        for &s in fitting.iter().chain(&streams).copied().flatten() {
            jammed[s] = true;
        }
        bp.jam_stmts = Some(jammed);
        bp.jam = 1;
        let rows = row_factor(bp, &fitting, &streams, lanes);
        bp.jam_factor = rows;
        bp.lanes = !fitting.is_empty();
        bp.split_blocks = true;
        if let Some(members) = streams.first() {
            let rows_dim = bp.orders[members[0]][0];
            bp.notes.push(format!(
                "sums across rows along φ{} taken {rows} rows at a time",
                band.first + rows_dim + 1
            ));
        }
        if fitting.is_empty() {
            continue;
        }
        let mut note = if rows == lanes {
            format!(
                "rows' reductions along φ{} run {lanes} at a time, one per vector lane",
                band.first + 1
            )
        } else {
            format!(
                "rows' reductions along φ{} run {rows} at a time, one per vector lane ({} vectors)",
                band.first + 1,
                rows / lanes
            )
        };
        if solves {
            note.push_str(
                " where code generation proves the rows independent (a triangular solve's \
                 blocks below the diagonal)",
            );
        }
        bp.notes.push(note);
    }
}

/// Unrolls and jams the rows (the band's point loop just outside the
/// innermost) of the statements `members` of a band with `statements`
/// statements by `lanes`, as scalar copies that run in order (not a
/// vector's lanes), the full blocks split from the partial ones to be
/// unrolled.
fn jam_as_copies(bp: &mut BandPlan, statements: usize, members: Vec<usize>, lanes: i64) {
    let mut jammed = vec![false; statements];
    for s in members {
        jammed[s] = true;
    }
    bp.jam_stmts = Some(jammed);
    bp.jam = 1;
    bp.jam_factor = lanes;
    bp.lanes = false;
    bp.split_blocks = true;
}

/// Groups of `rows` of one statement, a reduction that may run in any
/// order (`reorderable`: a maximum, or a sum under `reassociate`) along
/// the band's inner loop, over independent rows: jammed by `lanes` as
/// scalar copies, so that each step of the inner loop advances that many
/// rows' chains, each of which LLVM runs in vector lanes along the loop.
/// One row at a time is one stream from memory and one chain: rowmax
/// (8192 x 8192 f32, 2 threads, Zen 5, `bench/paired.py`) reached 58 % of
/// `bandwidth.c` at 85 GB/s and 83 % at 48 GB/s; 8 rows at a time, 71 %
/// and 92 %; in cache (2048 x 2048) no different. Not groups of two
/// statements or more, whose rows already run two chains and streams
/// each: gesummv's under `reassociate` (LARGE, in cache) ran 10-20 %
/// slower with 2, 4 or 8 rows at a time.
fn chain_rows<'a>(
    cx: &Cx,
    bp: &BandPlan,
    band: &Band,
    rows: &[&'a Vec<usize>],
    reorderable: &[usize],
    lanes: i64,
) -> Option<Vec<&'a Vec<usize>>> {
    let Cx { scop, sched, .. } = *cx;
    if bp.wavefront {
        return None;
    }
    let chosen: Vec<&Vec<usize>> = rows
        .iter()
        .copied()
        .filter(|members| {
            members.len() == 1
                && members.iter().all(|&s| coincident_for(sched, band, 0, s))
                && members.iter().all(|&s| {
                    reorderable.contains(&s)
                        && bp.orders[s] == [0, 1]
                        && !bp.vector[s]
                        && !bp.inner_wave[s]
                        && bp.sizes[s][0] % lanes == 0
                })
                && reductions_in_band(scop, sched, cx.deps, band, 1, members)
                && contiguous_along(scop, sched, band, 1, members)
        })
        .collect();
    (!chosen.is_empty()).then_some(chosen)
}

/// The statements of a group in a band of three loops whose first loop
/// runs over blocks of its second (`block_dimension`: the blocks of a
/// loop split per thread with private copies of an array,
/// `passes/opt/partials.rs`; bicg's column sums `P[t][j] += r[i] *
/// A[i][j]` beside its rows' sums `q[i] += A[i][j] * p[j]`, both over the
/// rows `i` of block `t`), in the band's order, whose innermost loop is a
/// stream (every access contiguous or invariant along it) that each
/// member runs in vector lanes (its iterations independent, or a chain of
/// a reduction that may run in any order: a sum under `reassociate`):
/// their rows' loop is unrolled and jammed by `lanes` as scalar copies in
/// order, and the stream is not cut into tiles. Each step of the stream
/// then reads a cell of `lanes` rows for every statement while they are in
/// registers, the cells along it (`P[t][j]`, `p[j]`) once per block of
/// rows instead of once per row, and the rows' chains advance together.
/// bicg at 8400 x 8000 with `reassociate=true` (2 threads, Zen 5,
/// `bench/paired.py`, memory at ~80 GB/s): one row at a time in tiles of
/// 32 x 32, 13.2 ms (51 % of `bandwidth.c`); 8 rows at a time along whole
/// rows, see docs/optimizer.md.
fn blocks_rows(
    cx: &Cx,
    bp: &BandPlan,
    band: &Band,
    reorderable: &[usize],
    lanes: i64,
) -> Option<Vec<usize>> {
    let Cx { scop, sched, .. } = *cx;
    let runs_in_lanes = |s: usize| {
        coincident_for(sched, band, 2, s)
            || (reorderable.contains(&s) && reductions_only(scop, sched, band, 2, &[s]))
    };
    bp.groups.iter().map(|(_, m)| m).find_map(|members| {
        let fits = block_dimension(scop, sched, band, 0, members)
            && members.iter().all(|&s| {
                bp.orders[s] == [0, 1, 2]
                    && !bp.inner_wave[s]
                    && bp.sizes[s][1] % lanes == 0
                    && runs_in_lanes(s)
            })
            && contiguous_along(scop, sched, band, 2, members)
            && !block_dimension(scop, sched, band, 1, members)
            // Some member sums across the rows into cells along the
            // stream (the block's private copy), which the jam reads and
            // writes once per block of rows.
            && members.iter().any(|&s| reductions_only(scop, sched, band, 1, &[s]));
        fits.then(|| members.clone())
    })
}

/// Rows of a triangular solve (trisolv's `x[i] -= L[i][j] * x[j]` along
/// `j`, beside `x[i] /= L[i][i]` at `j = i`): the band's first hyperplane
/// need not be coincident, as the rows read cells that earlier rows write.
/// The members that range along the band's innermost loop `d = 1` (the
/// others run at one point of it per row, `fixed_along`: they sit on the
/// blocks' edges) write only cells fixed along it, each of which they also
/// read (reductions), and every access of theirs is contiguous or
/// invariant along it. Unrolled and jammed, the
/// rows run in order (a jam inside a tiled band, which is permutable, is
/// legal); code generation runs a loop's copies in lanes only where it
/// proves them independent (`codegen::emit::lanes`: every cell they write
/// is one lane's own accumulator, and every other read is proven off
/// those cells over the loop's range, trisolv's `x[j]` with `j` below the
/// block's first row), and leaves the other blocks (on the diagonal, with
/// the division) to scalar copies in order.
fn solve_rows(cx: &Cx, band: &Band, members: &[usize]) -> bool {
    let Cx { scop, sched, .. } = *cx;
    let ranging: Vec<usize> = members
        .iter()
        .copied()
        .filter(|&s| !fixed_along(sched, band, 1, s))
        .collect();
    // A write whose cell the statement also reads: a reduction, whose
    // cell code generation can carry in a lane (a cell only written is
    // not carried, and its rows would be jammed for nothing).
    let reduces = |s: usize| {
        let accesses = &scop.statements[s].accesses;
        accesses
            .iter()
            .filter(|a| a.kind == AccessKind::Write)
            .all(|w| {
                accesses
                    .iter()
                    .any(|r| r.kind == AccessKind::Read && r.array == w.array && r.index == w.index)
            })
    };
    !ranging.is_empty()
        && ranging.iter().all(|&s| {
            reduces(s)
                && access_deltas(scop, sched, band, 1, s).is_some_and(|acc| {
                    acc.iter()
                        .filter(|(kind, _)| *kind == AccessKind::Write)
                        .all(|(_, deltas)| deltas.iter().all(|&x| x == 0))
                })
        })
        && contiguous_along(scop, sched, band, 1, &ranging)
}

/// The rows a block of row blocks takes: a vector's lanes, or two vectors'
/// when the band's jammed groups are one statement each and some are row
/// reductions, each running one chain of adds (a column stream beside them,
/// bicg's `s` pass, takes as many rows per block, in order): one
/// vector's chain per step of `V` columns is a chain of `V` dependent adds,
/// which two independent vectors halve per row (bicg's `q` pass at LARGE, 2
/// threads, hand-written C on an AMD EPYC, LLVM znver5: 0.187 ms with 8
/// rows per block, 0.16 ms with 16; gesummv, two chains already, is no
/// faster with 16). Only as many copies as [`super::MAX_JAM_COPIES`]
/// allows, and tiles of whole blocks.
fn row_factor(bp: &BandPlan, fitting: &[&Vec<usize>], streams: &[&Vec<usize>], lanes: i64) -> i64 {
    let wide = lanes * MAX_LANE_VECTORS;
    let single = !fitting.is_empty() && fitting.iter().chain(streams).all(|m| m.len() == 1);
    let whole = fitting
        .iter()
        .all(|m| m.iter().all(|&s| bp.sizes[s][0] % wide == 0))
        && streams
            .iter()
            .all(|m| m.iter().all(|&s| bp.sizes[s][bp.orders[s][0]] % wide == 0));
    if single && whole && wide <= super::MAX_JAM_COPIES {
        wide
    } else {
        lanes
    }
}

/// Widens the tiles of column stream `members`' vector loop, when the band
/// is outermost (no loop around it: a parallel loop inside sequential
/// ones keeps its tiles, which the profitability rules weigh), the tiles
/// are the band's parallel ones and every tile does the same work, to equal
/// tiles of at most `opts.stream_tile` iterations (a multiple of the
/// lanes), as few as that allows, in a multiple of the threads (never
/// narrower than they are): each thread then streams whole
/// stretches of its rows, the cells staying in L1 (bicg's `s` pass at
/// LARGE, 2 threads: 0.41 ms with tiles of 256, 0.35 ms with 952).
/// `tiles`: the band plan's orders, parallel dimension and sizes.
fn widen_stream(
    cx: &Cx,
    (orders, par_dim, sizes): (&[Vec<usize>], Option<usize>, &mut [Vec<i64>]),
    band: &Band,
    members: &[usize],
    lanes: i64,
) {
    let Cx {
        scop, sched, opts, ..
    } = *cx;
    let Some(&first) = members.first() else {
        return;
    };
    let inner = orders[first][1];
    let outermost = members.iter().all(|&s| {
        sched.schedule.dims[s][..band.first]
            .iter()
            .all(|f| f.as_constant().is_some())
    });
    if opts.stream_tile <= 0
        || !outermost
        || par_dim != Some(inner)
        || !uniform_along(scop, sched, band, inner, members)
    {
        return;
    }
    let Some(extent) = extent_of(scop, sched, band.first + inner, members) else {
        return;
    };
    // As few tiles as the stream tile allows, a multiple of the threads
    // (atax's 2100 columns in tiles of at most 1024 on 2 threads: 4 of
    // 528, not 3 of 704).
    let threads = opts.threads.max(1);
    let tiles = ((extent - 1) / opts.stream_tile.max(1) + 1).max(threads);
    let tiles = (tiles - 1) / threads * threads + threads;
    let size = balanced_tile(extent, (extent - 1) / tiles + 1, lanes);
    for &s in members {
        sizes[s][inner] = sizes[s][inner].max(size);
    }
}

/// True when the group `members` of a two-loop band is a stream of
/// reductions across rows into cells along its vector loop (bicg's `s[j]
/// += r[i] * A[i][j]` with `j` innermost): its innermost point loop is the
/// vector loop, every access is contiguous or invariant along it, the
/// other point loop (the rows) writes only cells fixed along it, and its
/// tiles hold whole blocks of `lanes` rows.
fn is_column_stream(cx: &Cx, bp: &BandPlan, band: &Band, members: &[usize], lanes: i64) -> bool {
    let Cx { scop, sched, .. } = *cx;
    let Some(&first) = members.first() else {
        return false;
    };
    let order = &bp.orders[first];
    let [rows, inner] = order[..] else {
        return false;
    };
    members.iter().all(|&s| {
        bp.orders[s] == *order
            && bp.vector[s]
            && !bp.inner_wave[s]
            && bp.sizes[s][rows] % lanes == 0
    }) && reductions_only(scop, sched, band, rows, members)
        && contiguous_along(scop, sched, band, inner, members)
}
