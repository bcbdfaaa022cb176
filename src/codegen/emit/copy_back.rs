//! Privatization's copy-back: an array expanded along leading iterators
//! (a temporary given a cell per iteration, see [`crate::rewrite::privatize`])
//! is copied back from its last iteration's slice after the SCoP, and its
//! accesses' maps are rewritten for the expanded buffer.

use super::{affine_for, EmitError};
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
    let mut point = Point::Before(at);
    let mut ivs = Vec::new();
    for &n in &x.shape {
        let lmap = b.attr("affine_map<() -> (0)>")?;
        let umap = b.attr(&format!("affine_map<() -> ({n})>"))?;
        let (_, block) = affine_for(b, point, lmap, umap, &[], &[])?;
        ivs.push(block.arg(0).ok_or("loop without induction variable")?);
        b.create(Point::End(block), "affine.yield", &[], 0, &[], &[]);
        // Insert the next loop (or the copy) before this block's yield.
        point = Point::Before(block.ops().last().copied().ok_or("empty loop body")?);
    }
    let dims: Vec<String> = (0..x.shape.len()).map(|k| format!("d{k}")).collect();
    let lead: Vec<String> = last
        .iter()
        .zip(&x.bounds)
        .map(|(&v, &(lo, _))| v.checked_sub(lo).map(|d| d.to_string()))
        .collect::<Option<_>>()
        .ok_or("expanded index out of range")?;
    let header = format!("({})", dims.join(", "));
    let load_map = b.attr(&format!(
        "affine_map<{header} -> ({}, {})>",
        lead.join(", "),
        dims.join(", ")
    ))?;
    let mut operands = vec![buf];
    operands.extend(ivs.iter().copied());
    let load = b
        .create_typed(
            point,
            "affine.load",
            &operands,
            &[&x.elem],
            &[("map", load_map)],
        )
        .ok_or_else(|| format!("cannot build the type {}", x.elem))?;
    let v = load.result(0).ok_or("affine.load without result")?;
    let store_map = b.attr(&format!("affine_map<{header} -> ({})>", dims.join(", ")))?;
    let mut operands = vec![v, array];
    operands.extend(ivs.iter().copied());
    b.create(
        point,
        "affine.store",
        &operands,
        0,
        &[("map", store_map)],
        &[],
    );
    Ok(())
}
