//! Privatization's copy-back: an array expanded along leading iterators
//! (a temporary given a cell per iteration, see [`crate::rewrite::privatize`])
//! is copied back from its last iteration's slice after the SCoP, and its
//! accesses' maps are rewritten for the expanded buffer.

use super::copy_in::copy_nest;
use super::EmitError;
use crate::ffi::build::{Builder, Point};
use crate::ffi::ir::{Op, Val};

/// Emits `X[e] = X'[last - lb][e]` for every cell `e` of `X`, before `at`.
pub(super) fn copy_back(
    b: &Builder,
    x: &crate::scop::expansion::Expansion,
    last: &[i64],
    buf: Val,
    array: Val,
    at: Op,
) -> Result<(), EmitError> {
    let dims: Vec<String> = (0..x.shape.len()).map(|k| format!("d{k}")).collect();
    let lead: Vec<String> = last
        .iter()
        .zip(&x.bounds)
        .map(|(&v, &(lo, _))| v.checked_sub(lo).map(|d| d.to_string()))
        .collect::<Option<_>>()
        .ok_or("expanded index out of range")?;
    let load: Vec<String> = lead.into_iter().chain(dims.iter().cloned()).collect();
    copy_nest(
        b,
        Point::Before(at),
        &x.shape,
        (buf, &load),
        (array, &dims),
        &x.elem,
    )?;
    Ok(())
}
