//! Row blocks in vector lanes ([`crate::transform::Plan::lane_dims`]): an
//! innermost sequential loop whose body is `V` unrolled copies of the same
//! statements, one per row, each reducing into cells of its own (gesummv's
//! `tmp[i + k] += A[i + k][j] * x[j]`, `k < V`, along `j`), runs the copies
//! as the lanes of vectors.
//!
//! * Each group of cells that the copies access through the same access
//!   (`tmp[i + k]`, one per lane) is one vector carried across the loop:
//!   lane `k` holds copy `k`'s cell. Lane `k` computes exactly what copy
//!   `k` computed, in the same order, so the results are bit-identical.
//! * A read at the same subscripts in every copy (`x[j]`) is loaded once
//!   and broadcast.
//! * A read whose copies differ only outside the last subscript, which
//!   moves with the loop at unit stride (`A[i + k][j]`), is loaded as `V`
//!   vectors of `V` consecutive elements (`A[i + k][j .. j + V]`), one per
//!   copy, and transposed in registers (`log2 V` rounds of `V` shuffles):
//!   vector `m` then holds element `j + m` of every row, the operand of the
//!   loop's iteration `j + m` in each lane.
//!
//! * Rows the lanes stage marks ([`crate::codegen::ast::LaneRows::prefetch`]:
//!   an array past L2) are prefetched `d` iterations ahead, one
//!   `affine.prefetch` after each row's load in the transposed blocks: a
//!   hint, nothing computed changes.
//!
//! The loop runs in steps of `V` (the transposed blocks), then the
//! remaining iterations one at a time (their lanes loaded element by
//! element). Anything else (another operation, a write outside the cells,
//! an access of another shape) leaves the copies to the scalar code.
//!
//! Legality does not rest on the schedule (the copies' rows need not be
//! independent: a triangular solve's rows read what earlier rows wrote).
//! Every access that writes has a cell in every copy, each copy's cell its
//! own lane's (a cell in two groups, or twice in one, leaves the copies to
//! the scalar code); a cell's accesses are all its copy's. Every other
//! access reads, at subscripts that move with the loop, an array whose
//! cells scalar replacement has proven it never reaches over the loop's
//! range ([`super::scalar_replace`]'s `moves_off`; trisolv's `x[j]`, `j`
//! below the block's first row), or an array the loop does not write. So
//! nothing a lane reads is written during the loop except its own
//! accumulators, which it updates in its copy's order: any interleaving of
//! the lanes computes what the copies in order compute.
//!
//! A body of `c·V` copies (`c` up to [`MAX_LANE_VECTORS`]) runs as `c`
//! chunks of `V`, each on vectors of its own: copies `0..V` in the first
//! vectors, `V..2V` in the second, each chunk's rows transposed apart.
//! Each lane still computes exactly what its copy computed; the chunks'
//! chains of adds are independent, which the core overlaps.

use super::{loop_args, stepped_for, top_level, EmitError, Emitter, LoopView, Target};
use crate::codegen::ast::{Lane, LaneMark, LaneShape};
use crate::ffi::build::{self, Point};
use crate::ffi::ir::{Op, Val};

use super::scalar_replace::Cell;

impl<T: Target> Emitter<'_, T> {
    /// The loop over `dim` as [`carried_loop`](Self::sequential_loop)
    /// would build it, with the copies of its body in vector lanes (see
    /// the module text); `Ok(false)` when the body is not such copies, and
    /// nothing was built.
    pub(super) fn lanes_loop(
        &mut self,
        l: LoopView,
        mark: &LaneMark,
        cells: &[Cell],
        at: Point,
        created: &mut Vec<Op>,
    ) -> Result<bool, EmitError> {
        let LoopView {
            dim, lower, upper, ..
        } = l;
        let Some(shapes) = mark.shapes.as_deref() else {
            return Ok(false);
        };
        let ([_], [_]) = (lower, upper) else {
            return Err("internal error: lanes over a loop with several bounds".into());
        };
        let v = mark.size;
        let vt = format!("vector<{v}xf64>");
        let (dims, operands) = self.operands();
        let header = self.map_header(&dims);
        let Some((point, guard_block)) = self.runs_once_guard(lower, upper, at, created)? else {
            return Ok(true); // a constant empty range
        };
        let top = matches!(point, Point::Before(_));
        // The accumulators: each lane's cell, loaded, in one vector.
        let maps = self.cell_maps(cells, &dims)?;
        let loaded = self.load_cells(cells, &maps, &operands, point, created)?;
        // One vector per accumulator group of each chunk of V copies, the
        // chunks' vectors one after the other.
        let mut inits = Vec::new();
        for group in shapes.iter().flat_map(|sh| &sh.accs) {
            let lanes: Vec<Val> = group.iter().map(|&c| loaded[c]).collect();
            inits.push(self.typed(point, "vector.from_elements", &lanes, &vt, &[], created)?);
        }
        // The loop in steps of V: from L to L + ((U - L + 1) floordiv V)·V.
        let (lo, hi) = (&lower[0], &upper[0]);
        let (lt, ut) = (self.text(&lo.row, &dims), self.text(&hi.row, &dims));
        let lmap = self.attr(&format!("affine_map<{header} -> ({lt})>"))?;
        let split = format!("({lt}) + ((({ut}) - ({lt}) + 1) floordiv {v}) * {v}");
        let smap = self.attr(&format!("affine_map<{header} -> ({split})>"))?;
        let main = self.lane_loop(shapes, (dim, (lmap, smap), v), &inits, point, created)?;
        // The remaining iterations, one at a time.
        let umap = self.attr(&format!("affine_map<{header} -> (({ut}) + 1)>"))?;
        let after: Vec<Val> = (0..inits.len())
            .map(|i| main.result(i))
            .collect::<Option<Vec<Val>>>()
            .ok_or("affine.for without result")?;
        let rest = self.lane_loop(shapes, (dim, (smap, umap), 1), &after, point, created)?;
        // Each lane's last value to its cell.
        for (g, group) in shapes.iter().flat_map(|sh| &sh.accs).enumerate() {
            let acc = rest.result(g).ok_or("affine.for without result")?;
            for (k, &c) in group.iter().enumerate() {
                if !cells[c].written {
                    continue;
                }
                let pos = self.attr(&format!("array<i64: {k}>"))?;
                let x = self
                    .b
                    .create_typed(
                        point,
                        "vector.extract",
                        &[acc],
                        &["f64"],
                        &[("static_position", pos)],
                    )
                    .ok_or("cannot build vector.extract")?;
                if top {
                    created.push(x);
                }
                let val = x.result(0).ok_or("vector.extract without result")?;
                let mut ops = vec![val, cells[c].memref];
                ops.extend(operands.iter().copied());
                let (st, _) =
                    self.b
                        .create(point, "affine.store", &ops, 0, &[("map", maps[c])], &[]);
                if top {
                    created.push(st);
                }
            }
        }
        if let Some(b) = guard_block {
            self.b
                .create(Point::End(b), "affine.yield", &[], 0, &[], &[]);
        }
        Ok(true)
    }

    /// The loop `(dim, bounds, step)`: over `dim` between the bound maps
    /// `bounds` in steps of `step`, at `at`, carrying the accumulators from
    /// `inits`: with a step of one vector's lanes, each iteration runs a
    /// transposed block ([`Self::lane_body`]); with a step of 1, one
    /// iteration.
    fn lane_loop(
        &mut self,
        shapes: &[LaneShape],
        (dim, bounds, step): (usize, (build::AttrHandle, build::AttrHandle), i64),
        inits: &[Val],
        at: Point,
        created: &mut Vec<Op>,
    ) -> Result<Op, EmitError> {
        let (op, block) = stepped_for(
            &self.b,
            at,
            bounds.0,
            bounds.1,
            &self.operands().1,
            inits,
            step,
        )?;
        top_level(at, op, created);
        let (iv, accs) = loop_args(block, inits.len())?;
        self.ivs[dim] = Some(iv);
        // Each chunk of copies on its own vectors (independent chains,
        // which the core overlaps).
        let mut out = Vec::with_capacity(accs.len());
        let mut rest = accs.as_slice();
        let mut r = Ok(());
        for shape in shapes {
            let (mine, others) = rest.split_at(shape.accs.len());
            rest = others;
            match self.lane_body(
                shape,
                dim,
                mine.to_vec(),
                Point::End(block),
                step > 1,
                created,
            ) {
                Ok(a) => out.extend(a),
                Err(e) => {
                    r = Err(e);
                    break;
                }
            }
        }
        self.ivs[dim] = None;
        r?;
        let accs = out;
        self.b
            .create(Point::End(block), "affine.yield", &accs, 0, &[], &[]);
        Ok(op)
    }

    /// One iteration of the loop in lanes, at `at`, from the accumulators
    /// `accs`: with `blocked`, iterations `j .. j + V` from transposed
    /// blocks; otherwise iteration `j`. The accumulators after it.
    fn lane_body(
        &mut self,
        shape: &LaneShape,
        dim: usize,
        mut accs: Vec<Val>,
        at: Point,
        blocked: bool,
        created: &mut Vec<Op>,
    ) -> Result<Vec<Val>, EmitError> {
        let v = shape.lanes;
        let vt = format!("vector<{v}xf64>");
        let (dims, operands) = self.operands();
        let np = self.np();
        let jc = np + dim;
        // Per transposed group, per iteration m of the block, its column.
        let mut columns: Vec<Vec<Val>> = Vec::new();
        for rows in &shape.rows {
            let memref = &self.memref_of(rows.first)?;
            let mut lanes = Vec::new();
            for s in &rows.subs {
                let texts: Vec<String> = s.iter().map(|r| self.text(r, &dims)).collect();
                let map = self.attr(&format!(
                    "affine_map<{} -> ({})>",
                    self.map_header(&dims),
                    texts.join(", ")
                ))?;
                let mut ops = vec![*memref];
                ops.extend(operands.iter().copied());
                let (ty, name) = if blocked {
                    (vt.as_str(), "affine.vector_load")
                } else {
                    ("f64", "affine.load")
                };
                let ld = self
                    .b
                    .create_typed(at, name, &ops, &[ty], &[("map", map)])
                    .ok_or("cannot build a load")?;
                lanes.push(ld.result(0).ok_or("load without result")?);
                // The row `d` iterations ahead, on its way to the cache.
                if let (true, Some(d)) = (blocked, rows.prefetch) {
                    let ahead = self.prefetch_map(s, d, &dims)?;
                    let flags = [
                        ("map", ahead),
                        ("isWrite", self.attr("false")?),
                        ("localityHint", self.attr("3 : i32")?),
                        ("isDataCache", self.attr("true")?),
                    ];
                    self.b.create(at, "affine.prefetch", &ops, 0, &flags, &[]);
                }
            }
            columns.push(if blocked {
                self.transpose(lanes, at)?
            } else {
                vec![self.typed(at, "vector.from_elements", &lanes, &vt, &[], created)?]
            });
        }
        let steps = if blocked { v } else { 1 };
        // Values from outside the loops, broadcast once per iteration.
        let mut outside: std::collections::HashMap<usize, Val> = std::collections::HashMap::new();
        for m in 0..steps {
            for (q, &s) in shape.stmts.iter().enumerate() {
                let st = &self.scop.statements[s];
                let mut map: std::collections::HashMap<usize, Val> =
                    std::collections::HashMap::new();
                for op in self.slice(s) {
                    if let Some(a) = st
                        .accesses
                        .iter()
                        .position(|a| self.scop.op_of(a).key() == op.key())
                    {
                        match &shape.access[q][a] {
                            Lane::Acc(g) => {
                                if op.name() == "affine.store" {
                                    let x = *op.operands().first().ok_or("store without value")?;
                                    accs[*g] = self.lane_value(x, &map, &mut outside, at, &vt)?;
                                } else {
                                    let r = op.result(0).ok_or("load without result")?;
                                    map.insert(r.key(), accs[*g]);
                                }
                            }
                            Lane::Rows(g) => {
                                let r = op.result(0).ok_or("load without result")?;
                                let col = columns[*g]
                                    .get(m as usize)
                                    .copied()
                                    .ok_or("a lane's column is missing")?;
                                map.insert(r.key(), col);
                            }
                            Lane::Same(subs) => {
                                // Iteration j + m: the constant moves by m
                                // times the loop's coefficient.
                                let texts = subs
                                    .iter()
                                    .map(|r| {
                                        let mut r = r.clone();
                                        let last = r.len() - 1;
                                        r[last] = r[jc]
                                            .checked_mul(m)
                                            .and_then(|x| x.checked_add(r[last]))
                                            .ok_or("subscript overflow")?;
                                        Ok(self.text(&r, &dims))
                                    })
                                    .collect::<Result<Vec<String>, EmitError>>()?;
                                let amap = self.attr(&format!(
                                    "affine_map<{} -> ({})>",
                                    self.map_header(&dims),
                                    texts.join(", ")
                                ))?;
                                let memref = *op.operands().first().ok_or("load without memref")?;
                                let mut ops = vec![memref];
                                ops.extend(operands.iter().copied());
                                let ld = self
                                    .b
                                    .create_typed(
                                        at,
                                        "affine.load",
                                        &ops,
                                        &["f64"],
                                        &[("map", amap)],
                                    )
                                    .ok_or("cannot build a load")?;
                                let x = ld.result(0).ok_or("load without result")?;
                                let b =
                                    self.typed(at, "vector.broadcast", &[x], &vt, &[], created)?;
                                let r = op.result(0).ok_or("load without result")?;
                                map.insert(r.key(), b);
                            }
                        }
                        continue;
                    }
                    // An arithmetic operation, lane-wise.
                    let mut args = Vec::new();
                    for x in op.operands() {
                        args.push(self.lane_value(x, &map, &mut outside, at, &vt)?);
                    }
                    let mut attrs = Vec::new();
                    if let Some(fm) = op.attr(c"fastmath") {
                        attrs.push(("fastmath", self.attr(&fm.text())?));
                    }
                    let r = self.typed(at, &op.name(), &args, &vt, &attrs, created)?;
                    let old = op.result(0).ok_or("operation without result")?;
                    map.insert(old.key(), r);
                }
            }
        }
        Ok(accs)
    }

    /// The vector of `x` in the lanes: computed in the copy (`map`), or a
    /// value from outside the loops (a parameter, a constant), broadcast
    /// once (`outside`).
    fn lane_value(
        &self,
        x: Val,
        map: &std::collections::HashMap<usize, Val>,
        outside: &mut std::collections::HashMap<usize, Val>,
        at: Point,
        vt: &str,
    ) -> Result<Val, EmitError> {
        if let Some(&v) = map.get(&x.key()).or_else(|| outside.get(&x.key())) {
            return Ok(v);
        }
        let key = x.key();
        let x = match self
            .scop
            .ir
            .param_values
            .iter()
            .position(|pv| pv.key() == x.key())
        {
            Some(p) => self.params[p],
            None => x,
        };
        let mut none = Vec::new();
        let b = self.typed(at, "vector.broadcast", &[x], vt, &[], &mut none)?;
        outside.insert(key, b);
        Ok(b)
    }

    /// The map of a row's subscripts `subs` with the last one `d`
    /// iterations of the lane loop ahead (its coefficient of the loop is
    /// 1: `LaneRows`).
    fn prefetch_map(
        &self,
        subs: &[crate::codegen::ast::Row],
        d: i64,
        dims: &[usize],
    ) -> Result<build::AttrHandle, EmitError> {
        let mut texts: Vec<String> = subs.iter().map(|r| self.text(r, dims)).collect();
        let last = texts.last_mut().ok_or("a row without subscripts")?;
        *last = format!("({last}) + {d}");
        self.attr(&format!(
            "affine_map<{} -> ({})>",
            self.map_header(dims),
            texts.join(", ")
        ))
    }

    /// Transposes the `V x V` block whose rows are `rows`: `log2 V` rounds;
    /// round `d` pairs rows `r` and `r + d` (`r & d == 0`), the low one
    /// taking the elements `k` with `k & d == 0` from row `r` and `k - d`
    /// of row `r + d`, the high one the rest. Returns the columns.
    fn transpose(&self, rows: Vec<Val>, at: Point) -> Result<Vec<Val>, EmitError> {
        let v = rows.len();
        let vt = format!("vector<{v}xf64>");
        let mut cur = rows;
        for (d, lo, hi) in transpose_rounds(v) {
            let text = |m: &[usize]| {
                let m: Vec<String> = m.iter().map(usize::to_string).collect();
                format!("array<i64: {}>", m.join(", "))
            };
            let (lo, hi) = (self.attr(&text(&lo))?, self.attr(&text(&hi))?);
            let mut next = cur.clone();
            for r in (0..v).filter(|r| r & d == 0) {
                let (a, b) = (cur[r], cur[r + d]);
                for (slot, mask) in [(r, lo), (r + d, hi)] {
                    let sh = self
                        .b
                        .create_typed(at, "vector.shuffle", &[a, b], &[&vt], &[("mask", mask)])
                        .ok_or("cannot build vector.shuffle")?;
                    next[slot] = sh.result(0).ok_or("vector.shuffle without result")?;
                }
            }
            cur = next;
        }
        Ok(cur)
    }

    /// An operation `name` of one result of type `ty` at `at`.
    fn typed(
        &self,
        at: Point,
        name: &str,
        operands: &[Val],
        ty: &str,
        attrs: &[(&str, build::AttrHandle)],
        created: &mut Vec<Op>,
    ) -> Result<Val, EmitError> {
        let op = self
            .b
            .create_typed(at, name, operands, &[ty], attrs)
            .ok_or_else(|| format!("cannot build {name}"))?;
        top_level(at, op, created);
        op.result(0)
            .ok_or_else(|| EmitError::from(format!("{name} without result")))
    }
}

/// The rounds of the transpose of a `v x v` block (`v` a power of two):
/// per round, the distance `d` between the rows it pairs and the two
/// `vector.shuffle` masks (over the concatenation of rows `r` and `r + d`)
/// of the new rows `r` and `r + d`: element `k` of the low one is element
/// `k` of row `r` when `k & d == 0`, else element `k - d` of row `r + d`;
/// the high one takes the others.
fn transpose_rounds(v: usize) -> Vec<(usize, Vec<usize>, Vec<usize>)> {
    let mut rounds = Vec::new();
    let mut d = 1;
    while d < v {
        let lo = (0..v)
            .map(|k| if k & d == 0 { k } else { v + k - d })
            .collect();
        let hi = (0..v)
            .map(|k| if k & d == 0 { k + d } else { v + k })
            .collect();
        rounds.push((d, lo, hi));
        d *= 2;
    }
    rounds
}

#[cfg(test)]
mod tests {
    use super::transpose_rounds;

    /// Runs the rounds on a block of numbered elements, as
    /// `vector.shuffle` would (mask entries below `v` pick from the first
    /// operand, the others from the second).
    fn run(v: usize) -> Vec<Vec<usize>> {
        let mut rows: Vec<Vec<usize>> = (0..v)
            .map(|i| (0..v).map(|j| i * v + j).collect())
            .collect();
        for (d, lo, hi) in transpose_rounds(v) {
            let mut next = rows.clone();
            for r in (0..v).filter(|r| r & d == 0) {
                let pick = |m: &[usize]| -> Vec<usize> {
                    m.iter()
                        .map(|&x| {
                            if x < v {
                                rows[r][x]
                            } else {
                                rows[r + d][x - v]
                            }
                        })
                        .collect()
                };
                next[r] = pick(&lo);
                next[r + d] = pick(&hi);
            }
            rows = next;
        }
        rows
    }

    #[test]
    fn the_rounds_transpose_blocks_of_every_width() {
        for v in [2usize, 4, 8, 16] {
            let t = run(v);
            for (m, col) in t.iter().enumerate() {
                let want: Vec<usize> = (0..v).map(|i| i * v + m).collect();
                assert_eq!(*col, want, "v = {v}, column {m}");
            }
            assert_eq!(transpose_rounds(v).len(), v.trailing_zeros() as usize);
        }
    }
}
