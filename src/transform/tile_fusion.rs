//! Tile fusion, on the materialized plan: nests that a scalar dimension
//! distributes, each with a parallel loop over the same tiles of the same
//! hyperplane right below it, share that loop.
//!
//! gramschmidt's `R[k][j] += Q[i][k] * A[i][j]` and
//! `A[i][j] -= Q[i][k] * R[k][j]` are cut apart by the scheduler (the
//! second needs every `i` of the first), and each gets its own band
//! `(j, i)`, its `j` tiles parallel. Fused at the tile loop, each tile of
//! `j` runs the first statement's points, then the second's: the tile's
//! columns of `A` are still in cache when the second reads them, and each
//! step of `k` forks the threads once instead of twice.
//!
//! Scalar dimension `d` orders the nests; dimension `d + 1` is their tile
//! loop. The fused statements get one value at `d` (the run's first), and
//! a new scalar dimension after the tile loop keeps their old order
//! inside each tile. Legal when no dependence between the fused statements
//! is carried by the tile loop: a dependence ordered by `d` then has equal
//! tile coordinates, and the new dimension orders it as `d` did; the loop
//! stays parallel for the same reason. The checker verifies the final plan
//! afterwards, as every plan.
//!
//! The reuse pays only if one tile's cells stay in cache from the first
//! nest to the last: the fused tiles shrink (halving, not below a cache
//! line of elements) until the cells of one tile, `T` times the extents
//! of the band's other hyperplanes, fit in [`super::Options::fused_tile_bytes`]
//! (a share of L2: [`crate::target::cpu::FUSED_L2_SHARE`]). gramschmidt at
//! LARGE, AVX-512, 2 threads: 128-wide tiles (1000 x 128 doubles, 1 MB)
//! fused gain 5 % over the nests apart, 32-wide ones 30 %.

use super::analysis::extent_of;
use super::band_plan::Cx;
use super::{Plan, PlanDim, Tiling};
use crate::analysis::carried::carries;
use crate::deps::Dependence;
use crate::sched::pluto::PlutoSchedule;
use crate::scop::form::Form;
use crate::scop::model::Scop;
use crate::target::cpu::ELEMENT_BYTES;

/// A form without trailing zero coefficients (forms built in different
/// ways compare equal when they are equal).
pub(super) fn trimmed(f: &Form) -> Form {
    let trim = |v: &[i64]| {
        let n = v.iter().rposition(|&c| c != 0).map_or(0, |p| p + 1);
        v[..n].to_vec()
    };
    Form {
        params: trim(&f.params),
        iters: trim(&f.iters),
        locals: trim(&f.locals),
        constant: f.constant,
    }
}

/// The tile loop at dimension `k` of statement `s`, comparable across
/// statements: the constraints that define its local (renamed local 0),
/// when the dimension is exactly one local defined by constraints over
/// iterators and parameters only.
pub(super) fn tile_definition(plan: &Plan, s: usize, k: usize) -> Option<Vec<Form>> {
    let f = trimmed(plan.schedule.dims[s].get(k)?);
    let l = f.locals.iter().position(|&c| c != 0)?;
    if f.locals.len() != l + 1 || f.locals[l] != 1 || f.constant != 0 {
        return None;
    }
    if f.iters.iter().chain(&f.params).any(|&c| c != 0) {
        return None;
    }
    let locals = &plan.schedule.locals[s];
    let mut def = Vec::new();
    for row in locals.ineqs.iter().chain(&locals.eqs) {
        let c = row.locals.get(l).copied().unwrap_or(0);
        let others = row
            .locals
            .iter()
            .enumerate()
            .any(|(m, &x)| m != l && x != 0);
        if c == 0 {
            continue;
        }
        if others {
            return None;
        }
        let mut r = trimmed(row);
        r.locals = vec![c];
        def.push(r);
    }
    (!def.is_empty()).then_some(def)
}

/// Some array that a statement of `a` and one of `b` access at the same
/// subscripts.
pub(super) fn share_cells(scop: &Scop, a: &[usize], b: &[usize]) -> bool {
    a.iter().any(|&s| {
        b.iter().any(|&t| {
            let (x, y) = (&scop.statements[s], &scop.statements[t]);
            x.accesses.iter().any(|p| {
                y.accesses
                    .iter()
                    .any(|q| p.array == q.array && p.index == q.index)
            })
        })
    })
}

/// The nests below scalar dimension `d`, per sibling group (statements in
/// the same loops above `d`: equal outer scalar dimensions), groups in the
/// order of their first statements: each nest's value at `d` and its
/// statements, in the order of the values (statements whose dimension `d`
/// is not a constant belong to no nest).
pub(super) fn sibling_nests(plan: &Plan, d: usize) -> Vec<Vec<(i64, Vec<usize>)>> {
    let ns = plan.schedule.dims.len();
    let at = |s: usize, k: usize| plan.schedule.dims[s][k].as_constant();
    let prefix = |s: usize| -> Vec<Option<i64>> {
        (0..d)
            .filter(|&k| plan.dims[k].scalar)
            .map(|k| at(s, k))
            .collect()
    };
    let mut groups = Vec::new();
    for first in 0..ns {
        // Each sibling group once, from its first statement.
        if (0..first).any(|s| prefix(s) == prefix(first)) {
            continue;
        }
        let group: Vec<usize> = (0..ns).filter(|&s| prefix(s) == prefix(first)).collect();
        let mut values: Vec<i64> = group.iter().filter_map(|&s| at(s, d)).collect();
        values.sort_unstable();
        values.dedup();
        let nests = values
            .into_iter()
            .map(|v| {
                let members = group.iter().copied().filter(|&s| at(s, d) == Some(v));
                (v, members.collect())
            })
            .collect();
        groups.push(nests);
    }
    groups
}

/// The hyperplane `φ` that tile constraints `rows` cut (local renamed 0,
/// as [`tile_definition`] returns them).
pub(super) fn tile_hyperplane(rows: &[Form]) -> Option<Form> {
    let lo = rows.iter().find(|r| r.locals[0] < 0)?;
    Some(trimmed(&Form {
        locals: Vec::new(),
        ..lo.clone()
    }))
}

/// Fuses the tile loops of distributed nests where that is legal and the
/// nests touch the same cells (see the module's documentation).
pub(super) fn run(cx: &Cx, plan: &mut Plan) {
    if !cx.opts.fuse_tiles
        || !plan.register_tiles.is_empty()
        || plan.restarted_wavefront.is_some()
        || plan.inner_distributed
    {
        return;
    }
    let mut d = 0;
    while d + 1 < plan.dims.len() {
        if fuse_at(cx, plan, d) {
            // The inserted dimension sits at d + 2: look at it next.
            d += 2;
        } else {
            d += 1;
        }
    }
}

/// One fusion below scalar dimension `d`, when some run of its nests
/// qualifies; true when the plan changed.
fn fuse_at(cx: &Cx, plan: &mut Plan, d: usize) -> bool {
    let Cx { scop, deps, .. } = *cx;
    let (dim, tile) = (&plan.dims[d], &plan.dims[d + 1]);
    if !dim.scalar || tile.scalar || !tile.parallel {
        return false;
    }
    for group in sibling_nests(plan, d) {
        let values: Vec<i64> = group.iter().map(|(v, _)| *v).collect();
        let nest = |v: i64| -> Vec<usize> {
            group
                .iter()
                .find(|(w, _)| *w == v)
                .map_or_else(Vec::new, |(_, m)| m.clone())
        };
        // Nests whose loop at d + 1 is parallel, over tiles defined alike.
        let definition = |v: i64| -> Option<Vec<Form>> {
            let members = nest(v);
            if !plan.dims[d + 1].parallel_for(members.iter().copied()) {
                return None;
            }
            let def = tile_definition(plan, *members.first()?, d + 1)?;
            members
                .iter()
                .all(|&s| tile_definition(plan, s, d + 1).as_ref() == Some(&def))
                .then_some(def)
        };
        let mut i = 0;
        while i < values.len() {
            let Some(def) = definition(values[i]) else {
                i += 1;
                continue;
            };
            let mut j = i + 1;
            while j < values.len() && definition(values[j]).as_ref() == Some(&def) {
                j += 1;
            }
            // Nests values[i..j] have the same tile loop; fuse the longest
            // prefix whose consecutive nests share cells and stay legal.
            let mut end = i + 1;
            let mut best = None;
            while end < j {
                let before: Vec<usize> = values[i..end].iter().flat_map(|&v| nest(v)).collect();
                if !share_cells(scop, &before, &nest(values[end])) {
                    break;
                }
                match fused(scop, deps, plan, d, &values[i..=end], &nest) {
                    Some(p) => best = Some(p),
                    None => break,
                }
                end += 1;
            }
            if let Some(new) = best {
                let members: Vec<usize> = values[i..end].iter().flat_map(|&v| nest(v)).collect();
                let (new, size) = match shrunk(cx, &new, d, &members) {
                    Some((p, t)) => (p, Some(t)),
                    None => (new, None),
                };
                let names: Vec<&str> = members
                    .iter()
                    .map(|&s| scop.statements[s].name.as_str())
                    .collect();
                *plan = new;
                plan.notes.push(format!(
                    "tile loops of {} fused (the same tiles, the same cells){}",
                    names.join(", "),
                    size.map_or(String::new(), |t| format!(
                        ", in tiles of {t} (L2 budget of one tile: {} KiB)",
                        cx.opts.fused_tile_bytes / 1024
                    ))
                ));
                return true;
            }
            i += 1;
        }
    }
    false
}

/// The plan with the nests of `values` sharing their tile loop at `d + 1`,
/// or `None` when a dependence between them would cross tiles (or the
/// analysis meets a limit).
fn fused(
    scop: &Scop,
    deps: &[Dependence],
    plan: &Plan,
    d: usize,
    values: &[i64],
    nest: &dyn Fn(i64) -> Vec<usize>,
) -> Option<Plan> {
    let members: Vec<usize> = values.iter().flat_map(|&v| nest(v)).collect();
    let mut new = plan.clone();
    for (s, row) in new.schedule.dims.iter_mut().enumerate() {
        let inside = if members.contains(&s) {
            let old = row[d].clone();
            row[d] = Form::constant(values[0]);
            old
        } else {
            Form::constant(0)
        };
        row.insert(d + 2, inside);
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
        *l += 1;
    }
    new.dims.insert(
        d + 2,
        PlanDim {
            scalar: true,
            parallel: false,
            only: None,
            unroll: false,
            jam_block: false,
            tiling: Tiling::None,
            what: "sequence".into(),
        },
    );
    (!tile_loop_carries(scop, deps, &new, d, &members)).then_some(new)
}

/// Whether the tile loop at `d + 1` of `plan` may carry a dependence
/// between statements of `members` (also when the analysis meets a limit).
pub(super) fn tile_loop_carries(
    scop: &Scop,
    deps: &[Dependence],
    plan: &Plan,
    d: usize,
    members: &[usize],
) -> bool {
    let between: Vec<Dependence> = deps
        .iter()
        .filter(|x| members.contains(&x.source.0) && members.contains(&x.sink.0))
        .cloned()
        .collect();
    !matches!(carries(scop, &between, &plan.schedule, d + 1), Ok(false))
}

/// The tile size `T` of local `l` in `rows` (`φ - T·l >= 0` and
/// `T·l + T - 1 - φ >= 0`), or `None` for another shape.
pub(super) fn tile_size(rows: &[Form]) -> Option<i64> {
    let [a, b] = rows else { return None };
    let (lo, hi) = if a.locals[0] < 0 { (a, b) } else { (b, a) };
    let t = hi.locals[0];
    let phi_lo = Form {
        locals: Vec::new(),
        ..lo.clone()
    };
    let phi_hi = Form {
        locals: Vec::new(),
        constant: hi.constant - (t - 1),
        ..hi.clone()
    };
    let neg = phi_hi.scale(-1).ok()?;
    (t > 0 && lo.locals[0] == -t && trimmed(&neg) == trimmed(&phi_lo)).then_some(t)
}

/// The band hyperplane `φ` of statement `s` that the tile constraints
/// `rows` cut (the schedule dimension of `sched` equal to it).
pub(super) fn band_dim(sched: &PlutoSchedule, s: usize, rows: &[Form]) -> Option<usize> {
    let phi = tile_hyperplane(rows)?;
    sched.schedule.dims[s]
        .iter()
        .position(|f| trimmed(f) == phi)
}

/// The fused plan `plan` (tile loop at `d + 1` over `members`) with
/// smaller tiles there, so that one tile's cells fit
/// [`super::Options::fused_tile_bytes`] (not below a member's blocks of
/// rows), and the new size; `None` when the tiles fit already, the
/// extents are parametric, or the smaller tiles would not keep the fusion
/// legal.
fn shrunk(cx: &Cx, plan: &Plan, d: usize, members: &[usize]) -> Option<(Plan, i64)> {
    let Cx {
        scop,
        sched,
        deps,
        opts,
        ..
    } = *cx;
    if !opts.auto_sizes {
        return None;
    }
    let rows = tile_definition(plan, members[0], d + 1)?;
    let t = tile_size(&rows)?;
    let k = band_dim(sched, members[0], &rows)?;
    let band = cx
        .bands
        .iter()
        .find(|b| (b.first..b.first + b.len).contains(&k))?;
    // Cells of one tile: T values of φ times the band's other extents.
    let mut cells_per_value: i64 = 1;
    for other in (band.first..band.first + band.len).filter(|&o| o != k) {
        cells_per_value = cells_per_value.checked_mul(extent_of(scop, sched, other, members)?)?;
    }
    // Not below the blocks of an unroll-and-jam that a member runs in
    // (row blocks).
    let block = plan
        .block_dims
        .iter()
        .filter(|b| {
            members.iter().any(|&s| {
                plan.schedule.dims[s]
                    .get(b.unrolled)
                    .is_some_and(|f| f.as_constant().is_none())
            })
        })
        .map(|b| b.size)
        .max()
        .unwrap_or(1);
    let size = halved_to_fit(t, cells_per_value, opts.fused_tile_bytes, block);
    if size == t {
        return None;
    }
    let mut new = plan.clone();
    for &s in members {
        let f = trimmed(&new.schedule.dims[s][d + 1]);
        let l = f.locals.len() - 1;
        for row in new.schedule.locals[s].ineqs.iter_mut() {
            match row.locals.get(l).copied() {
                Some(c) if c == -t => row.locals[l] = -size,
                Some(c) if c == t => {
                    row.locals[l] = size;
                    row.constant += size - t;
                }
                _ => {}
            }
        }
    }
    if tile_loop_carries(scop, deps, &new, d, members) {
        return None;
    }
    // Each member's tile constraints must still read as tiles of `size`.
    members
        .iter()
        .all(|&s| tile_definition(&new, s, d + 1).and_then(|r| tile_size(&r)) == Some(size))
        .then_some((new, size))
}

/// Tile size `t` halved while one tile's cells (`cells_per_value` per
/// value of the tiled hyperplane, [`ELEMENT_BYTES`] each) exceed `budget`
/// bytes, not below a cache line's elements nor below (or off) whole
/// blocks of `block` rows: a tile smaller than its block leaves no block
/// whole, and every row to the partial blocks' code (gemv's 16-row blocks
/// in tiles of 8: each row's sum read down the columns).
fn halved_to_fit(t: i64, cells_per_value: i64, budget: i64, block: i64) -> i64 {
    let bytes = |t: i64| {
        t.saturating_mul(cells_per_value)
            .saturating_mul(i64::from(ELEMENT_BYTES))
    };
    let line = 64 / i64::from(ELEMENT_BYTES);
    let mut size = t;
    while bytes(size) > budget && size / 2 >= line && (size / 2) % block.max(1) == 0 {
        size /= 2;
    }
    size
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fused_tiles_halve_to_the_budget_but_not_below_a_block() {
        const KIB: i64 = 1024;
        // gemv 4000 columns of doubles, 256 KiB: 8 rows (250 KB) fit.
        assert_eq!(halved_to_fit(32, 4000, 256 * KIB, 1), 8);
        // With blocks of 16 rows, 16 (500 KB, over the budget) is the least.
        assert_eq!(halved_to_fit(32, 4000, 256 * KIB, 16), 16);
        // Blocks of 8: 8 rows again.
        assert_eq!(halved_to_fit(32, 4000, 256 * KIB, 8), 8);
        // Not below a cache line's 8 doubles, whatever the budget.
        assert_eq!(halved_to_fit(32, 100_000, 256 * KIB, 1), 8);
        // Tiles that fit stay.
        assert_eq!(halved_to_fit(32, 100, 256 * KIB, 16), 32);
    }

    /// `φ - T·l >= 0` and `T·l + T - 1 - φ >= 0` for `φ = i1 + p0`, as
    /// `tile_definition` returns them (the local renamed 0).
    fn rows(t: i64, slack: i64) -> Vec<Form> {
        let phi = Form {
            params: vec![1],
            iters: vec![0, 1],
            ..Form::default()
        };
        let mut lo = phi.clone();
        lo.locals = vec![-t];
        let mut hi = phi.scale(-1).unwrap();
        hi.locals = vec![t];
        hi.constant = t - 1 + slack;
        vec![lo, hi]
    }

    #[test]
    fn reads_the_tile_size_of_tile_constraints() {
        assert_eq!(tile_size(&rows(32, 0)), Some(32));
        assert_eq!(tile_size(&rows(7, 0)), Some(7));
        let mut swapped = rows(8, 0);
        swapped.reverse();
        assert_eq!(tile_size(&swapped), Some(8));
    }

    #[test]
    fn refuses_constraints_that_are_not_tiles() {
        // A block one wider than its step: not a tile of size T.
        assert_eq!(tile_size(&rows(32, 1)), None);
        // Bounds on different hyperplanes.
        let mut r = rows(32, 0);
        r[1].iters = vec![-1, 0];
        assert_eq!(tile_size(&r), None);
        assert_eq!(tile_size(&rows(32, 0)[..1]), None);
    }

    #[test]
    fn trailing_zeros_do_not_matter() {
        let a = Form {
            iters: vec![1, 0, 0],
            locals: vec![0],
            ..Form::default()
        };
        assert_eq!(trimmed(&a), trimmed(&Form::iter(0)));
    }
}
