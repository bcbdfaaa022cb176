//! The loop tree: what code generation scans out of a plan and the emitter
//! prints. [`Tree`] holds [`Node`]s (sequences, loops with their [`Bound`]s
//! and [`Stride`]s, guards with their [`Cond`]s, fixed dimensions,
//! statement instances) over rows of [`Row`] form, with the integer
//! divisions they use; [`interpret`] runs it (for the checks that each
//! statement instance runs exactly once) and [`Tree::to_text`] prints it
//! (for stage-level tests). Nothing here decides how code is generated.

use crate::analysis::work::InstanceBox;
use crate::math::MathError;
use crate::scop::model::IrRef;

pub use super::scatter::Div;

/// A row over `[params | t_0 … t_{n-1} | divisions | constant]`; the
/// divisions are the [`Tree`]'s (`⌊e / c⌋` of the parameters, the outer
/// dimensions and earlier divisions: strides and `floordiv`/`mod`).
pub type Row = Vec<i64>;

/// A generated loop tree with the integer divisions its rows use.
#[derive(Debug, Clone)]
pub struct Tree {
    /// The loop tree.
    pub root: Node,
    /// The divisions: column `np + n + j` of every row is `divs[j]`.
    pub divs: Vec<Div>,
    /// The schedule dimensions (the `t` columns of the rows).
    pub dims: usize,
    /// Per statement, the tile size of its register tile's loop inside the
    /// tile (0: none), the depth of the buffers of
    /// [`HoistMark`]/[`PackMark`] (`codegen/tree/buffers.rs`).
    pub register_sizes: Vec<i64>,
    /// After printing, the cells that an innermost loop's body loads and
    /// stores again and again are forwarded inside it
    /// (`codegen/tree/carry.rs`; `emit/forward.rs`).
    pub forward: bool,
    /// On a GPU: the kernel launches over block loops, in printing order
    /// (`codegen/tree/launches.rs`); empty on a CPU and before that stage.
    pub launches: Vec<Launch>,
    /// On a CPU: the input kept beside the new code, run when this test
    /// finds the SCoP small at run time (decided by the profitability
    /// rules, `passes/opt/profitability.rs`, `input_when_small`).
    pub size_test: Option<SizeTest>,
}

/// A test at run time of a SCoP whose work depends on its parameters: the
/// new code runs when the statement instances, counted over boxes around
/// the statements' domains, reach `least`; the input runs otherwise.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SizeTest {
    /// The boxes, one per statement and piece of its domain
    /// ([`crate::analysis::work::instance_boxes`]).
    pub boxes: Vec<InstanceBox>,
    /// The least count for the new code.
    pub least: i64,
}

/// A kernel launch over a chain of block loops, as the launches stage
/// (`codegen/tree/launches.rs`) decided it: the grid, the block, and the
/// block's cooperative loops. The printer (`emit/gpu.rs`) walks the same
/// nodes ([`crate::codegen::tree::gpu_map`]) and prints these decisions.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Launch {
    /// The block loops mapped to the grid, outermost first (the innermost
    /// on `x`), each with whether it is boxed (a triangle of tiles in its
    /// bounding box: each block checks its own bounds).
    pub grid: Vec<(usize, bool)>,
    /// The thread loops mapped to the block, outermost first (the
    /// innermost on `x`): dimension, tile dimension, size (threads).
    pub threads: Vec<(usize, usize, i64)>,
    /// The block's cooperative loops, in printing order.
    pub coops: Vec<Coop>,
}

impl Launch {
    /// The launch as the remark says it: `grid over N tile loops, block
    /// XxY`.
    pub fn phrase(&self) -> String {
        let mut grid = match self.grid.len() {
            0 => "grid of 1 block (one tile)".to_string(),
            1 => "grid over 1 tile loop".to_string(),
            n => format!("grid over {n} tile loops"),
        };
        if self.grid.iter().any(|&(_, boxed)| boxed) {
            grid.push_str(" (a triangle of tiles in its bounding box)");
        }
        let shape: Vec<String> = self.threads.iter().rev().map(|t| t.2.to_string()).collect();
        format!(
            "{grid}, block {}",
            if shape.is_empty() {
                "1".to_string()
            } else {
                shape.join("x")
            }
        )
    }
}

impl Launch {
    /// Its lines in the tree's text: `launch grid(t0, t1 boxed)
    /// block(t3 x32, t4 x8)`, then per cooperative loop `  coop t2: shared
    /// #0 #1, carry N cells` (`shared none`, `memory`).
    pub fn to_text(&self) -> String {
        let grid: Vec<String> = self
            .grid
            .iter()
            .map(|&(d, boxed)| format!("t{d}{}", if boxed { " boxed" } else { "" }))
            .collect();
        let block: Vec<String> = self
            .threads
            .iter()
            .map(|&(d, _, size)| format!("t{d} x{size}"))
            .collect();
        let mut out = format!(
            "launch grid({}) block({})\n",
            grid.join(", "),
            block.join(", ")
        );
        for c in &self.coops {
            let shared: Vec<String> = c.promotions.iter().map(|k| format!("#{k}")).collect();
            let carry = match &c.carry {
                Some(k) => {
                    let n = k.cells.cells.len();
                    format!("carry {n} cell{}", if n == 1 { "" } else { "s" })
                }
                None => "memory".to_string(),
            };
            out.push_str(&format!(
                "  coop t{}: shared {}, {carry}\n",
                c.dim,
                if shared.is_empty() {
                    "none".to_string()
                } else {
                    shared.join(" ")
                }
            ));
        }
        out
    }
}

/// A cooperative loop of a [`Launch`] (every thread of the block runs it
/// alike): what each step copies to shared memory, and the cells the
/// threads keep in registers across its steps.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Coop {
    /// Its dimension.
    pub dim: usize,
    /// The promotions (their positions in the plan's list) whose boxes
    /// each step copies to shared memory: those of the statements under
    /// it that fit the launch's shared memory beside the boxes held so far.
    pub promotions: Vec<usize>,
    /// The cells each thread keeps in registers across the steps, with
    /// the threads' guard; `None` when they stay in memory.
    pub carry: Option<CoopCarry>,
}

/// See [`Coop::carry`]: the cells of the thread's sequential loop inside
/// the cooperative loop ([`Carried::strict`] of its cells), loaded before
/// the cooperative loop under the threads' guard `conds` and stored after
/// it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CoopCarry {
    /// The threads' guard: each thread's point is inside its loops' bounds.
    pub conds: Vec<Cond>,
    /// The cells.
    pub cells: Carried,
}

impl Tree {
    /// See [`Node::inner_guards`].
    pub fn inner_guards(&self) -> usize {
        self.root.inner_guards()
    }

    /// See [`Node::has_loop_over`].
    pub fn has_loop_over(&self, pred: impl Fn(usize) -> bool + Copy) -> bool {
        self.root.has_loop_over(pred)
    }

    /// See [`Node::statement_copies`].
    pub fn statement_copies(&self) -> usize {
        self.root.statement_copies()
    }

    /// See [`Node::has_let_over`].
    pub fn has_let_over(&self, pred: impl Fn(usize) -> bool + Copy) -> bool {
        self.root.has_let_over(pred)
    }

    /// The parameters that bounds, guards or iterators of `tree` use, directly
    /// or through the divisions they use (the symbols of the new affine maps;
    /// others stay in the statement bodies).
    pub fn used_params(&self, np: usize) -> Vec<bool> {
        let mut used = vec![false; np];
        let nd = self.divs.len();
        let mut divs_used = vec![false; nd];
        let mut mark = |row: &Row| {
            for (p, u) in used.iter_mut().enumerate() {
                *u |= row[p] != 0;
            }
            let first = row.len() - 1 - nd;
            for (j, u) in divs_used.iter_mut().enumerate() {
                *u |= row[first + j] != 0;
            }
        };
        fn walk(n: &Node, mark: &mut dyn FnMut(&Row)) {
            match n {
                Node::Seq(v) => v.iter().for_each(|c| walk(c, mark)),
                Node::Loop {
                    lower,
                    upper,
                    stride,
                    body,
                    ..
                } => {
                    lower.iter().chain(upper).for_each(|b| mark(&b.row));
                    if let Some(s) = stride {
                        mark(&s.offset);
                    }
                    walk(body, mark);
                }
                Node::If { conds, body } => {
                    conds.iter().for_each(|c| mark(&c.row));
                    walk(body, mark);
                }
                Node::Let { row, body, .. } => {
                    mark(row);
                    walk(body, mark);
                }
                Node::Stmt { iters, .. } => iters.iter().for_each(mark),
            }
        }
        walk(&self.root, &mut mark);
        // Divisions use parameters and earlier divisions: latest first.
        for j in (0..nd).rev() {
            if divs_used[j] {
                let row = &self.divs[j].row;
                for (p, u) in used.iter_mut().enumerate() {
                    *u |= row[p] != 0;
                }
                let first = row.len() - 1 - j;
                for (i, u) in divs_used.iter_mut().enumerate().take(j) {
                    *u |= row[first + i] != 0;
                }
            }
        }
        used
    }

    /// See [`Node::counts`].
    pub fn counts(&self) -> (usize, usize, usize) {
        self.root.counts()
    }
}

/// A lower bound `⌈row / div⌉` or an upper bound `⌊row / div⌋` (inclusive).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Bound {
    /// The affine expression over `[params | t | constant]` (its own
    /// dimension's column is zero).
    pub row: Row,
    /// The positive divisor.
    pub div: i64,
}

/// The values of a strided loop: `t ≡ offset (mod step)`, from the first
/// such value at or above its lower bound, in steps of `step`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Stride {
    /// The step, at least 2.
    pub step: i64,
    /// The residue: an affine expression of the outer dimensions and
    /// parameters (over `[params | t | divisions | constant]`, own column
    /// zero).
    pub offset: Row,
}

/// A guard `row >= 0` (or `row == 0`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Cond {
    /// The affine expression over `[params | t | constant]`.
    pub row: Row,
    /// An equality.
    pub eq: bool,
}

/// How a loop runs: the decision recorded in the tree, for the printer to
/// print.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum LoopRole {
    /// Its iterations run in order.
    Serial,
    /// Its iterations are independent and run in parallel
    /// (`affine.parallel`).
    Parallel,
    /// An innermost loop whose iterations run in order, one at a time:
    /// LLVM must not vectorize it (`llvm.loop_annotation`; its strided
    /// accesses would be gathers and scatters across a recurrence:
    /// `codegen/tree/scalar.rs`).
    Scalar,
}

impl LoopRole {
    /// [`LoopRole::Parallel`] when `parallel`, else [`LoopRole::Serial`].
    pub fn parallel_if(parallel: bool) -> LoopRole {
        if parallel {
            LoopRole::Parallel
        } else {
            LoopRole::Serial
        }
    }

    /// True for [`LoopRole::Parallel`].
    pub fn is_parallel(self) -> bool {
        self == LoopRole::Parallel
    }
}

/// What the tree stages (`codegen/tree/`) decided for a loop beside its
/// role: the printer reads these and decides nothing.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct LoopMarks {
    /// A sequential loop with no loop inside: it keeps the cells its
    /// statements access at loop-invariant subscripts in registers
    /// (`iter_args`) when that is exact (`codegen/tree/carry.rs`,
    /// `emit/scalar_replace.rs`).
    pub carry: bool,
    /// The cells such a loop keeps in registers, proven exact
    /// (`codegen/tree/carry.rs`); `None` when there are none.
    pub cells: Option<Box<Carried>>,
    /// A loop over blocks of a register tile's vector loop: the operands of
    /// its inner loop that do not change from block to block are computed
    /// once, before it (`codegen/tree/buffers.rs`, `emit/hoist.rs`).
    pub hoist: Option<HoistMark>,
    /// A loop over the blocks' rows of a register tile: the operands that
    /// do not change from row to row are packed once, before it
    /// (`codegen/tree/buffers.rs`, `emit/hoist.rs`).
    pub pack: Option<PackMark>,
    /// Its body is unrolled copies that may run in vector lanes
    /// (`codegen/tree/lanes.rs`, `emit/lanes.rs`).
    pub lanes: Option<LaneMark>,
    /// The buffer of block-invariant operands computed before this loop
    /// ([`LoopMarks::hoist`]), when they have the shape it needs
    /// (`codegen/tree/buffers.rs`).
    pub hoisted: Option<Box<BufferPlan>>,
    /// The buffer of row-invariant operands packed before this loop
    /// ([`LoopMarks::pack`]), when they have the shape it needs.
    pub packed: Option<Box<BufferPlan>>,
    /// The loop whose instances read the hoisted buffer of the loop over
    /// this dimension.
    pub reads_hoisted: Option<usize>,
    /// The loop whose instances read the packed buffer of the loop over
    /// this dimension.
    pub reads_packed: Option<usize>,
}

/// See [`LoopMarks::cells`]: the cells a sequential loop keeps in
/// registers (`iter_args`), loaded before it and stored after it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Carried {
    /// The cells, in the order of their first access.
    pub cells: Vec<CarriedCell>,
    /// Per statement instance of the loop's body (in printing order), per
    /// access of the statement, the cell it touches.
    pub instances: Vec<Vec<Option<usize>>>,
}

/// One cell of [`Carried`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CarriedCell {
    /// Its first access: the statement and the access's position in it
    /// (the printer takes the memref and the element type from it).
    pub first: (usize, usize),
    /// The subscripts over `[params | t | divisions | constant]`, outer
    /// loops only.
    pub index: Vec<Row>,
    /// Some instance writes it: stored back after the loop.
    pub written: bool,
    /// Another access of its array in the body moves with the loop (kept
    /// in memory, proven off every carried cell of the array by the loop's
    /// bounds).
    pub beside_moving: bool,
}

impl Carried {
    /// The cells carried when no access of their arrays may move with the
    /// loop (the cells then stay in registers across a loop around this
    /// one too, where this loop's bounds prove nothing): those not
    /// [`CarriedCell::beside_moving`]; `None` when none is left.
    pub fn strict(&self) -> Option<Carried> {
        let kept: Vec<usize> = (0..self.cells.len())
            .filter(|&i| !self.cells[i].beside_moving)
            .collect();
        if kept.is_empty() {
            return None;
        }
        Some(Carried {
            cells: kept.iter().map(|&i| self.cells[i].clone()).collect(),
            instances: self
                .instances
                .iter()
                .map(|per| {
                    per.iter()
                        .map(|c| c.and_then(|c| kept.iter().position(|&i| i == c)))
                        .collect()
                })
                .collect(),
        })
    }
}

/// A buffer of operands computed ahead of a register tile's loop inside
/// the tile ([`LoopMarks::hoisted`], [`LoopMarks::packed`]): the loop over
/// `k` that fills it and the slots it holds.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct BufferPlan {
    /// The dimension of the loop inside the tile whose instances read the
    /// buffer.
    pub k_dim: usize,
    /// Its lower bounds (the fill loop runs over its range).
    pub lower: Vec<Bound>,
    /// Its upper bounds.
    pub upper: Vec<Bound>,
    /// The slots, in the buffer's order.
    pub slots: Vec<BufferSlot>,
    /// Per instance of that loop's body, in printing order: the operation
    /// whose value is read from the buffer (a body operation's id), and its
    /// slot.
    pub instances: Vec<Vec<(IrRef, usize)>>,
    /// The element type (MLIR text).
    pub elem: String,
    /// The statements' tile size of the loop: the buffer's depth.
    pub size: i64,
    /// For packed operands: the loop over the blocks.
    pub block: Option<BlockLoop>,
    /// For packed operands: the slots per fill loop, `None` for all in one
    /// loop.
    pub group: Option<usize>,
    /// Where the loop that reads the buffer is: per step below the marked
    /// loop, the child's position in its sequence (a packed buffer's
    /// reader is inside the loop over the blocks).
    pub reader: Vec<usize>,
}

/// One slot of a [`BufferPlan`]: the statement instance and the operation
/// of its body that computes it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct BufferSlot {
    /// The statement.
    pub stmt: usize,
    /// The instance's iterator rows.
    pub iters: Vec<Row>,
    /// The operation: its position in the statement's body.
    pub root: usize,
    /// Its id ([`crate::scop::model::BodyOp::id`]).
    pub id: IrRef,
    /// The subscripts of the loads below it.
    pub rows: Vec<Vec<Row>>,
}

/// The loop over the blocks of a register tile's vector loop, inside a
/// loop over block rows whose operands are packed: its dimension, its
/// bounds (one lower bound) and the most blocks it runs.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct BlockLoop {
    /// The dimension.
    pub dim: usize,
    /// The lower bound.
    pub lower: Bound,
    /// The upper bounds.
    pub upper: Vec<Bound>,
    /// The most blocks it runs.
    pub extent: i64,
}

/// See [`LoopMarks::hoist`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct HoistMark {
    /// The dimension of the loop inside the tile, whose operands go to the
    /// buffer.
    pub inner: usize,
}

/// See [`LoopMarks::pack`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct PackMark {
    /// The dimension of the loop over blocks of the vector loop.
    pub blocks: usize,
    /// The dimension of the loop inside the tile.
    pub inner: usize,
    /// How the loops that fill the buffer may run.
    pub fill: PackFill,
}

/// The target's registers, for the loops that fill buffers of packed
/// operands. Each such loop runs over `k` and computes its slots; where
/// the slots are rows of the arrays (syr2k's `alpha * A[j + q][k]`: not
/// side by side in memory), LLVM vectorizes it along `k`, and it holds a
/// vector of each row as loaded and one as transposed into the slots,
/// beside a register per value from outside the statements that the
/// slots' arithmetic reads (`alpha`, broadcast): `2 * rows + broadcasts`
/// must fit the `registers` (the model of `target/cpu.rs`). More rows
/// take more loops, each over a group of slots whose size is a multiple
/// of `lanes`, so that each vector the blocks read lies in one group.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct PackFill {
    /// Vector registers.
    pub registers: usize,
    /// Values per vector of the blocks.
    pub lanes: usize,
}

/// See [`LoopMarks::lanes`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LaneMark {
    /// The unrolled dimension whose copies are the lanes.
    pub dim: usize,
    /// Values per vector.
    pub size: i64,
    /// How the copies run in lanes, one shape per chunk of `size` copies
    /// (each on vectors of its own); `None` when they cannot (the copies
    /// then stay scalar).
    pub shapes: Option<Box<[LaneShape]>>,
}

/// How one chunk of a loop's copies runs in vector lanes
/// (`codegen/tree/lanes.rs`, `emit/lanes.rs`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LaneShape {
    /// The statements of one copy, in order.
    pub stmts: Vec<usize>,
    /// Per statement of a copy, per access: how it runs.
    pub access: Vec<Vec<Lane>>,
    /// Accumulator groups: per lane, the cell (an index into the loop's
    /// [`Carried::cells`]).
    pub accs: Vec<Vec<usize>>,
    /// Transposed reads.
    pub rows: Vec<LaneRows>,
    /// The lanes: values per vector.
    pub lanes: i64,
}

/// Reads of one array loaded as rows and transposed ([`Lane::Rows`]).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LaneRows {
    /// The first access (statement, position) through whose memref they
    /// go.
    pub first: (usize, usize),
    /// Per lane, the subscripts.
    pub subs: Vec<Vec<Row>>,
    /// Each row is prefetched this many iterations of the loop ahead of
    /// its block's loads (the rows stream from beyond L2: `prefetch`).
    pub prefetch: Option<i64>,
}

/// How one access of a statement copy runs in lanes.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Lane {
    /// The cells of accumulator group `g`, lane `k` the cell of copy `k`.
    Acc(usize),
    /// The same subscripts in every copy: one load, broadcast.
    Same(Vec<Row>),
    /// Transposed rows: group `g` of [`LaneShape::rows`].
    Rows(usize),
}

/// The generated loop tree.
#[derive(Debug, Clone)]
pub enum Node {
    /// Children in order.
    Seq(Vec<Node>),
    /// A loop over dimension `dim` from `max(lower)` to `min(upper)`.
    Loop {
        /// The schedule dimension.
        dim: usize,
        /// Lower bounds (the loop starts at their maximum).
        lower: Vec<Bound>,
        /// Upper bounds, inclusive (the loop ends at their minimum).
        upper: Vec<Bound>,
        /// Only the values of one residue class run (a step).
        stride: Option<Stride>,
        /// How it runs.
        role: LoopRole,
        /// What the tree stages decided beside the role.
        marks: Box<LoopMarks>,
        /// The body.
        body: Box<Node>,
    },
    /// The body runs when every condition holds.
    If {
        /// The conditions.
        conds: Vec<Cond>,
        /// The body.
        body: Box<Node>,
    },
    /// Dimension `dim` takes a single value, `row` (an affine expression of
    /// the outer dimensions and parameters): no loop is needed.
    Let {
        /// The schedule dimension.
        dim: usize,
        /// Its value over `[params | t | constant]` (own column zero).
        row: Row,
        /// The body.
        body: Box<Node>,
    },
    /// One statement instance; `iters[k]` is its iterator `k` as an affine
    /// expression of the loop dimensions and parameters.
    Stmt {
        /// The statement.
        stmt: usize,
        /// Its iterators.
        iters: Vec<Row>,
    },
}

impl Node {
    /// What holds inside `self` about its own dimension or conditions, as
    /// rows of `w` columns (`[params | t | divisions | constant]`), each
    /// an equality or not: a loop's bounds, a let's value, a guard's
    /// conditions; nothing for the other nodes.
    pub fn facts(&self, np: usize, w: usize) -> Vec<(Row, bool)> {
        let mut facts: Vec<(Row, bool)> = Vec::new();
        match self {
            Node::Loop {
                dim, lower, upper, ..
            } => {
                let c = np + dim;
                for (b, sign) in lower
                    .iter()
                    .map(|b| (b, 1))
                    .chain(upper.iter().map(|b| (b, -1)))
                {
                    // lower: div·t - row >= 0; upper: row - div·t >= 0.
                    let mut f: Row = b.row.iter().map(|&x| -sign * x).collect();
                    if f.len() == w {
                        f[c] = f[c].saturating_add(sign * b.div);
                        facts.push((f, false));
                    }
                }
            }
            Node::Let { dim, row, .. } if row.len() == w => {
                let mut f: Row = row.iter().map(|&x| -x).collect();
                f[np + dim] += 1;
                facts.push((f, true));
            }
            Node::If { conds, .. } => {
                facts.extend(
                    conds
                        .iter()
                        .filter(|c| c.row.len() == w)
                        .map(|c| (c.row.clone(), c.eq)),
                );
            }
            _ => {}
        }
        facts
    }

    /// Number of guards (`affine.if`) directly inside an innermost loop:
    /// they are evaluated at every iteration and keep the loop from
    /// vectorizing.
    pub fn inner_guards(&self) -> usize {
        fn has_loop(n: &Node) -> bool {
            match n {
                Node::Seq(v) => v.iter().any(has_loop),
                Node::Loop { .. } => true,
                Node::If { body, .. } | Node::Let { body, .. } => has_loop(body),
                Node::Stmt { .. } => false,
            }
        }
        fn ifs(n: &Node) -> usize {
            match n {
                Node::Seq(v) => v.iter().map(ifs).sum(),
                Node::If { body, .. } => 1 + ifs(body),
                Node::Let { body, .. } => ifs(body),
                _ => 0,
            }
        }
        match self {
            Node::Seq(v) => v.iter().map(Node::inner_guards).sum(),
            Node::Loop { body, .. } => {
                if has_loop(body) {
                    body.inner_guards()
                } else {
                    ifs(body)
                }
            }
            Node::If { body, .. } | Node::Let { body, .. } => body.inner_guards(),
            Node::Stmt { .. } => 0,
        }
    }

    /// True when the tree has a loop over a dimension `k` with `pred(k)`.
    pub fn has_loop_over(&self, pred: impl Fn(usize) -> bool + Copy) -> bool {
        match self {
            Node::Seq(v) => v.iter().any(|n| n.has_loop_over(pred)),
            Node::Loop { dim, body, .. } => pred(*dim) || body.has_loop_over(pred),
            Node::If { body, .. } | Node::Let { body, .. } => body.has_loop_over(pred),
            Node::Stmt { .. } => false,
        }
    }

    /// True when the tree fixes a dimension `k` with `pred(k)` by a
    /// [`Node::Let`] (an unrolled iteration).
    pub fn has_let_over(&self, pred: impl Fn(usize) -> bool + Copy) -> bool {
        match self {
            Node::Seq(v) => v.iter().any(|n| n.has_let_over(pred)),
            Node::Let { dim, body, .. } => pred(*dim) || body.has_let_over(pred),
            Node::Loop { body, .. } | Node::If { body, .. } => body.has_let_over(pred),
            Node::Stmt { .. } => false,
        }
    }

    /// The statements of the instances in the tree, `None` when a loop is
    /// among its nodes.
    pub fn statements_without_loops(&self) -> Option<Vec<usize>> {
        fn walk(node: &Node, out: &mut Vec<usize>) -> Option<()> {
            match node {
                Node::Seq(children) => children.iter().try_for_each(|c| walk(c, out)),
                Node::Loop { .. } => None,
                Node::If { body, .. } | Node::Let { body, .. } => walk(body, out),
                Node::Stmt { stmt, .. } => {
                    out.push(*stmt);
                    Some(())
                }
            }
        }
        let mut out = Vec::new();
        walk(self, &mut out).map(|()| out)
    }

    /// Number of statement instances the tree names ([`Node::Stmt`]
    /// leaves): each is one copy of its statement's operations in the
    /// emitted code (an unrolled iteration is a leaf of its own).
    pub fn statement_copies(&self) -> usize {
        match self {
            Node::Seq(v) => v.iter().map(Node::statement_copies).sum(),
            Node::Loop { body, .. } | Node::If { body, .. } | Node::Let { body, .. } => {
                body.statement_copies()
            }
            Node::Stmt { .. } => 1,
        }
    }

    /// Number of loops and guards in the tree: (loops, parallel loops, ifs).
    pub fn counts(&self) -> (usize, usize, usize) {
        match self {
            Node::Seq(v) => v
                .iter()
                .map(Node::counts)
                .fold((0, 0, 0), |a, b| (a.0 + b.0, a.1 + b.1, a.2 + b.2)),
            Node::Loop { role, body, .. } => {
                let (l, p, i) = body.counts();
                (l + 1, p + usize::from(role.is_parallel()), i)
            }
            Node::If { body, .. } => {
                let (l, p, i) = body.counts();
                (l, p, i + 1)
            }
            Node::Let { body, .. } => body.counts(),
            Node::Stmt { .. } => (0, 0, 0),
        }
    }
}

/// Runs `tree` for the parameter values `params` (schedule length `n`),
/// calling `visit(stmt, iterators)` for each statement instance in
/// execution order (parallel loops run in order): the generated code
/// interpreted, for the checks that code generation scans each domain
/// exactly once. Stops with `Err` past `limit` instances.
pub fn interpret(
    tree: &Tree,
    params: &[i64],
    n: usize,
    limit: usize,
    visit: &mut dyn FnMut(usize, &[i64]),
) -> Result<(), MathError> {
    struct St<'a> {
        divs: &'a [Div],
        np: usize,
        n: usize,
        vals: Vec<i64>,
        count: usize,
        limit: usize,
    }
    impl St<'_> {
        /// `row` at the current values (divisions recomputed first).
        fn eval(&mut self, row: &[i64]) -> Result<i64, MathError> {
            let base = self.np + self.n;
            if row[base..row.len() - 1].iter().all(|&c| c == 0) {
                return self.dot(row);
            }
            for (j, d) in self.divs.iter().enumerate() {
                let v = self.dot(&d.row)?;
                self.vals[base + j] = v.div_euclid(d.den);
            }
            self.dot(row)
        }
        fn dot(&self, row: &[i64]) -> Result<i64, MathError> {
            let w = row.len();
            let mut acc = i128::from(row[w - 1]);
            for (k, &c) in row[..w - 1].iter().enumerate() {
                acc += i128::from(c) * i128::from(*self.vals.get(k).unwrap_or(&0));
            }
            i64::try_from(acc).map_err(|_| MathError::Overflow)
        }
        fn run(
            &mut self,
            node: &Node,
            visit: &mut dyn FnMut(usize, &[i64]),
        ) -> Result<(), MathError> {
            match node {
                Node::Seq(v) => {
                    for c in v {
                        self.run(c, visit)?;
                    }
                }
                Node::Loop {
                    dim,
                    lower,
                    upper,
                    stride,
                    body,
                    ..
                } => {
                    let mut lo = i64::MIN;
                    for b in lower {
                        let v = self.eval(&b.row)?;
                        lo = lo.max(v.div_euclid(b.div) + i64::from(v.rem_euclid(b.div) != 0));
                    }
                    let mut hi = i64::MAX;
                    for b in upper {
                        hi = hi.min(self.eval(&b.row)?.div_euclid(b.div));
                    }
                    let mut t = lo;
                    if let Some(s) = stride {
                        let off = self.eval(&s.offset)?;
                        t += (off - t).rem_euclid(s.step);
                    }
                    let step = stride.as_ref().map_or(1, |s| s.step);
                    while t <= hi {
                        self.vals[self.np + dim] = t;
                        self.run(body, visit)?;
                        t += step;
                    }
                }
                Node::If { conds, body } => {
                    for c in conds {
                        let v = self.eval(&c.row)?;
                        if (c.eq && v != 0) || v < 0 {
                            return Ok(());
                        }
                    }
                    self.run(body, visit)?;
                }
                Node::Let { dim, row, body } => {
                    let v = self.eval(row)?;
                    self.vals[self.np + dim] = v;
                    self.run(body, visit)?;
                }
                Node::Stmt { stmt, iters } => {
                    self.count += 1;
                    if self.count > self.limit {
                        return Err(MathError::Overflow);
                    }
                    let mut it = Vec::with_capacity(iters.len());
                    for r in iters {
                        it.push(self.eval(r)?);
                    }
                    visit(*stmt, &it);
                }
            }
            Ok(())
        }
    }
    let np = params.len();
    let mut st = St {
        divs: &tree.divs,
        np,
        n,
        vals: [params.to_vec(), vec![0; n + tree.divs.len()]].concat(),
        count: 0,
        limit,
    };
    st.run(&tree.root, visit)
}

/// The decisions of the tree stages on a loop, as text after its bounds:
/// empty for none (the tree as scanned), else ` [a, b]` with `scalar`,
/// `carry` (`carry N cells` with the cells it keeps), `hoist tK`, `pack tJ tK (fill R/L)` and `lanes tD xV` (with ` (scalar)` when its copies cannot run in lanes, ` prefetch +D` when its rows are prefetched `D` iterations ahead).
fn marks_text(role: LoopRole, marks: &LoopMarks) -> String {
    let mut m = Vec::new();
    if role == LoopRole::Scalar {
        m.push("scalar".to_string());
    }
    match (&marks.cells, marks.carry) {
        (Some(c), _) => m.push(match c.cells.len() {
            1 => "carry 1 cell".to_string(),
            n => format!("carry {n} cells"),
        }),
        (None, true) => m.push("carry".into()),
        (None, false) => {}
    }
    let slots = |b: &Option<Box<BufferPlan>>| match b {
        Some(b) => format!(": {} slots", b.slots.len()),
        None => String::new(),
    };
    if let Some(h) = marks.hoist {
        m.push(format!("hoist t{}{}", h.inner, slots(&marks.hoisted)));
    }
    if let Some(p) = marks.pack {
        m.push(format!(
            "pack t{} t{} (fill {}/{}){}",
            p.blocks,
            p.inner,
            p.fill.registers,
            p.fill.lanes,
            slots(&marks.packed)
        ));
    }
    if let Some(d) = marks.reads_hoisted {
        m.push(format!("reads t{d}'s hoisted"));
    }
    if let Some(d) = marks.reads_packed {
        m.push(format!("reads t{d}'s packed"));
    }
    if let Some(l) = &marks.lanes {
        // The distance of the first prefetched rows (all alike).
        let ahead = l
            .shapes
            .iter()
            .flatten()
            .flat_map(|sh| &sh.rows)
            .find_map(|r| r.prefetch);
        m.push(format!(
            "lanes t{} x{}{}{}",
            l.dim,
            l.size,
            if l.shapes.is_some() { "" } else { " (scalar)" },
            ahead.map_or(String::new(), |d| format!(" prefetch +{d}"))
        ));
    }
    if m.is_empty() {
        String::new()
    } else {
        format!(" [{}]", m.join(", "))
    }
}

impl Tree {
    /// The tree as indented text, rows over `p0…`, `t0…`, `d0…`
    /// (`np` parameters, the tree's [`Tree::dims`] schedule dimensions):
    /// for stage-level tests and debugging.
    pub fn to_text(&self, np: usize) -> String {
        let n = self.dims;
        fn row_text(r: &[i64], np: usize, n: usize) -> String {
            let w = r.len();
            let mut s = String::new();
            for (k, &c) in r[..w - 1].iter().enumerate() {
                if c == 0 {
                    continue;
                }
                let name = if k < np {
                    format!("p{k}")
                } else if k < np + n {
                    format!("t{}", k - np)
                } else {
                    format!("d{}", k - np - n)
                };
                let sign = if c < 0 {
                    "-"
                } else if s.is_empty() {
                    ""
                } else {
                    "+"
                };
                let a = c.abs();
                if a == 1 {
                    s += &format!("{sign}{name}");
                } else {
                    s += &format!("{sign}{a}*{name}");
                }
            }
            let c = r[w - 1];
            if s.is_empty() {
                return c.to_string();
            }
            if c != 0 {
                s += &format!("{}{}", if c < 0 { "-" } else { "+" }, c.abs());
            }
            s
        }
        fn bound(b: &Bound, np: usize, n: usize) -> String {
            if b.div == 1 {
                row_text(&b.row, np, n)
            } else {
                format!("({})/{}", row_text(&b.row, np, n), b.div)
            }
        }
        fn go(node: &Node, np: usize, n: usize, depth: usize, out: &mut String) {
            let pad = "  ".repeat(depth);
            match node {
                Node::Seq(v) => {
                    for c in v {
                        go(c, np, n, depth, out);
                    }
                }
                Node::Loop {
                    dim,
                    lower,
                    upper,
                    stride,
                    role,
                    marks,
                    body,
                } => {
                    let lo: Vec<String> = lower.iter().map(|b| bound(b, np, n)).collect();
                    let up: Vec<String> = upper.iter().map(|b| bound(b, np, n)).collect();
                    let st = stride
                        .as_ref()
                        .map(|s| format!(" step {} at {}", s.step, row_text(&s.offset, np, n)))
                        .unwrap_or_default();
                    out.push_str(&format!(
                        "{pad}{} t{dim} = max({}) to min({}){st}{}\n",
                        if role.is_parallel() { "parfor" } else { "for" },
                        lo.join(", "),
                        up.join(", "),
                        marks_text(*role, marks)
                    ));
                    go(body, np, n, depth + 1, out);
                }
                Node::If { conds, body } => {
                    let cs: Vec<String> = conds
                        .iter()
                        .map(|c| {
                            format!(
                                "{} {} 0",
                                row_text(&c.row, np, n),
                                if c.eq { "==" } else { ">=" }
                            )
                        })
                        .collect();
                    out.push_str(&format!("{pad}if {}\n", cs.join(" and ")));
                    go(body, np, n, depth + 1, out);
                }
                Node::Let { dim, row, body } => {
                    out.push_str(&format!("{pad}let t{dim} = {}\n", row_text(row, np, n)));
                    go(body, np, n, depth + 1, out);
                }
                Node::Stmt { stmt, iters } => {
                    let its: Vec<String> = iters.iter().map(|r| row_text(r, np, n)).collect();
                    out.push_str(&format!("{pad}S{stmt}({})\n", its.join(", ")));
                }
            }
        }
        let mut out = String::new();
        for (j, d) in self.divs.iter().enumerate() {
            out.push_str(&format!(
                "d{j} = floor(({}) / {})\n",
                row_text(&d.row, np, n),
                d.den
            ));
        }
        go(&self.root, np, n, 0, &mut out);
        for l in &self.launches {
            out.push_str(&l.to_text());
        }
        out
    }
}

#[cfg(test)]
mod tests {
    use super::{
        interpret, Bound, Carried, CarriedCell, Cond, Div, HoistMark, LaneMark, LoopMarks,
        LoopRole, Node, PackFill, PackMark, Stride, Tree,
    };

    /// Rows over `[p0 | t0 t1 | d0 | 1]`.
    fn tree() -> Tree {
        let row = |v: [i64; 5]| v.to_vec();
        Tree {
            // d0 = floor(t0 / 2)
            divs: vec![Div {
                row: row([0, 1, 0, 0, 0]),
                den: 2,
            }],
            root: Node::Loop {
                dim: 0,
                // t0 from ceil(p0 / 1) to 5
                lower: vec![Bound {
                    row: row([1, 0, 0, 0, 0]),
                    div: 1,
                }],
                upper: vec![Bound {
                    row: row([0, 0, 0, 0, 5]),
                    div: 1,
                }],
                stride: None,
                role: LoopRole::Serial,
                marks: Box::default(),
                body: Box::new(Node::Seq(vec![
                    // if t0 - 2·d0 == 0 (t0 even): S0(t0)
                    Node::If {
                        conds: vec![Cond {
                            row: row([0, 1, 0, -2, 0]),
                            eq: true,
                        }],
                        body: Box::new(Node::Stmt {
                            stmt: 0,
                            iters: vec![row([0, 1, 0, 0, 0])],
                        }),
                    },
                    // t1 from t0 to 7, the values ≡ 1 (mod 3): S1(t0, t1)
                    Node::Loop {
                        dim: 1,
                        lower: vec![Bound {
                            row: row([0, 1, 0, 0, 0]),
                            div: 1,
                        }],
                        upper: vec![Bound {
                            row: row([0, 0, 0, 0, 7]),
                            div: 1,
                        }],
                        stride: Some(Stride {
                            step: 3,
                            offset: row([0, 0, 0, 0, 1]),
                        }),
                        role: LoopRole::Parallel,
                        marks: Box::default(),
                        body: Box::new(Node::Let {
                            dim: 1,
                            row: row([0, 0, 1, 0, 0]),
                            body: Box::new(Node::Stmt {
                                stmt: 1,
                                iters: vec![row([0, 1, 0, 0, 0]), row([0, 0, 1, 0, -1])],
                            }),
                        }),
                    },
                ])),
            },
            dims: 2,
            register_sizes: vec![0, 0],
            forward: false,
            launches: Vec::new(),
            size_test: None,
        }
    }

    #[test]
    fn interpreter_runs_instances_in_order() {
        let mut seen = Vec::new();
        interpret(&tree(), &[3], 2, 100, &mut |s, it| {
            seen.push((s, it.to_vec()))
        })
        .unwrap();
        // t0 = 3: S1 at t1 = 4, 7; t0 = 4: S0, S1 at 4, 7; t0 = 5: S1 at 7.
        let want = vec![
            (1, vec![3, 3]),
            (1, vec![3, 6]),
            (0, vec![4]),
            (1, vec![4, 3]),
            (1, vec![4, 6]),
            (1, vec![5, 6]),
        ];
        assert_eq!(seen, want);
    }

    #[test]
    fn interpreter_stops_at_the_limit() {
        assert!(interpret(&tree(), &[3], 2, 5, &mut |_, _| {}).is_err());
    }

    #[test]
    fn tree_prints_as_text() {
        let want = "d0 = floor((t0) / 2)\n\
                    for t0 = max(p0) to min(5)\n  \
                    if t0-2*d0 == 0\n    \
                    S0(t0)\n  \
                    parfor t1 = max(t0) to min(7) step 3 at 1\n    \
                    let t1 = t1\n      \
                    S1(t0, t1-1)\n";
        assert_eq!(tree().to_text(1), want);
    }

    #[test]
    fn the_stages_decisions_print_after_the_bounds() {
        let mut t = tree();
        let Node::Loop { role, marks, .. } = &mut t.root else {
            panic!("the root is a loop");
        };
        *role = LoopRole::Scalar;
        **marks = LoopMarks {
            carry: true,
            hoist: Some(HoistMark { inner: 1 }),
            pack: Some(PackMark {
                blocks: 1,
                inner: 2,
                fill: PackFill {
                    registers: 32,
                    lanes: 8,
                },
            }),
            lanes: Some(LaneMark {
                dim: 3,
                size: 4,
                shapes: None,
            }),
            ..LoopMarks::default()
        };
        let text = t.to_text(1);
        let first = text.lines().nth(1).unwrap_or_default();
        assert_eq!(
            first,
            "for t0 = max(p0) to min(5) [scalar, carry, hoist t1, pack t1 t2 (fill 32/8), lanes t3 x4 (scalar)]"
        );
        // The scalar role counts as a sequential loop.
        assert_eq!(t.counts(), (2, 1, 1));
        // With the cells the carry stage chose: their number.
        let cell = CarriedCell {
            first: (0, 0),
            index: Vec::new(),
            written: true,
            beside_moving: false,
        };
        for (n, shown) in [(1, "carry 1 cell,"), (2, "carry 2 cells,")] {
            if let Node::Loop { marks, .. } = &mut t.root {
                marks.cells = Some(Box::new(Carried {
                    cells: vec![cell.clone(); n],
                    instances: Vec::new(),
                }));
            }
            assert!(t.to_text(1).contains(shown));
        }
    }
}
