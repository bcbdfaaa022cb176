//! The size test of a SCoP whose work only the run knows (decided by the
//! profitability rules: `passes/opt/profitability.rs`,
//! `input_when_small`): the new code and the input side by side in an
//! `scf.if` whose condition counts the statement instances from the
//! parameters ([`SizeTest`]). This prints it and decides nothing.

use super::{EmitError, Emitted};
use std::collections::HashMap;

use crate::analysis::work::{InstanceBox, ParamBound};
use crate::codegen::ast::SizeTest;
use crate::codegen::map_text::expr_text;
use crate::ffi::build::{self, AttrHandle, Builder, Point};
use crate::ffi::ir::{Op, Val};

/// What [`Emitted::retire_replaced`] needs to keep the input beside the new
/// code.
pub struct Versioned {
    /// The test.
    pub test: SizeTest,
    /// The parameters' values in front of the new code.
    pub params: Vec<Val>,
    /// The replaced operations in their block order.
    pub original: Vec<Op>,
    /// The operation in front of the new code (none: the new code starts
    /// its block).
    pub before_new: Option<Op>,
    /// The operation after the new code: every operation between the two
    /// is new.
    pub end: Op,
}

impl Emitted {
    /// The replaced operations ([`Emitted::replaced`]) leave for good:
    /// erased, or, under a size test ([`Emitted::versioned`]), moved into
    /// the `else` branch of an `scf.if` whose `then` branch holds the new
    /// code (the `scf.if` joins [`Emitted::created`]); when that fails,
    /// erased too, and [`Emitted::size_test_error`] says why.
    pub fn retire_replaced(&mut self) {
        if let Some(v) = self.versioned.take() {
            match side_by_side(&v) {
                Ok(op) => {
                    self.replaced.clear();
                    self.created.push(op);
                    return;
                }
                // Nothing moved: the new code alone stays, as without
                // the test (the caller warns).
                Err(e) => self.size_test_error = Some(e.to_string()),
            }
        }
        for op in self.replaced.drain(..) {
            build::erase(op);
        }
    }
}

/// Builds the test's condition in front of the new code, then the `scf.if`
/// with the new code (every operation between [`Versioned::before_new`]
/// and [`Versioned::end`]) in its `then` branch and the input's operations
/// in its `else` branch. Fails with nothing moved (the condition's
/// operations, pure, may stay).
fn side_by_side(v: &Versioned) -> Result<Op, EmitError> {
    let block = v.end.block().ok_or("new code outside a block")?;
    let ops = block.ops();
    let from = match v.before_new {
        None => 0,
        Some(b) => {
            1 + ops
                .iter()
                .position(|o| o.key() == b.key())
                .ok_or("new code not in its block")?
        }
    };
    let to = ops
        .iter()
        .position(|o| o.key() == v.end.key())
        .ok_or("new code not in its block")?;
    let new = ops
        .get(from..to)
        .filter(|n| !n.is_empty())
        .ok_or("no new code to test")?;
    let first = new[0];
    let b = Builder::new(first);
    let at = Point::Before(first);
    let cond = condition(&b, &v.test, &v.params, at)?;
    let (op, blocks) = b.create(at, "scf.if", &[cond], 0, &[], &[Some(0), Some(0)]);
    let (then, other) = (blocks[0], blocks[1]);
    let then_end = b.create(Point::End(then), "scf.yield", &[], 0, &[], &[]).0;
    let else_end = b.create(Point::End(other), "scf.yield", &[], 0, &[], &[]).0;
    for &o in new {
        build::move_before(o, then_end);
    }
    for &o in &v.original {
        build::insert_before(o, else_end);
    }
    // A value of the new code used after it would not dominate its use
    // any more: everything goes back as it was.
    if build::has_outside_uses(op) {
        for &o in new {
            build::move_before(o, op);
        }
        for &o in &v.original {
            build::detach(o);
        }
        build::erase(op);
        return Err("a value of the new code is used after it".into());
    }
    Ok(op)
}

/// An `i1` at `at`: the boxes' instances in all reach the test's least
/// count. Widths and products are clamped to that count (once it is
/// reached the answer is known), so no product overflows; equal boxes are
/// counted once and multiplied, constant widths folded, and a width that
/// several boxes share computed once.
fn condition(b: &Builder, test: &SizeTest, params: &[Val], at: Point) -> Result<Val, EmitError> {
    let least = test.least;
    let mut p = Printer {
        b,
        at,
        params,
        constants: HashMap::new(),
        widths: HashMap::new(),
    };
    // The least count first: every clamp and the comparison read it.
    let cap = p.constant(least)?;
    let mut groups: Vec<(&InstanceBox, i64)> = Vec::new();
    for bx in &test.boxes {
        match groups.iter_mut().find(|(g, _)| *g == bx) {
            Some((_, m)) => *m += 1,
            None => groups.push((bx, 1)),
        }
    }
    let mut total: Option<Val> = None;
    let mut fixed = 0i64;
    for (bx, copies) in groups {
        // The box's constant factor and its widths known only at run time.
        let mut factor = copies.min(least);
        let mut product: Option<Val> = None;
        for (lower, upper) in &bx.dims {
            match constant_width(lower, upper) {
                Some(w) => factor = factor.saturating_mul(w.clamp(0, least)).min(least),
                None => {
                    let w = p.width(lower, upper, least)?;
                    product = Some(match product {
                        None => w,
                        Some(q) => p.clamped("arith.muli", q, w, least)?,
                    });
                }
            }
        }
        match product {
            None => fixed = fixed.saturating_add(factor).min(least),
            Some(q) => {
                let q = if factor == 1 {
                    q
                } else {
                    let f = p.constant(factor)?;
                    p.clamped("arith.muli", q, f, least)?
                };
                total = Some(match total {
                    None => q,
                    Some(t) => p.clamped("arith.addi", t, q, least)?,
                });
            }
        }
    }
    let total = match total {
        None => p.constant(fixed)?,
        Some(t) if fixed > 0 => {
            let f = p.constant(fixed)?;
            p.clamped("arith.addi", t, f, least)?
        }
        Some(t) => t,
    };
    let (cmp, _) = b
        .create_typed_regions(
            at,
            "arith.cmpi",
            &[total, cap],
            &["i1"],
            // sge
            &[("predicate", b.attr("5 : i64")?)],
            &[],
        )
        .ok_or("no i1 type")?;
    Ok(cmp.result(0).ok_or("arith.cmpi without result")?)
}

/// The width from `lower` to `upper` when no row has a parameter.
fn constant_width(lower: &[ParamBound], upper: &[ParamBound]) -> Option<i64> {
    let value = |bd: &ParamBound| -> Option<i64> {
        let (c, rest) = bd.row.split_last()?;
        rest.iter().all(|&x| x == 0).then_some(*c)
    };
    let lo = lower
        .iter()
        .map(|bd| value(bd).map(|c| -((-c).div_euclid(bd.div))))
        .collect::<Option<Vec<i64>>>()?;
    let hi = upper
        .iter()
        .map(|bd| value(bd).map(|c| c.div_euclid(bd.div)))
        .collect::<Option<Vec<i64>>>()?;
    let (lo, hi) = (lo.into_iter().max()?, hi.into_iter().min()?);
    Some(hi.saturating_sub(lo).saturating_add(1).max(0))
}

/// Prints the test's index arithmetic at one point.
struct Printer<'a> {
    b: &'a Builder,
    at: Point,
    params: &'a [Val],
    constants: HashMap<i64, Val>,
    widths: HashMap<String, Val>,
}

impl Printer<'_> {
    fn op(
        &self,
        name: &str,
        operands: &[Val],
        attrs: &[(&str, AttrHandle)],
    ) -> Result<Val, EmitError> {
        let (op, _) = self.b.create(self.at, name, operands, 1, attrs, &[]);
        Ok(op.result(0).ok_or("an index operation without result")?)
    }

    fn constant(&mut self, c: i64) -> Result<Val, EmitError> {
        if let Some(&v) = self.constants.get(&c) {
            return Ok(v);
        }
        let v = self.op(
            "arith.constant",
            &[],
            &[("value", self.b.attr(&format!("{c} : index"))?)],
        )?;
        self.constants.insert(c, v);
        Ok(v)
    }

    /// `min(name(x, y), least)`.
    fn clamped(&mut self, name: &str, x: Val, y: Val, least: i64) -> Result<Val, EmitError> {
        let v = self.op(name, &[x, y], &[])?;
        let cap = self.constant(least)?;
        self.op("arith.minsi", &[v, cap], &[])
    }

    /// `min(max(0, ⌊min(upper)⌋ - ⌈max(lower)⌉ + 1), least)` over the
    /// parameters.
    fn width(
        &mut self,
        lower: &[ParamBound],
        upper: &[ParamBound],
        least: i64,
    ) -> Result<Val, EmitError> {
        let np = self.params.len();
        let syms: Vec<usize> = (0..np).collect();
        let text = |bd: &ParamBound, lower: bool| -> String {
            let e = expr_text(&bd.row, np, 0, &[], &[], &syms);
            match (lower, bd.div) {
                (_, 1) => e,
                (true, d) => format!("({e}) ceildiv {d}"),
                (false, d) => format!("({e}) floordiv {d}"),
            }
        };
        let header = format!(
            "()[{}]",
            (0..np)
                .map(|k| format!("s{k}"))
                .collect::<Vec<_>>()
                .join(", ")
        );
        let los: Vec<String> = lower.iter().map(|bd| text(bd, true)).collect();
        let his: Vec<String> = upper.iter().map(|bd| text(bd, false)).collect();
        let key = format!("{} | {}", los.join(", "), his.join(", "));
        if let Some(&v) = self.widths.get(&key) {
            return Ok(v);
        }
        let map = |results: &str| self.b.attr(&format!("affine_map<{header} -> ({results})>"));
        let w = if los.len() == 1 && his.len() == 1 {
            self.op(
                "affine.apply",
                self.params,
                &[("map", map(&format!("{} - ({}) + 1", his[0], los[0]))?)],
            )?
        } else {
            let lo = self.op("affine.max", self.params, &[("map", map(&los.join(", "))?)])?;
            let hi = self.op("affine.min", self.params, &[("map", map(&his.join(", "))?)])?;
            let one = self.constant(1)?;
            let w = self.op("arith.subi", &[hi, lo], &[])?;
            self.op("arith.addi", &[w, one], &[])?
        };
        let zero = self.constant(0)?;
        let w = self.op("arith.maxsi", &[w, zero], &[])?;
        let cap = self.constant(least)?;
        let w = self.op("arith.minsi", &[w, cap], &[])?;
        self.widths.insert(key, w);
        Ok(w)
    }
}
