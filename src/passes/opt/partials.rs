//! Partial results per block (issue 70, parallel reductions): a reduction
//! over a whole top-level loop nest (`s = s ⊕ e(j)` for every `j`, the
//! cell `s` one and the same for every instance: a dot product, a norm, the
//! sum or the maximum of an array) ties every instance to the next through
//! its cell, so no loop of the nest can run in parallel. Before the model
//! is built, its outermost loop `j` (constant bounds, step 1) is split into
//! `T` blocks of consecutive iterations, each reducing into a partial
//! result of its own, which are combined into the cell in block order
//! after them:
//!
//! ```text
//! P[t] = id                           for t in 0..T
//! P[t] = P[t] ⊕ e(j)                  for t in 0..T, j in block t
//! s = s ⊕ P[t]                        for t in 0..T (in order)
//! ```
//!
//! `P` is a stack buffer with one cache line per block (no two threads
//! write one line) and `id` the operation's identity (`-0.0` for sums,
//! `-inf` for maxima, all ones for `andi`, ...), so each partial result is
//! the block's own chain. The new program runs the same operations on the
//! same values in the same order, but for the grouping of one cell's terms:
//! exactly what reassociation allows ([`crate::analysis::reductions`]
//! says which statements are such reductions: nothing but the
//! statement's own load and store touches the cell's array inside the
//! loop). Floating-point sums and products, and `maxnumf`/`minnumf`
//! (which may return either zero of two that compare equal), are split
//! only under `reassociate=true`; integer reductions and IEEE
//! `maximumf`/`minimumf` give the same bits in any grouping and are split
//! by default.
//!
//! **Array reductions** (`y[j] = y[j] ⊕ e(i, j)` over the outer loop `i`:
//! atax's `y`) get a private copy of the whole array per
//! block instead of one cell, when the array is small (at most
//! [`Blocks::array_bytes`], half the target's L2) and another statement
//! of the nest writes cells along `i` that the reduction reads (atax's
//! `tmp[i]`, the row's dot product, which `y[j] += A[i][j] * tmp[i]`
//! scales): without the copies, the dot products would run in parallel
//! along `i` and the reduction along `j`, in two passes over the data;
//! with them, one parallel pass. So does a statement of the reduction's
//! own loops that writes cells along `i` and reads the cells the
//! reduction reads (bicg's `q[i] += A[i][j] * p[j]` beside `s[j] += r[i] *
//! A[i][j]`): without the copies the two run in transposed parallel loops
//! (their tiles interleaved between the threads, each tile's rows read
//! back from the caches); with them, both read each row once, in the
//! same loops (the scheduler keeps their hyperplanes aligned,
//! [`crate::sched::pluto::Options::align_shared_reads`], and the row-blocks
//! stage takes the blocks' rows several at a time along whole rows). A
//! reduction alone in its nest keeps its parallel loop `j` (a transposed
//! matrix-vector product):
//!
//! ```text
//! P[t][c] = id                        for t in 0..T, every cell c of y
//! P[t][y's subscripts] ⊕= e(i, j)     for t in 0..T, i in block t, j
//! y[c] = y[c] ⊕ P[t][c]               for t in 0..T (in order), every c
//! ```
//!
//! `P` comes from `memref.alloc` at the function's entry (freed before its
//! return): T copies of an L2's half would not fit every stack. Cells the
//! reduction never touches combine with the identity, which gives their
//! value back bit for bit.
//!
//! The model, the dependences, the scheduler, the checker and the code
//! generator then work on the new program as on any other: the dependences
//! are exact (the blocks' partial results are different cells, so the
//! block loop is parallel, and the combination is a chain in block order:
//! deterministic, the same result for any number of threads given the
//! same `T`), and nothing is relaxed. The nest's input comes back when
//! its SCoP is not rewritten ([`Partials::undo`]), byte for byte.

use crate::analysis::reductions::{self, Combine, Reduction};
use crate::ffi::build::{self, Builder, Point};
use crate::ffi::ir::{ExprKind, Op, Val};
use crate::scop::expansion::{element_bytes, static_bytes, static_shape};
use crate::scop::form::Form;
use crate::scop::model::{AccessKind, Scop};

/// The fewest terms (statement instances) a block gets: fewer would not
/// pay for the threads' start and the partial results' combination.
pub(super) const MIN_TERMS_PER_BLOCK: i64 = 1 << 13;

/// Bytes between two blocks' partial results: a cache line.
const LINE_BYTES: i64 = 64;

/// Into how many blocks reductions over whole loop nests are split, and
/// when.
#[derive(Debug, Clone, Copy)]
pub(super) struct Blocks {
    /// The blocks (the threads of the target).
    pub(super) count: i64,
    /// Floating-point sums and products may be split
    /// (`reassociate=true`).
    pub(super) reassociate: bool,
    /// The fewest terms a block gets ([`MIN_TERMS_PER_BLOCK`]; one
    /// without the profitability rules).
    pub(super) min_terms: i64,
    /// The most bytes of an array whose reduction gets a private copy per
    /// block: half the target's L2, so that a block's copy stays in its
    /// core's cache beside the data it streams.
    pub(super) array_bytes: i64,
    /// With an array reduction, the blocks' iterations are a multiple of
    /// this where every block keeps some (the lanes of row blocks: the
    /// rows that `row_jam` jams then fall in whole blocks of lanes, which
    /// code generation unrolls; 950 rows per thread would leave every
    /// block's rows a loop).
    pub(super) align: i64,
}

/// One reduction split into blocks, and what takes it back.
pub(super) struct Partials {
    /// The block loop, holding the split loop.
    root: Op,
    /// The input's loop, detached.
    original: Op,
    /// The operations made around it (users first): the combination
    /// loop, the initialization loop, the identity and the buffer.
    made: Vec<Op>,
    /// The remark's phrase.
    note: String,
    /// Some reduction of the split has an array of partial results (a
    /// private copy per block).
    arrays: bool,
}

impl Partials {
    /// The block loop.
    pub(super) fn root(&self) -> Op {
        self.root
    }

    /// The key of the input's loop (detached while the split stands).
    pub(super) fn original_key(&self) -> usize {
        self.original.key()
    }

    /// The keys of the loops the split made (not to split again).
    pub(super) fn loops(&self) -> Vec<usize> {
        std::iter::once(self.root)
            .chain(self.made.iter().copied())
            .filter(|o| o.name() == "affine.for")
            .map(Op::key)
            .collect()
    }

    /// The remark's phrase: which reduction, in how many blocks.
    pub(super) fn note(&self) -> &str {
        &self.note
    }

    /// Some reduction of the split has a private copy of its array per
    /// block.
    pub(super) fn arrays(&self) -> bool {
        self.arrays
    }

    /// Takes the IR back: the input's loop in place, the rest gone.
    pub(super) fn undo(self) {
        build::insert_before(self.original, self.root);
        build::erase(self.root);
        for op in self.made {
            build::erase(op);
        }
    }

    /// Keeps the split (its SCoP was rewritten): the input's loop goes.
    pub(super) fn keep(self) {
        build::erase(self.original);
    }
}

/// Splits the first reduction of `scop` that reduces over a whole
/// top-level loop nest into `blocks` blocks (see the module text), if any;
/// floating-point sums and products only when `reassociate`.
///
/// Every such reduction of the loop is split with it, each into a buffer
/// of its own; loops in `made` (of earlier splits) are not split again.
pub(super) fn split(func: Op, scop: &Scop, blocks: Blocks, made: &[usize]) -> Option<Partials> {
    if blocks.count < 2 {
        return None;
    }
    let found: Vec<(Reduction, Op)> = reductions::find(scop)
        .into_iter()
        .filter(|r| r.exclusive)
        .filter(|r| blocks.reassociate || r.order_free || exact_in_any_grouping(scop, r))
        .filter_map(|r| {
            let l = splittable(scop, &r, blocks)?;
            (!made.contains(&l.key())).then_some((r, l))
        })
        .collect();
    let (_, l) = found.first()?;
    let group: Vec<&Reduction> = found
        .iter()
        .filter(|(_, m)| m.key() == l.key())
        .map(|(r, _)| r)
        .collect();
    split_loop(func, scop, *l, &group, (blocks.count, blocks.align.max(1)))
}

/// Whether grouping the terms of `r` otherwise gives the same bits:
/// integer operations, and IEEE `maximum`/`minimum` (`maxnum`/`minnum`
/// may return either zero of two that compare equal).
fn exact_in_any_grouping(scop: &Scop, r: &Reduction) -> bool {
    let name = scop.statements[r.stmt].body.get(r.combine_op).map_or("", |o| o.name.as_str());
    r.combine == Combine::Int || matches!(name, "arith.maximumf" | "arith.minimumf")
}

/// `[lo, hi)` of the `affine.for` `l` when both are constants and its step
/// is one.
pub(super) fn constant_bounds(l: &Op) -> Option<(i64, i64)> {
    let one = |name: &std::ffi::CStr| -> Option<i64> {
        match l.map_attr(name)?.results()[..] {
            [e] => match e.kind() {
                ExprKind::Constant(c) => Some(c),
                _ => None,
            },
            _ => None,
        }
    };
    let step = l.attr(c"step")?.as_int()?;
    (step == 1 && l.operands().is_empty()).then_some(())?;
    Some((one(c"lowerBoundMap")?, one(c"upperBoundMap")?))
}

/// Whether `v` is defined inside `l` (by an operation in it, or as an
/// argument of one of its blocks).
fn defined_within(v: Val, l: Op) -> bool {
    match v.defining_op() {
        Some(d) => d.is_within(l),
        None => v
            .owner_block()
            .and_then(|b| b.parent_op())
            .is_some_and(|p| p.key() == l.key() || p.is_within(l)),
    }
}

/// The identity of the combining operation `name` on values of type `ty`,
/// as an attribute's text (`-0.0 : f64`).
pub(super) fn identity(name: &str, ty: &str) -> Option<String> {
    let inf = |negative: bool| -> Option<&'static str> {
        Some(match (ty, negative) {
            ("f64", true) => "0xFFF0000000000000",
            ("f64", false) => "0x7FF0000000000000",
            ("f32", true) => "0xFF800000",
            ("f32", false) => "0x7F800000",
            ("f16", true) => "0xFC00",
            ("f16", false) => "0x7C00",
            ("bf16", true) => "0xFF80",
            ("bf16", false) => "0x7F80",
            _ => return None,
        })
    };
    let nan = || -> Option<&'static str> {
        Some(match ty {
            "f64" => "0x7FF8000000000000",
            "f32" => "0x7FC00000",
            "f16" => "0x7E00",
            "bf16" => "0x7FC0",
            _ => return None,
        })
    };
    let float = matches!(ty, "f64" | "f32" | "f16" | "bf16");
    let bits: Option<u32> = ty
        .strip_prefix('i')
        .and_then(|b| b.parse().ok())
        .filter(|b| [8, 16, 32, 64].contains(b));
    let value = match name {
        // -0.0: x + -0.0 is x for every x, +0.0 included.
        "arith.addf" | "arith.subf" if float => "-0.0".to_string(),
        "arith.mulf" if float => "1.0".to_string(),
        // maximum(-inf, x) is x, NaN included; maxnum(NaN, x) is x.
        "arith.maximumf" if float => inf(true)?.to_string(),
        "arith.minimumf" if float => inf(false)?.to_string(),
        "arith.maxnumf" | "arith.minnumf" if float => nan()?.to_string(),
        "arith.addi" | "arith.ori" | "arith.xori" | "arith.maxui" if bits.is_some() => "0".to_string(),
        "arith.muli" if bits.is_some() => "1".to_string(),
        "arith.andi" | "arith.minui" if bits.is_some() => "-1".to_string(),
        "arith.maxsi" => (-(1i128 << (bits? - 1))).to_string(),
        "arith.minsi" => ((1i128 << (bits? - 1)) - 1).to_string(),
        _ => return None,
    };
    Some(format!("{value} : {ty}"))
}

/// An `affine.for` from `lo` to `hi` (maps of `operands`) at `at`, with an
/// empty body: the loop and its body's terminator.
fn new_loop(b: &Builder, at: Point, bounds: (&str, &str), operands: &[Val]) -> Option<(Op, Op, Val)> {
    let n = operands.len();
    let attrs = [
        ("lowerBoundMap", b.attr(bounds.0).ok()?),
        ("upperBoundMap", b.attr(bounds.1).ok()?),
        ("step", b.attr("1 : index").ok()?),
        ("operandSegmentSizes", b.attr(&format!("array<i32: {}, {}, 0>", n / 2, n - n / 2)).ok()?),
    ];
    let (l, blocks) = b.create(at, "affine.for", operands, 0, &attrs, &[Some(1)]);
    let body = *blocks.first()?;
    let (end, _) = b.create(Point::End(body), "affine.yield", &[], 0, &[], &[]);
    Some((l, end, body.arg(0)?))
}

/// The access of row `t` of the partial results `p` (`P[t, 0]`): a load
/// of type `ty` (`value` `None`) or a store of `value`, at `at`.
fn partial(b: &Builder, at: Point, p: Val, t: Val, ty: &str, value: Option<Val>) -> Option<Op> {
    let map = b.attr("affine_map<(d0) -> (d0, 0)>").ok()?;
    match value {
        None => b.create_typed(at, "affine.load", &[p, t], &[ty], &[("map", map)]),
        Some(v) => Some(b.create(at, "affine.store", &[v, p, t], 0, &[("map", map)], &[]).0),
    }
}

/// The top-level loop that reduction `r` of `scop` reduces over with
/// everything inside it, when it may be split into `blocks`: the
/// statement's outermost loop, a loop of the SCoP's top level with
/// constant bounds and step one, with enough iterations and terms. A
/// reduction over that loop but not over every loop of its statement (an
/// array reduction) qualifies where its array is small and another
/// statement of the nest writes cells along that loop (see the module
/// text).
fn splittable(scop: &Scop, r: &Reduction, blocks: Blocks) -> Option<Op> {
    let Blocks {
        count,
        min_terms,
        array_bytes,
        ..
    } = blocks;
    let st = &scop.statements[r.stmt];
    if st.loops.len() != st.iters.len() || !r.loops.contains(&0) {
        return None;
    }
    let outermost = *st.loops.first()?;
    if r.loops.len() != st.iters.len() {
        let write = st.accesses.iter().find(|a| a.kind == AccessKind::Write)?;
        let array = write.array;
        let memref = scop.op_of(write).operands().get(1)?.type_text();
        let small = static_bytes(&memref).is_some_and(|n| n <= array_bytes);
        // Another statement writes, along the loop, cells the reduction
        // reads (atax's `tmp[i]`, the row's dot product that the update
        // `y[j] += A[i][j] * tmp[i]` scales): the loop carries both, and
        // without the copies they would run in two passes.
        let reads = |x| st.accesses.iter().any(|a| a.kind == AccessKind::Read && a.array == x);
        // Or one that writes cells along the loop and reads cells the
        // reduction reads, at the same subscripts in the same loops
        // (bicg's `q[i] += A[i][j] * p[j]` beside `s[j] += r[i] *
        // A[i][j]`): without the copies the two run in transposed
        // parallel loops, a pass each or tiles interleaved between the
        // threads.
        let along = scop.statements.iter().enumerate().any(|(t, o)| {
            let shares = o.loops == st.loops && st.shared_read(o).is_some();
            t != r.stmt
                && o.loops.len() == o.iters.len()
                && o.loops.first() == Some(&outermost)
                && o.accesses.iter().any(|a| {
                    a.kind == AccessKind::Write
                        && a.array != array
                        && (reads(a.array) || shares)
                        && a.index.iter().any(|f| f.iter_coef(0) != 0)
                })
        });
        if !small || !along {
            return None;
        }
    }
    let l = *scop.ir.ops.iter().find(|o| o.key() == outermost)?;
    if l.name() != "affine.for" || l.num_results() != 0 {
        return None;
    }
    let (lo, hi) = constant_bounds(&l)?;
    let terms = (0..st.iters.len()).try_fold(1i64, |n, k| {
        let (a, b) = scop.range_of(r.stmt, &Form::iter(k))?;
        n.checked_mul(b.checked_sub(a)?.checked_add(1)?)
    })?;
    (hi.checked_sub(lo)? >= count && terms >= count.checked_mul(min_terms)?).then_some(l)
}

/// One reduction's cell and its partial results.
struct Cell {
    /// The statement's load and store of the cell, and its combining
    /// operation (in the input's loop).
    load: Op,
    store: Op,
    comb: Op,
    /// The cell's operand position in the combining operation.
    side: usize,
    /// The element type.
    ty: String,
    /// The partial results' buffer and the identity.
    buffer: Val,
    id: Val,
    /// For an array reduction, the array's shape: each block's partial
    /// results are a copy of the whole array (`P[t][cell]`); empty for
    /// one cell (`P[t][0]`, a line per block).
    shape: Vec<i64>,
}

/// Loops `0..extents[k]` nested at `at`, with empty bodies: the outermost
/// loop (`None` without extents), the innermost body's terminator (`at`
/// itself without extents) and the iterators, outermost first.
fn box_loops(b: &Builder, at: Op, extents: &[i64]) -> Option<(Option<Op>, Op, Vec<Val>)> {
    let mut end = at;
    let mut outer = None;
    let mut ivs = Vec::new();
    for &n in extents {
        let upper = format!("affine_map<() -> ({n})>");
        let bounds = ("affine_map<() -> (0)>", upper.as_str());
        let (l, e, iv) = new_loop(b, Point::Before(end), bounds, &[])?;
        outer.get_or_insert(l);
        end = e;
        ivs.push(iv);
    }
    Some((outer, end, ivs))
}

/// `affine.load` (`value` `None`) or `affine.store` of `value` of the cell
/// `m[ivs]` of element type `ty`, at `at`.
fn access(b: &Builder, at: Point, m: Val, ivs: &[Val], ty: &str, value: Option<Val>) -> Option<Op> {
    let dims: Vec<String> = (0..ivs.len()).map(|k| format!("d{k}")).collect();
    let map = b.attr(&format!("affine_map<({0}) -> ({0})>", dims.join(", "))).ok()?;
    let mut operands = vec![m];
    operands.extend_from_slice(ivs);
    match value {
        None => b.create_typed(at, "affine.load", &operands, &[ty], &[("map", map)]),
        Some(v) => {
            operands.insert(0, v);
            Some(b.create(at, "affine.store", &operands, 0, &[("map", map)], &[]).0)
        }
    }
}

/// Points the access `op` (an `affine.load` or `affine.store`) of an
/// array cell at block `t`'s copy in `buffer`: `buffer[t][subscripts]`.
fn redirect(b: &Builder, op: Op, buffer: Val, t: Val) -> Option<()> {
    super::demote::redirect(b, op, buffer, &[t], &[0])
}

/// Splits the top-level loop `l` of `scop` with the reductions `group`
/// into `blocks` blocks (see [`split`]), with an array reduction of a
/// multiple of `align` iterations where the last keeps some.
fn split_loop(func: Op, scop: &Scop, l: Op, group: &[&Reduction], (blocks, align): (i64, i64)) -> Option<Partials> {
    let (lo, hi) = constant_bounds(&l)?;
    let len = (hi - lo + blocks - 1) / blocks;
    // With an array reduction (atax's rows into `y`), rounded up to a
    // multiple of `align` where the last block keeps some iterations.
    let arrays = group.iter().any(|r| r.loops.len() != scop.statements[r.stmt].iters.len());
    let aligned = (len + align - 1) / align * align;
    let len = if arrays && aligned * (blocks - 1) < hi - lo { aligned } else { len };
    let entry = func.regions().first()?.blocks().first().copied()?;
    let first = *entry.ops().first()?;
    let b = Builder::new(l);
    let mut made: Vec<Op> = Vec::new();
    let undo = |made: Vec<Op>| {
        for op in made.into_iter().rev() {
            build::erase(op);
        }
    };
    let built = (|| -> Option<Partials> {
        // Each cell's buffer and identity, at the function's entry.
        let mut cells = Vec::new();
        for r in group {
            let st = &scop.statements[r.stmt];
            let store = scop.store_of(st);
            let load = scop.op_of(st.accesses.get(st.body.get(r.load)?.access?)?);
            let comb = scop.body_op(st.body.get(r.combine_op)?);
            let ty = load.result(0)?.type_text();
            let array = r.loops.len() != st.iters.len();
            let memref = *load.operands().first()?;
            // The cell's subscripts: values from outside the loop (one
            // cell), or an array from outside it whose copies fit.
            let outside = |op: Op, from: usize| op.operands().iter().skip(from).all(|v| !defined_within(*v, l));
            let shape = if array {
                let (shape, _) = static_shape(&memref.type_text())?;
                if defined_within(memref, l) {
                    return None;
                }
                shape
            } else {
                if !outside(store, 2) || !outside(load, 1) {
                    return None;
                }
                Vec::new()
            };
            let loaded = load.result(0)?.key();
            let side = comb.operands().iter().position(|v| v.key() == loaded)?;
            let id_text = identity(&comb.name(), &ty)?;
            let no_sizes = b.attr("array<i32: 0, 0>").ok()?;
            let align = b.attr("64 : i64").ok()?;
            let buffer = if array {
                // Freed before the function returns.
                let ret = *entry.ops().last()?;
                if ret.name() != "func.return" {
                    return None;
                }
                let dims: Vec<String> = std::iter::once(blocks)
                    .chain(shape.iter().copied())
                    .map(|d| d.to_string())
                    .collect();
                let alloc = b.create_typed(
                    Point::Before(first),
                    "memref.alloc",
                    &[],
                    &[&format!("memref<{}x{ty}>", dims.join("x"))],
                    &[("operandSegmentSizes", no_sizes), ("alignment", align)],
                )?;
                made.push(alloc);
                let freed = [alloc.result(0)?];
                let (free, _) = b.create(Point::Before(ret), "memref.dealloc", &freed, 0, &[], &[]);
                made.push(free);
                alloc
            } else {
                let width = (LINE_BYTES / element_bytes(&ty)?).max(1);
                let alloca = b.create_typed(
                    Point::Before(first),
                    "memref.alloca",
                    &[],
                    &[&format!("memref<{blocks}x{width}x{ty}>")],
                    &[("operandSegmentSizes", no_sizes), ("alignment", align)],
                )?;
                made.push(alloca);
                alloca
            };
            let value = b.attr(&id_text).ok()?;
            let id = b.create_typed(Point::Before(first), "arith.constant", &[], &[&ty], &[("value", value)])?;
            made.push(id);
            cells.push(Cell {
                load,
                store,
                comb,
                side,
                ty,
                buffer: buffer.result(0)?,
                id: id.result(0)?,
                shape,
            });
        }
        let blocks_map = format!("affine_map<() -> ({blocks})>");
        let zero_map = "affine_map<() -> (0)>";
        // P[t] = id: every cell of every block's copy.
        let (init, end, t) = new_loop(&b, Point::Before(l), (zero_map, &blocks_map), &[])?;
        made.push(init);
        for c in &cells {
            if c.shape.is_empty() {
                partial(&b, Point::Before(end), c.buffer, t, &c.ty, Some(c.id))?;
            } else {
                let (_, inner, ivs) = box_loops(&b, end, &c.shape)?;
                let at: Vec<Val> = std::iter::once(t).chain(ivs).collect();
                access(&b, Point::Before(inner), c.buffer, &at, &c.ty, Some(c.id))?;
            }
        }
        // The block loop, and in it the loop's copy over block t.
        let (root, end, t) = new_loop(&b, Point::Before(l), (zero_map, &blocks_map), &[])?;
        made.push(root);
        let copy = b.clone_op(Point::Before(end), l);
        let (_, inner_end, j) = new_loop(
            &b,
            Point::Before(copy),
            (
                &format!("affine_map<(d0) -> (d0 * {len} + {lo})>"),
                &format!("affine_map<(d0) -> (d0 * {len} + {}, {hi})>", lo + len),
            ),
            &[t, t],
        )?;
        let copy_body = copy.regions().first()?.blocks().first().copied()?;
        build::replace_uses(copy_body.arg(0)?, j);
        let (theirs, ours) = (l.preorder(), copy.preorder());
        let twin = |op: Op| -> Option<Op> {
            let k = theirs.iter().position(|o| o.key() == op.key())?;
            ours.get(k).copied()
        };
        let twins: Vec<(Op, Op)> = cells
            .iter()
            .map(|c| Some((twin(c.load)?, twin(c.store)?)))
            .collect::<Option<_>>()?;
        for op in copy_body.ops() {
            if op.name() != "affine.yield" {
                build::move_before(op, inner_end);
            }
        }
        build::erase(copy);
        // Each cell's load and store become P[t]'s.
        for (c, (cell_load, cell_store)) in cells.iter().zip(twins) {
            if !c.shape.is_empty() {
                redirect(&b, cell_load, c.buffer, t)?;
                redirect(&b, cell_store, c.buffer, t)?;
                continue;
            }
            let new_load = partial(&b, Point::Before(cell_load), c.buffer, t, &c.ty, None)?;
            build::replace_uses(cell_load.result(0)?, new_load.result(0)?);
            build::erase(cell_load);
            let value = *cell_store.operands().first()?;
            partial(&b, Point::Before(cell_store), c.buffer, t, &c.ty, Some(value))?;
            build::erase(cell_store);
        }
        // s = s ⊕ P[t], in block order, after the blocks.
        let after = build::next_op(root)?;
        let (fin, end, u) = new_loop(&b, Point::Before(after), (zero_map, &blocks_map), &[])?;
        made.push(fin);
        for c in &cells {
            let (at, s, part) = if c.shape.is_empty() {
                let s = b.clone_op(Point::Before(end), c.load).result(0)?;
                let part = partial(&b, Point::Before(end), c.buffer, u, &c.ty, None)?.result(0)?;
                (end, s, part)
            } else {
                let (_, inner, ivs) = box_loops(&b, end, &c.shape)?;
                let memref = *c.load.operands().first()?;
                let s = access(&b, Point::Before(inner), memref, &ivs, &c.ty, None)?.result(0)?;
                let at: Vec<Val> = std::iter::once(u).chain(ivs).collect();
                let part = access(&b, Point::Before(inner), c.buffer, &at, &c.ty, None)?.result(0)?;
                (inner, s, part)
            };
            let combined = if c.comb.name() == "arith.subf" {
                // s - e1 - e2 ... = s + P[t], P[t] = -0.0 - e1 - e2 ...
                b.create_typed(Point::Before(at), "arith.addf", &[s, part], &[&c.ty], &[])?
            } else {
                let op = b.clone_op(Point::Before(at), c.comb);
                build::set_operand(op, c.side, s);
                build::set_operand(op, 1 - c.side, part);
                op
            };
            if c.shape.is_empty() {
                let stored = b.clone_op(Point::Before(at), c.store);
                build::set_operand(stored, 0, combined.result(0)?);
            } else {
                let memref = *c.load.operands().first()?;
                let ivs: Vec<Val> = s.defining_op()?.operands().into_iter().skip(1).collect();
                access(&b, Point::Before(at), memref, &ivs, &c.ty, Some(combined.result(0)?))?;
            }
        }
        made.retain(|o| o.key() != root.key());
        build::detach(l);
        let what: Vec<String> = group
            .iter()
            .zip(&cells)
            .map(|(r, c)| {
                let st = &scop.statements[r.stmt];
                let cell = st.accesses.first().map_or("?", |a| scop.arrays[a.array.0].name.as_str());
                let op = c.comb.name().trim_start_matches("arith.").to_string();
                if c.shape.is_empty() {
                    format!("{cell} ({op})")
                } else {
                    let bytes = c.shape.iter().product::<i64>() * element_bytes(&c.ty).unwrap_or(0);
                    format!("{cell} ({op}, a private copy of {} KB per block)", (bytes + 1023) / 1024)
                }
            })
            .collect();
        let whole = cells.iter().all(|c| c.shape.is_empty());
        let note = format!(
            "the reduction{} into {} over {} split into {blocks} blocks of {len} iterations of its outer loop, with partial results combined in order after them",
            if what.len() == 1 { "" } else { "s" },
            what.join(", "),
            if whole { "the whole nest" } else { "its outer loop" },
        );
        let mut made = std::mem::take(&mut made);
        made.reverse();
        Some(Partials {
            root,
            original: l,
            made,
            note,
            arrays: !whole,
        })
    })();
    if built.is_none() {
        undo(made);
    }
    built
}
