//! Interleaved tiles, on the materialized plan: two neighbouring nests
//! that read the same array in transposed orders, each with a parallel tile
//! loop of its own hyperplane, share one parallel loop over the threads,
//! and inside it one sequential loop over tiles of the array's rows.
//!
//! bicg's `s[j] += r[i] * A[i][j]` runs as a column stream (its tiles of
//! `j` parallel, one per thread, the rows `i` sequential inside), and
//! `q[i] += A[i][j] * p[j]` as rows (its tiles of `i` parallel). Apart,
//! each reads all of `A` (32 MB at LARGE) from memory. Interleaved, each
//! thread runs, tile of `P·D` rows by tile (`P` threads, `D` the rows
//! dealt to each: the rows' tile, or less so that one thread's cells of a
//! tile fit half of L2, see [`deal`]), the column stream over its columns
//! of those rows, then the rows `D·t … D·t + D - 1` of the tile (`t` its
//! number): rows that the threads' column streams have just read, still
//! in cache. The rows' nest's thread is `⌊i/D⌋ - P·⌊i/(P·D)⌋`, the column
//! stream's its column tile (one per thread).
//!
//! Legal when no dependence joins the two nests (their relative order is
//! then free) and the parallel loop carries none inside either: the rows'
//! nest's dependences stay inside one row, so inside one thread and one
//! tile of `P·D` rows, in their old order; the column stream's order is
//! its old one with the tile of `P·D` rows put first, like its own tiles
//! of rows a nondecreasing function of the row, so two instances of one
//! column keep their order. Both are asked of the new schedule
//! ([`reverses`], [`carries`]) before the plan is kept, and the checker
//! verifies the final plan afterwards, as every plan.
//!
//! Rows of thousands of columns (mvt, bicg at 8000 x 8000: 16 rows of 64
//! KB each, 1 MB, past half of a 1 MB L2 before the column stream's share)
//! fit no tile in L2; where the array is larger than the whole L3 (else
//! two passes read it from the L3), the rows' nest reads the tile's rows
//! back from the L3 when one thread's cells fit its share of it
//! ([`crate::target::cpu::INTERLEAVED_L3_SHARE`]): one pass from memory
//! instead of two. Pairs whose tiles fit L2 are taken first.
//!
//! Only with the default sizes, tile fusion on, two threads or more, a
//! column stream with as many tiles per thread (run in order inside the
//! thread's share of each tile of rows), and nests of one statement.

use super::analysis::{extent_of, uniform_at};
use super::band_plan::Cx;
use super::tile_fusion::{
    band_dim, sibling_nests, tile_definition, tile_hyperplane, tile_size, trimmed,
};
use super::{tile_local, Plan, PlanDim, Tiling};
use crate::analysis::carried::{carries, reverses};
use crate::deps::Dependence;
use crate::scop::form::Form;
use crate::scop::model::Scop;
use crate::target::cpu::{ELEMENT_BYTES, INTERLEAVED_L2_SHARE, INTERLEAVED_L3_SHARE};

/// A tile loop of one statement: the hyperplane its constraints cut, the
/// tile size and the constraints (local renamed 0).
struct Tiles {
    phi: Form,
    size: i64,
    rows: Vec<Form>,
}

/// The tile loop at dimension `k` of statement `s`, when it is one.
fn tiles(plan: &Plan, s: usize, k: usize) -> Option<Tiles> {
    let rows = tile_definition(plan, s, k)?;
    Some(Tiles {
        phi: tile_hyperplane(&rows)?,
        size: tile_size(&rows)?,
        rows,
    })
}

/// Interleaves the first qualifying pair of nests below each scalar
/// dimension (see the module's documentation); true when the plan changed
/// (a note says how).
pub(super) fn run(cx: &Cx, plan: &mut Plan) -> bool {
    let opts = cx.opts;
    if !opts.fuse_tiles
        || !opts.auto_sizes
        || opts.threads < 2
        || !plan.register_tiles.is_empty()
        || plan.restarted_wavefront.is_some()
        || plan.inner_distributed
    {
        return false;
    }
    let mut changed = false;
    let mut d = 0;
    while d + 2 < plan.dims.len() {
        match interleaved_at(cx, plan, d) {
            Some(new) => {
                *plan = new;
                changed = true;
                d += 4;
            }
            None => d += 1,
        }
    }
    changed
}

/// The plan with a pair of one-statement nests below scalar dimension `d`
/// interleaved, when some neighbouring pair qualifies.
fn interleaved_at(cx: &Cx, plan: &Plan, d: usize) -> Option<Plan> {
    let (dim, tile) = (&plan.dims[d], &plan.dims[d + 1]);
    if !dim.scalar || tile.scalar || !tile.parallel {
        return None;
    }
    let groups = sibling_nests(plan, d);
    // Pairs whose tiles fit L2 first, then those whose tiles come back
    // from the L3.
    for from_l3 in [false, true] {
        // Each statement in turn, with its nest and the next one of its
        // group.
        for x in 0..plan.schedule.dims.len() {
            for group in &groups {
                let Some(i) = group.iter().position(|(_, m)| m.contains(&x)) else {
                    continue;
                };
                let (Some((vx, nx)), Some((_, ny))) = (group.get(i), group.get(i + 1)) else {
                    continue;
                };
                let ([x], [y]) = (nx.as_slice(), ny.as_slice()) else {
                    continue;
                };
                for (a, b) in [(*x, *y), (*y, *x)] {
                    if let Some(p) = interleave(cx, plan, d, a, b, *vx, from_l3) {
                        return Some(p);
                    }
                }
            }
        }
    }
    None
}

/// Some array that `a` accesses with subscripts `row` and `col` (at two
/// positions) and `b` with subscript `b_row` at `row`'s position.
fn same_rows(scop: &Scop, a: usize, b: usize, row: &Form, col: &Form, b_row: &Form) -> bool {
    let (sa, sb) = (&scop.statements[a], &scop.statements[b]);
    sa.accesses.iter().any(|p| {
        let pos = |f: &Form| p.index.iter().position(|x| trimmed(x) == *f);
        let (Some(k), Some(c)) = (pos(row), pos(col)) else {
            return false;
        };
        k != c
            && sb.accesses.iter().any(|q| {
                q.array == p.array
                    && q.index.len() == p.index.len()
                    && trimmed(&q.index[k]) == *b_row
            })
    })
}

/// Rows of the rows' nest that each thread runs per tile of rows: `tile`
/// (the rows' tile size), halved while one thread's cells of one tile
/// (its `width` columns of the `threads·r` rows, and its `r` rows of
/// `extent` cells) exceed `budget` bytes, not below `unit` (the plan's row
/// blocks); `None` when even then they exceed all of L2
/// (`budget · INTERLEAVED_L2_SHARE`), unless they fit `l3_budget` (0:
/// none), the thread's share of the L3.
fn deal(
    tile: i64,
    unit: i64,
    threads: i64,
    width: i64,
    extent: i64,
    budget: i64,
    l3_budget: i64,
) -> Option<i64> {
    let bytes = |r: i64| -> i64 {
        let cells = r
            .saturating_mul(threads)
            .saturating_mul(width)
            .saturating_add(r.saturating_mul(extent));
        cells.saturating_mul(i64::from(ELEMENT_BYTES))
    };
    let mut r = tile;
    while bytes(r) > budget && r % 2 == 0 && (r / 2) % unit.max(1) == 0 {
        r /= 2;
    }
    let l2 = budget.saturating_mul(i64::try_from(INTERLEAVED_L2_SHARE).ok()?);
    (bytes(r) <= l2 || bytes(r) <= l3_budget).then_some(r)
}

/// The plan with column stream `a` and rows' nest `b` interleaved below
/// scalar dimension `d` (both get value `first` there), or `None` when
/// they do not have that shape, the result would not be legal, or its
/// tiles do not fit L2 (with `from_l3`: nor the L3's share of a thread,
/// the array being larger than the whole L3).
fn interleave(
    cx: &Cx,
    plan: &Plan,
    d: usize,
    a: usize,
    b: usize,
    first: i64,
    from_l3: bool,
) -> Option<Plan> {
    let Cx {
        scop,
        sched,
        deps,
        opts,
        ..
    } = *cx;
    let threads = opts.threads;
    if !plan.dims[d + 1].parallel_for([a, b].into_iter())
        || plan.dims[d + 2].parallel_for([a].into_iter())
    {
        return None;
    }
    let cols = tiles(plan, a, d + 1)?;
    let a_rows = tiles(plan, a, d + 2)?;
    let rows = tiles(plan, b, d + 1)?;
    if !same_rows(scop, a, b, &a_rows.phi, &cols.phi, &rows.phi) {
        return None;
    }
    let joined = |x: &Dependence| {
        let (s, t) = (x.source.0, x.sink.0);
        (s == a && t == b) || (s == b && t == a)
    };
    // Debug and test builds: with `POLYRS_BREAK_STAGE=interleave`, a wrong
    // decision (the nests interleaved whatever joins them, unasked), for
    // the test that shows the check after the stage catching it.
    let broken = cfg!(debug_assertions)
        && std::env::var("POLYRS_BREAK_STAGE").is_ok_and(|v| v == "interleave");
    if deps.iter().any(joined) && !broken {
        return None;
    }
    // The same number of column tiles per thread (`per`): the thread's
    // tiles run in order inside its share of each tile of rows. With more
    // than one, only when every column does the same work (a triangle's
    // columns would leave one thread most of it).
    let k = band_dim(sched, a, &cols.rows)?;
    let extent = extent_of(scop, sched, k, &[a])?;
    let count = (extent + cols.size - 1) / cols.size;
    if count % threads != 0 {
        return None;
    }
    let per = count / threads;
    if per > 1 && !uniform_at(scop, sched, k, &[a]) {
        return None;
    }
    let unit = plan.block_dims.iter().map(|b| b.size).max().unwrap_or(1);
    // The tiles' rows back from the L3 only when two passes would read
    // the array from memory: it is larger than the whole L3 (the cells of
    // the rows' nest's band, as a box).
    let l3_budget = if from_l3 {
        let row_extent = extent_of(scop, sched, band_dim(sched, b, &rows.rows)?, &[b])?;
        let array = row_extent
            .saturating_mul(extent)
            .saturating_mul(i64::from(ELEMENT_BYTES));
        if opts.l3_bytes <= 0 || array <= opts.l3_bytes.saturating_mul(threads) {
            return None;
        }
        opts.l3_bytes / i64::try_from(INTERLEAVED_L3_SHARE).ok()?
    } else {
        0
    };
    let deal = deal(
        rows.size,
        unit,
        threads,
        cols.size.checked_mul(per)?,
        extent,
        opts.interleaved_tile_bytes,
        l3_budget,
    )?;
    let step = deal.checked_mul(threads)?;
    // The column stream's blocks of rows stay whole in the new tiles.
    if step % unit != 0 {
        return None;
    }
    let mut new = plan.clone();
    let old = |s: usize| plan.schedule.dims[s][d].clone();
    // With several column tiles per thread, the column stream's thread is
    // its tile of `per` column tiles, and its column tiles a loop inside
    // the sequence (the other statements: 0 there).
    let inserted = if per > 1 { 3 } else { 2 };
    if per > 1 {
        let e = tile_local(
            &mut new.schedule.locals[a],
            &cols.phi,
            cols.size.checked_mul(per)?,
        )
        .ok()?;
        for s in 0..new.schedule.dims.len() {
            let column = if s == a {
                plan.schedule.dims[a][d + 1].clone()
            } else {
                Form::constant(0)
            };
            new.schedule.dims[s].insert(d + 2, column);
        }
        new.schedule.dims[a][d + 1] = Form::local(e);
    }
    for s in 0..new.schedule.dims.len() {
        let (tile, seq) = if s == a || s == b {
            let phi = if s == a { &a_rows.phi } else { &rows.phi };
            let e = tile_local(&mut new.schedule.locals[s], phi, step).ok()?;
            if s == b {
                // The rows' block of `deal` rows: its own tile when that size.
                let block = if deal == rows.size {
                    new.schedule.dims[b][d + 1].clone()
                } else {
                    Form::local(tile_local(&mut new.schedule.locals[s], phi, deal).ok()?)
                };
                let thread = block.add_scaled(&Form::local(e), -threads).ok()?;
                new.schedule.dims[b][d + 1] = thread;
            }
            new.schedule.dims[s][d] = Form::constant(first);
            (Form::local(e), old(s))
        } else {
            (Form::constant(0), Form::constant(0))
        };
        new.schedule.dims[s].insert(d + 2, tile);
        new.schedule.dims[s].insert(d + 3, seq);
    }
    for l in new
        .lane_dims
        .iter_mut()
        .chain(
            new.block_dims
                .iter_mut()
                .flat_map(|b| [&mut b.unrolled, &mut b.blocks]),
        )
        .filter(|l| **l >= d + 2)
    {
        *l += inserted;
    }
    let plain = |scalar: bool, what: &str| PlanDim {
        scalar,
        parallel: false,
        only: None,
        unroll: false,
        jam_block: false,
        tiling: if scalar { Tiling::None } else { Tiling::Tile },
        what: what.into(),
    };
    if per > 1 {
        new.dims
            .insert(d + 2, plain(false, "column tiles of a thread's share"));
    }
    new.dims
        .insert(d + 2, plain(false, "tile of rows of interleaved nests"));
    new.dims.insert(d + 3, plain(true, "sequence"));
    let touching: Vec<Dependence> = deps
        .iter()
        .filter(|x| [a, b].contains(&x.source.0) || [a, b].contains(&x.sink.0))
        .cloned()
        .collect();
    let inside: Vec<Dependence> = touching
        .iter()
        .filter(|x| [a, b].contains(&x.source.0) && [a, b].contains(&x.sink.0))
        .cloned()
        .collect();
    let n = new.dims.len();
    if !broken
        && (!matches!(reverses(scop, &touching, &new.schedule, 0..n), Ok(false))
            || !matches!(carries(scop, &inside, &new.schedule, d + 1), Ok(false)))
    {
        return None;
    }
    let shares = if per > 1 {
        format!(", {per} column tiles per thread")
    } else {
        String::new()
    };
    let budget = if from_l3 {
        format!(
            "L2 budget of one thread's share: {} KiB exceeded, its rows read back from the L3, budget {} KiB",
            opts.interleaved_tile_bytes / 1024,
            l3_budget / 1024
        )
    } else {
        format!(
            "L2 budget of one thread's share: {} KiB",
            opts.interleaved_tile_bytes / 1024
        )
    };
    new.notes.push(format!(
        "S{a}'s column tiles and S{b}'s rows interleaved: one parallel loop over {threads} threads{shares}, \
         tiles of {step} rows inside, S{b}'s rows dealt {deal} at a time ({budget})"
    ));
    Some(new)
}

#[cfg(test)]
mod tests {
    use super::deal;

    const KIB: i64 = 1024;

    #[test]
    fn deals_the_rows_tile_halved_to_the_budget() {
        // bicg at LARGE on AVX-512 (1 MB L2): 32 rows would be 973 KB per
        // thread, 16 are 486 KB.
        assert_eq!(deal(32, 16, 2, 952, 1900, 512 * KIB, 0), Some(16));
        // With a 2 MB L2 the whole tile fits.
        assert_eq!(deal(32, 16, 2, 952, 1900, 1024 * KIB, 0), Some(32));
    }

    #[test]
    fn stops_at_the_row_blocks_and_refuses_what_overflows_l2() {
        // 256 KB L2 (haswell): 8 rows, 243 KB, over the half but within L2.
        assert_eq!(deal(32, 8, 2, 952, 1900, 128 * KIB, 0), Some(8));
        // Blocks of 16 rows: not below them, and 486 KB exceed 256 KB.
        assert_eq!(deal(32, 16, 2, 952, 1900, 128 * KIB, 0), None);
        // Rows so long that even one block exceeds L2.
        assert_eq!(deal(32, 16, 2, 50_000, 100_000, 512 * KIB, 0), None);
    }

    #[test]
    fn rows_past_l2_come_back_from_the_l3_share_when_given() {
        // mvt at 8000 x 8000 on a 1 MB L2: 16 rows (the row blocks) and
        // the column stream's 4008 columns of 32 rows take 2 MB, past L2.
        assert_eq!(deal(32, 16, 2, 4008, 8000, 512 * KIB, 0), None);
        // An 8 MB share of the L3 holds them; a 1 MB share does not.
        assert_eq!(deal(32, 16, 2, 4008, 8000, 512 * KIB, 8192 * KIB), Some(16));
        assert_eq!(deal(32, 16, 2, 4008, 8000, 512 * KIB, 1024 * KIB), None);
    }
}
