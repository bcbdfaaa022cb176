//! Hoisting of a register tile's block-invariant operands: the values its
//! statement instances compute from loads that do not change from one block
//! of the vector loop to the next are computed once per block row, into a
//! stack buffer, and read from it inside the blocks.
//!
//! Packing of its row-invariant operands: the values that do not change
//! from one block row to the next (gemm's `B[k][j]`) are copied once per
//! tile, before the loop over the block rows, into a stack buffer laid out
//! block by block (`[block][k mod T][slot]`), and read from it inside the
//! blocks: each block then streams one contiguous panel instead of one row
//! of the array per value of `k` (BLIS's packed panels, without the copy
//! of the other operand, which the hoisting already makes). Where its
//! slots are more rows of the arrays than one loop transposes in the
//! target's registers ([`PackFill`]), a loop per group of them fills the
//! buffer, laid out group by group (`[block][group][k mod T][slot]`).

use std::collections::{HashMap, HashSet};

use super::{affine_for, cloned_with_statements, in_scop, EmitError, Emitter, LoopView, Target};
use crate::codegen::ast::PackFill;
use crate::codegen::instances::{straight_line, subscript_rows, Instances};
use crate::codegen::{Bound, Node, Row};
use crate::ffi::build::{self, Point};
use crate::ffi::ir::{Op, Val};

/// Operands of a register tile's statement instances that do not change
/// from one block of the vector loop to the next, computed once per block
/// row into a buffer (see [`Emitter::hoisted_operands`]).
pub(super) struct Hoist {
    /// The loop over the tile's inner dimension whose instances read them.
    node: *const Node,
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

impl PackFill {
    /// The slots per fill loop for `slots`, whose arithmetic reads
    /// `broadcasts` values from outside the statements: all of them
    /// (`None`) where they fit one loop, are side by side in memory, or no
    /// group size fits; else the largest group size that divides them, is
    /// a multiple of the lanes and fits.
    fn group(&self, slots: &[Slot], broadcasts: usize) -> Option<usize> {
        let n = slots.len();
        let rows = self.registers.saturating_sub(broadcasts) / 2;
        if n <= rows || contiguous_lanes(slots) {
            return None;
        }
        (1..n)
            .rev()
            .find(|&g| n.is_multiple_of(g) && g.is_multiple_of(self.lanes.max(1)) && g <= rows)
    }
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

/// Per statement: its slice, and its operations computable ahead with the
/// loads below each ([`Emitter::ahead_ops`]).
type AheadOps = HashMap<usize, (Vec<Op>, Vec<(Op, Vec<Op>)>)>;

/// A slot of the buffer of hoisted operands: the instance that computes it
/// and its operation.
struct Slot {
    stmt: usize,
    iters: Vec<Row>,
    root: Op,
    /// The subscripts of the loads below it.
    rows: Vec<Vec<Row>>,
}

/// The plan of [`Emitter::hoisted_operands`] for one loop over blocks, or
/// of [`Emitter::packed_operands`] for one loop over block rows.
pub(super) struct HoistPlan {
    node: *const Node,
    lower: Vec<Bound>,
    upper: Vec<Bound>,
    slots: Vec<Slot>,
    instances: Vec<Vec<(usize, usize)>>,
    elem: String,
    size: i64,
    k_dim: usize,
    /// For packed operands, the loop over the blocks.
    block: Option<BlockLoop>,
}

/// The loop over the blocks of a register tile's vector loop, inside a
/// loop over block rows whose operands are packed: its dimension, its
/// bounds (one lower bound) and the most blocks it runs.
struct BlockLoop {
    dim: usize,
    lower: Bound,
    upper: Vec<Bound>,
    extent: i64,
}

/// At most this many bytes of packed operands per loop over block rows:
/// the buffer is on the stack of the thread that runs it, and libomp's
/// worker threads get 4 MiB by default (`OMP_STACKSIZE`).
const PACK_MAX_BYTES: i64 = 1 << 20;

/// Packing costs one copy of each operand; a loop over block rows that
/// runs fewer than this many rows (when its bounds say so) reads them too
/// few times to pay for it.
const PACK_MIN_ROWS: i64 = 4;

/// Where each block already reads its operands as whole vectors (the lanes
/// side by side in the array: gemm's `B[k][8j..8j+8]`), the copy saves
/// strided rows only (TLB entries and cache sets), and pays from this many
/// rows of blocks (doitgen's and symm's 8 do not gain; gemm's 84 do).
const PACK_MIN_ROWS_CONTIGUOUS: i64 = 16;

/// The fewest rows a loop from `lower` to `upper` runs, where a pair of
/// bounds at a constant distance says; `None` when none does.
fn fewest_rows(lower: &[Bound], upper: &[Bound]) -> Option<i64> {
    let last = |b: &Bound| b.row.len() - 1;
    let mut fewest: Option<i64> = None;
    for l in lower {
        for u in upper {
            if u.div == 1
                && l.div == 1
                && u.row.len() == l.row.len()
                && u.row[..last(u)] == l.row[..last(l)]
            {
                let n = u.row[last(u)]
                    .saturating_sub(l.row[last(l)])
                    .saturating_add(1);
                fewest = Some(fewest.map_or(n, |f| f.min(n)));
            }
        }
    }
    fewest
}

/// Every operation's slots (side by side, see [`Emitter::slots`]) read
/// consecutive cells of the last subscript, the others the same: the
/// blocks load them as vectors in place.
fn contiguous_lanes(slots: &[Slot]) -> bool {
    slots.windows(2).all(|w| {
        if w[0].root.key() != w[1].root.key() {
            return true;
        }
        w[0].rows.iter().zip(&w[1].rows).all(|(a, b)| {
            let n = a.len();
            n > 0
                && a[..n - 1] == b[..n - 1]
                && a[n - 1]
                    .iter()
                    .zip(&b[n - 1])
                    .enumerate()
                    .all(|(c, (x, y))| {
                        if c + 1 == a[n - 1].len() {
                            *y == x.saturating_add(1)
                        } else {
                            x == y
                        }
                    })
        })
    })
}

/// The child of `body` (itself, or one of its sequence) that is a loop over
/// `k` with a straight-line body, the one with the most statement
/// instances, and those instances.
fn inner_k_loop(body: &Node, k: usize, np: usize) -> Option<(&Node, Instances)> {
    let children: Vec<&Node> = match body {
        Node::Seq(v) => v.iter().collect(),
        other => vec![other],
    };
    let mut best: Option<(&Node, Instances)> = None;
    for c in children {
        if let Node::Loop {
            dim: d, body: kb, ..
        } = c
        {
            if *d == k {
                if let Some(inst) = straight_line(kb, np) {
                    if best.as_ref().is_none_or(|(_, b)| b.len() < inst.len()) {
                        best = Some((c, inst));
                    }
                }
            }
        }
    }
    best
}

/// [`inner_k_loop`]'s loop when it has no stride and its bounds are
/// undivided and do not depend on the dimensions `not`: the loop, its
/// instances and its bounds.
fn k_loop_free_of<'n>(
    body: &'n Node,
    k: usize,
    np: usize,
    not: &[usize],
) -> Option<(&'n Node, Instances, &'n [Bound], &'n [Bound])> {
    let (node, instances) = inner_k_loop(body, k, np)?;
    let Node::Loop {
        lower,
        upper,
        stride: None,
        ..
    } = node
    else {
        return None;
    };
    if lower
        .iter()
        .chain(upper.iter())
        .any(|b| b.div != 1 || not.iter().any(|&d| b.row[np + d] != 0))
    {
        return None;
    }
    Some((node, instances, lower, upper))
}

/// Slots of a buffer of operands computed ahead, per instance in emission
/// order (the operation read from the buffer, its slot), and their
/// element type.
type Slots = (Vec<Slot>, Vec<Vec<(usize, usize)>>, String);

impl Hoist {
    /// The buffer of `plan`'s operands, read by its loop, not yet active;
    /// `block`: the blocks and layout of a packed buffer.
    fn new(plan: HoistPlan, buffer: Val, block: Option<Panel>) -> Hoist {
        Hoist {
            node: plan.node,
            active: false,
            instances: plan.instances,
            next: 0,
            buffer,
            k_dim: plan.k_dim,
            size: plan.size,
            block,
        }
    }

    /// `n` is the loop whose instances read the buffer.
    pub(super) fn is_read_by(&self, n: &Node) -> bool {
        std::ptr::eq(n as *const Node, self.node)
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
                let op = slice
                    .iter()
                    .find(|o| o.key() == root)
                    .copied()
                    .ok_or("internal error: a hoisted operation outside its statement")?;
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
                skip.insert(root);
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

    /// The arrays (roots) that the statements inside `node` write: a
    /// buffer filled before a loop with body `node` from other arrays
    /// holds the values its instances would read.
    fn written_in(&self, node: &Node) -> Vec<usize> {
        use crate::scop::model::AccessKind;
        let scop = self.scop;
        crate::codegen::tree::promote::statements_under(node)
            .iter()
            .flat_map(|&t| &scop.statements[t].accesses)
            .filter(|a| a.kind == AccessKind::Write)
            .map(|a| scop.root_of(&scop.arrays[a.array.0]).key())
            .collect()
    }

    /// The operations of statement `s` whose values can be computed ahead
    /// of their instance, before a loop whose statements write the arrays
    /// (roots) `written` only: pure arithmetic on loads of other arrays
    /// and on values defined outside the SCoP's loops, with at least one
    /// load below. Each comes with the loads below it, in program order
    /// (gemm's `alpha * A[i][k]` with `A[i][k]`, and the product with
    /// `B[k][j]` with both). With `loads`, those loads too, each with
    /// itself.
    fn ahead_ops(&self, s: usize, loads: bool, written: &[usize]) -> Vec<(Op, Vec<Op>)> {
        let scop = self.scop;
        let st = &scop.statements[s];
        let slice = self.slice(s);
        // Per operation of the slice computable ahead: its loads.
        let mut ahead: HashMap<usize, Vec<Op>> = HashMap::new();
        let mut out = Vec::new();
        for &op in &slice {
            let name = op.name();
            if name == "affine.load" {
                let Some(a) = st
                    .accesses
                    .iter()
                    .find(|a| self.scop.op_of(a).key() == op.key())
                else {
                    continue;
                };
                let root = scop.root_of(&scop.arrays[a.array.0]).key();
                if !written.contains(&root) && !self.expanded.contains_key(&op.key()) {
                    ahead.insert(op.key(), vec![op]);
                    if loads {
                        out.push((op, vec![op]));
                    }
                }
                continue;
            }
            let pure = (name.starts_with("arith.") || name.starts_with("math."))
                && op.num_results() == 1
                && op.regions().is_empty();
            if !pure {
                continue;
            }
            let mut loads = Vec::new();
            let mut ok = true;
            for v in op.operands() {
                match v.defining_op() {
                    Some(d) if slice.iter().any(|o| o.key() == d.key()) => {
                        match ahead.get(&d.key()) {
                            Some(l) => loads.extend(l.iter().copied()),
                            // A constant inside the loops: cloned with the
                            // rest, as one outside them would be read.
                            None if d.name() == "arith.constant" => {}
                            None => ok = false,
                        }
                    }
                    // Defined outside the loops: a parameter or a constant.
                    Some(d) if !cloned_with_statements(scop, d) => {}
                    Some(_) => ok = false,
                    // A block argument: an induction variable (not
                    // mapped ahead), or a function argument.
                    None => {
                        if self.scop.ivs_of(st).iter().any(|iv| iv.key() == v.key())
                            || v.owner_block()
                                .and_then(|b| b.parent_op())
                                .is_some_and(|p| in_scop(scop, p))
                        {
                            ok = false;
                        }
                    }
                }
            }
            if ok && !loads.is_empty() {
                loads.sort_by_key(|l| self.order.get(&l.key()).copied().unwrap_or(usize::MAX));
                loads.dedup_by_key(|l| l.key());
                ahead.insert(op.key(), loads.clone());
                out.push((op, loads));
            }
        }
        out
    }

    /// Block-invariant operands of a register tile (see the module text of
    /// [`crate::transform`]): for the loop over `dim`, the blocks of the
    /// vector loop, whose body holds a loop over `k` (the loop inside the
    /// tile) with a straight-line body, the operations of that body's
    /// instances that [`Emitter::ahead_ops`] can compute ahead and
    /// whose loads' subscripts do not depend on `dim`: gemm's `alpha *
    /// A[i][k]`, recomputed for every block of `j` although it depends on
    /// `i` and `k` only. `None` when there are none, when `k`'s bounds
    /// depend on `dim`, or when the statements' tile sizes of `k` differ.
    ///
    /// Exactness: the buffer is filled, before the loop over `dim`, by a
    /// loop over `k` with the same bounds, with the same operations on the
    /// same cells (loads of arrays that no statement inside the loop over
    /// `dim` writes, which therefore hold there the values they held
    /// before it), so each instance reads the
    /// value it would have computed. The inner loop's values lie in one
    /// tile of `k` (its tile size `T`: consecutive values), so slot
    /// `[k mod T][q]` holds one value per iteration.
    pub(super) fn hoisted_operands(
        &self,
        dim: usize,
        k: usize,
        block_bounds: (&[Bound], &[Bound]),
        body: &Node,
    ) -> Result<Option<HoistPlan>, EmitError> {
        if block_bounds
            .0
            .iter()
            .chain(block_bounds.1)
            .any(|b| b.div != 1)
        {
            return Ok(None);
        }
        let np = self.np();
        let Some((node, instances, lower, upper)) = k_loop_free_of(body, k, np, &[dim]) else {
            return Ok(None);
        };
        let Some(size) = self.tile_size_of(&instances) else {
            return Ok(None);
        };
        let written = self.written_in(body);
        let Some((slots, per_instance, elem)) = self.slots(&instances, dim, &[k], None, &written)
        else {
            return Ok(None);
        };
        Ok(Some(HoistPlan {
            node: node as *const Node,
            lower: lower.to_vec(),
            upper: upper.to_vec(),
            slots,
            instances: per_instance,
            elem,
            size,
            k_dim: k,
            block: None,
        }))
    }

    /// The tile size of the loop inside the register tile that
    /// `instances`' statements share; `None` when they differ.
    fn tile_size_of(&self, instances: &Instances) -> Option<i64> {
        let size = match instances.first() {
            Some((s, _)) => self.r_size.get(*s).copied().unwrap_or(0),
            None => 0,
        };
        if size < 1
            || instances
                .iter()
                .any(|(s, _)| self.r_size.get(*s).copied() != Some(size))
        {
            return None;
        }
        Some(size)
    }

    /// The slots of a buffer of operands computed ahead for `instances`:
    /// the operations that [`Emitter::ahead_ops`] can compute ahead whose
    /// loads' subscripts do not depend on `excluded` and depend only on the
    /// loops around the current point and on `free` (bound when the buffer
    /// is filled), the outermost such operations (the roots), one slot per
    /// root and subscripts; with `needed`, only roots whose subscripts
    /// depend on that dimension, and loads by themselves among them (a
    /// copy). `None` when there is none.
    fn slots(
        &self,
        instances: &Instances,
        excluded: usize,
        free: &[usize],
        needed: Option<usize>,
        written: &[usize],
    ) -> Option<Slots> {
        let np = self.np();
        let w = np + self.ivs.len() + self.divs.len() + 1;
        let mut ahead_of: AheadOps = HashMap::new();
        let mut slots: Vec<Slot> = Vec::new();
        let mut keys: Vec<(usize, Vec<Vec<Row>>)> = Vec::new();
        let mut per_instance = Vec::new();
        let mut elem: Option<String> = None;
        for (s, its) in instances {
            let st = &self.scop.statements[*s];
            let (slice, ahead) = ahead_of
                .entry(*s)
                .or_insert_with(|| {
                    (
                        self.slice(*s),
                        self.ahead_ops(*s, needed.is_some(), written),
                    )
                })
                .clone();
            // The operations whose loads are the same wherever `excluded`
            // goes, with their subscripts at this instance.
            let mut good: Vec<(Op, Vec<Vec<Row>>)> = Vec::new();
            for (op, loads) in &ahead {
                let mut rows = Vec::new();
                for l in loads {
                    let Some(a) = st
                        .accesses
                        .iter()
                        .find(|a| self.scop.op_of(a).key() == l.key())
                    else {
                        break;
                    };
                    match subscript_rows(a, its, np, np + self.ivs.len(), w) {
                        // Outer loops and `free` only: not `excluded`,
                        // nothing unbound.
                        Some(r)
                            if r.iter().all(|row| {
                                (0..self.ivs.len()).all(|d| {
                                    row[np + d] == 0
                                        || (d != excluded
                                            && (free.contains(&d) || self.ivs[d].is_some()))
                                })
                            }) =>
                        {
                            rows.push(r)
                        }
                        _ => break,
                    }
                }
                if rows.len() == loads.len() {
                    good.push((*op, rows));
                }
            }
            // The roots: used by an operation that is not among them.
            let is_good = |o: &Op| good.iter().any(|(g, _)| g.key() == o.key());
            let roots: Vec<(Op, Vec<Vec<Row>>)> = good
                .iter()
                .filter(|(op, _)| {
                    slice.iter().any(|u| {
                        !is_good(u)
                            && u.operands()
                                .iter()
                                .any(|v| v.defining_op().is_some_and(|d| d.key() == op.key()))
                    })
                })
                .filter(|(_, rows)| {
                    needed.is_none_or(|d| rows.iter().flatten().any(|row| row[np + d] != 0))
                })
                .cloned()
                .collect();
            let mut here = Vec::new();
            for (root, rows) in roots {
                let Some(ty) = root.result(0).map(|r| r.type_text()) else {
                    continue;
                };
                if elem.as_ref().is_some_and(|e| *e != ty) {
                    continue;
                }
                elem = Some(ty);
                let key = (root.key(), rows.clone());
                let slot = match keys.iter().position(|x| *x == key) {
                    Some(q) => q,
                    None => {
                        keys.push(key);
                        slots.push(Slot {
                            stmt: *s,
                            iters: its.clone(),
                            root,
                            rows,
                        });
                        slots.len() - 1
                    }
                };
                here.push((root.key(), slot));
            }
            per_instance.push(here);
        }
        let elem = elem?;
        if slots.is_empty() {
            return None;
        }
        if needed.is_some() {
            // Packed: the slots of one operation side by side, in the
            // order of the unrolled vector loop (contiguous lanes: vector
            // loads), operations in order of first use.
            let mut order: Vec<usize> = (0..slots.len()).collect();
            let first: Vec<usize> = slots
                .iter()
                .map(|x| {
                    slots
                        .iter()
                        .position(|y| y.root.key() == x.root.key())
                        .unwrap_or(0)
                })
                .collect();
            order.sort_by_key(|&q| (first[q], q));
            let mut new_of = vec![0; slots.len()];
            for (new, &old) in order.iter().enumerate() {
                new_of[old] = new;
            }
            let mut taken: Vec<Option<Slot>> = slots.into_iter().map(Some).collect();
            let slots: Vec<Slot> = order.iter().filter_map(|&q| taken[q].take()).collect();
            for here in &mut per_instance {
                for (_, q) in here.iter_mut() {
                    *q = new_of[*q];
                }
            }
            return Some((slots, per_instance, elem));
        }
        Some((slots, per_instance, elem))
    }

    /// Row-invariant operands of a register tile (see the module text):
    /// for the loop over `rows` (the blocks' rows) whose body holds a
    /// loop over `blocks` (the blocks of the vector loop), whose body holds
    /// a loop over `k` (the loop inside the tile) with a straight-line
    /// body, the operations of that body's instances that
    /// [`Emitter::ahead_ops`] can compute ahead and whose loads' subscripts
    /// depend on `blocks` but not on `rows`: gemm's `B[k][j]`, loaded again
    /// for every block row although it depends on `k` and `j` only. `None`
    /// when there are none, when the bounds of `blocks` or `k` depend on
    /// `rows`, or `k`'s on `blocks`, when the number of blocks is not
    /// bounded by a constant, when the statements' tile sizes of `k`
    /// differ, when the buffer would pass [`PACK_MAX_BYTES`] or when
    /// `rows`' bounds say it runs fewer than [`PACK_MIN_ROWS`] rows.
    ///
    /// Exactness: the blocks and `k` run over the same ranges in every row
    /// (their bounds do not depend on it), and each instance of the
    /// straight-line body runs at each of their points, so the cells the
    /// buffer is filled from, before the loop over `rows` and only when it
    /// runs, are cells the blocks load; they are of arrays that no
    /// statement inside the loop over `rows` writes (which therefore hold
    /// there the values they held before it), and
    /// the fill computes the same operations on them, so each instance
    /// reads the value it would have computed. Slot `[b - lower][k mod
    /// T][q]` holds one value per block and iteration of `k` (consecutive
    /// values, within one tile of `k`).
    pub(super) fn packed_operands(
        &self,
        rows: usize,
        blocks: usize,
        k: usize,
        row_bounds: (&[Bound], &[Bound]),
        body: &Node,
    ) -> Result<Option<HoistPlan>, EmitError> {
        let np = self.np();
        let last = |b: &Bound| b.row.len() - 1;
        // Enough rows to pay for the copy, when the bounds tell.
        let rows_run = fewest_rows(row_bounds.0, row_bounds.1);
        if rows_run.is_some_and(|n| n < PACK_MIN_ROWS) {
            return Ok(None);
        }
        let children: Vec<&Node> = match body {
            Node::Seq(v) => v.iter().collect(),
            other => vec![other],
        };
        let Some(Node::Loop {
            lower: b_lower,
            upper: b_upper,
            stride: None,
            body: b_body,
            ..
        }) = children
            .into_iter()
            .find(|c| matches!(c, Node::Loop { dim, .. } if *dim == blocks))
        else {
            return Ok(None);
        };
        let [b_lo] = b_lower.as_slice() else {
            return Ok(None);
        };
        if b_lower
            .iter()
            .chain(b_upper)
            .any(|b| b.div != 1 || b.row[np + rows] != 0)
        {
            return Ok(None);
        }
        // The most blocks: an upper bound at a constant from the lower one.
        let extent = b_upper
            .iter()
            .filter(|u| u.row.len() == b_lo.row.len() && u.row[..last(u)] == b_lo.row[..last(b_lo)])
            .map(|u| u.row[last(u)] - b_lo.row[last(b_lo)] + 1)
            .min();
        let Some(extent) = extent.filter(|&e| e >= 1) else {
            return Ok(None);
        };
        let Some((node, instances, lower, upper)) = k_loop_free_of(b_body, k, np, &[rows, blocks])
        else {
            return Ok(None);
        };
        let Some(size) = self.tile_size_of(&instances) else {
            return Ok(None);
        };
        let Some((slots, per_instance, elem)) = self.slots(
            &instances,
            rows,
            &[k, blocks],
            Some(blocks),
            &self.written_in(body),
        ) else {
            return Ok(None);
        };
        if contiguous_lanes(&slots) && rows_run.is_some_and(|n| n < PACK_MIN_ROWS_CONTIGUOUS) {
            return Ok(None);
        }
        let bytes = element_bytes(&elem)
            .and_then(|b| b.checked_mul(extent))
            .and_then(|b| b.checked_mul(size))
            .and_then(|b| b.checked_mul(slots.len() as i64));
        if bytes.is_none_or(|b| b > PACK_MAX_BYTES) {
            return Ok(None);
        }
        Ok(Some(HoistPlan {
            node: node as *const Node,
            lower: lower.to_vec(),
            upper: upper.to_vec(),
            slots,
            instances: per_instance,
            elem,
            size,
            k_dim: k,
            block: Some(BlockLoop {
                dim: blocks,
                lower: b_lo.clone(),
                upper: b_upper.clone(),
                extent,
            }),
        }))
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
        let top = matches!(at, Point::Before(_));
        match store {
            Some(v) => {
                let mut ops = vec![v, buffer];
                ops.extend(operands);
                let (st, _) = self
                    .b
                    .create(at, "affine.store", &ops, 0, &[("map", map)], &[]);
                if top {
                    created.push(st);
                }
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
                if top {
                    created.push(ld);
                }
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
        plan: HoistPlan,
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
        let pairs = !lower.is_empty() && !upper.is_empty();
        if pairs && lower.iter().chain(upper).any(|b| b.div != 1) {
            return Err("internal error: hoisting with divided block bounds".into());
        }
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
        self.hoist = Some(Hoist::new(plan, buffer, None));
        let r = self.plain_loop(l, l.role.is_parallel(), inside, created);
        let h = self.hoist.take();
        r?;
        if h.is_some_and(|h| h.next != h.instances.len()) {
            return Err("internal error: hoisted-operand instances out of step".into());
        }
        Ok(())
    }

    /// Before the loop over block rows from `lower` to `upper` (at `at`),
    /// the buffer of `plan` (from [`Emitter::packed_operands`]), a
    /// `memref.alloca` placed by [`Emitter::stack_point`], filled by a loop
    /// over `k` around a loop over the blocks (rows of the arrays read in
    /// order), only when the loop over block rows runs; the blocks then
    /// read it. False when that loop never runs (nothing done).
    pub(super) fn fill_packed(
        &mut self,
        mut plan: HoistPlan,
        fill: PackFill,
        lower: &[Bound],
        upper: &[Bound],
        at: Point,
        created: &mut Vec<Op>,
    ) -> Result<bool, EmitError> {
        let block = plan
            .block
            .take()
            .ok_or("internal error: packing without a loop over blocks")?;
        let (dims, operands) = self.operands();
        let pairs = !lower.is_empty() && !upper.is_empty();
        if pairs && lower.iter().chain(upper).any(|b| b.div != 1) {
            return Ok(false);
        }
        let Some(conds) = self.runs_once_conds(lower, upper, &dims)? else {
            return Ok(false); // a constant empty range
        };
        let group = fill.group(&plan.slots, self.broadcasts(&plan.slots));
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
        let result = self.fill_groups(&plan, buffer, &lead, Point::End(b_loop), created);
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
        self.pack = Some(Hoist::new(plan, buffer, Some(lead)));
        Ok(true)
    }

    /// The values that the arithmetic of `slots` reads and a fill loop
    /// keeps in vector registers throughout: those from outside the
    /// statements (syr2k's `alpha`) and the constants inside them, which
    /// LLVM hoists out of the loop. Not the loads' subscripts nor what
    /// computes them: addresses, in the other registers.
    fn broadcasts(&self, slots: &[Slot]) -> usize {
        let mut held = HashSet::new();
        let mut slices: HashMap<usize, Vec<Op>> = HashMap::new();
        for slot in slots {
            let slice = slices
                .entry(slot.stmt)
                .or_insert_with(|| self.slice(slot.stmt));
            let values = backward_slice(slice, slot.root, false);
            for op in slice
                .iter()
                .filter(|o| values.contains(&o.key()) && !is_load(**o))
            {
                if op.name() == "arith.constant" {
                    held.extend(op.result(0).map(|v| v.key()));
                }
                for v in op.operands() {
                    if !v.defining_op().is_some_and(|d| values.contains(&d.key())) {
                        held.insert(v.key());
                    }
                }
            }
        }
        held.len()
    }

    /// At the end of `at` (the body of the loop over the blocks), the
    /// loops over `k` that fill `buffer`'s slots of `plan`: one, or one per
    /// group of `lead`'s layout.
    fn fill_groups(
        &mut self,
        plan: &HoistPlan,
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
        slot: &Slot,
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
        let slice = self.slice(slot.stmt);
        let needed = backward_slice(&slice, slot.root, true);
        for op in slice.iter().filter(|o| needed.contains(&o.key())) {
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
        let v = slot
            .root
            .result(0)
            .and_then(|r| map.get(&r.key()).copied())
            .ok_or("internal error: hoisted value not computed")?;
        self.buffer_access(buf, q, Some(v), at, created)?;
        Ok(())
    }
}

/// The operations of `slice` (a statement's, in order) that `root`'s value
/// depends on, `root` included, by key; through the loads' subscripts
/// (what computes the addresses) only with `subscripts`.
fn backward_slice(slice: &[Op], root: Op, subscripts: bool) -> HashSet<usize> {
    let inside: HashSet<usize> = slice.iter().map(|o| o.key()).collect();
    let mut needed = HashSet::from([root.key()]);
    for op in slice.iter().rev() {
        if !needed.contains(&op.key()) || (!subscripts && is_load(*op)) {
            continue;
        }
        for v in op.operands() {
            if let Some(d) = v.defining_op().filter(|d| inside.contains(&d.key())) {
                needed.insert(d.key());
            }
        }
    }
    needed
}

/// A load of the arrays.
fn is_load(op: Op) -> bool {
    matches!(op.name().as_str(), "affine.load" | "memref.load")
}

/// The bytes of one value of the scalar type `ty` (`f64`, `i32`, `index`),
/// `None` for other types.
fn element_bytes(ty: &str) -> Option<i64> {
    if ty == "index" {
        return Some(8);
    }
    let bits: i64 = ty.strip_prefix(['f', 'i'])?.parse().ok()?;
    (bits > 0 && bits % 8 == 0).then_some(bits / 8)
}
