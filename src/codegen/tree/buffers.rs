//! Buffers of operands computed ahead, decided: for each register tile
//! (`transform/register_tile.rs`; its first unrolled dimension `u`), the
//! loop over the blocks of its vector loop (`u - 2`) gets the operands of
//! the loop inside the tile (`u - 1`) that do not change from block to
//! block computed once before it (`hoist`,
//! [`HoistMark`]), and the loop over the
//! blocks' rows (`u - 3`) gets those that do not change from row to row
//! packed once before it (`pack`,
//! [`PackMark`], with the target's
//! registers for the loops that fill the buffer). The buffers' depth is
//! each statement's tile size of the loop inside the tile
//! ([`Tree::register_sizes`]).
//!
//! Then, for each marked loop, the buffer itself ([`BufferPlan`]): the
//! operations of the statements' bodies that can be computed ahead, their
//! slots and the loop that reads them, where they have the shape a buffer
//! needs (the same tile size, subscripts free of the block's loops, a
//! bounded size); the printer (`emit/hoist.rs`) fills and reads it. Why
//! the values read from a buffer are those the instances would have
//! computed: `Buffers::hoisted_operands` and `Buffers::packed_operands`.
//!
//! Packing: the values that do not change from one block row to the next
//! (gemm's `B[k][j]`) are copied once per tile, before the loop over the
//! block rows, into a stack buffer laid out block by block (`[block][k mod
//! T][slot]`), and read from it inside the blocks: each block then streams
//! one contiguous panel instead of one row of the array per value of `k`
//! (BLIS's packed panels, without the copy of the other operand, which the
//! hoisting already makes). Where its slots are more rows of the arrays
//! than one loop transposes in the target's registers ([`PackFill`]), a
//! loop per group of them fills the buffer, laid out group by group
//! (`[block][group][k mod T][slot]`).

use std::collections::{HashMap, HashSet};

use super::{each_loop, each_loop_around, Around, LoopAt, Note, TreeCx};
use crate::codegen::ast::{
    BlockLoop, Bound, BufferPlan, BufferSlot, HoistMark, Node, PackFill, PackMark, Row, Tree,
};
use crate::codegen::instances::{expanded_accesses, straight_line, subscript_rows, Instances};
use crate::scop::expansion::element_bytes;
use crate::scop::model::{AccessKind, BodyOp, IrRef, Operand, Statement};
use crate::target::L1Sets;

/// Marks the loops over blocks and over block rows of the register tiles.
pub fn run(tree: &mut Tree, cx: &TreeCx) -> Note {
    let tiles = cx.register_tiles;
    tree.register_sizes = cx.register_sizes.to_vec();
    // Hoisting and packing read the operands of the loop inside the tile
    // from the blocks' loops around it: only where no loop runs between.
    let hoist = |dim: usize| {
        tiles
            .iter()
            .filter(|t| t.between == 0)
            .find(|t| t.vector_blocks() == Some(dim))
            .and_then(|t| t.inner())
            .map(|inner| HoistMark { inner })
    };
    let pack = |dim: usize| {
        tiles
            .iter()
            .filter(|t| t.between == 0)
            .find(|t| t.row_blocks() == Some(dim))
            .map(|t| PackMark {
                blocks: t.first - 2,
                inner: t.first - 1,
                fill: cx.fill,
            })
    };
    let loops = each_loop(&mut tree.root, &mut |dim, strided, _, marks, _| {
        if strided {
            return false;
        }
        marks.hoist = hoist(dim).filter(|_| cx.hoist);
        marks.pack = pack(dim).filter(|_| cx.pack);
        marks.hoist.is_some() || marks.pack.is_some()
    });
    let expanded = expanded_accesses(cx.model);
    let b = Buffers {
        cx,
        expanded: &expanded,
    };
    each_loop_around(tree, cx.model.params.len(), &mut |around, l, marks| {
        if let Some(h) = marks.hoist {
            marks.hoisted = b.hoisted_operands(around, &l, h.inner).map(Box::new);
        }
        if let Some(p) = marks.pack {
            marks.packed = b
                .packed_operands(around, &l, (p.blocks, p.inner), p.fill)
                .map(Box::new);
        }
    });
    mark_readers(&mut tree.root);
    Note { loops }
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

impl PackFill {
    /// The slots per fill loop for `slots`, whose arithmetic reads
    /// `broadcasts` values from outside the statements: all of them
    /// (`None`) where they fit one loop, are side by side in memory, or no
    /// group size fits; else the largest group size that divides them, is
    /// a multiple of the lanes and fits.
    fn group(&self, slots: &[BufferSlot], broadcasts: usize) -> Option<usize> {
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

/// Marks the loop that reads each buffer: the loop over
/// [`BufferPlan::k_dim`] at [`BufferPlan::reader`] in the marked loop's
/// body.
fn mark_readers(n: &mut Node) {
    match n {
        Node::Seq(v) => v.iter_mut().for_each(mark_readers),
        Node::Loop {
            dim, marks, body, ..
        } => {
            let paths = [
                marks.hoisted.as_ref().map(|h| (h.reader.clone(), true)),
                marks.packed.as_ref().map(|p| (p.reader.clone(), false)),
            ];
            for (path, hoisted) in paths.into_iter().flatten() {
                if let Some(Node::Loop { marks, .. }) = at_path(body, &path) {
                    if hoisted {
                        marks.reads_hoisted = Some(*dim);
                    } else {
                        marks.reads_packed = Some(*dim);
                    }
                }
            }
            mark_readers(body);
        }
        Node::If { body, .. } | Node::Let { body, .. } => mark_readers(body),
        Node::Stmt { .. } => {}
    }
}

/// The node at `path` below `body`: per step, a child of a sequence (or
/// position 0 for a node that is not one), then that loop's body for the
/// next step.
fn at_path<'n>(body: &'n mut Node, path: &[usize]) -> Option<&'n mut Node> {
    let (&first, rest) = path.split_first()?;
    let child = match body {
        Node::Seq(v) => v.get_mut(first)?,
        other if first == 0 => other,
        _ => return None,
    };
    if rest.is_empty() {
        return Some(child);
    }
    match child {
        Node::Loop { body, .. } => at_path(body, rest),
        _ => None,
    }
}

/// The children of a loop's body: a sequence's, or itself.
fn children(body: &Node) -> Vec<&Node> {
    match body {
        Node::Seq(v) => v.iter().collect(),
        other => vec![other],
    }
}

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

/// Every operation's slots (side by side, see [`Buffers::slots`]) read
/// consecutive cells of the last subscript, the others the same: the
/// blocks load them as vectors in place.
fn contiguous_lanes(slots: &[BufferSlot]) -> bool {
    slots.windows(2).all(|w| {
        if w[0].id != w[1].id {
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
/// `k` with a straight-line body, the first with the most statement
/// instances: its position, the loop, and those instances.
fn inner_k_loop(body: &Node, k: usize, np: usize) -> Option<(usize, &Node, Instances)> {
    let mut best: Option<(usize, &Node, Instances)> = None;
    for (i, c) in children(body).into_iter().enumerate() {
        if let Node::Loop {
            dim: d, body: kb, ..
        } = c
        {
            if *d == k {
                if let Some(inst) = straight_line(kb, np) {
                    if best.as_ref().is_none_or(|(_, _, b)| b.len() < inst.len()) {
                        best = Some((i, c, inst));
                    }
                }
            }
        }
    }
    best
}

/// [`inner_k_loop`]'s loop when it has no stride and its bounds are
/// undivided and do not depend on the dimensions `not`: its position, its
/// instances and its bounds.
fn k_loop_free_of<'n>(
    body: &'n Node,
    k: usize,
    np: usize,
    not: &[usize],
) -> Option<(usize, Instances, &'n [Bound], &'n [Bound])> {
    let (pos, node, instances) = inner_k_loop(body, k, np)?;
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
    Some((pos, instances, lower, upper))
}

/// A load of the arrays.
fn is_load(op: &BodyOp) -> bool {
    matches!(op.name.as_str(), "affine.load" | "memref.load")
}

/// The operations of `body` (a statement's, in order) that the value of
/// its operation `root` depends on, `root` included, by position; through
/// the loads' subscripts (what computes the addresses) only with
/// `subscripts`.
pub(crate) fn backward_slice(body: &[BodyOp], root: usize, subscripts: bool) -> HashSet<usize> {
    let mut needed = HashSet::from([root]);
    for (i, op) in body.iter().enumerate().rev() {
        if !needed.contains(&i) || (!subscripts && is_load(op)) {
            continue;
        }
        for v in &op.operands {
            if let Operand::Op(d) = v {
                needed.insert(*d);
            }
        }
    }
    needed
}

/// Slots of a buffer, per instance in printing order (the operation read
/// from the buffer, its slot), and their element type.
type Slots = (Vec<BufferSlot>, Vec<Vec<(IrRef, usize)>>, String);

/// The operations of a body computable ahead, each with the loads below it
/// (positions in the body).
type Ahead = Vec<(usize, Vec<usize>)>;

/// The plan of a buffer of `slots` for the loop over `k` (its bounds), of
/// depth `size`, read by the loop at `reader`; without blocks (hoisted).
fn buffer_plan(
    k: usize,
    (lower, upper): (&[Bound], &[Bound]),
    (slots, instances, elem): Slots,
    size: i64,
    reader: Vec<usize>,
) -> BufferPlan {
    BufferPlan {
        k_dim: k,
        lower: lower.to_vec(),
        upper: upper.to_vec(),
        slots,
        instances,
        elem,
        size,
        block: None,
        group: None,
        reader,
    }
}

/// What the buffer decisions read: the stages' context and the accesses
/// to expanded arrays.
struct Buffers<'c, 'a> {
    cx: &'c TreeCx<'a>,
    expanded: &'c HashMap<usize, usize>,
}

impl Buffers<'_, '_> {
    /// The arrays that the statements inside `node` write: a buffer filled
    /// before a loop with body `node` from other arrays holds the values
    /// its instances would read.
    fn written_in(&self, node: &Node) -> Vec<usize> {
        let model = self.cx.model;
        crate::codegen::tree::promote::statements_under(node)
            .iter()
            .filter_map(|&t| model.statements.get(t))
            .flat_map(|st| &st.accesses)
            .filter(|a| a.kind == AccessKind::Write)
            .map(|a| a.array.0)
            .collect()
    }

    /// The operations of statement `st` whose values can be computed ahead
    /// of their instance, before a loop whose statements write the arrays
    /// `written` only: pure arithmetic on loads of other arrays and on
    /// values defined outside the SCoP's loops, with at least one load
    /// below. Each comes with the loads below it, in program order (gemm's
    /// `alpha * A[i][k]` with `A[i][k]`, and the product with `B[k][j]`
    /// with both). With `loads`, those loads too, each with itself.
    fn ahead_ops(&self, st: &Statement, loads: bool, written: &[usize]) -> Ahead {
        let mut ahead: HashMap<usize, Vec<usize>> = HashMap::new();
        let mut out = Vec::new();
        for (i, op) in st.body.iter().enumerate() {
            if op.name == "affine.load" {
                let Some(a) = op.access.and_then(|a| st.accesses.get(a)) else {
                    continue;
                };
                if !written.contains(&a.array.0) && !self.expanded.contains_key(&a.ir.0) {
                    ahead.insert(i, vec![i]);
                    if loads {
                        out.push((i, vec![i]));
                    }
                }
                continue;
            }
            let pure = (op.name.starts_with("arith.") || op.name.starts_with("math."))
                && op.results == 1
                && !op.regions;
            if !pure {
                continue;
            }
            let mut below = Vec::new();
            let mut ok = true;
            for v in &op.operands {
                match v {
                    Operand::Op(d) => match ahead.get(d) {
                        Some(l) => below.extend(l.iter().copied()),
                        // A constant inside the loops: cloned with the
                        // rest, as one outside them would be read.
                        None if st.body[*d].name == "arith.constant" => {}
                        None => ok = false,
                    },
                    // Defined outside the loops: a parameter or a constant.
                    Operand::Outside(_) => {}
                    // An induction variable (not mapped ahead), or a value
                    // of the loops outside the body.
                    Operand::Inside => ok = false,
                }
            }
            if ok && !below.is_empty() {
                below.sort_unstable();
                below.dedup();
                ahead.insert(i, below.clone());
                out.push((i, below));
            }
        }
        out
    }

    /// The tile size of the loop inside the register tile that
    /// `instances`' statements share; `None` when they differ.
    fn tile_size_of(&self, instances: &Instances) -> Option<i64> {
        let sizes = self.cx.register_sizes;
        let size = match instances.first() {
            Some((s, _)) => sizes.get(*s).copied().unwrap_or(0),
            None => 0,
        };
        if size < 1
            || instances
                .iter()
                .any(|(s, _)| sizes.get(*s).copied() != Some(size))
        {
            return None;
        }
        Some(size)
    }

    /// The slots of a buffer of operands computed ahead for `instances`:
    /// the operations that [`Buffers::ahead_ops`] can compute ahead whose
    /// loads' subscripts do not depend on `excluded` and depend only on the
    /// loops around the current point and on `free` (bound when the buffer
    /// is filled), the outermost such operations (the roots), one slot per
    /// root and subscripts; with `needed`, only roots whose subscripts
    /// depend on that dimension, and loads by themselves among them (a
    /// copy). `None` when there is none.
    fn slots(
        &self,
        around: &Around,
        instances: &Instances,
        (excluded, free): (usize, &[usize]),
        (needed, copies): (Option<usize>, bool),
        written: &[usize],
    ) -> Option<Slots> {
        let (np, n, w) = (around.np, around.n, around.w);
        let model = self.cx.model;
        let mut ahead_of: HashMap<usize, Ahead> = HashMap::new();
        let mut slots: Vec<BufferSlot> = Vec::new();
        let mut keys: Vec<(IrRef, Vec<Vec<Row>>)> = Vec::new();
        let mut per_instance = Vec::new();
        let mut elem: Option<String> = None;
        for (s, its) in instances {
            let st = model.statements.get(*s)?;
            let ahead = ahead_of
                .entry(*s)
                .or_insert_with(|| self.ahead_ops(st, needed.is_some() || copies, written))
                .clone();
            // The operations whose loads are the same wherever `excluded`
            // goes, with their subscripts at this instance.
            let mut good: Vec<(usize, Vec<Vec<Row>>)> = Vec::new();
            for (op, loads) in &ahead {
                let mut rows = Vec::new();
                for &l in loads {
                    let Some(a) = st.body[l].access.and_then(|a| st.accesses.get(a)) else {
                        break;
                    };
                    match subscript_rows(a, its, np, np + n, w) {
                        // Outer loops and `free` only: not `excluded`,
                        // nothing unbound.
                        Some(r)
                            if r.iter().all(|row| {
                                (0..n).all(|d| {
                                    row[np + d] == 0
                                        || (d != excluded && (free.contains(&d) || around.bound[d]))
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
            let is_good = |o: usize| good.iter().any(|(g, _)| *g == o);
            let roots: Vec<(usize, Vec<Vec<Row>>)> =
                good.iter()
                    .filter(|(op, _)| {
                        st.body.iter().enumerate().any(|(u, user)| {
                            !is_good(u) && user.operands.contains(&Operand::Op(*op))
                        })
                    })
                    .filter(|(_, rows)| {
                        needed.is_none_or(|d| rows.iter().flatten().any(|row| row[np + d] != 0))
                    })
                    .cloned()
                    .collect();
            let mut here = Vec::new();
            for (root, rows) in roots {
                let op = &st.body[root];
                if op.results == 0 {
                    continue;
                }
                if elem.as_ref().is_some_and(|e| *e != op.ty) {
                    continue;
                }
                elem = Some(op.ty.clone());
                let key = (op.id, rows.clone());
                let slot = match keys.iter().position(|x| *x == key) {
                    Some(q) => q,
                    None => {
                        keys.push(key);
                        slots.push(BufferSlot {
                            stmt: *s,
                            iters: its.clone(),
                            root,
                            id: op.id,
                            rows,
                        });
                        slots.len() - 1
                    }
                };
                here.push((op.id, slot));
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
                .map(|x| slots.iter().position(|y| y.id == x.id).unwrap_or(0))
                .collect();
            order.sort_by_key(|&q| (first[q], q));
            let mut new_of = vec![0; slots.len()];
            for (new, &old) in order.iter().enumerate() {
                new_of[old] = new;
            }
            let mut taken: Vec<Option<BufferSlot>> = slots.into_iter().map(Some).collect();
            let slots: Vec<BufferSlot> = order.iter().filter_map(|&q| taken[q].take()).collect();
            for here in &mut per_instance {
                for (_, q) in here.iter_mut() {
                    *q = new_of[*q];
                }
            }
            return Some((slots, per_instance, elem));
        }
        Some((slots, per_instance, elem))
    }

    /// Block-invariant operands of a register tile (see the module text of
    /// [`crate::transform`]): for the loop `l` over the blocks of the
    /// vector loop, whose body holds a loop over `k` (the loop inside the
    /// tile) with a straight-line body, the operations of that body's
    /// instances that [`Buffers::ahead_ops`] can compute ahead and whose
    /// loads' subscripts do not depend on `l`'s dimension: gemm's `alpha *
    /// A[i][k]`, recomputed for every block of `j` although it depends on
    /// `i` and `k` only. `None` when there are none, when `k`'s bounds
    /// depend on the blocks' dimension, or when the statements' tile sizes
    /// of `k` differ.
    ///
    /// Exactness: the buffer is filled, before the loop over the blocks,
    /// by a loop over `k` with the same bounds, with the same operations
    /// on the same cells (loads of arrays that no statement inside the
    /// loop over the blocks writes, which therefore hold there the values
    /// they held before it), so each instance reads the value it would
    /// have computed. The inner loop's values lie in one tile of `k` (its
    /// tile size `T`: consecutive values), so slot `[k mod T][q]` holds one
    /// value per iteration.
    fn hoisted_operands(&self, around: &Around, l: &LoopAt, k: usize) -> Option<BufferPlan> {
        let dim = l.dim;
        let np = around.np;
        let (pos, instances, lower, upper) = k_loop_free_of(l.body, k, np, &[dim])?;
        let size = self.tile_size_of(&instances)?;
        let written = self.written_in(l.body);
        // Loads by themselves too where the rows the blocks read crowd
        // the L1's sets.
        let copied = self.cx.l1.and_then(|l1| {
            let slots = self.slots(around, &instances, (dim, &[k]), (None, true), &written)?;
            self.crowd(&slots.0, l1).then_some(slots)
        });
        let slots = match copied {
            Some(s) => s,
            None => self.slots(around, &instances, (dim, &[k]), (None, false), &written)?,
        };
        Some(buffer_plan(k, (lower, upper), slots, size, vec![pos]))
    }

    /// The loads among `slots` (values the blocks read by themselves,
    /// each a slot) of one access at subscripts that differ by constants
    /// (the rows of a block: gemm's `A[i + r][k]`) lie at addresses that
    /// crowd one set of the L1 ([`L1Sets::crowded`], from the memref's
    /// strides): read together at every step of the loop inside the tile,
    /// they would evict one another, which a buffer of them, side by side,
    /// does not (matmul 512x512 f64 in 16x8 blocks, Zen 4, 2 threads: 5.8
    /// ms in place, 2.8 ms copied).
    fn crowd(&self, slots: &[BufferSlot], l1: L1Sets) -> bool {
        let model = self.cx.model;
        // Per memref and access form (the rows without their constants):
        // the slots' offsets in bytes.
        // (memref, form) -> offsets.
        type Group = ((usize, Vec<Row>), Vec<i64>);
        let mut groups: Vec<Group> = Vec::new();
        for slot in slots {
            let Some(st) = model.statements.get(slot.stmt) else {
                continue;
            };
            let Some(op) = st.body.get(slot.root) else {
                continue;
            };
            let Some(acc) = op.access.and_then(|a| st.accesses.get(a)) else {
                continue;
            };
            let (Some(via), [rows]) = (self.cx.vias.get(acc.ir.0), slot.rows.as_slice()) else {
                continue;
            };
            let (Some(memref), Some(strides)) = (via.memref, via.strides.as_ref()) else {
                continue;
            };
            if rows.len() != strides.len() || rows.iter().any(Vec::is_empty) {
                continue;
            }
            let offset = rows
                .iter()
                .zip(strides)
                .try_fold(0i64, |o, (r, &s)| o.checked_add(r.last()?.checked_mul(s)?));
            let Some(offset) = offset else {
                continue;
            };
            let form: Vec<Row> = rows.iter().map(|r| r[..r.len() - 1].to_vec()).collect();
            let key = (memref, form);
            match groups.iter_mut().find(|(k, _)| *k == key) {
                Some((_, offsets)) => offsets.push(offset),
                None => groups.push((key, vec![offset])),
            }
        }
        groups.iter().any(|(_, offsets)| l1.crowded(offsets))
    }

    /// Row-invariant operands of a register tile: for the loop `l` over
    /// the blocks' rows whose body holds a loop over `blocks` (the blocks
    /// of the vector loop), whose body holds a loop over `k` (the loop
    /// inside the tile) with a straight-line body, the operations of that
    /// body's instances that [`Buffers::ahead_ops`] can compute ahead and
    /// whose loads' subscripts depend on `blocks` but not on the rows:
    /// gemm's `B[k][j]`, loaded again for every block row although it
    /// depends on `k` and `j` only. `None` when there are none, when the
    /// bounds of `blocks` or `k` depend on the rows, or `k`'s on `blocks`,
    /// when the number of blocks is not bounded by a constant, when the
    /// statements' tile sizes of `k` differ, when the buffer would pass
    /// [`PACK_MAX_BYTES`] or when the rows' bounds say the loop runs fewer
    /// than [`PACK_MIN_ROWS`] rows. The slots per fill loop follow from
    /// the target's registers (`fill`, [`PackFill::group`]).
    ///
    /// Exactness: the blocks and `k` run over the same ranges in every row
    /// (their bounds do not depend on it), and each instance of the
    /// straight-line body runs at each of their points, so the cells the
    /// buffer is filled from, before the loop over the rows and only when
    /// it runs, are cells the blocks load; they are of arrays that no
    /// statement inside the loop over the rows writes (which therefore hold
    /// there the values they held before it), and the fill computes the
    /// same operations on them, so each instance reads the value it would
    /// have computed. Slot `[b - lower][k mod T][q]` holds one value per
    /// block and iteration of `k` (consecutive values, within one tile of
    /// `k`).
    fn packed_operands(
        &self,
        around: &Around,
        l: &LoopAt,
        (blocks, k): (usize, usize),
        fill: PackFill,
    ) -> Option<BufferPlan> {
        let rows = l.dim;
        let np = around.np;
        let last = |b: &Bound| b.row.len() - 1;
        // Enough rows to pay for the copy, when the bounds tell.
        let rows_run = fewest_rows(l.lower, l.upper);
        if rows_run.is_some_and(|n| n < PACK_MIN_ROWS) {
            return None;
        }
        let (b_pos, b_node) = children(l.body)
            .into_iter()
            .enumerate()
            .find(|(_, c)| matches!(c, Node::Loop { dim, .. } if *dim == blocks))?;
        let Node::Loop {
            lower: b_lower,
            upper: b_upper,
            stride: None,
            body: b_body,
            ..
        } = b_node
        else {
            return None;
        };
        let [b_lo] = b_lower.as_slice() else {
            return None;
        };
        // The blocks' first one is the buffer's first slot (`Panel`):
        // an undivided lower bound. Divided upper bounds (the last whole
        // block under a symbolic size) only cap the blocks.
        if b_lo.div != 1 || b_lower.iter().chain(b_upper).any(|b| b.row[np + rows] != 0) {
            return None;
        }
        // The most blocks: an upper bound at a constant from the lower one.
        let extent = b_upper
            .iter()
            .filter(|u| {
                u.div == 1
                    && u.row.len() == b_lo.row.len()
                    && u.row[..last(u)] == b_lo.row[..last(b_lo)]
            })
            .map(|u| u.row[last(u)] - b_lo.row[last(b_lo)] + 1)
            .min()
            .filter(|&e| e >= 1)?;
        let (k_pos, instances, lower, upper) = k_loop_free_of(b_body, k, np, &[rows, blocks])?;
        let size = self.tile_size_of(&instances)?;
        let written = self.written_in(l.body);
        let (slots, per_instance, elem) = self.slots(
            around,
            &instances,
            (rows, &[k, blocks]),
            (Some(blocks), false),
            &written,
        )?;
        if contiguous_lanes(&slots) && rows_run.is_some_and(|n| n < PACK_MIN_ROWS_CONTIGUOUS) {
            return None;
        }
        let bytes = element_bytes(&elem)
            .and_then(|b| b.checked_mul(extent))
            .and_then(|b| b.checked_mul(size))
            .and_then(|b| b.checked_mul(slots.len() as i64));
        if bytes.is_none_or(|b| b > PACK_MAX_BYTES) {
            return None;
        }
        let group = fill.group(&slots, self.broadcasts(&slots));
        let plan = buffer_plan(
            k,
            (lower, upper),
            (slots, per_instance, elem),
            size,
            vec![b_pos, k_pos],
        );
        Some(BufferPlan {
            block: Some(BlockLoop {
                dim: blocks,
                lower: b_lo.clone(),
                upper: b_upper.clone(),
                extent,
            }),
            group,
            ..plan
        })
    }

    /// The values that the arithmetic of `slots` reads and a fill loop
    /// keeps in vector registers throughout: those from outside the
    /// statements (syr2k's `alpha`) and the constants inside them, which
    /// LLVM hoists out of the loop. Not the loads' subscripts nor what
    /// computes them: addresses, in the other registers.
    fn broadcasts(&self, slots: &[BufferSlot]) -> usize {
        /// A value held: a constant's (by its operation) or one from
        /// outside the loops.
        #[derive(PartialEq, Eq, Hash)]
        enum Held {
            Constant(IrRef),
            Outside(IrRef),
            Inside,
        }
        let mut held = HashSet::new();
        for slot in slots {
            let Some(st) = self.cx.model.statements.get(slot.stmt) else {
                continue;
            };
            let body = &st.body;
            let values = backward_slice(body, slot.root, false);
            for (i, op) in body.iter().enumerate() {
                if !values.contains(&i) || is_load(op) {
                    continue;
                }
                if op.name == "arith.constant" && op.results > 0 {
                    held.insert(Held::Constant(op.id));
                }
                for v in &op.operands {
                    match v {
                        Operand::Op(d) if values.contains(d) => {}
                        Operand::Op(d) => {
                            held.insert(Held::Constant(body[*d].id));
                        }
                        Operand::Outside(x) => {
                            held.insert(Held::Outside(*x));
                        }
                        Operand::Inside => {
                            held.insert(Held::Inside);
                        }
                    }
                }
            }
        }
        held.len()
    }
}

#[cfg(test)]
mod tests {
    use super::run;
    use crate::codegen::ast::{HoistMark, LoopMarks, PackMark};
    use crate::codegen::tree::build::{loop_p1, loops, par, row_p1, seq, stmt, tree};
    use crate::codegen::tree::{test_cx, TreeCx};
    use crate::transform::RegisterTile;

    /// A register tile of 4x8 blocks whose first unrolled loop is `first`.
    fn register_tile(first: usize) -> RegisterTile {
        RegisterTile {
            first,
            rows: 4,
            columns: 8,
            between: 0,
        }
    }

    /// A register tile with its first unrolled loop at t4: block rows t1,
    /// blocks of the vector loop t2, the loop inside the tile t3.
    fn tile() -> crate::codegen::ast::Tree {
        tree(seq(0, par(1, seq(2, seq(3, stmt(0))))), 1)
    }

    #[test]
    fn tiles_mark_block_rows_for_packing_and_blocks_for_hoisting() {
        let mut t = tile();
        let cx = TreeCx {
            register_tiles: &[register_tile(4)],
            register_sizes: &[64],
            hoist: true,
            pack: true,
            ..test_cx()
        };
        assert_eq!(run(&mut t, &cx).loops, 2);
        let l = loops(&t);
        // Packing on the (parallel) block rows, with the target's fill.
        assert_eq!(
            l[1].2.pack,
            Some(PackMark {
                blocks: 2,
                inner: 3,
                fill: cx.fill
            })
        );
        assert_eq!(l[1].2.hoist, None);
        assert_eq!(l[2].2.hoist, Some(HoistMark { inner: 3 }));
        assert_eq!(l[2].2.pack, None);
        assert!(l[0].2.pack.is_none() && l[3].2.hoist.is_none());
        assert_eq!(t.register_sizes, vec![64]);
    }

    #[test]
    fn the_options_turn_each_buffer_off() {
        let mut t = tile();
        let cx = TreeCx {
            register_tiles: &[register_tile(4)],
            register_sizes: &[64],
            hoist: true,
            ..test_cx()
        };
        assert_eq!(run(&mut t, &cx).loops, 1);
        assert!(loops(&t).iter().all(|(_, _, m)| m.pack.is_none()));
        let mut t = tile();
        let cx = TreeCx {
            register_tiles: &[register_tile(4)],
            ..test_cx()
        };
        assert_eq!(run(&mut t, &cx).loops, 0);
    }

    #[test]
    fn a_tile_too_shallow_for_rows_is_only_hoisted() {
        // First unrolled dimension 2: blocks t0, no loop of block rows.
        let mut t = tile();
        let cx = TreeCx {
            register_tiles: &[register_tile(2)],
            hoist: true,
            pack: true,
            ..test_cx()
        };
        run(&mut t, &cx);
        let l = loops(&t);
        assert_eq!(l[0].2.hoist, Some(HoistMark { inner: 1 }));
        assert!(l.iter().all(|(_, _, m)| m.pack.is_none()));
    }

    /// `C[i][j] += alpha * A[i][k] * B[k][j]` (the body written out as its
    /// operations), a register tile of 2 rows (t6 = 2·t3 + r, copies of
    /// t6) in the loop over j (t4, the blocks of the vector loop) around
    /// the loop over k (t5), under the loop over row blocks t3, with
    /// `hoist` on; `a_written`: a second statement in the loop over j
    /// writes A. Rows over `[N | t0 … t7 | 1]`. The marks of the loops
    /// over j and k.
    fn alpha_gemm(a_written: bool) -> (LoopMarks, LoopMarks) {
        use crate::codegen::ast::{LoopRole, Node, Tree};
        use crate::codegen::instances::Via;
        use crate::scop::model::{BodyOp, IrRef, Model, Operand};
        let text = "
            domain: [N] -> { S0[i, j, k] : 0 <= i < N and 0 <= j < N and 0 <= k < N; S1[i] : 0 <= i < N }
            schedule: [N] -> { S0[i, j, k] -> [0, i, 0, j, 0, k, 0]; S1[i] -> [1, i, 0, 0, 0, 0, 0] }
            writes: [N] -> { S0[i, j, k] -> C[i, j]; S1[i] -> A[i, i] }
            reads: [N] -> { S0[i, j, k] -> A[i, k]; S0[i, j, k] -> B[k, j]; S0[i, j, k] -> C[i, j]; S1[i] -> B[i, i] }
        ";
        let mut model = Model::parse(text).unwrap();
        let op = |id: usize, name: &str, operands: Vec<Operand>, access: Option<usize>| BodyOp {
            id: IrRef(id),
            name: name.into(),
            operands,
            results: usize::from(name != "affine.store"),
            ty: if name == "affine.store" {
                String::new()
            } else {
                "f64".into()
            },
            regions: false,
            access,
            reassoc: false,
        };
        let iv = Operand::Inside;
        let alpha = Operand::Outside(IrRef(0));
        model.statements[0].body = vec![
            op(0, "affine.load", vec![iv, iv], Some(1)),
            op(1, "arith.mulf", vec![alpha, Operand::Op(0)], None),
            op(2, "affine.load", vec![iv, iv], Some(2)),
            op(3, "arith.mulf", vec![Operand::Op(1), Operand::Op(2)], None),
            op(4, "affine.load", vec![iv, iv], Some(3)),
            op(5, "arith.addf", vec![Operand::Op(4), Operand::Op(3)], None),
            op(6, "affine.store", vec![Operand::Op(5), iv, iv], Some(0)),
        ];
        let vias: Vec<Via> = (0..8)
            .map(|_| Via {
                memref: Some(0),
                plain: true,
                strides: None,
                bytes: None,
            })
            .collect();
        let dims = 8;
        let row = |cols: &[(usize, i64)], c: i64| row_p1(dims, cols, c);
        let lp = |dim: usize, role: LoopRole, body: Node| loop_p1(dims, dim, role, 15, body);
        let copies = (0..2)
            .map(|r| Node::Let {
                dim: 6,
                row: row(&[(3, 2)], r),
                body: Box::new(Node::Stmt {
                    stmt: 0,
                    iters: vec![row(&[(6, 1)], 0), row(&[(4, 1)], 0), row(&[(5, 1)], 0)],
                }),
            })
            .collect();
        let k_loop = lp(5, LoopRole::Serial, Node::Seq(copies));
        let j_body = if a_written {
            Node::Seq(vec![
                k_loop,
                Node::Stmt {
                    stmt: 1,
                    iters: vec![row(&[(3, 1)], 0)],
                },
            ])
        } else {
            k_loop
        };
        let mut t = Tree {
            root: lp(3, LoopRole::Parallel, lp(4, LoopRole::Serial, j_body)),
            divs: Vec::new(),
            dims,
            register_sizes: vec![16, 0],
            forward: false,
            launches: Vec::new(),
            size_test: None,
        };
        let cx = TreeCx {
            model: &model,
            vias: &vias,
            register_tiles: &[RegisterTile {
                first: 6,
                rows: 2,
                columns: 1,
                between: 0,
            }],
            register_sizes: &[16, 0],
            hoist: true,
            ..test_cx()
        };
        run(&mut t, &cx);
        let l = loops(&t);
        (l[1].2.clone(), l[2].2.clone())
    }

    #[test]
    fn alpha_times_a_row_is_hoisted_out_of_the_blocks() {
        let (j, k) = alpha_gemm(false);
        assert_eq!(j.hoist, Some(HoistMark { inner: 5 }));
        let plan = j.hoisted.expect("alpha * A[i][k] does not change with j");
        // One slot per row of the tile: the product alpha * A[i][k] (body
        // operation 1), A's subscripts [2·t3 + r, t5].
        assert_eq!(plan.slots.len(), 2);
        for (r, slot) in plan.slots.iter().enumerate() {
            assert_eq!((slot.stmt, slot.root), (0, 1));
            let mut i = vec![0; 10];
            i[1 + 3] = 2;
            i[9] = r as i64;
            let mut k = vec![0; 10];
            k[1 + 5] = 1;
            assert_eq!(slot.rows, vec![vec![i, k]]);
        }
        // Each copy reads its row's slot; the buffer is the tile size of
        // k deep, filled over k's bounds, read by the loop over k.
        let id = crate::scop::model::IrRef(1);
        assert_eq!(plan.instances, vec![vec![(id, 0)], vec![(id, 1)]]);
        assert_eq!((plan.k_dim, plan.size, plan.elem.as_str()), (5, 16, "f64"));
        assert_eq!(plan.reader, vec![0]);
        assert_eq!(k.reads_hoisted, Some(4));
    }

    #[test]
    fn operands_of_an_array_written_in_the_loop_stay_in_it() {
        // S1 writes A inside the loop over j: A[i][k] may change there.
        let (j, k) = alpha_gemm(true);
        assert!(j.hoist.is_some());
        assert!(j.hoisted.is_none());
        assert_eq!(k.reads_hoisted, None);
    }
}
