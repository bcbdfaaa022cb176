//! Buffers of operands computed ahead, printed: the plans of
//! `codegen/tree/buffers.rs` ([`BufferPlan`]), each a stack buffer filled
//! before its loop (hoisted: before the loop over the blocks of a register
//! tile's vector loop; packed: before the loop over the blocks' rows,
//! block by block) and read inside the loop the plan names
//! ([`LoopMarks::reads_hoisted`](crate::codegen::ast::LoopMarks::reads_hoisted),
//! [`LoopMarks::reads_packed`](crate::codegen::ast::LoopMarks::reads_packed)).

use std::collections::{HashMap, HashSet};

use super::{affine_for, top_level, EmitError, Emitter, LoopView, Target};
use crate::codegen::ast::{BufferPlan, BufferSlot, LoopMarks};
use crate::codegen::tree::buffers::backward_slice;
use crate::codegen::{Bound, Node, Row};
use crate::ffi::build::{self, Point};
use crate::ffi::ir::{Op, Val};

/// Operands of a register tile's statement instances that do not change
/// from one block of the vector loop to the next, computed once per block
/// row into a buffer (see [`Emitter::hoisted_operands`]).
pub(super) struct Hoist {
    /// The dimension of the loop the buffer is filled before: the loop
    /// marked as reading it reads it.
    dim: usize,
    /// That loop's body is being emitted.
    active: bool,
    /// Per instance of its body, in emission order: (the operation whose
    /// value is read from the buffer, its slot).
    instances: Vec<Vec<(usize, usize)>>,
    /// The next instance to emit.
    next: usize,
    /// The buffer, `memref<T x Q x elem>`.
    buffer: Val,
    /// The loop's dimension and tile size `T`: slot `[t mod T][q]`.
    k_dim: usize,
    size: i64,
    /// For packed operands: the blocks and the buffer's layout.
    block: Option<Panel>,
}

/// The layout of a buffer of packed operands: the dimension `b` of the
/// blocks and its lower bound (a row over `[params | t | divisions | 1]`),
/// slot `[b - lower][t mod T][q]`; with `group`, the slots in groups of
/// that many, each filled by a loop of its own and laid out apart: slot
/// `[b - lower][q / group][t mod T][q mod group]`.
#[derive(Clone)]
struct Panel {
    dim: usize,
    lower: Row,
    group: Option<usize>,
}

/// A buffer of operands computed ahead, as an access sees it: the buffer,
/// the dimension of the loop inside the tile and its tile size (the
/// buffer's depth), and for a packed one its [`Panel`] layout.
#[derive(Clone, Copy)]
struct BufferAt<'p> {
    value: Val,
    k: usize,
    size: i64,
    block: Option<&'p Panel>,
}

impl Hoist {
    /// The buffer of `plan`'s operands, filled before the loop over `dim`
    /// and read by the loop marked so, not yet active; `block`: the blocks
    /// and layout of a packed buffer.
    fn new(dim: usize, plan: &BufferPlan, buffer: Val, block: Option<Panel>) -> Hoist {
        Hoist {
            dim,
            active: false,
            instances: plan
                .instances
                .iter()
                .map(|per| per.iter().map(|&(id, q)| (id.0, q)).collect())
                .collect(),
            next: 0,
            buffer,
            k_dim: plan.k_dim,
            size: plan.size,
            block,
        }
    }

    /// The loop with `marks` is the one whose instances read the buffer
    /// (hoisted, or with `packed` packed).
    pub(super) fn is_read_by(&self, marks: &LoopMarks, packed: bool) -> bool {
        let reads = if packed {
            marks.reads_packed
        } else {
            marks.reads_hoisted
        };
        reads == Some(self.dim)
    }

    /// That loop's body is being emitted (or no longer).
    pub(super) fn set_active(&mut self, on: bool) {
        self.active = on;
    }

    /// That loop's body is being emitted, from its first instance.
    pub(super) fn start(&mut self) {
        self.active = true;
        self.next = 0;
    }

    /// Every instance read its operands from the buffer, or none did.
    pub(super) fn in_step(&self) -> bool {
        self.next == 0 || self.next == self.instances.len()
    }
}

impl<T: Target> Emitter<'_, T> {
    /// Inside the loop that reads the buffer of hoisted operands: the
    /// values of statement `s`'s next instance that come from the buffer,
    /// loaded at `at` and entered in `map` (old value → new); the
    /// operations of `slice` (the statement's) not to clone: those and the
    /// ones only they use. Empty elsewhere.
    pub(super) fn read_hoisted(
        &mut self,
        s: usize,
        slice: &[Op],
        at: Point,
        created: &mut Vec<Op>,
        map: &mut HashMap<usize, Val>,
    ) -> Result<HashSet<usize>, EmitError> {
        let st = &self.scop.statements[s];
        let mut skip = HashSet::new();
        // This instance's reads of each active buffer: hoisted, packed.
        let mut reads = Vec::new();
        for h in [self.hoist.as_mut(), self.pack.as_mut()]
            .into_iter()
            .flatten()
        {
            if !h.active {
                continue;
            }
            let slots = h
                .instances
                .get(h.next)
                .cloned()
                .ok_or("internal error: an instance the hoisting analysis did not see")?;
            h.next += 1;
            reads.push((slots, h.buffer, h.k_dim, h.size, h.block.clone()));
        }
        if reads.is_empty() {
            return Ok(skip);
        }
        for (slots, buffer, k_dim, size, block) in reads {
            for (root, slot) in slots {
                let op = *self
                    .scop
                    .ir
                    .body_ops
                    .get(root)
                    .ok_or("internal error: a hoisted operation outside the bodies")?;
                let buf = BufferAt {
                    value: buffer,
                    k: k_dim,
                    size,
                    block: block.as_ref(),
                };
                let v = self.buffer_access(buf, slot, None, at, created)?;
                if let (Some(old), Some(v)) = (op.result(0), v) {
                    map.insert(old.key(), v);
                }
                skip.insert(op.key());
            }
        }
        // Walking back from the store: an operation all of whose users in
        // the slice are skipped is skipped too.
        for &op in slice.iter().rev() {
            if skip.contains(&op.key()) || op.key() == self.scop.store_of(st).key() {
                continue;
            }
            let users: Vec<&Op> = slice
                .iter()
                .filter(|u| {
                    u.operands()
                        .iter()
                        .any(|v| v.defining_op().is_some_and(|d| d.key() == op.key()))
                })
                .collect();
            if !users.is_empty() && users.iter().all(|u| skip.contains(&u.key())) {
                skip.insert(op.key());
            }
        }
        Ok(skip)
    }

    /// A load of slot `[k mod size][slot]` of `buffer` (with `block`, the
    /// slot of its [`Panel`] layout), or with `store`, a store of that
    /// value there; returns the loaded value.
    fn buffer_access(
        &self,
        buf: BufferAt,
        slot: usize,
        store: Option<Val>,
        at: Point,
        created: &mut Vec<Op>,
    ) -> Result<Option<Val>, EmitError> {
        let BufferAt {
            value: buffer,
            k,
            size,
            block,
        } = buf;
        let (dims, operands) = self.operands();
        let mut row = vec![0i64; self.np() + self.ivs.len() + 1];
        row[self.np() + k] = 1;
        let (lead, slot) = match block {
            Some(p) => {
                let mut r: Row = p
                    .lower
                    .iter()
                    .map(|c| c.checked_neg())
                    .collect::<Option<_>>()
                    .ok_or("block bound overflow")?;
                r[self.np() + p.dim] += 1;
                let b = self.text(&r, &dims);
                match p.group {
                    Some(g) => (format!("{b}, {}, ", slot / g), slot % g),
                    None => (format!("{b}, "), slot),
                }
            }
            None => (String::new(), slot),
        };
        let map = self.attr(&format!(
            "affine_map<{} -> ({lead}({}) mod {size}, {slot})>",
            self.map_header(&dims),
            self.text(&row, &dims)
        ))?;
        match store {
            Some(v) => {
                let mut ops = vec![v, buffer];
                ops.extend(operands);
                let (st, _) = self
                    .b
                    .create(at, "affine.store", &ops, 0, &[("map", map)], &[]);
                top_level(at, st, created);
                Ok(None)
            }
            None => {
                let mut ops = vec![buffer];
                ops.extend(operands);
                let elem = buffer
                    .type_text()
                    .rsplit('x')
                    .next()
                    .map(|t| t.trim_end_matches('>').to_string())
                    .ok_or("buffer type without element type")?;
                let ld = self
                    .b
                    .create_typed(at, "affine.load", &ops, &[&elem], &[("map", map)])
                    .ok_or_else(|| format!("cannot build the type {elem}"))?;
                top_level(at, ld, created);
                Ok(ld.result(0))
            }
        }
    }

    /// Where a stack buffer goes: at the start of the innermost enclosing
    /// `affine.parallel` body (private to each of its iterations; the
    /// OpenMP lowering frees it at the end of each, with the
    /// `memref.alloca_scope` it wraps the body in), or at the start of the
    /// function (once, whatever loops surround the SCoP).
    fn stack_point(&self) -> Result<Point, EmitError> {
        if let Some(b) = self.parallel_bodies.last() {
            return b
                .ops()
                .first()
                .map(|&op| Point::Before(op))
                .ok_or_else(|| EmitError::from("internal error: empty parallel body"));
        }
        let mut f = self.scop.ir.first_op;
        while f.name() != "func.func" {
            f = f.parent().ok_or("the SCoP is not inside a function")?;
        }
        f.regions()
            .first()
            .and_then(|r| r.blocks().first().copied())
            .and_then(|b| b.ops().first().copied())
            .map(Point::Before)
            .ok_or_else(|| EmitError::from("function without a body"))
    }

    /// The loop `n` over blocks of a register tile's vector loop, preceded
    /// by the loop over `k` that fills the buffer of `plan`, a
    /// `memref.alloca` placed by [`Emitter::stack_point`].
    pub(super) fn hoisting_loop(
        &mut self,
        n: &Node,
        plan: &BufferPlan,
        at: Point,
        created: &mut Vec<Op>,
    ) -> Result<(), EmitError> {
        let l = LoopView::of(n)?;
        let LoopView { lower, upper, .. } = l;
        let inside = at;
        let ty = format!("memref<{}x{}x{}>", plan.size, plan.slots.len(), plan.elem);
        let segs = self.attr("array<i32: 0, 0>")?;
        let place = self.stack_point()?;
        let alloca = self
            .b
            .create_typed(
                place,
                "memref.alloca",
                &[],
                &[&ty],
                &[("operandSegmentSizes", segs)],
            )
            .ok_or_else(|| format!("cannot build the type {ty}"))?;
        if self.parallel_bodies.is_empty() {
            created.push(alloca);
        }
        let buffer = alloca.result(0).ok_or("memref.alloca without result")?;
        // The fill: a loop over `k` with the inner loop's bounds, only when
        // the loop over blocks runs (so that it loads no cell the blocks
        // would not load).
        let (dims, operands) = self.operands();
        let Some(conds) = self.runs_once_conds(lower, upper, &dims)? else {
            return Ok(()); // a constant empty range
        };
        let mut fill_point = inside;
        let mut guard = None;
        if !conds.is_empty() {
            let header = self.map_header(&dims);
            let then = self.affine_if(&header, &conds, &operands, inside, created)?;
            fill_point = Point::End(then);
            guard = Some(then);
        }
        let (lmap, umap) = self.bound_maps(&plan.lower, &plan.upper, &dims)?;
        let (fill_op, fill) = affine_for(&self.b, fill_point, lmap, umap, &operands, &[])?;
        if matches!(fill_point, Point::Before(_)) {
            created.push(fill_op);
        }
        let iv = fill.arg(0).ok_or("loop without induction variable")?;
        self.ivs[plan.k_dim] = Some(iv);
        let fill_at = Point::End(fill);
        let mut result = Ok(());
        for (q, slot) in plan.slots.iter().enumerate() {
            let buf = BufferAt {
                value: buffer,
                k: plan.k_dim,
                size: plan.size,
                block: None,
            };
            result = self.hoisted_value(slot, buf, q, fill_at, created);
            if result.is_err() {
                break;
            }
        }
        self.ivs[plan.k_dim] = None;
        result?;
        self.b.create(fill_at, "affine.yield", &[], 0, &[], &[]);
        if let Some(then) = guard {
            self.b
                .create(Point::End(then), "affine.yield", &[], 0, &[], &[]);
        }
        self.hoisted_loops += 1;
        self.hoist = Some(Hoist::new(l.dim, plan, buffer, None));
        let r = self.plain_loop(l, l.role.is_parallel(), inside, created);
        let h = self.hoist.take();
        r?;
        if h.is_some_and(|h| h.next != h.instances.len()) {
            return Err("internal error: hoisted-operand instances out of step".into());
        }
        Ok(())
    }

    /// Before the loop over block rows from `lower` to `upper` (at `at`),
    /// the buffer of `plan` (of the loop over `dim`), a
    /// `memref.alloca` placed by [`Emitter::stack_point`], filled by a loop
    /// over `k` around a loop over the blocks (rows of the arrays read in
    /// order), only when the loop over block rows runs; the blocks then
    /// read it. False when that loop never runs (nothing done).
    pub(super) fn fill_packed(
        &mut self,
        (dim, plan): (usize, &BufferPlan),
        lower: &[Bound],
        upper: &[Bound],
        at: Point,
        created: &mut Vec<Op>,
    ) -> Result<bool, EmitError> {
        let block = plan
            .block
            .as_ref()
            .ok_or("internal error: packing without a loop over blocks")?;
        let (dims, operands) = self.operands();
        let Some(conds) = self.runs_once_conds(lower, upper, &dims)? else {
            return Ok(false); // a constant empty range
        };
        let group = plan.group;
        let ty = match group {
            Some(g) => format!(
                "memref<{}x{}x{}x{}x{}>",
                block.extent,
                plan.slots.len() / g,
                plan.size,
                g,
                plan.elem
            ),
            None => format!(
                "memref<{}x{}x{}x{}>",
                block.extent,
                plan.size,
                plan.slots.len(),
                plan.elem
            ),
        };
        let segs = self.attr("array<i32: 0, 0>")?;
        // On a cache line: the blocks' vector loads never straddle two.
        let align = self.attr("64 : i64")?;
        let place = self.stack_point()?;
        let alloca = self
            .b
            .create_typed(
                place,
                "memref.alloca",
                &[],
                &[&ty],
                &[("operandSegmentSizes", segs), ("alignment", align)],
            )
            .ok_or_else(|| format!("cannot build the type {ty}"))?;
        if self.parallel_bodies.is_empty() {
            created.push(alloca);
        }
        let buffer = alloca.result(0).ok_or("memref.alloca without result")?;
        let mut fill_point = at;
        let mut guard = None;
        if !conds.is_empty() {
            let header = self.map_header(&dims);
            let then = self.affine_if(&header, &conds, &operands, at, created)?;
            fill_point = Point::End(then);
            guard = Some(then);
        }
        // for blocks { for k { slots } }: each block's panel written in
        // order (with groups, one loop over `k` per group).
        let b_lower = [block.lower.clone()];
        let (lmap, umap) = self.bound_maps(&b_lower, &block.upper, &dims)?;
        let (b_op, b_loop) = affine_for(&self.b, fill_point, lmap, umap, &operands, &[])?;
        if matches!(fill_point, Point::Before(_)) {
            created.push(b_op);
        }
        self.ivs[block.dim] = Some(b_loop.arg(0).ok_or("loop without induction variable")?);
        let lead = Panel {
            dim: block.dim,
            lower: block.lower.row.clone(),
            group,
        };
        let result = self.fill_groups(plan, buffer, &lead, Point::End(b_loop), created);
        self.ivs[block.dim] = None;
        self.ivs[plan.k_dim] = None;
        result?;
        self.b
            .create(Point::End(b_loop), "affine.yield", &[], 0, &[], &[]);
        if let Some(then) = guard {
            self.b
                .create(Point::End(then), "affine.yield", &[], 0, &[], &[]);
        }
        self.packed_loops += 1;
        self.pack = Some(Hoist::new(dim, plan, buffer, Some(lead)));
        Ok(true)
    }

    /// At the end of `at` (the body of the loop over the blocks), the
    /// loops over `k` that fill `buffer`'s slots of `plan`: one, or one per
    /// group of `lead`'s layout.
    fn fill_groups(
        &mut self,
        plan: &BufferPlan,
        buffer: Val,
        lead: &Panel,
        at: Point,
        created: &mut Vec<Op>,
    ) -> Result<(), EmitError> {
        let per_loop = lead.group.unwrap_or(plan.slots.len()).max(1);
        for (g, slots) in plan.slots.chunks(per_loop).enumerate() {
            let (dims, operands) = self.operands();
            let (lmap, umap) = self.bound_maps(&plan.lower, &plan.upper, &dims)?;
            let (_, k_loop) = affine_for(&self.b, at, lmap, umap, &operands, &[])?;
            self.ivs[plan.k_dim] = Some(k_loop.arg(0).ok_or("loop without induction variable")?);
            let fill_at = Point::End(k_loop);
            for (i, slot) in slots.iter().enumerate() {
                let buf = BufferAt {
                    value: buffer,
                    k: plan.k_dim,
                    size: plan.size,
                    block: Some(lead),
                };
                self.hoisted_value(slot, buf, g * per_loop + i, fill_at, created)?;
            }
            self.b.create(fill_at, "affine.yield", &[], 0, &[], &[]);
        }
        Ok(())
    }

    /// Computes `slot`'s operation at its instance (the loads below it and
    /// the arithmetic, cloned) and stores it in slot `q` of `buffer`.
    fn hoisted_value(
        &mut self,
        slot: &BufferSlot,
        buf: BufferAt,
        q: usize,
        at: Point,
        created: &mut Vec<Op>,
    ) -> Result<(), EmitError> {
        let st = &self.scop.statements[slot.stmt];
        let mut map: HashMap<usize, Val> = HashMap::new();
        for (row, iv) in slot.iters.iter().zip(self.scop.ivs_of(st)) {
            let v = self.apply(row, at, created)?;
            map.insert(iv.key(), v);
        }
        // The root's backward slice within the statement.
        let body = &st.body;
        let needed = backward_slice(body, slot.root, true);
        let ops: Vec<Op> = (0..body.len())
            .filter(|i| needed.contains(i))
            .map(|i| self.scop.body_op(&body[i]))
            .collect();
        for op in &ops {
            let c = self.b.clone_op(at, *op);
            for (i, v) in op.operands().into_iter().enumerate() {
                if let Some(&nv) = map.get(&v.key()) {
                    build::set_operand(c, i, nv);
                } else if let Some(p) = self
                    .scop
                    .ir
                    .param_values
                    .iter()
                    .position(|pv| pv.key() == v.key())
                {
                    build::set_operand(c, i, self.params[p]);
                }
            }
            for r in 0..op.num_results() {
                if let (Some(old), Some(new)) = (op.result(r), c.result(r)) {
                    map.insert(old.key(), new);
                }
            }
        }
        let v = self
            .scop
            .body_op(&body[slot.root])
            .result(0)
            .and_then(|r| map.get(&r.key()).copied())
            .ok_or("internal error: hoisted value not computed")?;
        self.buffer_access(buf, q, Some(v), at, created)?;
        Ok(())
    }
}
