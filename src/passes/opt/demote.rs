//! Loop-carried values in memory cells (issue 70; Polly's reg2mem): before
//! detection, every `affine.for` that carries scalar values through
//! `iter_args` (a C front end's accumulator, a row's maximum) gets them in
//! 0-d memref cells on the stack, allocated at the function's entry: the
//! initial value stored before the loop, loaded at the top of its body, the
//! yielded value stored at the end of the body, the result loaded after
//! the loop. The nest is then a static control part like its memref form:
//! the cells' accesses carry exact dependences (the reduction's order is
//! kept, bit for bit); privatization expands a cell per iteration where
//! that gives parallel loops, and scalar replacement carries it in
//! registers (`iter_args`) again where its loop stays innermost. The
//! values an `affine.if` yields get cells the same way: each branch stores
//! its values, which are loaded after the `affine.if`.
//!
//! **Reductions of `affine.parallel`** (`reduce ("addf")`, the form
//! upstream's `affine-parallelize parallel-reductions=true` writes): the
//! operation becomes a nest of `affine.for` loops, one per dimension, with
//! the same bounds and steps; each reduced value gets a cell holding the
//! kind's identity before the nest (as upstream's `lower-affine` starts
//! it: `0.0` for `addf`, `-inf` for `maximumf`, ...), updated as `cell =
//! cell ⊕ yielded` at the end of the body and loaded after the nest: the
//! sequential execution `lower-affine` gives. The input allows its terms
//! in any order, so a floating-point sum or product's combining operation
//! is marked `fastmath<reassoc>`: [`crate::analysis::reductions`] reads
//! that mark as the input's own permission to regroup the terms (blocks
//! per thread, vector lanes) without `reassociate=true`.
//!
//! **Local buffers** (`local-buffers`): a `memref.alloc` or
//! `memref.alloca` inside a nest's loops (a C front end's array declared in
//! a loop body) gives each iteration of the loops around it a fresh buffer,
//! which the model cannot name. Where its shape is static, the loops around
//! it have constant bounds and step one, and only affine loads and stores
//! use it (and one `memref.dealloc` in its block), it becomes one buffer
//! allocated at the function's entry with a leading dimension per
//! enclosing loop, `X[e]` read and written as `X'[i - lb][e]` (each
//! iteration its own copy, as in the input: no dependence between
//! iterations through it, and a read the iteration does not write first
//! sees a cell nothing wrote, as before), on the heap and freed before the
//! function returns. At most [`MAX_BUFFER_CELLS`] cells.
//!
//! Each demoted nest (its outermost affine operation) keeps a copy of its
//! input: where the nest is not at the top of a SCoP, or its SCoP is not
//! rewritten, the input comes back ([`Nest::undo`]), byte for byte.

use crate::codegen::map_text::{expanded_map, selected_results};
use crate::ffi::build::{self, AttrHandle, Builder, Point};
use crate::ffi::ir::{Block, Op, Val};

/// One demoted nest and what takes it back.
pub(super) struct Nest {
    /// The nest's outermost operation, demoted.
    root: Op,
    /// The input's nest, detached.
    copy: Op,
    /// The cells' allocations, at the function's entry.
    cells: Vec<Op>,
    /// Outside `root`, where `root` itself carries values: the initial
    /// values' stores before it and the results' loads after it.
    around: Vec<Op>,
    /// The loads after `root` standing for its results, by result number.
    results: Vec<(Val, usize)>,
    /// The remark's phrases of the local buffers moved out of the nest.
    notes: Vec<String>,
}

impl Nest {
    /// The demoted nest's outermost operation.
    pub(super) fn root(&self) -> Op {
        self.root
    }

    /// The remark's phrases of what was done to the nest besides its
    /// carried values (its local buffers).
    pub(super) fn notes(&self) -> &[String] {
        &self.notes
    }

    /// Takes the nest back to the input: the copy in its place, the cells
    /// gone; the key of the copy, the nest now.
    pub(super) fn undo(self) -> usize {
        build::insert_before(self.copy, self.root);
        for (load, k) in &self.results {
            if let Some(r) = self.copy.result(*k) {
                build::replace_uses(*load, r);
            }
        }
        let (before, after): (Vec<Op>, Vec<Op>) =
            self.around.iter().partition(|op| op.name() == "affine.store");
        for op in after {
            build::erase(op);
        }
        build::erase(self.root);
        for op in before {
            build::erase(op);
        }
        for op in self.cells {
            build::erase(op);
        }
        self.copy.key()
    }

    /// Keeps the demoted nest (its SCoP was rewritten): the copy goes.
    pub(super) fn keep(self) {
        build::erase(self.copy);
    }
}

/// The scalar types a cell holds (a `memref` element type the model reads
/// and writes); other carried values (indices, vectors) are left alone.
fn cell_type(ty: &str) -> bool {
    matches!(ty, "f16" | "bf16" | "f32" | "f64")
        || ty.strip_prefix('i').is_some_and(|w| !w.is_empty() && w.bytes().all(|b| b.is_ascii_digit()))
}

/// The outermost affine operation around `op` (itself included).
fn nest_root(op: Op) -> Op {
    let mut root = op;
    while let Some(p) = root.parent() {
        if !matches!(p.name().as_str(), "affine.for" | "affine.if" | "affine.parallel") {
            break;
        }
        root = p;
    }
    root
}

/// The `affine.for` operations in `op` (itself included) that carry
/// values, the `affine.if` operations that yield values and the
/// `affine.parallel` operations that reduce values, innermost first.
fn carrying_ops(op: Op, out: &mut Vec<Op>) {
    for r in op.regions() {
        for b in r.blocks() {
            for o in b.ops() {
                carrying_ops(o, out);
            }
        }
    }
    if matches!(op.name().as_str(), "affine.for" | "affine.if" | "affine.parallel") && op.num_results() > 0 {
        out.push(op);
    }
}

/// Demotes the carried values of every nest of `func` whose loops carry
/// only scalars ([`cell_type`]), with `carried`, and moves the local
/// buffers of every nest out of it ([`local_buffer`]), with `buffers`; the
/// nests it changed, each with its copy.
pub(super) fn demote(func: Op, carried: bool, buffers: bool, views: bool) -> Vec<Nest> {
    let Some(entry) = func.regions().first().and_then(|r| r.blocks().first().copied()) else {
        return Vec::new();
    };
    let mut loops = Vec::new();
    if carried {
        carrying_ops(func, &mut loops);
    }
    let mut locals = Vec::new();
    if buffers {
        local_allocs(func, &mut locals);
    }
    let mut viewed = Vec::new();
    if views {
        super::views::view_accesses(func, &mut viewed);
    }
    let mut roots: Vec<Op> = Vec::new();
    for l in loops.iter().chain(&locals).chain(&viewed) {
        let r = nest_root(*l);
        if !roots.iter().any(|x| x.key() == r.key()) {
            roots.push(r);
        }
    }
    let mut out = Vec::new();
    for root in roots {
        let mut inner = Vec::new();
        if carried {
            carrying_ops(root, &mut inner);
        }
        let scalar = inner.iter().all(|l| {
            (0..l.num_results()).all(|k| l.result(k).is_some_and(|v| cell_type(&v.type_text())))
        });
        if !scalar {
            continue;
        }
        let mut allocs = Vec::new();
        if buffers {
            local_allocs(root, &mut allocs);
        }
        let allocs: Vec<LocalBuffer> = allocs.into_iter().filter_map(|a| local_buffer(a, root, entry)).collect();
        // The accesses through views, all of them rewritten or none (a
        // root with results only where they are demoted: the copy could
        // not take their uses back otherwise).
        let mut through = Vec::new();
        let affine_root = matches!(root.name().as_str(), "affine.for" | "affine.if" | "affine.parallel");
        if views && affine_root && (root.num_results() == 0 || inner.iter().any(|l| l.key() == root.key())) {
            super::views::view_accesses(root, &mut through);
        }
        let b = Builder::new(root);
        let reroutes: Vec<super::views::Reroute> = through
            .iter()
            .map(|a| super::views::reroute(*a, root, &b))
            .collect::<Option<_>>()
            .unwrap_or_default();
        if inner.is_empty() && allocs.is_empty() && reroutes.is_empty() {
            continue;
        }
        let mut nest = Nest {
            root,
            copy: build::clone_detached(root),
            cells: Vec::new(),
            around: Vec::new(),
            results: Vec::new(),
            notes: Vec::new(),
        };
        // The buffers first: demoting a loop moves its body (the buffers'
        // uses with it) into a new loop.
        let mut ok = allocs.into_iter().all(|a| hoist(a, entry, &mut nest).is_some());
        for op in inner {
            if !ok {
                break;
            }
            ok = match op.name().as_str() {
                "affine.if" => demote_if(op, entry, &mut nest),
                "affine.parallel" => demote_parallel(op, entry, &mut nest),
                _ => demote_loop(op, entry, &mut nest),
            }
            .is_some();
        }
        if ok {
            if !reroutes.is_empty() {
                nest.notes.push(super::views::note(&reroutes));
            }
            for r in reroutes {
                r.apply();
            }
            share_cells(&mut nest);
            out.push(nest);
        } else {
            nest.undo();
        }
    }
    out
}

/// The most cells of a local buffer moved out of its nest, its copies per
/// iteration included (a `memref<64xf64>` in a loop of 16,384 iterations:
/// 8 MiB); larger ones leave the nest as it is.
pub(super) const MAX_BUFFER_CELLS: i64 = 1 << 20;

/// The `memref.alloc` and `memref.alloca` operations inside the affine
/// operations of `op` (not `op` itself, nor those outside any loop).
fn local_allocs(op: Op, out: &mut Vec<Op>) {
    for r in op.regions() {
        for b in r.blocks() {
            for o in b.ops() {
                let inside = o.parent().is_some_and(|p| matches!(p.name().as_str(), "affine.for" | "affine.if"));
                if inside && matches!(o.name().as_str(), "memref.alloc" | "memref.alloca") {
                    out.push(o);
                }
                local_allocs(o, out);
            }
        }
    }
}

/// A local buffer to move out of its nest ([`local_buffer`]).
struct LocalBuffer {
    /// The allocation, inside the nest.
    alloc: Op,
    /// Its shape and element type.
    shape: Vec<i64>,
    elem: String,
    /// The loops around it inside the nest, outermost first, with their
    /// constant bounds.
    loops: Vec<(Op, i64, i64)>,
    /// Its uses: affine loads and stores.
    accesses: Vec<Op>,
    /// The `memref.dealloc` that frees it, if any.
    free: Option<Op>,
}

/// `alloc` as a local buffer of the nest `root` (see the module text), or
/// `None` where it does not qualify.
fn local_buffer(alloc: Op, root: Op, entry: Block) -> Option<LocalBuffer> {
    if !alloc.operands().is_empty() || alloc.num_results() != 1 {
        return None;
    }
    let v = alloc.result(0)?;
    let (shape, elem) = crate::scop::expansion::static_shape(&v.type_text())?;
    if !cell_type(&elem) {
        return None;
    }
    // The loops around it up to the root: affine.for with constant bounds
    // and step one, or affine.if.
    let mut loops = Vec::new();
    let mut at = alloc;
    while at.key() != root.key() {
        let p = at.parent()?;
        match p.name().as_str() {
            "affine.for" => {
                let (lo, hi) = super::partials::constant_bounds(&p)?;
                if hi <= lo {
                    return None;
                }
                loops.insert(0, (p, lo, hi));
            }
            "affine.if" => {}
            _ => return None,
        }
        at = p;
    }
    let mut accesses = Vec::new();
    let mut free = None;
    for u in v.users() {
        let ops = u.operands();
        match u.name().as_str() {
            "affine.load" if ops.first().is_some_and(|m| m.key() == v.key()) => accesses.push(u),
            "affine.store"
                if ops.get(1).is_some_and(|m| m.key() == v.key()) && ops.first().is_some_and(|x| x.key() != v.key()) =>
            {
                accesses.push(u)
            }
            "memref.dealloc" if free.is_none() && u.block().map(|b| b.key()) == alloc.block().map(|b| b.key()) => {
                free = Some(u)
            }
            _ => return None,
        }
    }
    // Freed before the function's return.
    if entry.ops().last().is_none_or(|r| r.name() != "func.return") {
        return None;
    }
    let copies = loops.iter().try_fold(1i64, |n, (_, lo, hi)| n.checked_mul(hi - lo))?;
    let cells = shape.iter().try_fold(copies, |n, &d| n.checked_mul(d))?;
    (cells <= MAX_BUFFER_CELLS).then_some(LocalBuffer {
        alloc,
        shape,
        elem,
        loops,
        accesses,
        free,
    })
}

/// Moves the local buffer `buf` out of `nest` (see the module text): one
/// allocation at `entry` with a leading dimension per loop around it,
/// its accesses given the loops' iterators, its `memref.dealloc` moved
/// before the function's return.
fn hoist(buf: LocalBuffer, entry: Block, nest: &mut Nest) -> Option<()> {
    let b = Builder::new(buf.alloc);
    let first = *entry.ops().first()?;
    let dims: Vec<String> = buf
        .loops
        .iter()
        .map(|(_, lo, hi)| hi - lo)
        .chain(buf.shape.iter().copied())
        .map(|d| d.to_string())
        .chain(std::iter::once(buf.elem.clone()))
        .collect();
    let ty = format!("memref<{}>", dims.join("x"));
    // On the heap whatever the input's: the copies of a buffer per
    // iteration would not fit every stack.
    let attrs = [
        ("operandSegmentSizes", b.attr("array<i32: 0, 0>").ok()?),
        ("alignment", b.attr("64 : i64").ok()?),
    ];
    let new = b.create_typed(Point::Before(first), "memref.alloc", &[], &[&ty], &attrs)?;
    nest.cells.push(new);
    let whole = new.result(0)?;
    let ivs: Vec<Val> = buf
        .loops
        .iter()
        .map(|(l, _, _)| l.regions().first()?.blocks().first()?.arg(0))
        .collect::<Option<_>>()?;
    let lows: Vec<i64> = buf.loops.iter().map(|(_, lo, _)| *lo).collect();
    for op in &buf.accesses {
        redirect(&b, *op, whole, &ivs, &lows)?;
    }
    let ret = *entry.ops().last()?;
    let (free, _) = b.create(Point::Before(ret), "memref.dealloc", &[whole], 0, &[], &[]);
    nest.around.push(free);
    let input = buf.alloc.result(0)?.type_text();
    if let Some(f) = buf.free {
        build::erase(f);
    }
    build::erase(buf.alloc);
    let n = buf.loops.len();
    nest.notes.push(format!(
        "local buffer {input} allocated once before the nest, a copy per iteration of the {n} loop{} around it ({ty})",
        if n == 1 { "" } else { "s" }
    ));
    Some(())
}

/// Points the access `op` (an `affine.load` or `affine.store`) at `buffer`
/// with leading subscripts `lead[k] - lows[k]` before its own:
/// `buffer[lead - lows][subscripts]` (a copy per iteration of a local
/// buffer, a copy per block of partial results).
pub(super) fn redirect(b: &Builder, op: Op, buffer: Val, lead: &[Val], lows: &[i64]) -> Option<()> {
    let at = usize::from(op.name() == "affine.store");
    let map = b.attr(&expanded_map(&op.attr(c"map")?.text(), lead.len(), lows)?).ok()?;
    let old = op.operands();
    let mut operands: Vec<Val> = old.get(..at)?.to_vec();
    operands.push(buffer);
    operands.extend_from_slice(lead);
    operands.extend_from_slice(old.get(at + 1..)?);
    build::set_operands(op, &operands);
    build::set_attr(op, "map", map);
    Some(())
}

/// A cell of type `ty` (`memref<ty>`), allocated first in `entry` (the
/// function's entry block): its allocation.
fn alloca_cell(b: &Builder, entry: Block, ty: &str) -> Option<Op> {
    let no_sizes = b.attr("array<i32: 0, 0>").ok()?;
    let first = *entry.ops().first()?;
    b.create_typed(
        Point::Before(first),
        "memref.alloca",
        &[],
        &[&format!("memref<{ty}>")],
        &[("operandSegmentSizes", no_sizes)],
    )
}

/// The load of `cell` (of type `ty`) at `at`: its value.
fn load_cell(b: &Builder, at: Point, cell: Val, ty: &str) -> Option<(Op, Val)> {
    let map0 = b.attr("affine_map<() -> ()>").ok()?;
    let load = b.create_typed(at, "affine.load", &[cell], &[ty], &[("map", map0)])?;
    Some((load, load.result(0)?))
}

/// The store of `value` into `cell` at `at`.
fn store_cell(b: &Builder, at: Point, value: Val, cell: Val) -> Option<Op> {
    let map0 = b.attr("affine_map<() -> ()>").ok()?;
    Some(b.create(at, "affine.store", &[value, cell], 0, &[("map", map0)], &[]).0)
}

/// The cells of values of `types`, allocated first in `entry` and
/// recorded in `nest`.
fn cells(b: &Builder, entry: Block, types: &[String], nest: &mut Nest) -> Option<Vec<Val>> {
    let mut out = Vec::new();
    for ty in types {
        let alloca = alloca_cell(b, entry, ty)?;
        nest.cells.push(alloca);
        out.push(alloca.result(0)?);
    }
    Some(out)
}

/// The results of `op`, loaded from their `cells` for every use, right
/// after the new operation that replaces `op` (which `op` follows);
/// recorded in `nest` where `op` is its root.
fn loaded_after(b: &Builder, op: Op, cells: &[Val], types: &[String], nest: &mut Nest) -> Option<()> {
    let is_root = op.key() == nest.root.key();
    for (k, (cell, ty)) in cells.iter().zip(types).enumerate() {
        let (load, v) = load_cell(b, Point::Before(op), *cell, ty)?;
        build::replace_uses(op.result(k)?, v);
        if is_root {
            nest.around.push(load);
            nest.results.push((v, k));
        }
    }
    Some(())
}

/// The types of `op`'s results, in MLIR's text form.
fn result_types(op: Op) -> Option<Vec<String>> {
    (0..op.num_results()).map(|k| op.result(k).map(|v| v.type_text())).collect()
}

/// Moves the operations of `from` but its terminator `term` before `end`
/// (the new block's terminator), then stores the values `term` yields
/// into `cells` before `end`.
fn move_body(b: &Builder, from: Block, term: Op, end: Op, cells: &[Val]) -> Option<()> {
    for op in from.ops() {
        if op.key() != term.key() {
            build::move_before(op, end);
        }
    }
    // Read after the block arguments' uses moved (a loop's value yielded
    // as it came is the load at the top).
    for (cell, y) in cells.iter().zip(term.operands()) {
        store_cell(b, Point::Before(end), y, *cell)?;
    }
    Some(())
}

/// Demotes the values `l` carries (see the module text); the new loop
/// replaces `l`, and `nest.root` when `l` was it. `None`, before any
/// change, when a piece cannot be built (the steps after the first change
/// build only what an earlier step showed can be built).
fn demote_loop(l: Op, entry: Block, nest: &mut Nest) -> Option<()> {
    let b = Builder::new(l);
    let segs = l.attr(c"operandSegmentSizes")?.int_list()?;
    let (nl, nu) = (usize::try_from(*segs.first()?).ok()?, usize::try_from(*segs.get(1)?).ok()?);
    let operands = l.operands();
    let inits = operands.get(nl + nu..)?.to_vec();
    let body = l.regions().first()?.blocks().first().copied()?;
    let yield_op = *body.ops().last()?;
    let is_root = l.key() == nest.root.key();
    let attrs = [
        ("lowerBoundMap", b.attr(&l.attr(c"lowerBoundMap")?.text()).ok()?),
        ("upperBoundMap", b.attr(&l.attr(c"upperBoundMap")?.text()).ok()?),
        ("step", b.attr(&l.attr(c"step")?.text()).ok()?),
        ("operandSegmentSizes", b.attr(&format!("array<i32: {nl}, {nu}, 0>")).ok()?),
    ];
    let types = result_types(l)?;
    // The cells, and the initial values stored before the loop.
    let cells = cells(&b, entry, &types, nest)?;
    for (init, cell) in inits.iter().zip(&cells) {
        let store = store_cell(&b, Point::Before(l), *init, *cell)?;
        if is_root {
            nest.around.push(store);
        }
    }
    // The loop without iter_args: the same bounds, the body moved in, the
    // carried values loaded at its top and stored at its end.
    let (new, blocks) = b.create(Point::Before(l), "affine.for", &operands[..nl + nu], 0, &attrs, &[Some(1)]);
    let block = *blocks.first()?;
    let (end, _) = b.create(Point::End(block), "affine.yield", &[], 0, &[], &[]);
    build::replace_uses(body.arg(0)?, block.arg(0)?);
    for (k, (cell, ty)) in cells.iter().zip(&types).enumerate() {
        let (_, v) = load_cell(&b, Point::Before(end), *cell, ty)?;
        build::replace_uses(body.arg(k + 1)?, v);
    }
    move_body(&b, body, yield_op, end, &cells)?;
    loaded_after(&b, l, &cells, &types, nest)?;
    if is_root {
        nest.root = new;
    }
    build::erase(l);
    Some(())
}

/// Demotes the values `op` (an `affine.if`) yields: each branch stores its
/// values into the cells, which are loaded after the new `affine.if`
/// (without results); it replaces `op`, and `nest.root` when `op` was it.
fn demote_if(op: Op, entry: Block, nest: &mut Nest) -> Option<()> {
    let b = Builder::new(op);
    let regions = op.regions();
    let branches: Vec<(Block, Op)> = regions
        .iter()
        .map(|r| {
            let blk = r.blocks().first().copied()?;
            Some((blk, *blk.ops().last()?))
        })
        .collect::<Option<_>>()?;
    // Values come out of both branches.
    if branches.len() != 2 {
        return None;
    }
    let condition = b.attr(&op.attr(c"condition")?.text()).ok()?;
    let types = result_types(op)?;
    let cells = cells(&b, entry, &types, nest)?;
    let (new, blocks) = b.create(Point::Before(op), "affine.if", &op.operands(), 0, &[("condition", condition)], &[
        Some(0),
        Some(0),
    ]);
    for ((from, term), to) in branches.into_iter().zip(blocks) {
        let (end, _) = b.create(Point::End(to), "affine.yield", &[], 0, &[], &[]);
        move_body(&b, from, term, end, &cells)?;
    }
    loaded_after(&b, op, &cells, &types, nest)?;
    if op.key() == nest.root.key() {
        nest.root = new;
    }
    build::erase(op);
    Some(())
}

/// The combining operation of an `affine.parallel` reduction of kind
/// `kind` (`arith::AtomicRMWKind` as MLIR 22 numbers it in the
/// `reductions` attribute); `None` for `assign` and unknown kinds.
fn parallel_combine(kind: i64) -> Option<&'static str> {
    Some(match kind {
        0 => "arith.addf",
        1 => "arith.addi",
        2 => "arith.andi",
        4 => "arith.maximumf",
        5 => "arith.maxnumf",
        6 => "arith.maxsi",
        7 => "arith.maxui",
        8 => "arith.minimumf",
        9 => "arith.minnumf",
        10 => "arith.minsi",
        11 => "arith.minui",
        12 => "arith.mulf",
        13 => "arith.muli",
        14 => "arith.ori",
        15 => "arith.xori",
        _ => return None,
    })
}

/// The value a reduction of `combine` on values of type `ty` starts from,
/// as upstream's `lower-affine` starts it (`arith::getIdentityValueAttr`:
/// `0.0` for a sum, not the `-0.0` of the partial results), as an
/// attribute's text.
fn parallel_identity(combine: &str, ty: &str) -> Option<String> {
    if combine == "arith.addf" {
        return super::partials::identity(combine, ty).map(|_| format!("0.0 : {ty}"));
    }
    super::partials::identity(combine, ty)
}

/// The integers of a bounds-groups attribute of an `affine.parallel` of
/// `n` dimensions (`dense<[1, 2]> : tensor<2xi32>`, or a splat
/// `dense<1> : tensor<2xi32>`).
fn groups(op: Op, name: &std::ffi::CStr, n: usize) -> Option<Vec<usize>> {
    let text = op.attr(name)?.text();
    let body = text.strip_prefix("dense<")?;
    let body = body.get(..body.find('>')?)?;
    let splat = !body.contains('[');
    let values: Vec<usize> = body
        .trim_matches(|c| c == '[' || c == ']')
        .split(',')
        .map(|x| x.trim().parse().ok())
        .collect::<Option<_>>()?;
    match values[..] {
        [v] if splat => Some(vec![v; n]),
        _ => (values.len() == n).then_some(values),
    }
}

/// Demotes the values `p` (an `affine.parallel` with `reduce`) reduces
/// (see the module text): a nest of `affine.for` loops replaces it, and
/// `nest.root` when `p` was it. `None`, before any change, for a kind
/// without a combining operation or bounds not understood.
fn demote_parallel(p: Op, entry: Block, nest: &mut Nest) -> Option<()> {
    let b = Builder::new(p);
    let types = result_types(p)?;
    let combines: Vec<&str> = p
        .attr(c"reductions")?
        .int_list()?
        .into_iter()
        .map(parallel_combine)
        .collect::<Option<_>>()?;
    if combines.len() != types.len() {
        return None;
    }
    let body = p.regions().first()?.blocks().first().copied()?;
    let yield_op = *body.ops().last()?;
    let yielded = yield_op.operands();
    let n = body.num_args();
    if n == 0 || yielded.len() != types.len() {
        return None;
    }
    // The loops' attributes, each dimension's bounds a group of the maps'
    // results (a maximum of lower bounds, a minimum of upper ones, as
    // `affine.for` reads a map of several results).
    let lower = p.map_attr(c"lowerBoundsMap")?;
    let nl = lower.num_dims() + lower.num_symbols();
    let operands = p.operands();
    let nu = operands.len().checked_sub(nl)?;
    let (lg, ug) = (groups(p, c"lowerBoundsGroups", n)?, groups(p, c"upperBoundsGroups", n)?);
    let steps = p.attr(c"steps")?.int_list()?;
    if steps.len() != n {
        return None;
    }
    let (ltext, utext) = (p.attr(c"lowerBoundsMap")?.text(), p.attr(c"upperBoundsMap")?.text());
    let (mut lat, mut uat) = (0, 0);
    let mut dims = Vec::new();
    for d in 0..n {
        let lmap = selected_results(&ltext, lat, lg[d])?;
        let umap = selected_results(&utext, uat, ug[d])?;
        (lat, uat) = (lat + lg[d], uat + ug[d]);
        dims.push([
            ("lowerBoundMap", b.attr(&lmap).ok()?),
            ("upperBoundMap", b.attr(&umap).ok()?),
            ("step", b.attr(&format!("{} : index", steps[d])).ok()?),
            ("operandSegmentSizes", b.attr(&format!("array<i32: {nl}, {nu}, 0>")).ok()?),
        ]);
    }
    let starts: Vec<AttrHandle> = combines
        .iter()
        .zip(&types)
        .map(|(c, ty)| b.attr(&parallel_identity(c, ty)?).ok())
        .collect::<Option<_>>()?;
    let reassoc = b.attr("#arith.fastmath<reassoc>").ok()?;
    // The cells, each holding its identity before the nest.
    let is_root = p.key() == nest.root.key();
    let cells = cells(&b, entry, &types, nest)?;
    for ((start, ty), cell) in starts.into_iter().zip(&types).zip(&cells) {
        let first = *entry.ops().first()?;
        let constant = b.create_typed(Point::Before(first), "arith.constant", &[], &[ty], &[("value", start)])?;
        nest.cells.push(constant);
        let store = store_cell(&b, Point::Before(p), constant.result(0)?, *cell)?;
        if is_root {
            nest.around.push(store);
        }
    }
    // The loops, outermost first, the body moved into the innermost.
    let mut at = Point::Before(p);
    let mut loops = Vec::new();
    let mut end = None;
    for (d, attrs) in dims.iter().enumerate() {
        let (l, blocks) = b.create(at, "affine.for", &operands, 0, attrs, &[Some(1)]);
        let block = *blocks.first()?;
        let (y, _) = b.create(Point::End(block), "affine.yield", &[], 0, &[], &[]);
        build::replace_uses(body.arg(d)?, block.arg(0)?);
        loops.push(l);
        at = Point::Before(y);
        end = Some(y);
    }
    let end = end?;
    for op in body.ops() {
        if op.key() != yield_op.key() {
            build::move_before(op, end);
        }
    }
    for (((cell, ty), value), combine) in cells.iter().zip(&types).zip(yielded).zip(&combines) {
        let (_, acc) = load_cell(&b, Point::Before(end), *cell, ty)?;
        let rounds = matches!(*combine, "arith.addf" | "arith.mulf");
        let attrs: Vec<(&str, AttrHandle)> = if rounds { vec![("fastmath", reassoc)] } else { Vec::new() };
        let op = b.create_typed(Point::Before(end), combine, &[acc, value], &[ty], &attrs)?;
        store_cell(&b, Point::Before(end), op.result(0)?, *cell)?;
    }
    loaded_after(&b, p, &cells, &types, nest)?;
    if is_root {
        nest.root = *loops.first()?;
    }
    let kinds: Vec<&str> = combines.iter().map(|c| c.trim_start_matches("arith.")).collect();
    nest.notes.push(format!(
        "'affine.parallel' reduction{} ({}) carried in a cell, {} loop{} in its place{}",
        if kinds.len() == 1 { "" } else { "s" },
        kinds.join(", "),
        n,
        if n == 1 { "" } else { "s" },
        if combines.iter().any(|c| matches!(*c, "arith.addf" | "arith.mulf")) {
            " (fastmath<reassoc>: its terms in any order, as the input allows)"
        } else {
            ""
        }
    ));
    build::erase(p);
    Some(())
}

/// A loaded value kept in a cell of its own ([`split_load`]), to take back.
pub(super) struct Split {
    /// The loaded value.
    value: Val,
    /// The cell's allocation, at the function's entry.
    cell: Op,
    /// The value's store into the cell, right after its load.
    store: Op,
    /// The cell's loads, one before each user of the value.
    loads: Vec<Op>,
}

impl Split {
    /// Takes the IR back: the users read the value again, the cell goes.
    pub(super) fn undo(self) {
        for l in self.loads {
            if let Some(v) = l.result(0) {
                build::replace_uses(v, self.value);
            }
            build::erase(l);
        }
        build::erase(self.store);
        build::erase(self.cell);
    }
}

/// Keeps the value `load` reads in a 0-d cell of its own, for a SCoP
/// whose statements use it after a store that may change the loaded cell
/// (the model reads every load at its statement,
/// [`crate::scop::model::Unsupported::stale_load`]): the value is stored
/// into the cell right after the load, and each user among `within` (the
/// SCoP's top-level operations and what they hold) reads the cell right
/// before it; nothing else writes the cell, so each user reads what the
/// load read. The cell is allocated first in `func`'s entry block. `None`,
/// with nothing changed, for a value of another type than a cell holds or
/// without such users.
pub(super) fn split_load(func: Op, load: Op, within: &[Op]) -> Option<Split> {
    let value = load.result(0)?;
    let ty = value.type_text();
    if !cell_type(&ty) {
        return None;
    }
    let entry = func.regions().first()?.blocks().first().copied()?;
    let mut users: Vec<Op> = Vec::new();
    for u in value.users() {
        if within.iter().any(|t| u.is_within(*t)) && !users.iter().any(|x| x.key() == u.key()) {
            users.push(u);
        }
    }
    let next = build::next_op(load)?;
    if users.is_empty() {
        return None;
    }
    let b = Builder::new(load);
    let alloca = alloca_cell(&b, entry, &ty)?;
    let Some((cell, store)) =
        alloca.result(0).and_then(|c| Some((c, store_cell(&b, Point::Before(next), value, c)?)))
    else {
        build::erase(alloca);
        return None;
    };
    let mut split = Split {
        value,
        cell: alloca,
        store,
        loads: Vec::new(),
    };
    for u in users {
        let Some((l, v)) = load_cell(&b, Point::Before(u), cell, &ty) else {
            split.undo();
            return None;
        };
        split.loads.push(l);
        for (k, o) in u.operands().iter().enumerate() {
            if o.key() == value.key() {
                build::set_operand(u, k, v);
            }
        }
    }
    Some(split)
}

/// The 0-d cell a load or store of a demoted cell accesses (its memref
/// operand, when it is one of `cells`' allocations).
fn cell_of(op: Op, cells: &[Op]) -> Option<Val> {
    let at = match op.name().as_str() {
        "affine.load" => 0,
        "affine.store" => 1,
        _ => return None,
    };
    let m = *op.operands().get(at)?;
    cells.iter().any(|c| c.result(0).is_some_and(|r| r.key() == m.key())).then_some(m)
}

/// One cell for a value carried by a loop and, unchanged, by the loop its
/// body holds (a C front end's sum over a matrix: the row loop's
/// accumulator handed to the column loop and its result yielded as it
/// is). Demoted loop by loop, the inner loop gets a cell of its own: the
/// outer cell's value copied into it before the inner loop and back after
/// it, two statements that touch the outer cell inside the outer loop, so
/// that the nest is no reduction of the whole nest. Where the copies are
/// all that links the two cells (the loaded value used by the copy only,
/// the inner cell used by nothing else outside the inner loop, the outer
/// cell not inside it), the inner loop uses the outer cell itself and the
/// copies go: the same values, one cell.
fn share_cells(nest: &mut Nest) {
    // One pair at a time: each erases operations, so the walk starts over.
    while let Some(shared) = nest.root.preorder().into_iter().find_map(|op| share_at(op, &nest.cells)) {
        nest.cells.retain(|c| c.key() != shared.key());
        build::erase(shared);
    }
}

/// Shares cells at `store` (the copy into the inner cell before an inner
/// loop, see [`share_cells`]) when the pattern holds: the inner cell's
/// allocation, unused now, to erase.
fn share_at(store: Op, cells: &[Op]) -> Option<Op> {
    let inner_cell = cell_of(store, cells).filter(|_| store.name() == "affine.store")?;
    let value = *store.operands().first()?;
    let load = value.defining_op()?;
    let outer_cell = cell_of(load, cells).filter(|_| load.name() == "affine.load")?;
    if outer_cell.key() == inner_cell.key() || value.users().len() != 1 {
        return None;
    }
    let l = build::next_op(store).filter(|o| o.name() == "affine.for")?;
    let back = build::next_op(l).filter(|o| o.name() == "affine.load")?;
    if cell_of(back, cells)?.key() != inner_cell.key() {
        return None;
    }
    let result = back.result(0)?;
    let users = result.users();
    let [copy] = users[..] else {
        return None;
    };
    if copy.name() != "affine.store"
        || cell_of(copy, cells)?.key() != outer_cell.key()
        || copy.block().map(|b| b.key()) != store.block().map(|b| b.key())
    {
        return None;
    }
    // The inner cell used by the copies and inside the loop only; the
    // outer cell not inside the loop.
    let inner_alone = inner_cell
        .users()
        .iter()
        .all(|u| [store.key(), back.key()].contains(&u.key()) || u.is_within(l));
    let outer_outside = outer_cell.users().iter().all(|u| !u.is_within(l));
    if !inner_alone || !outer_outside {
        return None;
    }
    let alloca = inner_cell.defining_op()?;
    build::replace_uses(inner_cell, outer_cell);
    build::erase(copy);
    build::erase(back);
    build::erase(store);
    build::erase(load);
    Some(alloca)
}

#[cfg(test)]
mod tests {
    use super::{parallel_combine, parallel_identity};

    #[test]
    fn parallel_reductions_start_as_lower_affine_starts_them() {
        // A sum starts at +0.0 (lower-affine's), not the -0.0 of the
        // partial results; the others at the kind's identity.
        assert_eq!(parallel_identity("arith.addf", "f32").as_deref(), Some("0.0 : f32"));
        assert_eq!(parallel_identity("arith.mulf", "f64").as_deref(), Some("1.0 : f64"));
        assert_eq!(parallel_identity("arith.maximumf", "f32").as_deref(), Some("0xFF800000 : f32"));
        assert_eq!(parallel_identity("arith.andi", "i32").as_deref(), Some("-1 : i32"));
        assert_eq!(parallel_identity("arith.addf", "i32"), None);
        // MLIR 22's AtomicRMWKind numbers: assign (3) is no reduction.
        assert_eq!(parallel_combine(0), Some("arith.addf"));
        assert_eq!(parallel_combine(12), Some("arith.mulf"));
        assert_eq!(parallel_combine(3), None);
        assert_eq!(parallel_combine(16), None);
    }
}
