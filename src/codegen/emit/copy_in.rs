//! An operand transposed ahead of a SCoP ([`crate::rewrite::layout`]),
//! printed: a buffer with the array's dimensions in the new order, filled
//! by a loop nest before the SCoP (`X'[i_order[0], …] = X[i_0, …]`), and
//! freed after it.

use super::{affine_for, EmitError};
use crate::ffi::build::{Builder, Point};
use crate::ffi::ir::{Op, Val};
use crate::rewrite::layout::Transpose;

/// The buffer of `t` (array `array`, elements `elem`) allocated and filled
/// before `first`, and freed before `end`; the operations made go to
/// `made` (the allocation first), to be erased by the caller on failure.
pub fn transposed_copy(
    t: &Transpose,
    array: Val,
    elem: &str,
    (first, end): (Op, Op),
    made: &mut Vec<Op>,
) -> Result<Val, EmitError> {
    let b = Builder::new(first);
    let shape = t.buffer_shape();
    let dims: Vec<String> = shape.iter().map(i64::to_string).collect();
    let ty = format!("memref<{}x{elem}>", dims.join("x"));
    let at = Point::Before(first);
    let attrs = [
        ("operandSegmentSizes", b.attr("array<i32: 0, 0>")?),
        ("alignment", b.attr("64 : i64")?),
    ];
    let alloc = b
        .create_typed(at, "memref.alloc", &[], &[&ty], &attrs)
        .ok_or_else(|| format!("cannot build the type {ty}"))?;
    made.push(alloc);
    let buf = alloc.result(0).ok_or("memref.alloc without result")?;
    // The loops over the buffer's dimensions, in its order (its stores
    // contiguous); the array's dimension `order[k]` is the buffer's `k`.
    let rank = shape.len();
    let mut old = vec![String::new(); rank];
    for (k, &j) in t.order.iter().enumerate() {
        *old.get_mut(j).ok_or("a transposition out of range")? = format!("d{k}");
    }
    let own: Vec<String> = (0..rank).map(|k| format!("d{k}")).collect();
    let first_loop = copy_nest(&b, at, &shape, (array, &old), (buf, &own), elem)?;
    made.push(first_loop);
    let (free, _) = b.create(Point::Before(end), "memref.dealloc", &[buf], 0, &[], &[]);
    made.push(free);
    Ok(buf)
}

/// A loop nest over the box `shape` (from 0), before `at`, that copies
/// `from[load…]` to `to[store…]`, the subscripts given as results over
/// the loops' counters `d0, d1, …` (a copy of no dimensions is the load
/// and the store alone); returns its first operation (nothing is left
/// behind on failure).
pub(super) fn copy_nest(
    b: &Builder,
    at: Point,
    shape: &[i64],
    from: Side,
    to: Side,
    elem: &str,
) -> Result<Op, EmitError> {
    let mut made = Vec::new();
    let r = build_copy(b, at, shape, (from, to), elem, &mut made);
    match (r, made.first().copied()) {
        (Ok(()), Some(first)) => Ok(first),
        (r, _) => {
            for op in made.into_iter().rev() {
                crate::ffi::build::erase(op);
            }
            Err(r.err().unwrap_or_else(|| "an empty copy".into()))
        }
    }
}

/// A memref and the subscripts of a copy's access to it (results over the
/// copy's loop counters `d0, d1, …`).
type Side<'a> = (Val, &'a [String]);

/// [`copy_nest`]'s body; `made` gets the operations made at `at` (the
/// outermost loop, or the load and the store of a copy of no dimensions).
fn build_copy(
    b: &Builder,
    at: Point,
    shape: &[i64],
    ((from, load), (to, store)): (Side, Side),
    elem: &str,
    made: &mut Vec<Op>,
) -> Result<(), EmitError> {
    let mut point = at;
    let mut ivs = Vec::new();
    for &n in shape {
        let lmap = b.attr("affine_map<() -> (0)>")?;
        let umap = b.attr(&format!("affine_map<() -> ({n})>"))?;
        let (op, block) = affine_for(b, point, lmap, umap, &[], &[])?;
        if made.is_empty() {
            made.push(op);
        }
        ivs.push(block.arg(0).ok_or("loop without induction variable")?);
        b.create(Point::End(block), "affine.yield", &[], 0, &[], &[]);
        // Insert the next loop (or the copy) before this block's yield.
        point = Point::Before(block.ops().last().copied().ok_or("empty loop body")?);
    }
    let dims: Vec<String> = (0..shape.len()).map(|k| format!("d{k}")).collect();
    let header = format!("({})", dims.join(", "));
    let load_map = b.attr(&format!("affine_map<{header} -> ({})>", load.join(", ")))?;
    let mut operands = vec![from];
    operands.extend(ivs.iter().copied());
    let ld = b
        .create_typed(
            point,
            "affine.load",
            &operands,
            &[elem],
            &[("map", load_map)],
        )
        .ok_or_else(|| format!("cannot build the type {elem}"))?;
    if shape.is_empty() {
        made.push(ld);
    }
    let v = ld.result(0).ok_or("affine.load without result")?;
    let store_map = b.attr(&format!("affine_map<{header} -> ({})>", store.join(", ")))?;
    let mut operands = vec![v, to];
    operands.extend(ivs.iter().copied());
    let (st, _) = b.create(
        point,
        "affine.store",
        &operands,
        0,
        &[("map", store_map)],
        &[],
    );
    if shape.is_empty() {
        made.push(st);
    }
    Ok(())
}
