//! Scalar replacement: the array cells an innermost sequential loop
//! accesses at loop-invariant subscripts kept in registers across it
//! (`iter_args`), loaded before the loop and stored after it, when that is
//! exact (no other access of the loop may touch them).

use super::{
    affine_for, cloned_with_statements, loop_args, straight_line, subscript_rows, EmitError,
    Emitter, LoopView, Target,
};
use crate::codegen::minima::ContextMinima;
use crate::codegen::{Bound, Node, Row};
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
    /// The sequential loop `l`, keeping in registers the cells
    /// [`Self::carried_cells`] finds (a plain loop without any), in vector
    /// lanes where it is so marked ([`crate::codegen::ast::LoopMarks::lanes`]).
    pub(super) fn sequential_loop(
        &mut self,
        l: LoopView,
        at: Point,
        created: &mut Vec<Op>,
    ) -> Result<(), EmitError> {
        match self.carried_cells(l.dim, l.lower, l.upper, l.body, false)? {
            Some((cells, instances)) => {
                if let Some(mark) = l.marks.lanes {
                    if self.lanes_loop(l, mark, (&cells, &instances), at, created)? {
                        return Ok(());
                    }
                }
                self.carried_loop(l, cells, instances, at, created)
            }
            None => self.plain_loop(l, false, at, created),
        }
    }

    /// The cells an innermost loop over `k` can keep in registers, and per
    /// statement instance of its body (in emission order) the cell of each
    /// access; `None` when there are none.
    ///
    /// Exactness: the body must be straight-line (no loops, no guards), so
    /// every instance runs in every iteration. An array's accesses are
    /// carried only when every subscript of every access to it in the body
    /// is independent of `k` (exact affine forms over the outer loops, with
    /// the unrolled dimensions substituted), every two different cells
    /// differ by a nonzero constant in some subscript (so they never
    /// overlap), and every cell is read. An access whose subscripts move
    /// with `k` is left in memory when the loop's bounds `lower` and
    /// `upper` prove it off every carried cell of its array (trmm's
    /// `B[k][j]` beside the block's cells `B[i][j]`, with `k >= i + 1`:
    /// [`moves_off`]); otherwise its array is not carried. The values are then loaded before
    /// the loop, passed from iteration to iteration, and stored after it:
    /// the same values reach memory and every load sees the value the
    /// original load would have read, assuming distinct memrefs do not
    /// alias (the dependence model's assumption). The loop may be empty;
    /// the caller guards the loads and stores by its non-emptiness. With
    /// `strict`, an array with an access that moves with `k` is not
    /// carried at all (the cells are then carried across a loop around
    /// this one too, where the bounds of `k` prove nothing).
    pub(super) fn carried_cells(
        &self,
        k: usize,
        lower: &[Bound],
        upper: &[Bound],
        body: &Node,
        strict: bool,
    ) -> Result<Option<(Vec<Cell>, InstanceCells)>, EmitError> {
        let np = self.np();
        let Some(instances) = straight_line(body, np) else {
            return Ok(None);
        };
        let n = self.ivs.len();
        let w = np + n + self.divs.len() + 1;
        // Per access of each instance: (root, array, memref, elem, index, write).
        type Seen = (usize, usize, Val, String, Vec<Row>, bool);
        let mut poisoned: Vec<usize> = Vec::new();
        // Accesses whose subscripts move with `k`: (root, index).
        let mut moving: Vec<(usize, Vec<Row>)> = Vec::new();
        let mut seen: Vec<Vec<Option<Seen>>> = Vec::new();
        for (s, its) in &instances {
            let st = &self.scop.statements[*s];
            let mut per = Vec::new();
            for a in &st.accesses {
                let root = self.scop.root_of(&self.scop.arrays[a.array.0]).key();
                let write = a.kind == crate::scop::model::AccessKind::Write;
                let a_op = self.scop.op_of(a);
                let name = a_op.name();
                let ops = a_op.operands();
                let (memref, elem) = match (name.as_str(), write) {
                    ("affine.store", true) if ops.len() >= 2 => (ops[1], ops[0].type_text()),
                    ("affine.load", false) if !ops.is_empty() => match a_op.result(0) {
                        Some(r) => (ops[0], r.type_text()),
                        None => (ops[0], String::new()),
                    },
                    _ => match ops.first() {
                        Some(&m) => (m, String::new()),
                        None => return Ok(None),
                    },
                };
                let inside = memref
                    .defining_op()
                    .is_some_and(|d| cloned_with_statements(self.scop, d));
                let mut ok = !elem.is_empty() && !inside;
                // An expanded array: its buffer (the model's subscripts
                // already start with the expanded iterators).
                let (root, memref) = match self.expanded.get(&a_op.key()) {
                    Some((buf, _, _)) => (buf.key(), *buf),
                    None => (root, memref),
                };
                let index = if ok {
                    subscript_rows(a, its, np, np + n, w).unwrap_or_else(|| {
                        ok = false;
                        Vec::new()
                    })
                } else {
                    Vec::new()
                };
                // Only the outer loops (bound now) may appear, and only the
                // parameters that are symbols of the new maps (a subscript's
                // parameter that no bound uses is not one: it would be
                // dropped from the map, which then reads another cell).
                let moves = ok && index.iter().any(|row| row[np + k] != 0);
                if index.iter().any(|row| {
                    (0..n).any(|d| row[np + d] != 0 && d != k && self.ivs[d].is_none())
                        || (0..np).any(|p| row[p] != 0 && !self.used[p])
                }) {
                    ok = false;
                }
                if ok && moves {
                    // The unrolled copies repeat the same subscripts.
                    if !moving.iter().any(|(r, i)| *r == root && *i == index) {
                        moving.push((root, index));
                    }
                    per.push(None);
                } else if !ok {
                    if !poisoned.contains(&root) {
                        poisoned.push(root);
                    }
                    per.push(None);
                } else {
                    per.push(Some((root, a.array.0, memref, elem, index, write)));
                }
            }
            seen.push(per);
        }
        // Cells per array root; arrays reached through two array ids, or
        // with two cells that may overlap, are not carried.
        let mut cells: Vec<(usize, usize, Cell, bool)> = Vec::new(); // (root, array, cell, read)
        for per in &seen {
            for (root, array, memref, elem, index, write) in per.iter().flatten() {
                if poisoned.contains(root) {
                    continue;
                }
                match cells
                    .iter_mut()
                    .find(|(r, _, c, _)| r == root && c.index == *index)
                {
                    Some((_, arr, c, read)) => {
                        if *arr != *array || c.memref.key() != memref.key() {
                            poisoned.push(*root);
                        }
                        c.written |= *write;
                        *read |= !*write;
                    }
                    None => cells.push((
                        *root,
                        *array,
                        Cell {
                            memref: *memref,
                            elem: elem.clone(),
                            index: index.clone(),
                            written: *write,
                        },
                        !*write,
                    )),
                }
            }
        }
        for i in 0..cells.len() {
            let (root, _, a, read) = &cells[i];
            if !*read {
                poisoned.push(*root);
            }
            for (r2, _, b, _) in &cells[i + 1..] {
                if r2 != root {
                    continue;
                }
                let distinct = a.index.iter().zip(&b.index).any(|(x, y)| {
                    let same_form = x[..w - 1] == y[..w - 1];
                    same_form && x[w - 1] != y[w - 1]
                });
                if !distinct {
                    poisoned.push(*root);
                }
            }
        }
        let mut minima = Minima::new(&self.context);
        for (root, index) in &moving {
            for (r, _, c, _) in &cells {
                if r == root
                    && !poisoned.contains(root)
                    && (strict || !moves_off(index, &c.index, np + k, (lower, upper), &mut minima)?)
                {
                    poisoned.push(*root);
                }
            }
        }
        let kept: Vec<usize> = (0..cells.len())
            .filter(|&i| !poisoned.contains(&cells[i].0))
            .collect();
        if kept.is_empty() {
            return Ok(None);
        }
        let mut per_instance = Vec::new();
        for per in &seen {
            let mut v = Vec::new();
            for acc in per {
                v.push(acc.as_ref().and_then(|(root, _, _, _, index, _)| {
                    kept.iter()
                        .position(|&i| cells[i].0 == *root && cells[i].2.index == *index)
                }));
            }
            per_instance.push(v);
        }
        let out = kept.iter().map(|&i| cells[i].2.clone()).collect();
        Ok(Some((out, per_instance)))
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

/// The context of one loop's proofs (the loops, unrolled values and
/// guards around it) and what the LPs over it found: the cells of a
/// register block differ from one another by constants, so the proofs for
/// every cell against one moving access ask the same LP again and again (a
/// triangle's partial blocks: tens of thousands of LPs).
struct Minima {
    eqs: Vec<Row>,
    ineqs: Vec<Row>,
    found: ContextMinima,
}

impl Minima {
    /// The context's rows (over `[vars | constant]`, each an equality or
    /// not).
    fn new(context: &[(Row, bool)]) -> Minima {
        let rows = |eq: bool| -> Vec<Row> {
            context
                .iter()
                .filter(|(_, e)| *e == eq)
                .map(|(r, _)| r.clone())
                .collect()
        };
        Minima {
            eqs: rows(true),
            ineqs: rows(false),
            found: ContextMinima::default(),
        }
    }

    /// `row > 0` at every rational point of the context (`true` for an
    /// empty context).
    fn positive(&mut self, row: &[i64]) -> Result<bool, EmitError> {
        self.found
            .exceeds(&self.eqs, &self.ineqs, row, 0)
            .map_err(|e| EmitError::from(e.to_string()))
    }
}

/// True when the loop's bounds prove that subscripts `index`, which move
/// with the loop's counter (column `kc`), never equal the fixed subscripts
/// `cell`: in some position the difference `c·t_k + rest` is a nonzero
/// constant, or, with a bound `t_k >= ⌈l/d⌉` (or `t_k <= ⌊u/d⌋`),
/// `c·l + d·rest` keeps the sign that holds it away from zero at every
/// rational point of `context` (the loops, unrolled values and guards
/// around the loop; exact LP).
fn moves_off(
    index: &[Row],
    cell: &[Row],
    kc: usize,
    (lower, upper): (&[Bound], &[Bound]),
    minima: &mut Minima,
) -> Result<bool, EmitError> {
    let Some(w) = cell.first().map(Vec::len) else {
        return Ok(false);
    };
    // `row > 0` at every point of the context.
    let mut positive = |row: &[i64]| minima.positive(row);
    // `c·bound + d·rest`, times `sign`.
    let at = |c: i64, rest: &[i64], b: &Bound, sign: i64| -> Option<Row> {
        if b.row.len() != rest.len() {
            return None;
        }
        b.row
            .iter()
            .zip(rest)
            .map(|(&x, &y)| {
                c.checked_mul(x)?
                    .checked_add(b.div.checked_mul(y)?)?
                    .checked_mul(sign)
            })
            .collect()
    };
    if index.len() != cell.len() || index.iter().chain(cell).any(|r| r.len() != w) {
        return Ok(false);
    }
    for (m, x) in index.iter().zip(cell) {
        let Some(diff) = m
            .iter()
            .zip(x)
            .map(|(a, b)| a.checked_sub(*b))
            .collect::<Option<Row>>()
        else {
            continue;
        };
        let c = diff[kc];
        if c == 0 {
            let neg: Row = diff.iter().map(|v| -v).collect();
            if positive(&diff)? || positive(&neg)? {
                return Ok(true);
            }
            continue;
        }
        let mut rest = diff.clone();
        rest[kc] = 0;
        // From a lower bound, c > 0 gives `d·diff >= value` and c < 0
        // gives `d·diff <= value`; from an upper bound, the reverse. So
        // `diff > 0` needs `value > 0` and `diff < 0` needs `-value > 0`.
        let from_lower = if c > 0 { 1 } else { -1 };
        for (bounds, sign) in [(lower, from_lower), (upper, -from_lower)] {
            for b in bounds {
                if let Some(v) = at(c, &rest, b, sign) {
                    if positive(&v)? {
                        return Ok(true);
                    }
                }
            }
        }
    }
    Ok(false)
}

#[cfg(test)]
mod tests {
    use super::*;

    // Rows over [t0 = i, t1 = j, t2 = k | constant] (no parameters, no
    // divisions); the loop runs over k (column 2).
    fn b(row: [i64; 4]) -> Bound {
        Bound {
            row: row.to_vec(),
            div: 1,
        }
    }

    #[test]
    fn a_lower_bound_keeps_the_moving_row_off_the_cell() {
        // B[k][j] against the cell B[i][j], k from i + 1.
        let moving = vec![vec![0, 0, 1, 0], vec![0, 1, 0, 0]];
        let cell = vec![vec![1, 0, 0, 0], vec![0, 1, 0, 0]];
        let from = |c: i64| [b([1, 0, 0, c])];
        assert!(moves_off(&moving, &cell, 2, (&from(1), &[]), &mut Minima::new(&[])).unwrap());
        // From k = i, the first iteration reads the cell.
        assert!(!moves_off(&moving, &cell, 2, (&from(0), &[]), &mut Minima::new(&[])).unwrap());
        // An upper bound k <= i - 1 keeps it off from the other side.
        assert!(moves_off(
            &moving,
            &cell,
            2,
            (&[b([0, 0, 0, 0])], &[b([1, 0, 0, -1])]),
            &mut Minima::new(&[])
        )
        .unwrap());
    }

    #[test]
    fn the_context_around_the_loop_completes_the_proof() {
        // k from 4j (a tile's start), cell row i: proven only where the
        // loops around say i <= 4j - 1.
        let moving = vec![vec![0, 0, 1, 0]];
        let cell = vec![vec![1, 0, 0, 0]];
        let lower = [b([0, 4, 0, 0])];
        assert!(!moves_off(&moving, &cell, 2, (&lower, &[]), &mut Minima::new(&[])).unwrap());
        let around = vec![(vec![-1, 4, 0, -1], false)];
        assert!(moves_off(&moving, &cell, 2, (&lower, &[]), &mut Minima::new(&around)).unwrap());
        // i <= 4j only: i = 4j meets k = 4j.
        let loose = vec![(vec![-1, 4, 0, 0], false)];
        assert!(!moves_off(&moving, &cell, 2, (&lower, &[]), &mut Minima::new(&loose)).unwrap());
    }

    #[test]
    fn subscripts_apart_by_a_constant_never_meet() {
        // A[k][j + 1] against A[i][j]: apart in the second subscript
        // whatever k is; A[k][j] against A[i][j] is not, without bounds.
        let cell = vec![vec![1, 0, 0, 0], vec![0, 1, 0, 0]];
        let shifted = vec![vec![0, 0, 1, 0], vec![0, 1, 0, 1]];
        let same = vec![vec![0, 0, 1, 0], vec![0, 1, 0, 0]];
        assert!(moves_off(&shifted, &cell, 2, (&[], &[]), &mut Minima::new(&[])).unwrap());
        assert!(!moves_off(&same, &cell, 2, (&[], &[]), &mut Minima::new(&[])).unwrap());
    }
}
