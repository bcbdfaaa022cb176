//! Point-loop sinking, on the materialized plan: the innermost point loop
//! of a tiled band goes below the statement sequence and the loops that
//! follow it, when it is the stride-1 loop and they are not; the loop it
//! then sits in runs a vector's lanes of its iterations at a time,
//! unrolled inside it.
//!
//! A band tiled around statements that have loops of their own after a
//! scalar dimension (embedded Gram-Schmidt, `rewrite::embed`: the band
//! `(k, j)`, then `R[k][j] += Q[i][k] * A[i][j]` and
//! `A[i][j] -= Q[i][k] * R[k][j]` each in a loop over `i`) runs those
//! loops innermost, down the columns of `A`. With the band's last point
//! loop `j` moved last, each statement sweeps the rows of the tile with
//! `j` innermost, along the rows of `A`; with the rows unrolled by the
//! lanes `b` inside `j` (as column streams do, `row_blocks.rs`), a cell
//! kept along the rows (`R[k][j]`) is loaded and stored once per block of
//! rows, the copies pass it on in registers (`codegen::emit::forward`):
//!
//! ```text
//! [.., k, j, σ, i]   →   [.., k, σ, ⌊i / b⌋, j, i]   (i unrolled)
//! ```
//!
//! # Legality
//!
//! The plan is legal and the new one keeps its dimensions before `j`; it
//! is legal when no dependence runs backwards at any dimension from `j`'s
//! position on ([`crate::analysis::carried::reverses`], the relational
//! analysis: zero distance before the dimension, negative at it). The
//! independent checker verifies the final plan as a whole.

use super::band_plan::Cx;
use super::{Plan, Tiling};
use crate::analysis::carried::reverses;
use crate::scop::form::Form;

/// The iterator a schedule row steps (coefficient ±1, no locals, no
/// parameters needed), or `None`.
pub(super) fn stepped_iter(f: &Form) -> Option<usize> {
    match f.single_iter() {
        Some((it, c)) if c.abs() == 1 && f.locals.iter().all(|&l| l == 0) => Some(it),
        _ => None,
    }
}

/// Score of stepping iterator `it` of statement `s` as the innermost loop:
/// 2 per access whose last subscript moves by ±1 and the others not, 1
/// per access that does not move; `None` when no access moves by ±1.
fn stride_score(cx: &Cx, s: usize, it: usize) -> Option<i64> {
    let st = &cx.scop.statements[s];
    let mut score = 0;
    let mut unit = false;
    for acc in &st.accesses {
        let Some((last, rest)) = acc.index.split_last() else {
            continue;
        };
        if rest.iter().any(|f| f.iter_coef(it) != 0) {
            continue;
        }
        match last.iter_coef(it).abs() {
            1 => {
                score += 2;
                unit = true;
            }
            0 => score += 1,
            _ => {}
        }
    }
    unit.then_some(score)
}

/// Moves the plan's point loop at `p` below the loops after it when the
/// plan ends with `p` (a point loop of a tiled band), a scalar dimension,
/// loops, then scalar dimensions only (those stay last), and for every
/// statement with loops after the scalar dimension whose accesses move
/// along `p`, `p` steps a stride-1 iterator and the last of those loops
/// does not (or one with fewer such accesses).
pub(super) fn run(cx: &Cx, plan: &mut Plan) {
    let n = plan.dims.len();
    if n < 3
        || !plan.register_tiles.is_empty()
        || !plan.lane_dims.is_empty()
        || !plan.block_dims.is_empty()
    {
        return;
    }
    // The last point loop, the scalar dimension right after it, loops,
    // and trailing scalar dimensions from `end` on.
    let Some(p) = (0..n).rev().find(|&k| plan.dims[k].tiling == Tiling::Point) else {
        return;
    };
    let sigma = p + 1;
    let end = (sigma + 1..n)
        .rev()
        .take_while(|&k| plan.dims[k].scalar)
        .last()
        .unwrap_or(n);
    if sigma + 1 >= end || !plan.dims[sigma].scalar {
        return;
    }
    let pd = &plan.dims[p];
    if pd.parallel || pd.unroll || pd.jam_block {
        return;
    }
    if plan.dims[sigma + 1..end]
        .iter()
        .any(|d| d.scalar || d.parallel || d.unroll || d.jam_block)
    {
        return;
    }
    let rows = &plan.schedule.dims;
    let mut moved = vec![false; rows.len()];
    for (s, row) in rows.iter().enumerate() {
        let inner: Vec<&Form> = row[sigma + 1..end].iter().collect();
        if inner.iter().all(|f| f.as_constant().is_some()) {
            // No loop of its own after the sequence: its order does not
            // change (it runs at one point of the inner loops).
            continue;
        }
        let (Some(pi), Some(li)) = (stepped_iter(&row[p]), stepped_iter(&row[end - 1])) else {
            return;
        };
        // Every loop row of the statement in the point part steps one
        // iterator: moving along `p` moves only iterator `pi`.
        if !row[p..]
            .iter()
            .all(|f| f.as_constant().is_some() || stepped_iter(f).is_some())
        {
            return;
        }
        // No access moves along `p` (a statement embedded at one point of
        // it, `rewrite::embed`): the move does not change its accesses' order.
        let uses = |it: usize| {
            cx.scop.statements[s]
                .accesses
                .iter()
                .any(|a| a.index.iter().any(|f| f.iter_coef(it) != 0))
        };
        if !uses(pi) {
            continue;
        }
        match (stride_score(cx, s, pi), stride_score(cx, s, li)) {
            (Some(_), None) => moved[s] = true,
            (Some(a), Some(b)) if a > b => moved[s] = true,
            _ => return,
        }
    }
    if !moved.contains(&true) {
        return;
    }
    let mut trial = plan.clone();
    for row in trial.schedule.dims.iter_mut() {
        let f = row.remove(p);
        row.insert(end - 1, f);
    }
    let d = trial.dims.remove(p);
    let what = d.what.trim_start_matches("point ").to_string();
    trial.notes.push(format!(
        "{what} moved below the statements' own loops (stride-1 accesses)"
    ));
    trial.dims.insert(end - 1, d);
    // The rows of the loop it now sits in, a vector's lanes of them at a
    // time, unrolled inside it (as column streams do: `row_blocks.rs`):
    // a cell the statement keeps along the rows (Gram-Schmidt's `R[k][j]`
    // along `i`) is loaded and stored once per block, not once per row.
    let b = cx.opts.row_lanes;
    if b >= 2 && jam_rows(&mut trial, b, end - 1).is_err() {
        return;
    }
    // The plan is legal and the trial keeps its dimensions before `p`: it
    // is legal when no dependence runs backwards at a dimension from `p`
    // on.
    let legal = matches!(
        reverses(cx.scop, cx.deps, &trial.schedule, p..trial.dims.len()),
        Ok(false)
    );
    if legal {
        // The statements' innermost loops are others now: LLVM's
        // vectorizer decides again.
        trial.scalar_stmts.clear();
        *plan = trial;
    }
}

/// Unrolls the plan's dimension before `at` by blocks of `b` inside the
/// one at `at`: `[.., i, j, ..]` becomes `[.., ⌊i / b⌋, j, i, ..]`, `i`
/// unrolled over the blocks' full parts ([`Plan::block_dims`]); statements
/// without a loop there take block 0.
fn jam_rows(plan: &mut Plan, b: i64, at: usize) -> Result<(), crate::math::MathError> {
    let rows = plan
        .schedule
        .dims
        .iter_mut()
        .zip(plan.schedule.locals.iter_mut());
    for (row, locals) in rows {
        let i = row.remove(at - 1);
        let q = if i.as_constant().is_some() {
            Form::constant(0)
        } else {
            Form::local(super::tile_local(locals, &i, b)?)
        };
        row.insert(at - 1, q);
        row.insert(at + 1, i);
    }
    let mut inner = plan.dims.remove(at - 1);
    let what = inner.what.clone();
    plan.dims.insert(
        at - 1,
        super::PlanDim {
            scalar: false,
            parallel: false,
            only: None,
            unroll: false,
            jam_block: true,
            tiling: Tiling::None,
            what: format!("unroll-jam blocks of {what}"),
        },
    );
    inner.unroll = true;
    inner.what = format!("unrolled {what}");
    plan.dims.insert(at + 1, inner);
    plan.block_dims.push(super::BlockDim {
        unrolled: at + 1,
        blocks: at - 1,
        size: b,
        below_loops: false,
    });
    plan.lane_size = b;
    plan.notes
        .push(format!("{what} unrolled and jammed by {b} inside it"));
    Ok(())
}
