//! Emits a loop [`Node`] tree as `affine` operations in place of a SCoP.
//!
//! * Loops become `affine.for` (or single-dimension `affine.parallel`) with
//!   `max`/`min` bound maps whose dimensions are the enclosing new loops and
//!   whose symbols are the SCoP's parameters; guards become `affine.if`.
//! * A statement instance is a clone of the statement's operations (its
//!   store and the backward slice inside the SCoP: loads, index arithmetic,
//!   the computation) with each old induction variable replaced by an
//!   `affine.apply` of the new loops; MLIR's affine canonicalization later
//!   folds those applies into the access maps.
//! * The SCoP's top-level pure operations (between its loop nests) move in
//!   front of the new code, parameters computed inside its loops are
//!   recomputed in front of it, and the old loop nests are erased.
//!
//! [`crate::codegen::refuse`] runs before anything changes and refuses what could not be
//! emitted correctly, so that a rewrite is never left half done.

use std::collections::HashMap;

use super::ast::{LoopMarks, LoopRole};
use super::{subst_row, Bound, Cond, Div, Node, Row, Stride, Tree};
use crate::ffi::build::{self, AttrHandle, Builder, Point};
use crate::ffi::ir::{Op, Val};
use crate::ffi::shim;
use crate::scop::body::{cloned_with_statements, is_nest, touches_memory};
use crate::scop::expansion::Expansion;
use crate::scop::model::Scop;

mod copy_back;
mod copy_in;
pub mod gpu;
mod hoist;
mod lanes;
mod scalar_replace;
mod size_test;

use crate::codegen::map_text::{expanded_map, expr_text};
use copy_back::copy_back;
use hoist::Hoist;
use scalar_replace::Carry;

pub use crate::codegen::error::EmitError;
pub use copy_in::transposed_copy;
pub use size_test::Versioned;

/// What the printing does differently for a target: the CPU ([`Cpu`])
/// prints the tree in place; the GPU ([`gpu::Gpu`], `emit/gpu.rs`) prints
/// the launches, the device buffers and their copies around it. The
/// shared printers ask these hooks and nothing else of the target.
trait Target: Sized {
    /// The operations that allocate and free expanded temporaries, and the
    /// allocation's operand segments.
    const ALLOC: (&'static str, &'static str, &'static str);
    /// The input may stay beside the new code under the tree's size test
    /// ([`Tree::size_test`]).
    const KEEPS_INPUT: bool;
    /// Before the tree is printed at `first`.
    fn start(e: &mut Emitter<'_, Self>, first: Op) -> Result<(), EmitError>;
    /// The target's printing of `n`; `None` where the shared printing
    /// applies.
    fn node(
        e: &mut Emitter<'_, Self>,
        n: &Node,
        at: Point,
        created: &mut Vec<Op>,
    ) -> Option<Result<(), EmitError>>;
    /// Inside a kernel, where every loop runs in order in each thread.
    fn in_kernel(&self) -> bool;
    /// After the load `op` was cloned as `c` into a statement instance.
    fn cloned_load(e: &Emitter<'_, Self>, op: Op, c: Op) -> Result<(), EmitError>;
    /// After the tree is printed, before the expanded temporaries are
    /// freed at `after`: the launches and copies for the remark.
    fn finish(
        e: &mut Emitter<'_, Self>,
        buffers: &[Val],
        after: Option<Op>,
    ) -> Result<Finished, EmitError>;
    /// The last values of expansion `x` (in `buf`) back to its array, on
    /// the host, before `buf` is freed at `after`.
    fn copy_back(
        e: &Emitter<'_, Self>,
        x: &Expansion,
        buf: Val,
        after: Op,
    ) -> Result<(), EmitError>;
}

/// What a target's [`Target::finish`] reports for the remark.
#[derive(Default)]
struct Finished {
    launches: Vec<String>,
    copies: String,
    shared: (Vec<String>, i64),
    kernels: Vec<Op>,
}

/// The CPU: the tree printed in place.
struct Cpu;

impl Target for Cpu {
    const ALLOC: (&'static str, &'static str, &'static str) =
        ("memref.alloc", "array<i32: 0, 0>", "memref.dealloc");
    const KEEPS_INPUT: bool = true;

    fn start(_: &mut Emitter<'_, Self>, _: Op) -> Result<(), EmitError> {
        Ok(())
    }

    fn node(
        _: &mut Emitter<'_, Self>,
        _: &Node,
        _: Point,
        _: &mut Vec<Op>,
    ) -> Option<Result<(), EmitError>> {
        None
    }

    fn in_kernel(&self) -> bool {
        false
    }

    fn cloned_load(_: &Emitter<'_, Self>, _: Op, _: Op) -> Result<(), EmitError> {
        Ok(())
    }

    fn finish(_: &mut Emitter<'_, Self>, _: &[Val], _: Option<Op>) -> Result<Finished, EmitError> {
        Ok(Finished::default())
    }

    /// The last iteration's copy goes back to the array (what code after
    /// the SCoP would have seen).
    fn copy_back(
        e: &Emitter<'_, Self>,
        x: &Expansion,
        buf: Val,
        after: Op,
    ) -> Result<(), EmitError> {
        match &x.last {
            Some(last) => copy_back(
                &e.b,
                x,
                last,
                buf,
                e.scop.root_of(&e.scop.arrays[x.array.0]),
                after,
            ),
            None => Ok(()),
        }
    }
}

struct Emitter<'a, T: Target> {
    b: Builder,
    scop: &'a Scop,
    params: Vec<Val>,
    /// Parameters that are symbols of the new maps.
    used: Vec<bool>,
    /// The loop induction variables on the current path, by schedule dimension.
    ivs: Vec<Option<Val>>,
    /// The unrolled dimensions on the current path and their values (their
    /// [`Node::Let`] rows), outermost first.
    lets: Vec<(usize, Row)>,
    /// Accesses to expanded arrays, by access operation: the expanded
    /// buffer, the number of leading iterators, their lower bounds.
    expanded: HashMap<usize, (Val, usize, Vec<i64>)>,
    /// While a carrying loop's body is emitted
    /// ([`LoopMarks::carry`]): the cells' current values.
    carry: Option<Carry>,
    /// While a loop over the blocks of a register tile's vector loop is
    /// emitted: the buffer of the hoisted operands and where they go.
    hoist: Option<Hoist>,
    /// While a loop over the blocks' rows is emitted: the buffer of packed
    /// operands and where they go.
    pack: Option<Hoist>,
    /// The bodies of the `affine.parallel` loops around the current point,
    /// innermost last.
    parallel_bodies: Vec<crate::ffi::ir::Block>,
    /// Loops over blocks given a buffer of hoisted operands so far.
    hoisted_loops: usize,
    /// Loops over block rows given a buffer of packed operands so far.
    packed_loops: usize,
    /// Innermost loops marked not to be vectorized so far.
    scalar_loops: usize,
    /// The arrays whose cells kernels keep in registers across a thread's
    /// sequential loop (scalar replacement inside a kernel), by name.
    kernel_registers: Vec<String>,
    /// The divisions of the tree's rows.
    divs: Vec<Div>,
    /// The target: what it prints besides the tree, and its state.
    target: T,
    /// What holds at the current point: the bounds of the loops around it,
    /// the values of the unrolled dimensions and the conditions of the
    /// guards, as rows over `[params | t | divisions | constant]` (`true`:
    /// an equality, `false`: `row >= 0`).
    context: Vec<(Row, bool)>,
}

/// What [`emit`] created.
#[derive(Default)]
pub struct Emitted {
    /// The new top-level operations, in order.
    pub created: Vec<Op>,
    /// Loops over register-tile blocks whose block-invariant operands are
    /// computed once per block row.
    pub hoisted_loops: usize,
    /// Loops over register-tile block rows whose row-invariant operands are
    /// packed once, before them.
    pub packed_loops: usize,
    /// Innermost loops marked not to be vectorized
    /// ([`crate::transform::Plan::scalar_stmts`]).
    pub scalar_loops: usize,
    /// For a GPU: the arrays whose cells the kernels keep in registers
    /// across a thread's sequential loop (per-thread accumulators), for the
    /// remark.
    pub kernel_registers: Vec<String>,
    /// For a GPU: one phrase per kernel launched (grid and block), for the
    /// remark.
    pub launches: Vec<String>,
    /// For a GPU: which arrays are copied to the device and back, for the
    /// remark.
    pub copies: String,
    /// For a GPU: the boxes copied to shared memory (`name EXTxEXT`) and
    /// their bytes per block in all, for the remark.
    pub shared: (Vec<String>, i64),
    /// For a GPU: the launches, for [`crate::codegen::kernels::lower`].
    pub kernels: Vec<Op>,
    /// The SCoP's operations the new code replaces, taken out of their
    /// block, alive, in the order they may be erased in (users first):
    /// [`Emitted::retire_replaced`] erases them (or keeps them under a
    /// size test), or the caller puts them back (the emitted-code check
    /// that catches a bug).
    pub replaced: Vec<Op>,
    /// The input kept beside the new code under the tree's size test
    /// ([`Tree::size_test`]), by [`Emitted::retire_replaced`].
    pub versioned: Option<Versioned>,
    /// Why the size test could not be printed (an internal error: the new
    /// code then runs at every size).
    pub size_test_error: Option<String>,
}

/// Replaces the SCoP by the code of `tree`, for a CPU. Call
/// [`refuse::rewrite`](crate::codegen::refuse::rewrite) first.
///
/// The tree stages (`codegen/tree/`) have decided how each loop runs: its
/// [`LoopRole`] and its [`LoopMarks`] (cells carried in registers, buffers
/// of hoisted or packed operands, vector lanes), and the tree's
/// [`Tree::forward`]; this prints them.
pub fn emit(scop: &Scop, tree: &Tree) -> Result<Emitted, EmitError> {
    emit_for(scop, tree, Cpu)
}

/// [`emit`] for a GPU (`opts`: each dimension's
/// [`crate::transform::gpu::GpuRole`], the memory): the tree's launches
/// ([`Tree::launches`]), device buffers and copies, see [`gpu`].
pub fn emit_gpu(scop: &Scop, tree: &Tree, opts: gpu::GpuEmit) -> Result<Emitted, EmitError> {
    emit_for(scop, tree, gpu::Gpu::new(opts, &tree.launches))
}

/// [`emit`] for `target`.
fn emit_for<T: Target>(scop: &Scop, tree: &Tree, target: T) -> Result<Emitted, EmitError> {
    let first = scop.ir.first_op;
    // The operation after the SCoP: the new code ends in front of it.
    let end = scop.ir.ops.last().and_then(|&last| build::next_op(last));
    // Top-level operations that do not touch memory move in front of the
    // new code; the others are cloned with the statements.
    for &op in &scop.ir.ops {
        if !is_nest(op) && !touches_memory(scop, op) {
            build::move_before(op, first);
        }
    }
    // Expanded temporaries: one buffer each, allocated in front.
    let builder = Builder::new(first);
    let mut buffers: Vec<Val> = Vec::new();
    let mut expanded = HashMap::new();
    // On a GPU, in device memory (no value enters an iteration: nothing
    // to copy in).
    let (alloc_op, segs_text, free_op) = T::ALLOC;
    for x in &scop.expansions {
        let ty = x.expanded_type();
        let segs = builder.attr(segs_text)?;
        let alloc = builder
            .create_typed(
                Point::Before(first),
                alloc_op,
                &[],
                &[&ty],
                &[("operandSegmentSizes", segs)],
            )
            .ok_or_else(|| format!("cannot build the type {ty}"))?;
        let buf = alloc.result(0).ok_or("memref.alloc without result")?;
        buffers.push(buf);
        let lows: Vec<i64> = x.bounds.iter().map(|&(lo, _)| lo).collect();
        let root = scop.root_of(&scop.arrays[x.array.0]).key();
        for &s in &x.stmts {
            for acc in &scop.statements[s].accesses {
                if scop.root_of(&scop.arrays[acc.array.0]).key() == root {
                    expanded.insert(scop.op_of(acc).key(), (buf, x.depth, lows.clone()));
                }
            }
        }
    }
    let mut e = Emitter {
        b: builder,
        scop,
        params: Vec::new(),
        used: tree.used_params(scop.params.len()),
        ivs: vec![None; tree.dims],
        lets: Vec::new(),
        expanded,
        carry: None,
        hoist: None,
        pack: None,
        parallel_bodies: Vec::new(),
        hoisted_loops: 0,
        packed_loops: 0,
        scalar_loops: 0,
        kernel_registers: Vec::new(),
        divs: tree.divs.clone(),
        target,
        context: Vec::new(),
    };
    // Parameters computed inside the loops are recomputed in front.
    let mut hoisted: HashMap<usize, Val> = HashMap::new();
    let mut params = Vec::new();
    for (p, &v) in scop.ir.param_values.iter().enumerate() {
        params.push(if e.used[p] {
            e.hoist(v, Point::Before(first), &mut hoisted)?
        } else {
            v
        });
    }
    e.params = params;
    // A size test reads every parameter in front of the new code (none
    // when one cannot be computed there: no test).
    let keeps_input = T::KEEPS_INPUT && tree.size_test.is_some() && scop.expansions.is_empty();
    let test_params: Option<Vec<Val>> = keeps_input
        .then(|| {
            let values = &scop.ir.param_values;
            (0..values.len())
                .map(|p| match e.used[p] {
                    true => Ok(e.params[p]),
                    false => e.hoist(values[p], Point::Before(first), &mut hoisted),
                })
                .collect::<Result<Vec<Val>, EmitError>>()
                .ok()
        })
        .flatten();
    let mut created = Vec::new();
    T::start(&mut e, first)?;
    // The operation in front of the new code (none: it starts its block).
    let before_new = first.block().and_then(|b| {
        let ops = b.ops();
        let k = ops.iter().position(|o| o.key() == first.key())?;
        k.checked_sub(1).map(|j| ops[j])
    });
    if let Err(err) = e.node(&tree.root, Point::Before(first), &mut created) {
        // An internal error half way: the new code built so far goes, the
        // SCoP stays.
        for &op in created.iter().rev() {
            build::erase(op);
        }
        return Err(err);
    }
    // The SCoP's loop nests, then the top-level operations the
    // statements cloned, users first (`check` made sure none is used after
    // the SCoP), leave the block: the caller erases them
    // ([`Emitted::retire_replaced`]) or puts them back.
    let mut replaced: Vec<Op> = scop
        .ir
        .ops
        .iter()
        .copied()
        .filter(|&op| is_nest(op))
        .collect();
    replaced.extend(
        scop.ir
            .ops
            .iter()
            .rev()
            .copied()
            .filter(|&op| cloned_with_statements(scop, op)),
    );
    for &op in &replaced {
        build::detach(op);
    }
    // On a CPU, under a size test, the input stays beside the new code.
    let versioned = match (&tree.size_test, end, test_params) {
        (Some(test), Some(end), Some(params)) => Some(Versioned {
            test: test.clone(),
            params,
            before_new,
            end,
            original: scop
                .ir
                .ops
                .iter()
                .copied()
                .filter(|o| replaced.iter().any(|r| r.key() == o.key()))
                .collect(),
        }),
        _ => None,
    };
    // The first operation after the new code, taken before the
    // simplification, which may erase the last new operations (a promoted
    // single-iteration loop).
    let after = created
        .last()
        .and_then(|&op| build::next_op(op))
        .ok_or("no operation after the rewritten loops");
    shim::simplify_affine(&mut created);
    let after = after.ok();
    let finished = T::finish(&mut e, &buffers, after)?;
    // Expanded temporaries: the last iteration's copy goes back to the
    // array (on a CPU; a GPU's went to its device buffer), then the buffer
    // is freed.
    if !scop.expansions.is_empty() {
        let after = after.ok_or("no operation after the rewritten loops")?;
        for (x, &buf) in scop.expansions.iter().zip(&buffers) {
            T::copy_back(&e, x, buf, after)?;
            e.b.create(Point::Before(after), free_op, &[buf], 0, &[], &[]);
        }
    }
    Ok(Emitted {
        created,
        hoisted_loops: e.hoisted_loops,
        packed_loops: e.packed_loops,
        scalar_loops: e.scalar_loops,
        kernel_registers: e.kernel_registers,
        launches: finished.launches,
        copies: finished.copies,
        shared: finished.shared,
        kernels: finished.kernels,
        replaced,
        versioned,
        size_test_error: None,
    })
}

/// Records `op`, built at `at`, among the new top-level operations when it
/// is one (built in front of the SCoP, not inside a new block).
fn top_level(at: Point, op: Op, created: &mut Vec<Op>) {
    if matches!(at, Point::Before(_)) {
        created.push(op);
    }
}

/// A loop node's parts, as the printers take them.
#[derive(Clone, Copy)]
struct LoopView<'n> {
    dim: usize,
    lower: &'n [Bound],
    upper: &'n [Bound],
    stride: Option<&'n Stride>,
    role: LoopRole,
    marks: &'n LoopMarks,
    body: &'n Node,
}

impl<'n> LoopView<'n> {
    /// The parts of `n`, a [`Node::Loop`].
    fn of(n: &'n Node) -> Result<Self, EmitError> {
        match n {
            Node::Loop {
                dim,
                lower,
                upper,
                stride,
                role,
                marks,
                body,
            } => Ok(LoopView {
                dim: *dim,
                lower,
                upper,
                stride: stride.as_ref(),
                role: *role,
                marks,
                body,
            }),
            _ => Err("internal error: a loop expected".into()),
        }
    }
}

/// An `affine.for` with step 1 at `at` whose bound maps both take
/// `operands`, carrying `carried` through `iter_args` (its results), with
/// an empty body block (no terminator yet).
fn affine_for(
    b: &Builder,
    at: Point,
    lmap: AttrHandle,
    umap: AttrHandle,
    operands: &[Val],
    carried: &[Val],
) -> Result<(Op, crate::ffi::ir::Block), EmitError> {
    stepped_for(b, at, lmap, umap, operands, carried, 1)
}

/// [`affine_for`] with step `step`.
fn stepped_for(
    b: &Builder,
    at: Point,
    lmap: AttrHandle,
    umap: AttrHandle,
    operands: &[Val],
    carried: &[Val],
    step: i64,
) -> Result<(Op, crate::ffi::ir::Block), EmitError> {
    let n = operands.len();
    let mut all = operands.to_vec();
    all.extend(operands.iter().copied());
    let attrs = [
        ("lowerBoundMap", lmap),
        ("upperBoundMap", umap),
        ("step", b.attr(&format!("{step} : index"))?),
        (
            "operandSegmentSizes",
            b.attr(&format!("array<i32: {n}, {n}, {}>", carried.len()))?,
        ),
    ];
    Ok(b.create_carrying(at, "affine.for", &all, carried, &attrs))
}

/// The values a loop's body `block` receives: its induction variable and
/// the `n` values carried through `iter_args`.
fn loop_args(block: crate::ffi::ir::Block, n: usize) -> Result<(Val, Vec<Val>), EmitError> {
    let iv = block.arg(0).ok_or("loop without induction variable")?;
    let carried = (0..n)
        .map(|i| block.arg(i + 1))
        .collect::<Option<Vec<Val>>>()
        .ok_or("loop without its carried values")?;
    Ok((iv, carried))
}

impl<T: Target> Emitter<'_, T> {
    fn np(&self) -> usize {
        self.scop.params.len()
    }

    /// The current loop dimensions (in order) and the map operands
    /// (their induction variables, then the parameters).
    fn operands(&self) -> (Vec<usize>, Vec<Val>) {
        let dims: Vec<usize> = (0..self.ivs.len())
            .filter(|&k| self.ivs[k].is_some())
            .collect();
        let mut ops: Vec<Val> = dims
            .iter()
            .map(|&k| self.ivs[k].expect("filtered"))
            .collect();
        ops.extend(self.syms().iter().map(|&p| self.params[p]));
        (dims, ops)
    }

    /// The parameters that are map symbols, in order.
    fn syms(&self) -> Vec<usize> {
        (0..self.np()).filter(|&p| self.used[p]).collect()
    }

    fn text(&self, row: &Row, dims: &[usize]) -> String {
        expr_text(
            row,
            self.np(),
            self.ivs.len(),
            &self.divs,
            dims,
            &self.syms(),
        )
    }

    fn map_header(&self, dims: &[usize]) -> String {
        let d: Vec<String> = (0..dims.len()).map(|k| format!("d{k}")).collect();
        let s: Vec<String> = (0..self.syms().len()).map(|k| format!("s{k}")).collect();
        format!("({})[{}]", d.join(", "), s.join(", "))
    }

    /// The conditions `u - l >= 0`, over the loops `dims`, under which a
    /// loop from the bounds `lower` (the maximum of their ceilings) to
    /// `upper` (the minimum of their floors) runs at least once, leaving
    /// out the pairs whose difference is a constant; `None` when one of
    /// those is negative (the loop never runs). A pair with a divisor is
    /// `⌊u / du⌋ - ⌈l / dl⌉ >= 0`, floor and ceiling by constants being
    /// affine expressions of MLIR's integer sets (the blocks of a
    /// register tile that are whole under a symbolic size: `8·t + 7 <=
    /// n - 1`, so `t <= ⌊(n - 8) / 8⌋`).
    fn runs_once_conds(
        &self,
        lower: &[Bound],
        upper: &[Bound],
        dims: &[usize],
    ) -> Result<Option<Vec<String>>, EmitError> {
        let mut conds = Vec::new();
        for l in lower {
            for u in upper {
                if l.div != 1 || u.div != 1 {
                    let (fl, fu) = (self.with_lets(&l.row), self.with_lets(&u.row));
                    let (ll, lu) = (fl.len() - 1, fu.len() - 1);
                    if fl[..ll].iter().all(|&c| c == 0) && fu[..lu].iter().all(|&c| c == 0) {
                        if fu[lu].div_euclid(u.div) >= -((-fl[ll]).div_euclid(l.div)) {
                            continue;
                        }
                        return Ok(None);
                    }
                    conds.push(format!(
                        "({}) floordiv {} - (({}) ceildiv {}) >= 0",
                        self.text(&u.row, dims),
                        u.div,
                        self.text(&l.row, dims),
                        l.div
                    ));
                    continue;
                }
                let row: Row = u
                    .row
                    .iter()
                    .zip(&l.row)
                    .map(|(a, b)| a.checked_sub(*b))
                    .collect::<Option<_>>()
                    .ok_or("loop bounds overflow")?;
                let last = row.len() - 1;
                let fixed = self.with_lets(&row);
                if fixed[..last].iter().all(|&c| c == 0) {
                    if fixed[last] >= 0 {
                        continue;
                    }
                    return Ok(None);
                }
                conds.push(format!("{} >= 0", self.text(&row, dims)));
            }
        }
        Ok(Some(conds))
    }

    /// `row` with the unrolled dimensions around the current point replaced
    /// by their values ([`subst_row`], innermost first: a value is over the
    /// dimensions outside its own); `row` itself where that overflows.
    fn with_lets(&self, row: &Row) -> Row {
        let env: Vec<(usize, Row)> = self
            .lets
            .iter()
            .rev()
            .filter(|(_, value)| value.len() == row.len())
            .cloned()
            .collect();
        subst_row(row, &env, self.np()).unwrap_or_else(|| row.clone())
    }

    fn bound_text(&self, b: &Bound, dims: &[usize], lower: bool) -> String {
        let e = self.text(&b.row, dims);
        match (lower, b.div) {
            (true, 1) => e,
            (true, d) => format!("({e}) ceildiv {d}"),
            (false, 1) => format!("{e} + 1"),
            (false, d) => format!("({e}) floordiv {d} + 1"),
        }
    }

    fn attr(&self, text: &str) -> Result<AttrHandle, EmitError> {
        Ok(self.b.attr(text)?)
    }

    /// Makes `v` available before `at`: values defined outside the SCoP
    /// are used as they are; pure operations inside it are cloned there.
    fn hoist(&self, v: Val, at: Point, memo: &mut HashMap<usize, Val>) -> Result<Val, EmitError> {
        if let Some(&h) = memo.get(&v.key()) {
            return Ok(h);
        }
        let Some(def) = v.defining_op() else {
            return Ok(v);
        };
        if !cloned_with_statements(self.scop, def) {
            return Ok(v);
        }
        let operands = def.operands();
        let mut mapped = Vec::new();
        for &o in &operands {
            mapped.push(self.hoist(o, at, memo)?);
        }
        let c = self.b.clone_op(at, def);
        for (k, m) in mapped.into_iter().enumerate() {
            build::set_operand(c, k, m);
        }
        for r in 0..def.num_results() {
            if let (Some(old), Some(new)) = (def.result(r), c.result(r)) {
                memo.insert(old.key(), new);
            }
        }
        memo.get(&v.key())
            .copied()
            .ok_or_else(|| EmitError::from("internal error: hoisted value missing"))
    }

    fn node(&mut self, n: &Node, at: Point, created: &mut Vec<Op>) -> Result<(), EmitError> {
        let mark = self.context.len();
        let facts = self.facts(n);
        self.context.extend(facts);
        let r = self.node_inner(n, at, created);
        self.context.truncate(mark);
        r
    }

    /// What holds inside `n` about its own dimension or conditions (see
    /// `context`).
    fn facts(&self, n: &Node) -> Vec<(Row, bool)> {
        n.facts(self.np(), self.np() + self.ivs.len() + self.divs.len() + 1)
    }

    fn node_inner(&mut self, n: &Node, at: Point, created: &mut Vec<Op>) -> Result<(), EmitError> {
        if let Some(done) = T::node(self, n, at, created) {
            return done;
        }
        match n {
            Node::Seq(v) => {
                for c in v {
                    self.node(c, at, created)?;
                }
                Ok(())
            }
            Node::Loop {
                stride: Some(_), ..
            } => {
                // A strided loop runs as it is (no carried cells: they
                // would be loaded before the loop on the assumption that
                // it runs when its bounds are in order).
                let l = LoopView::of(n)?;
                self.plain_loop(l, l.role.is_parallel(), at, created)
            }
            Node::Loop { .. } => {
                let l = LoopView::of(n)?;
                // A loop over the blocks' rows of a register tile: its
                // blocks' row-invariant operands packed before it.
                let mut packing = false;
                if self.pack.is_none() && self.hoist.is_none() {
                    if let Some(plan) = &l.marks.packed {
                        packing = self.fill_packed((l.dim, plan), l.lower, l.upper, at, created)?;
                    }
                }
                if packing {
                    let r = self.plain_or_sequential(l, at, created);
                    self.pack = None;
                    return r;
                }
                if self.hoist.is_none() {
                    if let Some(plan) = &l.marks.hoisted {
                        return self.hoisting_loop(n, plan, at, created);
                    }
                }
                let reads_hoisted = self
                    .hoist
                    .as_ref()
                    .is_some_and(|h| h.is_read_by(l.marks, false));
                if reads_hoisted {
                    if let Some(h) = self.hoist.as_mut() {
                        h.set_active(true);
                    }
                }
                let reads_packed = self
                    .pack
                    .as_ref()
                    .is_some_and(|p| p.is_read_by(l.marks, true));
                if reads_packed {
                    if let Some(p) = self.pack.as_mut() {
                        p.start();
                    }
                }
                let r = self.plain_or_sequential(l, at, created);
                if reads_hoisted {
                    if let Some(h) = self.hoist.as_mut() {
                        h.set_active(false);
                    }
                }
                if reads_packed {
                    if let Some(p) = self.pack.as_mut() {
                        p.set_active(false);
                        // Each emission of its body (none: a loop that
                        // never runs) reads every instance's operands.
                        if !p.in_step() {
                            return Err(
                                "internal error: packed-operand instances out of step".into()
                            );
                        }
                    }
                }
                r
            }
            Node::If { conds, body } => {
                let then = self.guard(conds, at, created)?;
                let inner = Point::End(then);
                self.node(body, inner, created)?;
                self.b.create(inner, "affine.yield", &[], 0, &[], &[]);
                Ok(())
            }
            Node::Let { dim, row, body } => {
                self.ivs[*dim] = Some(self.apply(row, at, created)?);
                self.lets.push((*dim, row.clone()));
                let r = self.node(body, at, created);
                self.ivs[*dim] = None;
                self.lets.pop();
                r
            }
            Node::Stmt { stmt, iters } => self.statement(*stmt, iters, at, created),
        }
    }

    /// The loop `l`: with carried cells when it is a sequential loop
    /// marked to carry them ([`LoopMarks::carry`]) outside any other such
    /// loop, else plain.
    fn plain_or_sequential(
        &mut self,
        l: LoopView,
        at: Point,
        created: &mut Vec<Op>,
    ) -> Result<(), EmitError> {
        if !l.role.is_parallel() && l.marks.carry && self.carry.is_none() {
            self.sequential_loop(l, at, created)
        } else {
            self.plain_loop(l, l.role.is_parallel(), at, created)
        }
    }

    /// The loop `l` as an `affine.for` (or, with `parallel`, an
    /// `affine.parallel`).
    fn plain_loop(
        &mut self,
        l: LoopView,
        parallel: bool,
        at: Point,
        created: &mut Vec<Op>,
    ) -> Result<(), EmitError> {
        let LoopView {
            dim,
            lower,
            upper,
            stride,
            role,
            body,
            ..
        } = l;
        // Inside a GPU kernel, the loops that are not mapped run in order.
        let parallel = parallel && !self.target.in_kernel();
        let (dims, operands) = self.operands();
        // A strided loop runs over the quotient q of t = offset + step·q:
        // from ⌈(l - offset) / step⌉ to ⌊(u - offset) / step⌋, with
        // t ≥ ⌈row / div⌉ ⇔ q ≥ ⌈(row - div·offset) / (div·step)⌉. No `mod`
        // in the bounds: MLIR's canonicalization of loop bounds folds
        // `d0 mod 2` over d0 in [1, 9] to the constant 1 (a miscompile).
        let quotient = |bounds: &[Bound]| -> Result<Vec<Bound>, EmitError> {
            let s = stride.expect("called for strided loops");
            bounds
                .iter()
                .map(|b| {
                    let row = b
                        .row
                        .iter()
                        .zip(&s.offset)
                        .map(|(r, o)| o.checked_mul(b.div).and_then(|x| r.checked_sub(x)))
                        .collect::<Option<Row>>()
                        .ok_or("loop bounds overflow")?;
                    let div = b.div.checked_mul(s.step).ok_or("loop bounds overflow")?;
                    Ok(Bound { row, div })
                })
                .collect()
        };
        let (lower, upper) = match stride {
            Some(_) => (quotient(lower)?, quotient(upper)?),
            None => (lower.to_vec(), upper.to_vec()),
        };
        let (lmap, umap) = self.bound_maps(&lower, &upper, &dims)?;
        let (op, block) = if parallel {
            let mut all = operands.clone();
            all.extend(operands.iter().copied());
            let attrs = [
                ("lowerBoundsMap", lmap),
                ("upperBoundsMap", umap),
                (
                    "lowerBoundsGroups",
                    self.attr(&format!("dense<[{}]> : tensor<1xi32>", lower.len()))?,
                ),
                (
                    "upperBoundsGroups",
                    self.attr(&format!("dense<[{}]> : tensor<1xi32>", upper.len()))?,
                ),
                ("steps", self.attr("[1]")?),
                ("reductions", self.attr("[]")?),
            ];
            let (op, blocks) = self
                .b
                .create(at, "affine.parallel", &all, 0, &attrs, &[Some(1)]);
            (op, blocks[0])
        } else {
            let (op, block) = affine_for(&self.b, at, lmap, umap, &operands, &[])?;
            if !self.target.in_kernel() && role == LoopRole::Scalar {
                let scalar = self.attr(
                    "#llvm.loop_annotation<vectorize = #llvm.loop_vectorize<disable = true>>",
                )?;
                build::set_attr(op, "llvm.loop_annotation", scalar);
                self.scalar_loops += 1;
            }
            (op, block)
        };
        top_level(at, op, created);
        let iv = block.arg(0).ok_or("loop without induction variable")?;
        self.ivs[dim] = Some(iv);
        let inner = Point::End(block);
        if let Some(s) = stride {
            // t = offset + step·q, with the loop's q in t's place.
            let mut row = s.offset.clone();
            row[self.np() + dim] = s.step;
            let t = self.apply(&row, inner, created)?;
            self.ivs[dim] = Some(t);
        }
        if parallel {
            self.parallel_bodies.push(block);
        }
        let r = self.node(body, inner, created);
        if parallel {
            self.parallel_bodies.pop();
        }
        self.ivs[dim] = None;
        r?;
        self.b.create(inner, "affine.yield", &[], 0, &[], &[]);
        Ok(())
    }

    /// The lower and upper bound maps (`max`/`min` of `lower`/`upper`) over
    /// the loop dimensions `dims` and the symbols.
    fn bound_maps(
        &self,
        lower: &[Bound],
        upper: &[Bound],
        dims: &[usize],
    ) -> Result<(AttrHandle, AttrHandle), EmitError> {
        let header = self.map_header(dims);
        let text = |bounds: &[Bound], is_lower: bool| -> Vec<String> {
            bounds
                .iter()
                .map(|b| self.bound_text(b, dims, is_lower))
                .collect()
        };
        let lmap = self.attr(&format!(
            "affine_map<{header} -> ({})>",
            text(lower, true).join(", ")
        ))?;
        let umap = self.attr(&format!(
            "affine_map<{header} -> ({})>",
            text(upper, false).join(", ")
        ))?;
        Ok((lmap, umap))
    }

    /// An `affine.if` at `at` on `conds` over the dimensions set now (the
    /// current values of the loops around); returns its (empty,
    /// unterminated) then block.
    fn guard(
        &self,
        conds: &[Cond],
        at: Point,
        created: &mut Vec<Op>,
    ) -> Result<crate::ffi::ir::Block, EmitError> {
        let (dims, operands) = self.operands();
        let header = self.map_header(&dims);
        let texts = self.cond_texts(conds, &dims);
        self.affine_if(&header, &texts, &operands, at, created)
    }

    /// The texts `e >= 0` (or `e == 0`) of `conds` over the loops `dims`.
    fn cond_texts(&self, conds: &[Cond], dims: &[usize]) -> Vec<String> {
        conds
            .iter()
            .map(|Cond { row, eq }| {
                format!(
                    "{} {} 0",
                    self.text(row, dims),
                    if *eq { "==" } else { ">=" }
                )
            })
            .collect()
    }

    /// An `affine.if` at `at` on the constraints `conds` (`e >= 0`, `e == 0`
    /// texts over the map `header`), without an else block; returns its
    /// (empty, unterminated) then block.
    fn affine_if(
        &self,
        header: &str,
        conds: &[String],
        operands: &[Val],
        at: Point,
        created: &mut Vec<Op>,
    ) -> Result<crate::ffi::ir::Block, EmitError> {
        let set = self.attr(&format!("affine_set<{header} : ({})>", conds.join(", ")))?;
        let (op, blocks) = self.b.create(
            at,
            "affine.if",
            operands,
            0,
            &[("condition", set)],
            &[Some(0), None],
        );
        top_level(at, op, created);
        Ok(blocks[0])
    }

    /// An `affine.apply` of `row` over the current loops and parameters.
    fn apply(&self, row: &Row, at: Point, created: &mut Vec<Op>) -> Result<Val, EmitError> {
        let (dims, operands) = self.operands();
        let header = self.map_header(&dims);
        let m = self.attr(&format!(
            "affine_map<{header} -> ({})>",
            self.text(row, &dims)
        ))?;
        let (op, _) = self
            .b
            .create(at, "affine.apply", &operands, 1, &[("map", m)], &[]);
        top_level(at, op, created);
        op.result(0)
            .ok_or_else(|| EmitError::from("affine.apply without result"))
    }

    /// The operations of statement `s`'s body, in program order (its
    /// [`crate::scop::model::Statement::body`]).
    fn slice(&self, s: usize) -> Vec<Op> {
        self.scop.statements[s]
            .body
            .iter()
            .map(|b| self.scop.body_op(b))
            .collect()
    }

    fn statement(
        &mut self,
        s: usize,
        iters: &[Row],
        at: Point,
        created: &mut Vec<Op>,
    ) -> Result<(), EmitError> {
        let scop = self.scop;
        let st = &scop.statements[s];
        // Inside a loop with carried cells: this instance's cells.
        let cells_of = match &mut self.carry {
            Some(c) => {
                let cells = c.next_cells()?;
                // One entry per access of the statement: another
                // statement's means the tree and the carried-cell analysis
                // are out of step.
                if cells.len() != st.accesses.len() {
                    return Err("internal error: carried-cell instances out of step".into());
                }
                Some(cells)
            }
            None => None,
        };
        self.b.set_loc_of(self.scop.store_of(st));
        let mut map: HashMap<usize, Val> = HashMap::new();
        // Iterators past the input's loops (embedded: `rewrite::embed`) have
        // no induction variable, and no operation uses them.
        for (row, iv) in iters.iter().zip(self.scop.ivs_of(st)) {
            let v = self.apply(row, at, created)?;
            map.insert(iv.key(), v);
        }
        // Operations whose values come from the buffer of hoisted operands
        // (and the ones only they use): not cloned.
        let slice = self.slice(s);
        let skip = self.read_hoisted(s, &slice, at, created, &mut map)?;
        for op in slice {
            if skip.contains(&op.key()) {
                continue;
            }
            // A carried cell: a load reads its current value, a store
            // replaces it.
            let cell = cells_of.as_ref().and_then(|cells| {
                let a = st
                    .accesses
                    .iter()
                    .position(|a| self.scop.op_of(a).key() == op.key())?;
                cells[a]
            });
            if let (Some(c), Some(carry)) = (cell, self.carry.as_mut()) {
                if op.name() == "affine.store" {
                    let v = *op.operands().first().ok_or("store without value")?;
                    let nv = match map.get(&v.key()) {
                        Some(&nv) => nv,
                        None => match scop
                            .ir
                            .param_values
                            .iter()
                            .position(|pv| pv.key() == v.key())
                        {
                            Some(p) => self.params[p],
                            None => v,
                        },
                    };
                    carry.values[c] = nv;
                } else {
                    let old = op.result(0).ok_or("load without result")?;
                    map.insert(old.key(), carry.values[c]);
                }
                continue;
            }
            let c = self.b.clone_op(at, op);
            top_level(at, c, created);
            for (k, v) in op.operands().into_iter().enumerate() {
                if let Some(&nv) = map.get(&v.key()) {
                    build::set_operand(c, k, nv);
                } else if let Some(p) = self
                    .scop
                    .ir
                    .param_values
                    .iter()
                    .position(|pv| pv.key() == v.key())
                {
                    build::set_operand(c, k, self.params[p]);
                }
            }
            if let Some((buf, lead, lows)) = self.expanded.get(&op.key()) {
                // X[i] becomes X'[c - lb, i]: the buffer, then the values of
                // the expanded iterators, then the old map operands.
                let at_memref = crate::codegen::forward::memref_position(op).unwrap_or(0);
                let old = c.operands();
                let mut operands: Vec<Val> = old[..at_memref].to_vec();
                operands.push(*buf);
                for k in 0..*lead {
                    let v = map
                        .get(&self.scop.ivs_of(st)[k].key())
                        .copied()
                        .ok_or("expanded iterator without a value")?;
                    operands.push(v);
                }
                operands.extend(old[at_memref + 1..].iter().copied());
                let text = c
                    .attr(c"map")
                    .map(|a| a.text())
                    .ok_or("access without a map")?;
                let new_map = expanded_map(&text, *lead, lows)
                    .ok_or_else(|| format!("cannot rewrite the access map {text}"))?;
                let attr = self.attr(&new_map)?;
                build::set_operands(c, &operands);
                build::set_attr(c, "map", attr);
            }
            if op.name() == "affine.load" {
                T::cloned_load(self, op, c)?;
            }
            for r in 0..op.num_results() {
                if let (Some(old), Some(new)) = (op.result(r), c.result(r)) {
                    map.insert(old.key(), new);
                }
            }
        }
        self.b.set_loc_of(self.scop.ir.first_op);
        Ok(())
    }
}
