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
//! [`check`] runs before anything changes and refuses what could not be
//! emitted correctly, so that a rewrite is never left half done.

use std::collections::HashMap;

use super::{Bound, Cond, Div, Node, Row, Stride, Tree};
use crate::ffi::build::{self, AttrHandle, Builder, Point};
use crate::ffi::ir::{Op, Val};
use crate::ffi::shim;
use crate::scop::model::{Access, Scop};

#[path = "emit_gpu.rs"]
pub mod gpu;

/// Why the SCoP cannot be rewritten here.
pub type EmitError = String;

fn is_nest(op: Op) -> bool {
    matches!(
        op.name().as_str(),
        "affine.for" | "affine.parallel" | "affine.if"
    )
}

fn in_scop(scop: &Scop, op: Op) -> bool {
    scop.ops.iter().any(|&r| op.is_within(r))
}

/// The parameters that bounds, guards or iterators of `tree` use, directly
/// or through the divisions they use (the symbols of the new affine maps;
/// others stay in the statement bodies).
pub fn used_params(tree: &Tree, np: usize) -> Vec<bool> {
    let mut used = vec![false; np];
    let nd = tree.divs.len();
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
    walk(&tree.root, &mut mark);
    // Divisions use parameters and earlier divisions: latest first.
    for j in (0..nd).rev() {
        if divs_used[j] {
            let row = &tree.divs[j].row;
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

/// Refuses SCoPs whose rewrite would break the IR: parameters of the new
/// loops that are not valid affine symbols where the loops go, and values
/// of the SCoP used after it.
pub fn check(scop: &Scop, tree: &Tree) -> Result<(), EmitError> {
    let top_level = scop
        .first_op
        .parent()
        .is_some_and(|p| p.name() == "func.func");
    let used = used_params(tree, scop.params.len());
    for (p, &v) in scop.param_values.iter().enumerate() {
        if !used[p] {
            continue;
        }
        match v.defining_op() {
            Some(def) if in_scop(scop, def) => {
                if !top_level {
                    return Err(format!(
                        "parameter '{}' is computed inside the loops and the SCoP is not at the top level of its function",
                        scop.params[p]
                    ));
                }
            }
            _ => {
                if !shim::is_valid_symbol(v) {
                    return Err(format!(
                        "parameter '{}' is not a valid affine symbol where the new loops go",
                        scop.params[p]
                    ));
                }
            }
        }
    }
    for &op in &scop.ops {
        if is_nest(op) && build::has_outside_uses(op) {
            return Err("a value computed inside the loops is used after them".into());
        }
    }
    Ok(())
}

struct Emitter<'a> {
    b: Builder,
    scop: &'a Scop,
    params: Vec<Val>,
    /// Parameters that are symbols of the new maps.
    used: Vec<bool>,
    /// The loop induction variables on the current path, by schedule dimension.
    ivs: Vec<Option<Val>>,
    /// Preorder position of every operation of the SCoP (clone order).
    order: HashMap<usize, usize>,
    /// Accesses to expanded arrays, by access operation: the expanded
    /// buffer, the number of leading iterators, their lower bounds.
    expanded: HashMap<usize, (Val, usize, Vec<i64>)>,
    /// Loop dimensions whose innermost loops keep loop-invariant cells in
    /// registers (see [`Emitter::carried_cells`]).
    carry_dims: Vec<usize>,
    /// While such a loop's body is emitted: the cells' current values.
    carry: Option<Carry>,
    /// Register tiles: (the dimension of the blocks of the vector loop, the
    /// dimension of the loop inside the tile), whose block-invariant
    /// operands are computed once per block row (see
    /// [`Emitter::hoisted_operands`]).
    hoist_dims: Vec<(usize, usize)>,
    /// Per statement, the tile size of its register tile's inner loop.
    r_size: Vec<i64>,
    /// While a loop over such blocks is emitted: the buffer of the
    /// operands and where they go.
    hoist: Option<Hoist>,
    /// The bodies of the `affine.parallel` loops around the current point,
    /// innermost last.
    parallel_bodies: Vec<crate::ffi::ir::Block>,
    /// Loops over blocks given a buffer of hoisted operands so far.
    hoisted_loops: usize,
    /// Every innermost sequential loop keeps its loop-invariant cells in
    /// registers, not only those of `carry_dims`.
    carry_all: bool,
    /// The divisions of the tree's rows.
    divs: Vec<Div>,
    /// The GPU mapping, when the code is for a GPU.
    gpu: Option<gpu::Gpu>,
}

/// What [`emit`] created.
pub struct Emitted {
    /// The new top-level operations, in order.
    pub created: Vec<Op>,
    /// Loops over register-tile blocks whose block-invariant operands are
    /// computed once per block row.
    pub hoisted_loops: usize,
    /// For a GPU: one phrase per kernel launched (grid and block), for the
    /// remark.
    pub launches: Vec<String>,
    /// For a GPU: which arrays are copied to the device and back, for the
    /// remark.
    pub copies: String,
}

/// Operands of a register tile's statement instances that do not change
/// from one block of the vector loop to the next, computed once per block
/// row into a buffer (see [`Emitter::hoisted_operands`]).
struct Hoist {
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
}

/// Statement instances of a straight-line loop body: the statement and its
/// iterator rows.
type Instances = Vec<(usize, Vec<Row>)>;

/// Per statement: its slice, and its operations computable ahead with the
/// loads below each ([`Emitter::ahead_ops`]).
type AheadOps = HashMap<usize, (Vec<Op>, Vec<(Op, Vec<Op>)>)>;

/// A slot of the buffer of hoisted operands: the instance that computes it
/// and its operation.
struct Slot {
    stmt: usize,
    iters: Vec<Row>,
    root: Op,
}

/// The plan of [`Emitter::hoisted_operands`] for one loop over blocks.
struct HoistPlan {
    node: *const Node,
    lower: Vec<Bound>,
    upper: Vec<Bound>,
    slots: Vec<Slot>,
    instances: Vec<Vec<(usize, usize)>>,
    elem: String,
    size: i64,
    k_dim: usize,
}

/// A cell of an array kept in a register across an innermost loop.
#[derive(Debug, Clone)]
struct Cell {
    /// The memref.
    memref: Val,
    /// The element type (MLIR text).
    elem: String,
    /// The subscripts over `[params | t | constant]`, outer loops only.
    index: Vec<Row>,
    /// Some instance writes it: stored back after the loop.
    written: bool,
}

/// Per statement instance of a loop body, in emission order: per access of
/// the statement, the carried cell it touches.
type InstanceCells = Vec<Vec<Option<usize>>>;

/// The state of an innermost loop whose cells are carried.
struct Carry {
    instances: InstanceCells,
    /// The next instance to emit.
    next: usize,
    /// The current value of each cell.
    values: Vec<Val>,
}

/// Replaces the SCoP by the code of `tree`. Call [`check`] first.
///
/// Innermost sequential loops over the dimensions `carry_dims` (all of
/// them, with `carry_all`) keep the array cells their statements access at
/// loop-invariant subscripts in registers (`iter_args`) when that is exact:
/// see [`Emitter::carried_cells`]. Loops over the dimensions `hoist_dims.0`
/// (blocks of a register tile's vector loop) get the operands of their
/// inner loop over `hoist_dims.1` that do not change from block to block
/// computed once, before them: see [`Emitter::hoisted_operands`];
/// `r_size` gives each statement's tile size of that inner loop.
///
/// With `gpu_opts` (each dimension's [`crate::transform::gpu::GpuRole`], the memory), the code is for a GPU: see
/// [`gpu`] (launches, device buffers and copies).
#[allow(clippy::too_many_arguments)]
pub fn emit(
    scop: &Scop,
    tree: &Tree,
    n_dims: usize,
    carry_dims: &[usize],
    hoist_dims: &[(usize, usize)],
    r_size: &[i64],
    carry_all: bool,
    gpu_opts: Option<gpu::GpuEmit>,
) -> Result<Emitted, EmitError> {
    let first = scop.first_op;
    let mut order = HashMap::new();
    let mut counter = 0usize;
    fn number(op: Op, order: &mut HashMap<usize, usize>, counter: &mut usize) {
        order.insert(op.key(), *counter);
        *counter += 1;
        for r in op.regions() {
            for b in r.blocks() {
                for o in b.ops() {
                    number(o, order, counter);
                }
            }
        }
    }
    for &op in &scop.ops {
        number(op, &mut order, &mut counter);
    }
    // Pure top-level operations move in front of the new code.
    for &op in &scop.ops {
        if !is_nest(op) {
            build::move_before(op, first);
        }
    }
    // Expanded temporaries: one buffer each, allocated in front.
    let builder = Builder::new(first);
    let mut buffers: Vec<Val> = Vec::new();
    let mut expanded = HashMap::new();
    for x in &scop.expansions {
        let ty = x.expanded_type();
        let segs = builder.attr("array<i32: 0, 0>")?;
        let alloc = builder
            .create_typed(
                Point::Before(first),
                "memref.alloc",
                &[],
                &[&ty],
                &[("operandSegmentSizes", segs)],
            )
            .ok_or_else(|| format!("cannot build the type {ty}"))?;
        let buf = alloc.result(0).ok_or("memref.alloc without result")?;
        buffers.push(buf);
        let lows: Vec<i64> = x.bounds.iter().map(|&(lo, _)| lo).collect();
        let root = scop.arrays[x.array.0].root().key();
        for &s in &x.stmts {
            for acc in &scop.statements[s].accesses {
                if scop.arrays[acc.array.0].root().key() == root {
                    expanded.insert(acc.op.key(), (buf, x.depth, lows.clone()));
                }
            }
        }
    }
    let mut e = Emitter {
        b: builder,
        scop,
        params: Vec::new(),
        used: used_params(tree, scop.params.len()),
        ivs: vec![None; n_dims],
        order,
        expanded,
        carry_dims: carry_dims.to_vec(),
        carry: None,
        hoist_dims: hoist_dims.to_vec(),
        r_size: r_size.to_vec(),
        hoist: None,
        parallel_bodies: Vec::new(),
        hoisted_loops: 0,
        carry_all,
        divs: tree.divs.clone(),
        gpu: gpu_opts.map(gpu::Gpu::new),
    };
    // Parameters computed inside the loops are recomputed in front.
    let mut hoisted: HashMap<usize, Val> = HashMap::new();
    let mut params = Vec::new();
    for (p, &v) in scop.param_values.iter().enumerate() {
        params.push(if e.used[p] {
            e.hoist(v, Point::Before(first), &mut hoisted)?
        } else {
            v
        });
    }
    e.params = params;
    let mut created = Vec::new();
    if e.gpu.is_some() {
        e.device_buffers(first)?;
    }
    e.node(&tree.root, Point::Before(first), &mut created)?;
    for &op in &scop.ops {
        if is_nest(op) {
            build::erase(op);
        }
    }
    // The first operation after the new code, taken before the
    // simplification, which may erase the last new operations (a promoted
    // single-iteration loop).
    let after = created.last().and_then(|&op| build::next_op(op));
    let after = || after.ok_or("no operation after the rewritten loops");
    shim::simplify_affine(&mut created);
    let (launches, copies) = match e.gpu.take() {
        Some(g) => g.finish(&e.b, after()?)?,
        None => (Vec::new(), String::new()),
    };
    // Expanded temporaries: the last iteration's copy goes back to the
    // array (what code after the SCoP would have seen), then the buffer is
    // freed.
    if !scop.expansions.is_empty() {
        let after = after()?;
        for (x, &buf) in scop.expansions.iter().zip(&buffers) {
            if let Some(last) = &x.last {
                copy_back(&e.b, x, last, buf, scop.arrays[x.array.0].root(), after)?;
            }
            e.b.create(Point::Before(after), "memref.dealloc", &[buf], 0, &[], &[]);
        }
    }
    Ok(Emitted {
        created,
        hoisted_loops: e.hoisted_loops,
        launches,
        copies,
    })
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
    let n = operands.len();
    let mut all = operands.to_vec();
    all.extend(operands.iter().copied());
    let attrs = [
        ("lowerBoundMap", lmap),
        ("upperBoundMap", umap),
        ("step", b.attr("1 : index")?),
        (
            "operandSegmentSizes",
            b.attr(&format!("array<i32: {n}, {n}, {}>", carried.len()))?,
        ),
    ];
    Ok(b.create_carrying(at, "affine.for", &all, carried, &attrs))
}

/// Emits `X[e] = X'[last - lb][e]` for every cell `e` of `X`, before `at`.
fn copy_back(
    b: &Builder,
    x: &crate::scop::privatize::Expansion,
    last: &[i64],
    buf: Val,
    array: Val,
    at: Op,
) -> Result<(), EmitError> {
    let mut point = Point::Before(at);
    let mut ivs = Vec::new();
    for &n in &x.shape {
        let lmap = b.attr("affine_map<() -> (0)>")?;
        let umap = b.attr(&format!("affine_map<() -> ({n})>"))?;
        let (_, block) = affine_for(b, point, lmap, umap, &[], &[])?;
        ivs.push(block.arg(0).ok_or("loop without induction variable")?);
        b.create(Point::End(block), "affine.yield", &[], 0, &[], &[]);
        // Insert the next loop (or the copy) before this block's yield.
        point = Point::Before(block.ops().last().copied().ok_or("empty loop body")?);
    }
    let dims: Vec<String> = (0..x.shape.len()).map(|k| format!("d{k}")).collect();
    let lead: Vec<String> = last
        .iter()
        .zip(&x.bounds)
        .map(|(&v, &(lo, _))| v.checked_sub(lo).map(|d| d.to_string()))
        .collect::<Option<_>>()
        .ok_or("expanded index out of range")?;
    let header = format!("({})", dims.join(", "));
    let load_map = b.attr(&format!(
        "affine_map<{header} -> ({}, {})>",
        lead.join(", "),
        dims.join(", ")
    ))?;
    let mut operands = vec![buf];
    operands.extend(ivs.iter().copied());
    let load = b
        .create_typed(
            point,
            "affine.load",
            &operands,
            &[&x.elem],
            &[("map", load_map)],
        )
        .ok_or_else(|| format!("cannot build the type {}", x.elem))?;
    let v = load.result(0).ok_or("affine.load without result")?;
    let store_map = b.attr(&format!("affine_map<{header} -> ({})>", dims.join(", ")))?;
    let mut operands = vec![v, array];
    operands.extend(ivs.iter().copied());
    b.create(
        point,
        "affine.store",
        &operands,
        0,
        &[("map", store_map)],
        &[],
    );
    Ok(())
}

/// The map text `(d0…)[s…] -> (r…)` of an access, rewritten for `lead`
/// new leading dimensions with results `d_k - lows[k]`, the old dimensions
/// renumbered after them.
fn expanded_map(old: &str, lead: usize, lows: &[i64]) -> Option<String> {
    let inner = old.strip_prefix("affine_map<")?.strip_suffix('>')?;
    let (head, results) = inner.split_once(" -> ")?;
    if !head.starts_with('(') {
        return None;
    }
    let close = head.find(')')?;
    let dims_text = &head[1..close];
    let syms = &head[close + 1..];
    let n_old = if dims_text.trim().is_empty() {
        0
    } else {
        dims_text.split(',').count()
    };
    // Renumber d<k> to d<k + lead> in the results.
    let mut shifted = String::new();
    let chars: Vec<char> = results.chars().collect();
    let mut i = 0;
    while i < chars.len() {
        let starts = chars[i] == 'd'
            && (i == 0 || !(chars[i - 1].is_alphanumeric() || chars[i - 1] == '_'))
            && chars.get(i + 1).is_some_and(|c| c.is_ascii_digit());
        if starts {
            let mut j = i + 1;
            while j < chars.len() && chars[j].is_ascii_digit() {
                j += 1;
            }
            let k: usize = chars[i + 1..j].iter().collect::<String>().parse().ok()?;
            shifted.push_str(&format!("d{}", k + lead));
            i = j;
        } else {
            shifted.push(chars[i]);
            i += 1;
        }
    }
    let body = shifted.trim().strip_prefix('(')?.strip_suffix(')')?;
    let dims: Vec<String> = (0..n_old + lead).map(|k| format!("d{k}")).collect();
    let mut res: Vec<String> = lows
        .iter()
        .enumerate()
        .map(|(k, &lo)| {
            if lo == 0 {
                format!("d{k}")
            } else if lo > 0 {
                format!("d{k} - {lo}")
            } else {
                format!("d{k} + {}", lo.unsigned_abs())
            }
        })
        .collect();
    if !body.trim().is_empty() {
        res.push(body.to_string());
    }
    Some(format!(
        "affine_map<({}){syms} -> ({})>",
        dims.join(", "),
        res.join(", ")
    ))
}

/// An affine expression text of `row` over `[params | t | divisions |
/// constant]` (`n` time dimensions; the division columns are the first of
/// `divs`, however many the row has), with the loop dimensions in `dims`
/// (their positions are the map's `d<k>`). A division is printed as
/// `(e) floordiv c`.
fn expr_text(
    row: &Row,
    np: usize,
    n: usize,
    divs: &[Div],
    dims: &[usize],
    syms: &[usize],
) -> String {
    let mut terms: Vec<(i64, String)> = Vec::new();
    for (pos, &k) in dims.iter().enumerate() {
        let c = row[np + k];
        if c != 0 {
            terms.push((c, format!("d{pos}")));
        }
    }
    for (pos, &p) in syms.iter().enumerate() {
        let c = row[p];
        if c != 0 {
            terms.push((c, format!("s{pos}")));
        }
    }
    let nd = row.len() - 1 - np - n;
    for (j, d) in divs.iter().enumerate().take(nd) {
        let c = row[np + n + j];
        if c != 0 {
            let inner = expr_text(&d.row, np, n, divs, dims, syms);
            terms.push((c, format!("(({inner}) floordiv {})", d.den)));
        }
    }
    // A parameter that is not a symbol of the map would silently drop out
    // of it (another cell, another bound): a bug, never to reach the IR.
    assert!(
        (0..np).all(|p| row[p] == 0 || syms.contains(&p)),
        "an affine expression uses a parameter that is not a symbol of its map"
    );
    let c = row[row.len() - 1];
    let mut out = String::new();
    for (i, (coef, name)) in terms.iter().enumerate() {
        let mag = coef.unsigned_abs();
        let body = if mag == 1 {
            name.clone()
        } else {
            format!("{name} * {mag}")
        };
        if i == 0 {
            out.push_str(&if *coef < 0 { format!("-{body}") } else { body });
        } else {
            out.push_str(&format!(" {} {body}", if *coef < 0 { "-" } else { "+" }));
        }
    }
    if out.is_empty() {
        out = c.to_string();
    } else if c != 0 {
        out.push_str(&format!(
            " {} {}",
            if c < 0 { "-" } else { "+" },
            c.unsigned_abs()
        ));
    }
    out
}

impl Emitter<'_> {
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
        self.b.attr(text)
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
        if !in_scop(self.scop, def) || !is_nested_in_loop(self.scop, def) {
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
            .ok_or_else(|| "internal error: hoisted value missing".to_string())
    }

    fn node(&mut self, n: &Node, at: Point, created: &mut Vec<Op>) -> Result<(), EmitError> {
        if let Some(done) = self.gpu_node(n, at, created) {
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
                stride: Some(stride),
                dim,
                lower,
                upper,
                parallel,
                body,
            } => {
                // A strided loop runs as it is (no carried cells: they
                // would be loaded before the loop on the assumption that
                // it runs when its bounds are in order).
                self.plain_loop(
                    *dim,
                    lower,
                    upper,
                    Some(stride),
                    *parallel,
                    body,
                    at,
                    created,
                )
            }
            Node::Loop {
                dim,
                lower,
                upper,
                parallel,
                body,
                ..
            } => {
                if self.hoist.is_none() {
                    if let Some(&(_, k)) = self.hoist_dims.iter().find(|(b, _)| b == dim) {
                        if let Some(plan) = self.hoisted_operands(*dim, k, (lower, upper), body)? {
                            return self.hoisting_loop(n, plan, at, created);
                        }
                    }
                }
                let reads_hoisted = self
                    .hoist
                    .as_ref()
                    .is_some_and(|h| std::ptr::eq(n as *const Node, h.node));
                if reads_hoisted {
                    if let Some(h) = self.hoist.as_mut() {
                        h.active = true;
                    }
                }
                let r = if !*parallel
                    && (self.carry_all || self.carry_dims.contains(dim))
                    && self.carry.is_none()
                {
                    match self.carried_cells(*dim, body)? {
                        Some((cells, instances)) => self
                            .carried_loop(*dim, lower, upper, body, cells, instances, at, created),
                        None => {
                            self.plain_loop(*dim, lower, upper, None, *parallel, body, at, created)
                        }
                    }
                } else {
                    self.plain_loop(*dim, lower, upper, None, *parallel, body, at, created)
                };
                if reads_hoisted {
                    if let Some(h) = self.hoist.as_mut() {
                        h.active = false;
                    }
                }
                r
            }
            Node::If { conds, body } => {
                let (dims, operands) = self.operands();
                let header = self.map_header(&dims);
                let cs: Vec<String> = conds
                    .iter()
                    .map(|Cond { row, eq }| {
                        format!(
                            "{} {} 0",
                            self.text(row, &dims),
                            if *eq { "==" } else { ">=" }
                        )
                    })
                    .collect();
                let then = self.affine_if(&header, &cs, &operands, at, created)?;
                let inner = Point::End(then);
                self.node(body, inner, created)?;
                self.b.create(inner, "affine.yield", &[], 0, &[], &[]);
                Ok(())
            }
            Node::Let { dim, row, body } => {
                self.ivs[*dim] = Some(self.apply(row, at, created)?);
                let r = self.node(body, at, created);
                self.ivs[*dim] = None;
                r
            }
            Node::Stmt { stmt, iters } => self.statement(*stmt, iters, at, created),
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
    /// overlap), and every cell is read. The values are then loaded before
    /// the loop, passed from iteration to iteration, and stored after it:
    /// the same values reach memory and every load sees the value the
    /// original load would have read, assuming distinct memrefs do not
    /// alias (the dependence model's assumption). The loop may be empty;
    /// the caller guards the loads and stores by its non-emptiness.
    fn carried_cells(
        &self,
        k: usize,
        body: &Node,
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
        let mut seen: Vec<Vec<Option<Seen>>> = Vec::new();
        for (s, its) in &instances {
            let st = &self.scop.statements[*s];
            let mut per = Vec::new();
            for a in &st.accesses {
                let root = self.scop.arrays[a.array.0].root().key();
                let write = a.kind == crate::scop::model::AccessKind::Write;
                let name = a.op.name();
                let ops = a.op.operands();
                let (memref, elem) = match (name.as_str(), write) {
                    ("affine.store", true) if ops.len() >= 2 => (ops[1], ops[0].type_text()),
                    ("affine.load", false) if !ops.is_empty() => match a.op.result(0) {
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
                    .is_some_and(|d| in_scop(self.scop, d) && is_nested_in_loop(self.scop, d));
                let mut ok = !elem.is_empty() && !inside;
                // An expanded array: its buffer (the model's subscripts
                // already start with the expanded iterators).
                let (root, memref) = match self.expanded.get(&a.op.key()) {
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
                if index.iter().any(|row| {
                    (0..n).any(|d| row[np + d] != 0 && (d == k || self.ivs[d].is_none()))
                        || (0..np).any(|p| row[p] != 0 && !self.used[p])
                }) {
                    ok = false;
                }
                if !ok {
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

    /// The loop over `dim` with `cells` loaded before it, carried through
    /// `iter_args`, and the written ones stored after it, all under a guard
    /// that the loop runs at least once (unless that is a constant fact).
    #[allow(clippy::too_many_arguments)]
    fn carried_loop(
        &mut self,
        dim: usize,
        lower: &[Bound],
        upper: &[Bound],
        body: &Node,
        cells: Vec<Cell>,
        instances: InstanceCells,
        at: Point,
        created: &mut Vec<Op>,
    ) -> Result<(), EmitError> {
        if lower.iter().chain(upper).any(|b| b.div != 1) {
            return self.plain_loop(dim, lower, upper, None, false, body, at, created);
        }
        let (dims, operands) = self.operands();
        let header = self.map_header(&dims);
        let mut conds = Vec::new();
        for l in lower {
            for u in upper {
                let row: Row = u
                    .row
                    .iter()
                    .zip(&l.row)
                    .map(|(a, b)| a.checked_sub(*b))
                    .collect::<Option<_>>()
                    .ok_or("loop bounds overflow")?;
                let last = row.len() - 1;
                if row[..last].iter().all(|&c| c == 0) {
                    if row[last] >= 0 {
                        continue;
                    }
                    return Ok(()); // a constant empty range
                }
                conds.push(format!("{} >= 0", self.text(&row, &dims)));
            }
        }
        let mut point = at;
        let mut guard_block = None;
        if !conds.is_empty() {
            let then = self.affine_if(&header, &conds, &operands, at, created)?;
            point = Point::End(then);
            guard_block = Some(then);
        }
        let top = matches!(point, Point::Before(_));
        let mut maps = Vec::new();
        for c in &cells {
            let subs: Vec<String> = c.index.iter().map(|r| self.text(r, &dims)).collect();
            maps.push(self.attr(&format!("affine_map<{header} -> ({})>", subs.join(", ")))?);
        }
        let mut inits = Vec::new();
        for (c, &map) in cells.iter().zip(&maps) {
            let mut ops = vec![c.memref];
            ops.extend(operands.iter().copied());
            let ld = self
                .b
                .create_typed(point, "affine.load", &ops, &[&c.elem], &[("map", map)])
                .ok_or_else(|| format!("cannot build the type {}", c.elem))?;
            if top {
                created.push(ld);
            }
            inits.push(ld.result(0).ok_or("affine.load without result")?);
        }
        let (lmap, umap) = self.bound_maps(lower, upper, &dims)?;
        let (op, block) = affine_for(&self.b, point, lmap, umap, &operands, &inits)?;
        if top {
            created.push(op);
        }
        let iv = block.arg(0).ok_or("loop without induction variable")?;
        let values = (0..inits.len())
            .map(|i| block.arg(i + 1))
            .collect::<Option<Vec<Val>>>()
            .ok_or("loop without its carried values")?;
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
            if top {
                created.push(st);
            }
        }
        if let Some(b) = guard_block {
            self.b
                .create(Point::End(b), "affine.yield", &[], 0, &[], &[]);
        }
        Ok(())
    }

    /// An `affine.for` (or `affine.parallel`) over `dim` around `body`.
    #[allow(clippy::too_many_arguments)]
    fn plain_loop(
        &mut self,
        dim: usize,
        lower: &[Bound],
        upper: &[Bound],
        stride: Option<&Stride>,
        parallel: bool,
        body: &Node,
        at: Point,
        created: &mut Vec<Op>,
    ) -> Result<(), EmitError> {
        // Inside a GPU kernel, the loops that are not mapped run in order.
        let parallel = parallel && !self.in_kernel();
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
            affine_for(&self.b, at, lmap, umap, &operands, &[])?
        };
        if matches!(at, Point::Before(_)) {
            created.push(op);
        }
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
        if matches!(at, Point::Before(_)) {
            created.push(op);
        }
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
        if matches!(at, Point::Before(_)) {
            created.push(op);
        }
        op.result(0)
            .ok_or_else(|| "affine.apply without result".to_string())
    }

    /// The store of statement `s` and its backward slice inside the
    /// SCoP's loops, in program order.
    fn slice(&self, s: usize) -> Vec<Op> {
        let st = &self.scop.statements[s];
        let mut slice: Vec<Op> = Vec::new();
        let mut stack = vec![st.op];
        let mut seen = std::collections::HashSet::new();
        while let Some(op) = stack.pop() {
            if !seen.insert(op.key()) {
                continue;
            }
            slice.push(op);
            for v in op.operands() {
                if let Some(def) = v.defining_op() {
                    if in_scop(self.scop, def) && !is_nest(def) && is_nested_in_loop(self.scop, def)
                    {
                        stack.push(def);
                    }
                }
            }
        }
        slice.sort_by_key(|op| self.order.get(&op.key()).copied().unwrap_or(usize::MAX));
        slice
    }

    /// The operations of statement `s` whose values can be computed ahead
    /// of their instance: pure arithmetic on loads of arrays that no
    /// statement of the SCoP writes and on values defined outside the
    /// SCoP's loops, with at least one load below. Each comes with the
    /// loads below it, in program order (gemm's `alpha * A[i][k]` with
    /// `A[i][k]`, and the product with `B[k][j]` with both).
    fn ahead_ops(&self, s: usize) -> Vec<(Op, Vec<Op>)> {
        use crate::scop::model::AccessKind;
        let scop = self.scop;
        let st = &scop.statements[s];
        let slice = self.slice(s);
        let written: Vec<usize> = scop
            .statements
            .iter()
            .flat_map(|t| &t.accesses)
            .filter(|a| a.kind == AccessKind::Write)
            .map(|a| scop.arrays[a.array.0].root().key())
            .collect();
        // Per operation of the slice computable ahead: its loads.
        let mut ahead: HashMap<usize, Vec<Op>> = HashMap::new();
        let mut out = Vec::new();
        for &op in &slice {
            let name = op.name();
            if name == "affine.load" {
                let Some(a) = st.accesses.iter().find(|a| a.op.key() == op.key()) else {
                    continue;
                };
                let root = scop.arrays[a.array.0].root().key();
                if !written.contains(&root) && !self.expanded.contains_key(&op.key()) {
                    ahead.insert(op.key(), vec![op]);
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
                            None => ok = false,
                        }
                    }
                    // Defined outside the loops: a parameter or a constant.
                    Some(d) if !(in_scop(scop, d) && is_nested_in_loop(scop, d)) => {}
                    Some(_) => ok = false,
                    // A block argument: an induction variable (not
                    // mapped ahead), or a function argument.
                    None => {
                        if st.iv_values.iter().any(|iv| iv.key() == v.key())
                            || v.owner_block()
                                .and_then(|b| b.parent_op())
                                .is_some_and(|p| {
                                    in_scop(scop, p) || scop.ops.iter().any(|r| p.is_within(*r))
                                })
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
    /// instances that [`Emitter::invariant_roots`] can compute ahead and
    /// whose loads' subscripts do not depend on `dim`: gemm's `alpha *
    /// A[i][k]`, recomputed for every block of `j` although it depends on
    /// `i` and `k` only. `None` when there are none, when `k`'s bounds
    /// depend on `dim`, or when the statements' tile sizes of `k` differ.
    ///
    /// Exactness: the buffer is filled, before the loop over `dim`, by a
    /// loop over `k` with the same bounds, with the same operations on the
    /// same cells (loads of arrays no statement of the SCoP writes, which
    /// therefore hold the same values earlier), so each instance reads the
    /// value it would have computed. The inner loop's values lie in one
    /// tile of `k` (its tile size `T`: consecutive values), so slot
    /// `[k mod T][q]` holds one value per iteration.
    fn hoisted_operands(
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
        let w = np + self.ivs.len() + self.divs.len() + 1;
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
        let Some((node, instances)) = best else {
            return Ok(None);
        };

        let Node::Loop {
            lower,
            upper,
            stride: None,
            ..
        } = node
        else {
            return Ok(None);
        };
        if lower
            .iter()
            .chain(upper.iter())
            .any(|b| b.div != 1 || b.row[np + dim] != 0)
        {
            return Ok(None);
        }
        let size = match instances.first() {
            Some((s, _)) => self.r_size.get(*s).copied().unwrap_or(0),
            None => 0,
        };
        if size < 1
            || instances
                .iter()
                .any(|(s, _)| self.r_size.get(*s).copied() != Some(size))
        {
            return Ok(None);
        }
        let mut ahead_of: AheadOps = HashMap::new();
        let mut slots: Vec<Slot> = Vec::new();
        let mut keys: Vec<(usize, Vec<Vec<Row>>)> = Vec::new();
        let mut per_instance = Vec::new();
        let mut elem: Option<String> = None;
        for (s, its) in &instances {
            let st = &self.scop.statements[*s];
            let (slice, ahead) = ahead_of
                .entry(*s)
                .or_insert_with(|| (self.slice(*s), self.ahead_ops(*s)))
                .clone();
            // The operations whose loads are the same in every block, with
            // their subscripts at this instance.
            let mut good: Vec<(Op, Vec<Vec<Row>>)> = Vec::new();
            for (op, loads) in &ahead {
                let mut rows = Vec::new();
                for l in loads {
                    let Some(a) = st.accesses.iter().find(|a| a.op.key() == l.key()) else {
                        break;
                    };
                    match subscript_rows(a, its, np, np + self.ivs.len(), w) {
                        // Outer loops and `k` only: not the blocks of the
                        // vector loop, nothing unbound.
                        Some(r)
                            if r.iter().all(|row| {
                                (0..self.ivs.len()).all(|d| {
                                    row[np + d] == 0
                                        || (d != dim && (d == k || self.ivs[d].is_some()))
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
                let key = (root.key(), rows);
                let slot = match keys.iter().position(|x| *x == key) {
                    Some(q) => q,
                    None => {
                        keys.push(key);
                        slots.push(Slot {
                            stmt: *s,
                            iters: its.clone(),
                            root,
                        });
                        slots.len() - 1
                    }
                };
                here.push((root.key(), slot));
            }
            per_instance.push(here);
        }
        let Some(elem) = elem else {
            return Ok(None);
        };
        if slots.is_empty() {
            return Ok(None);
        }
        Ok(Some(HoistPlan {
            node: node as *const Node,
            lower: lower.clone(),
            upper: upper.clone(),
            slots,
            instances: per_instance,
            elem,
            size,
            k_dim: k,
        }))
    }

    /// A load of slot `[k mod size][slot]` of `buffer`, or with `store`, a
    /// store of that value there; returns the loaded value.
    #[allow(clippy::too_many_arguments)]
    fn buffer_access(
        &self,
        buffer: Val,
        k: usize,
        size: i64,
        slot: usize,
        store: Option<Val>,
        at: Point,
        created: &mut Vec<Op>,
    ) -> Result<Option<Val>, EmitError> {
        let (dims, operands) = self.operands();
        let mut row = vec![0i64; self.np() + self.ivs.len() + 1];
        row[self.np() + k] = 1;
        let map = self.attr(&format!(
            "affine_map<{} -> (({}) mod {size}, {slot})>",
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
                .ok_or_else(|| "internal error: empty parallel body".to_string());
        }
        let mut f = self.scop.first_op;
        while f.name() != "func.func" {
            f = f.parent().ok_or("the SCoP is not inside a function")?;
        }
        f.regions()
            .first()
            .and_then(|r| r.blocks().first().copied())
            .and_then(|b| b.ops().first().copied())
            .map(Point::Before)
            .ok_or_else(|| "function without a body".to_string())
    }

    /// The loop `n` over blocks of a register tile's vector loop, preceded
    /// by the loop over `k` that fills the buffer of `plan`, a
    /// `memref.alloca` placed by [`Emitter::stack_point`].
    fn hoisting_loop(
        &mut self,
        n: &Node,
        plan: HoistPlan,
        at: Point,
        created: &mut Vec<Op>,
    ) -> Result<(), EmitError> {
        let Node::Loop {
            dim,
            lower,
            upper,
            parallel,
            body,
            ..
        } = n
        else {
            return Err("internal error: hoisting outside a loop".into());
        };
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
        let mut conds = Vec::new();
        for l in lower {
            for u in upper {
                if l.div != 1 || u.div != 1 {
                    return Err("internal error: hoisting with divided block bounds".into());
                }
                let row: Row = u
                    .row
                    .iter()
                    .zip(&l.row)
                    .map(|(a, b)| a.checked_sub(*b))
                    .collect::<Option<_>>()
                    .ok_or("loop bounds overflow")?;
                let last = row.len() - 1;
                if row[..last].iter().all(|&c| c == 0) {
                    if row[last] >= 0 {
                        continue;
                    }
                    return Ok(()); // a constant empty range
                }
                conds.push(format!("{} >= 0", self.text(&row, &dims)));
            }
        }
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
            result = self.hoisted_value(slot, buffer, plan.k_dim, plan.size, q, fill_at, created);
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
        self.hoist = Some(Hoist {
            node: plan.node,
            active: false,
            instances: plan.instances,
            next: 0,
            buffer,
            k_dim: plan.k_dim,
            size: plan.size,
        });
        let r = self.plain_loop(*dim, lower, upper, None, *parallel, body, inside, created);
        let h = self.hoist.take();
        r?;
        if h.is_some_and(|h| h.next != h.instances.len()) {
            return Err("internal error: hoisted-operand instances out of step".into());
        }
        Ok(())
    }

    /// Computes `slot`'s operation at its instance (the loads below it and
    /// the arithmetic, cloned) and stores it in slot `q` of `buffer`.
    #[allow(clippy::too_many_arguments)]
    fn hoisted_value(
        &mut self,
        slot: &Slot,
        buffer: Val,
        k: usize,
        size: i64,
        q: usize,
        at: Point,
        created: &mut Vec<Op>,
    ) -> Result<(), EmitError> {
        let st = &self.scop.statements[slot.stmt];
        let mut map: HashMap<usize, Val> = HashMap::new();
        for (i, row) in slot.iters.iter().enumerate() {
            let v = self.apply(row, at, created)?;
            map.insert(st.iv_values[i].key(), v);
        }
        // The root's backward slice within the statement.
        let slice = self.slice(slot.stmt);
        let mut needed: std::collections::HashSet<usize> = std::collections::HashSet::new();
        needed.insert(slot.root.key());
        for op in slice.iter().rev() {
            if !needed.contains(&op.key()) {
                continue;
            }
            for v in op.operands() {
                if let Some(d) = v.defining_op() {
                    needed.insert(d.key());
                }
            }
        }
        for op in slice.iter().filter(|o| needed.contains(&o.key())) {
            let c = self.b.clone_op(at, *op);
            for (i, v) in op.operands().into_iter().enumerate() {
                if let Some(&nv) = map.get(&v.key()) {
                    build::set_operand(c, i, nv);
                } else if let Some(p) = self
                    .scop
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
        self.buffer_access(buffer, k, size, q, Some(v), at, created)?;
        Ok(())
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
        let cells_of: Option<Vec<Option<usize>>> = match &mut self.carry {
            Some(c) => {
                let v =
                    c.instances.get(c.next).cloned().ok_or(
                        "internal error: an instance the carried-cell analysis did not see",
                    )?;
                c.next += 1;
                Some(v)
            }
            None => None,
        };
        self.b.set_loc_of(st.op);
        let mut map: HashMap<usize, Val> = HashMap::new();
        for (k, row) in iters.iter().enumerate() {
            let v = self.apply(row, at, created)?;
            map.insert(st.iv_values[k].key(), v);
        }
        // Operations whose values come from the buffer of hoisted operands
        // (and the ones only they use): not cloned.
        let mut skip: std::collections::HashSet<usize> = std::collections::HashSet::new();
        let slice = self.slice(s);
        if let Some(h) = self.hoist.as_mut().filter(|h| h.active) {
            let hoisted = h
                .instances
                .get(h.next)
                .cloned()
                .ok_or("internal error: an instance the hoisting analysis did not see")?;
            h.next += 1;
            let (buffer, k_dim, size) = (h.buffer, h.k_dim, h.size);
            for (root, slot) in hoisted {
                let op = slice
                    .iter()
                    .find(|o| o.key() == root)
                    .copied()
                    .ok_or("internal error: a hoisted operation outside its statement")?;
                let v = self.buffer_access(buffer, k_dim, size, slot, None, at, created)?;
                if let (Some(old), Some(v)) = (op.result(0), v) {
                    map.insert(old.key(), v);
                }
                skip.insert(root);
            }
            // Walking back from the store: an operation all of whose users
            // in the slice are skipped is skipped too.
            for &op in slice.iter().rev() {
                if skip.contains(&op.key()) || op.key() == st.op.key() {
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
        }
        for op in slice {
            if skip.contains(&op.key()) {
                continue;
            }
            // A carried cell: a load reads its current value, a store
            // replaces it.
            let cell = cells_of.as_ref().and_then(|cells| {
                let a = st.accesses.iter().position(|a| a.op.key() == op.key())?;
                cells[a]
            });
            if let (Some(c), Some(carry)) = (cell, self.carry.as_mut()) {
                if op.name() == "affine.store" {
                    let v = *op.operands().first().ok_or("store without value")?;
                    let nv = match map.get(&v.key()) {
                        Some(&nv) => nv,
                        None => match scop.param_values.iter().position(|pv| pv.key() == v.key()) {
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
            if matches!(at, Point::Before(_)) {
                created.push(c);
            }
            for (k, v) in op.operands().into_iter().enumerate() {
                if let Some(&nv) = map.get(&v.key()) {
                    build::set_operand(c, k, nv);
                } else if let Some(p) = self
                    .scop
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
                let at_memref = if op.name() == "affine.store" { 1 } else { 0 };
                let old = c.operands();
                let mut operands: Vec<Val> = old[..at_memref].to_vec();
                operands.push(*buf);
                for k in 0..*lead {
                    let v = map
                        .get(&st.iv_values[k].key())
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
            for r in 0..op.num_results() {
                if let (Some(old), Some(new)) = (op.result(r), c.result(r)) {
                    map.insert(old.key(), new);
                }
            }
        }
        self.b.set_loc_of(self.scop.first_op);
        Ok(())
    }
}

/// Substitutes the rows of `env` (dimension, row over `[params | t | 1]`)
/// for those dimensions in `row`; `None` on overflow.
fn subst_row(row: &Row, env: &[(usize, Row)], np: usize) -> Option<Row> {
    let mut out = row.clone();
    for (d, e) in env {
        let c = out[np + d];
        if c != 0 {
            out[np + d] = 0;
            for (o, x) in out.iter_mut().zip(e) {
                *o = o.checked_add(c.checked_mul(*x)?)?;
            }
        }
    }
    Some(out)
}

/// The statement instances of a straight-line loop body (sequences, lets
/// and statements only), in emission order, each with its iterator rows
/// and the let dimensions substituted into them; `None` when the body has
/// a loop or a guard.
fn straight_line(body: &Node, np: usize) -> Option<Instances> {
    fn walk(
        n: &Node,
        env: &mut Vec<(usize, Row)>,
        out: &mut Vec<(usize, Vec<Row>)>,
        np: usize,
    ) -> Option<()> {
        match n {
            Node::Seq(v) => v.iter().try_for_each(|c| walk(c, env, out, np)),
            Node::Let { dim, row, body } => {
                let r = subst_row(row, env, np)?;
                env.push((*dim, r));
                let res = walk(body, env, out, np);
                env.pop();
                res
            }
            Node::Stmt { stmt, iters } => {
                let its = iters
                    .iter()
                    .map(|r| subst_row(r, env, np))
                    .collect::<Option<Vec<_>>>()?;
                out.push((*stmt, its));
                Some(())
            }
            Node::Loop { .. } | Node::If { .. } => None,
        }
    }
    let mut out = Vec::new();
    walk(body, &mut Vec::new(), &mut out, np)?;
    Some(out)
}

/// The subscripts of access `a` at an instance whose iterators are the rows
/// `its`, as rows over `[params | t | divisions | 1]` (`w` columns, the
/// divisions from column `plain`); `None` when a subscript uses a local, an
/// iterator it uses is a division (its value is not affine in the loops),
/// or a coefficient overflows.
fn subscript_rows(a: &Access, its: &[Row], np: usize, plain: usize, w: usize) -> Option<Vec<Row>> {
    let mut index = Vec::new();
    for f in &a.index {
        if f.locals.iter().any(|&c| c != 0) || f.params.len() > np {
            return None;
        }
        let mut row = vec![0i64; w];
        for (p, &c) in f.params.iter().enumerate() {
            row[p] = c;
        }
        row[w - 1] = f.constant;
        for (i, &c) in f.iters.iter().enumerate() {
            let it = its.get(i)?;
            if c != 0 && (it.len() != w || it[plain..w - 1].iter().any(|&v| v != 0)) {
                return None;
            }
            for (o, x) in row.iter_mut().zip(it) {
                *o = o.checked_add(c.checked_mul(*x)?)?;
            }
        }
        index.push(row);
    }
    Some(index)
}

/// True when `op` lies inside one of the SCoP's loop nests (not at its top level).
fn is_nested_in_loop(scop: &Scop, op: Op) -> bool {
    scop.ops
        .iter()
        .any(|&r| is_nest(r) && op.key() != r.key() && op.is_within(r))
}

#[cfg(test)]
mod tests {
    use super::expanded_map;

    #[test]
    fn expanded_maps_prepend_the_iterators() {
        assert_eq!(
            expanded_map("affine_map<(d0, d1) -> (d1)>", 2, &[0, 3]).as_deref(),
            Some("affine_map<(d0, d1, d2, d3) -> (d0, d1 - 3, d3)>")
        );
        assert_eq!(
            expanded_map("affine_map<(d0)[s0] -> (d0 + s0, 0)>", 1, &[-2]).as_deref(),
            Some("affine_map<(d0, d1)[s0] -> (d0 + 2, d1 + s0, 0)>")
        );
        // No dimensions: a constant subscript.
        assert_eq!(
            expanded_map("affine_map<() -> (0)>", 1, &[1]).as_deref(),
            Some("affine_map<(d0) -> (d0 - 1, 0)>")
        );
        assert_eq!(expanded_map("(d0) -> (d0)", 1, &[0]), None);
    }
}
