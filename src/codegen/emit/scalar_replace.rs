//! Scalar replacement, printed: the cells a tree stage chose for a
//! sequential loop (`codegen/tree/carry.rs`, which proves them exact) kept
//! in registers across it (`iter_args`), loaded before the loop and the
//! written ones stored after it.

use super::{affine_for, loop_args, EmitError, Emitter, LoopView, Target};
use crate::codegen::ast::Carried;
use crate::codegen::instances::access_memref;
use crate::codegen::{Bound, Row};
use crate::ffi::build::{AttrHandle, Point};
use crate::ffi::ir::{Block, Op, Val};

/// A cell of an array kept in a register across an innermost loop.
#[derive(Debug, Clone)]
pub(super) struct Cell {
    /// The memref.
    pub(super) memref: Val,
    /// The element type (MLIR text).
    pub(super) elem: String,
    /// The subscripts over `[params | t | constant]`, outer loops only.
    pub(super) index: Vec<Row>,
    /// Some instance writes it: stored back after the loop.
    pub(super) written: bool,
}

/// Per statement instance of a loop body, in emission order: per access of
/// the statement, the carried cell it touches.
pub(super) type InstanceCells = Vec<Vec<Option<usize>>>;

/// The state of an innermost loop whose cells are carried.
pub(super) struct Carry {
    pub(super) instances: InstanceCells,
    /// The next instance to emit.
    pub(super) next: usize,
    /// The current value of each cell.
    pub(super) values: Vec<Val>,
}

impl Carry {
    /// The cells of the loop body's next statement instance, per access.
    pub(super) fn next_cells(&mut self) -> Result<Vec<Option<usize>>, EmitError> {
        let v = self
            .instances
            .get(self.next)
            .cloned()
            .ok_or("internal error: an instance the carried-cell analysis did not see")?;
        self.next += 1;
        Ok(v)
    }
}

impl<T: Target> Emitter<'_, T> {
    /// The sequential loop `l`, keeping in registers the cells the carry
    /// stage chose ([`crate::codegen::ast::LoopMarks::cells`]) (a plain loop without any), in vector
    /// lanes where it is so marked ([`crate::codegen::ast::LoopMarks::lanes`]).
    pub(super) fn sequential_loop(
        &mut self,
        l: LoopView,
        at: Point,
        created: &mut Vec<Op>,
    ) -> Result<(), EmitError> {
        let found = match &l.marks.cells {
            Some(c) => Some(self.cells_of(c)?),
            None => None,
        };
        match found {
            Some((cells, instances)) => {
                if let Some(mark) = &l.marks.lanes {
                    if self.lanes_loop(l, mark, &cells, at, created)? {
                        return Ok(());
                    }
                }
                self.carried_loop(l, cells, instances, at, created)
            }
            None => self.plain_loop(l, false, at, created),
        }
    }

    /// The operation of access `pos` of statement `s`.
    pub(super) fn access_op(&self, (s, pos): (usize, usize)) -> Result<Op, EmitError> {
        self.scop
            .statements
            .get(s)
            .and_then(|st| st.accesses.get(pos))
            .map(|a| self.scop.op_of(a))
            .ok_or_else(|| EmitError::from("internal error: an access the model does not have"))
    }

    /// The memref that access `pos` of statement `s` goes through.
    pub(super) fn memref_of(&self, first: (usize, usize)) -> Result<Val, EmitError> {
        access_memref(self.access_op(first)?)
            .map(|(m, _)| m)
            .ok_or_else(|| EmitError::from("internal error: an access without its memref"))
    }

    /// The cells of `carried` (a tree stage's decision) in the IR: each
    /// one's memref (an expanded array's buffer) and element type, from its
    /// first access.
    pub(super) fn cells_of(
        &self,
        carried: &Carried,
    ) -> Result<(Vec<Cell>, InstanceCells), EmitError> {
        let mut cells = Vec::new();
        for c in &carried.cells {
            let op = self.access_op(c.first)?;
            let (memref, elem) =
                access_memref(op).ok_or("internal error: a carried cell without its memref")?;
            let memref = match self.expanded.get(&op.key()) {
                Some((buf, _, _)) => *buf,
                None => memref,
            };
            cells.push(Cell {
                memref,
                elem,
                index: c.index.clone(),
                written: c.written,
            });
        }
        Ok((cells, carried.instances.clone()))
    }

    /// The maps of `cells`' subscripts over the loops `dims`.
    pub(super) fn cell_maps(
        &self,
        cells: &[Cell],
        dims: &[usize],
    ) -> Result<Vec<AttrHandle>, EmitError> {
        let header = self.map_header(dims);
        cells
            .iter()
            .map(|c| {
                let subs: Vec<String> = c.index.iter().map(|r| self.text(r, dims)).collect();
                self.attr(&format!("affine_map<{header} -> ({})>", subs.join(", ")))
            })
            .collect()
    }

    /// Loads of `cells` (through `maps` over `operands`) at `point`.
    pub(super) fn load_cells(
        &self,
        cells: &[Cell],
        maps: &[AttrHandle],
        operands: &[Val],
        point: Point,
        created: &mut Vec<Op>,
    ) -> Result<Vec<Val>, EmitError> {
        let mut vals = Vec::new();
        for (c, &map) in cells.iter().zip(maps) {
            let mut ops = vec![c.memref];
            ops.extend(operands.iter().copied());
            let ld = self
                .b
                .create_typed(point, "affine.load", &ops, &[&c.elem], &[("map", map)])
                .ok_or_else(|| format!("cannot build the type {}", c.elem))?;
            if matches!(point, Point::Before(_)) {
                created.push(ld);
            }
            vals.push(ld.result(0).ok_or("affine.load without result")?);
        }
        Ok(vals)
    }

    /// Stores of the written `cells`' last values (the results of the
    /// loop `op`, through `maps` over `operands`) at `point`.
    pub(super) fn store_cells(
        &self,
        cells: &[Cell],
        op: Op,
        maps: &[AttrHandle],
        operands: &[Val],
        point: Point,
        created: &mut Vec<Op>,
    ) -> Result<(), EmitError> {
        for (i, c) in cells.iter().enumerate() {
            if !c.written {
                continue;
            }
            let v = op.result(i).ok_or("affine.for without result")?;
            let mut ops = vec![v, c.memref];
            ops.extend(operands.iter().copied());
            let (st, _) = self
                .b
                .create(point, "affine.store", &ops, 0, &[("map", maps[i])], &[]);
            if matches!(point, Point::Before(_)) {
                created.push(st);
            }
        }
        Ok(())
    }

    /// The end of a carried loop's body `block`: its cells' last values
    /// (`carry`, taken from the emitter after the body), yielded, once
    /// every instance the analysis saw was emitted.
    pub(super) fn yield_carried(
        &self,
        carry: Option<Carry>,
        block: Block,
    ) -> Result<(), EmitError> {
        let carry = carry.ok_or("internal error: carried values lost")?;
        if carry.next != carry.instances.len() {
            return Err("internal error: carried-cell instances out of step".into());
        }
        self.b.create(
            Point::End(block),
            "affine.yield",
            &carry.values,
            0,
            &[],
            &[],
        );
        Ok(())
    }

    /// Where a loop from `lower` to `upper` whose cells are loaded before
    /// it and stored after it goes: at `at`, or inside a new guard that it
    /// runs at least once (the guard's block, to be closed by the caller)
    /// unless that is a constant fact; `None` for a constant empty range.
    pub(super) fn runs_once_guard(
        &self,
        lower: &[Bound],
        upper: &[Bound],
        at: Point,
        created: &mut Vec<Op>,
    ) -> Result<Option<(Point, Option<Block>)>, EmitError> {
        let (dims, operands) = self.operands();
        let header = self.map_header(&dims);
        let Some(conds) = self.runs_once_conds(lower, upper, &dims)? else {
            return Ok(None);
        };
        if conds.is_empty() {
            return Ok(Some((at, None)));
        }
        let then = self.affine_if(&header, &conds, &operands, at, created)?;
        Ok(Some((Point::End(then), Some(then))))
    }

    /// The loop over `dim` with `cells` loaded before it, carried through
    /// `iter_args`, and the written ones stored after it, all under a guard
    /// that the loop runs at least once (unless that is a constant fact).
    fn carried_loop(
        &mut self,
        l: LoopView,
        cells: Vec<Cell>,
        instances: InstanceCells,
        at: Point,
        created: &mut Vec<Op>,
    ) -> Result<(), EmitError> {
        let LoopView {
            dim,
            lower,
            upper,
            body,
            ..
        } = l;
        if lower.iter().chain(upper).any(|b| b.div != 1) {
            return self.plain_loop(l, false, at, created);
        }
        let (dims, operands) = self.operands();
        let Some((point, guard_block)) = self.runs_once_guard(lower, upper, at, created)? else {
            return Ok(()); // a constant empty range
        };
        let top = matches!(point, Point::Before(_));
        if self.target.in_kernel() {
            for c in &cells {
                let name = self
                    .scop
                    .arrays
                    .iter()
                    .find(|a| self.scop.root_of(a).key() == c.memref.key())
                    .map(|a| a.name.clone());
                if let Some(n) = name {
                    if !self.kernel_registers.contains(&n) {
                        self.kernel_registers.push(n);
                    }
                }
            }
        }
        let maps = self.cell_maps(&cells, &dims)?;
        let inits = self.load_cells(&cells, &maps, &operands, point, created)?;
        let (lmap, umap) = self.bound_maps(lower, upper, &dims)?;
        let (op, block) = affine_for(&self.b, point, lmap, umap, &operands, &inits)?;
        if top {
            created.push(op);
        }
        let (iv, values) = loop_args(block, inits.len())?;
        self.ivs[dim] = Some(iv);
        self.carry = Some(Carry {
            instances,
            next: 0,
            values,
        });
        let r = self.node(body, Point::End(block), created);
        self.ivs[dim] = None;
        let carry = self.carry.take();
        r?;
        self.yield_carried(carry, block)?;
        self.store_cells(&cells, op, &maps, &operands, point, created)?;
        if let Some(b) = guard_block {
            self.b
                .create(Point::End(b), "affine.yield", &[], 0, &[], &[]);
        }
        Ok(())
    }
}
