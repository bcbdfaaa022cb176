//! Cyclic tiles, on the materialized plan: the outermost parallel tile loop
//! of a nest whose tiles do unequal work (a triangle's rows: tile `t` of
//! correlation's `corr[i][j]`, `j > i`, has work in proportion to
//! `M - T·t`) runs as a parallel loop over the threads around a sequential
//! loop over each thread's tiles, tile `t` on thread `t mod P`.
//!
//! OpenMP's static schedule (the lowering sets none) hands each thread a
//! contiguous range of a parallel loop's iterations: over a triangle's row
//! tiles, the first thread gets about three quarters of the work with two
//! threads. Dealt cyclically, each thread gets every `P`-th tile, from the
//! longest to the shortest, within one tile's work of the others.
//!
//! The new dimensions are the thread `⌊φ/T⌋ - P·⌊φ/(P·T)⌋` (the tile
//! loop's place, parallel) and the round `⌊φ/(P·T)⌋` (sequential, right
//! inside it). Legal whenever the tile loop is parallel: no dependence joins
//! two of its iterations, so any order of them is; the instances of one
//! tile keep their order. Both are asked of the new schedule
//! ([`reverses`], [`carries`]) before the plan is kept, and the checker
//! verifies the final plan afterwards, as every plan.
//!
//! Only with `cyclic-tiles` (default), the default sizes, two threads or
//! more, more tiles than threads, and a nest whose statements' domains tie
//! the tile loop's iterator to another (the triangle); not for a restarted
//! wavefront.

use super::analysis::extent_of;
use super::band_plan::Cx;
use super::tile_fusion::{band_dim, tile_definition, tile_hyperplane, tile_size};
use super::{tile_local, Plan, PlanDim, Tiling};
use crate::analysis::carried::{carries, reverses};
use crate::deps::Dependence;
use crate::scop::form::Form;

/// Deals the tiles of the outermost parallel tile loop cyclically in each
/// nest that qualifies (see the module's documentation); true when the
/// plan changed (a note says how).
pub(super) fn run(cx: &Cx, plan: &mut Plan) -> bool {
    let opts = cx.opts;
    if !opts.cyclic_tiles
        || !opts.auto_sizes
        || opts.threads < 2
        || plan.restarted_wavefront.is_some()
    {
        return false;
    }
    // The first loop dimension: the nests' outermost loop.
    let Some(p) = plan.dims.iter().position(|d| !d.scalar) else {
        return false;
    };
    if !plan.dims[p].parallel || plan.dims[p].tiling != Tiling::Tile {
        return false;
    }
    match dealt(cx, plan, p) {
        Some(new) => {
            *plan = new;
            true
        }
        None => false,
    }
}

/// The plan with the tiles at dimension `p` dealt cyclically in every nest
/// that qualifies, or `None` when none does or the result would not be
/// legal.
fn dealt(cx: &Cx, plan: &Plan, p: usize) -> Option<Plan> {
    let Cx {
        scop,
        sched,
        deps,
        opts,
        ..
    } = *cx;
    let threads = opts.threads;
    let mut chosen: Vec<(usize, Form, i64)> = Vec::new();
    for members in plan.nests(p)? {
        if !plan.dims[p].parallel_for(members.iter().copied()) {
            continue;
        }
        let mut defs = Vec::new();
        for &s in &members {
            let Some(rows) = tile_definition(plan, s, p) else {
                break;
            };
            let (Some(phi), Some(size)) = (tile_hyperplane(&rows), tile_size(&rows)) else {
                break;
            };
            defs.push((s, rows, phi, size));
        }
        if defs.len() != members.len() {
            continue;
        }
        // More tiles than threads, and unequal ones: some domain constraint
        // ties the tile loop's iterators to another iterator.
        let size = defs[0].3;
        let Some(k) = band_dim(sched, defs[0].0, &defs[0].1) else {
            continue;
        };
        let Some(extent) = extent_of(scop, sched, k, &members) else {
            continue;
        };
        let uneven = defs.iter().any(|(s, _, phi, _)| {
            scop.statements[*s].domain.iter().any(|piece| {
                piece.ineqs.iter().chain(&piece.eqs).any(|f| {
                    let on_phi = phi
                        .iters
                        .iter()
                        .enumerate()
                        .any(|(i, &c)| c != 0 && f.iter_coef(i) != 0);
                    let on_other = phi
                        .iters
                        .iter()
                        .enumerate()
                        .any(|(i, &c)| c == 0 && f.iter_coef(i) != 0)
                        || (phi.iters.len()..scop.statements[*s].iters.len())
                            .any(|i| f.iter_coef(i) != 0);
                    on_phi && on_other
                })
            })
        });
        if !uneven || (extent + size - 1) / size <= threads || defs.iter().any(|d| d.3 != size) {
            continue;
        }
        for (s, _, phi, size) in defs {
            chosen.push((s, phi, size));
        }
    }
    if chosen.is_empty() {
        return None;
    }
    let mut new = plan.clone();
    for s in 0..new.schedule.dims.len() {
        let round = match chosen.iter().find(|(c, _, _)| *c == s) {
            Some((_, phi, size)) => {
                let e = tile_local(&mut new.schedule.locals[s], phi, size.checked_mul(threads)?)
                    .ok()?;
                let thread = new.schedule.dims[s][p]
                    .add_scaled(&Form::local(e), -threads)
                    .ok()?;
                new.schedule.dims[s][p] = thread;
                Form::local(e)
            }
            None => Form::constant(0),
        };
        new.schedule.dims[s].insert(p + 1, round);
    }
    for l in new
        .lane_dims
        .iter_mut()
        .chain(
            new.block_dims
                .iter_mut()
                .flat_map(|b| [&mut b.unrolled, &mut b.blocks]),
        )
        .chain(new.register_tiles.iter_mut().map(|t| &mut t.first))
        .filter(|l| **l > p)
    {
        *l += 1;
    }
    new.dims.insert(
        p + 1,
        PlanDim {
            tiling: Tiling::Tile,
            ..PlanDim::sequential("round of tiles dealt cyclically".into())
        },
    );
    let stmts: Vec<usize> = chosen.iter().map(|(s, _, _)| *s).collect();
    let touching: Vec<Dependence> = deps
        .iter()
        .filter(|x| stmts.contains(&x.source.0) || stmts.contains(&x.sink.0))
        .cloned()
        .collect();
    let n = new.dims.len();
    if !matches!(reverses(scop, &touching, &new.schedule, 0..n), Ok(false))
        || !matches!(carries(scop, &touching, &new.schedule, p), Ok(false))
    {
        return None;
    }
    let list: Vec<&str> = stmts
        .iter()
        .map(|&s| scop.statements[s].name.as_str())
        .collect();
    new.notes.push(format!(
        "tiles of {} dealt to {threads} threads cyclically (a triangle's rows)",
        list.join(", ")
    ));
    Some(new)
}
