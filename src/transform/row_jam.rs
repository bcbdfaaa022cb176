//! Rows jammed below their statements' own loops, on the materialized
//! plan: a tiled band's point loop over rows `r`, then a statement
//! sequence `σ` whose statements each run a loop of their own over every
//! row (atax under `reassociate`: each row's dot product `tmp[i] +=
//! A[i][j] * x[j]` along `j`, then the row's terms into the thread's copy
//! of `y`, `y[j] += A[i][j] * tmp[i]`, along `j`), runs the rows a
//! vector's lanes `b` at a time inside those loops:
//!
//! ```text
//! [.., r, X, σ, j]   →   [.., ⌊r / b⌋, X, σ, j, r]   (r unrolled)
//! ```
//!
//! One row at a time, every row reads `x` and reads and writes `y` whole
//! (at 8400 columns, 67 KB each: more than L1, read again from L2 for
//! every row, and `y` written back); a block of `b` rows reads `x` once
//! for `b` dot products (`b` independent sums) and `y[j]` once for the
//! block's `b` terms, added in the rows' order, while the block's rows,
//! just read, are still in L2. Code generation splits the full blocks from
//! the partial one ([`super::Plan::block_dims`]) and unrolls the rows of
//! the full ones; the rows' cells fixed along `j` (`tmp[i + k]`) stay in
//! registers across it (`codegen/tree/carry.rs`).
//!
//! # Legality
//!
//! The plan is legal and the new one keeps its dimensions before `r`; it
//! is legal when no dependence runs backwards at any dimension from `r`
//! on ([`crate::analysis::carried::reverses`]). The independent checker
//! verifies the final plan as a whole.

use super::band_plan::Cx;
use super::{tile_local, BlockDim, Plan, Tiling};
use crate::analysis::carried::reverses;
use crate::scop::form::Form;
use crate::scop::model::AccessKind;

/// The iterator a schedule row steps forward (point sinking's
/// [`super::sink_point::stepped_iter`], with coefficient 1), or `None`.
fn stepped_iter(f: &Form) -> Option<usize> {
    super::sink_point::stepped_iter(f).filter(|&it| f.iter_coef(it) == 1)
}

/// How statement `s`'s accesses move along the rows' iterator `r` and
/// the innermost of its own loops' iterator `j`: `Some(true)` when it
/// reads rows (an array it does not write, `r` only outside the last
/// subscript, the last moving by 1 along `j`: `A[i][j]`) and every other
/// access is fixed along `j` (`tmp[i]`, kept in a register across it) or
/// along `r` (`x[j]`, `y[j]`: read once per block); `Some(false)` when
/// every access is so but none reads rows; `None` otherwise.
fn reads_rows(cx: &Cx, s: usize, r: usize, j: usize) -> Option<bool> {
    let st = &cx.scop.statements[s];
    let written = |array| {
        st.accesses
            .iter()
            .any(|a| a.array == array && a.kind == AccessKind::Write)
    };
    let mut rows = false;
    for a in &st.accesses {
        let (last, rest) = a.index.split_last()?;
        let moves = |it: usize| a.index.iter().any(|f| f.iter_coef(it) != 0);
        let row = a.kind == AccessKind::Read
            && !written(a.array)
            && last.iter_coef(r) == 0
            && last.iter_coef(j) == 1
            && rest.iter().any(|f| f.iter_coef(r) != 0)
            && rest.iter().all(|f| f.iter_coef(j) == 0);
        if row {
            rows = true;
        } else if moves(r) && moves(j) {
            return None;
        }
    }
    Some(rows)
}

/// Jams the rows below the statements' own loops (see the module text)
/// when the plan ends with a statement sequence, loops, then scalar
/// dimensions only, every statement with loops there reads rows along a
/// point loop before the sequence, and the result is legal.
pub(super) fn run(cx: &Cx, plan: &mut Plan) {
    let b = cx.opts.row_lanes;
    let n = plan.dims.len();
    if b < 2
        || cx.opts.unroll_jam > 1
        || n < 3
        || !plan.register_tiles.is_empty()
        || !plan.lane_dims.is_empty()
    {
        return;
    }
    // The trailing scalar dimensions from `end` on, the loops before them,
    // and the sequence `σ` before those.
    let end = (0..n)
        .rev()
        .take_while(|&k| plan.dims[k].scalar)
        .last()
        .unwrap_or(n);
    let Some(sigma) = (0..end).rev().find(|&k| plan.dims[k].scalar) else {
        return;
    };
    if sigma + 1 >= end
        || plan.dims[sigma + 1..end]
            .iter()
            .any(|d| d.parallel || d.unroll || d.jam_block)
    {
        return;
    }
    let rows = &plan.schedule.dims;
    // The statements with loops of their own there, each with the
    // iterator of its innermost one.
    let mut moved: Vec<(usize, usize)> = Vec::new();
    for (s, row) in rows.iter().enumerate() {
        let inner = &row[sigma + 1..end];
        if inner.iter().all(|f| f.as_constant().is_some()) {
            continue;
        }
        let Some(j) = inner.iter().rev().find_map(stepped_iter) else {
            return;
        };
        moved.push((s, j));
    }
    if moved.is_empty() {
        return;
    }
    // The rows: the innermost point loop before σ along which every moved
    // statement reads rows.
    let Some(r) = (0..sigma).rev().find(|&k| {
        let d = &plan.dims[k];
        d.tiling == Tiling::Point
            && !d.parallel
            && !d.unroll
            && moved.iter().all(|&(s, j)| {
                stepped_iter(&rows[s][k]).is_some_and(|it| reads_rows(cx, s, it, j) == Some(true))
            })
    }) else {
        return;
    };
    let mut trial = plan.clone();
    for (s, (row, locals)) in trial
        .schedule
        .dims
        .iter_mut()
        .zip(trial.schedule.locals.iter_mut())
        .enumerate()
    {
        if moved.iter().any(|&(m, _)| m == s) {
            let i = row[r].clone();
            let Ok(q) = tile_local(locals, &i, b) else {
                return;
            };
            row[r] = Form::local(q);
            row.insert(end, i);
        } else {
            // At one point of the rows' copies.
            row.insert(end, Form::constant(0));
        }
    }
    let mut rows_dim = trial.dims[r].clone();
    // The band's point loop (a column stream's jam may have made its
    // dimension the other statements' blocks already).
    let what = match rows_dim.what.strip_prefix("unroll-jam blocks of ") {
        Some(w) => w.to_string(),
        None => rows_dim
            .what
            .strip_prefix("point ")
            .unwrap_or(&rows_dim.what)
            .to_string(),
    };
    if !trial.dims[r].jam_block {
        trial.dims[r].jam_block = true;
        trial.dims[r].what = format!("unroll-jam blocks of {what}");
    }
    rows_dim.unroll = true;
    rows_dim.jam_block = false;
    rows_dim.what = format!("unrolled {what}");
    trial.dims.insert(end, rows_dim);
    for l in trial
        .lane_dims
        .iter_mut()
        .chain(
            trial
                .block_dims
                .iter_mut()
                .flat_map(|d| [&mut d.unrolled, &mut d.blocks]),
        )
        .filter(|l| **l >= end)
    {
        *l += 1;
    }
    trial.block_dims.push(BlockDim {
        unrolled: end,
        blocks: r,
        size: b,
        below_loops: true,
    });
    trial.notes.push(format!(
        "rows of {what} jammed by {b} inside the statements' own loops (each block of rows reads \
         the cells along them once)"
    ));
    let legal = matches!(
        reverses(cx.scop, cx.deps, &trial.schedule, r..trial.dims.len()),
        Ok(false)
    );
    if legal {
        *plan = trial;
    }
}
