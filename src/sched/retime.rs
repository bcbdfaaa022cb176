//! Retiming for fusion: a statement that the scheduler put after another
//! inside a sequential band dimension (a scalar dimension orders them)
//! moves one step later along that dimension and into the other's slot,
//! first: what it did at step `k`, it now does at step `k + 1`, in the same
//! loops as the other's step `k + 1`.
//!
//! Gram-Schmidt's two column updates at step `k` (after embedding,
//! `rewrite::embed`), in the band `(k, j)` and then each in a loop over the
//! rows `i`:
//!
//! ```text
//! S5: R[k][j] += Q[i][k] * A[i][j]     [k, j, 5, i]
//! S6: A[i][j] -= Q[i][k] * R[k][j]     [k, j, 6, i]       needs all of S5(k, j)
//! ```
//!
//! Each step sweeps the columns' rows twice, once per statement. With `S6`
//! retimed, `[k + 1, j, 5, i, 0]` beside `S5`'s `[k, j, 5, i, 1]`, step `k`
//! sweeps them once, updating with step `k - 1`'s `R` and summing into step
//! `k`'s on the updated values: `S6(k - 1, j)` then `S5(k, j)`, row by row.
//!
//! # Legality
//!
//! Nothing here decides it: the caller asks the relational analysis
//! ([`crate::analysis::carried::reverses`]) of every dimension of the
//! result, and the plan is verified by the independent checker as always.
//! A dependence from the retimed statement to one that runs before the
//! slot at the next step (the next step's norm reads column `k + 1`) makes
//! it illegal: the caller first splits those instances off
//! ([`crate::rewrite::split::next_step_sources`]).
//!
//! The result keeps every band dimension's rows (one shifted by a
//! constant), so a band stays a band; coincidence flags from the band on
//! are cleared (no loop there is taken as parallel, which is always legal).

use super::pluto::{DimKind, PlutoSchedule};
use crate::scop::form::Form;

/// `sched` with statement `b` retimed one step later along dimension `step`
/// and moved into statement `a`'s slot of the scalar dimension `slot`,
/// before it (a new last scalar dimension orders the two: `b` 0, the
/// others 1). `None` when `slot` is not a scalar dimension after `step`.
pub fn retime(
    sched: &PlutoSchedule,
    a: usize,
    b: usize,
    step: usize,
    slot: usize,
) -> Option<PlutoSchedule> {
    if slot <= step || !matches!(sched.dims.get(slot), Some(DimKind::Scalar)) {
        return None;
    }
    let mut out = sched.clone();
    let dims = &mut out.schedule.dims;
    let shifted = dims[b][step].plus(&Form::constant(1)).ok()?;
    dims[b][step] = shifted;
    let to = dims[a][slot].clone();
    dims[b][slot] = to;
    for (s, row) in dims.iter_mut().enumerate() {
        row.push(Form::constant(i64::from(s != b)));
    }
    out.dims.push(DimKind::Scalar);
    for d in out.dims.iter_mut().skip(step) {
        if let DimKind::Loop { coincident, .. } = d {
            *coincident = false;
        }
    }
    let ns = out.schedule.dims.len();
    out.band_coincident.push(false);
    out.stmt_coincident.push(vec![false; ns]);
    out.stmt_band_coincident.push(vec![false; ns]);
    for k in step..out.dims.len() {
        out.band_coincident[k] = false;
        out.stmt_coincident[k].iter_mut().for_each(|c| *c = false);
        out.stmt_band_coincident[k]
            .iter_mut()
            .for_each(|c| *c = false);
    }
    Some(out)
}
