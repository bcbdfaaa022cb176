//! Stages on the loop tree ([`super::ast`]): what code generation decides
//! on the tree after scanning it out of the plan, one file each, each
//! recording its decisions in the tree (loop roles, [`LoopMarks`]) for the
//! printer (`codegen/emit/`) to print.
//!
//! The stages run in the order of [`CPU`] or [`GPU`]; the caller
//! (`passes/opt`) checks the tree after each in debug and test builds and
//! prints it after each with `print-stages`:
//!
//! * [`carry`]: the loops that keep cells in registers across them
//!   (scalar replacement), and the forwarding of cells after printing;
//! * [`buffers`]: the loops of register tiles whose block- or
//!   row-invariant operands go to a buffer before them (hoisted, packed);
//! * [`lanes`]: the loops whose unrolled copies run in vector lanes;
//! * [`scalar`]: the innermost loops kept from LLVM's vectorizer.
//!
//! On a GPU, [`carry`] runs inside the kernels, then [`launches`] decides
//! each launch's grid and block ([`gpu_map`]) and, for each cooperative
//! loop, the boxes it copies to shared memory and the cells the threads
//! keep in registers across its steps.
//!
//! On the GPU, the promotions to shared memory ([`promote`]) are found on
//! the tree too (before the plan is checked: the checker proves them).

use super::ast::{Bound, LoopMarks, LoopRole, Node, PackFill, Row, Tree};
use super::instances::Via;
use crate::scop::model::Model;
use crate::target::L1Sets;
use crate::transform::gpu::GpuRole;
use crate::transform::{Plan, RegisterTile};
use promote::Promotion;

pub mod buffers;
pub mod carry;
pub mod gpu_map;
pub mod lanes;
pub mod launches;
pub mod promote;
pub mod scalar;

/// What the tree stages read besides the tree: the plan's decisions that
/// code generation carries out, and the options.
#[derive(Debug, Clone, Copy)]
pub struct TreeCx<'a> {
    /// The SCoP's model (the statements' accesses, the expanded arrays).
    pub model: &'a Model,
    /// Per access origin, what its operation says beyond the model.
    pub vias: &'a [Via],
    /// Per statement, its copies can run in vector lanes
    /// ([`crate::analysis::lanes::lane_wise`]).
    pub lane_wise: &'a [bool],
    /// [`Plan::register_tiles`].
    pub register_tiles: &'a [RegisterTile],
    /// [`Plan::register_r_size`].
    pub register_sizes: &'a [i64],
    /// [`Plan::lane_dims`].
    pub lane_dims: &'a [usize],
    /// [`Plan::lane_size`].
    pub lane_size: i64,
    /// [`Plan::scalar_stmts`].
    pub scalar_stmts: &'a [bool],
    /// Every innermost sequential loop keeps its loop-invariant cells in
    /// registers, not only those of the register tiles
    /// (`scalar-replace`).
    pub scalar_replace: bool,
    /// Register tiles get buffers of block-invariant operands (`hoist`).
    pub hoist: bool,
    /// Register tiles get buffers of packed row-invariant operands
    /// (`pack`).
    pub pack: bool,
    /// The target's registers, for the loops that fill packed buffers.
    pub fill: PackFill,
    /// The CPU's L1 data cache's sets (`None`: unknown, or a GPU), for the
    /// buffers of operands whose rows would crowd them.
    pub l1: Option<L1Sets>,
    /// Rows that vector lanes stream from beyond the CPU's L2 are
    /// prefetched ahead of their loads (`prefetch`; `None`: off, or a
    /// GPU).
    pub prefetch: Option<Prefetch>,
    /// On a GPU: the plan's roles and promotions (empty on a CPU).
    pub gpu: GpuCx<'a>,
}

/// Which rows the lanes stage prefetches, and how far ahead
/// ([`TreeCx::prefetch`], [`crate::target::cpu::PREFETCH_AHEAD_BYTES`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Prefetch {
    /// Bytes ahead of a row's load.
    pub ahead_bytes: i64,
    /// Rows of arrays larger than this (the L2 cache of one core), or of
    /// unknown size.
    pub past_bytes: i64,
}

/// What the GPU's stages read besides the tree ([`TreeCx::gpu`]).
#[derive(Debug, Clone, Copy)]
pub struct GpuCx<'a> {
    /// Each plan dimension's role.
    pub roles: &'a [GpuRole],
    /// The boxes the cooperative loops may copy to shared memory (proven
    /// by the checker).
    pub promotions: &'a [Promotion],
    /// Bytes of shared memory a launch may use.
    pub shared_limit: i64,
}

impl GpuCx<'_> {
    /// A CPU's: nothing.
    pub const NONE: GpuCx<'static> = GpuCx {
        roles: &[],
        promotions: &[],
        shared_limit: 0,
    };
}

impl<'a> TreeCx<'a> {
    /// The context of `plan`'s tree, with every option off (set them
    /// after).
    pub fn of(plan: &'a Plan, scop: (&'a Model, &'a [Via], &'a [bool]), fill: PackFill) -> Self {
        let (model, vias, lane_wise) = scop;
        TreeCx {
            model,
            vias,
            lane_wise,
            register_tiles: &plan.register_tiles,
            register_sizes: &plan.register_r_size,
            lane_dims: &plan.lane_dims,
            lane_size: plan.lane_size,
            scalar_stmts: &plan.scalar_stmts,
            scalar_replace: false,
            hoist: false,
            pack: false,
            fill,
            l1: None,
            prefetch: None,
            gpu: GpuCx::NONE,
        }
    }
}

/// What a stage did, for its line in `print-stages`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Note {
    /// The loops it marked (or gave a role).
    pub loops: usize,
}

/// A stage: decides on the tree, records it there.
pub type Stage = fn(&mut Tree, &TreeCx) -> Note;

/// The stages for a CPU, in order.
pub const CPU: &[(&str, Stage)] = &[
    ("carry", carry::run),
    ("buffers", buffers::run),
    ("lanes", lanes::run),
    ("scalar", scalar::run),
];

/// The stages for a GPU, in order (the kernels keep cells in registers
/// across a thread's sequential loop; the rest is the CPU's).
pub const GPU: &[(&str, Stage)] = &[("carry", carry::run_on_gpu), ("launches", launches::run)];

/// Calls `f` on every loop of `n` (preorder) with its dimension, its
/// stride's presence, its role and its marks; returns how many calls
/// returned true.
pub(crate) fn each_loop(
    n: &mut Node,
    f: &mut dyn FnMut(usize, bool, &mut LoopRole, &mut LoopMarks, &Node) -> bool,
) -> usize {
    match n {
        Node::Seq(v) => v.iter_mut().map(|c| each_loop(c, f)).sum(),
        Node::Loop {
            dim,
            stride,
            role,
            marks,
            body,
            ..
        } => usize::from(f(*dim, stride.is_some(), role, marks, body)) + each_loop(body, f),
        Node::If { body, .. } | Node::Let { body, .. } => each_loop(body, f),
        Node::Stmt { .. } => 0,
    }
}

/// What holds around a loop, for the stages that prove things about it
/// ([`each_loop_around`]).
pub(crate) struct Around {
    /// Parameters.
    pub np: usize,
    /// Schedule dimensions.
    pub n: usize,
    /// Columns of a row: `[params | t | divisions | constant]`.
    pub w: usize,
    /// [`Tree::used_params`]: the parameters the new maps may use.
    pub used: Vec<bool>,
    /// The dimensions bound by the loops and lets around the loop.
    pub bound: Vec<bool>,
    /// What the loops, lets and guards around it and its own bounds say
    /// ([`Node::facts`]).
    pub context: Vec<(Row, bool)>,
    /// A loop around it is marked for a buffer of operands (hoist, pack).
    pub buffered: bool,
}

/// A loop as [`each_loop_around`] shows it.
pub(crate) struct LoopAt<'n> {
    pub dim: usize,
    pub lower: &'n [Bound],
    pub upper: &'n [Bound],
    pub body: &'n Node,
}

/// Calls `f` on every loop of `tree` (preorder) with what holds around it,
/// the loop, and its marks to set.
pub(crate) fn each_loop_around(
    tree: &mut Tree,
    np: usize,
    f: &mut dyn FnMut(&Around, LoopAt, &mut LoopMarks),
) {
    fn walk(n: &mut Node, a: &mut Around, f: &mut dyn FnMut(&Around, LoopAt, &mut LoopMarks)) {
        let mark = a.context.len();
        let facts = n.facts(a.np, a.w);
        a.context.extend(facts);
        match n {
            Node::Seq(v) => v.iter_mut().for_each(|c| walk(c, a, f)),
            Node::Loop {
                dim,
                lower,
                upper,
                marks,
                body,
                ..
            } => {
                let at = LoopAt {
                    dim: *dim,
                    lower,
                    upper,
                    body,
                };
                f(a, at, marks);
                let buffered = marks.hoist.is_some() || marks.pack.is_some();
                under(*dim, body, a, f, buffered);
            }
            Node::Let { dim, body, .. } => under(*dim, body, a, f, false),
            Node::If { body, .. } => walk(body, a, f),
            Node::Stmt { .. } => {}
        }
        a.context.truncate(mark);
    }
    /// `body` with `dim` bound (and under a buffer's mark).
    fn under(
        dim: usize,
        body: &mut Node,
        a: &mut Around,
        f: &mut dyn FnMut(&Around, LoopAt, &mut LoopMarks),
        buffered: bool,
    ) {
        let was = (a.bound.get(dim).copied(), a.buffered);
        if let Some(b) = a.bound.get_mut(dim) {
            *b = true;
        }
        a.buffered |= buffered;
        walk(body, a, f);
        if let (Some(b), Some(w)) = (a.bound.get_mut(dim), was.0) {
            *b = w;
        }
        a.buffered = was.1;
    }
    let mut a = Around {
        np,
        n: tree.dims,
        w: np + tree.dims + tree.divs.len() + 1,
        used: tree.used_params(np),
        bound: vec![false; tree.dims],
        context: Vec::new(),
        buffered: false,
    };
    walk(&mut tree.root, &mut a, f);
}

/// The context of the stages' unit tests: nothing planned, every option
/// off.
#[cfg(test)]
pub(crate) fn test_cx() -> TreeCx<'static> {
    let model: &'static Model = Box::leak(Box::new(Model {
        params: Vec::new(),
        statements: Vec::new(),
        arrays: Vec::new(),
        schedule_len: 0,
        expansions: Vec::new(),
    }));
    TreeCx {
        model,
        vias: &[],
        lane_wise: &[],
        register_tiles: &[],
        register_sizes: &[],
        lane_dims: &[],
        lane_size: 0,
        scalar_stmts: &[],
        scalar_replace: false,
        hoist: false,
        pack: false,
        fill: PackFill {
            registers: 32,
            lanes: 8,
        },
        l1: None,
        prefetch: None,
        gpu: GpuCx::NONE,
    }
}

/// Hand-built trees for the stages' unit tests: rows over `[t0 … t5 | 1]`
/// (no parameters, no divisions).
#[cfg(test)]
pub(crate) mod build {
    use crate::codegen::ast::{Bound, LoopMarks, LoopRole, Node, Stride, Tree};

    /// Schedule dimensions of the trees.
    pub const DIMS: usize = 6;

    fn constant(c: i64) -> Bound {
        let mut row = vec![0; DIMS + 1];
        row[DIMS] = c;
        Bound { row, div: 1 }
    }

    /// A loop over `dim` from 0 to 7 with `role`.
    pub fn lp(dim: usize, role: LoopRole, body: Node) -> Node {
        Node::Loop {
            dim,
            lower: vec![constant(0)],
            upper: vec![constant(7)],
            stride: None,
            role,
            marks: Box::default(),
            body: Box::new(body),
        }
    }

    /// A row over `[p0 | t0 … t(dims-1) | 1]` (one parameter):
    /// `Σ x·t_d + c` for the `(d, x)` of `cols`.
    pub fn row_p1(dims: usize, cols: &[(usize, i64)], c: i64) -> Vec<i64> {
        let mut r = vec![0; dims + 2];
        for &(d, x) in cols {
            r[1 + d] = x;
        }
        r[dims + 1] = c;
        r
    }

    /// A loop over `dim` from 0 to `last` with `role`, its bounds rows of
    /// [`row_p1`].
    pub fn loop_p1(dims: usize, dim: usize, role: LoopRole, last: i64, body: Node) -> Node {
        let bound = |c: i64| Bound {
            row: row_p1(dims, &[], c),
            div: 1,
        };
        Node::Loop {
            dim,
            lower: vec![bound(0)],
            upper: vec![bound(last)],
            stride: None,
            role,
            marks: Box::default(),
            body: Box::new(body),
        }
    }

    /// A sequential loop.
    pub fn seq(dim: usize, body: Node) -> Node {
        lp(dim, LoopRole::Serial, body)
    }

    /// A parallel loop.
    pub fn par(dim: usize, body: Node) -> Node {
        lp(dim, LoopRole::Parallel, body)
    }

    /// A sequential loop in steps of 2.
    pub fn strided(dim: usize, body: Node) -> Node {
        match seq(dim, body) {
            Node::Loop {
                dim,
                lower,
                upper,
                role,
                marks,
                body,
                ..
            } => Node::Loop {
                dim,
                lower,
                upper,
                stride: Some(Stride {
                    step: 2,
                    offset: vec![0; DIMS + 1],
                }),
                role,
                marks,
                body,
            },
            n => n,
        }
    }

    /// Copy `i` of an unrolled dimension `dim`: `dim = i`.
    pub fn copy(dim: usize, i: i64, body: Node) -> Node {
        Node::Let {
            dim,
            row: constant(i).row,
            body: Box::new(body),
        }
    }

    /// An instance of statement `stmt` (iterators not looked at).
    pub fn stmt(stmt: usize) -> Node {
        Node::Stmt {
            stmt,
            iters: Vec::new(),
        }
    }

    /// A tree of `root` for `stmts` statements.
    pub fn tree(root: Node, stmts: usize) -> Tree {
        Tree {
            root,
            divs: Vec::new(),
            dims: DIMS,
            register_sizes: vec![0; stmts],
            forward: false,
            launches: Vec::new(),
            size_test: None,
        }
    }

    /// The roles and marks of the loops of `t`, preorder, by dimension.
    pub fn loops(t: &Tree) -> Vec<(usize, LoopRole, LoopMarks)> {
        fn walk(n: &Node, out: &mut Vec<(usize, LoopRole, LoopMarks)>) {
            match n {
                Node::Seq(v) => v.iter().for_each(|c| walk(c, out)),
                Node::Loop {
                    dim,
                    role,
                    marks,
                    body,
                    ..
                } => {
                    out.push((*dim, *role, (**marks).clone()));
                    walk(body, out);
                }
                Node::If { body, .. } | Node::Let { body, .. } => walk(body, out),
                Node::Stmt { .. } => {}
            }
        }
        let mut out = Vec::new();
        walk(&t.root, &mut out);
        out
    }
}
